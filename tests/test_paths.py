"""core/paths.py: a path's parts and folder, as `PurePath` gives them."""

from pathlib import PurePath

import pytest
from k8slb.core.paths import parent_folder, path_parts

PATHS = [
    "",
    ".",
    "./",
    "a",
    "a/b",
    "a/b/c.yaml",
    "./a/b",
    "a//b",
    "a/./b",
    "a/b/",
    "/a/b",
    "//a/b",
    "///a",
    "../a",
    "a/../b",
    "a/..",
    "..",
    "a/b.",
    ".a/.b",
    "a\\b",
    "chart/t.yaml#0",
    " /a",
]


@pytest.mark.parametrize("path", PATHS)
def test_as_purepath_gives_them(path: str) -> None:
    assert path_parts(path) == PurePath(path).parts
    assert parent_folder(path) == str(PurePath(path).parent)
