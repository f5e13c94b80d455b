"""Apply YAML edits by splicing text, so that every byte outside the edited node stays.

Re-emitting a document (even through ruamel's round-trip dumper) re-indents sequences,
re-wraps long lines and moves comments; so the fixer composes the file once more to learn
where each node starts and ends (character offsets), and inserts or replaces only the text
of the node it changes, in the file's own style: its indentation step, its sequence
indentation, its line endings. A document it cannot edit this way is refused, with the
reason, and the others are still edited.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from k8slb.core import regex
from k8slb.core.edits import (
    PROBE_HANDLERS,
    Refusal,
    Refused,
    Step,
    YamlEdit,
    prestop_hook,
)
from k8slb.core.record import record
from k8slb.editing.verify import yaml_fix_problem
from k8slb.reading.yamlcompose import C_LOADER, YAMLProblem, c_nodes
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


@record
class TextEdit:
    start: int
    end: int
    text: str


_PLAIN = regex.compile(r"^[A-Za-z_/][A-Za-z0-9_./-]*$")
_NOT_PLAIN = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


def scalar(value: Any) -> str:
    """A YAML scalar for a value: plain when YAML reads it back as the same string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _NOT_PLAIN:
        return text
    return json.dumps(text)


def flow(value: Any) -> str:
    """A one-line flow rendering of plain data."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def block(value: dict[str, Any], indent: str, step: str, seq_indent: str) -> list[str]:
    """Block-style lines for a mapping, in the file's indentation style."""
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, dict) and item:
            lines.append(f"{indent}{scalar(key)}:")
            lines += block(item, indent + step, step, seq_indent)
        elif isinstance(item, list) and item and all(isinstance(i, dict) for i in item):
            lines.append(f"{indent}{scalar(key)}:")
            for entry in item:
                inner = block(entry, indent + seq_indent + "  ", step, seq_indent)
                first = inner[0].lstrip(" ")
                lines.append(f"{indent}{seq_indent}- {first}")
                lines += inner[1:]
        else:
            lines.append(f"{indent}{scalar(key)}: {flow(item)}")
    return lines


