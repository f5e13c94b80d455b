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

from k8slb.core import regex
from k8slb.core.findings import NO_FIX, Finding, ObjectRef
from k8slb.reading.kustomization import (
    KUSTOMIZATION_FILES,
    AddedLabels,
    KustomizationParts,
    PatchEntry,
    PatchTarget,
)
from k8slb.reading.manifests import ManifestFile
from k8slb.reading.objects import K8sObject, api_group, dig
from k8slb.reading.yamltree import Pos, YMap, YSeq

_PATCHED_KINDS = frozenset(
    (
        *(("apps", kind) for kind in ("Deployment", "StatefulSet", "DaemonSet")),
        # an overlay's patch that adds keys to a base's ConfigMap: what `envFrom` loads
        ("", "ConfigMap"),
    )
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
MAX_BUILT_PAIRS = 200_000  # (a resource file, a build holding it) pairs a run notes
MAX_SELECTED = 20_000  # (a patch, an object) pairs a run tests a target's selectors on
MAX_OPERATION_PATH = 64  # the steps of a JSON 6902 operation's path


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
    # (an object's path, its ref) -> (a kustomization, the replicas its patches or its
    # `replicas:` field give the object), where they are more than one and the object is
    # kept as written (an overlay's replaced value, two overlays patching it): a build
    # runs more than one pod
    scaled: dict[tuple[str, ObjectRef], tuple[str, int]] = field(default_factory=dict)
    # a resource file -> the kustomizations whose builds hold it (through their bases):
    # two files one build holds are applied together, whatever folders they are in
    built_in: dict[str, frozenset[str]] = field(default_factory=dict)
    # whether `built_in` holds every build (none past a budget or in a loop): only then
    # does a file it leaves out belong to no build (model/kustomized.py's `left_out`)
    complete: bool = False


@dataclass
class _Merge:
    replaced: bool = False  # a value of the base changed or removed
    nodes: int = 0
    added: dict[str, str] = field(default_factory=dict)  # new container -> its patch file
    file: str = ""


class _Operations:
    """A JSON 6902 patch written inline: its list of operations."""

    def __init__(self, operations: list[Any]) -> None:
        self.operations = operations


def _inline_patch(entry: PatchEntry) -> K8sObject | _Operations | None:
    """The patch a kustomization writes inline, as the patches read from files are."""
    if isinstance(entry.inline, list):
        return _Operations(entry.inline) if entry.target is not None else None
    if not isinstance(entry.inline, YMap):
        return None
    version, kind = entry.inline.get("apiVersion"), entry.inline.get("kind")
    if entry.target is None and not (isinstance(version, str) and isinstance(kind, str)):
        return None
    body = entry.inline
    return K8sObject(entry.file, 0, None, str(version or ""), str(kind or ""), body)


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
    kustomizations = {
        os.path.normpath(m.path): m.kustomization
        for m in manifests
        if m.kustomization is not None and m.path not in rendered
    }
    inline = any(e.inline is not None for k in kustomizations.values() for e in k.patches)
    sets_replicas = any(k.replicas for k in kustomizations.values())
    added = [a for m in manifests if m.path not in rendered for a in m.added_labels]
    plan = _Plan(kustomizations, added)
    built_in = plan.built_in() if kustomizations else {}
    if not files and not inline and not sets_replicas:
        return Patched(objects, built_in=built_in, complete=plan.complete)
    bodies: dict[str, list[K8sObject]] = {}
    kept: list[K8sObject] = []
    for obj in objects:
        if obj.path not in rendered and os.path.normpath(obj.path) in files:
            bodies.setdefault(os.path.normpath(obj.path), []).append(obj)
        else:
            kept.append(obj)
    wanted, refused = plan.patches(kept, bodies)
    result = Patched([], files, built_in=built_in, complete=plan.complete)
    for obj in kept:
        patches = wanted.get(id(obj))
        made = _applied(obj, patches, result) if patches and id(obj) not in refused else None
        result.objects.append(made or obj)
        if patches and made is None:
            _note_scaled(obj, patches, result)
    if sets_replicas:
        _note_replicas_set(plan, result, rendered)
    return result


_SET_BY_REPLICAS = frozenset(("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"))


def _note_replicas_set(plan: _Plan, result: Patched, rendered: Mapping[str, str]) -> None:
    """kustomize's `replicas:` field (`- name: api`, `count: 3`): the count it sets, in
    each build of the kustomization, for the workloads of that build of the name, noted
    as an overlay's patches are (`_note_scaled`) where it is more than one and more than
    the object says: the object is judged as written, and as scaled. Past the budget of
    (entry, object) pairs tested, no more is noted."""
    by_name: dict[str, list[K8sObject]] = {}
    for obj in result.objects:
        if obj.kind in _SET_BY_REPLICAS and obj.name and obj.path not in rendered:
            by_name.setdefault(obj.name, []).append(obj)
    tested = 0
    for path in sorted(plan.kustomizations):
        for name, count in plan.kustomizations[path].replicas:
            named = by_name.get(name, []) if count > 1 else []
            for _, build in plan.scopes(path) if named else ():
                for obj in named:
                    tested += 1
                    if tested > MAX_SELECTED:
                        return
                    written = dig(obj.body, "spec", "replicas")
                    if os.path.normpath(obj.path) not in build or (
                        isinstance(written, int) and written >= count
                    ):
                        continue
                    known = result.scaled.get((obj.path, obj.ref))
                    if known is None or count > known[1]:
                        result.scaled[(obj.path, obj.ref)] = (path, count)


def _note_scaled(
    obj: K8sObject, patches: list[tuple[str, PatchEntry, Any, bool]], result: Patched
) -> None:
    """Where the object is kept as written, the most replicas one kustomization's patches
    alone would give it, when that is more than one and more than it says."""
    written = dig(obj.body, "spec", "replicas")
    most: tuple[str, int] | None = None
    for path in dict.fromkeys(k for k, *_ in patches):
        body = _body_of(obj, [p for p in patches if p[0] == path])
        replicas = dig(body, "spec", "replicas") if body is not None else None
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas <= 1:
            continue
        if replicas != written and (most is None or replicas > most[1]):
            most = (path, replicas)
    if most is not None:
        result.scaled[(obj.path, obj.ref)] = most


class _Plan:
    """The builds of the kustomizations read: which files each reaches, which name each."""

    def __init__(
        self, kustomizations: Mapping[str, KustomizationParts], added: Sequence[AddedLabels]
    ) -> None:
        self.kustomizations = kustomizations
        self.builds: dict[str, frozenset[str] | None] = {}
        self.reached: dict[str, frozenset[str]] = {}  # the kustomizations a build reaches
        self.added: dict[str, list[AddedLabels]] = {}  # a resource file -> labels added
        for labels in added:
            for file in labels.files:
                self.added.setdefault(file, []).append(labels)
        self.inline: dict[int, K8sObject | _Operations | None] = {}
        self.naming: dict[str, set[str]] = {}  # a resource file -> the kustomizations naming it
        self.listing: dict[str, list[str]] = {}  # a component -> the kustomizations listing it
        self.entries: dict[str, str | None] = {}  # an entry -> the kustomization it is
        self.complete = False  # every build made (built_in), none past a budget or in a loop
        for path, parts in kustomizations.items():
            for entry in parts.resources:
                self.naming.setdefault(entry, set()).add(path)
            for entry in parts.components:
                found = self._kustomization_of(entry)
                if found is not None:
                    self.listing.setdefault(found, []).append(path)

    def _kustomization_of(self, entry: str) -> str | None:
        """The kustomization a resource or component entry (a folder) is, if read (each
        entry looked up once: every build that reaches a base reads its entries)."""
        if entry in self.entries:
            return self.entries[entry]
        found = None
        for name in KUSTOMIZATION_FILES:
            path = os.path.normpath(os.path.join(entry, name))
            if path in self.kustomizations:
                found = path
                break
        self.entries[entry] = found
        return found

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
        self.reached[path] = frozenset(seen)
        return self.builds[path]

    def built_in(self) -> dict[str, frozenset[str]]:
        """Each resource file, with the kustomizations (not Components) whose builds hold
        it; past `MAX_BUILT_PAIRS` (file, build) pairs, none: nothing is said then."""
        found: dict[str, set[str]] = {}
        pairs = 0
        complete = True
        for path, parts in sorted(self.kustomizations.items()):
            build = None if parts.component else self.build(path)
            complete = complete and (build is not None or parts.component)
            pairs += len(build or ())
            if pairs > MAX_BUILT_PAIRS:
                return {}
            for file in build or ():
                found.setdefault(file, set()).add(path)
        self.complete = complete
        return {file: frozenset(paths) for file, paths in found.items()}

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

    def labels(self, obj: K8sObject, path: str, owner: str, late: bool) -> dict[str, str]:
        """The object's labels when the patches of the kustomization at `path` (in the
        build of `owner`) run: with those the kustomizations of its build below it add
        (their builds are done first), and its own once a `late` patch runs (kustomize's
        order: strategic merges and `patches:`, then labels, then JSON 6902 patches)."""
        labels = dict(obj.labels)
        reached = self.reached.get(owner, frozenset())
        for added in self.added.get(os.path.normpath(obj.path), ()):
            own = added.kustomization in (path, owner)
            if (added.kustomization in reached and not own) or (own and late):
                for pairs in (added.everywhere, added.templates, added.metadata):
                    labels.update(pairs)
        return labels

    def bodies_of(
        self, entry: PatchEntry, bodies: Mapping[str, list[K8sObject]]
    ) -> Sequence[K8sObject | _Operations]:
        if entry.inline is None:
            return bodies.get(entry.file, ())
        if id(entry) not in self.inline:
            self.inline[id(entry)] = _inline_patch(entry)
        found = self.inline[id(entry)]
        return [found] if found is not None else []

    def patches(
        self, objects: list[K8sObject], bodies: Mapping[str, list[K8sObject]]
    ) -> tuple[dict[int, list[tuple[str, PatchEntry, Any, bool]]], set[int]]:
        """For each object a patch applies to (by id): (the kustomization, the entry, the
        patch, whether that kustomization names the object's file itself, alone); and the
        objects whose patches are not applied (not exact, or two kustomizations). Past
        the budget of patches tried, none."""
        named: dict[tuple[str, str | None], list[tuple[K8sObject, str]]] = {}
        for obj in objects:
            if (obj.group, obj.kind) in _PATCHED_KINDS:
                named.setdefault((obj.kind, obj.name), []).append((obj, os.path.normpath(obj.path)))
        selecting = _Selecting(self, [pair for pairs in named.values() for pair in pairs])
        wanted: dict[int, list[tuple[str, PatchEntry, Any, bool]]] = {}
        refused: set[int] = set()
        listed: set[tuple[int, str, int]] = set()
        tried = 0
        for path in sorted(self.kustomizations):
            for owner, build in self.scopes(path):
                for entry in self.kustomizations[path].patches:
                    for patch in self.bodies_of(entry, bodies):
                        tried += 1
                        if tried > MAX_PATCHES_TRIED:
                            return {}, set()
                        targets = (
                            selecting.selected(entry, path, owner, build)
                            if entry.target is not None
                            else _target(patch, named, build)
                        )
                        if targets is None:
                            return {}, set()
                        for target in targets:
                            known = wanted.setdefault(id(target), [])
                            if (id(target), path, id(patch)) in listed:
                                continue  # a Component two builds of the object list
                            listed.add((id(target), path, id(patch)))
                            if entry.refused is not None or any(k != path for k, *_ in known):
                                refused.add(id(target))  # not exact, or two kustomizations
                            direct = self.naming.get(os.path.normpath(target.path)) == {path}
                            known.append((path, entry, patch, direct and owner == path))
        return wanted, refused


class _Selecting:
    """The objects of a build a patch's `target:` selects, as kustomize selects them: its
    group, version, kind, name and namespace as anchored regular expressions (RE2), then
    its label and annotation selectors. Past `MAX_SELECTED` objects tested, None."""

    def __init__(self, plan: _Plan, candidates: list[tuple[K8sObject, str]]) -> None:
        self.plan = plan
        self.candidates = candidates
        self.tested = 0
        self.patterns: dict[str, regex.Pattern[str] | None] = {}
        self.fitting: dict[tuple[PatchTarget, int], bool] = {}  # (a target, an object's id)

    def _matches(self, pattern: str, value: str | None) -> bool:
        if not pattern:
            return True
        if value is None:
            return False  # (a namespace the object does not write: not guessed)
        if pattern not in self.patterns:
            try:
                self.patterns[pattern] = regex.compile(f"^(?:{pattern})$")
            except regex.error:
                self.patterns[pattern] = None
        compiled = self.patterns[pattern]
        return compiled is not None and compiled.match(value) is not None

    def _fits(self, target: PatchTarget, obj: K8sObject) -> bool:
        version = obj.api_version.rpartition("/")[2]
        identity = (
            (target.group, obj.group),
            (target.version, version),
            (target.kind, obj.kind),
            (target.name, obj.name),
            (target.namespace, obj.namespace),
        )
        return all(self._matches(pattern, value) for pattern, value in identity)

    def selected(
        self, entry: PatchEntry, path: str, owner: str, build: frozenset[str]
    ) -> list[K8sObject] | None:
        target = entry.target
        assert target is not None
        found = []
        for obj, file in self.candidates:
            self.tested += 1
            if self.tested > MAX_SELECTED:
                return None
            if file not in build:
                continue
            fits = self.fitting.get((target, id(obj)))
            if fits is None:
                fits = self.fitting[(target, id(obj))] = self._fits(target, obj)
            if not fits:
                continue
            labels = self.plan.labels(obj, path, owner, entry.late)
            annotations = obj.annotations
            if all(r.holds(labels) for r in target.labels) and all(
                r.holds(annotations) for r in target.annotations
            ):
                found.append(obj)
        return found


def _target(
    patch: K8sObject | _Operations,
    named: Mapping[tuple[str, str | None], list[tuple[K8sObject, str]]],
    build: frozenset[str],
) -> list[K8sObject]:
    """The one object of the build a patch with no target names (its own kind and name),
    or none: none, several, or one of another group."""
    if isinstance(patch, _Operations):
        return []
    found = [
        obj
        for obj, path in named.get((patch.kind, patch.name), ())
        if path in build and (patch.namespace is None or obj.namespace in (None, patch.namespace))
    ]
    if len(found) != 1 or api_group(patch.api_version) != found[0].group:
        return []
    return found


def _body_of(
    obj: K8sObject, patches: list[tuple[str, PatchEntry, Any, bool]], merge: _Merge | None = None
) -> YMap | None:
    """The object's body with its patches applied in their order, or None where one is
    refused."""
    body: Any = obj.body
    merge = merge or _Merge()
    try:
        for _, entry, patch, _ in patches:
            merge.file = entry.file
            if isinstance(patch, _Operations):
                body = _operated(body, patch.operations, merge)
            else:
                body = _merged(body, _without_identity(patch.body), "", merge)
    except _Refused:
        return None
    return body if isinstance(body, YMap) else None


def _applied(
    obj: K8sObject,
    patches: list[tuple[str, PatchEntry, Any, bool]],
    result: Patched,
) -> K8sObject | None:
    """The object with its patches merged in their order, or None where one is refused."""
    merge = _Merge()
    direct = all(alone for *_, alone in patches)
    body = _body_of(obj, patches, merge)
    if body is None:
        return None
    if merge.replaced and not direct:
        return None  # an overlay's patch replaces a base's value: the base is built too
    made = K8sObject(obj.path, obj.document, obj.item, obj.api_version, obj.kind, body)
    made.damaged = obj.damaged
    if made.name != obj.name or made.namespace != obj.namespace:
        return None
    if merge.added:
        result.moved[(obj.path, made.ref)] = merge.added
    else:
        result.moved.setdefault((obj.path, made.ref), {})
    return made


def _operated(body: Any, operations: list[Any], merge: _Merge) -> Any:
    """The JSON 6902 operations applied in order: `add`, `replace` and `remove` of a map's
    key or (replace only) a list's item by number; any other refused."""
    for operation in operations:
        if not isinstance(operation, dict):
            raise _Refused
        op, path = operation.get("op"), operation.get("path")
        if op not in ("add", "replace", "remove") or not isinstance(path, str):
            raise _Refused
        if not path.startswith("/") or path.count("/") > MAX_OPERATION_PATH:
            raise _Refused
        if op != "remove" and "value" not in operation:
            raise _Refused
        steps = [step.replace("~1", "/").replace("~0", "~") for step in path[1:].split("/")]
        body = _set(body, steps, op, operation.get("value"), merge)
    return body


def _set(node: Any, steps: list[str], op: str, value: Any, merge: _Merge) -> Any:
    """A copy of `node` with the operation done at the path `steps` lead to."""
    merge.nodes += 1
    if merge.nodes > MAX_PATCH_NODES:
        raise _Refused
    step, last = steps[0], len(steps) == 1
    if isinstance(node, YMap):
        if step not in node and not (last and op == "add"):
            raise _Refused  # kustomize fails the build
        out = YMap(node.pos)
        out.update(node)
        out.spots = dict(node.spots)
        if not last:
            out[step] = _set(node[step], steps[1:], op, value, merge)
        elif op == "remove":
            del out[step]
            out.spots.pop(step, None)
            merge.replaced = True
        else:
            merge.replaced = merge.replaced or (step in node and node[step] != value)
            out[step] = _placed(value, _pos_of(node.get(step), node), merge)
            out.spots.setdefault(step, (*node.pos, *node.pos))
        return out
    if isinstance(node, YSeq) and step.isdigit() and int(step) < len(node):
        if last and op != "replace":
            raise _Refused  # an insertion or removal renumbers the items
        number = int(step)
        seq = YSeq(node.pos)
        seq.extend(node)
        seq.item_pos = list(node.item_pos)
        if last:
            merge.replaced = merge.replaced or node[number] != value
            seq[number] = _placed(value, _pos_of(node[number], node), merge)
        else:
            seq[number] = _set(node[number], steps[1:], op, value, merge)
        return seq
    raise _Refused


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
    """Each finding about a patched object (or one of a file whose template values a
    program fills) without its fix (its file does not say it all), and one about a
    container a patch added whole put in that patch's file."""
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
    if not moved:  # no patch merged: each object's key (a record hashed) is not worked out
        return aliases
    clashing: set[tuple[str, int, int | None]] = set()
    for obj in objects:
        added = moved.get((obj.path, obj.ref))
        for patch in set(added.values()) if added else ():
            key = (patch, obj.document, obj.item)
            if key in aliases:
                clashing.add(key)
            aliases[key] = (obj.path, obj.document, obj.item)
    return {key: value for key, value in aliases.items() if key not in clashing}
