"""Java's words for the code rules, in grpc-java's terms (the builders' methods, durations
as `(5, TimeUnit.MINUTES)`)."""

from __future__ import annotations

from k8slb.model.grpc_options import LB_POLICY_NAME, MAX_AGE, MAX_AGE_GRACE, SERVICE_CONFIG
from k8slb.rules.dialect import Dialect

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


DIALECT = JavaDialect()
