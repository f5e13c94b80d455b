"""The command line: `k8slb check`, `k8slb fix`, `k8slb rules`, `k8slb explain`, `k8slb server`,
`k8slb lsp` (their options are in cli_options.py, what they do in api.py: here, what they print
and how they exit)."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click
from k8slb import __version__
from k8slb.core.choices import DEFAULT_BASELINE, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from k8slb.core.internal import debugging, internal_error
from k8slb.interface.cli_options import (
    NO_CACHE,
    NOQA_STYLES,
    TABLE_OR_JSON,
    FormatName,
    common_options,
    formats_that,
    use_colour,
)
from k8slb.interface.server import DEFAULT_IDLE_MINUTES
from k8slb.report.formats import formatter
from k8slb.report.printable import printable

if TYPE_CHECKING:  # the rest is imported by the command that needs it: `--help` is quick
    from typing import IO

    from k8slb.core.findings import Finding
    from k8slb.core.results import RunResult
    from k8slb.fixing.fixer import FixOutcome
    from k8slb.interface.api import Run
    from k8slb.report.formatter import Formatter, RenderOptions
    from k8slb.run.cache import Cache


def _fail(message: str) -> None:
    click.echo(f"k8slb: error: {printable(message)}", err=True)


class Failed(click.ClickException):
    """A command that cannot do what it was asked: said as k8slb says an error, exit 2.
    Click shows it and exits (in a process of its own, a served run, a test's runner)."""

    exit_code = EXIT_ERROR

    def show(self, file: IO[Any] | None = None) -> None:
        _fail(self.message)


def _finish(errors: Sequence[str], code: int) -> NoReturn:
    """The end of a command that ran: its errors said, and the exit code the README states
    (2 when anything could not be read or written, else what the command's result says)."""
    for message in errors:
        _fail(message)
    sys.exit(EXIT_ERROR if errors else code)


def make_run(*, remember_walks: bool = False, **options: Any) -> Run:
    """The run the options plan (api.plan), its problems said as a command line says them:
    a configuration that cannot be read exits 2, options that mean nothing are a usage
    error. `remember_walks`: the walk of the tree kept in the cache (a run that uses it)."""
    from k8slb.interface import api

    try:
        asked = api.Options(**{name: v for name, v in options.items() if name != "paths"})
        return api.plan(
            options["paths"], asked, note=_note, warn=_warn, remember_walks=remember_walks
        )
    except api.ConfigError as error:
        raise Failed(str(error)) from None
    except api.UsageError as error:
        raise click.UsageError(str(error)) from None


def _warn(message: str) -> None:
    """What the run should be told whatever the options: said on stderr, as errors are."""
    click.echo(f"k8slb: warning: {printable(message)}", err=True)


def _note(message: str) -> None:
    """What `-v` tells: the configuration used, the cache, the files not read."""
    if debugging():
        click.echo(f"k8slb: {printable(message)}", err=True)


def _yaml_builder() -> str:
    """Which YAML builder this install has: the C one is compiled at install where a C
    compiler is, which pip does not say (it shows a build's output only when it fails)."""
    import importlib.util

    if importlib.util.find_spec("k8slb.reading._yamltree") is not None:
        return "YAML read in C"
    return "YAML read in Python: no C compiler at install, about three times slower"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, prog_name="k8slb", message=f"%(prog)s, version %(version)s ({_yaml_builder()})"
)
def cli() -> None:
    """Find where traffic will not spread over your pods, or will be dropped on rollout."""


def _cache_for(job: Run, *, no_cache: bool) -> Cache | None:
    """The project's cache, unless asked for none or the text comes from stdin."""
    from k8slb.run.cache import Cache

    cache = (
        None
        if no_cache or _from_stdin(job)
        else Cache(job.cache_root, background=_background_cache)
    )
    _note(f"cache: {cache.folder if cache is not None else 'not used'}")
    return cache


def _from_stdin(job: Run) -> bool:
    return any(s.location is None for s in job.found.sources)


# The files `check` reads, as its help and the warning on a folder with none say: the code's
# languages are the titles of languages/__init__.py's table, in its order (a test holds them;
# the table is not imported here, so that `--help` stays quick).
CODE_READ = "Python, Go, JavaScript, TypeScript, Java, Kotlin, Spring Boot settings"
READ = f"YAML manifests, Helm charts, kustomizations; {CODE_READ}"


