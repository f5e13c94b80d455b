"""The values a chart's installer passes: a chart that Helm cannot render with its defaults
(a `required` value, a nil map its templates read) is rendered the way the repository
itself installs it, by a `helm install|upgrade|template ... -f FILE --set K=V` command
written in a shell script (`*.sh`), a Makefile's recipe, a GitHub Actions workflow's `run`
step, a CircleCI `run` step or a GitLab job's `script` (ci_sessions.py) or, last, a
deployment guide's shell code block (a Markdown fence with no language or
a shell's: `sh`, `bash`, `shell`, `console`, `zsh`; a `$ ` prompt is dropped): what a
reader of the repository is told to run. The guide's prose (`run this from the helm
folder`) is not read: its command runs from the guide's folder or the repository's top
(after the block's `cd DIR` lines), else from the one folder of the repository where the
command's chart is a chart to render and every one of its values files (it needs one) is
a file; from two or more, or none, it is refused.

A command is read only where every word that matters is literal: its chart must be the
chart's own folder (resolved from where the command runs: a Makefile's folder, a
workflow's top or its step's `working-directory`, a script's folder or, failing that, the
repository's top; each after the `cd DIR` lines and `cd DIR &&` before it), and its
values files must be files of the repository (a `/tmp/...` the CI job writes, a URL, a
`$VAR` the script does not set, `-`, stdin, a guide's `<placeholder>`, refuses the
command; a variable the script itself sets to literals, `NAME=dev` or `for NAME in dev
prod`, is read as each, a command for each combination: script_variables). `--set` and
`--set-string` are read when literal and when Helm would read them back as written (a
`$TAG` refuses the command); `--set-file`, `--set-json` and `--post-renderer` refuse it
(what they read or run is not here). A Makefile's `--set KEY=$(VAR)` whose value is
only a make variable is what the user gives at install time (`make install VAR=...`):
rendered with a stand-in string (STAND_IN_PREFIX and the variable's name) where
that key is surely a string, given by `--set-string` or a string in the chart's own
values.yaml (`token: ""`); a key the chart gives a number, a switch, a map or nothing
refuses the command (the user's value is read by its type, unknown here), as does a
variable in only a part of the value. A script's, a workflow's or a guide's `$VAR` still
refuses it: the environment it comes from is often CI's (a secret, a commit's hash), and
the command then one of CI's, not the user's. Such a command, or one whose values file the
repository lacks and has no copy of (one CI writes), is still listed with the keys it sets
to a variable (Installer.given, `refused` saying why), when asked (`installers(...,
refused=True)`): a key set at install, which chart_install_sets.py stands in for; it is
never rendered with. A word that is only a variable (`${HELM_OPTIONS}`)
after the chart is said to be unread, the command kept: it adds to what the files give.
A guide may name the chart by the name it is published under (`oci://registry/charts/NAME`,
`REPO/NAME`): read as the chart whose Chart.yaml gives that name when the guide sits beside
that Chart.yaml, or at the repository's top or under its docs/ and no other chart to render
has that name. A placeholder for the release's name (`[RELEASE_NAME]`, `<release>`) leaves
the run's own; one in a value (`--set host=<your-host>`, `[HOST]`, `...`) refuses the
command, as does a guide's command that passes no values. Of several commands, in this
order: `install`/`upgrade` before `template`, a script or a Makefile before a workflow
before a guide, then by path and line, up to MAX_TRIED are rendered until one deploys a
workload (else the first that renders is used); the others are counted, not merged.

Bounded: at most MAX_FOLDERS folders walked under the repository's top, MAX_FILES files
read (each up to MAX_FILE_BYTES; guides MAX_GUIDES of them), MAX_COMMANDS `helm` commands
parsed, MAX_VALUES values files and MAX_SETS `--set` entries a command."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.core.shell_words import shell_words
from k8slb.reading.bounded import read_bounded
from k8slb.reading.build_files import (
    MAKEFILES,
    SHELL_SCRIPT_SUFFIX,
    logical_lines,
    run_steps,
    step_folder,
    step_line,
    yaml_documents,
)
from k8slb.reading.chart_values_beside import deploys_workload
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    chart_file,
    chart_name,
    is_chart_folder,
    render_charts,
    set_value_problem,
    stopped_try,
)
from k8slb.reading.ci_sessions import CIRCLECI, ci_sessions, is_ci_file
from k8slb.reading.repository import inside, repository_of

MAX_FOLDERS = 4000
MAX_FILES = 600
MAX_GUIDES = 200  # Markdown files, of the MAX_FILES
MAX_FILE_BYTES = 256 * 1024
MAX_COMMANDS = 200
MAX_VALUES = 16
MAX_SETS = 64
_SKIPPED = frozenset({"node_modules", "vendor", "dist", "build", "target", "__pycache__"})
_WORKFLOWS = (".github", "workflows")
_GUIDES = (".md", ".markdown")
_KINDS = ("script", "makefile", "workflow", "guide")  # what a command is trusted by, best first
# A Markdown code fence (CommonMark: three or more backticks or tildes, indented as a list
# item's may be) and its language, the info string's first word.
_FENCE = regex.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\s`{]*)")
_SHELL_BLOCKS = frozenset({"", "sh", "bash", "shell", "console", "zsh", "shell-session"})
_PROMPT = regex.compile(r"^[ \t]*\$[ \t]+")  # a console block's `$ ` before the command
_SUBCOMMANDS = frozenset({"install", "upgrade", "template"})
# Helm's flags of those commands that take a value (the others are switches).
_VALUED = frozenset(
    {
        "-f",
        "--values",
        "--set",
        "--set-string",
        "--set-file",
        "--set-json",
        "--set-literal",
        "-n",
        "--namespace",
        "--version",
        "--repo",
        "--timeout",
        "--kube-version",
        "--post-renderer",
        "--post-renderer-args",
        "--description",
        "-o",
        "--output",
        "--kube-context",
        "--kubeconfig",
        "-a",
        "--api-versions",
        "-s",
        "--show-only",
        "--output-dir",
        "--history-max",
        "--max-history",
        "--username",
        "--password",
        "--ca-file",
        "--cert-file",
        "--key-file",
        "--keyring",
        "--registry-config",
        "--repository-config",
        "--repository-cache",
        "-l",
        "--labels",
        "--name-template",
        "--burst-limit",
        "--qps",
        "--kube-apiserver",
        "--kube-as-user",
        "--kube-as-group",
        "--kube-ca-file",
        "--kube-token",
        "--kube-tls-server-name",
    }
)
_REFUSED = frozenset({"--set-file", "--set-json", "--post-renderer", "--post-renderer-args"})
_ENDS = frozenset({"|", "||", "&&", ";", "&", ")"})
_VARIABLE_WORD = regex.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")
_HELM_WORD = regex.compile(r"\bhelm\s+(?:upgrade|install|template)\b")
# A guide's word that stands for what its reader fills in: `<release-name>`, `[RELEASE]`,
# `...`; in a value it refuses the command, as a release's name it is the run's own.
_PLACEHOLDER = regex.compile(r"<[^<>\s]+>|\[[^\[\]\s]+\]|\.\.\.|…")
_PLACEHOLDER_VALUE = regex.compile(r"<[^<>=]*>|^\[[^\[\]]*\]$|\.\.\.|…")
# The published chart a guide installs, by its name: `oci://registry/path/NAME` or a
# repository's `REPO/NAME` (after `helm repo add REPO URL`).
_PUBLISHED = regex.compile(
    r"^(?:oci://[^\s/]+(?:/[^\s/]+)*/|[A-Za-z0-9][\w.\-]{0,100}/)(?P<name>[A-Za-z0-9][\w.\-]{0,200})$"
)
_DOCS = "docs"  # the repository's folder of guides, whose commands may name a published chart
# Values Helm's `--set` would read as another type than `--set-string` gives.
_RETYPED = regex.compile(r"(?i)^(?:true|false|null|-?\d+)$")


@record
class Installer:
    """A command that installs a chart with values, where it is written."""

    path: str  # the file, as shown
    line: int
    command: str  # install, upgrade or template
    chart: str  # the chart's folder (real path)
    release: str | None
    namespace: str | None
    values: tuple[str, ...]  # values files, as shown, in Helm's order
    sets: tuple[str, ...]  # `--set` assignments
    unread: tuple[str, ...]  # words only a variable (`${HELM_OPTIONS}`): not known here
    kind: str  # script, makefile, workflow or guide (_KINDS)
    # Values files the command names that the repository does not hold, each with the one
    # file of the repository it was rendered with instead (_twin), as shown.
    twins: tuple[tuple[str, str], ...] = ()
    # Such a file for which no one file could be it: (named, its candidates); the command
    # is not used, only said (with_installers).
    unfound: tuple[str, tuple[str, ...]] | None = None
    # The script's variables the command was read with, each with its literal value
    # (script_variables): one command of those the line stands for.
    bound: tuple[tuple[str, str], ...] = ()
    # The keys set to a value the user gives (`--set token=$(TOKEN)`), each with its
    # variable: rendered with a stand-in string (_given).
    stood: tuple[tuple[str, str], ...] = ()
    # Why the command is not one to render with, though it names the chart and sets keys
    # to a variable (`--set tag=$CIRCLE_SHA1`, a value of CI's environment; a values file
    # the repository lacks): listed only for those keys (`given`, chart_install_sets.py).
    refused: str | None = None
    # The keys the command sets to a variable only, each with its variable (`--set
    # tag=$CIRCLE_SHA1`: tag, CIRCLE_SHA1): set at install, whatever their value.
    given: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        files = ", ".join(self.values) or "no values file"
        for named, used in self.twins:
            files = files.replace(used, f"{used} (for {named}, which the repository lacks)", 1)
        shown_sets = [s for s in self.sets if STAND_IN_PREFIX not in s.partition("=")[2]]
        sets = f" and --set {', '.join(shown_sets)}" if shown_sets else ""
        if self.stood:
            given = ", ".join(f"{key} as <{variable}>" for key, variable in self.stood)
            sets += f" (rendered with a stand-in string for what the user gives: {given})"
        unread = f" ({' '.join(self.unread)} not known here)" if self.unread else ""
        guide = " (a code block of a Markdown guide)" if self.kind == "guide" else ""
        if self.bound:
            given = ", ".join(f"{name}={value}" for name, value in self.bound)
            guide += f" (with {given}, as the script sets them)"
        return (
            f"the values `helm {self.command}` at {self.path}:{self.line}{guide} passes: "
            f"{files}{sets}{unread}"
        )

    def order(self) -> tuple[int, int, str, int]:
        return (self.command == "template", _KINDS.index(self.kind), self.path, self.line)


def installers(
    charts: Sequence[str], top: str, refused: bool = False
) -> dict[str, list[Installer]]:
    """For each chart folder (as shown, under the repository's `top`, absolute), the
    commands of the repository that install it with values, best first; with `refused`,
    also those not rendered with that set keys to a variable (Installer.refused)."""
    wanted = {os.path.realpath(chart): chart for chart in charts}
    found: dict[str, list[Installer]] = {chart: [] for chart in charts}
    budget = [MAX_COMMANDS]
    names: dict[str, list[str]] = {}  # every file the walk saw, by name (_twin)
    published = {real: chart_name(real) for real in wanted}
    listed = list(_files(top, names))
    for path, kind in listed:
        text = _read(path)
        if text is None or _HELM_WORD.search(text) is None:
            continue
        own = _published_charts(path, kind, top, published)
        for each in _commands(path, kind, text, top, budget, tuple(wanted), names, own):
            if each.chart in wanted and (refused or each.refused is None):
                found[wanted[each.chart]].append(each)
        if budget[0] <= 0:
            break
    return {chart: sorted(listed, key=Installer.order) for chart, listed in found.items()}


def _published_charts(
    path: str, kind: str, top: str, published: dict[str, str | None]
) -> dict[str, str]:
    """The charts (their name -> real folder) a guide may install by their published name
    (`oci://registry/charts/NAME`, `REPO/NAME`): its own chart, for a guide beside a
    Chart.yaml; for one at the repository's top or under its docs/, each chart to render
    whose name no other of them has; none for any other file."""
    if kind != "guide":
        return {}
    folder = os.path.realpath(os.path.dirname(path))
    own = published.get(folder)
    if folder in published:
        return {own: folder} if own else {}
    real_top = os.path.realpath(top)
    if folder != real_top and not inside(folder, os.path.join(real_top, _DOCS)):
        return {}
    named: dict[str, list[str]] = {}
    for chart, name in published.items():
        if name:
            named.setdefault(name, []).append(chart)
    return {name: charts[0] for name, charts in named.items() if len(charts) == 1}


def _files(top: str, names: dict[str, list[str]] | None = None) -> Iterator[tuple[str, str]]:
    """The scripts, Makefiles and workflows under `top` (breadth first, by name), each
    with its kind, within the budgets; `names` gets every other file the walk passes, by
    its name (at most MAX_NAMED paths in all, MAX_SAME of one name)."""
    folders, seen, files, guides = [top], 0, 0, 0
    while folders and seen < MAX_FOLDERS:
        current = folders.pop(0)
        seen += 1
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        workflows = os.path.relpath(current, top).split(os.sep)[-2:] == list(_WORKFLOWS)
        circleci = current == os.path.join(top, CIRCLECI[0])  # only its config is read
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                shown = current == top and name in (_WORKFLOWS[0], CIRCLECI[0])
                hidden = name.startswith(".") and not shown
                github = current == os.path.join(top, _WORKFLOWS[0])
                if hidden or name in _SKIPPED or (github and name != _WORKFLOWS[1]) or circleci:
                    continue
                folders.append(entry.path)
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            if names is not None:
                _name(names, name, entry.path)
            kind = (
                "workflow"
                if is_ci_file(current, name, top)
                else None
                if circleci
                else _kind(name, workflows)
            )
            if kind is None or (kind == "guide" and guides >= MAX_GUIDES):
                continue
            guides += kind == "guide"
            files += 1
            if files > MAX_FILES:
                return
            yield entry.path, kind


MAX_NAMED = 20000  # files of the walk kept by name, for a values file the tree lacks
MAX_SAME = 8  # paths kept of one name (more: as ambiguous as eight)


def _name(names: dict[str, list[str]], name: str, path: str) -> None:
    if not name.endswith(_TWIN_ENDS):
        return  # only a values file, or its twin, is ever looked up
    paths = names.get(name)
    if paths is None:
        if len(names) >= MAX_NAMED:
            return
        paths = names[name] = []
    if len(paths) < MAX_SAME:
        paths.append(path)


def _kind(name: str, workflows: bool) -> str | None:
    if workflows:
        return "workflow" if name.endswith((".yml", ".yaml")) else None
    if name in MAKEFILES:
        return "makefile"
    if name.lower().endswith(_GUIDES):
        return "guide"
    return "script" if name.endswith(SHELL_SCRIPT_SUFFIX) else None


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = read_bounded(handle, MAX_FILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if data is not None else None


def _commands(
    path: str,
    kind: str,
    text: str,
    top: str,
    budget: list[int],
    charts: Sequence[str] = (),
    names: dict[str, list[str]] | None = None,
    published: dict[str, str] | None = None,
) -> Iterator[Installer]:
    """The file's helm commands that name a chart folder of the repository (`charts`, the
    real paths of the charts to render: where a guide's command that fits neither of its
    folders may run), or, in a guide, a chart of `published` by its published name."""
    shown = os.path.relpath(path, os.getcwd()) if inside(path, os.getcwd()) else path
    here = os.path.dirname(path)
    if kind == "workflow" and is_ci_file(os.path.dirname(path), os.path.basename(path), top):
        sessions = list(ci_sessions(path, text, top))  # CircleCI's, GitLab's
    elif kind == "workflow":
        sessions = list(_workflow_sessions(path, text, top))
    elif kind == "guide":
        starts = list(dict.fromkeys([here, top]))
        sessions = [(first, block, starts, False) for first, block in shell_blocks(text)]
    else:
        starts = [here] if kind == "makefile" else list(dict.fromkeys([here, top]))
        sessions = [(1, text, starts, kind == "makefile")]
    for first, script, starts, each_line in sessions:
        refused: list[Installer] = []  # (from the first folder where one is)
        for start in starts:
            made = list(
                _session(
                    shown, kind, first, script, start, top, each_line, budget, names, published
                )
            )
            if any(each.refused is None for each in made):
                yield from made  # a script's commands read from the first folder they fit
                break
            refused = refused or made
        else:
            yield from refused
            if kind == "guide":
                yield from _fitted(shown, first, script, top, charts, budget)


def shell_blocks(text: str) -> Iterator[tuple[int, str]]:
    """A Markdown text's shell code blocks (a fence with no language or a shell's), each
    with the line its first line of code is on; the fence's indentation and a `$ `
    prompt are taken off each line (line numbers kept)."""
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        opened = _FENCE.match(lines[at])
        at += 1
        if opened is None:
            continue
        fence, indent = opened.group("fence"), len(opened.group("indent"))
        first, code = at + 1, []
        while at < len(lines):
            closing = _FENCE.match(lines[at])
            if (
                closing is not None
                and closing.group("fence").startswith(fence)
                and (not closing.group("info"))
            ):
                break
            line = lines[at]
            line = line[indent:] if line[:indent].strip() == "" else line.lstrip()
            prompt = _PROMPT.match(line)
            code.append(line[prompt.end() :] if prompt is not None else line)
            at += 1
        at += 1
        if opened.group("info").lower() in _SHELL_BLOCKS and code:
            yield first, "\n".join(code) + "\n"


def _fitted(
    shown: str, first: int, block: str, top: str, charts: Sequence[str], budget: list[int]
) -> Iterator[Installer]:
    """A guide's block whose commands fit neither of its folders, read from the one folder
    of the repository (the folder of a chart to render, or one above it within the
    repository) where a command's chart is one of `charts` and its values files (one at
    least) are files; nothing when none or several fit, or the block moves (`cd`)."""
    if any(line.lstrip().startswith(("cd ", "pushd ")) for line in block.splitlines()):
        return
    folders: dict[str, None] = {}
    for chart in charts:
        folder = chart
        for _ in range(_FIT_DEPTH):
            if not inside(folder, top):
                break
            folders[folder] = None
            folder = os.path.dirname(folder)
    wanted = set(charts)
    fits = set()
    for folder in list(folders)[:_MAX_FOLDERS_TRIED]:
        for made in _session(shown, "guide", first, block, folder, top, False, budget):
            if made.chart in wanted and made.values and made.refused is None:
                fits.add(folder)
    if len(fits) == 1:
        fitted = _session(shown, "guide", first, block, fits.pop(), top, False, budget)
        yield from (each for each in fitted if each.refused is None)


_FIT_DEPTH = 4  # a chart's folder and the three above it: where a guide's command may run
_MAX_FOLDERS_TRIED = 64  # of those, for one block (each try counts its helm lines)


def _workflow_sessions(
    path: str, text: str, top_of_repository: str
) -> Iterator[tuple[int, str, list[str], bool]]:
    """Each run step's script, its first line in the file, and the folder it runs in."""
    parts = os.path.normpath(path).split(os.sep)
    top = os.sep.join(parts[:-3]) or os.sep
    if not inside(top, top_of_repository):
        return
    for document in yaml_documents(path, text):
        for job, step, script in run_steps(document):
            folder = os.path.normpath(os.path.join(top, step_folder(job, step)))
            first = step_line(step, "run") + (1 if "\n" in script.rstrip("\n") else 0)
            yield first, script, [folder], False


