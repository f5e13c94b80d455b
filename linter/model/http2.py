"""Which Service ports carry gRPC (HTTP/2), and why k8slb thinks so.

The evidence, strongest first: the port's `appProtocol`, its name (Istio's
`<protocol>[-suffix]` convention), the name of the container port it targets, a gRPC
server in the code the targeted container runs (links.py) listening on that port, a gRPC
health probe on the targeted container, a server flag or a well-known server image that
puts gRPC on the targeted port, and gRPC's conventional port 50051.
"""

from __future__ import annotations

import os

from k8slb.code.facts import Loc
from k8slb.core import regex
from k8slb.model.index import (
    Index,
    Target,
    is_headless,
    service_type,
    target_port,
)
from k8slb.model.links import CodeLinks, Served
from k8slb.model.objects import PodTemplate, service_ports
from k8slb.model.well_known import grpc_ports, internal_grpc
from k8slb.reading.build_files import image_repository
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import Pos, YMap
from k8slb.record import record

GRPC_APP_PROTOCOLS = frozenset({"grpc", "h2c", "kubernetes.io/h2c", "http2"})
GRPC_PORT = 50051
_GRPC_NAME = regex.compile(r"^(?:grpc|h2c|http2)(?:-.*)?$|-grpc$")


# gRPC ports of widely used server images, as their makers document them (weak evidence:
# the port can be moved by a flag). tensorflow/serving's Dockerfile: `EXPOSE 8500` for
# gRPC (8501 is REST); Triton: "Started GRPCInferenceService at 0.0.0.0:8001" (8000 HTTP,
# 8002 metrics).
# Server flags that name the port a gRPC or HTTP/2 server listens on.
_GRPC_FLAG = regex.compile(r"^--(grpc-port|grpc_port|http2_port|http2-port|grpc)(?:=(\d+))?$")


def _flag_ports(words: list[object]) -> dict[int, str]:
    """The ports that gRPC flags name: `--grpc-port=8500` or `--grpc-port 8500`."""
    found: dict[int, str] = {}
    texts = [str(word) for word in words]
    for number, text in enumerate(texts):
        flag = _GRPC_FLAG.match(text)
        if flag is None:
            continue
        value = flag.group(2) or (texts[number + 1] if number + 1 < len(texts) else "")
        if value.isdigit():
            found[int(value)] = f"{flag.group(0).split('=')[0]}={value}"
    return found


def grpc_port_name(name: object) -> bool:
    if not isinstance(name, str):
        return False
    lowered = name.lower()  # most names have none of the words: spared the pattern's call
    return any(word in lowered for word in ("grpc", "h2c", "http2")) and bool(
        _GRPC_NAME.search(lowered)
    )


@record
class Evidence:
    port: YMap  # the Service's port entry
    reason: str
    path: str
    pos: Pos
    weakness: int = 0  # 0 for appProtocol, up to 5 for the conventional port number
    served: Served | None = None  # evidence from the code: the server found there


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


def grpc_evidence(
    index: Index, service: K8sObject, code: CodeLinks | None = None
) -> list[Evidence]:
    """One piece of evidence per Service port that carries gRPC (the strongest for that
    port), the strongest first. `code` adds the servers in the code the pods run."""
    found: list[Evidence] = []
    targets = index.targets(service)
    for port in service_ports(service):
        mine = [t for t in targets if t.service_port is port]
        evidence = _port_evidence(service, port, mine, code)
        if evidence is not None:
            found.append(evidence)
    return sorted(found, key=lambda evidence: evidence.weakness)  # stable: port order next


