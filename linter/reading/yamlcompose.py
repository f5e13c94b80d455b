"""Compose YAML text into plain data that remembers where every node came from.

`check` builds its trees straight from libyaml's parser events: no node graph, no second
walk over it, and the type resolver asked only for plain scalars that may not be text.
Events become `YMap` / `YSeq` (a dict / list that also carry positions) and scalars. Where
native/yamltree.c was compiled (`_native`), that is done in C, calling back here for what
is rare (`resolved_scalar`, `merge_key`, `key_text`, `_apply_merges`, `_libyaml_error`);
otherwise `_document` does it in Python, from the events of ruamel's C loader (the same
libyaml), or of the pure-Python parser where `ruamel.yaml.clib` is missing.
`tests/yaml_reference.py` keeps the composer-based builder this replaced, as the reference
a property test compares both builders against.

Aliases are shared, never copied, and the expanded size of a document is bounded, so an
alias bomb ("billion laughs") is rejected in linear time and memory.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from k8slb.core.record import record
from k8slb.reading.yamltree import Document, Pos, YMap, YSeq
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.parser import ParserError
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import Resolver
from ruamel.yaml.scanner import ScannerError
from ruamel.yaml.tag import Tag


def _c_classes() -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from ruamel.yaml.cyaml import CSafeLoader
        except ImportError:  # pragma: no cover - only without ruamel.yaml.clib
            return None, None
        return CSafeLoader, CSafeLoader.__bases__[0]  # CParser, from ruamel.yaml.clib


# The C composer, about 20 times faster than the pure-Python one (the fixer's nodes), and
# libyaml's parser alone, for events: CSafeLoader refers to itself (`_parser`, `loader`,
# `_resolver`...), and with the garbage collector off (the CLI) each one, with libyaml's
# buffers (some 15 KB), would outlive its file.
C_LOADER, C_PARSER = _c_classes()


# -- events made in one call -------------------------------------------------------------
# ruamel's event classes set their slots through two or three chained `__init__`s, and a
# large tree is hundreds of thousands of events: these subclasses set the same slots in
# one call (composing takes some 15% less). libyaml's parser looks its event classes up in
# its module when it makes each event, so that module is handed these; if a ruamel.yaml.clib
# ever makes them otherwise, or the pure parser is used, each event is converted instead.


class _Scalar(ScalarEvent):
    __slots__ = ()

    def __init__(
        self,
        anchor: Any,
        tag: Any,
        implicit: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        style: Any = None,
        comment: Any = None,
    ) -> None:
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = comment
        self.anchor = anchor
        self.ctag = tag
        self.implicit = implicit
        self.value = value
        self.style = style


class _CollectionStart:
    """The one `__init__` of the two collection starts."""

    __slots__ = ()

    def __init__(
        self: Any,
        anchor: Any,
        tag: Any,
        implicit: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        nr_items: int | None = None,
    ) -> None:
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = comment
        self.anchor = anchor
        self.ctag = tag
        self.implicit = implicit
        self.flow_style = flow_style
        self.nr_items = nr_items


class _CollectionEnd:
    __slots__ = ()

    def __init__(self: Any, start_mark: Any = None, end_mark: Any = None, comment: Any = None):
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.comment = comment


class _MappingStart(_CollectionStart, MappingStartEvent):
    __slots__ = ()


class _SequenceStart(_CollectionStart, SequenceStartEvent):
    __slots__ = ()


class _MappingEnd(_CollectionEnd, MappingEndEvent):
    __slots__ = ()


class _SequenceEnd(_CollectionEnd, SequenceEndEvent):
    __slots__ = ()


_FLAT: dict[type[Any], type[Any]] = {
    ScalarEvent: _Scalar,
    MappingStartEvent: _MappingStart,
    SequenceStartEvent: _SequenceStart,
    MappingEndEvent: _MappingEnd,
    SequenceEndEvent: _SequenceEnd,
}


def _flat(event: Any) -> Any:
    """The event as one of the classes above (the others as they are)."""
    made = _FLAT.get(event.__class__)
    if made is None:
        return event
    flat = object.__new__(made)
    for name in _SLOTS[made]:
        setattr(flat, name, getattr(event, name))
    return flat


def _slots(kind: type[Any]) -> tuple[str, ...]:
    """Every slot of an event class, its bases' first: what a conversion copies."""
    found: list[str] = []
    for klass in reversed(kind.__mro__):
        own = vars(klass).get("__slots__", ())
        found += [own] if isinstance(own, str) else list(own)
    return tuple(found)