def _session(
    shown: str,
    kind: str,
    first: int,
    script: str,
    start: str,
    top: str,
    each_line: bool,
    budget: list[int],
    names: dict[str, list[str]] | None = None,
    published: dict[str, str] | None = None,
) -> Iterator[Installer]:
    """The helm commands of one shell session (a script, a step; a Makefile's recipe
    lines each a shell of their own: `each_line`) that start in `start`."""
    here: str | None = start
    known: dict[str, tuple[str, ...] | None] | None = None  # the script's variables, once
    for number, line in logical_lines(script, comments=True):
        text = line.lstrip("@-+ \t") if each_line else line
        folder = start if each_line else here
        if not each_line and text.startswith(("cd ", "pushd ")):
            here = _changed(here, text)
            continue
        if "helm" not in text or _HELM_WORD.search(text) is None or budget[0] <= 0:
            continue
        budget[0] -= 1
        if folder is None:
            continue
        if known is None:  # a Makefile's `$(NAME)` is make's own, not read here
            known = script_variables(script) if kind != "makefile" else {}
        yield from _command(
            shown, kind, first + number - 1, text, folder, top, names, published, known
        )


def _changed(here: str | None, line: str) -> str | None:
    """The folder after a `cd DIR` line (`cd "$(dirname "$0")"` keeps the script's);
    None when it is not known."""
    if here is None:
        return None
    if "dirname" in line:
        return here if _SCRIPT_FOLDER.search(line) else None
    try:
        words = shell_words(line, comments=True)
    except ValueError:
        return None
    if len(words) < 2 or "$" in words[1] or "`" in words[1] or len(words) > 2:
        return None
    return os.path.normpath(os.path.join(here, words[1]))


