"""The held-out sets (tests/held_out/<day>/): their tables read whole and checked, the
figures evaluate.py gives them (precision strict and lenient, recall with the misses read
by hand), and, where the copies are on this machine, k8slb's findings matched to their
labels. Without the copies only that last part skips."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .real_corpus import evaluate

SETS = evaluate.held_out_sets()
HEADER = {
    "projects.tsv": "name\trepository\tcommit\tpath\tlicence\tlicence_file\toptions\tkind\tnote",
    "labels.tsv": "project\trule\tpath\tobject\tcontainer\tverdict\treason\tseverity",
    "misses.tsv": "project\trule\tpath\tobject\treason\texpected",
}


def test_the_held_out_sets_and_the_graduated_rounds_are_found() -> None:
    assert evaluate.HELD_OUT / "2026-12-05-round4" in SETS
    assert evaluate.HELD_OUT / "2026-12-05-round7" in SETS
    assert evaluate.HELD_OUT / "2026-12-05-round9" in SETS
    assert evaluate.HELD_OUT / "2026-12-05-round10" in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round20" in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round23" in SETS
    assert evaluate.ROUNDS / "2026-12-05" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-05-round11" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-05-round12" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round13" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round14" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round15" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round16" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round17" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round18" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round19" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round21" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-06-round22" in evaluate.rounds()
    assert evaluate.ROUNDS / "2026-12-07-round24" in evaluate.rounds()
    assert evaluate.HELD_OUT / "2026-12-06-round16" not in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round17" not in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round18" not in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round19" not in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round21" not in SETS
    assert evaluate.HELD_OUT / "2026-12-06-round22" not in SETS
    assert evaluate.HELD_OUT / "2026-12-07-round24" not in SETS


@pytest.mark.parametrize("folder", SETS + evaluate.rounds(), ids=lambda folder: folder.name)
def test_every_row_of_a_held_out_set_is_valid(folder: Path) -> None:
    # raises on a short row, a duplicate, an odd value; a graduated round without digests
    held = evaluate.held_out(folder, graduated=folder.parent == evaluate.ROUNDS)
    assert held.projects and held.labels
    assert all(p.kind in evaluate.KINDS and p.from_path for p in held.projects)
    verdicts = {label.verdict for label in held.labels.values()}
    assert verdicts <= {"TP", "FP", "DEBATABLE"}
    assert all(label.severity in evaluate.SEVERITIES for label in held.labels.values())
    assert all(miss.severity in evaluate.SEVERITIES for miss in held.misses)
    # every row became one label or miss: none was dropped as a duplicate or a comment
    rows = {name: len(evaluate.read_tsv(folder / name)) for name in HEADER}
    assert (rows["labels.tsv"], rows["misses.tsv"]) == (len(held.labels), len(held.misses))


def write_set(folder: Path, **tables: list[str]) -> Path:
    """A held-out set of one chart and one app, with the rows given for each table."""
    defaults = {
        "projects.tsv": [
            "chart\towner/chart\tabc\tcharts/chart\tApache-2.0\tLICENSE\t\tchart\t",
            "app\towner/app\tdef\t.\tMIT\tLICENSE\t--helm-set a=b\tapp\t",
        ],
        "labels.tsv": [],
        "misses.tsv": [],
    }
    folder.mkdir()
    for name, header in HEADER.items():
        rows = tables.get(name.removesuffix(".tsv"), defaults[name])
        (folder / name).write_text("\n".join(["# comment", header, *rows]) + "\n")
    return folder


LABEL = "app\tKLB401\tdeploy.yaml\tDeployment/web\tweb\tTP\twhy\twarning"


@pytest.mark.parametrize(
    ("tables", "complaint"),
    [
        ({"labels": [LABEL, LABEL]}, "labelled twice"),
        ({"labels": [LABEL.replace("TP", "MAYBE")]}, "not MAYBE"),
        ({"labels": [LABEL.replace("warning", "loud")]}, "no severity loud"),
        ({"labels": [LABEL.replace("KLB401", "KLB4")]}, "no rule KLB4"),
        ({"labels": [LABEL.replace("app\t", "other\t", 1)]}, "names no project"),
        ({"labels": ["app\tKLB401\tdeploy.yaml"]}, "has no object"),
        ({"misses": ["app\tKLB102\tmain.go:3\t-\twhy\tsometimes"]}, "no severity sometimes"),
        ({"projects": ["app\towner/app\tdef\t.\tMIT\tLICENSE\t\tlibrary\t"]}, "not ['library']"),
        ({"projects": ["app\towner/app\tdef\t.\tMIT\tLICENSE\t\t\t"]}, "has no kind"),
    ],
)
def test_a_held_out_set_with_a_bad_row_is_refused_naming_it(
    tmp_path: Path, tables: dict[str, list[str]], complaint: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(complaint)):
        evaluate.held_out(write_set(tmp_path / "set", **tables))


def test_a_label_that_leaves_out_the_empty_namespace_names_the_object_as_findings_do(
    tmp_path: Path,
) -> None:
    held = evaluate.held_out(write_set(tmp_path / "set", labels=[LABEL]))
    assert ("app", "KLB401", "deploy.yaml", "Deployment//web", "web") in held.labels


def finding(
    key: evaluate.Key, severity: str, held: evaluate.HeldOut
) -> tuple[evaluate.Key, str, str, evaluate.Label | None]:
    return (key, severity, "headline", held.labels.get(key))


def test_held_out_figures_count_debatable_both_ways_and_misses_at_their_severity(
    tmp_path: Path,
) -> None:
    rows = [
        "chart\tKLB401\tt.yaml\tDeployment/default/a\ta\tTP\tyes\twarning",
        "chart\tKLB401\tt.yaml\tDeployment/default/b\tb\tDEBATABLE\tmaybe\twarning",
        "app\tKLB302\td.yaml\tDeployment/web\tweb\tTP\tyes\twarning",
        "app\tKLB302\td.yaml\tDeployment/api\tapi\tFP\tno\twarning",
        "app\tKLB302\td.yaml\tDeployment/db\tdb\tTP\tgone since\twarning",
        "app\tKLB301\td.yaml\tDeployment/web\tweb\tTP\tinfo, not scored\tinfo",
    ]
    missed = [
        "app\tKLB404\tMain.java:4\t-\tread by hand\twarning",
        "app\tKLB102\tmain.go:9\t-\texpected at info: not counted at warning\tinfo",
        "app\tKLB003\tChart.yaml\t-\tnot a scored rule\terror",
    ]
    held = evaluate.held_out(write_set(tmp_path / "set", labels=rows, misses=missed))
    keys = list(held.labels)
    chart = evaluate.Outcome("chart", [finding(k, "warning", held) for k in keys[:2]])
    app = evaluate.Outcome(
        "app",
        [
            finding(keys[2], "warning", held),
            finding(keys[3], "warning", held),
            finding(keys[5], "info", held),
            finding(("app", "KLB401", "d.yaml", "Deployment//web", "web"), "error", held),
        ],
        missed=[held.labels[keys[4]]],
        unreported=held.misses,
    )
    tables = evaluate.held_out_scores(held, [chart, app])

    charts = tables["charts"]["all"]
    assert (charts.tp, charts.debatable, charts.fp, charts.fn) == (1, 1, 0, 0)
    assert (charts.precision, charts.lenient_precision, charts.recall) == (0.5, 1.0, 1.0)
    apps = tables["apps"]
    assert (apps["KLB302"].tp, apps["KLB302"].fp, apps["KLB302"].fn) == (1, 1, 1)
    assert apps["KLB404"].fn == 1 and "KLB102" not in apps and "KLB003" not in apps
    assert apps["KLB401"].unlabelled == 1 and "KLB301" not in apps
    overall = tables["overall"]["all"]
    assert (overall.tp, overall.debatable, overall.fp, overall.fn) == (2, 1, 1, 2)
    assert overall.precision == pytest.approx(2 / 4)
    assert overall.lenient_precision == pytest.approx(3 / 4)
    assert overall.recall == pytest.approx(2 / 4)

    report = evaluate.held_out_report(held, [chart, app])
    assert "2 projects, 5 findings at warning and error" in report
    assert "unlabelled:\tapp\tKLB401\td.yaml\tDeployment//web\tweb\terror" in report
    assert "missed:\tapp\tKLB302\td.yaml\tDeployment//db\tdb" in report


def test_a_miss_a_finding_reports_since_is_that_finding_once() -> None:
    """A reviewer's miss names the workload; a finding in code names no object: the same
    rule on the same line is the miss reported, and two findings do not claim one miss."""
    miss = evaluate.Label(("app", "KLB403", "main.go:45", "Deployment/shop/api", "-"), "TP", "r")
    other = evaluate.Label(("app", "KLB403", "main.go:45", "Deployment/shop/db", "-"), "TP", "r")
    in_code = ("app", "KLB403", "main.go:45", "-", "-")
    assert evaluate._miss_reported(in_code, [miss, other], set()) == miss
    assert evaluate._miss_reported(in_code, [miss, other], {miss.key}) == other
    elsewhere = ("app", "KLB403", "main.go:46", "-", "-")
    assert evaluate._miss_reported(elsewhere, [miss], set()) is None
    another_object = ("app", "KLB403", "main.go:45", "Deployment/shop/web", "-")
    assert evaluate._miss_reported(another_object, [miss], set()) is None


def test_a_miss_on_a_line_of_a_file_whose_findings_have_no_line_is_that_files_finding() -> None:
    """A reviewer may point at the line of a Dockerfile; k8slb keys a Dockerfile's findings
    by the file alone."""
    miss = evaluate.Label(("app", "KLB406", "api/Dockerfile:17", "Deployment//api", "-"), "TP", "r")
    found = ("app", "KLB406", "api/Dockerfile", "Deployment//api", "api")
    assert evaluate._miss_reported(found, [miss], set()) == miss
    other_file = ("app", "KLB406", "web/Dockerfile", "Deployment//api", "api")
    assert evaluate._miss_reported(other_file, [miss], set()) is None


def test_a_miss_in_a_file_of_code_without_its_line_is_a_finding_on_a_line_of_it() -> None:
    """A reviewer may name the file of code a problem is in and not its line; k8slb keys a
    finding in code by `path:line`."""
    miss = evaluate.Label(("app", "KLB403", "svc/Server.kt", "Deployment//api", "-"), "TP", "r")
    assert evaluate._miss_reported(("app", "KLB403", "svc/Server.kt:25", "-", "-"), [miss], set())
    other_file = ("app", "KLB403", "svc/Client.kt:25", "-", "-")
    assert evaluate._miss_reported(other_file, [miss], set()) is None
    other_rule = ("app", "KLB201", "svc/Server.kt:21", "-", "-")
    assert evaluate._miss_reported(other_rule, [miss], set()) is None


def test_a_finding_whose_severity_moved_since_it_was_labelled_is_shown_to_judge(
    tmp_path: Path,
) -> None:
    held = evaluate.held_out(write_set(tmp_path / "set", labels=[LABEL]))
    (key,) = held.labels
    report = evaluate.held_out_report(held, [evaluate.Outcome("app", [finding(key, "info", held)])])
    assert "severity moved:\tapp\tKLB401\tdeploy.yaml\tDeployment//web\tweb\twarning -> info" in (
        report
    )


ROOT = evaluate.held_out_root()


@pytest.mark.skipif(
    not ROOT.is_dir(),
    reason=f"no held-out copies at {ROOT} (set {evaluate.HELD_OUT_CORPUS_ENV})",
)
@pytest.mark.parametrize("folder", SETS, ids=lambda folder: folder.name)
def test_k8slb_on_the_held_out_copies_meets_their_labels(folder: Path) -> None:
    """Where k8slb runs and how its paths and objects are keyed match the labeller's: each
    labelled project has findings its labels judge (a rule change may add or drop some;
    `make eval-held-out` lists them to judge)."""
    held = evaluate.held_out(folder)
    absent = [p.name for p in held.projects if not (ROOT / p.name / p.path).is_dir()]
    if absent:
        pytest.skip(f"the copies of {absent} are not under {ROOT}")
    outcomes = evaluate.evaluate_held_out(held, ROOT)
    labelled = {key[0] for key in held.labels}
    judged = {o.project for o in outcomes for *_, label in o.findings if label is not None}
    assert labelled <= judged, evaluate.held_out_report(held, outcomes)


def test_an_option_may_name_a_file_of_the_set_itself(tmp_path: Path) -> None:
    held = evaluate.held_out(
        write_set(
            tmp_path / "set",
            projects=["app\towner/app\tdef\t.\tMIT\tLICENSE\t--helm-values {set}/v.yaml\tapp\t"],
        )
    )
    assert evaluate.options_for(held.projects[0], held.folder) == [
        "--helm-values",
        f"{tmp_path / 'set'}/v.yaml",
    ]
