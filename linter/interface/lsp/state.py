"""One workspace folder as the server keeps it between two judgements: the plan `check`
makes of it (its configuration, its files), the parses of the last run, and the text of
the buffers open in the editor, which stands for the file on disk while it is unsaved.

Each judgement is a `check` of the folder (the workspace is the context: a Service edited
changes what is said about the code that dials it), with the buffers' text over the
files' and the parses of every unchanged file taken from memory; after an edit, only the
files whose findings it may change are judged again (incremental.py).
"""

from __future__ import annotations

import os
from collections.abc import Set as AbstractSet
from dataclasses import replace
from pathlib import Path
from typing import Any

from k8slb.core.paths import folder_of_test_data
from k8slb.core.results import RunResult
from k8slb.fixing.fixer import FixOutcome
from k8slb.inputs import reader_of, reported
from k8slb.interface import api
from k8slb.reading.charts import pack, pack_members, unpack
from k8slb.reading.encodings import UTF8, codec_for
from k8slb.reading.repository import inside
from k8slb.reading.sources import Source, language_of
from k8slb.run import incremental
from k8slb.run.cache import ParseMemo
from k8slb.run.config import YAML_NAMES
from k8slb.run.engine import detached

# The files that configure a run: a change to one of them is a new plan.
CONFIG_NAMES = frozenset({*YAML_NAMES, "pyproject.toml"})


# What tells a file changed on disk without reading it: its times, size and inode.
Stamp = tuple[int, int, int, int]

# What a judgement reads: the plan, every file's bytes, the other files' (baseline, values).
Inputs = tuple["api.Run | None", dict[str, bytes], tuple[bytes | None, ...]]


class SessionMemo(ParseMemo):
    """Parses kept in memory from one judgement to the next, but only those the last one
    used: each keystroke's text is a new key, and the old ones must not pile up."""

    def __init__(self) -> None:
        super().__init__()
        self._touched: set[str] = set()
        self._keys: dict[str, tuple[bytes, str]] = {}  # path -> the bytes last keyed, key

    def file_key(self, path: str, data: bytes) -> str:  # type: ignore[override]
        """The key of a file's bytes, hashed again only when they are other bytes than the
        last judgement's (a judgement keys every file of the workspace)."""
        known = self._keys.get(path)
        if known is not None and known[0] is data:
            return known[1]
        key = super().file_key(path, data)
        self._keys[path] = (data, key)
        return key

    def parsed_by_key(self, key: str, path: str) -> Any:
        self._touched.add(key)
        return super().parsed_by_key(key, path)

    def store_by_key(self, key: str, path: str, parsed: Any, blob: bytes | None = None) -> None:
        self._touched.add(key)
        super().store_by_key(key, path, parsed, blob)

    def forget_unused(self) -> None:
        if not self._touched:  # a judgement that stood (no byte changed) read no parse
            return
        self.used = {key: parsed for key, parsed in self.used.items() if key in self._touched}
        self._touched = set()


