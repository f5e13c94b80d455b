"""k8slb on real projects it was not written for: every finding against a label given by
hand (TP or FP, with the reason), and precision and recall per rule.

The projects (`projects.tsv`: repository, commit, path, licence, the digest of the copy,
the options a user would pass) are public charts and manifests of distributed systems, and
polyglot microservice repositories (Node.js, Java, Go and Python services with their
manifests), copied byte for byte. A finding in a file of code is keyed by its line too
(`path:line`): one file holds many findings of one rule. The copies are not in this
repository: it holds only the labels. They are read from the folder `K8SLB_REAL_CORPUS`
names, else `../shared/corpus/traffic` beside the checkout; each project in a folder of
its name.

Run: `make eval` (or `python -m tests.real_corpus.evaluate [CORPUS]`). The test-suite
(tests/test_real_corpus.py) holds the figures where they are.

The copies are made again from git mirrors, one a repository named `<owner>+<name>`:
`python -m tests.real_corpus.materialise --mirrors DIR CORPUS` writes each project's path
at its commit, blob by blob, and checks its digest. The 17 charts come out right. The 8
polyglot projects (path `.`) do not, with no filter tried (links, dot files, binaries,
sizes, top-level folders): their copies held other files than the tree at the commit,
and which is not recorded (bookinfo's labels are all under samples/bookinfo, of istio's
6,611 files). A new copy of one must be labelled again.

A held-out set (tests/held_out/<day>/, see its README) is scored by the same code:
`make eval-held-out` (or `python -m tests.real_corpus.evaluate --held-out SET [COPIES]`).
Its copies keep their repository's tree, `COPIES/<name>/`, and k8slb is run from the
project's path inside it (`.`), which its labels' paths are relative to; the folder is
`K8SLB_HELD_OUT_CORPUS`, else `../fresh-corpus` beside the checkout. Its labels may say
DEBATABLE besides TP and FP: precision is given strict (DEBATABLE counted wrong) and
lenient (counted right), and recall counts against k8slb the problems read by hand that no
rule reports (`misses.tsv`) at the severity their rule's documentation implies.

Once the classes a held-out set showed are fixed, the set graduates into this corpus
(`rounds/<day>/`, same tables, each project with the digest of its copy and the `extra`
files its copy holds besides its path: vendored charts, the licence is always there; or
`!path`, files of its path its snapshots lack, left out). From
then on its figures are held by the test-suite like the corpus's own (ROUND_FLOORS, issue
47's targets); its copies are `K8SLB_ROUNDS_CORPUS/<day>/<name>/`, else `../rounds-corpus`
beside the checkout, and `materialise --round rounds/<day>` makes them again.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent.parent / "shared" / "corpus" / "traffic"
CORPUS_ENV = "K8SLB_REAL_CORPUS"
HELD_OUT = HERE.parent / "held_out"
DEFAULT_HELD_OUT_CORPUS = HERE.parent.parent.parent / "fresh-corpus"
HELD_OUT_CORPUS_ENV = "K8SLB_HELD_OUT_CORPUS"
ROUNDS = HERE / "rounds"
DEFAULT_ROUNDS_CORPUS = HERE.parent.parent.parent / "rounds-corpus"
ROUNDS_CORPUS_ENV = "K8SLB_ROUNDS_CORPUS"
# A graduated round's figures at warning and error: strict precision counts a DEBATABLE
# finding wrong, lenient counts it right (issue 47's targets; lenient at the corpus's own).
ROUND_FLOORS = {"strict": 0.80, "lenient": 0.97, "recall": 0.90}
KINDS = {"chart": "charts", "app": "apps"}  # a held-out project's kind: its scope's name
# What the figures are taken over: the load-balancing rules; the read errors (KLB0xx) are
# listed, not scored. A run fails at `warning` by default, so precision is that of the
# findings at warning and error; info findings are scored apart.
SCORED_PREFIXES = ("KLB1", "KLB2", "KLB3", "KLB4")
FAILING = ("warning", "error")
# The targets the figures are held to (over the findings at warning and error): a change
# that takes either below fails the test-suite.
FLOORS = {"precision": 0.97, "recall": 0.95}
# An info finding fails no run, but one that says something false still costs a user's
# trust: the info findings are held to a floor of their own.
INFO_PRECISION_FLOOR = 0.95
# The findings in application code (a path in a language k8slb reads, at any severity):
# the rules that read code are held to a floor of their own, over the polyglot projects.
CODE_FLOORS = {"precision": 0.95, "recall": 0.90}
SEVERITIES = ("error", "warning", "info")
RULE = re.compile(r"KLB\d{3}")


@dataclass(frozen=True)
class Project:
    name: str
    repository: str
    commit: str
    path: str
    licence: str
    licence_file: str
    digest: str
    options: tuple[str, ...]
    kind: str = ""  # held-out sets: chart or app
    # held-out sets: the copy keeps the repository's tree and k8slb runs inside `path`
    from_path: bool = False
    # a graduated round: what its copy holds besides `path` and the licence file, each
    # `[owner/name@commit:]path[>where]` (another repository's files, or another folder of
    # this one, written at `where`, by default their own path); or what it lacks of them,
    # `!path` (a path of this repository its snapshots lack, left out of the copy)
    extra: tuple[str, ...] = ()

    def run_in(self, root: Path) -> tuple[Path, str]:
        """Where k8slb runs and what it is given, as the labeller did: the findings'
        paths are relative to the second."""
        if self.from_path:
            return root / self.name / self.path, "."
        return root, self.name


# project, rule, path in the project (`path:line` in a file of code), object, container
Key = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Label:
    key: Key
    verdict: str  # TP or FP (DEBATABLE too in a held-out set)
    reason: str
    severity: str = ""  # held-out sets: k8slb's when labelled; a miss's: the one expected


@dataclass
class Outcome:
    """One project's findings, each with its label (None: not labelled yet)."""

    project: str
    findings: list[tuple[Key, str, str, Label | None]]  # key, severity, headline, label
    missed: list[Label] = field(default_factory=list)  # TP labels no finding matches
    # problems read by hand that no rule reports (a held-out set's misses.tsv)
    unreported: list[Label] = field(default_factory=list)


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        return [dict(row) for row in rows]


