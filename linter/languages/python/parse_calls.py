"""What each top-level function of a Python module calls, and which of them register a
SIGTERM handler or run a server that installs one: the code a program's entry point
reaches, followed across modules by code/reach.py (KLB406: a handler that a helper of
another module registers, `run_until_exit()` of a shared package, is the program's).

A call is kept when its name says where the function is: one of the module's own
top-level functions (`main()`), or a name it imports (`helpers.run()` after `from app
import helpers`, `run_until_exit()` after `from acme_utils.run import run_until_exit`);
a method's receiver is no name k8slb can follow, so a method is none. A nested function's
calls count for the top-level function around it (it is defined to be called there); a
class's methods belong to no top-level function. Statements of the module's own body run
when it is imported (""), those of its `if __name__ == "__main__":` block only when it is
run as a program ("__main__")."""

from __future__ import annotations

import ast
from bisect import bisect_right
from collections.abc import Iterable, Mapping

from k8slb.code.facts import Imported, Loc

MODULE = ""  # the module's own code: run when it is imported
MAIN = "__main__"  # its `if __name__ == "__main__":` block: run as a program only
# Calls kept of one module (each function's once): past them, the rest are not followed
MAX_MODULE_CALLS = 4000

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def owner(statement: ast.AST) -> str | None:
    """The top-level function (MODULE, MAIN) a top-level statement of the module is, or
    holds the code of; None for a class."""
    if isinstance(statement, _FUNCTIONS):
        return statement.name
    if isinstance(statement, ast.ClassDef):
        return None
    if isinstance(statement, ast.If) and _is_main_check(statement.test):
        return MAIN
    return MODULE


def _is_main_check(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, *test.comparators]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return isinstance(test.ops[0], ast.Eq) and bool(names) and bool(texts)


def callee(
    called: str,
    origins: Mapping[str, Imported],
    imports: Mapping[str, str],
    functions: Iterable[str],
) -> str | None:
    """What a call's dotted name calls: `name` for a top-level function of the module,
    `module:name` for an imported one (`.helpers:run`, leading dots for a relative
    import), or None (a method, a builtin, a name bound in the function)."""
    head, _, rest = called.partition(".")
    if "." in rest:
        return None  # `a.b.c()`: a package's module's function at most, not followed
    origin = origins.get(head)
    if origin is not None:
        dots = "." * origin.level
        if not rest:
            return f"{dots}{origin.module}:{origin.name}"
        # `helpers.run()` after `from app import helpers`: a function of module app.helpers
        module = f"{origin.module}.{origin.name}" if origin.module else origin.name
        return f"{dots}{module}:{rest}"
    if head in imports:
        base = imports[head]
        return f"{base}:{rest}" if rest else None
    return called if not rest and called in functions else None


def function_calls(
    calls: Iterable[tuple[ast.AST, str]],
    origins: Mapping[str, Imported],
    imports: Mapping[str, str],
    functions: Iterable[str],
) -> dict[str, tuple[str, ...]]:
    """Each top-level function's calls (`callee`), in order, each once, from each call's
    top-level statement and dotted name; MAX_MODULE_CALLS at most in all."""
    own = set(functions)
    owners: dict[int, str | None] = {}  # by statement: owner, once each
    found: dict[str, dict[str, None]] = {}
    kept = 0
    for statement, called in dict.fromkeys(calls):
        key = id(statement)
        function = owners[key] if key in owners else owners.setdefault(key, owner(statement))
        target = callee(called, origins, imports, own) if function is not None else None
        if function is None or target is None or target in found.get(function, {}):
            continue
        found.setdefault(function, {})[target] = None
        kept += 1
        if kept >= MAX_MODULE_CALLS:
            break
    return {function: tuple(targets) for function, targets in found.items()}


def signal_functions(tree: ast.Module, places: Iterable[Loc]) -> frozenset[str]:
    """The top-level functions (MODULE, MAIN) whose lines hold one of `places` (a SIGTERM
    handler's registration, a signal server's run); one in a class is none's."""
    spans: list[tuple[int, int, str | None]] = []
    for statement in tree.body:
        end = statement.end_lineno or statement.lineno
        if isinstance(statement, _FUNCTIONS):
            spans.append((statement.lineno, end, statement.name))
        elif isinstance(statement, ast.ClassDef):
            spans.append((statement.lineno, end, None))
        elif isinstance(statement, ast.If) and _is_main_check(statement.test):
            spans.append((statement.lineno, end, MAIN))
    # the module's top-level statements neither overlap nor go back: the span a line is in
    # is the last one starting at or before it, if it reaches the line
    firsts = [first for first, _, _ in spans]
    found: set[str] = set()
    for place in places:
        at = bisect_right(firsts, place.line) - 1
        name = spans[at][2] if at >= 0 and place.line <= spans[at][1] else MODULE
        if name is not None:
            found.add(name)
    return frozenset(found)


def main_blocks(tree: ast.Module) -> tuple[tuple[int, int], ...]:
    """The first and last lines of each of the module's top-level `if __name__ ==
    "__main__":` blocks: code that runs only when the module is the program."""
    return tuple(
        (statement.lineno, statement.end_lineno or statement.lineno)
        for statement in tree.body
        if isinstance(statement, ast.If) and _is_main_check(statement.test)
    )
