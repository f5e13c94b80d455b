"""ruff-like text: `path:line:col: ID [severity] headline`, then the detail (with the
offending lines and a caret, in the `full` style), and a summary line.

Styles: `full` (code frame), `detail` (headline and detail lines, no frame: what a pipe or
a narrow terminal gets from `--format text`), `concise` (one line per finding, the whole
message on it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, MutableMapping

import click
from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.reading.encodings import file_bytes, text_lines
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.report.printable import printable

STYLES = ("full", "detail", "concise")
FRAME_CONTEXT = 2  # lines shown above the offending one
FRAME_COLUMNS = 80  # the narrowest terminal that `--format text` draws code frames on

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _plural(count: int, word: str) -> str:
    if count == 1 or word == "info":
        return f"{count} {word}"
    return f"{count} {word}{'es' if word.endswith('x') else 's'}"


def _styler(colour: bool) -> Callable[..., str]:
    def style(text: str, **kwargs: object) -> str:
        return click.style(text, **kwargs) if colour else text  # type: ignore[arg-type]

    return style


def format_finding(finding: Finding, *, colour: bool, headline_only: bool = False) -> str:
    """The finding's first line: where, rule, severity, and the message (all of it on the
    line, or only its headline when the detail follows on lines of its own)."""
    style = _styler(colour)
    where = style(f"{printable(finding.path)}:{finding.line}:{finding.column}:", bold=True)
    rule = style(finding.rule, fg=_COLOURS[finding.severity], bold=True)
    marker = " [*]" if finding.fix.available and finding.fix.safe else ""
    message = finding.message if headline_only else finding.text
    return f"{where} {rule}{marker} [{finding.severity.label}] {printable(message)}"


def _frame(finding: Finding, contents: MutableMapping[str, bytes], colour: bool) -> list[str]:
    """The offending line with a few above it and a caret under the column (ruff's frame),
    or nothing when the file cannot be read again."""
    try:
        data = file_bytes(finding.path, contents)
    except OSError:
        return []
    lines = text_lines(finding.path, data)
    if not 0 < finding.line <= len(lines):
        return []
    style = _styler(colour)
    first = max(1, finding.line - FRAME_CONTEXT)
    width = len(str(finding.line))
    gutter = style(" " * width + " |", fg="blue", bold=True)
    shown = [gutter]
    for number in range(first, finding.line + 1):
        bar = style(f"{number:>{width}} |", fg="blue", bold=True)
        shown.append(f"{bar} {printable(lines[number - 1])}".rstrip())
    offending = printable(lines[finding.line - 1][: finding.column - 1])
    caret = style("^", fg=_COLOURS[finding.severity], bold=True)
    shown += [f"{gutter} {' ' * len(offending)}{caret} {finding.rule}", gutter]
    return shown


def format_full(
    finding: Finding,
    *,
    colour: bool,
    style: str,
    contents: MutableMapping[str, bytes] | None = None,
) -> list[str]:
    """A finding's lines in one of the STYLES."""
    if style == "concise" or not finding.detail:
        first = format_finding(finding, colour=colour, headline_only=style != "concise")
        if style != "full" or contents is None:
            return [first]
        return [first, *_frame(finding, contents, colour)]
    lines = [format_finding(finding, colour=colour, headline_only=True)]
    frame = _frame(finding, contents, colour) if style == "full" and contents is not None else []
    if frame:
        indent = " " * (len(str(finding.line)) + 1)  # under the frame's bar
        return [*lines, *frame, *(f"{indent}= {printable(d)}" for d in finding.detail)]
    return [*lines, *(f"    {printable(d)}" for d in finding.detail)]


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
    result: RunResult,
    *,
    colour: bool,
    style: str = "concise",
    show_suppressed: bool = False,
    quiet: bool = False,
) -> str:
    shown = [(f, "") for f in result.findings]
    if show_suppressed:
        shown += [(f, f" (suppressed by {why})") for f, why in result.suppressed]
    shown.sort(key=lambda pair: pair[0].sort_key())
    lines: list[str] = []
    for finding, note in shown:
        own = format_full(finding, colour=colour, style=style, contents=result.contents)
        own[0] += note
        lines += own
        if style == "full" and len(own) > 1:
            lines.append("")  # a blank line between frames, as ruff prints them
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


class TextFormatter(Formatter):
    """ruff-like text; code frames where a person reads it on a wide enough terminal."""

    name = "text"
    for_people = True
    statistics = True
    suppressed = True

    def style(self, options: RenderOptions) -> str:
        """Code frames only where someone reads them, on a terminal wide enough."""
        if not (options.to_terminal and sys.stdout.isatty()):
            return "detail"
        import shutil  # here: a report that goes to a pipe or a file need not pay for it

        return "full" if shutil.get_terminal_size().columns >= FRAME_COLUMNS else "detail"

    def render(self, result: RunResult, options: RenderOptions) -> str:
        if options.statistics:
            return statistics(result)
        return render(
            result,
            colour=options.colour,
            style=self.style(options),
            show_suppressed=options.show_suppressed,
            quiet=options.quiet,
        )


class FullFormatter(TextFormatter):
    """Text with a code frame under every finding, wherever it goes."""

    name = "full"

    def style(self, options: RenderOptions) -> str:
        return "full"


class ConciseFormatter(TextFormatter):
    """One line per finding, the whole message on it."""

    name = "concise"

    def style(self, options: RenderOptions) -> str:
        return "concise"
