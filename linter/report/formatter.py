"""The output formats of `k8slb check --format`: a `Formatter` each, found by name in
`FORMATS`. A new format is a module with a Formatter subclass and one line in `FORMATS`;
the command line reads the names, and what each format supports, from here.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from k8slb.core.findings import Severity

if TYPE_CHECKING:  # the command line reads FORMATS as it starts, long before a result
    from k8slb.engine import RunResult

# Name -> "module:Class". A module is imported only when its format is asked for: a
# pre-commit run that prints text never loads SARIF's rule catalogue.
FORMATS: dict[str, str] = {
    "text": "k8slb.report.text:TextFormatter",
    "full": "k8slb.report.text:FullFormatter",
    "concise": "k8slb.report.text:ConciseFormatter",
    "json": "k8slb.report.json:JsonFormatter",
    "sarif": "k8slb.report.sarif:SarifFormatter",
    "github": "k8slb.report.github:GithubFormatter",
    "junit": "k8slb.report.junit:JunitFormatter",
    "markdown": "k8slb.report.markdown:MarkdownFormatter",
}


@dataclass(frozen=True)
class RenderOptions:
    """What the command line asks of a report, whatever its format."""

    colour: bool = False
    to_terminal: bool = False  # printed where a person reads it (not -o, not a pipe)
    show_suppressed: bool = False
    statistics: bool = False
    quiet: bool = False
    fail_on: Severity = Severity.WARNING
    jobs: int = 1  # processes that may share the work (SARIF makes each fix)


class Formatter(ABC):
    name: ClassVar[str]
    # Text a person reads: it may come with a progress bar, `--show-links`, and the runs
    # that edit files (`--fix`, `--add-noqa`), which report in it.
    for_people: ClassVar[bool] = False
    statistics: ClassVar[bool] = False  # renders `--statistics`
    suppressed: ClassVar[bool] = False  # renders `--show-suppressed`

    @abstractmethod
    def render(self, result: RunResult, options: RenderOptions) -> str:
        """The whole report."""


def formatter(name: str) -> Formatter:
    """The formatter registered under `name` (a KeyError for a name not in FORMATS)."""
    module, _, attribute = FORMATS[name].partition(":")
    made: Formatter = getattr(importlib.import_module(module), attribute)()
    return made
