"""The JSON contract, version 1 (the README's "JSON output", schemas/report.json): other
tools parse it, keep it exact."""

from __future__ import annotations

import json
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
        "findings": [finding_dict(f) for f in result.findings],
        "errors": list(result.errors),  # what the run could not read (it exits 2)
    }


def render(result: RunResult, *, show_suppressed: bool = False) -> str:
    data = document(result)
    if show_suppressed:
        data["suppressed"] = [
            {**finding_dict(finding), "suppressed_by": why} for finding, why in result.suppressed
        ]
    return json.dumps(data, indent=2) + "\n"


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
