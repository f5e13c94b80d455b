"""Apply GoEdits: text spliced at tree-sitter's byte positions, in gofmt's style (tabs,
`key: value` columns aligned), every package the new code names imported in gofmt's
order, and the result parsed again; any doubt refuses the edit.

The new code names packages through placeholders (`{grpc}.KeepaliveParams(...)`): each is
the local name the file already imports that package under (an alias counts), or the
package's own name once an import is added for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import walk
from k8slb.core import regex
from k8slb.core.edits import CodeEdit, GoEdit, Refused
from k8slb.editing.tree_splices import indent_of, node_at, spliced
from k8slb.languages.go.edit_gofmt import placed_as_new_argument, respaced_for_new_argument
from k8slb.languages.go.parse import import_spec, package_name, parser, same_go_code

if TYPE_CHECKING:
    from tree_sitter import Node


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    """The fixer's entry (languages/): the Go file with its edits made."""
    if not all(isinstance(e, GoEdit) for e in edits):
        raise Refused("an edit for a file that is not Go")
    return apply_go(text, [e for e in edits if isinstance(e, GoEdit)])


def same_code(old: str, new: str, path: str) -> bool:
    """Whether `--add-noqa`'s comments left the code as it was."""
    return same_go_code(old.encode(), new.encode())


def apply_go(text: str, edits: Sequence[GoEdit]) -> str:
    data = text.encode()
    root = parser().parse(data).root_node
    if root.has_error:
        raise Refused("the Go file does not parse")
    local = _imported(root)
    wanted: dict[str, str] = {}  # import path -> the name the new code uses
    for edit in edits:
        for _, path in _used(edit):
            name = local.get(path) or package_name(path)
            if path not in local and name in local.values():
                raise Refused(f"the name {name!r} is taken: import {path} by hand")
            wanted[path] = name
    names = {placeholder: wanted[path] for edit in edits for placeholder, path in _used(edit)}
    splices: list[tuple[int, int, bytes]] = []
    for edit in edits:
        splices += _splices(data, root, edit, names)
    missing = sorted(set(wanted) - set(local))
    if missing:
        splices += _import_splices(data, root, missing)
    data = spliced(data, splices, "Go")
    fixed = data.decode()
    if parser().parse(data).root_node.has_error:
        raise Refused("the fixed Go code would not parse")
    return fixed


def _named(code: str, names: dict[str, str]) -> str:
    """The code with each `{placeholder}` replaced by its package's local name (not
    str.format: Go's own braces are in the code)."""
    for placeholder, name in names.items():
        code = code.replace("{" + placeholder + "}", name)
    return code


def _used(edit: GoEdit) -> list[tuple[str, str]]:
    """The packages the edit's code names (an unused import would not compile)."""
    return [(name, path) for name, path in edit.packages if "{" + name + "}" in edit.code]


def _imported(root: Node) -> dict[str, str]:
    """import path -> the local name the file uses for it (not dot or blank imports).
    Go has imports only at the top of a file: the declarations there are all searched."""
    found: dict[str, str] = {}
    for declaration in _top_level(root, "import_declaration"):
        for spec in (n for n in walk(declaration) if n.type == "import_spec"):
            path, name = import_spec(spec)
            if name not in (None, "."):
                found[path] = name
    return found


def _top_level(root: Node, kind: str) -> list[Node]:
    """The file's top-level nodes of a kind: Go has its package clause and its imports
    nowhere else (a walk of the whole tree cost a Go fix a third of its time)."""
    return [node for node in root.named_children if node.type == kind]


def _import_blocks(root: Node) -> list[Node]:
    """The `import ( ... )` lists of the file."""
    return [
        block
        for declaration in _top_level(root, "import_declaration")
        for block in declaration.named_children
        if block.type == "import_spec_list"
    ]


def _splices(
    data: bytes, root: Node, edit: GoEdit, names: dict[str, str]
) -> list[tuple[int, int, bytes]]:
    if edit.op == "add-argument":
        call = node_at(data, root, edit.line, edit.column, "call_expression")
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            raise Refused("the call has no argument list")
        code = placed_as_new_argument(_named(edit.code, names).encode(), call)
        # a second argument changes how gofmt spaces the operators of the first
        return [_append_item(data, arguments, code, b")"), *respaced_for_new_argument(data, call)]
    return [_splice(data, root, edit, names)]


