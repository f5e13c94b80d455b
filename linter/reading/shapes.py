"""KLB002's input: validate the fields rules read against schemas/manifest-shapes.json.

A rule may then trust the shape of what it reads: an object that fails here is reported and
left out of the index and the rules, so no rule ever reasons about a half-understood object.

Two validators read the one schema: fastjsonschema compiles it to Python and answers "is
this object well-formed?" about twenty times faster than jsonschema, which is what nearly
every object is; jsonschema then lists every error, with its path, for the few that are not
(and has the last word: an object is reported only when jsonschema finds an error).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import fastjsonschema

if TYPE_CHECKING:  # jsonschema is imported only when an object is malformed
    from jsonschema import Draft7Validator, ValidationError
from k8slb.reading.yamltree import Pos, YMap, YSeq

_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "empty",
}


@cache
def _definitions() -> dict[str, Any]:
    text = resources.files("k8slb").joinpath("schemas/manifest-shapes.json").read_text("utf-8")
    definitions: dict[str, Any] = json.loads(text)["$defs"]
    return definitions


def _schema(shape: str) -> dict[str, Any]:
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "allOf": [{"$ref": "#/$defs/Object"}, {"$ref": f"#/$defs/{shape}"}],
        "$defs": _definitions(),
    }


@cache
def _fast_check(shape: str) -> Any:
    return fastjsonschema.compile(_schema(shape))


@cache
def _validator(shape: str) -> Draft7Validator:
    from jsonschema import Draft7Validator

    return Draft7Validator(_schema(shape))


def is_well_formed(body: YMap, shape: str) -> bool:
    try:
        _fast_check(shape)(body)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {shown!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return type(value).__name__


def _dotted(path: Sequence[str | int]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or "the object"


def _message(error: ValidationError) -> str:
    where = _dotted(list(error.absolute_path))
    expected: Any = error.validator_value
    instance: Any = error.instance
    if error.validator == "type":
        wanted = [expected] if isinstance(expected, str) else expected
        names = [_TYPE_NAMES.get(t, t) for t in wanted]
        names = [n for n in names if n != "empty"] or names
        return f"{where} must be {' or '.join(names)}, not {_describe(instance)}"
    if error.validator == "required":
        missing = [k for k in expected if k not in instance]
        return f"{where} needs `{missing[0]}`"
    if error.validator == "minimum":
        return f"{where} must be at least {expected}, not {instance}"
    if error.validator == "maximum":
        return f"{where} must be at most {expected}, not {instance}"
    return f"{where}: {error.message}"


def position_of(body: YMap, path: Sequence[str | int]) -> Pos:
    """Where the node at `path` is written (its parent's key for a mapping entry)."""
    node: Any = body
    pos = body.pos
    for step in path:
        if isinstance(node, YMap) and isinstance(step, str) and step in node:
            pos = node.key_pos[step]
            node = node[step]
        elif isinstance(node, YSeq) and isinstance(step, int) and step < len(node):
            pos = node.item_pos[step]
            node = node[step]
        else:
            break
    return pos


def shape_errors(body: YMap, shape: str) -> Iterator[tuple[Pos, str]]:
    """(position, message) of each field of `body` that has the wrong shape."""
    if is_well_formed(body, shape):
        return
    errors = sorted(_validator(shape).iter_errors(body), key=lambda e: list(map(str, e.path)))
    for error in errors:
        yield position_of(body, list(error.absolute_path)), _message(error)
