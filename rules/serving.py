"""When a serving container's drain and readiness matter less (KLB302, KLB401): shared by
the rules that judge serving containers, so they lower their findings alike."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.index import service_ports
from k8slb.model import K8sObject, dig

# Port names that mean "this Service is scraped, not called".
METRICS_PORT_NAMES = frozenset({"metrics", "http-metrics", "prometheus"})


def metrics_only(service: K8sObject) -> bool:
    """A Service whose every port is a metrics port: it carries scrapes, not traffic."""
    names = [port.get("name") for port in service_ports(service)]
    return bool(names) and all(name in METRICS_PORT_NAMES for name in names)


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


def lowered(workload: K8sObject, services: Sequence[K8sObject]) -> str | None:
    """Why a drain or readiness finding on this container is only info, or None."""
    if all(metrics_only(service) for service in services):
        return f"Service {services[0].name} only carries metrics scrapes"
    return never_overlaps(workload)
