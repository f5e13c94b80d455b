"""Every output format, on the demo and on a multi-file tree: SARIF validated against the
official 2.1.0 schema, JSON against k8slb's own, GitHub annotations and JUnit parsed."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, validators
from k8slb.interface.cli import cli
from k8slb.rules import ALL_RULES

from .helpers import FIXTURES, SHARED, lint_files

TREES = [str(FIXTURES / "demo"), str(FIXTURES / "multi")]
SARIF_SCHEMA = SHARED / "schemas" / "sarif-2.1.0.json"


def output(*args: str) -> str:
    result = CliRunner().invoke(cli, ["check", *args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


@pytest.mark.parametrize("tree", TREES, ids=["demo", "multi"])
def test_json_validates_against_the_shipped_schema(tree: str) -> None:
    schema = json.loads(resources.files("k8slb").joinpath("schemas/report.json").read_text())
    for extra in ([], ["--show-suppressed"]):
        report = json.loads(output("--format", "json", *extra, tree))
        errors = list(Draft7Validator(schema).iter_errors(report))
        assert errors == [], errors[0].message if errors else ""
    assert "suppressed" not in json.loads(output("--format", "json", tree)), "opt-in only"


@pytest.mark.skipif(not SARIF_SCHEMA.is_file(), reason="../shared/schemas is absent")
@pytest.mark.parametrize("tree", TREES, ids=["demo", "multi"])
def test_sarif_validates_against_the_official_schema(tree: str) -> None:
    schema = json.loads(SARIF_SCHEMA.read_text())
    sarif = json.loads(output("--format", "sarif", tree))
    validator = validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(sarif), key=lambda e: list(map(str, e.path)))
    assert errors == [], f"{list(errors[0].path)}: {errors[0].message}" if errors else ""


def _sarif(tree: str) -> dict[str, Any]:
    sarif: dict[str, Any] = json.loads(output("--format", "sarif", tree))
    return sarif


def test_sarif_describes_every_rule_and_locates_every_finding() -> None:
    (run,) = _sarif(TREES[0])["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in ALL_RULES]
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert rule["helpUri"].endswith(f"docs/rules/{rule['id']}.md")
    by_rule = {r["ruleId"]: r for r in run["results"]}
    prestop = by_rule["KLB401"]
    assert prestop["level"] == "warning"
    location = prestop["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("demo/bad/backend.yaml")
    assert location["region"] == {"startLine": 22, "startColumn": 17}
    assert rules[prestop["ruleIndex"]]["id"] == "KLB401"
    client = by_rule["KLB102"]
    assert [r["message"]["text"] for r in client["relatedLocations"]] == [
        "BACKEND_ADDR='backend.shop.svc.cluster.local:50051'",
        "Service/shop/backend",
    ]


def test_sarif_fixes_are_the_text_the_fixer_writes() -> None:
    (run,) = _sarif(TREES[0])["runs"]
    prestop = next(r for r in run["results"] if r["ruleId"] == "KLB401")
    (fix,) = prestop["fixes"]
    (change,) = fix["artifactChanges"]
    (replacement,) = change["replacements"]
    assert replacement["insertedContent"]["text"] == (
        "          lifecycle:\n            preStop:\n"
        "              sleep:\n                seconds: 5\n"
    )
    assert replacement["deletedRegion"]["startLine"] == 39
    shared_probe = next(r for r in run["results"] if r["ruleId"] == "KLB301")
    assert "fixes" in shared_probe, "unsafe fixes are described too"


def test_sarif_fixes_of_a_long_stream_are_each_the_fix_made_alone(tmp_path: Path) -> None:
    """One reading of the file for all its findings, checked together, gives each finding
    the replacement its fix makes on its own."""
    from k8slb.fixing.suggest import Replacement, _alone, suggestions

    demo = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    stream = tmp_path / "stream.yaml"
    stream.write_text("\n---\n".join(demo.replace("backend", f"b{n}") for n in range(5)))
    result = lint_files(tmp_path, {})
    findings = [f for f in result.findings if f.edits]
    assert len(findings) >= 10
    text = stream.read_text()

    def applied(replacements: list[Replacement]) -> str:
        fixed = text
        for piece in sorted(replacements, key=lambda r: r.start, reverse=True):
            fixed = fixed[: piece.start] + piece.text + fixed[piece.end :]
        return fixed

    made = suggestions(findings, {})
    assert sorted(made) == list(range(len(findings)))
    for number, finding in enumerate(findings):
        assert applied(made[number]) == applied(_alone(finding, {})), finding.rule


def test_sarif_fixes_made_in_several_processes_are_those_made_in_one(tmp_path: Path) -> None:
    """Above PARALLEL_MIN_SUGGESTIONS files and findings, the fixes are made and checked in
    forked processes, as a real `k8slb check` does: the log is the same, byte for byte."""
    import shutil
    import subprocess
    import sys

    from k8slb.fixing.suggest import PARALLEL_MIN_SUGGESTIONS

    for copy in range(28):  # two of its files have YAML fixes: over 50 files, and findings
        shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / f"team-{copy}")

    def sarif(jobs: str) -> str:
        command = [sys.executable, "-m", "k8slb", "check", "--isolated", "--no-cache"]
        done = subprocess.run(
            [*command, "--format", "sarif", "-j", jobs, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        return done.stdout

    one = sarif("1")
    assert one.count('"fixes"') >= 2 * PARALLEL_MIN_SUGGESTIONS
    assert sarif("2") == one


@pytest.mark.parametrize("tree", TREES, ids=["demo", "multi"])
def test_github_annotations(tree: str) -> None:
    lines = output("--format", "github", tree).splitlines()
    findings = json.loads(output("--format", "json", tree))["findings"]
    assert len(lines) == len(findings)
    for line, finding in zip(lines, findings, strict=True):
        command = {"error": "error", "warning": "warning", "info": "notice"}[finding["severity"]]
        assert line.startswith(
            f"::{command} file={finding['path']},line={finding['line']},"
            f"col={finding['column']},title={finding['rule']} {finding['name']}::"
        )
        assert "\n" not in line
        # the whole message, as the README says: the headline, then a line per detail
        said = line.split("::", 2)[2].replace("%0A", "\n").replace("%25", "%").split("\n")
        assert said[0] == finding["headline"]
        assert ": ".join([said[0], "; ".join(said[1:])]) == finding["message"]


def test_github_escapes_what_would_break_a_command() -> None:
    from k8slb.core.findings import Finding, Severity
    from k8slb.report.github import annotation

    finding = Finding("KLB001", "invalid-yaml", Severity.ERROR, "a,b:c.yaml", 1, 2, "50%\nbad")
    assert annotation(finding) == (
        "::error file=a%2Cb%3Ac.yaml,line=1,col=2,title=KLB001 invalid-yaml::50%25%0Abad"
    )


@pytest.mark.parametrize("tree", TREES, ids=["demo", "multi"])
def test_junit_has_a_failing_test_case_per_finding_and_a_passing_one_per_clean_file(
    tree: str,
) -> None:
    """GitLab and Jenkins show one failure per test case: each finding is a case of its own,
    named by rule and place; a file with none is one passing case."""
    root = ET.fromstring(output("--format", "junit", tree))
    (suite,) = root.iter("testsuite")
    cases = suite.findall("testcase")
    report = json.loads(output("--format", "json", tree))
    failing = [f for f in report["findings"] if f["severity"] != "info"]
    failed = [c for c in cases if c.find("failure") is not None]
    assert [len(c.findall("failure")) for c in failed] == [1] * len(failing)
    assert sorted(c.get("name") for c in failed) == sorted(
        f"{f['rule']} {f['name']} at {f['path']}:{f['line']}:{f['column']}" for f in failing
    )
    clean = {c.get("classname") for c in cases} - {f["path"] for f in failing}
    assert len(cases) == len(failing) + len(clean) == int(suite.get("tests", "0"))
    assert len(clean) + len({f["path"] for f in failing}) == report["summary"]["files"]
    assert int(suite.get("failures", "0")) == len(failing)


def test_junit_findings_below_fail_on_are_not_failures(tmp_path: Path) -> None:
    """An info finding does not fail the run (exit 0), so it is no failed test either."""
    (tmp_path / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: api}\n"
        "spec: {selector: {app: api}, sessionAffinity: ClientIP, ports: [{port: 80}]}\n"
    )
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "junit", str(tmp_path)])
    assert done.exit_code == 0
    root = ET.fromstring(done.stdout)
    assert root.get("failures") == "0" and root.find(".//failure") is None
    assert "KLB104 [info]" in (root.findtext(".//system-out") or "")
    strict = CliRunner().invoke(
        cli, ["check", "--isolated", "--fail-on", "info", "--format", "junit", str(tmp_path)]
    )
    assert strict.exit_code == 1 and ET.fromstring(strict.stdout).get("failures") == "1"


def test_statistics_and_quiet() -> None:
    stats = output("--statistics", TREES[0]).splitlines()
    assert "1\tKLB401\t[*] no-prestop" in stats and len(stats) == 7
    quiet = output("--quiet", "--format", "concise", TREES[0]).splitlines()
    assert len(quiet) == 10 and not quiet[-1].startswith("Found")


def test_statistics_as_json_and_refused_where_it_cannot_be_shown() -> None:
    rows = json.loads(output("--statistics", "--format", "json", TREES[0]))
    assert {"code": "KLB401", "name": "no-prestop", "count": 1, "fixable": True} in rows
    refused = CliRunner().invoke(cli, ["check", "--statistics", "--format", "sarif", TREES[0]])
    assert refused.exit_code == 2 and "--statistics prints text or json" in refused.output


def test_suppressed_findings_in_sarif_carry_their_suppression() -> None:
    multi = str(FIXTURES / "multi")
    plain = json.loads(output("--format", "sarif", multi))["runs"][0]["results"]
    shown = json.loads(output("--format", "sarif", "--show-suppressed", multi))["runs"][0]
    extra = [r for r in shown["results"] if "suppressions" in r]
    assert len(shown["results"]) == len(plain) + len(extra) and extra
    assert {s["kind"] for r in extra for s in r["suppressions"]} <= {"inSource", "external"}
    refused = CliRunner().invoke(cli, ["check", "--show-suppressed", "--format", "junit", multi])
    assert refused.exit_code == 2


def test_sarif_locations_are_relative_encoded_and_fingerprinted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "a dir"
    folder.mkdir()
    target = folder / "x,y%z.yaml"
    target.write_text((FIXTURES / "demo" / "bad" / "backend.yaml").read_text())
    monkeypatch.chdir(tmp_path)

    def results() -> list[dict[str, object]]:
        done = CliRunner().invoke(
            cli, ["check", "--isolated", "--no-cache", "--format", "sarif", str(target)]
        )
        run = json.loads(done.stdout)["runs"][0]
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
        return run["results"]  # type: ignore[no-any-return]

    before = results()
    location = before[0]["locations"][0]["physicalLocation"]["artifactLocation"]  # type: ignore[index]
    assert location == {"uri": "a%20dir/x%2Cy%25z.yaml", "uriBaseId": "%SRCROOT%"}
    target.write_text("# a comment that moves every line\n" + target.read_text())
    after = results()
    assert [r["partialFingerprints"] for r in after] == [r["partialFingerprints"] for r in before]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after] != [  # type: ignore[index]
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in before  # type: ignore[index]
    ]


def test_sarif_of_stdin_names_it_by_stdin_filename_and_fixes_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no file of that name on disk: everything comes from stdin
    demo = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    done = CliRunner().invoke(
        cli,
        ["check", "--isolated", "--format", "sarif", "--stdin-filename", "k8s/app.yaml", "-"],
        input=demo,
    )
    results = json.loads(done.stdout)["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"k8s/app.yaml"}
    prestop = next(r for r in results if r["ruleId"] == "KLB401")
    (change,) = prestop["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "k8s/app.yaml"
    assert "preStop" in change["replacements"][0]["insertedContent"]["text"]


def test_text_styles_headline_detail_frame_and_concise(tmp_path: Path) -> None:
    backend = str(FIXTURES / "demo" / "bad" / "backend.yaml")
    headline = (
        f"{backend}:22:17: KLB401 [*] [warning] container 'server' of "
        "Deployment/shop/backend has no preStop hook"
    )
    piped = output("--isolated", "--select", "KLB401", backend).splitlines()
    assert piped[:4] == [
        headline,
        "    it serves Service backend: on shutdown it stops while nodes still route to it, "
        "failing requests",
        "    add lifecycle.preStop.sleep (5 s)",
        "Found 1 finding: 1 warning (1 file, 3 objects).",
    ]
    full = output("--isolated", "--select", "KLB401", "--format", "full", backend).splitlines()
    assert full[:7] == [
        headline,
        "   |",
        "20 |     spec:",
        "21 |       containers:",
        "22 |         - name: server",
        "   | " + " " * 16 + "^ KLB401",  # under column 17
        "   |",
    ]
    assert full[7].startswith("   = it serves Service backend: on shutdown it stops")
    concise = output("--isolated", "--select", "KLB401", "--output-format", "concise", backend)
    assert concise.splitlines()[0] == (
        f"{headline}: it serves Service backend: on shutdown it stops while nodes still route "
        "to it, failing requests; add lifecycle.preStop.sleep (5 s)"
    )


@settings(max_examples=300, deadline=None)
@given(st.text("ab\n", max_size=40), st.text("ab\n", max_size=40))
def test_a_fix_s_replacement_is_the_one_stretch_where_the_texts_differ(
    before: str, after: str
) -> None:
    from k8slb.fixing.suggest import changed_span

    piece = changed_span("f", before, after)
    assert before[: piece.start] + piece.text + before[piece.end :] == after
    prefix = 0  # the longest common prefix, then the longest common suffix of the rest
    while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(before), len(after)) - prefix and before[-1 - suffix] == after[-1 - suffix]
    ):
        suffix += 1
    assert (piece.start, piece.end) == (prefix, len(before) - suffix)


def test_markdown_counts_per_rule_and_escapes_what_would_break_the_table() -> None:
    from k8slb.core.findings import Finding, Severity
    from k8slb.core.results import RunResult
    from k8slb.report import markdown

    finding = Finding(
        "KLB001", "invalid-yaml", Severity.ERROR, "a|b[x](http://e).yaml", 1, 2, "bad `x` <img>"
    )
    text = markdown.render(RunResult(findings=[finding, finding], files=1, errors=["gone: no"]))
    assert "| KLB001 invalid-yaml | error | 2 |" in text
    where = "a\\|b\\[x\\](http://e).yaml:1:2"
    row = f"| {where} | KLB001 invalid-yaml | error | bad \\`x\\` \\<img\\> |"
    assert text.count(row) == 2
    assert text.endswith("The run could not read everything:\n\n- gone: no\n")
    assert markdown.render(RunResult(files=3, objects=2)) == (
        "## k8slb\n\nNo finding (3 files, 2 objects).\n"
    )


def test_markdown_mentions_no_one_a_repository_names() -> None:
    """Posted as a PR comment, `@name` would notify that user or team: the `@` is followed
    by a zero-width space, which GitHub shows as nothing and links to no one."""
    import re

    from k8slb.core.findings import Finding, Severity
    from k8slb.core.results import RunResult
    from k8slb.report import markdown

    finding = Finding(
        "KLB001",
        "invalid-yaml",
        Severity.ERROR,
        "@octocat/values.yaml",
        1,
        2,
        "owned by @org/sre-team, ask @octocat (or mail ops@example.com)",
    )
    text = markdown.render(RunResult(findings=[finding], files=1, errors=["@octocat: gone"]))
    assert re.search(r"@[A-Za-z0-9]", text) is None, text
    assert "ask @&#8203;octocat (or mail ops@&#8203;example.com)" in text
    assert "- @&#8203;octocat: gone" in text