@cli.command(
    help=f"Lint the files under PATHS ({READ}; default: the current folder; `-` reads a YAML "
    "stream from stdin)."
)
@common_options
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=FormatName(),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Processes that parse files, and make SARIF's fixes "
    "[default: all cores; one for small trees].",
)
@NO_CACHE
@click.option("--show-suppressed", is_flag=True, help="Also show suppressed findings.")
@click.option(
    "--show-links",
    is_flag=True,
    help="Also print which code runs in which container, and why (as `k8slb explain-links`).",
)
@click.option("--statistics", is_flag=True, help="Count the findings per rule.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else.")
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"Report only findings not in this baseline [default: {DEFAULT_BASELINE} of the "
    "project, when it exists; `baseline` in the configuration].",
)
@click.option(
    "--write-baseline",
    is_flag=True,
    help="Record today's findings as the baseline (in the --baseline file); a flag, not an "
    "option with a value, so it never swallows a path.",
)
@click.option(
    "--fix",
    "then_fix",
    is_flag=True,
    help="Fix what can be fixed safely, then report the rest: `k8slb fix` (ruff's check --fix).",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Silence every finding reported now where it is (see --noqa-style); a flag, so "
    "`--add-noqa .` never takes the path for a value.",
)
@click.option(
    "--noqa-style",
    type=click.Choice(NOQA_STYLES),
    default="comment",
    show_default=True,
    help="What --add-noqa writes: a `# k8slb: ignore[ID]` comment on the finding's line, or "
    "the k8slb.io/ignore annotation on its object (findings in code always get a comment).",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report there; print a one-line summary instead.",
)
def check(
    output_format: str,
    jobs: int | None,
    no_cache: bool,
    show_suppressed: bool,
    show_links: bool,
    statistics: bool,
    quiet: bool,
    output_file: Path | None,
    baseline_file: Path | None,
    write_baseline: bool,
    then_fix: bool,
    add_noqa: bool,
    noqa_style: str,
    **options: Any,
) -> None:
    from k8slb.core.parallel import default_jobs
    from k8slb.interface import api
    from k8slb.report.formatter import RenderOptions

    _refuse_two_writers(then_fix=then_fix, add_noqa=add_noqa, write_baseline=write_baseline)
    chosen_format = formatter(output_format)
    if add_noqa and (not chosen_format.for_people or output_file):
        raise click.UsageError("--add-noqa edits files: no --format or -o")
    if then_fix:  # one hook or one command that fixes and reports, as `ruff check --fix`
        if not chosen_format.for_people or output_file or statistics or show_suppressed:
            raise click.UsageError("--fix reports as `k8slb fix` does: in text, on the terminal")
        click.get_current_context().invoke(
            fix,
            diff=False,
            unsafe_fixes=False,
            show_fixes=False,
            quiet=quiet,
            exit_non_zero_on_fix=False,
            jobs=jobs,
            no_cache=no_cache,
            **options,
        )
    _refuse_what_the_format_omits(
        chosen_format,
        output_format,
        statistics=statistics,
        show_links=show_links,
        show_suppressed=show_suppressed,
    )
    # the walk of the tree is remembered unless the cache is refused
    job = make_run(remember_walks=not no_cache, **options)
    # a bar only for text read by a person: never for a machine format, nor with -q
    watched = chosen_format.for_people and not quiet and not statistics
    result = _checked(job, jobs=jobs, no_cache=no_cache, watched=watched)
    chosen = baseline_file or job.baseline
    if write_baseline:
        _write_baseline(chosen or Path(DEFAULT_BASELINE), result)
    if chosen is not None and (baseline_file is not None or chosen.is_file()):
        api.apply_baseline(result, chosen, report_unused=job.settings.report_unused_ignores)
    if add_noqa:
        if _from_stdin(job):
            raise click.UsageError("--add-noqa edits files: it cannot edit stdin")
        _add_noqa(result, job, noqa_style)
    shown = RenderOptions(
        colour=use_colour() and output_file is None,
        to_terminal=output_file is None,
        show_suppressed=show_suppressed,
        statistics=statistics,
        quiet=quiet,
        fail_on=job.fail_on,
        jobs=jobs or default_jobs(),
    )
    _print_report(result, chosen_format, shown, show_links=show_links, output_file=output_file)
    if not result.files and not result.errors and not _from_stdin(job):
        # as ruff does: an empty folder, or a path k8slb reads nothing in, is not a pass
        named = ", ".join(str(p) for p in options.get("paths") or ()) or "."
        _warn(f"no file k8slb reads under {named} ({READ})")
    _finish(result.errors, job.exit_code(result))


