"""JavaScript's words for the code rules, in @grpc/grpc-js's terms (it takes gRPC's core
option names as they are). No edits yet: a finding on JavaScript has no fix."""

from __future__ import annotations

from k8slb.model.grpc_options import MAX_AGE_GRACE
from k8slb.rules.dialect import Dialect


class JavaScriptDialect(Dialect):
    def option(self, key: str) -> str:
        return f"'{key}'"

    def option_value(self, key: str, value: float) -> str:
        return f"'{key}': {int(value)}"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return (
            f"add {self.option_value('grpc.max_connection_age_ms', age_ms)} and "
            f"{self.option_value(MAX_AGE_GRACE, grace_ms)} to the Server's options"
        )

    def no_sigterm_consequence(self) -> str:
        return (
            "Kubernetes stops pods with SIGTERM, and a Node.js process with no handler for "
            "it exits at once, so calls in flight are cut"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return (
            f"process.on('SIGTERM', () => {server}.tryShutdown(...)), with a timer that "
            f"calls {server}.forceShutdown() after {grace} s"
        )

    def sigterm_fix(self, server: str, grace: int) -> str:
        return self.sigterm_advice(server, grace)

    def stop_call(self, server: str, grace: object) -> str:
        return f"{server}.forceShutdown()"

    def stop_advice(self, server: str, grace: int) -> str:
        return (
            f"call {server}.tryShutdown(), bounded by a timer that calls forceShutdown() "
            f"after {grace} s, so that calls finish on shutdown"
        )

    def stop_fix(self, grace: int) -> str:
        return f"tryShutdown(), with forceShutdown() after {grace} s"

    def health_drain_advice(self) -> str:
        return "set every service NOT_SERVING in the health implementation on SIGTERM"

    def http2_setting(self) -> str:
        return "the http2 module"

    def http_pool_advice(self) -> str:
        return "give the agent's sockets a bounded life, or have the server close connections"


DIALECT = JavaScriptDialect()
