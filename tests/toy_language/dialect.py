"""Dial's words, and its two edits: a new target, and the round_robin word."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel
from k8slb.core.edits import CodeEdit
from k8slb.core.record import record
from k8slb.model.grpc_options import SERVICE_CONFIG
from k8slb.rulekit.dialect import Dialect


@record
class DialEdit(CodeEdit):
    value: str = ""  # the new target (`set-target`); nothing for `round-robin`


class DialDialect(Dialect):
    def option(self, key: str) -> str:
        return "round_robin" if key == SERVICE_CONFIG else key

    def option_value(self, key: str, value: float) -> str:
        return f"{key} {value}"

    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        return f"say `age {age_ms}`"

    def no_sigterm_consequence(self) -> str:
        return "a dial program dies on SIGTERM"

    def sigterm_advice(self, server: str, grace: int) -> str:
        return f"say `on term stop {server}`"

    def sigterm_fix(self, server: str, grace: int) -> str:
        return "none"

    def stop_call(self, server: str, grace: object) -> str:
        return f"stop {server}"

    def stop_advice(self, server: str, grace: int) -> str:
        return f"say `stop {server} {grace}`"

    def stop_fix(self, grace: int) -> str:
        return "none"

    def health_drain_advice(self) -> str:
        return "say `health off` on SIGTERM"

    def http2_setting(self) -> str:
        return "h2"

    def http_pool_advice(self) -> str:
        return "say `pool age`"

    def set_target(self, channel: Channel, target: str) -> list[CodeEdit]:
        loc = channel.loc
        return [DialEdit(loc.path, loc.line, loc.column, "set-target", target)]

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        if [key for key, _ in pairs] != [SERVICE_CONFIG]:
            return []
        loc = channel.loc
        return [DialEdit(loc.path, loc.line, loc.column, "round-robin")]


DIALECT = DialDialect()
