"""Writing fixed files: atomically, never over a change made since the file was read, and
never through a symbolic link or into a read-only file."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks
    fcntl = None  # type: ignore[assignment]


def cannot_write(path: Path) -> str | None:
    """Why `path` must not be written, or None."""
    if path.is_symlink():
        return f"is a symbolic link (to {os.readlink(path)}); fix the file it points to"
    if not os.access(path, os.W_OK):
        return "is read-only"
    return None


def write_atomically(path: Path, old: bytes, new: bytes) -> str | None:
    """Replace the file's bytes `old` with `new`; the reason when it was not done. The
    check that nothing changed and the rename happen under a lock on the folder, so two
    `k8slb fix` runs at once never lose each other's edits: the second is told to re-run."""
    reason = cannot_write(path)
    if reason is not None:
        return reason
    try:
        with _folder_lock(path.parent):
            _remove_stale_temporaries(path.parent)
            return _replace(path, old, new)
    except OSError as error:
        return f"cannot be written: {error.strerror or error}"


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


# mkstemp's names: `.NAME.` + 8 characters + `.k8slb` (no walk reads a `.k8slb` file).
_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.k8slb")


def _remove_stale_temporaries(folder: Path) -> None:
    """Temporaries a killed run left behind. Under the folder's lock no other run is
    writing one here, so every such file is stale."""
    for entry in os.scandir(folder):
        if _TEMPORARY.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _replace(path: Path, old: bytes, new: bytes) -> str | None:
    if path.read_bytes() != old:
        return "changed on disk since k8slb read it; run k8slb fix again"
    mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".k8slb", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(new)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise
    return None
