"""Which modules form one project: the folder above the outermost package that holds a
module, spelled as the paths of the run are (relative, absolute, `./`, `../`)."""

from __future__ import annotations

import os
from pathlib import PurePath, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.code import projects
from k8slb.code.facts import CodeFacts
from k8slb.code.projects import (
    GoPackages,
    _at_or_below,
    _spelled_already,
    assign_projects,
    node_module_files,
)


def by_pure_paths(path: str, scanned: set[PurePath]) -> str:
    """The rule in PurePath terms, as the strings must keep it."""
    folder = PurePath(path).parent
    while (folder / "__init__.py") in scanned and folder.parent != folder:
        folder = folder.parent
    return str(folder)


TREES = [
    ["svc/app/__init__.py", "svc/app/server.py", "svc/app/health.py", "svc/main.py"],
    ["server.py", "__init__.py", "pkg/__init__.py", "pkg/mod.py"],
    ["./a/__init__.py", "./a/b.py", "a//c/__init__.py", "a//c/d.py"],
    ["/srv/x/__init__.py", "/srv/x/y/__init__.py", "/srv/x/y/z.py", "/top.py", "/__init__.py"],
    ["../up/__init__.py", "../up/m.py", "../n.py", "a/./b/__init__.py", "a/./b/c.py"],
]


@pytest.mark.parametrize("paths", TREES)
def test_a_module_belongs_to_the_folder_above_its_outermost_package(paths: list[str]) -> None:
    modules = [CodeFacts(path, "python") for path in paths]
    assign_projects(modules)
    scanned = {PurePath(p) for p in paths}
    assert [m.project for m in modules] == [by_pure_paths(p, scanned) for p in paths]


def test_modules_of_one_package_share_a_project() -> None:
    modules = [CodeFacts(p, "python") for p in TREES[0]]
    assign_projects(modules)
    assert [m.project for m in modules] == ["svc", "svc", "svc", "svc"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["/", ".", "..", "a", "b.py"]), max_size=8).map("".join))
def test_a_path_as_a_walk_spells_it_is_taken_as_purepath_would_spell_it(path: str) -> None:
    """The check that skips PurePath (thousands of module paths a run) agrees with it."""
    assert _spelled_already(path) == (str(PurePosixPath(path)) == path)


def test_a_relative_specifier_is_looked_for_in_nodes_order() -> None:
    assert list(node_module_files("./config", "svc/src")) == [
        "svc/src/config",
        *(f"svc/src/config{suffix}" for suffix in (".js", ".mjs", ".cjs", ".ts", ".tsx")),
        *(f"svc/src/config/index{suffix}" for suffix in (".js", ".mjs", ".cjs", ".ts", ".tsx")),
    ]


def test_a_specifier_is_taken_from_the_importers_folder() -> None:
    assert next(node_module_files("../lib/config.js", "svc/src")) == "svc/lib/config.js"
    assert next(node_module_files("./config", ".")) == "config"
    assert next(node_module_files(".", "svc/src")) == "svc/src"


def test_a_typescript_import_of_a_js_file_may_name_its_ts_source() -> None:
    assert list(node_module_files("./config.js", "src"))[:3] == [
        "src/config.js",
        "src/config.ts",
        "src/config.tsx",
    ]


@pytest.mark.parametrize("specifier", ["lodash", "@grpc/grpc-js", "node:http", "/etc/config"])
def test_a_package_name_names_no_scanned_file(specifier: str) -> None:
    assert list(node_module_files(specifier, "svc")) == []


GO_FOLDERS = st.lists(
    st.lists(st.sampled_from(["a", "b", "ab", "cmd", "..", "."]), min_size=0, max_size=4).map(
        lambda parts: "/".join(parts) or "."
    ),
    min_size=1,
    max_size=12,
)


def go_packages(folders: list[str], mains: set[str] | None = None) -> GoPackages:
    """A Go file in each folder, of package main where `mains` says (all, without it)."""
    modules = {}
    for number, folder in enumerate(folders):
        path = os.path.normpath(os.path.join(folder, f"f{number}.go"))
        main = mains is None or folder in mains
        modules[path] = CodeFacts(path, "go", package="main" if main else "lib")
    return GoPackages(modules)


@settings(max_examples=200, deadline=None)
@given(GO_FOLDERS, st.sampled_from(["a", "a/", "a/b", "ab", "/", "", ".", "..", "b/cmd"]))
def test_the_packages_below_a_folder_are_those_its_path_holds(
    folders: list[str], asked: str
) -> None:
    """`mains_below` and `is_library` look a folder's packages up by the folders above each
    package: the same packages as asking each package whether it is at or below it."""
    packages = go_packages(folders, mains=set(folders[::2]))
    below = [p for p in packages.files if _at_or_below(p, asked)]
    assert packages.mains_below(asked) == sorted(p for p in below if packages.is_main(p))
    libraries = [path for p in below for path in packages.files[p]]
    assert packages.is_library(asked) == (
        bool(libraries) and all(packages.modules[p].package not in ("", "main") for p in libraries)
    )


def test_asking_each_folder_for_its_packages_does_not_scan_every_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every container's link asks whether its folder holds a Go library: at 3,000
    services, asking every package each time was most of linking (quadratic)."""
    folders = [f"svc-{number}/cmd" for number in range(300)]
    packages = go_packages(folders)
    asked: list[str] = []
    monkeypatch.setattr(
        projects,
        "_at_or_below",
        lambda inner, outer: asked.append(inner) or _at_or_below(inner, outer),
    )
    for number in range(300):
        assert not packages.is_library(f"svc-{number}")
        assert packages.mains_below(f"svc-{number}") == [f"svc-{number}/cmd"]
    assert len(asked) < len(folders)
