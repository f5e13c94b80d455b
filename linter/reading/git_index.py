"""Which files git tracks in a work tree, read from its index file (`.git/index`) by k8slb
itself: `.gitignore` applies to untracked files only, so a committed folder a pattern
names (a chart under `dist/`) is still the repository's. Never by running git: git reads
the repository's configuration, where `core.fsmonitor` (and other keys) name a command it
runs. The index is read as bytes, within a budget of size and entries; an index this does
not read (another version, a layout that does not parse) says nothing is tracked, and
`.gitignore` decides alone, as before.

The format (git's Documentation/gitformat-index.txt): `DIRC`, a version (2, 3 or 4), the
number of entries; each entry 40 bytes of stat data, the object's hash (20 bytes, or 32
in a SHA-256 repository), 16 bits of flags (the name's length in the low 12; in version
3 and up, a bit saying 16 more follow), then the path: whole and padded with NULs to a
multiple of 8 (versions 2 and 3), or, in version 4, a number of bytes to cut from the
end of the previous path and what follows, NUL-ended. Entries are sorted by path."""

from __future__ import annotations

import bisect
import os
import stat
import struct

from k8slb.reading.bounded import read_bounded

MAX_INDEX_BYTES = 256 << 20  # no read takes more (README, Security)
MAX_ENTRIES = 2_000_000
_STAT_BYTES = 40
_EXTENDED = 0x4000
_NAME_MASK = 0x0FFF
_FLAGS = struct.Struct(">H")


class Tracked:
    """The paths an index holds, relative to the work tree's top, '/'-separated, as bytes
    (git's order is theirs; no name is decoded that is not asked about)."""

    def __init__(self, paths: list[bytes]) -> None:
        self.paths = sorted(paths)

    def holds(self, relative: str, *, is_dir: bool) -> bool:
        """Whether git tracks the file, or, for a folder, some file below it (a sparse
        index's folder entry, `dir/`, among them)."""
        wanted = os.fsencode(relative + "/" if is_dir else relative)
        at = bisect.bisect_left(self.paths, wanted)
        if at == len(self.paths):
            return False
        return self.paths[at].startswith(wanted) if is_dir else self.paths[at] == wanted


def index_file(top: str) -> str | None:
    """The index of the work tree at `top`: `.git/index`, or, where `.git` is a file (a
    linked worktree, a submodule), the `index` of the folder its `gitdir:` line names."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return os.path.join(dot_git, "index")
    text = _read_regular(dot_git, 4096)
    if text is None or not text.startswith(b"gitdir:"):
        return None
    named = text[len(b"gitdir:") :].split(b"\n", 1)[0].strip()
    try:
        folder = os.fsdecode(named)
    except UnicodeDecodeError:
        return None
    return os.path.join(top, folder, "index")  # an absolute `folder` replaces `top`


def tracked_in(top: str) -> Tracked | None:
    """What git tracks in the work tree at `top`, or None: no index that this reads."""
    path = index_file(top)
    data = _read_regular(path, MAX_INDEX_BYTES) if path is not None else None
    if data is None:
        return None
    for hash_bytes in (20, 32):  # SHA-1, else SHA-256: the one the whole index parses with
        paths = _entries(data, hash_bytes)
        if paths is not None:
            return Tracked(paths)
    return None


def _read_regular(path: str, most: int) -> bytes | None:
    """The bytes of a regular file (never a FIFO or a device), or None past `most` bytes
    or when it cannot be read."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > most:
            return None
        with os.fdopen(handle, "rb", buffering=0, closefd=False) as stream:
            return read_bounded(stream, most)
    except OSError:
        return None
    finally:
        os.close(handle)


def _entries(data: bytes, hash_bytes: int) -> list[bytes] | None:
    """The paths of the index's entries, read with hashes of `hash_bytes`; None where the
    data does not parse so (or is another version, or past the budget of entries)."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > MAX_ENTRIES:
        return None
    paths: list[bytes] = []
    previous = b""
    at = 12
    flags_at = _STAT_BYTES + hash_bytes
    for _ in range(count):
        start = at
        if start + flags_at + 2 > len(data):
            return None
        (flags,) = _FLAGS.unpack_from(data, start + flags_at)
        at = start + flags_at + 2
        if flags & _EXTENDED:
            if version < 3:
                return None
            at += 2
        if version == 4:
            cut, at = _varint(data, at)
            end = data.find(b"\0", at)
            if cut is None or cut > len(previous) or end < 0:
                return None
            name = previous[: len(previous) - cut] + data[at:end]
            at = end + 1
        else:
            end = data.find(b"\0", at)
            if end < 0:
                return None
            name = data[at:end]
            at = start + ((end - start) // 8 + 1) * 8  # 1 to 8 NULs end the entry
            if at > len(data) or data[end:at].strip(b"\0"):
                return None
        length = flags & _NAME_MASK
        if length < _NAME_MASK and length != len(name):
            return None  # the name's length says the hash was not that long
        previous = name
        paths.append(name)
    return paths


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    """git's offset number (version 4): 7 bits a byte, each continued byte adding one."""
    value = -1
    for step in range(10):  # more bytes than any path's length needs: refused
        if at + step >= len(data):
            return None, at
        byte = data[at + step]
        value = (value + 1) * 128 + (byte & 0x7F) if step else byte & 0x7F
        if not byte & 0x80:
            return value, at + step + 1
    return None, at