_SLOTS = {flat: _slots(base) for base, flat in _FLAT.items()}


def _c_makes_flat_events() -> bool:
    """Hand libyaml's parser module the classes above; whether its events are now theirs."""
    if C_PARSER is None:  # pragma: no cover - only without ruamel.yaml.clib
        return False
    module = sys.modules[C_PARSER.__module__]
    for base, flat in _FLAT.items():
        if getattr(module, base.__name__, None) is base:
            setattr(module, base.__name__, flat)
    made = {e.__class__ for e in iter(C_PARSER("a: [b]\n").get_event, None)}
    return set(_FLAT.values()) <= made


_C_FLAT = _c_makes_flat_events()


def c_nodes(text: str) -> list[Node]:
    """The root node of each document as ruamel's C composer makes it, whose nodes also
    carry character offsets (the fixer's): made in C where native/yamlnodes.c was built.
    Raises YAMLError where the text does not parse, YAMLProblem where its nesting or
    anchors are refused (native/yamlnodes.c says which)."""
    deep = flow_too_deep(text)
    if deep is not None:
        raise _LimitExceeded(_TOO_DEEP, *deep)
    if _native is not None:
        return _native.nodes(text)  # type: ignore[no-any-return]
    loader = C_LOADER(text)
    try:
        roots: list[Node] = []
        while loader.check_node():
            roots.append(loader.get_node())
        return roots
    finally:
        loader.dispose()
        vars(loader).clear()  # its references to itself (see C_PARSER)


# Deeper documents are refused: the tree is built without recursion, but the rules, the
# shape check and pickling walk it recursively. Real manifests nest some 20 levels; a large
# CRD schema about 40.
MAX_NESTING = 200

# A document whose aliases expand past this many nodes is refused. Real manifests stay far
# below it (a large CRD has some 10^4 nodes); a billion-laughs file reaches it at once.
MAX_EXPANDED_NODES = 1_000_000

_TOO_DEEP = f"nesting deeper than {MAX_NESTING} levels: not read"


def flow_too_deep(text: str) -> Pos | None:
    """Where the text's flow collections (`{`, `[`) nest past MAX_NESTING, read before any
    parser sees it: libyaml's scanner keeps a possible key for every open flow mapping and
    looks at them all at each token, so a line of unclosed `{` costs it the square of its
    length (80 KB: 6 s) before the builder's own nesting limit is reached. A scan in one
    pass, that leaves out quoted text, comments and block scalars; it errs towards passing
    a text over (an unclosed quote ends its look), never towards refusing one that nests
    less. Most texts have too few `{` to need it."""
    if text.count("{") <= MAX_NESTING:
        return None
    depth = 0
    quote = ""
    parent = -1  # in a block scalar: its key line's indent
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if parent >= 0:
            if not body.strip() or indent > parent:
                continue
            parent = -1
        if not quote and not depth and "{" not in line and "[" not in line:
            if _opens_block_scalar(body):
                parent = indent
            continue
        opens = line.count("{") + line.count("[")
        if not quote and depth + opens <= MAX_NESTING and not any(c in line for c in "\"'#"):
            depth = max(0, depth + opens - line.count("}") - line.count("]"))  # the usual line
            if not depth and _opens_block_scalar(body):
                parent = indent
            continue
        before = " "
        for column, char in enumerate(line, start=1):
            if quote:
                if char == quote:
                    quote = ""
            elif char in "\"'" and before in " \t:[{,-":
                quote = char
            elif char == "#" and before in " \t":
                break
            elif char in "{[":
                depth += 1
                if depth > MAX_NESTING:
                    return number, column
            elif char in "}]" and depth:
                depth -= 1
            before = char
        if not quote and not depth and _opens_block_scalar(body):
            parent = indent
    return None


