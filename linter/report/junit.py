"""JUnit XML, which GitLab, Jenkins and most CI systems show: one test case per file, a
failure per finding at or above `--fail-on`; findings below it are not failures (the run
passes) and are listed in the test case's output instead."""

from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree as ET

from k8slb.engine import RunResult
from k8slb.report.findings import Finding, Severity
from k8slb.report.printable import printable
from k8slb.report.text import format_finding


def render(result: RunResult, fail_on: Severity = Severity.WARNING) -> str:
    by_path: defaultdict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        by_path[finding.path].append(finding)
    paths = sorted(set(result.paths) | set(by_path))
    suites = ET.Element("testsuites", name="k8slb")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="k8slb",
        tests=str(len(paths)),
        failures=str(sum(1 for p in paths if any(f.severity >= fail_on for f in by_path[p]))),
        errors="0",
        skipped="0",
    )
    for path in paths:
        # XML 1.0 cannot hold most control characters at all, not even as references.
        shown = printable(path)
        case = ET.SubElement(suite, "testcase", classname="k8slb", name=shown, file=shown)
        notes = [f for f in by_path.get(path, []) if f.severity < fail_on]
        if notes:
            output = ET.SubElement(case, "system-out")
            output.text = "\n".join(format_finding(f, colour=False) for f in notes)
        for finding in (f for f in by_path.get(path, []) if f.severity >= fail_on):
            failure = ET.SubElement(
                case,
                "failure",
                type=f"{finding.rule} {finding.name}",
                message=f"{finding.rule}: {printable(finding.text)}",
            )
            failure.text = format_finding(finding, colour=False)
    suites.set("tests", suite.get("tests", "0"))
    suites.set("failures", suite.get("failures", "0"))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
