"""A file's lines are numbered as its parser numbers them, wherever k8slb counts lines (the
suppression comments it reads, the comments add-noqa writes, the lines a report shows):
Python at \\n, \\r\\n and a lone \\r only, libyaml also at NEL and the Unicode line and
paragraph separators. str.splitlines ends a line at all of those and at form feeds too."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st
from k8slb.reading.encodings import source_lines
from k8slb.reading.yamlcompose import compose

ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
# what a comment may hold that str.splitlines would take for a line's end
ODD = st.sampled_from(["", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])


@given(st.lists(st.tuples(ODD, ENDINGS, st.booleans()), min_size=1, max_size=12))
def test_python_lines_are_numbered_as_the_python_parser_numbers_them(
    lines: list[tuple[str, str, bool]],
) -> None:
    """Each statement follows a comment holding one of those characters, and may start
    with a form feed (a page break: Python allows one before a line's indentation)."""
    text = "".join(
        f"# note{odd} more{ending}" + ("\f" if page else "") + f"x{n} = {n}{ending}"
        for n, (odd, ending, page) in enumerate(lines)
    )
    numbered = source_lines("module.py", text)
    for n, statement in enumerate(ast.parse(text).body):
        assert numbered[statement.lineno - 1].lstrip("\f") == f"x{n} = {n}"
    assert "".join(source_lines("module.py", text, keepends=True)) == text


@given(st.lists(st.tuples(st.sampled_from(["", "\x85", "\u2028", "\u2029"]), ENDINGS), min_size=1))
def test_yaml_lines_are_numbered_as_libyaml_numbers_them(lines: list[tuple[str, str]]) -> None:
    text = "".join(f"# note{odd}{ending}k{n}: v{ending}" for n, (odd, ending) in enumerate(lines))
    (document,) = compose(text).documents
    numbered = source_lines("manifest.yaml", text)
    for n in range(len(lines)):
        line, _ = document.data.key_pos[f"k{n}"]
        assert numbered[line - 1] == f"k{n}: v"
