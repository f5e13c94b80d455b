"""docs/rules/ is generated from the rule docstrings: it must match them."""

from __future__ import annotations

from k8slb.report.docs import generated

from .helpers import ROOT

DOCS = ROOT / "docs" / "rules"


def test_rule_docs_are_up_to_date() -> None:
    expected = generated()
    present = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(name for name in expected if present.get(name) != expected[name])
    extra = sorted(set(present) - set(expected))
    assert not stale and not extra, (
        f"docs/rules is stale ({', '.join(stale + extra)}): run `make docs`"
    )
