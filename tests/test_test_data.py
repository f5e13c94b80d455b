"""A test's data (`testdata/`, `fixtures/`, ... below the folder named): the inputs and
expected outputs of a repository's tests, which no deploy tool applies. Their findings are
kept at info with that reason (model/test_data.py), their objects are a unit of their own
(model/units.py), and naming the folder (or a file in it) judges it as any other."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.core.paths import folder_of_test_data
from k8slb.interface.cli import cli

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
        - name: web
          image: registry.example/shop/web:1.4
          ports:
            - containerPort: 8080
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
    - port: 80
      targetPort: 8080
"""
# a manifest broken on purpose: a parser test's input
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n data: [\n"
WHY = "a test's data (`{folder}/`): no deploy tool applies it"


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _check(*paths: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    cache = [] if env else ["--no-cache"]
    done = CliRunner().invoke(
        cli,
        ["check", "--isolated", *cache, "--format", "json", "--fail-on", "info", *paths],
        env=env,
    )
    assert done.exit_code in (0, 1), done.output
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return findings


def _said(findings: list[dict[str, Any]], root: Path) -> set[tuple[str, str, str]]:
    return {(f["rule"], os.path.relpath(f["path"], root), f["severity"]) for f in findings}


def test_a_tests_copy_is_said_at_info_with_why_and_the_real_objects_stay(
    tmp_path: Path,
) -> None:
    """The repository's own Deployment (served by its Service) is judged as ever; the
    test's copy, its expected output, is told at info with the reason first."""
    _write(
        tmp_path,
        {
            "deploy/app.yaml": DEPLOYMENT.format(name="web") + "---\n" + SERVICE,
            "pkg/render/testdata/expected.yaml": DEPLOYMENT.format(name="web") + "---\n" + SERVICE,
        },
    )
    findings = _check(str(tmp_path))
    assert _said(findings, tmp_path) == {
        ("KLB302", "deploy/app.yaml", "warning"),
        ("KLB401", "deploy/app.yaml", "warning"),
        ("KLB302", "pkg/render/testdata/expected.yaml", "info"),
        ("KLB401", "pkg/render/testdata/expected.yaml", "info"),
    }
    for finding in findings:
        in_test = "testdata" in finding["path"]
        assert (WHY.format(folder="testdata") in finding["message"]) == in_test


def test_a_tests_service_does_not_serve_the_repositorys_pods(tmp_path: Path) -> None:
    """A Service in a test's data selects none of the repository's pods: the real
    Deployment, which no real Service selects, is not said to serve one (no KLB302)."""
    _write(
        tmp_path,
        {
            "deploy/app.yaml": DEPLOYMENT.format(name="web"),
            "internal/fixtures/service.yaml": SERVICE,
        },
    )
    assert _said(_check(str(tmp_path)), tmp_path) == set()


def test_naming_the_tests_data_judges_it_in_full(tmp_path: Path) -> None:
    """`k8slb check path/to/testdata` (or a folder in it) asks for its files to be judged:
    at warning and error, as any manifest, with no reason of a test's data."""
    _write(
        tmp_path,
        {
            "pkg/testdata/expected.yaml": DEPLOYMENT.format(name="web") + "---\n" + SERVICE,
            "pkg/testdata/parse/broken.yaml": BROKEN,
        },
    )
    for named in (tmp_path / "pkg" / "testdata", tmp_path / "pkg" / "testdata" / "parse"):
        findings = _check(str(named))
        assert {f["severity"] for f in findings} <= {"warning", "error"}, findings
        assert findings and not any("a test's data" in f["message"] for f in findings)
    assert _said(_check(str(tmp_path / "pkg" / "testdata")), tmp_path) == {
        ("KLB302", "pkg/testdata/expected.yaml", "warning"),
        ("KLB401", "pkg/testdata/expected.yaml", "warning"),
        ("KLB001", "pkg/testdata/parse/broken.yaml", "error"),
    }


def test_a_broken_manifest_in_a_tests_data_is_said_at_info(tmp_path: Path) -> None:
    """A parser test's input broken on purpose is KLB001 at info there, an error
    elsewhere."""
    _write(tmp_path, {"pkg/yaml/testdata/broken.yaml": BROKEN, "deploy/broken.yaml": BROKEN})
    findings = _check(str(tmp_path))
    assert _said(findings, tmp_path) == {
        ("KLB001", "pkg/yaml/testdata/broken.yaml", "info"),
        ("KLB001", "deploy/broken.yaml", "error"),
    }


def test_a_kustomization_in_a_tests_data_is_said_at_info(tmp_path: Path) -> None:
    """A fixture kustomization and the files it builds are a test's data as well: their
    objects' findings and their files' (KLB002, an object of a wrong shape) at info."""
    _write(
        tmp_path,
        {
            "pkg/provider/test-data/app/kustomization.yaml": (
                "resources:\n  - app.yaml\n  - bad.yaml\nhelmCharts:\n  - name: queue\n"
                "    repo: https://charts.example/acme\n"
            ),
            "pkg/provider/test-data/app/app.yaml": DEPLOYMENT.format(name="web")
            + "---\n"
            + SERVICE,
            "pkg/provider/test-data/app/bad.yaml": SERVICE.replace("port: 80", "port: eighty"),
        },
    )
    findings = _check(str(tmp_path))
    assert {f["rule"] for f in findings} >= {"KLB002", "KLB006", "KLB302", "KLB401"}
    assert {f["severity"] for f in findings} == {"info"}
    assert all(
        WHY.format(folder="test-data") in f["message"] for f in findings if f["rule"] != "KLB006"
    )


def test_a_hook_that_names_a_file_of_a_tests_data_says_what_the_trees_run_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-commit hook names each changed file, with `--context .`: a file of a test's
    data below the context's folder is a test's data there too, at info as in the run of
    the whole tree; named with no context, it is judged in full."""
    _write(tmp_path, {"pkg/testdata/broken.yaml": BROKEN})
    monkeypatch.chdir(tmp_path)
    named = os.path.join("pkg", "testdata", "broken.yaml")
    assert [f["severity"] for f in _check("--context", ".", named)] == ["info"]
    assert [f["severity"] for f in _check(named)] == ["error"]


def test_the_cache_tells_the_tests_data_from_the_folder_named(tmp_path: Path) -> None:
    """The same files read from a folder above their test's data and from that folder
    are judged apart: the cache keeps each answer under its own key."""
    _write(tmp_path / "tree", {"pkg/testdata/expected.yaml": BROKEN})
    env = {"K8SLB_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # cold, then warm
        above = _check(str(tmp_path / "tree" / "pkg"), env=env)
        named = _check(str(tmp_path / "tree" / "pkg" / "testdata"), env=env)
        assert [f["severity"] for f in above] == ["info"]
        assert [f["severity"] for f in named] == ["error"]


@pytest.mark.parametrize(
    ("shown", "named", "found"),
    [
        ("pkg/testdata/a.yaml", ".", "pkg/testdata"),
        ("repo/pkg/testdata/x/a.yaml", "repo", "repo/pkg/testdata"),
        ("repo/fixtures/testdata/a.yaml", "repo", "repo/fixtures"),
        ("repo/pkg/testdata/a.yaml", "repo/pkg/testdata", None),
        ("repo/pkg/testdata/x/a.yaml", "repo/pkg/testdata/x", None),
        ("/src/testdata/repo/deploy/a.yaml", "/src/testdata/repo", None),
        ("repo/testdata", "repo", None),  # a chart folder named testdata: its own name
        ("repo/pkg/testdata.yaml", "repo", None),
        ("repo/pkg/mytestdata/a.yaml", "repo", None),
    ],
)
def test_the_tests_data_is_found_below_the_folder_named(
    shown: str, named: str, found: str | None
) -> None:
    assert folder_of_test_data(shown.replace("/", os.sep), named.replace("/", os.sep)) == (
        found.replace("/", os.sep) if found else None
    )
