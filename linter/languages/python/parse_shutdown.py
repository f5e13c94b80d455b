"""What a Python SIGTERM handler does before it stops the server (code/facts.py's
`SignalPause`): the functions a `signal.signal(SIGTERM, handler)` or a loop's
`add_signal_handler(SIGTERM, handler)` runs are found by name (a function, a method, the
functions a lambda or a `functools.partial` calls), and in each the first sleep
(`time.sleep(d)`, an awaited `asyncio.sleep(d)`) that comes before any call that stops a
server or the process (`stop`, `shutdown`, `close`, `sys.exit`) is a pause."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterable

from k8slb.code.facts import Loc, SignalPause
from k8slb.languages.python.parse_ast import dotted

Parents = tuple[ast.AST, ...]
_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# what a handler calls to stop a server (grpc's `stop`, aiohttp's `shutdown`/`cleanup`,
# http.server's `shutdown`/`server_close`, a loop's `stop`) or the process
STOP_METHODS = frozenset({"stop", "shutdown", "close", "server_close", "cleanup"})
STOP_CALLS = frozenset({"sys.exit", "os._exit", "exit", "quit"})
SLEEPS = frozenset({"time.sleep", "asyncio.sleep", "gevent.sleep", "eventlet.sleep"})


def _function_of(parents: Parents) -> ast.AST | None:
    """The function (or lambda) a node is in, nearest first."""
    return next((p for p in reversed(parents) if isinstance(p, _FUNCTION)), None)


def _named_in(handler: ast.expr) -> set[str]:
    """The names of the functions a handler expression runs: itself, a method, what a
    lambda or `functools.partial` calls."""
    while isinstance(handler, ast.Call) and dotted(handler.func).endswith("partial"):
        if not handler.args:
            return set()
        handler = handler.args[0]  # a loop: partials can nest deeper than Python's stack
    if isinstance(handler, ast.Name | ast.Attribute):
        return {dotted(handler).rsplit(".", 1)[-1]}
    if isinstance(handler, ast.Lambda):
        return {
            dotted(call.func).rsplit(".", 1)[-1]
            for call in ast.walk(handler.body)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name | ast.Attribute)
        }
    return set()


def signal_pauses(
    module_functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
    handlers: Iterable[tuple[ast.Call, ast.expr]],
    sleeps: Iterable[tuple[ast.Call, Parents, object]],
    stoppers: Iterable[tuple[ast.Call, Parents]],
    loc: Callable[[ast.AST], Loc],
) -> list[SignalPause]:
    """`module_functions`: the module's functions, in `ast.walk`'s order (the first of a name
    that pauses is the one read); `handlers`: (the registration, the handler expression);
    `sleeps`: each sleep with its parents and seconds; `stoppers`: each call that stops a
    server or the process."""
    handlers = list(handlers)
    if not handlers:
        return []
    defined: dict[str, list[ast.AST]] = defaultdict(list)
    for made in module_functions:
        defined[made.name].append(made)
    first_sleep: dict[int, tuple[ast.Call, object]] = {}
    for call, parents, seconds in sleeps:
        function = _function_of(parents)
        if function is not None and id(function) not in first_sleep:
            first_sleep[id(function)] = (call, seconds)  # the walk visits in source order
    first_stop: dict[int, ast.Call] = {}
    for call, parents in stoppers:
        function = _function_of(parents)
        if function is not None:
            first_stop.setdefault(id(function), call)
    found: list[SignalPause] = []
    for registration, handler in handlers:
        functions: list[ast.AST] = [handler] if isinstance(handler, ast.Lambda) else []
        functions += [f for name in sorted(_named_in(handler)) for f in defined.get(name, [])]
        for function in functions:
            sleep = first_sleep.get(id(function))
            if sleep is None:
                continue
            stop = first_stop.get(id(function))
            if stop is None or _before(sleep[0], stop):
                found.append(SignalPause(loc(sleep[0]), loc(registration), sleep[1]))
                break
    return found


def _before(one: ast.AST, other: ast.AST) -> bool:
    return (getattr(one, "lineno", 0), getattr(one, "col_offset", 0)) < (
        getattr(other, "lineno", 0),
        getattr(other, "col_offset", 0),
    )


def is_sleep(name: str | None, parents: Parents) -> bool:
    """A call that waits: `time.sleep`, or an `asyncio.sleep` that is awaited."""
    if name not in SLEEPS:
        return False
    return not name.startswith("asyncio") or (bool(parents) and isinstance(parents[-1], ast.Await))


def is_stop(name: str | None, method: str | None) -> bool:
    return name in STOP_CALLS or method in STOP_METHODS


# The defaults of a grace parameter that abort the calls in flight (grpcio's stop(0),
# stop(None)): the only ones a stop's grace is read from
_ABRUPT_DEFAULTS = (0, None)


def grace_default(function: ast.FunctionDef | ast.AsyncFunctionDef | None, name: str) -> object:
    """The default of the function's parameter `name` where it aborts (0, None: a wrapper's
    `def stop(self, grace=0): self.server.stop(grace)`), the parameter being rebound
    nowhere in the function; `...` (Ellipsis) otherwise: no such parameter, another
    default, none, or one the body may change."""
    if function is None:
        return ...
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[tuple[ast.arg, ast.expr | None]] = [
        *zip(
            positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
        ),
        *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
    ]
    default = next((value for arg, value in defaults if arg.arg == name), None)
    if not isinstance(default, ast.Constant) or default.value not in _ABRUPT_DEFAULTS:
        return ...
    if isinstance(default.value, bool):
        return ...  # `grace=False`: not a number grpcio documents
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return ...  # `grace = grace or 25`
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return ...
    return default.value
