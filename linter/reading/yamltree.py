"""Compose YAML text into plain data that remembers where every node came from.

`check` reads YAML through ruamel's C composer (`CSafeLoader.get_node`), which gives nodes
with line/column marks at a fraction of the cost of the round-trip loader; the pure-Python
composer is the fallback when `ruamel.yaml.clib` is missing. Nodes become `YMap` / `YSeq`
(a dict / list that also carry positions) and plain scalars.

Aliases are shared, never copied, and the expanded size of a document is bounded, so an
alias bomb ("billion laughs") is rejected in linear time and memory.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, overload

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError


def _c_loader() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from ruamel.yaml.cyaml import CSafeLoader
        except ImportError:  # pragma: no cover - only without ruamel.yaml.clib
            return None
        return CSafeLoader


C_LOADER: Any = _c_loader()  # about 20 times faster than the pure-Python composer

# Deeper documents are refused before they reach a composer: the C composer recurses once
# per level and overflows the native stack (a crash, not an exception) some 10^4 levels
# down, and the tree builder needs Python frames for each level. Real manifests nest some
# 20 levels; a large CRD schema about 40.
MAX_NESTING = 200
# A line whose indentation and block indicators (`- - - x`) are this long may open that
# many levels; below it (and with fewer brackets than that) no exact count is needed.
_DEEP_LINE = re.compile(rf"^[ \t?:-]{{{MAX_NESTING // 2 - 1},}}", re.MULTILINE)

# A document whose aliases expand past this many nodes is refused. Real manifests stay far
# below it (a large CRD has some 10^4 nodes); a billion-laughs file reaches it at once.
MAX_EXPANDED_NODES = 1_000_000

Pos = tuple[int, int]
"""1-based (line, column)."""

_TAG = "tag:yaml.org,2002:"


class Positions(Mapping[str, Pos]):
    """A read-only view of one column of a mapping's position table: where its keys are
    written (`key_pos`) or where their values start (`value_pos`)."""

    __slots__ = ("_at", "_spots")

    def __init__(self, spots: dict[str, tuple[int, int, int, int]], at: int) -> None:
        self._spots, self._at = spots, at

    def __getitem__(self, key: str) -> Pos:
        spot = self._spots[key]
        return spot[self._at], spot[self._at + 1]

    @overload  # type: ignore[override]
    def get(self, key: str) -> Pos | None: ...

    @overload
    def get(self, key: str, default: Pos) -> Pos: ...

    def get(self, key: str, default: Pos | None = None) -> Pos | None:  # faster than Mapping's
        spot = self._spots.get(key)
        return (spot[self._at], spot[self._at + 1]) if spot is not None else default

    def __contains__(self, key: object) -> bool:
        return key in self._spots

    def __iter__(self) -> Iterator[str]:
        return iter(self._spots)

    def __len__(self) -> int:
        return len(self._spots)


class YMap(dict[str, Any]):
    """A mapping with the positions of itself, its keys and its values: one table of
    (key line, key column, value line, value column) per key, rather than two dicts of
    pairs (a manifest has tens of thousands of mappings: memory, and pickling)."""

    __slots__ = ("pos", "spots")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.spots: dict[str, tuple[int, int, int, int]] = {}

    @property
    def key_pos(self) -> Positions:
        return Positions(self.spots, 0)

    @property
    def value_pos(self) -> Positions:
        return Positions(self.spots, 2)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as plain tuples: 4x faster to load than the default for a dict subclass
        # with slots, which matters for the parse cache and the parallel parse.
        return (_ymap, (self.pos, tuple(self.items()), self.spots))


class YSeq(list[Any]):
    """A sequence with the positions of itself and its items."""

    __slots__ = ("item_pos", "pos")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.item_pos: list[Pos] = []

    def __reduce__(self) -> tuple[Any, ...]:
        return (_yseq, (self.pos, tuple(self), self.item_pos))


def _ymap(
    pos: Pos, items: tuple[tuple[str, Any], ...], spots: dict[str, tuple[int, int, int, int]]
) -> YMap:
    mapping = YMap(pos)
    mapping.update(items)
    mapping.spots = spots
    return mapping


def _yseq(pos: Pos, items: tuple[Any, ...], item_pos: list[Pos]) -> YSeq:
    sequence = YSeq(pos)
    sequence.extend(items)
    sequence.item_pos = item_pos
    return sequence


@dataclass(frozen=True)
class Document:
    index: int
    data: Any  # YMap, YSeq, a scalar, or None for an empty document
    pos: Pos  # where the document's root node starts


class YAMLProblem(Exception):
    """The text (or one document of it) is not usable YAML."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _pos(node: Node, line_offset: int) -> Pos:
    mark = node.start_mark
    return (mark.line + 1 + line_offset, mark.column + 1)


