"""The cache: each file's parse, keyed by k8slb's version, the file's path and its bytes;
and the results of the last few runs, each keyed by everything it depends on (every file's
key, the settings, the day for expiring exemptions).

Where: in the user's cache folder (`$K8SLB_CACHE_DIR`, else `$XDG_CACHE_HOME/k8slb`, else
`~/.cache/k8slb`), one folder per project root, never inside the scanned tree. A
repository k8slb lints is untrusted: it could commit a cache that runs code when loaded,
or a symbolic link that turns "remove a stale cache" into "remove my home folder". So:
- nothing is read from or written to the scanned tree;
- every folder on the way is created by k8slb with mode 0700 and checked before use: a
  real folder (not a symbolic link) owned by the running user, else no cache at all;
- only folders that carry k8slb's marker file are ever removed, and never through a link;
- each file carries a checksum of its payload (one changed byte: the file is ignored),
  and is unpickled by an unpickler that builds only k8slb's own data classes (and calls
  only the few functions of k8slb's that rebuild them: data_pickle.py), so even a forged
  file cannot run code; so is an object's body, or a module's code, pickled apart inside
  a parse and loaded when first read.

Inside a project's folder, the cache lives in a folder named after k8slb's version and a
fingerprint of its code, so no other k8slb ever reads it. A re-run on a tree where nothing
changed returns the last result without parsing or running a rule: since the key covers
every input, it cannot differ from what a full run would give. When no file's size or
modification time changed either, the files are not even read (as ruff, black and mypy
trust them); a file that was touched but holds the same bytes is read and recognised by
its content. When some files changed, only those are read and parsed again: a file whose
stamp (size, modification and change times, inode) is the one its bytes were last read
under is recognised by the key of those bytes, unread (not a file changed in the last two
seconds: its stamp may not show a second change); the cross-file index is made of the
whole tree, and after a run that judged every file (whose plan, keys, result and links whole.cache
keeps, with each file's words by its key in words.cache) the rules judge again only the
files the change may affect (incremental.after_edit). The last four runs are remembered, each with
its result (a whole-tree run and a pre-commit hook's runs take turns without undoing each
other), and every parse they used; of a file none of them read, only the newest parse is
kept, for 64 runs. The parses live in files.cache, written whole only when some must go or
many are new: a run that adds a few (a pre-commit hook's) writes them, and which runs used
the others, to recent.cache beside it. A resident `k8slb server` holds the parse store of
the project last worked on, loaded and unpickled between runs (keep_warm): a run it forks
takes it only while the store's files on disk are the very ones it was loaded from.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from k8slb.core import regex

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no fork, the cache is written in place
    fcntl = None  # type: ignore[assignment]

from k8slb import __version__
from k8slb.core.home import own_folders, user_cache_dir
from k8slb.core.record import record
from k8slb.run.data_pickle import load_data, load_indexed
from k8slb.run.fingerprint import code_fingerprint
from k8slb.run.parsing import pickled

MARKER = "CACHEDIR.TAG"  # the Cache Directory Tagging convention: backup tools skip it
_MARKER_TEXT = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# This folder is a cache made by k8slb; it is safe to delete.\n"
)
_FORMAT = 34  # bump when the pickled classes or the files' layout change shape
_MAGIC = b"k8slb-cache\n"
# The checksum finds damage (a torn write, a flipped bit), not forgery: a forger would
# write a matching one, so what keeps a cache file from running code is the unpickler. A
# CRC-32 is five times quicker than a cryptographic hash over the parse store, which a
# pre-commit run reads whole (15 MB for 8,000 files).
_DIGEST_SIZE = 4


def _checksum(payload: bytes) -> bytes:
    return zlib.crc32(payload).to_bytes(_DIGEST_SIZE, "big")


def dumps(value: Any) -> bytes:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _MAGIC + _checksum(payload) + payload


_HEAD = len(_MAGIC) + _DIGEST_SIZE


def loads(data: bytes) -> Any:
    """The value `dumps` stored; None for anything else (damaged, forged, another k8slb)."""
    return _checked_load(data[:_HEAD], data[_HEAD:])


def _checked_load(head: bytes, payload: bytes, *, apart: bool = False) -> Any:
    """`loads` (or, `apart`, `loads_store`) of a file read in two parts: the parse store is
    20 MB at 10,000 files, and slicing its payload off the whole would copy it."""
    if head[: len(_MAGIC)] != _MAGIC or len(head) < _HEAD:
        return None
    if _checksum(payload) != head[len(_MAGIC) :]:
        return None
    return _load_apart(payload) if apart else load_data(payload)


# The parse store (files.cache, recent.cache) keeps each parse's pickle out of the pickle
# of its index (pickle's out-of-band buffers): loaded, each is a view of the file's bytes
# rather than a copy. A pre-commit run reads the whole store, 20 MB at 10,000 files, and
# copying every pickle out of it was some 15 ms and 5,000 pages of memory touched.
# Its payload: how many pickles (4 bytes), the length of each (8 bytes each), the index's
# pickle, then the pickles one after another; all big-endian, all under the checksum.
_COUNT, _LENGTH = 4, 8


def dumps_store(value: tuple[Any, ...]) -> bytes:
    """A parse store as `loads_store` reads it: the pickle of each entry of its parts that
    are entries (`Entry`, by key) goes after the index."""
    value = tuple(_apart(part) if part and _valid_entries(part) else part for part in value)
    apart: list[pickle.PickleBuffer] = []
    index = pickle.dumps(value, protocol=5, buffer_callback=apart.append)
    pickles = [part.raw() for part in apart]
    lengths = struct.pack(f">{len(pickles)}Q", *(len(p) for p in pickles))
    payload = b"".join([len(pickles).to_bytes(_COUNT, "big"), lengths, index, *pickles])
    return _MAGIC + _checksum(payload) + payload


def loads_store(data: bytes) -> Any:
    """The value `dumps_store` stored, each parse's pickle a view of `data`; None for
    anything else."""
    return _checked_load(data[:_HEAD], data[_HEAD:], apart=True)


def _load_apart(payload: bytes) -> Any:
    """A parse store's payload loaded, data only; None when its table of pickles does not
    fit it (a forged count or length) or its index asks for more pickles than it holds."""
    view = memoryview(payload)
    count = int.from_bytes(view[:_COUNT], "big")
    table = _COUNT + _LENGTH * count
    if len(view) < _COUNT or table > len(view):
        return None
    lengths = struct.unpack_from(f">{count}Q", view, _COUNT)
    start = len(view) - sum(lengths)
    if start < table:
        return None
    pickles = []
    for length in lengths:
        pickles.append(view[start : start + length])
        start += length
    return load_indexed(payload, table, pickles)


def _apart(entries: dict[str, Entry]) -> dict[str, tuple[int, str, pickle.PickleBuffer]]:
    """The store's entries with each parse's pickle to go apart (`dumps_store`)."""
    return {
        key: (run, path, pickle.PickleBuffer(blob)) for key, (run, path, blob) in entries.items()
    }


def _remove_tree(folder: Path) -> None:
    """Remove a folder k8slb made, never following a symbolic link out of it."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            _remove_tree(Path(entry.path))
        else:
            os.unlink(entry.path)
    os.rmdir(folder)