def _object_key(text: str) -> str:
    """An object as the keys name it, `Kind/namespace/name` (namespace empty when the
    manifest gives none): a held-out label may leave the empty namespace out."""
    kind, slash, name = text.partition("/")
    return f"{kind}//{name}" if slash and "/" not in name else text


def _required(table: Path, rows: list[dict[str, str]], columns: Iterable[str]) -> None:
    for number, row in enumerate(rows, 1):
        for column in columns:
            if not row.get(column):  # absent (a short row) or empty
                raise ValueError(f"{table}: row {number} has no {column}")


def projects(
    table: Path = HERE / "projects.tsv", *, held_out: bool = False, graduated: bool = False
) -> list[Project]:
    """The projects of a projects.tsv: this folder's, or a held-out set's (no digest, a
    kind, the copy keeping its repository's tree), or a graduated round's (a held-out
    set's, with the digest of each copy)."""
    rows = read_tsv(table)
    _required(table, rows, ["name", "repository", "commit", "path", "licence"])
    _required(table, rows, ["kind"] if held_out else ["digest"])
    if graduated:
        _required(table, rows, ["digest"])
    found = [
        Project(
            row["name"],
            row["repository"],
            row["commit"],
            row["path"],
            row["licence"],
            row["licence_file"],
            row.get("digest") or "",
            tuple(shlex.split(row["options"] or "")),
            row.get("kind") or "",
            from_path=held_out,
            extra=tuple((row.get("extra") or "").split()),
        )
        for row in rows
    ]
    names = Counter(project.name for project in found)
    if twice := [name for name, count in names.items() if count > 1]:
        raise ValueError(f"{table}: {twice} named twice")
    if held_out and (odd := {p.kind for p in found} - set(KINDS)):
        raise ValueError(f"{table}: the kind is one of {sorted(KINDS)}, not {sorted(odd)}")
    return found


