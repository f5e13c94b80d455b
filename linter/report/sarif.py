"""SARIF 2.1.0 for code scanning (GitHub, Azure DevOps, IDEs): every rule with its docs,
every finding with its exact region, related locations, and its fix as text replacements."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from k8slb import __version__
from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.fixing.suggest import Replacement, suggestions
from k8slb.reading.encodings import UTF8, codec_for, newline_lines
from k8slb.report.baseline import key_of
from k8slb.report.docs import rule_markdown
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.rulekit.base import Rule
from k8slb.rules import ALL_RULES

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


class _Lines:
    """Line and column of character offsets in the files fixes touch (each decoded and its
    line starts found once)."""

    def __init__(self, contents: dict[str, bytes]) -> None:
        self._contents = contents
        self._starts: dict[str, list[int]] = {}

    def _line_starts(self, path: str) -> list[int]:
        if path not in self._starts:
            data = self._contents[path]
            text = (codec_for(path, data) or UTF8).decode(data, "replace")
            ended = [len(line) for line in newline_lines(text) if line.endswith("\n")]
            self._starts[path] = [0, *itertools.accumulate(ended)]
        return self._starts[path]

    def region(self, path: str, start: int, end: int) -> dict[str, int]:
        """A SARIF region (1-based, end column exclusive) for character offsets."""
        starts = self._line_starts(path)
        start_line = bisect.bisect_right(starts, start)
        end_line = bisect.bisect_right(starts, end)
        return {
            "startLine": start_line,
            "startColumn": start - starts[start_line - 1] + 1,
            "endLine": end_line,
            "endColumn": end - starts[end_line - 1] + 1,
        }


def _fix(finding: Finding, replacements: list[Replacement], lines: _Lines) -> list[dict[str, Any]]:
    """The finding's fix as SARIF replacements, one artifact change per file."""
    by_path: dict[str, list[Replacement]] = {}
    for piece in sorted(replacements, key=lambda r: r.start):
        by_path.setdefault(piece.path, []).append(piece)
    changes = [
        {
            "artifactLocation": _artifact(path),
            "replacements": [
                {
                    "deletedRegion": lines.region(path, piece.start, piece.end),
                    "insertedContent": {"text": piece.text},
                }
                for piece in pieces
            ],
        }
        for path, pieces in by_path.items()
    ]
    return [{"description": {"text": finding.fix.description or ""}, "artifactChanges": changes}]


def _result(
    finding: Finding,
    index: dict[str, int],
    contents: dict[str, bytes],
    fix: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": _LEVELS[finding.severity],
        "message": {"text": finding.text},
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
    if finding.rendered is not None:  # where Helm's output had it, beside the template line
        rendered = {"template": finding.rendered.template, "line": finding.rendered.line}
        result.setdefault("properties", {})["rendered"] = rendered
    if fix:
        result["fixes"] = fix
    return result


def _suppressed(
    finding: Finding, why: str, index: dict[str, int], contents: dict[str, bytes]
) -> dict[str, Any]:
    """A suppressed finding as SARIF records one: code scanning shows it as dismissed."""
    result = _result(finding, index, contents)
    external = why.startswith(("configuration", "per-file-ignores", "exemption"))
    result["suppressions"] = [
        {"kind": "external" if external else "inSource", "justification": why}
    ]
    return result


def document(
    result: RunResult, contents: dict[str, bytes], *, show_suppressed: bool = False, jobs: int = 1
) -> dict[str, Any]:
    index = {rule.id: number for number, rule in enumerate(ALL_RULES)}
    fixes = suggestions(result.findings, contents, jobs)
    lines = _Lines(contents)
    results = [
        _result(f, index, contents, _fix(f, fixes[i], lines) if i in fixes else None)
        for i, f in enumerate(result.findings)
    ]
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


def render(
    result: RunResult, contents: dict[str, bytes], *, show_suppressed: bool = False, jobs: int = 1
) -> str:
    """The SARIF log; each finding's fix is made (and checked) in `jobs` processes."""
    made = document(result, contents, show_suppressed=show_suppressed, jobs=jobs)
    return json.dumps(made, indent=2) + "\n"


class SarifFormatter(Formatter):
    """SARIF 2.1.0, for code-scanning dashboards; each fix made and checked."""

    name = "sarif"
    suppressed = True

    def render(self, result: RunResult, options: RenderOptions) -> str:
        return render(
            result, result.contents, show_suppressed=options.show_suppressed, jobs=options.jobs
        )
