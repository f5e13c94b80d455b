"""Values echoed from untrusted files, made harmless for a terminal or a CI log.

A manifest is someone else's text: a name holding a newline can start a GitHub Actions
workflow command (`::warning::`), an escape sequence can recolour or rewrite the terminal,
a bidirectional override can make a line read differently from what it says (Trojan
Source). Every human-facing format shows such characters as visible escapes instead.
"""

from __future__ import annotations

from k8slb.core import regex

# C0 and C1 controls, DEL, and the Unicode bidirectional controls.
_UNSAFE = regex.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: regex.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """`text` with every control character written as an escape (`\\n`, `\\x1b`, `\\u202e`)."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text
