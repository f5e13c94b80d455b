"""Every search upward (a file's chart, its project, the configuration) stops at the
repository: a stray Chart.yaml, pyproject.toml or .k8slb.yaml in a shared folder above
(`/tmp`, a home folder) is no one's, and must not take a run over."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.cli import cli
from k8slb.config import find_config, marked_project
from k8slb.reading.sources import discover, enclosing_chart

SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec: {ports: [{port: 80}]}\n"
CHART = "apiVersion: v2\nname: stray\nversion: 0.1.0\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def check_json(*args: str) -> tuple[int, dict[str, Any], str]:
    done = CliRunner().invoke(cli, ["check", "--format", "json", "--no-cache", *args])
    return done.exit_code, json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("in_repository", [True, False], ids=["git repository", "no repository"])
def test_a_stray_chart_above_does_not_make_a_named_file_its_template(
    tmp_path: Path, in_repository: bool
) -> None:
    write(tmp_path / "Chart.yaml", CHART)
    project = tmp_path / "work"
    if in_repository:
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    service = write(project / "k8s" / "svc.yaml", SERVICE)
    assert enclosing_chart(str(service)) is None
    assert [s.language for s in discover([str(service)]).sources] == ["yaml"]
    code, report, _ = check_json("--isolated", "--no-project-context", str(service))
    assert code in (0, 1)
    assert report["summary"]["objects"] == 1, "the Service is read as written"


def test_a_file_is_a_charts_only_in_the_folders_helm_reads(tmp_path: Path) -> None:
    chart = tmp_path / "shop"
    write(chart / "Chart.yaml", CHART)
    template = write(chart / "templates" / "deep" / "svc.yaml", SERVICE)
    sub = write(chart / "charts" / "cache" / "Chart.yaml", CHART)
    sub_template = write(sub.parent / "templates" / "svc.yaml", SERVICE)
    ci_values = write(chart / "ci" / "test-values.yaml", "replicaCount: 2\n")
    assert enclosing_chart(str(chart / "values.yaml")) == str(chart)
    assert enclosing_chart(str(template)) == str(chart)
    assert enclosing_chart(str(sub_template)) == str(chart), "a subchart's file: its parent"
    assert enclosing_chart(str(ci_values)) is None, "Helm renders nothing from ci/"


def test_a_stray_configuration_above_a_repository_is_not_read(tmp_path: Path) -> None:
    write(tmp_path / ".k8slb.yaml", "select: [KLB301]\n")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    service = write(repo / "k8s" / "svc.yaml", SERVICE)
    assert find_config(service.parent) is None
    _, _, said = check_json("-v", str(service))
    assert "configuration: none found" in said


def test_outside_any_repository_nothing_above_the_path_is_read_but_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path / ".k8slb.yaml", "select: [KLB301]\n")
    write(tmp_path / "pyproject.toml", "[project]\nname = 'shared'\n")
    folder = write(tmp_path / "work" / "svc.yaml", SERVICE).parent
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert find_config(folder) is None
    assert marked_project(folder) is None, "no project context from a stray pyproject.toml"
    monkeypatch.chdir(tmp_path)  # where the user runs k8slb is theirs
    assert find_config(folder) == config
    assert marked_project(folder) == tmp_path
