"""What the front-ends that read code with tree-sitter (Go, JavaScript) share: walking a
tree, a node's text, where a tree's first syntax error is, and whether two texts hold the
same code but for their comments (what `--add-noqa` may change)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node`, in source order (iteratively: code can nest deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def node_text(node: Node | None) -> str:
    text = node.text if node is not None else None  # a slice of the source each time asked
    return text.decode("utf-8", "replace") if text else ""


def first_error_line(root: Node) -> int:
    """The line of the tree's first syntax error (1-based)."""
    for child in walk(root):
        if child.type == "ERROR" or child.is_missing:
            return int(child.start_point[0]) + 1
    return int(root.start_point[0]) + 1


def same_code(parser: Callable[[], Parser], old: bytes, new: bytes) -> bool:
    """Whether two texts say the same but for their comments: the same tokens in the same
    order, and the new text parses."""

    def tokens(data: bytes) -> list[tuple[str, bytes]] | None:
        root = parser().parse(data).root_node
        if root.has_error:
            return None
        return [
            (node.type, node.text or b"")
            for node in walk(root)
            if node.child_count == 0 and node.type != "comment"
        ]

    before = tokens(old)
    return before is not None and before == tokens(new)
