"""Kustomize, on request (`--kustomize`): a folder with a kustomization is built with
`kustomize build` (or `kubectl kustomize`), each object of the output is linted as the
cluster gets it, and each finding is put in the resource file that holds the object.

Without the option, a kustomization's folder is walked like any other: its resource files
are linted as they are written, with the strategic-merge patches k8slb applies exactly
(model/patched.py) and the labels and namespace it adds. Each kustomization is judged on
its own: two overlays of one base are two deployments, not one namespace with twins.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.reading.bounded import read_bounded
from k8slb.reading.chart_findings import RenderedTemplate
from k8slb.reading.chart_lines import TemplateLines
from k8slb.reading.charts import HelmOptions, Rendering, pack_members, stamps
from k8slb.reading.kustomization import (
    KUSTOMIZATION_FILES,
    Reference,
    helm_charts,
    references,
    unrendered_charts,
)
from k8slb.reading.repository import inside, repository_of

BUILD_TIMEOUT = 60  # seconds a build may take
MAX_FILE_BYTES = 16 * 1024 * 1024  # a resource file larger than this is refused
UNBUILT = "KLB003"
_DOCUMENT_START = regex.compile(r"^---[ \t]*$", regex.MULTILINE)


def is_kustomization(names: list[str]) -> bool:
    return any(name in KUSTOMIZATION_FILES for name in names)


def _kustomization(folder: str) -> str | None:
    for name in KUSTOMIZATION_FILES:
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def _references(folder: str) -> list[str]:
    """The folders a kustomization's `resources:` (and old `bases:`) name, that exist."""
    path = _kustomization(folder)
    if path is None:
        return []
    text = Path(path).read_text("utf-8", errors="replace")
    return [
        r.target for r in references(path, text) if r.target is not None and os.path.isdir(r.target)
    ]


def included(folders: Sequence[str]) -> set[str]:
    """The folders among `folders` that another of them builds in (the base of an overlay),
    reached from one that none includes. Each is linted in the builds that include it, and
    not built alone too, which would say each of its findings once more (a base is not
    deployed on its own). Kustomizations that only name each other in a ring are kept."""
    ours, names = _graph(folders)
    named = {other for mine, others in names.items() for other in others if other != mine}
    reached: set[str] = set()
    # from the overlays that are built: one that names a remote entry is not (build),
    # so the bases only it includes are built alone
    queue = [mine for mine in ours if mine not in named and not _remote_references(ours[mine])]
    while queue:
        for other in names[queue.pop()]:
            if other not in reached:
                reached.add(other)
                queue.append(other)
    return {ours[mine] for mine in named & reached}


def building(folders: Sequence[str], targets: Sequence[str]) -> set[str]:
    """The folders among `folders` whose build includes one of `targets`, directly or
    through the others: each kustomization is read once, and the graph walked once,
    backwards from the targets."""
    ours, names = _graph([*folders, *targets])
    wanted = {os.path.abspath(t) for t in targets}
    callers: dict[str, list[str]] = {}
    for mine, others in names.items():
        for other in others:
            callers.setdefault(other, []).append(mine)
    reaching: set[str] = set()
    queue = list(wanted)
    while queue:
        for caller in callers.get(queue.pop(), []):
            if caller not in reaching:
                reaching.add(caller)
                queue.append(caller)
    return {ours[mine] for mine in reaching - wanted}


