"""Without `--kustomize`, what a kustomization leaves out of its build: a file of objects
beside a kustomization, or in a folder below one from which it lists other files, that no
build of the run holds is deployed only by a hand that applies it, so its findings are
kept at info with that reason (model/kustomized.py's `left_out`); and the Helm charts a
kustomization inflates from a repository k8slb does not fetch are said once, at its
`helmCharts:` line (KLB006)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

# A gRPC service and the LoadBalancer in front of it, in one file, as a small team writes
# them: no readinessProbe, no preStop (KLB302 and KLB401 at warning where deployed).
SERVICE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: {name}
          image: registry.example/assistant/{name}:1.4
          ports:
            - containerPort: 8000
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  type: LoadBalancer
  selector: {{app: {name}}}
  ports:
    - port: 8000
"""


def _check(*paths: str) -> list[dict[str, Any]]:
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--no-cache", "--format", "json", "--fail-on", "info", *paths]
    )
    assert done.exit_code in (0, 1), done.output
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return findings


def _severities(findings: list[dict[str, Any]], root: Path) -> dict[tuple[str, str], str]:
    return {
        (f["rule"], Path(f["path"]).relative_to(root).as_posix()): f["severity"]
        for f in findings
        if f["rule"] in ("KLB302", "KLB401")
    }


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _overlay_tree(root: Path) -> None:
    """kubernetes/ -> overlay/ -> base/, with a file beside the top kustomization and one
    beside the base's that none lists."""
    _write(
        root,
        {
            "kubernetes/kustomization.yaml": "resources:\n  - overlay\n",
            "kubernetes/old-store.yaml": SERVICE.format(name="store"),
            "kubernetes/overlay/kustomization.yaml": (
                "resources:\n  - local-store.yaml\n  - ../base\n"
            ),
            "kubernetes/overlay/local-store.yaml": SERVICE.format(name="store-local"),
            "kubernetes/base/kustomization.yaml": "resources:\n  - planner.yaml\n",
            "kubernetes/base/planner.yaml": SERVICE.format(name="planner"),
            "kubernetes/base/summariser.yaml": SERVICE.format(name="summariser"),
        },
    )


def test_a_file_beside_a_kustomization_that_no_build_lists_is_said_at_info(
    tmp_path: Path,
) -> None:
    _overlay_tree(tmp_path)
    findings = _check(str(tmp_path))
    assert _severities(findings, tmp_path) == {
        ("KLB302", "kubernetes/base/planner.yaml"): "warning",
        ("KLB401", "kubernetes/base/planner.yaml"): "warning",
        ("KLB302", "kubernetes/overlay/local-store.yaml"): "warning",
        ("KLB401", "kubernetes/overlay/local-store.yaml"): "warning",
        ("KLB302", "kubernetes/old-store.yaml"): "info",
        ("KLB401", "kubernetes/old-store.yaml"): "info",
        ("KLB302", "kubernetes/base/summariser.yaml"): "info",
        ("KLB401", "kubernetes/base/summariser.yaml"): "info",
    }
    said = next(f for f in findings if f["path"].endswith("summariser.yaml"))
    reason = said["message"].removeprefix(said["headline"] + ": ")
    assert reason.startswith(
        "no kustomization builds this file (the kustomization.yaml beside it does not list "
        "it): it is deployed only if applied by hand"
    )


