"""When a serving container's drain and readiness matter less (KLB302, KLB401): shared by
the rules that judge serving containers, so they lower their findings alike."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.model.index import service_ports
from k8slb.model.objects import K8sObject, dig

# Port names that mean "this Service is scraped, not called" (ServiceMonitors add theirs).
METRICS_PORT_NAMES = frozenset({"metrics", "http-metrics", "prometheus"})


def scraped_ports(objects: Sequence[K8sObject]) -> dict[int, set[str]]:
    """The port names Prometheus ServiceMonitors scrape, by the id of each Service they
    select (matchLabels in their own namespace, or the ones `namespaceSelector` names)."""
    monitors = [o for o in objects if o.is_a("monitoring.coreos.com", "ServiceMonitor")]
    if not monitors:
        return {}
    services = [o for o in objects if o.is_a("", "Service")]
    scraped: dict[int, set[str]] = {}
    for monitor in monitors:
        spec = monitor.body.get("spec") or {}
        wanted = dig(spec, "selector", "matchLabels") or {}
        spaces = dig(spec, "namespaceSelector", "matchNames")
        every_space = dig(spec, "namespaceSelector", "any") is True
        ports = {
            str(e.get("port"))
            for e in spec.get("endpoints") or []
            if isinstance(e, dict) and e.get("port")
        }
        for service in services:
            in_space = every_space or (
                service.namespace in spaces
                if isinstance(spaces, list)
                else service.namespace == monitor.namespace
            )
            if in_space and wanted and all(service.labels.get(k) == v for k, v in wanted.items()):
                scraped.setdefault(id(service), set()).update(ports)
    return scraped


def metrics_only(service: K8sObject, scraped: dict[int, set[str]]) -> bool:
    """A Service that carries scrapes, not traffic: every port is a metrics port, by its
    name or because a ServiceMonitor scrapes it."""
    names = [port.get("name") for port in service_ports(service)]
    metrics = METRICS_PORT_NAMES | scraped.get(id(service), set())
    return bool(names) and all(name in metrics for name in names)


def never_overlaps(workload: K8sObject) -> str | None:
    """Why the workload never has an old and a new pod at once, or None: then a lost
    request on shutdown is an outage either way, and a pause only delays it."""
    spec = workload.body.get("spec")
    if workload.kind == "Deployment" and dig(spec, "strategy", "type") == "Recreate":
        return "its strategy is Recreate: every old pod is gone before a new one starts"
    if workload.kind == "StatefulSet":
        replicas = dig(spec, "replicas")
        policy = dig(spec, "podManagementPolicy") or "OrderedReady"
        if replicas in (None, 1) and policy == "OrderedReady":
            return "a one-replica StatefulSet has no second pod to take the traffic"
    return None


def lowered(
    workload: K8sObject, services: Sequence[K8sObject], scraped: dict[int, set[str]]
) -> str | None:
    """Why a drain or readiness finding on this container is only info, or None."""
    if all(metrics_only(service, scraped) for service in services):
        return f"Service {services[0].name} only carries metrics scrapes"
    return never_overlaps(workload)
