"""Who dials a Service by its own name: containers whose `env` values, `args` or
`command` hold its address, and long-lived gRPC channels in the code whose target
resolves to it. A client that dials a ClusterIP Service directly stays on one pod, whatever
headless twin or proxy exists beside it. (A ConfigMap a container mounts is not read.)"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from k8slb.code.facts import Channel, CodeFacts
from k8slb.model.addresses import destinations, parse_grpc_target, services_for, target_parser
from k8slb.model.index import Index
from k8slb.model.links import CodeLinks
from k8slb.model.objects import pos_of
from k8slb.reading.yamltree import YMap, YSeq
from k8slb.record import record
from k8slb.report.findings import Related

# Words that can be addresses: `backend:50051`, `backend.shop.svc.cluster.local`,
# `dns:///backend.shop:50051`, `http://backend:8080/x`; a bare word is not one.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9:/._-]*")


@record
class Dialer:
    who: str  # "Deployment/shop/frontend (env BACKEND_ADDR)", "client.py:10"
    related: Related


def _addresses(text: str) -> Iterable[str]:
    for word in _WORD.findall(text):
        word = word.split("://", 1)[-1].split("/", 1)[0] if "://" in word else word
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


def dialers_by_service(
    index: Index, code: Iterable[tuple[CodeFacts, Channel]], links: CodeLinks
) -> dict[int, list[Dialer]]:
    """Every direct dialer of every scanned Service, keyed by the Service's id."""
    found: dict[int, list[Dialer]] = defaultdict(list)
    for workload, template in index.workloads:
        for container in template.containers:
            for where, text, line in _strings(container.body):
                for word in _addresses(text):
                    address = parse_grpc_target(word)
                    for service in services_for(index, address, workload.namespace):
                        who = f"{workload.ref.display} ({where})"
                        related = Related(workload.path, line, f"{where} dials {word}")
                        found[id(service)].append(Dialer(who, related))
    for facts, channel in code:
        runners = links.running(facts.path)
        target = channel.target
        parse = target_parser(channel.default_scheme)
        for destination in destinations(index, target, parse, facts.path, runners):
            for service in services_for(index, destination.address, destination.namespace):
                who = f"{facts.path}:{channel.loc.line}"
                related = Related(facts.path, channel.loc.line, "a gRPC channel dials it")
                found[id(service)].append(Dialer(who, related))
    return found
