"""TOML texts read within a budget.

tomllib's time grows with the square of a dotted key's parts: one 256 kB key `a.a.a...`
takes 17 s, then fails for memory at 2 GB. A text with a line of more dots than any real
key holds is refused before it is parsed; what reads TOML gets nothing from it, as from a
text that does not parse.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_LINE_DOTS = 256  # in one line of a TOML text
TOMLDecodeError = tomllib.TOMLDecodeError  # where a text does not parse, with its line


def deep_keys(text: str) -> bool:
    """Whether a line of a TOML text has more than MAX_LINE_DOTS dots, as a key of that
    many parts does. A line of values that many dots hold (a long array of IP addresses)
    refuses the text too."""
    return any(line.count(".") > MAX_LINE_DOTS for line in text.split("\n"))


def loads(text: str) -> dict[str, Any] | None:
    """The TOML document, or None where its keys are too deep to parse in linear time
    (deep_keys), it does not parse, or its arrays nest past the stack."""
    if deep_keys(text):
        return None
    try:
        return parse(text)
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return None


def parse(text: str) -> dict[str, Any]:
    """The TOML document, for a reader that reports why a text is not read: raises
    TOMLDecodeError, and RecursionError where arrays nest past the stack. Call it on a
    text deep_keys has passed."""
    document: dict[str, Any] = tomllib.loads(text)
    return document
