"""When a serving container's drain and readiness matter less (KLB302, KLB401): shared by
the rules that judge serving containers, so they lower their findings alike. (Services
that carry no client traffic, such as peer discovery or metrics, never make a container
serving at all: model/traffic.py; one named otherwise whose ports reach only a port the
pod declares for metrics lowers them here, only_scraped.)"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.model.dialers import Dialer, config_dialers
from k8slb.model.index import Index, service_type
from k8slb.model.objects import Container, PodTemplate, namespace_key, service_ports, target_port
from k8slb.model.routes import key_of
from k8slb.model.traffic import SCRAPE_WORDS, declared_scrape_name
from k8slb.model.well_known import unreached
from k8slb.reading.build_files import image_repository
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq
from k8slb.rulekit.base import Context


def never_overlaps(index: Index, workload: K8sObject, template: PodTemplate) -> str | None:
    """Why the workload never has a second pod to take its traffic while one stops, or
    None: then a lost request on shutdown is an outage either way, and a pause only delays
    it. A workload an autoscaler targets is never such: it scales down, one pod stopping
    while the others serve, whatever its strategy."""
    spec = workload.body.get("spec")
    if workload.kind == "Pod":
        # no controller makes another: the Pod is its only replica, and nothing scales it
        return "a bare Pod (no controller) is one replica: no other pod takes its traffic"
    if index.scaled(workload):
        return None
    if dig(spec, "replicas") not in (None, 1):
        # Recreate too: it governs rollouts only, while an eviction, a node drain or a
        # scale-down stops one pod as the others serve
        return None
    if workload.kind == "Deployment" and dig(spec, "strategy", "type") == "Recreate":
        return "one replica with strategy Recreate: the old pod is gone before the new one starts"
    if workload.kind == "Deployment" and _no_surge(dig(spec, "strategy")):
        # maxSurge 0: the one old pod is stopped before its successor is made (Recreate)
        return "one replica with maxSurge 0: the old pod is gone before the new one starts"
    if workload.kind == "StatefulSet":
        # whatever its podManagementPolicy: that governs scaling, and an update of one
        # replica deletes the pod before it makes the next
        return "a one-replica StatefulSet has no second pod to take the traffic"
    if workload.kind == "Deployment" and (held := _data_volume(index, workload, template)):
        return (
            f"one replica that keeps its data ({held}): no other pod takes its traffic "
            "while it stops"
        )
    return None


# The ports IANA registers for a database's own protocol (the Service Name and Transport
# Protocol Port Number Registry): a pod that serves one is a store of data, whatever runs it.
_STORE_PORTS = {
    5432: "postgresql",
    3306: "mysql",
    27017: "mongodb",
    6379: "redis",
    1433: "ms-sql-s",
    5984: "couchdb",
    7474: "neo4j",
}


def surged_store(
    index: Index,
    workload: K8sObject,
    template: PodTemplate,
    container: Container,
    services: Sequence[K8sObject],
) -> str | None:
    """The evidence that a one-replica Deployment whose rollout surges a second pod is a
    store of data, or None: a port IANA registers for a database's protocol (the
    container's, or the Service's number or name), with the writable emptyDir or hostPath
    volumes it mounts. Its surge pod is then a second store, with data of its own, behind
    the same Service while both run."""
    spec = workload.body.get("spec")
    if workload.kind != "Deployment" or dig(spec, "replicas") not in (None, 1):
        return None
    if index.scaled(workload) or never_overlaps(index, workload, template) is not None:
        return None
    numbers = {p.get("containerPort") for p in container.ports()}
    for service in services:
        for port in service_ports(service):
            numbers |= {port.get("port"), target_port(port)}
            name = port.get("name")
            if isinstance(name, str) and name in _STORE_PORTS.values():
                said = f"Service {service.name}'s port named {name}"
                return _with_volumes(said, template, container)
    found = sorted(n for n in numbers if isinstance(n, int) and n in _STORE_PORTS)
    if not found:
        return None
    said = f"port {found[0]}, IANA's {_STORE_PORTS[found[0]]}"
    return _with_volumes(said, template, container)


def _with_volumes(said: str, template: PodTemplate, container: Container) -> str:
    """The evidence, with the writable volumes of the pod's own the container keeps data in."""
    volumes = template.spec.get("volumes")
    scratch = {
        v.get("name")
        for v in (volumes if isinstance(volumes, YSeq) else ())
        if isinstance(v, YMap) and ("emptyDir" in v or "hostPath" in v)
    }
    mounts = [
        m.get("mountPath")
        for m in container.body.get("volumeMounts") or ()
        if isinstance(m, YMap) and m.get("name") in scratch and m.get("readOnly") is not True
    ]
    kept = [str(path) for path in mounts if isinstance(path, str)]
    return said + (f"; its data in {', '.join(kept)}, lost with the pod" if kept else "")


