"""JavaScript source -> `CodeFacts`, with tree-sitter's JavaScript grammar: the gRPC
servers a module makes with @grpc/grpc-js (`new grpc.Server(options)`) and their channel
options, written in the call or in a `const` object of the module (grpc-js takes the same
option names as gRPC's core: `grpc.max_connection_age_ms`). A module that names no
grpc-js is not parsed."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import UNKNOWN, UNKNOWN_OPTIONS, CodeFacts, Loc, Option, Options, Server
from k8slb.core.findings import Problem
from k8slb.reading.markers import comment_markers, comment_pattern

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

PACKAGE = "@grpc/grpc-js"


def worth_parsing(data: bytes) -> bool:
    return PACKAGE.encode() in data


@cache
def parser() -> Parser:
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_javascript.language()))


def parse(path: str, data: bytes) -> CodeFacts:
    """The facts of one JavaScript module; one that names grpc-js and does not parse gives
    a KLB004 problem."""
    facts = CodeFacts(path, "javascript", is_test=".test." in path or ".spec." in path)
    if "node_modules" in path.split("/") or not worth_parsing(data):
        return facts
    root = parser().parse(data).root_node
    if root.has_error:
        line = next(
            (int(n.start_point[0]) + 1 for n in walk(root) if n.type == "ERROR" or n.is_missing),
            1,
        )
        facts.problem = Problem(
            "KLB004", path, line, 1, f"not valid JavaScript: a syntax error at line {line}"
        )
        return facts
    grpc = _grpc_names(root)
    if grpc:
        objects = _module_objects(root)
        for node in walk(root):
            if node.type == "new_expression" and _is_server(node, grpc):
                facts.servers.append(_server(path, node, objects))
    facts.markers = comment_markers(path, data.decode("utf-8", "replace"), comment_pattern("//"))
    return facts


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node`, in source order (iteratively: code can nest deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.children if c.type == "string_fragment")


def _grpc_names(root: Node) -> set[str]:
    """The names the module binds grpc-js to: `const grpc = require('@grpc/grpc-js')`,
    `import * as grpc from '@grpc/grpc-js'`, `import grpc from ...`."""
    names: set[str] = set()
    for node in walk(root):
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and name.type == "identifier" and _requires_grpc(value):
                names.add(_text(name))
        elif node.type == "import_statement":
            if _string(node.child_by_field_name("source")) != PACKAGE:
                continue
            for child in walk(node):
                if child.type in ("namespace_import", "import_clause"):
                    names.update(_text(i) for i in child.named_children if i.type == "identifier")
    return names


def _requires_grpc(value: Node | None) -> bool:
    """`require('@grpc/grpc-js')`."""
    if value is None or value.type != "call_expression":
        return False
    arguments = value.child_by_field_name("arguments")
    given = arguments.named_children if arguments is not None else []
    called = _text(value.child_by_field_name("function"))
    return called == "require" and bool(given) and _string(given[0]) == PACKAGE


def _is_server(node: Node, grpc: set[str]) -> bool:
    """`new grpc.Server(...)` for a name grpc-js is bound to."""
    made = node.child_by_field_name("constructor")
    if made is None or made.type != "member_expression":
        return False
    owner, member = made.child_by_field_name("object"), made.child_by_field_name("property")
    return _text(member) == "Server" and _text(owner) in grpc


def _module_objects(root: Node) -> dict[str, Node]:
    """The object literals the module binds to a `const` at its top level, by name."""
    found: dict[str, Node] = {}
    for statement in root.named_children:
        if statement.type != "lexical_declaration" or _text(statement.children[0]) != "const":
            continue
        for declarator in statement.named_children:
            name = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            if name is not None and value is not None and value.type == "object":
                found[_text(name)] = value
    return found


def _loc(path: str, node: Node) -> Loc:
    return Loc(path, int(node.start_point[0]) + 1, int(node.start_point[1]) + 1)


def _server(path: str, node: Node, objects: dict[str, Node]) -> Server:
    arguments = node.child_by_field_name("arguments")
    given = arguments.named_children if arguments is not None else []
    name = None
    declarator = node.parent
    if declarator is not None and declarator.type == "variable_declarator":
        named = declarator.child_by_field_name("name")
        name = _text(named) if named is not None and named.type == "identifier" else None
    options = NOT_GIVEN_OPTIONS
    if given:
        first = given[0]
        literal = objects.get(_text(first)) if first.type == "identifier" else first
        options = (
            _options(path, literal)
            if literal is not None and literal.type == "object"
            else UNKNOWN_OPTIONS
        )
    return Server(_loc(path, node), "grpc.Server", options, name)


NOT_GIVEN_OPTIONS = Options(complete=True, given=False)


def _options(path: str, literal: Node) -> Options:
    """The options an object literal sets; incomplete when a key is not a plain string or a
    spread (`...defaults`) may set others."""
    entries: list[Option] = []
    complete = True
    for child in literal.named_children:
        if child.type != "pair":
            complete = False  # a spread, a shorthand, a method
            continue
        key = child.child_by_field_name("key")
        name = _string(key) if key is not None and key.type == "string" else None
        if name is None:
            complete = False
            continue
        entries.append(Option(name, _value(child.child_by_field_name("value")), _loc(path, child)))
    return Options(complete, tuple(entries), _loc(path, literal))


def _value(node: Node | None) -> Any:
    """A number (`30_000`), a string, or UNKNOWN."""
    if node is None:
        return UNKNOWN
    if node.type == "number":
        text = _text(node).replace("_", "")
        try:
            return int(text, 0) if text.isdigit() or text.lower().startswith("0x") else float(text)
        except ValueError:
            return UNKNOWN
    string = _string(node)
    return string if string is not None else UNKNOWN
