"""The result store's side of one run: whether the cache already holds its result, first
by the files' stamps (nothing read), then by their bytes (nothing parsed), and keeping the
result it makes. engine.run asks it before and after reading; the parse store (the cache's
other half) is asked file by file while parsing."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence

from k8slb.core.record import record
from k8slb.core.results import RunResult
from k8slb.inputs import reader_of
from k8slb.languages import LANGUAGES
from k8slb.model.links import CodeLinks, RememberedLinks
from k8slb.reading.build_files import names_builds
from k8slb.reading.sources import Language, Source
from k8slb.run.cache import Cache, run_key

# each source's path and kind, whether reported, why unread, the test's data it is in
Plan = tuple[tuple[str, Language, bool, str | None, str | None], ...]


def plan_of(sources: Sequence[Source]) -> Plan:
    return tuple((s.path, s.language, s.report, s.unread, s.test_data) for s in sources)


@record
class WholeRun:
    """What a run that judged every file leaves for the next, which then judges again only
    the files an edit may change (incremental.after_edit): the settings' digest but for
    the files, the plan, the key of each file's bytes, and the result; and the token of
    its links (`KeptLinks`: the run's key), which are kept if that is theirs."""

    settings: str
    plan: Plan
    keys: dict[str, str]
    result: RunResult
    links: str | None = None


@record
class KeptLinks:
    """The links of the model a run that judged every file made (links.cache): the token
    of its `WholeRun`, the digest of what they rest on besides each workload
    (`links.inputs_digest`), the key of each workload's file, and the links; with the key
    of its build files' bytes and the digest of their facts (`links.builds_digest`), which
    a run whose build files are as then takes rather than works out."""

    token: str
    digest: str
    keys: dict[str, str]
    links: RememberedLinks
    builds: tuple[str, str] | None = None


# How a run's links are kept: their digest, its build facts' part, and the links, worked
# out when the cache is written (in the child that writes it, after the command).
LinksToKeep = Callable[[], tuple[str, str, RememberedLinks]]


# A word of a file, as names are written in addresses, env values and references: what
# `bytes.split` leaves once every other byte is a blank.
_WORD = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_BLANKS = bytes(b if b in _WORD else 32 for b in range(256))


def words(data: bytes) -> frozenset[str]:
    """The words of a file's bytes, lower-cased (a name of an object is found among them,
    as an address names a Service in any case); interned, so that the cache, which keeps
    every file's, pickles each word once."""
    return frozenset(sys.intern(w.decode("ascii")) for w in data.lower().translate(_BLANKS).split())


class RunMemory:
    """One run's keys into the result store: by stamps (`stat_key`), by bytes (`key`)."""

    def __init__(
        self, cache: Cache, sources: Sequence[Source], digest: str, *, by_stamps: bool
    ) -> None:
        self.cache, self.sources, self.digest = cache, sources, digest
        stamped = _stamps(sources) if by_stamps else None
        self.stamps: dict[str, str] | None = stamped[0] if stamped is not None else None
        self.racy: frozenset[str] = stamped[1] if stamped is not None else frozenset()
        self.stat_key: str | None = None
        if self.stamps is not None and not self.racy:
            self.stat_key = run_key("stat:" + digest, list(self.stamps.values()))
        self.key: str | None = None
        self.keys: dict[str, str] | None = None  # each file's bytes' key, for the parse store
        self._recognised: dict[str, str] | None = None

    def unchanged(self) -> RunResult | None:
        """The last result, when no file was touched since it was made."""
        if self.stat_key is None:
            return None
        remembered: RunResult | None = self.cache.result(self.stat_key)
        return remembered

    def recognised(self) -> dict[str, str]:
        """The files whose stamps are as the cache last saw them: their keys, known unread."""
        if self._recognised is None:
            stamps = self.stamps
            self._recognised = self.cache.known_keys(stamps) if stamps is not None else {}
        return self._recognised

    def same_bytes(self, data: Mapping[str, bytes]) -> RunResult | None:
        """The last result, when every file's bytes are as then (kept under this run's
        stamps too); the keys of the bytes are worked out once, here, for the run."""
        recognised = self.recognised()
        self.keys = {
            s.path: recognised.get(s.path) or Cache.file_key(s.path, data[s.path])
            for s in self.sources
            if s.unread is None
        }
        if self.stamps is not None:
            noted = [s.path for s in self.sources if _skippable(s) and s.path not in self.racy]
            self.cache.note_keys({path: (self.stamps[path], self.keys[path]) for path in noted})
        self.key = run_key(self.digest, list(self.keys.values()))
        remembered: RunResult | None = self.cache.result(self.key)
        if remembered is not None:
            self.cache.remember((self.key, self.stat_key), remembered)
        return remembered

    def note_words(self, data: Mapping[str, bytes]) -> None:
        """Remember the words of the files read: the next run, after an edit, finds by
        them which files name what it changed."""
        if self.keys is not None:
            keys = self.keys
            noted = {keys[path]: words(data[path]) for path in data if path in keys}
            self.cache.note_derived(noted)

    def last_whole(self, settings: str) -> WholeRun | None:
        """What the last run that judged every file with these settings left."""
        found = self.cache.last_whole()
        if isinstance(found, WholeRun) and found.settings == settings:
            return found
        return None

    def keep_whole(
        self, settings: str, result: RunResult, links: LinksToKeep | None = None
    ) -> None:
        """Leave the result of a run that judged every file (its contents left out), with
        the keys it read and the links of its model, for the next run to judge again only
        what an edit changed."""
        if self.keys is not None and all(s.report for s in self.sources):
            # the links' token is the key of these bytes and settings: a run that finds
            # them again (an edit undone, a file touched) leaves those kept as they were
            token = self.key
            whole = WholeRun(settings, plan_of(self.sources), dict(self.keys), result, token)
            self.cache.keep_whole(whole)
            if links is not None and token is not None:
                kept = functools.partial(_kept, token, dict(self.keys), links, self.builds_key())
                self.cache.keep_links(kept)

    def builds_key(self) -> str | None:
        """The key of the bytes of every file read for its build facts (a build file, a
        compose file, a package.json: engine._gather), by path; None where one has no key.
        Two runs of one key have the same build facts."""
        keys = self.keys
        if keys is None:
            return None
        said: list[str] = []
        for source in self.sources:
            reader = reader_of(source.language)
            if (reader is not None and reader.links) or names_builds(source.path):
                key = keys.get(source.path)
                if key is None:
                    return None
                said.append(f"{source.path}\0{key}")
        return run_key("builds", sorted(said))

    def kept_links(self) -> KeptLinks | None:
        """The links the last run that judged every file left, if any."""
        found = self.cache.kept_links()
        return found if isinstance(found, KeptLinks) else None

    def restore_links(self, links: CodeLinks, digest: Callable[[str | None], str]) -> None:
        """Give the model's links those the last whole run kept, of the workloads whose
        files are as then, where what links rest on is as then (`digest`, worked out only
        when some were kept, given the digest of the build facts when the build files are
        those the links were kept with): a pre-commit hook's rules ask which containers
        run the changed module, which takes every container's link."""
        kept = self.kept_links()
        keys = self.keys
        if kept is None or keys is None:
            return
        builds = kept.builds
        said = builds[1] if builds is not None and builds[0] == self.builds_key() else None
        if kept.digest != digest(said):
            return
        # (a file with no key of its bytes, a rendered one, is never as then)
        links.restore(kept.links, lambda path: keys.get(path, "") == kept.keys.get(path, None))

    def keep(self, result: RunResult) -> bool:
        """Remember the run's result (when its bytes' key is known); whether it was."""
        if self.key is None:
            return False
        self.cache.remember((self.key, self.stat_key), result)
        return True


def _kept(
    token: str, keys: dict[str, str], links: LinksToKeep, builds_key: str | None
) -> KeptLinks:
    digest, said, remembered = links()
    files = {path for path, _, _ in remembered}
    kept = {p: k for p, k in keys.items() if p in files}
    builds = (builds_key, said) if builds_key is not None else None
    return KeptLinks(token, digest, kept, remembered, builds)


def _skippable(source: Source) -> bool:
    """A file left unread when the cache knows its key: one that is parsed on its own (a
    chart, a kustomization, and a YAML or Python file that is also a build file, are read
    whole on every run)."""
    if source.unread is not None:
        return False
    reader = reader_of(source.language)
    if reader is not None:
        return reader.skippable(source.path)
    return source.language in LANGUAGES and not names_builds(source.path)


# A file changed this recently may change again within its time stamps' grain (a second on
# some file systems) without its stamp changing: it is not trusted by its stamp (git's
# "racily clean" files).
RACY_NS = 2 * 10**9


def _stamps(sources: Sequence[Source]) -> tuple[dict[str, str], frozenset[str]] | None:
    """Each read file's size and times (a chart's or a kustomization's: of every file it
    reads): when they all match the last run's, the files are not even read, and a file
    whose own stamp matches is recognised by the key the cache gave its bytes. The change
    time and the inode are in the stamp: setting a file's modification time back changes
    its change time. With the stamps, the files changed too recently to be trusted by
    them (RACY_NS). None when a file cannot be examined."""
    stamps: dict[str, str] = {}
    racy: set[str] = set()
    now = time.time_ns()
    for source in sources:
        if source.location is None:
            return None
        if source.unread is not None:
            continue  # its verdict is in the settings digest
        reader = reader_of(source.language)
        try:
            stamp = reader.stamp(source.path, source.location) if reader is not None else None
            if stamp is not None:  # a folder's: of every file it reads
                stamps[source.path] = f"{source.path}:{stamp}"
                continue
            status = os.stat(source.location)
        except OSError:
            return None
        stamps[source.path] = (
            f"{source.path}:{status.st_size}:{status.st_mtime_ns}:{status.st_ctime_ns}"
            f":{status.st_ino}"
        )
        if now - max(status.st_mtime_ns, status.st_ctime_ns) < RACY_NS:
            racy.add(source.path)
    return stamps, frozenset(racy)