def _data_volume(index: Index, workload: K8sObject, template: PodTemplate) -> str | None:
    """The volume through which the pod keeps its data, said with the evidence, or None: a
    PersistentVolumeClaim that one pod holds (ReadWriteOnce or ReadWriteOncePod, or a
    claim not among the objects read, taken as ReadWriteOnce like most claims). A surge
    pod then waits for the volume or finds the data held by the old process: it takes no
    traffic over. A claim that many pods may write (ReadWriteMany) or only read is no
    such state, nor is one the pod only reads (mounted read-only) or that another
    workload's pods mount too: a surge pod mounts it as well."""
    volumes = template.spec.get("volumes")
    for volume in volumes if isinstance(volumes, YSeq) else ():
        name = dig(volume, "persistentVolumeClaim", "claimName")
        if not isinstance(name, str) or not name:
            continue
        if _read_only(template, volume) or _shared_claim(index, workload, name):
            continue
        claim = index.claim(workload, name)
        if claim is None:
            return (
                f"PersistentVolumeClaim {name}; the claim is not among the files read, "
                "so its access mode is taken as ReadWriteOnce"
            )
        modes = dig(claim.body, "spec", "accessModes")
        held = [m for m in modes if m in _ONE_POD] if isinstance(modes, YSeq) else []
        if held and all(m in _ONE_POD for m in modes):
            return f"PersistentVolumeClaim {name}, {held[0]}"
    return None


def _read_only(template: PodTemplate, volume: YMap) -> bool:
    """Whether the pod only reads the volume: its claim is mounted `readOnly`, or every
    container that mounts it does so read-only."""
    if dig(volume, "persistentVolumeClaim", "readOnly") is True:
        return True
    mounts = [
        mount
        for container in template.containers
        for mount in (container.body.get("volumeMounts") or ())
        if isinstance(mount, YMap) and mount.get("name") == volume.get("name")
    ]
    return bool(mounts) and all(mount.get("readOnly") is True for mount in mounts)


def _shared_claim(index: Index, workload: K8sObject, name: str) -> bool:
    """Whether another workload applied with this one mounts the same claim."""
    for other, template in index.workloads:
        if other is workload or namespace_key(other.namespace) != namespace_key(workload.namespace):
            continue
        volumes = template.spec.get("volumes")
        for volume in volumes if isinstance(volumes, YSeq) else ():
            if dig(volume, "persistentVolumeClaim", "claimName") == name and index.together(
                other, workload
            ):
                return True
    return False


# The access modes under which only one pod (on one node) writes a claim
_ONE_POD = ("ReadWriteOnce", "ReadWriteOncePod")


def _no_surge(strategy: object) -> bool:
    """A rolling update that may add no pod above the replicas (maxSurge 0 or "0%"; any
    other percentage rounds up to a pod)."""
    surge = dig(strategy, "rollingUpdate", "maxSurge")
    return surge == 0 or (isinstance(surge, str) and surge.strip() in ("0", "0%"))


@record
class Elsewhere:
    """Why a serving container's callers reach its pods without its Services: the
    evidence, and where the code or table says so."""

    reason: str
    related: tuple[Related, ...] = ()


def reached_otherwise(
    context: Context, workload: K8sObject, container: Container, services: Sequence[K8sObject]
) -> Elsewhere | None:
    """Why the callers of the container do not come through the Services that select it,
    or None. The evidence: its code registers the process in a service registry (its
    callers find the pods' addresses there), or it is a component of a well-known system
    its callers reach otherwise (well_known.unreached). A caller seen going through one of
    the Services wins over both: then it is reached through it."""
    found = registered(context, workload, container) or _in_table(container)
    if found is None or called_through(context, services):
        return None
    return found


def _in_table(container: Container) -> Elsewhere | None:
    image = image_repository(container.body.get("image"))
    reason = unreached(image, container.words)
    return Elsewhere(reason) if reason is not None else None


def registered(context: Context, workload: K8sObject, container: Container) -> Elsewhere | None:
    """Why the container's callers find its pods in a service registry: where its code
    registers the process (links.registration), and a resolver of that registry that
    the scanned code dials through, if any."""
    registration = context.links.registration(workload, container)
    if registration is None:
        return None
    loc = registration.loc
    registry = registration.registry
    related = [Related(loc.path, loc.line, f"registers the process in {registry}")]
    dials = [
        dial
        for facts in context.code()
        for dial in facts.registry_dials
        if dial.registry == registry
    ]
    reason = (
        f"its code registers the pod in {registry} ({registration.call}, "
        f"{loc.path}:{loc.line}) and its callers find the pods' addresses there"
    )
    if dials:
        dial = dials[0]
        reason += f" (a {registry} resolver: {dial.loc.path}:{dial.loc.line})"
        related.append(Related(dial.loc.path, dial.loc.line, dial.how))
    return Elsewhere(reason, tuple(related))


