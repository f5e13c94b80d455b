"""Go's words for the code rules (grpc-go's API names, durations as Go writes them), and
the edits that fix Go (keepalive parameters, dial options, a SIGTERM goroutine,
GracefulStop), made by languages/go/edit.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Server, Stop, Wait
from k8slb.core.edits import CodeEdit, GoEdit
from k8slb.model.grpc_options import MAX_AGE, MAX_AGE_GRACE, SERVICE_CONFIG
from k8slb.rulekit.dialect import Dialect

# gRPC's core option names as Go's API spells them.
_GO_OPTIONS = {
    MAX_AGE: "MaxConnectionAge",
    MAX_AGE_GRACE: "MaxConnectionAgeGrace",
    "grpc.max_connection_idle_ms": "MaxConnectionIdle",
    "grpc.keepalive_time_ms": "Time",
    "grpc.keepalive_timeout_ms": "Timeout",
    SERVICE_CONFIG: "grpc.WithDefaultServiceConfig",
    "grpc.lb_policy_name": "grpc.WithBalancerName",
}
# Go frameworks' gRPC servers (parse.py's FRAMEWORK_SERVERS), as messages name them
_FRAMEWORK_NAMES = {"kratos/grpc.NewServer": "go-kratos' grpc.NewServer()"}
GRPC_PACKAGES = (
    ("grpc", "google.golang.org/grpc"),
    ("keepalive", "google.golang.org/grpc/keepalive"),
    ("time", "time"),
)
SIGNAL_PACKAGES = (
    ("os", "os"),
    ("signal", "os/signal"),
    ("syscall", "syscall"),
    ("time", "time"),
)


def go_duration(milliseconds: float) -> str:
    """`5 * time.Minute` for 300000 ms: a duration as Go code writes it."""
    for unit, size in (("time.Hour", 3_600_000), ("time.Minute", 60_000), ("time.Second", 1000)):
        if milliseconds >= size and milliseconds % size == 0:
            return f"{int(milliseconds // size)} * {unit}"
    return f"{int(milliseconds)} * time.Millisecond"


class GoDialect(Dialect):
    def option(self, key: str) -> str:
        return _GO_OPTIONS.get(key, key)

    def option_value(self, key: str, value: float) -> str:
        return f"{self.option(key)}: {go_duration(value)}"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return (
            "add grpc.KeepaliveParams(keepalive.ServerParameters{"
            f"MaxConnectionAge: {go_duration(age_ms)}, "
            f"MaxConnectionAgeGrace: {go_duration(grace_ms)}}})"
        )

    def no_sigterm_consequence(self) -> str:
        return (
            "Kubernetes stops pods with SIGTERM, and a Go program that does not catch it "
            "exits at once, so calls in flight are cut"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"signal.Notify(ch, syscall.SIGTERM), then {server}.GracefulStop() when it arrives"

    def exit_wait_advice(self, server: str, grace: int) -> str:
        return (
            f"call {server}.GracefulStop() in the code that exits, before it exits (bounded by "
            f"time.AfterFunc({grace}*time.Second, {server}.Stop)), or have it wait on a "
            "channel the stopping goroutine closes once GracefulStop() returns"
        )

    def sigterm_fix(self, server: str, grace: int) -> str:
        return (
            f"add a goroutine that, on SIGTERM, calls {server}.GracefulStop() and "
            f"{server}.Stop() after {grace} s (review: other shutdown work)"
        )

    def stop_call(self, server: str, grace: object) -> str:
        return f"{server}.Stop()"

    def stop_advice(self, server: str, grace: int) -> str:
        return (
            f"call {server}.GracefulStop(), bounded by a timer that calls Stop() after "
            f"{grace} s, so that calls finish on shutdown"
        )

    def stop_fix(self, grace: int) -> str:
        return f"GracefulStop(), bounded by a timer that calls Stop() after {grace} s"

    def health_drain_advice(self) -> str:
        return "call Shutdown() on the health server (every service NOT_SERVING) on SIGTERM"

    def http2_setting(self) -> str:
        return "ForceAttemptHTTP2"

    def http_pool_advice(self) -> str:
        return (
            "call CloseIdleConnections() now and then, or have the server close connections "
            "(IdleConnTimeout ends only idle ones, MaxConnsPerHost bounds none)"
        )

    def server_made(self, factory: str) -> str:
        return _FRAMEWORK_NAMES.get(factory, f"{factory}()")

    def server_max_age_advice(self, server: Server, age_ms: int, grace_ms: int) -> str:
        """go-kratos takes grpc-go's options in its own `grpc.Options(...)`, whose list
        replaces the one an earlier call gave."""
        advice = self.max_age_advice(age_ms, grace_ms)
        if server.factory in _FRAMEWORK_NAMES:
            return (
                f"{advice} of google.golang.org/grpc to the list the server's "
                "grpc.Options(...) gives it (one call: a later one replaces its list)"
            )
        return advice

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        """The fields added to the server's one `keepalive.ServerParameters` literal, or a
        `grpc.KeepaliveParams(...)` argument when it has none. Nothing when its options are
        not all known: a second KeepaliveParams would replace the first one's settings;
        nor for a framework's server, whose options are its own (the advice says where)."""
        if not server.options.complete or server.factory in _FRAMEWORK_NAMES:
            return []
        # `MaxConnectionAge: 5 * {time}.Minute`: the field, its package left to the file
        fields = [self.option_value(k, v).replace("time.", "{time}.") for k, v in pairs]
        if server.options.literal is not None:
            where = server.options.literal
            code = "\n".join(fields)
            return [GoEdit(where.path, where.line, where.column, "add-fields", code, GRPC_PACKAGES)]
        if server.options.entries:  # set in more than one ServerParameters literal
            return []
        code = "{grpc}.KeepaliveParams({keepalive}.ServerParameters{" + ", ".join(fields) + "})"
        loc = server.loc
        return [GoEdit(loc.path, loc.line, loc.column, "add-argument", code, GRPC_PACKAGES)]

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        """The service config only, as a dial option: the channel call's last argument.
        None for a grpc-gateway registration's channel (parse.py's GATEWAY_PARTS), whose
        options are the slice it is given, not arguments of its own."""
        if not channel.options.complete or channel.factory.endswith("HandlerFromEndpoint"):
            return []
        edits: list[CodeEdit] = []
        loc = channel.loc
        for key, value in pairs:
            if key != SERVICE_CONFIG or "`" in str(value):
                return []
            code = "{grpc}.WithDefaultServiceConfig(`" + str(value) + "`)"
            edits.append(
                GoEdit(loc.path, loc.line, loc.column, "add-argument", code, GRPC_PACKAGES[:1])
            )
        return edits

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        """Before `server.Serve(lis)`, a goroutine that waits for SIGTERM and then stops the
        server gracefully, with a timer that stops it outright after `grace` seconds
        (GracefulStop waits for every stream, a watch or a stream that never ends
        included)."""
        if wait.how != "Serve()":
            return []
        if server == "sigterm" or not all(part.isidentifier() for part in server.split(".")):
            return []  # an expression, or the name the goroutine uses
        lines = [
            "go func() {",
            "\tsigterm := make(chan {os}.Signal, 1)",
            "\t{signal}.Notify(sigterm, {syscall}.SIGTERM)",
            "\t<-sigterm",
            *(f"\t{line}" for line in bounded_stop(server, grace)),
            "}()",
        ]
        loc = wait.loc
        code = "\n".join(lines)
        return [GoEdit(loc.path, loc.line, loc.column, "insert-statements", code, SIGNAL_PACKAGES)]

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        """The `Stop()` statement made a `GracefulStop()`, bounded by a timer that calls
        `Stop()` after `grace` seconds (GracefulStop waits for every stream, one that never
        ends included)."""
        if not all(part.isidentifier() for part in stop.server.split(".")):
            return []  # an expression: written twice, it could run twice
        loc = stop.loc
        code = "\n".join(bounded_stop(stop.server, grace))
        return [GoEdit(loc.path, loc.line, loc.column, "graceful-stop", code, SIGNAL_PACKAGES)]


def bounded_stop(server: str, grace: int) -> list[str]:
    """The statements of a graceful stop that lets the calls in flight finish for `grace`
    seconds, then ends those left: the timer's `Stop()` makes `GracefulStop()` return."""
    return [
        f"{{time}}.AfterFunc({grace}*{{time}}.Second, {server}.Stop)",
        f"{server}.GracefulStop()",
    ]


DIALECT = GoDialect()