def _refuse_two_writers(*, then_fix: bool, add_noqa: bool, write_baseline: bool) -> None:
    """`check`'s options that write files, refused together before anything is written:
    never half-done."""
    writers = [
        name
        for name, given in (
            ("--fix", then_fix),
            ("--add-noqa", add_noqa),
            ("--write-baseline", write_baseline),
        )
        if given
    ]
    if len(writers) > 1:
        raise click.UsageError(f"{' and '.join(writers)} each write files: give one at a time")


def _refuse_what_the_format_omits(
    chosen_format: Formatter,
    output_format: str,
    *,
    statistics: bool,
    show_links: bool,
    show_suppressed: bool,
) -> None:
    """A usage error for an option that asks for what the chosen format does not print."""
    if statistics and not chosen_format.statistics:
        raise click.UsageError(
            f"--statistics prints {formats_that('statistics', 'or')}, not --format {output_format}"
        )
    if show_links and not chosen_format.for_people:
        raise click.UsageError("--show-links prints text; `k8slb explain-links --format json`")
    if show_suppressed and not chosen_format.suppressed:
        raise click.UsageError(
            f"--show-suppressed works with --format {formats_that('suppressed', 'and')}, "
            f"not {output_format}"
        )


def _checked(job: Run, *, jobs: int | None, no_cache: bool, watched: bool) -> RunResult:
    """The run checked (api.check) with its cache, a progress bar when a person watches,
    and its warnings said."""
    from k8slb.core.progress import QUIET, Progress
    from k8slb.interface import api

    cache = _cache_for(job, no_cache=no_cache)
    for source in job.found.sources:
        if source.unread is not None:
            _note(f"not read: {source.path}: {source.unread}")
    progress = Progress.for_terminal() if watched else QUIET
    try:
        result = api.check(job, jobs=jobs, cache=cache, progress=progress)
    finally:
        progress.close()
    for warning in result.warnings:
        _warn(warning)
    return result


def _write_baseline(target: Path, result: RunResult) -> NoReturn:
    """`--write-baseline`: today's findings recorded in `target`, said, and the exit."""
    from k8slb.report import baseline as baselines

    try:
        count = baselines.write(target, result.findings, result.contents)
    except OSError as error:
        raise Failed(f"{target}: cannot write the baseline: {error.strerror or error}") from None
    click.echo(
        f"Wrote {count} finding{'s' * (count != 1)} to {target}; "
        "`k8slb check` now reports only the others."
    )
    _finish(result.errors, EXIT_CLEAN)


def _print_report(
    result: RunResult,
    chosen_format: Formatter,
    shown: RenderOptions,
    *,
    show_links: bool,
    output_file: Path | None,
) -> None:
    """The report on the terminal, or in `output_file` with a short summary on the
    terminal (a report that cannot be written is one of the run's errors)."""
    from k8slb.report import text as text_report

    if output_file is None and not show_links:  # written as it is made
        chosen_format.write(
            result, shown, lambda part: click.echo(part, nl=False, color=shown.colour)
        )
        return
    output = chosen_format.render(result, shown)
    if show_links:
        from k8slb.report.links import links_text

        output += "\n" + links_text(result.links)
    if output_file is None:
        click.echo(output, nl=False, color=shown.colour)
        return
    problem = _write_report(output_file, output)
    if problem is not None:
        result.errors.append(f"{output_file}: cannot write the report: {problem}")
    elif not shown.quiet:
        click.echo(f"{text_report.summary(result)}\nReport written to {output_file}.")


