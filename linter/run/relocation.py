"""The run's relocate stage: findings about a rendered chart (or a kustomize build) put back
where a person edits: the template line that wrote the reported key (or the helper's line),
with the values it printed, and the fix carried to the template when it can be
(editing/chart_fix.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from k8slb.core.edits import ChartEdit
from k8slb.core.findings import NO_FIX, Finding, Related, RenderedAt, Severity
from k8slb.reading.chart_findings import RenderedTemplate


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


def _requoted(finding: Finding, before: tuple[Related, ...], after: tuple[Related, ...]) -> Finding:
    """The finding with the related places its text quotes (`deployment.yaml:26`, where an
    env var is set) moved as its related entries moved: to the template's line."""

    def place(related: Related) -> str:
        return f"{os.path.basename(related.path)}:{related.line}"

    moved = {place(old): place(new) for old, new in zip(before, after, strict=True) if old != new}
    text = [_swapped(part, moved) for part in (finding.message, *finding.detail)]
    return replace(finding, message=text[0], detail=tuple(text[1:]), related=after)


def _swapped(text: str, moved: Mapping[str, str]) -> str:
    """`text` with each place of `moved` it quotes replaced by its new one: a whole place,
    not the tail of a longer name nor the head of a longer line number (a scan: the text
    quotes the repository's names)."""
    pieces: list[str] = []
    start = 0
    while True:
        hits = [(at, old) for old in moved if (at := _quoted_at(text, old, start)) >= 0]
        if not hits:
            return "".join(pieces) + text[start:]
        at, old = min(hits)
        pieces += [text[start:at], moved[old]]
        start = at + len(old)


def _quoted_at(text: str, place: str, start: int) -> int:
    """Where `text` quotes `place` whole, from `start` on; -1 when it does not."""
    at = text.find(place, start)
    while at >= 0:
        before = text[at - 1] if at > 0 else " "
        after = text[at + len(place) : at + len(place) + 1]
        if not (before.isalnum() or before in "_.-") and not after.isdigit():
            return at
        at = text.find(place, at + 1)
    return -1


_UNRENDERED = "KLB003"  # (reading/charts.py's UNRENDERED)
_SHAPE = "KLB002"  # (reading/manifests.py's wrong shape)


def _left_unset(
    finding: Finding, template: RenderedTemplate, line: int, values: Sequence[Related]
) -> list[str]:
    """The values a template line prints that no values file of the render sets, when the
    finding is a wrong shape there and the line rendered an empty value (`app: `,
    `- `): what the chart's defaults leave out, for its installer to give (as a value it
    `required`s); empty otherwise."""
    rendered = template.lines.rendered
    if finding.rule != _SHAPE or not 0 < finding.line <= len(rendered):
        return []
    written = rendered[finding.line - 1].strip()
    if not (written == "-" or written.endswith(":")):
        return []
    printed = template.lines.value_references(line)
    if not printed or values:  # some value the line prints is set: not the defaults' gap
        return []
    return printed


def _as_installed(finding: Finding, unset: Sequence[str]) -> Finding:
    """A wrong shape that only an unset value makes, said at info, naming the values."""
    named = ", ".join(f"`.Values.{dotted}`" for dotted in unset)
    return replace(
        finding,
        severity=Severity.INFO,
        message=f"{finding.message} (with the chart's defaults: {named} is set in no values "
        "file, so it renders empty)",
        detail=(
            *finding.detail,
            "info only: a value the chart leaves for its installer to give "
            f"(`--set {unset[0]}=...`); a default in values.yaml lints it as installed",
        ),
    )


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
    if related != finding.related:
        finding = _requoted(finding, finding.related, related)
    if template is None or finding.rule == _UNRENDERED:
        # (a chart's KLB003 is at the place Helm names in the template itself, never a
        # rendered line: a template Helm failed on and that rendered later, its failure
        # mended by an installer's values or a stand-in, stays where Helm failed)
        return finding
    if template.archived is not None:
        return _in_archive(finding, template, related)
    helper = template.lines.helper_line(finding.line, template.helpers())
    if helper is not None:
        return _in_helper(finding, template, related, *helper)
    line = template.lines.line(finding.line)
    text = template.lines.template[line - 1] if 0 < line <= len(template.lines.template) else ""
    rendered = template.lines.rendered
    same = 0 < finding.line <= len(rendered) and rendered[finding.line - 1] == text
    column = finding.column if same else len(text) - len(text.lstrip()) + 1
    values = _values_related(template, line)
    unset = _left_unset(finding, template, line, values)
    if unset:
        finding = _as_installed(finding, unset)
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


def _in_archive(
    finding: Finding, template: RenderedTemplate, related: tuple[Related, ...]
) -> Finding:
    """A finding on a template of a packaged subchart: on the archive (the file a person
    has), naming the template and its line inside it; its fix is for the subchart's own
    source."""
    line = template.lines.line(finding.line) if template.source else 0
    at = f"{template.archived}, line {line}," if line else f"{template.archived} is"
    detail = (
        *finding.detail,
        f"written by {at} inside the archive {os.path.basename(template.path)} "
        "(a packaged subchart: no file to open here; change it where the subchart is made)",
    )
    if template.label is not None:
        detail = (*detail, f"rendered with {template.label}")
    return replace(
        finding,
        path=template.path,
        line=1,
        column=1,
        related=related,
        fix=NO_FIX,
        edits=(),
        detail=detail,
        rendered=RenderedAt(template.name, finding.line),
    )


def _template_edit(finding: Finding, template: RenderedTemplate) -> ChartEdit | None:
    # here: the YAML editor (ruamel's composer) is loaded only when a fix is carried to a
    # template, not by every run that imports the engine
    from k8slb.editing.chart_fix import plan_chart_edit

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
