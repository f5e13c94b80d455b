"""Who dials a Service by its own name: containers whose `env` values, `args` or
`command` hold its address, and long-lived gRPC channels in the code whose target
resolves to it; containers that mount a configuration file naming it (dialers_files.py). A
client that dials a ClusterIP Service directly stays on one pod, whatever headless twin or
proxy exists beside it."""

from __future__ import annotations

import os
import weakref
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping

from k8slb.code.facts import (
    Channel,
    CodeFacts,
    EnvRef,
    EnvText,
    FileKey,
    FlagRef,
    Loc,
    SettingsKey,
)
from k8slb.core import regex
from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import environment_name
from k8slb.model.addresses import (
    destinations_of,
    linked_service_name,
    parse_grpc_target,
    services_for,
    target_parser,
)
from k8slb.model.dialers_files import mounted_callees
from k8slb.model.index import Index, literal_env
from k8slb.model.links import CodeLinks, Link
from k8slb.model.mounted_texts import texts
from k8slb.model.objects import pos_of
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

# Words that can be addresses: `backend:50051`, `backend.shop.svc.cluster.local`,
# `dns:///backend.shop:50051`, `http://backend:8080/x`; a bare word is not one.
_WORD = regex.compile(r"[A-Za-z][A-Za-z0-9:/._-]*")


@record
class Dialer:
    who: str  # "Deployment/shop/frontend (env BACKEND_ADDR)", "client.py:10"
    related: Related
    workload: str = ""  # a container's: its workload (`Deployment/shop/frontend`)
    # the dialing pods are in a mesh (every pod that runs the channel's code): their proxy
    # takes the dial and balances each request, whatever address it names
    meshed: bool = False
    # a gRPC channel's: the port numbers it dials the Service on, and where it is made
    # (evidence that those ports carry gRPC: http2.dialed_port)
    ports: tuple[int, ...] = ()
    loc: Loc | None = None


def _addresses(text: str) -> Iterable[str]:
    for word in _WORD.findall(text):
        scheme, separator, rest = word.partition("://")
        if separator and scheme.lower() != "dns":  # a gRPC target keeps its scheme
            word = rest.split("/", 1)[0]
        if "." in word or ":" in word:
            yield word


def _strings(container: YMap) -> Iterable[tuple[str, str, int]]:
    """(where, text, line) of the strings a container is started with."""
    for key in ("command", "args"):
        items = container.get(key)
        if isinstance(items, YSeq):
            for number, item in enumerate(items):
                if isinstance(item, str):
                    yield key, item, items.item_pos[number][0]
    entries = container.get("env")
    if isinstance(entries, YSeq):
        for entry in entries:
            if isinstance(entry, YMap) and isinstance(entry.get("value"), str):
                yield (
                    f"env {entry.get('name')}",
                    entry["value"],
                    pos_of(entry, "value", value=True)[0],
                )


# A few Services (a pre-commit run's) are looked for by name, each workload's body searched
# before it is read: for one name a search costs a fifth of a read, for 16 two thirds.
FEW_NAMES = 16
_NAME = regex.compile(r"[a-z0-9-]+")  # a Service name an address can reach (a DNS label)


