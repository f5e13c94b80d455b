"""A ytt (Carvel) template is no manifest as written: its `#@ if`/`#@ else` branches
read as repeated keys and the values it fills (`name: #@ name()`) as empty ones. Such a
file is skipped, said at info where it would be a manifest (KLB003), and never judged as
broken YAML (KLB001) or a broken object (KLB002); rendering ytt is out of scope."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding

from .helpers import lint_files

# A Deployment whose pull secrets are chosen by an `if`: both branches are in the text
BRANCHES = """\
#@ load("@ytt:data", "data")
#@ load("api.star", "has_pull_secrets", "pull_secrets")

apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: #@ data.values.api.image
        ports:
        - containerPort: 8080
      #@ if has_pull_secrets():
      imagePullSecrets: #@ pull_secrets()
      #@ else:
      imagePullSecrets: [{name: registry}]
      #@ end
"""
# Values ytt fills from a function: YAML reads each as empty
FILLED = """\
#@ load("db.star", "name", "user")
#@ load("@ytt:base64", "base64")

apiVersion: v1
kind: Secret
metadata:
  name: #@ name()
  labels:
    app: #@ name()
data:
  user: #@ base64.encode(user())
"""
# A text template (`(@ ... @)`) above a document, and an overlay's annotations
TEXT_TEMPLATE = """\
(@ load("@ytt:data", "data") @)
#@ load("@ytt:overlay", "overlay")
---
#@overlay/match missing_ok=True
apiVersion: apps/v1
#@overlay/match missing_ok=True
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: runner
        image: registry.example/runner:(@= data.values.version @)
"""
# A library of functions that return fragments, and the data values: no object's key
LIBRARY = """\
#@ load("@ytt:data", "data")

#@ def limits():
memory: 512Mi
#@ if data.values.big:
cpu: 2
#@ else:
cpu: 1
#@ end
#@ end
"""
VALUES = "#@data/values\n---\napi:\n  image: registry.example/api:1.0\n"


def read_findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    return lint_files(tmp_path, files).findings


@pytest.mark.parametrize(
    ("text", "line"),
    [(BRANCHES, 1), (FILLED, 1), (TEXT_TEMPLATE, 1)],
    ids=["if-else-branches", "values-it-fills", "text-template"],
)
def test_a_ytt_template_is_skipped_at_info_not_judged_as_yaml(
    tmp_path: Path, text: str, line: int
) -> None:
    (told,) = read_findings(tmp_path, {"config/app.yml": text})
    assert (told.rule, told.severity.label, told.line) == ("KLB003", "info", line)
    assert "ytt" in told.message and "skipped" in told.message


def test_ytt_files_that_hold_no_object_are_skipped_quietly(tmp_path: Path) -> None:
    """A ytt library of fragments and a data-values file are not manifests even once
    rendered, as a chart's values.yaml is not: nothing is said of them."""
    files = {"config/api.lib.yml": LIBRARY, "config/values/values.yml": VALUES}
    assert read_findings(tmp_path, files) == []


def test_a_ytt_mark_is_read_only_where_ytt_reads_one(tmp_path: Path) -> None:
    """`#@` in a quoted value or in a block scalar's text, and a `(@` with no `@)`, are
    data: the manifest around them is judged as written (its repeated key is an error)."""
    manifest = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: scripts
data:
  note: "marked #@ here (@ too"
  run.sh: |
    #@ not ytt: a script's comment
    echo (@ x @)
  note: again
"""
    (error,) = read_findings(tmp_path, {"deploy/scripts.yaml": manifest})
    assert (error.rule, error.severity.label) == ("KLB001", "error")
    assert "duplicate key" in error.message
