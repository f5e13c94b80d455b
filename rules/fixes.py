"""Edits that several Python rules make: adding gRPC options to a call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k8slb.codefacts import Loc, Options
from k8slb.fixing.edits import PythonEdit


def add_options(call: Loc, options: Options, pairs: Sequence[tuple[str, Any]]) -> list[PythonEdit]:
    """Add (key, value) options: into the literal that holds the call's options, or as a
    new `options=[...]` argument; nothing when the options are not a literal."""
    if options.literal is not None:
        where = options.literal
    elif not options.given:
        where = call
    else:
        return []
    return [PythonEdit(where.path, where.line, where.column, "add-options", tuple(pairs))]
