"""What a kustomization file names: the entries of its `resources:`, `bases:` and
`components:` lists, where they lead, and which of them k8slb cannot read (a remote one,
one outside the repository). Read line by line, as kustomizations are written; no YAML
parser, no kustomize."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from k8slb.core import regex
from k8slb.core.record import record
from k8slb.reading.repository import inside

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


@record
class Reference:
    """An entry of a kustomization's `resources:`, `bases:` or `components:` list."""

    text: str  # as written
    line: int
    column: int
    target: str | None  # the path it names, resolved; None for a remote one (a URL)


_LISTS = regex.compile(r"^(resources|bases|components):")
_ITEM = regex.compile(r"^(\s*-\s*)['\"]?([^'\"#\s]+)")
_REMOTE = regex.compile(
    r"^[a-z][a-z0-9+.-]*://|^(github\.com|gitlab\.com|bitbucket\.org)/|^git@", regex.IGNORECASE
)


def _listed(text: str, headings: regex.Pattern[str]) -> Iterator[tuple[str, int, str]]:
    """(the list's key, line number, line) of each line inside a top-level list that
    `headings` opens; a key of its own at the margin ends it (items may start there)."""
    listing: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        heading = headings.match(line)
        if heading:
            listing = heading.group(1)
            continue
        if listing and line[:1].strip() and line[0] not in "#-":
            listing = None
        if listing:
            yield listing, number, line


def references(path: str, text: str) -> list[Reference]:
    """The entries of the kustomization at `path` (read line by line, as kustomizations
    are written: a list under a top-level key)."""
    folder = os.path.dirname(path)
    found: list[Reference] = []
    for _, number, line in _listed(text, _LISTS):
        item = _ITEM.match(line)
        if item:
            name = item.group(2)
            target = None if _REMOTE.match(name) else os.path.normpath(os.path.join(folder, name))
            found.append(Reference(name, number, len(item.group(1)) + 1, target))
    return found


_PATCH_LISTS = regex.compile(r"^(patches|patchesJson6902|patchesStrategicMerge):")
_PATCH_PATH = regex.compile(r"^\s*(?:-\s*)?path:\s*['\"]?([^'\"#\s]+)")


def patch_files(path: str, text: str) -> list[str]:
    """The files the kustomization at `path` applies as patches (`patches:` and
    `patchesJson6902:` entries' `path:`, `patchesStrategicMerge:` items): fragments of
    objects, not objects, resolved (read line by line, as `references` reads)."""
    return _patches_in(path, text, _PATCH_LISTS)


_MERGE_LISTS = regex.compile(r"^(patches|patchesStrategicMerge):")


def merge_patch_files(path: str, text: str) -> list[str]:
    """The files among `patch_files` that may be strategic-merge patches (`patches:`
    entries' `path:`, `patchesStrategicMerge:` items; a `patchesJson6902:` file never is):
    read, for model/patched.py to apply, and never linted as objects."""
    return _patches_in(path, text, _MERGE_LISTS)


def _patches_in(path: str, text: str, lists: regex.Pattern[str]) -> list[str]:
    """The local files the entries of those lists name, from the kustomization's folder."""
    folder = os.path.dirname(path)
    found: list[str] = []
    for listing, _, line in _listed(text, lists):
        pattern, group = (_ITEM, 2) if listing == "patchesStrategicMerge" else (_PATCH_PATH, 1)
        match = pattern.match(line)
        named = match.group(group) if match else None
        if named and not _REMOTE.match(named) and not named.startswith(("|", ">")):
            found.append(os.path.normpath(os.path.join(folder, named)))
    return found


# The lists whose entries name files a kustomization reads as data, not as objects: a
# Helm chart's values (`valuesFile`, `additionalValuesFiles`), a generator's files and env
# files (`files: [app.yaml, key=conf.yaml]`, `envs`, `env`).
_DATA_LISTS = regex.compile(r"^(helmCharts|configMapGenerator|secretGenerator):")
_DATA_KEY = regex.compile(r"^\s*(?:-\s*)?([A-Za-z]+):\s*['\"]?([^'\"#\s]*)")
_ONE_FILE = frozenset({"valuesFile", "env"})
_FILE_LISTS = frozenset({"additionalValuesFiles", "files", "envs"})


