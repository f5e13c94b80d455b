"""helmfile: a `helmfile.yaml` (or `helmfile.yaml.gotmpl` with no template in it, or a
file of `helmfile.d/`) installs charts as releases, each with its name, namespace, values
files and `set` entries. Each release of a chart in the repository is rendered by the
chart renderer (reading/charts.py) with those, and linted as a chart is (a finding goes
back to the template line, the release named in its detail); a chart a helmfile installs
is not rendered alone with its defaults as well (`takes`). Releases of charts from a
repository are skipped with a note. What helmfile computes at deploy time (templates,
environments, other helmfiles, patches) is refused with its line, never guessed: the
helmfile is then not rendered, and its charts are linted alone, as without it."""

from __future__ import annotations

import os
import zlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.inputs.reader import Reader, ReadSettings
from k8slb.reading.bounded import read_bounded
from k8slb.reading.chart_findings import (
    RenderedTemplate,
    in_namespace,
    rendered_templates,
    valueless_problem,
)
from k8slb.reading.chart_repeats import read_as_helm_does
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    chart_file,
    is_chart_folder,
    pack,
    pack_members,
    render_charts,
    rendering_inputs,
    set_value_problem,
    stamps,
    stat_signature,
    unpack,
)
from k8slb.reading.manifests import ManifestFile
from k8slb.reading.repository import inside, repository_of
from k8slb.reading.yamltree import YMap, YSeq

NAMES = ("helmfile.yaml", "helmfile.yml", "helmfile.yaml.gotmpl")
FOLDER = "helmfile.d"  # each YAML file in it is a helmfile
SUFFIXES = (".yaml", ".yml", ".yaml.gotmpl")
MAX_HELMFILE_BYTES = 1 << 20  # far above any real one
MAX_RELEASES = 200  # each is a chart's rendering
MAX_SETTINGS = 1000  # `set` entries and inline values' leaves of one release
# Folders searched (under the helmfile's) for the chart a release's package is made from.
MAX_FOLDERS = 2000
_SKIPPED = frozenset({"node_modules", "vendor", "dist", "build", "target", "__pycache__"})

# Keys of a helmfile that say nothing about what a release renders to.
_IGNORED = frozenset(
    {
        "repositories",  # where remote charts come from: those are skipped anyway
        "helmDefaults",  # flags of helm's commands (wait, timeout, kube context)
        "templates",  # a holder of YAML anchors, merged where releases name them
        "apiVersions",
        "kubeVersion",
        "commonLabels",  # labels of the releases, not of their objects
        "hooks",
        "missingFileHandler",
        "lockFilePath",
    }
)
# helmDefaults that change what a release renders to (Helm's flags, a post-renderer).
_DEFAULTS_REFUSED = frozenset({"args", "postRenderer", "postRendererArgs"})
# Keys of a release read here, and those that change nothing it renders to.
_RELEASE_READ = frozenset({"name", "chart", "namespace", "values", "set", "installed"})
_RELEASE_IGNORED = frozenset(
    {
        "version",  # of a remote chart; a chart in the repository is as it is
        "labels",
        "needs",
        "wait",
        "waitForJobs",
        "timeout",
        "atomic",
        "createNamespace",
        "hooks",
        "kubeContext",
        "disableValidation",
        "disableValidationOnInstall",
        "disableOpenAPIValidation",
        "verify",
        "keyring",
        "devel",
        "historyMax",
        "recreatePods",
        "force",
        "cleanupOnFail",
        "skipDeps",
        "missingFileHandler",
        "reuseValues",
        "deleteWait",
        "deleteTimeout",
        "suppressDiff",
        "description",
    }
)


@record
class Release:
    """A release of a chart in the repository, as helmfile installs it."""

    name: str
    line: int  # of its entry in the helmfile
    chart: str  # the chart's folder, as shown
    namespace: str | None
    values: tuple[str, ...]  # values files, as shown, in helmfile's order
    sets: tuple[str, ...]  # `--set` assignments: its inline values, then its `set`


@record
class Plan:
    """What a helmfile installs that k8slb renders, and why the rest is not rendered."""

    releases: tuple[Release, ...]
    problems: tuple[Problem, ...]


class _Refused(Exception):
    """A part of the helmfile k8slb does not read, at its line."""

    def __init__(self, line: int, message: str, severity: Severity = Severity.INFO) -> None:
        super().__init__(message)
        self.line, self.message, self.severity = line, message, severity


