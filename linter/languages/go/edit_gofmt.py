"""gofmt's blanks around binary operators, for the code a Go edit leaves in place.

gofmt writes `8 << 20` as a call's only argument but `8<<20` once the call has two: the
blanks around `+ - | ^` and `* / % << >> & &^` depend on the expression's *depth*, and a
call with more than one argument, an index, the right side of an operator each add one
(go/printer's `expr1`, `binaryExpr`, `cutoff` and `walkBinary` in nodes.go). An edit that
adds an argument may so change how gofmt spaces the arguments already there; this module
gives the splices that re-space them, and only them (code gofmt would not touch is kept
as written), and re-spaces the new argument for the depth it lands at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import walk
from k8slb.languages.go.parse import parser

if TYPE_CHECKING:
    from tree_sitter import Node

PRECEDENCE = {
    "||": 1,
    "&&": 2,
    **dict.fromkeys(("==", "!=", "<", "<=", ">", ">="), 3),
    **dict.fromkeys(("+", "-", "|", "^"), 4),
    **dict.fromkeys(("*", "/", "%", "<<", ">>", "&", "&^"), 5),
}


def respaced_for_new_argument(data: bytes, call: Node) -> list[tuple[int, int, bytes]]:
    """Splices (start, end, blanks) that give the operators inside `call`'s arguments the
    blanks gofmt gives them once the call has one argument more. A gap that holds a line
    break or a comment is left alone."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    splices = []
    for argument in arguments.named_children:
        for binary in (n for n in walk(argument) if n.type == "binary_expression"):
            before = _blank(binary, _depth(binary, call, 0))
            after = _blank(binary, _depth(binary, call, 1))
            if before == after:
                continue
            operator = binary.child_by_field_name("operator")
            left = binary.child_by_field_name("left")
            right = binary.child_by_field_name("right")
            if operator is None or left is None or right is None:
                continue
            blank = b" " if after else b""
            gaps = ((left.end_byte, operator.start_byte), (operator.end_byte, right.start_byte))
            for start, end in gaps:
                if not data[start:end].strip(b" \t"):
                    splices.append((start, end, blank))
    return splices


def placed_as_new_argument(code: bytes, call: Node) -> bytes:
    """`code`, written as gofmt writes it standing alone (depth 1), re-spaced for where it
    goes: as one argument more of `call`."""
    depth = _depth(call, call, 1) + (1 if _arguments(call) > 0 else 0)
    if depth == 1:
        return code
    # deeper than 1 is all alike to gofmt: the code as the second argument of a call
    prefix, suffix = b"package p\n\nvar _ = f(", b")\n"
    wrapper = prefix + code + suffix
    root = parser().parse(wrapper).root_node
    calls = [node for node in walk(root) if node.type == "call_expression"]
    if root.has_error or not calls:
        return code
    for start, end, blank in sorted(respaced_for_new_argument(wrapper, calls[0]), reverse=True):
        wrapper = wrapper[:start] + blank + wrapper[end:]
    return wrapper[len(prefix) : -len(suffix)]


def _precedence(binary: Node) -> int:
    return PRECEDENCE.get(_operator(binary), 0)


def _operator(node: Node) -> str:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else ""


def _blank(binary: Node, depth: int) -> bool:
    """Whether gofmt puts blanks around this operator at this depth."""
    return _precedence(binary) < _cutoff(binary, depth)


def _cutoff(binary: Node, depth: int) -> int:
    has4, has5, problem = _walk(binary)
    if problem > 0:
        return problem + 1
    if has4 and has5:
        return 5 if depth == 1 else 4
    return 6 if depth == 1 else 4


def _walk(binary: Node) -> tuple[bool, bool, int]:
    """go/printer's walkBinary: which of the levels 4 and 5 the expression mixes (not
    looking into operands gofmt would parenthesise), and the worst clash of an operator
    with a unary operand (`a / *p`, `a - -b`) that forces blanks."""
    precedence = _precedence(binary)
    has4, has5, problem = precedence == 4, precedence == 5, 0
    left, right = binary.child_by_field_name("left"), binary.child_by_field_name("right")
    if left is not None and left.type == "binary_expression" and _precedence(left) >= precedence:
        h4, h5, p = _walk(left)
        has4, has5, problem = has4 or h4, has5 or h5, max(problem, p)
    if right is not None and right.type == "binary_expression":
        if _precedence(right) > precedence:
            h4, h5, p = _walk(right)
            has4, has5, problem = has4 or h4, has5 or h5, max(problem, p)
    elif right is not None and right.type == "unary_expression":
        pair = _operator(binary) + _operator(right)
        if pair in ("/*", "&&", "&^"):
            problem = 5
        elif pair in ("++", "--"):
            problem = max(problem, 4)
    return has4, has5, problem


def _arguments(call: Node) -> int:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return 0
    return sum(1 for child in arguments.named_children if child.type != "comment")


def _depth(node: Node, edited: Node, added: int) -> int:
    """The depth go/printer prints `node` at, with `added` arguments more in the call
    `edited`: 1 at a statement or a literal's element, one more below a call with several
    arguments, an index or slice bound, or an operator's right side (or a left side of
    another precedence), one less inside parentheses."""
    parent = node.parent
    if parent is None:
        return 1
    kind = parent.type
    if kind in ("argument_list", "call_expression"):
        call = parent.parent if kind == "argument_list" else parent
        if call is None:
            return 1
        depth = _depth(call, edited, added)
        count = _arguments(call) + (added if call == edited else 0)
        return depth + 1 if count > 1 else depth
    if kind == "parenthesized_expression":
        depth = _depth(parent, edited, added)
        return depth if node.type == "parenthesized_expression" else max(depth - 1, 1)
    if kind in ("unary_expression", "selector_expression", "type_assertion_expression"):
        if node == parent.child_by_field_name("operand"):
            return _depth(parent, edited, added)
        return 1
    if kind == "binary_expression":
        depth = _depth(parent, edited, added)
        if node == parent.child_by_field_name("left"):
            same = node.type == "binary_expression" and _precedence(node) == _precedence(parent)
            return depth if same else depth + 1
        return depth + 1
    if kind in ("index_expression", "slice_expression"):
        if node == parent.child_by_field_name("operand"):
            return 1
        return _depth(parent, edited, added) + 1
    if kind in ("inc_statement", "dec_statement"):
        return 2
    if kind == "expression_list":
        statement = parent.parent
        if statement is not None and statement.type in (
            "assignment_statement",
            "short_var_declaration",
        ):
            sides = [statement.child_by_field_name(f) for f in ("left", "right")]
            if all(side is not None and len(side.named_children) > 1 for side in sides):
                return 2
        return 1
    return 1  # statements, literal elements, keyed values: gofmt starts again at 1
