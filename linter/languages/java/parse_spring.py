"""Spring Boot settings -> `CodeFacts`: the gRPC servers and channels that
grpc-spring-boot-starter (`grpc.server.*`, `grpc.client.<name>.*`) and Spring gRPC
(`spring.grpc.server.*`, `spring.grpc.client.channels.<name>.*`) build from a service's
`application.properties` or `application.yml` (its profiles' too), where the code itself
makes no builder.

Keys are matched as Spring binds them (`max-connection-age`, `maxConnectionAge` and
`MAX_CONNECTION_AGE` are one key); durations as Spring reads them (`30s`, `5m`, `PT5M`, a
bare number in the property's own unit: seconds); `${NAME:default}` is an environment
value with its default. A server is known to exist when its settings name it (a port, an
address, any option), or when the project's code has a service class the starter serves
(`@GrpcService`; LogNet's starter, `@GRpcService`, with its `grpc.port` and
`grpc.netty-server.*`): it listens on the port they set, or the starter's default. A
client channel is known when it has an `address`. Both starters default a channel to
`round_robin`, so a channel whose settings name no policy has that one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.code.facts import (
    STARTER,
    UNKNOWN,
    Channel,
    CodeFacts,
    EnvRef,
    Listen,
    Loc,
    Option,
    Options,
    Registration,
    Server,
    Setting,
    Stop,
    joined,
)
from k8slb.core import regex
from k8slb.core.findings import Problem
from k8slb.languages import JVM
from k8slb.reading.java_builds import (
    DISCOVERY_STARTERS,
    SPRING_GRPC,
    GrpcJavaBuild,
    discovery_starters,
    grpc_starters,
    uses_grpc,
)
from k8slb.reading.markers import comment_markers, comment_pattern

# The settings' prefixes, by starter: where its server's and its channels' keys are.
SERVERS = ("grpc.server.", "spring.grpc.server.")
CHANNELS = ("grpc.client.", "spring.grpc.client.channels.")
MAX_AGE, MAX_AGE_GRACE = "grpc.max_connection_age_ms", "grpc.max_connection_age_grace_ms"
# A server setting (normalised) -> gRPC's core option, its value in milliseconds.
SERVER_OPTIONS = {
    "maxconnectionage": MAX_AGE,
    "maxconnectionagegrace": MAX_AGE_GRACE,
    "maxconnectionidle": "grpc.max_connection_idle_ms",
    "keepalivetime": "grpc.keepalive_time_ms",
    "keepalivetimeout": "grpc.keepalive_timeout_ms",
    # Spring gRPC groups them: spring.grpc.server.keep-alive.max-age
    "keepalive.maxage": MAX_AGE,
    "keepalive.maxagegrace": MAX_AGE_GRACE,
    "keepalive.maxidle": "grpc.max_connection_idle_ms",
    "keepalive.time": "grpc.keepalive_time_ms",
    "keepalive.timeout": "grpc.keepalive_timeout_ms",
}
# LogNet's grpc-spring-boot-starter: its server's options (the same names, under another
# prefix), its port's key (`grpc.port`, or the options' `primary-listen-address`) and
# `grpc.enabled`.
LOGNET = "LogNet"
LOGNET_SERVER = "grpc.netty-server."
# The starter whose annotation marks a service class (java/parse.py) -> what its server is
# called in the facts, the setting of its port (normalised), and the port it listens on
# when no setting names one.
QUARKUS = "Quarkus"  # its gRPC extension's server (parse_quarkus.py reads its clients)
# SPRING_GRPC (java_builds', which tells it in a build): org.springframework.grpc's server,
# `spring.grpc.server.*`
STARTERS = {
    "grpc-spring-boot-starter": ("the starter's gRPC server", "grpc.server.port", "9090"),
    LOGNET: ("LogNet's gRPC server", "grpc.port", "6565"),
    QUARKUS: ("Quarkus's gRPC server", "quarkus.grpc.server.port", "9000"),
    SPRING_GRPC: ("Spring gRPC's server", "spring.grpc.server.port", "9090"),
}
# A starter whose gRPC is served on the HTTP server's port when a setting is false:
# Quarkus's `use-separate-server` (true by default), then on `quarkus.http.port`.
SHARED_PORT = {
    QUARKUS: ("quarkus.grpc.server.use-separate-server", "quarkus.http.port", "8080"),
}
STARTER_CLIENT = "the starter's @GrpcClient"  # its channels' name, before the client's
STARTER_POLICY = "round_robin"  # both starters' default, where gRPC's own is pick_first
_UNITS_MS = {
    "ns": 1e-6,
    "us": 1e-3,
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
}
_SIMPLE_DURATION = regex.compile(r"^(\d+)\s*(ns|us|ms|s|m|h|d)?$", regex.IGNORECASE)
_ISO_DURATION = regex.compile(
    r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$", regex.IGNORECASE
)
# `@GrpcClient("name")` (or `value = "name"`), or a bare `@GrpcClient` before the type and
# name it is injected into, whose name is then the client's (Quarkus's; the starter's
# annotation needs its name); the package when written in full
_CLIENT = regex.compile(
    r'@(?:([\w.]+)\.)?GrpcClient\b[ \t]*(?:\([ \t]*(?:value[ \t]*=[ \t]*)?"([^"\n]*)"'
    r"[ \t]*\)|(?:[ \t\r\n]+(?:final[ \t\r\n]+)?[\w.]+(?:<[^<>\n]*>)?[ \t\r\n]+(\w+)))"
)
STARTER_CLIENTS = "net.devh.boot.grpc.client.inject"  # the starter's @GrpcClient
_PLACEHOLDER = regex.compile(r"\$\{([^}:]+)(?::([^}]*))?\}")
# `key=value`, `key: value` or `key value` (RE2: a key of backslashes is linear, not 2^n)
_PROPERTY = regex.compile(r"^((?:\\.|[^=:\s])+)\s*[=:\s]\s*(.*)$")

Written = tuple[str, Any, Loc]  # a setting: its key as written (dotted), value, where


def parse(path: str, data: bytes) -> CodeFacts:
    """The servers and channels a settings file configures; a file that does not read
    gives a KLB004 problem."""
    facts = CodeFacts(path, "spring")
    text = data.decode("utf-8", "replace")
    settings, problem = read_settings(path, text)
    # every setting, for the code's `@Value("${key}")` (imported.py)
    facts.exports = exported(settings)
    if b"grpc" not in data:  # every key read holds it (a YAML file splits it over lines)
        return facts  # nor is it judged: a Maven `@placeholder@` makes a file no YAML
    facts.problem = problem
    _read(facts, settings)
    facts.markers = comment_markers(path, text, comment_pattern("#"))
    return facts


# Quarkus's profiles no pod runs: its dev mode's and its tests' (SmallRye Config's `%dev.`)
LOCAL_PROFILES = frozenset({"dev", "test"})
PACKAGED_PROFILE = "prod"  # the profile a packaged Quarkus application runs with


def exported(settings: list[Written]) -> dict[str, Any]:
    """Every setting by its normalised key. A key of Quarkus's profiles (`%prod.key`,
    `%prod,staging.key`: SmallRye Config's) is also the bare key's value where a pod runs
    it: `prod`'s, the packaged application's profile, over the key of every profile; a
    profile the deployment chooses (`QUARKUS_PROFILE`) that sets another value leaves
    the key unknown, as Spring's profile files do (imported.py); `dev` and `test` are
    no pod's."""
    found: dict[str, Any] = {}
    chosen: list[tuple[str, Any]] = []  # (bare key, value) of the deployment's profiles
    for key, value, _ in settings:
        found[normalised(key)] = setting_text(value)
    for key, value, _ in settings:
        profiles, bare = profiled(key)
        if not profiles or profiles <= LOCAL_PROFILES:
            continue
        if PACKAGED_PROFILE in profiles:
            found[normalised(bare)] = setting_text(value)
        else:
            chosen.append((normalised(bare), setting_text(value)))
    for bare, value in chosen:
        if found.get(bare, value) != value:
            found[bare] = UNKNOWN
        found.setdefault(bare, value)
    return found


