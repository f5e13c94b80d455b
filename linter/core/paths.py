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


# The folders that hold a test's data: its inputs and the outputs it expects (Go's tool
# skips `testdata`; the others are the usual names of a test's fixtures). No deploy tool
# applies what is in them.
TEST_DATA = frozenset(
    {
        "testdata",
        "test-data",
        "test_data",
        "fixtures",
        "test_fixtures",
        "test-fixtures",
        "__fixtures__",
    }
)


def folder_of_test_data(shown: str, named: str) -> str | None:
    """The folder of a test's data (`TEST_DATA`, the topmost) that a walked file or folder
    `shown` is in below the folder the user named (`named`, normalised, which `shown`
    starts with), as shown; None when there is none. A folder above the one named is the
    user's choice: naming a test's data asks it to be judged as any other file."""
    prefix = "" if named == "." else named.rstrip("/\\") + os.sep
    if not shown.startswith(prefix) or len(shown) <= len(prefix):
        return None
    parts = path_parts(shown[len(prefix) :])
    for depth, folder in enumerate(parts[:-1]):
        if folder in TEST_DATA:
            return prefix + os.path.join(*parts[: depth + 1])
    return None
