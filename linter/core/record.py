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
build an object), and only when the class first makes an object: of some 150 records, a
pre-commit hook makes about a third, and the others' objects come out of the cache's
pickles, which call no `__init__` (compiling them all at import was some 10 ms of every
run's start-up). Equality, hashing and `repr` are the same for every record, by the fields
dataclasses would use, so they are closures over a C getter of those fields rather than
three more functions compiled for each class at import (some 20 ms of every run's
start-up).
"""

from __future__ import annotations

import dataclasses
import inspect
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
        annotations = inspect.get_annotations(cls)  # its own (strings: not evaluated)
        if (
            "__init__" in cls.__dict__
            or any("InitVar" in str(a) for a in annotations.values())
            or not cls.__dict__.get("__doc__")
        ):
            # its own `__init__` (which dataclasses keeps), one with arguments that are no
            # fields, or no docstring (dataclasses writes one of `__init__`'s signature):
            # the `__init__` dataclasses makes, at once
            return _with_field_methods(dataclasses.dataclass(eq=False, repr=False)(cls))
        made = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
        made.__init__ = _deferred_init(made)
        return _with_field_methods(made)


def _deferred_init(made: type) -> Callable[..., None]:
    """An `__init__` that, called first, puts in its place the one dataclasses would have
    made for the class (made so: `_generated_init`), and calls it."""

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        generated = _generated_init(made)
        made.__init__ = generated  # type: ignore[misc]
        generated(self, *args, **kwargs)

    __init__.__qualname__ = f"{made.__qualname__}.__init__"
    return __init__


def _generated_init(made: type) -> Callable[..., None]:
    """The `__init__` dataclasses generates for the record's fields (their order, defaults,
    `init` and `kw_only`, the module whose names its annotations are in, and whether the
    class has a `__post_init__`), made on a class of the same name that holds only them."""
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": made.__module__,
        "__qualname__": made.__qualname__,
        "__annotations__": annotations,
    }
    for field in dataclasses.fields(made):
        annotations[field.name] = field.type
        namespace[field.name] = dataclasses.field(
            default=field.default,
            default_factory=field.default_factory,
            init=field.init,
            kw_only=field.kw_only,
        )
    if hasattr(made, "__post_init__"):  # the generated code calls the object's own
        namespace["__post_init__"] = made.__post_init__
    alike: type = dataclasses.dataclass(eq=False, repr=False, match_args=False)(
        type(made.__name__, (), namespace)
    )
    generated: Callable[..., None] = alike.__dict__["__init__"]
    return generated


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
