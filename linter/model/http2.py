"""Which Service ports carry gRPC (HTTP/2), and why k8slb thinks so.

The evidence, strongest first: the port's `appProtocol`, its name (Istio's
`<protocol>[-suffix]` convention), the name of the container port it targets, a gRPC
server in the code the targeted container runs (links.py) listening on that port, a gRPC
health probe of the targeted port, a server flag or env variable that puts gRPC on it.
Evidence about a port says something about that port only: a probe of another port, or
of a unix socket, is no evidence for this one. Then what k8slb only infers
(`Evidence.inferred`): a gRPC health probe whose port it cannot read, a well-known server
image whose documented gRPC port it is, gRPC's conventional port 50051; a rule never
warns on that alone.
"""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import Callable, Collection, Iterator
from dataclasses import replace

from k8slb.code.facts import CodeFacts, Listen, Loc
from k8slb.core import regex
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import Written, read_settings
from k8slb.model.addresses_spring import mounted_keys
from k8slb.model.index import (
    Index,
    Target,
    is_headless,
    literal_env,
    service_type,
)
from k8slb.model.links import CodeLinks, Served, port_of
from k8slb.model.objects import PodTemplate, service_ports, target_port
from k8slb.model.traffic import scrape_name
from k8slb.model.well_known import grpc_ports, internal_grpc
from k8slb.reading.build_files import image_repository
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import Pos, YMap

GRPC_APP_PROTOCOLS = frozenset({"grpc", "h2c", "kubernetes.io/h2c", "http2"})
GRPC_PORT = 50051
_GRPC_NAME = regex.compile(r"^(?:grpc|h2c|http2)(?:-.*)?$|-grpc$")


# A setting (a flag, an env variable) that says where a gRPC or HTTP/2 server listens:
# its name holds a protocol word and a place word (`--grpc-port`, `-server.grpc-listen-port`,
# `--grpc.address`, `GRPC_PORT`, `grpcListenAddress`), and no word of another protocol or
# of a peer it dials (`--grpc-gateway-port` is grpc-gateway's HTTP/JSON, `--grpc-web-port`
# gRPC-Web's, `--grpc-target` an address the process dials). `--grpc N` counts too.
_PROTOCOL_WORDS = frozenset({"grpc", "http2", "h2c"})
_PLACE_WORDS = frozenset({"port", "addr", "address", "listen", "bind"})
_OTHER_WORDS = frozenset(
    {"gateway", "web", "rest", "http", "json", "proxy", "client", "target", "upstream", "remote"}
)
# where a server listens: 9000, :9000, 0.0.0.0:9000, [::]:9000; a named host
# (`loki-compactor:9095`) is an address the process dials
_SETTING_VALUE = regex.compile(r"^(?:(?:0\.0\.0\.0|\[::\]|::|\*)?:)?(\d+)$")


def grpc_setting(name: str) -> bool:
    """Whether a flag or env variable of that name says where a gRPC server listens."""
    return _grpc_words(_words(name))


def _grpc_words(words: set[str]) -> bool:
    if words == {"grpc"}:
        return True
    return bool(words & _PROTOCOL_WORDS and words & _PLACE_WORDS and not words & _OTHER_WORDS)


def _words(name: str) -> set[str]:
    return set(_word_list(name))


def _word_list(name: str) -> list[str]:
    """A setting's words, in order: `-server.grpc-listen-port`, `GRPC_PORT` and
    `grpcListenAddress` split at each mark and where a capital follows a small letter or a
    digit."""
    words: list[str] = []
    current = ""
    previous = ""
    for char in name:
        word_char = char.isascii() and char.isalnum()
        if not word_char or (char.isupper() and (previous.islower() or previous.isdigit())):
            words.append(current)
            current = ""
        if word_char:
            current += char.lower()
        previous = char if word_char else ""
    return [word for word in (*words, current) if word]


def _setting_port(value: object) -> int | None:
    found = _SETTING_VALUE.match(str(value).strip())
    return int(found.group(1)) if found else None