def _add_noqa(result: RunResult, job: Run, style: str) -> NoReturn:
    """Write the suppressions (api.add_noqa) and say so; the exit: 0 when every finding is
    silenced now, 1 when some could not be, 2 when a file could not be written or read."""
    from k8slb.interface import api

    added = api.add_noqa(result, job, style)
    for refusal in added.refused:
        _fail(f"not silenced: {printable(refusal)}")
    silenced, files = added.comments + added.annotations, added.files
    how = [
        f"{n} by {what}"
        for n, what in ((added.comments, "comment"), (added.annotations, "annotation"))
        if n
    ]
    click.echo(
        f"Silenced {silenced} finding{'s' * (silenced != 1)} in {files} file{'s' * (files != 1)}"
        + (f" ({', '.join(how)})." if how else ".")
    )
    _finish(result.errors, EXIT_FINDINGS if added.refused else EXIT_CLEAN)


def _write_report(path: Path, text: str) -> str | None:
    """Write the report whole or not at all; why it could not be written."""
    from k8slb.report.output_file import write_whole

    try:
        write_whole(path, text)
    except OSError as error:
        return error.strerror or str(error)
    return None


@cli.command()
@common_options
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Processes that parse and edit files [default: all cores; one for small trees].",
)
@NO_CACHE
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply the fixes that need review.")
@click.option("--show-fixes", is_flag=True, help="List every fix made, with what it changed.")
@click.option(
    "-q", "--quiet", is_flag=True, help="Print nothing but errors (and --show-fixes' list)."
)
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when a file was fixed, even if nothing remains (a pre-commit convention).",
)
def fix(
    diff: bool,
    unsafe_fixes: bool,
    show_fixes: bool,
    quiet: bool,
    exit_non_zero_on_fix: bool,
    jobs: int | None,
    no_cache: bool,
    **options: Any,
) -> None:
    """Apply the fixes of the findings under PATHS, in place (`-`: fix stdin to stdout)."""
    from k8slb.fixing.diff import unified_diff
    from k8slb.interface import api
    from k8slb.report.formatter import RenderOptions

    job = make_run(**options)
    cache = _cache_for(job, no_cache=no_cache)
    outcome = api.fix(job, unsafe=unsafe_fixes, jobs=jobs, cache=cache)
    for warning in outcome.result.warnings:
        _warn(warning)
    for refusal in outcome.refused:
        click.echo(f"k8slb: not fixed: {printable(refusal)}", err=True)
    stdin = next((s for s in job.found.sources if s.location is None), None)
    if stdin is not None:  # the fixed stream goes to stdout, everything else to stderr
        fixed = outcome.fixed_text.get(stdin.path, outcome.original.get(stdin.path, b""))
        if diff:
            click.echo(unified_diff(stdin.path, outcome.original[stdin.path], fixed), nl=False)
        else:
            sys.stdout.buffer.write(fixed)
    unwritten, refusals = _show_or_write_fixes(job, outcome, diff=diff)
    not_written = sum(1 for f in outcome.fixed if any(e.path in unwritten for e in f.edits))
    if unwritten:  # what is reported is the files as they are on disk, not the text refused
        outcome = api.fix_as_written(
            job, outcome, unwritten, unsafe=unsafe_fixes, jobs=jobs, cache=cache
        )
    result = outcome.result
    errors = [*job.found.errors, *result.errors, *refusals]
    report = sys.stderr if (diff or stdin is not None) else sys.stdout
    done = [f for f in outcome.fixed if not any(e.path in unwritten for e in f.edits)]
    if not quiet and not diff:
        listed = RenderOptions(colour=use_colour(), to_terminal=True, quiet=True)
        listing = formatter("text").render(result, listed).splitlines()
        for line in listing:
            click.echo(line, file=report, color=True)
    if show_fixes and done:  # also with -q: what a pre-commit fix hook should say, and only that
        _list_fixes(done, report)
    if not quiet:
        summary = _fix_summary(
            outcome, done, diff=diff, unsafe=unsafe_fixes, not_written=not_written
        )
        click.echo(summary, file=report)
    if diff:
        code = EXIT_FINDINGS if outcome.fixed_text and not job.exit_zero else EXIT_CLEAN
    elif exit_non_zero_on_fix and (set(outcome.fixed_text) - unwritten):
        code = EXIT_FINDINGS
    else:
        code = job.exit_code(result)
    _finish(errors, code)


