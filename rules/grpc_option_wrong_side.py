from __future__ import annotations

from collections.abc import Iterator

from k8slb.code.facts import Options
from k8slb.core.findings import Finding, Severity
from k8slb.model.grpc_options import CLIENT_ONLY, KNOWN_KEYS, OPEN_PREFIXES, SERVER_ONLY, nearest
from k8slb.rulekit.base import Context, Example, Rule, judged_where_it_runs

_CLIENT = """\
import grpc

channel = grpc.insecure_channel(
    "backend:50051",
    options=[("grpc.max_connection_age_ms", 300_000)],
)
"""
_SERVER = """\
from concurrent import futures

import grpc

server = grpc.server(
    futures.ThreadPoolExecutor(max_workers=8),
    options=[("grpc.max_connection_age", 300_000)],
)
"""


class GrpcOptionWrongSide(Rule):
    """A gRPC option that has no effect where it is set.

    ## What it does
    Checks the option keys of every gRPC channel and server: a server-only option on a
    channel (`grpc.max_connection_age_ms`, `grpc.max_connection_age_grace_ms`,
    `grpc.max_connection_idle_ms`, the ping-enforcement options...), a client-only option
    on a server (`grpc.lb_policy_name`, `grpc.service_config`, `grpc.enable_retries`,
    reconnect backoffs...), and a `grpc.*` key that is not a channel argument gRPC knows,
    usually a typo (`grpc.max_connection_age` without `_ms`), with the nearest known key.
    Keys under `grpc.experimental.`, `grpc.internal.` and `grpc.testing.` are left alone.

    ## Why it matters
    gRPC ignores all of these without a word: the setting someone wrote to bound
    connection age, or to balance calls, does nothing, and traffic stays pinned.

    ## Fix
    Move the option to the side it acts on (connection age belongs on the server,
    balancing on the channel), or correct the key.

    ## Other linters
    No other linter reads gRPC options.
    """

    id = "KLB109"
    name = "grpc-option-wrong-side"
    severity = Severity.WARNING
    examples = (
        Example(_CLIENT, language="python", title="a server option on a channel", at=(5, 14)),
        Example(_SERVER, language="python", title="a misspelt key", at=(7, 14)),
        Example(
            _SERVER.replace("max_connection_age", "max_connection_age_ms"),
            findings=0,
            language="python",
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            for channel in facts.channels:
                yield from self._check(channel.options, "channel", SERVER_ONLY, "server")
            for server in facts.servers:
                yield from self._check(server.options, "server", CLIENT_ONLY, "channel")

    def _check(
        self, options: Options, here: str, wrong: frozenset[str], there: str
    ) -> Iterator[Finding]:
        for option in options.entries:
            key = option.key
            if key in wrong:
                yield self.code_finding(
                    option.loc,
                    (f"{key} acts only on a {there}", f"on a {here} gRPC ignores it"),
                )
            elif (
                key.startswith("grpc.")
                and key not in KNOWN_KEYS
                and not key.startswith(OPEN_PREFIXES)
            ):
                hint = nearest(key, KNOWN_KEYS)
                yield self.code_finding(
                    option.loc,
                    (
                        f"{key} is no option gRPC knows, so it is ignored",
                        *([f"did you mean {hint}?"] if hint else []),
                    ),
                )
