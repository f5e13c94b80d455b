"""What a Node SIGTERM handler does before it stops the server (code/facts.py's
`SignalPause`): in the function `process.on('SIGTERM', handler)` runs, the first wait that
comes before any call that stops a server or the process. A wait is an awaited timer
(`await new Promise((r) => setTimeout(r, ms))`, timers/promises' `await setTimeout(ms)`,
an awaited `sleep(ms)`/`delay(ms)`/`wait(ms)` helper), or a timer whose callback stops the
server (`setTimeout(() => server.close(), ms)`): the server keeps serving until then. A
timer whose callback only exits (`setTimeout(() => process.exit(1), ms)`) bounds the stop
and is no wait."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import UNKNOWN, Loc, SignalExit, SignalPause
from k8slb.code.syntax_trees import call_arguments, first_pause, walk
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

_FUNCTIONS = ("function_declaration", "function_expression", "arrow_function", "function")
# what a handler calls to stop a server (http's and grpc-js's) or the process
_STOPS = frozenset({"close", "stop", "shutdown", "tryShutdown", "forceShutdown", "exit"})
_SLEEPS = frozenset({"setTimeout", "sleep", "delay", "wait"})  # awaited: a wait in ms


def _method(call: Node) -> str:
    function = call.child_by_field_name("function")
    if function is None:
        return ""
    if function.type == "member_expression":
        return _text(function.child_by_field_name("property"))
    return _text(function)


def _stops(node: Node) -> bool:
    return node.type == "call_expression" and _method(node) in _STOPS


class HeldCalls:
    """A module's calls in source order (the reader's query found them all): the calls a
    function holds are a bisection of its bytes, not a walk of its every node."""

    def __init__(self, calls: list[Node]) -> None:
        self.calls = calls
        self.starts = [call.start_byte for call in calls]

    def within(self, node: Node) -> list[Node]:
        """The calls below `node` (a call that starts in it ends in it, or holds it)."""
        end = node.end_byte
        low, high = bisect_left(self.starts, node.start_byte), bisect_left(self.starts, end)
        return [call for call in self.calls[low:high] if call.end_byte <= end]


def _stops_a_server(function: Node, held: HeldCalls | None) -> bool:
    """A timer's callback that closes a server (not one that only exits)."""
    nodes: Iterable[Node] = held.within(function) if held is not None else walk(function)
    return any(
        _stops(node) and _text(node.child_by_field_name("function")) != "process.exit"
        for node in nodes
    )


def signal_pause(
    registration: Node,
    handler: Node,
    value: Callable[[Node], Any],
    loc: Callable[[Node], Loc],
    held: HeldCalls | None = None,
) -> SignalPause | None:
    """The pause in the handler's body, if any; `value` reads a number of milliseconds;
    `held`: the module's calls, when the reader found them all."""

    def seconds(node: Node | None) -> Any:
        read = value(node) if node is not None else UNKNOWN
        if not isinstance(read, str | int | float) or isinstance(read, bool):
            return UNKNOWN  # an environment's value, an import
        try:
            return float(read) / 1000
        except ValueError:  # a string that is no number
            return UNKNOWN

    def wait(node: Node) -> Any | None:
        if node.type == "await_expression" and node.named_children:
            awaited = node.named_children[0]
            if awaited.type == "new_expression" and _text(
                awaited.child_by_field_name("constructor")
            ).endswith("Promise"):
                timers = [n for n in walk(awaited) if n.type == "call_expression"]
                timer = next((t for t in timers if _method(t) == "setTimeout"), None)
                given = call_arguments(timer) if timer is not None else []
                return seconds(given[1]) if len(given) > 1 else None
            if awaited.type == "call_expression" and _method(awaited) in _SLEEPS:
                given = call_arguments(awaited)
                return seconds(given[0]) if given else UNKNOWN
            return None
        if node.type == "call_expression" and _method(node) == "setTimeout":
            given = call_arguments(node)
            callback = given[0] if given else None
            if (
                callback is not None
                and callback.type in _FUNCTIONS
                and _stops_a_server(callback, held)
            ):
                return seconds(given[1]) if len(given) > 1 else UNKNOWN
        return None

    body = handler.child_by_field_name("body")
    first = first_pause([body] if body is not None else [], wait, _stops, _FUNCTIONS)
    if first is None:
        return None
    return SignalPause(loc(first[0]), loc(registration), first[1])


def signal_exit(
    registration: Node, handler: Node, loc: Callable[[Node], Loc], held: HeldCalls | None = None
) -> SignalExit | None:
    """The `process.exit()` a SIGTERM handler reaches in its own body (not in a callback it
    hands on, as `tryShutdown(() => process.exit(0))`) with nothing awaited before it: Node
    runs nothing else meanwhile, so no server drains. None where the handler stops a server
    anywhere (a branch may drain it first) or awaits before the exit."""
    body = handler.child_by_field_name("body")
    if body is None or _stops_a_server(handler, held):
        return None
    stack = [body]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("await_expression", "yield_expression"):
            return None
        if (
            kind == "call_expression"
            and _text(node.child_by_field_name("function")) == "process.exit"
        ):  # (only a call's function asked for: a field of every node made a node each)
            return SignalExit(loc(node), loc(registration), "process.exit()")
        if node is body or kind not in _FUNCTIONS:
            stack.extend(reversed(node.children))
    return None
