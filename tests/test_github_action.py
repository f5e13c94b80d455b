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
    assert "| KLB301 shared-probe | warning | 1 |" in written
    assert "| my bad/backend.yaml:22:17 | KLB401 no-prestop | warning |" in written
