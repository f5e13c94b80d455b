"""What each Service is for: whether clients call the pods through it, or it only serves
the pods' own discovery or metrics scrapes.

A Service that selects a pod does not always carry its traffic. Distributed systems keep
Services for peer discovery (a memberlist or raft cluster finds its members through a
headless Service that publishes not-ready pods) and for Prometheus, and
the rules that judge serving containers (readiness, preStop, shared probes) and gRPC
Services (round_robin, connection age) must not judge a pod by those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

from k8slb.core import regex
from k8slb.core.record import record
from k8slb.model.objects import (
    Container,
    PodTemplate,
    namespace_key,
    pod_template,
    probe_port,
    service_ports,
    target_port,
)
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

# Words of port names that mean "this port is scraped or profiled, not called": a port
# whose name is made of them only (`metrics` or `metric`, `prometheus`, `pprof`, `profiling`,
# `monitoring`, `prom-metrics`; `port` says nothing, so `metrics-port` too) carries no
# client traffic (ServiceMonitors and PodMonitors add the ports they scrape). Not
# `http-metrics`: Loki, Mimir, Tempo and Cortex charts give that name to the port that
# serves their whole HTTP API.
# `debug` (with them, or alone) is the port of the process's own diagnostics (Go's
# expvar and pprof: `metrics-debug`, `debug`), scraped or profiled, never called by clients.
SCRAPE_WORDS = frozenset(
    {
        "metrics",
        "metric",
        "prometheus",
        "prom",
        "pprof",
        "profiling",
        "monitoring",
        "debug",
        "servicemonitor",
        "podmonitor",
        "scrape",
    }
)
# A word of a port's name that names no use: left out before the words are compared.
PORT_FILLER = frozenset({"port"})
# Words that name Prometheus or its monitors, not only metrics: with one of them, a
# protocol's word (Istio's `tcp-` prefix, `http-`) says no more than `port` does
# (`tcp-prometheus-servicemonitor`, `http-prom`), while `http-metrics` stays a port of
# clients (the HTTP API of Loki's and Mimir's charts).
_PROMETHEUS_WORDS = frozenset({"prometheus", "prom", "servicemonitor", "podmonitor", "scrape"})
_PROTOCOL_WORDS = frozenset({"tcp", "http", "https"})
# Words of what a port speaks, never taken as an app's name (owned_scrape_name): a
# `grpc-server`'s `grpc-metrics` is no more its metrics' than `http-metrics` is.
_WIRE_WORDS = _PROTOCOL_WORDS | {"grpc", "h2c", "http2", "udp", "tls", "ws", "wss"}
# Words in a port name that mean the pods talk to each other on it: a gossip ring
# (memberlist, serf), a consensus group (raft), cluster routes (NATS, Alertmanager).
PEER_WORDS = frozenset(
    {"gossip", "memberlist", "cluster", "raft", "peer", "peers", "discovery", "serf", "ring"}
)

# Words in a Service's own name that say what it is for (`loki-memberlist`,
# `tempo-ingester-discovery`).
PEER_SERVICE_WORDS = frozenset({"gossip", "memberlist", "discovery"})
# Of them, `discovery` alone says little: a registry's server that clients call through its
# ClusterIP has it too (`discovery-server`, `service-discovery`). It names a Service for
# peers only on a headless Service or one that publishes not-ready pods, or as the last word
# beside the name of a workload the Service selects (`ingester` + `-discovery`); and a caller
# that names the Service with one of its ports wins over it (Index.purpose).
DISCOVERY = "discovery"

Role = Literal["clients", "peers", "metrics"]


@record
class Purpose:
    """What a Service is for, and why k8slb thinks so."""

    role: Role
    reason: str
    # peers by the word `discovery` in the name alone: a caller seen naming the Service
    # with one of its ports makes it a Service of clients (Index.purpose)
    by_name: bool = False

    @property
    def carries_clients(self) -> bool:
        return self.role == "clients"


CLIENTS = Purpose("clients", "")


_SEPARATORS = str.maketrans("_.", "--")  # the words of a name: split at `-`, `_` and `.`


def _words(name: object) -> set[str]:
    return set(name.lower().translate(_SEPARATORS).split("-")) if isinstance(name, str) else set()


def _peer_port(port: YMap) -> bool:
    """A port for the pods' own cluster traffic, by its name or the container port's."""
    return bool(PEER_WORDS & (_words(port.get("name")) | _words(port.get("targetPort"))))


def _in_space(monitor: K8sObject, spec: object, namespace: str | None) -> bool:
    """Whether a monitor looks in the namespace (its own, or `namespaceSelector`'s)."""
    spaces = dig(spec, "namespaceSelector", "matchNames")
    if dig(spec, "namespaceSelector", "any") is True:
        return True
    return namespace in spaces if isinstance(spaces, list) else namespace == monitor.namespace


def _matches(wanted: object, labels: dict[str, str]) -> bool:
    return (
        bool(wanted)
        and isinstance(wanted, dict | YMap)
        and all(labels.get(k) == v for k, v in wanted.items())
    )


def scraped_ports(objects: Sequence[K8sObject]) -> dict[int, set[str]]:
    """The Service port names Prometheus scrapes, by the id of each Service: the ports a
    ServiceMonitor that selects the Service names (matchLabels in its own namespace, or
    the ones `namespaceSelector` names), the ports that target a container port a
    PodMonitor scrapes on every pod the Service selects, and the ports a Prometheus
    configuration's `scrape_configs` name as a target (`name:port`) ("" for an unnamed
    port)."""
    monitors = [o for o in objects if o.is_a("monitoring.coreos.com", "ServiceMonitor")]
    pod_monitors = [o for o in objects if o.is_a("monitoring.coreos.com", "PodMonitor")]
    jobs = scrape_targets(objects)
    if not monitors and not pod_monitors and not jobs:
        return {}
    services = [o for o in objects if o.is_a("", "Service")]
    scraped: dict[int, set[str]] = {}
    scraped_at = addresses_named(jobs)
    for service in services if scraped_at else ():
        numbers = ports_named(service, scraped_at)
        names = {
            str(p.get("name") or "") for p in service_ports(service) if p.get("port") in numbers
        }
        if names:
            scraped.setdefault(id(service), set()).update(names)
    for monitor in monitors:
        spec, wanted, ports = _monitor(monitor, "endpoints")
        for service in services:
            if _in_space(monitor, spec, service.namespace) and _matches(wanted, service.labels):
                scraped.setdefault(id(service), set()).update(ports)
    pods = [o for o in objects if o.template_labels is not None]
    for monitor in pod_monitors:
        spec, wanted, targets = _monitor(monitor, "podMetricsEndpoints")
        for service in services:
            if not _in_space(monitor, spec, service.namespace):
                continue
            selected = [
                pod.template_labels or {}
                for pod in pods
                if pod.namespace == service.namespace
                and _matches(dict(service.selector), pod.template_labels or {})
            ]
            if selected and all(_matches(wanted, labels) for labels in selected):
                scraped.setdefault(id(service), set()).update(
                    str(port.get("name") or "")
                    for port in service_ports(service)
                    if target_port(port) in targets
                )
    return scraped


def _monitor(monitor: K8sObject, endpoints: str) -> tuple[Any, Any, set[str]]:
    """A monitor's spec, the labels it selects by, and the ports its endpoints scrape."""
    spec = monitor.body.get("spec") or {}
    ports = {
        str(e.get("port"))
        for e in spec.get(endpoints) or []
        if isinstance(e, dict) and e.get("port")
    }
    return spec, dig(spec, "selector", "matchLabels"), ports


def scrape_port(port: YMap, scraped: frozenset[str] | set[str]) -> bool:
    """A port only scraped or profiled: by its name's words (`scrape_name`: a number among
    them left out, `prometheus-12020`), or as a monitor scrapes it."""
    name = port.get("name")
    return scrape_name(name) or str(name or "") in scraped


def scrape_name(name: object) -> bool:
    """Whether a port's name says it is only scraped or profiled, its number (a name's
    `-12200`, as `prometheus-12200`) left out as `port` is: `metrics`, `prometheus-9100`,
    and a protocol's word beside Prometheus's name (`tcp-prometheus-servicemonitor`)."""
    words = {word for word in _words(name) - PORT_FILLER if not word.isdigit()}
    if words & _PROMETHEUS_WORDS:
        words -= _PROTOCOL_WORDS
    return bool(words) and words <= SCRAPE_WORDS


# The pod annotation that Prometheus's example Kubernetes configuration reads for the port
# to scrape (a convention of the configuration's relabelling, not of Kubernetes).
PROMETHEUS_PORT = "prometheus.io/port"


def scrape_name_with_protocol(name: object) -> bool:
    """`http-metrics`, `https-profiling`: a protocol's word beside words of scrapes only.
    Not a scrape port by its name alone (Loki's and Mimir's charts give `http-metrics`
    to their whole HTTP API), but one the pods can show to be (pods_scrape_port)."""
    words = {word for word in _words(name) - PORT_FILLER if not word.isdigit()}
    rest = words - _PROTOCOL_WORDS
    return bool(rest) and rest != words and rest <= SCRAPE_WORDS


# What a Service port reaches, for the pods to say whether it is only scraped: the pod
# template, the container, the container port's number, and the workload's name.
Reached = tuple[PodTemplate, Container, int | None, str]


def owned_scrape_name(name: object, owners: Iterable[str]) -> bool:
    """Whether a port's name is its owner's name and scrape words: `monitor-metric` in
    `account-monitor`, `composer-metrics` in `composer` (the owners' words, a workload's
    and its container's names, say whose port it is; the rest, what it is for). The rest
    must be scrape words, and some: a port named only for its app (`kube-state-metrics`
    in kube-state-metrics) says nothing of its use, and a protocol's word keeps
    `composer-http-metrics` open, as `http-metrics` is, even in an app named for it."""
    words = {w for w in _words(name) - PORT_FILLER if w and not w.isdigit()}
    owned = {w for owner in owners for w in _words(owner)} - _WIRE_WORDS
    rest = words - owned
    return bool(rest) and rest != words and rest <= SCRAPE_WORDS


def pods_scrape_port(port: YMap, reached: Sequence[Reached]) -> bool:
    """Whether the pods a Service port reaches show it is only scraped, which its name
    alone leaves open. Named for the pods' own app and scrapes (owned_scrape_name) in
    each of them; or named for metrics over a protocol (scrape_name_with_protocol) and,
    in every pod, the container port it reaches is declared under a name of scrapes only
    (`metrics`, `profiling`, or its owners' and such), or under one of metrics over a
    protocol (`metrics-http`) where the container's readinessProbe checks another of its
    ports (the port readiness gates traffic by is that one), or, declared without a name
    or not at all, is the pod's `prometheus.io/port` or in a pod that declares no port
    but such ones (none at all, as a controller that serves only its metrics). A container
    port declared under another name (`http-metrics` too, as Loki's chart declares its
    API, which its readinessProbe checks) is one of clients.

    Not for a port with no name: the annotation says where the pod is scraped, not that
    nothing else is served there (an app's API and its metrics often share the port)."""
    if not reached:
        return False
    name = port.get("name")
    if all(owned_scrape_name(name, (owner, c.name)) for _, c, _, owner in reached):
        return True
    if not scrape_name_with_protocol(name):
        return False
    return all(_pod_scrapes(port, *one) for one in reached)


def _pod_scrapes(
    port: YMap, template: PodTemplate, container: Container, number: int | None, owner: str
) -> bool:
    """One pod's word on the container port a Service port reaches (pods_scrape_port)."""
    target = target_port(port)
    entry = next(
        (
            declared
            for declared in container.ports()
            if declared.get("name" if isinstance(target, str) else "containerPort") == target
        ),
        None,
    )
    declared_name = entry.get("name") if entry is not None else None
    if declared_name:
        owners = (owner, container.name)
        if scrape_name(declared_name) or owned_scrape_name(declared_name, owners):
            return True
        return scrape_name_with_protocol(declared_name) and _ready_elsewhere(container, number)
    annotated = template.annotations.get(PROMETHEUS_PORT)
    if number is not None and str(annotated).strip() == str(number):
        return True
    return all(
        scrape_name(declared.get("name"))
        for other in template.containers
        for declared in other.ports()
    )


def declared_scrape_name(port: YMap, container: Container, owner: str) -> str | None:
    """The name under which the container declares the port a Service port reaches, when
    that name is one of scrapes only (`metrics`, `prometheus`, its app's name and such
    words: scrape_name, owned_scrape_name), whatever the Service calls the port (`web`,
    `http`); None otherwise (a port declared under another name, without one, or not at
    all: an app's API and its metrics often share an unnamed port). The pod's owner
    names what it serves there; a name the Service gives says less (KLB302, KLB401 read
    such a Service alone at info, not as silence)."""
    target = target_port(port)
    key = "name" if isinstance(target, str) else "containerPort"
    for declared in container.ports():
        if declared.get(key) == target:
            name = declared.get("name")
            owners = (owner, container.name)
            if scrape_name(name) or owned_scrape_name(name, owners):
                return str(name)
            return None
    return None


def _ready_elsewhere(container: Container, number: int | None) -> bool:
    """Whether the container's readinessProbe checks a port of it other than `number`:
    readiness says when the pod may take requests, so the port it checks is the one they
    come to, and a port named for metrics beside it is the scraper's."""
    probe = container.probe("readinessProbe")
    checked = probe_port(container, probe) if probe is not None else None
    return number is not None and checked is not None and checked != number


def publishes_not_ready(service: K8sObject) -> bool:
    """Whether the Service keeps pods that are not ready, terminating ones included, among
    its endpoints (`publishNotReadyAddresses`): they leave it only once they are gone."""
    return dig(service.body, "spec", "publishNotReadyAddresses") is True


def purpose(
    service: K8sObject,
    scraped: frozenset[str] | set[str] = frozenset(),
    selected: Sequence[str] = (),
) -> Purpose:
    """What the Service is for; `scraped` names the ports a ServiceMonitor scrapes,
    `selected` the workloads whose pods it selects."""
    if service.headless and publishes_not_ready(service):
        # (a ClusterIP that publishes not-ready pods still carries clients: Loki's
        # query-frontend takes its queriers' connections early, and the gateway's calls)
        return Purpose(
            "peers",
            "it publishes not-ready pods by DNS (publishNotReadyAddresses), as peer discovery does",
        )
    named = set(PEER_SERVICE_WORDS & _words(service.name))
    if DISCOVERY in named and not _discovery_of_peers(service, selected):
        named.discard(DISCOVERY)
    if named:
        said = f"its name says it is for {min(named)}"
        return Purpose("peers", said, by_name=named == {DISCOVERY})
    ports = service_ports(service)
    if not ports:
        return CLIENTS
    if all(scrape_port(port, scraped) for port in ports):
        return Purpose("metrics", "it only carries metrics scrapes")
    if all(_peer_port(port) or scrape_port(port, scraped) for port in ports):
        listed = ", ".join(
            repr(p.get("name") or p.get("targetPort")) for p in ports if _peer_port(p)
        )
        return Purpose("peers", f"its ports ({listed}) are for the pods' own cluster traffic")
    return CLIENTS


def _discovery_of_peers(service: K8sObject, selected: Sequence[str]) -> bool:
    """Whether a Service named with `discovery` is for its pods' own discovery: headless,
    publishing not-ready pods, or named `<workload>-discovery` after a workload it selects
    (its name's words before `discovery` begin the workload's)."""
    if service.headless or publishes_not_ready(service):
        return True
    name = _words_in_order(service.name) if service.name else []
    if len(name) < 2 or name[-1] != DISCOVERY:
        return False
    before = name[:-1]
    return any(_words_in_order(workload)[: len(before)] == before for workload in selected)


def _words_in_order(name: str) -> list[str]:
    return name.lower().translate(_SEPARATORS).split("-")


# A host and port in a configuration's text: `name:9090`, `name.ns.svc:9090`, in a URL
_ADDRESS = regex.compile(r"([A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})\b")
# A Prometheus configuration: the addresses it names are the targets it scrapes
_SCRAPE_CONFIG = regex.compile(r"(?m)^\s*(?:scrape_configs|static_configs)\s*:")
_SCRAPE_KEY = regex.compile(r"scrape_configs[ \t]*:")


def _scrape_sections(text: str) -> Iterator[str]:
    """The `scrape_configs:` sections of a Prometheus configuration's text: from the key to
    the next key of its mapping or its parent's (`alerting:`, whose Alertmanagers
    Prometheus calls, and `remote_write:` are not in it)."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        stripped = line.lstrip(" ")
        if not stripped.startswith("scrape_configs") or not _SCRAPE_KEY.match(stripped):
            continue
        indent, section = len(line) - len(stripped), []
        while index < len(lines):
            current = lines[index]
            body = current.lstrip(" ")
            below = len(current) - len(body)
            if (
                body
                and not body.startswith("#")
                and (below < indent or (below == indent and not body.startswith("-")))
            ):
                break  # (a line at the key's indentation may be its list's `- `)
            section.append(current)
            index += 1
        yield "\n".join(section)


def scrape_targets(objects: Sequence[K8sObject]) -> list[tuple[str, str]]:
    """(namespace, text) of each `scrape_configs` section of a Prometheus configuration a
    ConfigMap holds: the addresses there are scraped, not called."""
    texts: list[tuple[str, str]] = []
    for obj in objects:
        if not obj.is_a("", "ConfigMap"):
            continue
        data = obj.body.get("data")
        for value in data.values() if isinstance(data, YMap) else ():
            if isinstance(value, str) and "scrape_configs" in value:
                namespace = namespace_key(obj.namespace)
                texts.extend((namespace, section) for section in _scrape_sections(value))
    return texts


def caller_texts(objects: Sequence[K8sObject]) -> list[tuple[str, str]]:
    """(namespace, text) of what names the Services a process calls: each ConfigMap's data
    (a Prometheus configuration left out: it names what it scrapes) and each container's
    env values and arguments."""
    texts: list[tuple[str, str]] = []
    for obj in objects:
        namespace = namespace_key(obj.namespace)
        if obj.is_a("", "ConfigMap"):
            data = obj.body.get("data")
            for value in data.values() if isinstance(data, YMap) else ():
                if isinstance(value, str) and not _SCRAPE_CONFIG.search(value):
                    texts.append((namespace, value))
            continue
        template = pod_template(obj)
        if template is None:
            continue
        for container in template.containers:
            for key in ("command", "args"):
                items = container.body.get(key)
                for item in items if isinstance(items, YSeq) else ():
                    if isinstance(item, str):
                        texts.append((namespace, item))
            entries = container.body.get("env")
            for entry in entries if isinstance(entries, YSeq) else ():
                value = entry.get("value") if isinstance(entry, YMap) else None
                if isinstance(value, str):
                    texts.append((namespace, value))
    return texts


def named_ports(service: K8sObject, texts: Sequence[tuple[str, str]]) -> set[int]:
    """The Service's port numbers that the texts name with its name (`name:port`, or
    `name.namespace[.svc[.cluster.local]]:port` from any namespace): a caller's address."""
    name = (service.name or "").lower()
    if not name:
        return set()
    return ports_named(
        service, addresses_named([(where, text) for where, text in texts if name in text.lower()])
    )