def _flag_ports(words: list[object]) -> dict[int, str]:
    """The ports that gRPC flags name: `--grpc-port=8500`, `--grpc-port 8500`,
    `-server.grpc-listen-port=9095`, `--grpc-address=:9090`."""
    found: dict[int, str] = {}
    texts = [str(word) for word in words]
    for number, text in enumerate(texts):
        if not text.startswith("-"):
            continue
        name, equals, value = text.partition("=")
        if not equals and number + 1 < len(texts) and not texts[number + 1].startswith("-"):
            value = texts[number + 1]
        port = _setting_port(value) if grpc_setting(name) else None
        if port is not None:
            found.setdefault(port, f"the flag {name}={value}")
    return found


# The words of a setting that names a peer's host (`USER_HOST`, `USER_GRPC_ADDR`), and the
# values that name no peer but where the process itself listens.
_HOST_WORDS = frozenset({"host", "hostname", "addr", "address", "url", "endpoint"})
_OWN_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]", "*", "localhost", "127.0.0.1"})
# a name that may hold one of the protocol's or the host's words (most env names do not)
_MAY_MATTER = regex.compile(r"(?i)grpc|http2|h2c|host|addr|url|endpoint")


def _env_ports(index: Index, target: Target) -> dict[int, str]:
    """The ports the container's literal `env` says a gRPC server listens on (`GRPC_PORT`),
    but for a port of a peer it dials (`_peer_setting`)."""
    found: dict[int, str] = {}
    # each setting's words in order, for the names a protocol's or a host's word may be in
    settings = [
        (name, setting, _word_list(name))
        for setting in literal_env(target.workload, target.container)
        if _MAY_MATTER.search(name := str(setting.entry.get("name"))) is not None
    ]
    # the peers the container's settings name a host of (`GRPC_USER_HOST=user-service`:
    # user), by their words; a value that is a port, or where the process listens, names none
    hosts = {
        frozenset(words) - _PROTOCOL_WORDS - _PLACE_WORDS - _HOST_WORDS
        for _, setting, words in settings
        if _HOST_WORDS.intersection(words)
        and setting.value.strip().lower() not in _OWN_HOSTS
        and _setting_port(setting.value) is None
    }
    for name, setting, words in settings:
        port = _setting_port(setting.value) if _grpc_words(set(words)) else None
        if port is not None and not _peer_setting(index, target, words, hosts):
            found.setdefault(port, f"the env {name}={setting.value}")
    return found


def _peer_setting(
    index: Index, target: Target, words: list[str], hosts: Collection[frozenset[str]]
) -> bool:
    """Whether a gRPC port setting names another Service's port, which the container
    dials: the words left once the protocol's and the place's are taken out
    (`GRPC_USER_PORT`: user) are those of a sibling setting that names a host to dial
    (`GRPC_USER_HOST=user-service`), or the name of a Service that does not select the
    workload (`USER_SERVICE_GRPC_PORT` beside Service user-service)."""
    peer = [word for word in words if word not in _PROTOCOL_WORDS | _PLACE_WORDS]
    if not peer:
        return False
    if frozenset(peer) in hosts:
        return True
    own = {id(service) for service in index.selecting(target.workload)}
    return any(
        id(service) not in own and service.namespace in (target.workload.namespace, None)
        for service in index.services_named("-".join(peer))
    )


def grpc_port_name(name: object) -> bool:
    if not isinstance(name, str):
        return False
    lowered = name.lower()  # most names have none of the words: spared the pattern's call
    return any(word in lowered for word in ("grpc", "h2c", "http2")) and bool(
        _GRPC_NAME.search(lowered)
    )


@record
class Evidence:
    port: YMap  # the Service's port entry
    reason: str
    path: str
    pos: Pos
    weakness: int = 0  # 0 for appProtocol, up to 5 for the conventional port number
    served: Served | None = None  # evidence from the code: the server found there
    # k8slb infers it (an image in a table, a probe of a port it cannot read, the port
    # number): nothing declares or shows gRPC on that very port
    inferred: bool = False
    # what the evidence declares: HTTP/2 for a port named or marked `http2` or `h2c`,
    # which any HTTP/2 protocol may use (its connections as long-lived as gRPC's)
    protocol: str = "gRPC"
    # a name the code behind the port contradicts (it makes no gRPC server): why the
    # evidence counts as inferred only (no_grpc_code)
    contradicted: str = ""


