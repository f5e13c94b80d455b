"""The quick loop of a contributor: a module added under linter/ or rules/ is imported at
once, by the tests and by `python -m k8slb`, with no reinstall, and mypy still sees the
package. The editable install maps `k8slb` onto linter/ and `k8slb.rules` onto rules/
themselves (setuptools' lenient mode: an import hook, not a tree of links to each file),
and mypy, which cannot follow the hook, reads the same folders through links that the
Makefile makes (pyproject's mypy_path)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import k8slb
import tomllib
from k8slb.run.fingerprint import package_folders

from .helpers import ROOT


def _search_locations(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations is not None
    return [Path(folder).resolve() for folder in spec.submodule_search_locations]


def test_the_package_is_imported_from_linter_and_rules_themselves() -> None:
    """Not from a copy or a link tree keyed on the file list: a new file in the folders is
    a module of the package as soon as it is written."""
    assert _search_locations("k8slb") == [ROOT / "linter"]
    assert _search_locations("k8slb.rules") == [ROOT / "rules"]


def test_every_module_counts_in_the_code_fingerprint_and_the_servers_imports() -> None:
    """The cache's and the server's fingerprint, and what the server imports beforehand,
    walk every module of linter/ and rules/, once each, though rules/ is not inside linter/."""
    walked = sorted(Path(folder).resolve() for _, folder in package_folders())
    assert walked == [ROOT / "linter", ROOT / "rules"]
    assert [prefix for _, prefix in sorted((f, p) for p, f in package_folders())] == [
        "k8slb.",
        "k8slb.rules.",
    ]
    assert Path(k8slb.__file__).resolve().parent in walked


def test_mypy_reads_linter_and_rules_through_the_view_the_makefile_makes() -> None:
    """pyproject's mypy_path names the links `make lint` makes: k8slb is linter/ and
    k8slb.rules is rules/, whatever modules they hold."""
    views = [".mypy-view/package/k8slb", ".mypy-view/rules/k8slb/rules"]
    made = subprocess.run(
        ["make", "-s", *views], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert made.returncode == 0, made.stderr
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    roots = [
        Path(entry.replace("$MYPY_CONFIG_FILE_DIR", str(ROOT))) for entry in config["mypy_path"]
    ]
    assert [root.relative_to(ROOT).as_posix() for root in roots] == [
        ".mypy-view/package",
        ".mypy-view/rules",
    ]
    assert (roots[0] / "k8slb").resolve() == ROOT / "linter"
    assert (roots[1] / "k8slb" / "rules").resolve() == ROOT / "rules"