def _graph(folders: Sequence[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The folders by their absolute path, and the ones among them each one names."""
    ours = {os.path.abspath(f): f for f in folders}
    names = {
        mine: [os.path.abspath(r) for r in _references(f) if os.path.abspath(r) in ours]
        for mine, f in ours.items()
    }
    return ours, names


def files_of(folder: str) -> list[str]:
    """The YAML files a build of `folder` can read: its own and those of the folders it
    names, followed through their kustomizations (cycles and repeats taken once), within
    its repository."""
    top = repository_of(folder)
    seen: set[str] = set()
    files: list[str] = []
    start = os.path.normpath(folder)
    stack = [start]
    while stack:
        current = stack.pop()
        if current in seen or not (inside(current, top) or current == start):
            continue
        seen.add(current)
        for name in sorted(os.listdir(current)):
            path = os.path.join(current, name)
            wanted = name.endswith((".yaml", ".yml")) or name == "Kustomization"
            if wanted and os.path.isfile(path):
                files.append(path)
        stack += _references(current)
    return files


def _remote_references(folder: str) -> list[tuple[str, Reference]]:
    """The remote entries (URLs) of the kustomizations a build of `folder` reads."""
    remote = []
    for path in files_of(folder):
        if os.path.basename(path) in KUSTOMIZATION_FILES:
            text = Path(path).read_text("utf-8", errors="replace")
            remote += [(path, r) for r in references(path, text) if r.target is None]
    return remote


def _unrendered_charts(folder: str, unbuilt: str) -> list[Problem]:
    """KLB006 for each kustomization a build of `folder` reads whose Helm charts are not
    vendored (reading/kustomization.py's unrendered_charts)."""
    found = []
    for path in files_of(folder):
        if os.path.basename(path) in KUSTOMIZATION_FILES:
            listed = helm_charts(path, Path(path).read_text("utf-8", errors="replace"))
            problem = unrendered_charts(listed, unbuilt) if listed is not None else None
            found += [problem] if problem is not None else []
    return found


def pack_files(folder: str) -> bytes:
    """What the build reads, in one byte string: what the cache keys its result on."""
    members = {}
    for path in files_of(folder):
        with open(path, "rb") as handle:
            data = read_bounded(handle, MAX_FILE_BYTES)
        if data is None:
            raise OSError(f"{path} is larger than {MAX_FILE_BYTES // 2**20} MiB")
        members[path] = data
    return pack_members(members)


def signature(folder: str) -> str:
    """Size and time of each file the build reads."""
    return stamps(files_of(folder))


def _binary() -> list[str] | None:
    import shutil  # here and in build(): only a kustomization needs them

    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


def build(folder: str) -> Rendering:
    """The kustomization built: each object of the output as a file of its own (`FOLDER#N`),
    or one finding saying why there is none."""
    import subprocess
    import tempfile

    rendering = Rendering(folder, options=HelmOptions())
    where = _kustomization(folder) or folder
    remote = _remote_references(folder)
    if remote:  # kustomize would fetch them: a pull request must not make the runner do so
        rendering.problems += [
            Problem(
                "KLB006",
                path,
                reference.line,
                reference.column,
                f"kustomize resource {reference.text} is remote: k8slb does not fetch it, "
                f"so kustomization {folder} is not built",
                None,
                Severity.INFO,
                ("vendor it into the repository, or pipe a trusted build to `k8slb check -`",),
            )
            for path, reference in remote
        ]
        return rendering
    charts = _unrendered_charts(folder, f"so kustomization {folder} is not built")
    if charts:  # `--enable-helm` would pull them: k8slb fetches nothing
        rendering.problems += charts
        return rendering
    command = _binary()
    if command is None:
        rendering.problems.append(
            Problem(
                UNBUILT,
                where,
                1,
                1,
                f"kustomization {folder} is not built (--kustomize), so not linted as built",
                None,
                Severity.INFO,
                ("put kustomize or kubectl on PATH",),
            )
        )
        return rendering
    with tempfile.TemporaryDirectory() as home:  # no user plugins or configuration
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": home}
        try:
            done = subprocess.run(
                [*command, folder],
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            done = subprocess.CompletedProcess(command, 1, "", str(error))
            # a limit of the run, not the kustomization's answer: another run may build it
            rendering.stopped = isinstance(error, subprocess.TimeoutExpired)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["the build failed"])[0]
        rendering.problems.append(
            Problem(
                UNBUILT,
                where,
                1,
                1,
                f"kustomize cannot build {folder}: {first}",
                None,
                Severity.WARNING,
            )
        )
        return rendering
    for number, document in enumerate(_documents(done.stdout)):
        rendering.files[f"{folder}#{number}"] = document
        rendering.names[f"{folder}#{number}"] = f"kustomize build {folder}"
    return rendering


def _documents(stream: str) -> Iterator[str]:
    for document in _DOCUMENT_START.split(stream):
        if document.strip():
            yield document.lstrip("\n")


def _cut_before_documents(text: str) -> list[str]:
    """The text cut before each `---` line, which starts the next piece."""
    starts = [match.start() for match in _DOCUMENT_START.finditer(text)]
    return [text[start:end] for start, end in zip([0, *starts], [*starts, len(text)], strict=True)]


_IDENTITY = regex.compile(r"^kind:\s*(\S+)|^  name:\s*['\"]?([^'\"\s#]+)", regex.MULTILINE)


def _identity(text: str) -> tuple[str | None, str | None]:
    kind = name = None
    for match in _IDENTITY.finditer(text):
        kind = kind or match.group(1)
        name = name or match.group(2)
    return kind, name


Resource = tuple[str, int, str, str | None, str | None]  # path, line, text, kind, name


def _closeness(resource: Resource, built: set[str]) -> tuple[int, int]:
    """The longest name, then the most lines the build kept: the base's document over a
    patch that names the same object (a patch holds a few lines of it)."""
    kept = sum(1 for line in resource[2].splitlines() if line.strip() in built)
    return len(resource[4] or ""), kept


def built_templates(rendering: Rendering, folder: str) -> dict[str, RenderedTemplate]:
    """Each built object with the resource it came from: the document of the build's
    files with its kind, and the longest name the built name contains (a name prefix or
    suffix of an overlay is added around it). No such document: the kustomization."""
    resources: list[Resource] = []
    for path in files_of(folder):
        try:
            text = Path(path).read_text("utf-8", errors="replace")
        except OSError:
            continue
        line = 1
        for piece in _cut_before_documents(text):
            resources.append((path, line, piece, *_identity(piece)))
            line += piece.count("\n")
    found = {}
    for key, document in rendering.files.items():
        kind, name = _identity(document)
        fitting = [r for r in resources if r[3] == kind and r[4] and name and r[4] in name]
        built = {line.strip() for line in document.splitlines()}
        path, line, source = (
            max(fitting, key=functools.partial(_closeness, built=built))[:3]
            if fitting
            else (_kustomization(folder) or folder, 1, "")
        )
        found[key] = RenderedTemplate(
            folder,
            TemplateLines(source.splitlines(), document.splitlines()),
            [],
            rendering.names[key],
            path,
            None,
            document,
            source,
            rendering.options,
            None,
            offset=line - 1,
            fixable=False,
            manual=f"make that change in {os.path.basename(path)} or the patch that sets it",
        )
    return found