_HTTP2_WORDS = regex.compile(r"^(?:kubernetes\.io/)?(?:h2c|http2)(?:-.*)?$")


def declared_protocol(word: str) -> str:
    """The protocol a port's name or appProtocol declares: HTTP/2 for `http2` and `h2c`
    (`http2-peer`, `kubernetes.io/h2c`), gRPC for the rest."""
    return "HTTP/2" if _HTTP2_WORDS.match(word.lower()) else "gRPC"


# `grpc_health_probe -addr=:8080`, `-addr localhost:8080`, `--addr=unix:///tmp/s.sock`
_PROBE_ADDR = regex.compile(r"^--?addr(?:=(.*))?$")
_VARIABLE = regex.compile(r"^\$(?:\{(\w+)\}|\((\w+)\)|(\w+))$")


def _probe_address(argv: list[object]) -> str | None:
    """The address a grpc_health_probe command checks (the words of `sh -c` split too),
    None when it names none."""
    words = [word for arg in argv for word in str(arg).split()]
    for number, word in enumerate(words):
        flag = _PROBE_ADDR.match(word)
        if flag is not None:
            value = flag.group(1)
            if value is None and number + 1 < len(words):
                value = words[number + 1]
            return value.strip("'\"") if value else None
    return None


def _address_port(address: str | None, target: Target) -> int | str | None:
    """The TCP port of a probe's address (a variable read through the container's literal
    `env`); "socket" for a unix socket, None when k8slb cannot read it."""
    if address is None:
        return None
    if address.startswith("unix:") or address.startswith("/"):
        return "socket"
    port = address.rsplit(":", 1)[-1]
    variable = _VARIABLE.match(port)
    if variable is not None:
        name = next(group for group in variable.groups() if group)
        setting = Index.env_setting(target.workload, target.container, name)
        port = str(setting.value) if setting is not None else ""
    return int(port) if port.isdigit() else None


def _probe_evidence(target: Target) -> tuple[str, bool] | None:
    """A gRPC health probe of the targeted port, and whether k8slb only infers that it
    checks that port (it cannot read the port the probe checks). A probe of another port,
    or of a unix socket, says nothing about this one."""
    container = target.container
    on = f"on container {container.name!r} of {target.workload.ref.display}"
    unread: str | None = None
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = container.probe(kind)
        if probe is None:
            continue
        grpc = probe.get("grpc")
        if isinstance(grpc, dict):
            port = grpc.get("port")
            number = container.port_number(port) if isinstance(port, (int, str)) else None
            if number is not None and number == target.number:
                return f"a gRPC {kind} of port {number} {on}", False
        command = probe.get("exec", {}) or {}
        argv = command.get("command") if isinstance(command, dict) else None
        if isinstance(argv, list) and any("grpc_health_probe" in str(a) for a in argv):
            port = _address_port(_probe_address(argv), target)
            if port == target.number:
                return f"a grpc_health_probe {kind} of port {port} {on}", False
            if port is None and unread is None:
                unread = f"a grpc_health_probe {kind} of a port k8slb cannot read {on}"
    return (unread, True) if unread is not None else None


def grpc_evidence(
    index: Index, service: K8sObject, code: CodeLinks | None = None
) -> list[Evidence]:
    """One piece of evidence per Service port that carries gRPC (the strongest for that
    port), the strongest first. `code` adds the servers in the code the pods run."""
    found: list[Evidence] = []
    known: dict[tuple[int, int], dict[int, str]] = {}

    def env_ports(target: Target) -> dict[int, str]:
        """A container's env read once, for all the ports that target it."""
        key = (id(target.workload), id(target.container))
        if key not in known:
            known[key] = _env_ports(index, target)
        return known[key]

    for port in service_ports(service):
        mine = index.port_targets(service, port)
        evidence = _port_evidence(service, port, mine, code, env_ports)
        if evidence is None and code is not None and mine:
            evidence = _unplaced_evidence(index, port, mine, code)
        if evidence is not None:
            found.append(evidence)
    # stable: port order next; evidence only inferred comes after any that is shown
    return sorted(found, key=lambda evidence: (evidence.inferred, evidence.weakness))


