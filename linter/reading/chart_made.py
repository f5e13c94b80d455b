"""Charts as their build makes them: the chart committed is an input to a build step, and
what Helm installs is its output.

- A chart file the build writes Chart.yaml from: a folder with `templates/` and a
  values.yaml whose only chart file is a template of one (`Chart-template.yaml`,
  `Chart.yaml.tmpl`, `Chart.tpl.yaml`, `Chart.yaml.in`: a word of its name says it is a
  template; a Makefile's `envsubst < Chart-template.yaml > Chart.yaml`) is a chart,
  rendered with that file as its Chart.yaml, each placeholder in it (`${VERSION}`,
  `$VERSION`, `{{ .Version }}`) stood in for: a version Helm accepts (STAND_IN_VERSION)
  under a version key, else a word made of the placeholder's name.
- Maven's resource filtering: a chart folder that the nearest pom.xml above it copies with
  `<filtering>true</filtering>` (a `<resource>` whose `<directory>` is the folder or one
  above it, with no `<includes>` or `<excludes>` to weigh) has each `${name}` of its files
  that the POM or its parents define put in, as Maven writes it (maven_poms.py: its
  properties, its coordinates); one they do not define is left as written, as Maven
  leaves it.
- Either way, a placeholder left under a version key of a Chart.yaml (`version:
  ${project.version}`, which Helm refuses) is stood in for.

All in memory: nothing is written. The chart is said once, at info, to be rendered so.
Bounded: MAX_PLACEHOLDERS a chart file, MAX_RESOURCES `<resource>` blocks of one POM,
maven_poms' MAX_DEPTH parents, and a filled file at most MAX_GROWTH times its size."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from k8slb.core import regex
from k8slb.reading.bounded import read_bounded
from k8slb.reading.maven_poms import (
    MAX_DEPTH,
    MAX_POM,
    Pom,
    filtered_value,
    module_chain,
    parent_path,
    read_pom,
    without_comments,
)
from k8slb.reading.repository import inside, repository_of, upward

CHART_FILES = ("Chart.yaml", "Chart.yml")
VALUES_FILES = ("values.yaml", "values.yml")
# A word of a file's name (past `Chart`) that says it is a template of one
MADE_WORDS = frozenset(
    {"template", "templ", "tmpl", "tpl", "in", "j2", "jinja", "jinja2", "gotmpl"}
)
VERSION_KEYS = frozenset({"version", "appVersion", "kubeVersion"})
STAND_IN_VERSION = "0.0.0"
MAX_PLACEHOLDERS = 200  # put in or stood in for, in one chart file
MAX_RESOURCES = 200  # `<resource>` blocks of one POM read
MAX_GROWTH = 4  # a file filled with a POM's properties: at most this many times its size
MAX_SAID = 4  # placeholders the chart's info names
_FILTERING = regex.compile(r"<filtering>\s*true\s*</filtering>")
_MAVEN_PROPERTY = regex.compile(r"\$\{([\w.-]{1,200})\}")
_WORD_BREAK = regex.compile(r"[^a-z0-9]+")


def made_chart_name(names: Iterable[str]) -> str | None:
    """The file among a folder's (by name) that a build writes its Chart.yaml from, when
    the folder has no Chart.yaml and has a values.yaml; None otherwise."""
    listed = list(names)
    if any(name in CHART_FILES for name in listed):
        return None
    if not any(name in VALUES_FILES for name in listed):
        return None
    return next((name for name in sorted(listed) if is_made_name(name)), None)


def is_made_name(name: str) -> bool:
    """`Chart-template.yaml`, `Chart.yaml.tmpl`, `chart.tpl.yml`: `Chart`, then words of
    which one is `yaml` (or `yml`) and one says the file is a template."""
    lower = name.lower()
    if not lower.startswith("chart") or lower[5:6] not in (".", "-", "_"):
        return False
    words = set(_WORD_BREAK.split(lower[6:]))
    return bool(words & {"yaml", "yml"}) and bool(words & MADE_WORDS)


def made_chart_file(folder: str) -> str | None:
    """The file a build writes the folder's Chart.yaml from (its path), when the folder
    is a chart but for that: it has `templates/` and a values.yaml, no Chart.yaml."""
    if not os.path.isdir(os.path.join(folder, "templates")) or not any(
        os.path.isfile(os.path.join(folder, name)) for name in VALUES_FILES
    ):
        return None
    try:
        with os.scandir(folder) as listing:
            names = [entry.name for entry in listing if entry.is_file()]
    except OSError:
        return None
    made = made_chart_name(names)
    return os.path.join(folder, made) if made is not None else None


def stood_in(
    text: str, value: Callable[[str], str | None], *, every: bool
) -> tuple[str, dict[str, str]]:
    """A chart file's text with its placeholders put in (`value` of the name) or stood in
    for: every one (`every`: a template of Chart.yaml, all of which the build fills), else
    those under a version key only (what Helm refuses); and what each placeholder became."""
    lines = text.splitlines(keepends=True)
    said: dict[str, str] = {}
    for number, line in enumerate(lines):
        key = _key(line)
        if key is None or not (every or key in VERSION_KEYS):
            continue
        parts, at = [], 0
        for start, end, name in _placeholders(line):
            if len(said) >= MAX_PLACEHOLDERS:
                break
            known = value(name)
            if known is None:
                known = STAND_IN_VERSION if key in VERSION_KEYS else _word(name)
            said.setdefault(line[start:end], known)
            parts += [line[at:start], known]
            at = end
        if parts:
            lines[number] = "".join(parts) + line[at:]
    return "".join(lines), said


def _key(line: str) -> str | None:
    """The key of a YAML line (`key: value`, `- key: value`); None for a comment."""
    text = line.lstrip()
    if text.startswith("#"):
        return None
    if text.startswith("- "):
        text = text[2:].lstrip()
    return text.partition(":")[0].strip().strip("\"'")


def _placeholders(line: str) -> list[tuple[int, int, str]]:
    """Where each placeholder of a line starts and ends, and its name: `${NAME}`,
    `$NAME` (envsubst's), `{{ .Name }}` (a Go template's). One pass."""
    found: list[tuple[int, int, str]] = []
    at, size = 0, len(line)
    while at < size:
        dollar, braces = line.find("$", at), line.find("{{", at)
        if dollar < 0 and braces < 0:
            break
        if braces >= 0 and (dollar < 0 or braces < dollar):
            end = line.find("}}", braces + 2)
            if end < 0:
                break
            found.append((braces, end + 2, line[braces + 2 : end].strip(" -.")))
            at = end + 2
        elif line.startswith("${", dollar):
            end = line.find("}", dollar + 2)
            if end < 0:
                break
            found.append((dollar, end + 1, line[dollar + 2 : end]))
            at = end + 1
        else:
            end = dollar + 1
            while end < size and (line[end].isalnum() or line[end] == "_") and line[end].isascii():
                end += 1
            if end > dollar + 1 and not line[dollar + 1].isdigit():
                found.append((dollar, end, line[dollar + 1 : end]))
            at = end
    return found


def _word(name: str) -> str:
    """A stand-in made of a placeholder's name: `SUBSTRATE_REPO` is `substrate-repo`."""
    return _WORD_BREAK.sub("-", name.lower()[:60]).strip("-") or "stand-in"


