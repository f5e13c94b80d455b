"""Regular expressions that run in time linear in their input: RE2 (google-re2), for every
pattern k8slb applies to what a repository holds (files, their names, the values in them).

Python's `re` backtracks: one line of a pull request can take it minutes or forever (a
`.properties` line of 44 backslashes, `import (` with no `)`, a word, many spaces and a
word). RE2 has no backreferences and no lookarounds; a pattern that needs them is a scan.
`tests/test_linear_patterns.py` fails on any use of `re` outside its reasoned list.

RE2 is linear in the text of one call; `finditer`, `findall`, `sub` and `split` make one
call a match. A pattern whose preferred branch may run to the end of the text before it
fails (`\\([^)]*\\)|[^\\n]+` on a `(` no `)` closes) reads the rest of the text again
for each match: quadratic. Keep such a branch from crossing lines, or scan it
(code/projects.py's `_from_imports`).

What differs from `re`, on purpose or by RE2:
- the flags are this module's (`IGNORECASE`, `MULTILINE`, `DOTALL`);
- `\\z` ends the text (`re`'s `\\Z`); without MULTILINE, `$` is the end of the text only
  (`re` also takes a last `\\n`);
- `\\w`, `\\d`, `\\b` and `\\s` are ASCII's (`\\s` without `\\v`);
- a bytes pattern reads bytes as Latin-1 (one character a byte, as `re` does), so bytes
  that are not UTF-8 still match `.` and `[^...]`;
- no `pos` argument: RE2's Python binding encodes the whole text again for each call, so
  a loop of calls from increasing positions would be quadratic; slice or scan instead;
- a text with a lone surrogate (a file name's undecodable byte) is read with U+FFFD in
  its place, which keeps every offset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic, Protocol, TypeVar

import re2  # type: ignore[import-untyped]

IGNORECASE = 1
MULTILINE = 2
DOTALL = 4
_INLINE = ((IGNORECASE, "i"), (MULTILINE, "m"), (DOTALL, "s"))

error = re2.error

_S_co = TypeVar("_S_co", str, bytes, covariant=True)
_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)


class Match(Protocol[_S_co]):
    """A match, as `re.Match` (groups by number or name; offsets by number)."""

    def group(self, group: int | str = 0, /) -> _S_co | Any: ...
    def groups(self) -> tuple[_S_co | Any, ...]: ...
    def groupdict(self) -> dict[str, _S_co | Any]: ...
    def start(self, group: int = 0, /) -> int: ...
    def end(self, group: int = 0, /) -> int: ...
    def span(self, group: int = 0, /) -> tuple[int, int]: ...
    def __getitem__(self, group: int | str, /) -> _S_co | Any: ...


def _readable(text: AnyStr) -> AnyStr:
    """The text as RE2 can read it: UTF-8 has no lone surrogates (see the module's doc)."""
    if isinstance(text, str) and not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            return text.translate(_SURROGATES)
    return text


class Pattern(Generic[AnyStr]):
    """A compiled pattern, with `re.Pattern`'s methods but `pos` (see the module's doc)."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: AnyStr, flags: int) -> None:
        self.pattern: AnyStr = pattern
        inline = "".join(letter for flag, letter in _INLINE if flags & flag)
        options = re2.Options()
        if isinstance(pattern, bytes):
            options.encoding = re2.Options.Encoding.LATIN1
            source: str | bytes = (f"(?{inline})".encode() if inline else b"") + pattern
        else:
            source = (f"(?{inline})" if inline else "") + pattern
        self._compiled = re2.compile(source, options)

    def search(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._compiled.search(_readable(text))  # type: ignore[no-any-return]

    def match(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._compiled.match(_readable(text))  # type: ignore[no-any-return]

    def fullmatch(self, text: AnyStr) -> Match[AnyStr] | None:
        return self._compiled.fullmatch(_readable(text))  # type: ignore[no-any-return]

    def finditer(self, text: AnyStr) -> Iterator[Match[AnyStr]]:
        return self._compiled.finditer(_readable(text))  # type: ignore[no-any-return]

    def findall(self, text: AnyStr) -> list[Any]:
        return self._compiled.findall(_readable(text))  # type: ignore[no-any-return]

    def split(self, text: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self._compiled.split(_readable(text), maxsplit)  # type: ignore[no-any-return]

    def sub(
        self, repl: AnyStr | Callable[[Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0
    ) -> AnyStr:
        return self._compiled.sub(repl, _readable(text), count)  # type: ignore[no-any-return]


def compile(pattern: AnyStr, flags: int = 0) -> Pattern[AnyStr]:
    return Pattern(pattern, flags)


def escape(text: str) -> str:
    """`text` as a pattern that matches exactly it."""
    return str(re2.escape(text))
