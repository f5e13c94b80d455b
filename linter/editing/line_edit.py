"""Lines replaced in a file that has no editor of its own (a Dockerfile): each edit names
the line and the text it must find there, so a file changed since it was read is refused
rather than edited in the wrong place."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.core.edits import LineEdit, Refusal


def edit_lines(text: str, edits: Sequence[LineEdit], refusals: list[str]) -> str:
    """The text with each edit's line replaced; an edit whose line does not hold its
    `old` text (or holds a continuation: the instruction goes on below) is refused."""
    lines = text.splitlines(keepends=True)
    for edit in edits:
        number = edit.line - 1
        if not 0 <= number < len(lines):
            refusals.append(Refusal(f"line {edit.line} is past the end of the file", edit))
            continue
        line = lines[number]
        body = line.rstrip("\r\n")
        if body.strip() != edit.old:
            refusals.append(Refusal(f"line {edit.line} no longer reads {edit.old!r}", edit))
            continue
        indent = body[: len(body) - len(body.lstrip())]
        lines[number] = indent + edit.new + line[len(body) :]
    return "".join(lines)
