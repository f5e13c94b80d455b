"""A fix is declared once: a rule declares its fix (`Rule.fix`), and each of its findings
with edits carries that declaration, in its own words and never safer; the edit
vocabulary has one home (core/edits.py: the operations, and `Refused`, which every editor
raises), and each YAML operation is made by the YAML editor's table."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from k8slb.code.facts import Loc
from k8slb.core.edits import YamlEdit, YamlOp
from k8slb.core.findings import NO_FIX, Finding, FixInfo, Severity
from k8slb.editing.yaml_edit import OPERATIONS
from k8slb.rulekit.base import Context, Rule
from k8slb.rules import ALL_RULES

from .helpers import ROOT, lint_files


def test_every_yaml_operation_is_made_by_the_yaml_editor_and_no_other_is() -> None:
    assert sorted(OPERATIONS) == sorted(get_args(YamlOp))


def test_refused_and_refusal_are_defined_in_core_edits_alone() -> None:
    """Every editor raises the one `Refused`: a second class of that name would be an
    exception the fixer does not catch."""
    defined = sorted(
        f"{path.relative_to(ROOT)}:{node.name}"
        for folder in ("linter", "rules")
        for path in (ROOT / folder).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.ClassDef) and node.name in ("Refused", "Refusal")
    )
    assert defined == ["linter/core/edits.py:Refusal", "linter/core/edits.py:Refused"]


# -- each rule's findings carry the fix it declares -------------------------------------------


def disagreements(rule: type[Rule], findings: list[Finding]) -> list[str]:
    """How the rule's findings' fixes differ from its declaration (`Rule.fix`: the docs,
    `k8slb rules`, the README's fix table): each with edits carries a fix the rule declares,
    no safer than declared; one without edits offers none."""
    found = []
    for f in findings:
        where = f"{rule.id} at {f.path.rsplit('/', 1)[-1]}:{f.line}"
        if f.edits and not rule.fix.available:
            found.append(f"{where}: has edits, but the rule declares no fix")
        if f.edits and not f.fix.available:
            found.append(f"{where}: has edits, but no fix is said available")
        if f.fix.available and not f.edits:
            found.append(f"{where}: says a fix is available, with no edits")
        if f.fix.safe and not rule.fix.safe:
            found.append(f"{where}: a safe fix, where the rule declares it unsafe")
    return found


def _example_findings(rule: type[Rule], folder: Path) -> list[Finding]:
    findings = []
    for number, example in enumerate(rule.examples):
        result = lint_files(folder / str(number), dict(example.files()), links=example.links)
        findings += [f for f in result.findings if f.rule == rule.id]
    return findings


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_a_rules_findings_carry_the_fix_it_declares(tmp_path: Path, rule: type[Rule]) -> None:
    findings = _example_findings(rule, tmp_path)
    assert disagreements(rule, findings) == []
    if rule.fix.available:
        assert any(f.edits for f in findings), "an example shows the fix it declares"
        assert any(f.fix.safe == rule.fix.safe for f in findings if f.edits)


def _toy_findings(declared: FixInfo, **fix: Any) -> tuple[type[Rule], list[Finding]]:
    """A rule that declares `declared`, and a finding of it with an edit."""

    class Toy(Rule):
        id = "KLB999"
        name = "toy"
        severity = Severity.WARNING

        def check(self, context: Context) -> Iterator[Finding]:
            yield from ()

    Toy.fix = declared
    edit = YamlEdit("x.yaml", 0, (), "set-key", ("a", 1))
    return Toy, [Toy().code_finding(Loc("x.yaml", 1, 1), "toy", edits=[edit], **fix)]


def test_a_finding_with_edits_carries_the_declared_fix_without_saying_it_again() -> None:
    declared = FixInfo(available=True, safe=True, description="set a")
    rule, (finding,) = _toy_findings(declared)
    assert finding.fix == declared, "not demoted to no fix, or to unsafe"
    assert disagreements(rule, [finding]) == []


def test_a_finding_says_its_own_fix_and_may_be_less_safe_never_more() -> None:
    declared = FixInfo(available=True, safe=True, description="set a")
    _, (finding,) = _toy_findings(declared, fix="set a to 1", unsafe=True)
    assert finding.fix == FixInfo(available=True, safe=False, description="set a to 1")
    unsafe = FixInfo(available=True, safe=False, description="set a")
    _, (finding,) = _toy_findings(unsafe, fix="set a to 1")
    assert not finding.fix.safe


def test_edits_from_a_rule_that_declares_no_fix_disagree_with_its_documentation() -> None:
    rule, findings = _toy_findings(NO_FIX)
    assert disagreements(rule, findings) == [
        "KLB999 at x.yaml:1: has edits, but the rule declares no fix"
    ]


def test_fix_information_is_said_by_keyword() -> None:
    with pytest.raises(TypeError):
        FixInfo(True, True)  # type: ignore[misc]
