"""The value of a GitHub Actions `${{ ... }}` expression in one run of a job's matrix: the
comparisons, `!`, `&&` and `||` of literals and of the `matrix.KEY` / `env.NAME` values the
run knows. A workflow picks a Dockerfile, a context or a target by its matrix so
(`file: ${{ matrix.service == 'web' && 'web/Dockerfile' || 'Dockerfile' }}`) and runs a
step for some of its runs only (`if: matrix.service == 'web'`).

Anything else (a function call, `github.*`, a value the run does not know) leaves the
whole expression unknown: it is then no evidence, never a guess. An expression longer
than MAX_EXPRESSION or nested deeper than MAX_DEPTH is not read; each is parsed once (a
small cache) and evaluated in time linear in its length, once for each combination of the
values it names, up to MAX_TOKENS_SETTLED tokens a workflow file.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping

from k8slb.core import regex

MAX_EXPRESSION = 1024  # characters of one expression read; a longer one is unknown
MAX_DEPTH = 32  # parentheses and `!` nested; deeper is unknown
# the tokens of the expressions one workflow file's runs evaluate, in all (each for each
# combination of the values it names): past it, what is left is unknown
MAX_TOKENS_SETTLED = 200_000

# one token a match: a string ('it''s'), an operator, a context's dotted name, a number,
# or any other character (which makes the expression unknown)
_TOKEN = regex.compile(
    r"'(?:[^']|'')*'|==|!=|&&|\|\||[!()]|[A-Za-z_][A-Za-z0-9_.-]*|[0-9]+(?:\.[0-9]+)?|[^\s]"
)
_WRAPPED = regex.compile(r"^\s*\$\{\{(.*)\}\}\s*$", regex.DOTALL)


class _Unknown:
    """A value no run settles (a function's, `github.event_name`, an unknown key's)."""


UNKNOWN = _Unknown()
Value = str | float | bool | None | _Unknown
# a parsed expression: ("lit", value), ("ctx", name), ("not", e), (op, left, right)
Node = tuple[object, ...]


class _Unreadable(Exception):
    """The expression is not one this module reads."""


class _Settling:
    """One workflow file's evaluations: each expression once for each combination of the
    values it names (a matrix's runs share most), up to MAX_TOKENS_SETTLED tokens in all."""

    def __init__(self) -> None:
        self.room = MAX_TOKENS_SETTLED
        self.settled: dict[tuple[str, tuple[str | None, ...]], Value] = {}


_SETTLING: contextvars.ContextVar[_Settling | None] = contextvars.ContextVar(
    "workflow_settling", default=None
)


@contextlib.contextmanager
def settling() -> Iterator[None]:
    """The evaluations of one workflow file, their room its own."""
    token = _SETTLING.set(_Settling())
    try:
        yield
    finally:
        _SETTLING.reset(token)


def value(expression: str, known: Mapping[str, str]) -> Value:
    """The value of an expression (with or without its `${{ }}`) in a run whose contexts
    are `known` (`matrix.service` -> `web`); UNKNOWN when it is not settled, or when the
    file's room (settling) is spent."""
    if len(expression) > MAX_EXPRESSION + 8:  # (its `${{ }}` and their spaces)
        return UNKNOWN
    parsed = _parsed(expression)
    if parsed is None:
        return UNKNOWN
    node, names, size = parsed
    values = tuple(known.get(name) for name in names)
    state = _SETTLING.get() or _Settling()
    key = (expression, values)
    found = state.settled.get(key)
    if found is not None or key in state.settled:
        return found
    if state.room < size:
        return UNKNOWN
    state.room -= size
    given = {name: v for name, v in zip(names, values, strict=True) if v is not None}
    found = state.settled[key] = _evaluated(node, given)
    return found


def text(expression: str, known: Mapping[str, str]) -> str | None:
    """The expression's value as Actions writes it into a string (`true`, `''` for
    null); None when it is not settled."""
    found = value(expression, known)
    if isinstance(found, _Unknown):
        return None
    if isinstance(found, bool):
        return "true" if found else "false"
    if found is None:
        return ""
    if isinstance(found, float):
        return str(int(found)) if found.is_integer() else str(found)
    return found


def skipped(condition: object, known: Mapping[str, str]) -> bool:
    """Whether a step's `if:` is false in this run (one not settled runs, as any other)."""
    if isinstance(condition, bool):
        return not condition
    if not isinstance(condition, str) or ("matrix." not in condition and "env." not in condition):
        return False
    found = value(condition, known)
    return not isinstance(found, _Unknown) and not _truthy(found)


@functools.lru_cache(maxsize=1024)
def _parsed(expression: str) -> tuple[Node, tuple[str, ...], int] | None:
    """The expression's tree, the contexts it names, in order, and its count of tokens;
    None when it is not one this module reads."""
    wrapped = _WRAPPED.match(expression)
    expression = (wrapped[1] if wrapped else expression).strip()
    if not expression or len(expression) > MAX_EXPRESSION:
        return None
    tokens = _TOKEN.findall(expression)
    try:
        node, rest = _or(tokens, 0, 0)
    except _Unreadable:
        return None
    if rest != len(tokens):
        return None
    names = (t for t in tokens if t[0].isalpha() or t[0] == "_")
    named = tuple(dict.fromkeys(n for n in names if n not in ("true", "false", "null")))
    return node, named, len(tokens)


def _or(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    """`a || b || c`, one node of its operands (so a long chain nests nothing)."""
    node, at = _and(tokens, at, depth)
    operands = [node]
    while at < len(tokens) and tokens[at] == "||":
        node, at = _and(tokens, at + 1, depth)
        operands.append(node)
    return (operands[0] if len(operands) == 1 else ("||", *operands)), at


def _and(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    node, at = _comparison(tokens, at, depth)
    operands = [node]
    while at < len(tokens) and tokens[at] == "&&":
        node, at = _comparison(tokens, at + 1, depth)
        operands.append(node)
    return (operands[0] if len(operands) == 1 else ("&&", *operands)), at


def _comparison(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    node, at = _unary(tokens, at, depth)
    if at < len(tokens) and tokens[at] in ("==", "!="):
        operator = tokens[at]
        right, at = _unary(tokens, at + 1, depth)
        node = (operator, node, right)
    return node, at


def _unary(tokens: list[str], at: int, depth: int) -> tuple[Node, int]:
    if depth > MAX_DEPTH or at >= len(tokens):
        raise _Unreadable
    token = tokens[at]
    if token == "!":
        node, at = _unary(tokens, at + 1, depth + 1)
        return ("not", node), at
    if token == "(":
        node, at = _or(tokens, at + 1, depth + 1)
        if at >= len(tokens) or tokens[at] != ")":
            raise _Unreadable
        return node, at + 1
    if at + 1 < len(tokens) and tokens[at + 1] == "(":
        raise _Unreadable  # a function call: contains(...), format(...)
    return _literal(token), at + 1


def _literal(token: str) -> Node:
    if token.startswith("'") and token.endswith("'") and len(token) >= 2:
        return ("lit", token[1:-1].replace("''", "'"))
    if token[0].isdigit():
        return ("lit", float(token))
    if token in ("true", "false"):
        return ("lit", token == "true")
    if token == "null":
        return ("lit", None)
    if token[0].isalpha() or token[0] == "_":
        return ("ctx", token)
    raise _Unreadable


def _evaluated(node: Node, known: Mapping[str, str]) -> Value:
    kind = node[0]
    if kind == "lit":
        return node[1]  # type: ignore[return-value]
    if kind == "ctx":
        found = known.get(str(node[1]))
        return UNKNOWN if found is None else found
    if kind == "not":
        inner = _evaluated(node[1], known)  # type: ignore[arg-type]
        return inner if isinstance(inner, _Unknown) else not _truthy(inner)
    if kind in ("&&", "||"):
        return _chain(kind == "&&", node[1:], known)  # type: ignore[arg-type]
    left = _evaluated(node[1], known)  # type: ignore[arg-type]
    if isinstance(left, _Unknown):
        return UNKNOWN
    right = _evaluated(node[2], known)  # type: ignore[arg-type]
    if isinstance(right, _Unknown):
        return UNKNOWN
    return _equal(left, right) == (kind == "==")


def _chain(conjunction: bool, operands: tuple[Node, ...], known: Mapping[str, str]) -> Value:
    """`a && b && c`: the first false operand, else the last; `a || b`: the first true
    one, else the last. An operand not settled before the answer is leaves it unknown."""
    found: Value = UNKNOWN
    for operand in operands:
        found = _evaluated(operand, known)
        if isinstance(found, _Unknown) or _truthy(found) != conjunction:
            return found
    return found


def _truthy(found: Value) -> bool:
    """Actions' truth: false, 0, NaN, '' and null are false."""
    if isinstance(found, float) and found != found:
        return False
    return found not in (False, None, "", 0.0)


def _equal(left: Value, right: Value) -> bool:
    """Actions' `==`: strings alike but for case; values of two types as numbers."""
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if type(left) is type(right):
        return left == right
    return _number(left) == _number(right)


def _number(found: Value) -> float:
    if found is None:
        return 0.0
    if isinstance(found, bool):
        return 1.0 if found else 0.0
    if isinstance(found, float):
        return found
    if isinstance(found, str):
        try:
            return float(found) if found.strip() else 0.0
        except ValueError:
            return float("nan")
    return float("nan")
