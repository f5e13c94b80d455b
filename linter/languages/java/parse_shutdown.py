"""What a JVM shutdown hook does before it stops the server (code/facts.py's
`SignalPause`): the JVM runs its hooks on SIGTERM; in a hook's lambda (or, when it has
none, in a method of the file the lambda calls: `AdService.this.stop()`), the first wait,
`Thread.sleep(ms)` or `TimeUnit.SECONDS.sleep(n)`, that comes before any call that stops a
server or the process (`shutdown`, `stop`, `close`, `System.exit`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import UNKNOWN, Loc, SignalPause
from k8slb.code.syntax_trees import call_arguments, first_pause, walk
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

_FUNCTIONS = ("lambda_expression", "class_body", "method_declaration")
_STOPS = frozenset({"shutdown", "shutdownNow", "stop", "close", "exit", "halt"})


def _name(call: Node) -> str:
    return _text(call.child_by_field_name("name"))


def _stops(node: Node) -> bool:
    return node.type == "method_invocation" and _name(node) in _STOPS


def signal_pauses(
    hooks: Iterable[Node],
    methods: Iterable[Node],
    value: Callable[[Node], Any],
    duration: Callable[[Node, Node], Any],
    loc: Callable[[Node], Loc],
) -> list[SignalPause]:
    """The pause of each hook's lambda; `methods`: the file's method declarations (each
    read once, and only when a hook calls it), `value` reads a number, `duration` an
    amount of a TimeUnit in milliseconds."""

    def wait(node: Node) -> Any | None:
        if node.type != "method_invocation" or _name(node) != "sleep":
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
                    and (first := first_pause([inner], wait, _stops, _FUNCTIONS)) is not None
                ),
                None,
            )
        return in_methods[name]

    found: list[SignalPause] = []
    for hook in hooks:
        body = hook.child_by_field_name("body")
        first = first_pause([body] if body is not None else [], wait, _stops, _FUNCTIONS)
        if first is None:  # the method the lambda runs, one step
            called = (_name(n) for n in walk(hook) if n.type == "method_invocation")
            first = next((pause for name in called if (pause := in_method(name))), None)
        if first is not None:
            found.append(SignalPause(loc(first[0]), loc(hook), first[1]))
    return found
