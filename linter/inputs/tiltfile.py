"""Tiltfiles: besides the images it builds (read for the link of code to containers, as
any build file: reading/build_files.py), a Tiltfile deploys `helm(CHART, name=...,
namespace=..., values=[...], set=[...])` through `k8s_yaml`: a release of a chart in the
repository, rendered and linted as a helmfile's release is (inputs/helmfile.py), and the
chart is not rendered alone with its defaults as well. Only literal arguments are read,
paths relative to the Tiltfile's folder; a call whose arguments are computed (a variable,
a function's result, a call inside a loop, a condition or a function) is refused, never
guessed: its chart is then linted alone, as without the Tiltfile (`plan` says why)."""

from __future__ import annotations

import ast
import os
from typing import Any

from k8slb.core.findings import Problem, Severity
from k8slb.inputs.helmfile import (
    MAX_RELEASES,
    MAX_SETTINGS,
    TEXT_MEMBER,
    Helmfiles,
    Plan,
    Refused,
    Release,
    chart_folder,
)
from k8slb.reading.build_files import TILTFILE
from k8slb.reading.charts import UNRENDERED, set_value_problem, unpack
from k8slb.reading.repository import inside, repository_of

WHAT = "Tiltfile helm() release"
# helm()'s arguments read here (Tilt's: the chart's folder first, then by name)
_ARGUMENTS = frozenset({"name", "namespace", "values", "set"})


def plan(path: str, text: str) -> Plan:
    """The releases a Tiltfile (`path`, as shown) deploys with `k8s_yaml(helm(...))` from
    charts in the repository, and a note for each call not rendered. A Tiltfile that
    is not Python's syntax (Starlark's is a part of it) deploys none k8slb reads."""
    if "helm" not in text:
        return Plan((), ())  # (most Tiltfiles: no parse)
    try:
        module = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Plan((), ())
    top = os.path.realpath(repository_of(os.path.dirname(os.path.abspath(path))))
    releases: list[Release] = []
    problems: list[Problem] = []
    calls = _deployed(module)
    for number, call in enumerate(calls):
        try:
            if number == MAX_RELEASES:
                raise Refused(call.lineno, f"Tiltfile: more than {MAX_RELEASES} helm() calls")
            releases.append(_release(path, top, call))
        except Refused as refused:
            problems.append(_problem(path, refused))
            if number == MAX_RELEASES:
                break
    deployed = {id(call) for call in calls}
    problems += [
        _problem(path, Refused(node.lineno, f"{WHAT}: {_COMPUTED}"))
        for node in ast.walk(module)
        if isinstance(node, ast.Call) and _is_helm(node) and id(node) not in deployed
    ][:MAX_RELEASES]
    problems.sort(key=lambda p: p.line)
    return Plan(tuple(releases), tuple(problems))


_COMPUTED = (
    "a helm() call k8slb does not follow (inside a loop, a condition or a function, or "
    "not passed to k8s_yaml as it is or by a name given once): its chart is not rendered "
    "with these values"
)


def _problem(path: str, refused: Refused) -> Problem:
    return Problem(UNRENDERED, path, refused.line, 1, refused.message, None, refused.severity, ())


def _is_helm(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "helm"


def _deployed(module: ast.Module) -> list[ast.Call]:
    """The helm() calls the Tiltfile's top level deploys: `k8s_yaml(helm(...))`, or
    `NAME = helm(...)` (NAME given no other value) and `k8s_yaml(NAME)`, a list of those
    too."""
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
    found: list[ast.Call] = []
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
            if isinstance(one, ast.Call) and _is_helm(one) and one not in found:
                found.append(one)
    return found


def _release(path: str, top: str, call: ast.Call) -> Release:
    """One deployed helm() call as a release, or why it is not rendered (`Refused`)."""
    line = call.lineno
    named = {k.arg: k.value for k in call.keywords if k.arg is not None}
    unread = sorted(set(named) - _ARGUMENTS)
    if len(call.args) != 1 or len(named) != len(call.keywords) or unread:
        told = f"`{unread[0]}`" if unread else "its arguments"
        raise Refused(line, f"{WHAT}: {told} not read by k8slb: not rendered")
    chart = _literal(call.args[0], line, "the chart")
    name = _literal(named["name"], line, "name") if "name" in named else ""
    if not isinstance(chart, str) or not chart or not isinstance(name, str):
        raise Refused(line, f"{WHAT}: the chart or name is not a string: not rendered")
    # Tilt names a release with no name after its chart's folder
    name = name or os.path.basename(os.path.normpath(chart))
    folder = chart_folder(path, top, chart, line, name, WHAT)
    namespace = _literal(named["namespace"], line, "namespace") if "namespace" in named else None
    if namespace is not None and not isinstance(namespace, str):
        raise Refused(line, f"{WHAT} {name}: its namespace is not a string", Severity.WARNING)
    values = _strings(named.get("values"), line, name, "values")
    sets = _strings(named.get("set"), line, name, "set")
    for assignment in sets:
        wrong = set_value_problem(assignment)
        if wrong is not None:
            raise Refused(line, f"{WHAT} {name}: set {assignment}: {wrong}", Severity.WARNING)
    files = _files(path, top, name, values, line)
    return Release(name, line, folder, namespace or None, files, sets)


def _literal(node: ast.AST, line: int, what: str) -> Any:
    """A literal argument's value; a computed one is refused."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise Refused(line, f"{WHAT}: {what} is computed (not a literal): not rendered") from None


def _strings(node: ast.AST | None, line: int, name: str, what: str) -> tuple[str, ...]:
    """`values=` or `set=`: a string or a list of strings (Tilt takes either)."""
    if node is None:
        return ()
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > MAX_SETTINGS:
        raise Refused(line, f"{WHAT} {name}: more than {MAX_SETTINGS} `{what}` entries")
    value = _literal(node, line, f"`{what}`")
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, (list, tuple)) or not all(isinstance(v, str) for v in listed):
        raise Refused(line, f"{WHAT} {name}: `{what}` is not strings: not rendered")
    return tuple(listed)


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
