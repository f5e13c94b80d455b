"""KLB002's input: validate the fields rules read against schemas/manifest-shapes.json.

A rule may then trust the shape of what it reads: an object that fails here is reported and
left out of the index and the rules, so no rule ever reasons about a half-understood object.

Two validators read the one schema. `is_well_formed` turns it into nested predicates once
a process (microseconds; generating and compiling code, as fastjsonschema did, took some
25 ms a shape on every run) and answers "is this object well-formed?", which nearly every
object is; jsonschema then lists every error, with its path, for the few that are not (and
has the last word: an object is reported only when jsonschema finds an error). The
predicates know only the keywords the schema uses, and refuse any other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema is imported only when an object is malformed
    from jsonschema import Draft7Validator, ValidationError
from k8slb import schema
from k8slb.core.record import record
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
    definitions: dict[str, Any] = schema("manifest-shapes.json")["$defs"]
    return definitions


def _schema(shape: str) -> dict[str, Any]:
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "allOf": [{"$ref": "#/$defs/Object"}, {"$ref": f"#/$defs/{shape}"}],
        "$defs": _definitions(),
    }


Check = Callable[[Any], bool]

# JSON Schema's types as Python classes of the YAML tree; numbers need care (a bool is no
# number, 2.0 is an integer)
_CLASSES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
_ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}

# The predicates below run for every field of every object: plain loops in closures, no
# generator per call.


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _of_type(names: list[str]) -> Check:
    classes = tuple(_CLASSES[n] for n in names if n in _CLASSES)
    integer, number = "integer" in names, "number" in names

    def check(v: Any) -> bool:
        if isinstance(v, classes):
            return True
        if isinstance(v, bool) or not isinstance(v, int | float):
            return False
        return number or (integer and (isinstance(v, int) or v.is_integer()))

    if not integer and not number:
        return lambda v: isinstance(v, classes)
    return check


def _all_of(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(v: Any) -> bool:
        for one in checks:  # noqa: SIM110 - no generator per call (see above)
            if not one(v):
                return False
        return True

    return check


def _constant(answer: bool) -> Check:
    return lambda _: answer


def _fields(fields: list[tuple[str, Check]]) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, dict):
            for key, field in fields:
                if key in v and not field(v[key]):
                    return False
        return True

    return check


def _others(known: set[str], other: Check) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, dict):
            for key, item in v.items():
                if key not in known and not other(item):
                    return False
        return True

    return check


_OBJECT_KEYWORDS = {"type", "properties", "required"}


def _mapping(fields: list[tuple[str, Check]], required: tuple[str, ...]) -> Check:
    """`type: object` with `properties` and `required`: the three checks in one."""

    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return False
        for key, field in fields:
            if key in v and not field(v[key]):
                return False
        for key in required:  # noqa: SIM110 - no generator per call (see above)
            if key not in v:
                return False
        return True

    return check


def _required(keys: tuple[str, ...]) -> Check:
    return lambda v: not isinstance(v, dict) or all(key in v for key in keys)


def _items(item: Check) -> Check:
    def check(v: Any) -> bool:
        if isinstance(v, list):
            for x in v:
                if not item(x):
                    return False
        return True

    return check


def _bound(low: float | None, high: float | None) -> Check:
    def within(v: Any) -> bool:
        if not _number(v):
            return True
        return (low is None or v >= low) and (high is None or v <= high)

    return within


class _Predicates:
    """The schema's definitions as predicates, each built once; `$ref`s are looked up when
    called, so definitions may refer to each other in any order."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self.built: dict[str, Check] = {}
        self.building: set[str] = set()

    def named(self, name: str) -> Check:
        check = self.built.get(name)
        if check is None:
            self.building.add(name)
            check = self.built[name] = self.of(self.definitions[name])
            self.building.discard(name)
        return check

    def _reference(self, name: str) -> Check:
        """The definition's check itself (no call in between on every node it checks),
        unless it is being built: a definition that refers to itself, or to one that
        refers back, looks it up on first use."""
        if name not in self.building:
            return self.named(name)
        resolved: list[Check] = []

        def check(v: Any) -> bool:
            if not resolved:
                resolved.append(self.named(name))
            return resolved[0](v)

        return check

    def of(self, schema: dict[str, Any]) -> Check:
        if schema.get("type") == "object" and set(schema) - _ANNOTATIONS <= _OBJECT_KEYWORDS:
            # the schema's commonest shape, one call a mapping: a mapping whose known
            # fields pass their checks and whose required keys are there
            fields = [(key, self.of(sub)) for key, sub in schema.get("properties", {}).items()]
            return _mapping(fields, tuple(schema.get("required", ())))
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS:
                continue
            if keyword == "$ref":
                checks.append(self._reference(value.removeprefix("#/$defs/")))
            elif keyword == "type":
                checks.append(_of_type([value] if isinstance(value, str) else value))
            elif keyword == "properties":
                checks.append(_fields([(key, self.of(sub)) for key, sub in value.items()]))
            elif keyword == "additionalProperties":
                other = self.of(value) if isinstance(value, dict) else _constant(bool(value))
                checks.append(_others(set(schema.get("properties", ())), other))
            elif keyword == "required":
                checks.append(_required(tuple(value)))
            elif keyword == "items":
                checks.append(_items(self.of(value)))
            elif keyword == "minimum":
                checks.append(_bound(value, None))
            elif keyword == "maximum":
                checks.append(_bound(None, value))
            elif keyword == "allOf":
                checks.extend(self.of(sub) for sub in value)
            else:
                raise ValueError(f"manifest-shapes.json: keyword {keyword!r} is not checked")
        return _all_of(checks) if checks else _constant(True)