_SCRIPT_FOLDER = regex.compile(
    r'^cd\s+"?\$\(\s*dirname\s+"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?\s*\)"?\s*$'
)


def _command(
    shown: str,
    kind: str,
    line: int,
    text: str,
    folder: str,
    top: str,
    names: dict[str, list[str]] | None = None,
    published: dict[str, str] | None = None,
    known: dict[str, tuple[str, ...] | None] | None = None,
) -> Iterator[Installer]:
    """The line's helm command, when its chart is one of the repository (_chart_of) and
    every value it passes is read (a values file the repository lacks, read as its one
    twin: _twin); else nothing. A release named `[RELEASE_NAME]` leaves the run's own.
    A variable the script gives literal values (`known`: script_variables) is read as
    each of them, one command for each combination (at most MAX_COMBINATIONS)."""
    try:
        words = shell_words(text, comments=True)
    except ValueError:
        return
    for bound in _bindings(words, known or {}):
        made = _one_command(shown, kind, line, _bound(words, bound), folder, top, names, published)
        if made is not None:
            yield replace(made, bound=bound) if bound else made


def _one_command(
    shown: str,
    kind: str,
    line: int,
    words: list[str],
    folder: str,
    top: str,
    names: dict[str, list[str]] | None = None,
    published: dict[str, str] | None = None,
) -> Installer | None:
    """The helm command of a line's words (_command), or None."""
    start = next(
        (
            i
            for i, w in enumerate(words[:-1])
            if os.path.basename(w) == "helm" and words[i + 1] in _SUBCOMMANDS
        ),
        None,
    )
    if start is None:
        return None
    cwd = _moved(folder, words[:start])
    if cwd is None:
        return None
    command = words[start + 1]
    asked: list[tuple[str, str, bool]] = []  # `--set KEY=$VAR`: the user's value (_given)
    made = asked if kind == "makefile" else None
    environment: list[tuple[str, str, bool]] = []  # `--set KEY=$VAR` of a shell: CI's
    read = _arguments(words[start + 2 :], made, environment if made is None else None)
    if read is None:
        return None
    at_install = tuple((key, variable) for key, variable, _ in (*asked, *environment))
    positional, values, sets, namespace, unread, generated = read
    wanted = 1 if command == "template" or generated else 2
    if len(positional) not in {1, 2} or (command != "template" and len(positional) != wanted):
        return None
    chart = positional[-1]
    given = positional[0] if len(positional) == 2 else None
    release = given if given is None or _PLACEHOLDER.fullmatch(given) is None else None
    if not _literal(chart) or (release is not None and not _literal(release)):
        return None
    target = _chart_of(chart, cwd, top, published or {})
    if target is None:
        return None
    if kind == "guide" and not (values or sets or at_install):
        return None  # a guide's bare install: the defaults, which fail
    stood = _given(asked, target)
    refused = _refusal(environment, stood)
    if refused is not None and not at_install:
        return None
    found = _values_files(values, cwd, top, target, names)
    if found is None:
        return None
    files, twins, unfound, lacking = found
    if lacking is not None:
        if not at_install:
            return None
        refused = refused or f"it names {lacking}, which the repository lacks"
    return Installer(
        shown,
        line,
        command,
        target,
        release,
        namespace,
        tuple(files),
        (*sets, *(f"{key}={_stand_in(variable)}" for key, variable, _ in asked)),
        unread,
        kind,
        tuple(twins),
        unfound,
        stood=stood or (),
        refused=refused,
        given=at_install,
    )