def dialers_by_service(
    index: Index,
    modules: Iterable[CodeFacts],
    links: CodeLinks,
    services: Collection[K8sObject] | None = None,
) -> dict[int, list[Dialer]]:
    """Every direct dialer of `services` (of every scanned Service when None), keyed by
    the Service's id: containers, and the modules' long-lived channels. An address names
    a Service by its first label: a workload none of whose strings can hold a wanted name
    is not read, and a channel whose target cannot come to hold one is not resolved (nor
    are the containers that run its code linked, nor its module's code loaded)."""
    names = _wanted_names(services)
    found: dict[int, list[Dialer]] = defaultdict(list)
    reaching = _Reaching.of(index, links, names)
    if reaching is None:
        names = None  # too many variables to narrow by: every one
    for workload in index.workload_objects if names is None else _mentioning(index, names):
        template = index.template(workload)
        for container in template.containers:
            for where, text, line in _strings(container.body):
                for word in _addresses(text):
                    address = parse_grpc_target(word)
                    for service in services_for(index, address, workload.namespace):
                        who = f"{workload.ref.display} ({where})"
                        related = Related(workload.path, line, f"{where} dials {word}")
                        meshed = index.mesh_of(workload, template) is not None
                        dialer = Dialer(who, related, workload.ref.display, meshed)
                        found[id(service)].append(dialer)
    for facts, channel in _channels(modules, reaching):
        for service, ports in _dialed(index, links, facts, channel):
            who = f"{facts.path}:{channel.loc.line}"
            related = Related(facts.path, channel.loc.line, "a gRPC channel dials it")
            meshed = _meshed(index, links, facts)
            found[id(service)].append(Dialer(who, related, "", meshed, ports, channel.loc))
    _add_mounted(index, names, found)  # after the channels, which say more (where, which port)
    return found


def _add_mounted(index: Index, names: set[str] | None, found: dict[int, list[Dialer]]) -> None:
    """The containers whose mounted configuration files name a Service with one of its
    ports (dialers_files.py), but for the Service's own pods: a workload once a Service.
    With `names`, only the workloads that name a ConfigMap that may hold one of them, or a
    Secret, are read."""
    held: set[str] | None = None
    if names is not None:
        held = {
            config.name
            for config in index.configs
            if config.name and (config.kind == "Secret" or config.may_mention(names))
        }
        if not held:
            return
        if len(held) > FEW_NAMES:
            held = None
    for workload in index.workload_objects:
        if held is not None and not workload.may_mention(held):
            continue
        template = index.template(workload)
        if not isinstance(template.spec.get("volumes"), YSeq):
            continue
        meshed: bool | None = None
        own = {id(service) for service in index.selecting(workload)}
        display = workload.ref.display
        for container in template.containers:
            for service, mounted in mounted_callees(index, workload, container):
                if id(service) in own:
                    continue  # a server's own address (to advertise, or one already said)
                own.add(id(service))
                if meshed is None:
                    meshed = index.mesh_of(workload, template) is not None
                config = f"{mounted.config.kind} {mounted.config.name}"
                who = f"{display} (file {mounted.mount_path} of {config})"
                said = f"{mounted.key}, mounted at {mounted.mount_path}, names {mounted.word}"
                related = Related(mounted.config.path, mounted.line, said)
                found[id(service)].append(Dialer(who, related, display, meshed))


def _meshed(index: Index, links: CodeLinks, facts: CodeFacts) -> bool:
    """Whether every pod known to run the module's code is in a mesh (none known: no)."""
    pods = [(link.workload, index.template(link.workload)) for link in links.running(facts.path)]
    return index.mesh_balancing(pods) is not None


def _dialed(
    index: Index, links: CodeLinks, facts: CodeFacts, channel: Channel
) -> list[tuple[K8sObject, tuple[int, ...]]]:
    """The Services a channel's target resolves to, each with the port numbers it names."""
    # (a literal target is no environment's: the containers that run the code are asked
    # of it only for a settings file's, which the settings a container mounts may override)
    parse = target_parser(channel.default_scheme)
    # each once: every container that runs the code may give the same address
    found: dict[int, tuple[K8sObject, list[int]]] = {}
    for destination in destinations_of(index, links, channel.target, parse, facts):
        # a port matched by a key's name alone is no evidence that it carries gRPC
        port = None if destination.keyed else destination.address.port
        for service in services_for(index, destination.address, destination.namespace):
            ports = found.setdefault(id(service), (service, []))[1]
            if port is not None and port not in ports:
                ports.append(port)
    return [(service, tuple(ports)) for service, ports in found.values()]


