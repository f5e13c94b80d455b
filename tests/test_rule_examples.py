"""Every rule's documented examples behave as documented (Fixit's VALID/INVALID idea)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.rulekit.base import Example, Rule
from k8slb.rules import ALL_RULES

from .helpers import lint_files

READ_ERRORS = ("KLB001", "KLB002", "KLB003", "KLB004")
CASES = [
    pytest.param(rule, example, id=f"{rule.id}-{number}")
    for rule in ALL_RULES
    for number, example in enumerate(rule.examples)
]


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_example_gives_the_documented_findings(
    tmp_path: Path, rule: type[Rule], example: Example
) -> None:
    result = lint_files(
        tmp_path, dict(example.files()), report_unused_ignores=True, links=example.links
    )
    findings = [f for f in result.findings if f.rule == rule.id]
    assert len(findings) == example.findings, [f.message for f in findings]
    expected = example.severity or rule.severity
    assert all(f.severity is expected for f in findings)
    # an example k8slb cannot read shows nothing of the rule it is for
    unread = [f.text for f in result.findings if f.rule in READ_ERRORS and f.rule != rule.id]
    assert unread == [] and result.errors == []
    if example.findings:
        assert example.at is not None, "an example that is reported says where"
        assert [(f.line, f.column) for f in findings] == [example.at]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_rule_is_documented_and_shown_both_ways(rule: type[Rule]) -> None:
    sections = rule.sections()
    for heading in ("What it does", "Why it matters", "Fix", "Other linters"):
        assert sections.get(heading), f"{rule.id} lacks a '{heading}' section"
    assert any(e.findings for e in rule.examples), "an example that is reported"
    assert any(not e.findings for e in rule.examples), "an example that is not"


def test_ids_and_names_are_unique_and_well_formed() -> None:
    ids = [r.id for r in ALL_RULES]
    names = [name for r in ALL_RULES for name in (r.name, *r.aliases)]  # a former name too
    assert len(set(ids)) == len(ids) and len(set(names)) == len(names)
    assert ids == sorted(ids)
    for rule in ALL_RULES:
        assert rule.id.startswith("KLB") and rule.id[3:].isdigit() and len(rule.id) == 6
        for name in (rule.name, *rule.aliases):
            assert name == name.lower() and " " not in name


HEADLINE_LIMIT = 120


def test_every_headline_reads_at_a_glance(tmp_path: Path) -> None:
    """The text format's first line of every finding of every example, after its location,
    fits in 120 characters; the why and the what-to-do go on the lines below."""
    too_long, details = [], 0
    for number, example in enumerate(c.values[1] for c in CASES):
        result = lint_files(
            tmp_path / str(number),
            dict(example.files()),  # type: ignore[attr-defined]
            report_unused_ignores=True,
            links=example.links,  # type: ignore[attr-defined]
        )
        for finding in result.findings:
            details += bool(finding.detail)
            first = f"{finding.rule} [*] [{finding.severity.label}] {finding.message}"
            if len(first) > HEADLINE_LIMIT or "\n" in finding.message:
                too_long.append(first)
    assert too_long == []
    assert details > len(CASES) / 2, "the detail is kept, below the headline"