def _port_evidence(
    service: K8sObject, port: YMap, targets: list[Target], code: CodeLinks | None
) -> Evidence | None:
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
        for served in code.listening(target.workload, target.container) if code else []:
            if served.port == target.number:
                listen = served.listen
                reason = (
                    f"its code serves gRPC on {served.port}: "
                    f"{os.path.basename(listen.loc.path)}:{listen.loc.line}"
                )
                at = (listen.loc.line, listen.loc.column)
                return Evidence(port, reason, listen.loc.path, at, 2, served)
    for target in targets:
        probe = _probe_evidence(target)
        if probe is not None:
            reason = f"{probe} of {target.workload.ref.display}"
            return Evidence(port, reason, target.workload.path, target.container.pos, 3)
    for target in targets:
        container = target.container.body
        words = [*(container.get("command") or []), *(container.get("args") or [])]
        flags = _flag_ports(words if isinstance(words, list) else [])
        if target.number in flags:
            reason = (
                f"the flag {flags[target.number]} of container {target.container.name!r} "
                f"of {target.workload.ref.display} (weaker evidence)"
            )
            return Evidence(port, reason, target.workload.path, target.container.pos, 4)
        image = image_repository(container.get("image"))
        known = grpc_ports(image, [str(word) for word in words] if isinstance(words, list) else [])
        if target.number in known:
            reason = (
                f"image {image}: {known[target.number]}, in container "
                f"{target.container.name!r} of {target.workload.ref.display} (weaker evidence)"
            )
            return Evidence(port, reason, target.workload.path, target.container.pos, 4)
    numbers = {port.get("port"), port.get("targetPort")} | {t.number for t in targets}
    if GRPC_PORT in numbers:
        return on_service(f"port {GRPC_PORT}, gRPC's conventional port", "port", 5)
    return None


def dialed_port(service: K8sObject, port: int | None, loc: Loc) -> Evidence | None:
    """The Service port a gRPC channel in the code dials (by its number): the channel is
    gRPC, so that port carries it, whatever the port is named."""
    for entry in service_ports(service):
        if port is not None and entry.get("port") == port:
            reason = f"a gRPC channel dials it: {os.path.basename(loc.path)}:{loc.line}"
            return Evidence(entry, reason, loc.path, (loc.line, loc.column), 2)
    return None


@record
class PinnedService:
    """A Service whose gRPC clients stay on the pods they first reached (KLB101)."""

    service: K8sObject
    evidence: list[Evidence]
    backends: list[tuple[K8sObject, PodTemplate]]
    twins: list[K8sObject]  # headless Services, same selector, exposing the gRPC ports
    # why no client calls its gRPC ports through it, when the servers behind them are
    # well-known ones that serve those ports only to their own components
    internal: str | None = None


def pinned_grpc(
    index: Index,
    service: K8sObject,
    code: CodeLinks | None = None,
    dialed: Evidence | None = None,
) -> PinnedService | None:
    """The KLB101 judgement: gRPC through a virtual IP (ClusterIP, NodePort or
    LoadBalancer, not headless) with no mesh in front of the pods. `dialed`: a gRPC
    channel in the code that dials one of its ports, evidence of its own."""
    if service_type(service) == "ExternalName" or is_headless(service):
        return None
    if not index.purpose(service).carries_clients:  # the pods' own cluster traffic
        return None
    evidence = grpc_evidence(index, service, code) or ([dialed] if dialed is not None else [])
    if not evidence:
        return None
    backends = index.selected(service)
    if index.mesh != "none" or (backends and all(index.mesh_of(w, t) for w, t in backends)):
        return None
    # a twin that publishes not-ready pods (peer discovery) would send round_robin clients
    # to pods that are starting or draining: no twin for clients
    twins = [
        t
        for t in index.headless_twins(service)
        if _covers(t, evidence) and index.purpose(t).role != "peers"
    ]
    return PinnedService(service, evidence, backends, twins, _internal(index, service, evidence))


def _internal(index: Index, service: K8sObject, evidence: list[Evidence]) -> str | None:
    """The reason every gRPC port of the Service is internal to a well-known system (its
    targeted containers' images and flags say so, data/grpc_servers.json), else None."""
    reasons: list[str] = []
    targets = index.targets(service)
    for found in evidence:
        mine = [t for t in targets if t.service_port is found.port]
        if not mine:
            return None
        for target in mine:
            if target.number is None:
                return None
            image = image_repository(target.container.body.get("image"))
            reason = internal_grpc(image, target.container.words, target.number)
            if reason is None:
                return None
            reasons.append(reason)
    return reasons[0] if reasons else None


def _covers(twin: K8sObject, evidence: list[Evidence]) -> bool:
    """Whether a headless Service exposes every gRPC port: the same port, or the same
    target port (a headless Service for the metrics port is no twin for gRPC)."""

    def reaches(port: YMap) -> set[object]:
        return {port.get("port"), target_port(port)} - {None}

    offered = [reaches(port) for port in service_ports(twin)]
    return all(any(reaches(e.port) & mine for mine in offered) for e in evidence)
