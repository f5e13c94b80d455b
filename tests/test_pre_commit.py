"""The hooks of .pre-commit-hooks.yaml, run for real by the pre-commit package on a
temporary repository that points at this checkout (at its HEAD commit)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from k8slb.inputs.plain import SUFFIXES as YAML_SUFFIXES
from k8slb.languages import LANGUAGES
from k8slb.reading.sources import language_of
from ruamel.yaml import YAML

from .helpers import FIXTURES, ROOT


def _head() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip()


HEAD = _head()
needs_git = pytest.mark.skipif(HEAD is None, reason="this checkout is not a git repository")


@pytest.mark.parametrize(
    "suffix", [*YAML_SUFFIXES, *(s for lang in LANGUAGES.values() for s in lang.suffixes)]
)
def test_each_hook_is_passed_every_kind_of_file_k8slb_lints(suffix: str) -> None:
    """pre-commit hands a hook only the changed files whose tags (by `identify`, as
    pre-commit tells them) meet its `types_or`: a kind left out is never linted there."""
    identify = pytest.importorskip("identify.identify")
    name = f"changed{suffix}"
    assert language_of(name, explicit=False) is not None
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        assert identify.tags_from_filename(name) & set(hook["types_or"]), (hook["id"], name)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module: pre-commit installs k8slb into it once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _repository(where: Path, demo: str, hook: str) -> Path:
    repo = where / "repo"
    shutil.copytree(FIXTURES / "demo" / demo, repo)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {HEAD}\n    hooks:\n      - id: {hook}\n"
    )
    git = ["git", "-c", "user.name=k8slb", "-c", "user.email=k8slb@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "demo"], cwd=repo, check=True)
    return repo


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@needs_git
def test_the_check_hook_fails_on_the_bad_demo(tmp_path: Path, pre_commit_home: Path) -> None:
    done = _pre_commit(_repository(tmp_path, "bad", "k8slb"), pre_commit_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "k8slb" in done.stdout and "Failed" in done.stdout
    assert "backend.yaml:22:17: KLB401" in done.stdout
    assert "client.py:10:11: KLB102" in done.stdout
    assert "checkout/main.go:17:15: KLB102" in done.stdout  # Go files are passed to it too


@needs_git
def test_the_check_hook_passes_on_the_good_demo(tmp_path: Path, pre_commit_home: Path) -> None:
    done = _pre_commit(_repository(tmp_path, "good", "k8slb"), pre_commit_home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout


@needs_git
def test_the_fix_hook_fixes_the_bad_demo(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = _repository(tmp_path, "bad", "k8slb-fix")
    done = _pre_commit(repo, pre_commit_home)
    assert done.returncode == 1, done.stdout + done.stderr  # files were modified
    assert "files were modified by this hook" in done.stdout
    said = done.stdout.split("files were modified by this hook", 1)[1].strip().splitlines()
    assert said[0] == "Fixes made:" and len(said) > 2
    assert all(line.startswith("  ") and ": KLB" in line for line in said[1:]), "aligned"
    assert "preStop:" in (repo / "backend.yaml").read_text()
    assert "grpc.max_connection_age_ms" in (repo / "server.py").read_text()
    # run again on the fixed files: nothing left to change, only findings no fix can make
    # (KLB111, ...), which are the check hook's to fail on
    git = ["git", "-c", "user.name=k8slb", "-c", "user.email=k8slb@example.invalid"]
    subprocess.run([*git, "commit", "-q", "-a", "-m", "fixed"], cwd=repo, check=True)
    again = _pre_commit(repo, pre_commit_home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
