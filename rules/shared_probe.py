from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from k8slb.findings import Finding, FixInfo, Related, Severity
from k8slb.fixing.edits import YamlEdit
from k8slb.model import Container, pos_of
from k8slb.rules.base import Context, Example, Rule
from k8slb.rules.examples import LIVE, READY, web_deployment
from k8slb.yamltree import YMap

# Kubernetes' defaults for the probe timings.
_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3}


def handler(container: Container, probe: YMap) -> tuple[Any, ...] | None:
    """What a probe calls, normalised so that equal handlers compare equal. Headers,
    cookies and timings are not part of it: they do not make another handler."""
    if isinstance(http := probe.get("httpGet"), dict):
        port = container.port_number(http["port"]) or http["port"]
        scheme = str(http.get("scheme") or "HTTP").upper()
        return ("httpGet", http.get("path") or "/", port, scheme, http.get("host") or "")
    if isinstance(tcp := probe.get("tcpSocket"), dict):
        port = container.port_number(tcp["port"]) or tcp["port"]
        return ("tcpSocket", port, tcp.get("host") or "")
    if isinstance(grpc := probe.get("grpc"), dict):
        return ("grpc", grpc["port"], grpc.get("service") or "")
    if isinstance(command := probe.get("exec"), dict) and command.get("command"):
        return ("exec", tuple(command["command"]))
    return None


def _port_written(probe: YMap) -> int | str | None:
    """The port of a probe's handler as the manifest writes it (a name stays a name)."""
    for kind in ("httpGet", "tcpSocket", "grpc"):
        handler = probe.get(kind)
        if isinstance(handler, dict) and handler.get("port") is not None:
            return handler["port"]  # type: ignore[no-any-return]
    return None


def describe(key: tuple[Any, ...]) -> str:
    kind = key[0]
    if kind == "httpGet":
        return f"httpGet {key[1]} on port {key[2]}"
    if kind == "tcpSocket":
        return f"tcpSocket on port {key[1]}"
    if kind == "grpc":
        return f"grpc on port {key[1]}" + (f" (service {key[2]!r})" if key[2] else "")
    return "exec " + " ".join(key[1])


def _timing(probe: YMap, field: str) -> int:
    value = probe.get(field)
    return value if isinstance(value, int) else _DEFAULTS[field]


def liveness_fails_later(readiness: YMap, liveness: YMap) -> bool:
    """The documented-safe use of one endpoint: liveness starts no earlier and needs at
    least twice as long to give up, so readiness always takes the pod out first."""

    def window(probe: YMap) -> int:
        return _timing(probe, "periodSeconds") * _timing(probe, "failureThreshold")

    starts_later = _timing(liveness, "initialDelaySeconds") >= _timing(
        readiness, "initialDelaySeconds"
    )
    return starts_later and window(liveness) >= 2 * window(readiness)


class SharedProbe(Rule):
    """The readiness and liveness probes call the same handler.

    ## What it does
    Compares the readiness and liveness probes of every long-running container (app
    containers and native sidecars; not Jobs or CronJobs) and reports those that call the
    same handler: the same `httpGet` path, port, scheme and host; the same `tcpSocket`
    port; the same `exec` command; the same `grpc` port and service. Named ports are
    resolved to numbers first, so `port: http` and `port: 8080` are the same port.
    Different headers or cookies do not make another handler, and neither do timings.

    When the liveness probe clearly gives up later than the readiness probe (it starts no
    earlier, and its `periodSeconds × failureThreshold` is at least twice as long), the
    pattern is the documented-safe one and the finding drops to `info`, saying so.

    ## Why it matters
    The two probes answer different questions. Readiness: "should this pod get traffic
    now?" Liveness: "is this process stuck for good, so that only a restart helps?" With one
    handler, an overloaded pod either fails both and is restarted, losing its in-flight
    work and shifting load onto the others (which may cascade), when taking it out of the
    endpoints for a moment was enough; or passes both while it cannot serve.

    ## Fix
    Give liveness its own cheap check that only fails when the process is wedged (a
    `tcpSocket` probe on the port, or a `/livez` that does not touch dependencies), and
    keep dependency checks in readiness.

    `k8slb fix --unsafe-fixes` turns the liveness probe into a `tcpSocket` probe on the
    port the shared handler uses, keeping its timings. Unsafe: a process can hang while
    its socket still accepts connections, which a TCP check does not see.

    ## Other linters
    kube-score `pod-probes-identical` (it ignores scheme, host, named ports and gRPC
    probes, and does not accept a liveness probe that fails later); kube-linter, Polaris,
    checkov and Kubescape have no such check.
    """

    id = "KLB301"
    name = "shared-probe"
    severity = Severity.WARNING
    fix = FixInfo(True, False, "make the liveness probe a tcpSocket probe on the same port")
    examples = (
        Example(web_deployment(READY + READY.replace("readiness", "liveness"))),
        Example(
            web_deployment(READY + READY.replace("readiness", "liveness") + "  periodSeconds: 5\n"),
            title="timings do not make another handler",
        ),
        Example(
            web_deployment(
                READY + "livenessProbe:\n  httpGet: {path: /ready, port: 8080}\n"
                "  initialDelaySeconds: 10\n  failureThreshold: 6\n"
            ),
            severity=Severity.INFO,
            title="liveness gives up much later",
        ),
        Example(web_deployment(READY + LIVE), findings=0, title="separate paths"),
        Example(
            web_deployment(READY + "livenessProbe:\n  tcpSocket: {port: http}\n"),
            findings=0,
            title="a tcpSocket liveness probe on the same port",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for workload, template in context.index.workloads:
            if workload.spec is None or not workload.spec.serves:
                continue
            for container in template.long_running:
                readiness = container.probe("readinessProbe")
                liveness = container.probe("livenessProbe")
                if readiness is None or liveness is None:
                    continue
                key = handler(container, readiness)
                if key is None or key != handler(container, liveness):
                    continue
                where = f"container {container.name!r} of {workload.ref.display}"
                # A shared tcpSocket handler stays shared as tcpSocket: no fix for it.
                port = _port_written(readiness) if key[0] != "tcpSocket" else None
                edits = (
                    [
                        YamlEdit(
                            workload.path,
                            workload.document,
                            (*workload.root_path, *container.path),
                            "liveness-tcp",
                            port,
                        )
                    ]
                    if port is not None
                    else []
                )
                fix = FixInfo(
                    True,
                    False,
                    f"liveness becomes tcpSocket on port {port}: review the process"
                    " can wedge while it still accepts connections",
                )
                related = [Related(workload.path, readiness.pos[0], "the readiness probe")]
                pos = pos_of(container.body, "livenessProbe")
                if liveness_fails_later(readiness, liveness):
                    yield self.finding(
                        workload,
                        pos,
                        f"{where}: readiness and liveness share {describe(key)}, but liveness "
                        "gives up at least twice as late, so readiness drops the pod first; "
                        "a separate liveness check is still more robust",
                        container=container.name,
                        severity=Severity.INFO,
                        related=related,
                        fix=fix,
                        edits=edits,
                    )
                    continue
                yield self.finding(
                    workload,
                    pos,
                    f"{where}: readiness and liveness share {describe(key)}: an overloaded pod "
                    "is restarted instead of just taken out of the endpoints; give liveness "
                    "its own cheap check (e.g. tcpSocket on the port)",
                    container=container.name,
                    related=related,
                    fix=fix,
                    edits=edits,
                )
