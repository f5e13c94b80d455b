"""What a kustomization file names: the entries of its `resources:`, `bases:` and
`components:` lists, where they lead, and which of them k8slb cannot read (a remote one,
one outside the repository). Read line by line, as kustomizations are written; no YAML
parser, no kustomize."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.core.record import record
from k8slb.reading.repository import inside
from k8slb.reading.yamltree import YMap, YSeq

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


@record
class Reference:
    """An entry of a kustomization's `resources:`, `bases:` or `components:` list."""

    text: str  # as written
    line: int
    column: int
    target: str | None  # the path it names, resolved; None for a remote one (a URL)


_LISTS = regex.compile(r"^(resources|bases|components):")
_ITEM = regex.compile(r"^(\s*-\s*)['\"]?([^'\"#\s]+)")
_REMOTE = regex.compile(
    r"^[a-z][a-z0-9+.-]*://|^(github\.com|gitlab\.com|bitbucket\.org)/|^git@", regex.IGNORECASE
)


def _listed(text: str, headings: regex.Pattern[str]) -> Iterator[tuple[str, int, str]]:
    """(the list's key, line number, line) of each line inside a top-level list that
    `headings` opens; a key of its own at the margin ends it (items may start there)."""
    listing: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        heading = headings.match(line)
        if heading:
            listing = heading.group(1)
            continue
        if listing and line[:1].strip() and line[0] not in "#-":
            listing = None
        if listing:
            yield listing, number, line


def references(path: str, text: str) -> list[Reference]:
    """The entries of the kustomization at `path` (read line by line, as kustomizations
    are written: a list under a top-level key)."""
    folder = os.path.dirname(path)
    found: list[Reference] = []
    for _, number, line in _listed(text, _LISTS):
        item = _ITEM.match(line)
        if item:
            name = item.group(2)
            target = None if _REMOTE.match(name) else os.path.normpath(os.path.join(folder, name))
            found.append(Reference(name, number, len(item.group(1)) + 1, target))
    return found


_PATCH_LISTS = regex.compile(r"^(patches|patchesJson6902|patchesStrategicMerge):")
_PATCH_PATH = regex.compile(r"^\s*(?:-\s*)?path:\s*['\"]?([^'\"#\s]+)")


def patch_files(path: str, text: str) -> list[str]:
    """The files the kustomization at `path` applies as patches (`patches:` and
    `patchesJson6902:` entries' `path:`, `patchesStrategicMerge:` items): fragments of
    objects, not objects, resolved (read line by line, as `references` reads)."""
    return _patches_in(path, text, _PATCH_LISTS)


_MERGE_LISTS = regex.compile(r"^(patches|patchesStrategicMerge):")


def merge_patch_files(path: str, text: str) -> list[str]:
    """The files among `patch_files` that may be strategic-merge patches (`patches:`
    entries' `path:`, `patchesStrategicMerge:` items; a `patchesJson6902:` file never is):
    read, for model/patched.py to apply, and never linted as objects."""
    return _patches_in(path, text, _MERGE_LISTS)


def _patches_in(path: str, text: str, lists: regex.Pattern[str]) -> list[str]:
    """The local files the entries of those lists name, from the kustomization's folder."""
    folder = os.path.dirname(path)
    found: list[str] = []
    for listing, _, line in _listed(text, lists):
        pattern, group = (_ITEM, 2) if listing == "patchesStrategicMerge" else (_PATCH_PATH, 1)
        match = pattern.match(line)
        named = match.group(group) if match else None
        if named and not _REMOTE.match(named) and not named.startswith(("|", ">")):
            found.append(os.path.normpath(os.path.join(folder, named)))
    return found


# The lists whose entries name files a kustomization reads as data, not as objects: a
# Helm chart's values (`valuesFile`, `additionalValuesFiles`), a generator's files and env
# files (`files: [app.yaml, key=conf.yaml]`, `envs`, `env`).
_DATA_LISTS = regex.compile(r"^(helmCharts|configMapGenerator|secretGenerator):")
_DATA_KEY = regex.compile(r"^\s*(?:-\s*)?([A-Za-z]+):\s*['\"]?([^'\"#\s]*)")
_ONE_FILE = frozenset({"valuesFile", "env"})
_FILE_LISTS = frozenset({"additionalValuesFiles", "files", "envs"})


