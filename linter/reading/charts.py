"""Helm charts: found, packed and rendered with Helm's own engine, so that the manifests
they produce are linted (chart_findings.py puts each finding back on its template line).

A folder with a `Chart.yaml` is a chart. It is rendered with helm-python-sdk (Helm v4's Go
SDK in a C library, no binary needed; `pip install 'k8slb[helm]'`), else with a `helm`
binary on PATH (`helm template`), else it is reported once (KLB003, info) and skipped. The
library is used only in a child process with a time limit (render_process.py): a chart is
code, and Go's runtime does not survive a fork.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.reading.bounded import read_bounded
from k8slb.reading.chart_made import (
    as_built,
    filtering_pom,
    is_made_name,
    made_chart_file,
    made_chart_name,
    stood_in,
)
from k8slb.reading.chart_packages import is_package, packed, unpacked
from k8slb.reading.chart_schema import Reach, reaching_out, without_schemas
from k8slb.reading.chart_stand_ins import (
    MAX_STOOD,
    lacking_prefix,
    may_stand_in,
    misplaced,
    stand_in_text,
    with_stand_ins,
)
from k8slb.reading.chart_work import Work, affordable, cost, spent_detail
from k8slb.reading.file_digest import content_digest
from k8slb.reading.repository import git_top, repository_of, upward

CHART_FILES = ("Chart.yaml", "Chart.yml")
UNRENDERED = "KLB003"  # a chart Helm cannot render, or that nothing here can render
HELM_TIMEOUT = 60  # seconds a `helm template` may take
MAX_CHART_BYTES = 64 * 1024 * 1024  # all of a chart's files together
# Helm names the template and the place of an error: `template: chart/templates/x.yaml:12:3`.
_HELM_PLACE = regex.compile(
    r"(?P<file>[\w.\-/]+\.(?:ya?ml|tpl|txt)):(?P<line>\d+)(?::(?P<col>\d+))?"
)

# Helm's loader names a chart's own file it cannot read (`cannot load values.yaml: ... yaml:
# line 2: ...`) or a Chart.yaml field it refuses, behind the subcharts it was unpacking.
_SUBCHART = regex.compile(r"error unpacking subchart (?P<name>[^\s:]+) in [^\s:]+: ")
_UNLOADED = regex.compile(r"cannot load (?P<file>[\w.\-]+): ")
_YAML_LINE = regex.compile(r"\byaml: line (?P<line>\d+)")
_REFUSED_FIELD = regex.compile(r"validation: chart\.metadata\.(?P<key>\w+) ")


_REASON_LINES = 6  # of a message of several lines (schema violations), in a finding
_TEST_HOOK = regex.compile(r"""^\s*["']?helm\.sh/hook["']?\s*:\s*["']?test""", regex.MULTILINE)
_ERROR_LINE = regex.compile(r"\bline (\d+)")  # where a values file's YAML error is
_RENDERED_DOCUMENT = regex.compile(r"^---\s*$", regex.MULTILINE)  # in `helm template`'s output
# A document marker with text after it on its line (`---apiVersion: v1`, what a `range`
# whose `-}}` ate the newline renders): Helm splits a template's output at `---` wherever a
# line starts with it (releaseutil.SplitManifests: `(?:^|\s*\n)---\s*`), YAML only where
# a space or the line's end follows.
_GLUED_DOCUMENT = regex.compile(r"^---[ \t]*(\S)", regex.MULTILINE)
_SOURCE = regex.compile(r"^# Source: (.+)$", regex.MULTILINE)  # the template a document is of
# A Chart.yaml's own name, at the top level
_CHART_NAME = regex.compile(r"""(?m)^name:[ \t]*["']?([A-Za-z0-9][\w.\-]{0,200})""")
# How deep subcharts are followed when their folders are named apart from their charts
_SUBCHART_DEPTH = 8
_API_VERSION = regex.compile(r"apiVersion:\s*[\"']?([^\s\"'#]+)")


@record
class HelmOptions:
    """How to render: value files (after the chart's values.yaml), `--set` values, and the
    release's name (default: the chart's) and namespace."""

    values: tuple[str, ...] = ()
    set_values: tuple[str, ...] = ()
    release: str | None = None
    namespace: str = "default"
    # Per chart (its folder, resolved), the value sets to render it with, each linted on
    # its own: files relative to the chart, after its values.yaml.
    value_sets: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    skip_schema: bool = False  # render without the values schemas (--helm-skip-schema-validation)


