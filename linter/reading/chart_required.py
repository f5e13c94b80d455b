"""A value a chart requires and nothing gives: a template that stops the render with
`required "..." .Values.X` (or `coalesce .Values.X .Values.Y | required "..."`) when
neither the chart's values, its installer's command (chart_installers.py) nor a values file
beside it (chart_values_beside.py) sets X, a password or a host name a person types at
install time. The objects of such a template (and of those that include it) are what
k8slb would lint, and the value is a string the template only passes on.

So a chart whose render fails that way (one of its failures a `required` whose value
k8slb can name; others, a template that needs a subchart not vendored, stay as they are)
is rendered again with a stand-in string for that value (STAND_IN, a string most checks
of a password accept: long, mixed case, digits), then again for the next such failure, at
most MAX_TRIES renders. The value is the first `.Values.` path the action names; else a
variable it reads, followed back within its helper to `.Values`; else the `--set KEY=` its
message tells users to give, when the action reads a field KEY ends with. Helm names the
`include` of a helper that fails, not the helper's line: the `required` is then the one
whose message is Helm's. Else (a `fail` in a helper that checks the values, read with
`dig`: `fail "db.host is required"`; a `required` on a helper's argument) the value path
Helm's message names, when the chart's values.yaml gives it as an empty string (`host:
""`, a string the chart leaves for the user), or, the message naming it as the template
reads it (`fail "At least one between .Values.tag and .Chart.AppVersion should be set"`),
gives it as an empty string or leaves it unset, and nothing the render was given sets it
(a values file, a `--set` of its installer's command). The new rendering is kept only when Helm
fails on fewer templates than before (a stand-in in a place that wants a number, a map or
a list fails there again, or elsewhere: that chart keeps its KLB003 warnings as they
were). Kept, every finding of the chart says which values were stood in for, and each
failure the stand-ins mended stays a KLB003, at info, naming the value.

Bounded: MAX_TRIES renders a chart (each a try of its budget of work, chart_work.py, and
within the run's render time limit), MAX_LINE
characters of the failing template's line read, MAX_STAND_INS values stood in for,
MAX_BEFORE lines, MAX_FOLLOWED variables deep and MAX_READ characters read for the
variables' assignments, MAX_NAMED paths of a message looked up in MAX_VALUES bytes of a
values file."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Severity
from k8slb.reading.bounded import read_bounded
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    render_charts,
    stopped_try,
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
    spent = {index: rendering.work for index, (rendering, _) in current.items()}
    limited: dict[int, tuple[Rendering, tuple[str, ...]]] = {}  # a try a time limit stopped
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
        # each try spends what the chart's renders before it left (chart_work.py)
        tried = render_charts(jobs, [spent[index] for index, _ in wanted])
        current = {}
        for (index, stood), again in zip(wanted, tried, strict=True):
            spent[index] = again[0].work
            if len(again) == 1 and again[0].stopped:
                limited[index] = (again[0], stood)
            if len(again) != 1 or again[0].stopped:
                continue
            if _better(again[0], best.get(index, (rendered[index][0],))[0]):
                best[index] = (again[0], stood)
            if _fails_on_required(again[0]):  # the next `required` it meets
                current[index] = (again[0], stood)
    for index, (rendering, stood) in best.items():
        done[index] = [_said(rendered[index][0], rendering, stood)]
    for index, work in spent.items():  # the tries not kept cost the chart all the same
        done[index][0].work = work
    for index, (stopped, stood) in limited.items():
        how = f"with a stand-in string for {', '.join(stood)}"
        stopped_try(done[index][0], [stopped], how)
    return done


def _with(options: HelmOptions, stood: tuple[str, ...]) -> HelmOptions:
    """The options a chart was rendered with, and a stand-in for each value path."""
    return replace(
        options,
        set_values=(*options.set_values, *(f"{path}={STAND_IN}" for path in stood)),
        value_sets=(),
    )


def _fails_on_required(rendering: Rendering) -> bool:
    """Whether one of the rendering's KLB003 warnings is a `required` on a value k8slb can
    name. Its other failures (a template that needs a subchart not vendored, a nil field
    of the defaults) do not keep the stand-ins from it: they stay as they are, and a
    rendering is kept only when Helm fails on fewer templates (_better)."""
    if rendering.stopped or not rendering.members:
        return False
    return bool(_required_paths(rendering))


def _required_paths(rendering: Rendering) -> list[str]:
    """The value paths (dotted, `.Values.` off) the `required` actions Helm failed at
    want, one each (_Templates.wanted), in the order of the failures."""
    paths: list[str] = []
    templates = _Templates(rendering)
    judged: set[tuple[str, str | None]] = set()  # (path, variable) looked for already
    failures = [
        p for p in rendering.problems if p.rule == UNRENDERED and p.severity is Severity.WARNING
    ]
    for problem in failures[:MAX_FAILURES]:
        found = _EXECUTION.search(problem.message)
        if found is None:
            continue
        said = problem.message[found.end() :].lstrip(": ").partition("\n")[0].strip()
        place = templates.required_at(found, said)
        path = templates.wanted(*place, said) if place is not None else None
        action = place[2] if place is not None else ""
        if path is None:  # a `fail` (or a `required` k8slb cannot follow) naming the value
            path = templates.named_empty(said)
        if path is None or path in paths:
            continue
        assigned = _ASSIGNED.search(action)
        key = (path, assigned.group(1) if assigned is not None else None)
        if key in judged:
            continue
        judged.add(key)
        if not _wants_other_than_a_string(rendering, path, action):
            paths.append(path)
    return paths


MAX_FAILURES = 64  # a rendering's failures read (it has at most 17: charts.py's MAX_LEFT_OUT_…)
MAX_MESSAGE = 500  # characters of a `required`'s message read
MAX_BEFORE = 200  # lines before the failing one read for its variables' assignments
MAX_FOLLOWED = 4  # variables followed, one assigned another
MAX_VARIABLES = 8  # variables of one failing action followed
MAX_READ = 4 << 20  # characters read, in all, for the assignments of a rendering's variables

# `--set KEY=` (or `--set-string`) in a message: the key a chart tells users to give
_TOLD = regex.compile(
    r"--set(?:-string)?[ =]([A-Za-z_][\w\-]{0,60}(?:\.[A-Za-z_][\w\-]{0,60}){0,7})="
)
# a variable and the fields read of it (`$minio.accessKey`)
_VARIABLE_FIELDS = regex.compile(
    r"(\$[A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){0,8})"
)
# a variable assigned (`$x :=`, `$x =`), and what it is given when that is `.Values`,
# `$.Values` or another variable, with the fields read of it
_ASSIGNMENT = regex.compile(r"(\$[A-Za-z_][A-Za-z0-9_]*)\s*:?=")
_GIVEN = regex.compile(
    r"^\s*\(?\s*(?:(?P<values>\$?\.Values\b)|(?P<variable>\$[A-Za-z_][A-Za-z0-9_]*))"
    r"(?P<fields>(?:\.[A-Za-z_][A-Za-z0-9_]{0,60}){0,8})(?P<after>.?)"
)
_DEFINE = regex.compile(r"\{\{-?\s*define\b")


class _Templates:
    """A rendering's templates as read for the values its failing `required`s want: each
    template's lines (split once), where each `required "MESSAGE"` is (indexed once), and
    what is left of MAX_READ."""

    def __init__(self, rendering: Rendering) -> None:
        self.rendering = rendering
        self.lines: dict[str, list[str]] = {}
        self.messages: dict[str, tuple[str, int]] | None = None
        self.left = MAX_READ
        self.defaults: Mapping[str, Any] | None = None  # the chart's values.yaml, read once

    def named_empty(self, said: str) -> str | None:
        """The value path Helm's message names (`db.host is required`: the words of the
        chart's own `fail` or `required`) that the chart's values.yaml gives as an empty
        string (`host: ""`, a string left for the user) and nothing the render was given
        sets (a values file, a `--set` of its installer's command): the value the chart
        asks for, a string by its own default. A path the message writes as the
        template does (`.Values.tag should be set`) is asked for as well when the
        defaults leave it unset."""
        if self.defaults is None:
            self.defaults = _values_data(self.rendering.members, ("values.yaml", "values.yml"))
        # `.Values.tag` in the message: the template's own name of the value, as sure as a
        # `required .Values.tag`; one the defaults leave unset (no key, `tag:`) is asked
        # for too (a field read of it, a map, is no string: _wants_other_than_a_string)
        for named in list(_VALUE_PATH.finditer(said[:MAX_MESSAGE]))[:MAX_NAMED]:
            path = named.group(1)[1:]
            if _at(self.defaults, path) in ("", None) and not _given(self.rendering.options, path):
                return path
        for named in list(_NAMED_PATH.finditer(said[:MAX_MESSAGE]))[:MAX_NAMED]:
            path = named.group(1)
            if _at(self.defaults, path) == "" and not _given(self.rendering.options, path):
                return path
        return None

    def split(self, member: str) -> bool:
        """Whether the chart has the member; its lines (each cut at MAX_LINE) split once."""
        if member not in self.lines:
            data = self.rendering.members.get(member)
            if data is None:
                return False
            text = data[:MAX_SCANNED].decode("utf-8", "replace")
            self.lines[member] = [line[:MAX_LINE] for line in text.splitlines()]
        return True

    def required_at(self, found: regex.Match[str], said: str) -> tuple[str, int, str] | None:
        """The template (member), line (0-based) and action of the `required` Helm failed
        at: the action at the place Helm names, when it calls `required`; else (Helm names
        the `include` of a helper that fails, not the helper's line) the `required
        "MESSAGE"` of the chart's templates whose message is Helm's, word for word."""
        _, _, member = found.group("file").partition("/")
        line = int(found.group("line")) - 1
        if self.split(member) and 0 <= line < len(self.lines[member]):
            action = _action_at(self.lines[member][line], int(found.group("col")))
            if action is not None and _REQUIRED.search(action) is not None:
                return member, line, action
        if self.messages is None:
            self.messages = self._messages()
        if said not in self.messages:
            return None
        member, line = self.messages[said]
        text = self.lines[member][line]
        action = _action_at(text, text.find(f'"{said}"') + 1)
        return (member, line, action) if action is not None else None

    def _messages(self) -> dict[str, tuple[str, int]]:
        """Each message a template's `required` writes as a literal (`required "..."`,
        one of MAX_MESSAGE characters at most), and its first place (member, line)."""
        found: dict[str, tuple[str, int]] = {}
        for member in self.rendering.members:
            if not member.startswith("templates/") or not self.split(member):
                continue
            for number, text in enumerate(self.lines[member]):
                at = text.find("required")
                while at >= 0:
                    end = at + len("required")
                    near = text[end : end + 8]
                    spaces = len(near) - len(near.lstrip(" \t"))
                    if spaces and near[spaces : spaces + 1] == '"':
                        start = end + spaces + 1
                        close = text.find('"', start, start + MAX_MESSAGE)
                        if close >= 0:
                            found.setdefault(text[start:close], (member, number))
                    at = text.find("required", end)
        return found

    def wanted(self, member: str, line: int, action: str, said: str) -> str | None:
        """The value a failing `required` action wants: the first `.Values.` path it names;
        else the first of its variables (`$db.password`) whose assignment before it, in
        the same template or helper, reads `.Values` (`$db := $.Values.database | default
        dict`, `$gp := .Values`, through other variables); else the key its message tells
        users to set (`--set image.tag=x`), when the action reads a field of that name."""
        first = _VALUE_PATH.search(action)
        if first is not None:
            return first.group(1)[1:]
        assigned = _ASSIGNED.search(action)
        bare = _unquoted(action)
        for used in list(_VARIABLE_FIELDS.finditer(bare))[:MAX_VARIABLES]:
            if assigned is not None and used.group(1) == assigned.group(1):
                continue
            base = self._followed(self.lines[member], line, used.group(1))
            path = ".".join(part for part in (base, used.group(2)[1:]) if part)
            if base is not None and path:
                return path
        for told in _TOLD.finditer(said):
            path = told.group(1)
            if _reads_field(bare, path.rpartition(".")[2]):
                return path
        return None

    def _followed(self, lines: list[str], line: int, variable: str) -> str | None:
        """The `.Values` path (dotted, "" for `.Values` itself) a variable holds where the
        failing line reads it: its last assignment before that line, within the `define`
        (or the template) the line is in, followed through other variables; None when it
        holds anything else (a helper's argument, `.gp`; a `range`'s element; a
        function's result)."""
        before = lines[max(line - MAX_BEFORE, 0) : line]
        for number in range(len(before) - 1, -1, -1):
            if _DEFINE.search(before[number]) is not None:
                before = before[number:]
                break
        fields = ""
        for _ in range(MAX_FOLLOWED):
            given = self._last_assignment(before, variable)
            if given is None or given.group("after") in ("_", "-") or given["after"].isalnum():
                return None  # not assigned from values here (or a longer name than read)
            fields = given.group("fields") + fields
            if given.group("values") is not None:
                return fields[1:]
            variable = given.group("variable")
        return None

    def _last_assignment(self, lines: list[str], variable: str) -> regex.Match[str] | None:
        """What the last assignment of a variable in the lines gives it (_GIVEN), None
        when it is not assigned there, is a `range`'s element, or MAX_READ is spent."""
        for text in reversed(lines):
            self.left -= len(text) + 1
            if self.left < 0:
                return None
            if variable not in text:
                continue
            last = None
            for assigned in _ASSIGNMENT.finditer(text):
                if assigned.group(1) == variable:
                    last = assigned
            if last is None:
                continue
            opened = text.rfind("{{", 0, last.start())
            if opened >= 0 and "range" in text[opened : last.start()]:
                return None
            return _GIVEN.search(text[last.end() :])
        return None


# a dotted value path in a message (`temporal.sql.host`), two keys at least
_NAMED_PATH = regex.compile(
    r"(?:^|[\s\"'`(])([A-Za-z_][\w\-]{0,60}(?:\.[A-Za-z_][\w\-]{0,60}){1,15})"
)
MAX_NAMED = 8  # value paths of one message looked up
MAX_VALUES = 1 << 20  # bytes of a values file read for the values a message names