def data_files(path: str, text: str) -> list[str]:
    """The files the kustomization at `path` reads as data or fragments, not as objects:
    its patches (`patch_files`), its Helm charts' values files and its generators' files,
    resolved (read line by line, as `references` reads)."""
    folder = os.path.dirname(path)
    found = patch_files(path, text)
    key = ""  # the entry's key the lines under it belong to
    for _, _, line in _listed(text, _DATA_LISTS):
        keyed = _DATA_KEY.match(line)
        if keyed is not None:
            key, named = keyed.group(1), keyed.group(2)
            if key not in _ONE_FILE:
                continue
        else:
            item = _ITEM.match(line)
            if key not in _FILE_LISTS or item is None:
                continue
            named = item.group(2).rpartition("=")[2]  # `key=path`
        if named and not _REMOTE.match(named) and not named.startswith(("|", ">")):
            found.append(os.path.normpath(os.path.join(folder, named)))
    return found


_CHART_LISTS = regex.compile(r"^(helmCharts):")
_CHART_KEY = regex.compile(r"^(name|repo|version):\s*['\"]?([^'\"#\s]+)")
_CHART_HOME = regex.compile(r"^\s+chartHome:\s*['\"]?([^'\"#\s]+)", regex.MULTILINE)
MAX_CHARTS_NAMED = 8  # the charts a note names; the others counted


@record
class HelmChart:
    """An entry of a kustomization's `helmCharts:`: the chart's name, its `repo:` (None:
    none written) and `version:`."""

    name: str
    repo: str | None
    version: str | None


@record
class HelmCharts:
    """A kustomization's `helmCharts:`: the line of its key, the folder kustomize looks for
    the charts in (`charts/` beside it, or `helmGlobals`' `chartHome`), and its entries."""

    path: str
    line: int
    home: str
    charts: tuple[HelmChart, ...]


def helm_charts(path: str, text: str) -> HelmCharts | None:
    """The `helmCharts:` of the kustomization at `path`, or None when it has none (read
    line by line: an entry starts at the list's dash, its keys at the indentation of its
    first). At most `MAX_KUSTOMIZATION_ENTRIES` entries."""
    if "helmCharts:" not in text:
        return None
    heading = 0
    entries: list[dict[str, str]] = []
    dash = keys = -1  # the column of the list's dashes, of the current entry's keys
    for _, number, line in _listed(text, _CHART_LISTS):
        heading = heading or number - 1
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped.startswith("-") and dash in (-1, indent):
            if len(entries) >= MAX_KUSTOMIZATION_ENTRIES:
                break
            dash = indent
            entries.append({})
            rest = stripped[1:].lstrip(" ")
            keys = indent + len(stripped) - len(rest)
            stripped = rest
        elif indent != keys:
            continue
        keyed = _CHART_KEY.match(stripped)
        if entries and keyed is not None:
            entries[-1].setdefault(keyed.group(1), keyed.group(2))
    charts = tuple(
        HelmChart(entry["name"], entry.get("repo"), entry.get("version"))
        for entry in entries
        if "name" in entry
    )
    if not charts:
        return None
    homed = _CHART_HOME.search(text)
    home = os.path.join(os.path.dirname(path), homed.group(1) if homed else "charts")
    return HelmCharts(path, heading, os.path.normpath(home), charts)