class ParseMemo:
    """Parses by path and bytes, in memory: `k8slb fix` checks after every pass, and only
    the files it edited need parsing again. Parse results are never changed by a run."""

    def __init__(self) -> None:
        self.used: dict[str, Any] = {}

    @staticmethod
    def file_key(path: str, data: bytes) -> str:
        return hashlib.blake2b(path.encode() + b"\0" + data, digest_size=20).hexdigest()

    def parsed(self, path: str, data: bytes) -> Any:
        return self.parsed_by_key(self.file_key(path, data), path)

    def parsed_by_key(self, key: str, path: str) -> Any:
        """The parse of the bytes whose `file_key` is `key`, or None."""
        return self.used.get(key)

    def store(self, path: str, data: bytes, parsed: Any, blob: bytes | None = None) -> None:
        self.store_by_key(self.file_key(path, data), path, parsed, blob)

    def store_by_key(self, key: str, path: str, parsed: Any, blob: bytes | None = None) -> None:
        """Remember a parse; `blob` is its pickle when one was made anyway (a parse worker
        sends its results pickled), which the cache on disk keeps as it is."""
        self.used[key] = parsed

    # A run's build facts kept by the key of the files that make them (engine._KeptFacts):
    # by the cache on disk, not in memory (a memo's runs are the fixer's passes, the
    # editor's edits: their build files are parsed once anyway).
    keeps_facts = False

    def build_facts(self, key: str) -> Any:
        """The build facts a run whose build files had this key made, or None."""
        return None

    def keep_build_facts(self, key: str, blob: bytes) -> None:
        """Keep a run's build facts (their pickle, taken as they were made) by that key."""

    def keep_unread(self, key: str, path: str) -> bool:
        """Keep the parse of these bytes as used by this run without loading it (a build
        file whose facts are taken as kept); False when it is not kept."""
        return False


