"""`@record`: immutable data classes as the rest of k8slb uses them."""

from __future__ import annotations

import dataclasses
import pickle

from k8slb.record import record
from k8slb.report.findings import ObjectRef


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
