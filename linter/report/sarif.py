"""SARIF 2.1.0 for code scanning (GitHub, Azure DevOps, IDEs): every rule with its docs,
every finding with its exact region, related locations, and its fix as text replacements."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from k8slb import __version__
from k8slb.baseline import key_of
from k8slb.encodings import codec_for
from k8slb.engine import RunResult
from k8slb.findings import Finding, Severity
from k8slb.rules import ALL_RULES
from k8slb.rules.base import Rule

DOCS = "https://github.com/k8slb/k8slb/blob/main/docs/rules/{id}.md"
INFORMATION_URI = "https://github.com/k8slb/k8slb"
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _artifact(path: str) -> dict[str, Any]:
    """Relative to %SRCROOT% (the folder k8slb ran in) where the file is below it, as code
    scanning wants; percent-encoded (`a dir/x,y%z.yaml`)."""
    location = Path(path)
    if location.is_absolute():
        try:
            location = location.relative_to(Path.cwd())
        except ValueError:
            return {"uri": location.as_uri()}
    return {"uri": quote(location.as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _fingerprint(finding: Finding, contents: dict[str, bytes]) -> str:
    """The baseline's identity of a finding (rule, file, object, container, the text of its
    line), hashed: stable across edits elsewhere in the file, as code scanning expects."""
    key = key_of(finding, contents, Path.cwd())
    return hashlib.blake2b("\0".join(key).encode(), digest_size=16).hexdigest()


def _rule(rule: type[Rule]) -> dict[str, Any]:
    from k8slb.docs import rule_markdown

    sections = rule.sections()
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": sections.get("What it does", rule.summary())},
        "help": {
            "text": sections.get("Fix", rule.summary()),
            "markdown": rule_markdown(rule),
        },
        "helpUri": DOCS.format(id=rule.id),
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
        "properties": {"tags": ["kubernetes", "load-balancing"]},
    }


def _region(text: str, start: int, end: int) -> dict[str, int]:
    """A SARIF region (1-based, end column exclusive) for character offsets."""

    def line_column(offset: int) -> tuple[int, int]:
        line = text.count("\n", 0, offset) + 1
        return line, offset - (text.rfind("\n", 0, offset) + 1) + 1

    start_line, start_column = line_column(start)
    end_line, end_column = line_column(end)
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def _fix(finding: Finding, contents: dict[str, bytes]) -> list[dict[str, Any]]:
    """The finding's fix as replacements: made in memory on each file it touches."""
    from k8slb.fixing.fixer import apply_edits

    changes = []
    for path in dict.fromkeys(edit.path for edit in finding.edits):
        if path not in contents:  # a run answered from the cache read no file
            try:
                contents[path] = Path(path).read_bytes()
            except OSError:
                return []
        old = contents[path]
        new, refusals = apply_edits(old, [e for e in finding.edits if e.path == path])
        if refusals or new == old:
            return []
        codec = codec_for(path, old)
        assert codec is not None  # apply_edits refused the file otherwise
        before, after = codec.decode(old), codec.decode(new)
        prefix = 0
        while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < min(len(before), len(after)) - prefix
            and before[-1 - suffix] == after[-1 - suffix]
        ):
            suffix += 1
        changes.append(
            {
                "artifactLocation": _artifact(path),
                "replacements": [
                    {
                        "deletedRegion": _region(before, prefix, len(before) - suffix),
                        "insertedContent": {"text": after[prefix : len(after) - suffix]},
                    }
                ],
            }
        )
    if not changes:
        return []
    return [{"description": {"text": finding.fix.description or ""}, "artifactChanges": changes}]


def _result(finding: Finding, index: dict[str, int], contents: dict[str, bytes]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": _LEVELS[finding.severity],
        "message": {"text": finding.message},
        "partialFingerprints": {"k8slbFinding/v1": _fingerprint(finding, contents)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(finding.path),
                    "region": {"startLine": finding.line, "startColumn": finding.column},
                }
            }
        ],
    }
    if finding.related:
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {
                    "artifactLocation": _artifact(related.path),
                    "region": {"startLine": related.line},
                },
                "message": {"text": related.message},
            }
            for number, related in enumerate(finding.related)
        ]
    if finding.object is not None:
        ref = finding.object
        result["properties"] = {
            "object": {"kind": ref.kind, "namespace": ref.namespace, "name": ref.name},
            "container": finding.container,
        }
    if finding.fix.available and finding.edits:
        fixes = _fix(finding, contents)
        if fixes:
            result["fixes"] = fixes
    return result


def _suppressed(
    finding: Finding, why: str, index: dict[str, int], contents: dict[str, bytes]
) -> dict[str, Any]:
    """A suppressed finding as SARIF records one: code scanning shows it as dismissed."""
    result = _result(finding, index, contents)
    result.pop("fixes", None)
    external = why.startswith(("configuration", "per-file-ignores", "exemption"))
    result["suppressions"] = [
        {"kind": "external" if external else "inSource", "justification": why}
    ]
    return result


def document(
    result: RunResult, contents: dict[str, bytes], *, show_suppressed: bool = False
) -> dict[str, Any]:
    index = {rule.id: number for number, rule in enumerate(ALL_RULES)}
    results = [_result(f, index, contents) for f in result.findings]
    if show_suppressed:
        results += [_suppressed(f, why, index, contents) for f, why in result.suppressed]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "k8slb",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(rule) for rule in ALL_RULES],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
                "results": results,
            }
        ],
    }


def render(result: RunResult, contents: dict[str, bytes], *, show_suppressed: bool = False) -> str:
    return json.dumps(document(result, contents, show_suppressed=show_suppressed), indent=2) + "\n"
