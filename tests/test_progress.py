"""The progress bar: only for a person at a terminal, only once a run has lasted a second,
erased when done; never in pipes, CI logs or machine formats."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from k8slb.core import progress as progress_module
from k8slb.core.progress import Progress
from k8slb.interface.cli import cli

from .helpers import FIXTURES


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", fake)
    return fake


def test_nothing_is_drawn_in_the_first_second_then_the_bar_counts_and_is_erased(
    clock: Clock,
) -> None:
    stream = io.StringIO()
    bar = Progress(enabled=True, stream=stream)
    bar.stage("files parsed", 10)
    bar.advance(4)
    assert stream.getvalue() == "", "a quick run never flickers"
    clock.now += 1.5
    bar.advance()
    assert stream.getvalue().endswith(f"\r[{'#' * 15}{'-' * 15}] 5/10 files parsed\x1b[K")
    bar.advance()  # within a tenth of a second: not redrawn
    assert stream.getvalue().count("\r[") == 1
    clock.now += 0.2
    bar.stage("rules run", 3)  # a new stage is drawn at once
    assert stream.getvalue().endswith("0/3 rules run\x1b[K")
    bar.close()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_a_disabled_bar_writes_nothing(clock: Clock) -> None:
    stream = io.StringIO()
    bar = Progress(enabled=False, stream=stream)
    bar.stage("files parsed", 10)
    clock.now += 5
    bar.advance(10)
    bar.close()
    assert stream.getvalue() == ""


def test_only_a_terminal_outside_ci_gets_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("CI", raising=False)
    assert Progress.for_terminal().enabled
    monkeypatch.setenv("CI", "true")
    assert not Progress.for_terminal().enabled


def test_check_in_a_pipe_prints_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "DELAY", 0.0)  # as if every run were long
    done = CliRunner().invoke(cli, ["check", "--isolated", str(FIXTURES / "demo")])
    assert done.exit_code == 1
    assert "\r" not in done.output and "files parsed" not in done.output
