"""The command line: `k8slb check`, `k8slb rules`, `k8slb explain`."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click
from k8slb import __version__
from k8slb.docs import rule_markdown
from k8slb.engine import RunResult, Settings, run
from k8slb.findings import Severity
from k8slb.index import MESHES
from k8slb.report import json as json_report
from k8slb.report import text as text_report
from k8slb.rules import ALL_RULES
from k8slb.selection import SelectionError, find_rule, select_rules, split_codes
from k8slb.sources import discover

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json")


def _use_colour() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _kubernetes_version(
    _ctx: click.Context, _param: click.Parameter, value: str
) -> tuple[int, int]:
    major, _, minor = value.removeprefix("v").partition(".")
    if not (major.isdigit() and minor.split(".")[0].isdigit()):
        raise click.BadParameter(f"{value!r} is not a version like 1.30")
    return int(major), int(minor.split(".")[0])


def _fail(message: str) -> None:
    click.echo(f"k8slb: error: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="k8slb")
def cli() -> None:
    """Find where traffic will not spread over your pods, or will be dropped on rollout."""


@cli.command()
@click.argument("paths", nargs=-1, type=str)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Rules to run: ids, id prefixes or names, comma-separated (default: all).",
)
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to run.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="warning",
    show_default=True,
    help="Exit 1 when a finding is at or above this severity.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--kubernetes-version",
    default="1.30",
    show_default=True,
    callback=_kubernetes_version,
    help="The cluster's Kubernetes version.",
)
@click.option(
    "--mesh",
    type=click.Choice(MESHES),
    default="none",
    show_default=True,
    help="A service mesh that every workload is in (otherwise read from manifests).",
)
@click.option(
    "--stdin-filename", metavar="NAME", help="The name to report for input read from `-`."
)
def check(
    paths: Sequence[str],
    select: Sequence[str],
    ignore: Sequence[str],
    fail_on: str,
    output_format: str,
    kubernetes_version: tuple[int, int],
    mesh: str,
    stdin_filename: str | None,
) -> None:
    """Lint manifests and Python code under PATHS (default: the current folder; `-` reads
    a YAML stream from stdin)."""
    try:
        rules = select_rules(split_codes(select), split_codes(ignore))
    except SelectionError as error:
        raise click.UsageError(str(error)) from None
    found = discover(paths or ["."], stdin_filename)
    settings = Settings(rules=rules, kubernetes_version=kubernetes_version, mesh=mesh)
    result = run(found.sources, settings)
    result.errors[:0] = found.errors
    _print(result, output_format)
    for message in result.errors:
        _fail(message)
    if result.errors:
        sys.exit(EXIT_ERROR)
    threshold = Severity.parse(fail_on)
    sys.exit(EXIT_FINDINGS if any(f.severity >= threshold for f in result.findings) else EXIT_CLEAN)


def _print(result: RunResult, output_format: str) -> None:
    if output_format == "json":
        click.echo(json_report.render(result), nl=False)
    else:
        click.echo(text_report.render(result, colour=_use_colour()), nl=False, color=True)


@cli.command("rules")
def rules_command() -> None:
    """List every rule: id, name, severity, fix, summary."""
    rows = [
        (
            r.id,
            r.name,
            r.severity.label,
            ("safe" if r.fix.safe else "unsafe") if r.fix.available else "-",
            r.summary(),
        )
        for r in ALL_RULES
    ]
    header = ("ID", "NAME", "SEVERITY", "FIX", "SUMMARY")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)]
        click.echo("  ".join([*cells, row[4]]))


@cli.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Explain a rule in full: what it detects, why it matters, how to fix it."""
    found = find_rule(rule)
    if found is None:
        _fail(f"no rule {rule!r}; `k8slb rules` lists them")
        sys.exit(EXIT_ERROR)
    click.echo(rule_markdown(found), nl=False)


def main() -> None:
    cli(prog_name="k8slb")
