"""Spring Boot settings a container mounts from a ConfigMap: an `application.yml`,
`.yaml` or `.properties` key placed where Spring reads settings outside the jar (a `config`
folder beside the working directory, `file:./config/`, which images put at `/config` or
`/app/config`; or a location `SPRING_CONFIG_LOCATION`, `SPRING_CONFIG_ADDITIONAL_LOCATION`
or `--spring.config.location` names). Spring reads those over the jar's own
`application.*`, so a gRPC channel the starter makes from the jar's settings dials the
address the mounted file gives it (addresses.destinations reads it there)."""

from __future__ import annotations

import posixpath
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import replace

from k8slb.code.facts import Channel, CodeFacts
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import parse as parse_settings
from k8slb.languages.java.parse_spring import profile_of
from k8slb.model.index import Index
from k8slb.model.objects import Container, mounted_files, pos_of, volume_items
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap, YSeq

# The files Spring reads in a settings folder (a profile's, `application-prod.yml`, runs
# only where the deployment chooses it: not read)
SETTINGS_FILES = ("application.properties", "application.yml", "application.yaml")
_LOCATION_VARIABLES = ("SPRING_CONFIG_LOCATION", "SPRING_CONFIG_ADDITIONAL_LOCATION")
_LOCATION_FLAGS = ("--spring.config.location=", "--spring.config.additional-location=")
_PROFILES_VARIABLE = "SPRING_PROFILES_ACTIVE"
_PROFILES_FLAG = "--spring.profiles.active="


@record
class Mounted:
    """A settings file a container mounts: the ConfigMap, its key, and where it is put."""

    config: K8sObject
    key: str
    mount_path: str
    facts: CodeFacts  # its settings read as a settings file's, at the ConfigMap's lines


def mounted_settings(index: Index, workload: K8sObject, container: Container) -> list[Mounted]:
    """The Spring settings files the container mounts from ConfigMaps applied with it,
    where Spring reads them."""
    folders = _settings_folders(container)
    found: list[Mounted] = []
    for config_name, key, path in mounted_keys(index, workload, container):
        folder, name = posixpath.split(posixpath.normpath(path))
        named = path in folders.files
        if not named and (name not in SETTINGS_FILES or not _read_folder(folder, folders.dirs)):
            continue
        config = index.config_map(workload, config_name)
        facts = _parsed(index, config, key) if config is not None else None
        if config is not None and facts is not None:
            found.append(Mounted(config, key, path, facts))
    return found


@record
class _Locations:
    dirs: frozenset[str]  # folders named by a location
    files: frozenset[str]  # files named by a location


def _settings_folders(container: Container) -> _Locations:
    """The folders and files the container's env and args name as Spring's locations."""
    named: list[str] = []
    entries = container.body.get("env")
    for entry in entries if isinstance(entries, YSeq) else ():
        if isinstance(entry, YMap) and entry.get("name") in _LOCATION_VARIABLES:
            value = entry.get("value")
            named += value.split(",") if isinstance(value, str) else []
    for word in container.words:
        for flag in _LOCATION_FLAGS:
            if word.startswith(flag):
                named += word[len(flag) :].split(",")
    dirs, files = set(), set()
    for location in named:
        text = location.strip().removeprefix("optional:").removeprefix("file:")
        if not text.startswith("/"):
            continue  # the classpath's, or relative to a working directory k8slb cannot see
        if text.endswith("/"):
            dirs.add(posixpath.normpath(text))
        else:
            files.add(posixpath.normpath(text))
    return _Locations(frozenset(dirs), frozenset(files))


