"""JavaScript's and TypeScript's words for the code rules, in @grpc/grpc-js's terms (it
takes gRPC's core option names as they are), and the edits that fix them (options into the
Server's or the client's object, a SIGTERM handler, tryShutdown), made by
languages/javascript/edit.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Loc, Options, Server, Stop, Wait
from k8slb.core.edits import CodeEdit, JsEdit
from k8slb.languages.javascript.parse import (
    MALI_START,
    NICE_FORCE,
    NICE_SERVER,
    NICE_WAIT,
    NODE_WAIT,
)
from k8slb.languages.javascript.parse_nest import NEST_CLOSE, is_nest_server
from k8slb.model.grpc_options import MAX_AGE_GRACE
from k8slb.rulekit.dialect import Dialect

# what grpc-js names a server by in a handler: a variable or a field (`this.server`)
_SIMPLE_NAME = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$."


def _literal(value: Any) -> str | None:
    """An option's value as JavaScript writes it (a string in single quotes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, str) and "'" not in value and "\\" not in value and "\n" not in value:
        return f"'{value}'"
    return None


def _option_edits(options: Options, made: Loc, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
    """The options into the object literal that holds them all, or as a new last argument
    when none is given; nothing when they are set where k8slb cannot see."""
    written = [(key, _literal(value)) for key, value in pairs]
    if not options.complete or any(value is None for _, value in written):
        return []
    lines = [f"'{key}': {value}" for key, value in written]
    if options.literal is not None:
        at = options.literal
        return [JsEdit(at.path, at.line, at.column, "add-properties", "\n".join(lines))]
    if options.given:
        return []
    code = "{" + ", ".join(lines) + "}"
    return [JsEdit(made.path, made.line, made.column, "add-argument", code)]


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

    def server_max_age_advice(self, server: Server, age_ms: int, grace_ms: int) -> str:
        if server.factory == NICE_SERVER:
            return (
                f"add {self.option_value('grpc.max_connection_age_ms', age_ms)} and "
                f"{self.option_value(MAX_AGE_GRACE, grace_ms)} to createServer()'s options "
                "(nice-grpc gives them to grpc-js's Server)"
            )
        if server.factory == MALI_START:
            return (
                "give start() its options, "
                f"{self.option_value('grpc.max_connection_age_ms', age_ms)} and "
                f"{self.option_value(MAX_AGE_GRACE, grace_ms)}, after the address and the "
                "credentials (Mali gives them to grpc's Server)"
            )
        if not is_nest_server(server):
            return self.max_age_advice(age_ms, grace_ms)
        return (
            f"add {self.option_value('grpc.max_connection_age_ms', age_ms)} and "
            f"{self.option_value(MAX_AGE_GRACE, grace_ms)} to the transport's "
            "options.channelOptions (the only options NestJS gives grpc-js's Server)"
        )

    def server_sigterm_advice(self, server: Server, name: str, grace: int) -> tuple[str, str]:
        if server.factory == NICE_SERVER:  # nice-grpc's graceful stop is shutdown()
            return (
                f"process.on('SIGTERM', () => {name}.shutdown()...), with a timer that calls "
                f"{name}.forceShutdown() after {grace} s",
                f"add process.on('SIGTERM', ...) before listen(): {name}.shutdown(), "
                f"forceShutdown() after {grace} s, then process.exit(0) (review: other "
                "shutdown work)",
            )
        if server.factory == MALI_START:  # Mali's close() lets each server's calls end
            return (
                f"process.on('SIGTERM', () => {name}.close()...), with a timer that ends the "
                f"process after {grace} s",
                "",
            )
        if not is_nest_server(server):
            return self.sigterm_advice(name, grace), self.sigterm_fix(name, grace)
        # NestJS stops its transports in the application's close(): SIGTERM reaches it
        # through enableShutdownHooks(), and ServerGrpc.close() lets calls end
        # (tryShutdown) only with `gracefulShutdown: true`, else forceShutdown()
        advice = (
            f"call {name}.enableShutdownHooks() before it starts, so that SIGTERM closes the "
            "application, and set gracefulShutdown: true in the transport's options, so that "
            "closing lets calls in flight end (tryShutdown) rather than cutting them"
        )
        return advice, f"{name}.enableShutdownHooks() and gracefulShutdown: true"

    def stop_words(self, stop: Stop, grace: int) -> tuple[str, str]:
        if stop.written == NICE_FORCE:
            return (
                f"call {stop.server}.shutdown(), bounded by a timer that calls forceShutdown() "
                f"after {grace} s, so that calls finish on shutdown",
                f"shutdown(), with forceShutdown() after {grace} s",
            )
        if stop.written != NEST_CLOSE:
            return self.stop_advice(stop.server, grace), self.stop_fix(grace)
        return (
            "set gracefulShutdown: true in the transport's options (NestJS 10 and later), so "
            "that closing lets the calls in flight end (tryShutdown)",
            "gracefulShutdown: true in the transport's options",
        )

    def no_sigterm_consequence(self) -> str:
        return (
            "Kubernetes stops pods with SIGTERM: a Node.js process with no handler for it "
            "exits at once (as PID 1, it ignores it until SIGKILL), and calls in flight are cut"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return (
            f"process.on('SIGTERM', () => {server}.tryShutdown(...)), with a timer that "
            f"calls {server}.forceShutdown() after {grace} s"
        )

    def sigterm_fix(self, server: str, grace: int) -> str:
        return (
            f"add process.on('SIGTERM', ...) before bindAsync(): {server}.tryShutdown(), "
            f"forceShutdown() after {grace} s, then process.exit(0) (review: other shutdown "
            "work)"
        )

    def exit_wait_advice(self, server: str, grace: int) -> str:
        return (
            f"exit once {server} has stopped: {server}.tryShutdown(() => process.exit(0)) "
            f"in the handler, with a timer that calls {server}.forceShutdown() after {grace} s"
        )

    def stop_call(self, server: str, grace: object) -> str:
        return f"{server}.forceShutdown()"

    def stop_advice(self, server: str, grace: int) -> str:
        return (
            f"call {server}.tryShutdown(), bounded by a timer that calls forceShutdown() "
            f"after {grace} s, so that calls finish on shutdown"
        )

    def stop_fix(self, grace: int) -> str:
        return f"tryShutdown(), with forceShutdown() after {grace} s"

    def health_check(self, implementation: str) -> str:
        return f"health check {implementation}()"

    def health_drain_advice(self) -> str:
        return "set every service NOT_SERVING in the health implementation on SIGTERM"

    def http2_setting(self) -> str:
        return "the http2 module"

    def http_pool_advice(self) -> str:
        return "give the agent's sockets a bounded life, or have the server close connections"

    # -- edits ---------------------------------------------------------------------------

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        return _option_edits(server.options, server.loc, pairs)

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        # a client takes its options third, after its target and credentials
        return _option_edits(channel.options, channel.loc, pairs)

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        """Before the statement that calls `bindAsync`, a SIGTERM handler that lets the
        calls in flight end (tryShutdown), bounded by a timer that aborts the rest
        (forceShutdown) after `grace` seconds, then ends the process."""
        if wait.how not in (NODE_WAIT, NICE_WAIT) or not set(server) <= set(_SIMPLE_NAME):
            return []
        # nice-grpc's server stops gracefully with shutdown(), a promise; grpc-js's with
        # tryShutdown(callback)
        drain = (
            f"{server}.shutdown().then(() => process.exit(0));"
            if wait.how == NICE_WAIT
            else f"{server}.tryShutdown(() => process.exit(0));"
        )
        code = "\n".join(
            [
                "process.on('SIGTERM', () => {",
                f"  setTimeout(() => {server}.forceShutdown(), {grace * 1000}).unref();",
                f"  {drain}",
                "});",
            ]
        )
        loc = wait.loc
        return [JsEdit(loc.path, loc.line, loc.column, "insert-statements", code)]

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        """`server.forceShutdown();` as the last statement of its block becomes
        tryShutdown, bounded by a timer that calls forceShutdown after `grace` seconds."""
        server = stop.server
        if stop.written == NEST_CLOSE or not set(server) <= set(_SIMPLE_NAME):
            return []  # NestJS stops it itself, in close(): its options say how
        drain = "shutdown()" if stop.written == NICE_FORCE else "tryShutdown(() => {})"
        code = "\n".join(
            [
                f"setTimeout(() => {server}.forceShutdown(), {grace * 1000}).unref();",
                f"{server}.{drain};",
            ]
        )
        loc = stop.loc
        return [JsEdit(loc.path, loc.line, loc.column, "replace-statement", code)]


DIALECT = JavaScriptDialect()