def _values_files(
    values: Sequence[str],
    cwd: str,
    top: str,
    chart: str,
    names: dict[str, list[str]] | None,
) -> tuple[list[str], list[tuple[str, str]], tuple[str, tuple[str, ...]] | None, str | None] | None:
    """A command's values files as shown, those it names that the repository lacks each
    with its one twin (_twin), the first with several candidates, and the first with
    none (a file CI writes); None when one is no file of the repository to read."""
    files: list[str] = []
    twins: list[tuple[str, str]] = []
    unfound: tuple[str, tuple[str, ...]] | None = None
    lacking: str | None = None
    for item in values:
        named = os.path.normpath(os.path.join(cwd, item))
        if not _literal(item) or item == "-" or "://" in item:
            return None
        if not inside(os.path.realpath(named), top):
            return None
        if not os.path.lexists(named) and names is not None and unfound is None:
            candidates = _twin(named, names, top, chart)
            if len(candidates) == 1:
                twins.append((_as_shown(named), _as_shown(candidates[0])))
                named = candidates[0]
            elif candidates:
                unfound = (_as_shown(named), tuple(_as_shown(c) for c in candidates))
                continue
        if not os.path.isfile(named):
            lacking = lacking or _as_shown(named)
            continue
        files.append(_as_shown(named))
    return files, twins, unfound, lacking


