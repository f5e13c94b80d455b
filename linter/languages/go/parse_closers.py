"""Closers a Go function returns beside what it makes: `conn, err := grpc.NewClient(...)`,
`done := func() { conn.Close() }`, `return pb.NewStoreClient(conn), done, nil`. What the
function makes is closed per call when every call of the file that reaches the function
runs the closer it got before its own function returns (`c, done, err := open(); defer
done()`, or `done()` later in the body), or returns the call whole to callers that do
(`return s.open(ctx)`). The function may be declared (its calls by name), or a function
literal bound to a local (called by it, or through the struct field the local is put in:
`Factory: open` then `s.Factory(...)`, the field's calls whatever struct holds it).

Budgets: callers followed _DEPTH functions up (a function that returns the call whole is
a level), and a function with more than _MAX_CALLERS calls is not followed (unknown: kept).
A caller in a function that runs once (`main`, `init`, `New...`) runs its closer when the
process ends: kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from k8slb.code.syntax_trees import node_text as _text
from k8slb.code.syntax_trees import walk
from k8slb.core import regex

if TYPE_CHECKING:
    from tree_sitter import Node

_DEPTH = 4  # functions that return the call whole, followed up
_MAX_CALLERS = 64  # calls of one function read; past them it is not followed

# `x.Close()` (or `c.conn.Close()`) in a closer's body: what it closes
_CLOSED = regex.compile(r"([\w.]+)\.Close\(\)")
_ASSIGNING = ("short_var_declaration", "assignment_statement")


class Closers:
    """The closers a file's functions return, and whether their callers run them, each
    read once (by body, and by body and the closer's place among the results)."""

    def __init__(
        self,
        data: bytes,
        callers_of: Callable[[Node], list[tuple[Node, Any]] | None],
        runs_once: Callable[[Any], bool],
    ) -> None:
        self.data = data
        # a body's calls as its file reads them: declared functions' by name, a function
        # literal's through what holds it (None: handed somewhere not followed)
        self.callers_of = callers_of
        self.runs_once = runs_once  # whether a call's scope runs once a process
        self.returned: dict[int, dict[str, int]] = {}  # by body id: closers()
        self.run: dict[tuple[int, int], bool] = {}  # by body id and place: callers_run()
        self.bare: dict[int, set[str]] = {}  # by body id: the names it calls as `f()`

    def closed_per_call(self, body: Node, name: str) -> bool:
        """Whether the function of `body` returns a closer of `name` that each caller of
        the file runs before it returns."""
        place = self.closers(body).get(name)
        return place is not None and self.callers_run(body, place, 0)

    def closers(self, body: Node) -> dict[str, int]:
        """What the closers the body's returns hand back close (`conn`, `c.conn`), each
        with its place among the results: a function literal returned, or a local bound to
        one. A name closed at two places is left out."""
        found = self.returned.get(body.id)
        if found is not None:
            return found
        found = {}
        if self.data.find(b".Close()", body.start_byte, body.end_byte) != -1:
            literals: dict[str, set[str]] = {}  # locals bound to a closing function literal
            returns: list[Node] = []
            for node in walk(body):
                if node.type in _ASSIGNING:
                    for target, value in _pairs(node):
                        if value.type == "func_literal" and target.type == "identifier":
                            literals[_text(target)] = set(_CLOSED.findall(_text(value)))
                elif node.type == "return_statement" and _function_body(node) == body.id:
                    returns.append(node)
            places: dict[str, set[int]] = {}
            for statement in returns:
                items = _results(statement)
                for place, item in enumerate(items if len(items) > 1 else ()):
                    closed = (
                        set(_CLOSED.findall(_text(item)))
                        if item.type == "func_literal"
                        else literals.get(_text(item), set())
                        if item.type == "identifier"
                        else set()
                    )
                    for each in closed:
                        places.setdefault(each, set()).add(place)
            found = {name: min(at) for name, at in places.items() if len(at) == 1}
        self.returned[body.id] = found
        return found

    def callers_run(self, body: Node, place: int, depth: int) -> bool:
        """Whether each call of the function of `body` runs the closer at `place` of its
        results (at least one call; none past the budgets)."""
        key = (body.id, place)
        known = self.run.get(key)
        if known is not None:
            return known
        self.run[key] = False  # a function that reaches itself: not by that
        callers = self.callers_of(body) if depth <= _DEPTH else None
        found = (
            bool(callers)
            and len(callers or ()) <= _MAX_CALLERS
            and all(self._runs(call, scope, place, depth) for call, scope in callers or ())
        )
        self.run[key] = found
        return found

    def _runs(self, call: Node, scope: Any, place: int, depth: int) -> bool:
        """Whether a call binds the result at `place` to a local its function then calls
        (`defer done()`), or returns the call whole to callers that do."""
        parent = call.parent
        statement = (
            parent.parent if parent is not None and parent.type == "expression_list" else parent
        )
        body = _enclosing_body(call)
        if statement is None or body is None:
            return False
        if statement.type == "return_statement":
            return len(_results(statement)) == 1 and self.callers_run(body, place, depth + 1)
        if statement.type not in _ASSIGNING or statement.child_by_field_name("right") != parent:
            return False
        left = _items(statement.child_by_field_name("left"))
        if len(_items(parent)) != 1 or place >= len(left) or left[place].type != "identifier":
            return False
        closer = _text(left[place])
        return closer != "_" and not self.runs_once(scope) and closer in self._called(body)

    def _called(self, body: Node) -> set[str]:
        """The names the body calls with no arguments (`done()`, `defer done()`, in a
        deferred function literal too)."""
        found = self.bare.get(body.id)
        if found is None:
            found = set()
            for node in walk(body):
                if node.type != "call_expression":
                    continue
                function = node.child_by_field_name("function")
                arguments = node.child_by_field_name("arguments")
                if (
                    function is not None
                    and function.type == "identifier"
                    and (arguments is not None and arguments.named_child_count == 0)
                ):
                    found.add(_text(function))
            self.bare[body.id] = found
        return found


def literal_holders(literal: Node, uses: Callable[[Node, str], list[Node]]) -> list[str] | None:
    """How a function literal is called: the local it is bound to (`open := func...`)
    and the struct fields that local, or the literal, is put in (`Factory: open`,
    `s.factory = open`), as `name` and `.field`; None when it is handed anywhere else
    (passed to a call, returned, bound again: its calls are not followed)."""
    parent = literal.parent
    if parent is not None and parent.type == "literal_element":
        parent = parent.parent
    field = _field_holding(parent, literal)
    if field is not None:
        return [field]
    statement = parent.parent if parent is not None and parent.type == "expression_list" else None
    body = _enclosing_body(literal)
    if statement is None or statement.type != "short_var_declaration" or body is None:
        return None
    bound = [t for t, v in _pairs(statement) if v.id == literal.id]
    if len(bound) != 1 or bound[0].type != "identifier":
        return None
    name = _text(bound[0])
    found = [name]
    for use in uses(body, name):
        if use.id == bound[0].id:
            continue
        holder = use.parent
        if holder is not None and holder.type == "call_expression":
            if holder.child_by_field_name("function") != use:
                return None  # handed to a call
            continue
        if holder is not None and holder.type == "literal_element":
            holder = holder.parent
            if holder is not None and holder.named_children[0] == use.parent:
                continue  # the key of `open: open`: the field's name
        field = _field_holding(holder, use)
        if field is None:
            return None
        found.append(field)
    return found


def _field_holding(holder: Node | None, value: Node) -> str | None:
    """`.field` when `value` is what a keyed element (`field: value`) or an assignment to
    a field (`s.field = value`) gives it."""
    if holder is None:
        return None
    if holder.type == "keyed_element":
        key, given = holder.child_by_field_name("key"), holder.child_by_field_name("value")
        if key is None or given is None:
            key, given = holder.named_children[0], holder.named_children[-1]
        inner = given.named_children[0] if given.type == "literal_element" else given
        key = key.named_children[0] if key.type == "literal_element" and key.named_children else key
        if inner.id == value.id and key.type in ("field_identifier", "identifier"):
            return "." + _text(key)
        return None
    statement = holder.parent if holder.type == "expression_list" else None
    if statement is None or statement.type != "assignment_statement":
        return None
    for target, given in _pairs(statement):
        if given.id == value.id and target.type == "selector_expression":
            return "." + _text(target.child_by_field_name("field"))
    return None


def _items(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return list(node.named_children) if node.type == "expression_list" else [node]


def _pairs(statement: Node) -> list[tuple[Node, Node]]:
    """An assignment's targets with their values (none when their counts differ)."""
    left = _items(statement.child_by_field_name("left"))
    right = _items(statement.child_by_field_name("right"))
    return list(zip(left, right, strict=True)) if len(left) == len(right) else []


def _results(statement: Node) -> list[Node]:
    """What a return statement returns."""
    return [item for child in statement.named_children for item in _items(child)]


_FUNCTIONS = ("function_declaration", "method_declaration", "func_literal")


def _enclosing_body(node: Node) -> Node | None:
    """The body of the function a node is in."""
    parent = node.parent
    while parent is not None and parent.type not in _FUNCTIONS:
        parent = parent.parent
    return parent.child_by_field_name("body") if parent is not None else None


def _function_body(node: Node) -> int | None:
    body = _enclosing_body(node)
    return body.id if body is not None else None