# What a cache remembers: the results of the last few runs (a whole-tree run and the
# pre-commit hook's one-file runs take turns, and each should find its own); the parse of
# every file those runs read; and, for a file no recent run read, its newest parse for a
# while longer (the hook may run many times between two whole-tree runs), but never an
# older version of it (a file that changes on every run must not fill the cache).
KEPT_RUNS = 4
KEPT_NEWEST_RUNS = 64
RECENT_SHARE = 4  # recent.cache alone while its new parses are under a quarter of the store
LOCK = "write.lock"  # held by the process writing the cache (see Cache.save)


def _can_fork() -> bool:
    """fork() copies only the calling thread: with another alive, a lock it holds could
    never be released in the child (the command line has one thread)."""
    import threading

    return fcntl is not None and hasattr(os, "fork") and threading.active_count() == 1


# The caches saved in the background by this process, written when it is done
# (write_waiting). Forked any earlier, the writer would share the whole heap with a process
# still at work: every page that process then touched, freeing the run's trees and
# rendering its report, would be copied (at 8,000 files, 38,000 pages and a third of a
# second). Once forked, the writer's cache is kept, never freed, for the same reason: the
# process ends anyway.
_waiting: list[Cache] = []
_written: list[Cache] = []


def write_waiting() -> None:
    """Fork the writer of each cache saved in the background: the command is done, its
    report out."""
    while _waiting:
        cache = _waiting.pop(0)
        _written.append(cache)
        cache._save_in_child()


_RESULT_NAME = regex.compile(r"result-[0-9a-f]{16}\.cache")

RunKeys = tuple[str | None, ...]  # the keys a result answers to: by content, by size and time
# a parse: the last run that used it, the file's path, its pickle (a view of the store's)
Entry = tuple[int, str, bytes | memoryview]