def _opens_block_scalar(body: str) -> bool:
    """Whether a line ends in a block scalar's header (`key: |`, `- >-`, `|2+`)."""
    words = body.split(" #", 1)[0].split()
    return bool(words) and words[-1][:1] in ("|", ">") and words[-1][1:].strip("+-0123456789") == ""


_ALIAS_BOMB = (
    f"aliases expand this document past {MAX_EXPANDED_NODES:,} nodes "
    "(an alias bomb?); refusing to expand it"
)

_TAG = "tag:yaml.org,2002:"


class YAMLProblem(Exception):
    """The text (or one document of it) is not usable YAML."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class _LimitExceeded(YAMLProblem):
    """Too deep or too large to read: reported as such, whatever follows in the text."""


def scalar_value(tag: str, value: str) -> Any:
    """A scalar's text as data, by its (resolved or explicit) tag."""
    if tag == _STR:
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


def key_text(value: Any) -> str:
    """A scalar mapping key as the text rules look it up by."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


_STR = _TAG + "str"
_MERGE = _TAG + "merge"

# The implicit types of plain scalars, as the C loader resolves them (YAML 1.2 core). Most
# plain scalars of a manifest start with a character no type starts with: those are text
# without asking the resolver; the others are asked once per distinct text.
_RESOLVER = Resolver()
_TYPED_FIRST = frozenset(k for k in _RESOLVER.yaml_implicit_resolvers if k is not None)
_ANY_FIRST = None in _RESOLVER.yaml_implicit_resolvers
_RESOLVED: dict[str, str] = {}


def plain_tag(value: str) -> str:
    """The tag the resolver gives a plain (unquoted, untagged) scalar."""
    if not _ANY_FIRST and value[:1] not in _TYPED_FIRST and value:
        return _STR
    tag = _RESOLVED.get(value)
    if tag is None:
        tag = str(_RESOLVER.resolve(ScalarNode, value, (True, False)))
        if len(value) <= 64 and len(_RESOLVED) < 100_000:  # bounded: a file may be hostile
            _RESOLVED[value] = tag
    return tag


def _scalar(event: ScalarEvent) -> Any:
    return resolved_scalar(event.ctag, event.implicit[0], event.value)


def resolved_scalar(tag: Any, plain: bool, value: str) -> Any:
    """A scalar's data by its tag (None: none given), and whether it was plain."""
    if tag is None or tag == "!":  # non-specific: resolved as the composers resolve it
        if plain:
            tag = plain_tag(value)
            return value if tag == _STR else scalar_value(tag, value)
        return value
    return scalar_value(tag if type(tag) is str else str(tag), value)


class _Anchor:
    """What an anchor names: the built value, where it was written, and its expanded
    node count (None while its collection is still open)."""

    __slots__ = ("pos", "size", "start", "value")

    def __init__(self, value: Any, pos: Pos, start: int) -> None:
        self.value, self.pos, self.start = value, pos, start
        self.size: int | None = 1 if start < 0 else None


_intern = sys.intern
_new_dict = dict.__new__
_new_list = list.__new__

# Pending-key markers of an open mapping: a key is awaited, or the merge key `<<` was read.
_AWAIT_KEY: Any = object()
_MERGE_KEY: Any = object()