def profiled(key: str) -> tuple[frozenset[str], str]:
    """(the profiles, the key) of Quarkus's `%prod,staging.quarkus.x`; no profile and the
    key for a key of every profile."""
    if not key.startswith("%"):
        return frozenset(), key
    profiles, _, bare = key[1:].partition(".")
    return frozenset(p.strip() for p in profiles.split(",")), bare


def read_settings(path: str, text: str) -> tuple[list[Written], Problem | None]:
    """Every setting of a `.properties` or YAML file, with where its key is written."""
    if path.lower().endswith((".yml", ".yaml")):
        return _yaml(path, text)
    return _properties(path, text), None


def settle(
    modules: Sequence[CodeFacts], builds: Mapping[str, Sequence[GrpcJavaBuild]] | None = None
) -> None:
    """A server one settings file makes may have its options set elsewhere: in another
    settings file of its project that sets a server option (a profile: which one runs is
    the deployment's choice), or in code (a GrpcServerConfigurer bean). There its options
    are incomplete: k8slb says nothing rather than guess; so are a profile's where the base
    settings make the server (it is theirs, judged there). A project whose code has a
    service class a starter serves, and whose settings name no server, runs the starter's
    server as its defaults make it. Settings make no server where the module's build has
    no gRPC library."""
    _unbuilt_servers(modules, builds or {})
    _spring_grpcs_by_build(modules, builds or {})
    registered_by_starters(modules, builds or {})
    _served_by_starters(modules)
    _unset_clients_only(modules)
    made = [m for m in modules if m.language == "spring" and m.servers]
    if not made:
        return
    elsewhere: dict[str, list[CodeFacts]] = {}  # what may set a server's options
    based: set[str] = set()  # the projects whose base settings make the server
    for module in modules:
        spring = module.language == "spring"
        if module.configures_servers or (spring and any(s.options.entries for s in module.servers)):
            elsewhere.setdefault(module.project, []).append(module)
        if spring and module.servers and base_first(module)[0] < 2:
            based.add(module.project)
    for module in made:
        others = [m for m in elsewhere.get(module.project, []) if m is not module]
        # a profile's server is the base settings' one where they make it: judged there
        if others or (base_first(module)[0] == 2 and module.project in based):
            module.servers = [
                replace(s, options=replace(s.options, complete=False)) for s in module.servers
            ]


