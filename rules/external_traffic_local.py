from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Severity
from k8slb.model.index import service_type
from k8slb.model.objects import pos_of
from k8slb.rulekit.base import Context, Example, Rule

_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports:
    - port: 80
"""


class ExternalTrafficLocal(Rule):
    """`externalTrafficPolicy: Local` balances by node, not by pod.

    ## What it does
    Reports NodePort and LoadBalancer Services with `externalTrafficPolicy: Local`. The
    field means nothing on other types, and k8slb stays silent there.

    ## Why it matters
    With `Local`, a node forwards external traffic only to pods on that same node, which
    keeps the client's source IP. The external load balancer spreads traffic over nodes,
    so a node with one pod and a node with five get the same share: the lone pod is
    overloaded while the others idle. Nodes without a ready pod drop the traffic, which
    matters during rollouts unless the load balancer follows the health-check node port.

    ## Fix
    Use `Cluster` unless you need the client IP. If you do, spread the pods evenly
    (`topologySpreadConstraints` on `kubernetes.io/hostname`, or a DaemonSet) and make sure
    the load balancer uses `healthCheckNodePort`.

    ## Other linters
    No other Kubernetes linter checks it.
    """

    id = "KLB105"
    name = "external-traffic-local"
    severity = Severity.INFO
    examples = (
        Example(_SERVICE, at=(7, 26)),
        Example(_SERVICE.replace("Local", "Cluster"), findings=0),
        Example(_SERVICE.replace("LoadBalancer", "ClusterIP"), findings=0, title="ignored type"),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for service in context.services():
            spec = service.body.get("spec")
            if (
                spec
                and spec.get("externalTrafficPolicy") == "Local"
                and service_type(service) in ("NodePort", "LoadBalancer")
            ):
                yield self.finding(
                    service,
                    pos_of(spec, "externalTrafficPolicy", value=True),
                    (
                        f"{service.ref.display} sends external traffic only to pods on the "
                        "receiving node (externalTrafficPolicy: Local)",
                        "uneven pods per node means uneven load",
                        "use Cluster, or spread the pods evenly over the nodes",
                    ),
                )
