"""The HTTP routes a Java file declares with Spring MVC's or WebFlux's annotations, and the
handler behind each: what an `httpGet` probe on a container reaches in the code it runs
(links.py), as the Python, Go and JavaScript readers do.

A method of a class (not of an interface: a Feign client's or an API's declaration serves
nothing) annotated `@GetMapping`, or `@RequestMapping` with no `method` or one that holds
`GET` (a probe sends GET), declares each of its literal paths (the annotation's one value,
`value =` or `path =`, a string or an array of strings; none is the class's own path)
under each of the class's `@RequestMapping` paths, joined as Spring joins them
(`@RequestMapping("/api")` and `@GetMapping("/health")`: `/api/health`). A path that is
not a literal (a constant, a `${...}` placeholder) is not read: the path served is not the
one written. The handler is the method; one whose body does nothing but return a constant
(`"OK"`, `ResponseEntity.ok("UP")`, `new ResponseEntity<>(HttpStatus.OK)`,
`Map.of("status", "UP")`, `Mono.just("ok")`), or is empty, is `trivial`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from k8slb.code.facts import Loc, Route
from k8slb.code.syntax_trees import call_arguments, node_text

if TYPE_CHECKING:
    from tree_sitter import Node

_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
# declarations whose bodies may hold a class (an interface's or an enum's nested ones too)
_HOLDERS = frozenset({"class_declaration", "interface_declaration", "enum_declaration"})
_PATH_KEYS = ("value", "path")
# bounds on what one file gives: paths an annotation lists, and routes in all
MAX_PATHS = 16
MAX_ROUTES = 512
_LITERALS = frozenset(
    {
        "string_literal",
        "decimal_integer_literal",
        "true",
        "false",
        "null_literal",
        "character_literal",
    }
)
# the classes whose factories build an answer from what they are given, and nothing else
# (a call rooted at another class may check anything)
_ANSWER_CLASSES = frozenset(
    {"ResponseEntity", "Map", "List", "Set", "Collections", "Mono", "Flux", "Response"}
)


def declares_routes(data: bytes) -> bool:
    """Whether a file may declare a route (is worth reading for them)."""
    return b"GetMapping" in data or b"RequestMapping" in data


def collect_routes(root: Node, loc: Callable[[Node], Loc]) -> list[Route]:
    """The routes the file's classes declare (its top-level classes and the classes they
    nest: a controller is never local to a method)."""
    found: list[Route] = []
    for declared in _classes(root):
        prefixes = _paths(_annotation(declared, "RequestMapping"), [""])
        body = declared.child_by_field_name("body")
        if prefixes is None or body is None:
            continue  # a prefix that is not literal: no path of the class is known
        for method in body.named_children:
            if method.type != "method_declaration":
                continue
            mapping = _annotation(method, "GetMapping")
            if mapping is None:
                mapping = _annotation(method, "RequestMapping")
                if mapping is None or not _gets(mapping):
                    continue
            paths = _paths(mapping, [""])
            name = node_text(method.child_by_field_name("name"))
            if not paths or not name:
                continue
            trivial = _trivial(method)
            for prefix in prefixes:
                for path in paths:
                    if len(found) >= MAX_ROUTES:
                        return found
                    found.append(Route(_joined(prefix, path), name, loc(mapping), trivial))
    return found


def _classes(root: Node) -> Iterator[Node]:
    """The class declarations of a file and those nested in their bodies, not looking into
    methods (most of a file's nodes)."""
    stack = [c for c in reversed(root.named_children) if c.type in _HOLDERS]
    while stack:
        node = stack.pop()
        if node.type == "class_declaration":
            yield node
        body = node.child_by_field_name("body")
        if body is not None:
            stack.extend(c for c in reversed(body.named_children) if c.type in _HOLDERS)


def _annotation(declaration: Node, name: str) -> Node | None:
    """The declaration's annotation of that simple name (also written qualified)."""
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for annotation in modifiers.named_children if modifiers is not None else ():
        named = node_text(annotation.child_by_field_name("name"))
        if annotation.type in _ANNOTATIONS and named.rsplit(".", 1)[-1] == name:
            return annotation
    return None


def _pairs(annotation: Node) -> Iterator[tuple[str, Node]]:
    """(key, value) of an annotation's arguments; its one unnamed value is `value`."""
    arguments = annotation.child_by_field_name("arguments")
    for given in arguments.named_children if arguments is not None else ():
        if given.type == "element_value_pair":
            value = given.child_by_field_name("value")
            if value is not None:
                yield node_text(given.child_by_field_name("key")), value
        elif given.type not in ("comment", "line_comment", "block_comment"):
            yield "value", given


def _paths(annotation: Node | None, none: list[str]) -> list[str] | None:
    """The literal paths a mapping annotation names (`none` when it names none); None when
    one of them is not a literal."""
    if annotation is None:
        return none
    values = [value for key, value in _pairs(annotation) if key in _PATH_KEYS]
    if not values:
        return none
    paths: list[str] = []
    for value in values:
        items = value.named_children if value.type == "element_value_array_initializer" else [value]
        for item in items:
            path = _literal(item)
            if path is None or "${" in path or len(paths) >= MAX_PATHS:
                return None
            paths.append(path)
    return paths or none  # `path = {}` is the class's own


def _literal(node: Node) -> str | None:
    """A string literal's text (None for anything else, or one with escapes)."""
    if node.type != "string_literal":
        return None
    if any(c.type != "string_fragment" for c in node.named_children):
        return None
    return "".join(node_text(c) for c in node.named_children)


def _gets(mapping: Node) -> bool:
    """Whether a `@RequestMapping` answers GET: no `method`, or one that lists GET."""
    methods = [value for key, value in _pairs(mapping) if key == "method"]
    if not methods:
        return True
    value = methods[0]
    items = value.named_children if value.type == "element_value_array_initializer" else [value]
    return any(node_text(item).rsplit(".", 1)[-1] == "GET" for item in items)


def _joined(prefix: str, path: str) -> str:
    """A class's path and a method's, as Spring joins them (each begins with a slash)."""
    prefix = prefix.strip()
    path = path.strip()
    if prefix and not prefix.startswith("/"):
        prefix = "/" + prefix
    if path and not path.startswith("/"):
        path = "/" + path
    joined = prefix.rstrip("/") + path if path else prefix
    return joined or "/"


def _trivial(method: Node) -> bool:
    """A handler that does nothing but return a constant answer (or nothing)."""
    body = method.child_by_field_name("body")
    if body is None:
        return False
    statements = [s for s in body.named_children if s.type not in ("line_comment", "block_comment")]
    if not statements:
        return True
    if len(statements) != 1 or statements[0].type != "return_statement":
        return False
    values = statements[0].named_children
    return len(values) == 1 and _constant(values[0], 0)


def _constant(node: Node, depth: int) -> bool:
    """A value made of literals, named constants (`HttpStatus.OK`) and the answer classes'
    factories and constructors given only such values."""
    if depth > 16:
        return False
    if node.type in _LITERALS:
        return True
    if node.type == "parenthesized_expression" and node.named_children:
        return _constant(node.named_children[0], depth + 1)
    if node.type == "field_access":  # `HttpStatus.OK`, `MediaType.TEXT_PLAIN`
        field = node_text(node.child_by_field_name("field"))
        return field.isupper() or (field[:1].isupper() and "_" in field)
    if node.type == "object_creation_expression":
        created = node_text(node.child_by_field_name("type")).split("<", 1)[0]
        return created.rsplit(".", 1)[-1] in _ANSWER_CLASSES and _all_constant(node, depth)
    if node.type != "method_invocation":
        return False
    held = node.child_by_field_name("object")
    if held is None or not _all_constant(node, depth):
        return False
    if held.type == "identifier":
        return node_text(held) in _ANSWER_CLASSES
    return held.type == "method_invocation" and _constant(held, depth + 1)


def _all_constant(call: Node, depth: int) -> bool:
    arguments = call_arguments(call, ("line_comment", "block_comment"))
    return all(_constant(argument, depth + 1) for argument in arguments)