def is_helmfile(path: str) -> bool:
    name = os.path.basename(path)
    if name in NAMES:
        return True
    return os.path.basename(os.path.dirname(path)) == FOLDER and name.endswith(SUFFIXES)


def read_text(location: str) -> str | None:
    """The helmfile's text, or None when it cannot be read or is past the budget."""
    try:
        with open(location, "rb") as handle:
            data = read_bounded(handle, MAX_HELMFILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if data is not None else None


def plan(path: str, text: str) -> Plan:
    """The releases a helmfile (`path`, as shown) installs from charts in the repository,
    and a problem for each part not rendered: a release from elsewhere (a note), one
    helmfile itself would refuse (a warning), or a feature k8slb does not read (which
    keeps the whole file from being rendered)."""
    try:
        return _plan(path, text)
    except _Refused as refused:
        return Plan((), (_problem(path, refused),))


def _problem(path: str, refused: _Refused) -> Problem:
    return Problem(UNRENDERED, path, refused.line, 1, refused.message, None, refused.severity, ())


def _plan(path: str, text: str) -> Plan:
    from k8slb.reading.yamlcompose import compose

    template = text.find("{{")
    if template >= 0:
        raise _Refused(
            text.count("\n", 0, template) + 1,
            "helmfile: its templates ({{ ... }}) are filled in by helmfile at deploy time, "
            "which k8slb does not do: its releases are not rendered",
        )
    composed = compose(text)
    if composed.problems:
        _, first = composed.problems[0]
        raise _Refused(first.line, f"helmfile: not YAML: {first.message}", Severity.WARNING)
    releases: list[Release] = []
    problems: list[Problem] = []
    entries: list[tuple[Any, tuple[int, int]]] = []
    for document in composed.documents:
        if document.data is None:
            continue
        if not isinstance(document.data, YMap):
            raise _Refused(document.pos[0], "helmfile: a document is not a mapping")
        entries += _entries(document.data)
    top = os.path.realpath(repository_of(os.path.dirname(os.path.abspath(path))))
    for number, (entry, at) in enumerate(entries):
        if number == MAX_RELEASES:
            raise _Refused(at[0], f"helmfile: more than {MAX_RELEASES} releases: not rendered")
        try:
            release = _release(path, top, entry, at[0])
        except _Refused as refused:
            problems.append(_problem(path, refused))
            continue
        if release is not None:
            releases.append(release)
    return Plan(tuple(releases), tuple(problems))


def _entries(document: YMap) -> list[tuple[Any, tuple[int, int]]]:
    """The document's release entries with their places; a key k8slb does not read is
    refused."""
    for key in document:
        if key != "releases" and key not in _IGNORED:
            raise _Refused(
                document.key_pos[key][0],
                f"helmfile: `{key}` is not read by k8slb (it changes what helmfile renders "
                "at deploy time): its releases are not rendered",
            )
    defaults = document.get("helmDefaults")
    refused = sorted(_DEFAULTS_REFUSED & defaults.keys()) if isinstance(defaults, YMap) else []
    if isinstance(defaults, YMap) and refused:
        key = refused[0]
        raise _Refused(
            defaults.key_pos[key][0],
            f"helmfile: helmDefaults' `{key}` is not read by k8slb (it changes what every "
            "release renders to): its releases are not rendered",
        )
    found = document.get("releases")
    if found is None:
        return []
    if not isinstance(found, YSeq):
        raise _Refused(document.value_pos["releases"][0], "helmfile: `releases` is not a list")
    return list(zip(found, found.item_pos, strict=True))


def _release(path: str, top: str, entry: Any, line: int) -> Release | None:
    """One release entry: what renders it, None when helmfile does not install it, or
    why it is not rendered (`_Refused`)."""
    if not isinstance(entry, YMap):
        raise _Refused(line, "helmfile: a release is not a mapping", Severity.WARNING)
    for key in entry:
        if key not in _RELEASE_READ and key not in _RELEASE_IGNORED:
            raise _Refused(
                entry.key_pos[key][0],
                f"helmfile release {entry.get('name')!s}: `{key}` is not read by k8slb: "
                "the release is not rendered",
            )
    name, chart = entry.get("name"), entry.get("chart")
    if not isinstance(name, str) or not isinstance(chart, str) or not name or not chart:
        raise _Refused(line, "helmfile: a release with no name or chart", Severity.WARNING)
    installed = entry.get("installed", True)
    if installed is False:
        return None
    if installed is not True:
        raise _Refused(
            entry.value_pos["installed"][0],
            f"helmfile release {name}: `installed` is not true or false: not rendered",
        )
    folder = chart_folder(path, top, chart, entry.value_pos["chart"][0], name)
    namespace = entry.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise _Refused(
            entry.value_pos["namespace"][0],
            f"helmfile release {name}: its namespace is not a string",
            Severity.WARNING,
        )
    values, inline = _values(path, top, name, entry)
    return Release(name, line, folder, namespace or None, values, (*inline, *_sets(name, entry)))


def chart_folder(
    path: str, top: str, chart: str, line: int, name: str, what: str = "helmfile release"
) -> str:
    """The folder of the release's chart in the repository (a package `NAME-VERSION.tgz`
    that is not there, made at deploy time by `helm package`, is the chart folder under
    the helmfile's whose Chart.yaml makes that name), or why it is not rendered."""
    here = os.path.dirname(path)
    target = os.path.normpath(os.path.join(here, chart))
    local = chart.startswith(("./", "../", "/")) or ("://" not in chart and os.path.isdir(target))
    if not local:
        raise _Refused(
            line,
            f"{what} {name}: chart {chart} is not in the repository "
            "(a chart repository's or a registry's): not rendered, so not linted",
        )
    if not inside(os.path.realpath(target), top):
        raise _Refused(line, f"{what} {name}: chart {chart} is outside the repository: not read")
    if os.path.isdir(target) and is_chart_folder(target):
        return target
    if chart.endswith(".tgz") and not os.path.exists(target):
        made = _packaged_from(here, os.path.basename(target), top)
        if made is not None:
            return made
    raise _Refused(
        line,
        f"{what} {name}: no chart folder at {chart} in the repository: not rendered, so not linted",
    )


def _packaged_from(folder: str, package: str, top: str) -> str | None:
    """The one chart folder under `folder` (in the repository) that `helm package` makes
    `package` of (`NAME-VERSION.tgz`, from its Chart.yaml); None for none or several."""
    found = []
    queue, seen = deque([folder]), 0
    while queue and seen < MAX_FOLDERS:
        current = queue.popleft()
        seen += 1
        if is_chart_folder(current):
            if _package_name(current) == package:
                found.append(current)
            continue  # a chart's subcharts are installed with it
        try:
            with os.scandir(current) as listing:
                names = sorted(
                    e.name
                    for e in listing
                    if e.is_dir(follow_symlinks=False)
                    and not e.name.startswith(".")
                    and e.name not in _SKIPPED
                )
        except OSError:
            continue
        queue += [
            os.path.join(current, n)
            for n in names
            if inside(os.path.realpath(os.path.join(current, n)), top)
        ]
    return found[0] if len(found) == 1 else None


def _package_name(chart: str) -> str | None:
    from k8slb.reading.yamlcompose import compose

    text = read_text(chart_file(chart))
    documents = compose(text).documents if text is not None else []
    body = documents[0].data if documents else None
    if not isinstance(body, YMap):
        return None
    name, version = body.get("name"), body.get("version")
    if not isinstance(name, str) or version is None or isinstance(version, (YMap, YSeq)):
        return None
    return f"{name}-{version}.tgz"


def _values(path: str, top: str, name: str, entry: YMap) -> tuple[tuple[str, ...], list[str]]:
    """The release's values files (as shown) and its inline values as `--set`
    assignments, which Helm applies after the files: an inline mapping before a file is
    refused, as its order could not be kept."""
    listed = entry.get("values")
    if listed is None:
        return (), []
    if not isinstance(listed, YSeq):
        raise _Refused(
            entry.value_pos["values"][0],
            f"helmfile release {name}: `values` is not a list",
            Severity.WARNING,
        )
    files: list[str] = []
    inline: list[str] = []
    for item, (line, _) in zip(listed, listed.item_pos, strict=True):
        if isinstance(item, YMap):
            inline += _assignments(item, (), name, line)
            continue
        if not isinstance(item, str):
            raise _Refused(
                line,
                f"helmfile release {name}: a values entry is neither a file nor a mapping",
                Severity.WARNING,
            )
        if item.endswith(".gotmpl"):
            raise _Refused(
                line,
                f"helmfile release {name}: {item} is a template helmfile "
                "fills in at deploy time: the release is not rendered",
            )
        if inline:
            raise _Refused(
                line,
                f"helmfile release {name}: a values file after inline "
                "values (k8slb applies inline values last): not rendered",
            )
        shown = os.path.normpath(os.path.join(os.path.dirname(path), item))
        if not inside(os.path.realpath(shown), top) or not os.path.isfile(shown):
            raise _Refused(
                line,
                f"helmfile release {name}: values file {item} is not in the "
                "repository: not rendered",
                Severity.WARNING,
            )
        files.append(shown)
    return tuple(files), inline


# Values Helm's `--set` would read as another type (`"8080"` an integer): not passed so.
_RETYPED = frozenset({"true", "false", "null"})


def _scalar(value: Any, name: str, line: int) -> str:
    """A value as `--set` writes it, when `--set` reads it back as the same value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if (
        isinstance(value, str)
        and value.lower() not in _RETYPED
        and not value.lstrip("-").isdigit()
        and not any(c in value for c in "{}[]")
    ):
        return value.replace("\\", "\\\\").replace(",", "\\,")
    raise _Refused(
        line,
        f"helmfile release {name}: value {value!r} cannot be passed to Helm "
        "as it is written: the release is not rendered",
    )


def _assignments(values: YMap, prefix: tuple[str, ...], name: str, line: int) -> list[str]:
    """Inline values as `--set` assignments (`image.tag=1`), each leaf one."""
    made: list[str] = []
    for key, value in values.items():
        if not key or any(c in key for c in ".,=[]\\{} "):
            raise _Refused(
                line,
                f"helmfile release {name}: inline key {key!r} cannot be "
                "passed to Helm: the release is not rendered",
            )
        if isinstance(value, YMap):
            made += _assignments(value, (*prefix, key), name, line)
        else:
            made.append(f"{'.'.join((*prefix, key))}={_scalar(value, name, line)}")
        if len(made) > MAX_SETTINGS:
            raise _Refused(line, f"helmfile release {name}: more than {MAX_SETTINGS} values")
    return made


def _sets(name: str, entry: YMap) -> list[str]:
    """The release's `set` entries as `--set` assignments (`name: a.b, value: x`, or
    `values: [x, y]` for a list), as helmfile passes them."""
    listed = entry.get("set")
    if listed is None:
        return []
    if not isinstance(listed, YSeq) or len(listed) > MAX_SETTINGS:
        raise _Refused(
            entry.value_pos["set"][0],
            f"helmfile release {name}: `set` is not a list of at most {MAX_SETTINGS}",
            Severity.WARNING,
        )
    made = []
    for item, (line, _) in zip(listed, listed.item_pos, strict=True):
        key = item.get("name") if isinstance(item, YMap) else None
        if not isinstance(key, str) or not set(item) <= {"name", "value", "values"}:
            raise _Refused(
                line,
                f"helmfile release {name}: a `set` entry k8slb does not read "
                "(a name with a value or values): not rendered",
            )
        if isinstance(item.get("values"), YSeq):
            listed_values = [_scalar(v, name, line) for v in item["values"]]
            assignment = f"{key}={{{','.join(listed_values)}}}"
        else:
            assignment = f"{key}={_scalar(item.get('value'), name, line)}"
        wrong = set_value_problem(assignment)
        if wrong is not None:
            raise _Refused(
                line, f"helmfile release {name}: set {assignment}: {wrong}", Severity.WARNING
            )
        made.append(assignment)
    return made


# -- the reader ------------------------------------------------------------------------------

_HELMFILE = "helmfile"  # the packed member that is the helmfile's text
TEXT_MEMBER = _HELMFILE  # (a Tiltfile's reader packs its text so too: inputs/tiltfile.py)
Refused = _Refused


def _packed_text(data: bytes) -> str:
    """The helmfile's text from its packed bytes (or its bytes as they are: from stdin)."""
    if data.startswith(_HELMFILE.encode() + b"\0"):
        return unpack(data)[_HELMFILE].decode("utf-8", "replace")
    return data.decode("utf-8", "replace")


