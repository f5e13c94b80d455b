"""Shell lines are split into words within a budget (linter/core/shell_words.py)."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st
from k8slb.core.shell_words import MAX_LINE, shell_words


def test_a_command_line_is_split_as_shlex_splits_it() -> None:
    assert shell_words("docker build -t 'a b' . # tag", comments=True) == [
        "docker",
        "build",
        "-t",
        "a b",
        ".",
    ]


def test_a_line_over_the_budget_is_refused_as_a_line_shlex_cannot_split() -> None:
    # one word of a megabyte ($( with no closer) costs shlex seconds: never handed to it
    with pytest.raises(ValueError, match="over"):
        shell_words("docker build --build-arg S=" + "$(" * MAX_LINE)


@given(
    st.text(alphabet=" \t\r\n\x0b\x0c\x1f\x85ab$(){}=-/.;|&*'\"\\#é", max_size=40),
    st.booleans(),
)
def test_any_line_is_split_exactly_as_shlex_splits_it(line: str, comments: bool) -> None:
    """A plain line is split by `str.split`, not shlex's character loop: the same words,
    and the same refusal, for every line (quotes, escapes, `#`, the whitespace only
    `str.split` knows, non-ASCII)."""
    try:
        expected: list[str] | None = shlex.split(line, comments=comments)
    except ValueError:
        expected = None
    try:
        found: list[str] | None = shell_words(line, comments=comments)
    except ValueError:
        found = None
    assert found == expected
