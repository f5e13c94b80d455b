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


# Sibling charts installed with one file of global values kept in the folder that holds
# them (`helm upgrade --install cart cart-api -f gvalues.yaml`): each template reads a map
# only that file gives, so Helm fails on every one with the chart's own defaults.
SIBLING = {
    "Chart.yaml": "apiVersion: v1\nname: shop-cart\nversion: 0.1.0\n",
    "values.yaml": "image: {repository: cart, tag: prod}\n",
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cart
spec:
  replicas: {{ .Values.shared.replicas }}
  selector:
    matchLabels: {app: cart}
  template:
    metadata:
      labels: {app: cart}
    spec:
      serviceAccountName: {{ .Values.shared.account.name }}
      containers:
        - name: cart
          image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: cart
spec:
  selector: {app: cart}
  ports:
    - {port: 80, targetPort: 8080}
""",
}
SHARED = "shared:\n  replicas: 2\n  account: {name: shop}\n"


def test_a_chart_is_rendered_with_the_global_values_of_the_folder_above(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy/helm", {"gvalues.yaml": SHARED, "notes.yaml": "a: 1\n"})
    write(tmp_path / "deploy/helm/cart-api", SIBLING)
    write(
        tmp_path / "deploy/helm/stock-api",
        {**SIBLING, "Chart.yaml": "name: stock\nversion: 1.0.0\n"},
    )
    findings = lint(tmp_path)
    assert list(preStops(findings)) == ["default/cart"]  # each chart's Deployment is `cart`
    notes = unrendered(findings)
    assert [n.severity for n in notes] == [Severity.INFO, Severity.INFO]
    note = notes[0]
    assert note.path == str(tmp_path / "deploy/helm/gvalues.yaml")
    assert "with its values.yaml Helm cannot render it" in note.message
    assert "rendered instead with ../gvalues.yaml, a values file in the folder above" in (
        note.message
    )


def test_the_values_of_an_umbrella_chart_above_are_its_own(tmp_path: Path) -> None:
    """A chart inside another chart's folder is its subchart: the values there are the
    parent's, laid over the subchart under its name, never the subchart's own."""
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy/helm", {"Chart.yaml": "apiVersion: v2\nname: all\nversion: 1.0.0\n"})
    write(tmp_path / "deploy/helm", {"common-values.yaml": SHARED})
    write(tmp_path / "deploy/helm/cart-api", SIBLING)
    assert values_beside(str(tmp_path / "deploy/helm/cart-api")) == []


def test_a_values_file_above_one_chart_alone_is_not_taken_for_shared_values(
    tmp_path: Path,
) -> None:
    """Above a lone chart a values file is one an install command would name (a site's
    values at the repository's top), not values sibling charts share: not guessed."""
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy/helm", {"gvalues.yaml": SHARED})
    write(tmp_path / "deploy/helm/cart-api", SIBLING)
    assert values_beside(str(tmp_path / "deploy/helm/cart-api")) == []
