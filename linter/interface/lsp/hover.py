"""Hover on a finding: what its rule is about, in the rule's own short words (the
docstring's summary), with the link to the rest of its documentation."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.core.findings import Finding
from k8slb.interface.lsp.diagnostics import docs_url
from k8slb.run.selection import find_rule
from lsprotocol import types


def explanation(finding: Finding) -> str:
    rule = find_rule(finding.rule)
    summary = rule.summary() if rule is not None else finding.message
    fix = ""
    if finding.fix.available:
        fix = f" Fix: {'safe' if finding.fix.safe else 'unsafe (review it)'}."
    return (
        f"**{finding.rule}** `{finding.name}` ({finding.severity.label}): {summary}{fix}\n\n"
        f"[{finding.rule} in full]({docs_url(finding.rule)})"
    )


def hover(findings: Sequence[Finding]) -> types.Hover | None:
    """The explanations of the findings under the cursor, each rule once."""
    rules = list(dict.fromkeys(f.rule for f in findings))
    if not rules:
        return None
    text = "\n\n---\n\n".join(
        explanation(next(f for f in findings if f.rule == rule)) for rule in rules
    )
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
