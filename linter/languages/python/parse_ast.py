"""Small readings of Python's syntax tree shared by the modules that analyse Python."""

from __future__ import annotations

import ast


def dotted(node: ast.AST) -> str:
    """`a.b.c` for a chain of attributes on a name; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))