def data_files(path: str, text: str) -> list[str]:
    """The files the kustomization at `path` reads as data or fragments, not as objects:
    its patches (`patch_files`), its Helm charts' values files and its generators' files,
    resolved (read line by line, as `references` reads)."""
    folder = os.path.dirname(path)
    found = patch_files(path, text)
    key = ""  # the entry's key the lines under it belong to
    for _, _, line in _listed(text, _DATA_LISTS):
        keyed = _DATA_KEY.match(line)
        if keyed is not None:
            key, named = keyed.group(1), keyed.group(2)
            if key not in _ONE_FILE:
                continue
        else:
            item = _ITEM.match(line)
            if key not in _FILE_LISTS or item is None:
                continue
            named = item.group(2).rpartition("=")[2]  # `key=path`
        if named and not _REMOTE.match(named) and not named.startswith(("|", ">")):
            found.append(os.path.normpath(os.path.join(folder, named)))
    return found


def unread_reference(reference: Reference, top: str) -> str | None:
    """Why k8slb does not read what the entry names, or None: a remote resource, or a path
    that leads out of the repository."""
    if reference.target is None:
        return f"kustomize resource {reference.text} is remote: k8slb does not fetch it"
    if not inside(reference.target, top):
        return f"kustomize resource {reference.text} is outside the repository: not read"
    return None


@record
class AddedLabels:
    """The labels a kustomization (or a kustomize Component) adds to the objects of the
    resource files it names itself (kustomize's `commonLabels` and `labels:`), by where
    kustomize writes them: `everywhere` to the objects' labels, their pod templates' and
    their selectors (`commonLabels`, `labels` with `includeSelectors: true`); `templates`
    to the labels and pod templates (`includeTemplates: true`); `metadata` to the labels
    only. The folders it names (bases) are other kustomizations: not theirs."""

    kustomization: str
    files: tuple[str, ...]  # the resource entries it names, resolved
    everywhere: tuple[tuple[str, str], ...]
    templates: tuple[tuple[str, str], ...]
    metadata: tuple[tuple[str, str], ...]


# A kustomization's labels read at most: more is refused whole (no labels added).
MAX_ADDED_LABELS = 64
MAX_LABEL_ENTRIES = 16


def _pairs(value: object) -> list[tuple[str, str]] | None:
    """A map of label names to values, as kustomize takes it (strings: a number or a
    boolean written bare fails its build), or None: anything else, or past the budget."""
    if not isinstance(value, dict) or len(value) > MAX_ADDED_LABELS:
        return None
    pairs = []
    for key, label in value.items():
        if not isinstance(key, str) or not isinstance(label, str):
            return None
        pairs.append((key, label))
    return pairs


def added_labels(path: str, body: object) -> AddedLabels | None:
    """What the kustomization at `path` (its first YAML document, `body`) adds as labels
    to the resource files it names; None when it adds none, or writes them in a form
    kustomize would not take or past the budget (then none is added: never a guess)."""
    if not isinstance(body, dict):
        return None
    sets: dict[str, list[tuple[str, str]]] = {"everywhere": [], "templates": [], "metadata": []}
    if "commonLabels" in body:
        common = _pairs(body.get("commonLabels"))
        if common is None:
            return None
        sets["everywhere"] += common
    entries = body.get("labels")
    if entries is not None:
        if not isinstance(entries, list) or len(entries) > MAX_LABEL_ENTRIES:
            return None
        for entry in entries:
            pairs = _pairs(entry.get("pairs")) if isinstance(entry, dict) else None
            if pairs is None:
                return None
            where = (
                "everywhere"
                if entry.get("includeSelectors") is True
                else "templates"
                if entry.get("includeTemplates") is True
                else "metadata"
            )
            sets[where] += pairs
    if not any(sets.values()) or sum(map(len, sets.values())) > MAX_ADDED_LABELS:
        return None
    resources = body.get("resources")
    named = resources if isinstance(resources, list) else []
    folder = os.path.dirname(path)
    files = tuple(
        os.path.normpath(os.path.join(folder, entry))
        for entry in named
        if isinstance(entry, str) and entry and not _REMOTE.match(entry)
    )
    return AddedLabels(
        path, files, tuple(sets["everywhere"]), tuple(sets["templates"]), tuple(sets["metadata"])
    )


