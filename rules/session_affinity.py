from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Severity
from k8slb.model.objects import pos_of
from k8slb.rulekit.base import Context, Example, Rule

_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  sessionAffinity: ClientIP
  ports:
    - port: 80
"""


class SessionAffinity(Rule):
    """`sessionAffinity: ClientIP` pins each client address to one pod.

    ## What it does
    Reports Services with `sessionAffinity: ClientIP`.

    ## Why it matters
    kube-proxy sends every connection from one client IP to the same pod for
    `sessionAffinityConfig.clientIP.timeoutSeconds` (three hours by default). With few
    clients, or many clients behind one NAT address or node, a handful of pods take all the
    traffic, and pods added by a scale-up get none from the clients already seen.

    ## Fix
    Keep per-user state out of the pods (a shared cache or database) and drop the
    affinity. Where stickiness is really needed, do it at L7 (a cookie in an ingress or a
    mesh) so it can balance by user rather than by address.

    ## Other linters
    No other Kubernetes linter checks it.
    """

    id = "KLB104"
    name = "session-affinity"
    severity = Severity.INFO
    examples = (
        Example(_SERVICE, at=(7, 20)),
        Example(_SERVICE.replace("ClientIP", "None"), findings=0),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for service in context.services():
            spec = service.body.get("spec")
            if spec and spec.get("sessionAffinity") == "ClientIP":
                yield self.finding(
                    service,
                    pos_of(spec, "sessionAffinity", value=True),
                    (
                        f"{service.ref.display} pins each client IP to one pod "
                        "(sessionAffinity: ClientIP)",
                        "few or NATed clients load few pods, and new pods wait hours for traffic",
                        "drop it, or make sessions sticky at L7",
                    ),
                )
