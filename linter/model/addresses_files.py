"""Settings files a Go program reads with viper (`AddConfigPath("/configs")`,
`SetConfigName("config")`, then `viper.Unmarshal(&cfg)`), as a container mounts them from a
ConfigMap: a channel made from a field of the settings struct (code/facts.SettingsKey)
dials the address the mounted file sets at the field's key. The mounts are read as for
Spring's settings files (addresses_spring.mounted_keys)."""

from __future__ import annotations

import posixpath
import weakref
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from k8slb.code.facts import SettingsKey
from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import read_settings
from k8slb.model.addresses_spring import mounted_keys
from k8slb.model.index import Index
from k8slb.model.links import Link
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


# Each ConfigMap key's settings by their keys in lower case (value, line), read once a run
# (by the Index, which the run keeps): every channel of every runner asks again.
_READ: weakref.WeakKeyDictionary[Index, dict[tuple[int, str], dict[str, list[tuple[Any, int]]]]]
_READ = weakref.WeakKeyDictionary()


def _settings(
    index: Index, config: K8sObject, data_key: str, text: str
) -> dict[str, list[tuple[Any, int]]]:
    known = _READ.setdefault(index, {})
    found = known.get((id(config), data_key))
    if found is None:
        found = defaultdict(list)
        for key, value, loc in read_settings(data_key, text)[0]:
            found[key.lower()].append((value, loc.line))
        known[(id(config), data_key)] = found
    return found
