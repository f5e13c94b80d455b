"""JUnit XML, which GitLab, Jenkins and most CI systems show: a failing test case per
finding at or above `--fail-on` (they show one failure per test case), a passing one per
file with none; findings below it are not failures (the run passes) and are listed in the
output of the file's first test case."""

from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree as ET

from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.report.printable import printable
from k8slb.report.text import format_finding


def render(result: RunResult, fail_on: Severity = Severity.WARNING) -> str:
    by_path: defaultdict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        by_path[finding.path].append(finding)
    suites = ET.Element("testsuites", name="k8slb")
    suite = ET.SubElement(suites, "testsuite", name="k8slb", errors="0", skipped="0")
    tests = failures = 0
    for path in sorted(set(result.paths) | set(by_path)):
        # XML 1.0 cannot hold most control characters at all, not even as references.
        shown = printable(path)
        failing = [f for f in by_path.get(path, []) if f.severity >= fail_on]
        notes = [f for f in by_path.get(path, []) if f.severity < fail_on]
        cases = []
        for finding in failing:  # one test case each: CI systems show one failure per case
            name = f"{finding.rule} {finding.name} at {shown}:{finding.line}:{finding.column}"
            case = ET.SubElement(suite, "testcase", classname=shown, name=name, file=shown)
            case.set("line", str(finding.line))
            failure = ET.SubElement(
                case,
                "failure",
                type=f"{finding.rule} {finding.name}",
                message=f"{finding.rule}: {printable(finding.text)}",
            )
            failure.text = format_finding(finding, colour=False)
            cases.append(case)
        if not failing:  # the file passed
            cases.append(
                ET.SubElement(suite, "testcase", classname=shown, name="k8slb", file=shown)
            )
        if notes:
            output = ET.SubElement(cases[0], "system-out")
            output.text = "\n".join(format_finding(f, colour=False) for f in notes)
        tests += len(cases)
        failures += len(failing)
    for element in (suites, suite):
        element.set("tests", str(tests))
        element.set("failures", str(failures))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


class JunitFormatter(Formatter):
    """JUnit XML: a failing test case per finding at or above `--fail-on`."""

    name = "junit"

    def render(self, result: RunResult, options: RenderOptions) -> str:
        return render(result, options.fail_on)
