"""The trees composed YAML becomes: `YMap` and `YSeq` (a dict and a list that also carry
where each of their entries is written) and plain scalars.

These are the rules' data, and what the cache pickles; composing them from text is
`yamlcompose.py`'s (which brings ruamel.yaml in: a run whose YAML all comes from the cache,
or that reads only Python, does not import it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, overload

from k8slb.core.record import record

Pos = tuple[int, int]
"""1-based (line, column)."""


Spot = tuple[int, int, int, int]
"""Where a mapping's key is written and where its value starts: (key line, key column,
value line, value column)."""

Spots = dict[str, Spot] | tuple[Any, ...]
"""A mapping's spots: a dict by key, or, as composed for a mapping of at most 16 keys, one
flat tuple of each key followed by its four numbers (what a mapping's positions cost in
memory is a third of a dict's; a key is found in it by a scan, so a larger mapping keeps its
dict)."""


def _spot(spots: Spots, key: object) -> Spot | None:
    """The key's spot in either form of a mapping's spots."""
    if isinstance(spots, dict):
        return spots.get(key)  # type: ignore[call-overload, no-any-return]
    at = -1
    try:
        while True:  # a key matches only where keys are (a number never equals a text)
            at = spots.index(key, at + 1)
            if at % 5 == 0:
                spot: Spot = spots[at + 1 : at + 5]
                return spot
    except ValueError:
        return None


class Positions(Mapping[str, Pos]):
    """A read-only view of one column of a mapping's position table: where its keys are
    written (`key_pos`) or where their values start (`value_pos`)."""

    __slots__ = ("_at", "_spots")

    def __init__(self, spots: Spots, at: int) -> None:
        self._spots, self._at = spots, at

    def __getitem__(self, key: str) -> Pos:
        spot = _spot(self._spots, key)
        if spot is None:
            raise KeyError(key)
        return spot[self._at], spot[self._at + 1]

    @overload  # type: ignore[override]
    def get(self, key: str) -> Pos | None: ...

    @overload
    def get(self, key: str, default: Pos) -> Pos: ...

    def get(self, key: str, default: Pos | None = None) -> Pos | None:  # faster than Mapping's
        spot = _spot(self._spots, key)
        return (spot[self._at], spot[self._at + 1]) if spot is not None else default

    def __contains__(self, key: object) -> bool:
        return _spot(self._spots, key) is not None

    def __iter__(self) -> Iterator[str]:
        spots = self._spots
        return iter(spots if isinstance(spots, dict) else spots[::5])

    def __len__(self) -> int:
        spots = self._spots
        return len(spots) if isinstance(spots, dict) else len(spots) // 5


class YMap(dict[str, Any]):
    """A mapping with the positions of itself, its keys and its values: one table of
    (key line, key column, value line, value column) per key, rather than two dicts of
    pairs (a manifest has tens of thousands of mappings: memory, and pickling). The C
    composer leaves the table flat (`Spots`); `spots`, the dict, is made when first asked
    (to change it: a patch's merge), `key_pos` and `value_pos` read either."""

    __slots__ = ("_spots", "pos")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self._spots: Spots = {}

    @property
    def spots(self) -> dict[str, Spot]:
        spots = self._spots
        if isinstance(spots, dict):
            return spots
        made: dict[str, Spot] = {
            spots[at]: spots[at + 1 : at + 5] for at in range(0, len(spots), 5)
        }
        self._spots = made
        return made

    @spots.setter
    def spots(self, spots: dict[str, Spot]) -> None:
        self._spots = spots

    @property
    def key_pos(self) -> Positions:
        return Positions(self._spots, 0)

    @property
    def value_pos(self) -> Positions:
        return Positions(self._spots, 2)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as plain tuples: 4x faster to load than the default for a dict subclass
        # with slots, which matters for the parse cache and the parallel parse.
        return (_ymap, (self.pos, tuple(self.items()), self._spots))


class YSeq(list[Any]):
    """A sequence with the positions of itself and its items."""

    __slots__ = ("item_pos", "pos")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.item_pos: list[Pos] = []

    def __reduce__(self) -> tuple[Any, ...]:
        return (_yseq, (self.pos, tuple(self), self.item_pos))


# Unpickling builds every container of every cached parse: these skip `__init__` (whose
# empty table would be thrown away at once), a fifth of the time a parse takes to load.
_new_dict = dict.__new__
_new_list = list.__new__


def _ymap(pos: Pos, items: tuple[tuple[str, Any], ...], spots: Spots) -> YMap:
    mapping: YMap = _new_dict(YMap)
    mapping.update(items)
    mapping.pos = pos
    mapping._spots = spots
    return mapping


def _yseq(pos: Pos, items: tuple[Any, ...], item_pos: list[Pos]) -> YSeq:
    sequence: YSeq = _new_list(YSeq)
    sequence.extend(items)
    sequence.pos = pos
    sequence.item_pos = item_pos
    return sequence


@record
class Document:
    index: int
    data: Any  # YMap, YSeq, a scalar, or None for an empty document
    pos: Pos  # where the document's root node starts