def _unbuilt_servers(
    modules: Sequence[CodeFacts], builds: Mapping[str, Sequence[GrpcJavaBuild]]
) -> None:
    """A settings file's server keys (`grpc.server.port`) make no server where the module's
    build script (and those it inherits) names no gRPC dependency (keys left from a
    starter it no longer builds with), or names gRPC but no Spring Boot gRPC starter
    (grpc-java alone: the code builds its servers itself, and may read the same keys with
    `@Value` for a port of its own or a client's deadline); unless code of its project has
    a class a starter serves or a configurer of one. A module with no build script found
    keeps its server."""
    served = {
        module.project
        for module in modules
        if module.language in JVM and (module.starter_services or module.configures_servers)
    }
    for module in modules:
        if (
            module.language == "spring"
            and module.servers
            and module.project not in served
            and (
                (used := uses_grpc(module.path, builds)) is False
                or (used and not grpc_starters(module.path, builds))
            )
        ):
            module.servers, module.listens, module.stops = [], [], []


# The settings that keep a discovery starter from registering the application, by its
# registry (normalised): any of them set to anything but `true` (a placeholder the
# environment may fill too) and the registration is not known.
_ANY_REGISTRY = (
    "spring.cloud.discovery.enabled",
    "spring.cloud.serviceregistry.autoregistration.enabled",
)
REGISTRATION_SWITCHES = {
    "Eureka": ("eureka.client.enabled", "eureka.client.registerwitheureka"),
    "Consul": (
        "spring.cloud.consul.enabled",
        "spring.cloud.consul.discovery.enabled",
        "spring.cloud.consul.discovery.register",
    ),
    "ZooKeeper": (
        "spring.cloud.zookeeper.enabled",
        "spring.cloud.zookeeper.discovery.enabled",
        "spring.cloud.zookeeper.discovery.register",
    ),
    "Nacos": (
        "spring.cloud.nacos.discovery.enabled",
        "spring.cloud.nacos.discovery.registerenabled",
    ),
}