def _refusal(
    environment: Sequence[tuple[str, str, bool]], stood: tuple[tuple[str, str], ...] | None
) -> str | None:
    """Why a command that sets keys to variables is not rendered with: a shell's `$VAR`
    (the environment it runs in, often CI's: a commit's hash, a secret), or a Makefile's
    `$(VAR)` for a key the chart's values.yaml gives no string (_given)."""
    if environment:
        key, variable, _ = environment[0]
        return f"it sets {key} to ${variable}, a value of the environment it runs in"
    if stood is None:
        return "a key it sets to the user's value is no string of the chart's values.yaml"
    return None


# What a `--set KEY=VALUE`'s value is when it is only a variable the user gives: in a
# Makefile make's `$(NAME)` or `${NAME}`, elsewhere the shell's `$NAME` or `${NAME}`.
_MAKE_VARIABLE = regex.compile(r"^\$(?:\(([A-Za-z_][A-Za-z0-9_]*)\)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")
_SHELL_VARIABLE = regex.compile(r"^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$")
_KEY_PATH = regex.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*$")
MAX_KEY = 300  # characters of a key set to the user's value
STAND_IN_PREFIX = "K8slb-given-"  # a stand-in string for the value the user gives
MAX_VALUES_BYTES = 1024 * 1024  # of a chart's values.yaml, read for a key's type


def _stand_in(variable: str) -> str:
    return f"{STAND_IN_PREFIX}{variable}"


def _asked(value: str, makefile: bool, string: bool, asked: list[tuple[str, str, bool]]) -> bool:
    """Whether a `--set` value is one key set to a variable only (`token=$(TOKEN)`), the
    user's value: kept in `asked` (key, variable, whether `--set-string` gives it)."""
    key, equals, given = value.partition("=")
    found = (_MAKE_VARIABLE if makefile else _SHELL_VARIABLE).fullmatch(given)
    if not equals or found is None or len(key) > MAX_KEY or _KEY_PATH.fullmatch(key) is None:
        return False
    asked.append((key, found.group(1) or found.group(2), string))
    return True


def _given(
    asked: Sequence[tuple[str, str, bool]], chart: str
) -> tuple[tuple[str, str], ...] | None:
    """The keys a command sets to a value the user gives (`--set token=$(TOKEN)`), each
    with its variable, when each is a string: given with `--set-string`, or a string in
    the chart's own values.yaml (`token: ""`); None when one is not (a number, a switch, a
    map, a key the chart does not set: what the user types is read by its type, unknown)."""
    if not asked:
        return ()
    defaults = _chart_values(chart) if any(not string for _, _, string in asked) else {}
    for key, _, string in asked:
        if string:
            continue
        here: Any = defaults
        for part in key.split("."):
            here = here.get(part) if isinstance(here, dict) else None
        if not isinstance(here, str):
            return None
    return tuple((key, variable) for key, variable, _ in asked)