def labels(
    name: str | Path = "labels.tsv", verdicts: Sequence[str] = ("TP", "FP")
) -> dict[Key, Label]:
    """The labels of a file of this folder: labels.tsv (the ones the scores use), or
    second_labels.tsv (an independent labelling, compared with them); or of a held-out
    set's labels.tsv (a path), whose verdicts may be DEBATABLE too."""
    table = name if isinstance(name, Path) else HERE / name
    rows = read_tsv(table)
    _required(table, rows, ["project", "rule", "path", "object", "container", "verdict"])
    found: dict[Key, Label] = {}
    for row in rows:
        obj = _object_key(row["object"])
        key = (row["project"], row["rule"], row["path"], obj, row["container"])
        if key in found:
            raise ValueError(f"{name}: {key} is labelled twice")
        if not RULE.fullmatch(key[1]):
            raise ValueError(f"{name}: {key}: no rule {key[1]}")
        if row["verdict"] not in verdicts:
            raise ValueError(
                f"{name}: {key}: the verdict is one of {', '.join(verdicts)}, not {row['verdict']}"
            )
        severity = row.get("severity") or ""
        if severity and severity not in SEVERITIES:
            raise ValueError(f"{name}: {key}: no severity {severity}")
        found[key] = Label(key, row["verdict"], row["reason"] or "", severity)
    return found


def misses(table: Path) -> list[Label]:
    """A held-out set's misses.tsv: problems its rules document that k8slb did not report,
    found by reading, each with the severity its rule's documentation implies."""
    rows = read_tsv(table)
    _required(table, rows, ["project", "rule", "path", "object", "reason", "expected"])
    found: dict[Key, Label] = {}
    for row in rows:
        key = (row["project"], row["rule"], row["path"], _object_key(row["object"]), "-")
        if key in found:
            raise ValueError(f"{table}: {key} is a miss twice")
        if not RULE.fullmatch(key[1]):
            raise ValueError(f"{table}: {key}: no rule {key[1]}")
        if row["expected"] not in SEVERITIES:
            raise ValueError(f"{table}: {key}: no severity {row['expected']}")
        found[key] = Label(key, "TP", row["reason"], row["expected"])
    return list(found.values())


def digest(folder: Path) -> str:
    """The copy's fingerprint: every file's path and bytes, in order."""
    total = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        total.update(path.relative_to(folder).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()


def corpus_root(given: str | None = None) -> Path:
    return Path(given or os.environ.get(CORPUS_ENV) or DEFAULT_CORPUS)


def _object(found: dict[str, object]) -> str:
    obj = found.get("object")
    if not isinstance(obj, dict):
        return "-"
    return f"{obj['kind']}/{obj.get('namespace') or ''}/{obj.get('name') or ''}"


def options_for(project: Project, folder: Path) -> list[str]:
    """The project's options, `{set}` naming the set's folder (a values file its reviewer
    wrote lives there, not in the copy of the project)."""
    return [option.replace("{set}", str(folder)) for option in project.options]


def run_k8slb(command: str, root: Path, project: Project, folder: Path) -> tuple[str, str]:
    """`k8slb COMMAND --format json` on the project as a user runs it (from the corpus
    folder, or inside a held-out copy; its options, no cache): what it was given to read,
    and its output. A run that breaks (exit 2) is an error naming the project."""
    cwd, target = project.run_in(root)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "k8slb", command, "--no-cache", "--format", "json"),
            *options_for(project, folder),
            target,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{project.name}: k8slb exited {done.returncode}: {done.stderr}")
    return target, done.stdout


