"""A fix is declared once: the edit vocabulary has one home (core/edits.py: the operations,
and `Refused`, which every editor raises), and each YAML operation is made by the YAML
editor's table."""

from __future__ import annotations

import ast
from typing import get_args

from k8slb.core.edits import YamlOp
from k8slb.editing.yaml_edit import OPERATIONS

from .helpers import ROOT


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
