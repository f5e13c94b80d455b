"""JavaScript source -> `CodeFacts`, with tree-sitter's JavaScript grammar: the gRPC
servers a module makes with @grpc/grpc-js (`new grpc.Server(options)`) and its clients
(`new Client(target, grpc.credentials.create...(), options)`), with their channel options,
written in the call or in a `const` object of the module (grpc-js takes the same option
names as gRPC's core: `grpc.max_connection_age_ms`, `grpc.service_config`). A target is a
string, a template string, `process.env.X` (with a `||` or `??` default) or a module's
`const`. A module that names no grpc-js is not parsed."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import (
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    CodeFacts,
    EnvRef,
    Loc,
    Option,
    Options,
    Server,
    joined,
)
from k8slb.code.syntax_trees import node_text as _text
from k8slb.code.syntax_trees import syntax_problem, walk
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
    facts.problem = syntax_problem(path, root, "JavaScript")
    if facts.problem is not None:
        return facts
    grpc = _grpc_names(root)
    if grpc:
        objects, strings = _module_consts(root)
        for node in walk(root):
            if node.type != "new_expression":
                continue
            if _is_server(node, grpc):
                facts.servers.append(_server(path, node, objects))
            elif (channel := _client(path, node, grpc, objects, strings)) is not None:
                facts.channels.append(channel)
    facts.markers = comment_markers(path, data.decode("utf-8", "replace"), comment_pattern("//"))
    return facts


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
    given = _arguments(value)
    called = _text(value.child_by_field_name("function"))
    return called == "require" and bool(given) and _string(given[0]) == PACKAGE


def _is_server(node: Node, grpc: set[str]) -> bool:
    """`new grpc.Server(...)` for a name grpc-js is bound to."""
    made = node.child_by_field_name("constructor")
    if made is None or made.type != "member_expression":
        return False
    owner, member = made.child_by_field_name("object"), made.child_by_field_name("property")
    return _text(member) == "Server" and _text(owner) in grpc


def _module_consts(root: Node) -> tuple[dict[str, Node], dict[str, Any]]:
    """What the module binds to a `const` at its top level, by name: the object literals
    (options), and the strings or environment values (targets)."""
    objects: dict[str, Node] = {}
    strings: dict[str, Any] = {}
    for statement in root.named_children:
        if statement.type != "lexical_declaration" or _text(statement.children[0]) != "const":
            continue
        for declarator in statement.named_children:
            name = _text(declarator.child_by_field_name("name"))
            value = declarator.child_by_field_name("value")
            if not name or value is None:
                continue
            if value.type == "object":
                objects[name] = value
            elif (target := _target(value, {})) is not UNKNOWN:
                strings[name] = target
    return objects, strings


def _arguments(node: Node) -> list[Node]:
    """A call's (or a `new`'s) arguments."""
    arguments = node.child_by_field_name("arguments")
    return arguments.named_children if arguments is not None else []


def _options_argument(path: str, node: Node | None, objects: dict[str, Node]) -> Options:
    """The options an argument gives: none, an object literal (in place, or a module
    `const`), or what k8slb cannot follow (a call, a parameter)."""
    if node is None:
        return NOT_GIVEN_OPTIONS
    literal = objects.get(_text(node)) if node.type == "identifier" else node
    if literal is None or literal.type != "object":
        return UNKNOWN_OPTIONS
    return _options(path, literal)


def _loc(path: str, node: Node) -> Loc:
    return Loc(path, int(node.start_point[0]) + 1, int(node.start_point[1]) + 1)


def _server(path: str, node: Node, objects: dict[str, Node]) -> Server:
    given = _arguments(node)
    name = None
    declarator = node.parent
    if declarator is not None and declarator.type == "variable_declarator":
        named = declarator.child_by_field_name("name")
        name = _text(named) if named is not None and named.type == "identifier" else None
    options = _options_argument(path, given[0] if given else None, objects)
    return Server(_loc(path, node), "grpc.Server", options, name)


NOT_GIVEN_OPTIONS = Options(complete=True, given=False)


def _options(path: str, literal: Node) -> Options:
    """The options an object literal sets; incomplete when a key is not a plain string or a
    spread (`...defaults`) may set others."""
    entries: list[Option] = []
    complete = True
    for child in literal.named_children:
        if child.type == "comment":
            continue
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
    """A number (`30_000`), a string, `JSON.stringify` of a literal (a service config), or
    UNKNOWN."""
    if node is None:
        return UNKNOWN
    if node.type == "call_expression" and _text(node.child_by_field_name("function")) == (
        "JSON.stringify"
    ):
        given = _arguments(node)
        data = _data(given[0]) if len(given) == 1 else UNKNOWN
        return json.dumps(data) if data is not UNKNOWN else UNKNOWN
    if node.type == "number":
        text = _text(node).replace("_", "")
        try:
            return int(text, 0) if text.isdigit() or text.lower().startswith("0x") else float(text)
        except ValueError:
            return UNKNOWN
    string = _string(node)
    return string if string is not None else UNKNOWN


def _is_credentials(node: Node, grpc: set[str]) -> bool:
    """`grpc.credentials.createInsecure()` and the like: the mark of a grpc-js client."""
    if node.type != "call_expression":
        return False
    called = _text(node.child_by_field_name("function")).split(".")
    return len(called) == 3 and called[0] in grpc and called[1] == "credentials"


def _client(
    path: str, node: Node, grpc: set[str], objects: dict[str, Node], strings: dict[str, Any]
) -> Channel | None:
    """`new Client(target, grpc.credentials.create...(), options)`: a channel, long-lived
    unless the function that makes it also closes it."""
    given = _arguments(node)
    if len(given) < 2 or not _is_credentials(given[1], grpc):
        return None
    options = _options_argument(path, given[2] if len(given) > 2 else None, objects)
    made = _text(node.child_by_field_name("constructor"))
    return Channel(
        _loc(path, node),
        f"new {made}",
        _target(given[0], strings),
        options,
        not _closed_where_made(node),
        (0, "address"),
    )


def _closed_where_made(node: Node) -> bool:
    """Whether the function that makes the client also calls `.close()` on it (a client
    per call; not `main`, whose clients live as long as the program)."""
    declarator = node.parent
    if declarator is None or declarator.type != "variable_declarator":
        return False
    name = _text(declarator.child_by_field_name("name"))
    scope = node.parent
    while scope is not None and scope.type not in (
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
    ):
        scope = scope.parent
    if scope is None:
        return False
    named = scope.child_by_field_name("name")
    if named is not None and _text(named) == "main":  # closed when the program ends
        return False
    return any(
        child.type == "call_expression"
        and _text(child.child_by_field_name("function")) == f"{name}.close"
        for child in walk(scope)
    )


def _env(node: Node) -> str | None:
    """The variable `process.env.X` or `process.env['X']` reads."""
    if (
        node.type == "member_expression"
        and _text(node.child_by_field_name("object")) == "process.env"
    ):
        return _text(node.child_by_field_name("property"))
    if (
        node.type == "subscript_expression"
        and _text(node.child_by_field_name("object")) == "process.env"
    ):
        return _string(node.child_by_field_name("index"))
    return None


def _target(node: Node | None, strings: dict[str, Any]) -> Any:
    """A target as far as it can be followed: a string, an EnvRef, or UNKNOWN."""
    if node is None:
        return UNKNOWN
    if node.type == "string":
        text = _string(node)
        return text if text is not None else UNKNOWN
    if node.type == "identifier":
        return strings.get(_text(node), UNKNOWN)
    if node.type == "parenthesized_expression" and node.named_children:
        return _target(node.named_children[0], strings)
    name = _env(node)
    if name is not None:
        return EnvRef(name)
    if node.type == "binary_expression" and _text(node.child_by_field_name("operator")) in (
        "||",
        "??",
    ):
        left = _target(node.child_by_field_name("left"), strings)
        right = _target(node.child_by_field_name("right"), strings)
        if (
            isinstance(left, EnvRef)
            and not left.prefix
            and not left.suffix
            and isinstance(right, str)
        ):
            return EnvRef(left.name, right)
        return UNKNOWN
    if node.type == "template_string":
        return _template(node, strings)
    return UNKNOWN


def _template(node: Node, strings: dict[str, Any]) -> Any:
    """`${process.env.HOST}:50051`: a string, or one environment value within text."""
    parts: list[Any] = []
    for child in node.named_children:
        if child.type == "string_fragment":
            parts.append(_text(child))
        elif child.type == "template_substitution" and child.named_children:
            parts.append(_target(child.named_children[0], strings))
        else:
            return UNKNOWN
    return joined(parts)


def _data(node: Node) -> Any:
    """A literal as data (objects, arrays, strings, numbers, booleans), or UNKNOWN."""
    if node.type == "object":
        found: dict[str, Any] = {}
        for pair in node.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            if key is None:
                return UNKNOWN
            name = _string(key) if key.type == "string" else _text(key)
            value = _data(pair.child_by_field_name("value"))  # type: ignore[arg-type]
            if value is UNKNOWN:
                return UNKNOWN
            found[name or ""] = value
        return found
    if node.type == "array":
        items = [_data(child) for child in node.named_children]
        return UNKNOWN if any(item is UNKNOWN for item in items) else items
    if node.type in ("true", "false"):
        return node.type == "true"
    value = _value(node)
    return value
