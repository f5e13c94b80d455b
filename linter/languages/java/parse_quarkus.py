"""Quarkus's gRPC, as its extension builds it from a service's settings (the same
`application.properties` / `application.yaml` files parse_spring.py reads) where the code
makes no builder:

- a client channel for each `@GrpcClient("name")` (`io.quarkus.grpc`) a field or a
  parameter is injected with: its target the settings' `quarkus.grpc.clients.<name>.host`
  and `.port` (the environment's `QUARKUS_GRPC_CLIENTS_<NAME>_HOST` overriding them; the
  extension's defaults `localhost` and 9000), its policy `load-balancing-policy`
  (`pick_first` by default);
- the server that serves the project's `@GrpcService` classes: on the HTTP server's port
  (`quarkus.http.port`, 8080 by default) when `quarkus.grpc.server.use-separate-server`
  is false, else on `quarkus.grpc.server.port` (9000). Quarkus has no setting for a
  maximum connection age: only a `ServerBuilderCustomizer` bean sets one, and the project
  that has one may (parse_spring.settle leaves its options incomplete). The server is
  parse_spring's: a starter of its table (`STARTERS`), found by the annotation
  (java/parse.py)."""

from __future__ import annotations

from k8slb.code.facts import Channel, Loc, Option, Options, Setting, joined
from k8slb.core import regex
from k8slb.languages.java.parse_spring import environment_name, normalised

PACKAGE = b"io.quarkus.grpc"
CLIENTS = "quarkus.grpc.clients"
DEFAULT_HOST, DEFAULT_PORT = "localhost", "9000"  # the extension's client defaults

# `@GrpcClient("name")` (or `value = "name"`), or a bare `@GrpcClient` before the type and
# name it is injected into, whose name is then the client's
_CLIENT = regex.compile(
    r'@(?:io\.quarkus\.grpc\.)?GrpcClient\b[ \t]*(?:\([ \t]*(?:value[ \t]*=[ \t]*)?"([^"\n]*)"'
    r"[ \t]*\)|(?:[ \t\r\n]+(?:final[ \t\r\n]+)?[\w.]+(?:<[^<>\n]*>)?[ \t\r\n]+(\w+)))"
)


def quarkus_channels(path: str, data: bytes) -> list[Channel]:
    """A channel for each `@GrpcClient` of a file that imports Quarkus's gRPC package (or
    names the annotation in full), at the annotation; its target and policy are the
    project's settings (`Setting`s, resolved once every file is read: imported.py)."""
    text = data.decode("utf-8", "replace")
    imported = b"import " + PACKAGE + b"." in data
    found: list[Channel] = []
    for match in _CLIENT.finditer(text):
        written = match.group(0).startswith("@io.quarkus.grpc.")
        name = match.group(1) or match.group(2)
        if not (imported or written) or not name:
            continue
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        loc = Loc(path, line, column)
        prefix = f"{CLIENTS}.{name}"
        host = _setting(f"{prefix}.host", DEFAULT_HOST)
        target = joined([host, ":", _setting(f"{prefix}.port", DEFAULT_PORT)])
        policy = _setting(f"{prefix}.load-balancing-policy", "pick_first")
        options = Options(True, (Option("grpc.lb_policy_name", policy, loc),))
        found.append(Channel(loc, f"Quarkus's @GrpcClient({name!r})", target, options, True))
    return found


def _setting(key: str, default: str) -> Setting:
    return Setting("spring", normalised(key), environment_name(key), default)
