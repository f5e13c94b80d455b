"""The HTTP routes a Go file declares, and the handler behind each: what an `httpGet`
probe on a container reaches in the code it runs (links.py), as the Python reader does.

`HandleFunc(path, handler)` and `Handle(path, http.HandlerFunc(handler))` of net/http's
muxes (the default one too), and the `GET`/`Get`/`HEAD`/`Head`/`Any` of routers that take
the same two words (gin, echo, chi; the handler is the last argument, after any
middleware), with a literal path (Go 1.22's `"GET /healthz"` too); one inside chi's
`Route("/api", func(r chi.Router) {...})` is under that prefix (`/api/health` for its
`Get("/health")`, `/api` for its `Get("/")`), and one under a prefix that is not a literal
path (a constant of another package) is not read: its path is not the one written. The
handler is a
function of the file, a method of it (`s.healthz`), or a function literal. One that only
answers constants through its first parameter (`w.WriteHeader(http.StatusOK)`,
`w.Write([]byte("ok"))`, `fmt.Fprint(w, "ok")`, gin's `c.JSON(200, gin.H{...})`,
echo's `return c.String(200, "ok")`) and does nothing else is `trivial`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from k8slb.code.facts import Loc, Route
from k8slb.code.syntax_trees import call_arguments, node_text

if TYPE_CHECKING:
    from tree_sitter import Node

_REGISTRATIONS = frozenset({"HandleFunc", "Handle", "GET", "Get", "HEAD", "Head", "Any"})
# Functions that write their other arguments to the writer given first.
_WRITERS = frozenset({"fmt.Fprint", "fmt.Fprintf", "fmt.Fprintln", "io.WriteString"})
_FUNCTIONS = ("function_declaration", "method_declaration")
_LITERALS = frozenset(
    {
        "interpreted_string_literal",
        "raw_string_literal",
        "int_literal",
        "float_literal",
        "true",
        "false",
        "nil",
    }
)


def collect_routes(
    declared: Iterable[Node], calls: Iterable[tuple[Node, str]], loc: Callable[[Node], Loc]
) -> list[Route]:
    """The routes the calls register (`mux.HandleFunc("/healthz", healthz)`). `declared`
    and `calls`: the file's function and method declarations and its calls, in source
    order, as the reader's own binding found them, each call with the method it calls
    (`HandleFunc`; "" for a call of anything but a selector)."""
    functions: dict[str, Node] = {}
    for node in declared:
        if node.type in _FUNCTIONS and (named := node.child_by_field_name("name")) is not None:
            functions[node_text(named)] = node
    found: list[Route] = []
    calls = list(calls)
    registered = [(call, method) for call, method in calls if method in _REGISTRATIONS]
    mounts = _mounts(calls)
    prefixes = _prefixes(registered, mounts) if mounts else {}
    for call, method in registered:
        if method not in _REGISTRATIONS:
            continue
        args = call_arguments(call)
        path = _string(args[0]) if len(args) >= 2 else None
        path = path.split()[-1] if path and path.split() else None  # "GET /healthz"
        if path is None or not path.startswith("/"):
            continue
        mounted = prefixes.get(call.id, "")
        if mounted is None:
            continue  # under a prefix not known here: its path is not the one written
        path = _joined(mounted, path)
        name, target = _handler(_unwrapped(args[-1]), functions)
        if name:
            trivial = target is not None and _trivial(target)
            found.append(Route(path, name, loc(call), trivial, read=target is not None))
    return found


# How deep `Route` calls may nest, and how long their joined prefix may be: past either, a
# route's prefix is not known.
MAX_MOUNT_DEPTH = 64
MAX_PREFIX = 1024


def _mounts(calls: list[tuple[Node, str]]) -> list[tuple[int, int, str | None]]:
    """chi's `Route("/api", func(r chi.Router) {...})` calls: each function literal's
    bytes and the prefix it mounts under (None: not a literal path)."""
    found = []
    for call, method in calls:
        args = call_arguments(call) if method == "Route" else []
        if len(args) == 2 and args[1].type == "func_literal":
            prefix = _string(args[0])
            known = prefix if prefix is not None and prefix.startswith("/") else None
            found.append((args[1].start_byte, args[1].end_byte, known))
    return found


def _prefixes(
    calls: list[tuple[Node, str]], mounts: list[tuple[int, int, str | None]]
) -> dict[int, str | None]:
    """Each registration's prefix (by its call's id): the `Route` literals it is inside
    joined, outermost first ("" for none; None when one is not known). One sweep in source
    order with the open literals on a stack (no walk up the tree: a node's parent is found
    from the root)."""
    events = sorted(
        [(start, 0, end, prefix, 0) for start, end, prefix in mounts]
        + [(call.start_byte, 1, call.end_byte, None, call.id) for call, _ in calls],
        key=lambda event: (event[0], event[1]),
    )
    stack: list[tuple[int, str | None]] = []  # open literals: their end, the joined prefix
    found: dict[int, str | None] = {}
    for start, kind, end, prefix, key in events:
        while stack and stack[-1][0] <= start:
            stack.pop()
        outer = stack[-1][1] if stack else ""
        if kind == 1:
            found[key] = outer
            continue
        joined = None
        if outer is not None and prefix is not None and len(stack) < MAX_MOUNT_DEPTH:
            joined = outer + prefix.rstrip("/")
        stack.append((end, joined if joined is None or len(joined) <= MAX_PREFIX else None))
    return found


def _joined(prefix: str, path: str) -> str:
    """A route's path under its prefix: chi's `Route("/api/health")` with `Get("/")`
    answers `/api/health` (and `/api/health/`)."""
    if not prefix:
        return path
    return prefix if path == "/" else prefix + path


def _unwrapped(handler: Node) -> Node:
    """`healthz` in `http.HandlerFunc(healthz)`."""
    if handler.type in ("call_expression", "type_conversion_expression"):
        function = handler.child_by_field_name("function") or handler.child_by_field_name("type")
        args = call_arguments(handler) if handler.type == "call_expression" else []
        if function is not None and node_text(function).endswith("HandlerFunc") and len(args) == 1:
            return args[0]
    return handler


def _handler(handler: Node, functions: dict[str, Node]) -> tuple[str, Node | None]:
    """The handler's name as the code writes it, and its definition when this file holds
    it (a method by its name: `s.healthz` is the file's method `healthz`)."""
    if handler.type == "func_literal":
        return f"func literal at line {handler.start_point[0] + 1}", handler
    if handler.type == "identifier":
        return node_text(handler), functions.get(node_text(handler))
    if handler.type == "selector_expression":
        field = handler.child_by_field_name("field")
        method = functions.get(node_text(field)) if field is not None else None
        if method is not None and method.type != "method_declaration":
            method = None  # `pkg.Health` is another package's function
        return node_text(handler), method
    return "", None


def _string(node: Node) -> str | None:
    if node.type in ("interpreted_string_literal", "raw_string_literal"):
        return node_text(node)[1:-1]
    return None


def _trivial(function: Node) -> bool:
    """A handler whose every statement answers constants through its first parameter."""
    parameters = function.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters and parameters.named_children else None
    name = first.child_by_field_name("name") if first is not None else None
    body = function.child_by_field_name("body")
    if name is None or body is None:
        return False
    writer = node_text(name)
    return _all_answer(_statements(body), writer, set())


def _all_answer(
    statements: list[Node], writer: str, errors: set[str], failing: bool = False
) -> bool:
    """Whether each statement answers constants: a write whose error it keeps
    (`_, err := w.Write([]byte(":)"))`) and an `if err != nil { ... }` on that error whose
    block answers constants too (an answer, however its write may fail), where the error
    may also be logged (`logrus.Error(err)`: a package's function given it)."""
    for statement in statements:
        if statement.type == "if_statement" and _on_errors(statement, errors):
            consequence = statement.child_by_field_name("consequence")
            if consequence is None or not _all_answer(
                _statements(consequence), writer, errors, failing=True
            ):
                return False
        elif failing and _logs(statement, writer, errors):
            continue
        elif statement.type == "short_var_declaration" or _keeps_error(statement):
            kept = _kept_error(statement, writer)
            if kept is None:
                return False
            errors.add(kept)
        elif not _answers(statement, writer):
            return False
    return True


def _logs(statement: Node, writer: str, errors: set[str]) -> bool:
    """`log.Println(err)`, `logrus.Error("write:", err)`: a package's function given only a
    kept error and constants."""
    call = statement.named_children[0] if statement.type == "expression_statement" else None
    function = call.child_by_field_name("function") if call is not None else None
    if call is None or call.type != "call_expression" or function is None:
        return False
    operand = (
        function.child_by_field_name("operand") if function.type == "selector_expression" else None
    )
    if operand is None or operand.type != "identifier" or node_text(operand) == writer:
        return False
    return all(node_text(a) in errors or _constant(a, writer) for a in call_arguments(call))


def _keeps_error(statement: Node) -> bool:
    left = (
        statement.child_by_field_name("left") if statement.type == "assignment_statement" else None
    )
    return left is not None and any(node_text(n) != "_" for n in left.named_children)


def _kept_error(statement: Node, writer: str) -> str | None:
    """`err` of `_, err := w.Write(...)` (or `err = ...`) when the call answers constants."""
    left, right = statement.child_by_field_name("left"), statement.child_by_field_name("right")
    names = [node_text(n) for n in left.named_children] if left is not None else []
    values = right.named_children if right is not None else []
    kept = [n for n in names if n != "_"]
    if len(kept) != 1 or names[-1] != kept[0] or len(values) != 1:
        return None
    call = values[0]
    return kept[0] if call.type == "call_expression" and _answer(call, writer) else None


def _on_errors(statement: Node, errors: set[str]) -> bool:
    """An `if` with no initializer or `else` whose condition is `e != nil` on a kept error."""
    condition = statement.child_by_field_name("condition")
    if (
        condition is None
        or statement.child_by_field_name("initializer") is not None
        or statement.child_by_field_name("alternative") is not None
        or condition.type != "binary_expression"
    ):
        return False
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    operator = condition.child_by_field_name("operator")
    return (
        left is not None
        and right is not None
        and node_text(left) in errors
        and node_text(right) == "nil"
        and operator is not None
        and node_text(operator) in ("!=", "==")
    )


def _statements(block: Node) -> list[Node]:
    found: list[Node] = []
    for child in block.named_children:
        if child.type == "statement_list":
            found += _statements(child)
        elif child.type != "comment":
            found.append(child)
    return found


def _answers(statement: Node, writer: str) -> bool:
    """`w.Write(...)`, `_, _ = w.Write(...)`, `return c.String(...)`, a bare `return`."""
    if statement.type == "expression_statement":
        values = statement.named_children
    elif statement.type == "assignment_statement":
        left = statement.child_by_field_name("left")
        if left is None or any(node_text(n) != "_" for n in left.named_children):
            return False
        right = statement.child_by_field_name("right")
        values = right.named_children if right is not None else []
    elif statement.type == "return_statement":
        values = [n for n in statement.named_children if n.type != "comment"]
        if values and values[0].type == "expression_list":
            values = values[0].named_children
        if not values:
            return True
    else:
        return False
    return len(values) == 1 and values[0].type == "call_expression" and _answer(values[0], writer)


def _answer(call: Node, writer: str) -> bool:
    function = call.child_by_field_name("function")
    args = call_arguments(call)
    if function is None or function.type != "selector_expression":
        return False
    if node_text(function) in _WRITERS:
        return bool(args) and node_text(args[0]) == writer and _constants(args[1:], writer)
    return _on(function, writer) and _constants(args, writer)


def _on(selector: Node, writer: str) -> bool:
    """A method of the writer, or of what one of its methods returns (`w.Header().Set`)."""
    operand = selector.child_by_field_name("operand")
    while operand is not None and operand.type in ("call_expression", "selector_expression"):
        if operand.type == "call_expression":
            if call_arguments(operand):
                return False
            operand = operand.child_by_field_name("function")
        else:
            operand = operand.child_by_field_name("operand")
    return operand is not None and operand.type == "identifier" and node_text(operand) == writer


def _constants(nodes: list[Node], writer: str) -> bool:
    return all(_constant(node, writer) for node in nodes)


def _constant(node: Node, writer: str) -> bool:
    if node.type in _LITERALS or (node.type == "identifier" and node_text(node) == writer):
        return True
    if node.type == "selector_expression":  # http.StatusOK: a constant of net/http's
        field = node.child_by_field_name("field")
        operand = node.child_by_field_name("operand")
        return operand is not None and node_text(operand) == "http" and field is not None
    if node.type in ("type_conversion_expression", "call_expression"):  # []byte("ok")
        function = node.child_by_field_name("function") or node.child_by_field_name("type")
        if function is None or function.type not in ("slice_type", "type_identifier"):
            return False
        inner = node.child_by_field_name("operand")
        return _constants([inner] if inner is not None else call_arguments(node), writer)
    if node.type == "composite_literal":  # gin.H{"status": "ok"}
        body = node.child_by_field_name("body")
        return body is not None and all(_element(e, writer) for e in body.named_children)
    return False


def _element(element: Node, writer: str) -> bool:
    if element.type == "comment":
        return True
    if element.type in ("keyed_element", "literal_element"):
        return all(_element(child, writer) for child in element.named_children)
    return _constant(element, writer)
