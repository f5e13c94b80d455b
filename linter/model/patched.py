"""Kustomize's strategic-merge patches, on resource files read as written (no
`--kustomize`): a patch file a kustomization (or a Component it lists) applies to a
Deployment, StatefulSet or DaemonSet of its build is merged into that object as kustomize
merges it: maps key by key, containers (and init containers, volumes, pull secrets) by
`name`, a container's `env` by `name`, `ports` by `containerPort`, `volumeMounts` by
`mountPath`, any other list replaced, a `null` removing its key.

What is not applied exactly is not applied (the object stays as written), but a patch
file is never an object of its own either: a `$patch`/`$retainKeys` directive, a list
kustomize merges by a key this does not, a target by selector or pattern (reading/
kustomization.py refuses those), a patch that names no one object of the build, an object
two kustomizations patch. A patch an overlay applies to a base's object only adds (new
containers, fields the base does not set): one that replaces a value of the base is not
applied there, since the base is also built without it; a kustomization that names the
object's file itself (and is the only one that does) may replace.

A container a patch adds whole is written in the patch file: findings about it are put
there (`move_to_patches`); the other nodes a patch brings are placed at the base's node
they go into. A fix is not offered on a patched object: its file no longer says it all."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from k8slb.core.findings import NO_FIX, Finding, ObjectRef
from k8slb.reading.kustomization import KUSTOMIZATION_FILES, KustomizationParts, PatchEntry
from k8slb.reading.manifests import ManifestFile
from k8slb.reading.objects import K8sObject, api_group
from k8slb.reading.yamltree import Pos, YMap, YSeq

_PATCHED_KINDS = frozenset(
    (group, kind) for group in ("apps",) for kind in ("Deployment", "StatefulSet", "DaemonSet")
)
# The lists a strategic merge merges item by item, by the key of each item (the API's
# patchMergeKey); the others are replaced whole. Those it merges by a key not here, or by
# two keys, are refused.
_MERGED_BY = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "env": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "hostAliases": "ip",
    "schedulingGates": "name",
    "resourceClaims": "name",
}
_REFUSED_LISTS = frozenset({"topologySpreadConstraints", "finalizers", "ownerReferences"})
_NEW_CONTAINERS = frozenset({"containers", "initContainers"})

# Budgets: kustomizations a build reaches through its bases and components, the depth of
# that chain, and the nodes one object's patches may hold.
MAX_BUILD_FILES = 4096
MAX_BUILD_DEPTH = 32
MAX_PATCH_NODES = 20_000
MAX_PATCHES_TRIED = 50_000  # (a build, a patch) pairs a run looks for targets of


class _Refused(Exception):
    """A patch not applied exactly: the object stays as written."""


@dataclass
class Patched:
    """The objects with their patches merged, and what the run needs of them."""

    objects: list[K8sObject]
    patch_files: frozenset[str] = frozenset()  # every patch file: never objects
    # (the patched object's path, its ref) -> each container a patch added whole -> the
    # patch file it is written in
    moved: dict[tuple[str, ObjectRef], dict[str, str]] = field(default_factory=dict)


@dataclass
class _Merge:
    replaced: bool = False  # a value of the base changed or removed
    nodes: int = 0
    added: dict[str, str] = field(default_factory=dict)  # new container -> its patch file
    file: str = ""


def patched(
    objects: list[K8sObject], manifests: Sequence[ManifestFile], rendered: Mapping[str, str]
) -> Patched:
    """The objects, each a kustomization patches replaced by its merge (see the module's
    doc), the patch files' own objects left out."""
    files = frozenset(
        os.path.normpath(named)
        for m in manifests
        if m.path not in rendered
        for named in m.patch_files
    )
    if not files:
        return Patched(objects)
    kustomizations = {
        os.path.normpath(m.path): m.kustomization
        for m in manifests
        if m.kustomization is not None and m.path not in rendered
    }
    bodies: dict[str, list[K8sObject]] = {}
    kept: list[K8sObject] = []
    for obj in objects:
        if obj.path not in rendered and os.path.normpath(obj.path) in files:
            bodies.setdefault(os.path.normpath(obj.path), []).append(obj)
        else:
            kept.append(obj)
    plan = _Plan(kustomizations)
    wanted = plan.patches(kept, bodies)
    result = Patched([], files)
    for obj in kept:
        patches = wanted.get(id(obj))
        made = _applied(obj, patches, plan, result) if patches else None
        result.objects.append(made or obj)
    return result


