"""Deployment units: which objects are applied together, so that a Service only ever meets
the pods of its own unit.

A chart's render is a unit, and so is a kustomization's build. Plain manifests are one unit
unless the tree holds alternatives: a repository that keeps a folder per variant (L4,
headless, Ingress, mesh) or several copies of an example has objects of the same kind,
namespace and name in different files, which no one applies together. Where two files
define the same object, the folder where their paths part holds variants: each of its
entries that defines such an object is a variant of its own, and its other entries (the
common parts) go with every variant.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import PurePath

from k8slb.reading.objects import K8sObject

Folder = tuple[str, ...]
# (where the objects come from: "" for plain files, else the chart or kustomization;
#  for each folder of variants above the file, the variant it is in)
Unit = tuple[str, tuple[tuple[Folder, str], ...]]
PLAIN: Unit = ("", ())


def compatible(one: Unit, other: Unit) -> bool:
    """Whether objects of two units may be applied together."""
    if one[0] != other[0]:
        return False
    if not one[1] or not other[1]:
        return True
    chosen = dict(one[1])
    return all(chosen.get(folder, variant) == variant for folder, variant in other[1])


def deployment_units(
    objects: Iterable[K8sObject], rendered_from: Mapping[str, str]
) -> dict[str, Unit]:
    """The unit of each file that holds objects, by path (rendered files: their chart's or
    kustomization's path)."""
    paths_of: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)
    files: set[str] = set()
    for obj in objects:
        files.add(obj.path)
        if obj.name is not None and obj.path not in rendered_from:
            paths_of[(obj.group, obj.kind, obj.namespace or "", obj.name)].add(obj.path)
    variants: dict[Folder, set[str]] = defaultdict(set)
    for paths in paths_of.values():
        if len(paths) < 2:
            continue
        split = [PurePath(path).parts for path in sorted(paths)]
        for number, one in enumerate(split):
            for other in split[number + 1 :]:
                depth = _common_depth(one, other)
                variants[one[:depth]].update((one[depth], other[depth]))
    units: dict[str, Unit] = {}
    for path in files:
        source = rendered_from.get(path)
        if source is not None:
            units[path] = (source, ())
            continue
        parts = PurePath(path).parts
        chosen = tuple(
            (parts[:depth], parts[depth])
            for depth in range(len(parts))
            if parts[depth] in variants.get(parts[:depth], ())
        )
        units[path] = ("", chosen)
    return units


def _common_depth(one: tuple[str, ...], other: tuple[str, ...]) -> int:
    depth = 0
    while depth < min(len(one), len(other)) - 1 and one[depth] == other[depth]:
        depth += 1
    return depth
