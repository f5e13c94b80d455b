"""k8slb as a library: the use cases the command line (cli.py) calls, and the tests too.

`plan(paths, options)` reads the configuration and finds the files (a `Run`); `check(run)`
lints them; `fix(run)` plans every fix in memory (nothing is written here); and
`apply_baseline` leaves out the findings a baseline holds. They raise `ConfigError` for a
configuration that cannot be read and `UsageError` for options that mean nothing; they
print nothing and never exit: saying and leaving are the command line's.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING

from k8slb.core.choices import (
    DEFAULT_BASELINE,
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    parse_version,
)
from k8slb.core.findings import Finding, Severity
from k8slb.core.parallel import default_jobs
from k8slb.core.progress import QUIET, Progress
from k8slb.core.record import record
from k8slb.core.results import RunResult
from k8slb.reading.charts import HelmOptions
from k8slb.reading.repository import inside, repository_of
from k8slb.reading.sources import STDIN, Discovery, Exclude, as_in_context, discover, with_context
from k8slb.report import baseline as baselines
from k8slb.rules.unused_suppression import UnusedSuppression
from k8slb.run.cache import Cache, ParseMemo
from k8slb.run.config import (
    Config,
    ConfigError,
    expiry_warnings,
    find_config,
    load_config,
    marked_project,
    project_root,
    shown_path,
)
from k8slb.run.engine import run as run_engine
from k8slb.run.incremental import after_edit
from k8slb.run.selection import SelectionError, select_rules, split_codes
from k8slb.run.settings import Settings

if TYPE_CHECKING:  # the fixer (ruamel's composer, libcst) is loaded by a fix alone
    from k8slb.fixing.fixer import FixOutcome

__all__ = [
    "ConfigError",
    "NoqaOutcome",
    "Options",
    "Run",
    "UsageError",
    "add_noqa",
    "apply_baseline",
    "check",
    "fix",
    "fix_as_written",
    "plan",
]


class UsageError(Exception):
    """Options that cannot be taken together or name nothing k8slb knows."""


@record
class Run:
    """What `check` and `fix` share: the sources and the settings."""

    found: Discovery
    settings: Settings
    fail_on: Severity
    cache_root: Path
    exit_zero: bool = False
    baseline: Path | None = None  # the configuration's, or the project's default file

    def exit_code(self, result: RunResult) -> int:
        if result.errors:
            return EXIT_ERROR
        failing = any(f.severity >= self.fail_on for f in result.findings)
        return EXIT_FINDINGS if failing and not self.exit_zero else EXIT_CLEAN


def _ignore(_: str) -> None:
    pass


@record
class Options:
    """What a run is asked for besides its paths: the command line's options, each over
    the configuration's (an empty or None one leaves the configuration's, else the default)."""

    # the rules run, and what fails the run
    select: Sequence[str] = ()
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    exit_zero: bool = False
    fail_on: str | None = None
    report_unused_ignores: bool = False
    # the cluster
    kubernetes_version: tuple[int, int] | None = None
    mesh: str | None = None
    # the configuration
    config_path: Path | None = None
    isolated: bool = False
    # the files read, and those read as context only
    stdin_filename: str | None = None
    context: Sequence[str] = ()
    project_context: bool = True
    kustomize: bool = False
    exclude: Sequence[str] = ()
    extend_exclude: Sequence[str] = ()
    force_exclude: bool = False
    # Helm's rendering
    helm_values: Sequence[str] = ()
    helm_set: Sequence[str] = ()
    helm_release: str | None = None
    helm_namespace: str | None = None
    helm_skip_schema_validation: bool = False


def plan(
    paths: Sequence[str],
    options: Options | None = None,
    *,
    note: Callable[[str], None] = _ignore,
    warn: Callable[[str], None] = _ignore,
    remember_walks: bool = False,
) -> Run:
    """The options over the configuration over the defaults, and the files they name.
    `note` hears what `-v` tells: the configuration used, the project context added;
    `warn` what is always told: an exemption that expires soon, today, or has expired.
    `remember_walks`: the walks of folders are kept in the project's cache, and taken
    back while the folders and .gitignore files they rest on are as then (a run that
    uses the cache: reading/walks.py)."""
    options = options or Options()
    start = _start(paths or ["."])
    config = _config(options.config_path, options.isolated, start, note)
    for warning in expiry_warnings(config, datetime.date.today()):
        warn(warning)
    settings = _settings(config, options)
    root = config.path.parent.resolve() if config.path else project_root(start)
    walks = Cache(root).walks_folder() if remember_walks else None
    found = _found(paths, config, options, note, walks)
    severity = Severity.parse(options.fail_on or config.fail_on or "warning")
    if config.baseline is None:
        _default_baseline_stays_in(root)
    baseline = Path(shown_path(config.baseline or root / DEFAULT_BASELINE))  # KLB005's path
    return Run(found, settings, severity, root, options.exit_zero, baseline)


def _settings(config: Config, options: Options) -> Settings:
    """The run's settings: the options over the configuration over the defaults."""
    try:
        chosen = split_codes(options.select) or config.select or []
        extra = split_codes(options.extend_select)
        if extra and chosen:  # with nothing chosen every rule runs already
            chosen = [*chosen, *extra]
        rules = select_rules(chosen, [*config.ignore, *split_codes(options.ignore)])
    except SelectionError as error:
        raise UsageError(str(error)) from None
    version = options.kubernetes_version or parse_version(config.kubernetes_version or "1.30")
    return Settings(
        rules=rules,
        kubernetes_version=version,
        mesh=options.mesh or config.mesh or "none",
        fix_values=config.fix,
        per_file_ignores=config.per_file_ignores,
        exemptions=config.exemptions,
        config_root=config.root,
        report_unused_ignores=options.report_unused_ignores,
        helm=HelmOptions(
            values=(*config.helm.values, *options.helm_values),
            set_values=tuple(options.helm_set),
            release=options.helm_release or config.helm.release,
            namespace=options.helm_namespace or config.helm.namespace,
            value_sets=config.helm.value_sets,
            skip_schema=options.helm_skip_schema_validation,
        ),
        links=config.links,
        config_file=str(config.path) if config.path else None,
    )