def _tag(node: Node) -> str:
    """`node.tag` without ruamel's string formatting on the common, handle-less path."""
    ctag = node.ctag
    return ctag.suffix if ctag.handle is None else str(ctag)


def _scalar(node: ScalarNode) -> Any:
    tag, value = _tag(node), node.value
    if tag == _TAG + "str":
        return value
    if tag == _TAG + "null":
        return None
    if tag == _TAG + "bool":
        return value.lower() in ("true", "yes", "on", "y")
    if tag == _TAG + "int":
        text = value.replace("_", "")
        for base in (0, 10):
            try:
                return int(text, base)
            except ValueError:
                continue
        return value
    if tag == _TAG + "float":
        text = value.replace("_", "").lower()
        if text.lstrip("+-") == ".inf":
            return -math.inf if text.startswith("-") else math.inf
        if text == ".nan":
            return math.nan
        try:
            return float(text)
        except ValueError:
            return value
    return value  # timestamps, binary and custom tags stay text


def _key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        value = _scalar(node)
        if isinstance(value, bool):
            return "true" if value else "false"
        return "null" if value is None else str(value)
    raise YAMLProblem("a mapping key that is not a scalar is not supported", *_pos(node, 0))


_STR = _TAG + "str"
_MERGE = _TAG + "merge"