def _document(events: Iterator[Any], line_offset: int, pos: Pos) -> tuple[Any, Pos]:
    """Build one document from the parser's events after its DocumentStartEvent: YMap,
    YSeq and scalars, with an explicit stack (no recursion, whatever the nesting).

    This runs for every node of every manifest: the common event (a plain scalar in a block
    mapping) takes the shortest path, inline, and positions are tuples made once."""
    open_: list[Any] = []  # the open collections, innermost last
    keys: list[Any] = []  # per open collection: _AWAIT_KEY, _MERGE_KEY, or (key, line, col)
    merges: dict[int, list[tuple[Any, Pos]]] = {}  # id(mapping) -> its `<<` values
    anchors: dict[str, _Anchor] = {}
    closing: dict[int, _Anchor] = {}  # id(collection) -> the anchor to size at its end
    expanded = 0  # nodes so far, aliases counted at their full expanded size
    root: Any = None
    root_pos = pos
    for event in events:
        cls = event.__class__
        mark = event.start_mark
        if cls is _Scalar:
            value = event.value
            # most scalars: untagged, and quoted or plain text that no type starts like
            # (`_scalar` and `plain_tag`, inlined: two calls a scalar)
            if event.ctag is not None or (
                event.implicit[0] and (_ANY_FIRST or not value or value[0] in _TYPED_FIRST)
            ):
                value = _scalar(event)
            here = (mark.line + 1 + line_offset, mark.column + 1)
            expanded += 1
            if event.anchor is not None:
                _anchor(anchors, event.anchor, _Anchor(value, here, -1), here)
            start = False
        elif cls is _MappingStart or cls is _SequenceStart:
            here = (mark.line + 1 + line_offset, mark.column + 1)
            value = _collection(cls is _MappingStart, here, depth=len(open_))
            expanded += 1
            if event.anchor is not None:
                anchor = _Anchor(value, here, expanded)
                closing[id(value)] = _anchor(anchors, event.anchor, anchor, here)
            start = True
        elif cls is AliasEvent:
            here = (mark.line + 1 + line_offset, mark.column + 1)
            named, size = _aliased(anchors, event.anchor, here)
            expanded += size
            if expanded > MAX_EXPANDED_NODES:
                raise _LimitExceeded(_ALIAS_BOMB, *root_pos)
            value, here = named.value, named.pos  # the node it names, as the composer has it
            start = False
        elif cls is _MappingEnd or cls is _SequenceEnd:
            done = open_.pop()
            keys.pop()
            if merges or closing:
                _close(done, merges, closing, expanded)
            continue
        elif cls is DocumentEndEvent:
            return root, root_pos
        else:  # pragma: no cover - the parser sends nothing else inside a document
            continue
        if not open_:
            root, root_pos = value, here
        else:
            parent = open_[-1]
            if parent.__class__ is YSeq:
                parent.append(value)
                parent.item_pos.append(here)
            else:
                pending = keys[-1]
                if pending is _AWAIT_KEY:
                    keys[-1] = _key(parent, value, event, here, start=start)
                    continue
                keys[-1] = _AWAIT_KEY
                if pending is _MERGE_KEY:
                    merges.setdefault(id(parent), []).append((value, here))
                else:
                    key = pending[0]
                    parent[key] = value
                    parent.spots[key] = (pending[1], pending[2], here[0], here[1])
        if start:
            open_.append(value)
            keys.append(_AWAIT_KEY)
    raise YAMLProblem("the document does not end", *root_pos)  # pragma: no cover


def _collection(mapping: bool, here: Pos, *, depth: int) -> Any:
    """An empty YMap or YSeq at `here`, inside `depth` open collections (a problem past
    MAX_NESTING), made without its `__init__` (a Python call and its super()'s, each node)."""
    if depth >= MAX_NESTING:
        raise _LimitExceeded(_TOO_DEEP, *here)
    value: Any
    if mapping:
        value = _new_dict(YMap)
        value.spots = {}
    else:
        value = _new_list(YSeq)
        value.item_pos = []
    value.pos = here
    return value


