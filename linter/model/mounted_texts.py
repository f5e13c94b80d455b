"""The files a container mounts from ConfigMaps and Secrets, and their texts: a volume's
keys (each a file, or as its `items` say), a `subPath`, a `projected` volume's sources.
Read by who dials a Service through such a file (dialers_files.py) and by the addresses a
code's key of a configuration file is given (addresses_files.py). Each text is read up to
MAX_FILE characters."""

from __future__ import annotations

import base64
import binascii
import weakref
from collections.abc import Iterator, Mapping

from k8slb.model.index import Index
from k8slb.model.objects import Container, mounted_files, pos_of, volume_items
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

MAX_FILE = 256 * 1024  # characters of a mounted file read


def mounts(
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
    entries = container.body.get("volumeMounts")
    for mount in entries if isinstance(entries, YSeq) else ():
        if not isinstance(mount, YMap) or not isinstance(mount.get("mountPath"), str):
            continue
        for kind, source, name in sources.get(mount.get("name"), ()):
            config = config_of(index, workload, kind, name)
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
    return [(key, key) for key in texts(index, config)] if config is not None else []


# Each run's ConfigMaps and Secrets by (kind, namespace, name), and each one's texts by
# key (text, line, whether a block's lines follow its key's): made once a run.
_BY_NAME: weakref.WeakKeyDictionary[Index, dict[tuple[str, str, str], list[K8sObject]]] = (
    weakref.WeakKeyDictionary()
)
_TEXTS: weakref.WeakKeyDictionary[Index, dict[int, dict[str, tuple[str, int, bool]]]] = (
    weakref.WeakKeyDictionary()
)


def config_of(index: Index, workload: K8sObject, kind: str, name: str) -> K8sObject | None:
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


def texts(index: Index, config: K8sObject) -> Mapping[str, tuple[str, int, bool]]:
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
