"""A value a chart requires and nothing gives: a template that stops the render with
`required "..." .Values.X` (or `coalesce .Values.X .Values.Y | required "..."`) when
neither the chart's values, its installer's command (chart_installers.py) nor a values file
beside it (chart_values_beside.py) sets X, a password or a host name a person types at
install time. The objects of such a template (and of those that include it) are what
k8slb would lint, and the value is a string the template only passes on.

So a chart whose render fails only that way (each of its failures a template's own
`execution error`, one of them at a `required` whose action names `.Values.` paths) is
rendered again with a stand-in string for the first path that action names (STAND_IN, a
string most checks of a password accept: long, mixed case, digits), then again for the
next such failure, at most MAX_TRIES renders. The new rendering is kept only when Helm
fails on fewer templates than before (a stand-in in a place that wants a number, a map or
a list fails there again, or elsewhere: that chart keeps its KLB003 warnings as they
were). Kept, every finding of the chart says which values were stood in for, and each
failure the stand-ins mended stays a KLB003, at info, naming the value.

Bounded: MAX_TRIES renders a chart (each within the run's render time limit), MAX_LINE
characters of the failing template's line read, MAX_STAND_INS values stood in for."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from k8slb.core import regex
from k8slb.core.findings import Severity
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    render_charts,
)

MAX_TRIES = 4  # renders of one chart with stand-ins
MAX_STAND_INS = 4  # values stood in for, in one chart
MAX_LINE = 4096  # characters of the failing template's line read for its action
STAND_IN = "K8slb-stand-in-0"
_EXECUTION = regex.compile(
    r"execution error at \((?P<file>[\w.\-/]{1,500}\.(?:ya?ml|tpl|txt))"
    r":(?P<line>\d{1,7}):(?P<col>\d{1,7})\)"
)
_VALUE_PATH = regex.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){1,8})")
_REQUIRED = regex.compile(r"\brequired\b")


def with_stand_ins(
    sources: Sequence[tuple[str, bytes]],
    rendered: list[list[Rendering]],
    options: HelmOptions,
) -> list[list[Rendering]]:
    """The charts' renderings, each chart whose render fails only at templates of its own
    on a `required` value rendered again with a stand-in string for that value, when that
    makes Helm fail on fewer templates."""
    if options.set_values:
        return rendered  # the run sets values itself: as it says
    done = list(rendered)
    # each chart's last rendering and the values stood in for in it; the best one kept
    current: dict[int, tuple[Rendering, tuple[str, ...]]] = {}
    # a chart another chart of the run packs from its folder: rendered with that chart's
    # values there; alone, nobody deploys it (chart_dependencies.py)
    used = {
        os.path.abspath(folder)
        for renderings in rendered
        for rendering in renderings
        for folder in rendering.linked.values()
    }
    for index, renderings in enumerate(rendered):
        if os.path.abspath(sources[index][0]) in used:
            continue
        if len(renderings) == 1 and _fails_on_required(renderings[0]):
            current[index] = (renderings[0], ())
    best: dict[int, tuple[Rendering, tuple[str, ...]]] = {}
    for _ in range(MAX_TRIES):
        wanted = []
        for index, (rendering, stood) in sorted(current.items()):
            new = [p for p in _required_paths(rendering) if p not in stood][:1]
            if new and len(stood) < MAX_STAND_INS:
                wanted.append((index, (*stood, *new)))
        if not wanted:
            break
        jobs = [
            (sources[index][0], _with(rendered[index][0].options, stood), sources[index][1])
            for index, stood in wanted
        ]
        current = {}
        for (index, stood), again in zip(wanted, render_charts(jobs), strict=True):
            if len(again) != 1 or again[0].stopped:
                continue
            if _better(again[0], best.get(index, (rendered[index][0],))[0]):
                best[index] = (again[0], stood)
            if _fails_on_required(again[0]):  # the next `required` it meets
                current[index] = (again[0], stood)
    for index, (rendering, stood) in best.items():
        done[index] = [_said(rendered[index][0], rendering, stood)]
    return done


def _with(options: HelmOptions, stood: tuple[str, ...]) -> HelmOptions:
    """The options a chart was rendered with, and a stand-in for each value path."""
    return replace(
        options,
        set_values=(*options.set_values, *(f"{path}={STAND_IN}" for path in stood)),
        value_sets=(),
    )


def _fails_on_required(rendering: Rendering) -> bool:
    """Whether each of the rendering's KLB003 warnings is a template's own execution
    error, and one of them a `required` on values."""
    if rendering.stopped or not rendering.members:
        return False
    warnings = [
        p for p in rendering.problems if p.rule == UNRENDERED and p.severity is Severity.WARNING
    ]
    if not warnings or any(_EXECUTION.search(p.message) is None for p in warnings):
        return False
    return bool(_required_paths(rendering))


def _required_paths(rendering: Rendering) -> list[str]:
    """The `.Values.` paths (dotted, `.Values.` off) of the `required` actions Helm failed
    at, the first each action names, in the order of the failures."""
    paths: list[str] = []
    lines: dict[str, list[str]] = {}  # each template's lines, split once
    judged: set[tuple[str, str | None]] = set()  # (path, variable) looked for already
    for problem in rendering.problems:
        if problem.rule != UNRENDERED or problem.severity is not Severity.WARNING:
            continue
        found = _EXECUTION.search(problem.message)
        if found is None:
            continue
        action = _action(
            rendering, lines, found.group("file"), int(found.group("line")), int(found.group("col"))
        )
        if action is None or _REQUIRED.search(action) is None:
            continue
        first = _VALUE_PATH.search(action)
        if first is None or first.group(1)[1:] in paths:
            continue
        path = first.group(1)[1:]
        assigned = _ASSIGNED.search(action)
        key = (path, assigned.group(1) if assigned is not None else None)
        if key in judged:
            continue
        judged.add(key)
        if not _wants_other_than_a_string(rendering, path, action):
            paths.append(path)
    return paths


# Functions of Helm's templates (Go's and Sprig's) that want a number, a list or a map as
# their first argument: a value passed straight to one is no string.
_NOT_STRING = frozenset(
    {
        "range", "until", "untilStep", "index", "keys", "values", "pluck", "dict", "merge",
        "mergeOverwrite", "toYaml", "toJson", "toPrettyJson", "toRawJson", "first", "last",
        "rest", "initial", "append", "prepend", "concat", "uniq", "compact", "sortAlpha",
        "has", "without", "slice", "int", "int64", "float64", "add", "add1", "sub", "mul",
        "div", "mod", "max", "min", "gt", "lt", "ge", "le", "seq", "splitList",
    }
)  # fmt: skip
_WORD_BEFORE = regex.compile(r"([A-Za-z_][A-Za-z0-9_]*)[\s(]*$")
_WORD_AFTER = regex.compile(r"^[\s)]*\|\s*([A-Za-z_][A-Za-z0-9_]*)")
_ASSIGNED = regex.compile(r"^\{\{-?\s*(\$[A-Za-z_][A-Za-z0-9_]*)\s*:?=")
_RANGE = regex.compile(r"^\{\{-?\s*range\b")
_NEAR = 48  # characters either side of a use looked at
MAX_SCANNED = 1 << 20  # bytes of each template read for the value's uses


def _wants_other_than_a_string(rendering: Rendering, path: str, action: str) -> bool:
    """Whether a template of the chart uses the value (`.Values.PATH`, or the variable
    the failing action assigns it to) as no string: ranged over, a field read of it
    (`.Values.PATH.x`), or passed straight to a function that wants a number, a list or
    a map (`toYaml`, `int`, `index`, piped or as the first argument)."""
    if _RANGE.search(action) is not None:
        return True
    names = [f".Values.{path}"]
    assigned = _ASSIGNED.search(action)
    if assigned is not None:
        names.append(assigned.group(1))
    for member, data in rendering.members.items():
        if not member.startswith("templates/"):
            continue
        text = data[:MAX_SCANNED].decode("utf-8", "replace")
        for name in names:
            if _used_as_no_string(text, name):
                return True
    return False


def _used_as_no_string(text: str, name: str) -> bool:
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        after = text[end : end + 2]
        if after[:1].isalnum() or after[:1] == "_":
            start = text.find(name, end)
            continue  # a longer name
        if name.startswith(".") and after[:1] == "." and after[1:2].isalpha():
            return True  # a field of it: a map
        line_start = text.rfind("\n", 0, start) + 1
        opened = text.rfind("{{", line_start, start)
        if opened >= 0 and _RANGE.search(text[opened : opened + _NEAR]) is not None:
            return True
        before = _WORD_BEFORE.search(text[max(start - _NEAR, 0) : start])
        piped = _WORD_AFTER.search(text[end : end + _NEAR])
        if (before is not None and before.group(1) in _NOT_STRING) or (
            piped is not None and piped.group(1) in _NOT_STRING
        ):
            return True
        start = text.find(name, end)
    return False


def _action(
    rendering: Rendering, lines: dict[str, list[str]], name: str, line: int, column: int
) -> str | None:
    """The template action (`{{ ... }}`) at Helm's place in the chart's file it names
    (`chart/templates/x.yaml`, the chart's name first), on that line (`lines`: the
    templates split so far)."""
    _, _, inside = name.partition("/")
    if inside not in lines:
        data = rendering.members.get(inside)
        if data is None:
            return None
        lines[inside] = [text[:MAX_LINE] for text in data.decode("utf-8", "replace").splitlines()]
    if not 1 <= line <= len(lines[inside]):
        return None
    text = lines[inside][line - 1]
    at = min(max(column - 1, 0), len(text))
    start = text.rfind("{{", 0, at + 1)
    end = text.find("}}", at)
    if start < 0:
        return None
    return text[start : end if end >= 0 else len(text)]


def _better(again: Rendering, before: Rendering) -> bool:
    """Whether Helm failed on fewer of the chart's templates (or rendered it at all)."""
    if again.stopped or not again.files:
        return False
    if not before.files:
        return True
    return len(again.left_out) < len(before.left_out)


