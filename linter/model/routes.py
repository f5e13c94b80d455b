"""L7 proxies in front of Services: the objects that make a proxy balance each request
(not each connection) to a Service's pods, found in the scanned manifests.

- an Ingress with `nginx.ingress.kubernetes.io/backend-protocol: GRPC` (or `GRPCS`), or an
  AWS load balancer controller's with `alb.ingress.kubernetes.io/backend-protocol-version:
  GRPC` (or `HTTP2`);
- a Service that GKE's load balancer reaches over HTTP/2
  (`cloud.google.com/app-protocols` naming `HTTP2` for a port);
- a Gateway API `GRPCRoute`, or an `HTTPRoute` to a Service whose port declares an h2c
  `appProtocol` (the Gateway then speaks HTTP/2 to the pods);
- an Istio `VirtualService` routing to the host, or a `DestinationRule` for it;
- a Contour `HTTPProxy` whose route sends `protocol: h2c` (or `h2`) to it, or a Service
  that names the ports Contour reaches over HTTP/2 (`projectcontour.io/upstream-protocol.h2c`
  or `.h2`, or the older `contour.heptio.com/` form; `.tls` is HTTP/1.1 over TLS);
- an Envoy whose static configuration, in a ConfigMap's data or a YAML file, has a
  `STRICT_DNS` cluster on a headless Service's name (Envoy resolves every pod and balances
  each request over them, re-resolving as pods come and go) with a balancing `lb_policy`
  (envoy_fronts).
An Emissary config, or an Envoy's given by a control plane (EDS), is not read.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from k8slb.core.record import record
from k8slb.model.objects import namespace_key
from k8slb.reading.manifests import ProxyConfig
from k8slb.reading.objects import K8sObject, dig

GRPC_BACKEND = "nginx.ingress.kubernetes.io/backend-protocol"
ALB_PROTOCOL = "alb.ingress.kubernetes.io/backend-protocol-version"
GKE_PROTOCOLS = "cloud.google.com/app-protocols"
# Contour's Service annotations that name (by port name or number, comma-separated) the
# ports Envoy reaches over HTTP/2: in the clear (`h2c`) or over TLS (`h2`). Contour gives
# Envoy the Service's endpoints, so each request is placed on a pod.
CONTOUR_PROTOCOLS = tuple(
    f"{prefix}/upstream-protocol.{protocol}"
    for prefix in ("projectcontour.io", "contour.heptio.com")
    for protocol in ("h2c", "h2")
)


@record
class Front:
    """An object that sends a Service's traffic through a request-balancing proxy."""

    path: str  # of the object, or the proxy's configuration file
    line: int
    reason: str
    needs_h2c_port: bool = False  # an HTTPRoute balances gRPC only to an h2c port
    needs_headless: bool = False  # a DNS name of a ClusterIP is one host: one connection


Key = tuple[str, str]  # (namespace, Service name); no namespace is `default`, as kubectl


def key_of(namespace: str | None, name: str) -> Key:
    return (namespace_key(namespace), name)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _host_key(host: object, namespace: str | None) -> Key | None:
    """`svc`, `svc.ns`, `svc.ns.svc.cluster.local` -> (namespace, svc)."""
    if not isinstance(host, str) or not host or "*" in host:
        return None
    labels = host.lower().rstrip(".").split(".")
    return key_of(labels[1] if len(labels) > 1 else namespace, labels[0])


def _ingress_services(obj: K8sObject) -> Iterator[Key]:
    """The Services an Ingress sends requests to."""
    for key, _ in _ingress_backends(obj):
        yield key


def _ingress_backends(obj: K8sObject) -> Iterator[tuple[Key, object]]:
    """(Service, the port it is sent to: a number, a name, None when none is named) of
    each backend of an Ingress."""
    spec = obj.body.get("spec") or {}
    backends = [spec.get("defaultBackend"), spec.get("backend")]
    for rule in _list(spec.get("rules")):
        backends += [path.get("backend") for path in _list(dig(rule, "http", "paths"))]
    for backend in backends:
        name = dig(backend, "service", "name") or dig(backend, "serviceName")
        if isinstance(name, str):
            port = dig(backend, "service", "port", "number") or dig(
                backend, "service", "port", "name"
            )
            yield key_of(obj.namespace, name), port or dig(backend, "servicePort") or None


