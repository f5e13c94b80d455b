"""The link score of a held-out set: each container whose code is in the repository, judged
by hand (a `links.tsv`: project, object, container, expected, k8slb, verdict), against the
code `k8slb explain-links` links it to now.

A row is RIGHT when the link is the expected folder or inside it (a file of it, its
entry point), NONE when no code is found (a link to a path the repository does not hold,
a build's output, reads none either), WRONG when the link is another folder: another
service's code, or a parent of the expected folder (too wide). A manifest variant repeats
an object: its rows are matched to explain-links' rows of the same key in order.

Run: `python -m tests.real_corpus.score_links LINKS.tsv [COPIES]`, the projects.tsv beside
the links.tsv naming each project's path and options; COPIES as `evaluate --held-out`'s
(`K8SLB_HELD_OUT_CORPUS`, else `../fresh-corpus` beside the checkout). It prints the
verdicts given in the table (when it was labelled) and today's, and each row that moved.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import sys
from collections import Counter, defaultdict
from pathlib import Path

from tests.real_corpus.evaluate import (
    DEFAULT_HELD_OUT_CORPUS,
    HELD_OUT_CORPUS_ENV,
    Project,
    _object_key,
    projects,
    read_tsv,
    run_k8slb,
)

VERDICTS = ("RIGHT", "NONE", "WRONG")
# A row a reviewer listed to catch a wrong link, of a container that runs no code of the
# repository (expected `none`: a public image built with a Dockerfile that copies none):
# no link is what is right there, and it is not one of the containers whose code is in
# the repository, which the share right is of.
NO_CODE = "NO CODE"


def verdict(expected: str, linked: str | None, *, present: bool = True) -> str:
    """RIGHT: the expected folder or a path inside it; NONE: no code, or a link to a path
    that is not `present` in the repository; WRONG: elsewhere, or any link where none is
    expected; NO_CODE: none expected, none linked. The expected folder is the cell's first
    words, before a reviewer's note in brackets (`client (with gen/go)`)."""
    folder = expected.split(" (", 1)[0]
    if folder in ("none", "-"):
        return NO_CODE if linked is None or not present else "WRONG"
    if linked is None or not present:
        return "NONE"
    want, got = posixpath.normpath(folder), posixpath.normpath(linked)
    if want == "." or got == want or got.startswith(want + "/"):
        return "RIGHT"
    return "WRONG"


def container_key(obj: str, container: str) -> str:
    """A row's object and container as explain-links keys them (no empty namespace)."""
    kind, namespace, name = _object_key(obj).split("/", 2)
    return f"{kind}/{namespace + '/' if namespace else ''}{name}:{container}"


def explain_links(root: Path, project: Project, folder: Path) -> dict[str, list[str | None]]:
    """The code of each container, by key, in explain-links' order (no cache)."""
    _, output = run_k8slb("explain-links", root, project, folder.resolve())
    found: dict[str, list[str | None]] = defaultdict(list)
    for row in json.loads(output)["links"]:
        found[row["container"]].append(row["code"])
    return found


def score(table: Path, root: Path) -> tuple[Counter[str], Counter[str], list[str]]:
    """The verdicts the table gives, today's, and a line for each row whose verdict moved."""
    rows = read_tsv(table)
    known = {p.name: p for p in projects(table.parent / "projects.tsv", held_out=True)}
    then: Counter[str] = Counter()
    now: Counter[str] = Counter()
    moved: list[str] = []
    runs: dict[str, dict[str, list[str | None]]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    for row in rows:
        name = row["project"]
        if name not in runs:
            runs[name] = explain_links(root, known[name], table.parent)
        key = container_key(row["object"], row["container"])
        occurrence = seen[(name, key)]
        seen[(name, key)] += 1
        codes = runs[name].get(key, [])
        linked = codes[min(occurrence, len(codes) - 1)] if codes else None
        cwd, _ = known[name].run_in(root)
        today = verdict(row["expected"], linked, present=linked is None or (cwd / linked).exists())
        then[row["verdict"]] += 1
        now[today] += 1
        if today != row["verdict"]:
            moved.append(
                f"{name} {key}: {row['verdict']} -> {today} "
                f"(expected {row['expected']}, linked {linked or 'none'})"
            )
    return then, now, moved


def _line(counts: Counter[str]) -> str:
    total = sum(counts[v] for v in VERDICTS)
    parts = ", ".join(f"{v} {counts[v]}" for v in VERDICTS)
    if counts[NO_CODE]:
        parts += f"; and {counts[NO_CODE]} that run no code of the repository, none linked"
    return f"{counts['RIGHT'] / total:.0%} right of {total} ({parts})" if total else "no rows"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("links", type=Path, help="a held-out set's links.tsv")
    parser.add_argument("copies", nargs="?", help="the folder holding the projects' copies")
    given = parser.parse_args(argv)
    root = Path(given.copies or os.environ.get(HELD_OUT_CORPUS_ENV) or DEFAULT_HELD_OUT_CORPUS)
    then, now, moved = score(given.links, root)
    print(f"{given.links}")
    print(f"  labelled: {_line(then)}")
    print(f"  now:      {_line(now)}")
    for line in moved:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
