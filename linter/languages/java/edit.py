"""Apply JavaEdits: text spliced at tree-sitter's byte positions, in the file's own
layout (a chain written one call per line gets its new calls on lines of their own, new
statements take the indentation around them), the classes the new code names imported
where google-java-format would put them, and the result parsed again; any doubt refuses
the edit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import node_text, walk
from k8slb.code.syntax_trees import same_code as same_tokens
from k8slb.core.edits import CodeEdit, JavaEdit, Refused
from k8slb.editing.tree_splices import Splice, indent_before, line_start, point_of, spliced
from k8slb.languages.java.parse import parser

if TYPE_CHECKING:
    from tree_sitter import Node

_BLOCKS = ("block", "constructor_body", "switch_block_statement_group")
LINE_LENGTH = 100  # google-java-format's
# The names the new statements declare: a local of the same name around them would clash.
_DECLARED = ("interrupted",)


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    """The fixer's entry (languages/): the Java file with its edits made."""
    if not all(isinstance(e, JavaEdit) for e in edits):
        raise Refused("an edit for a file that is not Java")
    return apply_java(text, [e for e in edits if isinstance(e, JavaEdit)])


def same_code(old: str, new: str, path: str) -> bool:
    """The same tokens in the same order but for comments, and the new text parses."""
    return same_tokens(parser, old.encode(), new.encode())


def apply_java(text: str, edits: Sequence[JavaEdit]) -> str:
    data = text.encode()
    root = parser().parse(data).root_node
    if root.has_error:
        raise Refused("the Java file does not parse")
    splices: list[Splice] = []
    imports: set[str] = set()
    for change in edits:
        made, wrote_code = _splices(data, root, change)
        splices += made
        if wrote_code:
            imports.update(change.imports)
    splices += _import_splices(data, root, sorted(imports))
    data = spliced(data, splices, "Java")
    if parser().parse(data).root_node.has_error:
        raise Refused("the fixed Java code would not parse")
    return data.decode()


def _splices(data: bytes, root: Node, change: JavaEdit) -> tuple[list[Splice], bool]:
    """The splices of one edit, and whether they write its code (and so need its imports)."""
    call = _call_at(data, root, change)
    if change.op == "chain-after":
        return [_chain_after(data, call, change.code)], True
    if change.op == "insert-statements":
        statement = _statement_of(call)
        _check_names(statement, change.code)
        return [_insert_before(data, statement, change.code)], True
    if change.op == "graceful-stop":
        outer = _called_on(call)
        name = call.child_by_field_name("name")
        if name is None:
            raise Refused("not a method call")
        if outer is not None and node_text(outer.child_by_field_name("name")) == (
            "awaitTermination"
        ):
            # `shutdownNow().awaitTermination(...)`: already waited on, only made graceful
            return [(name.start_byte, name.end_byte, b"shutdown")], False
        parent = call.parent
        if parent is None or parent.type != "expression_statement":
            raise Refused("shutdownNow() is not a statement of its own")
        _statement_of(call)  # in a block, where statements can be added
        _check_names(parent, change.code)
        return [_replace_statement(data, parent, change.code)], True
    raise Refused(f"unknown Java edit {change.op}")


def _call_at(data: bytes, root: Node, change: JavaEdit) -> Node:
    """The call of `change.method` that starts at the edit's 1-based line and (character)
    column: the innermost of the chain that starts there with that name."""
    point = point_of(data, change.line, change.column)
    node: Node | None = root.descendant_for_point_range(point, point)
    while node is not None:
        if (
            node.type == "method_invocation"
            and tuple(node.start_point) == point
            and node_text(node.child_by_field_name("name")) == change.method
        ):
            return node
        node = node.parent
    raise Refused(f"no call of {change.method}() where the finding is")


def _called_on(node: Node) -> Node | None:
    parent = node.parent
    if (
        parent is not None
        and parent.type == "method_invocation"
        and (receiver := parent.child_by_field_name("object")) is not None
        and receiver.id == node.id
    ):
        return parent
    return None


def _chain_after(data: bytes, call: Node, code: str) -> Splice:
    """`code` (one chained call a line) right after `call`: each on a line of its own at
    the chain's indentation when the chain goes on on the next line, else on the line."""
    pieces = [piece.encode() for piece in code.split("\n")]
    outer = _called_on(call)
    dot = next((c for c in outer.children if c.type == "."), None) if outer is not None else None
    if dot is not None and dot.start_point[0] > call.end_point[0]:
        indent = indent_before(data, dot.start_byte)
        return call.end_byte, call.end_byte, b"".join(b"\n" + indent + p for p in pieces)
    start = line_start(data, call.end_byte)
    end = data.find(b"\n", call.end_byte)
    line = data[start : len(data) if end < 0 else end].removesuffix(b"\r")
    if len(line.decode("utf-8", "replace")) + sum(len(p) for p in pieces) <= LINE_LENGTH:
        return call.end_byte, call.end_byte, b"".join(pieces)
    # too long for one line: a continuation line each, as google-java-format breaks a chain
    own = line[: len(line) - len(line.lstrip(b" \t"))]
    indent = own + (b"\t\t" if own.startswith(b"\t") else b"    ")
    return call.end_byte, call.end_byte, b"".join(b"\n" + indent + p for p in pieces)


