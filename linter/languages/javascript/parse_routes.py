"""The HTTP routes a JavaScript or TypeScript module declares, and the handler behind each:
what an `httpGet` probe on a container reaches in the code it runs (links.py), as the
Python and Go readers do.

Express's `app.get(path, ...handlers)` (also `head` and `all`, on an app or a router),
with a literal path; the handler is the last argument: a function of the module (a
`function` declaration, or a `const` holding an arrow or function expression) or one
written in place. One that only answers constants through its response parameter
(`res.send("OK")`, `res.status(200).json({status: "ok"})`, `res.sendStatus(200)`,
`res.end()`) and does nothing else is `trivial`; a member named as constants are
(`res.status(HTTP_STATUS.OK)`, `StatusCodes.OK`) counts as a constant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from k8slb.code.facts import Loc, Route
from k8slb.code.syntax_trees import call_arguments, node_text
from k8slb.core import regex

if TYPE_CHECKING:
    from tree_sitter import Node

# the calls that declare a route (only those are given to collect_routes)
ROUTE_METHODS = frozenset({"get", "head", "all"})
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})
_LITERALS = frozenset({"string", "number", "true", "false", "null", "undefined"})
# a member named as constants are (`OK`, `SERVICE_UNAVAILABLE`): an enum's or a frozen map's
_CONSTANT_NAME = regex.compile(r"[A-Z][A-Z0-9_]{0,63}")


def collect_routes(
    calls: list[Node], functions: dict[str, Node], loc: Callable[[Node], Loc]
) -> list[Route]:
    """The routes among a module's `calls`; `functions` are its named functions (function
    declarations and the `const`s holding one)."""
    found: list[Route] = []
    for call in calls:
        function = call.child_by_field_name("function")
        method = function.child_by_field_name("property") if function is not None else None
        if function is None or function.type != "member_expression" or method is None:
            continue
        args = call_arguments(call)
        if node_text(method) not in ROUTE_METHODS or len(args) < 2 or args[0].type != "string":
            continue
        path = _string(args[0])
        if not path.startswith("/"):
            continue
        handler = args[-1]
        target: Node | None = None
        if handler.type in _FUNCTIONS:
            name, target = f"the function at line {handler.start_point[0] + 1}", handler
        elif handler.type == "identifier":
            name, target = node_text(handler), functions.get(node_text(handler))
        else:
            continue
        trivial = target is not None and _trivial(target)
        found.append(Route(path, name, loc(call), trivial, read=target is not None))
    return found


def _string(node: Node) -> str:
    return "".join(node_text(c) for c in node.children if c.type == "string_fragment")


def _parameters(function: Node) -> list[str]:
    parameters = function.child_by_field_name("parameters")
    if parameters is None:  # `res => ...` has its one parameter alone
        single = function.child_by_field_name("parameter")
        return [node_text(single)] if single is not None else []
    names = []
    for parameter in parameters.named_children:
        if parameter.type in ("required_parameter", "optional_parameter"):  # TypeScript
            parameter = parameter.child_by_field_name("pattern") or parameter
        names.append(node_text(parameter))
    return names


def _trivial(function: Node) -> bool:
    """A handler whose every statement answers constants through its second parameter."""
    parameters = _parameters(function)
    body = function.child_by_field_name("body")
    if len(parameters) < 2 or body is None:
        return False
    response = parameters[1]
    if body.type != "statement_block":  # an arrow's expression
        return _answer(body, response)
    return all(_answers(s, response) for s in body.named_children if s.type != "comment")


def _answers(statement: Node, response: str) -> bool:
    if statement.type == "return_statement" and not statement.named_children:
        return True
    if statement.type not in ("expression_statement", "return_statement"):
        return False
    values = [n for n in statement.named_children if n.type != "comment"]
    return len(values) == 1 and _answer(values[0], response)


def _answer(node: Node, response: str) -> bool:
    """`res.send("OK")`, `res.status(200).json({...})`: calls on the response, down to it,
    with constant arguments."""
    while node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return False
        if not all(_constant(a) for a in call_arguments(node)):
            return False
        inner = function.child_by_field_name("object")
        if inner is None:
            return False
        node = inner
    return node.type == "identifier" and node_text(node) == response


def _constant(node: Node) -> bool:
    if node.type in _LITERALS:
        return True
    if node.type == "template_string":
        return not any(c.type == "template_substitution" for c in node.named_children)
    if node.type == "object":  # a body's fields; a variable's (`{version}`) is read, not checked
        return all(
            pair.type == "shorthand_property_identifier"
            or (pair.type == "pair" and _constant(pair.child_by_field_name("value") or pair))
            for pair in node.named_children
            if pair.type != "comment"
        )
    if node.type == "array":
        return all(_constant(e) for e in node.named_children if e.type != "comment")
    if node.type == "member_expression":  # a named constant: `HTTP_STATUS.OK`, `StatusCodes.OK`
        holder = node.child_by_field_name("object")
        member = node.child_by_field_name("property")
        return (
            holder is not None
            and holder.type == "identifier"
            and member is not None
            and _CONSTANT_NAME.fullmatch(node_text(member)) is not None
        )
    return False
