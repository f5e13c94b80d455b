"""The labels kustomize adds, on resource files read as written (no `--kustomize`): a
kustomization's `commonLabels` and `labels:` put on the objects of the files its build
holds, where kustomize's default field specs put them, so that a Service written with
`selector: {}` selects the pods its kustomization labels (reading/kustomization.py reads
them). Kustomize runs a kustomization's label transformers on everything it accumulates,
so an overlay's labels reach the objects of its bases (folders that are kustomizations)
and components too, through every level: a file gets the labels of each way from a
build's top (a kustomization no other names) to it, together. A file whose ways add
different labels gets none (which build is deployed is not known), nor does one a way
gives one label two values of.

And the files a kustomization leaves out (`left_out`): YAML beside a kustomization, in
a folder from which one lists other files, or in a subfolder of one that gathers its parts
from two or more of its subfolders but not from that one, that no build of the run holds
and no script, workflow, guide, Tiltfile or Skaffold configuration applies
(reading/applied_manifests.py) is not deployed: the rules' findings about it are dropped,
its reading problems kept (`not_deployed`)."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.core.findings import Finding, Severity
from k8slb.core.paths import path_parts
from k8slb.reading.applied_manifests import applied_tails, is_applied
from k8slb.reading.kustomization import KUSTOMIZATION_FILES, AddedLabels, KustomizationParts
from k8slb.reading.manifests import ManifestFile
from k8slb.reading.objects import K8sObject

# kustomize's default field specs for `commonLabels` (and `includeSelectors`): the kinds
# whose pod template, and whose selector, it writes the labels into.
_SELECTED_BY_MATCH_LABELS = frozenset(
    (group, kind)
    for group in ("apps", "extensions")
    for kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")
)
_TEMPLATED = _SELECTED_BY_MATCH_LABELS | {
    ("", "ReplicationController"),
    ("batch", "Job"),
    ("batch", "CronJob"),
}


def _agreed(added: Iterable[AddedLabels]) -> dict[str, AddedLabels]:
    """Each file named by kustomizations, with the labels they add: a file two of them
    name with different labels is left out."""
    by_file: dict[str, AddedLabels] = {}
    refused: set[str] = set()
    for labels in added:
        for path in labels.files:
            known = by_file.get(path)
            same = known is None or (
                (known.everywhere, known.templates, known.metadata)
                == (labels.everywhere, labels.templates, labels.metadata)
            )
            if not same:
                refused.add(path)
            by_file.setdefault(path, labels)
    return {path: labels for path, labels in by_file.items() if path not in refused}


# Budgets of the builds walked for the labels they add: the kustomizations one build
# passes through, deep, and the (file, way to it) pairs a run notes.
MAX_LABELLED_DEPTH = 32
MAX_LABELLED_PAIRS = 200_000


def _kustomization_of(entry: str, kustomizations: Mapping[str, KustomizationParts]) -> str | None:
    """The kustomization an entry of `resources:` or `components:` is (a folder), if read."""
    for name in KUSTOMIZATION_FILES:
        path = os.path.normpath(os.path.join(entry, name))
        if path in kustomizations:
            return path
    return None


def _ways(
    kustomizations: Mapping[str, KustomizationParts], own: Mapping[str, AddedLabels]
) -> dict[str, list[tuple[AddedLabels, ...]]] | None:
    """Each resource file the builds hold, with the labels each way to it from a build's
    top adds (its kustomization's and those of every kustomization it is reached through:
    kustomize runs a kustomization's label transformers on all it accumulates, its bases'
    and components' objects too). A top is a kustomization no other names; a base built
    alone as well is not known to be deployed so. None in a loop or past the budgets."""
    inner = {
        entry: _kustomization_of(entry, kustomizations)
        for parts in kustomizations.values()
        for entry in (*parts.resources, *parts.components)
    }
    reached = {found for found in inner.values() if found is not None}
    ways: dict[str, list[tuple[AddedLabels, ...]]] = {}
    visited: set[str] = set()
    pairs = 0
    for top in sorted(set(kustomizations) - reached):
        stack: list[tuple[str, tuple[AddedLabels, ...], tuple[str, ...]]] = [(top, (), (top,))]
        while stack:
            path, chain, seen = stack.pop()
            visited.add(path)
            labels = own.get(path)
            chain = (*chain, labels) if labels is not None else chain
            parts = kustomizations[path]
            for entry in (*parts.resources, *parts.components):
                below = inner.get(entry)
                if below is None:
                    pairs += 1
                    if pairs > MAX_LABELLED_PAIRS:
                        return None
                    ways.setdefault(entry, []).append(chain)
                elif below in seen or len(seen) >= MAX_LABELLED_DEPTH:
                    return None  # a loop kustomize refuses, or past the budget
                else:
                    stack.append((below, chain, (*seen, below)))
    return ways if len(visited) == len(kustomizations) else None  # (a loop with no top)


def _combined(file: str, chain: tuple[AddedLabels, ...]) -> AddedLabels | None:
    """The labels a way adds to a file: every kustomization's on it together; None when two
    of them give one label different values (the outer one wins in kustomize, but where
    each writes it is not kept apart here: none is added rather than a guess)."""
    sets: tuple[dict[str, str], dict[str, str], dict[str, str]] = ({}, {}, {})
    values: dict[str, str] = {}
    for labels in chain:
        for found, pairs in zip(
            sets, (labels.everywhere, labels.templates, labels.metadata), strict=True
        ):
            for key, value in pairs:
                if values.setdefault(key, value) != value:
                    return None
                found[key] = value
    everywhere, templates, metadata = (tuple(sorted(found.items())) for found in sets)
    return AddedLabels(chain[-1].kustomization, (file,), everywhere, templates, metadata)


def _through_builds(
    added: Iterable[AddedLabels], kustomizations: Mapping[str, KustomizationParts]
) -> dict[str, AddedLabels] | None:
    """Each file the builds hold with the labels every way to it adds, where they all
    agree (ways that add none aside, as a kustomization that adds none is); None when the
    builds are not known (a loop, past the budgets)."""
    own = {os.path.normpath(labels.kustomization): labels for labels in added}
    ways = _ways(kustomizations, own)
    if ways is None:
        return None
    by_file: dict[str, AddedLabels] = {}
    for file, chains in ways.items():
        made = {_combined(file, chain) for chain in set(chains) if chain}
        if len(made) == 1 and (labels := made.pop()) is not None:
            by_file[file] = labels
    return by_file


def kustomizations_read(
    manifests: Sequence[ManifestFile], rendered: Mapping[str, str]
) -> dict[str, KustomizationParts]:
    """The kustomizations read as written, by path: what `labelled` walks the builds of."""
    return {
        os.path.normpath(m.path): m.kustomization
        for m in manifests
        if m.kustomization is not None and m.path not in rendered
    }


def labelled(
    objects: list[K8sObject],
    added: Iterable[AddedLabels],
    rendered: Mapping[str, str],
    kustomizations: Mapping[str, KustomizationParts] | None = None,
) -> list[K8sObject]:
    """The objects, each of a file read as written that a kustomization's build holds
    replaced by a copy with the labels that kustomization, and those it is reached
    through from the top of its build, add as kustomize adds them (`rendered`: the files a
    chart or a build made, left as they are; with no `kustomizations` known, or their
    builds not, only the files each names itself)."""
    added = list(added)
    by_file = _through_builds(added, kustomizations) if kustomizations else None
    if by_file is None:
        by_file = _agreed(added)
    if not by_file:
        return objects
    return [
        _with(obj, labels)
        if obj.path not in rendered and (labels := by_file.get(os.path.normpath(obj.path)))
        else obj
        for obj in objects
    ]


def _with(obj: K8sObject, labels: AddedLabels) -> K8sObject:
    everywhere, templates = dict(labels.everywhere), dict(labels.templates)
    made = copy.copy(obj)
    made.labels = {**obj.labels, **everywhere, **templates, **dict(labels.metadata)}
    key = (obj.group, obj.kind)
    if key in (("", "Service"), ("", "ReplicationController")):  # `spec.selector` a map
        made.selector = {**obj.selector, **everywhere}
    elif key in _SELECTED_BY_MATCH_LABELS:
        match: Any = obj.selector.get("matchLabels")  # a map, though typed by its keys
        selector: dict[str, Any] = dict(obj.selector)
        selector["matchLabels"] = {**(match if isinstance(match, dict) else {}), **everywhere}
        made.selector = selector
    if obj.template_labels is None:
        return made
    if key == ("", "Pod"):
        made.template_labels = made.labels  # a Pod's own labels are its pod's
    elif key in _TEMPLATED:
        made.template_labels = {**obj.template_labels, **everywhere, **templates}
    return made


_RESOURCE_FILES = (".yaml", ".yml", ".json")  # an entry that names a file, not a folder


def left_out(
    manifests: Sequence[ManifestFile],
    rendered: Mapping[str, str],
    built_in: Mapping[str, frozenset[str]],
    complete: bool,
    patch_files: frozenset[str] = frozenset(),
    applied: Iterable[str] = (),
) -> dict[str, str]:
    """Each resource file read as written that the run's kustomizations leave out of every
    build, with why: a file of objects beside a kustomization, or in a folder below one
    from which it lists other files (`include/`), or below one that lists entries of its
    subfolders (`base/api/deployment.yaml`: its subfolders are the parts it builds from,
    `base/legacy/` one it does not) with no kustomization between, that no build holds
    (`built_in`, model/patched.py), no kustomization names and nothing else applies
    (`applied`: the paths `kubectl apply -f` commands of scripts, workflows and guides
    name, those Tilt and Skaffold deploy, reading/applied_manifests.py, and the folders
    Argo CD and Flux deploy, `deployed_folders`). Nothing when
    a build is not known whole (`complete`: one past a budget or in a loop) or a
    kustomization was not read (what it lists is not known): a file is never said left
    out on a guess. A folder with no kustomization above it whose files none lists
    (`monitoring/`, applied by hand) is not a kustomization's: its files stay as they are."""
    if not complete:
        return {}
    kustomizations: dict[str, KustomizationParts] = {}
    for m in manifests:
        if m.path in rendered or os.path.basename(m.path) not in KUSTOMIZATION_FILES:
            continue
        if m.kustomization is None:
            return {}
        kustomizations[os.path.normpath(m.path)] = m.kustomization
    if not kustomizations:
        return {}
    held = set(built_in) | {e for parts in kustomizations.values() for e in parts.resources}
    beside = {os.path.dirname(path): path for path in sorted(kustomizations, reverse=True)}
    picked, parted = _picked_folders(kustomizations)
    tails = applied_tails(applied)
    found: dict[str, str] = {}
    for m in manifests:
        path = os.path.normpath(m.path)
        if not m.objects or m.path in rendered or path in held or path in patch_files:
            continue
        if os.path.basename(path) in KUSTOMIZATION_FILES:
            continue  # the kustomization itself (`kind: Kustomization`)
        why = _why_left_out(os.path.dirname(path), beside, picked, parted)
        if why is None or is_applied(path, tails):
            continue
        found[path] = (
            f"no kustomization builds this file ({why}), and no script, workflow, guide, "
            "Tiltfile or Skaffold configuration of the run applies it: nothing of the "
            "repository deploys it, so the rules say nothing of it"
        )
    return found


def _picked_folders(
    kustomizations: Mapping[str, KustomizationParts],
) -> tuple[dict[str, str], dict[str, set[str]]]:
    """The folders a kustomization lists files of one by one (-> it; one below it
    first), and for each kustomization's folder the subfolders it lists entries of (a
    file in one, or one itself)."""
    picked: dict[str, str] = {}
    parted: dict[str, set[str]] = {}
    for path in sorted(kustomizations, reverse=True):
        top = path_parts(os.path.dirname(path))
        for entry in kustomizations[path].resources:
            folder = os.path.dirname(entry)
            named = path_parts(entry)
            if ".." in named:
                continue  # out of the repository: no folder of it
            inside = len(named) > len(top) and named[: len(top)] == top
            if entry.endswith(_RESOURCE_FILES) and (inside or folder not in picked):
                picked[folder] = path  # its own folder's or a base's, below it first
            if inside and (len(named) > len(top) + 1 or not entry.endswith(_RESOURCE_FILES)):
                parted.setdefault(os.path.dirname(path), set()).add(named[len(top)])
    return picked, parted


MAX_LEFT_OUT_DEPTH = 64  # folders climbed from a file to the kustomization above it
# the subfolders a kustomization lists entries of, at least, for another one it lists
# none of to be a part it leaves out (one alone, `include/`, may be a folder it picks
# from beside others applied on their own, `monitoring/`)
PARTS_LISTED = 2


def _why_left_out(
    folder: str,
    beside: Mapping[str, str],
    picked: Mapping[str, str],
    parted: Mapping[str, set[str]],
) -> str | None:
    """Why a file of `folder` no build holds is a kustomization's part left out: one is
    beside it; one lists other files of its folder; or the nearest above it lists
    entries of PARTS_LISTED or more of its subfolders, not of the one the file is in.
    None when no kustomization's tree holds it so."""
    if folder in beside:
        return f"the {os.path.basename(beside[folder])} beside it does not list it"
    if folder in picked:
        return f"{os.path.relpath(picked[folder], folder)} lists other files here, not it"
    below, above = folder, os.path.dirname(folder)
    for _ in range(MAX_LEFT_OUT_DEPTH):
        if above in beside:
            parts = parted.get(above, set())
            if len(parts) < PARTS_LISTED or os.path.basename(below) in parts:
                return None
            shown = os.path.relpath(beside[above], folder)
            return f"{shown} builds from its other subfolders, not from {os.path.basename(below)}/"
        if not above:
            return None
        below, above = above, os.path.dirname(above)
    return None


# The GitOps tools' objects that deploy a folder of the repository: Argo CD's
# Application and ApplicationSet (`spec.source.path`, `spec.sources[].path`, a template's)
# and Flux's Kustomization (`spec.path`, whose manifests below it Flux applies when it
# holds no kustomization.yaml)
_DEPLOYING = {
    "argoproj.io": frozenset(("Application", "ApplicationSet")),
    "kustomize.toolkit.fluxcd.io": frozenset(("Kustomization",)),
}
MAX_DEPLOYING_NODES = 10_000  # values of such an object walked for its `path:`s
MAX_DEPLOYING_DEPTH = 16


def deployed_folders(objects: Iterable[K8sObject]) -> list[str]:
    """The folders Argo CD's Applications and Flux's Kustomizations of the run deploy (each
    `path:` they give, a literal one), as applied paths of their whole trees (`DIR/**`,
    reading/applied_manifests.py): a file below one is deployed, whatever kustomization
    beside it leaves it out (Argo may read the folder as plain manifests, recursively)."""
    found: list[str] = []
    for obj in objects:
        if obj.kind not in _DEPLOYING.get(obj.group, ()):
            continue
        budget = [MAX_DEPLOYING_NODES]
        for path in _paths(obj.body, 0, budget):
            if path and "{" not in path and "$" not in path:
                found.append(f"{path.rstrip('/')}/**")
    return found


def _paths(value: object, depth: int, budget: list[int]) -> Iterable[str]:
    """The strings under a `path` key anywhere in the value, within the budgets."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPLOYING_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "path" and isinstance(item, str):
                yield item
            else:
                yield from _paths(item, depth + 1, budget)
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item, depth + 1, budget)


def not_deployed(findings: list[Finding], left: Mapping[str, str]) -> list[Finding]:
    """The findings but those of the rules about a file the kustomizations leave out
    (`left_out`): what nothing deploys serves no traffic and stops no pod, so what a rule
    says of it is noise; a reading problem (KLB0xx: YAML that does not parse, a wrong
    shape) is kept, as the file is still read."""
    if not left:
        return findings
    return [
        f
        for f in findings
        if f.rule.startswith(READING_RULES) or os.path.normpath(f.path) not in left
    ]


READING_RULES = "KLB0"  # the reading problems' codes (KLB001-KLB009)


def said_at_info(findings: list[Finding], left: Mapping[str, str]) -> list[Finding]:
    """The findings, each in a file the kustomizations leave out (`left_out`) at info,
    with the reason first in its detail."""
    if not left:
        return findings
    return [
        replace(f, severity=Severity.INFO, detail=(why, *f.detail))
        if f.severity > Severity.INFO and (why := left.get(os.path.normpath(f.path)))
        else f
        for f in findings
    ]
