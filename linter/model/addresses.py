"""What a gRPC target or an HTTP URL points at: a cluster-internal DNS name, a local or
literal address, or something outside the cluster; and which scanned Service a
cluster-internal name is.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Literal

from k8slb.code.budget import MAX_CHOICES
from k8slb.code.facts import (
    CONNECT_ADDRESS,
    IN_MEMORY,
    NICE_ADDRESS,
    NICE_TLS_ADDRESS,
    STARTER,
    CodeFacts,
    EnvRef,
    EnvText,
    FileKey,
    FlagRef,
    Loc,
    SettingsKey,
    listen_head,
)
from k8slb.core import regex
from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import environment_name, quoted_key_form
from k8slb.model.addresses_files import keyed_values, mounted_values
from k8slb.model.addresses_spring import mounted_settings
from k8slb.model.index import EnvSetting, Index
from k8slb.model.links import CodeLinks, Link
from k8slb.model.objects import Container, flag_value, pos_of, service_ports
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

Reach = Literal["cluster", "local", "address", "external", "other"]

# Top-level domains that make a two-label name public (`api.example` is no `svc.ns`).
_PUBLIC_SUFFIXES = frozenset(
    {
        "com",
        "net",
        "org",
        "io",
        "dev",
        "app",
        "cloud",
        "ai",
        "co",
        "info",
        "biz",
        "me",
        "us",
        "uk",
        "de",
        "fr",
        "eu",
        "ru",
        "cn",
        "jp",
        "in",
        "local",
        "localhost",
        "internal",
    }
)


@record
class Address:
    text: str
    scheme: str  # "dns" for plain host:port, as grpcio reads it
    host: str | None
    port: int | None
    reach: Reach


def listened_at(address: object) -> str | None:
    """What is known of where a server listens: its address, or, for one an environment
    variable or a flag fills in (`f"unix://{os.environ['RUN_DIR']}/agent.sock"`), what the
    literal text it begins with says (facts.listen_head); None when nothing is."""
    if isinstance(address, str):
        return address
    if isinstance(address, EnvRef | FlagRef):
        return listen_head(address.prefix)
    return None


def unix_socket(address: object) -> bool:
    """Whether a server listening there listens on a Unix socket (`unix:PATH`,
    `unix:///PATH`, `unix-abstract:NAME`; `unix:` where the path is not read)."""
    text = listened_at(address)
    return text is not None and text.startswith(("unix:", "unix-abstract:"))


def in_memory(address: object) -> bool:
    """Whether a server listening there listens in its process's memory (facts.IN_MEMORY:
    grpc-go's bufconn), which only a dialer of that process reaches."""
    return listened_at(address) == IN_MEMORY


Unreached = Literal["unix", "memory"]


@record
class _Heard:
    """What some listens of a server say, combined in any order (Listening's answers):
    the first listen's place among the module's, whether one is reached over the network,
    one is not in memory, one is not the pod's own, and each field a Unix network came
    from with the place of its first listen."""

    first: int
    reachable: bool
    not_memory: bool
    not_own: bool
    networks: tuple[tuple[int, str], ...]


def _combined(parts: Iterable[_Heard]) -> _Heard | None:
    """What several listens' answers say together, in one pass over them (summing them
    one by one rebuilt the networks said so far at each: thousands of listens of one
    server, each with a network field of its own, were quadratic); None for none. The
    first MAX_CHOICES networks by place are kept, all a finding names: the first of a
    union are among the firsts of its parts, so answers combine as whole ones would."""
    said: dict[str, int] = {}
    first: int | None = None
    reachable = not_memory = not_own = False
    for part in parts:
        first = part.first if first is None else min(first, part.first)
        reachable = reachable or part.reachable
        not_memory = not_memory or part.not_memory
        not_own = not_own or part.not_own
        for at, text in part.networks:
            said[text] = min(at, said.get(text, at))
    if first is None:
        return None
    networks = tuple(sorted((at, text) for text, at in said.items())[:MAX_CHOICES])
    return _Heard(first, reachable, not_memory, not_own, networks)


