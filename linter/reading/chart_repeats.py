"""A key a chart's rendered manifest gives twice in one mapping (`env:` written by two
branches of a template): Helm installs the chart all the same. `helm install` and
`helm upgrade` read the rendered manifests with a YAML decoder that keeps the last value of
a repeated key (sigs.k8s.io/yaml over go-yaml v2, not strict), so the API server gets the
object with the first value dropped; stricter readers of the same text refuse it (kustomize
and Flux's helm-controller, whose kyaml says `mapping key "env" already defined`, and
YAML's own spec, which wants a mapping's keys unique).

So the rendered file is read as Helm reads it, the last value kept: the earlier key's lines
(the key, and the block of its value: the lines indented under it, and a sequence written
at its own indentation) are blanked, line numbers kept, and the text is read again; each
repeat is one KLB001 at warning on the later key's line, which says so. A repeat whose
earlier key is not found by its indentation (flow style, a key that is not plain or
simply quoted) leaves the file's KLB001 as it was: not read.

A kustomization file is read so too (`read_as_kustomize_does`): kustomize (v5) reads it
through sigs.k8s.io/yaml's YAMLToJSON, which keeps a repeated key's last value (its own
code says it cannot switch to strict decoding yet, kustomize issue #5061), so the
kustomization builds. There, and in a chart, a repeat that gives the same value again
(`apiVersion:` written twice alike) loses nothing: told at `info`.

Bounded: at most MAX_REPEATS repeats a file, each found by one scan of its lines."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.reading.manifests import ManifestFile, load_manifests

MAX_REPEATS = 16  # repeated keys one rendered file is read past
_REPEATED = regex.compile(r"duplicate key '(?P<key>[^'\\]{1,200})' in a mapping")


@record
class _Reader:
    """Who reads a file that repeats a key with the last value kept, in a finding's words."""

    manifest: str  # what the file is: "rendered manifest", "kustomization"
    kept: str  # what happens with the last value
    fix: str  # where to give the key once


_HELM = _Reader(
    "rendered manifest",
    "Helm installs the chart with this last value",
    "give the key once in the template",
)
_KUSTOMIZE = _Reader(
    "kustomization",
    "kustomize builds with this last value",
    "give the key once",
)


def read_as_helm_does(paths: list[str], texts: dict[str, str], parsed: dict[str, Any]) -> None:
    """Each rendered file (`texts`, by path) whose parse failed only on repeated keys,
    parsed again with each repeat's last value kept, and a KLB001 warning per repeat;
    `parsed` gets the new parse (a parse may be shared through the cache: never changed)."""
    _read_leniently(paths, texts, parsed, _HELM)


def read_as_kustomize_does(path: str, data: bytes, found: ManifestFile) -> ManifestFile:
    """A kustomization file whose parse failed only on repeated keys, read as kustomize
    reads it (the last value kept), with a KLB001 per repeat; else `found` as it is."""
    if not _repeats(found.problems):
        return found
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return found
    parsed: dict[str, Any] = {path: found}
    _read_leniently([path], {path: text}, parsed, _KUSTOMIZE)
    again = parsed[path]
    return again if isinstance(again, ManifestFile) else found


def _read_leniently(
    paths: list[str], texts: dict[str, str], parsed: dict[str, Any], reader: _Reader
) -> None:
    for path in paths:
        found = parsed.get(path)
        if not isinstance(found, ManifestFile) or not _repeats(found.problems):
            continue
        text, again = texts[path], found
        said: list[Problem] = []
        while _repeats(again.problems) and len(said) < MAX_REPEATS:
            problem = next(p for p in again.problems if _REPEATED.search(p.message))
            key = _REPEATED.search(problem.message)
            first = _earlier(text, problem.line, problem.column, key.group("key")) if key else None
            if key is None or first is None:
                break
            same = _value(text, first, problem.column) == _value(
                text, problem.line - 1, problem.column
            )
            text = _blanked(text, first, problem.column)
            said.append(_said(problem, key.group("key"), first, reader, same))
            again = load_manifests(path, text.encode())
        if said and not any(p.rule == "KLB001" for p in again.problems):
            parsed[path] = replace(again, problems=[*said, *again.problems])


