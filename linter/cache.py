"""The cache in `.k8slb_cache/`: each file's parse, keyed by k8slb's version, the file's
path and its bytes; and the result of the last run, keyed by everything it depends on
(every file's key, the settings, the day for expiring exemptions).

The cache lives in a folder named after k8slb's version and a fingerprint of its code, so
no other k8slb ever reads it. A re-run on a tree where nothing changed returns that
result without parsing or running a rule: since the key covers every input, it cannot
differ from what a full run would give. When no file's size or modification time changed
either, the files are not even read (as ruff, black and mypy trust them); a file that was
touched but holds the same bytes is read and recognised by its content.
When some files changed, only those are parsed again, and the cross-file index and every
rule run on the whole tree. Entries not used by the last run are dropped.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from pathlib import Path
from typing import Any

from k8slb import __version__, rules

CACHE_DIR = ".k8slb_cache"
_FORMAT = 2  # bump when the pickled classes change shape


def code_fingerprint() -> str:
    """k8slb's own modules (name, size, modification time): a cache made by other code,
    even under the same version number (a development checkout), is never reused."""
    digest = hashlib.blake2b(digest_size=8)
    for package in (Path(__file__).parent, Path(rules.__file__).parent):
        for module in sorted(package.rglob("*.py")):
            status = module.stat()
            digest.update(f"{module.name}:{status.st_size}:{status.st_mtime_ns};".encode())
    return digest.hexdigest()


class ParseMemo:
    """Parses by path and bytes, in memory: `k8slb fix` checks after every pass, and only
    the files it edited need parsing again. Parse results are never changed by a run."""

    def __init__(self) -> None:
        self.used: dict[str, Any] = {}

    @staticmethod
    def file_key(path: str, data: bytes) -> str:
        return hashlib.blake2b(path.encode() + b"\0" + data, digest_size=20).hexdigest()

    def parsed(self, path: str, data: bytes) -> Any:
        return self.used.get(self.file_key(path, data))

    def store(self, path: str, data: bytes, parsed: Any) -> None:
        self.used[self.file_key(path, data)] = parsed


class Cache(ParseMemo):
    """The memo on disk, plus the last run's result."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.folder = root / CACHE_DIR / f"{__version__}-{_FORMAT}-{code_fingerprint()}"
        self._files: dict[str, Any] | None = None  # loaded when a run needs parses
        # (the keys it answers to: by content, and by size and time; its result)
        self.last_run: tuple[tuple[str | None, ...], Any] | None = self._load("run.pickle")
        self.changed = False

    @property
    def files(self) -> dict[str, Any]:
        if self._files is None:
            self._files = self._load("files.pickle") or {}
        return self._files

    def _load(self, name: str) -> Any:
        try:
            with open(self.folder / name, "rb") as handle:
                return pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
            return None  # no cache, or one of another k8slb: start afresh

    def parsed(self, path: str, data: bytes) -> Any:
        key = self.file_key(path, data)
        found = self.files.get(key)
        if found is not None:
            self.used[key] = found
        return found

    def store(self, path: str, data: bytes, parsed: Any) -> None:
        super().store(path, data, parsed)
        self.changed = True

    def result(self, key: str) -> Any:
        if self.last_run is not None and key in self.last_run[0]:
            return self.last_run[1]
        return None

    def remember(self, keys: tuple[str | None, ...], result: Any) -> None:
        self.last_run = (keys, result)
        self.changed = True

    def save(self) -> None:
        """Write what the run used; a cache that cannot be written is not an error."""
        if not self.changed and (self._files is None or len(self.used) == len(self._files)):
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for stale in self.folder.parent.iterdir():  # caches of other code
                if stale.is_dir() and stale != self.folder:
                    shutil.rmtree(stale, ignore_errors=True)
            ignore = self.folder.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by k8slb: nothing here belongs in git.\n*\n")
            if self._files is not None or self.used:
                self._write("files.pickle", self.used)
            self._write("run.pickle", self.last_run)
        except OSError:
            pass

    def _write(self, name: str, value: Any) -> None:
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{name}.")
        with os.fdopen(handle, "wb") as out:
            pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, self.folder / name)


def run_key(settings_digest: str, file_keys: list[str]) -> str:
    digest = hashlib.blake2b(settings_digest.encode(), digest_size=20)
    for key in file_keys:
        digest.update(key.encode())
    return digest.hexdigest()
