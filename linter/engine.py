"""One run: read every source once, build the index, run the selected rules, sort."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from k8slb.findings import Finding
from k8slb.index import Index
from k8slb.manifests import ManifestFile, load_manifests
from k8slb.model import K8sObject, Problem
from k8slb.rules.base import Context, Rule
from k8slb.sources import Source


@dataclass(frozen=True)
class Settings:
    rules: Sequence[type[Rule]]
    kubernetes_version: tuple[int, int] = (1, 30)
    mesh: str = "none"


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    objects: int = 0
    unknown_kinds: int = 0
    other_documents: int = 0
    errors: list[str] = field(default_factory=list)  # the run could not read something


def read_sources(sources: Sequence[Source]) -> tuple[list[ManifestFile], list[str]]:
    manifests: list[ManifestFile] = []
    errors: list[str] = []
    for source in sources:
        if source.language != "yaml":
            continue  # Python analysis comes with the Python rules
        try:
            data = source.read()
        except OSError as error:
            errors.append(f"{source.path}: cannot read: {error.strerror or error}")
            continue
        manifests.append(load_manifests(source.path, data))
    return manifests, errors


def run(sources: Sequence[Source], settings: Settings) -> RunResult:
    manifests, errors = read_sources(sources)
    objects: list[K8sObject] = [obj for m in manifests for obj in m.objects]
    problems: list[Problem] = [p for m in manifests for p in m.problems]
    context = Context(
        index=Index(objects, settings.mesh),
        problems=problems,
        kubernetes_version=settings.kubernetes_version,
    )
    findings = [finding for rule in settings.rules for finding in rule().check(context)]
    findings.sort(key=Finding.sort_key)
    return RunResult(
        findings=findings,
        files=len(sources) - len(errors),
        objects=len(objects),
        unknown_kinds=sum(1 for obj in objects if obj.spec is None),
        other_documents=sum(m.other_documents for m in manifests),
        errors=errors,
    )
