from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Severity
from k8slb.model.objects import pos_of
from k8slb.reading.objects import dig
from k8slb.reading.yamltree import YMap
from k8slb.rulekit.base import Context, Example, Rule

TOPOLOGY_ANNOTATIONS = (
    "service.kubernetes.io/topology-mode",
    "service.kubernetes.io/topology-aware-hints",  # the name before Kubernetes 1.27
)

_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  trafficDistribution: PreferClose
  ports:
    - port: 80
"""


class TopologyRouting(Rule):
    """Topology-aware routing keeps traffic in a zone, even when that zone is short of pods.

    ## What it does
    Reports Services that opt into topology-aware routing: the annotation
    `service.kubernetes.io/topology-mode` (or its older name
    `service.kubernetes.io/topology-aware-hints`) set to anything but `Disabled`, or
    `spec.trafficDistribution` (`PreferClose`, `PreferSameZone`, `PreferSameNode`).

    ## Why it matters
    It saves cross-zone traffic, and it changes how load spreads: clients in a zone are
    sent to the pods of that zone. When clients are not spread like the pods (one busy
    zone, an uneven scale-up, a zone with one pod), some pods run hot while others idle.
    `trafficDistribution` has no safeguard at all: it prefers local endpoints whenever any
    exist. The annotation's `Auto` mode falls back to cluster-wide routing only when the
    controller cannot allocate endpoints fairly.

    ## Fix
    Keep it only with enough replicas per zone (spread them with
    `topologySpreadConstraints` on `topology.kubernetes.io/zone`) and clients spread like
    the pods; watch per-pod load (`kubectl top pods -l app=NAME`). Otherwise remove it.

    ## Other linters
    No other Kubernetes linter checks it.
    """

    id = "KLB106"
    name = "topology-routing"
    severity = Severity.INFO
    examples = (
        Example(_SERVICE, at=(7, 24)),
        Example(
            _SERVICE.replace("  trafficDistribution: PreferClose\n", "").replace(
                "  name: web\n",
                "  name: web\n  annotations:\n    service.kubernetes.io/topology-mode: Auto\n",
            ),
            title="the annotation",
            at=(6, 5),
        ),
        Example(_SERVICE.replace("  trafficDistribution: PreferClose\n", ""), findings=0),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for service in context.services():
            spec = service.body.get("spec")
            distribution = spec.get("trafficDistribution") if isinstance(spec, YMap) else None
            if isinstance(spec, YMap) and distribution:
                yield self.finding(
                    service,
                    pos_of(spec, "trafficDistribution", value=True),
                    (
                        f"{service.ref.display} prefers nearby pods "
                        f"(trafficDistribution: {distribution}), with no fallback",
                        "a zone with few pods and many clients overloads them",
                        "keep replicas spread per zone",
                    ),
                )
                continue
            annotations = dig(service.body, "metadata", "annotations")
            if not isinstance(annotations, YMap):
                continue
            for key in TOPOLOGY_ANNOTATIONS:
                value = annotations.get(key)
                if value and str(value).lower() != "disabled":
                    yield self.finding(
                        service,
                        pos_of(annotations, key),
                        (
                            f"{service.ref.display} uses topology-aware routing ({key}: {value})",
                            "traffic stays in its zone, so load follows where the clients are",
                            "keep replicas spread per zone",
                        ),
                    )
                    break
