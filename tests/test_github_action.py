"""The GitHub Action: action.yml runs scripts/github-action.sh, which this test runs the
way the runner does (with the installed k8slb instead of a fresh `pip install`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from .helpers import FIXTURES, ROOT

SCRIPT = ROOT / "scripts" / "github-action.sh"


def _runner(**inputs: str) -> dict[str, str]:
    """The environment the runner gives the script, with this k8slb instead of an install."""
    return {
        **os.environ,
        "K8SLB_PYTHON": sys.executable,
        "K8SLB_SKIP_INSTALL": "1",
        "GITHUB_ACTION_PATH": str(ROOT),
        **inputs,
    }


def _script(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT)], cwd=folder, env=env, capture_output=True, text=True, check=False
    )


def test_the_action_runs_the_script_with_its_inputs() -> None:
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    assert set(action["inputs"]) == {"paths", "sarif", "args"}
    setup, step = action["runs"]["steps"]
    assert setup["with"]["update-environment"] is False, "the job's own Python is left alone"
    assert "scripts/github-action.sh" in step["run"]
    assert set(step["env"]) == {"K8SLB_PYTHON", "K8SLB_PATHS", "K8SLB_SARIF", "K8SLB_ARGS"}
    expected = "${{ steps." + setup["id"] + ".outputs.python-path }}"
    assert step["env"]["K8SLB_PYTHON"] == expected
    assert '"${GITHUB_ACTION_PATH:?}[helm]"' in SCRIPT.read_text(), "charts are rendered"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_annotates_and_writes_sarif(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / "bad")
    env = _runner(K8SLB_PATHS="bad", K8SLB_SARIF="k8slb.sarif", K8SLB_ARGS="--isolated --no-cache")
    done = _script(tmp_path, env)
    assert done.returncode == 1, done.stderr
    assert any(
        line.startswith("::warning file=bad/backend.yaml") for line in done.stdout.splitlines()
    )
    assert json.loads((tmp_path / "k8slb.sarif").read_text())["version"] == "2.1.0"
    clean = _script(
        tmp_path, {**env, "K8SLB_ARGS": "--isolated --no-cache --select KLB104", "K8SLB_SARIF": ""}
    )
    assert clean.returncode == 0 and clean.stdout == ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_quoted_arguments_stay_whole_and_the_job_gets_a_summary(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / "my bad")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = _runner(
        GITHUB_STEP_SUMMARY=str(summary),
        K8SLB_PATHS="'my bad'",
        K8SLB_SARIF="",
        K8SLB_ARGS='--isolated --no-cache --select "KLB401, KLB301"',
    )
    done = _script(tmp_path, env)
    assert done.returncode == 1, done.stderr
    rules = {line.split("title=")[1].split(" ")[0] for line in done.stdout.splitlines()}
    assert rules == {"KLB401", "KLB301"}
    written = summary.read_text()
    assert written.startswith("earlier step\n## k8slb\n"), "appended to the job's summary"
    assert "| KLB301 shared-probe | info | 1 |" in written
    assert "| my bad/backend.yaml:22:17 | KLB401 no-prestop | warning |" in written


# Modules a pull request could commit at its root to run code on the runner: each one that
# is imported leaves a mark outside the repository and stops its interpreter.
_PLANTED = ("click.py", "shlex.py", "yaml.py", "venv.py", "pip/__init__.py", "k8slb/__init__.py")
_PLANTED_MAIN = ("pip/__main__.py", "k8slb/__main__.py", "venv/__main__.py")


def _plant(repository: Path, marks: Path) -> None:
    for name in _PLANTED + _PLANTED_MAIN:
        module = repository / name
        module.parent.mkdir(parents=True, exist_ok=True)
        mark = marks / name.replace("/", ".")
        module.write_text(f"open({str(mark)!r}, 'w').close()\nraise SystemExit(97)\n")
    (repository / "venv.py").unlink()  # a package venv/ and a module venv.py cannot both be


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_modules_the_repository_plants_never_run(tmp_path: Path) -> None:
    repository, marks = tmp_path / "repository", tmp_path / "marks"
    shutil.copytree(FIXTURES / "demo" / "bad", repository)
    marks.mkdir()
    _plant(repository, marks)
    summary = tmp_path / "summary.md"
    env = _runner(
        GITHUB_STEP_SUMMARY=str(summary),
        K8SLB_PATHS=".",
        K8SLB_SARIF="k8slb.sarif",
        K8SLB_ARGS="--isolated --no-cache --select KLB401",
    )
    done = _script(repository, env)
    assert sorted(path.name for path in marks.iterdir()) == []
    assert done.returncode == 1, done.stderr
    assert "::warning file=backend.yaml" in done.stdout
    assert "KLB401" in summary.read_text()


_SHIM = """#!/usr/bin/env bash
# An interpreter that records each call: `-m venv` makes an environment of shims and
# `-m pip` installs nothing (both offline); every other call is the real interpreter's.
printf '%q ' "$@" >> {log}; echo >> {log}
case " $* " in
  *" -m venv "*) mkdir -p "${{@: -1}}/bin" && cp "$0" "${{@: -1}}/bin/python"; exit 0 ;;
  *" -m pip "*) exit 0 ;;
esac
exec {python} "$@"
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_interpreter_the_install_runs_is_isolated(tmp_path: Path) -> None:
    import shlex

    repository, marks, log = tmp_path / "repository", tmp_path / "marks", tmp_path / "calls"
    shutil.copytree(FIXTURES / "demo" / "bad", repository)
    marks.mkdir()
    _plant(repository, marks)
    shim = tmp_path / "python"
    shim.write_text(_SHIM.format(log=shlex.quote(str(log)), python=shlex.quote(sys.executable)))
    shim.chmod(0o755)
    env = _runner(
        K8SLB_PYTHON=str(shim),
        RUNNER_TEMP=str(tmp_path / "runner"),
        K8SLB_PATHS=".",
        K8SLB_SARIF="",
        K8SLB_ARGS="--isolated --no-cache --select KLB401",
    )
    del env["K8SLB_SKIP_INSTALL"]
    done = _script(repository, env)
    calls = [shlex.split(line) for line in log.read_text().splitlines()]
    assert all(call[0] == "-I" for call in calls), calls
    assert [call[1:3] for call in calls] == [
        ["-m", "venv"],
        ["-m", "pip"],
        ["-c", calls[2][2]],  # the inputs split as a shell would
        ["-c", calls[3][2]],
        ["-m", "k8slb"],
    ]
    assert sorted(path.name for path in marks.iterdir()) == []
    assert done.returncode == 1, done.stderr
    assert "::warning file=backend.yaml" in done.stdout
