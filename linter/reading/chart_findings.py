"""What a rendered chart (or a kustomize build) is made of, for putting findings back where
a person edits (relocation.py): each rendered template, how its lines map to the
template's, and the values files that fed it."""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from k8slb.core.findings import Problem, Severity
from k8slb.reading.chart_lines import Define, TemplateLines, defines, key_lines
from k8slb.reading.chart_packages import is_package, unpacked
from k8slb.reading.charts import UNRENDERED, HelmOptions, Rendering, real_path
from k8slb.reading.manifests import ManifestFile


@dataclass
class RenderedTemplate:
    """A template of a rendered chart: how its rendered lines map back to it, and the
    values files that fed it (for `related`), each with the line of each of its keys."""

    chart: str
    lines: TemplateLines
    values: list[tuple[str, dict[tuple[str, ...], int]]]
    name: str  # Helm's name for the template
    path: str  # the template's file
    label: str | None  # the value set, when the chart has several
    text: str  # what it rendered to
    source: str  # the template's own text
    options: HelmOptions
    values_text: str | None  # the chart's values.yaml as rendered
    offset: int = 0  # lines of the file before `source` (a document of a resource file)
    fixable: bool = True  # False: fixes are for a human (a kustomize build's patches)
    manual: str | None = None  # what to tell a human, instead of the chart's template
    # the chart's named templates (`define`), read when a finding's line is in none
    helpers: Callable[[], Mapping[str, Define]] = dict
    # A packaged subchart's template: `path` is the archive, this the template's path in it
    # (no file a person can open).
    archived: str | None = None

    def file_line(self, rendered_line: int) -> int:
        return self.lines.line(rendered_line) + self.offset


def _values_keys(rendering: Rendering) -> list[tuple[str, dict[tuple[str, ...], int]]]:
    """The rendering's values files, read once for all its templates: the chart's own as it
    was rendered, the others from disk."""
    keys = []
    for values_file in rendering.values_files:
        member = Path(os.path.relpath(values_file, rendering.chart)).as_posix()
        try:
            data = rendering.members.get(member) or Path(values_file).read_bytes()
        except OSError:
            continue
        keys.append((values_file, key_lines(data.decode("utf-8", errors="replace"))))
    return keys


def rendered_templates(rendering: Rendering) -> dict[str, RenderedTemplate]:
    found = {}
    values = _values_keys(rendering)
    helpers = functools.cache(lambda: _helpers(rendering))
    values_data = rendering.members.get("values.yaml")
    values_yaml = values_data.decode("utf-8", errors="replace") if values_data is not None else None
    archives = _Archives(rendering.members)
    for path, text in rendering.files.items():
        member = rendering.member_of(real_path(path))
        file, archived = real_path(path), None
        if member in rendering.members:  # the text it was rendered from (a fix may be in it)
            source = rendering.members[member].decode("utf-8", errors="replace")
        elif (packaged := archives.holding(member)) is not None:
            archive, archived, source = packaged
            file = os.path.join(rendering.chart, archive)
        else:
            try:
                source = Path(real_path(path)).read_text("utf-8", errors="replace")
            except OSError:
                source = ""
        template = RenderedTemplate(
            rendering.chart,
            TemplateLines(source.splitlines(), text.splitlines()),
            values,
            rendering.names.get(path, path),
            file,
            rendering.label,
            text,
            source,
            rendering.options,
            values_yaml,
            helpers=helpers,
            archived=archived,
        )
        if rendering.is_linked(member):  # the fix machinery writes only the chart's own files
            template.fixable = False
            template.manual = f"make that change in {file}, of a chart {rendering.chart} uses"
        elif archived is None and os.path.islink(file):  # a file of another place, shared
            template.fixable = False
            template.manual = f"make that change in {os.path.realpath(file)}, which {file} links to"
        found[path] = template
    return found


class _Archives:
    """A chart's packaged subcharts (`charts/cache-1.2.3.tgz`), opened when a template
    of one is looked for."""

    def __init__(self, members: Mapping[str, bytes]) -> None:
        self.members = members
        self.packages = [name for name in members if is_package(name)]
        self.opened: dict[str, dict[str, bytes]] = {}

    def holding(self, member: str) -> tuple[str, str, str] | None:
        """(archive, path inside it, text) of the packaged template Helm names `member`
        (`charts/cache/templates/x.yaml`: the archive in charts/ whose top folder is
        `cache`); None when no archive of the chart holds it."""
        for package in self.packages:
            folder = package.rpartition("/")[0] + "/"
            if not member.startswith(folder):
                continue
            inner = member[len(folder) :]
            if package not in self.opened:
                self.opened[package] = unpacked(self.members[package])
            files = self.opened[package]
            if inner in files:
                return package, inner, files[inner].decode("utf-8", errors="replace")
            top = inner.partition("/")[0] + "/"
            if any(name.startswith(top) for name in files):  # in an archive inside it
                return package, inner, ""
        return None


def valueless_problem(rendering: Rendering, parsed: dict[str, Any]) -> Problem | None:
    """One KLB003 for a chart rendered without values (it ships a stand-in for its
    values.yaml: a template of it, values for a setting) into text that is not YAML,
    instead of a KLB001 on each template line the missing values broke: those are
    dropped from `parsed` (the parses of its rendered files, replaced, never changed)."""
    name = rendering.values_stand_in
    if name is None:
        return None
    broken = [
        (path, problem)
        for path in rendering.files
        if isinstance(parsed.get(path), ManifestFile)
        for problem in parsed[path].problems
        if problem.rule == "KLB001"
    ]
    if not broken:
        return None
    for path in dict.fromkeys(path for path, _ in broken):
        found = parsed[path]
        parsed[path] = replace(found, problems=[p for p in found.problems if p.rule != "KLB001"])
    path, first = broken[0]
    stand_in = os.path.join(rendering.chart, name)
    what = "a template of its values" if b"{{" in rendering.members.get(name, b"") else "values"
    return Problem(
        UNRENDERED,
        stand_in,
        1,
        1,
        f"chart {rendering.chart} renders to text that is not YAML: it has no values.yaml, "
        f"only {name} ({what}), so its templates got no values",
        None,
        Severity.WARNING,
        (
            f"render it with values: a filled-in copy of {name} as --helm-values FILE, or "
            "a value set in the configuration (helm.charts)",
            f"the first broken line: {rendering.names.get(path, path)}, rendered line "
            f"{first.line}: {first.message}",
        ),
    )


def _helpers(rendering: Rendering) -> Mapping[str, Define]:
    """The named templates of a rendered chart's files, by their paths on disk."""
    texts = {
        rendering.path_of(member): data.decode("utf-8", errors="replace")
        for member, data in rendering.members.items()
        if member.endswith((".tpl", ".yaml", ".yml")) and b"define" in data
    }
    return defines(texts)


def in_namespace(manifests: ManifestFile, namespace: str) -> ManifestFile:
    """The rendered objects as the release puts them: those that name no namespace are in
    the release's (`helm install -n`). Copies: a parse may be shared through the cache."""
    objects = []
    for obj in manifests.objects:
        if obj.namespace is None:
            obj = copy.copy(obj)
            obj.namespace = namespace
            obj.ref = replace(obj.ref, namespace=namespace)
        objects.append(obj)
    return replace(manifests, objects=objects)
