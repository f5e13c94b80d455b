"""A fix for an object rendered from a Helm chart, made in its template.

The fix is first made on the rendered text, as for any manifest. Each line it adds or
changes is then carried to the template: an added line goes after the template line that
wrote the rendered line above it, when that template line is literal text (what it renders
is what it says) and the next template line wrote the rendered line below (no template
action in between, that an `if` or a `range` could decide); a changed line replaces its
template line when that line is literal. Anything else (a line a helper or a value wrote)
is left to a human. Before the template is written, the chart is rendered with it, and the
result must be the fixed rendered text exactly (ChartEdit); this module only plans.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from k8slb.core import regex
from k8slb.core.edits import ChartEdit, Edit, YamlEdit
from k8slb.editing.yaml_edit import apply_yaml_edits
from k8slb.reading.charts import HelmOptions, pack_members, render, unpack

# A twin Service names the release's objects and copies their selector: a template writes
# those with actions, and a literal copy would be wrong for any other release.
RELEASE_SPECIFIC = frozenset({"add-twin"})
# Template functions that write several lines, or indent what they write.
_MULTILINE = regex.compile(r"\b(?:nindent|indent|toYaml|include|template|tpl)\b")
_OPENS = regex.compile(r"\{\{-?\s*(?:if|range|with|define|block)\b")
_CLOSES = regex.compile(r"\{\{-?\s*end\b")


def _depths(lines: Sequence[str]) -> list[int]:
    """How many template blocks (`if`, `range`, `with`...) are open at each line."""
    depths, depth = [], 0
    for line in lines:
        if "{{" in line:  # (a line with no action: spared the patterns' calls)
            depth += len(_OPENS.findall(line)) - len(_CLOSES.findall(line))
        depths.append(depth)
    return depths


def plan_chart_edit(
    edits: Sequence[Edit],
    *,
    chart: str,
    member: str,
    template: str,
    rendered: str,
    rendered_name: str,
    line_of: Sequence[int | None],
    options: object,
    values: str | None = None,
) -> ChartEdit | None:
    """The template change that makes the rendered text what `edits` make of it, or None
    when the fix touches what the template does not write literally."""
    if not edits or not all(isinstance(e, YamlEdit) for e in edits):
        return None
    if any(isinstance(e, YamlEdit) and e.op in RELEASE_SPECIFIC for e in edits):
        return None
    if len({e.path for e in edits}) != 1:
        return None
    refusals: list[str] = []
    expected = apply_yaml_edits(rendered, [e for e in edits if isinstance(e, YamlEdit)], refusals)
    if refusals:
        return None
    before, after = rendered.splitlines(keepends=True), expected.splitlines(keepends=True)
    lines = template.splitlines(keepends=True)
    # A line may change, or go after another, only at the object's own block level: inside
    # a `range` or an `if` opened within the object, other values would repeat it or drop it.
    depths = _depths(lines)
    kind = next((n for n, line in enumerate(lines) if line.startswith("kind:")), None)
    if kind is None:
        return None
    level = depths[kind]
    splices: list[tuple[int, int, list[str]]] = []  # (template index, deleted, new lines)
    changed_values: list[tuple[str, str, str]] = []  # (dotted key, old, new) in values.yaml
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if op == "insert":
            at = _insertion_point(i1, before, lines, line_of)
            if at is None or depths[at - 1] != level:
                return None
            splices.append((at, 0, after[j1:j2]))
        elif op == "replace" and i2 - i1 == j2 - j1:
            for offset in range(i2 - i1):
                number = line_of[i1 + offset]
                if number is None or depths[number - 1] != level:
                    return None
                old_line, new_line = before[i1 + offset], after[j1 + offset]
                if lines[number - 1] == old_line:
                    splices.append((number - 1, 1, [new_line]))
                    continue
                value = _value_change(lines[number - 1], old_line, new_line)
                if value is None:
                    return None  # a helper, or an expression, wrote it
                changed_values.append(value)
        else:
            return None
    if changed_values:  # the value is what changes: in values.yaml, plain YAML
        if splices or values is None:
            return None
        new_values = _set_values(values, changed_values)
        if new_values is None:
            return None
        return ChartEdit(chart, VALUES, values, new_values, rendered_name, expected, options)
    new = list(lines)
    for at, deleted, inserted in sorted(splices, key=lambda s: s[0], reverse=True):
        new[at : at + deleted] = inserted
    return ChartEdit(
        path=chart,
        member=member,
        old=template,
        new="".join(new),
        rendered=rendered_name,
        expected=expected,
        options=options,
    )


VALUES = "values.yaml"
_VALUE_ACTION = regex.compile(r"\{\{-?\s*\.Values\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*-?\}\}")
_VALUES_LINE = regex.compile(
    r"^(?P<key>\s*[\w.-]+:[ \t]+)(?P<value>[^\s#'\"][^#\n]*?)(?P<rest>[ \t]*(?:#.*)?\r?\n?)$"
)


def _value_change(template_line: str, old: str, new: str) -> tuple[str, str, str] | None:
    """(key, old value, new value) when the line is literal text around one `.Values.KEY`
    that the fix changes, or None."""
    actions = list(_VALUE_ACTION.finditer(template_line))
    if len(actions) != 1 or template_line.count("{{") != 1:
        return None
    action = actions[0]
    prefix, suffix = template_line[: action.start()], template_line[action.end() :]
    for line in (old, new):
        if not (line.startswith(prefix) and line.endswith(suffix)):
            return None
    cut = slice(len(prefix), len(old) - len(suffix))
    return action.group(1), old[cut], new[len(prefix) : len(new) - len(suffix)]


def _set_values(values: str, changes: Sequence[tuple[str, str, str]]) -> str | None:
    """values.yaml with each key's plain scalar changed, its comment and layout kept."""
    from k8slb.reading.chart_lines import value_line

    lines = values.splitlines(keepends=True)
    for key, old, new in changes:
        number = value_line(values, key)
        match = _VALUES_LINE.match(lines[number - 1]) if number else None
        if number is None or match is None or match.group("value") != old:
            return None
        lines[number - 1] = match.group("key") + new + match.group("rest")
    return "".join(lines)