@dataclass
class Rendering:
    """A chart's rendered manifests, by the path of the template that wrote each."""

    chart: str  # the chart's folder, as shown
    files: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # path -> Helm's name for it
    problems: list[Problem] = field(default_factory=list)
    values_files: list[str] = field(default_factory=list)  # as shown, in merge order
    label: str | None = None  # the value set, when the chart is rendered with several
    variant: int = 0  # which of them (findings of different sets are judged apart)
    options: HelmOptions = field(default_factory=HelmOptions)  # as rendered
    members: dict[str, bytes] = field(default_factory=dict)  # the chart's files, as rendered
    # Stopped by a limit of the run (time, memory, the run's budget): another run may
    # render it, so it is not kept in the cache.
    stopped: bool = False
    # Rendered with files the chart's cache key does not cover (the values its installer's
    # command passes: chart_installers.py): rendered again every run, not kept.
    uncached: bool = False
    # The dependencies packed from a folder of their own (linked_tree): the members'
    # prefix (`charts/common/`, `charts/web/charts/common/`) -> that folder, as shown.
    linked: dict[str, str] = field(default_factory=dict)
    # Helm's name of a subchart's folder that is not the folder of its files (a chart
    # named apart from its folder, an `alias:` of a dependency) -> that folder, as the
    # chart's members name it (subchart_folders).
    renamed: dict[str, str] = field(default_factory=dict)
    # Rendered without values: the chart has no values.yaml, only this file (a template
    # of its values, or values for a setting), and no values file was given.
    values_stand_in: str | None = None
    # The templates (members) Helm failed on, the chart rendered without them: each is a
    # KLB003 of `problems`.
    left_out: list[str] = field(default_factory=list)
    # The repository's command it was rendered (or tried) with (chart_installers.py).
    installer: str | None = None
    # A chart other charts of the run use from its folder (`file://../base`) and that no
    # command installs alone: one that uses it (chart_dependencies.py). Rendered alone with
    # its own defaults, its objects are no release's: what its users say at the same place
    # is said of theirs.
    dependency_of: str | None = None
    # What the chart's renders have cost in the run, this rendering's and those of the
    # renderings tried before it (chart_work.py): what a further try may still spend.
    work: Work = field(default_factory=Work)
    # member_of's index of `linked` (made of that very dict): each folder -> its prefix
    _folders: tuple[dict[str, str], dict[str, str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def path_of(self, member: str) -> str:
        """The file a member of the chart (as packed) is, as shown."""
        return _member_path(self.chart, member, self.linked)

    def member_of(self, path: str) -> str:
        """The member of the chart (as packed) that a file shown is: of the deepest linked
        folder it is in (a folder may hold another's), found among the folders above it
        rather than by asking each of up to MAX_LINKED folders for each template."""
        if self._folders is None or self._folders[0] is not self.linked:
            index: dict[str, str] = {}  # each folder (absolute) -> its first prefix
            for prefix, folder in self.linked.items():
                index.setdefault(os.path.abspath(folder), prefix)
            self._folders = (self.linked, index)
        index = self._folders[1]
        at = os.path.abspath(path) if index else ""
        while at:
            found = index.get(at)
            if found is not None:
                inside = os.path.relpath(path, self.linked[found])
                if not inside.startswith(".."):
                    return found + Path(inside).as_posix()
            up = os.path.dirname(at)
            at = up if up != at else ""
        return Path(os.path.relpath(path, self.chart)).as_posix()

    def is_linked(self, member: str) -> bool:
        return any(member.startswith(prefix) for prefix in self.linked)


def subchart_folders(members: Mapping[str, bytes]) -> dict[str, str]:
    """Helm's name of each vendored subchart's folder whose name is not its chart's
    (`charts/batch-server/`, Helm's, for the folder `charts/batch/` whose Chart.yaml says
    `name: batch-server`) -> the folder, as the chart's members name it: Helm names a
    subchart's templates by its chart's name, the tree by its folder's."""
    helm_name: dict[str, str] = {"": ""}  # a member folder ("" the chart) -> Helm's
    charts = sorted(
        (name[: -len("/Chart.yaml")], data)
        for name, data in members.items()
        if name.endswith("/Chart.yaml") and name.count("charts/") <= _SUBCHART_DEPTH
    )
    renamed: dict[str, str] = {}
    for folder, data in charts:  # a parent's folder sorts before its subcharts'
        above, _, own = folder.rpartition("/")
        parent = above.removesuffix("charts").removesuffix("/")
        if not above.endswith("charts") or parent not in helm_name:
            continue
        found = _CHART_NAME.search(data[:65536].decode("utf-8", "replace"))
        name = found.group(1) if found is not None else own
        helm = f"{helm_name[parent]}/charts/{name}".lstrip("/")
        helm_name[folder] = helm
        if helm != folder:
            renamed[f"{helm}/"] = f"{folder}/"
    renamed.update(_aliased(members, renamed))
    return renamed


def _aliased(members: Mapping[str, bytes], renamed: Mapping[str, str]) -> dict[str, str]:
    """Each `alias:` of a dependency the chart's Chart.yaml declares (`charts/web/`, as
    Helm names the copy of the subchart it renders under that name) -> the folder of the
    subchart it copies, as the members name it (`charts/base/`, vendored, or packed from
    `file://../base`), when the chart has that folder and no folder of the alias's name."""
    data = members.get("Chart.yaml") or members.get("Chart.yml") or b""
    if b"alias" not in data or len(data) > _MAX_CHART_YAML:
        return {}
    folders = {
        "/".join(m.split("/", 2)[:2]) + "/" for m in members if m.startswith("charts/")
    }  # each subchart's folder (`charts/base/`), once
    found: dict[str, str] = {}
    for name, _, alias in _declared(data.decode("utf-8", "replace"))[:_MAX_ALIASES]:
        target = renamed.get(f"charts/{name}/", f"charts/{name}/")
        own = f"charts/{alias}/"
        if alias not in (None, name) and target in folders and own not in folders:
            found[own] = target
    return found


_MAX_ALIASES = 1000  # dependencies of one Chart.yaml read for their aliases


def _member_path(chart: str, member: str, linked: Mapping[str, str]) -> str:
    # the longest prefix: a dependency's own (`charts/web/charts/common/`) inside its
    prefix = max((p for p in linked if member.startswith(p)), key=len, default=None)
    if prefix is not None:
        return os.path.join(linked[prefix], member[len(prefix) :])
    return os.path.join(chart, member)


def is_chart(names: Sequence[str]) -> bool:
    """Whether a folder's files make it a chart: a Chart.yaml, or a template of one that
    the build makes it from, beside a values.yaml (chart_made.py)."""
    return any(name in CHART_FILES for name in names) or made_chart_name(names) is not None


def is_chart_folder(folder: str) -> bool:
    return (
        any(os.path.isfile(os.path.join(folder, name)) for name in CHART_FILES)
        or made_chart_file(folder) is not None
    )


def declares_chart(folder: str) -> bool:
    """Whether the folder's Chart.yaml declares anything. One whose every line is blank,
    a comment or a document marker (a chart commented out) is no chart Helm can load: its
    folder only holds charts of their own (`charts/*/`, each installed alone), walked as
    any folder. One that cannot be read, or is too large to, is taken as a chart."""
    try:
        with open(chart_file(folder), "rb") as handle:
            data = read_bounded(handle, _MAX_CHART_YAML)
    except OSError:
        return True
    if data is None:
        return True
    for line in data.splitlines():
        text = line.strip()
        if text and not text.startswith(b"#") and text not in (b"---", b"..."):
            return True
    return False


def chart_name(folder: str) -> str | None:
    """The `name:` the folder's Chart.yaml gives (read within a budget), or None."""
    try:
        with open(chart_file(folder), "rb") as handle:
            data = read_bounded(handle, _MAX_CHART_YAML)
    except OSError:
        return None
    if data is None:
        return None
    found = _CHART_NAME.search(data[:65536].decode("utf-8", "replace"))
    return found.group(1) if found is not None else None


def chart_file(chart: str) -> str:
    """The chart's Chart.yaml, else the template its build makes one from."""
    for name in CHART_FILES:
        if os.path.isfile(os.path.join(chart, name)):
            return os.path.join(chart, name)
    return made_chart_file(chart) or os.path.join(chart, CHART_FILES[0])


def pack(location: str) -> bytes:
    """Every regular file of the chart, with its path, in one byte string: what the chart
    is rendered from, what the cache keys its result on (a folder's own time stamp misses
    edits inside it), and what a fix edits in memory before anything is written. A
    dependency in a sibling folder (`repository: file://../common`) that charts/ lacks is
    packed as `charts/common/`, as `helm dependency build` would vendor it, and so are its
    own such dependencies, inside it (`charts/product/charts/common/`: linked_tree). Only
    memory is written: the user's folders stay as they are."""
    members: dict[str, bytes] = {}
    total = _read_into(members, location, "", 0)
    read: dict[str, dict[str, bytes] | None] = {}  # a folder (resolved) -> its files, once
    left: list[str] = []  # prefixes of folders past the budget, and all inside them
    tree = linked_tree(location)
    # level by level: a dependency's own never takes the room of the chart's own
    for prefix, folder in sorted(tree.items(), key=lambda item: item[0].count("charts/")):
        inner = "/charts/" in prefix.removeprefix("charts/")  # a dependency's own
        real = os.path.realpath(folder)
        if real not in read:  # read within the room left: one past it never fits later
            read[real] = _folder_files(folder, total, strict=not inner)
        files = read[real]
        size = sum(map(len, files.values())) if files is not None else MAX_CHART_BYTES + 1
        if files is None or total + size > MAX_CHART_BYTES or any(map(prefix.startswith, left)):
            if not inner:
                raise OSError(f"the chart's files exceed {MAX_CHART_BYTES // 2**20} MiB")
            left.append(prefix)  # past the budget: packed as if not vendored, nor inside it
            continue
        total += size
        members.update({prefix + name: data for name, data in files.items()})
    return pack_members(members)


def _folder_files(folder: str, total: int, strict: bool) -> dict[str, bytes] | None:
    """A dependency folder's files, by their path inside it; None past the room that
    MAX_CHART_BYTES leaves after `total` bytes, or unreadable (`strict`: the error
    raised)."""
    files: dict[str, bytes] = {}
    try:
        _read_into(files, folder, "", total)
    except OSError:
        if strict:
            raise
        return None
    return files


def _read_into(members: dict[str, bytes], location: str, prefix: str, total: int) -> int:
    for path in _chart_files(location):
        with open(path, "rb") as handle:
            data = read_bounded(handle, MAX_CHART_BYTES - total)
        if data is None:
            raise OSError(f"the chart's files exceed {MAX_CHART_BYTES // 2**20} MiB")
        total += len(data)
        members[prefix + Path(os.path.relpath(path, location)).as_posix()] = data
    return total


MAX_LINK_DEPTH = 5  # levels of `file://` dependencies packed: a dependency's own, and so on
MAX_LINKED = 256  # dependency folders packed into one chart, at all levels together
# `file://` dependencies examined in one walk down (linked_tree), at all levels together:
# each chart of a run walks the others' Chart.yamls, so a walk is bounded, not the input
MAX_LINK_ENTRIES = 8 * MAX_LINKED


def linked_tree(chart: str) -> dict[str, str]:
    """Where each dependency on a folder is packed (`charts/product/`) -> that folder (as
    `chart` is shown): the chart's own (linked_dependencies), then theirs inside them
    (`charts/product/charts/common/`), as `helm dependency build` run in each folder would
    vendor them (Helm renders a subchart with its own subcharts, never its parent's).
    Within MAX_LINK_DEPTH levels and MAX_LINKED folders; a folder already on the way
    down (a cycle) is not packed again inside itself, and each must be a chart inside the
    chart's repository."""
    top = os.path.realpath(repository_of(chart))
    tree: dict[str, str] = {}
    # each folder's dependencies read once, and each dependency's folder judged once, in
    # the walk: folders depending on each other are reached by many ways down
    known: dict[str, dict[str, str]] = {}
    judged = _Judged()
    level = [("", chart, frozenset({os.path.realpath(chart)}))]
    for _ in range(MAX_LINK_DEPTH):
        below = []
        for prefix, folder, above in level:
            if len(tree) >= MAX_LINKED:
                break  # full: no folder further down is read
            if folder not in known:
                known[folder] = _linked_of(folder, top, judged)
            for name, linked in known[folder].items():
                real = judged.folders[linked]
                if real in above or len(tree) >= MAX_LINKED:
                    continue
                tree[f"{prefix}charts/{name}/"] = linked
                below.append((f"{prefix}charts/{name}/", linked, above | {real}))
        level = below
    return dict(sorted(tree.items()))  # a folder's prefix before those inside it


def linked_dependencies(chart: str) -> dict[str, str]:
    """The chart's dependencies on a folder (`repository: file://../common`) that its
    charts/ folder does not vendor, by name: each its folder (shown as `chart` is), a
    chart inside the chart's repository (a link out of it is not followed)."""
    return _linked_of(chart, os.path.realpath(repository_of(chart)))


@dataclass
class _Judged:
    """The dependency folders one walk (linked_tree) judged: each (as shown) -> itself
    resolved when it is a chart inside the repository, else ""; and how many more
    `file://` dependencies the walk may examine (MAX_LINK_ENTRIES)."""

    folders: dict[str, str] = field(default_factory=dict)
    left: int = MAX_LINK_ENTRIES


def _linked_of(chart: str, top: str, judged: _Judged | None = None) -> dict[str, str]:
    """linked_dependencies, the folders inside `top` (resolved); `judged`, shared by the
    calls of one walk, so that each folder is judged once and the walk examines at most
    MAX_LINK_ENTRIES dependencies."""
    declared = _dependencies(chart)
    if not declared:
        return {}
    vendored = _vendored_names(
        os.listdir(os.path.join(chart, "charts"))
        if os.path.isdir(os.path.join(chart, "charts"))
        else []
    )
    judged = _Judged() if judged is None else judged
    own = os.path.realpath(chart)
    subcharts = os.path.join(own, "charts")
    linked = {}
    for name, repository in declared:
        if not repository.startswith("file://") or name in vendored:
            continue
        if judged.left <= 0:
            break
        judged.left -= 1
        folder = os.path.normpath(os.path.join(chart, repository.removeprefix("file://")))
        if folder not in judged.folders:
            real = os.path.realpath(folder)
            inside = os.path.commonpath([real, top]) == top and is_chart_folder(real)
            judged.folders[folder] = real if inside else ""
        real = judged.folders[folder]
        if (
            real
            and os.path.dirname(real) != subcharts  # a folder of charts/ (`file://charts/db-x`)
            # Helm loads as it is: a copy besides would be a second subchart of that name,
            # the one Helm renders changing from run to run
            and os.path.commonpath([real, own]) != real  # not the chart, nor a folder it is in
        ):
            linked[name] = folder
    return linked


def _vendored_names(entries: Sequence[str]) -> set[str]:
    """The names of the dependencies a charts/ folder's entries vendor: a folder's (or
    any entry's) own name, and each name an archive's could be (`redis-17.3.1.tgz`: the
    names before each `-`), as Helm names the archive NAME-VERSION.tgz."""
    names = set(entries)
    for entry in entries:
        if entry.endswith(".tgz"):
            names.update(entry[:at] for at, char in enumerate(entry) if char == "-")
    return names


def _dependencies(chart: str) -> list[tuple[str, str]]:
    """(name, repository) of each dependency Chart.yaml declares."""
    path = chart_file(chart)
    try:
        with open(path, "rb") as handle:
            data = read_bounded(handle, _MAX_CHART_YAML)
        text = data.decode("utf-8") if data is not None else ""
    except (OSError, UnicodeDecodeError):
        return []
    if is_made_name(os.path.basename(path)):  # `{{ .Version }}` is no YAML yet
        text = stood_in(text, lambda _: None, every=True)[0]
    return [(name, repository) for name, repository, _ in _declared(text) if repository]


_MAX_CHART_YAML = 1 << 20  # bytes of a Chart.yaml read for its dependencies


def _declared(text: str) -> list[tuple[str, str | None, str | None]]:
    """(name, repository, alias) of each dependency a Chart.yaml's text declares."""
    if "dependencies" not in text:
        return []  # the usual chart: no YAML parser loaded for it (a warm run loads none)
    from k8slb.reading.yamlcompose import compose
    from k8slb.reading.yamltree import YMap, YSeq

    documents = compose(text).documents
    body = documents[0].data if documents else None
    entries = body.get("dependencies") if isinstance(body, YMap) else None
    if not isinstance(entries, YSeq):
        return []
    return [
        (
            entry["name"],
            entry["repository"] if isinstance(entry.get("repository"), str) else None,
            entry["alias"] if isinstance(entry.get("alias"), str) else None,
        )
        for entry in entries
        if isinstance(entry, YMap) and isinstance(entry.get("name"), str)
    ]


def _chart_files(location: str) -> list[str]:
    """The chart's regular files, in a stable order, and its symbolic links to a regular
    file of its repository (a `_helpers.tpl` shared with a sibling chart), read as that
    file, as Helm's loader follows them. A link out of the repository, to a folder, or
    broken is not followed (nor are folders that are links: os.walk's default); the
    chart's size limit holds what links add too (_read_into)."""
    found = []
    top: str | None = None
    for folder, folders, files in os.walk(location):
        folders.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                if os.path.isfile(path):
                    found.append(path)
                continue
            if top is None:
                top = os.path.realpath(repository_of(location))
            target = os.path.realpath(path)  # a chain of links, or a loop, ends here
            if os.path.isfile(target) and os.path.commonpath([target, top]) == top:
                found.append(path)
    return found


def stamps(paths: Sequence[str]) -> str:
    """Size and time of each file (of the file a link among them points to: what is
    read): what tells a warm run that one of them changed."""
    stamped = []
    for path in paths:
        status = os.stat(path)
        stamped.append(f"{path}:{status.st_size}:{status.st_mtime_ns}")
    return ",".join(stamped)


def pack_members(members: Mapping[str, bytes]) -> bytes:
    parts: list[bytes] = []
    for name, data in members.items():
        parts += [name.encode(), b"\0", str(len(data)).encode(), b"\0", data]
    return b"".join(parts)


def unpack(data: bytes) -> dict[str, bytes]:
    """The chart's files from `pack`, by their path inside the chart."""
    members: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        name_end = data.index(b"\0", at)
        size_end = data.index(b"\0", name_end + 1)
        size = int(data[name_end + 1 : size_end])
        members[data[at:name_end].decode()] = data[size_end + 1 : size_end + 1 + size]
        at = size_end + 1 + size
    return members


def _archive(members: Mapping[str, bytes]) -> bytes:
    """The files as the .tgz Helm loads (one top folder), made in memory."""
    return packed({f"chart/{name}": data for name, data in members.items()})


@functools.cache
def _engine() -> str | None:
    """`sdk`, `binary`, or None when neither is here. Found, not imported: the library is
    only ever loaded in the child processes that render (render_process)."""
    if importlib.util.find_spec("helm_python") is not None:
        return "sdk"
    import shutil

    return "binary" if shutil.which("helm") else None


def named_values(options: HelmOptions) -> list[str]:
    """Every values file the options name, inside a chart or not (the chart's own
    values.yaml is one of its files)."""
    named = list(options.values)
    for chart, sets in options.value_sets:
        named += [os.path.join(chart, name) for chosen in sets for name in chosen]
    return named


def rendering_inputs(options: HelmOptions) -> str:
    """What a chart's rendering depends on besides the chart's own files: the options, the
    bytes of every values file they name, and the engine."""
    named = [(path, content_digest(path)) for path in named_values(options)]
    return repr((options, named, helm_engine()))


def helm_engine() -> tuple[str | None, str]:
    """Which engine renders charts, and its version: installing one, or another release
    of it, changes what a chart renders to."""
    engine = _engine()
    if engine == "sdk":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return engine, version("helm-python-sdk")
        except PackageNotFoundError:
            return engine, "unknown"
    if engine == "binary":
        import shutil

        found = shutil.which("helm") or ""
        try:
            status = os.stat(found)
        except OSError:
            return engine, found
        return engine, f"{os.path.realpath(found)}:{status.st_size}:{status.st_mtime_ns}"
    return engine, ""


def render_charts(
    jobs: Sequence[tuple[str, HelmOptions, bytes]], spent: Sequence[Work] | None = None
) -> list[list[Rendering]]:
    """Each chart (folder, options, packed files) rendered with each of its value sets,
    in a child process with a time limit; a chart that runs over it, or kills its
    process, is one finding, and the others are rendered all the same. `spent`: for a
    chart rendered again (another try), the work its renders have cost so far, each
    render of this try within what is left (chart_work.py)."""
    if not jobs:
        return []
    from k8slb.reading.render_process import run_isolated

    tries = list(spent) if spent is not None else [None] * len(jobs)
    outcomes = run_isolated(
        lambda job: render_sets(*job), [(*job, work) for job, work in zip(jobs, tries, strict=True)]
    )
    renderings = []
    for (chart, options, _), work, (ok, value) in zip(jobs, tries, outcomes, strict=True):
        if ok:
            renderings.append(value)
            continue
        failed = Rendering(chart, options=options, stopped=value.limit, work=work or Work())
        if value.limit:  # not the chart's fault: said so, and what gives it more room
            failed.problems.append(
                Problem(
                    UNRENDERED,
                    chart_file(chart),
                    1,
                    1,
                    f"Helm chart {chart} is not rendered, so not linted: {value}",
                    None,
                    Severity.WARNING,
                    tuple(hint for hint in (value.hint,) if hint),
                )
            )
        else:
            failed.problems.append(_problem(chart, chart_file(chart), str(value)))
        renderings.append([failed])
    return renderings


def stopped_try(kept: Rendering, tried: Sequence[Rendering], how: str) -> None:
    """A further try of a chart (`how`: with a stand-in, an installer's values) that a
    limit of the run stopped (time, memory): the rendering kept instead says so, the
    try's finding and its hint, and is not cached (another run may get through it)."""
    if not any(rendering.stopped for rendering in tried):
        return
    kept.stopped = True
    kept.problems = [
        *kept.problems,
        *(
            replace(p, message=p.message.replace(" is not rendered", f" is not rendered {how}", 1))
            for rendering in tried
            if rendering.stopped
            for p in rendering.problems
        ),
    ]


def render_sets(
    chart: str, options: HelmOptions, data: bytes | None = None, spent: Work | None = None
) -> list[Rendering]:
    """The chart rendered with each of its value sets (one, the chart's values, unless the
    configuration names more). The templates of the second set on are keyed `PATH#N`: the
    same file, rendered otherwise. `spent`: the chart is tried again, its renders so far
    cost that (None: its first try, whose first render of each set is always made)."""
    sets: list[tuple[str, ...]] = [()]
    for folder, configured in options.value_sets:
        if os.path.realpath(chart) == folder and configured:
            sets = [tuple(os.path.join(chart, name) for name in chosen) for chosen in configured]
    renderings: list[Rendering] = []
    for variant, files in enumerate(sets):
        work = renderings[-1].work if renderings else spent or Work()  # the sets share it
        chosen = replace(options, values=(*files, *options.values))
        rendering = render(chart, chosen, data, work, again=spent is not None)
        if len(sets) > 1:
            label = " + ".join(os.path.basename(name) for name in files) or "values.yaml"
            rendering.label, rendering.variant = label, variant
            rendering.problems = [
                replace(p, message=f"{p.message} (with {label})") for p in rendering.problems
            ]
        if variant:
            rendering.files = {f"{path}#{variant}": text for path, text in rendering.files.items()}
            rendering.names = {f"{path}#{variant}": name for path, name in rendering.names.items()}
        renderings.append(rendering)
    return renderings


_HELM_FOLDERS = ("templates/", "charts/", "crds/")  # what Helm renders, or installs as is


def _plain_manifests(members: Mapping[str, bytes]) -> dict[str, str]:
    """The chart's YAML files that Helm does not render and that are no template text (a
    `rendered/` folder of manifests, examples): linted as they are, beside what the chart
    renders. Files at the top (Chart.yaml, values files) are the chart's settings, and a
    file with template text is read by the templates (`.Files`, `tpl`)."""
    plain = {}
    for member, data in members.items():
        if (
            "/" in member
            and member.endswith((".yaml", ".yml"))
            and not member.startswith(_HELM_FOLDERS)
            and b"{{" not in data
        ):
            plain[member] = data.decode("utf-8", errors="replace")
    return plain


def _values_stand_in(members: Mapping[str, bytes], options: HelmOptions) -> str | None:
    """The chart's stand-in for a values.yaml it lacks (`values.yaml.tpl`,
    `values.example.yaml`, `values-prod.yaml`), when no values file is given."""
    if options.values or any(name in members for name in ("values.yaml", "values.yml")):
        return None
    return next(
        (
            name
            for name in sorted(members)
            if "/" not in name and name.startswith("values") and (".yaml" in name or ".yml" in name)
        ),
        None,
    )


# A rendered file's key, past its template's path: `PATH#copyN` (a dependency's template
# rendered from its own folder, or an aliased subchart's N-th copy), `PATH#N` (the N-th
# value set).
_COPY = "#copy"


def real_path(path: str) -> str:
    """A rendered template's file: `PATH#N` (its N-th value set) is PATH, and so is
    `PATH#copyN` (a template of a dependency's folder, its N-th copy: one per alias)."""
    return copy_key(path)[0]


def copy_key(path: str) -> tuple[str, int, str]:
    """A rendered file's key as (the template's file, its copy number, 0 for none, and the
    value set's `#N` or "")."""
    base, hash_sign, variant = path.rpartition("#")
    suffix = ""
    if hash_sign and variant.isdigit():
        path, suffix = base, f"#{variant}"
        base, hash_sign, variant = path.rpartition("#")
    number = variant[len(_COPY) - 1 :]
    if hash_sign and variant.startswith(_COPY[1:]) and number.isascii() and number.isdigit():
        return base, int(number), suffix
    return path, 0, suffix


def copied(file: str, copy: int, variant: str = "") -> str:
    """The key of a template's file rendered as its `copy`-th copy (0: the file's own)
    with the value set `variant` (`#N`, or "")."""
    return f"{file}{_COPY}{copy}{variant}" if copy else f"{file}{variant}"


def _no_engine(chart: str, where: str) -> Problem:
    """Said at a chart when nothing here renders charts."""
    return Problem(
        UNRENDERED,
        where,
        1,
        1,
        f"Helm chart {chart} is not rendered, so not linted",
        severity=Severity.INFO,
        detail=("install `k8slb[helm]` (Helm's engine, no binary needed) or put helm on PATH",),
    )


def render(
    chart: str,
    options: HelmOptions,
    data: bytes | None = None,
    work: Work | None = None,
    again: bool = False,
) -> Rendering:
    """The chart rendered; problems (KLB003: Helm's message, or that nothing here renders
    charts) instead of an exception. `work`: what the chart's renders of the run have cost
    before this one; `again`: a further try of the chart, whose first render too must fit
    in what is left (chart_work.py)."""
    rendering = Rendering(chart, options=options, work=work or Work())
    where = chart_file(chart)
    engine = _engine()
    if engine is None:
        rendering.problems.append(_no_engine(chart, where))
        return rendering
    unknown = _unknown_api_version(where, data)
    if unknown is not None:
        rendering.problems.append(unknown)
        return rendering
    rendering.members = unpack(data if data is not None else pack(chart))
    linked = linked_tree(chart)
    rendering.linked = linked
    filled = any(b"${" in data for data in rendering.members.values())
    pom = filtering_pom(chart) if filled else None  # what Maven would fill, if it does
    members, built = as_built(rendering.members, pom, rendering.path_of)
    made = _as_built_problem(chart, where, rendering.members, built)
    rendering.uncached = pom is not None and made is not None  # the POMs are no member
    rendering.renamed = subchart_folders(members)
    if options.skip_schema:
        members = without_schemas(members)
    elif (reach := reaching_out(members)) is not None:
        rendering.problems.append(_schema_reaches_out(chart, reach))
        return rendering
    try:
        by_name = _render_without_failing(rendering, engine, options, members, again)
    except HelmFailure as failure:
        if failure.path is not None:
            where = failure.path
        problem = _problem(
            chart,
            where,
            str(failure),
            failure.line,
            failure.missing,
            linked,
            rendering.renamed,
            everywhere=failure.needed_everywhere,
        )
        if failure.out_of_work is not None:  # why it was not rendered again, before the rest
            problem = replace(problem, detail=(failure.out_of_work, *problem.detail))
        rendering.problems.append(problem)
        rendering.problems += [made] if made is not None else []
        return rendering
    rendering.values_files = [os.path.join(chart, "values.yaml"), *options.values]
    rendering.values_stand_in = _values_stand_in(members, options)
    top = next(iter(by_name), os.path.basename(chart)).partition("/")[0]
    by_name = {name: as_helm_splits(text) for name, text in by_name.items()}
    by_name.update({f"{top}/{member}": text for member, text in _plain_manifests(members).items()})
    for name, text in by_name.items():
        if not _writes_objects(name, text):
            continue
        shown = _shown(chart, name, linked, rendering.renamed)
        # A template of a subchart several aliases render, or of a folder of its own (which
        # may be rendered alone too, its problems at its lines): keyed apart from the file.
        if shown in rendering.files or rendering.is_linked(rendering.member_of(shown)):
            copy = 1
            while f"{shown}{_COPY}{copy}" in rendering.files:
                copy += 1
            shown = f"{shown}{_COPY}{copy}"
        rendering.files[shown] = text
        rendering.names[shown] = name
    if not rendering.files and not rendering.problems:
        rendering.problems += _no_object(chart, members, rendering.values_stand_in)
    rendering.problems += [made] if made is not None else []
    return rendering


def _writes_objects(name: str, text: str) -> bool:
    """Whether a template's rendered text is objects of the release: not NOTES.txt, not a
    template an `if` left empty, not a `helm test` pod (run by hand, no part of its
    traffic)."""
    return name.endswith((".yaml", ".yml")) and bool(text.strip()) and not _TEST_HOOK.search(text)


def _as_built_problem(
    chart: str, where: str, members: Mapping[str, bytes], built: str | None
) -> Problem | None:
    """The info that the chart is rendered as its build makes it (chart_made.py), at the
    first line of its chart file that the build fills."""
    if built is None:
        return None
    text = members.get(os.path.basename(where), b"")[:_MAX_CHART_YAML].decode("utf-8", "replace")
    line = next(
        (n for n, said in enumerate(text.splitlines(), start=1) if "${" in said or "{{" in said),
        1,
    )
    return Problem(
        UNRENDERED,
        where,
        line,
        1,
        f"chart {chart} is rendered as its build makes it: {built}",
        None,
        Severity.INFO,
        ("in memory, nothing written: its findings are of the chart so made",),
    )


_LIBRARY = regex.compile(r"(?m)^type:[ \t]*[\"']?library\b")


def _no_object(chart: str, members: Mapping[str, bytes], stand_in: str | None) -> list[Problem]:
    """An info when every template of the chart's (not only helpers: a chart of named
    templates for others, a library, renders nothing by design) wrote nothing: with the
    values it was given, the chart deploys nothing k8slb could lint."""
    if _LIBRARY.search(members.get("Chart.yaml", b"")[:65536].decode("utf-8", "replace")):
        return []
    templates = [
        name
        for name in members
        if name.startswith("templates/")
        and name.endswith((".yaml", ".yml", ".json"))
        and not os.path.basename(name).startswith("_")
    ]
    if not templates:
        return []
    beside = sorted(
        name
        for name in members
        if "/" not in name and name.startswith("values") and name.endswith((".yaml", ".yml"))
    )
    message = f"chart {chart} renders no object, so none of it is linted"
    detail = ("every template of it wrote nothing with the values it was given",)
    if stand_in is not None:
        message += f": it has no values.yaml, only {', '.join(beside)}"
        detail = (
            "render it with one of those: --helm-values FILE, or value sets in the "
            "configuration (helm.charts)",
        )
    where = os.path.join(chart, stand_in) if stand_in is not None else chart_file(chart)
    return [Problem(UNRENDERED, where, 1, 1, message, None, Severity.INFO, detail)]


def as_helm_splits(text: str) -> str:
    """A template's rendered text with its documents where Helm splits them: a line that
    starts with `---` and goes on (`---apiVersion: v1`) is the marker, then the rest on a
    line of its own (the rendered lines after it shift by one; findings go back to the
    template by their keys, chart_lines.py). YAML would read that line as text; files of
    plain YAML keep YAML's rule."""
    if "---" not in text:
        return text
    return _GLUED_DOCUMENT.sub(lambda found: "---\n" + found.group(1), text)


def _render_once(
    chart: str,
    engine: str,
    values: dict[str, Any],
    options: HelmOptions,
    members: Mapping[str, bytes],
) -> tuple[dict[str, str], list[str]]:
    """Helm's output by template name, and the subcharts it lacks (rendered without); a
    template's `now` is a fixed time (chart_clock.py), so that a chart renders the same
    every run."""
    from k8slb.reading.chart_clock import with_fixed_clock

    members = with_fixed_clock(members)
    try:
        if engine == "sdk":
            return _render_sdk(chart, values, options, members), []
        return _render_binary(chart, options, members), []
    except MissingDependencies as missing:
        return missing.rendered, missing.names


def _render_without_failing(
    rendering: Rendering,
    engine: str,
    options: HelmOptions,
    members: Mapping[str, bytes],
    again: bool = False,
    stand_in: bool = True,
) -> dict[str, str]:
    """The chart rendered; where Helm fails on one template it names (a `required` value
    the defaults leave empty, a `fail`, a template error), rendered again without it, so
    that its other templates are linted: each template left out is a KLB003 at the place
    Helm names. A template whose named templates (`define`) others include takes them with
    it: those fail next and are left out too. Within MAX_LEFT_OUT templates and the chart's
    budget of work (chart_work.py: bytes of templates rendered, never seconds, so that a
    busy machine gives the same answer); past them (or when Helm names no template of the
    chart's own files) the first failure is raised, the chart not rendered, as Helm would
    have it, its finding saying when the budget stopped it. A template of a packaged
    subchart (`charts/db-1.0.0.tgz`) is left out of the archive opened in memory
    (_opened_for): Helm loads a subchart packed or unpacked alike.

    A chart whose subcharts are not vendored is rendered without them, and a template that
    needs them (their named templates, the defaults of their values) fails: it is left out
    in the same way, its KLB003 naming them, within MAX_LEFT_OUT_WITHOUT_SUBCHARTS. When
    every template that writes objects is left out so, the chart is not rendered: nothing
    of its own is linted, said once. First, with `stand_in`, chart_stand_ins.py's tries."""
    chart, linked = rendering.chart, rendering.linked
    values = _values(options)
    first: HelmFailure | None = None
    try_start = rendering.work
    left_out: list[Problem] = []
    given, earlier = members, len(rendering.left_out)
    stood: dict[str, str | None] = {}  # a missing subchart's named template -> for whom
    theirs = False  # a template was left out that may need the missing subcharts
    nested: dict[str, tuple[str, ...]] | None = None  # its subcharts' own missing ones
    while True:
        price = cost(members)
        if (again or first is not None) and not affordable(rendering.work, try_start, price):
            spent = spent_detail(rendering.work, rendering.left_out)
            stop = first or HelmFailure("not rendered again: its budget of work was spent")
            stop.out_of_work = spent
            raise stop from None
        rendering.work = rendering.work.plus(price)
        try:
            by_name, missing = _render_once(chart, engine, values, options, members)
            break
        except HelmFailure as failure:
            if first is None:
                first = failure
            members = _opened_for(failure, members, rendering.renamed)
            member = _failing_template(failure, members, rendering.renamed)
            nested = _nested_missing(members) if nested is None else nested
            lacking = failure.missing or nested
            named = _stand_in_for(failure, members, stood) if stand_in else None
            if named is not None:  # rendered again with it stood in for (chart_stand_ins)
                stood[named] = member
                members = with_stand_ins(members, stood)
                continue
            if member and member in stood.values():  # it fails all the same: no mend
                return _without_stand_ins(rendering, engine, options, given, earlier)
            budget = MAX_LEFT_OUT_WITHOUT_SUBCHARTS if lacking else MAX_LEFT_OUT
            if member is None or len(left_out) >= budget:
                raise first from None
            problem = _problem(
                chart, chart_file(chart), str(failure), linked=linked, renamed=rendering.renamed
            )
            needs, owner = _needs_missing(failure, member, members[member], nested)
            theirs = theirs or bool(needs)
            whose = rendering.path_of(owner).rstrip("/") if owner else None
            left_out.append(_left_out(problem, chart, member, members[member], needs, whose))
            rendering.left_out.append(member)
            members = {name: data for name, data in members.items() if name != member}
    if stood and misplaced(_written(by_name), stood):  # rendered as without them
        return _without_stand_ins(rendering, engine, options, given, earlier)
    if theirs and first is not None and not any(map(_writes_objects, by_name, by_name.values())):
        first.needed_everywhere = True
        raise first from None
    rendering.problems += left_out
    if missing:
        rendering.problems.append(_missing(chart, chart_file(chart), missing, list(stood)))
    return by_name


def _without_stand_ins(
    rendering: Rendering,
    engine: str,
    options: HelmOptions,
    members: Mapping[str, bytes],
    earlier: int,
) -> dict[str, str]:
    """The chart rendered again as without stand-ins: those made a template's object
    wrong, or mended nothing of a template that fails all the same (its failure is then
    said as it first was, naming the missing subchart)."""
    del rendering.left_out[earlier:]
    return _render_without_failing(rendering, engine, options, members, True, False)


def _written(by_name: Mapping[str, str]) -> list[str]:
    """The rendered texts that are objects of the release (not NOTES.txt, not a test)."""
    return [text for name, text in by_name.items() if _writes_objects(name, text)]


def _stand_in_for(
    failure: HelmFailure, members: Mapping[str, bytes], stood: Mapping[str, str | None]
) -> str | None:
    """The named template Helm did not find, when a missing subchart of the chart would
    define it and it may be stood in for (chart_stand_ins.py); else None."""
    found = _NO_TEMPLATE.search(str(failure)) if len(stood) < MAX_STOOD else None
    if found is None:
        return None
    name = found.group(1) or found.group(2)
    if name in stood or not lacking_prefix(name, failure.missing):
        return None
    return name if may_stand_in(name, members) else None


MAX_LEFT_OUT = 4  # templates a chart is rendered without, each after a render that failed
# ... when its subcharts are missing: each template that includes one of their named
# templates (a library chart's `common.names.fullname`) or reads their values fails alone
MAX_LEFT_OUT_WITHOUT_SUBCHARTS = 16
_DEFINES = regex.compile(r'\{\{-?\s*define\s+"([^"\n]{1,200})"')


def _failing_template(
    failure: HelmFailure, members: Mapping[str, bytes], renamed: Mapping[str, str] | None = None
) -> str | None:
    """The chart's template file (templates/, a subchart's templates/) that Helm's
    failure names first, when the chart can be rendered without it; None when the fault
    is elsewhere (a values file, Chart.yaml, a packaged subchart not opened: _opened_for)."""
    member = _named_member(failure, renamed)
    if member is None:
        return None
    parts = member.split("/")
    in_templates = parts[0] == "templates" or (
        len(parts) > 3 and parts[0] == "charts" and "templates" in parts[2:-1]
    )
    return member if in_templates and member in members else None


def _named_member(failure: HelmFailure, renamed: Mapping[str, str] | None) -> str | None:
    """The chart's file (as its members name it) at the place Helm's failure names
    first; None when the fault is in a file of the user's, or no place is named."""
    if failure.path is not None:
        return None
    lines = [text.strip() for text in str(failure).strip().splitlines() if text.strip()]
    place = _HELM_PLACE.search(lines[0]) if lines else None
    if place is None:
        return None
    _, _, inside = place.group("file").partition("/")
    return _renamed(Path(os.path.normpath(inside)).as_posix() if inside else "", renamed or {})


def _opened_for(
    failure: HelmFailure, members: Mapping[str, bytes], renamed: Mapping[str, str]
) -> Mapping[str, bytes]:
    """The chart's files with the packaged subchart (`charts/db-1.2.3.tgz`) that holds the
    file Helm's failure names (`charts/db/templates/job.yaml`) opened into a folder of
    its name (`charts/db/`), its archive gone: Helm loads a subchart in charts/ packed or
    unpacked alike, so the chart renders the same, and can be rendered without that
    file. An archive inside an opened one is opened too, down to the named file; the
    files as they are when no archive holds it, or the chart's files so opened would
    pass MAX_CHART_BYTES (each archive read within chart_packages' _MAX_UNPACKED)."""
    member = _named_member(failure, renamed)
    if member is None or member in members:
        return members
    parts = member.split("/")
    opened = dict(members)
    at = 0
    while at + 2 < len(parts) and parts[at] == "charts" and at < 2 * _SUBCHART_DEPTH:
        prefix = "/".join(parts[: at + 1]) + "/"  # `charts/`, `charts/db/charts/`
        if not any(m.startswith(f"{prefix}{parts[at + 1]}/") for m in opened):
            found = _archive_of(opened, prefix, parts[at + 1])
            if found is None:
                return members
            del opened[found[0]]
            opened.update({prefix + inner: data for inner, data in found[1].items()})
            if sum(map(len, opened.values())) > MAX_CHART_BYTES:
                return members  # archives in archives: the chart's own limit holds them too
        at += 2
    return opened if member in opened else members


def _archive_of(
    members: Mapping[str, bytes], prefix: str, name: str
) -> tuple[str, dict[str, bytes]] | None:
    """The archive directly in the folder `prefix` (`charts/`) whose top folder is `name`
    (as Helm names the subchart it packs, and chart_findings finds its templates), and
    its files; those whose file name starts with `name` looked in first."""
    packages = sorted(
        (m for m in members if m.startswith(prefix) and "/" not in m[len(prefix) :]),
        key=lambda m: not m[len(prefix) :].startswith(name),
    )
    for package in packages:
        if not is_package(package):
            continue
        files = {  # its subchart's files; none that would climb out of its folder
            inner: data
            for inner, data in unpacked(members[package]).items()
            if inner.startswith(f"{name}/") and ".." not in inner.split("/")
        }
        if files:
            return package, files
    return None


def _needs_missing(
    failure: HelmFailure, member: str, data: bytes, nested: Mapping[str, Sequence[str]]
) -> tuple[tuple[str, ...], str]:
    """The missing subcharts a template Helm failed on may need, and the folder (as the
    members name it, "" for the chart) of the chart that declares them: none for a `fail`
    or `required` of its own that reads none of their values (_fails_by_itself); those
    whose name prefixes the named template Helm did not find (`minio.fullname`, as
    charts name what they define; named templates are global, so the missing subchart
    of any chart of the tree, its own chart's first); those of its own chart whose
    values its text reads (a chart reads only its own subcharts' values); for a named
    template not found that names none, those of its own chart, else of the nearest
    chart above it that lacks some; none for another failure of a template that reads
    none of their values (a value of its own the defaults leave out). `nested`: each
    subchart folder's own missing dependencies (_nested_missing)."""
    own = _own_chart(member)
    lacking = {"": tuple(failure.missing), **{k: tuple(v) for k, v in nested.items()}}
    if not any(lacking.values()):
        return (), ""
    said = str(failure)
    first = next((line.strip() for line in said.splitlines() if line.strip()), "")
    if _fails_by_itself(first, member[len(own) :], data, lacking.get(own, ())):
        return (), ""
    found = _NO_TEMPLATE.search(said)
    named = (found.group(1) or found.group(2)) if found is not None else ""
    above = [p for p in sorted(lacking, key=len, reverse=True) if own.startswith(p)]
    for folder in [*above, *(p for p in lacking if p not in above)]:
        prefixed = tuple(name for name in lacking[folder] if named.startswith(f"{name}."))
        if prefixed:
            return prefixed, folder
    text = data.decode("utf-8", "replace")
    reads = tuple(name for name in lacking.get(own, ()) if _reads_values_of(text, name))
    if reads or found is None:
        return reads, own if reads else ""
    nearest = next((p for p in above if lacking[p]), "")
    return lacking[nearest], nearest


def _own_chart(member: str) -> str:
    """The folder (as the members name it: `charts/api/charts/db/`, "" for the chart) of
    the chart whose file the member is."""
    parts = member.split("/")
    at = 0
    while at + 2 < len(parts) and parts[at] == "charts" and at < 2 * _SUBCHART_DEPTH:
        at += 2
    return "/".join(parts[:at]) + "/" if at else ""


def _nested_missing(members: Mapping[str, bytes]) -> dict[str, tuple[str, ...]]:
    """Each subchart folder among the chart's files (`charts/storage-api/`) -> the
    dependencies its own Chart.yaml declares that its charts/ folder lacks (by alias, else
    name, as Helm names them): an OCI or repository chart nobody vendored there. A
    subchart packed as an archive is not read (no folder to look in)."""
    lacking: dict[str, tuple[str, ...]] = {}
    held: dict[str, set[str]] | None = None
    for name, data in members.items():
        folder = name.removesuffix("Chart.yaml")
        if folder == name or not folder or _own_chart(folder + "x") != folder:
            continue
        if len(data) > _MAX_CHART_YAML or b"dependencies" not in data:
            continue
        declared = _declared(data.decode("utf-8", "replace"))[:_MAX_ALIASES]
        if not declared:
            continue
        held = _vendored(members) if held is None else held  # made once, if ever needed
        have = held.get(f"{folder}charts/", set())
        absent = tuple(
            alias or dependency for dependency, _, alias in declared if dependency not in have
        )
        if absent:
            lacking[folder] = absent
    return lacking


def _vendored(members: Mapping[str, bytes]) -> dict[str, set[str]]:
    """Each charts/ folder among the chart's files (`charts/api/charts/`, as the members
    name it) -> the names of the charts it holds: a folder's, each name an archive
    `NAME-VERSION.tgz` may be (those before each `-` or `.`), and a folder's Chart.yaml's
    `name:`. One pass over the members, each Chart.yaml read once."""
    held: dict[str, set[str]] = {}
    for member in members:
        for at in _charts_folders(member):
            subcharts, inside = member[: at + 7], member[at + 7 :]
            names = held.setdefault(subcharts, set())
            if "/" in inside:
                names.add(inside.partition("/")[0])
            elif is_package(member):
                names.update(inside[:i] for i, char in enumerate(inside) if char in "-.")
            if inside.count("/") == 1 and inside.endswith("/Chart.yaml"):
                found = _CHART_NAME.search(members[member][:65536].decode("utf-8", "replace"))
                names.update([found.group(1)] if found is not None else [])
    return held


def _charts_folders(member: str) -> list[int]:
    """Where each folder named `charts` on a member's path starts."""
    starts, at = [], 0
    for part in member.split("/")[:-1]:
        if part == "charts":
            starts.append(at)
        at += len(part) + 1
    return starts


# Helm's words for an `include` or `template` of a name nothing defines
_NO_TEMPLATE = regex.compile(
    r'no template "([^"\n]{1,200})" associated|template "([^"\n]{1,200})" not defined'
)


def _fails_by_itself(first: str, member: str, data: bytes, missing: Sequence[str]) -> bool:
    """Whether a template of a chart whose subcharts are missing fails whatever they hold:
    Helm's error is a call of its own (`execution error at`: a `fail`, a `required`) in a
    template of its chart's own `templates/` (`member`, inside that chart's folder) that
    is no helper (`_*.tpl`), and its text reads none of that chart's missing subcharts'
    values (`.Values.NAME`, whose defaults they hold)."""
    if "execution error at (" not in first or not member.startswith("templates/"):
        return False
    if os.path.basename(member).startswith("_"):
        return False
    text = data.decode("utf-8", "replace")
    return not any(_reads_values_of(text, name) for name in missing)


def _reads_values_of(text: str, name: str) -> bool:
    """Whether a template's text names `Values.NAME` (NAME not the start of a longer key)
    or `"NAME"` (`index .Values "NAME"`, a `dig`): taken to read the subchart's values."""
    if f'"{name}"' in text:
        return True
    wanted, start = f"Values.{name}", 0
    while (found := text.find(wanted, start)) >= 0:
        after = text[found + len(wanted) : found + len(wanted) + 1]
        if not after or not (after.isalnum() or after in "_-"):
            return True
        start = found + len(wanted)
    return False


def _left_out(
    problem: Problem,
    chart: str,
    member: str,
    data: bytes,
    needs: Sequence[str] = (),
    whose: str | None = None,
) -> Problem:
    """The KLB003 of a template the chart is rendered without: what is still linted, the
    named templates that went with it, and the missing subcharts it may need (`whose`:
    the folder of the subchart that declares them, shown; None: the chart's own)."""
    names: dict[str, None] = {}
    for found in _DEFINES.finditer(data.decode("utf-8", "replace")):
        names[found.group(1)] = None
        if len(names) > 5:  # five are named, the rest said to be there
            break
    said = ", ".join(list(names)[:5]) + (", …" if len(names) > 5 else "")
    until = "until it renders (see --helm-values, --helm-set)"
    without = ""
    if needs:
        plural = "s" if len(needs) > 1 else ""
        without = f" without its subchart{plural} {', '.join(needs)}"
        vendored = "in its charts/ folder (`helm dependency build`)"
        if whose is not None:  # a subchart's own dependencies
            without = f" without {', '.join(needs)}, the subchart{plural} of {whose}"
            vendored = f"in the charts/ folder of {whose} (`helm dependency build {whose}`)"
        until = (
            f"until they are vendored {vendored}: it may need their named templates or the "
            "defaults of their values"
        )
    # a packaged subchart's file: the finding is at its archive, the file inside it said
    inside = problem.detail[:1] if problem.path.endswith(".tgz") else ()
    detail = (
        *inside,
        f"the rest of the chart is rendered and linted without {member}; its objects are "
        f"not, {until}",
        *((f"the named templates it defines ({said}) are left out with it",) if names else ()),
    )
    message = problem.message.replace(
        f"Helm cannot render chart {chart}:",
        f"Helm cannot render {member} of chart {chart}{without}:",
        1,
    )
    return replace(problem, message=message, detail=detail)


class HelmFailure(Exception):
    """Helm could not render the chart; the message is Helm's. `path` and `line` name a
    file of the user's (a values file) when the fault is there."""

    def __init__(
        self,
        message: str,
        path: str | None = None,
        line: int = 1,
        missing: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.path, self.line = path, line
        self.missing = missing  # subcharts it declares and lacks: a likely cause
        # every template that writes objects failed, each maybe for want of them
        self.needed_everywhere = False
        # not rendered again without the template it failed on: the budget of work was
        # spent (chart_work.spent_detail says so)
        self.out_of_work: str | None = None


def _values(options: HelmOptions) -> dict[str, Any]:
    """The user's values: files in order, then `--set` (Helm's own precedence)."""
    if not options.values and not options.set_values:
        return {}
    import helm_python

    merged: dict[str, Any] = {}
    for path in options.values:
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise HelmFailure(f"{path}: cannot read the values file: {error}") from None
        try:
            _merge(merged, helm_python.values_from_yaml(text))
        except helm_python.HelmError as error:
            line = _ERROR_LINE.search(str(error))
            where = int(line.group(1)) if line else 1
            raise HelmFailure(f"values file {path}: {error}", path, where) from None
    for assignment in options.set_values:
        try:
            _merge(merged, helm_python.parse_set_string(assignment))
        except helm_python.HelmError as error:
            raise HelmFailure(f"--helm-set {assignment}: {error}") from None
    return merged


def set_value_problem(assignment: str) -> str | None:
    """What is wrong with a `--set` assignment, by Helm's grammar (comma-separated
    KEY=VALUE; `\\,` escapes a comma): a part with no `=` or no key. Checked here, not by
    Helm's library: loading its Go runtime in this process would hang every chart render,
    which forks (render_process); Helm reports anything subtler when it renders."""
    for part in _split_at_unescaped_commas(assignment):
        key, equals, _ = part.partition("=")
        if not equals:
            return f"key {key.strip()!r} has no value"
        if not key.strip():
            return f"{part!r} has no key"
    return None


def _split_at_unescaped_commas(text: str) -> list[str]:
    parts, start, comma = [], 0, text.find(",")
    while comma != -1:
        if text[comma - 1 : comma] != "\\":
            parts.append(text[start:comma])
            start = comma + 1
        comma = text.find(",", comma + 1)
    return [*parts, text[start:]]


def _merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _render_sdk(
    chart: str,
    values: dict[str, Any],
    options: HelmOptions,
    members: Mapping[str, bytes] | None,
) -> dict[str, str]:
    import helm_python

    missing: list[str] = []
    try:
        loading = (
            helm_python.Chart.load(chart)
            if members is None
            else helm_python.Chart.load_archive(_archive(members))
        )
        with loading as loaded:
            declared = loaded.metadata.get("dependencies") or []
            present = {d.get("name") for d in loaded.dependencies}
            defaults = loaded.values if isinstance(loaded.values, dict) else {}
            missing = [
                str(d.get("alias") or d.get("name"))
                for d in declared
                if isinstance(d, dict)
                and d.get("name") not in present
                and _enabled(d, [defaults, values])
            ]
            rendered = loaded.render(
                values or None,
                name=options.release or loaded.name or os.path.basename(chart),
                namespace=options.namespace,
            )
    except helm_python.HelmError as error:
        raise HelmFailure(str(error), missing=missing) from None
    if missing:  # Helm renders without them; what they would add is not linted
        raise MissingDependencies(missing, rendered)
    return rendered


def _enabled(dependency: Mapping[str, Any], layers: Sequence[Mapping[str, Any]]) -> bool:
    """Whether Helm would render a subchart: its `condition` (value paths, the first one
    that is set to true or false decides) is not false in the values (the chart's, then
    the user's); with none set, its `tags`: off when one is false under `tags:` in the
    values and none is true."""
    condition = dependency.get("condition")
    if not isinstance(condition, str) or not condition.strip():
        return _tagged(dependency, layers)
    for path in condition.split(","):
        found: Any = None
        for layer in layers:
            value: Any = layer
            for key in path.strip().split("."):
                value = value.get(key) if isinstance(value, Mapping) else None
            if value is not None:
                found = value
        if isinstance(found, bool):
            return found
    return _tagged(dependency, layers)


def _tagged(dependency: Mapping[str, Any], layers: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a subchart's `tags` leave it on (Helm: on unless one of them is false in
    the values' `tags:` and none is true; a tag not set, or not a bool, says nothing)."""
    tags = dependency.get("tags")
    if not isinstance(tags, list):
        return True
    said: dict[str, Any] = {}
    for layer in layers:
        table = layer.get("tags")
        if isinstance(table, Mapping):
            said.update(table)
    values = [said.get(tag) for tag in tags[:_MAX_ALIASES] if isinstance(tag, str)]
    return any(value is True for value in values) or all(value is not False for value in values)


class MissingDependencies(Exception):
    """The chart names subcharts that are not vendored in its `charts/` folder."""

    def __init__(self, names: list[str], rendered: dict[str, str]) -> None:
        super().__init__(", ".join(names))
        self.names, self.rendered = names, rendered


def _render_binary(
    chart: str, options: HelmOptions, members: Mapping[str, bytes] | None
) -> dict[str, str]:
    """`helm template`, its stream split back into files by the `# Source:` comments."""
    import tempfile

    if members is None:
        return _helm_template(chart, chart, options)
    with tempfile.TemporaryDirectory() as copy:  # the chart as it is in memory
        for name, data in members.items():
            target = Path(copy, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return _helm_template(chart, copy, options)


def _helm_template(chart: str, folder: str, options: HelmOptions) -> dict[str, str]:
    import subprocess
    import tempfile

    release = options.release or os.path.basename(os.path.abspath(chart))
    command = ["helm", "template", release, folder, "--namespace", options.namespace]
    for path in options.values:
        command += ["--values", path]
    for assignment in options.set_values:
        command += ["--set", assignment]
    with tempfile.TemporaryDirectory() as home:  # no user plugins or repositories
        env = {
            **os.environ,
            "HELM_CONFIG_HOME": home,
            "HELM_CACHE_HOME": home,
            "HELM_DATA_HOME": home,
        }
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=HELM_TIMEOUT, env=env, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise HelmFailure(f"helm template failed: {error}") from None
    if done.returncode != 0:
        raise HelmFailure(done.stderr.strip() or f"helm template exited with {done.returncode}")
    files: dict[str, str] = {}
    current = None
    for document in _RENDERED_DOCUMENT.split(done.stdout):
        source = _SOURCE.search(document)
        if source is not None:
            current = source.group(1).strip()
        if current is not None:
            files[current] = (
                files.get(current, "")
                + ("---\n" if current in files else "")
                + document.lstrip("\n")
            )
    return files


def _shown(
    chart: str,
    name: str,
    linked: Mapping[str, str] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> str:
    """`podinfo/templates/x.yaml` (Helm's name: the chart's name first) as the path of that
    template under the chart's folder, as the user sees it (a linked dependency's in its
    own folder; a subchart's in its folder, `renamed` from its chart's name)."""
    _, _, inside = name.partition("/")
    inside = os.path.normpath(inside or name)
    if os.path.isabs(inside) or inside.split(os.sep)[0] == "..":
        return chart_file(chart)  # a chart named `../x` must not point k8slb out of it
    return _member_path(chart, _renamed(Path(inside).as_posix(), renamed or {}), linked or {})


def _renamed(member: str, renamed: Mapping[str, str]) -> str:
    """A file as Helm names it inside the chart (`charts/web/templates/x.yaml`, of the
    alias `web`) as the chart's members name it (`charts/base/templates/x.yaml`)."""
    prefix = max((p for p in renamed if member.startswith(p)), key=len, default=None)
    return member if prefix is None else renamed[prefix] + member[len(prefix) :]


CHART_API_VERSIONS = ("v1", "v2", "v3")  # v3: Helm 4's charts


def _unknown_api_version(where: str, data: bytes | None) -> Problem | None:
    """KLB003 when Chart.yaml names an apiVersion no Helm knows: what it would render is
    anybody's guess."""
    members = unpack(data) if data is not None else {}
    text = members.get(os.path.basename(where))
    if text is None:
        return None
    for number, line in enumerate(text.decode("utf-8", "replace").splitlines(), start=1):
        found = _API_VERSION.match(line)
        if found and found.group(1) not in CHART_API_VERSIONS:
            return Problem(
                UNRENDERED,
                where,
                number,
                1,
                f"Chart.yaml's apiVersion {found.group(1)} is none Helm knows "
                f"({', '.join(CHART_API_VERSIONS)}): the chart is not rendered",
                None,
                Severity.WARNING,
            )
    return None


def _schema_reaches_out(chart: str, reach: Reach) -> Problem:
    """KLB003 at a schema's reference to a document outside it, which Helm would load
    (from the network, or the machine's files) to validate the values."""
    path, line = os.path.join(chart, reach.member), reach.line
    inside = ""
    if reach.inner is not None:  # in a packaged subchart: the archive, and where in it
        inside = f" ({reach.inner}, line {reach.line}, inside the archive)"
        line = 1
    return Problem(
        UNRENDERED,
        path,
        line,
        1,
        f"Helm chart {chart} is not rendered: its values schema{inside} refers to "
        f"{reach.target}, which Helm would fetch to validate the values; k8slb fetches "
        "nothing (no network, no file outside the chart)",
        None,
        Severity.WARNING,
        ("--helm-skip-schema-validation renders it without its values schemas",),
    )


def _missing(chart: str, where: str, names: list[str], stood: Sequence[str] = ()) -> Problem:
    """One info finding naming the subcharts that are declared but not vendored, and the
    repositories `helm dependency build` would fetch them from (k8slb fetches nothing),
    and the named templates of theirs stood in for (chart_stand_ins.py)."""
    line, text = 1, ""
    try:
        with open(where, "rb") as handle:
            data = read_bounded(handle, _MAX_CHART_YAML)
        text = data.decode("utf-8") if data is not None else ""
    except (OSError, UnicodeDecodeError):
        pass
    for number, said in enumerate(text.splitlines(), start=1):
        if said.startswith("dependencies:"):
            line = number
    if is_made_name(os.path.basename(where)):  # `{{ .Version }}` is no YAML yet
        text = stood_in(text, lambda _: None, every=True)[0]
    wanted = set(names)
    sources = list(
        dict.fromkeys(
            repository
            for name, repository, alias in _declared(text)[:_MAX_ALIASES]
            if repository and (alias or name) in wanted and not repository.startswith("file://")
        )
    )
    fetched = ""
    if sources:
        more = f" and {len(sources) - 3} more" if len(sources) > 3 else ""
        fetched = f" from {', '.join(sources[:3])}{more}; k8slb fetches nothing (no network)"
    plural = "s" if len(names) > 1 else ""
    return Problem(
        UNRENDERED,
        where,
        line,
        1,
        f"chart {chart} is rendered without its subchart{plural} {', '.join(names)}",
        None,
        Severity.INFO,
        (
            f"they are not in its charts/ folder (`helm dependency build` vendors them"
            f"{fetched}): the chart's own objects are linted, theirs are not",
            *((_stood_detail(stood),) if stood else ()),
        ),
    )


def _stood_detail(stood: Sequence[str]) -> str:
    shown = ", ".join(f"{name} as {stand_in_text(name)}" for name in stood)
    return (
        f"the named templates of theirs the chart calls are stand-ins ({shown}): the "
        "objects that only pass on what they give (a host, a Secret's name) are linted, "
        "and those values are not the subchart's"
    )


def _problem(
    chart: str,
    where: str,
    message: str,
    line: int = 1,
    missing: Sequence[str] = (),
    linked: Mapping[str, str] | None = None,
    renamed: Mapping[str, str] | None = None,
    everywhere: bool = False,
) -> Problem:
    """KLB003 (a warning: none of the chart is linted) at the template and line Helm names,
    else at Chart.yaml, with Helm's reason: its first line, or, where that line is only the
    place (Helm 4 names each template of an include chain, then the reason), the last."""
    lines = [text.strip() for text in message.strip().splitlines() if text.strip()]
    first = lines[0] if lines else "Helm could not render it"
    reason = first
    if _HELM_PLACE.fullmatch(first) and len(lines) > 1:
        reason = f"{lines[-1]} (at {first})"
    elif first.endswith(":") and len(lines) > 1:  # a heading, the reasons below it
        kept = lines[:_REASON_LINES] + (["…"] if len(lines) > _REASON_LINES else [])
        reason = " ".join(kept)
    text = f"Helm cannot render chart {chart}: {reason}"
    detail: tuple[str, ...]
    if missing:
        are = ("s", "are") if len(missing) > 1 else ("", "is")
        detail = (
            f"its subchart{are[0]} {', '.join(missing)} {are[1]} not in its charts/ folder: "
            "`helm dependency build` vendors them",
        )
        if everywhere:  # rendered without them, each template that writes objects failed
            detail += (
                "rendered without them, every template of it that writes objects fails "
                "(their named templates, the defaults of their values): k8slb fetches nothing",
            )
    else:
        detail = ("none of its objects is linted until it renders (see --helm-values, --helm-set)",)
    fault = _loader_fault(chart, first)
    if fault is not None:
        path, line, inside = fault
        detail = (*inside, "none of its objects is linted until Helm can load that file")
        return Problem(UNRENDERED, path, line, 1, text, None, Severity.WARNING, detail)
    place = _HELM_PLACE.search(first)
    if place is not None:
        shown = _shown(chart, place.group("file"), linked, renamed)
        line, column = int(place.group("line")), int(place.group("col") or 1)
        if os.path.isfile(shown):
            return Problem(UNRENDERED, shown, line, column, text, None, Severity.WARNING, detail)
        packaged = _packaged(chart, Path(os.path.relpath(shown, chart)).as_posix())
        if packaged is not None:
            archive, inner = packaged
            detail = (_inside_archive(f"{inner}, line {line},", archive), *detail)
            return Problem(UNRENDERED, archive, 1, 1, text, None, Severity.WARNING, detail)
    return Problem(UNRENDERED, where, line, 1, text, None, Severity.WARNING, detail)


def _packaged(chart: str, member: str) -> tuple[str, str] | None:
    """The packaged subchart (`charts/cache-1.2.3.tgz`) that holds a file Helm names
    under `charts/cache/`, and the file's path inside it; None when none does."""
    parts = member.split("/")
    for at in range(len(parts) - 1):
        folder = os.path.join(chart, *parts[: at + 1])
        name = parts[at + 1]
        if parts[at] != "charts" or os.path.isdir(os.path.join(folder, name)):
            continue
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            return None
        for entry in entries:
            if entry.endswith(".tgz") and (entry == f"{name}.tgz" or entry.startswith(f"{name}-")):
                return os.path.join(folder, entry), "/".join(parts[at + 1 :])
    return None


def _inside_archive(what: str, archive: str) -> str:
    return (
        f"{what} inside the archive {os.path.basename(archive)} (a packaged subchart: no file "
        "to open here; change it where the subchart is made)"
    )


def _loader_fault(chart: str, message: str) -> tuple[str, int, tuple[str, ...]] | None:
    """The chart's file (a subchart's, under charts/) and line that Helm's loader refused:
    an invalid values.yaml or Chart.yaml at the line YAML names, a Chart.yaml field at its
    key's line; in a packaged subchart, the archive, and the file inside it said. None
    when the message names no such file, or it is not in the folder."""
    folder, rest = chart, message  # RE2 takes no start position: the rest is a slice
    while (subchart := _SUBCHART.match(rest)) is not None:
        folder, rest = (
            os.path.join(folder, "charts", subchart.group("name")),
            rest[subchart.end() :],
        )
    unloaded = _UNLOADED.match(rest)
    refused = _REFUSED_FIELD.match(rest)
    if unloaded is not None:
        name = unloaded.group("file")
        line = _YAML_LINE.search(rest[unloaded.end() :])
        number = int(line.group("line")) if line else 1
    elif refused is not None:
        name = os.path.basename(chart_file(folder))
        number = _key_line(os.path.join(folder, name), refused.group("key"))
    else:
        return None
    if os.path.isfile(folder) and folder.endswith(".tgz"):  # a packaged subchart
        return folder, 1, (_inside_archive(f"{name}, line {number},", folder),)
    path = os.path.join(folder, name)
    return (path, number, ()) if os.path.isfile(path) else None


def _key_line(path: str, key: str) -> int:
    """The line of a top-level `key:` in a YAML file, else 1."""
    try:
        lines = Path(path).read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    for number, text in enumerate(lines, start=1):
        if text.startswith(f"{key}:"):
            return number
    return 1


def stat_signature(location: str) -> str:
    """Size and time of every file of the chart (a folder's own time misses edits in it),
    and of the folders it depends on."""
    folders = [location, *dict.fromkeys(linked_tree(location).values())]
    return stamps([path for folder in folders for path in _chart_files(folder)])


# The folders of a chart Helm reads a file from: a file anywhere else in the chart's folder
# (`ci/`, `examples/`) is not the chart's, and neither is a folder beside a stray Chart.yaml.
CHART_PARTS = frozenset({"templates", "charts", "crds"})


def enclosing_chart(path: str) -> str | None:
    """The chart a file belongs to (the outermost, for a vendored subchart's file), shown
    as `path` is (relative stays relative); None outside any chart. The nearest chart
    folder above decides, and only when the file is in it or in one of its CHART_PARTS;
    the search stops at the repository's top (a `.git`)."""
    folder = os.path.dirname(os.path.abspath(path))
    chain = upward(folder, git_top(folder) or os.path.abspath(os.sep))
    for index, current in enumerate(chain):
        if not is_chart_folder(current) or not declares_chart(current):
            continue
        if index > 0 and os.path.basename(chain[index - 1]) not in CHART_PARTS:
            return None
        above = chain[index + 2 :: 2]  # a subchart's chart: two up, past `charts/`
        for parent, chart in zip(chain[index + 1 :: 2], above, strict=False):
            if (
                os.path.basename(parent) != "charts"
                or not is_chart_folder(chart)
                or not declares_chart(chart)
            ):
                break
            current = chart
        return current if os.path.isabs(path) else os.path.relpath(current)
    return None
