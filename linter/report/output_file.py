"""A file k8slb writes whole for the user (a report, a baseline): all of it or nothing (a
temporary file, then a rename), with the mode a new file gets from the user's umask, or the
mode the file already has, as `>` in a shell (mkstemp alone would leave it 0600, and a
baseline is meant to be committed and read by others)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """Write `text` to `path`; OSError when it cannot be (nothing is left half-written)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:  # a new file
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