class Workspace:
    """A workspace folder: `plan()` reads its configuration and finds its files again,
    `judge()` checks it with the open buffers' text."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        self.buffers: dict[str, str] = {}  # path -> the editor's text
        self.memo = SessionMemo()
        self.run: api.Run | None = None
        self.problem: str | None = None  # why there is no plan (a configuration broken)
        self.result: RunResult | None = None  # the last judgement
        self._judged: Inputs = (None, {}, ())  # what the last judgement read
        # the last judgement's model and findings, for the next to judge only what an edit
        # may change (incremental.py)
        self.judgement: incremental.Judgement | None = None
        self._sources: dict[str, Source] = {}
        self._disk: dict[str, tuple[Stamp, bytes]] = {}  # path -> its stamp and bytes read
        self._texts: dict[str, tuple[bytes, str]] = {}  # path -> bytes and their text
        self._charts: list[Source] = []

    def owns(self, path: str) -> bool:
        return inside(path, self.root)

    def plan(self) -> None:
        """The configuration read and the files found again, as `check ROOT` does."""
        try:
            self.run = api.plan([self.root])
            self.problem = None
        except (api.ConfigError, api.UsageError) as error:
            self.run, self.problem = None, str(error)
        sources = self.run.found.sources if self.run is not None else []
        self._sources = {source.path: source for source in sources}
        self._charts = [s for s in sources if _packs_folder(s) and s.location is not None]

    def knows(self, path: str) -> bool:
        """Whether a judgement reads the file: one of the plan's, or in one of its charts."""
        return path in self._sources or self.chart_of(path) is not None

    def chart_named(self, path: str) -> Source | None:
        """The chart whose source is `path` (its folder, as the plan names it)."""
        return next((c for c in self._charts if c.path == path), None)

    def chart_of(self, path: str) -> Source | None:
        return next((c for c in self._charts if c.location and inside(path, c.location)), None)

    def matters(self, path: str) -> bool:
        """Whether the file's text can change a judgement: one the plan found, or of a
        kind k8slb reads (a new file; a Markdown file, for the builds its shell blocks
        name); a LICENSE's keystrokes judge nothing."""
        return self.knows(path) or language_of(path, explicit=False) is not None

    def touched(self, path: str, *, added_or_gone: bool) -> str | None:
        """What a file changed on disk calls for: "plan" (the configuration, an ignore
        file, a file of a kind k8slb reads come or gone), "judge" (a file a judgement
        reads, the baseline), or None (a file no judgement reads: `.git/`'s, a build's)."""
        self._disk.pop(path, None)  # read again, whatever its stamp says
        name = os.path.basename(path)
        if name in CONFIG_NAMES or name == ".gitignore":
            return "plan"
        if added_or_gone and self.matters(path):
            return "plan"
        baseline = self.run.baseline if self.run is not None else None
        if self.knows(path) or (baseline is not None and path == os.path.abspath(baseline)):
            return "judge"
        return None

    def open(self, path: str, text: str) -> bool:
        """The buffer's text stands for the file from now on; True when the plan must be
        made again first (a file the last plan did not find, on disk now)."""
        self.buffers[path] = text
        return not self.knows(path) and os.path.isfile(path)

    def close(self, path: str) -> None:
        self.buffers.pop(path, None)

    def contents(self) -> dict[str, bytes]:
        """The bytes that stand for files on disk: each buffer in its file's encoding, and
        each chart holding a buffer packed with it."""
        read = {source.path for source in self.sources()}
        given = {path: _encoded(path, text) for path, text in self.buffers.items() if path in read}
        for chart in self._charts:
            folder = chart.location
            held = {p: t for p, t in self.buffers.items() if folder and inside(p, folder)}
            if not held or folder is None:
                continue
            try:
                members = unpack(pack(folder))
            except OSError:
                continue  # the judgement reports it
            for path, text in held.items():
                members[Path(os.path.relpath(path, folder)).as_posix()] = _encoded(path, text)
            given[chart.path] = pack_members(members)
        return given

    def sources(self) -> list[Source]:
        """The plan's files, and each open buffer of a kind k8slb reads that is on no disk
        yet (a new file, unsaved)."""
        extra = [
            Source(  # as discover's
                path,
                language,
                path,
                report=reported(language, path),
                test_data=folder_of_test_data(path, os.path.normpath(self.root)),
            )
            for path in self.buffers
            if path not in self._sources
            and not os.path.exists(path)
            and (language := language_of(path, explicit=False)) is not None
        ]
        return [*self._sources.values(), *extra]

    def judge(self) -> RunResult | None:
        """Check the folder with the buffers' text; None without a plan. Every file is read
        here, and when no byte differs from the last judgement's (a save of the text just
        judged, the watcher's word on it) that judgement stands."""
        if self.run is None:
            return None
        run = self.run
        sources = self.sources()
        if len(sources) != len(run.found.sources):
            run = _with_sources(run, sources)
        read = (self.run, self._read(sources), self._other_inputs())
        if self.result is not None and self._judged == read:
            return self.result
        judged = incremental.judge(
            run.found.sources, run.settings, read[1], memo=self.memo, before=self.judgement
        )
        self.memo.forget_unused()
        self.judgement = judged if isinstance(judged, incremental.Judgement) else None
        result = detached(judged.result if isinstance(judged, incremental.Judgement) else judged)
        result.errors[:0] = run.found.errors
        if run.baseline is not None and run.baseline.is_file():
            api.apply_baseline(result, run.baseline, report_unused=False)
        self.result, self._judged = result, read
        return result

    def _read(self, sources: list[Source]) -> dict[str, bytes]:
        """Every file's bytes, a buffer's over its file's; a file that cannot be read is
        left for the check to say so."""
        given = self.contents()
        kept: dict[str, tuple[Stamp, bytes]] = {}
        for source in sources:
            if source.unread is None and source.path not in given:
                try:
                    given[source.path] = self._bytes_of(source, kept)
                except OSError:
                    continue
        self._disk = kept
        return given

    def read_from_disk(self, path: str) -> bool:
        """Whether the last judgement read the file from disk, a file of its own."""
        return path in self._disk

    def _bytes_of(self, source: Source, kept: dict[str, tuple[Stamp, bytes]]) -> bytes:
        """A file's bytes, as the last judgement read them while the file's stamp (its
        times, size, inode) is the same: a judgement reads only the files that changed."""
        reader = reader_of(source.language)
        if (reader is not None and reader.renders) or source.location != source.path:
            return source.read()  # a chart's or a build's files: packed again
        status = os.stat(source.path)
        stamp = (status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino)
        known = self._disk.get(source.path)
        data = known[1] if known is not None and known[0] == stamp else source.read()
        kept[source.path] = (stamp, data)
        return data

    def _other_inputs(self) -> tuple[bytes | None, ...]:
        """The bytes of what else a judgement reads: the baseline, the values files the
        configuration names for every chart."""
        if self.run is None:
            return ()
        baseline = [str(self.run.baseline)] if self.run.baseline is not None else []
        return tuple(map(_bytes_of, [*baseline, *self.run.settings.helm.values]))

    def fix_file(self, path: str) -> FixOutcome | None:
        """`k8slb fix` of the safe fixes of one file's findings (in a chart's template:
        made in the chart), on the buffers' text; nothing is written."""
        if self.run is None:
            return None
        only: AbstractSet[str] = {path}
        chart = self.chart_of(path)
        if chart is not None:
            only = {path, chart.path}
        run = _with_sources(self.run, self.sources())
        return api.fix(run, jobs=1, contents=self.contents(), memo=self.memo, only=only)

    def text_of(self, path: str) -> str | None:
        """The file's text as the editor has it: its buffer, else the file as read by the
        last judgement, else from disk; None when it cannot be read as text."""
        if path in self.buffers:
            return self.buffers[path]
        data = self.result.contents.get(path) if self.result is not None else None
        if data is None:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                return None
        known = self._texts.get(path)
        if known is not None and known[0] is data:  # decoded once while the bytes hold
            return known[1]
        codec = codec_for(path, data) or UTF8
        try:
            text = codec.decode(data)
        except UnicodeDecodeError:
            return None
        self._texts[path] = (data, text)
        return text


def _bytes_of(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _encoded(path: str, text: str) -> bytes:
    """The editor's text as the file's bytes would be: in the encoding the file declares
    (its byte-order mark kept, as the editor keeps it when it saves)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        head = text[:4096].encode("utf-8", "replace")
    codec = codec_for(path, head) or UTF8
    try:
        return codec.encode(text)
    except UnicodeEncodeError:
        return UTF8.encode(text)


def _with_sources(run: api.Run, sources: list[Source]) -> api.Run:
    return replace(run, found=replace(run.found, sources=sources))


def _packs_folder(source: Source) -> bool:
    """Whether a source's text is its folder's files packed (a chart's)."""
    reader = reader_of(source.language)
    return reader is not None and reader.packs_folder