def _one_line(template_line: str, rendered_line: str) -> bool:
    """Whether the template line wrote exactly that one rendered line, where it stands:
    literal, or a key whose value is an action that writes no line breaks."""
    if template_line == rendered_line:
        return True
    indent = len(template_line) - len(template_line.lstrip())
    same_place = (
        template_line[:indent] == rendered_line[:indent]
        and rendered_line[indent : indent + 1] != " "
    )
    return same_place and "{{" in template_line and not _MULTILINE.search(template_line)


def _insertion_point(
    index: int, before: Sequence[str], lines: Sequence[str], line_of: Sequence[int | None]
) -> int | None:
    """Where in the template lines go that the fix inserts before rendered line `index`:
    after the literal template line of the rendered line above, if the template line after
    it wrote the rendered line below (or the template ends there)."""
    if index == 0:
        return None
    above = line_of[index - 1]
    if above is None or not _one_line(lines[above - 1], before[index - 1]):
        return None
    if index < len(before):
        below = line_of[index]
        if below != above + 1:
            return None
    elif any(line.strip() and "{{" not in line for line in lines[above:]):
        return None  # literal text after it, which the render did not show
    return above


def apply_chart_edits(data: bytes, edits: Sequence[ChartEdit]) -> tuple[bytes, list[str]]:
    """The chart's files with the template edits made, each only when the chart renders
    to exactly what the fix planned (the edited template) and to the same as before (every
    other). One edit per template a pass: the next pass plans the others on the new text."""
    members = unpack(data)
    refusals: list[str] = []
    edited: set[str] = set()
    for edit in edits:
        if edit.member in edited:
            continue
        current = members.get(edit.member)
        if current is None or current.decode("utf-8", "replace") != edit.old:
            refusals.append(f"{edit.member}: the template changed since it was checked")
            continue
        trial = {**members, edit.member: edit.new.encode()}
        before, after = _outputs(edit.path, edit.options, members, trial)
        others_same = {k: v for k, v in before.items() if k != edit.rendered} == {
            k: v for k, v in after.items() if k != edit.rendered
        }
        if after.get(edit.rendered) == edit.expected and others_same:
            members = trial
            edited.add(edit.member)
        else:
            refusals.append(
                f"{edit.member}: not fixed in the template: it would not render to the fix"
            )
    return pack_members(members), refusals


def _outputs(
    chart: str, options: HelmOptions, *versions: Mapping[str, bytes]
) -> list[dict[str, str]]:
    """Helm's output by template name for each version of the chart's files (rendered in
    one child process), or nothing for a version that does not render. A chart rendered
    without templates Helm failed on is rendered, those templates named in its output
    (a version that leaves out others is not the same)."""
    from k8slb.reading.render_process import run_isolated

    jobs = [(chart, options, pack_members(members)) for members in versions]
    outputs: list[dict[str, str]] = []
    for ok, rendering in run_isolated(lambda job: render(*job), jobs):
        if not ok or len(rendering.problems) > len(rendering.left_out):
            outputs.append({})
        else:
            output = {rendering.names[p]: text for p, text in rendering.files.items()}
            output.update({f"\0left out\0{member}": "" for member in rendering.left_out})
            outputs.append(output)
    return outputs


def chart_changes(chart: str, old: bytes, new: bytes) -> list[tuple[str, Path, bytes, bytes]]:
    """The files a fix changed in a chart: (shown path, file, old bytes, new bytes)."""
    before, after = unpack(old), unpack(new)
    return [
        (os.path.join(chart, member), Path(chart, member), before.get(member, b""), data)
        for member, data in sorted(after.items())
        if before.get(member) != data
    ]
