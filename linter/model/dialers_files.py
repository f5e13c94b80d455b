"""Containers that dial a Service through a configuration file they mount: a ConfigMap's
or a Secret's key mounted as a file (YAML, JSON, TOML, properties: read as text, whatever
library the code reads it with) whose value names the Service with one of its ports
(`addr: backend:50051`, `dns:///backend.shop:50051`, `url = "http://backend:8080/v1"`). Such a
container is a caller of the Service as one whose `env` names it is (dialers.py).

Only an address with its port counts (a file names Services for many things), and a
container that the Service itself selects is no caller of it (a server's file names its
own address to advertise or to listen on). Each file is read up to MAX_FILE characters,
and up to MAX_WORDS address-like words of it."""

from __future__ import annotations

import base64
import binascii
import weakref
from collections.abc import Iterator, Mapping

from k8slb.core import regex
from k8slb.core.record import record
from k8slb.model.addresses import parse_grpc_target, services_for
from k8slb.model.index import Index
from k8slb.model.objects import Container, mounted_files, pos_of, volume_items
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

MAX_FILE = 256 * 1024  # characters of a mounted file read
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
    for kind, name, key, path in _mounts(index, workload, container):
        config = _config(index, workload, kind, name)
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
    entry = _texts(index, config).get(key)
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


def _mounts(
    index: Index, workload: K8sObject, container: Container
) -> Iterator[tuple[str, str, str, str]]:
    """(kind, name, key, path in the container) of each ConfigMap or Secret key the
    container mounts as a file: a volume's whole data (each key a file named so, or as its
    `items` say; a `projected` volume's sources each so), or one key by `subPath`."""
    volumes = index.template(workload).spec.get("volumes")
    sources: dict[object, list[tuple[str, YMap, str]]] = {}
    for volume in volumes if isinstance(volumes, YSeq) else ():
        if isinstance(volume, YMap):
            sources[volume.get("name")] = _sources(volume)
    mounts = container.body.get("volumeMounts")
    for mount in mounts if isinstance(mounts, YSeq) else ():
        if not isinstance(mount, YMap) or not isinstance(mount.get("mountPath"), str):
            continue
        for kind, source, name in sources.get(mount.get("name"), ()):
            config = _config(index, workload, kind, name)
            for key, path in mounted_files(mount, _volume_files(index, config, source)):
                yield kind, name, key, path


_KINDS = (("configMap", "ConfigMap", "name"), ("secret", "Secret", "secretName"))


def _sources(volume: YMap) -> list[tuple[str, YMap, str]]:
    """(kind, source, name) of the ConfigMaps and Secrets a volume holds: its own, or a
    `projected` volume's sources (whose Secrets are named by `name`)."""
    found: list[tuple[str, YMap, str]] = []
    for field, kind, named in _KINDS:
        source = volume.get(field)
        if isinstance(source, YMap) and isinstance(source.get(named), str):
            found.append((kind, source, source[named]))
    projected = dig(volume, "projected", "sources")
    for item in projected if isinstance(projected, YSeq) else ():
        for field, kind, _ in _KINDS:
            source = item.get(field) if isinstance(item, YMap) else None
            if isinstance(source, YMap) and isinstance(source.get("name"), str):
                found.append((kind, source, source["name"]))
    return found


def _volume_files(index: Index, config: K8sObject | None, source: YMap) -> list[tuple[str, str]]:
    """(key, file name in the volume) of a volume: `items`, else every key."""
    listed = volume_items(source)
    if listed is not None:
        return listed
    return [(key, key) for key in _texts(index, config)] if config is not None else []


# Each run's ConfigMaps and Secrets by (kind, namespace, name), and each one's texts by
# key (text, line, whether a block's lines follow its key's): made once a run.
_BY_NAME: weakref.WeakKeyDictionary[Index, dict[tuple[str, str, str], list[K8sObject]]] = (
    weakref.WeakKeyDictionary()
)
_TEXTS: weakref.WeakKeyDictionary[Index, dict[int, dict[str, tuple[str, int, bool]]]] = (
    weakref.WeakKeyDictionary()
)


def _config(index: Index, workload: K8sObject, kind: str, name: str) -> K8sObject | None:
    """The ConfigMap or Secret of that name in the workload's namespace, applied with it."""
    table = _BY_NAME.get(index)
    if table is None:
        table = _BY_NAME[index] = {}
        for config in index.configs:
            if config.name:
                table.setdefault((config.kind, config.namespace or "", config.name), []).append(
                    config
                )
    found = table.get((kind, workload.namespace or "", name), [])
    return next((config for config in found if index.together(config, workload)), None)


def _texts(index: Index, config: K8sObject) -> Mapping[str, tuple[str, int, bool]]:
    """A ConfigMap's data, or a Secret's (`data` decoded, `stringData`), by key: the text
    (up to MAX_FILE characters), its line, and whether it is a block whose lines follow."""
    known = _TEXTS.setdefault(index, {})
    found = known.get(id(config))
    if found is not None:
        return found
    found = {}
    for field in ("data", "stringData"):
        entries = config.body.get(field)
        if not isinstance(entries, YMap):
            continue
        for key, value in entries.items():
            if not isinstance(value, str):
                continue
            block = field == "stringData" or config.kind == "ConfigMap"
            if field == "data" and config.kind == "Secret":
                try:
                    value = base64.b64decode(value[: MAX_FILE * 2], validate=True).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    continue
            line = pos_of(entries, key, value=True)[0]
            found[str(key)] = (value[:MAX_FILE], line, block and "\n" in value)
    known[id(config)] = found
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
