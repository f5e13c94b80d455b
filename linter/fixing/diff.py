"""The unified diff of `k8slb fix --diff`, in time linear in the file for the edits fixes
make (a few lines inserted or replaced in each of many documents).

difflib compares two line lists in time that grows with the square of their length when
lines repeat, as they do in manifests (`namespace: shop` in every document): a 20,000
document stream took minutes. So the documents are matched first (a document the fixer
did not touch is byte for byte the same), and lines are compared only inside the
documents that differ. The output is an ordinary unified diff that `patch`/`git apply`
read.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterator, Sequence

from k8slb.reading.encodings import UTF8, codec_for, newline_lines
from k8slb.report.printable import printable

Opcode = tuple[str, int, int, int, int]
CONTEXT = 3


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """The diff of the texts, in the file's own encoding."""
    codec = codec_for(path, old) or UTF8
    before = _patch_lines(codec.decode(old, "replace"))
    after = _patch_lines(codec.decode(new, "replace"))
    if before == after:
        return ""
    shown = printable(path)  # the contents stay as they are: the diff must apply
    lines = [f"--- {shown}\n", f"+++ {shown}\n"]
    for line in _hunks(before, after):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)


# patch(1) and `git apply` end a line at \n alone: a form feed, a lone \r or a Unicode line
# separator is part of the line (str.splitlines would cut there, and the diff not apply).
def _patch_lines(text: str) -> list[str]:
    return newline_lines(text)


def _anchors(before: Sequence[str], after: Sequence[str]) -> list[tuple[int, int]]:
    """Lines that occur exactly once in each text, in an order both agree on (the longest
    increasing run, as patience diff takes them): the fixed points of the alignment."""
    count_a: dict[str, int] = {}
    for line in before:
        count_a[line] = count_a.get(line, 0) + 1
    count_b: dict[str, int] = {}
    for line in after:
        count_b[line] = count_b.get(line, 0) + 1
    where_b = {line: j for j, line in enumerate(after) if count_b[line] == 1}
    pairs = [
        (i, where_b[line])
        for i, line in enumerate(before)
        if count_a[line] == 1 and line in where_b
    ]
    # Longest increasing subsequence of the `after` positions, in O(n log n).
    tail_values: list[int] = []  # the smallest last `after` position of each length
    tails: list[int] = []  # the pair that ends it
    previous = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(tail_values, j)
        if length > 0:
            previous[k] = tails[length - 1]
        if length == len(tails):
            tails.append(k)
            tail_values.append(j)
        else:
            tails[length], tail_values[length] = k, j
    chain: list[tuple[int, int]] = []
    k = tails[-1] if tails else -1
    while k >= 0:
        chain.append(pairs[k])
        k = previous[k]
    return chain[::-1]


def _opcodes(before: Sequence[str], after: Sequence[str]) -> list[Opcode]:
    """Line opcodes, as difflib gives them: anchored on the lines unique to both texts,
    with difflib's own matching only in the short stretches between anchors."""
    codes: list[Opcode] = []
    a_at = b_at = 0
    for i, j in [*_anchors(before, after), (len(before), len(after))]:
        if i > a_at or j > b_at:
            gap = difflib.SequenceMatcher(None, before[a_at:i], after[b_at:j], autojunk=False)
            codes += [
                (tag, a_at + x1, a_at + x2, b_at + y1, b_at + y2)
                for tag, x1, x2, y1, y2 in gap.get_opcodes()
            ]
        if i < len(before):
            codes.append(("equal", i, i + 1, j, j + 1))
        a_at, b_at = i + 1, j + 1
    merged: list[Opcode] = []
    for code in codes:
        if merged and merged[-1][0] == code[0]:
            last = merged[-1]
            merged[-1] = (last[0], last[1], code[2], last[3], code[4])
        else:
            merged.append(code)
    return merged


class _Precomputed(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """difflib's hunk grouping, on opcodes computed above."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self.codes = codes

    def get_opcodes(self) -> list[Opcode]:  # type: ignore[override]
        return self.codes


def _range(start: int, stop: int) -> str:
    length = stop - start
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


def _hunks(before: Sequence[str], after: Sequence[str]) -> Iterator[str]:
    for group in _Precomputed(_opcodes(before, after)).get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in before[i1:i2])
                continue
            yield from ("-" + line for line in before[i1:i2])
            yield from ("+" + line for line in after[j1:j2])
