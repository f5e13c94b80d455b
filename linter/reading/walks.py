"""A walk of a tree remembered by the stamps of what it rests on, so that the next walk of
an unchanged tree stats its folders instead of listing them and asking each file its kind.

What a walk finds rests on each folder's entries (a folder's modification time moves when
an entry is added, removed or renamed in it; its change time when its permissions do), on
the .gitignore files it read (a file's content moves no folder's stamp: each is stamped
itself), on the folders from the walked one up to the repository's top (a .gitignore or a
`.git` made there), and on the kinds of files by their paths (this code's: the memory is
kept in the folder of this code's cache). A walk is not remembered when it cannot be
trusted so: outside a repository (a `.git` above would change what is read), with a
symbolic link among the files it found (what is read and excluded rests on the target),
a .gitignore that is a link, a folder that could not be read, or a stamp too recent to
say whether a change in the same instant moved it (git's "racily clean" files)."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

WALK_FILE = "walk.cache"
_FORMAT = 1
# A stamp this recent may not have moved with a change made in the same instant (a file
# system's time grain is up to two seconds): the walk is not remembered.
RACY_NS = 2 * 10**9

Stamp = tuple[int, int, int, int, int]  # mode, modification and change times, inode, device
Found = tuple[str, str, "str | None"]  # (path as shown, kind, why it is not read)


def stamp_of(path: str) -> Stamp | None:
    """The stamp of a folder or a file, not through a link; None when it is not there."""
    try:
        status = os.lstat(path)
    except OSError:
        return None
    return (
        status.st_mode,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_ino,
        status.st_dev,
    )


class Stamps:
    """The stamps a walk rests on, taken before what they cover is read; `trusted` turns
    False at anything that makes the walk unfit to remember."""

    def __init__(self) -> None:
        self.start = time.time_ns()
        self.taken: list[tuple[str, Stamp | None]] = []
        self.trusted = True

    def add(self, path: str) -> None:
        found = stamp_of(path)
        self.taken.append((path, found))
        if found is not None and self.start - max(found[1], found[2]) < RACY_NS:
            self.trusted = False

    def add_ignore_file(self, folder: str) -> None:
        """The .gitignore of a folder (its absence too): a link to one is not trusted."""
        path = os.path.join(folder, ".gitignore")
        self.add(path)
        found = self.taken[-1][1]
        if found is not None and stat.S_ISLNK(found[0]):
            self.trusted = False

    def add_folders_up_to(self, base: str, top: str | None) -> None:
        """Each folder from `base` up to the repository's `top`, and its .gitignore."""
        if top is None or not (base == top or base.startswith(top.rstrip(os.sep) + os.sep)):
            self.trusted = False  # outside a repository: a `.git` anywhere above counts
            return
        folder = base
        while True:
            self.add(folder)
            self.add_ignore_file(folder)
            if folder == top:
                return
            parent = os.path.dirname(folder)
            if parent == folder:
                self.trusted = False
                return
            folder = parent


def walk_key(base: str, shown: str, kustomize: bool, exclude: object) -> str:
    """What else a walk's result rests on: where it starts, how its paths are shown,
    whether kustomizations are read whole, and the patterns left out."""
    return json.dumps([_FORMAT, base, shown, kustomize, repr(exclude)])


def remembered(folder: Path, key: str) -> list[Found] | None:
    """The walk kept in `folder` under `key`, when every stamp it rests on is as then."""
    try:
        kept = json.loads((folder / WALK_FILE).read_bytes())
        if kept["key"] != key:
            return None
        for path, stamp in kept["stamps"]:
            found = stamp_of(path)
            if (list(found) if found is not None else None) != stamp:
                return None
        return [
            (str(shown), str(kind), None if unread is None else str(unread))
            for shown, kind, unread in kept["found"]
        ]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def remember(folder: Path, key: str, stamps: Stamps, found: Sequence[Found]) -> None:
    """Keep the walk in `folder` (a cache's folder this code already made), when it can
    be trusted."""
    if not stamps.trusted:
        return
    data = json.dumps({"key": key, "stamps": stamps.taken, "found": list(found)})
    import tempfile  # only when there is something to write

    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{WALK_FILE}.")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(data)
        os.replace(temporary, folder / WALK_FILE)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
