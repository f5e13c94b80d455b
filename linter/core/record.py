"""`@record`: k8slb's immutable data classes, kept immutable by mypy rather than at run time.

A `@dataclass(frozen=True)` makes Python 3.11 generate and compile three more methods per
class (`__setattr__`, `__delattr__`, `__hash__`) when the module is imported, and its
`__init__` sets each field through `object.__setattr__`. For k8slb's some seventy such classes,
freezing them at run time cost some 40 ms of a 220-260 ms import, which every one-file
run and pre-commit hook pays, and made each object 2.7 times slower to build. Here the
class is a plain dataclass, hashed by its fields as a frozen one is, and
`dataclass_transform(frozen_default=True)` tells mypy (run with --strict by `make test`)
that it is frozen: assigning to a field is a type error, as it is for a frozen dataclass.

Only `__init__` is generated from source text, as dataclasses does it (the fastest way to
build an object). Equality, hashing and `repr` are the same for every record, by the fields
dataclasses would use, so they are closures over a C getter of those fields rather than
three more functions compiled for each class at import (some 20 ms of every run's
start-up).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

_Class = TypeVar("_Class", bound=type)

if TYPE_CHECKING:  # what mypy reads (typing has dataclass_transform from Python 3.11 on)
    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
    def record(cls: _Class) -> _Class:
        """A dataclass that compares and hashes by its fields and is never changed."""

else:

    def record(cls: _Class) -> _Class:
        return _with_field_methods(dataclasses.dataclass(eq=False, repr=False)(cls))


def _with_field_methods(made: _Class) -> _Class:
    """Equality, hashing and `repr` by the fields dataclasses would use for them."""
    fields = dataclasses.fields(made)
    compared = _values([f.name for f in fields if f.compare])
    # as `unsafe_hash=True` picks them: a field's `hash`, else whether it is compared
    hashed = _values([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    shown = [f.name for f in fields if f.repr]

    def __eq__(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: object) -> int:
        return hash(hashed(self))

    @reprlib.recursive_repr()
    def __repr__(self: object) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    for method in (__eq__, __hash__, __repr__):
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        setattr(made, method.__name__, method)
    return made


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The named attributes of an object, always as a tuple (as dataclasses compares them)."""
    if len(names) == 1:
        single = attrgetter(names[0])
        return lambda obj: (single(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)