def _aliased(anchors: dict[str, _Anchor], name: str, here: Pos) -> tuple[_Anchor, int]:
    """The anchor an alias at `here` names, and its expanded size: a problem when it is not
    defined yet or when the alias is inside it."""
    named = anchors.get(name)
    if named is None:
        raise YAMLProblem(f"found undefined alias *{name}", *here)
    if named.size is None:
        raise YAMLProblem(f"the alias *{name} is inside its own anchor", *here)
    return named, named.size


def _close(
    done: Any,
    merges: dict[int, list[tuple[Any, Pos]]],
    closing: dict[int, _Anchor],
    expanded: int,
) -> None:
    """A collection ends: its `<<` values merged in, and the anchor on it sized."""
    if merges:
        _apply_merges(done, merges.pop(id(done), ()))
    if closing:
        closed = closing.pop(id(done), None)
        if closed is not None:
            closed.size = expanded - closed.start + 1


def _key(parent: Any, value: Any, event: Any, here: Pos, *, start: bool) -> Any:
    """What a mapping awaits after the key `value` at `here`: _MERGE_KEY after `<<`, or
    (key, line, column); a problem for a collection as a key or a key given twice."""
    if start or value.__class__ is YMap or value.__class__ is YSeq:
        raise YAMLProblem("a mapping key that is not a scalar is not supported", *here)
    if value == "<<" and _is_merge_key(event):
        return _MERGE_KEY
    # interned: a tree repeats a few keys thousands of times, and one string each pickles
    # once a file, loads once and is compared by identity
    key = _intern(value if value.__class__ is str else key_text(value))
    if key in parent.spots:
        raise YAMLProblem(f"duplicate key {key!r} in a mapping", *here)
    return (key, here[0], here[1])


def _is_merge_key(event: Any) -> bool:
    if event.__class__ is not _Scalar:
        return False
    return merge_key(event.ctag, event.implicit[0], event.value)


def merge_key(tag: Any, plain: bool, value: str) -> bool:
    """`<<` as a plain, untagged scalar (or explicitly tagged merge) is the merge key."""
    if tag is None:
        return bool(plain) and plain_tag(value) == _MERGE
    return str(tag) == _MERGE


def _anchor(anchors: dict[str, _Anchor], name: str, anchor: _Anchor, here: Pos) -> _Anchor:
    """`anchor` recorded under `name` (a problem when the name is taken), and returned."""
    first = anchors.get(name)
    if first is not None:
        raise YAMLProblem(
            f"the anchor &{name} is defined twice (first on line {first.pos[0]})", *here
        )
    anchors[name] = anchor
    return anchor


def _apply_merges(mapping: Any, sources: Iterable[tuple[Any, Pos]]) -> None:
    """`<<: *base` / `<<: [*a, *b]`: explicit keys win, then earlier sources."""
    for value, here in sources:
        maps = list(value) if isinstance(value, YSeq) else [value]
        if not all(isinstance(m, YMap) for m in maps):
            raise YAMLProblem("a merge key (<<) needs a mapping", *here)
        for source in maps:
            for key, item in source.items():
                if key not in mapping:
                    mapping[key] = item
                    mapping.spots[key] = source.spots[key]


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


def scanner_tokens(text: str, pure: bool = False) -> Iterator[Any]:
    """The scanner's tokens (no parse: what is a scalar, what is structure), from libyaml
    unless `pure` (or no C); a scanner error is raised as the tokens are read."""
    if pure or C_PARSER is None:
        return iter(YAML(typ="safe", pure=True).scan(text))
    return iter(C_PARSER(text).get_token, None)


