"""`@record`: k8slb's immutable data classes, kept immutable by mypy rather than at run time.

A `@dataclass(frozen=True)` makes Python 3.11 generate and compile three more methods per
class (`__setattr__`, `__delattr__`, `__hash__`) when the module is imported, and its
`__init__` sets each field through `object.__setattr__`. For k8slb's 66 such classes,
freezing them at run time cost some 40 ms of a 220-260 ms import, which every one-file
run and pre-commit hook pays, and made each object 2.7 times slower to build. Here the
class is a plain dataclass, hashed by its fields as a frozen one is, and
`dataclass_transform(frozen_default=True)` tells mypy (run with --strict by `make test`)
that it is frozen: assigning to a field is a type error, as it is for a frozen dataclass.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, TypeVar

_Class = TypeVar("_Class", bound=type)

if TYPE_CHECKING:  # what mypy reads (typing has dataclass_transform from Python 3.11 on)
    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
    def record(cls: _Class) -> _Class:
        """A dataclass that compares and hashes by its fields and is never changed."""

else:

    def record(cls: _Class) -> _Class:
        return dataclasses.dataclass(unsafe_hash=True)(cls)
