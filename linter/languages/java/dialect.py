"""Java's words for the code rules, in grpc-java's terms (the builders' methods, durations
as `(5, TimeUnit.MINUTES)`), and the edits that fix Java (settings chained on a builder, a
shutdown hook, a bounded graceful stop), made by languages/java/edit.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Server, Stop, Wait
from k8slb.core.edits import ROUND_ROBIN_CONFIG, CodeEdit, JavaEdit
from k8slb.model.grpc_options import LB_POLICY_NAME, MAX_AGE, MAX_AGE_GRACE, SERVICE_CONFIG
from k8slb.rulekit.dialect import Dialect, Since

TIME_UNIT = "java.util.concurrent.TimeUnit"

# gRPC's core option names as grpc-java's builders spell them.
_JAVA_OPTIONS = {
    MAX_AGE: "maxConnectionAge",
    MAX_AGE_GRACE: "maxConnectionAgeGrace",
    "grpc.max_connection_idle_ms": "maxConnectionIdle",
    "grpc.keepalive_time_ms": "keepAliveTime",
    "grpc.keepalive_timeout_ms": "keepAliveTimeout",
    "grpc.http2.min_ping_interval_without_data_ms": "permitKeepAliveTime",
    "grpc.keepalive_permit_without_calls": "permitKeepAliveWithoutCalls",
    "grpc.client_idle_timeout_ms": "idleTimeout",
    LB_POLICY_NAME: "defaultLoadBalancingPolicy",
    SERVICE_CONFIG: "defaultServiceConfig",
}

# Factories whose builder is a plain `io.grpc.ServerBuilder`: it has maxConnectionAge and
# the other connection settings from grpc-java 1.47.0 on (grpc/grpc-java#9176, `@since
# 1.47.0`); NettyServerBuilder has had them since 1.3.0.
_PLAIN_BUILDERS = frozenset({"ServerBuilder.forPort", "Grpc.newServerBuilderForPort"})
_SETTINGS_SINCE = (1, 47, 0)
SERVER_BUILDER_SETTINGS = Since(
    "grpc-java",
    _SETTINGS_SINCE,
    "ServerBuilder",
    "cast to NettyServerBuilder or upgrade grpc-java to >= " + ".".join(map(str, _SETTINGS_SINCE)),
)


def java_duration(milliseconds: float) -> str:
    """`5, TimeUnit.MINUTES` for 300000 ms: a duration as grpc-java's builders take it."""
    for unit, size in (
        ("TimeUnit.HOURS", 3_600_000),
        ("TimeUnit.MINUTES", 60_000),
        ("TimeUnit.SECONDS", 1000),
    ):
        if milliseconds >= size and milliseconds % size == 0:
            return f"{int(milliseconds // size)}, {unit}"
    return f"{int(milliseconds)}, TimeUnit.MILLISECONDS"


