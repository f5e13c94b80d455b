"""A gRPC Service that selects no pod where k8slb read every object applied with it (a
chart's render, a kustomize build) and no other file read runs one: no client reaches a
pod through it, so none stays on one. KLB101 (and KLB102, for a channel that dials it) is
then info, with no twin offered. Where the pods may be in files not read (plain YAML),
or an operator's custom resource may make them, or the chart rendered without some of its
templates, the Service is judged as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files
from .test_kustomize_builds_together import _findings, _tree

_CHART = "apiVersion: v2\nname: backend\nversion: 0.1.0\n"
# the chart's workload, switched off by its default values (a component it may run)
_SWITCHED = "{{- if .Values.backend.enabled }}\n" + BACKEND.lstrip("-\n") + "{{- end }}\n"
_OPERATED = """\
apiVersion: example.com/v1
kind: GrpcCluster
metadata:
  name: backend
spec:
  replicas: 3
"""
_MONITOR = """\
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: backend
spec:
  selector:
    matchLabels: {app: backend}
  endpoints:
    - port: grpc
"""


def _chart(enabled: bool, **more: str) -> dict[str, str]:
    return {
        "Chart.yaml": _CHART,
        "values.yaml": f"backend:\n  enabled: {str(enabled).lower()}\n",
        "templates/service.yaml": GRPC_SERVICE,
        "templates/deployment.yaml": _SWITCHED,
        **{f"templates/{name}.yaml": text for name, text in more.items()},
    }


def test_a_chart_service_whose_workload_its_values_switch_off_is_info(tmp_path: Path) -> None:
    (finding,) = lint_files(tmp_path / "off", _chart(False), ["KLB101"]).findings
    assert finding.severity is Severity.INFO
    assert finding.path.endswith("service.yaml")
    assert "no pod read matches its selector (app: backend)" in finding.text
    assert "none stays on one" in finding.text
    assert not finding.edits  # a twin of a Service with no pod would serve nothing
    (scaled,) = lint_files(tmp_path / "on", _chart(True), ["KLB101"]).findings
    assert scaled.severity is Severity.WARNING and "runs 3 replicas" in scaled.text


def test_a_service_in_plain_files_keeps_its_warning(tmp_path: Path) -> None:
    """A folder of plain YAML may be applied with a Deployment k8slb did not read."""
    files = {"service.yaml": GRPC_SERVICE, "other.yaml": _MONITOR}
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert finding.severity is Severity.WARNING


def test_pods_of_another_file_read_keep_its_warning(tmp_path: Path) -> None:
    """The chart's Service selects pods a plain manifest of the tree runs: the two may be
    applied into one cluster, so no pod is not proven."""
    files = {f"chart/{name}": text for name, text in _chart(False).items()}
    files["deploy/backend.yaml"] = BACKEND.lstrip("-\n")
    found = lint_files(tmp_path, files, ["KLB101"]).findings
    chart = [f for f in found if f.path.endswith("service.yaml")]
    assert [f.severity for f in chart] == [Severity.WARNING]


def test_a_custom_resource_that_may_run_the_pods_keeps_its_warning(tmp_path: Path) -> None:
    """An operator may make pods of a resource it owns and label them as it likes; a
    ServiceMonitor is configuration only."""
    operated = _chart(False, cluster=_OPERATED)
    (finding,) = lint_files(tmp_path / "operated", operated, ["KLB101"]).findings
    assert finding.severity is Severity.WARNING
    monitored = _chart(False, monitor=_MONITOR)
    (finding,) = lint_files(tmp_path / "monitored", monitored, ["KLB101"]).findings
    assert finding.severity is Severity.INFO and "no pod read matches" in finding.text


def test_a_chart_rendered_without_a_template_says_its_pods_may_be_there(tmp_path: Path) -> None:
    """Helm failed on a template: the render is not whole, and the finding says why."""
    broken = _chart(False, broken='{{ fail "set backend.host" }}\n')
    found = lint_files(tmp_path, broken, ["KLB101"]).findings
    (finding,) = [f for f in found if f.rule == "KLB101"]
    assert finding.severity is Severity.INFO
    assert "Helm failed on" in finding.text and "no pod read matches" not in finding.text


def test_a_kustomize_build_whose_service_selects_no_pod_is_info(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unselected = GRPC_SERVICE.replace("    app: backend\n", "    app: backend-v2\n")
    tree = _tree(tmp_path, monkeypatch, unselected + BACKEND, "")
    (finding,) = _findings(tree, "KLB101")
    assert finding["severity"] == "info"
    assert "no pod read matches its selector (app: backend-v2)" in finding["message"]


def test_a_channel_that_dials_a_service_with_no_pod_is_info(tmp_path: Path) -> None:
    code = 'import grpc\n\nchannel = grpc.insecure_channel("backend.default.svc:50051")\n'
    files = {f"chart/{name}": text for name, text in _chart(False).items()}
    files["client/app.py"] = code
    (finding,) = lint_files(tmp_path / "off", files, ["KLB102"]).findings
    assert finding.severity is Severity.INFO
    assert "would stay on one pod" in finding.text
    assert "no pod read matches the selector of Service/default/backend" in finding.text
    files["chart/values.yaml"] = "backend:\n  enabled: true\n"
    (finding,) = lint_files(tmp_path / "on", files, ["KLB102"]).findings
    assert finding.severity is Severity.WARNING


def test_a_long_selector_is_quoted_in_part(tmp_path: Path) -> None:
    labels = "".join(f"    label-{n}: {'v' * 60}\n" for n in range(40))
    service = GRPC_SERVICE.replace("    app: backend\n", labels)
    files = {**_chart(False), "templates/service.yaml": service}
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert "label-3" in finding.text and "label-4" not in finding.text
    assert ", …)" in finding.text
