"""What a JVM shutdown hook does before it stops the server (code/facts.py's
`SignalPause`): the JVM runs its hooks on SIGTERM; in a hook's lambda (or, when it has
none, in a method of the file the lambda calls: `AdService.this.stop()`), the first wait,
`Thread.sleep(ms)` or `TimeUnit.SECONDS.sleep(n)`, that comes before any call that stops a
server or the process (`shutdown`, `stop`, `close`, `System.exit`)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import UNKNOWN, Loc, SignalPause
from k8slb.code.syntax_trees import call_arguments
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

_STOPS = frozenset({"shutdown", "shutdownNow", "stop", "close", "exit", "halt"})


def _name(call: Node) -> str:
    return _text(call.child_by_field_name("name"))


class Placed:
    """Nodes in the order a walk meets them (an enclosing node first), each with a word (a
    call's method name), found by the reader's query: the ones a node holds are a
    bisection of its bytes, not a walk of it in Python."""

    def __init__(self, nodes: list[tuple[Node, str]]) -> None:
        self.nodes = nodes
        self.starts = [node.start_byte for node, _ in nodes]

    def within(self, scope: Node) -> list[tuple[Node, str]]:
        """The nodes `scope` holds (itself too, when it is one): those that start in it,
        but for those that start where it does and hold it (`a.b()` of `a.b().c()`)."""
        at = bisect_left(self.starts, scope.start_byte)
        end = bisect_left(self.starts, scope.end_byte, lo=at)
        while at < end and self.nodes[at][0].end_byte > scope.end_byte:
            at += 1
        return self.nodes[at:end]


def first_pause(
    body: Node, calls: Placed, functions: Placed, wait: Callable[[Node, str], Any | None]
) -> tuple[Node, object] | None:
    """syntax_trees.first_pause over one body, through the file's calls in source order
    (only calls stop or sleep): the first whose `wait` is not None (the call, what it said)
    before any that stops; the calls inside a function the body holds (or is) left out:
    they do not run there."""
    inner = functions.within(body)
    skipped, at = -1, 0  # the end of the functions met so far
    for call, name in calls.within(body):
        start = call.start_byte
        while at < len(inner) and inner[at][0].start_byte <= start:
            skipped = max(skipped, inner[at][0].end_byte)
            at += 1
        if start < skipped:
            continue
        if name in _STOPS:
            return None
        seconds = wait(call, name)
        if seconds is not None:
            return call, seconds
    return None


def signal_pauses(
    hooks: Iterable[Node],
    methods: Iterable[Node],
    calls: Placed,
    functions: Placed,
    value: Callable[[Node], Any],
    duration: Callable[[Node, Node], Any],
    loc: Callable[[Node], Loc],
) -> list[SignalPause]:
    """The pause of each hook's lambda; `methods`: the file's method declarations (each
    read once, and only when a hook calls it), `calls`: the file's method invocations by
    their names, `functions`: its lambdas, class bodies and method declarations (what runs
    elsewhere), `value` reads a number, `duration` an amount of a TimeUnit in milliseconds."""

    def wait(node: Node, name: str) -> Any | None:
        if name != "sleep":
            return None
        owner = node.child_by_field_name("object")
        given = call_arguments(node, ("line_comment", "block_comment"))
        if owner is None or not given:
            return None
        if _text(owner) == "Thread":
            millis = value(given[0])
        elif _text(owner).rsplit(".", 1)[-1].isupper():  # TimeUnit.SECONDS, SECONDS
            millis = duration(given[0], owner)
        else:
            return None
        is_number = isinstance(millis, int | float) and not isinstance(millis, bool)
        return millis / 1000 if is_number else UNKNOWN

    by_name: dict[str, list[Node]] = {}
    for method in methods:
        by_name.setdefault(_name(method), []).append(method)
    in_methods: dict[str, tuple[Node, object] | None] = {}

    def in_method(name: str) -> tuple[Node, object] | None:
        """The first pause of the first method of that name that has one: read when a
        hook calls it, once (a file's other methods are not walked)."""
        if name not in in_methods:
            in_methods[name] = next(
                (
                    first
                    for method in by_name.get(name, [])
                    if (inner := method.child_by_field_name("body")) is not None
                    and (first := first_pause(inner, calls, functions, wait)) is not None
                ),
                None,
            )
        return in_methods[name]

    found: list[SignalPause] = []
    for hook in hooks:
        body = hook.child_by_field_name("body")
        first = first_pause(body, calls, functions, wait) if body is not None else None
        if first is None:  # the method the lambda runs, one step
            called = (name for _, name in calls.within(hook))
            first = next((pause for name in called if (pause := in_method(name))), None)
        if first is not None:
            found.append(SignalPause(loc(first[0]), loc(hook), first[1]))
    return found
