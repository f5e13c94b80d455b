"""Which of a gRPC server's calls come after which, in the block that holds them: a
`wait_for_termination()` that follows the server's own `stop(...)` waits for that stop (a
worker's graceful close), not for SIGTERM; a `stop(...)` that follows the server's
`wait_for_termination()` runs once the server has ended, so it aborts no call in flight.
Only statements of one block are read (`server.stop(10)` then `server.wait_for_
termination()`, each a statement of its own): a call in a branch, a lambda or a nested
function is never taken to come before or after another."""

from __future__ import annotations

import ast

from k8slb.languages.python.parse_ast import dotted

Parents = tuple[ast.AST, ...]
# How many statements before a call are read for the one it follows: the pairs read are
# adjacent or nearly so, and a block of thousands of waits stays linear to read.
LOOK_BACK = 32
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody")


# Each block's statements by id, with their places: read once a block (a module's
# collector keeps one), so that finding a statement's place costs no scan of its block.
Places = dict[int, dict[int, int]]


def _block_of(parents: Parents, places: Places) -> tuple[list[ast.stmt], int] | None:
    """The statements of the block that holds the call's own statement, and its place
    there; None when the call sits in a lambda inside that statement's expression (a
    handler, run later) or the block cannot be told."""
    for at in range(len(parents) - 1, 0, -1):
        node = parents[at]
        if isinstance(node, ast.Lambda):
            return None
        if isinstance(node, ast.stmt):
            holder = parents[at - 1]
            for name in _BLOCKS:
                block = getattr(holder, name, None)
                if not isinstance(block, list):
                    continue
                known = places.get(id(block))
                if known is None:
                    known = places[id(block)] = {id(s): i for i, s in enumerate(block)}
                place = known.get(id(node))
                if place is not None:
                    return block, place
            return None
    return None


def _called_alone(statement: ast.stmt, receiver: str, method: str) -> bool:
    """Whether the statement is the call `receiver.method(...)` and nothing else (its
    result awaited, or its future's `.wait()`, `.result()` taken, counts as the call)."""
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    if isinstance(value, ast.Await):
        value = value.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("wait", "result")
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == method
        and dotted(value.func.value) == receiver
    )


def comes_after(parents: Parents, receiver: str, method: str, places: Places) -> bool:
    """Whether a statement before the call's own, in its block (one of the LOOK_BACK
    before it), is `receiver.method(...)`."""
    found = _block_of(parents, places)
    if found is None:
        return False
    block, place = found
    earlier = block[max(0, place - LOOK_BACK) : place]
    return any(_called_alone(statement, receiver, method) for statement in earlier)


def function_of(parents: Parents) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose own statements hold the call (None in a lambda or a class body,
    or at the module's top level)."""
    for node in reversed(parents):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
        if isinstance(node, _NESTED):
            return None
    return None


def called_alone_at(parents: Parents, call: ast.Call) -> bool:
    """Whether the call is a statement of its own (`self.stop()`), not part of a larger
    expression or a condition."""
    return bool(parents) and isinstance(parents[-1], ast.Expr) and parents[-1].value is call
