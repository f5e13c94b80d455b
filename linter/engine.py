"""One run: read every source once, build the index, run the selected rules, sort."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from k8slb.config import Exemption
from k8slb.findings import Finding
from k8slb.fixing.edits import FixValues
from k8slb.index import Index
from k8slb.manifests import ManifestFile, load_manifests
from k8slb.model import K8sObject, Problem
from k8slb.projects import assign_projects
from k8slb.pyfacts import PythonFacts, is_test_path, worth_parsing
from k8slb.rules.base import Context, Rule
from k8slb.rules.unused_suppression import UnusedSuppression
from k8slb.sources import Source
from k8slb.suppressions import Suppressions, judgeable


@dataclass(frozen=True)
class Settings:
    rules: Sequence[type[Rule]]
    kubernetes_version: tuple[int, int] = (1, 30)
    mesh: str = "none"
    fix_values: FixValues = field(default_factory=FixValues)
    per_file_ignores: Mapping[str, frozenset[str]] = field(default_factory=dict)
    exemptions: Sequence[Exemption] = ()
    config_root: Path | None = None
    report_unused_ignores: bool = False
    today: datetime.date | None = None  # when exemptions expire; None: the real today


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, why)
    paths: list[str] = field(default_factory=list)  # every file read
    contents: dict[str, bytes] = field(default_factory=dict)  # their bytes (SARIF fixes)
    files: int = 0
    objects: int = 0
    unknown_kinds: int = 0
    other_documents: int = 0
    errors: list[str] = field(default_factory=list)  # the run could not read something


@dataclass
class Sources:
    """Every file of a run, read and parsed once."""

    manifests: list[ManifestFile] = field(default_factory=list)
    python: list[PythonFacts] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)


def read_sources(sources: Sequence[Source], contents: Mapping[str, bytes] | None = None) -> Sources:
    """Read and parse every source; `contents` gives the bytes of some of them (the fixer
    lints its edited text before it writes anything)."""
    read = Sources()
    for source in sources:
        try:
            data = contents[source.path] if contents and source.path in contents else source.read()
        except OSError as error:
            read.errors.append(f"{source.path}: cannot read: {error.strerror or error}")
            continue
        read.contents[source.path] = data
        if source.language == "yaml":
            read.manifests.append(load_manifests(source.path, data))
        else:
            read.python.append(analyse_python(source.path, data))
    return read


def analyse_python(path: str, data: bytes) -> PythonFacts:
    if not worth_parsing(data):  # most files: no CST, and libcst is never imported
        return PythonFacts(path, is_test=is_test_path(path))
    from k8slb.pycode import analyse

    return analyse(path, data)


def run(
    sources: Sequence[Source], settings: Settings, contents: Mapping[str, bytes] | None = None
) -> RunResult:
    read = read_sources(sources, contents)
    assign_projects(read.python)
    manifests, errors = read.manifests, read.errors
    objects: list[K8sObject] = [obj for m in manifests for obj in m.objects]
    problems: list[Problem] = [p for m in manifests for p in m.problems]
    problems += [facts.problem for facts in read.python if facts.problem is not None]
    context = Context(
        index=Index(objects, settings.mesh),
        problems=problems,
        python=read.python,
        kubernetes_version=settings.kubernetes_version,
        fix_values=settings.fix_values,
    )
    findings = [finding for rule in settings.rules for finding in rule().check(context)]
    suppressions = Suppressions(
        comments=[m for f in manifests for m in f.markers]
        + [m for f in read.python for m in f.markers],
        per_file_ignores=dict(settings.per_file_ignores),
        config_root=settings.config_root or Path.cwd(),
        exemptions=settings.exemptions,
        today=settings.today or datetime.date.today(),
    )
    suppressions.add_objects(objects)
    outcome = suppressions.apply(findings)
    findings = outcome.kept
    if settings.report_unused_ignores and UnusedSuppression in settings.rules:
        selected = {rule.id for rule in settings.rules}
        findings += [
            UnusedSuppression.about(marker)
            for marker in outcome.unused
            if judgeable(marker, selected)
        ]
    reported = {s.path for s in sources if s.report}
    if len(reported) < len(sources):  # --context: the other files only inform
        findings = [f for f in findings if f.path in reported]
        outcome.suppressed = [(f, why) for f, why in outcome.suppressed if f.path in reported]
    findings.sort(key=Finding.sort_key)
    return RunResult(
        findings=findings,
        suppressed=outcome.suppressed,
        paths=[m.path for m in manifests] + [f.path for f in read.python],
        contents=read.contents,
        files=sum(1 for s in sources if s.report) - len(errors),
        objects=len(objects),
        unknown_kinds=sum(1 for obj in objects if obj.spec is None),
        other_documents=sum(m.other_documents for m in manifests),
        errors=errors,
    )