class _Plan:
    """The builds of the kustomizations read: which files each reaches, which name each."""

    def __init__(self, kustomizations: Mapping[str, KustomizationParts]) -> None:
        self.kustomizations = kustomizations
        self.builds: dict[str, frozenset[str] | None] = {}
        self.naming: dict[str, set[str]] = {}  # a resource file -> the kustomizations naming it
        self.listing: dict[str, list[str]] = {}  # a component -> the kustomizations listing it
        for path, parts in kustomizations.items():
            for entry in parts.resources:
                self.naming.setdefault(entry, set()).add(path)
            for entry in parts.components:
                found = self._kustomization_of(entry)
                if found is not None:
                    self.listing.setdefault(found, []).append(path)

    def _kustomization_of(self, entry: str) -> str | None:
        """The kustomization a resource or component entry (a folder) is, if read."""
        for name in KUSTOMIZATION_FILES:
            path = os.path.normpath(os.path.join(entry, name))
            if path in self.kustomizations:
                return path
        return None

    def build(self, path: str) -> frozenset[str] | None:
        """The resource files the kustomization at `path` builds from (its bases' and its
        components', through every level); None past the budget or in a loop."""
        if path in self.builds:
            return self.builds[path]
        self.builds[path] = None  # a loop reads as past the budget
        files: set[str] = set()
        stack: list[tuple[str, int]] = [(path, 0)]
        seen = {path}
        while stack:
            current, depth = stack.pop()
            parts = self.kustomizations[current]
            for entry in (*parts.resources, *parts.components):
                inner = self._kustomization_of(entry)
                if inner is None:
                    files.add(entry)
                elif inner in seen or depth + 1 > MAX_BUILD_DEPTH:
                    return None
                else:
                    seen.add(inner)
                    stack.append((inner, depth + 1))
            if len(files) + len(seen) > MAX_BUILD_FILES:
                return None
        self.builds[path] = frozenset(files)
        return self.builds[path]

    def scopes(self, path: str) -> list[tuple[str, frozenset[str]]]:
        """Where the patches of the kustomization at `path` apply: its own build, or a
        Component's, each build of a kustomization that lists it."""
        parts = self.kustomizations[path]
        owners = self.listing.get(path, []) if parts.component else [path]
        scopes = []
        for owner in owners:
            build = self.build(owner)
            if build is not None:
                scopes.append((owner, build))
        return scopes

    def patches(
        self, objects: list[K8sObject], bodies: Mapping[str, list[K8sObject]]
    ) -> dict[int, list[tuple[str, PatchEntry, K8sObject, bool]]]:
        """For each object a patch applies to (by id): (the kustomization, the entry, the
        patch, whether that kustomization names the object's file itself, alone). Past
        the budget of patches tried, none."""
        named: dict[tuple[str, str | None], list[tuple[K8sObject, str]]] = {}
        for obj in objects:
            if (obj.group, obj.kind) in _PATCHED_KINDS:
                named.setdefault((obj.kind, obj.name), []).append((obj, os.path.normpath(obj.path)))
        wanted: dict[int, list[tuple[str, PatchEntry, K8sObject, bool]]] = {}
        refused: set[int] = set()
        tried = 0
        for path in sorted(self.kustomizations):
            for owner, build in self.scopes(path):
                for entry in self.kustomizations[path].patches:
                    for patch in bodies.get(entry.file, ()):
                        tried += 1
                        if tried > MAX_PATCHES_TRIED:
                            return {}
                        target = _target(patch, entry, named, build)
                        if target is None:
                            continue
                        known = wanted.setdefault(id(target), [])
                        if any(k == path and p is patch for k, _, p, _ in known):
                            continue  # a Component two builds of the object list
                        if entry.refused is not None or any(k != path for k, *_ in known):
                            refused.add(id(target))  # not exact, or two kustomizations
                        direct = self.naming.get(os.path.normpath(target.path)) == {path}
                        known.append((path, entry, patch, direct and owner == path))
        return {key: value for key, value in wanted.items() if key not in refused}