def _repeats(problems: list[Problem]) -> bool:
    """Whether every KLB001 of a parse is a repeated key (and there is one)."""
    errors = [p for p in problems if p.rule == "KLB001"]
    return bool(errors) and all(_REPEATED.search(p.message) is not None for p in errors)


def _key_at(line: str, column: int, key: str) -> bool:
    """Whether `key:` (plain or quoted) starts the line at `column` (0-based)."""
    rest = line[column:]
    return any(
        rest.startswith(written) and rest[len(written) :].lstrip(" \t").startswith(":")
        for written in (key, f'"{key}"', f"'{key}'")
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _earlier(text: str, line: int, column: int, key: str) -> int | None:
    """The 0-based line of the earlier `key:` of the mapping whose later one is at `line`
    and `column` (1-based): the line above at that indentation, with no line of the
    mapping's parent between; None when not found so."""
    lines = text.split("\n")
    at = column - 1
    if not 0 < line <= len(lines) or not _key_at(lines[line - 1], at, key):
        return None
    for number in range(line - 2, -1, -1):
        current = lines[number]
        stripped = current.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = _indent(current)
        if indent > at:
            continue
        if indent == at:
            if stripped.startswith("- "):
                continue  # a sequence written at a key's indentation: that key's value
            if _key_at(current, at, key):
                return number
            continue
        # Less indented: the mapping starts here, as an item of a sequence (`- key:`)
        # whose first key may be the one, or its parent's key ends the search.
        if stripped.startswith("- ") and indent + 2 + _indent(current[indent + 2 :]) == at:
            return number if _key_at(current, at, key) else None
        return None
    return None


def _block_end(lines: list[str], first: int, at: int) -> int:
    """The 0-based line past the block of the value of the key on line `first` at
    column `at` (0-based): the lines indented under it, and a sequence at its indentation."""
    for number in range(first + 1, len(lines)):
        current = lines[number]
        stripped = current.strip()
        if stripped and not stripped.startswith("#"):
            indent = _indent(current)
            if indent < at or (indent == at and not stripped.startswith("- ")):
                return number
    return len(lines)


def _blanked(text: str, first: int, column: int) -> str:
    """The text with the key on line `first` (0-based) and its value's block blanked
    (a sequence item's `- ` kept); the lines stay where they are."""
    lines = text.split("\n")
    at = column - 1
    head = lines[first]
    lines[first] = head[: head.index("-") + 1] if _indent(head) < at else ""
    for number in range(first + 1, _block_end(lines, first, at)):
        lines[number] = ""
    return "\n".join(lines)


def _value(text: str, line: int, column: int) -> list[str]:
    """The value of the key on 0-based `line` at 1-based `column` as written: the rest of
    its line and its block's lines, blank lines and trailing spaces left out."""
    lines = text.split("\n")
    at = column - 1
    block = lines[line + 1 : _block_end(lines, line, at)]
    return [lines[line][at:].rstrip()] + [b.rstrip() for b in block if b.strip()]


def _said(problem: Problem, key: str, first: int, reader: _Reader, same: bool) -> Problem:
    above = problem.line - 1 - first
    where = "on the line above" if above == 1 else f"{above} lines above"
    lost = "the same value both times: nothing is lost" if same else "the first dropped"
    return Problem(
        "KLB001",
        problem.path,
        problem.line,
        problem.column,
        f"key '{key}' is given twice in one mapping, here and {where} in the "
        f"{reader.manifest}: {reader.kept}, {lost}",
        None,
        Severity.INFO if same else Severity.WARNING,
        (
            "the file is linted as its tool reads it, with the last value",
            "strict YAML readers (kyaml, Flux's controllers, YAML's spec) refuse a "
            f"repeated key (`mapping key already defined`): {reader.fix}",
        ),
    )