def unrendered_charts(
    listed: HelmCharts, unbuilt: str = "so the objects they make are not linted"
) -> Problem | None:
    """KLB006, once, at a kustomization's `helmCharts:` key, for the charts it inflates
    that are not in its chart home, where `kustomize build --enable-helm` would pull them
    from their `repo:`: k8slb fetches nothing, so the objects they make are not linted. A
    chart vendored there is a chart of the tree, read as one (a fact of the tree, not of
    the kustomization's text: asked when the run is judged, never kept in its parse)."""
    missing = [
        chart
        for chart in listed.charts
        if not any(
            os.path.isfile(os.path.join(listed.home, *inner, "Chart.yaml"))
            for inner in ((chart.name,), (f"{chart.name}-{chart.version}", chart.name))
        )
    ]
    if not missing:
        return None
    named = ", ".join(
        f"{chart.name} ({chart.repo})" if chart.repo else chart.name
        for chart in missing[:MAX_CHARTS_NAMED]
    )
    more = len(missing) - MAX_CHARTS_NAMED
    named += f" and {more} more" if more > 0 else ""
    several = len(missing) > 1
    home = os.path.relpath(listed.home, os.path.dirname(listed.path) or ".")
    return Problem(
        "KLB006",
        listed.path,
        listed.line,
        1,
        f"kustomize Helm chart{'s' if several else ''} {named} {'are' if several else 'is'} "
        f"not rendered: k8slb does not fetch charts, {unbuilt}",
        severity=Severity.INFO,
        detail=(
            f"vendor {'them' if several else 'it'} into {home}/ (`kustomize build "
            "--enable-helm` pulls charts there), or pipe a trusted build to `k8slb check -`",
        ),
    )


def unread_reference(reference: Reference, top: str) -> str | None:
    """Why k8slb does not read what the entry names, or None: a remote resource, or a path
    that leads out of the repository."""
    if reference.target is None:
        return f"kustomize resource {reference.text} is remote: k8slb does not fetch it"
    if not inside(reference.target, top):
        return f"kustomize resource {reference.text} is outside the repository: not read"
    return None


@record
class AddedLabels:
    """The labels a kustomization (or a kustomize Component) adds to the objects of the
    resource files it names itself (kustomize's `commonLabels` and `labels:`), by where
    kustomize writes them: `everywhere` to the objects' labels, their pod templates' and
    their selectors (`commonLabels`, `labels` with `includeSelectors: true`); `templates`
    to the labels and pod templates (`includeTemplates: true`); `metadata` to the labels
    only. The folders it names (bases) are other kustomizations: not theirs."""

    kustomization: str
    files: tuple[str, ...]  # the resource entries it names, resolved
    everywhere: tuple[tuple[str, str], ...]
    templates: tuple[tuple[str, str], ...]
    metadata: tuple[tuple[str, str], ...]


# A kustomization's labels read at most: more is refused whole (no labels added).
MAX_ADDED_LABELS = 64
MAX_LABEL_ENTRIES = 16


def _pairs(value: object) -> list[tuple[str, str]] | None:
    """A map of label names to values, as kustomize takes it (strings: a number or a
    boolean written bare fails its build), or None: anything else, or past the budget."""
    if not isinstance(value, dict) or len(value) > MAX_ADDED_LABELS:
        return None
    pairs = []
    for key, label in value.items():
        if not isinstance(key, str) or not isinstance(label, str):
            return None
        pairs.append((key, label))
    return pairs


def added_labels(path: str, body: object) -> AddedLabels | None:
    """What the kustomization at `path` (its first YAML document, `body`) adds as labels
    to the resource files it names; None when it adds none, or writes them in a form
    kustomize would not take or past the budget (then none is added: never a guess)."""
    if not isinstance(body, dict):
        return None
    sets: dict[str, list[tuple[str, str]]] = {"everywhere": [], "templates": [], "metadata": []}
    if "commonLabels" in body:
        common = _pairs(body.get("commonLabels"))
        if common is None:
            return None
        sets["everywhere"] += common
    entries = body.get("labels")
    if entries is not None:
        if not isinstance(entries, list) or len(entries) > MAX_LABEL_ENTRIES:
            return None
        for entry in entries:
            pairs = _pairs(entry.get("pairs")) if isinstance(entry, dict) else None
            if pairs is None:
                return None
            where = (
                "everywhere"
                if entry.get("includeSelectors") is True
                else "templates"
                if entry.get("includeTemplates") is True
                else "metadata"
            )
            sets[where] += pairs
    if not any(sets.values()) or sum(map(len, sets.values())) > MAX_ADDED_LABELS:
        return None
    resources = body.get("resources")
    named = resources if isinstance(resources, list) else []
    folder = os.path.dirname(path)
    files = tuple(
        os.path.normpath(os.path.join(folder, entry))
        for entry in named
        if isinstance(entry, str) and entry and not _REMOTE.match(entry)
    )
    return AddedLabels(
        path, files, tuple(sets["everywhere"]), tuple(sets["templates"]), tuple(sets["metadata"])
    )


