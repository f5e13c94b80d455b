from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.objects import pos_of
from k8slb.rulekit.base import STOPPING, Context, Example, Rule, grace_edit
from k8slb.rulekit.examples import PRESTOP, web_deployment


def _seconds(value: float) -> str:
    return f"{value:g} s"


class GraceTooShort(Rule):
    """The grace period ends before the preStop pause does.

    ## What it does
    Compares each container's preStop pause (the native `sleep` action, or `sleep N` in
    an `exec` hook, summed when it sleeps more than once) with the pod's
    `terminationGracePeriodSeconds` (30 when unset), and reports a grace period that is
    not longer than the pause.

    ## Why it matters
    The grace period counts from the moment the pod is deleted, and the preStop hook runs
    inside it. SIGTERM reaches the process only after the hook ends; when the grace period
    runs out first, the kubelet kills the container with SIGKILL. A `sleep 30` with the
    default grace of 30 s means the server never gets SIGTERM and never drains: its
    in-flight requests are cut on every rollout.

    ## Fix
    Make `terminationGracePeriodSeconds` longer than the pause plus the server's own
    shutdown time (for example: pause 5 s, drain up to 20 s, grace 30 s), or shorten the
    pause. `k8slb fix` sets it to the pause plus `stop-grace-seconds` (25 s by default).

    ## Other linters
    No other Kubernetes linter checks it.
    """

    id = "KLB402"
    name = "grace-too-short"
    severity = Severity.ERROR
    reads = STOPPING
    fix = FixInfo(
        available=True,
        safe=True,
        description="raise terminationGracePeriodSeconds above the pause and the drain",
    )
    examples = (
        Example(web_deployment(PRESTOP, "terminationGracePeriodSeconds: 5"), at=(13, 38)),
        Example(
            web_deployment('lifecycle:\n  preStop:\n    exec: {command: ["sh", "-c", "sleep 30"]}'),
            title="an exec sleep as long as the default grace",
            at=(19, 11),
        ),
        Example(web_deployment(PRESTOP), findings=0),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for workload, template in context.workloads():
            grace = template.grace_seconds
            for container in template.long_running:
                pause = container.prestop_sleep()
                if pause is None or grace > pause:
                    continue
                hook_pos = pos_of(container.body, "lifecycle")
                explicit = "terminationGracePeriodSeconds" in template.spec
                pos = (
                    pos_of(template.spec, "terminationGracePeriodSeconds", value=True)
                    if explicit
                    else hook_pos
                )
                setting = "" if explicit else " (the default)"
                edit = grace_edit(workload, template, pause, context.fix_values)
                wanted = edit.value
                yield self.finding(
                    workload,
                    pos,
                    (
                        f"{workload.ref.display}: grace period {_seconds(grace)}{setting} is not "
                        f"longer than the {_seconds(pause)} preStop pause",
                        f"terminationGracePeriodSeconds {grace} must cover the pause of container "
                        f"{container.name!r} and the drain after it; as it is, the pod is killed "
                        "before its container gets SIGTERM",
                        f"raise it above the pause plus the drain time (e.g. {wanted})",
                    ),
                    container=container.name,
                    related=[Related(workload.path, hook_pos[0], "the preStop hook")],
                    fix=f"set terminationGracePeriodSeconds to {wanted}",
                    edits=[edit],
                )
