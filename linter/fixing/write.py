"""Writing fixed files: atomically, never over a change made since the file was read, and
never through a symbolic link or into a read-only file.

A run writes all its files together: every new text goes to a temporary beside its file,
the temporaries reach the disk with one flush of their file system (one `fsync` per file
made a large fix spend most of its writing time waiting for the disk), and only then does
each folder, under its lock, have its files replaced by renames."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]


_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def cannot_write(path: Path) -> str | None:
    """Why `path` must not be written, or None."""
    if path.is_symlink():
        return f"is a symbolic link (to {os.readlink(path)}); fix the file it points to"
    try:
        info = path.stat()
    except OSError as error:  # gone since it was read, or its folder unreadable
        return _cannot(error)
    # the mode bits too: root (a CI container) may write anything, os.access says so
    if not info.st_mode & _WRITE_BITS or not os.access(path, os.W_OK):
        return "is read-only"
    if info.st_nlink > 1:  # a rename gives this name a new file: the other names keep the old
        return (
            f"has {info.st_nlink - 1} other hard link(s), which writing by rename would part "
            "from it; edit it by hand or break the link first"
        )
    return None


def write_atomically(path: Path, old: bytes, new: bytes) -> str | None:
    """Replace the file's bytes `old` with `new`; the reason when it was not done."""
    return write_all([(path, old, new)]).get(path)


def write_all(changes: Sequence[tuple[Path, bytes, bytes]]) -> dict[Path, str]:
    """Replace each file's bytes `old` with `new`; why, for each file that was not. The
    check that nothing changed and the rename happen under a lock on the folder, so two
    `k8slb fix` runs at once never lose each other's edits: the second is told to re-run."""
    problems: dict[Path, str] = {}
    staged: dict[Path, list[tuple[Path, bytes, bytes, str]]] = defaultdict(list)
    pending: set[str] = set()  # temporaries not renamed (yet): removed at the end
    try:
        for path, old, new in changes:
            reason = cannot_write(path)
            if reason is not None:
                problems[path] = reason
                continue
            try:
                temporary = _stage(path, new)
            except OSError as error:
                problems[path] = _cannot(error)
                continue
            pending.add(temporary)
            staged[path.parent].append((path, old, new, temporary))
        try:
            _flush(sorted(pending))
        except OSError as error:  # not known to be on disk: no file is replaced
            return {**problems, **{f[0]: _cannot(error) for fs in staged.values() for f in fs}}
        for folder, files in staged.items():
            problems.update(_replace_in(folder, files, pending))
    finally:  # whatever happened, no temporary of this run stays behind
        for temporary in pending:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return problems


def _cannot(error: OSError) -> str:
    return f"cannot be written: {error.strerror or error}"


def _stage(path: Path, new: bytes) -> str:
    """A temporary beside `path` holding `new`, named after this process so that another
    run can tell it from one a killed run left."""
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}-", suffix=".k8slb", dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(new)
    except OSError:
        os.unlink(temporary)
        raise
    return temporary


def _flush(temporaries: Sequence[str]) -> None:
    """Have the temporaries' bytes on disk before any rename makes them a file's only copy:
    with one `syncfs` per file system where there is one (Linux), otherwise with `fsync`
    per file."""
    syncfs = _syncfs() if len(temporaries) > 1 else None
    by_device: dict[int, list[str]] = defaultdict(list)
    for temporary in temporaries:
        by_device[os.stat(temporary).st_dev].append(temporary)
    for files in by_device.values():
        if syncfs is None or not _flushed(files[0], syncfs):
            for temporary in files:
                _fsync(temporary)


def _fsync(path: str) -> None:
    handle = os.open(path, os.O_RDWR)  # ours, still 0600: some systems fsync writers only
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _flushed(path: str, syncfs: Callable[[int], int]) -> bool:
    """Whether the file system holding `path` was flushed whole."""
    handle = os.open(path, os.O_RDONLY)
    try:
        return syncfs(handle) == 0
    finally:
        os.close(handle)


def _syncfs() -> Callable[[int], int] | None:
    """Linux's `syncfs(fd)`, which Python's os module does not offer; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: only a run that writes many files pays for it

    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


def _replace_in(
    folder: Path, files: Sequence[tuple[Path, bytes, bytes, str]], pending: set[str]
) -> dict[Path, str]:
    """Rename each file's temporary over it (and out of `pending`), under the folder's
    lock, unless the file changed since it was read."""
    problems: dict[Path, str] = {}
    try:
        with _folder_lock(folder):
            _remove_stale_temporaries(folder, {path.name: new for path, _, new, _ in files})
            for path, old, _, temporary in files:
                try:
                    problem = _replace(path, old, temporary)
                except OSError as error:
                    problem = _cannot(error)
                if problem is None:
                    pending.discard(temporary)
                else:
                    problems[path] = problem
    except OSError as error:
        for path, *_ in files:
            problems.setdefault(path, _cannot(error))
    return problems


def _replace(path: Path, old: bytes, temporary: str) -> str | None:
    if path.read_bytes() != old:
        return "changed on disk since k8slb read it; run k8slb fix again"
    reason = cannot_write(path)  # again under the lock: a link or a mode may have come since
    if reason is not None:
        return reason
    os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
    os.replace(temporary, path)
    return None


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder (on its own descriptor: every run opens its own)."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


# mkstemp's names: `.NAME.` + the writer's process id + `-` + 8 characters + `.k8slb` (no
# walk reads a `.k8slb` file); before the process id was in them, `.NAME.` + 8 + `.k8slb`.
_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?:(?P<pid>[0-9]+)-)?[a-z0-9_]{8}\.k8slb")


def _remove_stale_temporaries(folder: Path, writing: dict[str, bytes]) -> None:
    """Temporaries a killed run left behind for the files this run writes (by name, their
    new bytes). A name proves nothing (a repository may commit any): only a temporary shown
    to be k8slb's is removed (see `_left_by_a_killed_run`); any other file stays."""
    for entry in os.scandir(folder):
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or match["name"] not in writing or _alive(match["pid"]):
            continue
        if _left_by_a_killed_run(entry.path, writing[match["name"]]):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _left_by_a_killed_run(path: str, new: bytes) -> bool:
    """Whether `path` is what a killed run staged for a file this run writes `new` to: a
    file of the running user's alone (one link), still in mkstemp's mode 0600, whose bytes
    begin `new` (a run killed while writing it left a part of the same fix). Removing it
    then loses nothing that is not about to be written."""
    try:
        # never through a link, and a FIFO must not block the open
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        handle = os.open(path, flags)
    except OSError:
        return False
    with os.fdopen(handle, "rb") as staged:
        info = os.fstat(handle)
        if (
            not stat.S_ISREG(info.st_mode)
            or stat.S_IMODE(info.st_mode) != 0o600
            or info.st_nlink != 1
            or info.st_uid != getattr(os, "geteuid", lambda: info.st_uid)()
            or info.st_size > len(new)
        ):
            return False
        return staged.read(len(new) + 1) == new[: info.st_size]


def _alive(pid: str | None) -> bool:
    """Whether the process that named a temporary may still be writing it."""
    if pid is None:
        return False
    if sys.platform == "win32":  # there os.kill(pid, 0) would end the process: leave it be
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or no such number: leave it be
    return True