def _show_or_write_fixes(
    job: Run, outcome: FixOutcome, *, diff: bool
) -> tuple[set[str], list[str]]:
    """Each file the fixes changed (stdin aside) shown as a diff, or written, all together;
    the sources not written, and why each file was not."""
    from k8slb.editing.chart_fix import chart_changes
    from k8slb.fixing.diff import unified_diff
    from k8slb.fixing.write import write_all
    from k8slb.inputs import reader_of

    by_path = {s.path: s for s in job.found.sources}
    writes: list[tuple[str, str, Path, bytes, bytes]] = []  # written together, below
    for path, new in sorted(outcome.fixed_text.items()):
        source = by_path[path]
        if source.location is None:
            continue
        # A chart is its files: each one its fixes changed is shown, or written, alone.
        reader = reader_of(source.language)
        changes = (
            chart_changes(source.path, outcome.original[path], new)
            if reader is not None and reader.packs_folder
            else [(path, Path(source.location), outcome.original[path], new)]
        )
        for shown, location, old, changed in changes:
            if diff:
                click.echo(unified_diff(shown, old, changed), nl=False)
            else:
                writes.append((path, shown, location, old, changed))
    problems = write_all([(location, old, new) for _, _, location, old, new in writes])
    unwritten: set[str] = set()
    refusals: list[str] = []
    for path, shown, location, _, _ in writes:
        if location in problems:
            refusals.append(f"{shown}: not written: {problems[location]}")
            unwritten.add(path)
    return unwritten, refusals


def _list_fixes(done: Sequence[Finding], report: TextIO) -> None:
    """`--show-fixes`: each fix made, where and what it changed."""
    # a heading, not an indented first line: pre-commit strips a hook's output
    click.echo("Fixes made:", file=report)
    for finding in done:
        where = f"{printable(finding.path)}:{finding.line}:{finding.column}"
        described = finding.fix.description or "fixed"
        click.echo(f"  {where}: {finding.rule} {printable(described)}", file=report)


# The fixes whose finding remains that the summary names (their findings are listed above it).
NAMED_PARTIAL_FIXES = 3

# What the edits a fix makes beside its main one change, for the summary.
_COMPANIONS = {
    "set-grace": "terminationGracePeriodSeconds raised",
    "add-twin": "headless twin Service added",
    "add-options": "channel options added",
    "set-scalar": "env value changed",
    "set-key": "field set",
    "set-argument": "channel target changed",
    "add-argument": "Go call options added",
    "add-fields": "Go struct fields added",
}