def _target(
    patch: K8sObject,
    entry: PatchEntry,
    named: Mapping[tuple[str, str | None], list[tuple[K8sObject, str]]],
    build: frozenset[str],
) -> K8sObject | None:
    """The one object of the build the patch names (its target's kind and name, or its
    own), or None: none, several, or one of another group."""
    kind, name = entry.target or (patch.kind, patch.name)
    found = [
        obj
        for obj, path in named.get((kind, name), ())
        if path in build and (patch.namespace is None or obj.namespace in (None, patch.namespace))
    ]
    if len(found) != 1:
        return None
    if entry.target is None and api_group(patch.api_version) != found[0].group:
        return None
    return found[0]


def _applied(
    obj: K8sObject,
    patches: list[tuple[str, PatchEntry, K8sObject, bool]],
    plan: _Plan,
    result: Patched,
) -> K8sObject | None:
    """The object with its patches merged in their order, or None where one is refused."""
    body: Any = obj.body
    merge = _Merge()
    direct = all(alone for *_, alone in patches)
    try:
        for _, entry, patch, _ in patches:
            merge.file = entry.file
            body = _merged(body, _without_identity(patch.body), "", merge)
    except _Refused:
        return None
    if merge.replaced and not direct:
        return None  # an overlay's patch replaces a base's value: the base is built too
    if not isinstance(body, YMap):
        return None
    made = K8sObject(obj.path, obj.document, obj.item, obj.api_version, obj.kind, body)
    made.damaged = obj.damaged
    if made.name != obj.name or made.namespace != obj.namespace:
        return None
    if merge.added:
        result.moved[(obj.path, made.ref)] = merge.added
    else:
        result.moved.setdefault((obj.path, made.ref), {})
    return made


def _without_identity(body: YMap) -> YMap:
    """The patch without its `apiVersion` and `kind` (which name its target)."""
    out = YMap(body.pos)
    for key, value in body.items():
        if key not in ("apiVersion", "kind"):
            out[key] = value
            out.spots[key] = body.spots.get(key, (*body.pos, *body.pos))
    return out


def _merged(base: Any, patch: Any, key: str, merge: _Merge) -> Any:
    """`patch` merged into `base`: a map key by key, a list `_MERGED_BY` names item by
    item, anything else replaced."""
    merge.nodes += 1
    if merge.nodes > MAX_PATCH_NODES:
        raise _Refused
    if isinstance(patch, YMap) and isinstance(base, YMap):
        return _merged_map(base, patch, merge)
    if isinstance(patch, YSeq) and key in _MERGED_BY:
        return _merged_list(base if isinstance(base, YSeq) else None, patch, key, merge)
    if key in _REFUSED_LISTS:
        raise _Refused
    if base != patch:
        merge.replaced = True
    return _placed(patch, _pos_of(base, patch), merge)


def _merged_map(base: YMap, patch: YMap, merge: _Merge) -> YMap:
    out = YMap(base.pos)
    out.update(base)
    out.spots = dict(base.spots)
    for key, value in patch.items():
        if not isinstance(key, str) or key.startswith("$"):
            raise _Refused  # a directive: `$patch`, `$retainKeys`, `$setElementOrder/...`
        if value is None:  # a strategic merge removes the key
            if key in out:
                del out[key]
                out.spots.pop(key, None)
                merge.replaced = True
            continue
        if key in base:
            out[key] = _merged(base[key], value, key, merge)
        else:
            out[key] = _placed(value, base.pos, merge)
            out.spots[key] = (*base.pos, *base.pos)
    return out


