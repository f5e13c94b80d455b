"""A baseline: the findings a team accepted when it turned k8slb on, recorded in a file it
commits (`.k8slb-baseline.json`), so that `check` reports only what is new.

A finding is known by what it is about, not where: its rule, its file (relative to the
baseline's folder), its object (kind, namespace, name), its container, and a fingerprint
of the text of the line it points at (whitespace folded). Lines added or removed elsewhere
in the file do not change it; editing the offending line does, and the finding is new again.
Identical findings are counted: two in the baseline hide two, not three.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from k8slb.core.findings import Finding
from k8slb.core.record import record
from k8slb.reading.encodings import file_bytes, text_lines
from k8slb.report.output_file import write_whole

FORMAT = 1

Key = tuple[str, str, str, str, str, str, str]


class BaselineError(Exception):
    """The baseline file cannot be read; the message names it and says why."""


def _line_text(finding: Finding, contents: MutableMapping[str, bytes]) -> str:
    """The reported line, whitespace folded. A file read here is kept in `contents`, and
    its lines are split once however many findings it has."""
    try:
        data = file_bytes(finding.path, contents)
    except OSError:
        return ""
    lines = text_lines(finding.path, data)
    return " ".join(lines[finding.line - 1].split()) if 0 < finding.line <= len(lines) else ""


def key_of(finding: Finding, contents: MutableMapping[str, bytes], root: Path) -> Key:
    ref = finding.object
    relative = Path(os.path.relpath(os.path.abspath(finding.path), root)).as_posix()
    text = _line_text(finding, contents)
    fingerprint = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    return (
        finding.rule,
        relative,
        ref.kind if ref else "",
        (ref.namespace or "") if ref else "",
        (ref.name or "") if ref else "",
        finding.container or "",
        fingerprint,
    )


_FIELDS = ("rule", "path", "kind", "namespace", "name", "container", "fingerprint")


def write(path: Path, findings: Sequence[Finding], contents: Mapping[str, bytes]) -> int:
    """Record the findings (one entry a line, so diffs of the file read well); the count."""
    root = path.parent.resolve()
    known = dict(contents)
    keys = sorted(key_of(f, known, root) for f in findings)
    entries = [json.dumps(dict(zip(_FIELDS, key, strict=True))) for key in keys]
    body = ",\n".join(f"    {entry}" for entry in entries)
    text = (
        f'{{\n  "version": {FORMAT},\n  "tool": "k8slb",\n  "findings": [\n'
        + (body + "\n" if entries else "")
        + "  ]\n}\n"
    )
    write_whole(path, text)
    return len(keys)


@record
class Entry:
    key: Key
    line: int  # in the baseline file


def load(path: Path) -> list[Entry]:
    try:
        text = path.read_text("utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: cannot read the baseline: {error}") from None
    except json.JSONDecodeError as error:
        raise BaselineError(f"{path}:{error.lineno}: not a baseline (JSON: {error.msg})") from None
    if not isinstance(data, dict) or data.get("version") != FORMAT:
        raise BaselineError(f"{path}: not a k8slb baseline of format {FORMAT}")
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if '"fingerprint"' in line]
    entries = []
    for number, entry in enumerate(data.get("findings") or []):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in _FIELDS):
            raise BaselineError(f"{path}: entry {number} is not a baseline entry")
        key: Key = tuple(entry[k] for k in _FIELDS)
        entries.append(Entry(key, lines[number] if number < len(lines) else 1))
    return entries


@dataclass
class Applied:
    kept: list[Finding] = field(default_factory=list)
    baselined: int = 0
    unused: list[Entry] = field(default_factory=list)  # entries no finding matches now


def apply(
    findings: Sequence[Finding], entries: Sequence[Entry], contents: Mapping[str, bytes], root: Path
) -> Applied:
    left = Counter(entry.key for entry in entries)
    outcome = Applied()
    known = dict(contents)
    for finding in findings:
        key = key_of(finding, known, root)
        if left[key] > 0:
            left[key] -= 1
            outcome.baselined += 1
        else:
            outcome.kept.append(finding)
    for entry in entries:
        if left[entry.key] > 0:
            left[entry.key] -= 1
            outcome.unused.append(entry)
    return outcome