def per_call_only(
    index: Index,
    modules: Iterable[CodeFacts],
    links: CodeLinks,
    services: Collection[K8sObject],
    direct: Mapping[int, list[Dialer]],
) -> list[Dialer]:
    """The gRPC clients of the scanned code that dial `services` with a channel made per
    call (`with grpc.insecure_channel(...)`, a client built per request), when they are
    every client seen: no long-lived channel dials them (`direct`, dialers_by_service), and
    each container whose strings name them runs code with such a per-call channel. Each
    call is then a new connection, which kube-proxy places anew. Empty when any other
    client is seen, or none at all."""
    found = _PER_CALL.get(links)
    if found is None:
        found = _PER_CALL[links] = _per_call_dialers(index, modules, links)
    per_call = [d for service in services for d in found.get(id(service), ([], set()))[0]]
    running = {w for service in services for w in found.get(id(service), ([], set()))[1]}
    seen = [dialer for service in services for dialer in direct.get(id(service), [])]
    if not per_call or any(not d.workload or d.workload not in running for d in seen):
        return []
    return per_call


# The per-call dialers of a run's Services, found once (every channel of every module).
_PER_CALL: weakref.WeakKeyDictionary[CodeLinks, dict[int, tuple[list[Dialer], set[str]]]] = (
    weakref.WeakKeyDictionary()
)


def _per_call_dialers(
    index: Index, modules: Iterable[CodeFacts], links: CodeLinks
) -> dict[int, tuple[list[Dialer], set[str]]]:
    """By Service's id: the channels made per call that dial it, and the workloads that run
    their code."""
    found: dict[int, tuple[list[Dialer], set[str]]] = {}
    for facts in modules:
        if facts.is_test or not facts.dials_per_call():  # (asked without loading its code)
            continue
        for channel in facts.channels:
            if channel.long_lived:
                continue
            for service, _ in _dialed(index, links, facts, channel):
                dialers, running = found.setdefault(id(service), ([], set()))
                related = Related(
                    facts.path, channel.loc.line, "a gRPC channel made per call dials it"
                )
                dialers.append(Dialer(f"{facts.path}:{channel.loc.line}", related))
                running.update(
                    link.workload.ref.display for link in _runners(links, facts, channel)
                )
    return found


def _runners(links: CodeLinks, facts: CodeFacts, channel: Channel) -> list[Link]:
    """The containers that run the module's code, and, for a channel made in some Go
    programs only (Channel.programs: a shared factory's, closed per call there), run one
    of those programs."""
    runners = links.running(facts.path)
    if not channel.programs:
        return runners
    return [link for link in runners if any(p in link.modules for p in channel.programs)]


def config_dialers(index: Index, service: K8sObject, ports: Collection[int]) -> list[Dialer]:
    """The ConfigMaps and Secrets applied with the Service whose data names it on one of
    `ports`: the configuration files of a system whose components call each other
    (`frontend_address: loki-query-frontend:9095`). Only an address with its port counts:
    a configuration names a Service for many things (a gossip seed, an HTTP API)."""
    found: list[Dialer] = []
    for config in index.configs:
        if not index.together(service, config):
            continue
        # a Secret's data is base64: its body cannot be searched for the name
        if config.kind == "ConfigMap" and not config.may_mention({service.name or ""}):
            continue
        for key, (text, line, _block) in texts(index, config).items():
            for word in _addresses(text):
                address = parse_grpc_target(word)
                if address.port not in ports:
                    continue
                if any(s is service for s in services_for(index, address, config.namespace)):
                    who = f"{config.ref.display} ({key})"
                    found.append(Dialer(who, Related(config.path, line, f"{key} names {word}")))
    return found


