"""No function in linter/ or rules/ is over MAX_LINES lines (issue 50): a long one is a few
named steps instead. A function is measured from its `def` line to its last line, its
decorators left out; a function nested in another, or a method, is measured on its own
(a class may be large if its methods are short: the language front-ends' are)."""

from __future__ import annotations

import ast

from .helpers import ROOT

MAX_LINES = 80
MEASURED = (ROOT / "linter", ROOT / "rules")


def too_long(source: str, path: str) -> list[str]:
    """Each function of `source` over MAX_LINES lines: `path:line name (n lines)`."""
    found = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_LINES:
                found.append(f"{path}:{node.lineno} {node.name} ({length} lines)")
    return found


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function `lines` long, its `def` line and return included."""
    body = [f"{indent}    x = {n}" for n in range(lines - 2)]
    return "\n".join([f"{indent}def {name}():", *body, f"{indent}    return x"]) + "\n"


def test_no_function_in_linter_or_rules_is_over_80_lines() -> None:
    offenders = [
        offender
        for folder in MEASURED
        for path in sorted(folder.rglob("*.py"))
        for offender in too_long(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not offenders, (
        f"functions over {MAX_LINES} lines (split each into a few named steps):\n"
        + "\n".join(offenders)
    )


def test_a_function_of_81_lines_is_named_with_its_path_and_line() -> None:
    source = "import os\n\n" + _function("long", MAX_LINES + 1)
    assert too_long(source, "linter/x.py") == [f"linter/x.py:3 long ({MAX_LINES + 1} lines)"]


def test_a_function_of_80_lines_passes_and_its_decorators_do_not_count() -> None:
    decorators = "".join(f"@d{n}\n" for n in range(10))
    assert too_long(decorators + _function("fits", MAX_LINES), "rules/x.py") == []


def test_a_nested_function_and_a_method_are_measured_on_their_own() -> None:
    nested = "def outer():\n" + _function("inner", MAX_LINES + 1, "    ") + "    return inner\n"
    method = "class Big:\n" + _function("method", MAX_LINES + 1, "    ")
    assert [o.split()[1] for o in too_long(nested + method, "linter/x.py")] == [
        "outer",
        "inner",
        "method",
    ]


def test_a_large_class_of_short_methods_passes() -> None:
    methods = "".join(_function(f"m{n}", 40, "    ") for n in range(5))
    assert too_long("class Front:\n" + methods, "linter/x.py") == []
