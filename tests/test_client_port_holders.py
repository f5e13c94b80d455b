"""KLB111's workloads whose image holds a module no container runs (`_Holders`): the
links' folders read once a check and looked up by the module's own folders, the same
workloads in the same order as testing every link's folder against the module."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

from k8slb.rules.client_port_not_exposed import _Holders

from .helpers import within_cpu

FOLDERS = [
    ".",
    "",
    "/",
    "//",
    "a",
    "a/",
    "./a",
    "a/b",
    "a/b/",
    "a/bc",
    "ab",
    "a/b/c",
    "..",
    "../a",
    "b",
    "a//b",
    "/a",
    "/a/b",
]
PATHS = [
    "a",
    "a/b",
    "a/b/c.py",
    "a/bc/d.py",
    "ab/x.py",
    "b/a/b.py",
    "x.py",
    "../a/m.go",
    "/a/b/c.py",
    "/x.py",
    "a/b/c/d/e.js",
    ".",
]


def within(path: str, folder: str) -> bool:
    """The test each link's folder had: the folder is `.`, the path, or above it."""
    return folder in (".", path) or path.startswith(folder.rstrip("/") + "/")


class Links:
    """`CodeLinks.folders` of fixed links, counting how often it is read."""

    def __init__(self, links: list[tuple[object, str, bool]]) -> None:
        self.links = links
        self.reads = 0

    def folders(self) -> Iterator[tuple[object, str, bool]]:
        self.reads += 1
        yield from self.links


def test_the_holders_are_those_every_links_folder_holds_in_the_links_order() -> None:
    # each folder twice (two workloads, or one workload's two containers), some guessed
    links = [
        (f"w{n}", folder, n % 5 == 4)
        for n, folder in enumerate(itertools.chain(FOLDERS, reversed(FOLDERS)))
    ]
    links.append(("w0", "a", False))  # a workload with a second container
    fake = Links(links)
    holders = _Holders(cast(Any, SimpleNamespace(links=fake)))
    for path in PATHS:
        path = os.path.normpath(path)
        expected = tuple(
            w
            for w, folder, guessed in links
            if not guessed and within(path, os.path.normpath(folder))
        )
        assert holders.of(path) == expected, path
    assert fake.reads == 1  # once, however many modules ask


def test_no_link_is_read_until_a_module_asks() -> None:
    fake = Links([("w", "a", False)])
    _Holders(cast(Any, SimpleNamespace(links=fake)))
    assert fake.reads == 0  # (a hook's run whose modules all run somewhere reads no body)


def test_modules_thousands_of_folders_deep_are_looked_up_in_time_linear_in_the_links() -> None:
    # each `/` of such a path was a slice and a lookup: 3,000 modules 3,000 folders deep,
    # about 9 s of CPU; now a lookup only where a link's folder could end
    code = (
        "from types import SimpleNamespace\n"
        "from k8slb.rules.client_port_not_exposed import _Holders\n"
        "links = [(f'w{n}', f'svc{n}', False) for n in range(200)]\n"
        "links.append(('deep', 'a/' * 1500, False))\n"
        "holders = _Holders(SimpleNamespace(links=SimpleNamespace(folders=lambda: links)))\n"
        "path = 'a/' * 3000 + 'x.py'\n"
        "print(sum(len(holders.of(path)) for _ in range(3000)))\n"
    )
    done = within_cpu([sys.executable, "-c", code], cpu_seconds=4)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3000"