def _port_evidence(
    service: K8sObject,
    port: YMap,
    targets: list[Target],
    code: CodeLinks | None,
    env_ports: Callable[[Target], dict[int, str]],
) -> Evidence | None:
    def on_service(reason: str, key: str, weakness: int) -> Evidence:
        at = port.value_pos.get(key, port.pos)
        return Evidence(
            port, reason, service.path, at, weakness, protocol=declared_protocol(str(port[key]))
        )

    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str) and app_protocol.lower() in GRPC_APP_PROTOCOLS:
        return on_service(f"appProtocol {app_protocol}", "appProtocol", 0)
    # a name is not enough where the code behind the port shows it plain HTTP (read only
    # when a name would count: it loads the code of every targeted container)
    plain = functools.cache(lambda: _plain_http(targets, code))
    if grpc_port_name(port.get("name")) and not plain():
        found = on_service(f"port name {port['name']!r}", "name", 1)
        return _contradicted(found, no_grpc_code(targets, code))
    named = _named_container_port(port, targets, plain)
    if named is not None:
        return _contradicted(named, no_grpc_code(targets, code))
    inferred: Evidence | None = None  # the first only inferred, if nothing shows it
    for served in _serving(targets, code):
        listen = served.listen
        reason = (
            f"its code serves gRPC on {served.port}: "
            f"{os.path.basename(listen.loc.path)}:{listen.loc.line}"
        )
        at = (listen.loc.line, listen.loc.column)
        if not served.link.guessed:
            return Evidence(port, reason, listen.loc.path, at, 2, served)
        # code found by a name alike: a guess, as weak as what k8slb only infers
        reason += ", linked by a name alike"
        inferred = inferred or Evidence(port, reason, listen.loc.path, at, 2, served, True)
    for target in targets:
        probe = _probe_evidence(target)
        if probe is not None:
            reason, unread = probe
            found = Evidence(port, reason, target.workload.path, target.container.pos, 3)
            if not unread:
                return found
            inferred = inferred or replace(found, inferred=True)
    for target in targets:
        container = target.container.body
        words = [*(container.get("command") or []), *(container.get("args") or [])]
        settings = {
            **env_ports(target),
            **_flag_ports(words if isinstance(words, list) else []),
        }
        if target.number in settings:
            reason = (
                f"{settings[target.number]} of container {target.container.name!r} "
                f"of {target.workload.ref.display}"
            )
            return Evidence(port, reason, target.workload.path, target.container.pos, 4)
        image = image_repository(container.get("image"))
        known = grpc_ports(image, [str(word) for word in words] if isinstance(words, list) else [])
        if target.number in known and inferred is None:
            reason = (
                f"image {image}: {known[target.number]}, in container "
                f"{target.container.name!r} of {target.workload.ref.display} (weaker evidence)"
            )
            inferred = Evidence(
                port, reason, target.workload.path, target.container.pos, 4, inferred=True
            )
    if inferred is not None:
        return inferred
    numbers = {port.get("port"), target_port(port)} | {t.number for t in targets}
    # the number is no evidence where the code behind the port shows it plain HTTP
    if GRPC_PORT in numbers and not plain():
        reason = f"port {GRPC_PORT}, gRPC's conventional port"
        return replace(on_service(reason, "port", 5), inferred=True)
    return None


def _unplaced_evidence(
    index: Index, port: YMap, targets: list[Target], code: CodeLinks
) -> Evidence | None:
    """Evidence from a gRPC server whose port k8slb cannot read in the code (an address
    built from a configuration file the program loads), in every container the port
    targets (`_configured_grpc`)."""
    found = [_configured_grpc(index, target, code) for target in targets]
    first = found[0] if found else None
    if first is None or any(f is None for f in found):
        return None
    listen, reason = first
    return Evidence(port, reason, listen.loc.path, (listen.loc.line, listen.loc.column), 3)


