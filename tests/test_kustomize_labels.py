"""Without `--kustomize`, a kustomization's resource files are read as written, with the
labels it adds put where kustomize puts them: `commonLabels` and `labels:` with
`includeSelectors: true` on the selectors and the pod templates (a Service written with
`selector: {}` then selects the pods), `includeTemplates: true` on the pod templates only,
plain `labels:` on the objects' own labels only. A file two kustomizations name with other
labels, and labels written in a form kustomize refuses, add none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading.kustomization import MAX_ADDED_LABELS, added_labels

# A component's manifests written for kustomize to label: the selectors are empty.
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: board
spec:
  replicas: 2
  selector:
    matchLabels: {}
  template:
    metadata:
      labels: {}
    spec:
      containers:
        - name: board
          image: registry.example/board:1.4
          ports:
            - containerPort: 8080
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: board
spec:
  selector: {}
  ports:
    - port: 80
      targetPort: 8080
"""


def _component(tmp_path: Path, labels: str) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    base = tmp_path / "board" / "base"
    base.mkdir(parents=True)
    (base / "deployment.yaml").write_text(DEPLOYMENT)
    (base / "service.yaml").write_text(SERVICE)
    (base / "kustomization.yaml").write_text(
        "namespace: boards\nresources:\n- deployment.yaml\n- service.yaml\n" + labels
    )
    return base


def _findings(folder: Path) -> list[tuple[str, str]]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(folder)])
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return sorted((f["rule"], Path(f["path"]).name) for f in report["findings"])


SELECTING = """\
labels:
- includeSelectors: true
  pairs:
    app: board
    app.kubernetes.io/component: web
"""


def test_labels_that_include_selectors_make_an_empty_selector_select_the_pods(
    tmp_path: Path,
) -> None:
    base = _component(tmp_path, SELECTING)
    assert ("KLB401", "deployment.yaml") in _findings(base)  # it serves Service board


def test_common_labels_select_as_labels_with_selectors_do(tmp_path: Path) -> None:
    base = _component(tmp_path, "commonLabels:\n  app: board\n")
    assert ("KLB401", "deployment.yaml") in _findings(base)


def test_labels_on_templates_or_objects_alone_leave_the_selector_empty(tmp_path: Path) -> None:
    for labels in (
        "labels:\n- includeTemplates: true\n  pairs:\n    app: board\n",
        "labels:\n- pairs:\n    app: board\n",
        "",
    ):
        base = _component(tmp_path / str(len(labels)), labels)
        assert ("KLB401", "deployment.yaml") not in _findings(base), labels


def test_an_overlays_labels_are_not_put_on_its_bases_files(tmp_path: Path) -> None:
    """Which overlay is deployed is not known: only the kustomization naming the file
    labels it."""
    base = _component(tmp_path, "")
    overlay = tmp_path / "board" / "overlays" / "prod"
    overlay.mkdir(parents=True)
    (overlay / "kustomization.yaml").write_text("resources:\n- ../../base\n" + SELECTING)
    assert ("KLB401", "deployment.yaml") not in _findings(base.parent)


def test_a_file_two_kustomizations_label_differently_gets_no_label(tmp_path: Path) -> None:
    base = _component(tmp_path, SELECTING)
    other = base.parent / "other"
    other.mkdir()
    (other / "kustomization.yaml").write_text(
        "resources:\n- ../base/service.yaml\ncommonLabels:\n  app: other\n"
    )
    assert ("KLB401", "deployment.yaml") not in _findings(base.parent)


def test_labels_written_as_kustomize_refuses_them_add_none() -> None:
    path = "deploy/kustomization.yaml"
    assert added_labels(path, {"commonLabels": {"app": 7}, "resources": ["a.yaml"]}) is None
    assert added_labels(path, {"labels": {"app": "x"}, "resources": ["a.yaml"]}) is None
    many = {f"k{n}": "v" for n in range(MAX_ADDED_LABELS + 1)}
    assert added_labels(path, {"commonLabels": many, "resources": ["a.yaml"]}) is None
    read = added_labels(path, {"commonLabels": {"app": "x"}, "resources": ["a.yaml", "../b"]})
    assert read is not None and read.files == ("deploy/a.yaml", "b")
    assert read.everywhere == (("app", "x"),)