def _variant_path(path: str, helmfile: str, release: Release) -> str:
    """A release's rendered template, `PATH#N`: two releases of one chart (in one helmfile
    or two) render the same template otherwise."""
    number = zlib.crc32(f"{helmfile}\0{release.name}\0{release.line}".encode())
    return f"{path}#{number + 1}"


def _rendered(
    helmfile: str, release: Release, rendering: Rendering, what: str = "helmfile release"
) -> Rendering:
    """A release's rendering, its files keyed apart, named in what is said of it; judged
    with the helmfile's other releases (one variant), as they are installed together."""
    label = f"{what} {release.name} ({helmfile})"
    files = {_variant_path(p, helmfile, release): t for p, t in rendering.files.items()}
    names = {_variant_path(p, helmfile, release): n for p, n in rendering.names.items()}
    problems = [replace(p, message=f"{p.message} (in {label})") for p in rendering.problems]
    return replace(rendering, files=files, names=names, problems=problems, label=label, variant=0)


class Helmfiles(Reader):
    name = "helmfile"
    renders = True
    what = "helmfile release"  # how a release is named in what is said of it

    def plan(self, path: str, text: str) -> Plan:
        """The releases the source (`path`, as shown) renders, and why others are not."""
        return plan(path, text)

    def claims_file(self, path: str) -> bool:
        return is_helmfile(path)

    def takes(self, paths: Sequence[str]) -> set[str]:
        taken = set()
        for path in paths:
            text = read_text(path)
            if text is not None:
                releases = self.plan(path, text).releases
                taken |= {os.path.abspath(f) for r in releases for f in (r.chart, *r.values)}
        return taken

    def pack(self, location: str) -> bytes | None:
        """The helmfile, each chart it renders and each values file it names: what its
        renderings are made of, and the cache's key."""
        text = read_text(location)
        if text is None:
            raise OSError(f"not read: larger than {MAX_HELMFILE_BYTES // 2**20} MiB")
        members = {_HELMFILE: text.encode()}
        for release in self.plan(location, text).releases:
            if f"chart:{release.chart}" not in members:
                members[f"chart:{release.chart}"] = pack(release.chart)
            for values in release.values:
                with open(values, "rb") as handle:
                    members[f"values:{values}"] = handle.read(MAX_HELMFILE_BYTES + 1)
        return pack_members(members)

    def stamp(self, path: str, location: str) -> str:
        text = read_text(location)
        releases = self.plan(location, text).releases if text is not None else ()
        charts = sorted({r.chart for r in releases})
        values = sorted({v for r in releases for v in r.values})
        return ";".join([stamps([location, *values]), *(stat_signature(c) for c in charts)])

    def inputs(self, settings: ReadSettings) -> str:
        return rendering_inputs(settings.helm)

    def render(
        self, sources: Sequence[tuple[str, bytes]], settings: ReadSettings
    ) -> list[list[Rendering]]:
        """Every release of every helmfile, in one child process as charts are; a
        helmfile's problems in a rendering of its own (with no files)."""
        plans = [(path, data, self.plan(path, _packed_text(data))) for path, data in sources]
        jobs: list[tuple[str, HelmOptions, bytes]] = []
        for _, data, planned in plans:
            members = unpack(data) if data.startswith(_HELMFILE.encode() + b"\0") else {}
            for release in planned.releases:
                options = replace(
                    settings.helm,
                    values=release.values,
                    set_values=release.sets,
                    release=release.name,
                    namespace=release.namespace or settings.helm.namespace,
                    value_sets=(),
                )
                chart = members.get(f"chart:{release.chart}") or pack(release.chart)
                jobs.append((release.chart, options, chart))
        done = iter(render_charts(jobs))
        renderings = []
        for path, _, planned in plans:
            notes = Rendering(path, problems=list(planned.problems))
            renderings.append(
                [
                    notes,
                    *(
                        _rendered(path, r, each, self.what)
                        for r in planned.releases
                        for each in next(done)
                    ),
                ]
            )
        return renderings

    def templates(self, rendering: Rendering, path: str) -> Mapping[str, RenderedTemplate]:
        """The chart's templates; a fix is said, not made: other releases may share them."""
        found = rendered_templates(rendering)
        for template in found.values():
            template.fixable = False
        return found

    def after_parse(self, rendering: Rendering, parsed: dict[str, Any]) -> Problem | None:
        # helmfile installs with Helm: a key a rendered file repeats, its last value kept
        read_as_helm_does(list(rendering.files), rendering.files, parsed)
        return valueless_problem(rendering, parsed)

    def placed(
        self, manifests: ManifestFile, rendering: Rendering, settings: ReadSettings
    ) -> ManifestFile:
        return in_namespace(manifests, rendering.options.namespace)

    def reported_files(self, path: str) -> list[str]:
        """A named helmfile's findings may be in any file of the charts it installs (a
        helper's line)."""
        text = read_text(path)
        charts = {r.chart for r in self.plan(path, text).releases} if text is not None else set()
        return [path, *(f for chart in sorted(charts) for f in _files(chart))]


def _files(chart: str) -> list[str]:
    found = []
    for folder, folders, files in os.walk(chart):
        folders.sort()
        found += [os.path.join(folder, name) for name in sorted(files)]
    return found


HELMFILES = Helmfiles()
