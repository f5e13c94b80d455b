"""The README's install snippets work as written: a glob reaches pip expanded, and every
version of k8slb they pin exists in this repository."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

README = (ROOT / "README.md").read_text("utf-8")
DEFAULT_BRANCH = "main"  # what a snippet may pin while the repository has no release tag

# A shell command line of a fenced block (`sh`, or a CI file's `run:`/`- ` step).
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _shell_lines() -> list[str]:
    lines = []
    for language, body in _BLOCK.findall(README):
        for line in body.splitlines():
            command = re.sub(r"^\s*(?:- run:|-)?\s*", "", line) if language == "yaml" else line
            if re.match(r"(python -m )?pip (install|wheel)\b", command):
                lines.append(command)
    return lines


def _pinned_refs() -> list[str]:
    """Every ref of k8slb's repository the README pins: `@ref` after its address (pip,
    GitHub Actions) and the `rev:` of its pre-commit entry."""
    refs = re.findall(r"(?:github\.com/)?k8slb/k8slb@([\w.\-/]+)", README)
    refs += re.findall(r"repo: https://github\.com/k8slb/k8slb\n\s+rev: (\S+)", README)
    return refs


def test_the_readme_pins_k8slb_in_every_install_snippet() -> None:
    assert len(_pinned_refs()) >= 5  # pip, pre-commit, the action, pip in CI, GitLab


@pytest.mark.parametrize("ref", sorted(set(_pinned_refs())))
def test_every_ref_the_readme_pins_exists(ref: str) -> None:
    """A snippet pinning a tag that was never made fails at the user's first install."""
    if ref == DEFAULT_BRANCH:
        return
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("this checkout is not a git repository")
    tags = subprocess.run(
        ["git", "-C", str(ROOT), "tag", "--list", ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert tags == [ref], f"the README pins {ref}, which is no tag of this repository"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("line", [line for line in _shell_lines() if "*" in line])
def test_a_glob_in_a_pip_snippet_reaches_pip_expanded(tmp_path: Path, line: str) -> None:
    """Run by bash, as pasted, in a folder that holds the wheel the snippet builds; pip and
    python stubbed to print what they are given."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    wheel = tmp_path / "dist" / f"k8slb-{version}-cp311-cp311-linux_x86_64.whl"
    wheel.parent.mkdir()
    wheel.touch()
    stubs = "pip() { printf '%s\\n' \"$@\"; }\npython() { :; }\n"
    done = subprocess.run(
        ["bash", "-c", stubs + line], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    given = done.stdout.splitlines()
    assert given[0] == "install"
    assert not [a for a in given if "*" in a], given
    assert f"dist/{wheel.name}[helm]" in given
