"""KLB104 session-affinity, KLB105 external-traffic-local, KLB106 topology-routing."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import lint_text


def service(spec_lines: str, annotations: str = "") -> str:
    meta = f"  annotations:\n    {annotations}\n" if annotations else ""
    return (
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n{meta}spec:\n"
        f"  selector: {{app: web}}\n{spec_lines}  ports: [{{port: 80}}]\n"
    )


def test_session_affinity_clientip_points_at_the_value(tmp_path: Path) -> None:
    (finding,) = lint_text(tmp_path / "a", service("  sessionAffinity: ClientIP\n"), ["KLB104"])
    assert (finding.line, finding.column) == (7, 20)
    assert lint_text(tmp_path / "b", service("  sessionAffinity: None\n"), ["KLB104"]) == []


@pytest.mark.parametrize(
    ("spec", "reported"),
    [
        ("  type: LoadBalancer\n  externalTrafficPolicy: Local\n", True),
        ("  type: NodePort\n  externalTrafficPolicy: Local\n", True),
        ("  type: LoadBalancer\n  externalTrafficPolicy: Cluster\n", False),
        ("  externalTrafficPolicy: Local\n", False),
    ],
)
def test_external_traffic_local(tmp_path: Path, spec: str, reported: bool) -> None:
    assert len(lint_text(tmp_path, service(spec), ["KLB105"])) == int(reported)


@pytest.mark.parametrize(
    ("spec", "annotations", "reported"),
    [
        ("  trafficDistribution: PreferClose\n", "", True),
        ("  trafficDistribution: PreferSameNode\n", "", True),
        ("", "service.kubernetes.io/topology-mode: Auto", True),
        ("", "service.kubernetes.io/topology-aware-hints: auto", True),
        ("", "service.kubernetes.io/topology-mode: Disabled", False),
        ("", "", False),
    ],
)
def test_topology_routing(tmp_path: Path, spec: str, annotations: str, reported: bool) -> None:
    findings = lint_text(tmp_path, service(spec, annotations), ["KLB106"])
    assert len(findings) == int(reported)
