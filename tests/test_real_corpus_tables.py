"""The real-world corpus's own tables (tests/real_corpus/*.tsv) read whole, without its
copies: a duplicated label or project stops the evaluation where the copies are, so it is
caught here, where they are not."""

from __future__ import annotations

from .real_corpus import evaluate


def test_the_corpus_names_each_project_once() -> None:
    names = [project.name for project in evaluate.projects()]
    assert names and len(names) == len(set(names))


def test_each_finding_of_the_corpus_is_labelled_once() -> None:
    # evaluate.labels raises on a key labelled twice; every row must become one label
    for table in ("labels.tsv", "second_labels.tsv"):
        rows = evaluate.read_tsv(evaluate.HERE / table)
        assert rows and len(evaluate.labels(table)) == len(rows), table
