"""Settings files a Go program reads with viper (`AddConfigPath("/configs")`,
`SetConfigName("config")`, then `viper.Unmarshal(&cfg)`), as a container mounts them from a
ConfigMap: a channel made from a field of the settings struct (code/facts.SettingsKey)
dials the address the mounted file sets at the field's key. The mounts are read as for
Spring's settings files (addresses_spring.mounted_keys).

And a property of an object another language's code read from a file k8slb does not
follow (code/facts.FileKey: `processor.addr`): what the YAML or JSON files the containers
mount from a ConfigMap or a Secret set at a key of that name."""

from __future__ import annotations

import posixpath
import weakref
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import FileKey, SettingsKey
from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import read_settings
from k8slb.model.addresses_spring import mounted_keys
from k8slb.model.index import Index
from k8slb.model.links import Link
from k8slb.model.mounted_texts import config_of, mounts, texts
from k8slb.model.objects import pos_of
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap

# the extensions viper reads as YAML, which it finds the file by (`config.yaml`)
_YAML = (".yaml", ".yml")


@record
class Given:
    """A value a mounted settings file gives a key, and where."""

    value: str
    namespace: str | None  # the workload's, where a bare name is looked up
    origin: str  # for messages
    via: Related


def mounted_values(index: Index, wanted: SettingsKey, runners: Sequence[Link]) -> list[Given]:
    """What the YAML settings files the containers mount where the program looks for its
    file (one of its folders, named as it names it, or any YAML file there when the code
    builds the name) set at the key, compared as viper does (in any case)."""
    key = wanted.key.lower()
    found: list[Given] = []
    for link in runners:
        for config_name, data_key, path in mounted_keys(index, link.workload, link.container):
            folder, file = posixpath.split(posixpath.normpath(path))
            stem, extension = posixpath.splitext(file)
            if folder not in wanted.folders or extension not in _YAML:
                continue
            if wanted.name is not None and stem != wanted.name:
                continue
            config = index.config_map(link.workload, config_name)
            data = config.body.get("data") if config is not None else None
            text = data.get(data_key) if isinstance(data, YMap) else None
            if config is None or not isinstance(data, YMap) or not isinstance(text, str):
                continue
            given = _settings(index, config, data_key, text).get(key, [])
            if len(given) != 1 or not isinstance(given[0][0], str):
                continue
            # a block scalar's first line is the one after its key's
            line = pos_of(data, data_key, value=True)[0] + given[0][1]
            place = f"{posixpath.basename(config.path)}:{line}"
            origin = (
                f"{wanted.key} in ConfigMap {config.name}'s {data_key}, mounted at {path} "
                f"in {link.workload.ref.display} ({place})"
            )
            via = Related(config.path, line, f"{wanted.key}: {given[0][0]}")
            found.append(Given(given[0][0], link.workload.namespace, origin, via))
    return found


# what a file key's name may be matched in: YAML, and JSON (which YAML reads)
_KEYED = (*_YAML, ".json")
MAX_KEYED = 8  # values one file key is given in one container (a list's entries)


def keyed_values(index: Index, wanted: FileKey, runners: Sequence[Link]) -> list[Given]:
    """What the YAML and JSON files the containers mount from a ConfigMap or a Secret
    (mounted_texts.py) set at a key named as `wanted` is, at any depth and in any list
    (`spec.processors[1].addr` for `addr`), compared in any case: each text value, up to
    MAX_KEYED a container. A value naming a Service that selects the container's own pods
    is left out: a server's file names its own address (to listen on, to advertise)."""
    name = wanted.key.lower()
    found: list[Given] = []
    # a file many workloads mount gives its values once (the first container's words)
    seen: set[tuple[str, str | None, Related]] = set()
    for link in runners:
        given = 0
        own = {service.name for service in index.selecting(link.workload) if service.name}
        for kind, config_name, data_key, path in mounts(index, link.workload, link.container):
            if not path.lower().endswith(_KEYED) or given >= MAX_KEYED:
                continue
            config = config_of(index, link.workload, kind, config_name)
            entry = texts(index, config).get(data_key) if config is not None else None
            if config is None or entry is None or name not in entry[0].lower():
                continue
            text, line, block = entry
            # JSON is read as the YAML it is (read_settings goes by the file's name)
            reading = data_key if data_key.lower().endswith(_YAML) else f"{data_key}.yaml"
            for key, values in _by_last_name(index, config, reading, text).get(name, ()):
                for value, offset in values:
                    if not isinstance(value, str) or given >= MAX_KEYED:
                        continue
                    if _names_own(value, own):
                        continue
                    given += 1
                    at = line + offset if block else line
                    place = f"{posixpath.basename(config.path)}:{at}"
                    origin = (
                        f"{key} in {kind} {config.name}'s {data_key}, mounted at {path} in "
                        f"{link.workload.ref.display} ({place})"
                    )
                    via = Related(config.path, at, f"{key}: {value}")
                    if (value, link.workload.namespace, via) not in seen:
                        seen.add((value, link.workload.namespace, via))
                        found.append(Given(value, link.workload.namespace, origin, via))
    return found


def _names_own(value: str, own: set[str]) -> bool:
    """Whether an address's host begins with the name of one of the container's own
    Services (`self:50051`, `self.ns.svc:50051`, `dns:///self:50051`)."""
    host = value.rpartition("://")[2].lstrip("/").lower()
    return host.split(".", 1)[0].split(":", 1)[0] in own


# Each file's settings by their keys' last names (`spec.processors[0].addr`: `addr`), made
# once a run: every container that mounts the file asks again.
_LAST: weakref.WeakKeyDictionary[
    Index, dict[tuple[int, str], dict[str, list[tuple[str, list[tuple[Any, int]]]]]]
] = weakref.WeakKeyDictionary()


def _by_last_name(
    index: Index, config: K8sObject, data_key: str, text: str
) -> dict[str, list[tuple[str, list[tuple[Any, int]]]]]:
    known = _LAST.setdefault(index, {})
    found = known.get((id(config), data_key))
    if found is None:
        found = known[(id(config), data_key)] = defaultdict(list)
        for key, values in _settings(index, config, data_key, text).items():
            found[key.rpartition(".")[2].split("[", 1)[0]].append((key, values))
    return found


# Each ConfigMap key's settings by their keys in lower case (value, line), read once a run
# (by the Index, which the run keeps): every channel of every runner asks again.
_READ: weakref.WeakKeyDictionary[Index, dict[tuple[int, str], dict[str, list[tuple[Any, int]]]]]
_READ = weakref.WeakKeyDictionary()


def _settings(
    index: Index, config: K8sObject, data_key: str, text: str
) -> dict[str, list[tuple[Any, int]]]:
    """A ConfigMap's or Secret's file's settings by their keys in lower case: each
    (value, line in the file)."""
    known = _READ.setdefault(index, {})
    found = known.get((id(config), data_key))
    if found is None:
        found = defaultdict(list)
        for key, value, loc in read_settings(data_key, text)[0]:
            found[key.lower()].append((value, loc.line))
        known[(id(config), data_key)] = found
    return found
