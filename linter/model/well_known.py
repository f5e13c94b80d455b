"""Well-known server images: their gRPC ports (data/grpc_servers.json), and the
components whose callers do not go through their Service (data/unreached_components.json).
Tables of data, each entry with the place its facts are documented, so that a new server
is a line of data, not code."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from functools import cache
from importlib import resources
from typing import Any

from k8slb.core.record import record


@record
class KnownServer:
    server: str
    grpc_ports: tuple[int, ...]
    port_flags: tuple[str, ...]  # flags that move the gRPC port: `--grpc-port=8001`
    source: str
    # how the system's own components reach the port, when only they call it ("" if not)
    internal: str = ""


def _entries(name: str, key: str) -> list[dict[str, Any]]:
    """The entries of one of the data tables."""
    text = resources.files("k8slb").joinpath(f"data/{name}").read_text("utf-8")
    entries: list[dict[str, Any]] = json.loads(text)[key]
    return entries


def _flag_values(words: list[str], flags: Collection[str]) -> Iterator[tuple[str, str]]:
    """(flag, value) for each of `flags` among a command line's words, written
    `-flag=value` or `-flag value` (one dash or two: Go's flag package takes both)."""
    for number, word in enumerate(words):
        name, equals, value = word.partition("=")
        spelled = {name, "-" + name.lstrip("-"), "--" + name.lstrip("-")}
        flag = next((f for f in flags if f in spelled), None) if name.startswith("-") else None
        if flag is not None:
            yield flag, value if equals else (words[number + 1] if number + 1 < len(words) else "")


@cache
def known_servers() -> dict[str, KnownServer]:
    """The table, by image repository."""
    table: dict[str, KnownServer] = {}
    for entry in _entries("grpc_servers.json", "servers"):
        known = KnownServer(
            entry["server"],
            tuple(entry["grpc_ports"]),
            tuple(entry["port_flags"]),
            entry["source"],
            entry.get("internal", ""),
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
    moved = {
        int(value): f"{known.server} serves gRPC on the port {flag} names"
        for flag, value in _flag_values(words, known.port_flags)
        if value.isdigit()
    }
    if moved:
        return moved
    return {port: f"{known.server} serves gRPC on {port} by default" for port in known.grpc_ports}


def internal_grpc(image: str, words: list[str], port: int) -> str | None:
    """Why gRPC calls to `port` of a container of `image` run with `words` do not come
    through a Service, when that port serves only the system's own components; else None."""
    known = known_servers().get(image)
    if known is None or not known.internal or port not in grpc_ports(image, words):
        return None
    return f"{known.server} serves gRPC on {port} for its own components: {known.internal}"


@cache
def _unreached() -> dict[str, tuple[str, dict[str, str]]]:
    """(component flag, reason by its value) by image repository."""
    table: dict[str, tuple[str, dict[str, str]]] = {}
    for entry in _entries("unreached_components.json", "components"):
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
    value = next((value for _, value in _flag_values(words, (flag,))), None)
    return reasons.get(value) if value is not None else None


@cache
def _self_checks() -> list[dict[str, Any]]:
    return _entries("self_checks.json", "checks")


def self_check(image: str, words: list[str], check: tuple[Any, ...]) -> str | None:
    """Why a probe's check (shared_probe's handler key: `("httpGet", path, ...)`,
    `("exec", words)`) of a container of `image` run with `words` reports only the
    process's own state, when the table knows it; else None."""
    for entry in _self_checks():
        if image not in entry["images"]:
            continue
        if "path" in entry and not (check[0] == "httpGet" and check[1] == entry["path"]):
            continue
        if "word" in entry and not (
            check[0] == "exec" and any(entry["word"] in str(part) for part in check[1])
        ):
            continue
        if entry.get("flag"):
            value = next((v for _, v in _flag_values(words, (entry["flag"],))), None)
            if value not in entry["values"]:
                continue
        return str(entry["reason"])
    return None


@cache
def _docker_library() -> frozenset[str]:
    text = resources.files("k8slb").joinpath("data/docker_library.json").read_text("utf-8")
    return frozenset(json.loads(text)["images"])


def docker_library(repository: str) -> bool:
    """Whether an image repository with no owner and no registry (`redis`, as
    image_repository gives `docker.io/library/redis:7`) is one of Docker Hub's official
    images, which Docker pulls when no build of the repository tags that name."""
    return "/" not in repository and repository in _docker_library()
