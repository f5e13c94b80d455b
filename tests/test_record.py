"""`@record`: immutable data classes as the rest of k8slb uses them."""

from __future__ import annotations

import dataclasses
import pickle

from k8slb.core.findings import ObjectRef
from k8slb.core.record import _generated_init, record


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


def _every_record() -> list[type]:
    """Every record class of k8slb's modules (each imported)."""
    import importlib
    import pkgutil

    import k8slb
    import k8slb.rules

    found: dict[int, type] = {}
    for package in (k8slb, k8slb.rules):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".lsp" in module.name:  # the editor's extra (pygls) may be missing
                continue
            loaded = importlib.import_module(module.name)
            for value in vars(loaded).values():
                if isinstance(value, type) and dataclasses.is_dataclass(value):
                    found[id(value)] = value
    return list(found.values())


def test_a_records_init_is_made_when_first_called_as_dataclasses_makes_it() -> None:
    import inspect

    records = [  # records (their equality is record's) whose __init__ waits, or waited
        c
        for c in _every_record()
        if getattr(c.__eq__, "__module__", None) == record.__module__
        and not (c.__doc__ or f"{c.__name__}(").startswith(f"{c.__name__}(")  # its own
        and getattr(getattr(c.__init__, "__code__", None), "co_filename", None)
        in (_generated_init.__code__.co_filename, "<string>")
    ]
    # (those left: a plain dataclass, a record's own __init__, or one with no docstring)
    assert len(records) > 100
    for cls in records:
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        ours = _generated_init(cls)  # what the first call puts in place
        theirs = dataclasses.make_dataclass(  # dataclasses' own, of the same fields
            cls.__name__,
            [
                (
                    f.name,
                    f.type,
                    dataclasses.field(
                        default=f.default,
                        default_factory=f.default_factory,
                        init=f.init,
                        kw_only=f.kw_only,
                    ),
                )
                for f in dataclasses.fields(cls)
            ],
            eq=False,
            repr=False,
        ).__init__
        assert str(inspect.signature(ours)) == str(inspect.signature(theirs)), cls
        assert ours.__qualname__ == cls.__init__.__qualname__


def test_a_record_made_first_sets_every_field_and_calls_its_post_init() -> None:
    @record
    class Later:
        """A record of its own docstring: its __init__ is made when first called."""

        x: int
        items: list[int] = dataclasses.field(default_factory=list)
        seen: int = dataclasses.field(init=False, default=0)
        tail: str = dataclasses.field(default="t", kw_only=True)

        def __post_init__(self) -> None:
            self.seen = self.x + 1

    waiting = _generated_init.__code__.co_filename  # record's own: not compiled yet
    assert Later.__init__.__code__.co_filename == waiting
    one, two = Later(1), Later(2, [3], tail="u")
    assert Later.__init__.__code__.co_filename == "<string>"  # dataclasses', in its place
    assert (one.x, one.items, one.seen, one.tail) == (1, [], 2, "t")
    assert (two.x, two.items, two.seen, two.tail) == (2, [3], 3, "u")
    assert one.items is not Later(1).items  # a fresh list each time, as dataclasses does
    assert Later.__init__.__qualname__.endswith("Later.__init__")
    try:
        Later()  # type: ignore[call-arg]
    except TypeError as error:
        assert "missing 1 required positional argument: 'x'" in str(error)
    else:
        raise AssertionError("a missing field must fail as dataclasses' __init__ does")


def test_a_record_with_no_docstring_is_documented_by_its_fields_as_dataclasses_does() -> None:
    @record
    class Bare:
        x: int
        y: str = "a"

    assert Bare.__doc__ == "Bare(x: 'int', y: 'str' = 'a')"
    assert Bare(1).y == "a"