def _channels(
    modules: Iterable[CodeFacts], reaching: _Reaching | None
) -> Iterator[tuple[CodeFacts, Channel]]:
    """The long-lived channels that may dial a wanted Service (every one when `reaching`
    is None); a module's code is loaded only when one of its targets may."""
    for facts in modules:
        # a settings file's channels may dial what a ConfigMap mounted over it names
        test = None if facts.language == "spring" else reaching
        if test is not None and not any(test(t, facts) for t in facts.dialed_targets()):
            continue
        for channel in facts.long_lived_channels():
            if test is None or test(channel.target, facts):
                yield facts, channel


class _Reaching:
    """Whether a channel's target may resolve to a wanted Service (`_may_reach`), read
    closer where only a variable can give it a name: a variable some containers' `env`
    sets to a text that may hold one (and no ConfigMap loads) gives the module such a text
    only where one of those containers runs it, or, where none runs it, where a workload
    nearest it sets it so (addresses.destinations). On a tree whose every module reads a
    variable that one workload sets to a judged Service's name, each module was resolved,
    asking which containers run it; now only those the setters' links run."""

    def __init__(self, index: Index, links: CodeLinks, names: set[str], naming: _Naming):
        self.index, self.links, self.names, self.naming = index, links, names, naming
        self.variables = naming.variables or set()
        self._run: dict[str, set[str]] = {}  # by variable: what its setters' containers run

    @classmethod
    def of(cls, index: Index, links: CodeLinks, names: set[str] | None) -> _Reaching | None:
        """The test for these names; None where every target is to be resolved (no names,
        or too many variables to narrow by)."""
        if names is None:
            return None
        naming = _naming_of(index, names)
        return cls(index, links, names, naming) if naming.variables is not None else None

    def __call__(self, target: object, facts: CodeFacts) -> bool:
        if not _may_reach(target, self.names, self.variables):
            return False
        if not isinstance(target, EnvRef) or _may_reach(target, self.names, set()):
            return True  # not by a variable alone: its prefix, suffix, default, a link
        name = target.name
        if name in self.naming.loaded or name not in self.naming.setters:
            return True
        if os.path.normpath(facts.path) in self._run_by(name):
            return True
        if self.links.runs(facts.path):
            return False  # run, by containers none of which sets the variable so
        # run by none: the workloads nearest it (every workload's env read, once)
        near = self.index.env_settings_near(name, facts.path, target.any_case)
        return any(_may_hold(setting.value, self.names) for setting in near)

    def _run_by(self, name: str) -> set[str]:
        if name not in self._run:
            workloads = {id(w): w for w in self.naming.setters[name]}.values()
            self._run[name] = {m for w in workloads for m in self.links.modules_run_by(w)}
        return self._run[name]


def searched_by_name(services: Collection[K8sObject]) -> bool:
    """Whether who dials `services` is looked for by their names (few Services, each name
    one an address can reach), not in the whole tree."""
    return _wanted_names(services) is not None


def _wanted_names(services: Collection[K8sObject] | None) -> set[str] | None:
    """The names to look for, or None: look at everything (many Services, or a name no
    search can be sure of)."""
    if services is None or len(services) > FEW_NAMES:
        return None
    names = {service.name or "" for service in services}  # "" (no name): no DNS label
    return names if all(_NAME.fullmatch(name) for name in names) else None


def _may_hold(text: str, names: set[str]) -> bool:
    """Whether the text holds one of the names once lower-cased, as an address's host is
    (services_for)."""
    lowered = text.lower()
    return any(name in lowered for name in names)


def joinable(char: str) -> bool:
    """Whether a name could run across this character (an empty string: no character)."""
    return bool(char) and (not char.isascii() or char.isalnum() or char == "-")


