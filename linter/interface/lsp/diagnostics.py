"""A run's findings as LSP diagnostics, by file: the range from the finding's place to
the end of its line, its severity, the rule's id and documentation (the address SARIF
gives), the related places it names (the Service behind a client, the line that sets an
address) as related information."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable

from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.interface.lsp.positions import Text, uri_of
from k8slb.report.sarif import DOCS
from lsprotocol import types

SOURCE = "k8slb"
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def docs_url(rule: str) -> str:
    return DOCS.format(id=rule)


def diagnostic(finding: Finding, text: Text) -> types.Diagnostic:
    start = text.offset(finding.line, finding.column)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri_of(_absolute(r.path, finding.path)),
                range=types.Range(
                    start=types.Position(line=max(r.line - 1, 0), character=0),
                    end=types.Position(line=max(r.line - 1, 0), character=0),
                ),
            ),
            message=r.message,
        )
        for r in finding.related
    ]
    return types.Diagnostic(
        range=text.range(start, text.line_end(start)),
        severity=SEVERITIES[finding.severity],
        code=finding.rule,
        code_description=types.CodeDescription(href=docs_url(finding.rule)),
        source=SOURCE,
        message="\n".join([finding.message, *finding.detail]),
        related_information=related or None,
    )


def _absolute(path: str, beside: str) -> str:
    """A related place's file: k8slb names it as it names the finding's (absolute in a
    workspace), or relative to the finding's folder when it is a bare name."""
    if os.path.isabs(path):
        return path
    return os.path.join(os.path.dirname(beside), path)


Said = dict[str, tuple[Text, list[tuple[types.Diagnostic, Finding]]]]


def by_file(result: RunResult, text_of: Callable[[str], Text | None], before: Said) -> Said:
    """Each file's text and diagnostics, with the findings they say; a finding in a file
    that is not text (a chart's folder, a build's output) has none. A file whose text and
    findings are those of `before` keeps its diagnostics (the same objects: a file
    unchanged is told nothing again)."""
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        grouped[finding.path].append(finding)
    said: Said = {}
    for path, findings in grouped.items():
        text = text_of(path)
        if text is None:
            continue
        old = before.get(path)
        if old is not None and old[0] is text and [f for _, f in old[1]] == findings:
            said[path] = old
        else:
            said[path] = (text, [(diagnostic(f, text), f) for f in findings])
    return said