class YamlFile:
    """The text of a YAML file with the position of every node of every document."""

    def __init__(self, text: str) -> None:
        if C_LOADER is None:  # pragma: no cover - the fallback has no character offsets here
            raise Refused("fixing YAML needs ruamel.yaml.clib")
        self.text = text
        self.newline = "\r\n" if "\r\n" in text else "\n"
        try:
            self.roots: list[Node] = c_nodes(text)
        except (YAMLError, YAMLProblem) as error:
            raise Refused(f"the file does not parse: {error}") from None
        self.step, self.seq_indent = self._style()
        # Nodes that aliases make appear in more than one place. The composer gives an
        # alias the anchored node itself, with the anchor's positions, so the positions
        # of an alias are found in the text, and nothing is edited through one.
        self.shared = _shared_nodes(self.roots) if "*" in self.text else set()

    # -- style -----------------------------------------------------------------------------

    def _style(self) -> tuple[str, str]:
        """The indentation step of nested mappings, and where `-` sits under its key: the
        most common of each over every block collection that is a block mapping's value."""
        steps: list[int] = []
        seq: list[int] = []
        for key, value in _nested_block_collections(self.roots):
            if type(value) is MappingNode:
                steps.append(value.value[0][0].start_mark.column - key.start_mark.column)
            else:
                dash = self._dash_column(value.value[0])
                if dash is not None:
                    seq.append(dash - key.start_mark.column)
        step = max(set(steps), key=steps.count) if steps else 2
        indent = max(set(seq), key=seq.count) if seq else step
        return " " * (step if step > 0 else 2), " " * max(indent, 0)

    def _dash_column(self, item: Node) -> int | None:
        line_start = self.text.rfind("\n", 0, item.start_mark.index) + 1
        before = self.text[line_start : item.start_mark.index]
        at = before.rfind("-")
        return at if at >= 0 and before[at + 1 :].strip() == "" else None

    # -- navigation ------------------------------------------------------------------------

    def node(self, document: int, target: Sequence[Step]) -> Node:
        if document >= len(self.roots):
            raise Refused(f"document {document} is gone")
        node = self.roots[document]
        for step in target:
            node = self.child(node, step)
            if id(node) in self.shared:
                raise Refused(
                    "the place to edit is shared through a YAML anchor and alias; "
                    "an edit there would change every place that uses it"
                )
        return node

    @staticmethod
    def child(node: Node, step: Step) -> Node:
        if isinstance(step, int) and isinstance(node, SequenceNode) and step < len(node.value):
            return node.value[step]  # type: ignore[no-any-return]
        if isinstance(step, str) and isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode) and key.value == step:
                    return value  # type: ignore[no-any-return]
        raise Refused(f"cannot find {step!r} where the finding was")

    # -- positions -------------------------------------------------------------------------

    def last_token_end(self, node: Node) -> int:
        """Where the last character of a node's own text is (block collections end where
        the next token starts, comments included, so look at their last child)."""
        if isinstance(node, MappingNode) and not node.flow_style and node.value:
            return self.value_end(*node.value[-1])
        if isinstance(node, SequenceNode) and not node.flow_style and node.value:
            item = node.value[-1]
            if id(item) in self.shared:
                raise Refused("the text to edit ends in a YAML alias inside a list")
            return self.last_token_end(item)
        end: int = node.end_mark.index
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            if _keeps_trailing_lines(self.text, node.start_mark.index):
                # `|+`: the trailing blank lines are its text; the next line follows them
                return end - 1 if self.text[end - 1 : end] == "\n" else end
            while end > 0 and self.text[end - 1] in "\r\n":  # block scalars end past \n
                end -= 1
        return end

    def value_end(self, key: Node, value: Node) -> int:
        """Where a mapping value's text ends, also when it is an alias (`key: *name`)."""
        if id(value) in self.shared and value.start_mark.index < key.end_mark.index:
            return self._alias_end(key.end_mark.index)
        return self.last_token_end(value)

    def _alias_end(self, after_key: int) -> int:
        """The end of the `*name` that follows a key's end."""
        line_end = self.text.find("\n", after_key)  # the pattern stays on the line
        found = _ALIAS_VALUE.match(self.text[after_key : None if line_end < 0 else line_end])
        if found is None:
            raise Refused("the text to edit ends in a YAML alias k8slb cannot place")
        return after_key + found.end()

    def line_after(self, index: int) -> int:
        """The start of the line after the one `index` is on (len(text) at the end)."""
        newline = self.text.find("\n", index)
        return len(self.text) if newline < 0 else newline + 1

    def insertion(self, at: int, lines: list[str]) -> TextEdit:
        """Insert whole lines after the line that `at` is on."""
        position = self.line_after(at)
        body = self.newline.join(lines) + self.newline
        if position == len(self.text) and not self.text.endswith("\n"):
            body = self.newline + body.removesuffix(self.newline)  # keep "no final newline"
        return TextEdit(position, position, body)

    def add_entries(self, mapping: Node, entries: dict[str, Any]) -> TextEdit:
        """New keys at the end of a mapping, in its style; an empty one (`{}`, or a key
        with no value) gets them in flow style."""
        rendered = ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in entries.items())
        if isinstance(mapping, ScalarNode) and str(mapping.tag).endswith(":null"):
            start, end = mapping.start_mark.index, mapping.end_mark.index
            return TextEdit(start, end, ("" if end > start else " ") + "{" + rendered + "}")
        if not isinstance(mapping, MappingNode):
            raise Refused("the place to add to is not a mapping")
        if mapping.flow_style:
            closing = mapping.end_mark.index - 1
            return TextEdit(closing, closing, (", " if mapping.value else "") + rendered)
        if not mapping.value:  # pragma: no cover - an empty block mapping is a null scalar
            raise Refused("the place to add to is an empty mapping")
        indent = " " * mapping.value[0][0].start_mark.column
        lines = block(entries, indent, self.step, self.seq_indent)
        return self.insertion(self.last_token_end(mapping), lines)

    def replace_scalar(self, node: Node, value: Any) -> TextEdit:
        """A new value in the old one's quoting style (plain, single or double quotes)."""
        if not isinstance(node, ScalarNode) or node.style in ("|", ">"):
            raise Refused("the value to replace is not a one-line scalar")
        if isinstance(value, str) and node.style == '"':
            text = json.dumps(value)
        elif isinstance(value, str) and node.style == "'":
            text = "'" + value.replace("'", "''") + "'"
        else:
            text = scalar(value)
        return TextEdit(node.start_mark.index, node.end_mark.index, text)