def registered_by_starters(
    modules: Sequence[CodeFacts], builds: Mapping[str, Sequence[GrpcJavaBuild]]
) -> None:
    """A Spring Cloud application whose build has a discovery client starter (Eureka's,
    Consul's, ZooKeeper's, Nacos's) registers itself in that registry when it starts, with
    no annotation: a registration made in its base settings file, where the build declares
    the starter. None where a settings file of the project (its base one or a profile's:
    which profile runs is the deployment's choice) turns registering off, or sets a switch
    to a value not known."""
    settings: dict[str, list[CodeFacts]] = defaultdict(list)
    for module in modules:
        if module.language == "spring":
            settings[module.project].append(module)
    for files in settings.values():
        base = min(files, key=base_first)
        for declared in discovery_starters(base.path, builds):
            registry = DISCOVERY_STARTERS[declared.text]
            switches = [normalised(key) for key in _ANY_REGISTRY + REGISTRATION_SWITCHES[registry]]
            if any(
                str(m.exports.get(key, "true")).strip().lower() != "true"
                for m in files
                for key in switches
            ):
                continue
            loc = Loc(declared.path, declared.line, 1)
            base.registrations = [
                *base.registrations,
                Registration(loc, registry, declared.text, ""),
            ]
            break


def _spring_grpcs_by_build(
    modules: Sequence[CodeFacts], builds: Mapping[str, Sequence[GrpcJavaBuild]]
) -> None:
    """A settings file with both starters' server keys (`grpc.server.port` and
    `spring.grpc.server.port`) serves with the one its module builds with: Spring gRPC's
    server where the build names Spring gRPC alone (read as net.devh's otherwise)."""
    devh, spring = STARTERS["grpc-spring-boot-starter"], STARTERS[SPRING_GRPC]
    old, new = devh[1].rpartition(".")[0], spring[1].rpartition(".")[0]
    for module in modules:
        if (
            module.language != "spring"
            or not any(s.factory == devh[0] for s in module.servers)
            or not any(key.startswith(normalised(new) + ".") for key in module.exports)
            or grpc_starters(module.path, builds) != {SPRING_GRPC}
        ):
            continue
        module.servers = [
            replace(s, factory=spring[0], name=new) if s.factory == devh[0] else s
            for s in module.servers
        ]
        module.listens = [replace(x, server=new) if x.server == old else x for x in module.listens]
        module.stops = [replace(x, server=new) if x.server == old else x for x in module.stops]