def _may_reach(target: object, names: set[str], naming: set[str]) -> bool:
    """Whether a channel's target may resolve to a wanted Service: a literal holding a
    name; or `prefix + os.environ[V] + suffix` whose prefix, suffix or default holds one,
    whose value a container sets to a text holding one, or whose prefix or suffix could
    join the value into one (`f"api-{os.environ['NAME']}"`)."""
    if isinstance(target, str):
        return _may_hold(target, names)
    if isinstance(target, EnvText):  # each of its values, and the text between them
        return any(_may_reach(part, names, naming) for part in target.parts)
    if isinstance(target, FlagRef | SettingsKey | FileKey):
        return True  # its value is in the args (or a mounted file) of the containers that run it
    if not isinstance(target, EnvRef):
        return False  # an unresolved value: it resolves to no Service (destinations)
    if joinable(target.prefix[-1:]) or joinable(target.suffix[:1]):
        return True
    if _may_hold(target.prefix, names) or _may_hold(target.suffix, names):
        return True
    if target.name in naming or linked_service_name(target.name) in names:
        return True  # set to a name, or the kubelet's link to a wanted Service
    return isinstance(target.default, str) and _may_hold(target.default, names)


# The schemes of gRPC resolvers that watch a Service's endpoints through the Kubernetes
# API (sercand/kuberesolver's default `kubernetes`, and the `k8s` it is often registered
# as): the channel gets the pods' addresses, updated as they change, and its balancer
# (`round_robin`) spreads the calls over them, past the ClusterIP.
API_RESOLVER_SCHEMES = ("kubernetes", "k8s")
_SCHEMES_SAID = {f"{scheme}:" for scheme in API_RESOLVER_SCHEMES}


def api_resolved(
    index: Index,
    modules: Iterable[CodeFacts],
    links: CodeLinks,
    services: Collection[K8sObject] | None = None,
) -> dict[int, list[Dialer]]:
    """The long-lived channels that resolve a Service's pods through the Kubernetes API
    (API_RESOLVER_SCHEMES: `kubernetes:///svc:port`, `k8s:///svc.ns:port`,
    `kubernetes://ns/svc:port`), by the Service's id: clients that reach its pods
    themselves, with no connection to the ClusterIP to stay on. With `services`, only a
    channel whose target may name one of them is read (as dialers_by_service reads them:
    a module whose targets cannot is not loaded)."""
    reaching = _Reaching.of(index, links, _wanted_names(services))
    schemes: list[set[str] | None] = []  # the variables that may hold a scheme, when asked

    def wanted(target: object, facts: CodeFacts) -> bool:
        if not _may_be_api(target):
            return False
        if reaching is None:
            return True
        # (the scheme first: following a variable to its setters' modules links them)
        return _may_name_api(index, target, schemes) and reaching(target, facts)

    found: dict[int, list[Dialer]] = defaultdict(list)
    for facts in modules:
        if facts.is_test or not any(wanted(t, facts) for t in facts.dialed_targets()):
            continue
        for channel in facts.long_lived_channels():
            if not wanted(channel.target, facts):
                continue
            parse = target_parser(channel.default_scheme)
            seen: set[int] = set()
            for destination in destinations_of(index, links, channel.target, parse, facts):
                named_text = destination.address.text
                named = api_target(named_text)
                if named is None:
                    continue
                name, namespace = named
                for service in index.services_named(name):
                    space = namespace or destination.namespace
                    if id(service) in seen or (
                        space is not None and service.namespace not in (space, None)
                    ):
                        continue
                    seen.add(id(service))
                    said = f"resolves its pods through the Kubernetes API ({named_text})"
                    related = Related(facts.path, channel.loc.line, said)
                    who = f"{facts.path}:{channel.loc.line}"
                    found[id(service)].append(Dialer(who, related, "", False, loc=channel.loc))
    return found


# Past this many variables that may give a wanted name, the search is not narrowed by
# them (every channel is resolved, as the whole tree's search does): a bound on a tree of
# thousands of ConfigMaps whose values name the Services, each loaded with its own prefix.
NAMING_BUDGET = 4096


