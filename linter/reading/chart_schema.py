"""A chart's values schemas, looked at before Helm reads them.

Helm validates the values against each `values.schema.json` (the chart's and its
subcharts'), and its validator loads whatever a `$ref` names: an https:// URL from the
network, a file:// or relative path from the machine it runs on. k8slb opens no network
connection and reads nothing outside the chart, so a schema that reaches out is reported
at its reference instead of being handed to Helm; `--helm-skip-schema-validation` leaves
every schema out (as `helm template --skip-schema-validation`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from k8slb.reading.chart_packages import is_package, packed, unpacked

SCHEMA = "values.schema.json"
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
# The metaschemas Helm's validator knows without loading them (santhosh-tekuri/jsonschema);
# `json-schema.org/schema`, the latest draft's old name, is Bitnami's charts' (seen to
# validate with no connection made).
_KNOWN_METASCHEMAS = frozenset(
    {
        "json-schema.org/schema",
        "json-schema.org/draft-04/schema",
        "json-schema.org/draft-06/schema",
        "json-schema.org/draft-07/schema",
        "json-schema.org/draft/2019-09/schema",
        "json-schema.org/draft/2020-12/schema",
    }
)
_NESTING = 4  # packaged subcharts inside packaged subcharts looked into


@dataclass(frozen=True)
class Reach:
    """A schema's reference to something outside it: the chart's file that holds it (a
    packaged subchart's archive, then the file inside that archive), its line there."""

    member: str
    inner: str | None
    line: int
    target: str


def reaching_out(members: Mapping[str, bytes]) -> Reach | None:
    """The first reference to outside its schema that a schema of the chart makes, if any
    (packaged subcharts looked into)."""
    for member, inner, text in _schemas(members, 0):
        found = _outside(text)
        if found is not None:
            target, line = found
            return Reach(member, inner, line, target)
    return None


def without_schemas(members: Mapping[str, bytes]) -> dict[str, bytes]:
    """The chart's files with every values schema left out, packaged subcharts' too."""
    return _stripped(members, 0)


def _is_schema(name: str) -> bool:
    return name == SCHEMA or name.endswith("/" + SCHEMA)


def _schemas(members: Mapping[str, bytes], depth: int) -> Iterator[tuple[str, str | None, str]]:
    for name, data in members.items():
        if _is_schema(name):
            yield name, None, data.decode("utf-8", "replace")
        elif is_package(name) and depth < _NESTING:
            for inner, _, text in _schemas(unpacked(data), depth + 1):
                yield name, inner, text


def _outside(text: str) -> tuple[str, int] | None:
    """The first reference the schema makes to a document other than itself, with its
    line; None when it makes none (or is no JSON: Helm says why). A `urn:` Helm resolves
    without loading anything."""
    try:
        schema = json.loads(text)
    except (ValueError, RecursionError):
        return None
    ids: set[str] = set()
    references: list[str] = []
    pending: list[Any] = [schema]
    while pending:  # a walk, not a recursion: the nesting is the file's to choose
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and key == "$id":
                    ids.add(value.rstrip("#"))
                elif isinstance(value, str) and key in _REFERENCES:
                    references.append(value)
                elif isinstance(value, str) and key == "$schema":
                    if _bare(value) not in _KNOWN_METASCHEMAS:
                        references.append(value)
                else:
                    pending.append(value)
    for target in references:
        document = target.partition("#")[0]
        if document and document not in ids and not document.startswith("urn:"):
            at = text.find(json.dumps(target)[1:-1])
            return target, text.count("\n", 0, at) + 1 if at >= 0 else 1
    return None


def _bare(url: str) -> str:
    """`https://json-schema.org/draft-07/schema#` as `json-schema.org/draft-07/schema`."""
    return url.partition("://")[2].rstrip("#").rstrip("/") if "://" in url else url


def _stripped(members: Mapping[str, bytes], depth: int) -> dict[str, bytes]:
    kept: dict[str, bytes] = {}
    for name, data in members.items():
        if _is_schema(name):
            continue
        if is_package(name) and depth < _NESTING:
            inside = unpacked(data)
            if any(_is_schema(n) or is_package(n) for n in inside):
                data = packed(_stripped(inside, depth + 1))
        kept[name] = data
    return kept
