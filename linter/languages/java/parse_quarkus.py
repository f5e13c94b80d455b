"""Quarkus's gRPC, as its extension builds it from a service's settings (the same
`application.properties` / `application.yaml` files parse_spring.py reads) where the code
makes no builder:

- a client channel for each `@GrpcClient("name")` (`io.quarkus.grpc`) a field or a
  parameter is injected with: its target the settings' `quarkus.grpc.clients.<name>.host`
  and `.port` (the environment's `QUARKUS_GRPC_CLIENTS_<NAME>_HOST` overriding them; the
  extension's defaults `localhost` and 9000), its policy `load-balancing-policy`
  (`pick_first` by default); one channel a name, at the settings key that gives its host
  where one does (`settings_channels`, kept by `settle`);
- the server that serves the project's `@GrpcService` classes: on the HTTP server's port
  (`quarkus.http.port`, 8080 by default) when `quarkus.grpc.server.use-separate-server`
  is false, else on `quarkus.grpc.server.port` (9000). Quarkus has no setting for a
  maximum connection age: only a `ServerBuilderCustomizer` bean sets one, and the project
  that has one may (parse_spring.settle leaves its options incomplete). The server is
  parse_spring's: a starter of its table (`STARTERS`), found by the annotation
  (java/parse.py);
- a connection pool for each datasource the settings give a JDBC (Agroal) or a reactive
  part (`quarkus.datasource.jdbc.*`, `quarkus.datasource.reactive.*`, a named one's
  `quarkus.datasource."name".jdbc.*`): neither pool retires a connection unless its
  `max-lifetime` is set (in a profile's settings too), and its URL is the `url` key,
  which the environment overrides (`QUARKUS_DATASOURCE_JDBC_URL`).

Settings files are Spring's and Quarkus's alike: `parse` and `settle` are parse_spring's,
with Quarkus's datasources added."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.code.facts import (
    UNKNOWN,
    Channel,
    CodeFacts,
    DbPool,
    EnvRef,
    Loc,
    Option,
    Options,
    Setting,
    joined,
)
from k8slb.languages import JVM
from k8slb.languages.java import parse_spring
from k8slb.languages.java.parse_spring import (
    LOCAL_PROFILES,
    PACKAGED_PROFILE,
    Written,
    client_annotations,
    duration_ms,
    environment_name,
    normalised,
    profiled,
    read_settings,
)
from k8slb.reading.java_builds import GrpcJavaBuild
from k8slb.reading.markers import comment_markers, comment_pattern

PACKAGE = b"io.quarkus.grpc"
CLIENTS = "quarkus.grpc.clients"
DEFAULT_HOST, DEFAULT_PORT = "localhost", "9000"  # the extension's client defaults


CLIENT = "Quarkus's @GrpcClient"  # its channels' name, before the client's


def quarkus_channels(path: str, data: bytes) -> list[Channel]:
    """A channel for each `@GrpcClient` of a file that imports Quarkus's gRPC package (or
    names the annotation in full), at the annotation; its target and policy are the
    project's settings (`Setting`s, resolved once every file is read: imported.py)."""
    return [_client(name, loc) for name, loc in client_annotations(path, data, PACKAGE.decode())]


def _client(name: str, loc: Loc) -> Channel:
    prefix = f"{CLIENTS}.{name}"
    host = _setting(f"{prefix}.host", DEFAULT_HOST)
    target = joined([host, ":", _setting(f"{prefix}.port", DEFAULT_PORT)])
    policy = _setting(f"{prefix}.load-balancing-policy", "pick_first")
    options = Options(True, (Option("grpc.lb_policy_name", policy, loc),))
    return Channel(loc, f"{CLIENT}({name!r})", target, options, True)


def settings_channels(settings: list[Written]) -> list[Channel]:
    """A channel for each client whose host a settings file gives (the key a pod reads:
    `prod`'s profile, else every profile's, else another profile a deployment may run; not
    dev mode's nor the tests'), at that key: the channel the code's `@GrpcClient` of that
    name is given (`settle` keeps it where the project's code injects the name)."""
    hosts: dict[str, tuple[int, str, Loc]] = {}  # client (normalised) -> (rank, name, where)
    for key, _, loc in settings:
        profiles, bare = profiled(key)
        name = _client_name(bare, "host")
        if name is None or (profiles and profiles <= LOCAL_PROFILES):
            continue
        rank = 0 if PACKAGED_PROFILE in profiles else 2 if profiles else 1
        if normalised(name) not in hosts or rank < hosts[normalised(name)][0]:
            hosts[normalised(name)] = (rank, name, loc)
    return [_client(name, loc) for _, name, loc in hosts.values()]


