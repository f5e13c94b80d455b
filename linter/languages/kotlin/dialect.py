"""Kotlin's words for the code rules: grpc-java's, as a Kotlin service calls them (the
builders' methods, durations as `(5, TimeUnit.MINUTES)`, a shutdown hook written
`Thread { ... }`). No edits: Java's do not carry over to Kotlin's syntax exactly (a
lambda's form, statements without `;`, `try` as an expression, imports), so every fix is
refused and the advice says what to write."""

from __future__ import annotations

from k8slb.languages.java.dialect import JavaDialect
from k8slb.rulekit.dialect import Dialect


class KotlinDialect(JavaDialect):
    def sigterm_advice(self, server: str, grace: int) -> str:
        return (
            f"Runtime.getRuntime().addShutdownHook(Thread {{ ... }}) with a lambda that calls "
            f"{server}.shutdown(), {server}.awaitTermination({grace}, TimeUnit.SECONDS), "
            f"then {server}.shutdownNow()"
        )

    # Java's edits do not carry over to Kotlin: the framework's own, which make none
    server_options = Dialect.server_options
    channel_options = Dialect.channel_options
    sigterm_handler = Dialect.sigterm_handler
    graceful_stop = Dialect.graceful_stop


DIALECT = KotlinDialect()