def _chart_values(chart: str) -> dict[str, Any]:
    """A chart's own values.yaml (or values.yml), as data; empty when it has none, or it
    is too large or not YAML."""
    for name in ("values.yaml", "values.yml"):
        path = os.path.join(chart, name)
        try:
            with open(path, "rb") as handle:
                data = read_bounded(handle, MAX_VALUES_BYTES)
        except OSError:
            continue
        if data is None:
            return {}
        text = data.decode("utf-8", "replace")
        first = next(iter(yaml_documents(path, text)), None)
        return first if isinstance(first, dict) else {}
    return {}


MAX_VARIABLES = 64  # variables of one script read for their values
MAX_CHOICES = 8  # literal values of one variable (more: not known)
MAX_COMBINATIONS = 16  # commands one helm line is read as (more: refused)
# A line that assigns a variable (`NAME=value`, `local NAME=value`, `export NAME=value`)
# and a `for NAME in WORDS` loop's head.
_ASSIGNED = regex.compile(
    r"^(?:(?:local|export|readonly|declare|typeset)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)$"
)
_LOOP = regex.compile(r"^for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t](.*)$")
_READ = regex.compile(r"^(?:read|mapfile|readarray|getopts|select)\b")
_USED = regex.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_PLAIN_VALUE = regex.compile(r"^[A-Za-z0-9_.,:@%+=/\-]*$")  # as the shell would keep it, unquoted


def script_variables(script: str) -> dict[str, tuple[str, ...] | None]:
    """The variables a shell script gives values, each with the literal values it is given
    (`NAME=dev`, `for NAME in dev prod; do`), or None where one of its assignments is not
    a literal (`NAME=${1}`, `local NAME=$(...)`, `NAME+=x`, `read NAME`) or they are more
    than MAX_CHOICES. Where a variable is set in the script is not followed: each literal
    value is one the command may run with. At most MAX_VARIABLES names."""
    found: dict[str, tuple[str, ...] | None] = {}

    def give(name: str, values: list[str] | None) -> None:
        if name not in found and len(found) >= MAX_VARIABLES:
            return
        had = found.get(name, ())
        if had is None or values is None or any(not _PLAIN_VALUE.match(v) for v in values):
            found[name] = None
            return
        merged = tuple(dict.fromkeys((*had, *values)))
        found[name] = merged if len(merged) <= MAX_CHOICES else None

    for _, line in logical_lines(script, comments=True):
        text = line.strip().removesuffix("; do").removesuffix(";do")
        loop = _LOOP.match(text)
        assigned = _ASSIGNED.match(text) if loop is None else None
        if loop is not None:
            give(loop.group(1), _words(loop.group(2)))
        elif assigned is not None:
            value = _words(assigned.group(3))
            one = (value or [""]) if value is not None and len(value) <= 1 else None
            give(assigned.group(1), None if assigned.group(2) else one)
        elif _READ.match(text):
            for word in text.split()[1:]:
                if _USED.fullmatch("$" + word):
                    give(word, None)
    return found


def _words(text: str) -> list[str] | None:
    """A value's or a loop's literal words; None when one is not literal."""
    try:
        words = shell_words(text, comments=True)
    except ValueError:
        return None
    if any(not _literal(w) or any(c in w for c in "*?[") for w in words):
        return None
    return words


def _bindings(
    words: list[str], known: dict[str, tuple[str, ...] | None]
) -> Iterator[tuple[tuple[str, str], ...]]:
    """Each combination of the literal values of the variables a helm line's words use
    (none: the line as it is); nothing when they are more than MAX_COMBINATIONS."""
    used: dict[str, tuple[str, ...]] = {}
    for word in words:
        for found in _USED.finditer(word):
            name = found.group(1) or found.group(2)
            choices = known.get(name)
            if choices is not None:
                used[name] = choices
    count = 1
    for choices in used.values():
        count *= len(choices)
    if count > MAX_COMBINATIONS:
        return
    for values in itertools.product(*used.values()):
        yield tuple(zip(used, values, strict=True))


def _bound(words: list[str], bound: tuple[tuple[str, str], ...]) -> list[str]:
    """The words with each bound variable (`$NAME`, `${NAME}`) replaced by its value."""
    if not bound:
        return words
    given = dict(bound)

    def value(found: regex.Match[str]) -> str:
        name = found.group(1) or found.group(2)
        return given.get(name, found.group(0))

    return [_USED.sub(value, word) for word in words]


def _chart_of(chart: str, cwd: str, top: str, published: dict[str, str]) -> str | None:
    """The chart folder (real path) a command's chart word names: a chart folder of the
    repository, else a chart of `published` by the name it is published under."""
    local = os.path.realpath(os.path.join(cwd, chart))
    if inside(local, top) and os.path.isdir(local) and is_chart_folder(local):
        return local
    found = _PUBLISHED.fullmatch(chart)
    if found is None or os.path.lexists(os.path.join(cwd, chart)):
        return None
    return published.get(found.group("name"))


def _as_shown(path: str) -> str:
    return os.path.relpath(path) if inside(path, os.getcwd()) else path


# What a values file's twin ends with: the file's own name, or it and a suffix that marks a
# file to copy into place (`values-prod.yaml.example`, `values-prod.example.yaml`).
_TWIN_MARKS = ("example", "sample", "dist")
_TWIN_ENDS = (".yaml", ".yml", *(f".{mark}" for mark in _TWIN_MARKS))