@record
class Requirement:
    """One term of a Kubernetes label or annotation selector: `key=value` (op "="),
    `key!=value` ("!="), `key in (a,b)` ("in"), `key notin (a,b)` ("notin"), `key`
    ("exists"), `!key` ("!")."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def holds(self, labels: dict[str, str]) -> bool:
        value = labels.get(self.key)
        if self.op in ("=", "in"):
            return value is not None and value in self.values
        if self.op in ("!=", "notin"):
            return value is None or value not in self.values
        return (value is not None) == (self.op == "exists")


@record
class PatchTarget:
    """A patch entry's `target:`: the group, version, kind, name and namespace it selects
    (patterns, read by kustomize as anchored regular expressions; "" selects any) and its
    label and annotation selectors (every term must hold)."""

    group: str = ""
    version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""
    labels: tuple[Requirement, ...] = ()
    annotations: tuple[Requirement, ...] = ()


@record
class PatchEntry:
    """A patch a kustomization applies (a `patches:` entry, an item of
    `patchesStrategicMerge:`, a `patchesJson6902:` entry): the file it is written in
    (resolved; for one written inline, the kustomization), with the objects its entry's
    `target:` selects, or None where the patch's own kind and name say which. `inline`:
    a patch written in the kustomization (a map: a strategic merge; a list: JSON 6902
    operations). `late`: a `patchesJson6902:` entry, which kustomize applies after the
    kustomization's own labels (`patches:` before them). `refused` says why k8slb does
    not apply it (options that rename what it patches, a selector it cannot read)."""

    file: str
    target: PatchTarget | None
    refused: str | None = None
    inline: Any = None
    late: bool = False


@record
class KustomizationParts:
    """What a kustomization builds from, resolved: the entries of its `resources:` (and old
    `bases:`) and `components:` (files or folders), the patch files it applies and the
    replicas its `replicas:` field sets. `component`: a kustomize Component (`kind:
    Component`), whose resources and patches go into the kustomization that lists it."""

    path: str
    component: bool
    resources: tuple[str, ...]
    components: tuple[str, ...]
    patches: tuple[PatchEntry, ...]
    # its `replicas:` entries: (a workload's name, the replicas it sets in the build)
    replicas: tuple[tuple[str, int], ...] = ()


# The entries of one of a kustomization's lists read at most: more is refused whole.
MAX_KUSTOMIZATION_ENTRIES = 1024
_TARGET_KEYS = frozenset(
    {"group", "version", "kind", "name", "namespace", "labelSelector", "annotationSelector"}
)
# A target's pattern, and a selector, read at most: a longer one is refused.
MAX_TARGET_PATTERN = 253
MAX_SELECTOR = 1024
MAX_SELECTOR_TERMS = 32
_SELECTOR_KEY = regex.compile(
    r"^(?:[a-z0-9A-Z.-]{1,253}/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?$"
)
_SELECTOR_VALUE = regex.compile(r"^(?:[a-zA-Z0-9]([-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?)?$")
_SET_TERM = regex.compile(r"^(\S+)\s+(in|notin)\s*\(([^()]*)\)$")


def _entries(body: dict[str, Any], *keys: str) -> list[Any] | None:
    """The items of the lists `keys` name, in order; None past the budget or not lists."""
    found: list[Any] = []
    for key in keys:
        value = body.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or len(found) + len(value) > MAX_KUSTOMIZATION_ENTRIES:
            return None
        found += value
    return found


def _resolved(folder: str, entries: list[Any]) -> tuple[str, ...]:
    return tuple(
        os.path.normpath(os.path.join(folder, entry))
        for entry in entries
        if isinstance(entry, str) and entry and not _REMOTE.match(entry)
    )


def _terms(text: str) -> list[str] | None:
    """A selector cut at its commas outside parentheses; None where they do not pair."""
    terms, depth, start = [], 0, 0
    for at, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            terms.append(text[start:at].strip())
            start = at + 1
        if depth not in (0, 1):
            return None
    terms.append(text[start:].strip())
    return terms if depth == 0 else None


def _term(term: str) -> Requirement | None:
    """One term of a selector, as Kubernetes parses it; None where it would not."""
    found = _SET_TERM.match(term)
    if found:
        values = tuple(v.strip() for v in found.group(3).split(","))
        key, op = found.group(1), found.group(2)
    elif "!=" in term:
        key, _, value = (part.strip() for part in term.partition("!="))
        op, values = "!=", (value,)
    elif "=" in term:
        key, _, value = (part.strip() for part in term.partition("="))
        value = value[1:].strip() if value.startswith("=") else value  # `==`
        op, values = "=", (value,)
    elif term.startswith("!"):
        key, op, values = term[1:].strip(), "!", ()
    else:
        key, op, values = term, "exists", ()
    if not _SELECTOR_KEY.match(key) or not all(_SELECTOR_VALUE.match(v) for v in values):
        return None
    return Requirement(key, op, values)


def selector(text: object) -> tuple[Requirement, ...] | None:
    """A label or annotation selector's terms; None for one Kubernetes would not parse,
    or past the budget (`MAX_SELECTOR` characters, `MAX_SELECTOR_TERMS` terms)."""
    if not isinstance(text, str) or len(text) > MAX_SELECTOR:
        return None
    if not text.strip():
        return ()
    terms = _terms(text)
    if terms is None or len(terms) > MAX_SELECTOR_TERMS:
        return None
    found = [_term(term) for term in terms]
    return tuple(r for r in found if r is not None) if None not in found else None


def patch_target(target: object) -> PatchTarget | None:
    """A `target:` as kustomize reads it, or None: not a map, a key it does not know, a
    pattern not a string or past `MAX_TARGET_PATTERN`, a selector it would not parse."""
    if not isinstance(target, dict) or not set(target) <= _TARGET_KEYS:
        return None
    patterns = {}
    for key in ("group", "version", "kind", "name", "namespace"):
        value = target.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str) or len(value) > MAX_TARGET_PATTERN:
            return None
        patterns[key] = value
    labels = selector(target.get("labelSelector") or "")
    annotations = selector(target.get("annotationSelector") or "")
    if labels is None or annotations is None:
        return None
    return PatchTarget(**patterns, labels=labels, annotations=annotations)


def _inline(text: str, at: tuple[int, int] | None = None, lines: list[str] | None = None) -> Any:
    """A patch written in the kustomization: its one YAML document (a map or a list), or
    None where it has none, several, or does not parse, or where its place in the file is
    not found. Read where it is written (`at`, its value's place among the
    kustomization's `lines`), so what is judged of it (a container it adds) is reported at
    its own line of the kustomization."""
    from k8slb.reading.yamlcompose import compose  # parsed with the kustomization

    placed = _placed(text, at, lines) if lines is not None else (text, 0)
    if placed is None:
        return None
    composed = compose(placed[0], line_offset=placed[1])
    if composed.problems or len(composed.documents) != 1:
        return None
    data = composed.documents[0].data
    return data if isinstance(data, dict | list) else None


def _placed(text: str, at: tuple[int, int] | None, lines: list[str]) -> tuple[str, int] | None:
    """The patch's text as the kustomization holds it, its indentation given back, and
    the number of lines above it, so that a YAML parse of it places each node at its line
    and column of the file (the lines counted, never written: a blank line for each would
    cost every patch the file's length). A literal block (`patch: |`) or a value on one
    line, plain or quoted, as written; None for any other form (folded, escaped, lines
    that differ): a place not found is never guessed, and such a patch is not applied."""
    if at is None or not 0 < at[0] <= len(lines):
        return None
    line, column = at
    held = lines[line - 1][column - 1 :]
    if "\n" not in text and not held.startswith("|"):
        start = 1 if held[:1] in ("'", '"') else 0
        if held[start : start + len(text)] != text:
            return None
        return " " * (column - 1 + start) + text, line - 1
    if not held.startswith("|"):
        return None
    written = text.split("\n")
    if line + len(written) > len(lines) + 1:
        return None
    indent = None
    for number, part in enumerate(written):
        if not part:
            continue
        kept = lines[line + number]
        if not kept.endswith(part) or kept[: len(kept) - len(part)].strip(" "):
            return None
        if indent is None:
            indent = len(kept) - len(part)
        elif len(kept) - len(part) != indent:
            return None
    if not indent:
        return None
    margin = " " * indent
    return "\n".join(margin + part if part else part for part in written), line


def _patch_entry(
    folder: str, path: str, entry: object, lines: list[str] | None, *, late: bool = False
) -> PatchEntry | None:
    """A `patches:` (or, `late`, a `patchesJson6902:`) entry, or None: a remote file, an
    inline patch that does not parse, a JSON 6902 patch with no target."""
    if not isinstance(entry, dict):
        return None
    named, written = entry.get("path"), entry.get("patch")
    inline = None
    if isinstance(written, str) and named is None:
        placed = entry.value_pos.get("patch") if isinstance(entry, YMap) else None
        inline = _inline(written, placed, lines)
        if inline is None:
            return None
        file = path
    elif isinstance(named, str) and named and not _REMOTE.match(named) and written is None:
        file = os.path.normpath(os.path.join(folder, named))
    else:
        return None
    target, options = entry.get("target"), entry.get("options")
    if isinstance(options, dict) and any(options.values()):
        return PatchEntry(file, None, "its options let it rename or re-kind what it patches")
    if target is None:
        return None if late or isinstance(inline, list) else PatchEntry(file, None, None, inline)
    selected = patch_target(target)
    if selected is None:
        return PatchEntry(file, None, "its target is not one kustomize would read")
    return PatchEntry(file, selected, None, inline, late)


def _merge_item(
    folder: str, path: str, item: object, at: tuple[int, int] | None, lines: list[str] | None
) -> PatchEntry | None:
    """An item of `patchesStrategicMerge:`: a file, or a patch written inline."""
    if not isinstance(item, str) or not item or _REMOTE.match(item):
        return None
    if "\n" not in item:
        return PatchEntry(os.path.normpath(os.path.join(folder, item)), None)
    inline = _inline(item, at, lines)
    return PatchEntry(path, None, None, inline) if isinstance(inline, dict) else None


def kustomization_parts(
    path: str, body: object, text: str | None = None
) -> KustomizationParts | None:
    """What the kustomization at `path` (its first YAML document, `body`) builds from;
    None when it is no mapping or its lists are not lists or past the budget."""
    if not isinstance(body, dict):
        return None
    folder = os.path.dirname(path)
    resources = _entries(body, "resources", "bases")
    components = _entries(body, "components")
    patches = _entries(body, "patches")
    merges = _entries(body, "patchesStrategicMerge")
    operations = _entries(body, "patchesJson6902")
    lists = (resources, components, patches, merges, operations)
    if any(listed is None for listed in lists):
        return None
    assert resources is not None and components is not None  # (for mypy)
    assert patches is not None and merges is not None and operations is not None
    # in kustomize's order: strategic merges, `patches:`, (labels), JSON 6902 patches
    lines = text.split("\n") if text is not None else None  # where inline patches are written
    listed = body.get("patchesStrategicMerge")
    places: list[Any] = listed.item_pos if isinstance(listed, YSeq) else []
    places = places if len(places) == len(merges) else [None] * len(merges)
    entries = [
        _merge_item(folder, path, i, at, lines) for i, at in zip(merges, places, strict=True)
    ]
    entries += [_patch_entry(folder, path, entry, lines) for entry in patches]
    entries += [_patch_entry(folder, path, entry, lines, late=True) for entry in operations]
    return KustomizationParts(
        path,
        body.get("kind") == "Component",
        _resolved(folder, resources),
        _resolved(folder, components),
        tuple(entry for entry in entries if entry is not None),
        _replicas(body),
    )


def _replicas(body: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """The `replicas:` entries (`- name: api`, `count: 3`) kustomize would take: a name
    and a whole number each (an entry written otherwise fails its build, so none is
    read); past the budget, none."""
    entries = _entries(body, "replicas")
    found: list[tuple[str, int]] = []
    for entry in entries or ():
        name = entry.get("name") if isinstance(entry, dict) else None
        count = entry.get("count") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(count, int) or isinstance(count, bool):
            return ()
        found.append((name, count))
    return tuple(found)
