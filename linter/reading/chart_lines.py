"""From a line of a rendered manifest back to the template line that wrote it, and to the
value that filled it in.

Templates write YAML whose keys mostly stand in the template as they come out: at the same
indentation, under the same parents. So a rendered line is matched to the template lines
with the same key path (the keys above it, by indentation); several candidates are told
apart by the line's text, with each `{{ ... }}` action standing for whatever it printed.
A line no template line writes came from an `include` (or `template`) action: it is
looked for in the named `define` block of the chart's helpers, else it is put on the
template's `kind:` line.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from k8slb.core import regex

_ACTION = regex.compile(r"\{\{.*?\}\}")
_INCLUDE = regex.compile(r'\b(?:include|template)\s+"([^"]+)"')
_DEFINE = regex.compile(r'\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}')
_OPENS = regex.compile(r"\{\{-?\s*(?:if|range|with|define|block)\b")
_END = regex.compile(r"\{\{-?\s*end\s*-?\}\}")
_VALUE_REFERENCE = regex.compile(r"\.Values\.([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)")

Path = tuple[str, ...]


def _only_action(text: str) -> bool:
    return "{{" in text and not _ACTION.sub("", text).strip()


def _key(text: str) -> str | None:
    """The key a line's text starts with (`name: x`, `"a b": x`, `key:`), unquoted; None
    when it starts with none. (A scan: on every line of every template and rendering.)"""
    first = text[:1]
    if first in ('"', "'"):
        closing = text.find(first, 1)
        colon = closing + 1
        while colon < len(text) and text[colon].isspace():
            colon += 1
        if closing < 0 or text[colon : colon + 1] != ":":
            return None
    elif not first or first.isspace() or first in ":#{":
        return None
    else:
        colon = text.find(":", 1)
        if colon < 0 or "#" in text[1:colon]:
            return None
    after = text[colon + 1 : colon + 2]
    return text[:colon].strip("\"'") if not after or after.isspace() else None


def key_paths(lines: list[str], *, template: bool) -> list[Path | None]:
    """Each line's key path (`spec`, `template`, `-`, `name` ...), None for lines that
    write no key (blank, comments, document markers, template-only lines)."""
    return [step[0] if step is not None else None for step in _walk(lines, template=template)]


Items = tuple[int, ...]


def _walk(lines: list[str], *, template: bool) -> list[tuple[Path, Items] | None]:
    """Each line's key path and the list items it stands in, outermost first: the lines
    (1-based) that opened each `-` of its path (a container's `- name:`, then an env var's),
    the line's own last."""
    steps: list[tuple[Path, Items] | None] = []
    stack: list[tuple[int, str, int]] = []  # (column, key or "-", the line that opened it)
    for number, line in enumerate(lines, start=1):
        text = line.rstrip()
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#") or stripped.startswith("---"):
            if stripped.startswith("---"):
                stack = []
            steps.append(None)
            continue
        if template and _only_action(stripped):
            steps.append(None)
            continue
        indent = len(text) - len(stripped)
        tokens: list[tuple[int, str, int]] = []
        rest, column = stripped, indent
        while rest.startswith("- ") or rest == "-":
            tokens.append((column, "-", number))
            after = rest[1:].lstrip()
            column += len(rest) - len(after)
            rest = after
        key = _key(rest)
        if key is not None:
            tokens.append((column, key, number))
        if not tokens:
            steps.append(None)  # a scalar continuing the line above, a flow item...
            continue
        column, first, _ = tokens[0]
        while stack and (
            stack[-1][0] > column
            # a list may stand at its key's own indentation (`containers:` then `- name:`,
            # as kubectl and kustomize write it): an item there stays below the key
            or (stack[-1][0] == column and not (first == "-" and stack[-1][1] != "-"))
        ):
            stack.pop()
        stack += tokens
        items = tuple(opened for _, name, opened in stack if name == "-")
        steps.append((tuple(name for _, name, _ in stack), items))
    return steps


@functools.lru_cache(maxsize=64)
def _literals(template_line: str) -> tuple[str, ...]:
    """The template line's literal text, cut where each action stands; the spaces an
    action's `{{-` or `-}}` trims are not in it (`resources: {{- toYaml . | nindent 2 }}`
    writes `resources:`)."""
    line = template_line.strip()
    pieces: list[str] = []
    start, trim_next = 0, False
    for action in _ACTION.finditer(line):
        piece = line[start : action.start()]
        piece = piece.lstrip() if trim_next else piece
        pieces.append(piece.rstrip() if action.group().startswith("{{-") else piece)
        start, trim_next = action.end(), action.group().endswith("-}}")
    pieces.append(line[start:].lstrip() if trim_next else line[start:])
    return tuple(pieces)