def filtering_pom(chart: str) -> tuple[str, Callable[[str], str | None]] | None:
    """The pom.xml (its path, shown as `chart` is) whose resource filtering copies the
    chart's folder, and what it puts for each `${name}`: the nearest POM above the chart
    (its module), when one of its `<resource>`s filters the folder whole."""
    top = repository_of(chart)
    own = os.path.abspath(chart)
    for folder in upward(own, top):
        path = os.path.join(folder, "pom.xml")
        if not os.path.isfile(path):
            continue
        module = _read(path)
        text = _text(path)
        within = Path(os.path.relpath(own, folder)).as_posix()
        if module is None or text is None or not _filters(without_comments(text), within):
            return None
        poms = [module]
        while len(poms) <= MAX_DEPTH:
            above = parent_path(poms[-1])
            if above is None or not inside(above, top) or any(p.path == above for p in poms):
                break
            parent = _read(above)
            if parent is None:
                break
            poms.append(parent)
        shown = os.path.normpath(os.path.join(chart, os.path.relpath(path, own)))
        return shown, filtered_value(module_chain(module, poms))
    return None


def _text(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = read_bounded(handle, MAX_POM)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if data is not None else None


def _read(path: str) -> Pom | None:
    text = _text(path)
    return read_pom(os.path.normpath(path), text) if text is not None else None


def _filters(text: str, within: str) -> bool:
    """Whether a `<resource>` of the POM filters the folder `within` (its path in the
    module) whole: its `<directory>` (from the module, `${project.basedir}/` or not) is
    that folder or one above it, filtering is on, and no pattern picks its files."""
    at = 0
    for _ in range(MAX_RESOURCES):
        start = text.find("<resource>", at)
        end = text.find("</resource>", start) if start >= 0 else -1
        if end < 0:
            return False
        body, at = text[start:end], end
        if "<includes>" in body or "<excludes>" in body or not _FILTERING.search(body):
            continue
        opened = body.find("<directory>")
        closed = body.find("</directory>", opened)
        if opened < 0 or closed < 0:
            continue
        directory = body[opened + len("<directory>") : closed].strip()
        for prefix in ("${project.basedir}/", "${basedir}/"):
            directory = directory.removeprefix(prefix)
        if "${" in directory or directory.startswith("/"):
            continue
        directory = os.path.normpath(directory)
        if directory == "." or within == directory or within.startswith(directory + "/"):
            return True
    return False


def filled(
    members: Mapping[str, bytes], value: Callable[[str], str | None]
) -> tuple[dict[str, bytes], dict[str, str]]:
    """The chart's files as Maven's filtering writes them: each `${name}` the POMs define
    put in (a file that would grow past MAX_GROWTH times its size kept as it is), and what
    each placeholder became."""
    out: dict[str, bytes] = {}
    said: dict[str, str] = {}
    for member, data in members.items():
        out[member] = data
        if b"${" not in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # Maven would filter it too, but nothing here reads it as text
        put: dict[str, str] = {}

        def put_in(found: regex.Match[str], put: dict[str, str] = put) -> str:
            known = value(found[1])
            if known is None:
                return found[0]
            put[found[0]] = known
            return known

        new = _MAVEN_PROPERTY.sub(put_in, text)
        if put and len(new) <= MAX_GROWTH * len(text):
            out[member] = new.encode()
            for placeholder, known in put.items():
                said.setdefault(placeholder, known)
    return out, said


def as_built(
    members: Mapping[str, bytes],
    pom: tuple[str, Callable[[str], str | None]] | None,
    shown: Callable[[str], str],
) -> tuple[dict[str, bytes], str | None]:
    """The chart's files as its build makes them (the POM that filters it, when one does:
    `filtering_pom`), each chart of them (the chart's, a subchart's under charts/) given
    the Chart.yaml its template makes; and a sentence saying what was put in (a member
    named as `shown` gives its file), or None when the chart is as committed."""
    built = dict(members)
    said: dict[str, str] = {}
    if pom is not None:
        built, said = filled(members, pom[1])
    made_from: list[str] = []
    for folder, names in _chart_folders(built).items():
        real = next((name for name in CHART_FILES if name in names), None)
        made = made_chart_name(names) if real is None else None
        name = real or made
        if name is None or (made is not None and not _has_templates(built, folder)):
            continue
        try:
            text = built[folder + name].decode("utf-8")
        except UnicodeDecodeError:
            continue
        new, put = stood_in(text, lambda _: None, every=made is not None)
        for placeholder, known in put.items():
            said.setdefault(placeholder, known)
        if made is not None:
            built[folder + "Chart.yaml"] = new.encode()
            made_from.append(shown(folder + made))
        elif new != text:
            built[folder + name] = new.encode()
    if not said and not made_from:
        return dict(members), None
    parts = [f"Chart.yaml made from {_listed(made_from)}"] if made_from else []
    if said:
        source = f" (from {pom[0]} and its parents, else stood in for)" if pom else ""
        parts.append(_listed([f"{put} as {known!r}" for put, known in said.items()]) + source)
    return built, "; ".join(parts)


def _listed(items: list[str]) -> str:
    more = f" and {len(items) - MAX_SAID} more" if len(items) > MAX_SAID else ""
    return ", ".join(items[:MAX_SAID]) + more


def _chart_folders(members: Mapping[str, bytes]) -> dict[str, list[str]]:
    """The chart's folder ("") and each subchart's (`charts/web/`), with its files' names."""
    folders: dict[str, list[str]] = {"": []}
    for member in members:
        folder, _, name = member.rpartition("/")
        above = folder.rpartition("/")[0]
        if not folder:
            folders[""].append(name)
        elif above == "charts" or above.endswith("/charts"):
            folders.setdefault(f"{folder}/", []).append(name)
    return folders


def _has_templates(members: Mapping[str, bytes], folder: str) -> bool:
    return any(member.startswith(f"{folder}templates/") for member in members)