# The words of a configuration key that says where the process's own RPC server listens
# (`rpc.ports[0]`, `grpc.port`, `server.grpc.listen`): an RPC word and a place word.
_RPC_WORDS = frozenset({"grpc", "rpc"})
_CONFIG_PLACES = frozenset({*_PLACE_WORDS, "ports"})


def _configured_grpc(index: Index, target: Target, code: CodeLinks) -> tuple[Listen, str] | None:
    """The listener of the gRPC server that serves the targeted port, and why, when the
    code reads its port from a configuration file: the code linked to the container (by
    evidence) starts gRPC servers whose every port k8slb cannot read, serves no gRPC through
    an HTTP server and listens for plain HTTP on no port that is that one; and a YAML file
    the container mounts from a ConfigMap sets that number at a key of an RPC server's
    place (`rpc.ports`, `grpc.port`), not beside a host it would dial. None otherwise: a
    port of scrapes by its name, code that shows its gRPC port or none, no such key."""
    workload, container, number = target.workload, target.container, target.number
    link = code.of(workload, container.name)
    if link is None or link.guessed or number is None:
        return None
    if scrape_name(target.service_port.get("name")):
        return None
    unread: list[Listen] = []
    for facts in code.code(link):
        if facts.http_served:
            return None
        servers = {server.name for server in facts.servers if server.name}
        for listen in facts.listens:
            if listen.server not in servers:
                continue
            if port_of(listen.address, workload, container) is not None:
                return None  # a gRPC port k8slb reads: the code's own evidence says which
            unread.append(listen)
        if any(port_of(x.address, workload, container) == number for x in facts.http_listens):
            return None
    if not unread:
        return None
    said = _configured_port(index, target)
    if said is None:
        return None
    listen = unread[0]
    reason = (
        f"its code serves gRPC on a port it reads from its configuration "
        f"({os.path.basename(listen.loc.path)}:{listen.loc.line}), and {said}"
    )
    return listen, reason


def _configured_port(index: Index, target: Target) -> str | None:
    """Where a YAML file the container mounts sets the targeted port's number at a key of
    an RPC server's place, in words; None when none does."""
    workload, container, number = target.workload, target.container, target.number
    if number is None:
        return None
    for config_name, data_key, path in mounted_keys(index, workload, container):
        if not data_key.lower().endswith((".yaml", ".yml")):
            continue
        config = index.config_map(workload, config_name)
        data = config.body.get("data") if config is not None else None
        text = data.get(data_key) if isinstance(data, YMap) else None
        if config is None or not isinstance(text, str) or str(number) not in text:
            continue
        said = _config_ports(index, config, data_key, text).get(number)
        if said is not None:
            return f"{said} in ConfigMap {config_name}'s {data_key}, mounted at {path}"
    return None


# Each mounted YAML file's ports of an RPC server's place, by number (the first key that
# sets it, as `key: value`), read once a run (by the Index, which the run keeps): every
# port of every container asks again.
_READ: weakref.WeakKeyDictionary[Index, dict[tuple[int, str], dict[int, str]]]
_READ = weakref.WeakKeyDictionary()


def _config_ports(index: Index, config: K8sObject, data_key: str, text: str) -> dict[int, str]:
    known = _READ.setdefault(index, {})
    found = known.get((id(config), data_key))
    if found is None:
        settings = read_settings(data_key, text)[0]
        dialing = _dialing_parents(settings)
        found = known[(id(config), data_key)] = {}
        for key, value, _ in settings:
            number = _setting_port(value)
            if number is None or number in found or not _rpc_place(key):
                continue
            if key.rpartition(".")[0] not in dialing:
                found[number] = f"{key}: {value}"
    return found


def _rpc_place(key: str) -> bool:
    """Whether a configuration key says where an RPC server listens: an RPC word and a
    place word among its last two parts' words, and no word of another protocol or a peer."""
    parts = [part.partition("[")[0] for part in key.split(".")][-2:]
    words = {word for part in parts for word in _word_list(part)}
    return bool(words & _RPC_WORDS and words & _CONFIG_PLACES and not words & _OTHER_WORDS)