def _served_by_starters(modules: Sequence[CodeFacts]) -> None:
    """The starter's server of each project whose code has an annotated service class and
    whose settings files name none: made in its base settings file (`application.*`, the
    one every profile reads; else `bootstrap.*`, which Spring Cloud reads first; else a
    profile's: the server runs whatever the profile, its port then the starter's default or
    its environment variable's), where the finding is the annotation's."""
    served: dict[str, tuple[str, Loc]] = {}
    for module in modules:  # Java's only: another module's facts stay unloaded (parse_codec)
        for starter, loc in module.starter_services if module.language in JVM else ():
            served.setdefault(module.project, (starter, loc))
    if not served:
        return
    settings: dict[str, list[CodeFacts]] = defaultdict(list)
    for module in modules:
        if module.language == "spring" and module.project in served:
            settings[module.project].append(module)
    for project, (starter, loc) in served.items():
        files = settings.get(project, [])
        if not files or any(m.servers for m in files):
            continue  # no settings file to speak in, or the settings make the server
        base = min(files, key=base_first)
        exports = base.exports if base_first(base)[0] < 2 else {}
        if str(exports.get("grpc.enabled", "")).lower() == "false" and starter == LOGNET:
            continue
        factory, port_key, default_port = STARTERS[starter]
        if starter in SHARED_PORT:
            separate, shared_key, shared_default = SHARED_PORT[starter]
            if str(exports.get(normalised(separate), "")).strip().lower() == "false":
                port_key, default_port = shared_key, shared_default
        port = exports.get(port_key, default_port)
        if str(port).strip() in ("0", "-1"):
            continue  # a random port, or no server
        if isinstance(port, str):  # the key's environment variable still overrides it
            port = EnvRef(environment_name(port_key), port)
        name = port_key.rpartition(".")[0]
        base.servers.append(Server(loc, factory, Options(True, ()), name))
        base.listens.append(Listen(name, port, loc))


def _unset_clients_only(modules: Sequence[CodeFacts]) -> None:
    """The starter's `@GrpcClient` channels whose address no settings file of the project
    gives (resolved, the address is then the environment's alone, with no default): where
    one does, that file's channel is the client's (`_channel`), told there in its words.
    The starter makes one channel per client name, however many classes inject it: it is
    kept at its first place (by path and line), the others told with it."""
    injected: dict[tuple[str, str], list[tuple[CodeFacts, Channel]]] = defaultdict(list)
    for module in modules:
        if module.language in JVM and any(
            c.factory.startswith(STARTER_CLIENT) for c in module.channels
        ):
            module.channels = [  # a new list: the module is the resolved copy (deferred)
                c
                for c in module.channels
                if not c.factory.startswith(STARTER_CLIENT)
                or (isinstance(c.target, EnvRef) and c.target.default is None)
            ]
            for channel in module.channels:
                if channel.factory.startswith(STARTER_CLIENT):
                    injected[(module.project, channel.factory)].append((module, channel))
    for places in injected.values():
        if len(places) < 2:
            continue
        places.sort(key=lambda place: (place[1].loc.path, place[1].loc.line))
        (first_module, first), rest = places[0], places[1:]
        others = tuple(channel.loc for _, channel in rest)
        first_module.channels = [
            replace(c, also=others) if c is first else c for c in first_module.channels
        ]
        for module, channel in rest:
            module.channels = [c for c in module.channels if c is not channel]


def profile_of(path: str) -> str | None:
    """The profile a settings file is read for (`application-k8s.yml`: `k8s`); None for
    the base settings every profile reads."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    for base in ("application-", "bootstrap-"):
        if stem.startswith(base) and len(stem) > len(base):
            return stem[len(base) :]
    return None


def base_first(module: CodeFacts) -> tuple[int, str]:
    """A settings file's rank as the one every profile reads: `application.*`, then
    `bootstrap.*`, then a profile's (`application-prod.yml`); by path within a rank."""
    stem = module.path.rsplit("/", 1)[-1].split(".")[0]
    return (
        ("application", "bootstrap").index(stem) if stem in ("application", "bootstrap") else 2,
        module.path,
    )


def normalised(key: str) -> str:
    """A key as Spring's relaxed binding compares it: lower case, no dashes or
    underscores (a list index stays)."""
    return key.lower().replace("-", "").replace("_", "")


