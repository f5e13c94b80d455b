"""A module's environment helpers: a function of its top level that returns the environment
variable a parameter names, or another parameter when that is unset (`function env(name,
fallback) { return process.env[name] ?? fallback }`, `const value = process.env[name] ||
fallback; if (!value) throw ...; return value;`). A call of one with a variable's name
written in it (`env("CART_ADDR", "cart:50051")`) reads that variable, with the default the
call gives: what `process.env.CART_ADDR || "cart:50051"` would read.

Only what every `return` of the function gives is followed, and only that shape: a helper
that converts the value (`Number(...)`), or returns something else on one path, is none."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex

if TYPE_CHECKING:
    from tree_sitter import Node

# An environment variable's name as a helper's call writes it.
ENVIRONMENT_NAME = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# How many nodes of a helper's body are walked for its returns and its variable (one
# function's; a larger one is no helper).
MAX_HELPER_NODES = 2_000
_FUNCTIONS = ("function_declaration", "function_expression", "arrow_function")
_NESTED = (*_FUNCTIONS, "method_definition", "class_declaration", "class")
_DEFAULTING = ("||", "??")
_WRAPPERS = ("parenthesized_expression", "as_expression", "non_null_expression")

# where a parameter is among a function's (index, and its default): parse.py's `_parameter`
Parameter = Callable[["Node", str], "tuple[int, Node | None] | None"]


def top_level_functions(root: Node) -> dict[str, Node]:
    """The functions a module's top level declares (`function f`, `const f = () => ...`),
    by name: those a helper may be."""
    found: dict[str, Node] = {}
    for statement in root.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type == "function_declaration":
            named = statement.child_by_field_name("name")
            if named is not None:
                found[_text(named)] = statement
        elif statement.type == "lexical_declaration":
            for declarator in statement.named_children:
                named = declarator.child_by_field_name("name")
                value = _bare(declarator.child_by_field_name("value"))
                if named is not None and value is not None and value.type in _FUNCTIONS:
                    found[_text(named)] = value
    return found


def env_helper(function: Node, parameter: Parameter) -> tuple[int, int | None] | None:
    """The parameter a helper reads the environment variable of, and the parameter it
    falls back on (None when it has none); None when the function is no helper."""
    body = function.child_by_field_name("body")
    if body is None or b"process.env" not in (body.text or b""):
        return None
    if body.type != "statement_block":
        return _shape(body, function, parameter)
    returned: list[Node] = []
    declared: dict[str, list[Node]] = {}
    assigned: set[str] = set()
    stack, seen = [body], 0
    while stack:  # its own statements: a function inside it is not descended into
        node = stack.pop()
        seen += 1
        if seen > MAX_HELPER_NODES:
            return None
        if node.type == "return_statement":
            if not node.named_children:
                return None
            returned.append(node.named_children[0])
        elif node.type == "variable_declarator":
            named = node.child_by_field_name("name")
            declared.setdefault(_text(named), []).append(node)
        elif node.type in ("assignment_expression", "augmented_assignment_expression"):
            assigned.add(_text(node.child_by_field_name("left")))
        if node.type not in _NESTED:
            stack.extend(node.named_children)
    shapes = set()
    for given in returned:
        value = _bare(given)
        if value is not None and value.type == "identifier":  # `return value;`
            name = _text(value)
            held = declared.get(name, [])
            if len(held) != 1 or name in assigned:
                return None
            value = _bare(held[0].child_by_field_name("value"))
        shape = _shape(value, function, parameter) if value is not None else None
        if shape is None:
            return None
        shapes.add(shape)
    return shapes.pop() if len(shapes) == 1 else None


def _shape(node: Node, function: Node, parameter: Parameter) -> tuple[int, int | None] | None:
    """`process.env[name]` (its parameter), `process.env[name] || fallback` (and `??`)."""
    node = _bare(node) or node
    if node.type == "binary_expression":
        if _text(node.child_by_field_name("operator")) not in _DEFAULTING:
            return None
        read = _read(node.child_by_field_name("left"), function, parameter)
        right = _bare(node.child_by_field_name("right"))
        fallback = parameter(function, _text(right)) if right is not None else None
        if read is None or right is None or right.type != "identifier" or fallback is None:
            return None
        return read, fallback[0]
    read = _read(node, function, parameter)
    return None if read is None else (read, None)


def _read(node: Node | None, function: Node, parameter: Parameter) -> int | None:
    """The parameter `process.env[name]` reads the variable of."""
    node = _bare(node)
    if node is None or node.type != "subscript_expression":
        return None
    if _text(node.child_by_field_name("object")) != "process.env":
        return None
    index = _bare(node.child_by_field_name("index"))
    if index is None or index.type != "identifier":
        return None
    found = parameter(function, _text(index))
    return found[0] if found is not None else None


def _bare(node: Node | None) -> Node | None:
    while node is not None and node.type in _WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node