def _fix_summary(
    outcome: FixOutcome,
    done: Sequence[Finding],
    *,
    diff: bool,
    unsafe: bool,
    not_written: int = 0,
) -> str:
    """What was fixed (and every companion edit made with it), how many fixes were not
    written, and what remains (`outcome.result`: the files as they are now)."""
    counts = Counter(f.rule for f in done)
    rules = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(counts.items()))
    companions = Counter(  # a chart's second file is the same fix, not a companion
        _COMPANIONS.get(edit.op, edit.op)
        for finding in done
        for edit in finding.edits[1:]
        if edit.op != "template"
    )
    if companions:
        rules += "; with them: " + ", ".join(
            f"{what} ×{n}" if n > 1 else what for what, n in sorted(companions.items())
        )
    from k8slb.core.edits import ChartEdit

    # a chart's edits are each a file of the chart (a template and values.yaml: two)
    files = len(
        {
            os.path.join(e.path, e.member) if isinstance(e, ChartEdit) else e.path
            for f in done
            for e in f.edits
        }
    )
    verb = "Would fix" if diff else "Fixed"
    if done:
        text = f"{verb} {len(done)} finding{'s' * (len(done) != 1)} ({rules})"
        text += f" in {files} file{'s' * (files != 1)}"
    else:
        tried = outcome.fixed or outcome.refused or not_written
        text = "Nothing fixed" if tried else "Nothing to fix"
    partial = outcome.partial
    if partial:
        named = ", ".join(
            f"{f.rule}: {f.fix.description}" if f.fix.description else f.rule
            for f in partial[:NAMED_PARTIAL_FIXES]
        )
        if len(partial) > NAMED_PARTIAL_FIXES:  # one line, however large the tree
            named += f" and {len(partial) - NAMED_PARTIAL_FIXES} more"
        made = "would also make" if diff else "also made"
        fixes = f"{len(partial)} fix{'es' * (len(partial) != 1)}"
        text += f"; {made} {fixes} whose finding remains ({named})"
    if outcome.replaced:
        moved = ", ".join(f"{old.rule} is now {new.rule}" for old, new in outcome.replaced)
        text += f"; not fixed but moved: {moved} (see below)"
    if not_written:
        text += f"; {not_written} fix{'es' * (not_written != 1)} not written (see below)"
    remaining = len(outcome.result.findings)
    text += f"; {remaining} finding{'s' * (remaining != 1)} remain{'s' * (remaining == 1)}"
    from k8slb.fixing.fixer import still_said

    lowered = Counter(f.severity.label for f in still_said(done, outcome.result.findings))
    if lowered:  # why fixed and remaining add up to more than there were
        count, levels = sum(lowered.values()), " or ".join(sorted(lowered))
        fixed_ones = "a fixed finding" if count == 1 else "fixed findings"
        text += f", {count} of them {fixed_ones} now at {levels}"
    if outcome.unsafe_left and not unsafe:
        hidden = outcome.unsafe_left
        text += f" ({hidden} hidden fix{'es' * (hidden != 1)} can be enabled with --unsafe-fixes)"
    return text + "."


@cli.command("rules")
@TABLE_OR_JSON
def rules_command(output_format: str) -> None:
    """List every rule: id, name, severity, fix, summary."""
    from k8slb.rules import ALL_RULES

    if output_format == "json":
        data = [
            {
                "id": r.id,
                "name": r.name,
                "severity": r.severity.label,
                "fix": {"available": r.fix.available, "safe": r.fix.safe},
                "summary": r.summary(),
            }
            for r in ALL_RULES
        ]
        click.echo(json.dumps(data, indent=2))
        return
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


@cli.command("explain-links")
@common_options
@TABLE_OR_JSON
@NO_CACHE
def explain_links(output_format: str, no_cache: bool, **options: Any) -> None:
    """Show which code runs in which container under PATHS, and the evidence for it
    (strongest first; what it overrules too). No rule is run."""
    from dataclasses import replace

    from k8slb.report.links import links_json, links_text
    from k8slb.run import engine

    job = make_run(**options)
    cache = _cache_for(job, no_cache=no_cache)  # the parses a check left: no file parsed again
    result = engine.run(job.found.sources, replace(job.settings, rules=()), cache=cache)
    errors = [*job.found.errors, *result.errors]
    for warning in result.warnings:
        _warn(warning)
    click.echo((links_json if output_format == "json" else links_text)(result.links), nl=False)
    _finish(errors, EXIT_CLEAN)