def _read(facts: CodeFacts, settings: list[Written]) -> None:
    server: list[Written] = []
    prefixes: set[str] = set()  # whose keys the server's settings are: which starter's
    ports: list[tuple[str, Any, Loc]] = []  # (its prefix, value, where) of a server's port
    lognet: list[Written] = []
    channels: dict[tuple[str, str], list[Written]] = {}
    for key, value, loc in settings:
        lowered = normalised(key)
        for prefix in SERVERS:
            if lowered.startswith(normalised(prefix)):
                server.append((lowered[len(normalised(prefix)) :], value, loc))
                prefixes.add(prefix)
                if lowered == normalised(f"{prefix}port"):
                    ports.append((prefix, value, loc))
        if lowered.startswith(normalised(LOGNET_SERVER)):
            lognet.append((lowered[len(normalised(LOGNET_SERVER)) :], value, loc))
        for prefix in CHANNELS:
            if lowered.startswith(normalised(prefix)):
                name, _, rest = lowered[len(normalised(prefix)) :].partition(".")
                channels.setdefault((prefix, name), []).append((rest, value, loc))
    if server and not any(k == "port" and str(v).strip() == "-1" for k, v, _ in server):
        # Spring gRPC's keys alone: its server, which reads no net.devh key (nor they its)
        starter = SPRING_GRPC if prefixes == {SERVERS[1]} else "grpc-spring-boot-starter"
        factory, port_key, _ = STARTERS[starter]
        made = _server(server, factory)
        facts.servers.append(replace(made, name=port_key.rpartition(".")[0]))
        facts.listens.append(_listen(ports, made.loc, port_key.rpartition(".")[0]))
        facts.stops += _stop(server, port_key.rpartition(".")[0])
    if lognet and str(facts.exports.get("grpc.enabled", "")).lower() != "false":
        facts.servers.append(_server(lognet, STARTERS[LOGNET][0]))
    shared = {
        k: (v, loc)
        for (prefix, name), items in channels.items()
        for k, v, loc in items
        if name == "global"
    }
    for (_, name), items in channels.items():
        if name == "global":
            continue
        channel = _channel(name, items, shared)
        if channel is not None:
            facts.channels.append(channel)


def client_annotations(path: str, data: bytes, package: str) -> list[tuple[str, Loc]]:
    """The client name and place of each `@GrpcClient` of `package` in a Java file that
    imports it (or names the annotation in full)."""
    text = data.decode("utf-8", "replace")
    imported = f"import {package}." in text
    found: list[tuple[str, Loc]] = []
    for match in _CLIENT.finditer(text):
        name = match.group(2) or match.group(3)
        if not (match.group(1) == package or (imported and match.group(1) is None)) or not name:
            continue
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        found.append((name, Loc(path, line, column)))
    return found


def starter_channels(path: str, data: bytes) -> list[Channel]:
    """A channel for each of the starter's `@GrpcClient("name")`s, at the annotation: to the
    `grpc.client.<name>.address` of the project's settings or, as Spring's relaxed binding
    reads it, the container's `GRPC_CLIENT_<NAME>_ADDRESS` (a `Setting`, resolved once every
    file is read). A settings file that gives the address makes the channel itself
    (`_channel`): then this one goes (`settle`)."""
    found: list[Channel] = []
    for name, loc in client_annotations(path, data, STARTER_CLIENTS):
        if name.strip() in ("", "global") or "${" in name:
            continue
        key = f"{CHANNELS[0]}{name}"
        address = Setting(
            "spring", normalised(f"{key}.address"), environment_name(f"{key}.address"), None
        )
        policy = Setting(
            "spring",
            normalised(f"{key}.default-load-balancing-policy"),
            environment_name(f"{key}.default-load-balancing-policy"),
            STARTER_POLICY,
        )
        options = Options(True, (Option("grpc.lb_policy_name", policy, loc),))
        found.append(
            Channel(loc, f"{STARTER_CLIENT}({name!r})", address, options, True, None, STARTER)
        )
    return found


def _server(settings: list[Written], factory: str) -> Server:
    entries = []
    for key, value, loc in settings:
        core = SERVER_OPTIONS.get(key)
        if core is not None:
            entries.append(Option(core, duration_ms(value), loc))
    first = settings[0][2]
    return Server(first, factory, Options(True, tuple(entries)), None)