def _fits(template_line: str, text: str) -> bool:
    """Whether `text` is what the template line can write: its literal text, in order,
    with anything where each action stands (found left to right: linear, as a scan)."""
    literals = _literals(template_line)
    if len(literals) == 1:
        return text == literals[0]
    first, *middle, last = literals
    if len(text) < len(first) + len(last) or not (text.startswith(first) and text.endswith(last)):
        return False
    at, end = len(first), len(text) - len(last)
    for piece in middle:
        at = text.find(piece, at, end)
        if at == -1:
            return False
        at += len(piece)
    return True


# A rendered line whose key path more template lines than this share (a key repeated
# thousands of times, a list of thousands of literal items) is not placed: choosing among
# them costs each such line their number, the square of the template's size in all.
MAX_TWINS = 64
# The helper lines a rendered line may have come from, and those times the unplaced
# rendered lines before it, past which it is put at its first fit rather than aligned in
# order (and past which, for the helper lines alone, it is not put in a helper at all).
MAX_ALIGNMENT = 200_000


@dataclass
class TemplateLines:
    """One template and what it rendered to."""

    template: list[str]
    rendered: list[str]

    def __post_init__(self) -> None:
        by_path: dict[Path, list[int]] = {}
        items: dict[int, Items] = {}  # a template line -> the list items it stands in
        for number, step in enumerate(_walk(self.template, template=True), start=1):
            if step is not None:
                by_path.setdefault(step[0], []).append(number)
                items[number] = step[1]
        steps = _walk(self.rendered, template=False)
        candidates: list[list[int]] = []
        for text, step in zip(self.rendered, steps, strict=True):
            found = by_path.get(step[0], []) if step is not None else []
            if len(found) > MAX_TWINS:
                found = []  # past the budget: not placed, never guessed
            if len(found) > 1:
                fitting = [n for n in found if _fits(self.template[n - 1], text.strip())]
                found = fitting or found
            candidates.append(found)
        # Rendered lines come out in template order (a loop repeats a stretch). Between
        # candidates: a list item's first key is the one nearest above the next certain
        # line (its sibling); any other key the one nearest below the previous line's.
        following: list[int | None] = [None] * len(candidates)
        upcoming: int | None = None
        for index in range(len(candidates) - 1, -1, -1):
            following[index] = upcoming
            if len(candidates[index]) == 1:
                upcoming = candidates[index][0]
        self._lines: list[int | None] = []
        last = 0
        for index, found in enumerate(candidates):
            step = steps[index]
            number = index + 1
            # Inside list items the template wrote (a container), only those items' lines
            # can have written it, never a twin line of another container.
            # (The item is the one the line that wrote its `-` stands in: kustomize's build
            # sorts an item's keys, so its `-` may come with another key than the source's.)
            for depth, opened in enumerate(step[1] if step is not None else ()):
                written = self._lines[opened - 1] if opened < number else None
                if written is not None:
                    item = items[written][depth : depth + 1]
                    found = [n for n in found if items[n][depth : depth + 1] == item]
            # a line that says it word for word wrote it rather than one whose action could
            # have printed anything there
            text = self.rendered[index].strip()
            found = [n for n in found if self.template[n - 1].strip() == text] or found
            choice = found[0] if len(found) == 1 else None
            if len(found) > 1:
                after = [n for n in found if n > last]
                ahead = following[index]
                listed = self.rendered[index].lstrip().startswith("- ")
                if listed and ahead is not None and [n for n in after if n < ahead]:
                    choice = max(n for n in after if n < ahead)
                elif after:
                    choice = after[0]
                elif len({items[n] for n in found}) == 1:
                    choice = found[0]  # a loop, within one item: the stretch repeats
                # else: twins in different items (containers), none after the last line
                # placed: which one wrote it is not known, and none is guessed
            self._lines.append(choice)
            last = choice or last

    def helper_line(
        self, rendered_line: int, defines: Mapping[str, Define]
    ) -> tuple[str, int] | None:
        """Where in a helper a rendered line no template line wrote was written (file,
        line): a line with literal text that fits it, in a `define` an `include` names
        between the template lines written around it. The lines the includes wrote come
        out in the order they are included, so the unplaced rendered lines from the one
        written before it are aligned with the helpers' lines in that order: two helpers
        that both write a key (`app.kubernetes.io/name:`) are told apart by which came
        first."""
        index = rendered_line - 1
        if not 0 <= index < len(self._lines) or self._lines[index] is not None:
            return None
        start = max((n for n in self._lines[:index] if n is not None), default=0)
        placed = max((i for i in range(index) if self._lines[i] is not None), default=-1)
        after = [n for n in self._lines[index + 1 :] if n is not None and n > start]
        stop = min(after, default=len(self.template))
        written: list[tuple[str, int, str]] = []  # the includes' literal lines, in order
        for number in range(max(start - 1, 0), stop):
            for name in _INCLUDE.findall(self.template[number]):
                define = defines.get(name)
                if define is None:
                    continue
                for offset, line in enumerate(define.lines):
                    if line.strip() and not _only_action(line.strip()):
                        written.append((define.path, define.first + offset, line))
                if len(written) > MAX_ALIGNMENT:
                    return None  # included past the budget: not placed in a helper
        gap = range(placed + 1, index + 1)
        if len(gap) * len(written) > MAX_ALIGNMENT:
            gap = range(index, index + 1)  # past the budget: this line's first fit alone
        at, found = 0, None
        for rendered in gap:
            text = self.rendered[rendered].strip()
            if not text:
                continue
            # the next helper line on that fits it, else (a loop in a helper) the first
            fits = (k for k in (*range(at, len(written)), *range(at)) if _fits(written[k][2], text))
            found = next(fits, None)
            if found is not None:
                at = found + 1
        if found is None or not _fits(written[found][2], self.rendered[index].strip()):
            return None
        path, line, _ = written[found]
        return path, line

    @property
    def template_lines(self) -> list[int | None]:
        """For each rendered line (0-based), the template line that wrote it, if known."""
        return list(self._lines)

    def line(self, rendered_line: int) -> int:
        """The template line that wrote this rendered line (1-based)."""
        if 0 < rendered_line <= len(self._lines):
            found = self._lines[rendered_line - 1]
            if found is not None:
                return found
        return self.kind_line()

    def kind_line(self) -> int:
        for number, line in enumerate(self.template, start=1):
            if line.startswith("kind:"):
                return number
        return 1

    def value_references(self, template_line: int) -> list[str]:
        """The `.Values.a.b` a template line prints, as `a.b`."""
        if not 0 < template_line <= len(self.template):
            return []
        return _VALUE_REFERENCE.findall(self.template[template_line - 1])