class _Builder:
    """Turns one document's node graph into YMap/YSeq/scalars, sharing aliased nodes.

    This runs for every node of every manifest, so the common case (a plain string, a
    block mapping of string keys, no aliases) takes the shortest path."""

    def __init__(self, line_offset: int, shared: bool = True) -> None:
        self.line_offset = line_offset
        self.shared = shared  # aliases possible: remember built collections by node
        self.built: dict[int, Any] = {}
        self.sizes: dict[int, int] = {}

    def size(self, node: Node) -> int:
        """Expanded node count, memoised so that shared (aliased) nodes cost one visit."""
        key = id(node)
        known = self.sizes.get(key)
        if known is not None:
            return known
        total = 1
        if isinstance(node, MappingNode):
            for k, v in node.value:
                total += self.size(k) + self.size(v)
                if total > MAX_EXPANDED_NODES:
                    break
        elif isinstance(node, SequenceNode):
            for item in node.value:
                total += self.size(item)
                if total > MAX_EXPANDED_NODES:
                    break
        self.sizes[key] = total
        return total

    def build(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):  # immutable: never needs the alias memo
            ctag = node.ctag
            if ctag.handle is None and ctag.suffix == _STR:
                return node.value
            return _scalar(node)
        if self.shared:
            known = self.built.get(id(node))
            if known is not None:
                return known
        if isinstance(node, MappingNode):
            return self._mapping(node)
        if not isinstance(node, SequenceNode):  # pragma: no cover - only three kinds exist
            raise YAMLProblem(f"unexpected node {node!r}", *_pos(node, self.line_offset))
        seq = YSeq(_pos(node, self.line_offset))
        if self.shared:
            self.built[id(node)] = seq
        offset = self.line_offset
        item_pos = seq.item_pos
        for item in node.value:
            seq.append(self.build(item))
            mark = item.start_mark
            item_pos.append((mark.line + 1 + offset, mark.column + 1))
        return seq

    def _mapping(self, node: MappingNode) -> YMap:
        offset = self.line_offset
        mapping = YMap(_pos(node, offset))
        if self.shared:
            self.built[id(node)] = mapping
        spots = mapping.spots
        merged: list[YMap] = []
        for key_node, value_node in node.value:
            ctag = key_node.ctag
            if type(key_node) is ScalarNode and ctag.handle is None and ctag.suffix == _STR:
                key = key_node.value
            elif _tag(key_node) == _MERGE:
                merged.extend(self._merge_sources(value_node))
                continue
            else:
                key = _key_text(key_node)
            mark = key_node.start_mark
            if key in spots:
                raise YAMLProblem(
                    f"duplicate key {key!r} in a mapping", mark.line + 1 + offset, mark.column + 1
                )
            mapping[key] = self.build(value_node)
            start = value_node.start_mark
            spots[key] = (
                mark.line + 1 + offset,
                mark.column + 1,
                start.line + 1 + offset,
                start.column + 1,
            )
        for source in merged:  # `<<: *base`: explicit keys win, earlier sources win
            for key, value in source.items():
                if key not in mapping:
                    mapping[key] = value
                    spots[key] = source.spots[key]
        return mapping

    def _merge_sources(self, node: Node) -> list[YMap]:
        nodes = node.value if isinstance(node, SequenceNode) else [node]
        sources = [self.build(n) for n in nodes]
        if not all(isinstance(s, YMap) for s in sources):
            raise YAMLProblem("a merge key (<<) needs a mapping", *_pos(node, self.line_offset))
        return sources


def _problem_from(error: YAMLError, text: str, line_offset: int) -> YAMLProblem:
    if isinstance(error, MarkedYAMLError) and (error.problem_mark or error.context_mark):
        mark = error.problem_mark or error.context_mark
        message = error.problem or error.context or "invalid YAML"
        return YAMLProblem(message, mark.line + 1 + line_offset, mark.column + 1)
    if isinstance(error, ReaderError):  # a character YAML does not allow
        at = min(error.position, len(text))
        line = text.count("\n", 0, at) + 1 + line_offset
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        return YAMLProblem(f"character {error.character!r} is not allowed in YAML", line, column)
    return YAMLProblem(str(error) or "invalid YAML", 1 + line_offset, 1)


def _nodes(text: str, pure: bool) -> Iterator[Node]:
    """The root node of each document, from the C composer unless `pure` (or no C)."""
    if pure or C_LOADER is None:
        yield from YAML(typ="safe", pure=True).compose_all(text)
        return
    yield from _from_c_loader(text, "node")


def _events(text: str) -> Iterator[Any]:
    """The parser's events, from the C parser where there is one."""
    if C_LOADER is None:  # pragma: no cover - only without ruamel.yaml.clib
        yield from YAML(typ="safe", pure=True).parse(text)
        return
    yield from _from_c_loader(text, "event")


def _from_c_loader(text: str, what: str) -> Iterator[Any]:
    """Nodes or events from the C loader (`check_node`/`get_node` and the like), which
    is disposed of however the caller stops."""
    loader = C_LOADER(text)
    check, get = getattr(loader, f"check_{what}"), getattr(loader, f"get_{what}")
    try:
        while check():
            yield get()
    finally:
        loader.dispose()