def _listen(ports: list[tuple[str, Any, Loc]], first: Loc, name: str) -> Listen:
    """Where the starter's server of a settings file listens: the port it sets (the last
    one written), else the starter's default; the port's environment variable
    (`GRPC_SERVER_PORT`, relaxed binding) overrides a plain value, as it does the
    default."""
    prefix, value, loc = (
        ports[-1] if ports else (SERVERS[0], STARTERS["grpc-spring-boot-starter"][2], first)
    )
    port = setting_text(value)
    if isinstance(port, str):
        port = EnvRef(environment_name(f"{prefix}port"), port)
    return Listen(name, port, loc)


def _stop(settings: list[Written], server: str) -> list[Stop]:
    """How the starter stops its server on shutdown: `shutdown()`, then a wait of
    `shutdown-grace-period` (30 s by default; below 0, as long as calls run); 0 waits for
    nothing, and the calls in flight are cut."""
    return [
        Stop(loc, server, 0, False)
        for key, value, loc in settings
        if key == "shutdowngraceperiod" and duration_ms(value) == 0
    ]


def _channel(
    name: str, settings: list[Written], shared: dict[str, tuple[Any, Loc]]
) -> Channel | None:
    found = {key: (value, loc) for key, value, loc in settings}
    if "address" not in found:
        return None
    address, where = found["address"]
    target, scheme = _target(address)
    policy = found.get("defaultloadbalancingpolicy") or shared.get("defaultloadbalancingpolicy")
    value, loc = policy if policy is not None else (STARTER_POLICY, where)
    options = Options(True, (Option("grpc.lb_policy_name", setting_text(value), loc),))
    return Channel(where, f"the starter's channel {name!r}", target, options, True, None, scheme)


def _target(address: Any) -> tuple[Any, str]:
    """The channel's target and the scheme gRPC reads it with: `static://host:port` is
    the address as given (resolved once by the system), `dns:///host:port` every address
    of the name; other schemes (discovery, in-process, several static addresses) are
    unknown."""
    value = setting_text(address)
    if not isinstance(value, str | EnvRef):
        return UNKNOWN, "dns"
    text = value if isinstance(value, str) else value.prefix
    if isinstance(value, EnvRef) and not text:  # `${ADDRESS:static://localhost:50051}`
        return value, STARTER  # the scheme is the environment's (facts.STARTER)
    if text.startswith("static://") and "," not in str(address):
        return _cut(value, len("static://")), "passthrough"
    if text.startswith("dns:"):
        return value, "dns"
    return UNKNOWN, "dns"


def _cut(value: str | EnvRef, length: int) -> Any:
    if isinstance(value, str):
        return value[length:]
    return EnvRef(value.name, value.default, value.prefix[length:], value.suffix)


def setting_text(value: Any) -> Any:
    """A setting's text with its `${NAME:default}` placeholders as environment values
    (one at most; more are unknown)."""
    if isinstance(value, bool):  # YAML's `false`, which Spring reads as the text "false"
        return str(value).lower()
    if not isinstance(value, str):
        return str(value) if isinstance(value, int | float) else UNKNOWN
    return _placeholders(value, lambda name, default: EnvRef(environment_name(name), default))


def injected(text: str) -> Any:
    """What `@Value(text)` injects: each `${key:default}` a `Setting` of the project's
    settings files (their `exports`), the rest as written; an expression (`#{...}`) or a
    placeholder in a default is unknown."""
    if "#{" in text:
        return UNKNOWN

    def setting(key: str, default: str | None) -> Any:
        if default is not None and "${" in default:
            return UNKNOWN
        return Setting("spring", normalised(key), environment_name(key), default)

    return _placeholders(text, setting)


def _placeholders(text: str, placeholder: Callable[[str, str | None], Any]) -> Any:
    """The text with each `${name:default}` in it made a value by `placeholder`, joined
    with the text around it."""
    parts: list[Any] = []
    at = 0
    for match in _PLACEHOLDER.finditer(text):
        parts += [text[at : match.start()], placeholder(match.group(1), match.group(2))]
        at = match.end()
    parts = [part for part in [*parts, text[at:]] if part != ""]
    return parts[0] if len(parts) == 1 else joined(parts)