def _found(
    paths: Sequence[str],
    config: Config,
    options: Options,
    note: Callable[[str], None],
    walks: Path | None = None,
) -> Discovery:
    """The files the paths name, and their projects' others as context (read, not reported)."""
    leave_out = _exclude(config, options.exclude, options.extend_exclude, options.force_exclude)
    found = discover(
        paths or ["."], options.stdin_filename, leave_out, options.kustomize, walks=walks
    )
    context = options.context
    if not context and options.project_context:
        context = _projects_of(paths)
        for folder in context:
            note(f"project context: {folder}")
    if context:
        more = discover(context, None, leave_out, options.kustomize, report=False, walks=walks)
        if options.context:  # the folder given is the context's, not a file's named in it
            found = as_in_context(found, more)
        found = with_context(found, more)
    return found


def _default_baseline_stays_in(root: Path) -> None:
    """The project's default baseline is a file of the repository: a committed link to a
    file of the runner's would be read (and quoted) or, by `--write-baseline`, replaced, as
    a path the configuration names outside the repository would (the user's own file is
    given with --baseline)."""
    default = root / DEFAULT_BASELINE
    if not default.is_symlink():
        return
    top = os.path.realpath(repository_of(str(root)))
    if not inside(os.path.realpath(default), top):
        raise ConfigError(
            f"{shown_path(default)}: a link leading outside the repository ({top}), "
            "which is not read as the baseline (give that file with --baseline)"
        )


def check(
    run: Run,
    *,
    jobs: int | None = None,
    cache: Cache | None = None,
    progress: Progress = QUIET,
    contents: Mapping[str, bytes] | None = None,
    memo: ParseMemo | None = None,
) -> RunResult:
    """The findings of the run's files (the baseline not applied), the files it could not
    find among its errors. `contents` overrides some files' bytes (an editor's unsaved
    text); `memo` keeps the parses in memory from one check to the next (`k8slb lsp`)."""
    result = run_engine(
        run.found.sources,
        run.settings,
        contents,
        jobs=jobs or default_jobs(),
        cache=cache,
        memo=memo,
        progress=progress,
        after_edit=after_edit,
    )
    result.errors[:0] = run.found.errors
    return result


def fix(
    run: Run,
    *,
    unsafe: bool = False,
    jobs: int | None = None,
    cache: Cache | None = None,
    contents: Mapping[str, bytes] | None = None,
    memo: ParseMemo | None = None,
    only: AbstractSet[str] | None = None,
) -> FixOutcome:
    """Every fix of the run's findings made in memory, checked, and the check of the fixed
    text; what the run's baseline holds is left out of what remains. `contents`, `memo`:
    as `check`'s; `only`: the findings of those files alone are fixed, in them alone (an
    editor's "fix all" of one file)."""
    from k8slb.fixing.fixer import plan as plan_fixes

    outcome = plan_fixes(
        run.found.sources,
        run.settings,
        unsafe=unsafe,
        jobs=jobs or default_jobs(),
        cache=cache,
        contents=contents,
        memo=memo,
        only=only,
    )
    return _past_baseline(run, outcome, unsafe=unsafe)


def fix_as_written(
    run: Run,
    outcome: FixOutcome,
    unwritten: AbstractSet[str],
    *,
    unsafe: bool = False,
    jobs: int | None = None,
    cache: Cache | None = None,
) -> FixOutcome:
    """What `fix`'s outcome comes to when the files `unwritten` could not be written: the
    check of the files as they are on disk, only the fixes written counted as made."""
    from k8slb.fixing.fixer import as_written

    after = as_written(
        outcome,
        run.found.sources,
        run.settings,
        unwritten,
        unsafe=unsafe,
        jobs=jobs or default_jobs(),
        cache=cache,
    )
    return _past_baseline(run, after, unsafe=unsafe)