def _ingress(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    protocol = str(obj.annotations.get(GRPC_BACKEND, "")).upper()
    annotation = GRPC_BACKEND
    if protocol not in ("GRPC", "GRPCS"):
        protocol = str(obj.annotations.get(ALB_PROTOCOL, "")).upper()
        annotation = ALB_PROTOCOL
        if protocol not in ("GRPC", "HTTP2"):
            return
    front = Front(obj.path, obj.pos[0], f"{obj.kind}/{obj.name} ({annotation}: {protocol})")
    for key in _ingress_services(obj):
        yield key, front


def _gateway_services(obj: K8sObject) -> Iterator[Key]:
    """The Services a Gateway API route sends requests to."""
    for key, _ in _gateway_backends(obj):
        yield key


def _gateway_backends(obj: K8sObject) -> Iterator[tuple[Key, object]]:
    """(Service, the port it is sent to or None) of each backendRef of a Gateway API
    route."""
    for rule in _list(dig(obj.body, "spec", "rules")):
        for ref in _list(rule.get("backendRefs") if isinstance(rule, dict) else None):
            if not isinstance(ref, dict) or ref.get("kind", "Service") != "Service":
                continue
            if isinstance(ref.get("name"), str):
                key = key_of(ref.get("namespace") or obj.namespace, ref["name"])
                yield key, ref.get("port")


def _gateway_route(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    front = Front(
        obj.path, obj.pos[0], f"{obj.kind}/{obj.name}", needs_h2c_port=obj.kind == "HTTPRoute"
    )
    for key in _gateway_services(obj):
        yield key, front


def _istio(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    front = Front(obj.path, obj.pos[0], f"Istio {obj.kind}/{obj.name}")
    if obj.kind == "DestinationRule":
        key = _host_key(dig(obj.body, "spec", "host"), obj.namespace)
        if key is not None:
            yield key, front
        return
    for http in _list(dig(obj.body, "spec", "http")):
        for route in _list(http.get("route") if isinstance(http, dict) else None):
            key = _host_key(dig(route, "destination", "host"), obj.namespace)
            if key is not None:
                yield key, front


def _route_services(obj: K8sObject) -> Iterator[tuple[Key, Any]]:
    """(Service, the route's entry for it) of a Contour HTTPProxy or a Traefik IngressRoute:
    `spec.routes[].services[]`, by name."""
    for route in _list(dig(obj.body, "spec", "routes")):
        for service in _list(route.get("services") if isinstance(route, dict) else None):
            if not isinstance(service, dict) or not isinstance(service.get("name"), str):
                continue
            if service.get("kind", "Service") == "Service":
                yield key_of(service.get("namespace") or obj.namespace, service["name"]), service


def _contour(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    for key, service in _route_services(obj):
        protocol = service.get("protocol")
        if protocol in ("h2c", "h2"):
            yield (
                key,
                Front(obj.path, obj.pos[0], f"Contour HTTPProxy/{obj.name} (protocol: {protocol})"),
            )


def _gke_backend(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    """A Service GKE's load balancer sends HTTP/2 to: it balances each request."""
    try:
        protocols = json.loads(str(obj.annotations.get(GKE_PROTOCOLS, "{}")))
    except ValueError:
        return
    if isinstance(protocols, dict) and "HTTP2" in {str(v).upper() for v in protocols.values()}:
        reason = f"GKE's load balancer ({GKE_PROTOCOLS}: HTTP2 on {obj.kind}/{obj.name})"
        yield key_of(obj.namespace, obj.name or ""), Front(obj.path, obj.pos[0], reason)


def _contour_backend(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    """A Service whose annotation has Contour reach one of its ports over HTTP/2. The
    annotations are read first: a cached Service's body (its ports) is loaded only when
    one names a port, where a hook on a module asked every Service of the tree."""
    annotations = obj.annotations
    named_by = [
        (annotation, named)
        for annotation in CONTOUR_PROTOCOLS
        if annotation in annotations and (named := _named_ports(annotations[annotation]))
    ]
    if not named_by:
        return
    ports = {
        str(value)
        for port in _list(dig(obj.body, "spec", "ports"))
        if isinstance(port, dict)
        for value in (port.get("name"), port.get("port"))
        if value is not None
    }
    for annotation, named in named_by:
        if named & ports:
            reason = f"Contour ({annotation} on {obj.kind}/{obj.name})"
            yield key_of(obj.namespace, obj.name or ""), Front(obj.path, obj.pos[0], reason)
            return


def _named_ports(value: object) -> set[str]:
    """The ports a Contour annotation names (comma-separated); an empty part names none
    (a port written `name: ""` is one with no name, not one Contour reaches)."""
    return {part.strip() for part in str(value).split(",")} - {""}


def _service_backend(obj: K8sObject) -> Iterator[tuple[Key, Front]]:
    """A Service an L7 balancer reaches over HTTP/2 by its own annotations."""
    yield from _gke_backend(obj)
    yield from _contour_backend(obj)


_READERS = {
    ("", "Service"): _service_backend,
    ("networking.k8s.io", "Ingress"): _ingress,
    ("extensions", "Ingress"): _ingress,
    ("gateway.networking.k8s.io", "GRPCRoute"): _gateway_route,
    ("gateway.networking.k8s.io", "HTTPRoute"): _gateway_route,
    ("networking.istio.io", "VirtualService"): _istio,
    ("networking.istio.io", "DestinationRule"): _istio,
    ("projectcontour.io", "HTTPProxy"): _contour,
}


def l7_fronts(objects: list[K8sObject]) -> dict[Key, list[Front]]:
    """The request-balancing proxies in front of each Service, by (namespace, name)."""
    fronts: dict[Key, list[Front]] = defaultdict(list)
    for obj in objects:
        reader = _READERS.get((obj.group, obj.kind))
        if reader is not None:
            for key, front in reader(obj):
                fronts[key].append(front)
    return fronts


# Envoy's cluster types that resolve a name to every address it has (a headless Service's
# pods); LOGICAL_DNS connects to the first address only, STATIC and ORIGINAL_DST are no name.
_RESOLVING_TYPES = {"STRICT_DNS"}
# Its policies that place each request (the default is ROUND_ROBIN); CLUSTER_PROVIDED leaves
# it to the cluster type.
_PER_REQUEST_POLICIES = {"ROUND_ROBIN", "LEAST_REQUEST", "RANDOM", "RING_HASH", "MAGLEV"}


def _envoy_hosts(cluster: dict[str, Any]) -> Iterator[object]:
    """The endpoint addresses of an Envoy cluster: `load_assignment` (v3) or `hosts` (v2)."""
    for group in _list(dig(cluster, "load_assignment", "endpoints")):
        for endpoint in _list(group.get("lb_endpoints") if isinstance(group, dict) else None):
            yield dig(endpoint, "endpoint", "address", "socket_address", "address")
    for host in _list(cluster.get("hosts")):
        yield dig(host, "socket_address", "address")


def _envoy_clusters(
    config: object, where: str, namespace: str | None, path: str, line: int
) -> Iterator[tuple[Key, Front]]:
    """The Services an Envoy bootstrap's static clusters balance each request over (a
    name without its namespace is in `namespace`)."""
    for cluster in _list(dig(config, "static_resources", "clusters")):
        if not isinstance(cluster, dict):
            continue
        kind = str(cluster.get("type", "STATIC")).upper()
        policy = str(cluster.get("lb_policy", "ROUND_ROBIN")).upper()
        if kind not in _RESOLVING_TYPES or policy not in _PER_REQUEST_POLICIES:
            continue
        name = cluster.get("name")
        reason = f"Envoy ({where}: cluster {name}, {kind}, {policy})"
        front = Front(path, line, reason, needs_headless=True)
        for host in _envoy_hosts(cluster):
            key = _host_key(host, namespace)
            if key is not None:
                yield key, front


def envoy_fronts(
    objects: list[K8sObject], files: Iterable[ProxyConfig] = ()
) -> dict[Key, list[Front]]:
    """The Services an Envoy bootstrap with static clusters balances each request over,
    by (namespace, name): one in a ConfigMap's data (YAML or JSON), or a YAML file of the
    tree (its names without a namespace are in `default`, as the ConfigMap made of it is
    unknown). The front holds only for a headless Service (`needs_headless`): a
    ClusterIP's name is one host."""
    fronts: dict[Key, list[Front]] = defaultdict(list)
    for config in files:
        where = os.path.basename(config.path)
        for key, front in _envoy_clusters(config.data, where, None, config.path, config.line):
            fronts[key].append(front)
    for obj in objects:
        if not obj.is_a("", "ConfigMap") or not obj.may_mention({"static_resources"}):
            continue
        entries = obj.body.get("data")
        for name, text in entries.items() if isinstance(entries, dict) else ():
            if not isinstance(text, str) or "static_resources" not in text:
                continue
            # ruamel's composer is loaded where a YAML text is composed (start-up time)
            from k8slb.reading.yamlcompose import compose

            for document in compose(text).documents:
                where = f"ConfigMap {obj.name}, {name}"
                found = _envoy_clusters(document.data, where, obj.namespace, obj.path, obj.pos[0])
                for key, front in found:
                    fronts[key].append(front)
    return fronts


def _routes_services(obj: K8sObject) -> Iterator[Key]:
    for key, _ in _route_services(obj):
        yield key


def _istio_services(obj: K8sObject) -> Iterator[Key]:
    for key, _ in _istio(obj):
        yield key


# Every L7 router, whatever the protocol: it sends each request to one of the Service's
# endpoints (the pods), which it drops when a pod starts terminating.
_ROUTERS = {
    ("networking.k8s.io", "Ingress"): _ingress_services,
    ("extensions", "Ingress"): _ingress_services,
    ("gateway.networking.k8s.io", "GRPCRoute"): _gateway_services,
    ("gateway.networking.k8s.io", "HTTPRoute"): _gateway_services,
    ("networking.istio.io", "VirtualService"): _istio_services,
    ("projectcontour.io", "HTTPProxy"): _routes_services,
    ("traefik.io", "IngressRoute"): _routes_services,
    ("traefik.containo.us", "IngressRoute"): _routes_services,
}


def routed(objects: list[K8sObject]) -> dict[Key, list[K8sObject]]:
    """The L7 routes (Ingress, Gateway API routes, Istio, Contour, Traefik) that send
    requests to each Service's pods, by (namespace, name)."""
    found: dict[Key, list[K8sObject]] = defaultdict(list)
    for obj in objects:
        reader = _ROUTERS.get((obj.group, obj.kind))
        if reader is not None:
            for key in reader(obj):
                found[key].append(obj)
    return found


# The routers that name the Service port they send to (an Ingress backend's
# `service.port`, a Gateway API backendRef's `port`); the others send to any of them.
_PORTED = {
    ("networking.k8s.io", "Ingress"): _ingress_backends,
    ("extensions", "Ingress"): _ingress_backends,
    ("gateway.networking.k8s.io", "GRPCRoute"): _gateway_backends,
    ("gateway.networking.k8s.io", "HTTPRoute"): _gateway_backends,
}


def routed_ports(objects: list[K8sObject]) -> dict[Key, set[int | str] | None]:
    """The Service ports L7 routers send requests to (numbers or names), by (namespace,
    name): None where a router names no port (a VirtualService's host, a backend with
    none), then any port of the Service may be called."""
    found: dict[Key, set[int | str] | None] = {}
    for obj in objects:
        key_ports = _PORTED.get((obj.group, obj.kind))
        if key_ports is None:
            reader = _ROUTERS.get((obj.group, obj.kind))
            for key in reader(obj) if reader is not None else ():
                found[key] = None
            continue
        for key, port in key_ports(obj):
            ports = found.setdefault(key, set())
            if ports is None:
                continue
            if isinstance(port, int | str) and not isinstance(port, bool):
                ports.add(port)
            else:
                found[key] = None
    return found
