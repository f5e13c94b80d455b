"""The nodes a tree-sitter query captures (code/syntax_trees.captured) come in source order,
the same every run: every front-end reads its facts in that order, and the first one found
is what a finding cites."""

from __future__ import annotations

import subprocess
import sys

from k8slb.code.syntax_trees import captured
from k8slb.languages.javascript.parse import parser

NESTED = "".join(
    f"const c{i} = new Outer{i}(new Inner{i}(), [new Item{i}()]);\n" for i in range(300)
)


def _lines_and_names() -> list[str]:
    root = parser().parse(NESTED.encode()).root_node
    return [
        n.text.decode().split("(")[0] for n in captured(parser(), root, "(new_expression) @n")["n"]
    ]


def test_captures_come_in_source_order_an_enclosing_node_first() -> None:
    made = _lines_and_names()
    expected = [f"new {kind}{i}" for i in range(300) for kind in ("Outer", "Inner", "Item")]
    assert made == expected


def test_captures_come_in_the_same_order_whatever_the_processs_memory() -> None:
    """The binding's own order followed where its objects were allocated: two processes
    with the system allocator disagreed."""
    program = "from tests.test_query_captures import _lines_and_names; print(_lines_and_names())"
    orders = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={"PYTHONMALLOC": "malloc", "PYTHONHASHSEED": str(seed), "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(3)
    }
    assert len(orders) == 1