class Listening:
    """What a module's listens say of each of its servers, by the server's name, and of the
    one made at a place where a listen says which of several same-named servers it is for
    (Listen.made): each group's answer worked out once, not once a server, wait or stop
    that asks (a file of thousands of servers of one name, each listening, asked of each:
    Context.listening keeps one a module)."""

    def __init__(self, facts: CodeFacts) -> None:
        self._listens = facts.listens
        self._groups: dict[tuple[str, Loc | None], list[int]] = {}
        self._names: dict[str, list[int]] = {}
        for index, listen in enumerate(facts.listens):
            self._names.setdefault(listen.server, []).append(index)
            self._groups.setdefault((listen.server, listen.made), []).append(index)
        self._heard: dict[tuple[str, bool, Loc | None], _Heard | None] = {}
        self._both: dict[tuple[str, Loc], _Heard | None] = {}  # _heard_of, at a place

    def _of(self, indices: list[int] | None) -> _Heard | None:
        return _combined(self._one(index) for index in indices or ())

    def _one(self, index: int) -> _Heard:
        listen = self._listens[index]
        address = listen.address
        return _Heard(
            index,
            not (unix_socket(address) or in_memory(address)),
            not in_memory(address),
            not loopback_only(address),
            ((index, listen.network_from),) if listen.network_from else (),
        )

    def _heard_of(self, server: str | None, at: Loc | None) -> _Heard | None:
        """Every listen of the server's name (`at` None), else those said to be for the
        server made at `at` and those that say of no server which."""
        if not server:
            return None
        if at is None:
            key: tuple[str, bool, Loc | None] = (server, False, None)
            if key not in self._heard:
                self._heard[key] = self._of(self._names.get(server))
            return self._heard[key]
        if (server, at) not in self._both:  # once a server made: its own and the shared
            parts = []
            for made in (None, at):
                key = (server, True, made)
                if key not in self._heard:
                    self._heard[key] = self._of(self._groups.get((server, made)))
                parts.append(self._heard[key])
            self._both[server, at] = _combined(part for part in parts if part is not None)
        return self._both[server, at]

    def unreached_only(self, server: str | None, at: Loc | None = None) -> Unreached | None:
        """How no Service reaches the server, where every address it listens on (one at
        least) is out of the network's reach: "memory" when each is in its process's
        memory (its own process dials it), "unix" when each is a Unix socket or in memory
        (its callers share the socket file: a kubelet, a CNI or runtime plugin's binary);
        kube-proxy balances IP addresses and ports, so neither is a Service's. None
        otherwise: a loopback address too, which a sidecar proxy of the pod may send
        Service traffic to."""
        heard = self._heard_of(server, at)
        if heard is None or heard.reachable:
            return None
        return "unix" if heard.not_memory else "memory"

    def unix_network_from(self, server: str | None, at: Loc | None = None) -> list[str]:
        """Where the Unix network of the server came from, where a field read it
        (facts.Listen.network_from: the flag that sets it, and its default): said in
        findings; the first MAX_CHOICES by place (_combined)."""
        heard = self._heard_of(server, at)
        return [text for _, text in heard.networks] if heard is not None else []

    def pod_only(self, server: str | None, at: Loc | None = None) -> str | None:
        """Where the server listens (its first listen's address, as listened_at reads it;
        "" when unknown) when every address it listens on is its pod's own (loopback_only:
        a loopback host, a Unix socket, its process's memory), else None."""
        heard = self._heard_of(server, at)
        if heard is None or heard.not_own:
            return None
        return listened_at(self._listens[heard.first].address) or ""


def loopback_only(address: object) -> bool:
    """Whether a server listening there takes connections from its own pod only: a
    loopback host (`127.0.0.1:50051`, `localhost:50051`, `[::1]:50051`) or a Unix socket
    (`unix:PATH`, `unix:///PATH`, `unix-abstract:NAME`) or its process's memory
    (facts.IN_MEMORY); not `[::]`, `0.0.0.0`, a bare port or what k8slb cannot read."""
    text = listened_at(address)
    if text is None:
        return False
    if unix_socket(text) or text == IN_MEMORY:
        return True
    host = text.rpartition(":")[0].strip("[]").lower()
    if host == "localhost":
        return True
    if not host or not (host[0].isdigit() or ":" in host):
        return False  # a name, or no host: every address of the pod
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# What a host name may hold (a Service's is a lower-case DNS label; `_` is tolerated, as
# resolvers do)
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._")