# What a search by names found of the index's workloads, by the names: who dials a few
# Services and who resolves them through the API ask the same names in a run, and each
# look at a body's pickle (may_mention) costs some 6 us, 3,050 of them a pass on the bench
# tree.
_MENTIONING: weakref.WeakKeyDictionary[Index, dict[frozenset[str], list[K8sObject]]] = (
    weakref.WeakKeyDictionary()
)
_NAMING: weakref.WeakKeyDictionary[Index, dict[frozenset[str], _Naming]] = (
    weakref.WeakKeyDictionary()
)


@record
class _Naming:
    """What `_naming` finds: the variables (None past NAMING_BUDGET); the workloads whose
    `env` sets each of them to a text that may hold a name, by the variable; and those
    some container loads from a ConfigMap (no workload noted: each ConfigMap and prefix
    is read once)."""

    variables: set[str] | None
    setters: dict[str, list[K8sObject]]
    loaded: set[str]


def _mentioning(index: Index, names: set[str]) -> list[K8sObject]:
    """The workloads whose strings may hold one of the names, in the index's order."""
    known = _MENTIONING.setdefault(index, {})
    key = frozenset(names)
    if key not in known:
        known[key] = [w for w in index.workload_objects if w.may_mention(names)]
    return known[key]


def _naming(index: Index, names: set[str]) -> set[str] | None:
    """The env variables a container sets to a text that may hold one of the names, in
    its `env` or from a ConfigMap (addresses.loaded_env); None past NAMING_BUDGET. Worked
    out once a run for those names (the index's bodies do not change)."""
    found = _naming_of(index, names).variables
    return set(found) if found is not None else None


def _naming_of(index: Index, names: set[str]) -> _Naming:
    known = _NAMING.setdefault(index, {})
    key = frozenset(names)
    if key not in known:
        known[key] = _naming_anew(index, names)
    return known[key]


def _naming_anew(index: Index, names: set[str]) -> _Naming:
    setters: dict[str, list[K8sObject]] = defaultdict(list)
    for workload in _mentioning(index, names):
        for container in index.template(workload).containers:
            for setting in literal_env(workload, container):
                if _may_hold(setting.value, names):
                    setters[str(setting.entry.get("name"))].append(workload)
    found, held = set(setters), _held_by_config_maps(index, names)
    loaded_names: set[str] = set()
    if held:  # only the workloads that name one of those ConfigMaps are read (a few)
        every = len(held) > FEW_NAMES
        loaded: set[tuple[str, str]] = set()  # each ConfigMap and prefix once
        for workload in index.workload_objects:
            if every or workload.may_mention(held):
                for container in index.template(workload).containers:
                    loaded_names |= _loaded_names(container.body, held, loaded)
                    if len(found | loaded_names) > NAMING_BUDGET:
                        return _Naming(None, {}, set())
    # a dotted name is read too as the variable Spring's relaxed binding reads it under
    # (Index.env_setting, addresses.loaded_env): `backend.host` is `BACKEND_HOST`
    for name in [name for name in setters if "." in name]:
        setters[environment_name(name)] += setters[name]
    loaded_names |= {environment_name(name) for name in loaded_names if "." in name}
    # and in capitals, as a variable read in any case is named (pydantic's: EnvRef.any_case)
    for name in [name for name in setters if name.upper() != name]:
        setters[name.upper()] += setters[name]
    loaded_names |= {name.upper() for name in loaded_names}
    found = set(setters) | loaded_names
    if len(found) > NAMING_BUDGET:
        return _Naming(None, {}, set())
    return _Naming(found, dict(setters), loaded_names)


def _held_by_config_maps(index: Index, names: set[str]) -> dict[str, set[str]]:
    """The keys of each ConfigMap (by its name) whose value may hold one of the names."""
    held: dict[str, set[str]] = defaultdict(set)
    for config in index.configs:
        if config.kind != "ConfigMap" or not config.name or not config.may_mention(names):
            continue
        data = config.body.get("data")
        if isinstance(data, YMap):
            held[config.name] |= {
                str(key)
                for key, value in data.items()
                if isinstance(value, str) and _may_hold(value, names)
            }
    return {name: keys for name, keys in held.items() if keys}


