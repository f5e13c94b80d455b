"""Which Service ports carry gRPC (HTTP/2), and why k8slb thinks so.

The evidence, strongest first: the port's `appProtocol`, its name (Istio's
`<protocol>[-suffix]` convention), the name of the container port it targets, a gRPC
health probe on the targeted container, and gRPC's conventional port 50051.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from k8slb.index import Index, Target, is_headless, service_ports, service_type
from k8slb.model import K8sObject, PodTemplate
from k8slb.yamltree import Pos, YMap

GRPC_APP_PROTOCOLS = frozenset({"grpc", "h2c", "kubernetes.io/h2c", "http2"})
GRPC_PORT = 50051
_GRPC_NAME = re.compile(r"^(?:grpc|h2c|http2)(?:-.*)?$|-grpc$")


def grpc_port_name(name: object) -> bool:
    return isinstance(name, str) and _GRPC_NAME.search(name.lower()) is not None


@dataclass(frozen=True)
class Evidence:
    port: YMap  # the Service's port entry
    reason: str
    path: str
    pos: Pos
    weakness: int = 0  # 0 for appProtocol, up to 4 for the conventional port number


def _probe_evidence(target: Target) -> str | None:
    container = target.container
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = container.probe(kind)
        if probe is None:
            continue
        grpc = probe.get("grpc")
        if isinstance(grpc, dict) and grpc.get("port") == target.number:
            return f"a gRPC {kind} on container {container.name!r}"
        command = probe.get("exec", {}) or {}
        argv = command.get("command") if isinstance(command, dict) else None
        if isinstance(argv, list) and any("grpc_health_probe" in str(a) for a in argv):
            return f"a grpc_health_probe {kind} on container {container.name!r}"
    return None


def grpc_evidence(index: Index, service: K8sObject) -> list[Evidence]:
    """One piece of evidence per Service port that carries gRPC (the strongest for that
    port), the strongest first."""
    found: list[Evidence] = []
    targets = index.targets(service)
    for port in service_ports(service):
        evidence = _port_evidence(service, port, [t for t in targets if t.service_port is port])
        if evidence is not None:
            found.append(evidence)
    return sorted(found, key=lambda evidence: evidence.weakness)  # stable: port order next


def _port_evidence(service: K8sObject, port: YMap, targets: list[Target]) -> Evidence | None:
    def on_service(reason: str, key: str, weakness: int) -> Evidence:
        return Evidence(port, reason, service.path, port.value_pos.get(key, port.pos), weakness)

    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str) and app_protocol.lower() in GRPC_APP_PROTOCOLS:
        return on_service(f"appProtocol {app_protocol}", "appProtocol", 0)
    if grpc_port_name(port.get("name")):
        return on_service(f"port name {port['name']!r}", "name", 1)
    for target in targets:
        for entry in target.container.ports():
            if entry.get("containerPort") == target.number and grpc_port_name(entry.get("name")):
                reason = f"container port {entry['name']!r} of {target.workload.ref.display}"
                return Evidence(port, reason, target.workload.path, entry.pos, 2)
    for target in targets:
        probe = _probe_evidence(target)
        if probe is not None:
            reason = f"{probe} of {target.workload.ref.display}"
            return Evidence(port, reason, target.workload.path, target.container.pos, 3)
    numbers = {port.get("port"), port.get("targetPort")} | {t.number for t in targets}
    if GRPC_PORT in numbers:
        return on_service(f"port {GRPC_PORT}, gRPC's conventional port", "port", 4)
    return None


@dataclass(frozen=True)
class PinnedService:
    """A Service whose gRPC clients stay on the pods they first reached (KLB101)."""

    service: K8sObject
    evidence: list[Evidence]
    backends: list[tuple[K8sObject, PodTemplate]]
    twins: list[K8sObject]  # headless Services, same selector, exposing the gRPC ports


def pinned_grpc(index: Index, service: K8sObject) -> PinnedService | None:
    """The KLB101 judgement: gRPC through a virtual IP (ClusterIP, NodePort or
    LoadBalancer, not headless) with no mesh in front of the pods."""
    if service_type(service) == "ExternalName" or is_headless(service):
        return None
    evidence = grpc_evidence(index, service)
    if not evidence:
        return None
    backends = index.selected(service)
    if index.mesh != "none" or (backends and all(index.mesh_of(w, t) for w, t in backends)):
        return None
    twins = [t for t in index.headless_twins(service) if _covers(t, evidence)]
    return PinnedService(service, evidence, backends, twins)


def _covers(twin: K8sObject, evidence: list[Evidence]) -> bool:
    """Whether a headless Service exposes every gRPC port: the same port, or the same
    target port (a headless Service for the metrics port is no twin for gRPC)."""

    def reaches(port: YMap) -> set[object]:
        return {port.get("port"), port.get("targetPort", port.get("port"))} - {None}

    offered = [reaches(port) for port in service_ports(twin)]
    return all(any(reaches(e.port) & mine for mine in offered) for e in evidence)
