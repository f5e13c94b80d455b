"""Without `--kustomize`, a kustomization's resource files are read as written, with the
labels it adds put where kustomize puts them: `commonLabels` and `labels:` with
`includeSelectors: true` on the selectors and the pod templates (a Service written with
`selector: {}` then selects the pods), `includeTemplates: true` on the pod templates only,
plain `labels:` on the objects' own labels only; an overlay's on its bases' objects too,
through every level. A file two builds label differently, and labels written in a form
kustomize refuses, add none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.model.kustomized import MAX_LABELLED_DEPTH, _through_builds
from k8slb.reading.kustomization import (
    MAX_ADDED_LABELS,
    AddedLabels,
    KustomizationParts,
    added_labels,
)

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


def _overlay(tmp_path: Path, name: str, text: str) -> Path:
    overlay = tmp_path / "board" / "overlays" / name
    overlay.mkdir(parents=True)
    (overlay / "kustomization.yaml").write_text(text)
    return overlay


def test_an_overlays_labels_reach_its_bases_objects(tmp_path: Path) -> None:
    """kustomize runs an overlay's label transformers on all it accumulates, its bases'
    objects too: the base's Service with no selector selects the pods in that build."""
    base = _component(tmp_path, "")
    _overlay(tmp_path, "prod", "resources:\n- ../../base\n" + SELECTING)
    assert ("KLB401", "deployment.yaml") in _findings(base.parent)


def test_labels_reach_through_every_level_of_bases(tmp_path: Path) -> None:
    """A top whose folders are kustomizations of folders (`resources: [./deploy,
    ./service]`, each its own kustomization): its labels reach every file below."""
    (tmp_path / ".git").mkdir()
    top = tmp_path / "zero"
    for part, text in (("deployment", DEPLOYMENT), ("service", SERVICE)):
        (top / part).mkdir(parents=True)
        (top / part / f"{part}.yaml").write_text(text)
        (top / part / "kustomization.yaml").write_text(f"resources:\n- {part}.yaml\n")
    (top / "kustomization.yaml").write_text("resources:\n- ./deployment\n- ./service\n" + SELECTING)
    assert ("KLB401", "deployment.yaml") in _findings(tmp_path)


def test_a_bases_own_labels_and_its_overlays_are_put_together(tmp_path: Path) -> None:
    base = _component(tmp_path, "commonLabels:\n  tier: web\n")
    _overlay(tmp_path, "prod", "resources:\n- ../../base\ncommonLabels:\n  app: board\n")
    assert ("KLB401", "deployment.yaml") in _findings(base.parent)


def test_two_overlays_of_a_base_that_label_it_differently_add_no_label(tmp_path: Path) -> None:
    """Which overlay is deployed is not known: the base's files get neither's labels."""
    base = _component(tmp_path, "")
    _overlay(tmp_path, "prod", "resources:\n- ../../base\n" + SELECTING)
    _overlay(tmp_path, "dev", "resources:\n- ../../base\ncommonLabels:\n  app: dev\n")
    assert ("KLB401", "deployment.yaml") not in _findings(base.parent)


def test_an_overlay_giving_a_bases_label_another_value_adds_none(tmp_path: Path) -> None:
    base = _component(tmp_path, "commonLabels:\n  app: board\n")
    _overlay(tmp_path, "prod", "resources:\n- ../../base\ncommonLabels:\n  app: other\n")
    assert ("KLB401", "deployment.yaml") not in _findings(base.parent)


def test_builds_in_a_loop_or_past_the_depth_label_only_the_files_each_names() -> None:
    """A loop kustomize refuses, or a chain past MAX_LABELLED_DEPTH: the builds are not
    known, so each kustomization's labels go on the files it names itself, as written."""
    labels = AddedLabels("a/kustomization.yaml", ("a/x.yaml", "b"), (("app", "x"),), (), ())
    looped = {
        "a/kustomization.yaml": KustomizationParts(
            "a/kustomization.yaml", False, ("a/x.yaml", "b"), (), ()
        ),
        "b/kustomization.yaml": KustomizationParts("b/kustomization.yaml", False, ("a",), (), ()),
    }
    assert _through_builds([labels], looped) is None
    deep = {
        f"k{n}/kustomization.yaml": KustomizationParts(
            f"k{n}/kustomization.yaml", False, (f"k{n + 1}",), (), ()
        )
        for n in range(MAX_LABELLED_DEPTH + 2)
    }
    assert _through_builds([], deep) is None
    deep.popitem()
    shallow = {k: v for n, (k, v) in enumerate(deep.items()) if n < MAX_LABELLED_DEPTH - 1}
    assert _through_builds([], shallow) == {}


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
