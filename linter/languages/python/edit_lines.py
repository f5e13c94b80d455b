"""Keeping Python fixes to the project's line length, so that a formatter run after
`k8slb fix` does not rewrite them.

The length is the one the project gives its formatter: `line-length` in the nearest
`ruff.toml`/`.ruff.toml`, or in `[tool.ruff]`/`[tool.black]` of the nearest pyproject.toml
(88, their default, when the table is there without it). Nothing configured: 88 too,
black's and ruff's default, which a project that formats without a setting gets.

A call or literal that a fix makes too long is split as black and ruff split it: one
argument or element per line, indented one level, with a trailing comma; then, if an
argument is still too long (the options list a fix added), that list is split too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import libcst as cst
from k8slb.reading.repository import upward

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FORMATTER_DEFAULT = 88
MAX_CONFIG_BYTES = 1 << 20  # a configuration file larger than this is not read


def line_length_for(path: str) -> int:
    """The line length configured for this Python file, else the formatters' default."""
    length = _for_folder(Path(path).resolve().parent)
    return FORMATTER_DEFAULT if length is None else length


_known: dict[Path, int | None] = {}  # by folder: a monorepo's modules share their parents


def _for_folder(folder: Path) -> int | None:
    """The length configured in `folder`, else in the nearest folder above it."""
    below: list[Path] = []  # the folders on the way up, which get the same answer
    length = None
    # up to the repository's top: a ruff.toml in a shared folder above is no one's setting
    for candidate in map(Path, upward(str(folder))):
        if candidate in _known:
            length = _known[candidate]
            break
        below.append(candidate)
        length = _configured(candidate)
        if length is not None:
            break
    _known.update(dict.fromkeys(below, length))
    return length


def _configured(folder: Path) -> int | None:
    """The length a configuration file in `folder` gives; None when none has a say."""
    for name in ("ruff.toml", ".ruff.toml"):
        data = _toml(folder / name)
        if data is not None:
            return _length(data)
    pyproject = _toml(folder / "pyproject.toml")
    tools = pyproject.get("tool", {}) if pyproject is not None else {}
    for tool in ("ruff", "black"):
        table = tools.get(tool) if isinstance(tools, dict) else None
        if isinstance(table, dict):
            return _length(table)
    return None


def _length(table: dict[str, Any]) -> int:
    value = table.get("line-length", FORMATTER_DEFAULT)
    return value if isinstance(value, int) and 20 <= value <= 1000 else FORMATTER_DEFAULT


def _toml(path: Path) -> dict[str, Any] | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        data: dict[str, Any] = tomllib.loads(path.read_text("utf-8"))
        return data
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _break(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break, then the enclosing block's indentation plus `indent`."""
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=True,
        last_line=cst.SimpleWhitespace(indent),
    )


def _one_per_line(items: Sequence[Any], inner: str, outer: str) -> list[Any]:
    """Each item on its own line at `inner`, a trailing comma after the last, and the
    closing bracket's line at `outer`."""
    return [
        item.with_changes(
            comma=cst.Comma(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=_break(inner if number < len(items) - 1 else outer),
            )
        )
        for number, item in enumerate(items)
    ]


def split_call(call: cst.Call, level: str, step: str) -> cst.Call:
    """`f(a, b)` as `f(` / `a,` / `b,` / `)`, each argument one `step` deeper than `level`."""
    inner = level + step
    args = _one_per_line(call.args, inner, level)
    return call.with_changes(whitespace_before_args=_break(inner), args=args)


def split_sequence(node: cst.List | cst.Tuple, level: str, step: str) -> cst.List | cst.Tuple:
    """A list or tuple literal one element per line, one `step` deeper than `level`."""
    inner = level + step
    elements = _one_per_line(node.elements, inner, level)
    if isinstance(node, cst.List):
        return node.with_changes(
            elements=elements, lbracket=cst.LeftSquareBracket(whitespace_after=_break(inner))
        )
    if not node.lpar:
        return node
    return node.with_changes(
        elements=elements, lpar=[cst.LeftParen(whitespace_after=_break(inner)), *node.lpar[1:]]
    )


def balanced(prefix: str) -> bool:
    """Whether no bracket is open in `prefix` (the text before a node on its line): only
    then does the node's line start at the block's indentation, as the splits assume."""
    depth = 0
    for char in prefix:
        depth += char in "([{"
        depth -= char in ")]}"
    return depth == 0 and "'" not in prefix and '"' not in prefix
