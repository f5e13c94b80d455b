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
    """One piece of evidence per Service port that carries gRPC, the strongest found."""
    found: list[Evidence] = []
    targets = index.targets(service)
    for port in service_ports(service):
        evidence = _port_evidence(service, port, [t for t in targets if t.service_port is port])
        if evidence is not None:
            found.append(evidence)
    return found


def _port_evidence(service: K8sObject, port: YMap, targets: list[Target]) -> Evidence | None:
    def on_service(reason: str, key: str) -> Evidence:
        return Evidence(port, reason, service.path, port.value_pos.get(key, port.pos))

    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str) and app_protocol.lower() in GRPC_APP_PROTOCOLS:
        return on_service(f"appProtocol {app_protocol}", "appProtocol")
    if grpc_port_name(port.get("name")):
        return on_service(f"port name {port['name']!r}", "name")
    for target in targets:
        for entry in target.container.ports():
            if entry.get("containerPort") == target.number and grpc_port_name(entry.get("name")):
                reason = f"container port {entry['name']!r} of {target.workload.ref.display}"
                return Evidence(port, reason, target.workload.path, entry.pos)
    for target in targets:
        probe = _probe_evidence(target)
        if probe is not None:
            reason = f"{probe} of {target.workload.ref.display}"
            return Evidence(port, reason, target.workload.path, target.container.pos)
    numbers = {port.get("port"), port.get("targetPort")} | {t.number for t in targets}
    if GRPC_PORT in numbers:
        return on_service(f"port {GRPC_PORT}, gRPC's conventional port", "port")
    return None


@dataclass(frozen=True)
class PinnedService:
    """A Service whose gRPC clients stay on the pods they first reached (KLB101)."""

    service: K8sObject
    evidence: list[Evidence]
    backends: list[tuple[K8sObject, PodTemplate]]
    twins: list[K8sObject]  # headless Services with the same selector


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
    return PinnedService(service, evidence, backends, index.headless_twins(service))