def _loaded_names(
    container: YMap, held: Mapping[str, set[str]], loaded: set[tuple[str, str]]
) -> set[str]:
    """The env variables a container loads from the keys `held` of ConfigMaps: through
    `envFrom` (with its prefix; each ConfigMap and prefix not in `loaded` yet, which
    notes it) or an `env` entry's `valueFrom.configMapKeyRef`, as addresses.loaded_env
    reads them (whichever namespace the ConfigMap is in)."""
    found: set[str] = set()
    for entry in container.get("envFrom") or []:
        if not isinstance(entry, YMap) or not isinstance(entry.get("configMapRef"), YMap):
            continue
        prefix, name = entry.get("prefix") or "", str(entry["configMapRef"].get("name"))
        if isinstance(prefix, str) and (name, prefix) not in loaded:
            loaded.add((name, prefix))
            found |= {f"{prefix}{key}" for key in held.get(name, ())}
    entries = container.get("env")
    for entry in entries if isinstance(entries, YSeq) else ():
        named = entry.get("name") if isinstance(entry, YMap) else None
        reference = dig(entry, "valueFrom", "configMapKeyRef") if named is not None else None
        if (
            isinstance(named, str)
            and isinstance(reference, YMap)
            and str(reference.get("key")) in held.get(str(reference.get("name")), ())
        ):
            found.add(named)
    return found


def _may_name_api(index: Index, target: object, schemes: list[set[str] | None]) -> bool:
    """Whether a channel's target may resolve to an API resolver's text: one that holds
    its scheme, as `_may_reach` tells of a name (a literal, or a variable a container sets
    to a text holding one, or a prefix, suffix or default that holds or completes one).
    Where a few Services are asked for, the channels that read a variable set to a plain
    address are not resolved: on a tree whose every module reads the variable one
    workload sets to a judged Service's name, a hook on a module resolved all of them.
    A resolver's text holds its scheme and the `:` after it, which a text the code makes
    holds too unless the `:` starts the code's suffix (the scheme ending the value), so
    the variables looked for are those set to a text holding `kubernetes:` or `k8s:`
    (`k8s` alone is in many a manifest's path, which a body's pickle holds). `schemes`
    keeps them, worked out once a search (None past NAMING_BUDGET: every target may)."""
    if isinstance(target, EnvText) or (
        isinstance(target, EnvRef)
        and (target.suffix.startswith(":") or not isinstance(target.default, str | None))
    ):
        # a scheme may run across its values, end a value its suffix's `:` follows, or
        # come from another variable
        return True
    if not schemes:
        schemes.append(_naming(index, _SCHEMES_SAID))
    naming = schemes[0]
    return naming is None or _may_reach(target, _SCHEMES_SAID, naming)


def _may_be_api(target: object) -> bool:
    """Whether a channel's target may be an API resolver's: a text with its scheme, or a
    value the environment, a flag or a setting gives."""
    if isinstance(target, str):
        return target.lower().startswith(tuple(f"{s}:" for s in API_RESOLVER_SCHEMES))
    return isinstance(target, EnvRef | EnvText | FlagRef | SettingsKey | FileKey)


def api_target(text: str) -> tuple[str, str | None] | None:
    """The Service's name and namespace (None: the client's) an API resolver's target
    names: `kubernetes:///svc:port`, `kubernetes:///svc.ns:port`,
    `kubernetes://ns/svc:port`; None for any other target."""
    scheme, separator, rest = text.partition("://")
    if not separator or scheme.lower() not in API_RESOLVER_SCHEMES:
        return None
    authority, _, path = rest.partition("/")
    host = path.rsplit(":", 1)[0] if ":" in path else path
    name, _, namespace = host.partition(".")
    namespace = namespace.split(".", 1)[0] or authority or ""
    return (name, namespace or None) if name else None
