"""`@record`: immutable data classes as the rest of k8slb uses them."""

from __future__ import annotations

import dataclasses
import pickle

from k8slb.core.findings import ObjectRef
from k8slb.core.record import record


@record
class _Point:
    x: int
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)


def test_a_record_compares_and_hashes_by_its_fields() -> None:
    assert _Point(1) == _Point(1, ())
    assert _Point(1) != _Point(2)
    assert {_Point(1): "a"}[_Point(1)] == "a"  # a dict key, as the index uses them
    assert len({_Point(1), _Point(1), _Point(2)}) == 2


def test_a_record_is_a_dataclass() -> None:
    # the cache's unpickler builds dataclasses only (data_pickle.py)
    assert dataclasses.is_dataclass(_Point)
    assert dataclasses.replace(_Point(1), tags=("a",)) == _Point(1, ("a",))
    ref = ObjectRef("Deployment", "shop", "web", 0, None)
    assert pickle.loads(pickle.dumps(ref)) == ref


@record
class _Labelled(_Point):
    label: str = ""
    note: str = dataclasses.field(default="", compare=False, repr=False)


def test_a_record_compares_and_shows_as_a_dataclass_would() -> None:
    # the same fields, in the same order, as dataclasses' generated methods use
    @dataclasses.dataclass(unsafe_hash=True)
    class Generated:
        x: int
        tags: tuple[str, ...] = ()
        label: str = ""
        note: str = dataclasses.field(default="", compare=False, repr=False)

    ours, theirs = _Labelled(1, ("a",), "b", "c"), Generated(1, ("a",), "b", "c")
    assert repr(ours) == repr(theirs).replace(Generated.__qualname__, "_Labelled")
    assert ours == _Labelled(1, ("a",), "b", "other note")  # a field out of comparisons
    assert hash(ours) == hash(_Labelled(1, ("a",), "b", "other note"))
    assert ours != _Labelled(1, ("a",), "c")
    assert ours != _Point(1, ("a",))  # another class, even a base, is never equal
    assert _Point(1, ("a",)) != ours
    assert ours.__eq__(theirs) is NotImplemented  # Python then asks the other side
    nan = float("nan")  # a tuple's comparison: the same object is equal to itself
    assert _Point(nan) == _Point(nan)  # type: ignore[arg-type]


def test_a_record_that_holds_itself_shows_without_recursion() -> None:
    holder: list[object] = []
    point = _Point(1, holder)  # type: ignore[arg-type]
    holder.append(point)
    assert repr(point) == "_Point(x=1, tags=[...])"
