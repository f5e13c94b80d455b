"""The command line: `k8slb check`, `k8slb fix`, `k8slb rules`, `k8slb explain`."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

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
from k8slb.sources import Discovery, discover

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json")
F = TypeVar("F", bound=Callable[..., Any])


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


@dataclass(frozen=True)
class Run:
    """What `check` and `fix` share: the sources and the settings."""

    found: Discovery
    settings: Settings
    fail_on: Severity

    def exit_code(self, result: RunResult) -> int:
        if result.errors:
            return EXIT_ERROR
        failing = any(f.severity >= self.fail_on for f in result.findings)
        return EXIT_FINDINGS if failing else EXIT_CLEAN


def common_options(command: F) -> F:
    """The options of `check` and `fix`, and the `Run` they make."""
    options = [
        click.argument("paths", nargs=-1, type=str),
        click.option(
            "--select",
            multiple=True,
            metavar="CODES",
            help="Rules to run: ids, id prefixes or names, comma-separated (default: all).",
        ),
        click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to run."),
        click.option(
            "--fail-on",
            type=click.Choice(["error", "warning", "info"]),
            default="warning",
            show_default=True,
            help="Exit 1 when a finding is at or above this severity.",
        ),
        click.option(
            "--kubernetes-version",
            default="1.30",
            show_default=True,
            callback=_kubernetes_version,
            help="The cluster's Kubernetes version (decides the fixes too).",
        ),
        click.option(
            "--mesh",
            type=click.Choice(MESHES),
            default="none",
            show_default=True,
            help="A service mesh that every workload is in (otherwise read from manifests).",
        ),
        click.option(
            "--stdin-filename", metavar="NAME", help="The name to report for input read from `-`."
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def make_run(
    paths: Sequence[str],
    select: Sequence[str],
    ignore: Sequence[str],
    fail_on: str,
    kubernetes_version: tuple[int, int],
    mesh: str,
    stdin_filename: str | None,
) -> Run:
    try:
        rules = select_rules(split_codes(select), split_codes(ignore))
    except SelectionError as error:
        raise click.UsageError(str(error)) from None
    settings = Settings(rules=rules, kubernetes_version=kubernetes_version, mesh=mesh)
    return Run(discover(paths or ["."], stdin_filename), settings, Severity.parse(fail_on))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="k8slb")
def cli() -> None:
    """Find where traffic will not spread over your pods, or will be dropped on rollout."""


@cli.command()
@common_options
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
def check(output_format: str, **options: Any) -> None:
    """Lint manifests and Python code under PATHS (default: the current folder; `-` reads
    a YAML stream from stdin)."""
    job = make_run(**options)
    result = run(job.found.sources, job.settings)
    result.errors[:0] = job.found.errors
    if output_format == "json":
        click.echo(json_report.render(result), nl=False)
    else:
        click.echo(text_report.render(result, colour=_use_colour()), nl=False, color=True)
    for message in result.errors:
        _fail(message)
    sys.exit(job.exit_code(result))


@cli.command()
@common_options
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply the fixes that need review.")
def fix(diff: bool, unsafe_fixes: bool, **options: Any) -> None:
    """Apply the fixes of the findings under PATHS, in place (`-`: fix stdin to stdout)."""
    from k8slb.fixing.fixer import plan
    from k8slb.fixing.write import unified_diff, write_atomically

    job = make_run(**options)
    outcome = plan(job.found.sources, job.settings, unsafe=unsafe_fixes)
    result = outcome.result
    errors = list(job.found.errors) + list(result.errors)
    for refusal in outcome.refused:
        click.echo(f"k8slb: not fixed: {refusal}", err=True)
    stdin = next((s for s in job.found.sources if s.location is None), None)
    if stdin is not None:  # the fixed stream goes to stdout, everything else to stderr
        fixed = outcome.fixed_text.get(stdin.path, outcome.original.get(stdin.path, b""))
        if diff:
            click.echo(unified_diff(stdin.path, outcome.original[stdin.path], fixed), nl=False)
        else:
            sys.stdout.buffer.write(fixed)
    for path, new in sorted(outcome.fixed_text.items()):
        source = next(s for s in job.found.sources if s.path == path)
        if source.location is None:
            continue
        if diff:
            click.echo(unified_diff(path, outcome.original[path], new), nl=False)
            continue
        problem = write_atomically(Path(source.location), outcome.original[path], new)
        if problem is not None:
            errors.append(f"{path}: not written: {problem}")
    report = sys.stderr if (diff or stdin is not None) else sys.stdout
    if not diff:
        listing = text_report.render(result, colour=_use_colour()).splitlines()[:-1]
        for line in listing:
            click.echo(line, file=report, color=True)
    click.echo(_fix_summary(outcome, diff=diff, unsafe=unsafe_fixes), file=report)
    for message in errors:
        _fail(message)
    if errors:
        sys.exit(EXIT_ERROR)
    if diff:
        sys.exit(EXIT_FINDINGS if outcome.fixed_text else EXIT_CLEAN)
    sys.exit(job.exit_code(result))


def _fix_summary(outcome: Any, *, diff: bool, unsafe: bool) -> str:
    counts = Counter(f.rule for f in outcome.fixed)
    rules = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(counts.items()))
    files = len(outcome.fixed_text)
    verb = "Would fix" if diff else "Fixed"
    if outcome.fixed:
        done = f"{verb} {len(outcome.fixed)} finding{'s' * (len(outcome.fixed) != 1)} ({rules})"
        done += f" in {files} file{'s' * (files != 1)}"
    else:
        done = "Nothing to fix"
    remaining = len(outcome.result.findings)
    done += f"; {remaining} finding{'s' * (remaining != 1)} remain{'s' * (remaining == 1)}"
    if outcome.unsafe_left and not unsafe:
        done += f" ({outcome.unsafe_left} fixable with --unsafe-fixes)"
    return done + "."


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
