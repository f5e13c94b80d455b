from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Related, Severity
from k8slb.model.http2 import grpc_evidence
from k8slb.model.index import is_headless
from k8slb.model.objects import pos_of
from k8slb.rulekit.base import PROBES, Context, Example, Rule
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

_MESHED = BACKEND.replace(
    "      labels: {app: backend}",
    "      labels: {app: backend}\n      annotations: {linkerd.io/inject: enabled}",
)
_HEADLESS = GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")


class HeadlessUnderLinkerd(Rule):
    """A headless gRPC Service in front of Linkerd-meshed pods turns Linkerd's balancing off.

    ## What it does
    Reports headless (`clusterIP: None`) Services that carry gRPC when the pods they select
    are injected with the Linkerd proxy (`linkerd.io/inject: enabled` on the pod template
    or its Namespace, or `--mesh linkerd`).

    ## Why it matters
    Linkerd balances HTTP/2 requests across a Service's endpoints, which is exactly what
    a ClusterIP Service lacks. For a headless Service, though, clients resolve pod IPs
    themselves and Linkerd sees connections to single pods, so it does not balance them.
    The usual advice for gRPC (go headless) undoes what the mesh already did.

    ## Fix
    Under Linkerd, let clients use a normal ClusterIP Service; keep a headless Service only
    for what needs pod addresses (StatefulSet identities).

    ## Other linters
    No other Kubernetes linter checks it.
    """

    id = "KLB107"
    name = "headless-under-linkerd"
    severity = Severity.INFO
    reads = PROBES  # gRPC evidence: a gRPC probe
    examples = (
        Example(_HEADLESS + _MESHED, at=(6, 14)),
        Example(_HEADLESS + BACKEND, findings=0, title="not meshed"),
        Example(GRPC_SERVICE + _MESHED, findings=0, title="ClusterIP under Linkerd"),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        index = context.index
        for service in context.services():
            if not is_headless(service) or not grpc_evidence(index, service, context.links):
                continue
            meshed = [w for w, t in index.selected(service) if index.mesh_of(w, t) == "linkerd"]
            if not meshed and index.mesh != "linkerd":
                continue
            spec = service.body["spec"]
            yield self.finding(
                service,
                pos_of(spec, "clusterIP", value=True),
                (
                    f"headless {service.ref.display} carries gRPC to Linkerd-meshed pods",
                    "Linkerd does not balance requests for headless Services",
                    "use a ClusterIP Service and let the mesh balance",
                ),
                related=[Related(w.path, w.pos[0], f"{w.ref.display} is meshed") for w in meshed],
            )