def _past_baseline(run: Run, outcome: FixOutcome, *, unsafe: bool) -> FixOutcome:
    """The outcome with what the run's baseline holds left out of what remains."""
    from k8slb.fixing.fixer import unsafe_fixes_left

    if run.baseline is not None and run.baseline.is_file():  # what remains: only what is new
        apply_baseline(outcome.result, run.baseline, report_unused=False)
        outcome.unsafe_left = unsafe_fixes_left(outcome.result.findings, unsafe=unsafe)
    return outcome


@record
class NoqaOutcome:
    """What `add_noqa` did: the findings it silenced (by comment, by annotation), the files
    it wrote, the findings it could not silence (`path:line: why`)."""

    comments: int
    annotations: int
    files: int
    refused: list[str]


def add_noqa(result: RunResult, run: Run, style: str) -> NoqaOutcome:
    """Silence every finding of `result` where it stands (a comment, or for an object with
    `style` "annotation" an annotation) and write the files; a file that cannot be written
    is among the result's errors, and none is half-written."""
    from k8slb.fixing.noqa import add_noqa as silence  # ruamel and the YAML editor
    from k8slb.fixing.write import write_all

    added = silence(result.findings, result.contents, style)
    by_path = {s.path: s for s in run.found.sources}
    problems: dict[str, str] = {}
    writes: dict[Path, str] = {}
    for path in sorted(added.text):
        location = by_path[path].location if path in by_path else None
        if location is None:
            problems[path] = "not a file"
        else:
            writes[Path(location)] = path
    written = write_all([(at, result.contents[p], added.text[p]) for at, p in writes.items()])
    problems.update({writes[at]: problem for at, problem in written.items()})
    for path, problem in sorted(problems.items()):
        result.errors.append(f"{path}: not written: {problem}")
    files = len(added.text) - len(problems)
    return NoqaOutcome(added.comments, added.annotations, files, list(added.refused))


def apply_baseline(result: RunResult, path: Path, *, report_unused: bool) -> None:
    """Drop the findings the baseline holds; with `report_unused`, report its entries that
    match nothing any more (KLB005), so it can be rewritten."""
    try:
        entries = baselines.load(path)
    except baselines.BaselineError as error:
        result.errors.append(str(error))
        return
    applied = baselines.apply(result.findings, entries, result.contents, path.parent.resolve())
    result.findings = applied.kept
    result.baselined = applied.baselined
    if report_unused:
        result.findings += [
            UnusedSuppression.stale(str(path), entry.line, entry.key[0], entry.key[1])
            for entry in applied.unused
        ]
        result.findings.sort(key=Finding.sort_key)


def _start(paths: Sequence[str]) -> Path:
    """Where configuration and project are looked for: from the first path linted (its
    folder), as ruff and black do, so that `k8slb check ~/repo/k8s` from anywhere reads
    the repository's configuration; the current folder for stdin alone."""
    for path in paths:
        if path != STDIN:
            return Path(path) if os.path.isdir(path) else Path(path).parent
    return Path.cwd()


def _config(
    config_path: Path | None, isolated: bool, start: Path, note: Callable[[str], None]
) -> Config:
    if isolated:
        return Config()
    if config_path is not None and not config_path.is_file():
        raise ConfigError(f"{config_path}: no such configuration file")
    path = config_path or find_config(start)
    note(f"configuration: {path}" if path is not None else "configuration: none found")
    return load_config(path) if path is not None else Config()


def _exclude(
    config: Config, given: Sequence[str], extra: Sequence[str], forced: bool
) -> Exclude | None:
    """The configuration's `exclude` (relative to its folder), or --exclude instead, and
    --extend-exclude (relative to the current folder), as ruff combines them."""

    def split(values: Sequence[str]) -> tuple[str, ...]:
        return tuple(p.strip() for value in values for p in value.split(",") if p.strip())

    here = Path.cwd().resolve()
    sets: list[tuple[tuple[str, ...], Path]] = []
    if given:
        sets.append((split(given), here))
    elif config.exclude:
        sets.append((tuple(config.exclude), config.root))
    if extra:
        sets.append((split(extra), here))
    return Exclude(tuple(sets), forced) if sets else None


def _projects_of(paths: Sequence[str]) -> list[str]:
    """The projects of the files and folders named on the command line, but those a folder
    named holds whole already: so that "no SIGTERM handler in its project" or "no Service
    selects it" is never said from a partial view (`check k8s/` judges the manifests with
    the project's code in view, as `check .` does). Only a folder that marks a project
    counts (a .git, a pyproject.toml, a configuration): a path in no project is judged
    alone, rather than with everything in its folder, which may be a home folder."""
    named = [p for p in paths if p != STDIN]
    folders = [os.path.realpath(p) for p in named if os.path.isdir(p)]
    projects: list[str] = []
    for path in named:
        root = marked_project(Path(path) if os.path.isdir(path) else Path(path).parent)
        if root is None or any(inside(os.path.realpath(root), f) for f in folders):
            continue
        shown = str(root) if os.path.isabs(path) else os.path.relpath(root)
        if shown not in projects:
            projects.append(shown)
    return projects
