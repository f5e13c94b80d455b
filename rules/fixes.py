"""Edits that several rules make: adding gRPC options to a call, in Python and in Go."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import Channel, Loc, Options, Server, Wait
from k8slb.core.edits import GoEdit, PythonEdit
from k8slb.rules import wording


def add_options(call: Loc, options: Options, pairs: Sequence[tuple[str, Any]]) -> list[PythonEdit]:
    """Add (key, value) options: into the literal that holds the call's options, or as a
    new `options=[...]` argument; nothing when the options are not a literal."""
    if options.literal is not None:
        where = options.literal
    elif not options.given:
        where = call
    else:
        return []
    return [PythonEdit(where.path, where.line, where.column, "add-options", tuple(pairs))]


GRPC_PACKAGES = (
    ("grpc", "google.golang.org/grpc"),
    ("keepalive", "google.golang.org/grpc/keepalive"),
    ("time", "time"),
)


def _go_field(key: str, milliseconds: int) -> str:
    """`MaxConnectionAge: 5 * {time}.Minute`: the field, its package left to the file."""
    return wording.option_value("go", key, milliseconds).replace("time.", "{time}.")


def go_keepalive(server: Server, pairs: Sequence[tuple[str, int]]) -> list[GoEdit]:
    """Go: the fields added to the server's one `keepalive.ServerParameters` literal, or a
    `grpc.KeepaliveParams(...)` argument when it has none. Nothing when its options are not
    all known: a second KeepaliveParams would replace the first one's settings."""
    if not server.options.complete:
        return []
    fields = [_go_field(key, value) for key, value in pairs]
    if server.options.literal is not None:
        where = server.options.literal
        return [
            GoEdit(
                where.path, where.line, where.column, "add-fields", "\n".join(fields), GRPC_PACKAGES
            )
        ]
    if server.options.entries:  # set in more than one ServerParameters literal
        return []
    code = "{grpc}.KeepaliveParams({keepalive}.ServerParameters{" + ", ".join(fields) + "})"
    loc = server.loc
    return [GoEdit(loc.path, loc.line, loc.column, "add-argument", code, GRPC_PACKAGES)]


SIGNAL_PACKAGES = (
    ("os", "os"),
    ("signal", "os/signal"),
    ("syscall", "syscall"),
    ("time", "time"),
)


def go_sigterm_handler(wait: Wait, server: str, grace: int) -> list[GoEdit]:
    """Go: before `server.Serve(lis)`, a goroutine that waits for SIGTERM and then stops
    the server gracefully, with a timer that stops it outright after `grace` seconds
    (GracefulStop waits for every stream, a watch or a stream that never ends included)."""
    if server == "sigterm" or not all(part.isidentifier() for part in server.split(".")):
        return []  # an expression, or the name the goroutine uses
    lines = [
        "go func() {",
        "\tsigterm := make(chan {os}.Signal, 1)",
        "\t{signal}.Notify(sigterm, {syscall}.SIGTERM)",
        "\t<-sigterm",
        f"\t{{time}}.AfterFunc({grace}*{{time}}.Second, {server}.Stop)",
        f"\t{server}.GracefulStop()",
        "}()",
    ]
    loc = wait.loc
    return [
        GoEdit(
            loc.path, loc.line, loc.column, "insert-statements", "\n".join(lines), SIGNAL_PACKAGES
        )
    ]


def go_dial_option(channel: Channel, code: str) -> list[GoEdit]:
    """Go: a dial option added as the channel call's last argument (`{grpc}.With...`)."""
    if not channel.options.complete:
        return []
    loc = channel.loc
    return [GoEdit(loc.path, loc.line, loc.column, "add-argument", code, GRPC_PACKAGES[:1])]


def add_server_options(
    language: str, server: Server, pairs: Sequence[tuple[str, int]]
) -> list[PythonEdit | GoEdit]:
    """The edits that give a server these options, in its language."""
    if language == "go":
        return list(go_keepalive(server, pairs))
    return list(add_options(server.loc, server.options, pairs))


def add_channel_options(
    language: str, channel: Channel, pairs: Sequence[tuple[str, Any]]
) -> list[PythonEdit | GoEdit]:
    """The edits that give a channel these options (in Go: the service config only)."""
    if language != "go":
        return list(add_options(channel.loc, channel.options, pairs))
    edits: list[PythonEdit | GoEdit] = []
    for key, value in pairs:
        if key != "grpc.service_config" or "`" in str(value):
            return []
        edits += go_dial_option(channel, "{grpc}.WithDefaultServiceConfig(`" + str(value) + "`)")
    return edits