@cli.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Explain a rule in full: what it detects, why it matters, how to fix it."""
    from k8slb.report.docs import rule_markdown
    from k8slb.run.selection import find_rule, suggestion

    found = find_rule(rule)
    if found is None:
        raise Failed(f"no rule {rule!r}{suggestion(rule)}; `k8slb rules` lists them")
    click.echo(rule_markdown(found), nl=False)


@cli.command("lsp")
@click.option(
    "--stdio", is_flag=True, help="Talk over stdin and stdout (the only way; editors pass it)."
)
def lsp_command(stdio: bool) -> None:
    """Serve an editor: findings as you type, fixes as code actions (the Language Server
    Protocol over stdio; needs `pip install 'k8slb[lsp]'`)."""
    try:
        from k8slb.interface.lsp.server import serve
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in LSP_PACKAGES:
            raise
        raise Failed(
            f"`k8slb lsp` needs the lsp extra ({error.name} is not installed): "
            "pip install 'k8slb[lsp]'"
        ) from None
    serve()


LSP_PACKAGES = frozenset({"pygls", "lsprotocol"})  # what the `lsp` extra installs


@cli.group("server")
def server_group() -> None:
    """Keep k8slb loaded between runs: each run (a pre-commit hook's above all) skips its
    start-up. While a server runs, every `k8slb` command of yours is made by it."""


@server_group.command("start")
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0),
    default=DEFAULT_IDLE_MINUTES,
    show_default=True,
    metavar="MINUTES",
    help="Stop after this long without a run (0: never).",
)
def server_start(idle_timeout: float) -> None:
    """Start the server (unless one runs)."""
    from k8slb.interface import server

    if not _background_cache:  # a fork of an embedding program would serve it, not k8slb
        raise Failed("`server start` runs only as the k8slb command")
    try:
        status = server.start(idle_timeout, served_run)
    except server.ServerError as error:
        raise Failed(str(error)) from None
    said = "already running" if status.get("already") else "started"
    minutes = float(status.get("idle_timeout_minutes", 0))
    until = f"after {minutes:g} minutes without a run" if minutes else "only when asked"
    click.echo(
        f"k8slb server {said} (pid {status.get('pid')}): your k8slb runs go through it; it "
        f"stops {until}, or on `k8slb server stop`."
    )


@server_group.command("stop")
def server_stop() -> None:
    """Stop the server, if one runs."""
    from k8slb.interface import server

    stopped = server.ask("stop")
    click.echo(
        f"k8slb server stopped (pid {stopped.get('pid')})."
        if stopped is not None
        else "No k8slb server was running."
    )


@server_group.command("status")
def server_status() -> None:
    """Say whether a server runs (exit 0) or not (exit 1), and what it has done."""
    import time

    from k8slb.interface import server

    status = server.ask("status")
    if status is None:
        click.echo("No k8slb server is running; `k8slb server start` starts one.")
        sys.exit(1)
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(status.get("started", 0))))
    store = status.get("store")
    held = (
        f"holding the parse store of {store.get('folder')} ({store.get('parses')} files)"
        if isinstance(store, dict)
        else "holding no parse store"
    )
    click.echo(
        f"k8slb server running (pid {status.get('pid')}) since {since}, at "
        f"{status.get('address')}; {held}; {status.get('runs')} runs made."
    )


# Set by run(), the command line as a process of its own: its cache may be written by a
# child after the report is out (Cache.save); an embedding caller's is written on return.
_background_cache = False


def main() -> None:
    _leave(run())


def run(args: Sequence[str] | None = None) -> int:
    """The command line as a process of its own (`args`, or the process's own arguments):
    its output written, its exit code returned. A served run (server.py) is one too."""
    # A run allocates many long-lived containers and frees them by reference counting;
    # the cyclic collector only re-scans them, over and over (it doubled the time of a
    # 2,000-service check). A CLI process is short: turn it off.
    global _background_cache
    gc.disable()
    _background_cache = True
    try:
        cli(args, prog_name="k8slb")
        code = 0
    except SystemExit as done:
        code = _exit_code(done.code)
    except Exception as error:  # a bug of k8slb's: exit 2, never "findings" (exit 1)
        _fail(internal_error("running k8slb", error))
        code = EXIT_ERROR
    _write_saved_caches()
    return code


def served_run(args: list[str]) -> int:
    """A run a k8slb server makes in a fork of itself: everything written when it returns."""
    code = run(args)
    flush_output()
    return code


def _write_saved_caches() -> None:
    """Have the caches the run saved written by a child, now that the run is done and
    its report out (cache.write_waiting); a run that used no cache never imported it."""
    cache = sys.modules.get("k8slb.run.cache")
    if cache is not None:
        flush_output()  # out before the child shares the streams' buffers
        cache.write_waiting()


def _exit_code(code: object) -> int:
    """What `sys.exit(code)` means as an exit status (a message is printed: exit 2)."""
    if code is not None and not isinstance(code, int):
        _fail(str(code))
        return EXIT_ERROR
    return code or 0


def _leave(code: int) -> NoReturn:
    """Exit once the output is flushed, skipping the interpreter's teardown: it would free
    every tree of the run one object at a time (some 40 ms after a large tree), for a
    process that ends anyway. Everything k8slb writes is written and closed by then."""
    flush_output()
    os._exit(code)


def flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to save
            stream.flush()
