"""How a file's bytes become text, and the text bytes again, in the file's own encoding.

YAML: UTF-8, or UTF-16/UTF-32 announced by a byte-order mark (what YAML 1.2 allows).
Python: PEP 263, a UTF-8 BOM or a `# -*- coding: NAME -*-` line, else UTF-8. `check`
reads with these rules, and `fix` writes back with them, BOM and byte order kept.
"""

from __future__ import annotations

import codecs
import functools
import io
import tokenize
from collections.abc import MutableMapping
from pathlib import Path

from k8slb.core.record import record

_YAML_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@record
class TextCodec:
    codec: str  # a codec that neither reads nor writes a BOM
    bom: bytes = b""

    def decode(self, data: bytes, errors: str = "strict") -> str:
        """Raises UnicodeDecodeError when the bytes are not in this encoding (strict)."""
        return data[len(self.bom) :].decode(self.codec, errors)

    def encode(self, text: str) -> bytes:
        """Raises UnicodeEncodeError when the text has a character the encoding lacks."""
        return self.bom + text.encode(self.codec)


UTF8 = TextCodec("utf-8")


def yaml_codec(data: bytes) -> TextCodec:
    for bom, codec in _YAML_BOMS:
        if data.startswith(bom):
            return TextCodec(codec, bom)
    return UTF8


def python_codec(data: bytes) -> TextCodec | None:
    """The encoding PEP 263 gives the file; None for a declaration Python rejects."""
    try:
        name, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return None
    if name == "utf-8-sig":
        return TextCodec("utf-8", codecs.BOM_UTF8)
    return TextCodec(name)


def codec_for(path: str, data: bytes) -> TextCodec | None:
    """The encoding `check` reads the file in (Python by its name, as the walk decides)."""
    return python_codec(data) if path.lower().endswith(".py") else yaml_codec(data)


# Python ends a line at \n, \r\n or a lone \r (Go at \n: a lone \r, which gofmt never leaves,
# is taken for an end too). str.splitlines also ends one at a form feed, \v, \x1c-\x1e, NEL
# and the Unicode line and paragraph separators: one of those in a module (a form feed
# between its sections) put every later line off by one, and a comment meant for a
# finding's line on another. libyaml ends a YAML line where str.splitlines does (NEL and
# the separators too; YAML allows none of the other characters).
def newline_lines(text: str) -> list[str]:
    """The text's lines ended at \n alone, each with its \n (the last may have none)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _at_lone_returns(line: str) -> list[str]:
    """A line cut after each \r that is not its \r\n ending."""
    body = line.removesuffix("\n").removesuffix("\r")
    lines = [piece + "\r" for piece in body.split("\r")]
    lines[-1] = lines[-1][:-1] + line[len(body) :]
    return lines if lines[-1] else lines[:-1]


def code_lines(text: str, *, keepends: bool = False) -> list[str]:
    """The lines of Python or Go source, numbered as their parsers number them."""
    lines = newline_lines(text)
    if "\r" in text:
        lines = [piece for line in lines for piece in _at_lone_returns(line)]
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def source_lines(path: str, text: str, *, keepends: bool = False) -> list[str]:
    """The file's lines, numbered as its parser numbers them (YAML unless it is code)."""
    if path.lower().endswith((".py", ".go")):
        return code_lines(text, keepends=keepends)
    return text.splitlines(keepends)


@functools.lru_cache(maxsize=8)
def text_lines(path: str, data: bytes) -> list[str]:
    """The file's lines for showing them (undecodable bytes replaced); kept for the few
    files last asked for, since their findings come one after another."""
    return source_lines(path, (codec_for(path, data) or UTF8).decode(data, "replace"))


def file_bytes(path: str, contents: MutableMapping[str, bytes]) -> bytes:
    """The file's bytes as the run read them, or read now (and kept in `contents`) when the
    run did not (a result answered from the cache reads no file). Raises OSError."""
    data = contents.get(path)
    if data is None:
        data = contents[path] = Path(path).read_bytes()
    return data