def parser_events(text: str, pure: bool = False) -> Iterator[Any]:
    """The parser's events, from libyaml unless `pure` (or no C). libyaml's parser gives
    None once the stream has ended: iterating on its method is a loop in C, not a Python
    generator resumed for each of the hundreds of thousands of events of a large tree."""
    if pure or C_PARSER is None:
        return map(_flat, YAML(typ="safe", pure=True).parse(text))
    events = iter(C_PARSER(text).get_event, None)
    return events if _C_FLAT else map(_flat, events)


def _read_documents(text: str, line_offset: int, pure: bool) -> list[tuple[Any, Pos]]:
    """Every document of the text, or the YAMLProblem of the first bad one. Where libyaml's
    older rule (in ruamel.yaml.clib, and the C builder built from the same parser) stops at
    a colon inside a flow plain scalar, which YAML 1.2 and libyaml 0.2.1 on allow
    (`{image: c:1}`), ruamel's pure-Python parser, which has the newer rule, reads the text
    instead, if it reads all of it: a broken text keeps libyaml's report. Both builders
    take the same way, so they still build alike."""
    deep = flow_too_deep(text)
    if deep is not None:
        raise _LimitExceeded(_TOO_DEEP, deep[0] + line_offset, deep[1])
    try:
        return list(_documents_of(text, line_offset, pure))
    except YAMLProblem as problem:
        if pure or not _colon_in_flow_scalar(text, line_offset, problem):
            raise
        try:
            return list(_documents_of(text, line_offset, True))
        except YAMLProblem:
            raise problem from None


_FLOW_AFTER_COLON = frozenset(",?[]{}")


def _colon_in_flow_scalar(text: str, line_offset: int, problem: YAMLProblem) -> bool:
    """Whether libyaml's old rule stopped at a `:` that YAML 1.2 reads as part of a flow
    plain scalar: a colon followed by neither a blank nor a flow indicator."""
    if problem.message != "found unexpected ':'":
        return False
    lines = text.split("\n")
    number = problem.line - line_offset  # the problem's line counts the text's offset
    if not 0 < number <= len(lines):
        return False
    line = lines[number - 1]
    at = problem.column - 1
    following = line[at + 1 : at + 2]
    colon = line[at : at + 1] == ":"
    return colon and following.strip() != "" and following not in _FLOW_AFTER_COLON


def _documents_of(text: str, line_offset: int, pure: bool) -> Iterator[tuple[Any, Pos]]:
    """Yield each document's (data, position); raise YAMLProblem at the first bad one."""
    if not pure and _native is not None:  # the same trees, built in C (native/yamltree.c)
        try:
            yield from _native.documents(text, line_offset)
        except YAMLError as error:
            raise _problem_from(error, text, line_offset) from None
        return
    try:
        events = parser_events(text, pure)
        for event in events:
            if event.__class__ is DocumentStartEvent:
                mark = event.start_mark
                pos = (mark.line + 1 + line_offset, mark.column + 1)
                try:
                    yield _document(events, line_offset, pos)
                except _LimitExceeded:
                    raise
                except YAMLProblem:
                    # A syntax error later in the same document is the truer report (a
                    # template's `{{ }}` first reads as a flow-mapping key): look for one.
                    for rest in events:
                        if rest.__class__ is DocumentEndEvent:
                            break
                    raise
    except YAMLError as error:
        raise _problem_from(error, text, line_offset) from None


def _libyaml_error(
    kind: int,
    problem: bytes | None,
    context: bytes | None,
    problem_mark: tuple[int, int, int],
    context_mark: tuple[int, int, int],
    offset: int,
    value: int,
) -> YAMLError:
    """The error libyaml reported to the C builder, made as ruamel.yaml's C parser makes it
    (`_problem_from` reads both builders' errors alike)."""

    def mark(where: tuple[int, int, int], given: bytes | None) -> StreamMark | None:
        line, column, index = where
        return None if given is None else StreamMark(_STREAM, index, line, column)

    problem_text = (problem or b"").decode(errors="replace")
    if kind == _READER_ERROR:
        return ReaderError(_STREAM, offset, value, "?", problem_text)
    error = ScannerError if kind == _SCANNER_ERROR else ParserError
    return error(
        None if context is None else context.decode(errors="replace"),
        mark(context_mark, context),
        problem_text,
        mark(problem_mark, problem),
    )


