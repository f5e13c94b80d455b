"""GitHub Actions workflow commands: one annotation per finding, shown on the diff."""

from __future__ import annotations

from k8slb.core.findings import Finding, Severity
from k8slb.core.results import RunResult
from k8slb.report.formatter import Formatter, RenderOptions
from k8slb.report.printable import printable

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    """A value as the runner's escaping wants it: `%`, CR and LF encoded, so a value can
    never end the command; other controls made visible."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = ",".join(
        [
            f"file={_property(finding.path)}",
            f"line={finding.line}",
            f"col={finding.column}",
            f"title={_property(f'{finding.rule} {finding.name}')}",
        ]
    )
    # the whole message: the headline, then each line below it (the annotation shows lines)
    message = "\n".join([finding.message, *finding.detail])
    return f"::{_COMMANDS[finding.severity]} {properties}::{_data(message)}"


def render(result: RunResult) -> str:
    return "".join(annotation(f) + "\n" for f in result.findings)


class GithubFormatter(Formatter):
    """GitHub Actions annotations, shown on the pull request's diff."""

    name = "github"

    def render(self, result: RunResult, options: RenderOptions) -> str:
        return render(result)