def test_a_file_of_a_folder_the_kustomization_picks_from_is_left_out_when_not_picked(
    tmp_path: Path,
) -> None:
    """`include/` holds the resources a kustomization lists one by one; the one listed
    only in a comment is not built. A folder below it from which it lists nothing
    (`monitoring/`, applied on its own) is no kustomization's: its files keep their
    severity."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "namespace: assistant\nresources:\n  - include/api.yaml\n#  - include/admin.yaml\n"
            ),
            "deploy/include/api.yaml": SERVICE.format(name="api"),
            "deploy/include/admin.yaml": SERVICE.format(name="admin"),
            "deploy/monitoring/exporter.yaml": SERVICE.format(name="exporter"),
        },
    )
    assert _severities(_check(str(tmp_path)), tmp_path) == {
        ("KLB302", "deploy/include/api.yaml"): "warning",
        ("KLB401", "deploy/include/api.yaml"): "warning",
        ("KLB302", "deploy/include/admin.yaml"): "info",
        ("KLB401", "deploy/include/admin.yaml"): "info",
        ("KLB302", "deploy/monitoring/exporter.yaml"): "warning",
        ("KLB401", "deploy/monitoring/exporter.yaml"): "warning",
    }


def test_nothing_is_said_left_out_where_a_build_is_not_known_whole(tmp_path: Path) -> None:
    """Two kustomizations in a loop (kustomize refuses the build): which files a build
    holds is not known, so no file is said left out on a guess."""
    _write(
        tmp_path,
        {
            "a/kustomization.yaml": "resources:\n  - api.yaml\n  - ../b\n",
            "a/api.yaml": SERVICE.format(name="api"),
            "a/worker.yaml": SERVICE.format(name="worker"),
            "b/kustomization.yaml": "resources:\n  - ../a\n",
        },
    )
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert severities[("KLB302", "a/worker.yaml")] == "warning"


def test_a_patch_file_beside_its_kustomization_keeps_the_findings_of_what_it_adds(
    tmp_path: Path,
) -> None:
    """A strategic-merge patch is named under `patches:`, not `resources:`: a container it
    adds whole is deployed, and judged in the patch file at full severity."""
    patch = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: proxy\n"
        "          image: registry.example/assistant/proxy:1.0\n"
        "          ports:\n            - containerPort: 8000\n"
    )
    _write(
        tmp_path,
        {
            "app/kustomization.yaml": (
                "resources:\n  - api.yaml\npatches:\n  - path: proxy-patch.yaml\n"
            ),
            "app/api.yaml": SERVICE.format(name="api"),
            "app/proxy-patch.yaml": patch,
        },
    )
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert severities[("KLB401", "app/proxy-patch.yaml")] == "warning"


def test_remote_helm_charts_of_a_kustomization_are_said_once_at_their_list(
    tmp_path: Path,
) -> None:
    """kustomize pulls them (`--enable-helm`) from their repositories; k8slb fetches
    nothing, so one info names each chart not vendored in the chart home, and a vendored
    one (charts/NAME) is not named: it is a chart of the tree."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "namespace: assistant\nresources:\n  - api.yaml\n\nhelmCharts:\n"
                "  - name: queue\n    # helm repo add acme https://charts.example/acme\n"
                "    repo: https://charts.example/acme\n    version: 1.2.0\n"
                "    valuesInline:\n      env:\n        - name: REPLICAS\n"
                "  - name: cache\n    repo: oci://registry.example/charts\n"
                "  - name: local-tools\n"
            ),
            "deploy/api.yaml": SERVICE.format(name="api"),
            "deploy/charts/local-tools/Chart.yaml": "apiVersion: v2\nname: local-tools\n",
        },
    )
    said = [f for f in _check(str(tmp_path)) if f["rule"] == "KLB006"]
    assert [(f["path"], f["line"], f["severity"]) for f in said] == [
        (str(tmp_path / "deploy" / "kustomization.yaml"), 5, "info")
    ]
    assert said[0]["headline"].startswith(
        "kustomize Helm charts queue (https://charts.example/acme), "
        "cache (oci://registry.example/charts) are not rendered"
    )


def test_with_builds_a_kustomization_of_remote_charts_is_not_built_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--kustomize` would need `--enable-helm` and the network: the kustomization is not
    built, and the same note says so (not kustomize's error, at warning)."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "resources:\n  - api.yaml\nhelmCharts:\n  - name: queue\n"
                "    repo: https://charts.example/acme\n"
            ),
            "deploy/api.yaml": SERVICE.format(name="api"),
            "bin/kustomize": "#!/bin/sh\necho 'Error: must specify --enable-helm' >&2\nexit 1\n",
        },
    )
    (tmp_path / "bin" / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    said = [(f["rule"], f["severity"], f["line"]) for f in _check("--kustomize", str(tmp_path))]
    assert said == [("KLB006", "info", 3)]
