"""Containers that dial a Service through a configuration file they mount: a ConfigMap's
or a Secret's key mounted as a file (YAML, JSON, TOML, properties: read as text, whatever
library the code reads it with) whose value names the Service with one of its ports
(`addr: backend:50051`, `dns:///backend.shop:50051`, `url = "http://backend:8080/v1"`). Such a
container is a caller of the Service as one whose `env` names it is (dialers.py).

Only an address with its port counts (a file names Services for many things), and a
container that the Service itself selects is no caller of it (a server's file names its
own address to advertise or to listen on). Each file is read up to MAX_FILE characters
(mounted_texts.py), and up to MAX_WORDS address-like words of it."""

from __future__ import annotations

import weakref
from collections.abc import Iterator

from k8slb.core import regex
from k8slb.core.record import record
from k8slb.model.addresses import parse_grpc_target, services_for
from k8slb.model.index import Index
from k8slb.model.mounted_texts import config_of, mounts, texts
from k8slb.model.objects import Container
from k8slb.reading.objects import K8sObject

MAX_WORDS = 4096  # address-like words of a file read

# as dialers._WORD: words that can be addresses (`backend:50051`, `http://backend:8080/x`)
_WORD = regex.compile(r"[A-Za-z][A-Za-z0-9:/._-]*")


@record
class MountedAddress:
    """An address a file a container mounts names, and where."""

    word: str  # `backend:50051`, `dns:///backend:50051`
    config: K8sObject  # the ConfigMap or Secret
    key: str
    mount_path: str  # where the container sees the file
    line: int  # the line of the ConfigMap or Secret that holds it


def mounted_callees(
    index: Index, workload: K8sObject, container: Container
) -> Iterator[tuple[K8sObject, MountedAddress]]:
    """The Services the ConfigMap and Secret keys the container mounts as files name with
    one of their ports (a bare name looked up in the workload's namespace), each with the
    first address of a file that names it. Each file's Services are found once a run."""
    for kind, name, key, path in mounts(index, workload, container):
        config = config_of(index, workload, kind, name)
        if config is None:
            continue
        for service, word, line in _named(index, config, key, workload.namespace):
            yield service, MountedAddress(word, config, key, path, line)


# (ConfigMap or Secret, key, namespace) -> the Services its file names, each with its first
# address and line: every workload that mounts the file asks again.
_NAMED: weakref.WeakKeyDictionary[
    Index, dict[tuple[int, str, str | None], list[tuple[K8sObject, str, int]]]
] = weakref.WeakKeyDictionary()


def _named(
    index: Index, config: K8sObject, key: str, namespace: str | None
) -> list[tuple[K8sObject, str, int]]:
    known = _NAMED.setdefault(index, {})
    found = known.get((id(config), key, namespace))
    if found is not None:
        return found
    found = []
    entry = texts(index, config).get(key)
    if entry is not None:
        text, line, block = entry
        seen: set[int] = set()
        for word, offset in _words(text):
            for service in services_for(index, parse_grpc_target(word), namespace):
                if id(service) not in seen:
                    seen.add(id(service))
                    found.append((service, word, line + (offset if block else 0)))
    known[(id(config), key, namespace)] = found
    return found


def _words(text: str) -> Iterator[tuple[str, int]]:
    """The address words of a text that carry a port, each with its line in the text
    (counting from 1): `backend:50051`, `dns:///backend:50051`, and a URL's host and port
    (`http://backend:8080/x`: `backend:8080`)."""
    line, last = 1, 0
    for number, match in enumerate(_WORD.finditer(text)):
        if number >= MAX_WORDS:
            return
        word = match.group(0)
        scheme, separator, rest = word.partition("://")
        if separator and scheme.lower() != "dns":  # a gRPC target keeps its scheme
            word = rest.split("/", 1)[0]
        elif not separator:  # `backend:5432/db`: the host and port before the path
            word = word.split("/", 1)[0]
        host, colon, port = word.rpartition(":")
        if not colon or not host or not port.isdigit():
            continue
        line += text.count("\n", last, match.start())
        last = match.start()
        yield word, line