def _said(before: Rendering, made: Rendering, stood: tuple[str, ...]) -> Rendering:
    """The rendering with stand-ins, its findings saying so; each failure of the chart's
    defaults that it mended a KLB003 at info naming the values."""
    names = ", ".join(stood)
    still = {made.path_of(member) for member in made.left_out}  # templates Helm still fails on
    mended = [
        replace(
            p,
            message=f"{p.message}: rendered instead with a stand-in string for {names}",
            severity=Severity.INFO,
            detail=(
                f"the chart requires {names} and no values file or command k8slb read gives "
                f"{'it' if len(stood) == 1 else 'them'}; its objects are linted with "
                f"{STAND_IN!r} in {'its' if len(stood) == 1 else 'their'} place",
                "give the value (--helm-set, --helm-values) to lint it as installed",
            ),
        )
        for p in before.problems
        if p.rule == UNRENDERED and p.severity is Severity.WARNING and p.path not in still
    ]
    # what was said of its values before (an installer's command, a file beside it)
    kept = [
        p for p in before.problems if p.severity is not Severity.WARNING and p not in made.problems
    ]
    made.label = (
        f"{before.label}, and " if before.label else ""
    ) + f"a stand-in string for {names} (a value the chart requires that nothing here gives)"
    made.uncached = before.uncached
    made.installer = before.installer
    made.problems = [*mended, *kept, *made.problems]
    return made