def environment_name(name: str) -> str:
    """The environment variable Spring binds a placeholder to (`backend.host` and
    `BACKEND_HOST` are one)."""
    return name.replace(".", "_").replace("-", "_").upper()


def quoted_key_form(variable: str, name: str) -> bool:
    """Whether `variable` is the environment form of Quarkus's key `name` with a map key
    quoted: SmallRye Config writes `quarkus.grpc.clients."arena".host` as
    `QUARKUS_GRPC_CLIENTS__ARENA__HOST`, each quote an underscore, and reads it as the
    client `arena`'s host (`QUARKUS_GRPC_CLIENTS_ARENA_HOST`). Asked of Quarkus's own
    keys only (`QUARKUS_`): elsewhere a double underscore is a nesting of its own
    (pydantic's `APP__DB__HOST`)."""
    return (
        variable.startswith("QUARKUS_")
        and name.startswith("QUARKUS_")
        and "__" in variable + name
        and variable.replace("__", "_") == name.replace("__", "_")
    )


def duration_ms(value: Any) -> Any:
    """A Spring duration in milliseconds (a bare number is in seconds, the starters'
    unit for these settings), or UNKNOWN."""
    text = str(value).strip() if isinstance(value, str | int | float) else ""
    simple = _SIMPLE_DURATION.match(text)
    if simple:
        return int(int(simple.group(1)) * _UNITS_MS[(simple.group(2) or "s").lower()])
    iso = _ISO_DURATION.match(text)
    if iso and text.upper() != "P" and not text.upper().endswith("T"):
        days, hours, minutes, seconds = (float(g) if g else 0.0 for g in iso.groups())
        return int(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000)
    return UNKNOWN


def _properties(path: str, text: str) -> list[Written]:
    """`key=value`, `key: value` or `key value` lines; `#` and `!` comments; a line that
    ends with a backslash goes on."""
    found: list[Written] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        start = number
        pieces = [lines[number].lstrip()]
        number += 1
        while pieces[-1].endswith("\\") and number < len(lines):  # joined once: linear
            pieces[-1] = pieces[-1][:-1]
            pieces.append(lines[number].lstrip())
            number += 1
        line = "".join(pieces)
        if not line or line.startswith(("#", "!")):
            continue
        match = _PROPERTY.match(line)
        key, value = (match.group(1), match.group(2).strip()) if match else (line, "")
        column = len(lines[start]) - len(lines[start].lstrip()) + 1
        found.append((key.replace("\\", ""), value, Loc(path, start + 1, column)))
    return found


def _yaml(path: str, text: str) -> tuple[list[Written], Problem | None]:
    """The scalars of every document, keyed by their dotted path (a list item by
    `[index]`), where their key is written; KLB001 at the first document that is not
    YAML (the others are still read)."""
    from k8slb.reading.yamlcompose import compose
    from k8slb.reading.yamltree import YMap, YSeq

    composed = compose(text)
    problem = None
    if composed.problems:
        index, error = composed.problems[0]
        message = f"document {index} is not valid YAML: {error.message}"
        problem = Problem("KLB001", path, error.line, error.column, message)
    found: list[Written] = []

    def flatten(node: Any, prefix: str, loc: Loc) -> None:
        if isinstance(node, YMap):
            for key, value in node.items():
                line, column = node.key_pos[key]
                flatten(value, f"{prefix}{key}.", Loc(path, line, column))
        elif isinstance(node, YSeq):
            for index, item in enumerate(node):
                flatten(item, f"{prefix[:-1]}[{index}].", loc)
        else:
            found.append((prefix[:-1], node, loc))

    for document in composed.documents:
        flatten(document.data, "", Loc(path, 1, 1))
    return found, problem
