"""A chart that deploys no workload with its own defaults (no values.yaml; its services
only in values files kept beside Chart.yaml) and that no command of the repository installs
is rendered with one of those files, the first that deploys a workload (a production
file first, examples last), its findings said once, each naming the file; the others are
counted, not rendered. A chart whose defaults deploy a workload, or that its installer's
command renders, keeps that rendering."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading.chart_values_beside import values_beside

from .helpers import lint_paths
from .test_helmfile import preStops, write

# A chart whose templates range over a map of services its values files fill: with no
# values it renders nothing.
TEMPLATE = """\
{{- range $name, $svc := .Values.services }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
spec:
  replicas: {{ $svc.replicas | default 1 }}
  selector:
    matchLabels: {app: {{ $name }}}
  template:
    metadata:
      labels: {app: {{ $name }}}
    spec:
      containers:
        - name: {{ $name }}
          image: {{ $svc.image }}
          ports:
            - {name: grpc, containerPort: 9000}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
spec:
  selector: {app: {{ $name }}}
  ports:
    - {name: grpc, port: 9000, targetPort: grpc}
{{- end }}
"""
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: chat\nversion: 0.1.0\n",
    "templates/services.yaml": TEMPLATE,
    "values-dev.yaml": "services:\n  rooms: {image: rooms:dev}\n  people: {image: people:dev}\n",
    "values-staging.yaml": "services:\n  rooms: {image: reg/rooms:1, replicas: 2}\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy" / "chat", CHART)
    return tmp_path


def lint(tree: Path) -> list[Finding]:
    return lint_paths([str(tree)], ("KLB401", "KLB003")).findings


def unrendered(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB003"]


def test_a_chart_with_no_values_yaml_is_rendered_with_a_file_beside_it(tree: Path) -> None:
    findings = lint(tree)
    chart, dev = tree / "deploy/chat", tree / "deploy/chat/values-dev.yaml"
    assert sorted(preStops(findings)) == ["default/people", "default/rooms"]  # once each
    for finding in preStops(findings).values():
        assert finding.path == str(chart / "templates/services.yaml")
        assert any(f"rendered with {dev} (a values file beside" in d for d in finding.detail)
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO and note.path == str(dev)
    assert "it has no values.yaml" in note.message
    assert "rendered instead with values-dev.yaml" in note.message
    assert "also beside it, not rendered: values-staging.yaml" in note.detail


def test_a_production_file_comes_first_and_an_example_last(tree: Path) -> None:
    write(
        tree / "deploy" / "chat",
        {
            "values.example.yaml": "services:\n  sample: {image: x}\n",
            "prod.values.yaml": "services:\n  rooms: {image: reg/rooms:1, replicas: 3}\n",
            "values/aa.yaml": "services:\n  other: {image: y}\n",
        },
    )
    chart = tree / "deploy" / "chat"
    names = [Path(p).relative_to(chart).as_posix() for p in values_beside(str(chart))]
    assert names == [
        "prod.values.yaml",
        "values-dev.yaml",
        "values-staging.yaml",
        "values/aa.yaml",
        "values.example.yaml",
    ]
    assert list(preStops(lint(tree))) == ["default/rooms"]


def test_the_first_file_that_deploys_a_workload_is_used(tree: Path) -> None:
    write(tree / "deploy" / "chat", {"values-a.yaml": "services: {}\n"})
    [note] = unrendered(lint(tree))
    assert "rendered instead with values-dev.yaml" in note.message


def test_a_chart_whose_defaults_deploy_a_workload_keeps_them(tree: Path) -> None:
    write(tree / "deploy" / "chat", {"values.yaml": "services:\n  own: {image: own:1}\n"})
    findings = lint(tree)
    assert list(preStops(findings)) == ["default/own"]
    assert not unrendered(findings)


def test_a_chart_with_workloads_off_by_default_is_rendered_with_a_file_beside_it(
    tree: Path,
) -> None:
    write(tree / "deploy" / "chat", {"values.yaml": "services: {}\n"})
    [note] = unrendered(lint(tree))
    assert "with its values.yaml it deploys no workload" in note.message


def test_an_installers_command_comes_before_the_files_beside(tree: Path) -> None:
    write(
        tree,
        {
            "deploy/site.yaml": "services:\n  site: {image: site:1}\n",
            "deploy/install.sh": 'cd "$(dirname "$0")"\nhelm install chat ./chat -f site.yaml\n',
            "deploy/chat/templates/check.yaml": '{{- $_ := required "s" .Values.services }}\n',
        },
    )
    assert list(preStops(lint(tree))) == ["default/site"]


def test_a_values_file_that_names_no_workload_changes_nothing(tree: Path) -> None:
    for name in ("values-dev.yaml", "values-staging.yaml"):
        (tree / "deploy" / "chat" / name).write_text("services: {}\n")
    findings = lint(tree)
    assert not preStops(findings)
    [note] = unrendered(findings)
    assert "renders no object" in note.message