_ALIAS_VALUE = regex.compile(r"[ \t]*:[ \t]*\*[^\s,\[\]{}]+")
_BLOCK_HEADER = regex.compile(r"[|>][0-9]?([+-]?)[0-9]?")


def _keeps_trailing_lines(text: str, start: int) -> bool:
    """Whether the block scalar whose header starts at `start` has `+` chomping: its
    trailing blank lines are part of its value, and an insertion must go after them."""
    header = _BLOCK_HEADER.match(text[start : start + 4])  # a header is 4 characters at most
    return header is not None and header.group(1) == "+"


def _shared_nodes(roots: Sequence[Node]) -> set[int]:
    """The ids of nodes reached more than once: anchored nodes that aliases repeat."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = list(roots)
    while stack:
        current = stack.pop()
        if id(current) in seen:
            shared.add(id(current))
            continue
        seen.add(id(current))
        if isinstance(current, MappingNode):
            stack.extend(node for pair in current.value for node in pair)
        elif isinstance(current, SequenceNode):
            stack.extend(current.value)
    return shared


def _nested_block_collections(roots: Sequence[Node]) -> Iterator[tuple[Node, Node]]:
    """(key, value) for every non-empty block collection that is the value of a key of a
    block mapping, each node visited once (aliases repeat nodes). The composers make
    ruamel's node classes themselves, so their types are compared exactly: this walk
    visits every node of the file."""
    stack = [root for root in roots if type(root) is not ScalarNode]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if type(current) is SequenceNode:
            stack.extend(item for item in current.value if type(item) is not ScalarNode)
            continue
        block = not cast(MappingNode, current).flow_style
        for key, value in current.value:
            if type(value) is ScalarNode:
                continue
            if block and value.value and not value.flow_style:
                yield key, value
            stack.append(value)


def text_edits(file: YamlFile, edit: YamlEdit) -> list[TextEdit]:
    """The text changes one YAML edit makes."""
    node = file.node(edit.document, edit.target)
    operation = OPERATIONS.get(edit.op)
    if operation is None:
        raise Refused(f"unknown edit {edit.op!r}")
    return [operation(file, node, edit.value)]


def _add_prestop(file: YamlFile, node: Node, value: tuple[str, int]) -> TextEdit:
    hook = prestop_hook(value)
    lifecycle = _child_or_none(node, "lifecycle")
    if lifecycle is None:
        return file.add_entries(node, {"lifecycle": {"preStop": hook}})
    return file.add_entries(lifecycle, {"preStop": hook})


def _set_key(file: YamlFile, node: Node, value: tuple[str, Any]) -> TextEdit:
    """A key of a mapping: its value replaced where present, else the key added."""
    key, scalar_value = value
    current = _child_or_none(node, key)
    if current is not None:
        return file.replace_scalar(current, scalar_value)
    return file.add_entries(node, {key: scalar_value})


def _set_grace(file: YamlFile, node: Node, seconds: int) -> TextEdit:
    return _set_key(file, node, ("terminationGracePeriodSeconds", seconds))


def _child_or_none(node: Node, key: str) -> Node | None:
    try:
        return YamlFile.child(node, key)
    except Refused:
        return None


def _liveness_tcp(file: YamlFile, container: Node, port: int | str) -> TextEdit:
    probe = YamlFile.child(container, "livenessProbe")
    if not isinstance(probe, MappingNode):
        raise Refused("the liveness probe is not a mapping")
    if id(probe) in file.shared:
        raise Refused(
            "the liveness probe is a YAML alias of an anchored probe: changing it would change "
            "the readiness probe too; write liveness its own probe"
        )
    for key, value in probe.value:
        if isinstance(key, ScalarNode) and key.value in PROBE_HANDLERS:
            end = file.value_end(key, value)
            if probe.flow_style or (isinstance(value, MappingNode) and value.flow_style):
                text = f"tcpSocket: {flow({'port': port})}"
            else:
                inner = " " * key.start_mark.column + file.step
                text = f"tcpSocket:{file.newline}{inner}port: {scalar(port)}"
            return TextEdit(key.start_mark.index, end, text)
    raise Refused("the liveness probe has no handler to replace")


def _add_document(file: YamlFile, root: Node, document: dict[str, Any]) -> TextEdit:
    """A new document right after `root`'s, in the file's style, with a comment saying
    where it comes from."""
    comment, body = document["comment"], document["body"]
    lines = ["---", f"# {comment}", *block(body, "", file.step, file.seq_indent)]
    return file.insertion(file.last_token_end(root), lines)


# How each operation of core/edits.py's YamlOp is made on the node its edit targets, with
# the edit's value (a test holds that every operation has its entry).
OPERATIONS: dict[str, Callable[[YamlFile, Node, Any], TextEdit]] = {
    "add-prestop": _add_prestop,
    "set-grace": _set_grace,
    "set-scalar": YamlFile.replace_scalar,
    "set-key": _set_key,
    "liveness-tcp": _liveness_tcp,
    "add-twin": _add_document,
}


def apply(text: str, edits: Sequence[TextEdit]) -> tuple[str, list[TextEdit]]:
    """Splice non-overlapping edits into the text; the overlapping ones are returned, to be
    made on the next pass (after the file is read again)."""
    applied: list[TextEdit] = []
    skipped: list[TextEdit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if applied and edit.start < applied[-1].end:
            skipped.append(edit)
        elif applied and edit.start == applied[-1].start == applied[-1].end == edit.end:
            skipped.append(edit)  # two insertions at one place: one per pass keeps order
        else:
            applied.append(edit)
    pieces: list[str] = []  # joined once: splicing edit by edit would copy the text each time
    done = 0
    for edit in applied:
        pieces += [text[done : edit.start], edit.text]
        done = edit.end
    pieces.append(text[done:])
    return "".join(pieces), skipped


def apply_yaml_edits(text: str, edits: Sequence[YamlEdit], refusals: list[str]) -> str:
    """The text with every edit that can be made faithfully; each is checked by reading
    the result back, and one that does not give exactly its intended change is refused."""
    try:
        file = YamlFile(text)
    except Refused as refused:
        refusals += [Refusal(str(refused), edit) for edit in edits]
        return text
    planned: list[tuple[YamlEdit, list[TextEdit]]] = []
    for edit in edits:
        try:
            planned.append((edit, text_edits(file, edit)))
        except Refused as refused:
            refusals.append(Refusal(str(refused), edit))
    fixed, skipped = apply(text, [piece for _, own in planned for piece in own])
    made = [(e, own) for e, own in planned if not any(p in skipped for p in own)]
    if yaml_fix_problem(text, fixed, [e for e, _ in made]) is None:
        return fixed  # the overlapping edits (skipped) wait for the next pass
    kept: list[tuple[YamlEdit, list[TextEdit]]] = []  # one at a time: keep the good ones
    for edit, own in made:
        trial = [*kept, (edit, own)]
        attempt, _ = apply(text, [p for _, pieces in trial for p in pieces])
        problem = yaml_fix_problem(text, attempt, [e for e, _ in trial])
        if problem is None:
            kept.append((edit, own))
        else:
            refusals.append(Refusal(problem, edit))
    return apply(text, [p for _, pieces in kept for p in pieces])[0]