_STREAM = "<unicode string>"
_READER_ERROR, _SCANNER_ERROR = 2, 3  # libyaml's yaml_error_type_t


def _native_builder() -> Any:
    """The C builder where it was built, configured with what the two builders share; None
    otherwise, and where ruamel.yaml.clib is missing (the Python builder then reads the
    pure parser's events, which the C builder's libyaml may not match in every corner)."""
    if C_PARSER is None:  # pragma: no cover - only without ruamel.yaml.clib
        return None
    try:
        from k8slb.reading import _yamltree
    except ImportError:
        return None
    _yamltree.configure(
        YMap,
        YSeq,
        YAMLProblem,
        _LimitExceeded,
        resolved_scalar,
        merge_key,
        key_text,
        _apply_merges,
        _libyaml_error,
        "".join(sorted(_TYPED_FIRST)),
        _ANY_FIRST,
        _TOO_DEEP,
        _ALIAS_BOMB,
        MAX_NESTING,
        MAX_EXPANDED_NODES,
    )
    _yamltree.configure_nodes(ScalarNode, SequenceNode, MappingNode, plain_tag, _tag_named)
    return _yamltree


def _tag_named(name: str) -> Tag:
    return Tag(suffix=name)


_native = _native_builder()


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


@record
class ComposeResult:
    documents: list[Document]
    problems: list[tuple[int, YAMLProblem]]  # (document index, problem)


# `fix` reads the same text up to four times (the check, the read-back of its edits before
# and after, the next pass's check); composing is most of the cost, and its results are
# never changed. A few recent texts are remembered; `keeping_composes` remembers all.
_COMPOSED: dict[tuple[str, bool, int], ComposeResult] = {}
_KEPT = 4
_keep_all = False


@contextlib.contextmanager
def keeping_composes() -> Iterator[None]:
    """Remember every composed text until the block ends (the fixer's passes: the trees
    are alive in its memo anyway, so this costs little memory)."""
    global _keep_all
    _keep_all = True
    try:
        yield
    finally:
        _keep_all = False
        _COMPOSED.clear()


def compose(text: str, *, pure: bool = False, line_offset: int = 0) -> ComposeResult:
    """Every document of a YAML stream, with the problems of those that do not parse.
    `pure` forces the pure-Python composer (the fallback where the C one is missing);
    `line_offset`, the lines above the text where it stands in a file (a kustomization's
    patch written inline). The result is shared by every caller with the same text: never
    change it."""
    key = (text, pure, line_offset)
    known = _COMPOSED.get(key)
    if known is None:
        known = _compose(text, pure, line_offset)
        if not _keep_all and len(_COMPOSED) >= _KEPT:
            del _COMPOSED[next(iter(_COMPOSED))]  # the oldest
        _COMPOSED[key] = known
    return known


def _compose(text: str, pure: bool, line_offset: int = 0) -> ComposeResult:
    try:
        stream = _read_documents(text, line_offset, pure)
        return ComposeResult([Document(i, d, p) for i, (d, p) in enumerate(stream)], [])
    except YAMLProblem:
        pass
    # Slow path, only for broken files: compose each `---` piece on its own.
    documents: list[Document] = []
    problems: list[tuple[int, YAMLProblem]] = []
    index = 0
    for offset, piece in _split_documents(text):
        try:
            parsed = _read_documents(piece, offset + line_offset, pure)
        except YAMLProblem as problem:
            problems.append((index, problem))
            index += 1
            continue
        for data, pos in parsed:
            documents.append(Document(index, data, pos))
            index += 1
    return ComposeResult(documents, problems)
