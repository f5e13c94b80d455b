"""Apply JsEdits to JavaScript and TypeScript: text spliced at tree-sitter's byte
positions, in the file's own style (its quotes, its indentation, trailing commas where its
object has them), and the result parsed again; any doubt refuses the edit. `--add-noqa`
asks `same_code` whether its comments left the code as it was."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import same_code as same_tokens
from k8slb.core import regex
from k8slb.core.edits import CodeEdit, JsEdit, Refused
from k8slb.editing.tree_splices import Splice, indent_before, node_at, spliced
from k8slb.languages.javascript.parse import parser_for

if TYPE_CHECKING:
    from tree_sitter import Node

_STATEMENT_HOLDERS = ("statement_block", "program", "switch_case", "switch_default")


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    """The fixer's entry (languages/): the module with its edits made."""
    if not all(isinstance(e, JsEdit) for e in edits):
        raise Refused("an edit for a file that is not JavaScript")
    parser = parser_for(path)
    data = text.encode()
    root = parser().parse(data).root_node
    if root.has_error:
        raise Refused("the module does not parse")
    unit = _indent_unit(data)
    splices: list[Splice] = []
    for change in edits:
        assert isinstance(change, JsEdit)
        splices += _splices(data, root, change, unit)
    data = spliced(data, splices, "JavaScript")
    if parser().parse(data).root_node.has_error:
        raise Refused("the fixed module would not parse")
    return data.decode()


def same_code(old: str, new: str, path: str) -> bool:
    """The same tokens in the same order but for comments, and the new text parses."""
    return same_tokens(parser_for(path), old.encode(), new.encode())


_INDENT = regex.compile(rb"^([ \t]+)\S", regex.MULTILINE)


def _indent_unit(data: bytes) -> bytes:
    """What one level of indentation is in the file: a tab, or its smallest indent."""
    indents: list[bytes] = _INDENT.findall(data)
    if not indents:
        return b"  "
    if any(i.startswith(b"\t") for i in indents):
        return b"\t"
    return min(indents, key=len)


def _code(change: JsEdit, indent: bytes, unit: bytes) -> list[bytes]:
    """The edit's lines, each indented by `indent` plus its own levels in the file's unit."""
    lines = []
    for line in change.code.split("\n"):
        stripped = line.lstrip(" ")
        levels = (len(line) - len(stripped)) // 2
        lines.append(indent + unit * levels + stripped.encode())
    return lines


def _splices(data: bytes, root: Node, change: JsEdit, unit: bytes) -> list[Splice]:
    if change.op == "add-properties":
        literal = node_at(data, root, change.line, change.column, "object")
        return _add_properties(data, literal, change, unit)
    if change.op == "add-argument":
        kinds = ("new_expression", "call_expression")
        made = node_at(data, root, change.line, change.column, kinds)
        return [_add_argument(made, change.code.encode())]
    call = node_at(data, root, change.line, change.column, "call_expression")
    statement = _statement_of(call)
    indent = indent_before(data, statement.start_byte, "the statement does not start its line")
    lines = _code(change, indent, unit)
    if change.op == "insert-statements":
        new = b"\n".join(lines).lstrip(b" \t") + b"\n" + indent
        return [(statement.start_byte, statement.start_byte, new)]
    if change.op == "replace-statement":
        if statement.type != "expression_statement" or _unwrapped_call(statement) != call:
            raise Refused("the call is part of a larger statement")
        following = statement.next_named_sibling
        if following is not None and following.type != "comment":
            raise Refused("code runs after the stop: it would not wait for the calls to end")
        new = b"\n".join(lines).lstrip(b" \t")
        return [(statement.start_byte, statement.end_byte, new)]
    raise Refused(f"unknown JavaScript edit {change.op!r}")


def _statement_of(node: Node) -> Node:
    """The statement that holds a node: the ancestor whose parent holds statements."""
    current = node
    while current.parent is not None and current.parent.type not in _STATEMENT_HOLDERS:
        current = current.parent
    if current.parent is None:
        raise Refused("no statement holds the call")
    return current


def _unwrapped_call(statement: Node) -> Node | None:
    expression = statement.named_children[0] if statement.named_children else None
    while expression is not None and expression.type == "await_expression":
        expression = expression.named_children[0] if expression.named_children else None
    return expression


def _add_argument(made: Node, code: bytes) -> Splice:
    arguments = made.child_by_field_name("arguments")
    if arguments is None or arguments.type != "arguments":
        raise Refused("the call has no argument list")
    given = [c for c in arguments.named_children if c.type != "comment"]
    if not given:
        return (arguments.start_byte + 1, arguments.start_byte + 1, code)
    return (given[-1].end_byte, given[-1].end_byte, b", " + code)


def _add_properties(data: bytes, literal: Node, change: JsEdit, unit: bytes) -> list[Splice]:
    """The properties after the last one: on lines of their own in a literal written over
    lines (trailing comma kept as the literal has it), else after `, ` on its line."""
    quote = _quote_of(literal)
    entries = [line.replace("'", quote) for line in change.code.split("\n")]
    properties = [c for c in literal.named_children if c.type != "comment"]
    if not properties:
        inside = ", ".join(entries).encode()
        if data[literal.start_byte : literal.end_byte].strip(b"{} \t") != b"":
            raise Refused("the object holds only comments")
        return [(literal.start_byte, literal.end_byte, b"{" + inside + b"}")]
    last = properties[-1]
    comma = last.next_sibling if last.next_sibling is not None else None
    trailing = comma is not None and comma.type == ","
    if literal.start_point[0] == literal.end_point[0]:
        after = comma.end_byte if trailing and comma is not None else last.end_byte
        new = (" " if trailing else ", ") + ", ".join(entries) + ("," if trailing else "")
        return [(after, after, new.encode())]
    indent = indent_before(
        data, last.start_byte, "the object's last property does not start its line"
    )
    line_end = data.find(b"\n", last.end_byte)
    if line_end < 0 or line_end > literal.end_byte:
        raise Refused("the object closes on its last property's line")
    body = (",\n" + indent.decode()).join(entries) + ("," if trailing else "")
    splices = [(line_end, line_end, b"\n" + indent + body.encode())]
    if not trailing:
        splices.insert(0, (last.end_byte, last.end_byte, b","))
    return splices


def _quote_of(literal: Node) -> str:
    """The quote the object's string keys are written with (single by default)."""
    for pair in literal.named_children:
        key = pair.child_by_field_name("key") if pair.type == "pair" else None
        if key is not None and key.type == "string" and key.text:
            return key.text[:1].decode()
    return "'"