@cache
def _predicates() -> _Predicates:
    return _Predicates(_definitions())


@cache
def _fast_check(shape: str) -> Check:
    predicates = _predicates()
    whole, own = predicates.named("Object"), predicates.named(shape)
    return lambda body: whole(body) and own(body)


@cache
def _validator(shape: str) -> Draft7Validator:
    from jsonschema import Draft7Validator

    return Draft7Validator(_schema(shape))


def is_well_formed(body: YMap, shape: str) -> bool:
    return _fast_check(shape)(body)


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


# Fields an object can be read without: a container's probes and lifecycle hooks, the pod's
# grace period. A wrong shape in one of them leaves the object to the rules that do not
# read that field (Rule.reads); a wrong shape anywhere else (ports, selectors, labels, the
# containers themselves) links the object wrongly to others, and it is left out whole.
SEPARABLE_FIELDS = frozenset(
    {
        "readinessProbe",
        "livenessProbe",
        "startupProbe",
        "lifecycle",
        "terminationGracePeriodSeconds",
    }
)


@record
class ShapeError:
    pos: Pos
    message: str
    path: tuple[str | int, ...]  # from the object's root to the field

    @property
    def separable(self) -> tuple[str | int, ...] | None:
        """The path to the separable field the error lies in, or None."""
        for number, step in enumerate(self.path):
            if step in SEPARABLE_FIELDS:
                return self.path[: number + 1]
        return None


def shape_errors(body: YMap, shape: str) -> Iterator[ShapeError]:
    """Each field of `body` that has the wrong shape."""
    if is_well_formed(body, shape):
        return
    errors = sorted(_validator(shape).iter_errors(body), key=lambda e: list(map(str, e.path)))
    for error in errors:
        path = tuple(error.absolute_path)
        yield ShapeError(position_of(body, list(path)), _message(error), path)


def without_fields(body: YMap, paths: Iterable[tuple[str | int, ...]]) -> None:
    """Remove the fields at `paths` from the body, so that no rule reads their wrong shape."""
    for path in paths:
        parent: Any = body
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        if isinstance(parent, YMap) and isinstance(key, str) and key in parent:
            del parent[key]
            parent.spots.pop(key, None)
