"""What a Python function makes for the modules that call it, and whom a server serves.

A module-level function that returns a channel made of one of its parameters
(`def get_channel(address): channel = grpc.aio.insecure_channel(address); return
channel`) is a channel helper (facts.ChannelHelper): another module's call of it that
keeps what it returns is a channel of what that call passes, resolved in imported.py
(Channel.made_by). One that returns a server it makes is a server helper: another
module's name bound to what it returns, and started, served on or stopped there, is that
server (Server.made_by).

A server whose one service is the standard health service (`add_HealthServicer_to_server`
on it, in its function or in a function of the module it is handed to, and nothing else
registered) serves only probes: `serves_only_health` says so where its name goes nowhere
else (no other call it is handed to, no return, no store), and never guesses beyond."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import lru_cache

# budgets: the calls of other modules' functions a module records (Channel.made_by, a
# server's made_by), and the values each passes
MAX_MADE_CALLS = 32
MAX_PASSED = 8
# a server's own methods: using it so hands it to no one
SERVER_METHODS = frozenset(
    {"start", "stop", "add_insecure_port", "add_secure_port", "wait_for_termination"}
)
# how deep a server handed to the module's functions is followed (health.setup(server))
_HANDED_DEPTH = 2

Function = ast.FunctionDef | ast.AsyncFunctionDef


@lru_cache(maxsize=64)
def returned_names(function: Function) -> frozenset[str]:
    """The names the function's own `return` statements return (`return channel`), not
    those of the functions nested in it (each function walked once for all its sites)."""
    found: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            found.add(node.value.id)
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(found)


# a name's mention: the Name, its parent, its grandparent, its place among a call's arguments
_Use = tuple[ast.Name, ast.AST | None, ast.AST | None, int | None]


class HealthOnly:
    """`serves_only_health` of a module's servers: each place (a function, the module)
    walked once for every name it uses, each (place, name, depth) judged once, so that
    many servers, and calls that hand one on many times, cost what the module's size
    does."""

    def __init__(
        self, functions: dict[str, Function], is_health: Callable[[ast.Call], bool]
    ) -> None:
        self.functions = functions
        self.is_health = is_health
        self.uses: dict[int, dict[str, list[_Use]]] = {}  # by place: _uses
        self.judged: dict[tuple[int, str, int], bool | None] = {}

    def serves_only_health(self, home: ast.AST, name: str, depth: int = 0) -> bool | None:
        """Whether the server `name` names in `home` (a function, or the module) is given
        the standard health service and nothing else: each mention of it is a call of one
        of its own methods (`server.start()`), the server argument of a health
        registration, or the argument of a function of the module that itself uses its
        parameter only so. True with a health registration seen, None with none (nothing
        registered here), False for any other use (another registration, a return, a
        store, a call of code elsewhere)."""
        key = (id(home), name, depth)
        if key not in self.judged:
            self.judged[key] = self._judged(home, name, depth)
        return self.judged[key]

    def _judged(self, home: ast.AST, name: str, depth: int) -> bool | None:
        health = False
        for node, parent, grandparent, place in self._uses(home).get(name, ()):
            if not isinstance(node.ctx, ast.Load):
                if depth or not isinstance(parent, ast.Assign):
                    return False  # a parameter rebound, or the server bound another way
                continue
            if isinstance(parent, ast.Attribute):
                if not (
                    parent.attr in SERVER_METHODS
                    and isinstance(grandparent, ast.Call)
                    and grandparent.func is parent
                ):
                    return False
                continue
            if not isinstance(parent, ast.Call) or place is None:
                return False
            if self.is_health(parent):
                if place != 1:
                    return False
                health = True
                continue
            handed = self._handed(parent, place, depth)
            if handed is False:
                return False
            health = health or bool(handed)
        return True if health else None

    def _handed(self, call: ast.Call, index: int, depth: int) -> bool | None:
        """`serves_only_health` of the parameter a call of one of the module's functions
        gives the server to (`setup_health(server)`); False for a call of anything else."""
        functions = self.functions
        function = functions.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if (
            function is None
            or depth >= _HANDED_DEPTH
            or any(isinstance(a, ast.Starred) for a in call.args[: index + 1])
        ):
            return False
        positional = [*function.args.posonlyargs, *function.args.args]
        if index >= len(positional):
            return False
        return self.serves_only_health(function, positional[index].arg, depth + 1)

    def _uses(self, home: ast.AST) -> dict[str, list[_Use]]:
        """Each name's mentions under `home` (the functions nested in it too: a closure
        that stops the server), with the mention's parent and grandparent, and its place
        among the arguments of the call it is one of (None for none)."""
        found = self.uses.get(id(home))
        if found is not None:
            return found
        found = self.uses[id(home)] = {}
        parents: dict[int, ast.AST] = {}
        places: dict[int, int] = {}
        stack: list[ast.AST] = [home]
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
                stack.append(child)
            if isinstance(node, ast.Call):
                places.update((id(argument), at) for at, argument in enumerate(node.args))
            elif isinstance(node, ast.Name):
                parent = parents.get(id(node))
                grandparent = parents.get(id(parent)) if parent is not None else None
                use = (node, parent, grandparent, places.get(id(node)))
                found.setdefault(node.id, []).append(use)
        return found
