"""Spring Cloud's load-balanced HTTP clients in a Java file: the beans of the client types
(facts.BALANCED_CLIENTS) that its `@Bean` methods make, annotated `@LoadBalanced` or not,
and, for a URL the file writes, the client it is handed to and whether Spring injects that
client (a field or a parameter it fills), which decides whether a load balancer resolves
the URL's host (code/imported.py, from every module of the project)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from k8slb.code.facts import BALANCED_BEANS, BALANCED_CLIENTS, PLAIN_BEANS
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

# How deep in a call's arguments a value is looked for (`"http://a/" + id` nests in binary
# expressions), and how many calls down a chain's root is: a URL is rarely deeper.
_DEPTH = 12
_ANNOTATION_KINDS = ("annotation", "marker_annotation")
# methods whose parameters Spring fills with beans (a constructor's too)
_INJECTING = frozenset({"Bean", "Autowired", "Inject"})


def annotated_with(declaration: Node | None) -> frozenset[str]:
    """The simple names of a declaration's annotations (`LoadBalanced`, `Bean`)."""
    if declaration is None:
        return frozenset()
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    return frozenset(
        _text(a.child_by_field_name("name")).rsplit(".", 1)[-1]
        for a in (modifiers.named_children if modifiers is not None else ())
        if a.type in _ANNOTATION_KINDS
    )


def client_type(node: Node | None) -> str | None:
    """The type as BALANCED_CLIENTS names it (`RestClient.Builder` for
    `org.springframework.web.client.RestClient.Builder`), when it is one of them."""
    if node is not None and node.type == "generic_type" and node.named_children:
        node = node.named_children[0]
    if node is None:
        return None
    parts = _text(node).split(".")
    first = next((i for i, part in enumerate(parts) if part[:1].isupper()), len(parts))
    name = ".".join(parts[first:])
    return name if name in BALANCED_CLIENTS else None


def client_beans(methods: Iterable[Node]) -> dict[str, tuple[str, ...]]:
    """The exports that list the file's `@Bean` methods of a client type: those
    annotated `@LoadBalanced` and the others (facts.BALANCED_BEANS, PLAIN_BEANS)."""
    balanced: set[str] = set()
    plain: set[str] = set()
    for method in methods:
        made = client_type(method.child_by_field_name("type"))
        if made is None:
            continue
        said = annotated_with(method)
        if "Bean" in said:
            (balanced if "LoadBalanced" in said else plain).add(made)
    found = {BALANCED_BEANS: tuple(sorted(balanced)), PLAIN_BEANS: tuple(sorted(plain))}
    return {key: value for key, value in found.items() if value}


def calls_given(calls: Iterable[Node]) -> dict[int, Node]:
    """The call each value is an argument of, by the value's node id: the arguments and
    the parts of the expressions they are (`"http://a/" + id`, parentheses), at most
    _DEPTH deep. Found down from the calls (a node's parent is found from the root, so a
    climb up from each value would cost the tree's depth a step); a node is the part of one
    call's arguments at most, so the whole is linear."""
    found: dict[int, Node] = {}
    for call in calls:
        listed = call.child_by_field_name("arguments")
        stack = [(node, 0) for node in (listed.named_children if listed is not None else ())]
        while stack:
            node, depth = stack.pop()
            found.setdefault(node.id, call)
            if depth < _DEPTH and node.type in ("binary_expression", "parenthesized_expression"):
                stack.extend((part, depth + 1) for part in node.named_children)
    return found


def chain_root(call: Node) -> Node | None:
    """The node a chain of calls starts from (`builder` of `builder.clone().baseUrl(u)`,
    `this.client` of `this.client.get()`), at most _DEPTH calls down."""
    node: Node | None = call
    for _ in range(_DEPTH):
        if node is None or node.type != "method_invocation":
            return node
        node = node.child_by_field_name("object")
    return None


def injected_client(name: Node) -> tuple[str, bool] | None:
    """(type, qualified) for a name declared as a bean Spring injects, of a client type: a
    parameter of a constructor or of a `@Bean`/`@Autowired` method, or a field with no
    initializer; `qualified` when the declaration is annotated `@LoadBalanced`. None for
    a local, a field given its value where it is declared, or another type."""
    declarator = name.parent
    declaration: Node | None = declarator
    if declarator is None:
        return None
    if declarator.type == "formal_parameter":
        listed = declarator.parent
        method = listed.parent if listed is not None else None
        if method is None or not (
            method.type == "constructor_declaration"
            or (method.type == "method_declaration" and annotated_with(method) & _INJECTING)
        ):
            return None
    elif declarator.type == "variable_declarator":
        declaration = declarator.parent
        if declarator.child_by_field_name("value") is not None:
            return None
        if declaration is None or declaration.type != "field_declaration":
            return None
    if declaration is None or declarator.type not in ("formal_parameter", "variable_declarator"):
        return None
    made = client_type(declaration.child_by_field_name("type"))
    return None if made is None else (made, "LoadBalanced" in annotated_with(declaration))
