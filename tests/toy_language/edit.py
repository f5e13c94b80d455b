"""Dial's editor: a line's target replaced, `round_robin` added after it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from k8slb.core.edits import CodeEdit, Refused

from .dialect import DialEdit

_CALL = re.compile(r"^(?P<head>\s*dial\s+)(?P<target>\S+)")


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    lines = text.splitlines(keepends=True)
    for change in edits:
        if not isinstance(change, DialEdit) or not 0 < change.line <= len(lines):
            raise Refused("not a dial edit")
        line = lines[change.line - 1]
        call = _CALL.match(line)
        if call is None:
            raise Refused("no dial call on that line")
        if change.op == "set-target":
            line = call.group("head") + change.value + line[call.end() :]
        elif "round_robin" not in line:
            rest = line[call.end() :]
            line = line[: call.end()] + " round_robin" + rest
        lines[change.line - 1] = line
    return "".join(lines)


def same_code(old: str, new: str, path: str) -> bool:
    def code(text: str) -> list[str]:
        return [line.split("--", 1)[0].rstrip() for line in text.splitlines()]

    return code(old) == code(new)
