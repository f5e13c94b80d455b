"""Values the repository's install command sets from its environment: a chart whose
templates read a key that no values file it is rendered with gives (`app.kubernetes.io/
version: {{ .Values.tag }}` in every object's labels), because the command that installs
it passes it (`helm install ... --set tag=$CIRCLE_SHA1`: an image's tag, a version, a
commit's hash), renders that key empty, and every object whose label, image or name it
writes reads as a wrong shape (KLB002) and is left out of the rules.

Such a command is not rendered with (chart_installers.py: its `$VAR` is CI's, unknown
here; or it names a values file CI writes, which the repository lacks), but it is
evidence that the key is set at install, to a string: a shell's variable holds text. So
a chart rendered without that command's values (its defaults, a values file beside it:
chart_values_beside.py) is rendered again with a stand-in string for each such key
(STAND_IN_PREFIX and the variable's name: `K8slb-given-CIRCLE_SHA1`) when:

- no values file of the render (its values.yaml, the files it was rendered with), nor a
  `--set` of it, gives the key, whose first part names neither `global` nor a dependency
  of the chart (a subchart reads its values under its own name);
- every action of the chart's own files that reads the key only writes its text where it
  stands, as chart_stand_ins.py asks of a missing subchart's templates: `{{ .Values.tag
  }}`, piped through functions that only change text (`quote`, `trunc`, `printf`, ...;
  TEXT_FUNCTIONS), inside a larger string, or put in a variable whose every use does the
  same. Not in a condition, a loop, a comparison, a default, `toYaml`/`indent`, nor read
  as a map (`.Values.tag.x`), and no action reads the map that holds it whole (`.Values`,
  `index .Values "tag"`, `with .Values.image` for `image.tag`): there the real value's
  type and text decide what is written;
- the render with the stand-ins fails on no more templates than the one it replaces, and
  no rendered object holds a stand-in where its shape is wrong (a number, a switch: a
  KLB002 on a line that holds one) or in text that no longer parses.

Kept, the chart's KLB003 that names its render (or a new one, at info) says which keys
were stood in for and which command sets them, and so does each finding's detail; the
rendering is not cached (the command is no file of the chart).

Bounded: MAX_KEYS keys a chart, one render more a chart (within the run's budget of work,
chart_work.py), MAX_ACTION characters of an action read (a longer one that names the key
refuses it), MAX_VALUES_BYTES of each values file read."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.reading.bounded import read_bounded
from k8slb.reading.build_files import yaml_documents
from k8slb.reading.chart_installers import STAND_IN_PREFIX, Installer, installers
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    chart_file,
    render_charts,
    stopped_try,
)
from k8slb.reading.manifests import load_manifests
from k8slb.reading.repository import repository_of

MAX_KEYS = 8  # keys stood in for, in one chart
MAX_ACTION = 1000  # characters of one template action read
MAX_VALUES_BYTES = 1024 * 1024  # of a values file read for the keys it gives
# Functions that only change the text they are given: what they write is text still.
TEXT_FUNCTIONS = frozenset(
    {
        "quote",
        "squote",
        "print",
        "printf",
        "toString",
        "trunc",
        "trim",
        "trimAll",
        "trimPrefix",
        "trimSuffix",
        "lower",
        "upper",
        "title",
        "replace",
        "cat",
        "nospace",
        "substr",
        "abbrev",
        "kebabcase",
        "snakecase",
    }
)
_ACTION = regex.compile(r"\{\{-?((?s:.){0,1000}?)-?\}\}")  # MAX_ACTION
# An action's words: a string, a field chain (`.Values.tag`, `$.Values.tag`, `$v.x`), a
# variable, a function's or a keyword's name, a number, an operator.
_TOKEN = regex.compile(
    r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)*\'|'
    r"\$?[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\$[A-Za-z0-9_]*|"
    r"[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9.]*|:=|=|\||\(|\)|,|\S"
)
_IDENTIFIER = regex.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VARIABLE = regex.compile(r"^\$[A-Za-z_][A-Za-z0-9_]*$")


def with_install_sets(
    sources: Sequence[tuple[str, bytes]],
    rendered: list[list[Rendering]],
    options: HelmOptions,
) -> list[list[Rendering]]:
    """The charts' renderings, each rendered again with a stand-in string for the keys a
    command of the repository sets from its environment that its values leave unset,
    where that is sound (the module's rules)."""
    if options.values or options.set_values:
        return rendered  # the run sets values itself: as it says
    configured = {folder for folder, sets in options.value_sets if sets}
    candidates = [
        index
        for index, renderings in enumerate(rendered)
        if _open(renderings) and os.path.realpath(sources[index][0]) not in configured
    ]
    if not candidates:
        return rendered
    tops: dict[str, list[str]] = {}
    for index in candidates:
        chart = sources[index][0]
        tops.setdefault(os.path.realpath(repository_of(chart)), []).append(chart)
    found: dict[str, list[Installer]] = {}
    for top, charts in tops.items():
        found.update(installers(charts, top, refused=True))
    wanted: list[tuple[int, list[tuple[str, str, Installer]]]] = []
    for index in candidates:
        keys = _unset_keys(rendered[index][0], found.get(sources[index][0], []))
        if keys:
            wanted.append((index, keys))
    if not wanted:
        return rendered
    jobs = [
        (sources[index][0], _with(rendered[index][0].options, keys), sources[index][1])
        for index, keys in wanted
    ]
    made = render_charts(jobs, [rendered[index][0].work for index, _ in wanted])
    done = list(rendered)
    for (index, keys), again in zip(wanted, made, strict=True):
        before = rendered[index][0]
        if len(again) == 1 and _kept(before, again[0], keys):
            done[index] = [_said(before, again[0], keys)]
        done[index][0].work = again[0].work if again else before.work
        stopped_try(done[index][0], list(again[:1]), "with a stand-in string for a key")
    return done


def _open(renderings: Sequence[Rendering]) -> bool:
    """Whether the chart's one rendering is one no install command made (its defaults,
    a values file beside it), not stopped by a limit of the run."""
    if len(renderings) != 1:
        return False
    only = renderings[0]
    return not only.stopped and bool(only.members) and only.installer is None


def _stand_in(variable: str) -> str:
    return f"{STAND_IN_PREFIX}{variable}"


def _with(options: HelmOptions, keys: Sequence[tuple[str, str, Installer]]) -> HelmOptions:
    given = (f"{key}={_stand_in(variable)}" for key, variable, _ in keys)
    return replace(options, set_values=(*options.set_values, *given), value_sets=())


def _unset_keys(
    rendering: Rendering, commands: Sequence[Installer]
) -> list[tuple[str, str, Installer]]:
    """The keys the commands set to a variable (each with its variable and the first
    command that sets it) that the rendering's values leave unset and that its templates
    only write as text; at most MAX_KEYS."""
    asked: dict[str, tuple[str, Installer]] = {}
    for command in commands:
        for key, variable in command.given:
            asked.setdefault(key, (variable, command))
    if not asked:
        return []
    values = _values(rendering)
    if values is None:
        return []
    keys = []
    for key, (variable, command) in asked.items():
        parts = key.split(".")
        if _depended(parts[0], rendering.members) or _given(values, parts, rendering.options):
            continue
        if writes_text_only(parts, rendering.members):
            keys.append((key, variable, command))
    return keys[:MAX_KEYS]


def _values(rendering: Rendering) -> list[Any] | None:
    """The values the rendering was rendered with, as data: its values.yaml and each
    values file; None when one cannot be read (what it gives is not known)."""
    texts: list[tuple[str, bytes]] = []
    own = next((n for n in ("values.yaml", "values.yml") if n in rendering.members), None)
    if own is not None:
        texts.append((own, rendering.members[own]))
    for path in rendering.options.values:
        try:
            with open(path, "rb") as handle:
                data = read_bounded(handle, MAX_VALUES_BYTES)
        except OSError:
            return None
        if data is None:
            return None
        texts.append((path, data))
    found = []
    for path, data in texts:
        if len(data) > MAX_VALUES_BYTES:
            return None
        documents = list(yaml_documents(path, data.decode("utf-8", "replace")))
        if len(documents) > 1 or (documents and not isinstance(documents[0], dict | None)):
            return None
        found += documents[:1]
    return found


def _given(values: Iterable[Any], parts: Sequence[str], options: HelmOptions) -> bool:
    """Whether a values file or a `--set` of the render gives the key (or writes another
    value where its map would be)."""
    key = ".".join(parts)
    for assignment in options.set_values:
        for each in assignment.split(","):
            named = each.partition("=")[0]
            if named == key or key.startswith(f"{named}.") or named.startswith(f"{key}."):
                return True
    for data in values:
        here: Any = data
        for part in parts:
            if not isinstance(here, dict):
                break
            here = here.get(part)
        if here is not None:
            return True
    return False


def _depended(first: str, members: Mapping[str, bytes]) -> bool:
    """Whether a key's first part is `global` or names a dependency of the chart (a
    folder or archive under charts/, or a name or alias in its Chart.yaml): values a
    subchart reads under names of its own."""
    if first == "global" or any(m.startswith(f"charts/{first}") for m in members):
        return True
    metadata = members.get("Chart.yaml", b"")[:65536].decode("utf-8", "replace")
    named = regex.compile(
        r"(?m)^(?:[ \t]+-?|[ \t]*-)[ \t]*(?:name|alias):[ \t]*[\"']?" + regex.escape(first)
    )
    return named.search(metadata) is not None


def writes_text_only(parts: Sequence[str], members: Mapping[str, bytes]) -> bool:
    """Whether every action of the chart's own files (not a subchart's) that reads the key
    `.Values.<parts>` only writes its text (module docstring), no action reads a map that
    holds it whole, and one action at least reads it."""
    key = ".Values." + ".".join(parts)
    holders = {".Values", ".Values.AsMap"} | {
        ".Values." + ".".join(parts[:n]) for n in range(1, len(parts))
    }
    used = False
    for member, data in members.items():
        folders = member.split("/")[:-1]
        if "templates" not in folders or folders[0] == "charts" or b".Values" not in data:
            continue  # (a subchart's templates read values of their own)
        text = data.decode("utf-8", "replace")
        verdict = _file_writes_text(text, key, holders)
        if verdict is None:
            return False
        used = used or verdict
    return used


def _file_writes_text(text: str, key: str, holders: set[str]) -> bool | None:
    """For one file: None when an action reads the key other than as text (or reads a
    map that holds it); else whether one reads it."""
    bodies = [found.group(1) for found in _ACTION.finditer(text)]
    if text.count(key) != sum(body.count(key) for body in bodies):
        return None  # a read in an action longer than MAX_ACTION, or outside one
    actions = [_tokens(body) for body in bodies if not body.lstrip().startswith("/*")]
    variables: set[str] = set()
    for words in actions:  # `$tag := .Values.tag`: the variable's uses are the key's too
        chains = [_chain(word) for word in words]
        if len(words) >= 3 and words[1] == ":=" and key in chains and _VARIABLE.match(words[0]):
            variables.add(words[0])
    used = False
    for words in actions:
        reads = _reads(words, key, holders, variables)
        if reads is None:
            return None
        used = used or reads
    return used


def _tokens(body: str) -> list[str]:
    return [found.group(0) for found in _TOKEN.finditer(body.strip().strip("-"))]


def _chain(word: str) -> str:
    """A field chain as read from the top (`$.Values.tag` is `.Values.tag`)."""
    return word[1:] if word.startswith("$.") else word


def _reads(words: list[str], key: str, holders: set[str], variables: set[str]) -> bool | None:
    """Whether one action reads the key (or a variable holding it), only as text; None
    when it reads it otherwise, or reads a map holding it."""
    reads = False
    for index, word in enumerate(words):
        chain = _chain(word)
        if chain in holders:
            return None
        if chain.startswith(f"{key}."):
            return None  # read as a map
        name = chain.split(".", 1)[0]
        if name in variables:
            if chain != name:
                return None  # `$tag.x`
            if index + 1 < len(words) and words[index + 1] in {":=", "="} and key not in words:
                return None  # given another value
        reads = reads or chain == key or name in variables
    if not reads:
        return False
    for word in words:
        if _IDENTIFIER.match(word) and word not in TEXT_FUNCTIONS:
            return None  # a keyword (`if`, `range`), or a function that decides or retypes
        if word == "=":
            return None
    return True


def _kept(before: Rendering, made: Rendering, keys: Sequence[tuple[str, str, Installer]]) -> bool:
    """Whether the render with stand-ins is kept: it renders, fails on no more templates,
    and holds no stand-in where an object's shape is wrong or text that does not parse."""
    if made.stopped or not made.files:
        return False
    if before.files and len(made.left_out) > len(before.left_out):
        return False
    tokens = [_stand_in(variable) for _, variable, _ in keys]
    for path, text in made.files.items():
        if not any(token in text for token in tokens):
            continue
        lines = text.splitlines()
        problems = load_manifests(path, text.encode()).problems
        for problem in problems:
            if problem.rule == "KLB001" and problem.rule not in _rules(before, path):
                return False
            held = lines[problem.line - 1] if 0 < problem.line <= len(lines) else ""
            if problem.rule == "KLB002" and any(token in held for token in tokens):
                return False
    return True


def _rules(rendering: Rendering, path: str) -> set[str]:
    text = rendering.files.get(path)
    if text is None:
        return set()
    return {p.rule for p in load_manifests(path, text.encode()).problems}


def _said(
    before: Rendering, made: Rendering, keys: Sequence[tuple[str, str, Installer]]
) -> Rendering:
    """The rendering with stand-ins, its KLB003 that names the render saying so (a new
    one at info where none did), each failure of the one before that it mended too."""
    names = ", ".join(key for key, _, _ in keys)
    setters = "; ".join(
        f"`helm {c.command}` at {c.path}:{c.line} sets {key} to ${variable}"
        for key, variable, c in keys
    )
    how = f"a stand-in string for {names}, which no values file of the render gives ({setters})"
    still = {made.path_of(member) for member in made.left_out} | {
        p.path for p in made.problems if p.rule == UNRENDERED and p.severity is Severity.WARNING
    }
    problems: list[Problem] = []
    named = False
    for problem in before.problems:
        if problem in made.problems:
            continue
        if problem.rule != UNRENDERED:
            if problem.severity is not Severity.WARNING:
                problems.append(problem)  # what else was said of its values
            continue
        if problem.severity is Severity.WARNING:
            if problem.path not in still:
                problems.append(
                    replace(problem, message=f"{problem.message}: rendered instead with {how}")
                )
                problems[-1] = replace(problems[-1], severity=Severity.INFO)
            continue
        if not named:
            problem = replace(problem, message=f"{problem.message}; and with {how}")
            named = True
        problems.append(problem)
    if not named:
        problems.insert(0, _note(before.chart, how))
    made.problems = [*problems, *made.problems]
    made.label = (f"{before.label}, and " if before.label else "") + how
    made.uncached = True  # the command is no file of the chart
    made.installer = before.installer
    return made


def _note(chart: str, how: str) -> Problem:
    return Problem(
        UNRENDERED,
        chart_file(chart),
        1,
        1,
        f"chart {chart}: rendered with {how}",
        None,
        Severity.INFO,
        (
            "the command sets it at install from its environment; its objects are linted "
            "with that stand-in in its place",
            "give the value (--helm-set, --helm-values) to lint it as installed",
        ),
    )
