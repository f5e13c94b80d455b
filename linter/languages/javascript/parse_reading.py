"""What the readers of one library's calls (parse_nest.py, parse_connect.py) use of a
module's reading (parse.py's `_Module`): its facts, tree, imports and value helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from k8slb.code.facts import CodeFacts, Loc, Options
from k8slb.code.syntax_trees import node_text

if TYPE_CHECKING:
    from tree_sitter import Node


# What declares a function of its own (its names and its body are its own).
FUNCTIONS = ("function_declaration", "function_expression", "arrow_function", "method_definition")


def enclosing_function(node: Node) -> Node | None:
    """The innermost function the node is in, or None at a module's top level."""
    scope = node.parent
    while scope is not None and scope.type not in FUNCTIONS:
        scope = scope.parent
    return scope


class Reading(Protocol):
    """A module's reading, as a library's reader sees it."""

    facts: CodeFacts
    root: Node
    imports: dict[str, str]
    members: dict[str, tuple[str, str]]
    objects: dict[str, Node]

    def loc(self, node: Node) -> Loc: ...
    def of(self, kind: str) -> list[Node]: ...
    def value(self, node: Node | None, depth: int = 0) -> Any: ...
    def options(self, node: Node | None) -> Options: ...
    def unwrapped(self, node: Node | None) -> Node | None: ...
    def imported_function(self, function: Node) -> tuple[str, str]: ...
    def key(self, pair: Node) -> str | None: ...


def object_members(module: Reading, literal: Node) -> dict[str, Node]:
    """An object literal's members by key: a pair's value, a method's function
    (`useFactory(config) {...}`), or a shorthand's name (`{ baseUrl }`, read as the variable
    it names)."""
    found: dict[str, Node] = {}
    for child in literal.named_children:
        if child.type == "pair":
            key = module.key(child)
            value = child.child_by_field_name("value")
            if key is not None and value is not None:
                found[key] = value
        elif child.type == "method_definition":
            found[node_text(child.child_by_field_name("name"))] = child
        elif child.type == "shorthand_property_identifier":
            found[node_text(child)] = child
    return found
