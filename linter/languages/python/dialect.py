"""Python's words for the code rules, and the edits that fix Python (grpcio's options,
signal handlers, `stop(grace)`), made by languages/python/edit.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Loc, Options, Server, Stop, Wait
from k8slb.core.edits import CodeEdit, PythonEdit
from k8slb.model.grpc_options import MAX_AGE_GRACE
from k8slb.rulekit.dialect import Dialect


def add_options(call: Loc, options: Options, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
    """Add (key, value) options: into the literal that holds the call's options, or as a
    new `options=[...]` argument; nothing when the options are not a literal."""
    if options.literal is not None:
        where = options.literal
    elif not options.given:
        where = call
    else:
        return []
    return [PythonEdit(where.path, where.line, where.column, "add-options", tuple(pairs))]


class PythonDialect(Dialect):
    def option(self, key: str) -> str:
        return key

    def option_value(self, key: str, value: float) -> str:
        return f"{key} = {value}"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return f"add it (e.g. {age_ms}) with {MAX_AGE_GRACE}"

    def no_sigterm_consequence(self) -> str:
        return (
            "Kubernetes stops pods with SIGTERM, which Python as PID 1 ignores until SIGKILL, "
            "so calls in flight are cut"
        )

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"add signal.signal(signal.SIGTERM, lambda *_: {server}.stop(grace={grace}))"

    def sigterm_fix(self, server: str, grace: int) -> str:
        return (
            f"add a SIGTERM handler: {server}.stop(grace={grace}) (review: other shutdown "
            "work, and that the server runs in the main thread)"
        )

    def stop_call(self, server: str, grace: object) -> str:
        return f"{server}.stop({grace})"

    def stop_advice(self, server: str, grace: int) -> str:
        return f"give it a grace period (e.g. stop(grace={grace})) so that calls finish on shutdown"

    def stop_fix(self, grace: int) -> str:
        return f"stop({grace}): review that it fits the pod's grace period"

    def health_drain_advice(self) -> str:
        return "call enter_graceful_shutdown() on SIGTERM"

    def http2_setting(self) -> str:
        return "http2=True"

    def http_pool_advice(self) -> str:
        return "have the server close connections now and then, or recreate the client"

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        return add_options(server.loc, server.options, pairs)

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        if channel.made_in:
            return []  # made by another module's function: its options are all its callers'
        return add_options(channel.loc, channel.options, pairs)

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        if wait.how != "wait_for_termination()":
            return []
        loc = wait.loc
        handler = (server, wait.awaited, grace)
        return [PythonEdit(loc.path, loc.line, loc.column, "add-sigterm-handler", handler)]

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        loc = stop.loc
        return [PythonEdit(loc.path, loc.line, loc.column, "set-argument", (0, "grace", grace))]

    def set_target(self, channel: Channel, target: str) -> list[CodeEdit]:
        if channel.target_argument is None:
            return []
        loc = channel.loc
        value = (*channel.target_argument, target)
        return [PythonEdit(loc.path, loc.line, loc.column, "set-argument", value)]

    def set_value(self, loc: Loc, value: Any) -> list[CodeEdit]:
        return [PythonEdit(loc.path, loc.line, loc.column, "set-pair-value", value)]


DIALECT = PythonDialect()
