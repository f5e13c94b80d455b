"""A broken YAML file that is no Kubernetes input is told at info, saying why (KLB001).

Every object kubectl applies has `apiVersion` and `kind`; a file holding neither key
(block, flow or JSON style) is some other program's file unless its name or the run says
Kubernetes reads it all the same: a kustomization, a Helm values file, what a chart
renders, what a kustomization lists. A template engine's tag near where YAML stopped
(`{% if %}`, `{{ }}`) says the file is a template, not YAML yet."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding

from .helpers import lint_files

# An application's settings that an install script renders with Jinja before the
# program reads them: a block tag opens a section only one edition has
JINJA_SETTINGS = """\
server:
  port: 8080
cache:
  {% if edition == "enterprise" %}
  cluster: true
  {% endif %}
  ttl: 60
"""
# A plugin's definition that writes one of its inputs' defaults twice
PLUGIN = """\
type: action
definition:
  name: lookup
  inputs:
    region:
      type: str
      default: null
      default: eu-west-1
"""
# A ConfigMap written as JSON in a .yaml file, its closing brace lost
JSON_MANIFEST = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"},\n'
FLOW_MANIFEST = "{apiVersion: v1, kind: ConfigMap, metadata: {name: app}, data: [x\n"
# A flow sequence left open (a repeated key is read as kustomize and Helm read it)
UNCLOSED = "settings:\n  a: [1\n  b: 2\n"


def read_errors(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    return lint_files(tmp_path, files, ["KLB001"]).findings


def test_a_template_engines_tag_where_yaml_stops_is_a_template(tmp_path: Path) -> None:
    """A Jinja block tag at (or up to four lines above) the line YAML stopped at, in a file
    with no Kubernetes key, is a template: info, naming the tag and its line."""
    (told,) = read_errors(tmp_path, {"support/config/app.yml": JINJA_SETTINGS})
    assert (told.rule, told.severity.label, told.line) == ("KLB001", "info", 4)
    assert "not a Kubernetes input: a template, not YAML yet: line 4 holds" in told.message
    assert '(`{% if edition == "enterprise" %}`)' in told.message
    manifest = "apiVersion: v1\nkind: ConfigMap\ndata:\n" + JINJA_SETTINGS.replace("\n", "\n  ")
    (error,) = read_errors(tmp_path / "manifest", {"app.yml": manifest})
    assert error.severity.label == "error" and "not a Kubernetes input" not in error.message


def test_a_broken_file_without_a_kubernetes_key_is_no_input(tmp_path: Path) -> None:
    """A repeated key in another program's file: info, the reason said; no template tag
    is claimed where none stands near the error."""
    (told,) = read_errors(tmp_path, {"registry/actions/lookup.yml": PLUGIN})
    assert (told.rule, told.severity.label, told.line) == ("KLB001", "info", 8)
    assert "duplicate key 'default'" in told.message
    assert "not a Kubernetes input: the file holds no `apiVersion:` or `kind:` key" in (
        told.message
    )
    far = "note: '{{ not a tag near }}'\n" + "\n".join(f"k{n}: {n}" for n in range(8)) + "\n"
    (plain,) = read_errors(tmp_path / "far", {"lookup.yml": far + PLUGIN})
    assert "template" not in plain.message and plain.severity.label == "info"


@pytest.mark.parametrize("text", [JSON_MANIFEST, FLOW_MANIFEST], ids=["json", "flow"])
def test_kubernetes_keys_in_json_or_flow_style_keep_the_error(tmp_path: Path, text: str) -> None:
    (error,) = read_errors(tmp_path, {"deploy/app.yaml": text})
    assert error.severity.label == "error" and "not a Kubernetes input" not in error.message


@pytest.mark.parametrize(
    "name",
    [
        "overlays/dev/kustomization.yaml",
        "deploy/values.yaml",
        "deploy/values-prod.yml",
        "deploy/prod.values.yaml",
        "helm/values/agent.yaml",
        "example_values/v2/tls.yaml",
    ],
)
def test_a_kustomization_or_a_values_file_is_an_input_by_its_name(
    tmp_path: Path, name: str
) -> None:
    """kustomize reads a kustomization without `apiVersion`/`kind`; `helm install -f`
    reads a values file, which has neither: broken, each stays an error."""
    (error,) = read_errors(tmp_path, {name: UNCLOSED})
    assert error.severity.label == "error" and "not a Kubernetes input" not in error.message


def test_a_file_a_kustomization_lists_is_an_input(tmp_path: Path) -> None:
    """What a kustomization lists as a resource is a Kubernetes input whatever it holds:
    broken, an error, without the reason; the same file beside it, unlisted, is info."""
    files = {
        "k8s/kustomization.yaml": "resources:\n  - settings.yaml\n",
        "k8s/settings.yaml": PLUGIN,
        "k8s/notes.yaml": PLUGIN,
    }
    found = {Path(f.path).name: f for f in read_errors(tmp_path, files)}
    assert found["settings.yaml"].severity.label == "error"
    assert "not a Kubernetes input" not in found["settings.yaml"].message
    assert found["notes.yaml"].severity.label == "info"


def test_what_a_chart_renders_is_an_input(tmp_path: Path) -> None:
    """A chart's template that renders a file with no Kubernetes key, broken: Helm
    installs what it renders, so the error stands (said at the template)."""
    files = {
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "chart/values.yaml": "replicas: 1\n",
        "chart/templates/settings.yaml": UNCLOSED,
    }
    (error,) = read_errors(tmp_path, files)
    assert error.path.endswith("chart/templates/settings.yaml")
    assert error.severity.label == "error" and "not a Kubernetes input" not in error.message
