"""Shell lines are split into words within a budget (linter/core/shell_words.py)."""

from __future__ import annotations

import pytest
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
