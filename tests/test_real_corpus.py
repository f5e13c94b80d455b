"""k8slb on the real-world corpus (tests/real_corpus): every finding labelled by hand, and
precision and recall where they were measured. The copies live outside the repository
(evaluate.py says where); without them these tests skip."""

from __future__ import annotations

import pytest

from .real_corpus import evaluate

ROOT = evaluate.corpus_root()
pytestmark = pytest.mark.skipif(
    not ROOT.is_dir(), reason=f"no real-world corpus at {ROOT} (set {evaluate.CORPUS_ENV})"
)


@pytest.fixture(scope="module")
def outcomes() -> list[evaluate.Outcome]:
    return evaluate.evaluate(ROOT)


@pytest.mark.parametrize("project", evaluate.projects(), ids=lambda p: p.name)
def test_each_project_is_the_copy_that_was_labelled(project: evaluate.Project) -> None:
    folder = ROOT / project.name
    assert folder.is_dir(), f"{project.name} is missing from {ROOT}"
    assert evaluate.digest(folder) == project.digest, f"{folder} is not the labelled copy"


def test_every_finding_on_the_corpus_is_labelled(outcomes: list[evaluate.Outcome]) -> None:
    new = [key for o in outcomes for key, _, _, label in o.findings if label is None]
    assert not new, "label these in tests/real_corpus/labels.tsv:\n" + "\n".join(
        "\t".join(key) for key in new
    )


def test_precision_and_recall_hold(outcomes: list[evaluate.Outcome]) -> None:
    score = evaluate.scores(outcomes)["all"]
    assert score.precision >= evaluate.FLOORS["precision"], evaluate.report(outcomes)
    assert score.recall >= evaluate.FLOORS["recall"], evaluate.report(outcomes)


def test_the_info_findings_say_what_is_true(outcomes: list[evaluate.Outcome]) -> None:
    score = evaluate.scores(outcomes, ("info",))["all"]
    assert score.precision >= evaluate.INFO_PRECISION_FLOOR, evaluate.report(outcomes)


def test_the_rules_that_read_code_hold_on_polyglot_services(
    outcomes: list[evaluate.Outcome],
) -> None:
    """Node.js, Java, Go and Python services with their manifests: the findings in their
    code, at every severity, against their labels and the misses labelled by hand."""
    score = evaluate.scores(outcomes, evaluate.SEVERITIES, evaluate.in_code)["all"]
    assert score.tp >= 40, "the polyglot projects are in the corpus"
    assert score.precision >= evaluate.CODE_FLOORS["precision"], evaluate.report(outcomes)
    assert score.recall >= evaluate.CODE_FLOORS["recall"], evaluate.report(outcomes)