def _values_data(files: Mapping[str, bytes], names: Sequence[str]) -> Mapping[str, Any]:
    """The first of the files named that is there, as data (its first document); empty
    when none is, or it is larger than MAX_VALUES or no YAML mapping."""
    from k8slb.reading.build_files import yaml_documents

    for name in names:
        data = files.get(name)
        if data is None:
            continue
        if len(data) > MAX_VALUES:
            return {}
        first = next(yaml_documents(name, data.decode("utf-8", "replace")), None)
        return first if isinstance(first, Mapping) else {}
    return {}


def _at(values: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of the values, None where a key is missing."""
    here: Any = values
    for part in path.split("."):
        here = here.get(part) if isinstance(here, Mapping) else None
    return here


def _given(options: HelmOptions, path: str) -> bool:
    """Whether the options set the value at the path: a `--set` of it (or of a key above
    it), or a values file that holds it."""
    for assignment in options.set_values:
        for part in assignment.split(","):
            key = part.partition("=")[0].strip()
            if path == key or path.startswith(f"{key}."):
                return True
    for file in options.values:
        try:
            with open(file, "rb") as handle:
                data = read_bounded(handle, MAX_VALUES)
        except OSError:
            continue
        if data is None or _at(_values_data({file: data}, (file,)), path) is not None:
            return True  # too large to read: it may
    return False


def _unquoted(action: str) -> str:
    """The action with its string literals emptied (a message's words are no reads)."""
    parts = action.split('"')
    return '""'.join(parts[::2])


def _reads_field(action: str, name: str) -> bool:
    """Whether the action reads a field NAME (`.NAME`, not the start of a longer name)."""
    wanted, start = f".{name}", action.find(f".{name}")
    while start >= 0:
        after = action[start + len(wanted) : start + len(wanted) + 1]
        if not (after.isalnum() or after in ("_", "-")) or not after:
            return True
        start = action.find(wanted, start + len(wanted))
    return False


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


def _action_at(text: str, column: int) -> str | None:
    """The template action (`{{ ... }}`) of a line at a column (1-based)."""
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
    # templates Helm still fails on (a packaged subchart's: its archive, where it is said)
    still = {made.path_of(member) for member in made.left_out} | {
        p.path for p in made.problems if p.rule == UNRENDERED and p.severity is Severity.WARNING
    }
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