def _dialing_parents(settings: list[Written]) -> set[str]:
    """The keys whose settings name a host to dial (`backend.grpc` of `backend.grpc.host:
    orders`): a port set beside one is a peer's, not where the process listens."""
    found: set[str] = set()
    for key, value, _ in settings:
        parent, _, last = key.rpartition(".")
        if not isinstance(value, str) or not _HOST_WORDS.intersection(_word_list(last)):
            continue
        if value.strip().lower() not in _OWN_HOSTS and _setting_port(value) is None:
            found.add(parent)
    return found


def _plain_http(targets: list[Target], code: CodeLinks | None) -> bool:
    """Whether the code linked to every container the port targets (by evidence, not a
    name alike) serves plain HTTP on the targeted port (facts.http_listens) and may serve
    gRPC there in no way k8slb reads: no gRPC server of that code listens on that port, or
    where k8slb cannot read, and none is handed to an HTTP server. Then a gRPC-like name
    of the port (Istio's `grpc-*`, a gateway's `grpc-gw`) is a name, not the protocol."""
    if code is None or not targets:
        return False
    for target in targets:
        link = code.of(target.workload, target.container.name)
        if link is None or link.guessed or target.number is None:
            return False
        modules = code.code(link)
        served = {
            port_of(x.address, target.workload, target.container)
            for f in modules
            for x in f.http_listens
        }
        if target.number not in served:
            return False
        for facts in modules:
            if facts.http_served:
                return False
            ports = {
                x.server: port_of(x.address, target.workload, target.container)
                for x in facts.listens
            }
            for server in facts.servers:
                if ports.get(server.name or "") in (None, target.number):
                    return False
    return True


def _named_container_port(
    port: YMap, targets: list[Target], plain: Callable[[], bool]
) -> Evidence | None:
    """A targeted container port whose name says gRPC, where the code does not show the
    port plain HTTP (`plain`)."""
    for target in targets:
        for entry in target.container.ports():
            if entry.get("containerPort") != target.number or not grpc_port_name(entry.get("name")):
                continue
            if not plain():
                reason = f"container port {entry['name']!r} of {target.workload.ref.display}"
                return Evidence(port, reason, target.workload.path, entry.pos, 2)
    return None


def no_grpc_code(targets: list[Target], code: CodeLinks | None) -> str:
    """The folders of the code linked to every container the port targets, where that code
    makes no gRPC server of any library k8slb reads and hands none to an HTTP server: each
    link rests on build evidence (not a name alike) and names the program the container
    starts (its entry module, or a Go package, linked with what it imports), so the code
    read is the process's. "" where one is not so (no link, a guess, no program known, no
    code read, a server)."""
    if code is None or not targets:
        return ""
    folders: list[str] = []
    for target in targets:
        link = code.of(target.workload, target.container.name)
        if link is None or link.guessed:
            return ""
        modules = code.code(link)
        program = link.entry is not None or all(f.language == "go" for f in modules)
        if not program or not modules or any(_may_serve_http2(f) for f in modules):
            return ""
        if link.folder not in folders:
            folders.append(link.folder)
    return ", ".join(folders[:3]) + (", …" if len(folders) > 3 else "")


# Go's HTTP/2 in the clear: a handler of it may serve gRPC, or any HTTP/2, on the port
_H2C = "golang.org/x/net/http2/h2c"


def _may_serve_http2(facts: CodeFacts) -> bool:
    """Whether a module makes a gRPC server, hands one to an HTTP server, or serves HTTP/2
    in the clear (which gRPC, or another HTTP/2 protocol, may ride)."""
    return bool(facts.servers or facts.http_served) or any(n == _H2C for _, n in facts.imports)


def _contradicted(evidence: Evidence, folders: str) -> Evidence:
    """A port's gRPC name, as inferred only where the code behind it makes no gRPC server
    (no_grpc_code gave its folders): the name may be stale, or the server a library k8slb
    does not read, so the finding stays, at info."""
    if not folders:
        return evidence
    why = (
        f"the code linked to its containers ({folders}) makes no gRPC server k8slb knows: "
        "the name may be stale"
    )
    return replace(evidence, inferred=True, contradicted=why)


