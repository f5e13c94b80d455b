"""A relative path's parts and folder as `PurePath` gives them, without making a path
object: the model asks them of every manifest file of a run (deployment units, the files
of each folder), and a pre-commit run's model is of the whole tree (10,000 paths, some
25 ms as `PurePath`s). A path that is not plainly written (a leading or doubled
separator, a `.` part, a separator of Windows) goes through `PurePath`."""

from __future__ import annotations

import os
from pathlib import PurePath

# Only where `/` is the one separator: elsewhere `PurePath` also splits on the other.
_PLAIN = os.sep == "/" and os.altsep is None


def path_parts(path: str) -> tuple[str, ...]:
    """`PurePath(path).parts`."""
    if _PLAIN and path:
        parts = path.split("/")
        if "" not in parts and "." not in parts:
            return tuple(parts)
    return PurePath(path).parts


def parent_folder(path: str) -> str:
    """`str(PurePath(path).parent)`."""
    if _PLAIN and path:
        parts = path.split("/")
        if "" not in parts and "." not in parts:
            return "/".join(parts[:-1]) or "."
    return str(PurePath(path).parent)
