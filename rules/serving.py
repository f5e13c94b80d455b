"""When a serving container's drain and readiness matter less (KLB302, KLB401): shared by
the rules that judge serving containers, so they lower their findings alike. (Services
that carry no client traffic, such as peer discovery or metrics, never make a container
serving at all: model/traffic.py.)"""

from __future__ import annotations

from k8slb.reading.objects import K8sObject, dig


def never_overlaps(workload: K8sObject, scaled: bool = False) -> str | None:
    """Why the workload never has an old and a new pod at once, or None: then a lost
    request on shutdown is an outage either way, and a pause only delays it. `scaled`: an
    autoscaler may give it more than one replica."""
    spec = workload.body.get("spec")
    if workload.kind == "Deployment" and dig(spec, "strategy", "type") == "Recreate":
        return "its strategy is Recreate: every old pod is gone before a new one starts"
    one = dig(spec, "replicas") in (None, 1) and not scaled
    if workload.kind == "Deployment" and one and _no_surge(dig(spec, "strategy")):
        # maxSurge 0: the one old pod is stopped before its successor is made (Recreate)
        return "one replica with maxSurge 0: the old pod is gone before the new one starts"
    if workload.kind == "StatefulSet" and dig(spec, "replicas") in (None, 1):
        # whatever its podManagementPolicy: that governs scaling, and an update of one
        # replica deletes the pod before it makes the next
        return "a one-replica StatefulSet has no second pod to take the traffic"
    return None


def _no_surge(strategy: object) -> bool:
    """A rolling update that may add no pod above the replicas (maxSurge 0 or "0%"; any
    other percentage rounds up to a pod)."""
    surge = dig(strategy, "rollingUpdate", "maxSurge")
    return surge == 0 or (isinstance(surge, str) and surge.strip() in ("0", "0%"))
