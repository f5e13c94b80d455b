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


# The shell's control operators, each a word of its own: they end a simple command.
CONTROL_OPERATORS = frozenset({"&&", "||", ";", ";;", "|", "|&", "&"})
# The shell's redirection operators, longest first (`2>&1`, `>log`, `2>/dev/null`,
# `&>out`, `<<<word`), after a file descriptor's number or none.
_REDIRECTIONS = ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", "<&", ">|", "<>", ">", "<")


def redirection(word: str) -> int:
    """How many words a redirection that starts at `word` takes: 1 with its target in it
    (`2>&1`, `>build.log`), 2 when its target is the next word (`> build.log`, `2>
    /dev/null`), 0 when the word is no redirection (a word the shell split on a quote
    that holds `>` is taken as one: shlex gives it without its quotes)."""
    rest = word.lstrip("0123456789")
    for operator in _REDIRECTIONS:
        if rest.startswith(operator):
            return 1 if rest[len(operator) :] else 2
    return 0


def command_words(words: list[str]) -> list[str]:
    """The words of a command line's first simple command: up to its first control
    operator (`&&`, `;`, `|`, ...), less its redirections and their targets (`docker build
    -t x ../.. 2>&1 | sed ...` is `docker build -t x ../..`)."""
    found: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in CONTROL_OPERATORS:
            break
        taken = redirection(word)
        if taken:
            index += taken
            continue
        found.append(word)
        index += 1
    return found
