"""Where things are, in k8slb's terms and in the editor's: k8slb counts a finding's line as
the file's parser does (YAML's lines end where `str.splitlines` ends them, code's at \\n,
\\r\\n or \\r) and its column in characters, 1-based; LSP counts lines ended by \\n, \\r\\n
or \\r and columns in the code units the client and server agreed on (UTF-16 unless
told), 0-based. Both go through a character offset in the decoded text."""

from __future__ import annotations

import bisect
import functools
import itertools
from urllib.parse import unquote, urlparse

from k8slb.reading.encodings import source_lines
from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec


def path_of(uri: str) -> str | None:
    """The file a `file:` URI names; None for any other scheme (`untitled:`, `git:`)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return unquote(parsed.path) or None


@functools.lru_cache(maxsize=65536)  # a judgement names every file with findings
def uri_of(path: str) -> str:
    uri = from_fs_path(path)
    assert uri is not None  # an absolute path always has one
    return str(uri)


def _lsp_line_starts(text: str) -> list[int]:
    """The offset where each of LSP's lines starts (a line ends at \\n, \\r\\n or \\r)."""
    starts = [0]
    at = 0
    while True:
        cr, lf = text.find("\r", at), text.find("\n", at)
        ends = [e for e in (cr, lf) if e >= 0]
        if not ends:
            return starts
        end = min(ends)
        at = end + (2 if text.startswith("\r\n", end) else 1)
        starts.append(at)


class Text:
    """A document's decoded text, with both ways of numbering its lines."""

    def __init__(self, path: str, text: str, codec: PositionCodec) -> None:
        self.text = text
        self._codec = codec
        self._starts = _lsp_line_starts(text)
        lines = source_lines(path, text, keepends=True)
        self._source_starts = [0, *itertools.accumulate(len(line) for line in lines)]

    def offset(self, line: int, column: int) -> int:
        """The character offset of k8slb's (line, column), both 1-based; past the end of
        its line (a column k8slb never gives) it stays on the line."""
        starts = self._source_starts  # each line's start, then the text's end
        number = min(max(line, 1), max(len(starts) - 1, 1))
        end = starts[number] if number < len(starts) else len(self.text)
        return min(starts[number - 1] + max(column, 1) - 1, end)

    def line_end(self, offset: int) -> int:
        """The offset where the text of the LSP line holding `offset` ends (its line break
        and trailing blanks left out)."""
        number = bisect.bisect_right(self._starts, offset) - 1
        end = self._starts[number + 1] if number + 1 < len(self._starts) else len(self.text)
        body = self.text[self._starts[number] : end].rstrip("\r\n").rstrip()
        return max(self._starts[number] + len(body), offset)

    def position(self, offset: int) -> types.Position:
        offset = min(max(offset, 0), len(self.text))
        number = bisect.bisect_right(self._starts, offset) - 1
        before = self.text[self._starts[number] : offset]
        return types.Position(line=number, character=self._units(before))

    def _units(self, text: str) -> int:
        """The length of `text` in the agreed code units (counted by Python's codecs: a
        character at a time in Python cost a judgement a tenth of a second)."""
        if text.isascii():
            return len(text)
        encoding = self._codec.encoding
        if encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        if encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text.encode("utf-16-le", "surrogatepass")) // 2

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))


def contains(span: types.Range, position: types.Position) -> bool:
    at = (position.line, position.character)
    return (span.start.line, span.start.character) <= at <= (span.end.line, span.end.character)


def same_lines(one: types.Range, other: types.Range) -> bool:
    """Whether the ranges share a line: a code action asked for at the cursor is for the
    findings on its line, wherever on it they start."""
    return one.start.line <= other.end.line and other.start.line <= one.end.line