class Cache(ParseMemo):
    """The memo on disk, plus the results of the last runs, for the project at
    `project_root`. Each parse is kept as its own pickle, with the number of the last run
    that used it, and unpickled only when a run asks for it; each result is a file of its
    own, loaded only when its key comes up."""

    def __init__(
        self, project_root: Path, base: Path | None = None, *, background: bool = False
    ) -> None:
        if base is None:
            found = user_cache_dir()
            base = Path(found) if found is not None else None
        project = hashlib.blake2b(str(project_root.resolve()).encode(), digest_size=10)
        self._open(base, project.hexdigest(), background)

    @classmethod
    def in_folder(cls, folder: Path) -> Cache:
        """The cache kept in `folder` (a project's folder of this k8slb), as a server reads
        it: without waiting for a run writing it (what it read is checked against the
        files' identity instead)."""
        cache = cls.__new__(cls)
        cache._open(folder.parent.parent, folder.parent.name, background=False, wait=False)
        return cache

    def _open(self, base: Path | None, project: str, background: bool, wait: bool = True) -> None:
        super().__init__()
        # write from a child process, so that the command ends once its report is out
        # (the command line's choice; a library caller gets its cache written on return)
        self.background = background
        self.base = base
        self.project = project
        self.version = cache_version()
        self.folder = self.base / self.project / self.version if self.base is not None else None
        # key -> (number of the last run that used it, path, pickle); loaded when a run parses
        self._files: dict[str, Entry] | None = None
        # the parse store as files.cache holds it: its token, each entry's run, its size
        self._base: tuple[str, dict[str, int], int] | None = None
        self.generation = 0  # this run's number, counted by the runs that parse
        # what this run used or made: path, and its pickle (or the parse, pickled on writing)
        self.kept: dict[str, tuple[str, Any]] = {}
        if wait:
            for saved in [c for c in _waiting if c.folder == self.folder]:
                _waiting.remove(saved)
                saved._save()  # saved by this process (`check --fix`): written, then read
            self._wait_for_writer()
        self.runs: list[tuple[RunKeys, str]] = _valid_runs(self._load("run.cache"))
        # path -> (stamp, key): the key of each file's bytes when its size and times were
        # those of the stamp; loaded when a run's stamps are not all as the last run's
        self._stamped: dict[str, tuple[str, str]] | None = None
        self._remembered: tuple[RunKeys, Any] | None = None
        # what the last run that judged every file left for the next (incremental.py), and
        # each file's words and whether its code makes an address of pieces, by its key
        self._whole: Any = None
        self._whole_kept = False
        self._links: Callable[[], Any] | None = None  # made when written (links.cache)
        # the build facts of the last run that read them, by the key of their files (the
        # key, and their pickle) as facts.cache holds them; and this run's, to write
        self._facts: tuple[str, bytes] | None = None
        self._facts_kept: tuple[str, bytes] | None = None
        self._words: dict[str, frozenset[str]] | None = None
        self._composes: dict[str, bool] = {}
        # noted by this run, and merged with words.cache only when it is loaded: a run
        # that never asks (a pre-commit hook's) does not load it
        self._new_derived: tuple[dict[str, frozenset[str]], dict[str, bool]] = ({}, {})
        self.changed = False
        self._parses: dict[str, Any] = {}  # key -> parse, unpickled by a server beforehand
        warm = _warm.get(self.folder) if self.folder is not None else None
        if warm is not None and warm.identity == _identity(warm.folder):
            # the store as it is on disk, loaded by the server this run was forked from;
            # copied, as a run changes its own (what it used, which stamps it saw)
            self._files, self._base = dict(warm.files), warm.base
            self.generation, self._stamped = warm.generation, dict(warm.stamped)
            self._parses = warm.parses

    @property
    def files(self) -> dict[str, Entry]:
        """The parse store: files.cache, with recent.cache over it (the entries added and
        the runs that used the others since files.cache was written, when it was written
        for that files.cache: its token)."""
        if self._files is None:
            stored = self._load("files.cache")
            entries: dict[str, Entry] = stored[1] if _valid_files(stored) else {}
            generation = stored[0] if entries else -1
            if entries:
                token = stored[2]
                self._base = (token, {k: e[0] for k, e in entries.items()}, stored[3])
                recent = self._load("recent.cache")
                if _valid_recent(recent) and recent[1] == token:
                    generation, _, uses, added = recent
                    for key, run in uses.items():
                        if key in entries:
                            _, path, blob = entries[key]
                            entries[key] = (run, path, blob)
                    entries.update(added)
            self.generation = generation + 1 if entries else 0
            self._files = entries
        return self._files

    def _usable(self) -> bool:
        """Every folder from the base down exists (made if need be) and is ours."""
        if self.base is None or self.folder is None:
            return False
        if not own_folders((self.base, self.folder.parent, self.folder), create=True):
            return False
        marker = self.base / MARKER
        if not marker.is_file() or marker.is_symlink():
            self._write(self.base, MARKER, _MARKER_TEXT)
        if not (self.folder / MARKER).is_file():
            self._write(self.folder, MARKER, _MARKER_TEXT)
        return True

    def walks_folder(self) -> Path | None:
        """This code's cache folder for the project, where a walk of its tree is kept
        (reading/walks.py): only one a run already made (it holds the marker), and ours."""
        if self.folder is None or not self._readable() or not (self.folder / MARKER).is_file():
            return None
        return self.folder

    def _readable(self) -> bool:
        """Every folder from the base down exists and is ours: missing, a link, or another
        user's, nothing is read from it."""
        if self.folder is None or self.base is None:
            return False
        return own_folders((self.base, self.folder.parent, self.folder), create=False)

    def _load(self, name: str) -> Any:
        """A cache file's value (of the parse store, its pickles apart: `loads_store`)."""
        if not self._readable():
            return None
        assert self.folder is not None
        try:  # O_NOFOLLOW: a link planted in place of the file is not read
            handle = os.open(self.folder / name, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(handle, "rb", buffering=0) as stored:  # unbuffered: no copy
            if os.fstat(stored.fileno()).st_uid != os.getuid():
                return None
            head = stored.read(_HEAD)
            return _checked_load(head, stored.readall(), apart=name in _STORE_APART)

    @property
    def stamped(self) -> dict[str, tuple[str, str]]:
        if self._stamped is None:
            self._stamped = _valid_stamps(self._load("stamps.cache"))
        return self._stamped

    def known_keys(self, stamps: dict[str, str]) -> dict[str, str]:
        """The key of each file whose stamp is the one its key was noted with, and whose
        parse is kept: such a file need not be read."""
        known: dict[str, str] = {}
        for path, (stamp, key) in self.stamped.items():
            if stamps.get(path) == stamp and key in self.files:
                known[path] = key
        return known

    def note_keys(self, keys: dict[str, tuple[str, str]]) -> None:
        """Remember the key of each file's bytes with the stamp they were read under."""
        if any(self.stamped.get(path) != noted for path, noted in keys.items()):
            self.stamped.update(keys)
            self.changed = True

    def parsed_by_key(self, key: str, path: str) -> Any:
        made = self.kept.get(key)  # asked again within the process (the fixer's passes)
        if made is not None:
            return load_data(made[1]) if isinstance(made[1], bytes | memoryview) else made[1]
        entry = self.files.get(key)
        if entry is None:
            return None
        found = self._parses.get(key)
        if found is None:
            found = load_data(entry[2])  # checked with the whole file; still only data
        if found is not None:
            self.kept[key] = (path, entry[2])
        return found

    def store_by_key(self, key: str, path: str, parsed: Any, blob: bytes | None = None) -> None:
        # its own pickle (made when the cache is written): a run that changed one file
        # writes the other entries back as they were, without pickling them again
        self.kept[key] = (path, parsed if blob is None else blob)
        self.changed = True

    def holds(self, key: str) -> bool:
        """Whether the parse of the bytes whose key this is is kept."""
        return key in self.kept or key in self.files

    def last_whole(self) -> Any:
        """What the last run that judged every file left for the next, or None."""
        if self._whole is None and not self._whole_kept:
            self._whole = self._load("whole.cache")
        return self._whole

    def keep_whole(self, whole: Any) -> None:
        self._whole, self._whole_kept = whole, True
        self.changed = True

    keeps_facts = True

    def build_facts(self, key: str) -> Any:
        """The build facts a run whose build files had this key made (engine._gather), or
        None: not kept, or kept for other files."""
        if self._facts is None:
            stored = self._load("facts.cache")
            valid = isinstance(stored, tuple) and len(stored) == 2
            self._facts = stored if valid and _is_facts(*stored) else ("", b"")
        found, blob = self._facts_kept or self._facts
        return load_data(blob) if found == key and blob else None

    def keep_build_facts(self, key: str, blob: bytes) -> None:
        """Keep a run's build facts by the key of their files, unless they are those kept
        already."""
        if (self._facts_kept or self._facts or ("", b""))[0] != key:
            self._facts_kept = (key, blob)
            self.changed = True

    def keep_unread(self, key: str, path: str) -> bool:
        entry = self.files.get(key)
        if entry is None:
            return False
        self.kept.setdefault(key, (path, entry[2]))
        return True

    def kept_links(self) -> Any:
        """The links the last run that judged every file kept (run_memory.KeptLinks)."""
        return self._load("links.cache")

    def keep_links(self, make: Callable[[], Any]) -> None:
        """Keep the links `make` gives when the cache is written: in the child that
        writes it, after the command (at 3,000 workloads, some 0.1 s to work out)."""
        self._links = make
        self.changed = True

    @property
    def words(self) -> dict[str, frozenset[str]]:
        """Each file's words (incremental.words), by the key of its bytes."""
        if self._words is None:
            stored = self._load("words.cache")
            valid = isinstance(stored, tuple) and len(stored) == 2
            words, composes = stored if valid else ({}, {})
            self._words = words if _valid_derived(words, frozenset) else {}
            self._composes = composes if _valid_derived(composes, bool) else {}
            self._words.update(self._new_derived[0])
            self._composes.update(self._new_derived[1])
        return self._words

    @property
    def composes(self) -> dict[str, bool]:
        """Whether each module's code makes an address of pieces, by the key of its bytes."""
        self.words  # noqa: B018 - loaded together
        return self._composes

    def note_derived(
        self, words: dict[str, frozenset[str]], composes: dict[str, bool] | None = None
    ) -> None:
        """Remember what was worked out of some files' bytes and parses."""
        if words or composes:
            self._new_derived[0].update(words)
            self._new_derived[1].update(composes or {})
            if self._words is not None:  # loaded already
                self._words.update(words)
                self._composes.update(composes or {})
            self.changed = True

    def result(self, key: str) -> Any:
        """The result of a remembered run with this key, or None."""
        for keys, name in self.runs:
            if key in keys:
                return self._load(name)
        return None

    def remember(self, keys: RunKeys, result: Any) -> None:
        self._remembered = (keys, result)
        self.changed = True

    def save(self) -> None:
        """Write what the run used; a cache that cannot be written is not an error. In the
        background (the command line), a child process writes it once the command is done
        (write_waiting), holding the folder's write lock, which the next run waits for
        before it reads anything."""
        if not self.changed and (self._files is None or len(self.kept) == len(self._files)):
            return
        if not self.background or not _can_fork():
            self._save()
            return
        if self not in _waiting:
            _waiting.append(self)

    def _save_in_child(self) -> None:
        """Fork a child that writes the cache, holding the folder's write lock."""
        try:
            if not self._usable():
                return
            assert self.folder is not None
            lock = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            if lock < 3:  # a command started with its streams closed: keep clear of them
                lock, low = fcntl.fcntl(lock, fcntl.F_DUPFD, 3), lock
                os.close(low)
        except OSError:
            return
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run's writer finishes first
            child = os.fork() if _can_fork() else None
        except OSError:
            child = None
        if child is None:
            os.close(lock)
            self._save()
            return
        if child:
            os.close(lock)  # the child holds the lock until it has written
            return
        try:  # the child: detached from the terminal and from every stream of the command
            os.setsid()
            quiet = os.open(os.devnull, os.O_RDWR)
            for stream in (0, 1, 2):
                os.dup2(quiet, stream)
            os.closerange(3, lock)
            os.closerange(lock + 1, 65536)
            self._save()
        finally:
            os._exit(0)

    def _wait_for_writer(self) -> None:
        """Wait while another run's child writes this cache (see save)."""
        if fcntl is None or not self._readable():
            return
        assert self.folder is not None
        try:
            lock = os.open(self.folder / LOCK, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return  # none: no run has written here in the background
        try:
            fcntl.flock(lock, fcntl.LOCK_SH)
        except OSError:
            pass
        finally:
            os.close(lock)

    def _save(self) -> None:
        try:
            if not self._usable():
                return
            assert self.folder is not None
            self._remove_stale()
            if self._files is not None or self.kept:
                generation, entries = self._entries()
                self._write_entries(generation, entries)
                if self._stamped is not None:  # only the stamps of parses still kept
                    stamped = {p: n for p, n in self._stamped.items() if n[1] in entries}
                    self._write(self.folder, "stamps.cache", dumps(stamped))
                if any(self._new_derived):  # of the parses still kept
                    words = {k: w for k, w in self.words.items() if k in entries}
                    composes = {k: c for k, c in self._composes.items() if k in entries}
                    self._write(self.folder, "words.cache", dumps((words, composes)))
            if self._whole_kept:
                self._write(self.folder, "whole.cache", dumps(self._whole))
            if self._links is not None:
                self._write(self.folder, "links.cache", dumps(self._links()))
            if self._facts_kept is not None:
                self._write(self.folder, "facts.cache", dumps(self._facts_kept))
            if self._remembered is not None:
                self._save_result(*self._remembered)
        except OSError:
            pass

    def _write_entries(self, generation: int, entries: dict[str, Entry]) -> None:
        """Write the parse store. When every entry of files.cache is still kept and the
        new ones are small beside it (a pre-commit run adds the changed files' parses),
        only recent.cache is written: those entries, and the run that last used each of
        the others. Otherwise files.cache is written whole, with a new token."""
        assert self.folder is not None
        if self._base is not None:
            token, runs, size = self._base
            added = {key: entry for key, entry in entries.items() if key not in runs}
            if all(key in entries for key in runs) and (
                sum(len(entry[2]) for entry in added.values()) * RECENT_SHARE < size
            ):
                uses = {key: entries[key][0] for key, run in runs.items() if entries[key][0] != run}
                store = dumps_store((generation, token, uses, added))
                self._write(self.folder, "recent.cache", store)
                return
        token = os.urandom(8).hex()
        size = sum(len(entry[2]) for entry in entries.values())
        store = dumps_store((generation, entries, token, size))
        self._write(self.folder, "files.cache", store)
        (self.folder / "recent.cache").unlink(missing_ok=True)

    def _entries(self) -> tuple[int, dict[str, Entry]]:
        """This run's entries, those another of the last runs used, and each other file's
        newest (see KEPT_NEWEST_RUNS)."""
        recent = self.generation - KEPT_RUNS + 1
        newest: dict[str, tuple[int, str]] = {}  # path -> (run, key) of its newest entry
        for key, (run, path, _) in (self._files or {}).items():
            if run > newest.get(path, (-1, ""))[0]:
                newest[path] = (run, key)
        for path, _ in self.kept.values():
            newest.pop(path, None)  # read by this run: its older versions may go
        oldest = self.generation - KEPT_NEWEST_RUNS + 1
        entries = {
            key: entry
            for key, entry in (self._files or {}).items()
            if entry[0] >= recent
            or (entry[0] >= oldest and newest.get(entry[1], (0, ""))[1] == key)
        }
        entries.update(
            (key, (self.generation, path, blob if _is_pickle(blob) else pickled(blob)))
            for key, (path, blob) in self.kept.items()
        )
        return self.generation, entries

    def _save_result(self, keys: RunKeys, result: Any) -> None:
        assert self.folder is not None
        name = f"result-{hashlib.blake2b(repr(keys).encode(), digest_size=8).hexdigest()}.cache"
        self._write(self.folder, name, dumps(result))
        runs = [(keys, name), *((k, n) for k, n in self.runs if n != name)]
        self.runs = runs[:KEPT_RUNS]
        self._write(self.folder, "run.cache", dumps(self.runs))
        for _, old in runs[KEPT_RUNS:]:
            (self.folder / old).unlink(missing_ok=True)

    def _remove_stale(self) -> None:
        """The caches of other k8slb code for this project: only folders with the marker."""
        assert self.folder is not None
        for entry in os.scandir(self.folder.parent):
            stale = Path(entry.path)
            if stale == self.folder or not entry.is_dir(follow_symlinks=False):
                continue
            if (stale / MARKER).is_file() and not (stale / MARKER).is_symlink():
                _remove_tree(stale)

    @staticmethod
    def _write(folder: Path, name: str, data: bytes) -> None:
        import tempfile  # only when there is something to write

        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, folder / name)
        except OSError:
            Path(temporary).unlink(missing_ok=True)
            raise


_STORE_APART = ("files.cache", "recent.cache")  # written by dumps_store


def cache_version() -> str:
    """The folder, inside a project's, of this k8slb's cache: no other code reads it."""
    return f"{__version__}-{_FORMAT}-{code_fingerprint()}"


# The files of a parse store whose identity (inode, size, modification time) tells whether
# it is still what was loaded: each is replaced whole (written aside, then renamed).
_STORE_FILES = ("files.cache", "recent.cache", "stamps.cache")


def _identity(folder: Path) -> tuple[tuple[int, int, int] | None, ...]:
    def one(name: str) -> tuple[int, int, int] | None:
        try:
            status = os.lstat(folder / name)
        except OSError:
            return None
        return status.st_ino, status.st_size, status.st_mtime_ns

    return tuple(one(name) for name in _STORE_FILES)


@record
class _Warm:
    """A project's parse store loaded, and every parse in it unpickled, by a server."""

    folder: Path
    identity: tuple[tuple[int, int, int] | None, ...]
    files: dict[str, Entry]
    base: tuple[str, dict[str, int], int] | None
    generation: int
    stamped: dict[str, tuple[str, str]]
    parses: dict[str, Any]


_warm: dict[Path | None, _Warm] = {}  # by folder: the one a server keeps warm


def keep_warm(interrupted: Callable[[], bool] = lambda: False) -> bool:
    """In a resident server (server.py), between runs: hold the parse store of the project
    whose cache was written last, loaded and every parse unpickled (at 8,000 files, most of
    what a pre-commit run does once k8slb is imported). A run the server forks adopts it
    while the files on disk are still those it was loaded from, else reads them itself.
    Loading stops, to be started again at the next call, as soon as `interrupted()` (a run
    waits: it comes first). Whether the store held was let go (its memory is to collect)."""
    found = user_cache_dir()
    if found is None:
        return False
    version = cache_version()
    folders = [f for f in Path(found).glob(f"*/{version}") if (f / "files.cache").is_file()]
    if not folders:
        return False
    latest = max(folders, key=lambda f: max((s[2] for s in _identity(f) if s), default=0))
    known = _warm.get(latest)
    if known is not None and known.identity == _identity(latest):
        return False
    dropped = bool(_warm)
    _warm.clear()
    identity = _identity(latest)
    cache = Cache.in_folder(latest)
    files, stamped = cache.files, cache.stamped
    parses: dict[str, Any] = {}
    for count, (key, (_, _, blob)) in enumerate(files.items()):
        if count % _WARM_STEP == 0 and interrupted():
            return dropped
        parsed = load_data(blob)
        if parsed is not None:
            parses[key] = parsed
    if _identity(latest) != identity:
        return dropped  # written meanwhile: taken at the next call
    _warm[latest] = _Warm(latest, identity, files, cache._base, cache.generation, stamped, parses)
    return dropped


_WARM_STEP = 256  # parses unpickled between two looks for a waiting run (some 5 ms)


def held_store() -> tuple[Path, int] | None:
    """The folder and size of the parse store keep_warm holds, if any."""
    warm = next(iter(_warm.values()), None)
    return (warm.folder, len(warm.parses)) if warm is not None else None


def _valid_runs(stored: Any) -> list[tuple[RunKeys, str]]:
    """The index of remembered results, if it is one; a result's file name must be one
    k8slb makes (a damaged index could otherwise name any file)."""
    if not isinstance(stored, list):
        return []
    return [
        (keys, name)
        for keys, name in (e for e in stored if isinstance(e, tuple) and len(e) == 2)
        if isinstance(keys, tuple)
        and all(isinstance(k, str | None) for k in keys)
        and isinstance(name, str)
        and _RESULT_NAME.fullmatch(name)
    ]


def _valid_stamps(stored: Any) -> dict[str, tuple[str, str]]:
    """The stamps and keys of files, if that is what was stored; else none."""
    if not isinstance(stored, dict) or not all(
        isinstance(path, str)
        and isinstance(noted, tuple)
        and len(noted) == 2
        and all(isinstance(part, str) for part in noted)
        for path, noted in stored.items()
    ):
        return {}
    return stored


def _valid_derived(stored: Any, kind: type) -> bool:
    """A mapping of keys to values of one kind, if that is what was stored."""
    return isinstance(stored, dict) and all(isinstance(v, kind) for v in stored.values())


def _valid_entries(entries: Any) -> bool:
    return isinstance(entries, dict) and all(
        isinstance(k, str)
        and isinstance(e, tuple)
        and len(e) == 3
        and isinstance(e[0], int)
        and isinstance(e[1], str)
        and _is_pickle(e[2])
        for k, e in entries.items()
    )


def _is_facts(key: object, blob: object) -> bool:
    """facts.cache: the key of the build files, and the pickle of their facts."""
    return isinstance(key, str) and isinstance(blob, bytes)


def _is_pickle(blob: object) -> bool:
    """A parse's pickle: its bytes, or a view of the store's (`loads_store`)."""
    return isinstance(blob, bytes) or (isinstance(blob, memoryview) and blob.format == "B")


def _valid_files(stored: Any) -> bool:
    """files.cache: (generation, entries, token, total size of the pickles)."""
    return (
        isinstance(stored, tuple)
        and len(stored) == 4
        and isinstance(stored[0], int)
        and _valid_entries(stored[1])
        and isinstance(stored[2], str)
        and isinstance(stored[3], int)
    )


def _valid_recent(stored: Any) -> bool:
    """recent.cache: (generation, token of its files.cache, key -> run, entries added)."""
    return (
        isinstance(stored, tuple)
        and len(stored) == 4
        and isinstance(stored[0], int)
        and isinstance(stored[1], str)
        and isinstance(stored[2], dict)
        and all(isinstance(k, str) and isinstance(r, int) for k, r in stored[2].items())
        and _valid_entries(stored[3])
    )


def run_key(settings_digest: str, file_keys: list[str]) -> str:
    digest = hashlib.blake2b(settings_digest.encode(), digest_size=20)
    for key in file_keys:
        digest.update(key.encode())
    return digest.hexdigest()
