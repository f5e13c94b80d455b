"""Output formats are found in one registry (report/formats.py): a new format is its
own module and one line there, and the command line learns of it from that line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from k8slb.core.results import RunResult
from k8slb.interface.cli import cli
from k8slb.report.formats import FORMATS, formatter
from k8slb.report.formatter import Formatter, RenderOptions

from .helpers import FIXTURES


class ToyFormatter(Formatter):
    """A format a test adds: one line per finding, rule and line number."""

    name = "toy"

    def render(self, result: RunResult, options: RenderOptions) -> str:
        return "".join(f"{f.rule}@{f.line}\n" for f in result.findings)


def test_a_new_format_is_its_module_and_one_registry_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(FORMATS, "toy", f"{__name__}:ToyFormatter")
    demo = str(FIXTURES / "demo" / "bad")
    ran = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "toy", demo])
    assert ran.exit_code == 1, ran.output
    lines = ran.stdout.splitlines()
    assert lines and all(line.startswith("KLB") and "@" in line for line in lines)
    # what the toy does not support is refused by the flags it leaves unset
    refused = CliRunner().invoke(cli, ["check", "--format", "toy", "--statistics", demo])
    assert refused.exit_code == 2 and "not --format toy" in refused.output


def test_an_unregistered_format_is_a_usage_error_naming_the_choices() -> None:
    ran = CliRunner().invoke(cli, ["check", "--format", "toy", str(FIXTURES / "demo")])
    assert ran.exit_code == 2 and "'toy' is not one of 'text', 'full'" in ran.output


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_registered_format_renders_an_empty_run(name: str) -> None:
    made = formatter(name)
    assert made.name == name
    assert isinstance(made.render(RunResult(), RenderOptions()), str)