def _merged_list(base: YSeq | None, patch: YSeq, key: str, merge: _Merge) -> YSeq:
    """A list merged by the key of its items: the base's items in their order, each with
    the patch's item of the same key merged in, then the patch's new items."""
    by = _MERGED_BY[key]
    anchor = base.pos if base is not None else patch.pos
    out = YSeq(anchor)
    items = list(base) if base is not None else []
    out.item_pos = list(base.item_pos) if base is not None else []
    at = {_key_of(item, by): number for number, item in enumerate(items)}
    for number, item in enumerate(patch):
        name = _key_of(item, by)
        if name is None:
            raise _Refused  # an item without its merge key
        if name in at:
            items[at[name]] = _merged(items[at[name]], item, "", merge)
        elif key in _NEW_CONTAINERS and isinstance(name, str):
            _placed(item, anchor, merge)  # (refused if it holds a directive)
            merge.added[name] = merge.file  # written whole in the patch: kept as written
            at[name] = len(items)
            items.append(item)
            out.item_pos.append(patch.item_pos[number])
        else:
            at[name] = len(items)
            items.append(_placed(item, anchor, merge))
            out.item_pos.append(anchor)
    out.extend(items)
    return out


def _key_of(item: Any, by: str) -> Any:
    if not isinstance(item, YMap):
        return None
    value = item.get(by)
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def _pos_of(base: Any, patch: Any) -> Pos:
    for node in (base, patch):
        if isinstance(node, YMap | YSeq):
            return node.pos
    return (1, 1)


def _placed(node: Any, pos: Pos, merge: _Merge) -> Any:
    """A copy of a patch's node with every position at `pos` (a place in the base's file);
    a directive or a null inside it is refused (a merge would read them)."""
    merge.nodes += 1
    if merge.nodes > MAX_PATCH_NODES:
        raise _Refused
    if isinstance(node, YMap):
        out = YMap(pos)
        for key, value in node.items():
            if not isinstance(key, str) or key.startswith("$"):
                raise _Refused
            out[key] = _placed(value, pos, merge)
            out.spots[key] = (*pos, *pos)
        return out
    if isinstance(node, YSeq):
        seq = YSeq(pos)
        seq.extend(_placed(item, pos, merge) for item in node)
        seq.item_pos = [pos] * len(node)
        return seq
    return node


def move_to_patches(
    findings: list[Finding], moved: Mapping[tuple[str, ObjectRef], Mapping[str, str]]
) -> list[Finding]:
    """Each finding about a patched object without its fix (its file does not say it
    all), and one about a container a patch added whole put in that patch's file."""
    if not moved:
        return findings
    out = []
    for finding in findings:
        added = moved.get((finding.path, finding.object)) if finding.object else None
        if added is None:
            out.append(finding)
            continue
        finding = replace(finding, edits=(), fix=NO_FIX)
        patch = added.get(finding.container or "")
        out.append(replace(finding, path=patch) if patch is not None else finding)
    return out


def patch_aliases(
    objects: Sequence[K8sObject], moved: Mapping[tuple[str, ObjectRef], Mapping[str, str]]
) -> dict[tuple[str, int, int | None], tuple[str, int, int | None]]:
    """For the findings `move_to_patches` put in a patch file, the object whose
    annotations (`k8slb.io/ignore`) silence them: the one the patch merged into. Two
    objects one patch file holds findings of at one place: neither."""
    aliases: dict[tuple[str, int, int | None], tuple[str, int, int | None]] = {}
    clashing: set[tuple[str, int, int | None]] = set()
    for obj in objects:
        added = moved.get((obj.path, obj.ref))
        for patch in set(added.values()) if added else ():
            key = (patch, obj.document, obj.item)
            if key in aliases:
                clashing.add(key)
            aliases[key] = (obj.path, obj.document, obj.item)
    return {key: value for key, value in aliases.items() if key not in clashing}
