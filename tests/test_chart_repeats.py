"""A key a chart's rendered manifest repeats in one mapping (two branches of a template
each writing `lifecycle:`) is read as Helm installs it, the last value kept: the chart's
objects are linted, and the repeat is one KLB001 at warning on the later key. A plain
manifest that repeats a key is still not valid YAML (KLB001, an error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity

from .helpers import lint_paths
from .test_helmfile import preStops, write

# A container whose hook one branch writes and a later default branch writes again.
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: acme/api:1
          {{- if .Values.drain }}
          lifecycle:
            preStop:
              sleep: {seconds: 5}
          {{- end }}
          ports:
            - {name: http, containerPort: 8080}
          lifecycle: {{ toJson .Values.lifecycle }}
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  ports:
    - {name: http, port: 80, targetPort: http}
"""


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return write(
        tmp_path / "api",
        {
            "Chart.yaml": "apiVersion: v2\nname: api\nversion: 0.1.0\n",
            "values.yaml": "drain: true\nlifecycle: {}\n",
            "templates/api.yaml": TEMPLATE,
        },
    )


def lint(path: Path) -> list[Finding]:
    return lint_paths([str(path)], ("KLB401", "KLB001")).findings


def test_the_last_value_of_a_repeated_key_is_the_one_linted(chart: Path) -> None:
    findings = lint(chart)
    assert list(preStops(findings)) == ["default/api"]  # the hook the first gave is dropped
    [repeat] = [f for f in findings if f.rule == "KLB001"]
    assert repeat.severity is Severity.WARNING
    assert repeat.path == str(chart / "templates/api.yaml") and repeat.line == 23
    assert "key 'lifecycle' is given twice in one mapping" in repeat.message
    assert "Helm installs the chart with this last value" in repeat.message


def test_a_last_value_that_keeps_the_hook_is_no_finding_but_the_repeat(chart: Path) -> None:
    values = "drain: true\nlifecycle:\n  preStop:\n    sleep: {seconds: 5}\n"
    write(chart, {"values.yaml": values})
    findings = lint(chart)
    assert not preStops(findings)
    assert [f.rule for f in findings] == ["KLB001"]


def test_an_items_first_key_given_again(chart: Path) -> None:
    template = TEMPLATE.replace("        - name: api\n", "        - name: old\n", 1)
    template = template.replace(
        "          image: acme/api:1\n", "          name: api\n          image: acme/api:1\n", 1
    )
    write(chart, {"templates/api.yaml": template, "values.yaml": "drain: false\nlifecycle: {}\n"})
    findings = lint(chart)
    [api] = preStops(findings).values()
    assert "container 'api'" in api.message
    [repeat] = [f for f in findings if f.rule == "KLB001"]
    assert "key 'name' is given twice" in repeat.message


def test_a_plain_manifest_that_repeats_a_key_is_still_invalid(tmp_path: Path) -> None:
    rendered = TEMPLATE.replace("          {{- if .Values.drain }}\n", "")
    rendered = rendered.replace("          {{- end }}\n", "")
    rendered = rendered.replace("{{ toJson .Values.lifecycle }}", "{}")
    (tmp_path / "api.yaml").write_text(rendered)
    [invalid] = [f for f in lint(tmp_path) if f.rule == "KLB001"]
    assert invalid.severity is Severity.ERROR
    assert "duplicate key 'lifecycle'" in invalid.message


def test_a_release_a_helmfile_installs_is_read_as_helm_does(chart: Path) -> None:
    write(chart.parent, {"helmfile.yaml": "releases:\n  - name: api\n    chart: ./api\n"})
    findings = lint(chart.parent)
    assert list(preStops(findings)) == ["default/api"]
    [repeat] = [f for f in findings if f.rule == "KLB001"]
    assert repeat.severity is Severity.WARNING


def test_a_key_two_included_helpers_both_write_is_reported_at_the_later_helper(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    helpers = """\
{{- define "base.labels" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/part-of: platform
{{- end }}
{{- define "api.labels" }}
app.kubernetes.io/name: {{ .Chart.Name }}
tier: backend
{{- end }}
"""
    template = TEMPLATE.replace(
        "metadata:\n  name: api\nspec:\n  replicas",
        'metadata:\n  name: api\n  labels:\n    {{- include "base.labels" . | nindent 4 }}\n'
        '    {{- include "api.labels" . | nindent 4 }}\nspec:\n  replicas',
        1,
    )
    chart = write(
        tmp_path / "api",
        {
            "Chart.yaml": "apiVersion: v2\nname: api\nversion: 0.1.0\n",
            "values.yaml": "drain: true\nlifecycle: {}\n",
            "templates/_helpers.tpl": helpers,
            "templates/api.yaml": template,
        },
    )
    repeats = [f for f in lint(chart) if f.rule == "KLB001"]
    name = next(f for f in repeats if "'app.kubernetes.io/name'" in f.message)
    # api.labels' line, which Helm keeps; not base.labels' line 2, which it drops
    assert (name.path, name.line) == (str(chart / "templates/_helpers.tpl"), 6)


def test_a_key_given_again_with_the_same_value_loses_nothing(chart: Path) -> None:
    """Both branches writing the same hook: Helm installs what either meant, told at info."""
    hook = "\n          lifecycle:\n            preStop:\n              sleep: {seconds: 5}"
    template = TEMPLATE.replace("\n          lifecycle: {{ toJson .Values.lifecycle }}", hook)
    write(chart, {"templates/api.yaml": template})
    findings = lint(chart)
    [repeat] = [f for f in findings if f.rule == "KLB001"]
    assert repeat.severity is Severity.INFO and "nothing is lost" in repeat.message
    assert not preStops(findings)
