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
from k8slb.interface.cli import cli
from k8slb.reading.charts import enclosing_chart
from k8slb.reading.sources import discover
from k8slb.run.config import find_config, marked_project

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


def test_a_stray_formatter_setting_above_does_not_set_the_fixes_line_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside any repository, a ruff.toml in a shared folder above the files is no one's:
    Python fixes keep black's 88 columns."""
    from k8slb.languages.python import edit_lines

    write(tmp_path / "ruff.toml", "line-length = 40\n")
    module = write(tmp_path / "work" / "app" / "main.py", "import grpc\n")
    monkeypatch.chdir(module.parent)
    edit_lines._known.clear()
    assert edit_lines.line_length_for(str(module)) == 88
    monkeypatch.chdir(tmp_path)  # where the user runs k8slb is theirs
    edit_lines._known.clear()
    assert edit_lines.line_length_for(str(module)) == 40
    edit_lines._known.clear()


def test_a_committed_baseline_that_links_outside_the_repository_is_refused(
    tmp_path: Path,
) -> None:
    """The project's default baseline is read (and rewritten by --write-baseline) without
    being named: a link to a file of the runner's stops the run, as a configured path would,
    and the file is neither read nor replaced."""
    secret = write(tmp_path / "secret.json", '{"token": "s3cret"}\n')
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write(repo / "k8s" / "svc.yaml", SERVICE)
    (repo / ".k8slb-baseline.json").symlink_to(secret)
    for write_baseline in ([], ["--write-baseline"]):
        done = CliRunner().invoke(cli, ["check", "--no-cache", *write_baseline, str(repo)])
        assert done.exit_code == 2, done.output
        assert "leading outside the repository" in done.output and "s3cret" not in done.output
    assert secret.read_text() == '{"token": "s3cret"}\n'
    assert (repo / ".k8slb-baseline.json").is_symlink()
