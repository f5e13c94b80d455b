"""What the editors of tree-sitter languages (Go, JavaScript, Java) share: the node an edit
points at, the indentation of a line, and the splicing of new bytes into the file's, each
on the file's bytes."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from k8slb.core.edits import Refused

if TYPE_CHECKING:
    from tree_sitter import Node


def point_of(data: bytes, line: int, column: int) -> tuple[int, int]:
    """tree-sitter's point (row, byte) for a 1-based line and (character) column."""
    lines = data.split(b"\n")
    if not 0 < line <= len(lines):
        raise Refused("the edit points past the end of the file")
    text = lines[line - 1].decode("utf-8", "replace")
    return (line - 1, len(text[: column - 1].encode()))


def node_at(data: bytes, root: Node, line: int, column: int, kinds: str | tuple[str, ...]) -> Node:
    """The node of one of `kinds` that starts at the 1-based line and (character) column."""
    wanted = (kinds,) if isinstance(kinds, str) else kinds
    point = point_of(data, line, column)
    node: Node | None = root.descendant_for_point_range(point, point)
    while node is not None and not (node.type in wanted and tuple(node.start_point) == point):
        node = node.parent
    if node is None:
        raise Refused(f"no {' or '.join(wanted)} where the finding is")
    return node


Splice = tuple[int, int, bytes]  # the bytes from start to end become the new ones


def spliced(data: bytes, splices: list[Splice], language: str) -> bytes:
    """The bytes with every splice made, each new line ending as the line it goes into
    does (the editors write `\n`); refused when two overlap (two edits of one node would
    each assume the other was not made)."""
    ordered = sorted((_in_line_ending(data, *s) for s in splices), key=lambda s: (s[0], s[1]))
    for (_, end, _), (start, _, _) in pairwise(ordered):
        if start < end:
            raise Refused(f"two {language} edits overlap")
    for start, end, new in reversed(ordered):
        data = data[:start] + new + data[end:]
    return data


def _in_line_ending(data: bytes, start: int, end: int, new: bytes) -> Splice:
    """The splice with its new lines ending in CRLF where the line it goes into does (a
    CRLF file, or that line of a mixed one), as the YAML, Python and `--add-noqa` edits
    keep them; one placed between a CR and its LF moves before the CR."""
    if b"\n" not in new or line_ending(data, start) != b"\r\n":
        return start, end, new
    if start == end and data[start - 1 : start + 1] == b"\r\n":
        start = end = start - 1
    return start, end, new.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def line_ending(data: bytes, position: int) -> bytes:
    """How the line `position` is on ends (the last line, unended: as the one before)."""
    after = data.find(b"\n", position)
    at = after if after >= 0 else data.rfind(b"\n", 0, position)
    return b"\r\n" if at > 0 and data[at - 1 : at] == b"\r" else b"\n"


def line_start(data: bytes, position: int) -> int:
    """Where the line `position` is on starts."""
    return data.rfind(b"\n", 0, position) + 1


def indent_of(data: bytes, position: int) -> bytes:
    """The blanks that open the line `position` is on."""
    line = data[line_start(data, position) : position]
    return line[: len(line) - len(line.lstrip(b"\t "))]


def indent_before(
    data: bytes, position: int, refusal: str = "the code does not start its own line"
) -> bytes:
    """The blanks from the start of the line to `position`; refused when code stands
    there too (new lines could not take that indentation)."""
    before = data[line_start(data, position) : position]
    if before.strip(b" \t"):
        raise Refused(refusal)
    return before