def _statement_of(call: Node) -> Node:
    """The statement, directly in a block, that holds the call."""
    statement: Node | None = call
    while statement is not None and (
        statement.parent is None or statement.parent.type not in _BLOCKS
    ):
        if statement.type in ("lambda_expression", "class_body"):
            break  # a statement of a lambda or class within: not where to add code
        statement = statement.parent
    if statement is None or statement.parent is None or statement.parent.type not in _BLOCKS:
        raise Refused("the call is in no block of statements")
    return statement


def _unit(data: bytes, statement: Node, indent: bytes) -> bytes:
    """One level of indentation, as the file writes it: what the statement has beyond the
    line that opens its block."""
    block = statement.parent
    assert block is not None
    opener = data[line_start(data, block.start_byte) : block.start_byte]
    outer = opener[: len(opener) - len(opener.lstrip(b" \t"))]
    if indent.startswith(outer) and len(indent) > len(outer):
        return indent[len(outer) :]
    raise Refused("the statement's indentation says nothing of the file's")


def _lines(code: str, indent: bytes, unit: bytes) -> list[bytes]:
    """The code's lines, each leading tab a level of the file's indentation."""
    made = []
    for line in code.split("\n"):
        body = line.lstrip("\t")
        made.append(indent + unit * (len(line) - len(body)) + body.encode())
    return made


def _insert_before(data: bytes, statement: Node, code: str) -> Splice:
    indent = indent_before(data, statement.start_byte)
    lines = _lines(code, indent, _unit(data, statement, indent))
    start = line_start(data, statement.start_byte)
    return start, start, b"".join(line + b"\n" for line in lines)


def _replace_statement(data: bytes, statement: Node, code: str) -> Splice:
    indent = indent_before(data, statement.start_byte)
    lines = _lines(code, indent, _unit(data, statement, indent))
    return statement.start_byte, statement.end_byte, b"\n".join(lines)[len(indent) :]


def _check_names(statement: Node, code: str) -> None:
    """Refuse code whose names would not compile where it goes: a local it declares that
    the method has already (Java forbids the shadowing), or a server it captures in a
    lambda that is assigned more than once (a lambda takes only effectively final ones)."""
    method = statement.parent
    while method is not None and method.type not in (
        "method_declaration",
        "constructor_declaration",
        "lambda_expression",
    ):
        method = method.parent
    if method is None:
        raise Refused("the statement is in no method")
    declared: dict[str, int] = {}
    assigned: dict[str, int] = {}
    for node in walk(method):
        if node.type in ("variable_declarator", "formal_parameter", "catch_formal_parameter"):
            name = node_text(node.child_by_field_name("name"))
            declared[name] = declared.get(name, 0) + 1
        elif node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                assigned[node_text(left)] = assigned.get(node_text(left), 0) + 1
    clash = [name for name in _DECLARED if name in declared and name in code]
    if clash:
        raise Refused(f"the method already has a local {clash[0]!r}")
    if "-> {" in code:
        for name, count in assigned.items():
            if name in declared and count and f"{name}." in code:
                raise Refused(f"{name!r} is assigned again: a lambda cannot capture it")


# -- imports -----------------------------------------------------------------------------


def _imports(root: Node) -> list[tuple[Node, str, bool]]:
    """The file's import declarations: each node, the name it imports (`a.b.C`, `a.b.*`)
    and whether it is static."""
    found = []
    for node in root.named_children:
        if node.type != "import_declaration":
            continue
        static = any(child.type == "static" for child in node.children)
        names = [c for c in node.named_children if c.type in ("scoped_identifier", "identifier")]
        name = node_text(names[0]) if names else ""
        if any(child.type == "asterisk" for child in node.children):
            name += ".*"
        found.append((node, name, static))
    return found


def _import_splices(data: bytes, root: Node, classes: list[str]) -> list[Splice]:
    """An `import` for each class the file does not import yet, where google-java-format
    keeps them: the non-static imports in one block, in ASCII order."""
    imports = _imports(root)
    package = next((n for n in root.named_children if n.type == "package_declaration"), None)
    own = node_text(package).removeprefix("package").strip(" ;\t\n") if package else ""
    declared = {
        node_text(n.child_by_field_name("name"))
        for n in walk(root)
        if n.type in ("class_declaration", "interface_declaration", "enum_declaration")
    }
    plain = [(node, name) for node, name, static in imports if not static]
    splices: list[Splice] = []
    for wanted in classes:
        home, simple = wanted.rsplit(".", 1)
        if home == own or any(name in (wanted, f"{home}.*") for _, name in plain):
            continue
        if simple in declared or any(name.rsplit(".", 1)[-1] == simple for _, name in plain):
            raise Refused(f"another {simple} is in scope: import {wanted} by hand")
        line = f"import {wanted};".encode()
        after = [node for node, name in plain if name > wanted]
        if after:
            start = line_start(data, after[0].start_byte)
            splices.append((start, start, line + b"\n"))
        elif plain:
            end = plain[-1][0].end_byte
            splices.append((end, end, b"\n" + line))
        elif imports:  # static ones only: the others come after them, a blank line between
            end = imports[-1][0].end_byte
            splices.append((end, end, b"\n\n" + line))
        elif package is not None:
            splices.append((package.end_byte, package.end_byte, b"\n\n" + line))
        else:
            splices.append((0, 0, line + b"\n\n"))
    return splices
