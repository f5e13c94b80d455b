"""A path named on the command line, file or folder, is judged with the rest of its project
in view (read as context, not reported on): `k8slb check services/` and `k8slb fix k8s/`
find in what they name what `k8slb check .` finds there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

from .helpers import FIXTURES

MANIFESTS = """\
apiVersion: v1
kind: Service
metadata: {name: backend, namespace: shop}
spec:
  selector: {app: backend}
  ports: [{name: grpc, port: 50051}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: shop}
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      containers:
        - name: web
          image: x
          env: [{name: BACKEND_ADDR, value: 'backend.shop:50052'}]
"""
CLIENT = "import os\nimport grpc\n\nchannel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n"


def _repository(root: Path) -> Path:
    """Manifests in k8s/, the code that dials through them in services/."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "k8s").mkdir()
    (root / "k8s" / "k8s.yaml").write_text(MANIFESTS)
    (root / "services").mkdir()
    (root / "services" / "app.py").write_text(CLIENT)
    return root


def _check(*args: str) -> dict[str, Any]:
    done = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", *args])
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _found(report: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(f["rule"], f["path"], f["line"]) for f in report["findings"]}


def test_a_folder_named_finds_what_the_whole_project_finds_in_it(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    whole = _found(_check(str(repo)))
    dialled = ("KLB111", str(repo / "services" / "app.py"), 4)
    assert dialled in whole, "the client dials a port the Service does not expose"
    for folder in ("services", "k8s"):
        report = _check(str(repo / folder))
        assert _found(report) == {f for f in whole if f[1].startswith(str(repo / folder))}
        assert report["summary"]["files"] == 1, "the context is read, not reported on"


def test_the_project_context_is_said_and_can_be_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repository(tmp_path / "repo")
    monkeypatch.chdir(repo)
    done = CliRunner().invoke(cli, ["check", "-v", "--no-cache", "services"])
    assert "project context: ." in done.stderr
    assert "KLB111" in done.stdout
    alone = _check("--no-project-context", "services")
    assert alone["findings"] == [], "judged alone: no Service is in view"


def test_fixing_a_folder_writes_only_in_it(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    (repo / "services" / "server.py").write_text(
        "import grpc\nfrom concurrent import futures\n\n"
        "server = grpc.server(futures.ThreadPoolExecutor())\n"
        "server.add_insecure_port('[::]:50051')\nserver.start()\nserver.wait_for_termination()\n"
    )
    before = {p: p.read_bytes() for p in (repo / "services").iterdir()}
    done = CliRunner().invoke(cli, ["fix", "--no-cache", "--unsafe-fixes", str(repo / "k8s")])
    assert done.exit_code in (0, 1), done.output
    assert {p: p.read_bytes() for p in (repo / "services").iterdir()} == before


def test_junit_lists_only_the_files_reported_on(tmp_path: Path) -> None:
    """The context's files are read for their facts, not checked: no test case of their own."""
    repo = _repository(tmp_path / "repo")
    for named in (repo / "k8s", repo / "k8s" / "k8s.yaml"):
        done = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "junit", str(named)])
        cases = ET.fromstring(done.stdout).iter("testcase")
        assert {case.get("file") for case in cases} == {str(repo / "k8s" / "k8s.yaml")}


def test_a_folder_that_is_its_project_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", demo)
    os.remove(demo / "pyproject.toml")
    (demo / ".git").mkdir()
    monkeypatch.chdir(demo)
    done = CliRunner().invoke(cli, ["check", "-v", "--no-cache", ".", "checkout"])
    assert "project context" not in done.stderr, "everything is named already"