def check(
    root: Path, project: Project, known: dict[Key, Label], folder: Path | None = None
) -> Outcome:
    """`k8slb check` on the project as a user runs it (from the corpus folder, or inside a
    held-out copy, paths as given, no cache), its findings matched to their labels."""
    target, output = run_k8slb("check", root, project, folder or HERE)
    outcome = Outcome(project.name, [])
    seen: set[Key] = set()
    for found in json.loads(output)["findings"]:
        path = Path(found["path"]).relative_to(target).as_posix()
        if in_code((project.name, found["rule"], path, "-", "-")):
            path += f":{found['line']}"  # a file of code holds many findings of one rule
        key = (project.name, found["rule"], path, _object(found), found.get("container") or "-")
        seen.add(key)
        outcome.findings.append((key, found["severity"], found["headline"], known.get(key)))
    outcome.missed = [
        label
        for key, label in known.items()
        if key[0] == project.name and label.verdict == "TP" and key not in seen
    ]
    return outcome


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    unlabelled: int = 0
    debatable: int = 0  # held-out sets: neither plainly true nor plainly false

    @property
    def precision(self) -> float:
        """Strict: a debatable finding counts as a false one."""
        judged = self.tp + self.fp + self.debatable
        return self.tp / judged if judged else 1.0

    @property
    def lenient_precision(self) -> float:
        """A debatable finding counts as a true one."""
        judged = self.tp + self.fp + self.debatable
        return (self.tp + self.debatable) / judged if judged else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def in_code(key: Key) -> bool:
    """Whether a finding (or a label) is on a file of application code."""
    from k8slb.languages import language_of

    return language_of(key[2].rsplit(":", 1)[0]) is not None


def scores(
    outcomes: Iterable[Outcome],
    severities: Sequence[str] = FAILING,
    where: Callable[[Key], bool] = lambda key: True,
) -> dict[str, Score]:
    """Per rule (and "all"), over the scored rules' findings at `severities` whose key
    `where` takes: a missed TP label counts against recall whatever the severity it was
    labelled at; a problem no rule reports (a held-out miss), when it is expected at
    `severities`."""
    table: dict[str, Score] = {}

    def add(rule: str, what: str) -> None:
        for name in (rule, "all"):
            score = table.setdefault(name, Score())
            setattr(score, what, getattr(score, what) + 1)

    for outcome in outcomes:
        for key, severity, _, label in outcome.findings:
            if not key[1].startswith(SCORED_PREFIXES) or severity not in severities:
                continue
            if where(key):
                add(key[1], "unlabelled" if label is None else label.verdict.lower())
        for label in outcome.missed:
            if label.key[1].startswith(SCORED_PREFIXES) and where(label.key):
                add(label.key[1], "fn")
        for label in outcome.unreported:
            scored = label.key[1].startswith(SCORED_PREFIXES) and label.severity in severities
            if scored and where(label.key):
                add(label.key[1], "fn")
    return table


def evaluate(root: Path) -> list[Outcome]:
    known = labels()
    return [check(root, project, known) for project in projects()]


def report(outcomes: list[Outcome]) -> str:
    lines = []
    for title, severities, where in (
        ("Findings at warning and error", FAILING, lambda key: True),
        ("Findings at info", ("info",), lambda key: True),
        ("Findings in application code, at every severity", SEVERITIES, in_code),
    ):
        lines.append(f"{title}:")
        lines.append(
            f"{'rule':8} {'TP':>4} {'FP':>4} {'FN':>4} {'new':>4} {'precision':>10} {'recall':>7}"
        )
        table = scores(outcomes, severities, where)
        for rule in sorted(table, key=lambda name: (name == "all", name)):
            s = table[rule]
            lines.append(
                f"{rule:8} {s.tp:4} {s.fp:4} {s.fn:4} {s.unlabelled:4} "
                f"{s.precision:10.2f} {s.recall:7.2f}"
            )
        lines.append("")
    verdicts = Counter(
        (label.verdict if label else "unlabelled")
        for outcome in outcomes
        for _, _, _, label in outcome.findings
    )
    lines.append(f"{len(outcomes)} projects; every finding: {dict(sorted(verdicts.items()))}")
    lines += ["", *agreement(outcomes, labels("second_labels.tsv"))]
    return "\n".join(lines)