def _splice(data: bytes, root: Node, edit: GoEdit, names: dict[str, str]) -> tuple[int, int, bytes]:
    if edit.op == "add-fields":
        literal = node_at(data, root, edit.line, edit.column, "composite_literal")
        body = literal.child_by_field_name("body")
        if body is None:
            raise Refused("the literal has no body")
        fields = [_named(field, names).encode() for field in edit.code.split("\n")]
        return _add_fields(data, body, fields)
    if edit.op == "insert-statements":
        call = node_at(data, root, edit.line, edit.column, "call_expression")
        return _insert_before_statement(data, call, _named(edit.code, names).encode())
    if edit.op == "graceful-stop":
        call = node_at(data, root, edit.line, edit.column, "call_expression")
        return _replace_stop(data, call, _named(edit.code, names))
    raise Refused(f"unknown Go edit {edit.op}")


def _append_item(data: bytes, listing: Node, code: bytes, closer: bytes) -> tuple[int, int, bytes]:
    """`code` as the last item of an argument list: after ", " on one line; on a line of
    its own before the closer (with the comma Go then needs) when the list spans lines."""
    close = listing.end_byte - len(closer)
    if data[close : listing.end_byte] != closer:
        raise Refused("the list does not end where it should")
    items = [c for c in listing.named_children if c.type != "comment"]
    if not items:
        return close, close, code
    if items[-1].type == "variadic_argument":  # nothing may follow `opts...`
        raise Refused("the call spreads a slice (opts...): add the option to that slice")
    last = items[-1]
    line_start = data.rfind(b"\n", 0, close) + 1
    if line_start > last.end_byte and not data[line_start:close].strip():
        indent = indent_of(data, last.start_byte)  # the closer alone on its line
        return line_start, line_start, indent + code + b",\n"
    between = data[last.end_byte : close]
    if between.strip() not in (b"", b","):
        raise Refused("a comment after the last argument")
    return last.end_byte, close, b", " + code + between.strip()


def _insert_before_statement(data: bytes, node: Node, code: bytes) -> tuple[int, int, bytes]:
    """`code` (lines, indented relative to each other with tabs) on lines of their own
    before the statement that holds `node`, at that statement's indentation."""
    statement: Node | None = node
    while statement is not None and (
        statement.parent is None or statement.parent.type not in ("statement_list", "block")
    ):
        statement = statement.parent
    if statement is None:
        raise Refused("the call is in no statement")
    line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
    indent = data[line_start : statement.start_byte]
    if indent.strip(b"\t") or not indent:
        raise Refused("the statement does not start its own line, indented with tabs")
    lines = b"".join(indent + line + b"\n" if line else b"\n" for line in code.split(b"\n"))
    return line_start, line_start, lines


def _replace_stop(data: bytes, call: Node, code: str) -> tuple[int, int, bytes]:
    """The statement that is the `Stop()` call replaced by `code`'s lines; a deferred (or
    `go`) stop by a function literal that runs them then: a timer started where the
    `defer` stands would end the server long before its time."""
    statement = call.parent
    if statement is not None and statement.type in ("defer_statement", "go_statement"):
        keyword = "defer" if statement.type == "defer_statement" else "go"
        code = "\n".join(
            [f"{keyword} func() {{", *(f"\t{line}" for line in code.split("\n")), "}()"]
        )
    elif statement is None or statement.type != "expression_statement":
        raise Refused("Stop() is not a statement of its own: bound GracefulStop() by hand")
    if statement.parent is None or statement.parent.type not in ("statement_list", "block"):
        raise Refused("Stop() is not a statement of its own: bound GracefulStop() by hand")
    start, _, lines = _insert_before_statement(data, call, code.encode())
    return start, statement.end_byte, lines.rstrip(b"\n")


_BETWEEN_FIELDS = regex.compile(rb"^,[ \t]*\r?\n[ \t]*$")
_AFTER_LAST = regex.compile(rb"^,?[ \t]*\r?\n[ \t]*$")