def active_profiles(container: Container) -> frozenset[str] | None:
    """The Spring profiles a container activates (`SPRING_PROFILES_ACTIVE` in its `env`,
    or `--spring.profiles.active=` in its command and args, which wins); None where it
    names none (the settings' own `spring.profiles.active`, or the default, then decide)."""
    named: str | None = None
    entries = container.body.get("env")
    for entry in entries if isinstance(entries, YSeq) else ():
        if isinstance(entry, YMap) and entry.get("name") == _PROFILES_VARIABLE:
            value = entry.get("value")
            named = value if isinstance(value, str) else None  # valueFrom: not known
    for word in container.words:
        if word.startswith(_PROFILES_FLAG):
            named = word[len(_PROFILES_FLAG) :]
    if named is None:
        return None
    return frozenset(p.strip() for p in named.split(",") if p.strip())


def runs_profile(containers: Iterable[Container], settings_path: str) -> bool:
    """Whether a settings file (a profile's, `application-k8s.yml`) may be read in one of
    the containers that run its code: the base settings always are; a profile's unless
    each container names the profiles it activates and none is this one."""
    profile = profile_of(settings_path)
    if profile is None:
        return True
    named = [active_profiles(container) for container in containers]
    return not named or any(found is None or profile in found for found in named)


def _read_folder(folder: str, named: frozenset[str]) -> bool:
    """Whether Spring reads settings files from the folder: one a location names, or a
    `config` folder (`file:./config/` of a working directory at `/` or `/app`)."""
    return folder in named or posixpath.basename(folder) == "config"


def mounted_keys(
    index: Index, workload: K8sObject, container: Container
) -> Iterator[tuple[str, str, str]]:
    """(ConfigMap, key, path in the container) of each ConfigMap key the container mounts
    as a file: a volume's whole data (each key a file named so, or as its `items` say), or
    one key by `subPath`."""
    volumes = index.template(workload).spec.get("volumes")
    by_name = {
        v.get("name"): v.get("configMap")
        for v in (volumes if isinstance(volumes, YSeq) else ())
        if isinstance(v, YMap) and isinstance(v.get("configMap"), YMap)
    }
    mounts = container.body.get("volumeMounts")
    for mount in mounts if isinstance(mounts, YSeq) else ():
        if not isinstance(mount, YMap) or not isinstance(mount.get("mountPath"), str):
            continue
        source = by_name.get(mount.get("name"))
        if not isinstance(source, YMap) or not isinstance(source.get("name"), str):
            continue
        for key, path in mounted_files(mount, _volume_files(index, workload, source)):
            yield source["name"], key, path


def _volume_files(index: Index, workload: K8sObject, source: YMap) -> list[tuple[str, str]]:
    """(key, file name in the volume) of a ConfigMap volume: `items`, else every key."""
    listed = volume_items(source)
    if listed is not None:
        return listed
    config = index.config_map(workload, source["name"])
    data = config.body.get("data") if config is not None else None
    return [(str(key), str(key)) for key in data] if isinstance(data, YMap) else []


# Each ConfigMap key's settings, read once a run (by the Index, which the run keeps).
_PARSED: weakref.WeakKeyDictionary[Index, dict[tuple[int, str], CodeFacts | None]] = (
    weakref.WeakKeyDictionary()
)


def _parsed(index: Index, config: K8sObject, key: str) -> CodeFacts | None:
    """A ConfigMap key's text read as a settings file (the same reader, with its limits
    on size and depth), its places at the ConfigMap's lines; None when it is no text or
    names no setting a channel is made from."""
    known = _PARSED.setdefault(index, {})
    if (id(config), key) in known:
        return known[(id(config), key)]
    data = config.body.get("data")
    text = data.get(key) if isinstance(data, YMap) else None
    facts = None
    if isinstance(text, str) and isinstance(data, YMap):
        facts = parse_settings(key, text.encode())  # read as its name says: YAML or not
        # a block scalar's first line is the one after its key's
        first = pos_of(data, key, value=True)[0]
        facts.channels = [_at(channel, config.path, first) for channel in facts.channels]
        facts = facts if facts.channels else None
    known[(id(config), key)] = facts
    return facts


def _at(channel: Channel, path: str, first: int) -> Channel:
    return replace(channel, loc=replace(channel.loc, path=path, line=channel.loc.line + first))