def _client_name(key: str, setting: str) -> str | None:
    """The client a `quarkus.grpc.clients.<name>.<setting>` key configures (a quoted name,
    `"hello.service"`, without its quotes); None for another key."""
    if not key.startswith(f"{CLIENTS}.") or not key.endswith(f".{setting}"):
        return None
    name = key[len(CLIENTS) + 1 : -len(setting) - 1]
    if len(name) > 2 and name[0] == name[-1] == '"':
        return name[1:-1] if '"' not in name[1:-1] else None
    return name if name and "." not in name and '"' not in name else None


def _setting(key: str, default: str) -> Setting:
    return Setting("spring", normalised(key), environment_name(key), default)


DATASOURCE = "quarkus.datasource"
# a pool's kind -> how the message names it
POOLS = {"jdbc": "Quarkus JDBC (Agroal)", "reactive": "Quarkus reactive datasource"}
_URL_PREFIXES = ("jdbc:", "vertx-reactive:")  # before the URL the address is read from


def parse(path: str, data: bytes) -> CodeFacts:
    """A settings file's facts (parse_spring.parse), and the datasource pools it gives."""
    facts = parse_spring.parse(path, data)
    clients = b"clients" in data and b"host" in data  # every client's key holds both
    if b"datasource" in data or clients:  # every key read holds it
        text = data.decode("utf-8", "replace")
        settings = read_settings(path, text)[0]
        facts.db_pools = datasource_pools(settings) if b"datasource" in data else []
        facts.channels += settings_channels(settings) if clients else []
        facts.deferred = facts.deferred or bool(facts.channels)  # their `Setting`s
        if (facts.db_pools or facts.channels) and not facts.markers:
            facts.markers = comment_markers(path, text, comment_pattern("#"))
    return facts


def datasource_pools(settings: list[Written]) -> list[DbPool]:
    """A pool for each datasource and kind the settings name (for every profile, or one a
    cluster may run: not only `%dev` and `%test`), at its first key; its lifetime the
    `max-lifetime` of its kind, the base settings' else a profile's (`%prod.`)."""
    first: dict[tuple[str, str], Loc] = {}
    values: dict[str, Any] = {}
    for key, value, loc in settings:
        profile, bare = _profiled(key)
        if profile and set(profile.split(",")) <= LOCAL_PROFILES:
            continue  # Quarkus's dev mode and tests: not what a pod runs
        lowered = normalised(bare)
        if not profile:
            values.setdefault(lowered, value)
        elif lowered.endswith(".maxlifetime"):
            values.setdefault(f"%.{lowered}", value)  # a profile's lifetime counts too
        part = _datasource_part(lowered)
        if part is not None and part[1] in POOLS:
            first.setdefault(part, loc)
    found = []
    for (name, kind), loc in first.items():
        if str(values.get(_key(name, kind, ""), "")).strip().lower() == "false":
            continue  # `quarkus.datasource.jdbc=false`: that pool is off
        lifetime_key = _key(name, kind, "max-lifetime")
        lifetime = values.get(normalised(lifetime_key), values.get(f"%.{normalised(lifetime_key)}"))
        found.append(
            DbPool(
                loc=loc,
                factory=POOLS[kind],
                long_lived=True,
                url=_url(_key(name, kind, "url"), values.get(normalised(_key(name, kind, "url")))),
                lifetime=None if lifetime is None else duration_ms(lifetime),
                lifetime_arg=lifetime_key,
            )
        )
    return found


def _profiled(key: str) -> tuple[str, str]:
    """(the profile, the key) of `%prod.quarkus.x`; ("", key) for a key of every profile."""
    if not key.startswith("%"):
        return "", key
    profile, _, bare = key[1:].partition(".")
    return profile, bare


def _datasource_part(key: str) -> tuple[str, str] | None:
    """(datasource name, the part after it) of a normalised `quarkus.datasource.` key: ""
    for the default datasource, the quoted name of a named one."""
    if not key.startswith(DATASOURCE + "."):
        return None
    rest = key[len(DATASOURCE) + 1 :]
    name = ""
    if rest.startswith('"'):
        name, quote, rest = rest[1:].partition('"')
        if not quote:
            return None
        rest = rest.lstrip(".")
    return name, rest.split(".", 1)[0]


def _key(name: str, kind: str, setting: str) -> str:
    named = f'{DATASOURCE}."{name}"' if name else DATASOURCE
    return ".".join(part for part in (named, kind, setting) if part)