def agreement(outcomes: list[Outcome], second: dict[Key, Label]) -> list[str]:
    """Where the independent labelling and labels.tsv agree, over the findings both label
    (at any severity now: a finding may have moved to info since it was labelled)."""
    both = [
        (key, severity, label, second[key])
        for outcome in outcomes
        for key, severity, _, label in outcome.findings
        if label is not None and key in second
    ]
    differ = Counter(key[1] for key, _, mine, theirs in both if mine.verdict != theirs.verdict)
    failing = [(m, t) for _, severity, m, t in both if severity in FAILING]
    true = sum(1 for _, t in failing if t.verdict == "TP")
    return [
        f"Second labelling: {len(both) - sum(differ.values())} of {len(both)} findings judged "
        f"alike; it disagrees on {dict(sorted(differ.items()))}. By its verdicts, precision at "
        f"warning and error: {true / len(failing) if failing else 1.0:.2f} "
        f"({true} of {len(failing)})."
    ]


def unmatched(outcomes: list[Outcome]) -> list[str]:
    """The findings no label judges, then the TP labels no finding matches: what a person
    must look at after a rule changed."""
    lines = [
        "\t".join(["unlabelled:", *key, severity, headline])
        for outcome in outcomes
        for key, severity, headline, label in outcome.findings
        if label is None
    ]
    lines += [
        "\t".join(["missed:", *label.key, label.reason])
        for outcome in outcomes
        for label in outcome.missed
    ]
    return lines


@dataclass(frozen=True)
class HeldOut:
    """A held-out set (tests/held_out/<day>/): its projects, its labels, its misses."""

    folder: Path
    projects: list[Project]
    labels: dict[Key, Label]
    misses: list[Label]


def held_out(folder: Path, *, graduated: bool = False) -> HeldOut:
    """The set in `folder`, every row checked: a label or a miss names one of its projects
    (and, in a graduated round, each project has its copy's digest)."""
    found = HeldOut(
        folder,
        projects(folder / "projects.tsv", held_out=True, graduated=graduated),
        labels(folder / "labels.tsv", ("TP", "FP", "DEBATABLE")),
        misses(folder / "misses.tsv"),
    )
    names = {project.name for project in found.projects}
    for key in [*found.labels, *(miss.key for miss in found.misses)]:
        if key[0] not in names:
            raise ValueError(f"{folder}: {key} names no project of its projects.tsv")
    return found


def held_out_sets() -> list[Path]:
    return sorted(folder.parent for folder in HELD_OUT.glob("*/projects.tsv"))


def held_out_root(given: str | None = None) -> Path:
    return Path(given or os.environ.get(HELD_OUT_CORPUS_ENV) or DEFAULT_HELD_OUT_CORPUS)


def rounds() -> list[Path]:
    """The graduated rounds: held-out sets whose classes were fixed, now in the corpus."""
    return sorted(folder.parent for folder in ROUNDS.glob("*/projects.tsv"))


def rounds_root(given: str | None = None) -> Path:
    """The folder of the graduated rounds' copies, one folder per round."""
    return Path(given or os.environ.get(ROUNDS_CORPUS_ENV) or DEFAULT_ROUNDS_CORPUS)


def evaluate_held_out(held: HeldOut, root: Path) -> list[Outcome]:
    """Each project's findings against the set's labels; a problem the reviewers found
    unreported that a finding now reports (same rule and path, and the same object unless
    the finding, in code, names none) is a true finding, no longer a miss."""
    outcomes = [check(root, p, held.labels, held.folder.resolve()) for p in held.projects]
    for outcome in outcomes:
        found: set[Key] = set()
        for number, (key, severity, headline, label) in enumerate(outcome.findings):
            miss = None if label is not None else _miss_reported(key, held.misses, found)
            if miss is not None:
                outcome.findings[number] = (key, severity, headline, miss)
                found.add(miss.key)
        outcome.unreported = [
            miss for miss in held.misses if miss.key[0] == outcome.project and miss.key not in found
        ]
    return outcomes


