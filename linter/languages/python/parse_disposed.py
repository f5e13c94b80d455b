"""Whether a function that stores what it makes where it would outlive the call (an
attribute, a global, an item of a map such a place holds) also ends it on every path of
that same call: then it lives for the call only, as a local does.

The ends read are the ones the libraries document as closing what their pools hold:
SQLAlchemy's `Engine.dispose()` (it closes the pool's connections; a later use of the
engine opens new ones in a fresh pool), a pool's or a channel's `close()` (psycopg_pool,
asyncpg, grpc), and psycopg2's `closeall()`. "Every path" is one of:

- the end is a statement of a `finally:` of a `try` that holds the store, or of a `try`
  that follows it in the same block;
- the end is a statement of the same block, after the store, with no `return`, `raise`,
  `break` or `continue` between them (an exception in between skips it: the object is
  then dropped with the object or global that holds it, as a failed call's local is).

An end under an `if` or in another function (`close()`, `__del__`) is not every path of
this call and is not read."""

from __future__ import annotations

import ast

# The methods that close what a pool (or a channel) holds.
ENDS = frozenset({"dispose", "close", "closeall"})
# Statements that leave a block before its later statements run.
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def disposed_on_every_path(
    statement: ast.stmt, targets: list[ast.expr], parents: tuple[ast.AST, ...]
) -> bool:
    """Whether the function `parents` end in (the innermost one) ends a place `statement`
    stores in (`targets`, as written) on every path after the store."""
    places = {ast.unparse(t) for t in targets}
    child: ast.AST = statement
    for holder in reversed(parents):
        if isinstance(holder, ast.Lambda | ast.ClassDef | ast.Module):
            return False
        if (
            isinstance(holder, ast.Try)
            and _in_body(holder, child)
            and any(_ends(s, places) for s in holder.finalbody)
        ):
            return True
        block = _block_of(holder, child)
        if block is not None:
            at = next(n for n, s in enumerate(block) if s is child)
            ended = _ended_later(block, at, places)
            if ended is not None:
                return ended
        if isinstance(holder, ast.FunctionDef | ast.AsyncFunctionDef):
            return False  # its body ended with no end on some path
        if isinstance(holder, ast.stmt | ast.excepthandler | ast.match_case):
            child = holder
    return False


def _in_body(statement: ast.Try, child: ast.AST) -> bool:
    return any(child is s for s in (*statement.body, *statement.handlers, *statement.orelse))


def _block_of(holder: ast.AST, child: ast.AST) -> list[ast.stmt] | None:
    """The statement list of `holder` that holds `child` as one of its statements (a
    `try`'s own body and its `finally:` only: a handler's is the handler's)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(holder, field, None)
        if isinstance(block, list) and any(child is s for s in block):
            return block
    return None


def _ended_later(block: list[ast.stmt], index: int, places: set[str]) -> bool | None:
    """Whether a later statement of the block ends a place (itself, or the `finally:` of a
    `try` statement): True; False when one between leaves the block first; None when the
    block ends with neither (its holder's later statements tell)."""
    for statement in block[index + 1 :]:
        if _ends(statement, places):
            return True
        if isinstance(statement, ast.Try) and any(_ends(s, places) for s in statement.finalbody):
            return True
        if any(isinstance(n, _LEAVES) for n in _own_nodes(statement)):
            return False
    return None


def _ends(statement: ast.stmt, places: set[str]) -> bool:
    """`place.dispose()` (or `await place.close()`) as a statement of its own."""
    if not isinstance(statement, ast.Expr):
        return False
    call = statement.value.value if isinstance(statement.value, ast.Await) else statement.value
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    return call.func.attr in ENDS and ast.unparse(call.func.value) in places


def _own_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement, not those of the functions and classes it defines."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stack.append(child)
    return found
