"""A shell line split into words as `shlex.split` does, within a budget: shlex builds a
token a character at a time by copying it, so one word of a megabyte (`$($($(...` with no
closer) costs seconds. No build command is that long; a longer line is refused as a line
shlex cannot split is, with ValueError, which every caller already turns into "no words"."""

from __future__ import annotations

import shlex

MAX_LINE = 64 * 1024  # characters: far above any real command line


# What makes shlex's words other than the line's whitespace-separated ones: its quotes
# and escape, a comment's `#`, and the whitespace `str.split` splits on but shlex does not
_NOT_PLAIN = frozenset("'\"\\#\x0b\x0c\x1c\x1d\x1e\x1f")


def shell_words(line: str, *, comments: bool = False) -> list[str]:
    if len(line) > MAX_LINE:
        raise ValueError(f"a shell line of {len(line)} characters is over {MAX_LINE}")
    if line.isascii() and _NOT_PLAIN.isdisjoint(line):
        return line.split()  # what shlex gives such a line, without its character loop
    return shlex.split(line, comments=comments)