class JavaDialect(Dialect):
    def option(self, key: str) -> str:
        return _JAVA_OPTIONS.get(key, key)

    def option_value(self, key: str, value: float) -> str:
        return f"{self.option(key)}({java_duration(value)})"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return (
            f"add .{self.option_value(MAX_AGE, age_ms)}"
            f".{self.option_value(MAX_AGE_GRACE, grace_ms)} to the server's builder"
        )

    def server_options_since(self, server: Server) -> Since | None:
        return SERVER_BUILDER_SETTINGS if server.factory in _PLAIN_BUILDERS else None

    def no_sigterm_consequence(self) -> str:
        return (
            "Kubernetes stops pods with SIGTERM, and a JVM with no shutdown hook that stops "
            "the server exits at once, so calls in flight are cut"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return (
            f"Runtime.getRuntime().addShutdownHook(...) with a thread that calls "
            f"{server}.shutdown(), {server}.awaitTermination({grace}, TimeUnit.SECONDS), "
            f"then {server}.shutdownNow()"
        )

    def sigterm_fix(self, server: str, grace: int) -> str:
        return (
            f"add a shutdown hook that calls {server}.shutdown() and {server}.shutdownNow() "
            f"after {grace} s (review: other shutdown work)"
        )

    def stop_call(self, server: str, grace: object) -> str:
        return f"{server}.shutdownNow()"

    def stop_advice(self, server: str, grace: int) -> str:
        return (
            f"call {server}.shutdown(), then awaitTermination({grace}, TimeUnit.SECONDS) "
            "before shutdownNow(), so that calls finish on shutdown"
        )

    def stop_fix(self, grace: int) -> str:
        return (
            f"shutdown(): review that awaitTermination({grace}, TimeUnit.SECONDS) and "
            "shutdownNow() bound it (it waits for every call)"
        )

    def health_drain_advice(self) -> str:
        return (
            "call enterTerminalState() on the HealthStatusManager (every service "
            "NOT_SERVING) in the shutdown hook"
        )

    def http2_setting(self) -> str:
        return "HttpClient.Version.HTTP_2"

    def http_pool_advice(self) -> str:
        return "bound the life of pooled connections, or have the server close them"

    def unknown_policy_consequence(self) -> str:
        # grpc-java's channel puts a picker that fails every call in the policy's place
        return "grpc-java finds no such policy and fails every call on the channel"

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        """The settings chained right after the builder's factory call (`forPort(...)`):
        nothing when k8slb could not see all of them (one set later would be overridden,
        or would override these)."""
        if not server.options.complete:
            return []
        code = "\n".join(f".{self.option_value(key, value)}" for key, value in pairs)
        return [_edit(server.loc.path, server.loc.line, server.loc.column, server.factory, code)]

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        """round_robin as the channel's default policy (grpc-java's own setting for it,
        where grpcio takes a service config): only that, on a channel whose settings are
        all known and name no policy yet."""
        options = channel.options
        if (
            not options.complete
            or options.get(LB_POLICY_NAME) is not None
            or list(pairs) != [(SERVICE_CONFIG, ROUND_ROBIN_CONFIG)]
        ):
            return []
        loc = channel.loc
        code = '.defaultLoadBalancingPolicy("round_robin")'
        return [_edit(loc.path, loc.line, loc.column, channel.factory, code, imports=())]

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        """Before the statement that waits in `awaitTermination()`, a shutdown hook (the JVM
        runs them on SIGTERM) that stops the server gracefully and stops it outright when
        `grace` seconds are not enough."""
        if wait.how != "awaitTermination()" or not server.isidentifier():
            return []
        lines = [
            "Runtime.getRuntime().addShutdownHook(new Thread(() -> {",
            *(f"\t{line}" for line in bounded_stop(server, grace)),
            "}));",
        ]
        loc = wait.loc
        edit = JavaEdit(
            loc.path,
            loc.line,
            loc.column,
            "insert-statements",
            "awaitTermination",
            "\n".join(lines),
            (TIME_UNIT,),
        )
        return [edit]

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        """`shutdownNow()` made `shutdown()`, bounded by `awaitTermination(grace)` and then
        `shutdownNow()` (or, where its result is already awaited, only renamed)."""
        if not stop.server.isidentifier():
            return []
        loc = stop.loc
        code = "\n".join(bounded_stop(stop.server, grace))
        # the stop as written: shutdownNow(), or a shutdown() its hook does not wait for
        method = "shutdownNow" if stop.written is None else "shutdown"
        edit = JavaEdit(loc.path, loc.line, loc.column, "graceful-stop", method, code, (TIME_UNIT,))
        return [edit]


def bounded_stop(server: str, grace: int) -> list[str]:
    """The statements of a graceful stop that waits `grace` seconds for the calls in
    flight, then ends those left (a tab for each level of indentation)."""
    return [
        f"{server}.shutdown();",
        "try {",
        f"\tif (!{server}.awaitTermination({grace}, TimeUnit.SECONDS)) {{",
        f"\t\t{server}.shutdownNow();",
        "\t}",
        "} catch (InterruptedException interrupted) {",
        f"\t{server}.shutdownNow();",
        "\tThread.currentThread().interrupt();",
        "}",
    ]


def _edit(
    path: str,
    line: int,
    column: int,
    factory: str,
    code: str,
    imports: tuple[str, ...] = (TIME_UNIT,),
) -> JavaEdit:
    """Calls chained after the factory call (`Grpc.newServerBuilderForPort` calls
    `newServerBuilderForPort`) that starts at (line, column)."""
    method = factory.rsplit(".", 1)[-1]
    return JavaEdit(path, line, column, "chain-after", method, code, imports)


DIALECT = JavaDialect()
