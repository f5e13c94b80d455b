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

import itertools
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, AnyStr, Generic, Protocol, TypeVar

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


# RE2's binding finds each match through a generator that maps its byte offsets to
# character offsets (a set, a sort and a dict a match), some 3-6 µs a call where the match
# itself takes under 1 (a run on 8,000 files makes some 80,000 calls): every method here
# asks RE2 directly when the text is bytes or ASCII, whose offsets are the bytes', and
# makes the binding's own Match of the same spans (the binding's way, rewritten: the test
# of these methods compares the two). Any other text, or a binding without these names,
# takes the binding's way.
try:
    _UNANCHORED = re2._Anchor.UNANCHORED
    _START, _BOTH = re2._Anchor.ANCHOR_START, re2._Anchor.ANCHOR_BOTH
    _NULL_SPAN, _MATCH = re2._NULL_SPAN, re2._Match
    _DIRECT = hasattr(re2.compile("a"), "_regexp")
except AttributeError:  # another version of the binding
    _DIRECT = False


class Pattern(Generic[AnyStr]):
    """A compiled pattern, with `re.Pattern`'s methods but `pos` (see the module's doc).
    One made by a module's own body (a constant) is compiled when first used (`compile`)."""

    __slots__ = ("_compiled", "_source", "pattern")
    _compiled: Any  # RE2's pattern

    def __init__(self, pattern: AnyStr, flags: int, *, waiting: bool = False) -> None:
        self.pattern: AnyStr = pattern
        inline = "".join(letter for flag, letter in _INLINE if flags & flag)
        if isinstance(pattern, bytes):
            source: str | bytes = (f"(?{inline})".encode() if inline else b"") + pattern
        else:
            source = (f"(?{inline})" if inline else "") + pattern
        self._source: str | bytes = source
        if waiting:
            _WAITING.append(self)
        else:
            self._compiled = _made(source)

    if not TYPE_CHECKING:  # mypy: `_compiled` is a slot; no other name is made here

        def __getattr__(self, name: str) -> Any:
            """The compiled pattern, on its first use (Python asks here only while the
            slot is unset)."""
            if name != "_compiled":
                raise AttributeError(name)
            self._compiled = _made(self._source)
            return self._compiled

    def _data(self, text: AnyStr) -> bytes | None:
        """What RE2 reads of a text whose character offsets are its bytes' (bytes, or
        ASCII), asked of RE2 directly (see `_DIRECT`); None for any other text."""
        if not _DIRECT:
            return None
        if isinstance(text, str):
            return text.encode() if text.isascii() else None
        return text

    def _first(self, anchor: Any, text: AnyStr, data: bytes) -> Match[AnyStr] | None:
        """The first match, as the binding's own `search` (its generator's first) makes
        it."""
        spans = self._compiled._regexp.Match(anchor, data, 0, len(data))
        if spans[0] == _NULL_SPAN:
            return None
        return _MATCH(self._compiled, text, 0, len(text), spans)  # type: ignore[no-any-return]

    def _each(self, text: AnyStr, data: bytes) -> Iterator[Match[AnyStr]]:
        """Every match from the left, as the binding's own `finditer` makes them (an empty
        match moves one character on)."""
        regexp, end, at = self._compiled._regexp, len(data), 0
        while True:
            spans = regexp.Match(_UNANCHORED, data, at, end)
            if spans[0] == _NULL_SPAN:
                return
            yield _MATCH(self._compiled, text, 0, len(text), spans)
            if at == end:
                return
            at = at + 1 if at == spans[0][1] else spans[0][1]

    def search(self, text: AnyStr) -> Match[AnyStr] | None:
        if (data := self._data(text)) is not None:
            return self._first(_UNANCHORED, text, data)
        return self._compiled.search(_readable(text))  # type: ignore[no-any-return]

    def match(self, text: AnyStr) -> Match[AnyStr] | None:
        if (data := self._data(text)) is not None:
            return self._first(_START, text, data)
        return self._compiled.match(_readable(text))  # type: ignore[no-any-return]

    def fullmatch(self, text: AnyStr) -> Match[AnyStr] | None:
        if (data := self._data(text)) is not None:
            return self._first(_BOTH, text, data)
        return self._compiled.fullmatch(_readable(text))  # type: ignore[no-any-return]

    def finditer(self, text: AnyStr) -> Iterator[Match[AnyStr]]:
        if (data := self._data(text)) is not None:
            return self._each(text, data)
        return self._compiled.finditer(_readable(text))  # type: ignore[no-any-return]

    def spans(self, data: bytes) -> Iterator[Sequence[tuple[int, int]]]:
        """Each match's spans from the left, as `finditer`'s (group 0's first, `(-1, -1)`
        for a group that took no part), without a Match object: a scan that reads every
        match's groups paid the binding's `groups()` (some 8 µs a match) for what is a
        slice of the bytes."""
        if not _DIRECT:
            count = range(self._compiled.groups + 1)
            return (tuple(m.span(g) for g in count) for m in self._compiled.finditer(data))
        return self._each_spans(data)

    def _each_spans(self, data: bytes) -> Iterator[Sequence[tuple[int, int]]]:
        regexp, end, at = self._compiled._regexp, len(data), 0
        while True:
            spans = regexp.Match(_UNANCHORED, data, at, end)
            if spans[0] == _NULL_SPAN:
                return
            yield spans
            if at == end:
                return
            at = at + 1 if at == spans[0][1] else spans[0][1]

    def findall(self, text: AnyStr) -> list[Any]:
        data = self._data(text)
        if data is None:
            return self._compiled.findall(_readable(text))  # type: ignore[no-any-return]
        groups, empty = self._compiled.groups, text[:0]
        matches: Iterator[Any] = self._each(text, data)  # the binding's, with `default`
        if not groups:
            return [match.group() for match in matches]
        if groups == 1:
            return [match.groups(default=empty)[0] for match in matches]
        return [match.groups(default=empty) for match in matches]

    def split(self, text: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        data = self._data(text)
        if data is None or maxsplit < 0:
            return self._compiled.split(_readable(text), maxsplit)  # type: ignore[no-any-return]
        groups = range(1, self._compiled.groups + 1)
        return self._pieces(text, data, maxsplit, lambda m: [m[g] for g in groups])

    def sub(
        self, repl: AnyStr | Callable[[Match[AnyStr]], AnyStr], text: AnyStr, count: int = 0
    ) -> AnyStr:
        data = self._data(text)
        if data is None or count < 0:
            return self._compiled.sub(repl, _readable(text), count)  # type: ignore[no-any-return]
        each = (lambda m: [repl(m)]) if callable(repl) else (lambda m: [m.expand(repl)])
        return text[:0].join(self._pieces(text, data, count, each))

    def _pieces(
        self, text: AnyStr, data: bytes, most: int, between: Callable[[Any], list[Any]]
    ) -> list[Any]:
        """The text cut at the first `most` matches (all when 0), with what `between`
        makes of each match put in their places: the binding's own split and sub."""
        matches = self._each(text, data)
        pieces, end = [], 0
        for match in itertools.islice(matches, most) if most else matches:
            pieces.append(text[end : match.start()])
            pieces.extend(between(match))
            end = match.end()
        pieces.append(text[end:])
        return pieces


def compile(pattern: AnyStr, flags: int = 0) -> Pattern[AnyStr]:
    """The pattern, compiled now; or, made by a module's own body (a constant), when first
    used: k8slb's modules hold some 250 such constants, whose compiling took a tenth of
    every run's imports (a pre-commit hook uses a dozen of them). A pattern compiled
    inside a function raises `error` here, as its caller may expect; a constant's are
    held to compile by tests/test_linear_patterns.py (`compile_waiting`)."""
    return Pattern(pattern, flags, waiting=sys._getframe(1).f_code.co_name == "<module>")


def _made(source: str | bytes) -> Any:
    options = re2.Options()
    if isinstance(source, bytes):  # a bytes pattern reads bytes as Latin-1 (the module's doc)
        options.encoding = re2.Options.Encoding.LATIN1
    return re2.compile(source, options)


_WAITING: list[Pattern[Any]] = []  # the constants made so far, compiled when first used


def compile_waiting() -> None:
    """Compile every constant made so far that is not yet (a server, before it forks its
    runs; the test that every constant compiles)."""
    while _WAITING:
        _WAITING.pop()._compiled  # noqa: B018 - `__getattr__` compiles it


def escape(text: str) -> str:
    """`text` as a pattern that matches exactly it."""
    return str(re2.escape(text))