def _url(key: str, value: Any) -> Any:
    """The pool's URL, with its JDBC or Vert.x prefix cut: the key's environment variable
    with the file's value (or no value) as its default."""
    text = parse_spring.setting_text(value) if value is not None else None
    if isinstance(text, EnvRef):
        return replace(text, prefix=_cut(text.prefix))
    default = _cut(text) if isinstance(text, str) else None if text is None else UNKNOWN
    # a named datasource's quotes are underscores too: QUARKUS_DATASOURCE__USERS__JDBC_URL
    return EnvRef(environment_name(key.replace('"', "_")), default)


def _cut(text: str) -> str:
    for prefix in _URL_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return text


def settle(
    modules: Sequence[CodeFacts], builds: Mapping[str, Sequence[GrpcJavaBuild]] | None = None
) -> None:
    """parse_spring's settling, and each datasource pool's lifetime where another settings
    file of its project (a profile's) sets it."""
    parse_spring.settle(modules, builds)
    settings = [m for m in modules if m.language == "spring"]
    _one_channel_per_client(modules, settings)
    for module in settings:
        if not module.db_pools:
            continue
        others = [m for m in settings if m.project == module.project and m is not module]
        module.db_pools = [
            replace(pool, lifetime=UNKNOWN)
            if pool.lifetime is None
            and any(normalised(pool.lifetime_arg) in other.exports for other in others)
            else pool
            for pool in module.db_pools
        ]


def _one_channel_per_client(modules: Sequence[CodeFacts], settings: list[CodeFacts]) -> None:
    """Quarkus makes one channel for each client name, a bean every class that injects the
    name is given: the channel at the key of a settings file of the project that gives
    its host (the first file, the base settings first), else at the first annotation (by
    path and line), the other places told with it. A settings file's client no code of
    its project injects is no channel. A client whose `name-resolver` is not `dns` (`stork`:
    the host is a Stork service, whose instances Stork picks from at each call) or that
    enables xDS dials no DNS name: its target is then the resolver's, which names no
    Service."""
    injected: dict[tuple[str, str], list[tuple[CodeFacts, Channel]]] = defaultdict(list)
    given: dict[tuple[str, str], list[tuple[CodeFacts, Channel]]] = defaultdict(list)
    for module in modules:
        if module.language not in (*JVM, "spring"):
            continue
        for channel in module.channels:
            if channel.factory.startswith(CLIENT):
                places = given if module.language == "spring" else injected
                name = normalised(channel.factory[len(CLIENT) + 2 : -2])
                places[(module.project, name)].append((module, channel))
    gone: set[int] = set()  # the channels another one stands for
    kept: dict[int, Channel] = {}  # (a kept channel's id) -> the channel it becomes
    for key in {**given, **injected}:
        code = sorted(injected.get(key, []), key=lambda p: (p[1].loc.path, p[1].loc.line))
        files = sorted(given.get(key, []), key=lambda place: parse_spring.base_first(place[0]))
        gone.update(id(channel) for _, channel in [*code, *files])
        if not code:
            continue  # no class injects it: Quarkus makes no channel
        first = files[0][1] if files else code[0][1]
        also = tuple(channel.loc for _, channel in code if channel is not first)
        target = _resolved_by(settings, key, first.target)
        kept[id(first)] = replace(first, factory=code[0][1].factory, also=also, target=target)
        gone.discard(id(first))
    for module in modules:
        if any(id(c) in gone or id(c) in kept for c in module.channels):
            module.channels = [  # a new list: the module is the resolved copy (deferred)
                kept.get(id(c), c) for c in module.channels if id(c) not in gone
            ]


def _resolved_by(settings: list[CodeFacts], key: tuple[str, str], target: Any) -> Any:
    """The target with the scheme of the client's name resolver when the project's
    settings name one other than DNS (`stork://inventory:9000`), or enable xDS; unknown
    when they disagree."""
    project, name = key
    prefix = normalised(f"{CLIENTS}.{name}")
    files = [m for m in settings if m.project == project]
    resolvers = {m.exports.get(f"{prefix}.nameresolver", "dns") for m in files}
    xds = {m.exports.get(f"{prefix}.xds.enabled", "false") for m in files}
    if len(resolvers) > 1 or len(xds) > 1 or not all(isinstance(v, str) for v in resolvers | xds):
        return UNKNOWN  # profiles that disagree, or the environment's choice
    resolver = str(next(iter(resolvers), "dns")).strip().lower()
    if str(next(iter(xds), "false")).strip().lower() == "true":
        resolver = "xds"
    return target if resolver == "dns" else joined([f"{resolver}://", target])
