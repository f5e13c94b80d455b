"""Suppression markers as written in files: `# k8slb: ignore[...]` comments and
`k8slb.io/ignore` annotations. Read while parsing; judged in suppressions.py."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from k8slb.core import regex
from k8slb.reading.encodings import source_lines

ANNOTATION = "k8slb.io/ignore"


@cache
def comment_pattern(opener: str) -> regex.Pattern[str]:
    """A `k8slb: ignore[...]` comment opened by `opener` (`#`, Go's `//`); after a
    one-character opener the reason ends where another comment begins (`# ... # noqa`)."""
    reason = f"[^{regex.escape(opener)}\\n]*" if len(opener) == 1 else "[^\\n]*"
    return regex.compile(
        rf"{regex.escape(opener)}\s*k8slb:\s*ignore(?:\[(?P<codes>[^\]]*)\])?(?P<reason>{reason})",
        regex.IGNORECASE,
    )


COMMENT = comment_pattern("#")


@dataclass
class Marker:
    path: str
    line: int
    column: int
    codes: tuple[str, ...] | None  # as written (ids, prefixes, names); None: every rule
    reason: str
    kind: str  # "comment" | "annotation"
    text: str  # as written, for messages
    container: str | None = None  # an annotation for one container
    covers_next_line: bool = False  # a comment alone on its line


def split_codes(text: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in text.split(",") if c.strip())


def comment_markers(path: str, text: str, comment: regex.Pattern[str] = COMMENT) -> list[Marker]:
    """`# k8slb: ignore[...]` comments of a YAML or Python file (`comment`: the pattern of
    another language's, from comment_pattern)."""
    if "k8slb" not in text:
        return []
    markers: list[Marker] = []
    for number, line in enumerate(source_lines(path, text), start=1):
        match = comment.search(line) if "k8slb" in line.lower() else None
        if match is None:
            continue
        codes = match.group("codes")
        markers.append(
            Marker(
                path,
                number,
                match.start() + 1,
                split_codes(codes) if codes is not None else None,
                match.group("reason").strip(" :-—"),
                "comment",
                match.group(0).strip(),
                covers_next_line=line[: match.start()].strip() == "",
            )
        )
    return markers
