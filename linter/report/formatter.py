"""What an output format of `k8slb check --format` is: a `Formatter`, which renders a run's
result with the `RenderOptions` the command line asks for. The formats are found by name
in report/formats.py."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from k8slb.core.findings import Severity
from k8slb.core.results import RunResult


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

    def write(self, result: RunResult, options: RenderOptions, out: Callable[[str], None]) -> None:
        """The report, given to `out` in parts as it is made (the same text as `render`): a
        format whose report is large writes it without holding it whole."""
        out(self.render(result, options))
