"""JavaScript's editor: no fix edits JavaScript yet (its dialect makes none); `--add-noqa`
asks whether its comments left the code as it was."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.core.edits import CodeEdit
from k8slb.editing.yaml_edit import Refused
from k8slb.languages.javascript.parse import parser, walk


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    raise Refused("k8slb does not edit JavaScript yet")


def same_code(old: str, new: str) -> bool:
    """The same tokens in the same order but for comments, and the new text parses."""

    def tokens(text: str) -> list[tuple[str, bytes]] | None:
        root = parser().parse(text.encode()).root_node
        if root.has_error:
            return None
        return [
            (node.type, node.text or b"")
            for node in walk(root)
            if node.child_count == 0 and node.type != "comment"
        ]

    before = tokens(old)
    return before is not None and before == tokens(new)