@dataclass(frozen=True)
class Define:
    """A named template of a chart (`{{ define "name" }}`): its file and its lines."""

    path: str
    first: int  # the file's line of `lines[0]`
    lines: tuple[str, ...]


def defines(files: Mapping[str, str]) -> dict[str, Define]:
    """Every `define` block of the chart's files, by name (the block's body: from the line
    after the `define` to the line before its `end`, nested actions left as they are; or
    to the next `define`, which Go's templates never nest: one inside a comment is read
    as one). In one pass over the lines, however many blocks are open."""
    found: dict[str, Define] = {}
    for path, text in files.items():
        lines = text.splitlines()
        names: dict[int, str] = {}  # a define's line -> its name
        ends: dict[int, int] = {}  # a define's line -> the line of its `end`
        # A block ends at an `end` that brings the count of blocks opened since it (this
        # line's openings counted first) to nothing: the count from the file's start is
        # then what it was after the define's line, which is where the define waits.
        waiting: dict[int, list[int]] = {}
        depth = 0
        for number, line in enumerate(lines):
            if "{{" not in line:
                continue  # no action: spared the patterns' calls
            opens = len(_OPENS.findall(line))
            if _END.search(line):
                for start in waiting.pop(depth + opens, []):
                    ends[start] = number
                depth -= len(_END.findall(line))
            depth += opens
            opened = _DEFINE.search(line) if "define" in line else None
            if opened is not None:
                names[number] = opened.group(1)
                waiting.setdefault(depth, []).append(number)
        starts = sorted(names)
        for index, start in enumerate(starts):
            following = starts[index + 1] if index + 1 < len(starts) else len(lines)
            body = tuple(lines[start + 1 : min(ends.get(start, len(lines)), following)])
            found.setdefault(names[start], Define(path, start + 2, body))
    return found


def key_lines(values_text: str) -> dict[Path, int]:
    """Each key path of a values file (`a.b`: the key `b` under `a`) and the line that first
    sets it."""
    found: dict[Path, int] = {}
    for number, path in enumerate(key_paths(values_text.splitlines(), template=False), start=1):
        if path is not None:
            found.setdefault(path, number)
    return found


def value_line(values_text: str, dotted: str) -> int | None:
    """The line of `a.b` in a values file, or None."""
    return key_lines(values_text).get(tuple(dotted.split(".")))
