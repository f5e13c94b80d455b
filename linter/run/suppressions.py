"""Findings a team has decided not to see, and why.

Four ways, as the README's "Suppressions" lists them:
- an annotation on the object (or its pod template): `k8slb.io/ignore: "KLB101,KLB401"`,
  or `k8slb.io/ignore.CONTAINER: "KLB401"` for one container; a reason may follow a `;`;
- a YAML comment on the finding's line or on the object's first line:
  `# k8slb: ignore[KLB401] reason`; `# k8slb: ignore` alone silences every rule there;
- a Python comment on the finding's line, or alone on the line above it;
- configuration: `per-file-ignores` (by path) and `exemptions` (by kind, namespace, name
  and container, with a reason and an optional expiry date).
Rule codes are ids, id prefixes or names, as in `--select`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from k8slb.core.findings import Finding
from k8slb.model.objects import pod_template, pos_of
from k8slb.reading.markers import ANNOTATION, Marker, split_codes
from k8slb.reading.objects import K8sObject
from k8slb.reading.sources import gitignore_patterns
from k8slb.reading.yamltree import YMap
from k8slb.run.config import Exemption
from k8slb.run.selection import SelectionError, codes_to_ids

if TYPE_CHECKING:
    import pathspec


def _ids(marker: Marker) -> frozenset[str] | None:
    """The rule ids a marker names (None: every rule); unknown codes name none, which
    --report-unused-ignores then reports."""
    if marker.codes is None:
        return None
    try:
        return codes_to_ids(marker.codes)
    except SelectionError:
        return frozenset()


def judgeable(marker: Marker, selected: set[str]) -> bool:
    """Whether this run can tell that a marker is unused: every rule it names ran."""
    ids = _ids(marker)
    return ids is None or not ids or ids <= selected


def annotation_markers(obj: K8sObject) -> list[Marker]:
    """`k8slb.io/ignore` annotations of an object and of its pod template."""
    sources = [obj.annotations]
    template = pod_template(obj)
    if template is not None:
        sources.append(template.annotations)
    markers: list[Marker] = []
    for source in sources:
        for key, value in source.items():
            if key != ANNOTATION and not key.startswith(ANNOTATION + "."):
                continue
            codes, _, reason = str(value).partition(";")
            line, column = pos_of(source, key) if isinstance(source, YMap) else obj.pos
            markers.append(
                Marker(
                    obj.path,
                    line,
                    column,
                    split_codes(codes) if codes.strip() else None,
                    reason.strip(),
                    "annotation",
                    f"{key}: {value}",
                    container=key[len(ANNOTATION) + 1 :] or None,
                )
            )
    return markers


@dataclass
class Outcome:
    kept: list[Finding] = field(default_factory=list)
    suppressed: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, why)
    unused: list[Marker] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)  # every marker of the run


@dataclass
class Suppressions:
    """Everything that can silence a finding in one run."""

    comments: list[Marker] = field(default_factory=list)
    objects: dict[tuple[str, int, int | None], list[Marker]] = field(default_factory=dict)
    first_lines: dict[tuple[str, int, int | None], int] = field(default_factory=dict)
    per_file_ignores: dict[str, frozenset[str]] = field(default_factory=dict)
    config_root: Path = field(default_factory=Path.cwd)
    exemptions: Sequence[Exemption] = ()
    today: datetime.date = field(default_factory=datetime.date.today)
    # a finding's object key -> the object whose annotations hold for it (a finding a
    # kustomize patch's file holds, of the object the patch merged into: model/patched.py)
    aliases: Mapping[tuple[str, int, int | None], tuple[str, int, int | None]] = field(
        default_factory=dict
    )
    _relative_paths: dict[str, str | None] = field(default_factory=dict)
    # Markers that silenced something, by identity: the markers belong to parse results,
    # which the cache shares between runs, so they are never changed.
    _used: set[int] = field(default_factory=set)

    def add_objects(self, objects: Iterable[K8sObject]) -> None:
        for obj in objects:
            key = (obj.path, obj.document, obj.item)
            self.first_lines[key] = obj.pos[0]
            markers = annotation_markers(obj)
            if markers:
                self.objects[key] = markers

    def apply(self, findings: Iterable[Finding]) -> Outcome:
        by_line: dict[tuple[str, int], list[Marker]] = {}
        for marker in self.comments:
            by_line.setdefault((marker.path, marker.line), []).append(marker)
            if marker.covers_next_line:
                by_line.setdefault((marker.path, marker.line + 1), []).append(marker)
        file_rules = [
            (gitignore_patterns((pattern,)), ids) for pattern, ids in self.per_file_ignores.items()
        ]
        outcome = Outcome()
        for finding in findings:
            why = self._why(finding, by_line, file_rules)
            if why is None:
                outcome.kept.append(finding)
            else:
                outcome.suppressed.append((finding, why))
        outcome.markers = [*self.comments, *(m for ms in self.objects.values() for m in ms)]
        outcome.unused = [m for m in outcome.markers if id(m) not in self._used]
        return outcome

    def _why(
        self,
        finding: Finding,
        by_line: dict[tuple[str, int], list[Marker]],
        file_rules: list[tuple[pathspec.GitIgnoreSpec, frozenset[str]]],
    ) -> str | None:
        lines = [finding.line]
        ref = finding.object
        key = (finding.path, ref.document, ref.item) if ref else None
        if key is not None and key in self.first_lines:
            lines.append(self.first_lines[key])
        for line in lines:
            for marker in by_line.get((finding.path, line), []):
                ids = _ids(marker)
                if ids is None or finding.rule in ids:
                    self._used.add(id(marker))
                    return f"comment `{marker.text}` (line {marker.line})"
        for marker in self.objects.get(self.aliases.get(key, key), []) if key else []:
            if marker.container not in (None, finding.container):
                continue
            ids = _ids(marker)
            if ids is None or finding.rule in ids:
                self._used.add(id(marker))
                return f"annotation `{marker.text}`"
        if file_rules:
            relative = self._relative(finding.path)
            for spec, ids in file_rules:
                if relative is not None and finding.rule in ids and spec.match_file(relative):
                    return "per-file-ignores"
        for exemption in self.exemptions:
            if self._exempts(exemption, finding):
                return f"exemption: {exemption.reason}"
        return None

    def _relative(self, path: str) -> str | None:
        """The path as per-file-ignores patterns see it (relative to the configuration)."""
        if path not in self._relative_paths:
            try:
                relative: str | None = Path(path).resolve().relative_to(self.config_root).as_posix()
            except ValueError:
                relative = None
            self._relative_paths[path] = relative
        return self._relative_paths[path]

    def _exempts(self, exemption: Exemption, finding: Finding) -> bool:
        ref = finding.object
        if ref is None or finding.rule not in exemption.rules or exemption.expired(self.today):
            return False
        wanted = [
            (exemption.kind, ref.kind),
            (exemption.namespace, ref.namespace),
            (exemption.name, ref.name),
            (exemption.container, finding.container),
        ]
        return all(
            pattern is None or (value is not None and fnmatchcase(value, pattern))
            for pattern, value in wanted
        )