@record
class PatchEntry:
    """A patch file a kustomization names (`patches:` with a `path:`, or an item of
    `patchesStrategicMerge:`), resolved, with the object its entry's `target:` names:
    (kind, name), or None where the patch's own kind and name say which. `refused` says
    why k8slb does not apply it (a target by selector or by a pattern, options that rename
    what it patches)."""

    file: str
    target: tuple[str, str] | None
    refused: str | None = None


@record
class KustomizationParts:
    """What a kustomization builds from, resolved: the entries of its `resources:` (and old
    `bases:`) and `components:` (files or folders), and the patch files it applies.
    `component`: a kustomize Component (`kind: Component`), whose resources and patches
    go into the kustomization that lists it."""

    path: str
    component: bool
    resources: tuple[str, ...]
    components: tuple[str, ...]
    patches: tuple[PatchEntry, ...]


# The entries of one of a kustomization's lists read at most: more is refused whole.
MAX_KUSTOMIZATION_ENTRIES = 1024
# A target's name or namespace written as a plain name (kustomize reads it as an anchored
# regular expression: one with no special character names one object).
_PLAIN_NAME = regex.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_TARGET_KEYS = frozenset({"group", "version", "kind", "name", "namespace"})


def _entries(body: dict[str, Any], *keys: str) -> list[Any] | None:
    """The items of the lists `keys` name, in order; None past the budget or not lists."""
    found: list[Any] = []
    for key in keys:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or len(found) + len(value) > MAX_KUSTOMIZATION_ENTRIES:
            return None
        found += value
    return found


def _resolved(folder: str, entries: list[Any]) -> tuple[str, ...]:
    return tuple(
        os.path.normpath(os.path.join(folder, entry))
        for entry in entries
        if isinstance(entry, str) and entry and not _REMOTE.match(entry)
    )


def _patch_entry(folder: str, entry: object) -> PatchEntry | None:
    """A `patches:` entry with a file, or None (an inline patch, a remote one)."""
    if not isinstance(entry, dict):
        return None
    named = entry.get("path")
    if not isinstance(named, str) or not named or _REMOTE.match(named) or "patch" in entry:
        return None
    file = os.path.normpath(os.path.join(folder, named))
    target, options = entry.get("target"), entry.get("options")
    if isinstance(options, dict) and any(options.values()):
        return PatchEntry(file, None, "its options let it rename or re-kind what it patches")
    if target is None:
        return PatchEntry(file, None)
    if not isinstance(target, dict) or not set(target) <= _TARGET_KEYS:
        return PatchEntry(file, None, "its target selects by labels or annotations")
    kind, name = target.get("kind"), target.get("name")
    plain = all(
        value is None or (isinstance(value, str) and _PLAIN_NAME.match(value))
        for value in (name, target.get("namespace"))
    )
    if not isinstance(kind, str) or not isinstance(name, str) or not plain:
        return PatchEntry(file, None, "its target names no one object (a pattern, no name)")
    return PatchEntry(file, (kind, name))


def kustomization_parts(path: str, body: object) -> KustomizationParts | None:
    """What the kustomization at `path` (its first YAML document, `body`) builds from;
    None when it is no mapping or its lists are not lists or past the budget."""
    if not isinstance(body, dict):
        return None
    folder = os.path.dirname(path)
    resources = _entries(body, "resources", "bases")
    components = _entries(body, "components")
    patches = _entries(body, "patches")
    merges = _entries(body, "patchesStrategicMerge")
    if resources is None or components is None or patches is None or merges is None:
        return None
    entries = [_patch_entry(folder, entry) for entry in patches]
    entries += [
        PatchEntry(os.path.normpath(os.path.join(folder, item)), None)
        for item in merges
        if isinstance(item, str) and item and "\n" not in item and not _REMOTE.match(item)
    ]
    return KustomizationParts(
        path,
        body.get("kind") == "Component",
        _resolved(folder, resources),
        _resolved(folder, components),
        tuple(entry for entry in entries if entry is not None),
    )
