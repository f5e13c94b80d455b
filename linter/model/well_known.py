"""Well-known server images: their gRPC ports (data/grpc_servers.json), and the
components whose callers do not go through their Service (data/unreached_components.json).
Tables of data, each entry with the place its facts are documented, so that a new server
is a line of data, not code."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from k8slb.record import record


@record
class KnownServer:
    server: str
    grpc_ports: tuple[int, ...]
    port_flags: tuple[str, ...]  # flags that move the gRPC port: `--grpc-port=8001`
    source: str


@cache
def known_servers() -> dict[str, KnownServer]:
    """The table, by image repository."""
    text = resources.files("k8slb").joinpath("data/grpc_servers.json").read_text("utf-8")
    table: dict[str, KnownServer] = {}
    for entry in json.loads(text)["servers"]:
        known = KnownServer(
            entry["server"],
            tuple(entry["grpc_ports"]),
            tuple(entry["port_flags"]),
            entry["source"],
        )
        for image in entry["images"]:
            table[image] = known
    return table


def grpc_ports(image: str, words: list[str]) -> dict[int, str]:
    """The ports a container of `image` serves gRPC on, with why: a port flag of its
    server among `words` (its command and args) moves the port from its default."""
    known = known_servers().get(image)
    if known is None:
        return {}
    moved: dict[int, str] = {}
    for number, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if flag in known.port_flags:
            value = value if equals else (words[number + 1] if number + 1 < len(words) else "")
            if value.isdigit():
                moved[int(value)] = f"{known.server} serves gRPC on the port {flag} names"
    if moved:
        return moved
    return {port: f"{known.server} serves gRPC on {port} by default" for port in known.grpc_ports}


@cache
def _unreached() -> dict[str, tuple[str, dict[str, str]]]:
    """(component flag, reason by its value) by image repository."""
    path = "data/unreached_components.json"
    text = resources.files("k8slb").joinpath(path).read_text("utf-8")
    table: dict[str, tuple[str, dict[str, str]]] = {}
    for entry in json.loads(text)["components"]:
        for image in entry["images"]:
            table[image] = (entry["flag"], entry["values"])
    return table


def unreached(image: str, words: list[str]) -> str | None:
    """Why a container of `image` run with `words` (its command and arguments) is not
    called through its Service, when it is a component the table knows; else None."""
    known = _unreached().get(image)
    if known is None:
        return None
    flag, reasons = known
    if not flag:
        return reasons.get("")
    for number, word in enumerate(words):
        name, equals, value = word.lstrip("-").partition("=")
        if "-" + name == flag or "--" + name == flag:
            value = value if equals else (words[number + 1] if number + 1 < len(words) else "")
            return reasons.get(value)
    return None
