"""Suppressions: annotations on objects (and per container), YAML and Python comments,
configuration exemptions; --show-suppressed and --report-unused-ignores."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading.sources import discover
from k8slb.rulekit.examples import READY, web_deployment
from k8slb.rules import ALL_RULES
from k8slb.run.config import Exemption
from k8slb.run.engine import run
from k8slb.run.settings import Settings

from .helpers import FIXTURES, lint_files, rules_of


def lint(tmp_path: Path, text: str, name: str = "m.yaml", **kwargs: bool) -> list[str]:
    return rules_of(
        lint_files(tmp_path, {name: text}, ["KLB301", "KLB401", "KLB005"], **kwargs).findings
    )


SHARED = READY + READY.replace("readiness", "liveness")  # KLB301; and no preStop: KLB401


def test_an_annotation_on_the_object_or_its_pod_template(tmp_path: Path) -> None:
    text = web_deployment(SHARED)
    assert lint(tmp_path / "a", text) == ["KLB401", "KLB301"]
    on_object = text.replace(
        "  name: web\nspec:",
        "  name: web\n  annotations:\n"
        "    k8slb.io/ignore: 'KLB401, shared-probe; legacy app'\nspec:",
        1,
    )
    assert lint(tmp_path / "b", on_object) == []
    on_template = text.replace(
        "      labels: {app: web}",
        "      labels: {app: web}\n      annotations: {k8slb.io/ignore: KLB4}",
    )
    assert lint(tmp_path / "c", on_template) == ["KLB301"]


def test_a_container_scoped_annotation(tmp_path: Path) -> None:
    text = web_deployment(SHARED).replace(
        "  name: web\nspec:",
        "  name: web\n  annotations:\n    k8slb.io/ignore.web: KLB401\nspec:",
        1,
    )
    assert lint(tmp_path / "a", text) == ["KLB301"]
    other = text.replace("k8slb.io/ignore.web", "k8slb.io/ignore.sidecar")
    assert lint(tmp_path / "b", other) == ["KLB401", "KLB301"]


def test_yaml_comments_on_the_line_or_the_object_first_line(tmp_path: Path) -> None:
    text = web_deployment(SHARED)
    on_line = text.replace(
        "        - name: web\n", "        - name: web  # k8slb: ignore[KLB401]\n"
    )
    assert lint(tmp_path / "a", on_line) == ["KLB301"]
    first_line = text.replace("apiVersion: apps/v1\n", "apiVersion: apps/v1  # k8slb: ignore\n", 1)
    assert lint(tmp_path / "b", first_line) == []


def test_python_comments_on_the_line_or_alone_above(tmp_path: Path) -> None:
    code = "import grpc\n\nserver = grpc.server(None)\n"
    result = lint_files(tmp_path / "a", {"s.py": code}, ["KLB201"])
    assert rules_of(result.findings) == ["KLB201"]
    same = code.replace("(None)\n", "(None)  # k8slb: ignore[KLB201] a test double\n")
    assert lint_files(tmp_path / "b", {"s.py": same}, ["KLB201"]).findings == []
    above = code.replace("server =", "# k8slb: ignore[grpc-server-no-max-age]\nserver =")
    assert lint_files(tmp_path / "c", {"s.py": above}, ["KLB201"]).findings == []


def test_unused_suppressions_are_reported_on_request(tmp_path: Path) -> None:
    text = (
        web_deployment(READY)
        .replace("        - name: web\n", "        - name: web  # k8slb: ignore[KLB301]\n")
        .replace(
            "  name: web\nspec:", "  name: web\n  annotations: {k8slb.io/ignore: KLB999}\nspec:", 1
        )
    )
    unknown = (
        "`k8slb.io/ignore: KLB999` names `KLB999`, which no k8slb rule is (`k8slb rules` "
        "lists them): it suppresses nothing"
    )
    plain = lint_files(tmp_path / "a", {"m.yaml": text}).findings
    assert [(f.rule, f.message) for f in plain] == [
        ("KLB005", unknown),
        ("KLB401", plain[1].message),
    ], "an unknown code is always reported; unused ones on request"
    findings = lint_files(
        tmp_path / "b", {"m.yaml": text}, ["KLB301", "KLB401", "KLB005"], report_unused_ignores=True
    ).findings
    unused = [f for f in findings if f.rule == "KLB005"]
    assert [(f.line, f.message) for f in unused] == [
        (5, unknown),  # at the annotation, not at the top of the document
        (15, "`# k8slb: ignore[KLB301]` suppresses nothing; remove it"),
    ]


def test_a_suppression_of_a_rule_that_did_not_run_is_not_judged(tmp_path: Path) -> None:
    text = web_deployment(READY).replace(
        "        - name: web\n", "        - name: web  # k8slb: ignore[KLB301]\n"
    )
    findings = lint_files(
        tmp_path, {"m.yaml": text}, ["KLB401", "KLB005"], report_unused_ignores=True
    ).findings
    assert rules_of(findings) == ["KLB401"]


def test_exemptions_match_kind_namespace_name_container_and_expire(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(web_deployment(SHARED))
    sources = discover([str(tmp_path)]).sources

    def rules_with(
        exemption: Exemption, today: datetime.date = datetime.date(2026, 1, 1)
    ) -> list[str]:
        settings = Settings(rules=ALL_RULES, exemptions=[exemption], today=today)
        return sorted(rules_of(run(sources, settings).findings))

    everything = ["KLB301", "KLB401"]
    assert rules_with(Exemption(frozenset({"KLB401"}), "x", kind="Deployment", name="w*")) == [
        "KLB301"
    ]
    assert rules_with(Exemption(frozenset({"KLB401"}), "x", container="sidecar")) == everything
    assert rules_with(Exemption(frozenset({"KLB401"}), "x", namespace="prod")) == everything
    expiring = Exemption(frozenset({"KLB401"}), "x", expires=datetime.date(2026, 6, 30))
    assert rules_with(expiring) == ["KLB301"]
    assert rules_with(expiring, datetime.date(2026, 7, 1)) == everything


def test_show_suppressed_in_text_and_json() -> None:
    multi = str(FIXTURES / "multi")
    text = CliRunner().invoke(cli, ["check", "--show-suppressed", multi]).stdout
    assert "(suppressed by annotation `k8slb.io/ignore: KLB104; the settlement" in text
    assert text.splitlines()[-2].endswith("; 2 suppressed).")
    report = json.loads(
        CliRunner().invoke(cli, ["check", "--format", "json", "--show-suppressed", multi]).stdout
    )
    assert sorted(f["rule"] for f in report["suppressed"]) == ["KLB104", "KLB301"]
    assert report["summary"]["findings"] == len(report["findings"])