def called_through(context: Context, services: Sequence[K8sObject]) -> list[Related]:
    """Evidence that a client calls one of the Services itself (its ClusterIP or node
    ports): an external type (NodePort, LoadBalancer), an L7 route to it, a container or a
    channel in the code that dials it by name, or a configuration applied with it that
    names it with one of its ports. Empty when none is seen."""
    for service in services:
        kind = service_type(service)
        if kind in ("NodePort", "LoadBalancer"):
            return [Related(service.path, service.pos[0], f"a {kind} Service")]
    routes = context.routes()
    for service in services:
        for route in routes.get(key_of(service.namespace, service.name or ""), []):
            return [Related(route.path, route.pos[0], f"{route.kind}/{route.name} routes to it")]
    index = context.index
    direct = context.dialers(services)
    for service in services:
        dialers: list[Dialer] = direct.get(id(service), [])
        if not dialers:
            ports = {n for p in service_ports(service) if isinstance(n := p.get("port"), int)}
            dialers = config_dialers(index, service, ports)
        if dialers:
            return [dialers[0].related]
    return []


def only_scraped(context: Context, workload: K8sObject, container: Container) -> str | None:
    """Why only a metrics scrape reaches the container, or None: every Service port that
    sends it traffic (Index.serving) reaches a port it declares under a name of scrapes
    only (traffic.declared_scrape_name: `web` to the container's `metrics`), and no
    caller of those Services is seen (called_through, nor the API server). Prometheus
    scrapes each pod's endpoint in turn: one missed while a pod starts or stops is a lost
    sample, retried at the next interval, not a failed request. A port the Service names
    for scrapes itself is no traffic at all (traffic.py); this one, named otherwise, is
    said at info."""
    targets = context.index.serving(workload).get(container.name, [])
    found: list[tuple[K8sObject, str]] = []
    for target in targets:
        name = declared_scrape_name(target.service_port, target.container, workload.name or "")
        if name is None:
            return None
        found.append((target.service, name))
    if not found:
        return None
    services = list({id(service): service for service, _ in found}.values())
    if called_through(context, services) or any(
        api_server_caller(context.index, service) for service in services
    ):
        return None
    service, name = found[0]
    return (
        f"Service {service.name} reaches only its container port {name!r}, which it "
        "declares for metrics: only a metrics scrape reaches it, and a scrape missed while "
        "a pod starts or stops loses a sample, not a request"
    )


# Objects through which the API server itself calls a Service: admission webhooks, CRD
# conversion webhooks, aggregated APIs (each: where the Service reference sits)
_API_SERVER_CALLS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        ("webhooks", "*", "clientConfig", "service"),
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        ("webhooks", "*", "clientConfig", "service"),
    ),
    ("apiregistration.k8s.io", "APIService"): (("spec", "service"),),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (
        ("spec", "conversion", "webhook", "clientConfig", "service"),
    ),
}


# An admission webhook is called on every request it matches, an aggregated API on its own
_RANKS = list(_API_SERVER_CALLS)


def _rank(caller: K8sObject) -> int:
    return _RANKS.index((caller.group, caller.kind))


def _references(value: object, path: tuple[str, ...]) -> list[object]:
    """The values at `path` in `value` (`*`: every item of a list)."""
    if not path:
        return [value]
    head, rest = path[0], path[1:]
    if head == "*":
        return (
            [v for item in value for v in _references(item, rest)]
            if isinstance(value, YSeq)
            else []
        )
    return _references(value.get(head), rest) if isinstance(value, YMap) else []


_CALLED_BY_API_SERVER: weakref.WeakKeyDictionary[Index, dict[tuple[str, str], K8sObject]] = (
    weakref.WeakKeyDictionary()
)


def api_server_caller(index: Index, service: K8sObject) -> K8sObject | None:
    """The webhook configuration or APIService through which the API server calls the
    Service, if one is among the objects read (read once a run)."""
    table = _CALLED_BY_API_SERVER.get(index)
    if table is None:
        table = _CALLED_BY_API_SERVER[index] = {}
        for obj in index.objects:
            for path in _API_SERVER_CALLS.get((obj.group, obj.kind), ()):
                for ref in _references(obj.body, path):
                    if isinstance(ref, YMap) and isinstance(name := ref.get("name"), str):
                        namespace = ref.get("namespace")
                        key = (
                            namespace_key(namespace if isinstance(namespace, str) else None),
                            name,
                        )
                        known = table.get(key)
                        if known is None or _rank(obj) < _rank(known):
                            table[key] = obj
    return table.get((namespace_key(service.namespace), service.name or ""))


def strongest(context: Context, services: Sequence[K8sObject]) -> tuple[K8sObject, str]:
    """The Service that best shows the container is called, and how (empty: only that it
    selects it): one the API server calls (a webhook's, an APIService's), then one an L7
    route or a node port reaches, then one not named for metrics, else the first."""
    callers = [
        (_rank(caller), order, service, caller)
        for order, service in enumerate(services)
        if (caller := api_server_caller(context.index, service)) is not None
    ]
    if callers:
        _, _, service, caller = min(callers, key=lambda found: found[:2])
        return service, f"the API server calls it for {caller.kind}/{caller.name}"
    if len(services) == 1:
        return services[0], ""
    for service in services:
        reached = called_through(context, [service])
        if reached:
            return service, reached[0].message
    for service in services:
        if not SCRAPE_WORDS & _name_words(service.name):
            return service, ""
    return services[0], ""


def _name_words(name: object) -> set[str]:
    return set(name.lower().replace("_", "-").split("-")) if isinstance(name, str) else set()
