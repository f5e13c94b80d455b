"""ruff-like text: `path:line:col: ID [severity] message`, then a summary line."""

from __future__ import annotations

import click
from k8slb.engine import RunResult
from k8slb.findings import Finding, Severity

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 or word == 'info' else 's'}"


def format_finding(finding: Finding, *, colour: bool) -> str:
    def style(text: str, **kwargs: object) -> str:
        return click.style(text, **kwargs) if colour else text  # type: ignore[arg-type]

    where = style(f"{finding.path}:{finding.line}:{finding.column}:", bold=True)
    rule = style(finding.rule, fg=_COLOURS[finding.severity], bold=True)
    marker = " [*]" if finding.fix.available and finding.fix.safe else ""
    return f"{where} {rule}{marker} [{finding.severity.label}] {finding.message}"


def summary(result: RunResult) -> str:
    scanned = f"{_plural(result.files, 'file')}, {_plural(result.objects, 'object')}"
    if result.unknown_kinds:
        scanned += f" ({result.unknown_kinds} of kinds k8slb does not check)"
    if not result.findings:
        return f"All checks passed ({scanned})."
    counts = {s: sum(1 for f in result.findings if f.severity is s) for s in Severity}
    by_severity = ", ".join(
        _plural(counts[s], s.label) for s in sorted(Severity, reverse=True) if counts[s]
    )
    return f"Found {_plural(len(result.findings), 'finding')}: {by_severity} ({scanned})."


def render(result: RunResult, *, colour: bool) -> str:
    lines = [format_finding(f, colour=colour) for f in result.findings]
    lines.append(summary(result))
    return "\n".join(lines) + "\n"
