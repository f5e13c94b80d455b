"""The words of the code rules for a Spring Boot service's settings: the properties
grpc-spring-boot-starter reads (`grpc.server.max-connection-age`), durations as Spring
writes them. No edits: a settings file is left to its owner."""

from __future__ import annotations

from k8slb.code.facts import Server
from k8slb.languages.java.parse_spring import LOGNET, QUARKUS, STARTERS
from k8slb.model.grpc_options import MAX_AGE, MAX_AGE_GRACE
from k8slb.reading.java_builds import SPRING_GRPC
from k8slb.rulekit.dialect import Dialect

_PROPERTIES = {
    MAX_AGE: "grpc.server.max-connection-age",
    MAX_AGE_GRACE: "grpc.server.max-connection-age-grace",
    "grpc.max_connection_idle_ms": "grpc.server.max-connection-idle",
    "grpc.keepalive_time_ms": "grpc.server.keep-alive-time",
    "grpc.keepalive_timeout_ms": "grpc.server.keep-alive-timeout",
    "grpc.lb_policy_name": "grpc.client.<name>.default-load-balancing-policy",
    "grpc.service_config": "a GrpcChannelConfigurer's defaultServiceConfig",
}


def spring_duration(milliseconds: float) -> str:
    """`5m` for 300000 ms: a duration as Spring's settings write it."""
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if milliseconds >= size and milliseconds % size == 0:
            return f"{int(milliseconds // size)}{unit}"
    return f"{int(milliseconds)}ms"


# LogNet's starter: the server's options under `grpc.netty-server.`, its grace in whole
# seconds under `grpc.shutdown-grace`.
_LOGNET_PREFIX = "grpc.netty-server."


class SpringDialect(Dialect):
    def option(self, key: str) -> str:
        return _PROPERTIES.get(key, key)

    def for_server(self, server: Server) -> Dialect:
        if server.factory == STARTERS[QUARKUS][0]:
            return QUARKUS_DIALECT
        if server.factory == STARTERS[SPRING_GRPC][0]:
            return SPRING_GRPC_DIALECT
        return LOGNET_DIALECT if server.factory == STARTERS[LOGNET][0] else self

    def option_value(self, key: str, value: float) -> str:
        return f"{self.option(key)}={spring_duration(value)}"

    def server_made(self, factory: str) -> str:
        return factory

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return (
            f"set {self.option_value(MAX_AGE, age_ms)} and "
            f"{self.option_value(MAX_AGE_GRACE, grace_ms)} in the service's settings"
        )

    def no_sigterm_consequence(self) -> str:
        return "Spring stops the server when the JVM gets SIGTERM"

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"set grpc.server.shutdown-grace-period={grace}s"

    def sigterm_fix(self, server: str, grace: int) -> str:
        return self.sigterm_advice(server, grace)

    def stop_call(self, server: str, grace: object) -> str:
        return "a shutdown grace period of 0"

    def stop_advice(self, server: str, grace: int) -> str:
        # the stop is the settings' (parse_spring._stop): its server named by its keys
        if server == STARTERS[SPRING_GRPC][1].rpartition(".")[0]:
            return SPRING_GRPC_DIALECT.stop_advice(server, grace)
        return f"set grpc.server.shutdown-grace-period={grace}s"

    def stop_fix(self, grace: int) -> str:
        return self.stop_advice("", grace)

    def health_drain_advice(self) -> str:
        return "let the starter's health service report NOT_SERVING on shutdown"

    def http2_setting(self) -> str:
        return "HTTP/2"

    def http_pool_advice(self) -> str:
        return "bound the client's connection lifetime"


class LogNetDialect(SpringDialect):
    def option(self, key: str) -> str:
        words = super().option(key)
        return words.replace("grpc.server.", _LOGNET_PREFIX, 1)

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"set grpc.shutdown-grace={grace}"

    def stop_advice(self, server: str, grace: int) -> str:
        return self.sigterm_advice(server, grace)


class SpringGrpcDialect(SpringDialect):
    """Spring gRPC's server (org.springframework.grpc): its connection bounds are grouped
    under `spring.grpc.server.keep-alive.` (GrpcServerProperties.KeepAlive), its grace
    is `spring.grpc.server.shutdown-grace-period`."""

    def option(self, key: str) -> str:
        return _SPRING_GRPC_OPTIONS.get(key, key)

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"set spring.grpc.server.shutdown-grace-period={grace}s"

    def stop_advice(self, server: str, grace: int) -> str:
        return self.sigterm_advice(server, grace)


_SPRING_GRPC_OPTIONS = {
    MAX_AGE: "spring.grpc.server.keep-alive.max-age",
    MAX_AGE_GRACE: "spring.grpc.server.keep-alive.max-age-grace",
    "grpc.max_connection_idle_ms": "spring.grpc.server.keep-alive.max-idle",
    "grpc.keepalive_time_ms": "spring.grpc.server.keep-alive.time",
    "grpc.keepalive_timeout_ms": "spring.grpc.server.keep-alive.timeout",
    "grpc.lb_policy_name": "spring.grpc.client.channels.<name>.default-load-balancing-policy",
}


class QuarkusDialect(SpringDialect):
    """Quarkus's gRPC server: no setting bounds a connection's age; a
    `ServerBuilderCustomizer` bean gives grpc-java's builder one."""

    def option(self, key: str) -> str:
        return _QUARKUS_OPTIONS.get(key, key)

    def option_value(self, key: str, value: float) -> str:
        return f"{self.option(key)}({int(value // 1000)}, TimeUnit.SECONDS)"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return (
            f"call {self.option_value(MAX_AGE, age_ms)} and "
            f"{self.option_value(MAX_AGE_GRACE, grace_ms)} on the builder in a "
            "ServerBuilderCustomizer bean (Quarkus has no setting for them; its separate "
            "gRPC server, use-separate-server=true, is the one that takes them)"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"set quarkus.shutdown.timeout={grace}s"

    def stop_advice(self, server: str, grace: int) -> str:
        return self.sigterm_advice(server, grace)


_QUARKUS_OPTIONS = {
    MAX_AGE: "maxConnectionAge",
    MAX_AGE_GRACE: "maxConnectionAgeGrace",
    "grpc.lb_policy_name": "quarkus.grpc.clients.<name>.load-balancing-policy",
}
DIALECT = SpringDialect()
LOGNET_DIALECT = LogNetDialect()
QUARKUS_DIALECT = QuarkusDialect()
SPRING_GRPC_DIALECT = SpringGrpcDialect()
