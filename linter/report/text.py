"""ruff-like text: `path:line:col: ID [severity] message`, then a summary line."""

from __future__ import annotations

import click
from k8slb.engine import RunResult
from k8slb.findings import Finding, Severity
from k8slb.report.printable import printable

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _plural(count: int, word: str) -> str:
    if count == 1 or word == "info":
        return f"{count} {word}"
    return f"{count} {word}{'es' if word.endswith('x') else 's'}"


def format_finding(finding: Finding, *, colour: bool) -> str:
    def style(text: str, **kwargs: object) -> str:
        return click.style(text, **kwargs) if colour else text  # type: ignore[arg-type]

    where = style(f"{printable(finding.path)}:{finding.line}:{finding.column}:", bold=True)
    rule = style(finding.rule, fg=_COLOURS[finding.severity], bold=True)
    marker = " [*]" if finding.fix.available and finding.fix.safe else ""
    return f"{where} {rule}{marker} [{finding.severity.label}] {printable(finding.message)}"


def summary(result: RunResult) -> str:
    scanned = f"{_plural(result.files, 'file')}, {_plural(result.objects, 'object')}"
    if result.unknown_kinds:
        scanned += f" ({result.unknown_kinds} of kinds k8slb does not check)"
    if result.suppressed:
        scanned += f"; {len(result.suppressed)} suppressed"
    if result.baselined:
        scanned += f"; {result.baselined} in the baseline"
    if result.errors:  # never "passed" when something could not be read or checked
        problems = _plural(len(result.errors), "error")
        verdict = "No findings" if not result.findings else _plural(len(result.findings), "finding")
        return f"{verdict} in what was read ({scanned}), and {problems} (below)."
    if not result.findings:
        return f"All checks passed ({scanned})."
    counts = {s: sum(1 for f in result.findings if f.severity is s) for s in Severity}
    by_severity = ", ".join(
        _plural(counts[s], s.label) for s in sorted(Severity, reverse=True) if counts[s]
    )
    found = f"Found {_plural(len(result.findings), 'finding')}: {by_severity} ({scanned})."
    safe = sum(1 for f in result.findings if f.fix.available and f.fix.safe)
    hidden = sum(1 for f in result.findings if f.fix.available and not f.fix.safe)
    if safe:
        found += f"\n[*] {safe} fixable with `k8slb fix`"
        found += (
            f" ({_plural(hidden, 'hidden fix')} can be enabled with --unsafe-fixes)."
            if hidden
            else "."
        )
    elif hidden:
        found += (
            f"\n{_plural(hidden, 'hidden fix')} can be enabled with `k8slb fix --unsafe-fixes`."
        )
    return found


def render(
    result: RunResult, *, colour: bool, show_suppressed: bool = False, quiet: bool = False
) -> str:
    shown = [(f, "") for f in result.findings]
    if show_suppressed:
        shown += [(f, f" (suppressed by {why})") for f, why in result.suppressed]
    shown.sort(key=lambda pair: pair[0].sort_key())
    lines = [format_finding(f, colour=colour) + note for f, note in shown]
    if not quiet:
        lines.append(summary(result))
    return "".join(line + "\n" for line in lines)


def statistics_rows(result: RunResult) -> list[tuple[int, str, str, bool]]:
    """(count, rule, name, has a safe fix) per rule, most frequent first."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    fixable: dict[str, bool] = {}
    for finding in result.findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
        names[finding.rule] = finding.name
        fixable[finding.rule] = fixable.get(finding.rule, False) or (
            finding.fix.available and finding.fix.safe
        )
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(n, rule, names[rule], fixable[rule]) for rule, n in rows]


def statistics(result: RunResult) -> str:
    """Findings counted per rule, most frequent first (like `ruff --statistics`)."""
    rows = statistics_rows(result)
    width = max((len(str(n)) for n, *_ in rows), default=1)
    return "".join(
        f"{n:>{width}}\t{rule}\t{'[*] ' if fixable else ''}{name}\n"
        for n, rule, name, fixable in rows
    )
