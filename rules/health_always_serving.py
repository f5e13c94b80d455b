from __future__ import annotations

from collections.abc import Iterator

from k8slb.code.facts import CodeFacts, HealthServicer
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.base import Context, Example, Rule
from k8slb.rulekit.dialect import dialect_of
from k8slb.rulekit.examples import GO_SIGNAL_IMPORTS, GO_SIGTERM, JAVA_HOOK, go_server, java_server

_STANDARD = """\
from grpc_health.v1 import health, health_pb2_grpc


def add_health(server):
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    return servicer
"""
_DRAINING = _STANDARD.replace(
    "    return servicer\n",
    "    return servicer\n\n\ndef on_sigterm(servicer, server):\n"
    "    servicer.enter_graceful_shutdown()\n    server.stop(25)\n",
)
_CUSTOM = """\
from grpc_health.v1 import health_pb2, health_pb2_grpc


class Health(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


def add_health(server):
    health_pb2_grpc.add_HealthServicer_to_server(Health(), server)
"""
_JAVA_HEALTH = (
    "    io.grpc.protobuf.services.HealthStatusManager health =\n"
    "        new io.grpc.protobuf.services.HealthStatusManager();\n"
)


def never_drains(context: Context, facts: CodeFacts, servicer: HealthServicer) -> bool:
    """gRPC's own health service, never set to NOT_SERVING by any module of the program
    (the drains are read from every module only for it)."""
    return servicer.custom_class is None and facts.project not in context.projects_with(
        "health_drains"
    )


def _library_health_runs(context: Context, facts: CodeFacts) -> bool:
    """Whether the program that runs the module registers gRPC's own health service: its
    project does, or (Go) every program of the tree that links its package in (a `main`
    and the packages it imports) makes one; then a hand-written Check there is not what
    the probes reach (a type whose Check serves another service's methods)."""
    if facts.project in context.projects_with("library_health"):
        return True
    programs = [code for code in context.links.programs(facts.path) if code]
    return bool(programs) and all(
        any(s.custom_class is None for module in code for s in module.health_servicers)
        for code in programs
    )


class HealthAlwaysServing(Rule):
    """A gRPC health service that can never say NOT_SERVING.

    ## What it does
    Finds the health services registered with `add_HealthServicer_to_server` and reports
    those that cannot report NOT_SERVING: grpcio-health-checking's `HealthServicer` when no
    module of the scanned code ever calls `set(..., NOT_SERVING)` or
    `enter_graceful_shutdown()`, and a servicer class of its own whose `Check` never
    mentions NOT_SERVING. A server has one health service: a hand-written one is not
    reported in a program that also registers the library's (that one is what the probes
    reach, and is judged). In Go a program is a `main` package and the packages it
    imports: a `Check` in a package that every program of the tree linking it in makes
    `health.NewServer()` for is not reported (a service type that answers `Check` beside
    its own methods, registered as that service's server). Where no program of the tree
    links the package in (a library, or code k8slb cannot tie to a `main`), it cannot tell
    which health service runs, and a `Check` that always answers SERVING is reported.

    In Go: `health.NewServer()` when the code never sets `NOT_SERVING`
    (`SetServingStatus(..., healthpb.HealthCheckResponse_NOT_SERVING)`) nor calls its
    `Shutdown()`, on the variable it is made in or through a struct field that holds it
    (`s.health.Shutdown()`, of `&Server{health: hs}` or `s.health = hs`); and a
    hand-written `Check` method (one that answers a `HealthCheckResponse`) whose every
    `Status:` is `HealthCheckResponse_SERVING`.

    In Java: grpc-java's `new HealthStatusManager()` when the code never sets
    `ServingStatus.NOT_SERVING` nor calls `enterTerminalState()` or `clearStatus(...)`
    (after which a probe of the service fails); and a class that extends
    `HealthGrpc.HealthImplBase` whose every status is the constant `SERVING`.

    In Node.js: grpc-health-check's `HealthImplementation` (or 1.x's `Implementation`, and
    grpc-js-health-check's), and nice-grpc-server-health's `HealthServiceImpl()` given no
    state, when no module of the program sets a status to `NOT_SERVING`; and a hand-written
    `check` given to `addService(....Health.service, {check})` that answers `'SERVING'` and
    nothing else, deciding nothing.

    ## Why it matters
    A gRPC readiness probe asks this service. If it answers SERVING until the process
    dies, the pod stays in the endpoints while it shuts down, and readiness cannot take an
    overloaded or draining pod out of rotation.

    ## Fix
    On SIGTERM, call `health_servicer.enter_graceful_shutdown()` before
    `server.stop(grace)`; set NOT_SERVING when a dependency the pod needs is down.

    ## Other linters
    No other linter reads gRPC health code.
    """

    id = "KLB405"
    name = "health-always-serving"
    severity = Severity.INFO
    examples = (
        Example(_STANDARD, language="python", at=(6, 5)),
        Example(_CUSTOM, language="python", title="a Check that always says SERVING", at=(10, 5)),
        Example(_DRAINING, findings=0, language="python"),
        Example(
            go_server(
                before_serve="\thealthServer := health.NewServer()\n"
                "\thealthpb.RegisterHealthServer(server, healthServer)\n",
                imports='\t"google.golang.org/grpc/health"\n'
                '\thealthpb "google.golang.org/grpc/health/grpc_health_v1"',
            ),
            language="go",
            title="in Go",
            at=(13, 18),
        ),
        Example(
            go_server(
                before_serve="\thealthServer := health.NewServer()\n"
                "\thealthpb.RegisterHealthServer(server, healthServer)\n"
                + GO_SIGTERM.replace(
                    "\t\tserver.GracefulStop",
                    "\t\thealthServer.Shutdown()\n\t\tserver.GracefulStop",
                ),
                imports=GO_SIGNAL_IMPORTS + '\n\t"google.golang.org/grpc/health"\n'
                '\thealthpb "google.golang.org/grpc/health/grpc_health_v1"',
            ),
            findings=0,
            language="go",
            title="in Go, Shutdown() on SIGTERM",
        ),
        Example(
            java_server(
                "\n        .addService(health.getHealthService())",
                setup=_JAVA_HEALTH,
            ),
            language="java",
            title="in Java",
            at=(8, 9),
        ),
        Example(
            java_server(
                "\n        .addService(health.getHealthService())",
                before_wait=JAVA_HOOK.replace(
                    "      server.shutdown();\n",
                    "      health.enterTerminalState();\n      server.shutdown();\n",
                ),
                setup=_JAVA_HEALTH,
            ),
            findings=0,
            language="java",
            title="in Java, enterTerminalState() in the shutdown hook",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            for servicer in facts.health_servicers:
                if never_drains(context, facts, servicer):
                    yield self.code_finding(
                        servicer.loc,
                        (
                            "the gRPC health service is never set to NOT_SERVING",
                            "readiness cannot drop while the server drains",
                            dialect_of(facts.language).health_drain_advice(),
                        ),
                    )
                elif (
                    servicer.custom_class is not None
                    and not servicer.class_can_fail
                    # a server has one health service: where the program registers gRPC's
                    # own, a hand-written Check is not what the probes reach
                    and not _library_health_runs(context, facts)
                ):
                    yield self.code_finding(
                        servicer.loc,
                        (
                            f"{dialect_of(facts.language).health_check(servicer.custom_class)} "
                            "always answers SERVING",
                            "readiness cannot drop while the server drains or is overloaded",
                            "report NOT_SERVING when it cannot serve",
                        ),
                    )
