"""connect-node's client transports, read as gRPC channels (the same facts as a grpc-js
client: parse.py).

`@connectrpc/connect-node` (and its older name, `@bufbuild/connect-node`) makes a client's
transport with `createGrpcTransport({baseUrl})`, which always speaks HTTP/2, or with
`createConnectTransport`/`createGrpcWebTransport`, which speak HTTP/2 when their options
say `httpVersion: "2"` (or give a `sessionManager`, an `Http2SessionManager`). An HTTP/2
transport holds one session manager, which keeps one connection to the origin of its
`baseUrl` and sends every call over it: it opens a new one only when that one is gone (an
error, a GOAWAY from the server, or 15 minutes with no call, its idle timeout by default).
It has no load balancing of its own: the name is looked up once for the connection. A
transport made once for the process is one long-lived channel to that origin (a
`Channel` whose target reads as facts.CONNECT_ADDRESS), and KLB102 judges it as it judges
a grpc-js client; over HTTP/1.1 each call is a request of Node's http agent, not read here.

Long-lived: made at the module's top level, in `main` or a class's constructor, or stored
where it outlives the function that makes it (an object's field, `this.transport = ...`, a
variable of the module's top level: a transport made once and kept). One made in another
function and not so stored is not read: whether it is made per call or handed on to be
kept is not known from the module alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from k8slb.code.facts import CONNECT_ADDRESS, UNKNOWN_OPTIONS, Channel, choices
from k8slb.code.syntax_trees import call_arguments
from k8slb.code.syntax_trees import node_text as _text
from k8slb.languages.javascript.parse_reading import (
    FUNCTIONS,
    Reading,
    enclosing_function,
    object_members,
)

if TYPE_CHECKING:
    from tree_sitter import Node

CONNECT_NODE = ("@connectrpc/connect-node", "@bufbuild/connect-node")
# The transports' factories, and whether each speaks HTTP/2 whatever its options say.
TRANSPORTS = {
    "createGrpcTransport": True,
    "createConnectTransport": False,
    "createGrpcWebTransport": False,
}
# The most transports one module's reading records (past them, the others are not read).
MAX_TRANSPORTS = 64
_ONCE = ("main", "constructor")
# what a transport may be wrapped in where it is made: parentheses, TypeScript's `as`, `!`,
# `satisfies`, an `await`, and a call it is given to (`createClient(Service, transport)`)
_CARRIERS = (
    "parenthesized_expression",
    "as_expression",
    "non_null_expression",
    "satisfies_expression",
    "await_expression",
    "arguments",
    "call_expression",
    "new_expression",
)


def read_connect(module: Reading) -> None:
    """The long-lived HTTP/2 transports of a module that imports connect-node."""
    if not any(m in CONNECT_NODE for m in module.imports.values()) and not any(
        m in CONNECT_NODE for m, _ in module.members.values()
    ):
        return
    made = 0
    top: set[str] | None = None
    declared: dict[tuple[int, int], set[str]] = {}  # each function's own names, once
    for call in module.of("call_expression"):
        function = call.child_by_field_name("function")
        if function is None:
            continue
        package, factory = module.imported_function(function)
        if package not in CONNECT_NODE or factory not in TRANSPORTS:
            continue
        made += 1
        if made > MAX_TRANSPORTS:
            return
        if top is None:
            top = _top_level_names(module.root)
        _transport(module, call, factory, top, declared)


def _transport(
    module: Reading,
    call: Node,
    factory: str,
    top: set[str],
    declared: dict[tuple[int, int], set[str]],
) -> None:
    given = call_arguments(call)
    literal = module.unwrapped(given[0]) if given else None
    if literal is not None and literal.type == "identifier":
        literal = module.objects.get(_text(literal))
    if literal is None or literal.type != "object":
        return  # options made elsewhere: neither the protocol nor the URL is known
    members = object_members(module, literal)
    http2 = TRANSPORTS[factory] or "sessionManager" in members
    if not http2 and "httpVersion" in members:
        http2 = module.value(members["httpVersion"]) == "2"
    base = members.get("baseUrl")
    if not http2 or base is None or not _kept(call, top, declared):
        return
    module.facts.channels += [
        Channel(module.loc(call), factory, target, UNKNOWN_OPTIONS, True, None, CONNECT_ADDRESS)
        for target in choices(module.value(base))
    ]


def _top_level_names(root: Node) -> set[str]:
    """The variables the module's top level declares (`let transport;`)."""
    names: set[str] = set()
    for statement in root.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type in ("lexical_declaration", "variable_declaration"):
            for child in statement.named_children:
                if child.type != "variable_declarator":
                    continue
                named = child.child_by_field_name("name")
                if named is not None and named.type == "identifier":
                    names.add(_text(named))
    return names


def _kept(call: Node, top: set[str], declared: dict[tuple[int, int], set[str]]) -> bool:
    """Whether the transport lives as long as the process: made where code runs once, or
    stored (itself, or a client made over it) in an object's field or a top-level
    variable."""
    function = enclosing_function(call)
    if function is None or _function_name(function) in _ONCE:
        return True
    node, holder = call, call.parent
    while holder is not None and holder.type in _CARRIERS:
        node, holder = holder, holder.parent
    if holder is None or holder.type != "assignment_expression":
        return False
    if holder.child_by_field_name("right") != node:
        return False
    left = holder.child_by_field_name("left")
    if left is None:
        return False
    if left.type == "member_expression":
        return _text(left.child_by_field_name("object")) == "this"
    if left.type != "identifier" or _text(left) not in top:
        return False
    key = (function.start_byte, function.end_byte)
    if key not in declared:
        declared[key] = _declared(function)
    return _text(left) not in declared[key]  # else the assignment is to its own variable


def _declared(function: Node) -> set[str]:
    """The names of the function's parameters and of the variables it declares (not those
    of the functions inside it)."""
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name(
        "parameter"
    )
    names = {_text(p) for p in _identifiers(parameters)} if parameters is not None else set()
    body = function.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "variable_declarator":
            named = node.child_by_field_name("name")
            if named is not None:
                names.add(_text(named))
        if node.type not in FUNCTIONS:
            stack.extend(node.named_children)
    return names


def _identifiers(node: Node) -> list[Node]:
    """The names in a parameter list, destructured ones too."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            found.append(node)
        else:
            stack.extend(node.named_children)
    return found


def _function_name(function: Node) -> str:
    named = function.child_by_field_name("name")
    if named is not None:
        return _text(named)
    parent = function.parent
    if parent is not None and parent.type == "variable_declarator":
        return _text(parent.child_by_field_name("name"))
    return ""
