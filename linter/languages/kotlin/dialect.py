"""Kotlin's words for the code rules: grpc-java's, as a Kotlin service calls them (the
builders' methods, durations as `(5, TimeUnit.MINUTES)`, a shutdown hook written
`Thread { ... }`). No edits: Java's do not carry over to Kotlin's syntax exactly (a
lambda's form, statements without `;`, `try` as an expression, imports), so every fix is
refused and the advice says what to write."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Server, Stop, Wait
from k8slb.core.edits import CodeEdit
from k8slb.languages.java.dialect import JavaDialect


class KotlinDialect(JavaDialect):
    def sigterm_advice(self, server: str, grace: int) -> str:
        return (
            f"Runtime.getRuntime().addShutdownHook(Thread {{ ... }}) with a lambda that calls "
            f"{server}.shutdown(), {server}.awaitTermination({grace}, TimeUnit.SECONDS), "
            f"then {server}.shutdownNow()"
        )

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        return []

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        return []

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        return []

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        return []


DIALECT = KotlinDialect()
