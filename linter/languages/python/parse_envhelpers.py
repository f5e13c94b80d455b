"""A module's own reader of the environment: a function such as

    def env(name, default=None):
        value = os.environ.get("APP_%s" % name)
        if value is not None:
            return str(value)
        return default

reads variable `APP_<name>` and gives its `default` when it is unset, so `env("DB_URL",
"http://localhost")` is the EnvRef `APP_DB_URL` with that default. Only a function whose one
read of the environment is named by a parameter (alone, or with a literal prefix or
suffix: `%`, `+`, an f-string) and which returns that read unchanged (or through `str`),
is one; anything else it does to the value makes it no reader (its value stays unknown)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

ENV_READS = ("os.environ.get", "os.getenv")


@dataclass(frozen=True)
class EnvReader:
    params: tuple[str, ...]  # the function's positional parameters, in order
    name: str  # the parameter that names the variable
    prefix: str
    suffix: str
    default: str | None  # the parameter whose value an unset variable gives, if any


def env_reader(
    function: ast.FunctionDef | ast.AsyncFunctionDef, qualified: Callable[[ast.expr], str | None]
) -> EnvReader | None:
    """The EnvReader `function` is, or None."""
    arguments = function.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or function.decorator_list:
        return None
    params = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    reads = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Call | ast.Subscript) and _is_read(node, qualified)
    ]
    if len(reads) != 1:
        return None
    read = reads[0]
    key = read.args[0] if isinstance(read, ast.Call) and read.args else None
    key = read.slice if isinstance(read, ast.Subscript) else key
    named = _key_parts(key, params) if key is not None else None
    if named is None:
        return None
    name, prefix, suffix = named
    holders = _holders(function, read)
    if holders is None or name in _assigned(function):
        return None
    returned = [_unwrapped(r.value) for r in _returns(function)]
    if not any(r is read or (isinstance(r, ast.Name) and r.id in holders) for r in returned):
        return None
    given = read.args[1] if isinstance(read, ast.Call) and len(read.args) > 1 else None
    defaults = [r.id for r in returned if isinstance(r, ast.Name) and r.id in params]
    if isinstance(given, ast.Name) and given.id in params:
        defaults.append(given.id)
    if any(not _plain(r, read, holders, params) for r in returned):
        return None  # a return of something else: not only the variable or its default
    chosen = {d for d in defaults if d != name}
    default = chosen.pop() if len(chosen) == 1 else None
    return EnvReader(params, name, prefix, suffix, default)


def _is_read(node: ast.AST, qualified: Callable[[ast.expr], str | None]) -> bool:
    if isinstance(node, ast.Call):
        return qualified(node.func) in ENV_READS
    return isinstance(node, ast.Subscript) and qualified(node.value) == "os.environ"


def _key_parts(key: ast.expr, params: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(parameter, prefix, suffix) of a variable's name made of one parameter."""
    if isinstance(key, ast.Name):
        return (key.id, "", "") if key.id in params else None
    if isinstance(key, ast.BinOp) and isinstance(key.right, ast.Name | ast.Constant):
        left, right = key.left, key.right
        if isinstance(key.op, ast.Mod) and isinstance(right, ast.Name):
            text = left.value if isinstance(left, ast.Constant) else None
            if isinstance(text, str) and text.count("%") == 1 and "%s" in text:
                before, after = text.split("%s")
                return (right.id, before, after) if right.id in params else None
        if not isinstance(key.op, ast.Add):
            return None
        if isinstance(left, ast.Constant) and isinstance(right, ast.Name):
            text = left.value
            return (right.id, text, "") if isinstance(text, str) and right.id in params else None
        if isinstance(left, ast.Name) and isinstance(right, ast.Constant):
            text = right.value
            return (left.id, "", text) if isinstance(text, str) and left.id in params else None
        return None
    if isinstance(key, ast.JoinedStr):
        return _joined_parts(key, params)
    return None


def _joined_parts(key: ast.JoinedStr, params: tuple[str, ...]) -> tuple[str, str, str] | None:
    texts: list[list[str]] = [[]]
    name = None
    for part in key.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            texts[-1].append(part.value)
        elif (
            isinstance(part, ast.FormattedValue)
            and isinstance(part.value, ast.Name)
            and part.value.id in params
            and part.conversion == -1
            and part.format_spec is None
            and name is None
        ):
            name = part.value.id
            texts.append([])
        else:
            return None
    if name is None:
        return None
    return name, "".join(texts[0]), "".join(texts[1])


def _holders(function: ast.AST, read: ast.expr) -> set[str] | None:
    """The names bound (once each) to the read itself; None where one is bound again."""
    counts: dict[str, int] = {}
    holders: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        counts[name.id] = counts.get(name.id, 0) + 1
                        if getattr(node, "value", None) is read and target is name:
                            holders.add(name.id)
    return None if any(counts[h] > 1 for h in holders) else holders


def _assigned(function: ast.AST) -> set[str]:
    return {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }


def _returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The function's own returns (not those of a function or lambda inside it)."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _unwrapped(value: ast.expr | None) -> ast.expr | None:
    """`str(x)` -> `x`: the text of what it returns."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "str"
        and len(value.args) == 1
        and not value.keywords
    ):
        return value.args[0]
    return value


def _plain(
    returned: ast.expr | None, read: ast.expr, holders: set[str], params: tuple[str, ...]
) -> bool:
    """Whether a return gives the variable, a parameter, or None."""
    if returned is read:
        return True
    if isinstance(returned, ast.Name):
        return returned.id in holders or returned.id in params
    return isinstance(returned, ast.Constant) and returned.value is None