# Each `host:port` some texts name, by the host's first label: (the namespace of the text
# that names it, the host's other labels, the port).
Addresses = dict[str, list[tuple[str, list[str], int]]]


def addresses_named(texts: Sequence[tuple[str, str]]) -> Addresses:
    """The addresses the texts name, found in one pass, for `ports_named` to look up by a
    Service's name (many Services against many texts cost their sum, not their product)."""
    found: Addresses = {}
    for where, text in texts:
        for host, port in _ADDRESS.findall(text):
            labels = host.lower().rstrip(".").split(".")
            found.setdefault(labels[0], []).append((where, labels[1:], int(port)))
    return found


def ports_named(service: K8sObject, addresses: Addresses) -> set[int]:
    """The Service's port numbers among the addresses that name it (named_ports)."""
    name = (service.name or "").lower()
    namespace = namespace_key(service.namespace)
    ports = {n for p in service_ports(service) if isinstance(n := p.get("port"), int)}
    found: set[int] = set()
    for where, rest, port in addresses.get(name, []) if name else []:
        if port not in ports:
            continue
        local = not rest and where == namespace
        suffix = rest[1:] in ([], ["svc"], ["svc", "cluster", "local"])
        qualified = rest[:1] == [namespace] and suffix
        if local or qualified:
            found.add(port)
    return found
