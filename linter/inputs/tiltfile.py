"""Tiltfiles: besides the images it builds (read for the link of code to containers, as
any build file: reading/build_files.py), a Tiltfile deploys `helm(CHART, name=...,
namespace=..., values=[...], set=[...])` through `k8s_yaml`: a release of a chart in the
repository, rendered and linted as a helmfile's release is (inputs/helmfile.py), and the
chart is not rendered alone with its defaults as well. Only literal arguments are read,
paths relative to the Tiltfile's folder (a call with no name is rendered under the name
the chart is given alone, its Chart.yaml's: Tilt's own, `chart`, would rename each
object that carries the release's name; a list followed by what the Tiltfile's settings
add, `[...] + cfg.get('values', [])` of `cfg = config.parse()`, is that list: what
`tilt up` deploys unless told more);
a call whose arguments are computed (a variable,
a function's result) or that is not deployed as written (inside a loop, a condition or a
function, or through a name given twice) is refused, never guessed: its chart is then
linted alone, as without the Tiltfile, and nothing is said of the call (a Tiltfile is
read for what it deploys besides its builds; `plan` says why for the calls it reads)."""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Any

from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.inputs.helmfile import (
    MAX_HELMFILE_BYTES,
    MAX_RELEASES,
    MAX_SETTINGS,
    TEXT_MEMBER,
    Helmfiles,
    Plan,
    Refused,
    Release,
    chart_folder,
    read_text,
)
from k8slb.reading.build_files import TILTFILE
from k8slb.reading.charts import UNRENDERED, chart_name, set_value_problem, unpack
from k8slb.reading.repository import inside, repository_of

WHAT = "Tiltfile helm() release"
# helm()'s arguments read here (Tilt's: the chart's folder first, then by name)
_ARGUMENTS = frozenset({"name", "namespace", "values", "set"})


def plan(path: str, text: str) -> Plan:
    """The releases a Tiltfile (`path`, as shown) deploys with `k8s_yaml(helm(...))` from
    charts in the repository, and why each other such call is not rendered. A Tiltfile
    that is not Python's syntax (Starlark's is a part of it) deploys none k8slb reads."""
    top = os.path.realpath(repository_of(os.path.dirname(os.path.abspath(path))))
    releases: list[Release] = []
    problems: list[Problem] = []
    for number, (line, arguments) in enumerate(_calls(text)):
        try:
            if number == MAX_RELEASES:
                raise Refused(line, f"Tiltfile: more than {MAX_RELEASES} helm() calls")
            if isinstance(arguments, str):
                raise Refused(line, arguments)
            releases.append(_release(path, top, line, Arguments(*arguments)))
        except Refused as refused:
            problems.append(_problem(path, refused))
    return Plan(tuple(releases), tuple(problems))


def _problem(path: str, refused: Refused) -> Problem:
    return Problem(UNRENDERED, path, refused.line, 1, refused.message, None, refused.severity, ())


@record
class Arguments:
    """A helm() call's literal arguments."""

    chart: str
    name: str
    namespace: str | None
    values: tuple[str, ...]
    sets: tuple[str, ...]


@lru_cache(maxsize=8)  # a run reads a Tiltfile's plan several times: parsed once
def _calls(text: str) -> tuple[tuple[int, tuple[Any, ...] | str], ...]:
    """Each deployed helm() call (up to one past the budget): its line, and its literal
    arguments (as `Arguments`' fields) or why they are not read."""
    if "helm" not in text or len(text) > MAX_HELMFILE_BYTES:
        return ()  # (most Tiltfiles: no parse)
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    found: list[tuple[int, tuple[Any, ...] | str]] = []
    configs = _configs(module)
    for call in _deployed(module)[: MAX_RELEASES + 1]:
        try:
            read = _arguments(call, configs)
        except Refused as refused:
            found.append((call.lineno, refused.message))
            continue
        fields = (read.chart, read.name, read.namespace, read.values, read.sets)
        found.append((call.lineno, fields))
    return tuple(found)


def _is_helm(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "helm"


def _deployed(module: ast.Module) -> list[ast.Call]:
    """The helm() calls the Tiltfile's top level deploys: `k8s_yaml(helm(...))`, or
    `NAME = helm(...)` (NAME given no other value) and `k8s_yaml(NAME)`, a list of those
    too. Any other (in a loop, a condition or a function) is not followed."""
    given: dict[str, list[ast.expr | None]] = {}  # each name's values (None: changed)
    for statement in module.body:
        if isinstance(statement, ast.Assign):
            value: ast.expr | None = statement.value
            targets = statement.targets
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            value, targets = None, [statement.target]
        else:
            continue
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    given.setdefault(node.id, []).append(value)
    found: dict[int, ast.Call] = {}  # by id: in the order deployed, each once
    for statement in module.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        if call.func.id != "k8s_yaml" or not call.args:
            continue
        first = call.args[0]
        for item in first.elts if isinstance(first, ast.List) else [first]:
            values = given.get(item.id, []) if isinstance(item, ast.Name) else [item]
            one = values[0] if len(values) == 1 else None
            if isinstance(one, ast.Call) and _is_helm(one):
                found.setdefault(id(one), one)
    return list(found.values())


def _configs(module: ast.Module) -> frozenset[str]:
    """The names the Tiltfile's top level gives the settings `tilt up` is told,
    `cfg = config.parse()`, and nothing else."""
    given: dict[str, list[bool]] = {}
    for statement in module.body:
        if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            continue
        value = statement.value
        parsed = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "parse"
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == "config"
        )
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    given.setdefault(node.id, []).append(parsed and target is node)
    return frozenset(name for name, each in given.items() if each == [True])


