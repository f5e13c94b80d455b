"""Markdown: a GitHub job summary, a merge-request comment. The findings per rule, then a
table of them; every value escaped so that a file's text cannot break the table or add a
link or an image."""

from __future__ import annotations

from collections import Counter

from k8slb.core.findings import Finding
from k8slb.core.results import RunResult
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.report.printable import printable

MAX_ROWS = 200  # a summary stays readable (and under GitHub's 1 MiB per step)


def _cell(text: str) -> str:
    """Plain text in a table cell: markdown's active characters escaped, one line."""
    escaped = printable(text).replace("\\", "\\\\")
    for character in "|`*_[]<>!#~":
        escaped = escaped.replace(character, "\\" + character)
    # GitHub links (and notifies) `@name` whether escaped or not; a zero-width space after
    # the `@` shows the same text and mentions no one (as Renovate writes release notes)
    return escaped.replace("@", "@&#8203;")


def _row(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}:{finding.column}"
    cells = [where, f"{finding.rule} {finding.name}", finding.severity.label, finding.message]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def render(result: RunResult) -> str:
    findings = result.findings
    lines = ["## k8slb", ""]
    if not findings:
        lines.append(f"No finding ({result.files} files, {result.objects} objects).")
        return "\n".join([*lines, *_errors(result)]) + "\n"
    counts = Counter((f.rule, f.name, f.severity.label) for f in findings)
    lines += [
        f"{len(findings)} finding{'s' * (len(findings) != 1)} "
        f"({result.files} files, {result.objects} objects).",
        "",
        "| rule | severity | findings |",
        "| --- | --- | ---: |",
        *(
            f"| {rule} {name} | {severity} | {count} |"
            for (rule, name, severity), count in sorted(counts.items())
        ),
        "",
        "| where | rule | severity | finding |",
        "| --- | --- | --- | --- |",
        *(_row(f) for f in findings[:MAX_ROWS]),
    ]
    if len(findings) > MAX_ROWS:
        lines += ["", f"… and {len(findings) - MAX_ROWS} more (`k8slb check` shows them all)."]
    return "\n".join([*lines, *_errors(result)]) + "\n"


def _errors(result: RunResult) -> list[str]:
    if not result.errors:
        return []
    return ["", "The run could not read everything:", "", *(f"- {_cell(e)}" for e in result.errors)]


class MarkdownFormatter(Formatter):
    """A Markdown table, for a merge request's comment or a job summary."""

    name = "markdown"

    def render(self, result: RunResult, options: RenderOptions) -> str:
        return render(result)