def _miss_reported(key: Key, misses: list[Label], found: set[Key]) -> Label | None:
    for miss in misses:
        same_place = miss.key[:2] == key[:2] and _same_file(miss.key[2], key[2])
        if same_place and key[3] in (miss.key[3], "-") and miss.key not in found:
            return miss
    return None


def _same_file(missed: str, found: str) -> bool:
    """A miss read by hand may give the line of a file whose findings k8slb keys without
    one (a Dockerfile's): `Dockerfile:17` is then the finding on `Dockerfile`. It may also
    give a file of code without its line (`Server.kt`): a finding on a line of that file
    (`Server.kt:21`) is then the miss."""
    if missed == found or missed.rsplit(":", 1)[0] == found:
        return True
    path, _, line = found.rpartition(":")
    return ":" not in missed and line.isdigit() and path == missed


def held_out_scores(held: HeldOut, outcomes: list[Outcome]) -> dict[str, dict[str, Score]]:
    """Per scope (charts, apps, overall), per rule: the findings at warning and error."""
    kinds = {project.name: KINDS[project.kind] for project in held.projects}

    def within(scope: str) -> Callable[[Key], bool]:
        return lambda key: kinds[key[0]] == scope

    tables = {scope: scores(outcomes, FAILING, within(scope)) for scope in KINDS.values()}
    tables["overall"] = scores(outcomes, FAILING)
    return tables


def held_out_report(held: HeldOut, outcomes: list[Outcome]) -> str:
    lines = [
        f"Held-out set {held.folder.name}, findings at warning and error "
        "(precision strict: DEBATABLE counted wrong; lenient: counted right; FN: TP labels "
        "no finding matches and misses expected at warning or error):"
    ]
    for scope, table in held_out_scores(held, outcomes).items():
        lines.append(
            f"{scope:8} {'TP':>4} {'DEB':>4} {'FP':>4} {'FN':>4} {'new':>4} "
            f"{'strict':>7} {'lenient':>7} {'recall':>7}"
        )
        for rule in sorted(table, key=lambda name: (name == "all", name)):
            s = table[rule]
            lines.append(
                f"{rule:8} {s.tp:4} {s.debatable:4} {s.fp:4} {s.fn:4} {s.unlabelled:4} "
                f"{s.precision:7.2f} {s.lenient_precision:7.2f} {s.recall:7.2f}"
            )
        lines.append("")
    total = sum(1 for o in outcomes for _, severity, _, _ in o.findings if severity in FAILING)
    lines.append(f"{len(outcomes)} projects, {total} findings at warning and error")
    moved = [
        "\t".join(["severity moved:", *key, f"{label.severity} -> {severity}"])
        for outcome in outcomes
        for key, severity, _, label in outcome.findings
        if label is not None and label.severity and label.severity != severity
    ]
    if new := unmatched(outcomes) + moved:
        lines += ["", "To judge by hand (then record in the set's labels.tsv):", *new]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.real_corpus.evaluate")
    parser.add_argument("--held-out", type=Path, metavar="SET", help="a held-out set's folder")
    parser.add_argument("copies", nargs="?", help="the folder of the projects' copies")
    args = parser.parse_args(argv)
    if args.held_out is not None:
        root = held_out_root(args.copies)
        where = HELD_OUT_CORPUS_ENV
    else:
        root = corpus_root(args.copies)
        where = CORPUS_ENV
    if not root.is_dir():
        print(f"no corpus at {root} (set {where}, or pass its folder)", file=sys.stderr)
        return 2
    if args.held_out is not None:
        held = held_out(args.held_out)
        print(held_out_report(held, evaluate_held_out(held, root)))
        return 0
    outcomes = evaluate(root)
    print(report(outcomes))
    print(*unmatched(outcomes), sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