def _add_fields(data: bytes, body: Node, fields: list[bytes]) -> tuple[int, int, bytes]:
    """Keyed fields added to a struct literal: on its line when it is one line, else one
    per line with the values' column aligned as gofmt aligns it."""
    elements = body.named_children
    close = body.end_byte - 1
    if not elements:
        return close, close, b", ".join(fields)
    if b"\n" not in data[body.start_byte : body.end_byte]:
        return elements[-1].end_byte, close, b", " + b", ".join(fields)
    if any(e.type != "keyed_element" or e.start_point[0] != e.end_point[0] for e in elements):
        raise Refused("the literal's fields do not stand one per line")
    gaps = [data[a.end_byte : b.start_byte] for a, b in pairwise(elements)]
    if not all(_BETWEEN_FIELDS.match(gap) for gap in gaps) or not _AFTER_LAST.match(
        data[elements[-1].end_byte : close]
    ):
        raise Refused("comments or blank lines among the literal's fields")
    pairs = []
    for element in elements:
        key, _, value = data[element.start_byte : element.end_byte].partition(b":")
        pairs.append((key.strip(), value.strip()))
    pairs += [(k.strip(), v.strip()) for k, _, v in (f.partition(b":") for f in fields)]
    width = max(len(key) for key, _ in pairs)
    indent = indent_of(data, elements[0].start_byte)
    start = data.rfind(b"\n", 0, elements[0].start_byte) + 1
    end = data.rfind(b"\n", 0, close) + 1
    rows = [
        indent + key + b":" + b" " * (width - len(key) + 1) + value + b",\n" for key, value in pairs
    ]
    return start, end, b"".join(rows)


def _import_splices(data: bytes, root: Node, paths: list[str]) -> list[tuple[int, int, bytes]]:
    """Imports of `paths`, where gofmt would keep them: in the import block, each in its
    group (the standard library's, or that of its closest neighbour), in sorted order; a
    lone `import "x"` becomes a block; a file with no import gets one after `package`."""
    if _import_blocks(root):
        return [_block_splice(data, root, path) for path in paths]
    single = _top_level(root, "import_declaration")
    if single:
        declaration = single[0]
        spec = declaration.named_children[0]
        every = [(import_spec(spec)[0], data[spec.start_byte : spec.end_byte])]
        every += [(path, f'"{path}"'.encode()) for path in paths]
        every.sort()  # gofmt orders imports by path, whatever their alias
        standard = [text for path, text in every if _standard(path)]
        others = [text for path, text in every if not _standard(path)]
        groups = [group for group in (standard, others) if group]
        body = b"\n\n".join(
            b"".join(b"\t" + text + b"\n" for text in g).rstrip(b"\n") for g in groups
        )
        return [(declaration.start_byte, declaration.end_byte, b"import (\n" + body + b"\n)")]
    package = _top_level(root, "package_clause")
    if not package:
        raise Refused("the file has no package clause")
    end = package[0].end_byte
    lines = b"".join(b"\t" + f'"{path}"'.encode() + b"\n" for path in paths)
    return [(end, end, b"\n\nimport (\n" + lines + b")")]


def _block_splice(data: bytes, root: Node, path: str) -> tuple[int, int, bytes]:
    """One import added to the file's import block."""
    quoted = f'"{path}"'.encode()
    blocks = _import_blocks(root)
    if blocks:
        block = blocks[0]
        specs = [s for s in block.named_children if s.type == "import_spec"]
        groups: list[list[Node]] = []
        for spec in specs:
            if groups and spec.start_point[0] == groups[-1][-1].end_point[0] + 1:
                groups[-1].append(spec)
            else:
                groups.append([spec])
        group = _group_for(groups, path)
        indent = indent_of(data, specs[0].start_byte) if specs else b"\t"
        if group is None:  # a new group at the end
            last = specs[-1]
            return last.end_byte, last.end_byte, b"\n\n" + indent + quoted
        for spec in group:
            if import_spec(spec)[0] > path:
                line_start = data.rfind(b"\n", 0, spec.start_byte) + 1
                return line_start, line_start, indent + quoted + b"\n"
        last = group[-1]
        return last.end_byte, last.end_byte, b"\n" + indent + quoted
    raise Refused("no import block")


def _standard(path: str) -> bool:
    """The standard library's paths have no dot in their first element."""
    return "." not in path.split("/", 1)[0]


def _group_for(groups: list[list[Node]], path: str) -> list[Node] | None:
    """The import group `path` belongs in: the standard library's for a standard path;
    otherwise the group holding the path it shares the longest prefix with. None: a new
    group at the end."""
    standard = [g for g in groups if all(_standard(import_spec(s)[0]) for s in g)]
    if _standard(path):
        return standard[0] if standard else None
    others = [g for g in groups if g not in standard]
    if not others:
        return None

    def shared(group: list[Node]) -> int:
        return max(_shared_elements(import_spec(spec)[0], path) for spec in group)

    return max(others, key=shared)


def _shared_elements(a: str, b: str) -> int:
    """How many leading path elements two import paths share."""
    count = 0
    for mine, theirs in zip(a.split("/"), b.split("/"), strict=False):
        if mine != theirs:
            break
        count += 1
    return count
