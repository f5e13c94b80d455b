"""Findings about a rendered chart (or a kustomize build), put back where a person edits:
the template line that wrote the reported key, with the values it printed, and the fix
carried to the template when it can be (fixing/chart_fix.py)."""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from k8slb.core.edits import ChartEdit
from k8slb.core.findings import NO_FIX, Finding, Related, RenderedAt
from k8slb.reading.chart_lines import Define, TemplateLines, defines, key_lines
from k8slb.reading.charts import HelmOptions, Rendering, real_path
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
    for path, text in rendering.files.items():
        member = Path(os.path.relpath(real_path(path), rendering.chart)).as_posix()
        if member in rendering.members:  # the text it was rendered from (a fix may be in it)
            source = rendering.members[member].decode("utf-8", errors="replace")
        else:
            try:
                source = Path(real_path(path)).read_text("utf-8", errors="replace")
            except OSError:
                source = ""  # a subchart in a .tgz: no file to point at
        found[path] = RenderedTemplate(
            rendering.chart,
            TemplateLines(source.splitlines(), text.splitlines()),
            values,
            rendering.names.get(path, path),
            real_path(path),
            rendering.label,
            text,
            source,
            rendering.options,
            values_yaml,
            helpers=helpers,
        )
    return found


def _helpers(rendering: Rendering) -> Mapping[str, Define]:
    """The named templates of a rendered chart's files, by their paths on disk."""
    texts = {
        os.path.join(rendering.chart, member): data.decode("utf-8", errors="replace")
        for member, data in rendering.members.items()
        if member.endswith((".tpl", ".yaml", ".yml")) and b"define" in data
    }
    return defines(texts)


def _values_related(template: RenderedTemplate, line: int) -> list[Related]:
    """Where each value the template line prints is set: the last values file that has it."""
    related = []
    for dotted in template.lines.value_references(line):
        for values_file, keys in reversed(template.values):
            found = keys.get(tuple(dotted.split(".")))
            if found is not None:
                name = os.path.basename(values_file)
                related.append(Related(values_file, found, f"{name}:{found} {dotted}"))
                break
    return related


def relocate(finding: Finding, templates: Mapping[str, RenderedTemplate]) -> Finding:
    """A finding about rendered text, put on its template line (with the values it came
    from); its fix is for a human: the rendered text is not what is on disk."""
    template = templates.get(finding.path)
    related = tuple(
        replace(r, path=templates[r.path].path, line=templates[r.path].file_line(r.line))
        if r.path in templates
        else r
        for r in finding.related
    )
    if template is None:
        return finding if related == finding.related else replace(finding, related=related)
    helper = template.lines.helper_line(finding.line, template.helpers())
    if helper is not None:
        return _in_helper(finding, template, related, *helper)
    line = template.lines.line(finding.line)
    text = template.lines.template[line - 1] if 0 < line <= len(template.lines.template) else ""
    rendered = template.lines.rendered
    same = 0 < finding.line <= len(rendered) and rendered[finding.line - 1] == text
    column = finding.column if same else len(text) - len(text.lstrip()) + 1
    values = _values_related(template, line)
    detail = (*finding.detail, *(f"the template line prints {v.message}" for v in values))
    if template.label is not None:
        detail = (*detail, f"rendered with {template.label}")
    wanted = finding.fix.available and template.fixable
    edit = _template_edit(finding, template) if wanted else None
    if finding.fix.available and edit is None:
        manual = template.manual or f"make that change in the template (chart {template.chart})"
        detail = (*detail, manual)
    return replace(
        finding,
        path=template.path,
        line=line + template.offset,
        column=column,
        related=(*values, *related),
        fix=finding.fix if edit is not None else NO_FIX,
        edits=(edit,) if edit is not None else (),
        detail=detail,
        rendered=RenderedAt(template.name, finding.line),
    )


def _in_helper(
    finding: Finding,
    template: RenderedTemplate,
    related: tuple[Related, ...],
    path: str,
    line: int,
) -> Finding:
    """A finding on a line a helper (`define`) wrote: put on that line, its fix left to a
    human (the helper may be included by other templates too)."""
    detail = (
        *finding.detail,
        f"written by a helper that {os.path.basename(template.path)} includes",
    )
    if template.label is not None:
        detail = (*detail, f"rendered with {template.label}")
    if finding.fix.available:
        detail = (*detail, f"make that change in the helper (chart {template.chart})")
    source = Path(path)
    try:
        text = source.read_text("utf-8", errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        text = ""
    return replace(
        finding,
        path=path,
        line=line,
        column=len(text) - len(text.lstrip()) + 1,
        related=related,
        fix=NO_FIX,
        edits=(),
        detail=detail,
        rendered=RenderedAt(template.name, finding.line),
    )


def _template_edit(finding: Finding, template: RenderedTemplate) -> ChartEdit | None:
    from k8slb.fixing.chart_fix import plan_chart_edit

    if template.label is not None and template.options.value_sets:
        return None  # one template, several value sets: a fix for one may break another
    return plan_chart_edit(
        finding.edits,
        chart=template.chart,
        member=Path(os.path.relpath(template.path, template.chart)).as_posix(),
        template=template.source,
        rendered=template.text,
        rendered_name=template.name,
        line_of=template.lines.template_lines,
        options=template.options,
        values=template.values_text,
    )


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