def _serving(targets: list[Target], code: CodeLinks | None) -> Iterator[Served]:
    """The gRPC servers in the code of the targeted containers that listen on the
    targeted port."""
    for target in targets:
        for served in code.listening(target.workload, target.container) if code else []:
            if served.port == target.number:
                yield served


def servers_behind(index: Index, pinned: PinnedService, code: CodeLinks | None) -> list[Served]:
    """The gRPC servers in the code that serve the Service's gRPC ports, whatever the
    evidence that made them gRPC ports (a port's name, its appProtocol, the code itself),
    in each container the ports target."""
    targets = index.targets(pinned.service)
    return [
        served
        for evidence in pinned.evidence
        for served in _serving([t for t in targets if t.service_port is evidence.port], code)
    ]


def dialed_port(service: K8sObject, port: int | None, loc: Loc) -> Evidence | None:
    """The Service port a gRPC channel in the code dials (by its number): the channel is
    gRPC, so that port carries it, whatever the port is named."""
    for entry in service_ports(service):
        if port is not None and entry.get("port") == port:
            reason = f"a gRPC channel dials it: {os.path.basename(loc.path)}:{loc.line}"
            return Evidence(entry, reason, loc.path, (loc.line, loc.column), 2)
    return None


@record
class PinnedService:
    """A Service whose gRPC clients stay on the pods they first reached (KLB101)."""

    service: K8sObject
    evidence: list[Evidence]
    backends: list[tuple[K8sObject, PodTemplate]]
    twins: list[K8sObject]  # headless Services, same selector, exposing the gRPC ports
    # why no client calls its gRPC ports through it, when the servers behind them are
    # well-known ones that serve those ports only to their own components
    internal: str | None = None


def pinned_grpc(
    index: Index,
    service: K8sObject,
    code: CodeLinks | None = None,
    dialed: Evidence | None = None,
) -> PinnedService | None:
    """The KLB101 judgement: gRPC through a virtual IP (ClusterIP, NodePort or
    LoadBalancer, not headless) with no mesh in front of the pods. `dialed`: a gRPC
    channel in the code that dials one of its ports, evidence of its own."""
    if service_type(service) == "ExternalName" or is_headless(service):
        return None
    if not index.purpose(service).carries_clients:  # the pods' own cluster traffic
        return None
    evidence = grpc_evidence(index, service, code) or ([dialed] if dialed is not None else [])
    if not evidence:
        return None
    backends = index.selected(service)
    if index.mesh_balancing(backends) or (not backends and index.namespace_mesh(service)):
        return None  # no pod seen: those of its namespace are meshed unless they opt out
    # a twin that publishes not-ready pods (peer discovery) would send round_robin clients
    # to pods that are starting or draining: no twin for clients
    twins = [
        t
        for t in index.headless_twins(service)
        if _covers(t, evidence) and index.purpose(t).role != "peers"
    ]
    return PinnedService(service, evidence, backends, twins, _internal(index, service, evidence))


def _internal(index: Index, service: K8sObject, evidence: list[Evidence]) -> str | None:
    """The reason every gRPC port of the Service is internal to a well-known system (its
    targeted containers' images and flags say so, data/grpc_servers.json), else None."""
    reasons: list[str] = []
    targets = index.targets(service)
    for found in evidence:
        mine = [t for t in targets if t.service_port is found.port]
        if not mine:
            return None
        for target in mine:
            if target.number is None:
                return None
            image = image_repository(target.container.body.get("image"))
            reason = internal_grpc(image, target.container.words, target.number)
            if reason is None:
                return None
            reasons.append(reason)
    return reasons[0] if reasons else None


def _covers(twin: K8sObject, evidence: list[Evidence]) -> bool:
    """Whether a headless Service exposes every gRPC port: the same port, or the same
    target port (a headless Service for the metrics port is no twin for gRPC)."""

    def reaches(port: YMap) -> set[object]:
        return {port.get("port"), target_port(port)} - {None}

    offered = [reaches(port) for port in service_ports(twin)]
    return all(any(reaches(e.port) & mine for mine in offered) for e in evidence)
