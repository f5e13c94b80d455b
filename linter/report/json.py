"""The JSON contract, version 1 (the README's "JSON output", schemas/report.json): other
tools parse it, keep it exact."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from k8slb import __version__
from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.report.text import statistics_rows

CONTRACT_VERSION = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    obj: dict[str, Any] | None = None
    if finding.object is not None:
        ref = finding.object
        obj = {
            "kind": ref.kind,
            "namespace": ref.namespace,
            "name": ref.name,
            "document": ref.document,
        }
        if ref.item is not None:
            obj["item"] = ref.item
    return {
        "rule": finding.rule,
        "name": finding.name,
        "severity": finding.severity.label,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "object": obj,
        "container": finding.container,
        "message": finding.text,
        "headline": finding.message,
        "related": [
            {"path": r.path, "line": r.line, "message": r.message} for r in finding.related
        ],
        "fix": {
            "available": finding.fix.available,
            "safe": finding.fix.safe,
            "description": finding.fix.description,
        },
        **(
            {"rendered": {"template": finding.rendered.template, "line": finding.rendered.line}}
            if finding.rendered is not None
            else {}
        ),
    }


def document(result: RunResult) -> dict[str, Any]:
    """The report as the encoder reads it: its findings are made as they are iterated
    (`_Each`), never held as a list of all of them."""
    return {
        "version": CONTRACT_VERSION,
        "tool": {"name": "k8slb", "version": __version__},
        "summary": {
            "files": result.files,
            "objects": result.objects,
            "findings": len(result.findings),
            "fixable": sum(1 for f in result.findings if f.fix.available and f.fix.safe),
            "unsafe_fixable": sum(1 for f in result.findings if f.fix.available and not f.fix.safe),
            "baselined": result.baselined,
            "by_severity": {
                s.label: sum(1 for f in result.findings if f.severity is s)
                for s in sorted(Severity, reverse=True)
            },
        },
        "findings": _Each(result.findings, finding_dict),
        "errors": list(result.errors),  # what the run could not read (it exits 2)
    }


class _Each(list[dict[str, Any]]):
    """The findings' objects, each made as the encoder reaches it and let go once written:
    a report of thousands of findings never holds them all (nor its text: `chunks`). A
    list to the encoder, which writes it as any (its emptiness is the items')."""

    def __init__(self, items: Sequence[Any], made: Callable[[Any], dict[str, Any]]) -> None:
        super().__init__()
        self.items, self.made = items, made

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return map(self.made, self.items)


def _suppressed_dict(suppressed: tuple[Finding, str]) -> dict[str, Any]:
    finding, why = suppressed
    return {**finding_dict(finding), "suppressed_by": why}


def chunks(result: RunResult, *, show_suppressed: bool = False) -> Iterator[str]:
    """The report's text in parts, as `json.dumps(document, indent=2)` writes it."""
    data = document(result)
    if show_suppressed:
        data["suppressed"] = _Each(result.suppressed, _suppressed_dict)
    yield from json.JSONEncoder(indent=2).iterencode(data)
    yield "\n"


def render(result: RunResult, *, show_suppressed: bool = False) -> str:
    return "".join(chunks(result, show_suppressed=show_suppressed))


_PARTS = 4096  # the encoder's parts (a few words each) written at once


def write(result: RunResult, out: Callable[[str], None], *, show_suppressed: bool) -> None:
    """The report given to `out` a few thousand parts at a time."""
    parts: list[str] = []
    for part in chunks(result, show_suppressed=show_suppressed):
        parts.append(part)
        if len(parts) >= _PARTS:
            out("".join(parts))
            parts.clear()
    out("".join(parts))


class JsonFormatter(Formatter):
    """The JSON contract (version 1); with `--statistics`, one object per rule, as ruff."""

    name = "json"
    statistics = True
    suppressed = True

    def render(self, result: RunResult, options: RenderOptions) -> str:
        if options.statistics:
            rows = statistics_rows(result)
            data = [{"code": r, "name": n, "count": c, "fixable": f} for c, r, n, f in rows]
            return json.dumps(data, indent=2) + "\n"
        return render(result, show_suppressed=options.show_suppressed)

    def write(self, result: RunResult, options: RenderOptions, out: Callable[[str], None]) -> None:
        if options.statistics:
            out(self.render(result, options))
        else:
            write(result, out, show_suppressed=options.show_suppressed)
