from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, FixInfo, Severity
from k8slb.model.grpc_options import INT_MAX, MAX_AGE, MAX_AGE_GRACE
from k8slb.rulekit.base import Context, Example, Rule
from k8slb.rulekit.dialect import dialect_of
from k8slb.rulekit.examples import (
    GO_KEEPALIVE_IMPORTS,
    GO_MAX_AGE,
    JAVA_MAX_AGE,
    MAX_AGE_OPTIONS,
    go_server,
    grpc_server,
    java_server,
)


class GrpcMaxAgeNoGrace(Rule):
    """A maximum connection age without a grace period.

    ## What it does
    Reports gRPC servers whose options set `grpc.max_connection_age_ms` but not
    `grpc.max_connection_age_grace_ms`. In Go: `MaxConnectionAge` without
    `MaxConnectionAgeGrace` in `keepalive.ServerParameters`. In JavaScript, a grpc-js
    `Server`'s options, with grpc's own names. In Java, a server builder given
    `maxConnectionAge(...)` and no `maxConnectionAgeGrace(...)`; `k8slb fix` chains
    `.maxConnectionAgeGrace(30, TimeUnit.SECONDS)` after its factory call.

    ## Why it matters
    When a connection reaches its age, the server sends GOAWAY: new calls go to a new
    connection, calls in flight may finish. The grace period bounds how long they may take
    before the connection is closed. Without it (infinite by default) one long stream
    keeps an aged connection, and the pod it pins, for as long as it runs; with a grace
    that is too short, calls still running are cut.

    ## Fix
    Add `("grpc.max_connection_age_grace_ms", 30_000)`, at least the longest deadline of
    a unary call; for long-lived streams choose the value with care, since it caps them.

    ## Other linters
    No other linter reads gRPC server code.
    """

    id = "KLB204"
    name = "grpc-max-age-no-grace"
    severity = Severity.INFO
    fix = FixInfo(available=True, safe=True, description="add grpc.max_connection_age_grace_ms")
    examples = (
        Example(
            grpc_server(', options=[("grpc.max_connection_age_ms", 300_000)]'),
            language="python",
            at=(7, 78),
        ),
        Example(grpc_server(MAX_AGE_OPTIONS), findings=0, language="python"),
        Example(
            go_server(
                "grpc.KeepaliveParams(keepalive.ServerParameters{\n"
                "\t\tMaxConnectionAge: 5 * time.Minute,\n\t})",
                imports=GO_KEEPALIVE_IMPORTS,
            ),
            language="go",
            title="in Go",
            at=(14, 3),
        ),
        Example(go_server(GO_MAX_AGE, imports=GO_KEEPALIVE_IMPORTS), findings=0, language="go"),
        Example(
            java_server("\n        .maxConnectionAge(5, TimeUnit.MINUTES)"),
            language="java",
            title="in Java",
            at=(8, 10),
        ),
        Example(java_server(JAVA_MAX_AGE), findings=0, language="java"),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            for server in facts.servers:
                age = server.options.get(MAX_AGE)
                if age is None or (isinstance(age.value, int) and age.value >= INT_MAX):
                    continue
                if server.options.get(MAX_AGE_GRACE) is not None or not server.options.complete:
                    continue
                grace = context.fix_values.max_connection_age_grace_ms
                dialect = dialect_of(facts.language).for_server(server)
                yield self.code_finding(
                    age.loc,
                    (
                        f"{dialect.option(MAX_AGE)} is set without {dialect.option(MAX_AGE_GRACE)}",
                        "an aged connection stays open for as long as its longest call",
                        f"add a grace (e.g. {dialect.option_value(MAX_AGE_GRACE, grace)})",
                    ),
                    fix=f"add {dialect.option_value(MAX_AGE_GRACE, grace)}",
                    edits=dialect.server_options(server, [(MAX_AGE_GRACE, grace)]),
                )
