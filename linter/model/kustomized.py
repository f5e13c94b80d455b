"""The labels kustomize adds, on resource files read as written (no `--kustomize`): a
kustomization's `commonLabels` and `labels:` put on the objects of the files it names
itself, where kustomize's default field specs put them, so that a Service written with
`selector: {}` selects the pods its kustomization labels (reading/kustomization.py reads
them). A file two kustomizations name with different labels gets none (which build is
deployed is not known), and so do a base's files from an overlay above it."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping
from typing import Any

from k8slb.reading.kustomization import AddedLabels
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


def labelled(
    objects: list[K8sObject], added: Iterable[AddedLabels], rendered: Mapping[str, str]
) -> list[K8sObject]:
    """The objects, each of a file read as written that a kustomization names replaced by a
    copy with that kustomization's labels added as kustomize adds them (`rendered`: the
    files a chart or a build made, left as they are)."""
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