def _twin(named: str, names: dict[str, list[str]], top: str, chart: str) -> list[str]:
    """The files of the repository (as the walk listed them, `names`) that a values file
    a command names and the repository lacks may be: a file of the same name elsewhere,
    else its `.example`/`.sample`/`.dist` twin (beside it or elsewhere); never one beside
    another chart's Chart.yaml (that chart's values). Several of a kind: all of them, none
    chosen (the caller says so)."""
    base = os.path.basename(named)
    stem, dot, suffix = base.rpartition(".")

    def fits(path: str) -> bool:
        folder = os.path.realpath(os.path.dirname(path))
        return inside(os.path.realpath(path), top) and (
            folder == chart or not is_chart_folder(folder)
        )

    same = [p for p in names.get(base, ()) if fits(p)]
    if same:
        return sorted(same)
    twins = [f"{base}.{mark}" for mark in _TWIN_MARKS]
    if dot:
        twins += [f"{stem}.{mark}.{suffix}" for mark in _TWIN_MARKS]
    found = [p for twin in twins for p in names.get(twin, ()) if fits(p)]
    return sorted(dict.fromkeys(found))


def _moved(folder: str, before: list[str]) -> str | None:
    """The folder a command runs in after `cd DIR &&` before it on its line."""
    cwd = folder
    for index, word in enumerate(before[:-1]):
        if word.removeprefix("(") in ("cd", "pushd"):
            target = before[index + 1].removesuffix(";")
            if not _literal(target):
                return None
            cwd = os.path.normpath(os.path.join(cwd, target))
    return cwd


def _literal(word: str) -> bool:
    return bool(word) and "$" not in word and "`" not in word and "{{" not in word


def _arguments(
    words: list[str],
    made: list[tuple[str, str, bool]] | None = None,
    shell: list[tuple[str, str, bool]] | None = None,
) -> tuple[list[str], list[str], tuple[str, ...], str | None, tuple[str, ...], bool] | None:
    """A helm command's positional words, values files, `--set` assignments, namespace,
    unread variable words and whether it generates its release's name; None: refused.
    A `--set` of a key to a variable only is kept in `made` (a Makefile's `$(NAME)`) or
    `shell` (`$NAME`), not in the assignments (_asked)."""
    positional: list[str] = []
    values: list[str] = []
    sets: list[str] = []
    unread: list[str] = []
    namespace: str | None = None
    generated = False
    index = 0
    while index < len(words):
        word = words[index]
        if _PLACEHOLDER.fullmatch(word) is not None:
            positional.append(word)  # `<release>`: a release's name is read as none
            index += 1
            continue
        if word in _ENDS or word.startswith((">", "<", "2>", "1>")):
            break
        ended = word.endswith(";")
        word = word.removesuffix(";")
        flag, equals, given = word.partition("=") if word.startswith("--") else (word, "", "")
        if word.startswith("-") and word != "-":
            if flag in _REFUSED:
                return None
            value: str | None = given if equals else None
            if value is None and flag in _VALUED:
                index += 1
                value = words[index].removesuffix(";") if index < len(words) else None
                ended = ended or (index < len(words) and words[index].endswith(";"))
            if flag in {"-g", "--generate-name"}:
                generated = True
            if not _option(flag, value, values, sets, made, shell):
                return None
            if flag in {"-n", "--namespace"}:
                namespace = value if value is not None and _literal(value) else None
        elif _VARIABLE_WORD.fullmatch(word) and len(positional) >= 1:
            unread.append(word)  # `${HELM_OPTIONS}`: flags the caller adds
        else:
            positional.append(word)
        asked = len(made or ()) + (len(shell or ()) if shell is not made else 0)
        if len(values) > MAX_VALUES or len(sets) + asked > MAX_SETS:
            return None
        if ended:
            break
        index += 1
    return positional, values, tuple(sets), namespace, tuple(unread), generated


def _option(
    flag: str,
    value: str | None,
    values: list[str],
    sets: list[str],
    made: list[tuple[str, str, bool]] | None = None,
    shell: list[tuple[str, str, bool]] | None = None,
) -> bool:
    """Read one flag's value into the values files or `--set` entries; False: refused."""
    if flag in {"-f", "--values"}:
        if value is None:
            return False
        values += value.split(",")
    elif flag in {"--set", "--set-string"}:
        asked = made if made is not None else shell
        string = flag == "--set-string"
        if (
            value is not None
            and asked is not None
            and _asked(value, made is not None, string, asked)
        ):
            return True
        if value is None or not _literal(value) or set_value_problem(value) is not None:
            return False
        if any(_PLACEHOLDER_VALUE.search(part.partition("=")[2]) for part in value.split(",")):
            return False  # `--set db.host=<your-host>`: a value the reader is to fill in
        given = (part.partition("=")[2] for part in value.split(","))
        if flag == "--set-string" and any(_RETYPED.fullmatch(v) for v in given):
            return False  # a string `--set` would read as a number or a switch
        sets.append(value)
    elif flag == "--set-literal":
        return False
    return True