def _documents_of(text: str, line_offset: int, pure: bool) -> Iterator[tuple[Any, Pos]]:
    """Yield each document's (data, position); raise YAMLProblem at the first bad one."""
    nodes = _nodes(text, pure)
    may_alias = "&" in text  # without an anchor there is no alias to expand
    while True:
        try:
            node = next(nodes, None)
        except YAMLError as error:
            raise _problem_from(error, text, line_offset) from None
        except RecursionError:
            raise YAMLProblem("nesting is too deep", 1 + line_offset, 1) from None
        if node is None:
            return
        line, column = _pos(node, line_offset)
        builder = _Builder(line_offset, shared=may_alias)
        try:
            if may_alias and builder.size(node) > MAX_EXPANDED_NODES:
                raise YAMLProblem(
                    f"aliases expand this document past {MAX_EXPANDED_NODES:,} nodes "
                    "(an alias bomb?); refusing to expand it",
                    line,
                    column,
                )
            data = builder.build(node)
        except RecursionError:
            raise YAMLProblem("nesting is too deep", line, column) from None
        yield data, (line, column)


def _split_documents(text: str) -> Iterator[tuple[int, str]]:
    """Cut a stream at its `---` lines: (line offset, text) of each piece, so one broken
    document does not hide the others (a YAML parser cannot resume after an error)."""
    lines = text.splitlines(keepends=True)
    start = 0
    for number, line in enumerate(lines):
        if number > start and line.startswith("---") and line[3:4] in ("", " ", "\t", "\n", "\r"):
            yield start, "".join(lines[start:number])
            start = number
    yield start, "".join(lines[start:])


@dataclass(frozen=True)
class ComposeResult:
    documents: list[Document]
    problems: list[tuple[int, YAMLProblem]]  # (document index, problem)


_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)


def _document_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the text between document markers: flow nesting cannot cross one
    (a marker at the start of a line ends any flow collection or quoted string)."""
    start = 0
    for marker in _DOCUMENT_MARKER.finditer(text):
        yield start, marker.start()
        start = marker.end()
    yield start, len(text)


def _too_deep(text: str) -> tuple[int, YAMLProblem] | None:
    """(document index, problem) where `text` nests deeper than MAX_NESTING, if it does.
    A byte count settles almost every file; the rest are counted exactly from the parser's
    events, which (unlike the composer) keeps its state on the heap, not the stack."""
    if not _DEEP_LINE.search(text) and all(
        text.count("[", start, end) + text.count("{", start, end) < MAX_NESTING // 2
        for start, end in _document_spans(text)
    ):
        return None
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent, DocumentStartEvent

    depth, document = 0, -1
    try:
        for event in _events(text):
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING:
                    mark = event.start_mark
                    message = f"nesting deeper than {MAX_NESTING} levels: not read"
                    return document, YAMLProblem(message, mark.line + 1, mark.column + 1)
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
            elif isinstance(event, DocumentStartEvent):
                document += 1
    except YAMLError:
        return None  # broken before it got too deep: the composer reports it
    return None


# `fix` reads the same text up to three times (the check, the read-back of its edits, the
# next pass's check); composing is most of the cost, and its results are never changed.
@functools.lru_cache(maxsize=4)
def compose(text: str, *, pure: bool = False) -> ComposeResult:
    """Every document of a YAML stream, with the problems of those that do not parse.
    `pure` forces the pure-Python composer (the fallback where the C one is missing).
    The result is shared by every caller with the same text: never change it."""
    deep = _too_deep(text)
    if deep is not None:
        return ComposeResult([], [(max(deep[0], 0), deep[1])])
    try:
        stream = _documents_of(text, 0, pure)
        return ComposeResult([Document(i, d, p) for i, (d, p) in enumerate(stream)], [])
    except YAMLProblem:
        pass
    # Slow path, only for broken files: compose each `---` piece on its own.
    documents: list[Document] = []
    problems: list[tuple[int, YAMLProblem]] = []
    index = 0
    for offset, piece in _split_documents(text):
        try:
            parsed = list(_documents_of(piece, offset, pure))
        except YAMLProblem as problem:
            problems.append((index, problem))
            index += 1
            continue
        for data, pos in parsed:
            documents.append(Document(index, data, pos))
            index += 1
    return ComposeResult(documents, problems)