def _host_reach(host: str) -> Reach:
    bare = host.strip("[]").lower()
    if bare in ("localhost", "") or bare.endswith(".localhost"):
        return "local"
    if bare[:1].isdigit() or ":" in bare:  # else no IP address: spare the two exceptions
        import ipaddress  # here and in parse_url: a run that reads no address never loads it

        try:
            ip = ipaddress.ip_address(bare)
        except ValueError:
            pass
        else:
            return "local" if ip.is_loopback or ip.is_unspecified else "address"
    if not _NAME_CHARACTERS.issuperset(bare):
        # `$(AUTH_HOST)`, `${HOST}`, `%s`: a reference no one expanded, no name to place
        return "other"
    labels = bare.rstrip(".").split(".")
    if len(labels) == 1 or "svc" in labels[2:4] or labels[-1] == "svc":
        return "cluster"
    if len(labels) == 2 and labels[1] not in _PUBLIC_SUFFIXES:
        return "cluster"  # `svc.namespace`
    return "external"


def _split_host_port(text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.lstrip(":")
    else:
        host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    return host, int(port) if port.isdigit() else None


_NAMED = ("dns", "passthrough")  # schemes whose target is a host name and a port


def parse_grpc_target(text: str, default: str = "dns") -> Address:
    """gRPC's reading of a channel target (gRPC naming doc): no scheme means `default`:
    `dns` for grpcio and Go's grpc.NewClient, `passthrough` for Go's grpc.Dial (the host
    goes to the system resolver, which gives gRPC a single address). The starter's
    `static://host:port` is one address, resolved once: as passthrough."""
    if default == STARTER:
        static = text.startswith("static://") and "," not in text
        text, default = (text[len("static://") :], "passthrough") if static else (text, "dns")
    elif default in (NICE_ADDRESS, NICE_TLS_ADDRESS):
        text, default = _nice_address(text, default == NICE_TLS_ADDRESS), "dns"
    elif default == CONNECT_ADDRESS:
        origin = _url_origin(text)
        if origin is None:
            return Address(text, "", None, None, "other")
        text, default = origin, "dns"
    head, colon, _ = text.partition(":")  # `scheme:`, the text before the first colon
    scheme = head.lower() if colon else ""
    known = ("dns", "passthrough", "ipv4", "ipv6", "unix", "unix-abstract", "xds", "vsock")
    if scheme not in known and text[len(head) : len(head) + 3] == "://" and head:
        # `http://shipping:8080`, `kubernetes:///svc`: a scheme gRPC has no resolver for
        # here (the channel never connects) or a custom resolver's, not kube-proxy's
        return Address(text, scheme, None, None, "other")
    if scheme not in known:
        scheme, rest = default, text  # `host:port`, whatever the host looks like
    else:
        rest = text[len(scheme) + 1 :]
    if scheme not in _NAMED:
        reach: Reach = "local" if scheme.startswith("unix") else "other"
        return Address(text, scheme, None, None, reach)
    if rest.startswith("//"):
        rest = rest[2:].split("/", 1)[1] if "/" in rest[2:] else ""  # drop the authority
    host, port = _split_host_port(rest)
    return Address(text, scheme, host, port, _host_reach(host))


def _nice_address(text: str, tls: bool) -> str:
    """The grpc-js target nice-grpc's createChannel makes of an address: `http://h:p`,
    `https://h` and `h:p` become `h:p` (the port 80, or 443 for https or TLS credentials,
    when none follows the last colon); an address of another scheme is kept."""
    protocol, separator, rest = text.partition("://")
    if not separator or not protocol or ":" in protocol:
        protocol, rest = "", text
    if protocol not in ("", "http", "https"):
        return text
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit():
        host, port = rest, "443" if tls or protocol == "https" else "80"
    return f"{host}:{port}"


def _url_origin(text: str) -> str | None:
    """The `host:port` of an http(s) URL's origin (`http://orders:9001/api` is
    `orders:9001`; the port 80, or 443 for https, when none is given); None for any other
    text."""
    protocol, separator, rest = text.partition("://")
    if not separator or protocol.lower() not in ("http", "https"):
        return None
    authority = rest
    for end in "/?#":
        authority = authority.partition(end)[0]
    authority = authority.rpartition("@")[2]
    host, colon, port = authority.rpartition(":")
    if not colon or not port.isdigit() or host.endswith(":"):
        host, port = authority, "443" if protocol.lower() == "https" else "80"
    return f"{host}:{port}" if host else None


@lru_cache(maxsize=64)
def target_parser(default_scheme: str) -> Callable[[str], Address]:
    """How a channel made with this default scheme reads its target (one function a
    scheme: destinations_of keeps what a value points to by its parser)."""
    return lambda text: parse_grpc_target(text, default_scheme)


def parse_url(text: str) -> Address | None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    if parts.hostname is None:
        return None
    return Address(text, parts.scheme, parts.hostname, port, _host_reach(parts.hostname))


def services_for(index: Index, address: Address, namespace: str | None) -> list[K8sObject]:
    """The scanned Services a cluster-internal name resolves to. A bare `svc` is looked up
    in `namespace` (the namespace of the workload that set it), or by name alone. A host
    left for the user to fill (`<USERS_SVC>`, `filled_in`) is the Service it spells."""
    if address.reach != "cluster":
        address = filled_in(address) or address
    if address.reach != "cluster" or address.host is None:
        return []
    labels = address.host.lower().rstrip(".").split(".")
    name = labels[0]
    wanted = labels[1] if len(labels) > 1 else namespace
    return [
        service
        for service in index.services_named(name)
        if (wanted is None or service.namespace in (wanted, None))
        and (address.port is None or _has_port(service, address.port))
    ]


# What a placeholder's name may hold: a Service's name in its environment's spelling
_FILL_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def filled_in(address: Address) -> Address | None:
    """The address with its host read as a Service's name where the host is a placeholder
    left for the user to fill (`<USERS_SVC>:50051`, a ConfigMap's value), written as
    Kubernetes spells a Service's name in its pods' environment (`USERS_SVC_SERVICE_HOST`
    is Service `users-svc`'s: upper case, `-` as `_`): the name that spelling is of
    (`users-svc`), which a Service of the namespace must bear to be judged. None for any
    other host."""
    host = address.host or ""
    inner = host[1:-1]
    if not (host[:1] == "<" and host[-1:] == ">" and 0 < len(inner) <= 63):
        return None
    if not _FILL_CHARACTERS.issuperset(inner):
        return None
    return replace(address, host=inner.lower().replace("_", "-"), reach="cluster")


def _has_port(service: K8sObject, port: int) -> bool:
    ports = service_ports(service)
    return not ports or any(p.get("port") == port for p in ports)


@record
class Destination:
    """One place a client's address value can point to."""

    address: Address
    namespace: str | None  # where a bare name is looked up
    origin: str  # how the address was found, for messages ("" for a literal)
    via: Related | None = None  # the manifest line that supplied it
    setting: EnvSetting | None = None  # the env entry that supplied it
    # matched by a key's name alone in a file the container mounts (facts.FileKey): the
    # client's own dial is no evidence of the protocol there, which must be shown apart
    keyed: bool = False


def destinations_of(
    index: Index,
    links: CodeLinks,
    value: object,
    parse: Callable[[str], Address | None],
    facts: CodeFacts,
) -> list[Destination]:
    """`destinations` of a value of the module's code, asked of the containers that run
    it: worked out once a value and parser a run (three rules and the dialers ask: on the
    bench tree 12,013 times for 2,450 values)."""
    key = (id(index), id(value), parse, facts.path)
    known = links.destinations.get(key)
    if known is not None and known[0] is index and known[1] is value:  # (ids not reused)
        return list(known[2])
    # a literal is no environment's: the containers that run the code (which needs every
    # link) are asked only of a settings file's, which the settings they mount may override
    asked = isinstance(value, EnvRef | EnvText | FlagRef | SettingsKey | FileKey)
    runners = links.running(facts.path) if asked or facts.language == "spring" else []
    found = destinations(index, value, parse, facts.path, runners, facts)
    links.destinations[key] = (index, value, found)  # one entry a value of the code: linear
    return list(found)


def destinations(
    index: Index,
    value: object,
    parse: Callable[[str], Address | None],
    code_path: str = "",
    runners: Sequence[Link] = (),
    settings_file: CodeFacts | None = None,
) -> list[Destination]:
    """The addresses a resolved value stands for: a literal, or an environment variable
    as the scanned workloads set it (its default in the code when none does). The
    containers that run the code (`runners`, from links.py) are asked first; with no link,
    when several workloads set the variable, those whose manifests sit closest to the code
    win (a monorepo keeps each service's code and manifests together). A Go settings
    struct's field (viper's) has the value the settings file the containers mount gives
    it (addresses_files.py), and a file key (facts.FileKey) the values their mounted YAML
    and JSON files give a key of its name (`keyed`). A channel of a
    Spring settings file (`settings_file`) dials, in a container that mounts settings over the
    jar's, the address those give it."""
    if settings_file is not None and settings_file.language == "spring" and runners:
        mounted = _mounted_destinations(index, settings_file, value, parse, runners)
        if mounted is not None:
            return mounted
    if isinstance(value, str):
        address = parse(value)
        return [Destination(address, None, "")] if address else []
    if isinstance(value, EnvText):
        return _joined_destinations(index, value, parse, code_path, runners)
    if isinstance(value, FlagRef):
        return _flag_destinations(index, value, parse, runners)
    if isinstance(value, SettingsKey):
        return _settings_destinations(index, value, parse, runners)
    if isinstance(value, FileKey):
        return [
            Destination(address, g.namespace, g.origin, g.via, keyed=True)
            for g in keyed_values(index, value, runners)
            if (address := parse(g.value)) is not None
        ]
    if not isinstance(value, EnvRef):
        return []
    found: list[Destination] = []
    loaded: list[Link] = []  # runners whose `env` does not set it: their `envFrom` may
    if runners:
        settings = []
        for link in runners:
            setting = index.env_setting(link.workload, link.container, value.name, value.any_case)
            if setting is not None:
                settings.append(setting)
            else:
                loaded.append(link)
    else:
        settings = index.env_settings_near(value.name, code_path, value.any_case)
    for link in loaded:
        given = loaded_env(index, link.workload, link.container, value.name, value.any_case)
        how = f"{value.name} as {link.workload.ref.display} loads it from"
        if given is None:  # what no ConfigMap sets, the kubelet may: a Service's link
            given = service_link(index, link.workload, link.container, value.name)
            how = f"{value.name} as the kubelet sets it in {link.workload.ref.display}:"
        address = parse(value.filled(given[0])) if given is not None else None
        if given is not None and address is not None:
            where = f"{how} {given[1].message}"
            found.append(Destination(address, link.workload.namespace, where, given[1]))
    for setting in settings:
        address = parse(value.filled(setting.value))
        if address is not None:
            line = setting.entry.value_pos.get("value", setting.entry.pos)[0]
            # the place too: the value to change is there, not in the code reported
            place = f"{os.path.basename(setting.workload.path)}:{line}"
            where = f"{value.name} as {setting.workload.ref.display} sets it at {place}"
            via = Related(setting.workload.path, line, f"{value.name}={setting.value!r}")
            found.append(Destination(address, setting.workload.namespace, where, via, setting))
    if found or not value.default_from:
        return found or _default(parse, value.default_text, f"the default of {value.name}")
    # a settings file's value: the file's place, and the variable that would override it
    where = f"{value.default_from}, the settings file the program reads; no container sets "
    return _default(parse, value.default_text, f"{where}{value.name}, which would override it")


def _mounted_destinations(
    index: Index,
    settings: CodeFacts,
    value: object,
    parse: Callable[[str], Address | None],
    runners: Sequence[Link],
) -> list[Destination] | None:
    """Where a starter's channel of a settings file, whose target is `value`, dials from
    the containers that run it, when one mounts a settings file that gives the channel
    (the same name) another address (addresses_spring.py): that one there, its
    `${NAME}`s read from that container's env; the jar's in the others. None when no
    container mounts an address for it."""
    made = {channel.factory for channel in settings.channels if channel.target == value}
    found: list[Destination] = []
    overridden = False
    for link in runners:
        given = [
            (mounted, channel)
            for mounted in mounted_settings(index, link.workload, link.container)
            for channel in mounted.facts.channels
            if channel.factory in made
        ]
        if not given:
            found += destinations(index, value, parse, settings.path, [link])
            continue
        overridden = True
        mounted, channel = given[-1]  # the last location Spring reads wins
        place = f"{posixpath.basename(mounted.config.path)}:{channel.loc.line}"
        where = (
            f"the address ConfigMap {mounted.config.name}'s {mounted.key} gives it in "
            f"{link.workload.ref.display}, mounted at {mounted.mount_path} ({place})"
        )
        via = Related(
            mounted.config.path,
            channel.loc.line,
            f"{mounted.key} of ConfigMap {mounted.config.name}",
        )
        parse_there = target_parser(channel.default_scheme)
        for destination in destinations(index, channel.target, parse_there, settings.path, [link]):
            origin = f"{where}: {destination.origin}" if destination.origin else where
            namespace = destination.namespace or link.workload.namespace
            found.append(
                replace(destination, namespace=namespace, origin=origin, via=destination.via or via)
            )
    return found if overridden else None


def _settings_destinations(
    index: Index, key: SettingsKey, parse: Callable[[str], Address | None], runners: Sequence[Link]
) -> list[Destination]:
    """The addresses a viper settings key is given in each container that runs the code:
    the variable `AutomaticEnv` (or `BindEnv`) reads for it, when the container sets it
    and viper knows the key (a mounted file, a default or a binding); else the file the
    container mounts (addresses_files.py); else, in none of them, the key's default. No
    file the containers mount and no default: not known."""
    found: list[Destination] = []
    for link in runners:
        mounted = mounted_values(index, key, [link])
        setting = (
            index.env_setting(link.workload, link.container, key.env)
            if key.env is not None and (mounted or key.default is not None or key.bound)
            else None
        )
        if setting is not None:  # the variable wins over the file
            address = parse(setting.value)
            if address is None:
                continue
            line = setting.entry.value_pos.get("value", setting.entry.pos)[0]
            place = f"{os.path.basename(setting.workload.path)}:{line}"
            where = f"{key.env} as {setting.workload.ref.display} sets it at {place}"
            via = Related(setting.workload.path, line, f"{key.env}={setting.value!r}")
            found.append(Destination(address, setting.workload.namespace, where, via, setting))
            continue
        found += [
            Destination(address, g.namespace, g.origin, g.via)
            for g in mounted
            if (address := parse(g.value)) is not None
        ]
    return found or _default(parse, key.default, f"the default viper gives {key.key}")


def _default(
    parse: Callable[[str], Address | None], text: str | None, where: str
) -> list[Destination]:
    """The address the code's default gives, where no container sets the value."""
    address = parse(text) if text is not None else None
    return [Destination(address, None, where)] if address is not None else []


def _joined_destinations(
    index: Index,
    value: EnvText,
    parse: Callable[[str], Address | None],
    code_path: str,
    runners: Sequence[Link],
) -> list[Destination]:
    """The addresses of a text made of several environment values (`host + ":" + port`):
    each container that sets its first variable (those that run the code, else those
    closest to it) fills every variable from its own `env`, a variable it does not set
    from its default in the code."""
    first = value.names[0]
    if runners:
        containers = [(link.workload, link.container) for link in runners]
    else:
        containers = [(s.workload, s.container) for s in index.env_settings_near(first, code_path)]
    found: list[Destination] = []
    glued = False
    for workload, container in containers:
        settings = {name: index.env_setting(workload, container, name) for name in value.names}
        set_here = {name: s for name, s in settings.items() if s is not None}
        # what `env` leaves unset, a ConfigMap `envFrom` loads may set
        loaded = {
            name: given
            for name in value.names
            if name not in set_here
            and (given := loaded_env(index, workload, container, name)) is not None
        }
        # what neither sets, the kubelet may: the variables of a Service's link
        linked = {
            name: given
            for name in value.names
            if name not in set_here
            and name not in loaded
            and (given := service_link(index, workload, container, name)) is not None
        }
        loaded.update(linked)
        if not set_here and not loaded:
            continue
        values = {name: s.value for name, s in set_here.items()}
        values = {**values, **{name: given[0] for name, given in loaded.items()}}
        text = value.filled(values)
        if text is not None and _port_glued(value, values):
            glued = True  # `host + port` with no `:` between: no host:port, no Service named
            continue
        address = parse(text) if text is not None else None
        if address is None:
            continue
        if set_here:
            lines = [s.entry.value_pos.get("value", s.entry.pos)[0] for s in set_here.values()]
            place = f"{os.path.basename(workload.path)}:{', '.join(map(str, lines))}"
            where = f"{' and '.join(set_here)} as {workload.ref.display} sets them at {place}"
            setting = next(iter(set_here.values()))
            via = Related(workload.path, lines[0], f"{setting.entry.get('name')}={setting.value!r}")
        elif len(linked) < len(loaded):
            via = next(given for name, given in loaded.items() if name not in linked)[1]
            where = (
                f"{' and '.join(loaded)} as {workload.ref.display} loads them from {via.message}"
            )
        else:
            via = next(iter(linked.values()))[1]
            where = (
                f"{' and '.join(linked)} as the kubelet sets them in {workload.ref.display}: "
                f"{via.message}"
            )
        found.append(Destination(address, workload.namespace, where, via))
    if found or glued:
        return found
    return _default(parse, value.default_text, f"the defaults of {', '.join(value.names)}")


def _port_glued(value: EnvText, values: Mapping[str, str]) -> bool:
    """Whether a variable named as a port (`GRPC_PORT`) whose value is a port number
    (`8000`) is joined straight onto the host before it (`ENDPOINT + PORT`, no `:`
    between): the text then names a host with digits on its end and no port, not the
    Service and port the parts hold."""
    before = ""
    for part in value.parts:
        if isinstance(part, str):
            before = part
            continue
        given = values.get(part.name)
        if given is None and isinstance(part.default, str):
            given = part.default
        if (
            given is not None
            and given.isdigit()
            and "PORT" in part.name.upper()
            and before
            and before[-1].isalnum()
        ):
            return True
        before = given or ""
    return False


def placeholder_host(address: Address) -> bool:
    """Whether a host is written with an upper-case letter in its first label
    (`SOME-EXTERNAL-SERVER:80`, `MY_BACKEND`): no Service is named so (a Service's name is
    a lower-case DNS label), so it is a value left for the user to fill, an outside
    server's, not the name of a Service to be judged."""
    first = (address.host or "").partition(".")[0]
    return any(c.isupper() for c in first)


def loaded_env(
    index: Index, workload: K8sObject, container: Container, name: str, any_case: bool = False
) -> tuple[str, Related] | None:
    """The value a container's `envFrom` gives the variable `name` from a ConfigMap applied
    with the workload (a later source wins; `env` overrides them all, and is asked
    first; an `env` entry's `valueFrom.configMapKeyRef`, last), and where the ConfigMap says
    it. A key is the variable's name verbatim, or a
    settings key (one with a dot) in the form Spring's and Quarkus's relaxed binding read
    for it: `quarkus.http.port` is their `QUARKUS_HTTP_PORT`, and Quarkus's form of a
    quoted map key, `QUARKUS_GRPC_CLIENTS__ARENA__HOST` (parse_spring.quoted_key_form);
    with `any_case`, the name in any case (pydantic's settings read it so)."""
    found: tuple[str, Related] | None = None
    upper = name.upper() if any_case else None
    for entry in container.body.get("envFrom") or []:
        if not isinstance(entry, YMap) or not isinstance(entry.get("configMapRef"), YMap):
            continue
        config_name, prefix = entry["configMapRef"].get("name"), entry.get("prefix") or ""
        config = index.config_map(workload, config_name) if isinstance(config_name, str) else None
        data = config.body.get("data") if config is not None else None
        if config is None or not isinstance(data, YMap) or not isinstance(prefix, str):
            continue
        for key, text in data.items():
            variable = f"{prefix}{key}"
            relaxed = "." in variable and environment_name(variable) == name
            relaxed = relaxed or quoted_key_form(variable, name)
            relaxed = relaxed or variable.upper() == upper
            if isinstance(text, str) and (variable == name or relaxed):
                line = pos_of(data, key, value=True)[0]
                found = (text, Related(config.path, line, f"{key} in ConfigMap {config_name}"))
    entries = container.body.get("env")
    for entry in entries if isinstance(entries, YSeq) else ():  # `env` overrides them
        named = entry.get("name") if isinstance(entry, YMap) else None
        if isinstance(named, str) and (
            named == name
            or ("." in named and environment_name(named) == name)
            or quoted_key_form(named, name)
            or named.upper() == upper
        ):
            found = _config_map_key(index, workload, dig(entry, "valueFrom", "configMapKeyRef"))
    return found


def _config_map_key(
    index: Index, workload: K8sObject, reference: object
) -> tuple[str, Related] | None:
    """The value an `env` entry's `valueFrom.configMapKeyRef` gives, from a ConfigMap
    applied with the workload, and where it says it; None for any other source."""
    if not isinstance(reference, YMap):
        return None
    config_name, key = reference.get("name"), reference.get("key")
    if not isinstance(config_name, str) or not isinstance(key, str):
        return None
    config = index.config_map(workload, config_name)
    data = config.body.get("data") if config is not None else None
    text = data.get(key) if isinstance(data, YMap) else None
    if config is None or not isinstance(data, YMap) or not isinstance(text, str):
        return None
    line = pos_of(data, key, value=True)[0]
    return text, Related(config.path, line, f"{key} in ConfigMap {config_name}")


# The variables the kubelet sets in each container for every Service of its namespace
# (enableServiceLinks, true by default): `<NAME>_SERVICE_HOST` (the ClusterIP),
# `<NAME>_SERVICE_PORT` (its first port) and `<NAME>_SERVICE_PORT_<PORT NAME>`, the
# Service's name and the port's upper-cased with `-` as `_`.
_SERVICE_LINK = regex.compile(r"^([A-Z][A-Z0-9_]*)_SERVICE_(?:(HOST)|PORT(?:_([A-Z0-9_]+))?)$")


def linked_service_name(variable: str) -> str | None:
    """The name of the Service whose link sets the variable, or None: no link's."""
    match = _SERVICE_LINK.match(variable)
    return match.group(1).lower().replace("_", "-") if match is not None else None


def service_link(
    index: Index, workload: K8sObject, container: Container, name: str
) -> tuple[str, Related] | None:
    """The value the kubelet gives the variable `name` in the container as a Service's
    link, and the Service: the Service's own name for its `_SERVICE_HOST` (its
    ClusterIP, which the name resolves to), its port for a `_SERVICE_PORT`. None when
    the pod turns the links off, an `env` entry of the container sets the name (any
    entry: a Secret's too), or no Service so named with a ClusterIP is applied with the
    workload in its namespace."""
    match = _SERVICE_LINK.match(name)
    if match is None or index.template(workload).spec.get("enableServiceLinks") is False:
        return None
    entries = container.body.get("env")
    if isinstance(entries, YSeq) and any(
        isinstance(entry, YMap) and entry.get("name") == name for entry in entries
    ):
        return None
    wanted, host, port_name = linked_service_name(name) or "", match[2], match[3]
    for service in index.services_named(wanted):
        if (
            service.headless
            or dig(service.body, "spec", "type") == "ExternalName"
            # as services_for looks a name up: a namespace left out is the apply's
            or (service.namespace not in (workload.namespace, None) and workload.namespace)
            or not index.together(service, workload)
        ):
            continue  # no ClusterIP, no link
        ports = [
            p.get("port")
            for p in service_ports(service)
            if port_name is None or _env_word(p.get("name")) == port_name
        ]
        value = wanted if host else str(ports[0]) if ports and isinstance(ports[0], int) else None
        if value is not None:
            message = f"the link of {service.ref.display}"
            return value, Related(service.path, service.pos[0], message)
    return None


def _env_word(name: object) -> str:
    """A Service's or port's name as a variable's name spells it."""
    return str(name or "").upper().replace("-", "_")


def _flag_destinations(
    index: Index, flag: FlagRef, parse: Callable[[str], Address | None], runners: Sequence[Link]
) -> list[Destination]:
    """The addresses a command-line flag is given by the containers that run the code
    (their command and args, by its name or an alias), else by the first of its
    environment variables (urfave/cli's `EnvVars`) each container sets, else its default
    in the code."""
    found: list[Destination] = []
    for link in runners:
        named = [(n, v) for n in (flag.name, *flag.aliases) if (v := flag_value(link.container, n))]
        if not named and flag.env:  # the library reads the environment where no flag is given
            found += _flag_env(index, flag, parse, link)
            continue
        name, given = named[0] if named else (flag.name, None)
        address = parse(flag.filled(given)) if given is not None else None
        if address is None:
            continue
        workload = link.workload
        line = pos_of(link.container.body, "args", value=True)[0]
        if "args" not in link.container.body:
            line = pos_of(link.container.body, "command", value=True)[0]
        where = f"--{name} as {workload.ref.display} passes it"
        via = Related(workload.path, line, f"--{name}={given}")
        found.append(Destination(address, workload.namespace, where, via))
    return found or _default(parse, flag.default_text, f"the default of --{flag.name}")


def _flag_env(
    index: Index, flag: FlagRef, parse: Callable[[str], Address | None], link: Link
) -> list[Destination]:
    """What the first of a flag's environment variables that the container sets gives it
    (each looked up as any variable: `env`, `envFrom`), as --name's value."""
    for name in flag.env:
        variable = EnvRef(name, None, flag.prefix, flag.suffix)
        found = destinations(index, variable, parse, "", [link])
        if found:
            return [replace(d, origin=f"--{flag.name} from {d.origin}") for d in found]
    return []