def with_installers(
    sources: Sequence[tuple[str, bytes]],
    rendered: list[list[Rendering]],
    options: HelmOptions,
) -> list[list[Rendering]]:
    """The charts' renderings, each chart that Helm cannot render with its defaults
    rendered again with the values its installer's command passes (when the run names no
    values of its own): its KLB003 then an info that says which values made the render,
    each finding's detail too. Such a rendering is not kept in the cache (`uncached`):
    the script and values files it read are not part of the chart's key."""
    if options.values or options.set_values:
        return rendered
    configured = {folder for folder, sets in options.value_sets if sets}
    failing = [
        index
        for index, renderings in enumerate(rendered)
        if _failed(renderings) and os.path.realpath(sources[index][0]) not in configured
    ]
    if not failing:
        return rendered
    tops: dict[str, list[str]] = {}
    for index in failing:
        chart = sources[index][0]
        tops.setdefault(os.path.realpath(repository_of(chart)), []).append(chart)
    found: dict[str, list[Installer]] = {}
    for top, charts in tops.items():
        found.update(installers(charts, top))
    usable = {chart: [c for c in listed if c.unfound is None] for chart, listed in found.items()}
    chosen = [(i, usable[sources[i][0]]) for i in failing if usable.get(sources[i][0])]
    tries: dict[int, list[list[Rendering]]] = {index: [] for index, _ in chosen}
    spent = {index: rendered[index][0].work for index, _ in chosen}  # chart_work.py
    for attempt in range(MAX_TRIED):
        pending = [
            (index, listed)
            for index, listed in chosen
            if attempt < len(listed) and not _settled(rendered[index][0], tries[index])
        ]
        jobs = [
            (sources[index][0], _installed(options, listed[attempt]), sources[index][1])
            for index, listed in pending
        ]
        made = render_charts(jobs, [spent[index] for index, _ in pending]) if jobs else []
        for (index, _), again in zip(pending, made, strict=True):
            tries[index].append(again)
            spent[index] = again[0].work
    done = list(rendered)
    for index, listed in chosen:
        done[index] = _instead(rendered[index][0], tries[index], listed)
        for rendering in done[index]:  # the tries not kept cost the chart all the same
            rendering.work = spent[index]
        tried = [again[0] for again in tries[index] if again]
        stopped_try(done[index][0], tried, "with the values its installer's command gives")
    for index in failing:
        if not usable.get(sources[index][0]) and found.get(sources[index][0]):
            done[index] = [_unfound(rendered[index][0], found[sources[index][0]][0])]
    return done


MAX_TRIED = 3  # commands rendered for one chart, until one deploys a workload


def _installed(options: HelmOptions, used: Installer) -> HelmOptions:
    """The run's options with the values, release and namespace the command gives."""
    return replace(
        options,
        values=used.values,
        set_values=used.sets,
        release=used.release or options.release,
        namespace=used.namespace or options.namespace,
        value_sets=(),
    )


def _rendered(failed: Rendering, again: list[Rendering]) -> Rendering | None:
    """The command's rendering, when it renders more than the defaults did; else None."""
    made = again[0] if len(again) == 1 else None
    if (
        made is None
        or not made.files
        or (failed.files and len(made.left_out) >= len(failed.left_out))
    ):
        return None
    return made


def _settled(failed: Rendering, tries: Sequence[list[Rendering]]) -> bool:
    """Whether a command tried renders the chart with a workload: no other is tried."""
    return any(
        (made := _rendered(failed, again)) is not None and deploys_workload(made) for again in tries
    )


def _unfound(failed: Rendering, used: Installer) -> Rendering:
    """The failure, with an info on the command that would render it but names a values
    file the repository lacks, several of whose files could be it."""
    assert used.unfound is not None
    named, candidates = used.unfound
    listed = ", ".join(candidates[:8]) + (", …" if len(candidates) > 8 else "")
    said = Problem(
        UNRENDERED,
        chart_file(failed.chart),
        1,
        1,
        f"chart {failed.chart}: `helm {used.command}` at {used.path}:{used.line} names the "
        f"values file {named}, which the repository does not hold; it is not rendered with "
        f"that command, as several files could be it: {listed}",
        None,
        Severity.INFO,
        (
            "render it with one of them: --helm-values FILE, or value sets in the configuration "
            "(helm.charts)",
        ),
    )
    return replace(failed, problems=[*failed.problems, said])


def _failed(renderings: Sequence[Rendering]) -> bool:
    """Whether Helm failed on the chart's one rendering, wholly or on templates it was
    rendered without (not a limit of the run, not a chart whose defaults render
    nothing)."""
    if len(renderings) != 1:
        return False
    only = renderings[0]
    failed = any(p.rule == UNRENDERED and p.severity is Severity.WARNING for p in only.problems)
    return (
        not only.stopped
        and bool(only.members)
        and failed
        and (not only.files or bool(only.left_out))
    )


def _instead(
    failed: Rendering, tries: Sequence[list[Rendering]], listed: Sequence[Installer]
) -> list[Rendering]:
    """The rendering with the values of the first command tried that renders a workload
    (else the first that renders), when one renders; else the failure with the first's
    values, said."""
    made_by = [(used, _rendered(failed, again)) for used, again in zip(listed, tries, strict=False)]
    picked = next(
        ((u, m) for u, m in made_by if m is not None and deploys_workload(m)),
        next(((u, m) for u, m in made_by if m is not None), (listed[0], None)),
    )
    used, made = picked
    others = len(listed) - 1
    also = (
        (
            f"{others} other command{'s' if others > 1 else ''} of the repository "
            f"install{'' if others > 1 else 's'} it too",
        )
        if others
        else ()
    )
    first = next(p for p in failed.problems if p.rule == UNRENDERED)
    if made is None:
        tried = tries[0][0] if tries and len(tries[0]) == 1 else None
        reason = next((p.message for p in tried.problems), "") if tried is not None else ""
        note = f"nor with {used.describe()}: {reason}".strip().rstrip(":")
        problems = [
            replace(p, detail=(*p.detail, note)) if p is first else p for p in failed.problems
        ]
        return [replace(failed, problems=problems, installer=used.describe())]
    said = replace(
        first,
        message=f"{first.message}, with its defaults: rendered instead with {used.describe()}",
        severity=Severity.INFO,
        detail=(*also, "the chart's objects are linted as that command installs them"),
    )
    files = ", ".join(used.values) or "its values"
    for named, twin in used.twins:
        files = files.replace(twin, f"{twin} (for {named}, not in the repository)", 1)
    if used.stood:
        files += " and " + ", ".join(f"{key} as <{variable}>" for key, variable in used.stood)
    made.label = f"{files} (`helm {used.command}` at {used.path}:{used.line})"
    made.uncached = True
    made.installer = used.describe()
    made.problems = [said, *made.problems]
    return [made]
