"""The command line's options and their checks: the options `check`, `fix` and
`explain-links` share (`common_options`), `--format` and its registry of formats, `--color`,
`--no-cache`. The commands are in cli.py."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from k8slb.core.choices import MESHES, parse_version
from k8slb.core.internal import DEBUG_ENV
from k8slb.report.formats import FORMATS, formatter

NOQA_STYLES = ("comment", "annotation")  # what --add-noqa writes
F = TypeVar("F", bound=Callable[..., Any])

_COLOUR = {"choice": "auto"}  # --color, for the whole command


def use_colour() -> bool:
    """`--color always/never`; with `auto`, NO_COLOR and FORCE_COLOR, then a terminal."""
    if _COLOUR["choice"] != "auto":
        return _COLOUR["choice"] == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _colour(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    _COLOUR["choice"] = value
    return value


def _kubernetes_version(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    try:
        return parse_version(value) if value is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _verbose(_ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:  # in the environment, so that parsing processes see it too
        os.environ[DEBUG_ENV] = "1"


def _checked_set_values(
    context: click.Context, parameter: click.Parameter, assignments: tuple[str, ...]
) -> tuple[str, ...]:
    """A malformed --helm-set is a usage error (exit 2), chart or no chart in the paths:
    not a rendering finding that --exit-zero would turn green."""
    from k8slb.reading.charts import set_value_problem

    for assignment in assignments:
        problem = set_value_problem(assignment)
        if problem is not None:
            raise click.BadParameter(f"{assignment!r}: {problem}", context, parameter)
    return assignments


# The paths, and the rules run on them.
_WHAT_IS_LINTED = [
    click.argument("paths", nargs=-1, type=str),
    click.option(
        "--select",
        multiple=True,
        metavar="CODES",
        help="Rules to run: ids, id prefixes or names, comma-separated (default: all).",
    ),
    click.option(
        "--extend-select",
        multiple=True,
        metavar="CODES",
        help="Rules to run besides the selected ones (the configuration's or all).",
    ),
    click.option("--ignore", multiple=True, metavar="CODES", help="Rules not to run."),
]


# How the run exits, and in which colours it says so.
_EXIT_AND_COLOUR = [
    click.option(
        "--exit-zero",
        is_flag=True,
        help="Exit 0 even when there are findings (2 still means the run failed).",
    ),
    click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        expose_value=False,
        callback=_colour,
        is_eager=True,
        help="Colour the text output.",
    ),
    click.option(
        "--fail-on",
        type=click.Choice(["error", "warning", "info"]),
        help="Exit 1 when a finding is at or above this severity [default: warning].",
    ),
]


# The cluster the manifests are for.
_CLUSTER = [
    click.option(
        "--kubernetes-version",
        callback=_kubernetes_version,
        help="The cluster's Kubernetes version; it decides the fixes too [default: 1.30].",
    ),
    click.option(
        "--mesh",
        type=click.Choice(MESHES),
        help="A service mesh every workload is in (else read from manifests) [default: none].",
    ),
]


# Where the input and the configuration come from, and what else is read.
_WHAT_IS_READ = [
    click.option(
        "--stdin-filename", metavar="NAME", help="The name to report for input read from `-`."
    ),
    click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="The configuration file (default: .k8slb.yaml or [tool.k8slb] in "
        "pyproject.toml, in the first path's folder or above).",
    ),
    click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
    click.option(
        "--context",
        multiple=True,
        metavar="PATH",
        help="Also read PATH for cross-file facts (Services, env, signal handlers), "
        "but report only on PATHS: what a pre-commit hook wants.",
    ),
    click.option(
        "--no-project-context",
        "project_context",
        is_flag=True,
        flag_value=False,
        default=True,
        help="Judge the files and folders named on the command line alone; by default the "
        "rest of their project (up to its .git, pyproject.toml or configuration) is read "
        "as --context.",
    ),
]


# What the run says about itself.
_DIAGNOSTICS = [
    click.option(
        "-v",
        "--verbose",
        is_flag=True,
        expose_value=False,
        callback=_verbose,
        help=f"Show the traceback of an internal error (as {DEBUG_ENV}=1 does).",
    ),
    click.option(
        "--report-unused-ignores",
        is_flag=True,
        help="Report suppressions that suppress nothing (KLB005).",
    ),
]


# The values charts are rendered with.
_HELM_VALUES = [
    click.option(
        "--helm-values",
        multiple=True,
        metavar="FILE",
        type=click.Path(exists=True, dir_okay=False, readable=True),
        help="A values file for the charts rendered (repeatable; after each chart's "
        "values.yaml, as `helm template -f`).",
    ),
    click.option(
        "--helm-set",
        multiple=True,
        metavar="KEY=VALUE",
        callback=_checked_set_values,
        help="A value for the charts rendered (repeatable; as `helm template --set`).",
    ),
    click.option("--helm-release", metavar="NAME", help="The release name [default: the chart's]."),
]


# The paths left out.
_EXCLUSIONS = [
    click.option(
        "--exclude",
        multiple=True,
        metavar="PATTERN",
        help="Paths to leave out, in .gitignore's syntax, relative to the current folder "
        "(repeatable, or comma-separated); replaces the configuration's `exclude`.",
    ),
    click.option(
        "--extend-exclude",
        multiple=True,
        metavar="PATTERN",
        help="Like --exclude, but added to the configuration's `exclude`.",
    ),
    click.option(
        "--force-exclude",
        is_flag=True,
        help="Leave out excluded paths even when named on the command line (as pre-commit "
        "names each changed file; the hooks pass it).",
    ),
]


# How kustomizations are built and charts rendered.
_RENDERING = [
    click.option(
        "--kustomize",
        is_flag=True,
        help="Build each folder with a kustomization (kustomize or kubectl on PATH) and "
        "lint what it builds, reported in the resource files.",
    ),
    click.option(
        "--helm-namespace",
        metavar="NAME",
        help="The namespace charts are rendered for [default: default].",
    ),
    click.option(
        "--helm-skip-schema-validation",
        is_flag=True,
        help="Render charts without their values.schema.json (as `helm template "
        "--skip-schema-validation`): for a schema that refers to a URL.",
    ),
]


def common_options(command: F) -> F:
    """The options of `check` and `fix`, and the `Run` they make."""
    options = [
        *_WHAT_IS_LINTED,
        *_EXIT_AND_COLOUR,
        *_CLUSTER,
        *_WHAT_IS_READ,
        *_DIAGNOSTICS,
        *_HELM_VALUES,
        *_EXCLUSIONS,
        *_RENDERING,
    ]
    for option in reversed(options):  # the first option given is the first listed
        command = option(command)
    return command


def formats_that(support: str, conjunction: str) -> str:
    """The formats with `support` (a Formatter flag), for a message; a variant of another
    format (`full` of `text`) is not named apart."""
    made = {name: formatter(name) for name in FORMATS}
    kinds = {type(f) for f in made.values()}
    names = [
        name
        for name, f in made.items()
        if getattr(f, support) and not any(k is not type(f) and isinstance(f, k) for k in kinds)
    ]
    return ", ".join(names[:-1]) + f" {conjunction} " + names[-1] if len(names) > 1 else names[0]


class FormatName(click.Choice[str]):
    """`--format`'s choices: the formats registered (report/formatter.py) when it is read."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(FORMATS)

    @choices.setter
    def choices(self, _: object) -> None:  # click's __init__ sets it; the registry rules
        pass


# `--no-cache` of the commands that run the engine.
NO_CACHE = click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache (in the user's cache folder).",
)


# `--format` of the commands that print a table (text) or the same rows as JSON.
TABLE_OR_JSON = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="A table, or JSON for scripts.",
)