def _arguments(call: ast.Call, configs: frozenset[str] = frozenset()) -> Arguments:
    """The call's literal arguments, or why they are not read (`Refused`)."""
    line = call.lineno
    named = {k.arg: k.value for k in call.keywords if k.arg is not None}
    unread = sorted(set(named) - _ARGUMENTS)
    if len(call.args) != 1 or len(named) != len(call.keywords) or unread:
        told = f"`{unread[0]}`" if unread else "its arguments"
        raise Refused(line, f"{WHAT}: {told} not read by k8slb: not rendered")
    chart = _literal(call.args[0], line, "the chart")
    # (a release given no name: "" here, the chart's own name in _release)
    name = _literal(named["name"], line, "name") if "name" in named else ""
    if not isinstance(chart, str) or not chart or not isinstance(name, str):
        raise Refused(line, f"{WHAT}: no chart or name as a literal string: not rendered")
    namespace = _literal(named["namespace"], line, "namespace") if "namespace" in named else None
    if namespace is not None and not isinstance(namespace, str):
        raise Refused(line, f"{WHAT} {name}: its namespace is not a string")
    values = _strings(named.get("values"), line, name, "values", configs)
    sets = _strings(named.get("set"), line, name, "set", configs)
    return Arguments(chart, name, namespace, values, sets)


def _release(path: str, top: str, line: int, call: Arguments) -> Release:
    """One deployed helm() call as a release, or why it is not rendered (`Refused`)."""
    folder = chart_folder(path, top, call.chart, line, call.name or call.chart, WHAT)
    # A call with no name: the name the chart is rendered under alone (its Chart.yaml's),
    # not Tilt's own (`chart`), which would rename each object carrying the release's
    # name; what the call adds is its values.
    name = call.name or chart_name(folder) or os.path.basename(folder)
    for assignment in call.sets:
        wrong = set_value_problem(assignment)
        if wrong is not None:
            raise Refused(line, f"{WHAT} {name}: set {assignment}: {wrong}", Severity.WARNING)
    files = _files(path, top, name, call.values, line)
    return Release(name, line, folder, call.namespace or None, files, call.sets)


def _literal(node: ast.AST, line: int, what: str) -> Any:
    """A literal argument's value; a computed one is refused."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise Refused(line, f"{WHAT}: {what} is computed (not a literal): not rendered") from None


def _strings(
    node: ast.AST | None, line: int, name: str, what: str, configs: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """`values=` or `set=`: a string or a list of strings (Tilt takes either); a list
    followed by what the Tiltfile's config gives, empty unless `tilt up` is told more
    (`[...] + cfg.get('values', [])`: _configured), is its list."""
    if node is None:
        return ()
    added = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
    if added and _configured(node.right, configs):  # type: ignore[attr-defined]
        node = node.left  # type: ignore[attr-defined]
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > MAX_SETTINGS:
        raise Refused(line, f"{WHAT} {name}: more than {MAX_SETTINGS} `{what}` entries")
    value = _literal(node, line, f"`{what}`")
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, (list, tuple)) or not all(isinstance(v, str) for v in listed):
        raise Refused(line, f"{WHAT} {name}: `{what}` is not strings: not rendered")
    return tuple(listed)


def _configured(node: ast.AST, configs: frozenset[str]) -> bool:
    """Whether an expression is a setting read from the Tiltfile's config with an empty
    list as its default, `cfg.get('values', [])` (cfg = config.parse()): what a user adds
    with `tilt up -- --values FILE`, nothing unless told."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in configs
        and len(node.args) == 2
        and not node.keywords
    ):
        return False
    key, default = node.args
    empty = isinstance(default, (ast.List, ast.Tuple)) and not default.elts
    return empty and isinstance(key, ast.Constant) and isinstance(key.value, str)


def _files(path: str, top: str, name: str, values: tuple[str, ...], line: int) -> tuple[str, ...]:
    """The values files as shown (relative to the Tiltfile's folder), each in the
    repository."""
    files = []
    for item in values:
        shown = os.path.normpath(os.path.join(os.path.dirname(path), item))
        if not inside(os.path.realpath(shown), top) or not os.path.isfile(shown):
            raise Refused(
                line,
                f"{WHAT} {name}: values file {item} is not in the repository: not rendered",
                Severity.WARNING,
            )
        files.append(shown)
    return tuple(files)


class Tiltfiles(Helmfiles):
    """A Tiltfile's helm() releases, rendered as a helmfile's are; its builds are read as a
    build file's (`build_bytes`)."""

    name = "tiltfile"
    what = WHAT

    def claims_file(self, path: str) -> bool:
        return os.path.basename(path) == TILTFILE

    def pack(self, location: str) -> bytes | None:
        """As a helmfile's; a Tiltfile past the budget of what is rendered is read as it
        is, for its builds only (as any build file)."""
        return super().pack(location) if read_text(location) is not None else None

    def plan(self, path: str, text: str) -> Plan:
        """Its releases; why a call is not rendered is not reported: the Tiltfile is read
        for what it deploys besides its builds, and its chart is linted alone, as before."""
        return Plan(plan(path, text).releases, ())

    def build_bytes(self, data: bytes) -> bytes:
        """The Tiltfile's own bytes, from its packing with the charts it renders."""
        if data.startswith(TEXT_MEMBER.encode() + b"\0"):
            return unpack(data)[TEXT_MEMBER]
        return data


TILTFILES = Tiltfiles()
