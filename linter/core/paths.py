"""A relative path's parts and folder as `PurePath` gives them, without making a path
object: the model asks them of every manifest file of a run (deployment units, the files
of each folder), and a pre-commit run's model is of the whole tree (10,000 paths, some
25 ms as `PurePath`s). A path that is not plainly written (a leading or doubled
separator, a `.` part, a separator of Windows) goes through `PurePath`."""

from __future__ import annotations

import os
from collections.abc import Sequence
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
# applies what is in them (nor what is in a test suite's folders, _TEST_SUITES below).
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


# A test suite's end-to-end tests (`test/e2e/`, `tests/e2e/`): what a suite applies to
# a throwaway cluster and the programs it runs there. A folder named `e2e` alone may be
# an environment (a kustomize overlay a real install uses), so only below a test folder.
_TEST_SUITES = frozenset({("test", "e2e"), ("tests", "e2e")})


def end_of_test_data(folders: Sequence[str]) -> int | None:
    """The index in `folders` (a path's folders, outermost first) of the folder that
    makes the path a test's data: a TEST_DATA folder, or the inner one of a test suite's
    pair (`test/e2e`), the topmost found; None when there is none."""
    for at, folder in enumerate(folders):
        if folder in TEST_DATA or (at and (folders[at - 1], folder) in _TEST_SUITES):
            return at
    return None


def folder_of_test_data(shown: str, named: str) -> str | None:
    """The folder of a test's data (end_of_test_data, the topmost) that a walked file or folder
    `shown` is in below the folder the user named (`named`, normalised, which `shown`
    starts with), as shown; None when there is none. A folder above the one named is the
    user's choice: naming a test's data asks it to be judged as any other file."""
    prefix = "" if named == "." else named.rstrip("/\\") + os.sep
    if not shown.startswith(prefix) or len(shown) <= len(prefix):
        return None
    parts = path_parts(shown[len(prefix) :])
    depth = end_of_test_data(parts[:-1])
    return None if depth is None else prefix + os.path.join(*parts[: depth + 1])
