"""Read one YAML file into Kubernetes objects, and into problems for what cannot be read.

Decoding, template detection (KLB003), composition (KLB001), the split of `kind: List`
items and the shape check (KLB002) all happen here, once per file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from k8slb.core import regex
from k8slb.core.findings import ObjectRef, Problem, Severity
from k8slb.core.paths import TEST_DATA
from k8slb.core.record import record
from k8slb.reading.build_files import names_builds
from k8slb.reading.encodings import yaml_codec
from k8slb.reading.kustomization import (
    KUSTOMIZATION_FILES,
    AddedLabels,
    HelmCharts,
    KustomizationParts,
    added_labels,
    helm_charts,
    kustomization_parts,
    merge_patch_files,
    references,
    unread_reference,
)
from k8slb.reading.markers import Marker, comment_markers
from k8slb.reading.objects import KINDS, K8sObject, api_group
from k8slb.reading.repository import repository_of
from k8slb.reading.shapes import ShapeError, shape_errors, without_fields
from k8slb.reading.yamltree import Document, YMap, YSeq

if TYPE_CHECKING:  # imported where composed: a run from the cache never imports ruamel
    from k8slb.reading.yamlcompose import YAMLProblem

# Go-template text where YAML structure should be: a line that is a template action
# (`{{- if .Values.x }}`, `- {{ include ... }}`) or an unquoted value that starts with one
# (`replicas: {{ .Values.n }}`). Templates inside quoted strings or block scalars (alerting
# rules, Argo parameters, Istio's injection template) are ordinary YAML values.
_TEMPLATE = regex.compile(r"^[ \t]*(?:-[ \t]+)?(\{\{)|^[^#'\"]*?:[ \t]+(\{\{)")
# A line that opens a block scalar: `key: |`, `- >-`, `key: |2 # comment`.
_BLOCK_SCALAR = regex.compile(r"(?:^|[:-])[ \t]+[|>][-+0-9]*[ \t]*(?:#.*)?$|^[ \t]*[|>][-+0-9]*$")


@record
class ProxyConfig:
    """A YAML document that is no object but a proxy's own configuration (an Envoy
    bootstrap: `static_resources`), kept for the Services it sends requests to."""

    path: str
    line: int
    data: YMap


@dataclass
class ManifestFile:
    path: str
    objects: list[K8sObject] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    documents: int = 0
    other_documents: int = 0  # YAML documents that are not Kubernetes objects
    markers: list[Marker] = field(default_factory=list)  # `# k8slb: ignore` comments
    proxy_configs: list[ProxyConfig] = field(default_factory=list)
    # a kustomization's: the labels it adds to the files it names (read as written)
    added_labels: list[AddedLabels] = field(default_factory=list)
    # a kustomization's: what it builds from and the patches it applies (model/patched.py),
    # and the files its lines name as patches that may merge (never objects of their own)
    kustomization: KustomizationParts | None = None
    # a kustomization's: the Helm charts it inflates (said when not vendored: run/engine.py)
    helm_charts: HelmCharts | None = None
    patch_files: list[str] = field(default_factory=list)
    # the documents of a kind k8slb judges that name nothing (no `metadata.name`, no
    # `generateName`): patterns and patches, never created as they stand (unnamed_objects)
    unnamed: list[Problem] = field(default_factory=list)
    # what a test runner reads of the files named here (test_patterns)
    runner: RunnerFiles = field(default_factory=lambda: RunnerFiles())
    # the lines whose template action (`{{.Env.IMAGE}}`) was read as a value not known:
    # the file is no YAML until a program fills them, so its objects get no fix
    filled: frozenset[int] = frozenset()


def decode(path: str, data: bytes) -> str | Problem:
    """The text of a YAML file, or KLB001 when it is not text YAML accepts."""
    codec = yaml_codec(data)
    if codec.bom and codec.codec != "utf-8":
        try:
            return codec.decode(data)
        except UnicodeDecodeError:
            pass  # not the UTF-16/32 text its first bytes announce: binary
    if data.startswith(b"\x1f\x8b"):
        return Problem(
            "KLB001",
            path,
            1,
            1,
            "a gzip archive (a packaged Helm chart?), not a YAML text file",
            detail=(
                "name the chart's folder, which k8slb renders, or `helm template` the package",
            ),
        )
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        return Problem("KLB001", path, line, 1, "binary data (a NUL byte), not a YAML text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        byte = data[error.start]
        return Problem(
            "KLB001",
            path,
            line,
            column,
            f"not UTF-8 (byte 0x{byte:02x}); Kubernetes reads manifests as UTF-8, "
            "re-encode the file",
        )


# How many times `find_template` starts again after a document YAML's scanner cannot read:
# each start reads on from the next `---`, so a file of many broken documents stays linear.
_RESCANS = 16


def find_template(text: str) -> tuple[int, int] | None:
    """(line, column) of the first Go-template action in YAML structure, if any.

    The lines are read first (cheap, and what decides where YAML does not scan); a line
    they name is confirmed by YAML's own scanner, which knows where a quoted scalar goes on
    over several lines (a dashboard's JSON in a ConfigMap, `legendFormat: "{{pod}}"`
    broken over lines): a `{{` is structure only where it scans as two flow-mapping starts.
    """
    offset = 0
    candidate = _template_line(text)
    for _ in range(_RESCANS):
        if candidate is None:
            return None
        found, broken = _template_token(text)
        if found is not None:
            return found[0] + offset, found[1]
        if broken is None:
            return None  # every `{{` the lines named is inside a scalar: data
        if broken <= candidate[0]:
            break  # the scanner stopped before the line: the lines decide
        rest = text.find("\n---", max(0, _line_start(text, broken) - 1))
        if rest < 0:
            return None  # the candidate was data; compose reports the broken document
        offset += text.count("\n", 0, rest) + 1
        text = text[rest + 1 :]
        candidate = _template_line(text)
    return None if candidate is None else (candidate[0] + offset, candidate[1])


def _line_start(text: str, line: int) -> int:
    """The index where 1-based `line` of `text` starts (its end, past the last line)."""
    index = 0
    for _ in range(line - 1):
        index = text.find("\n", index) + 1
        if index == 0:
            return len(text)
    return index


def _template_token(text: str) -> tuple[tuple[int, int] | None, int | None]:
    """((line, column) of the first `{{` that YAML scans as structure, or None; the
    1-based line where the scanner stopped on an error, or None when it read it all)."""
    # here, not at the top: a run whose YAML all comes from the cache never imports ruamel
    from k8slb.reading.yamlcompose import flow_too_deep, scanner_tokens
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.tokens import FlowMappingStartToken

    deep = flow_too_deep(text)
    if deep is not None:
        return None, 0  # libyaml's scanner is quadratic in the nesting: the lines decide
    previous: tuple[int, int] | None = None
    try:
        for token in scanner_tokens(text):
            if not isinstance(token, FlowMappingStartToken):
                previous = None
                continue
            here = token.start_mark.line, token.start_mark.column
            if previous is not None and here == (previous[0], previous[1] + 1):
                return (previous[0] + 1, previous[1] + 1), None
            previous = here
    except MarkedYAMLError as error:
        # the scanner names where what it could not end began (a key missing its `:`):
        # the earlier of its marks, since it looks ahead before it gives the tokens there
        marks = [m.line for m in (error.context_mark, error.problem_mark) if m is not None]
        return None, min(marks, default=0) + 1
    except YAMLError:
        return None, 1
    return None, None


def _template_line(text: str) -> tuple[int, int] | None:
    """(line, column) of the first line whose `{{` looks like structure, by the lines."""
    if "{{" not in text:
        return None
    for number, line in _outside_block_scalars(text.splitlines()):
        match = _TEMPLATE.search(line) if "{{" in line else None
        if match is not None:
            start = match.start(1) if match.group(1) is not None else match.start(2)
            return number + 1, start + 1
    return None


def _outside_block_scalars(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Each line (its index) that is no block scalar's text: the lines indented under a
    `key: |` or `- >` are text, whatever they hold, not structure."""
    block_parent: int | None = None  # indent of the line that opened a block scalar
    for number, line in enumerate(lines):
        content = line.lstrip(" ")
        indent = len(line) - len(content)
        if block_parent is not None:
            if not content.strip() or indent > block_parent:
                continue
            block_parent = None
        yield number, line
        if ("|" in line or ">" in line) and _BLOCK_SCALAR.search(line):
            block_parent = indent


# A line whose value is one placeholder a program fills before the file is applied, read
# as a scalar not known: a template action that prints a field (`image:
# {{.Env.SERVICE_API_IMAGE_NAME}}`, `- {{ .Values.flag }}`: azd, a script of Go's
# text/template), or a name in double braces (`type: {{service_type}}`, `{{ TAG }}`: what
# Mustache, Jinja and the `sed -e "s/{{name}}/.../"` of a deploy script fill), which may
# open a longer word (`secretName: {{cluster}}-kubeconfig`; the word is group 4). The YAML
# around it stands as written. One placeholder a line, its word with no quote, space,
# brace or `: ` in it.
_VALUE_ACTION = regex.compile(
    r"^[ \t]*(?:-[ \t]+)?(?:[^#'\"{}\n]*:[ \t]+)?"
    r"(\{\{[ \t]*(\.?)([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)*[ \t]*\}\}"
    r"((?:[^ \t\r\n#'\"{}:]|:[^ \t\r\n#'\"{}:])*))"
    r"[ \t]*(?:#.*)?$"
)
# Go's template words: an action that is one of them is structure (`{{ end }}`), never a
# value, whatever the line around it
_TEMPLATE_WORDS = frozenset(
    {"if", "else", "end", "range", "with", "define", "block", "template", "break", "continue"}
)


def _value_placeholder(line: str) -> tuple[int, int] | None:
    """Where a line's value that is one placeholder (_VALUE_ACTION) starts and ends, or
    None. A name with no dot stands for a value only after a key or a list's `- `."""
    value = _VALUE_ACTION.match(line)
    if value is None:
        return None
    if value.group(2):
        # a field of Go's template, whole: `{{ .Release.Name }}-web` is a chart's template
        # (Helm's names are built so), which only its renderer reads
        return None if value.group(4) else value.span(1)
    if value.group(3) in _TEMPLATE_WORDS or not line[: value.start(1)].strip():
        return None  # `{{ end }}`, or `{{ name }}` alone on a line: a block put in
    return value.span(1)


def _values_filled(text: str) -> tuple[str, frozenset[int]] | None:
    """The text with each placeholder that is a whole scalar value (or opens one) quoted
    (`'{{.Env.X}}'`, `'{{cluster}}-kubeconfig'`: the lines stay, and the columns up to
    the value's end), and those lines (from 1), where a value not known stands: a string
    where the schema wants one (an image no build names), else a wrong shape that is no
    KLB002 of the author's and leaves the field unread, as a damaged one (`replicas` not
    known is not 1); None when some action is structure (a key, a block, an `if` or
    `range`, a pipeline, more than one action a line), or nothing was quoted: then the
    file is a template, skipped. Read line by line as `_template_line` reads, so an action
    in a block scalar stays text; the result is confirmed by `find_template`."""
    lines = text.split("\n")
    quoted: list[int] = []
    for number, line in _outside_block_scalars(list(lines)):
        if "{{" in line and _TEMPLATE.search(line) is not None:
            span = _value_placeholder(line)
            if span is None:
                return None
            start, end = span
            lines[number] = line[:start] + "'" + line[start:end] + "'" + line[end:]
            quoted.append(number + 1)
    if not quoted:
        return None
    filled = "\n".join(lines)
    return (filled, frozenset(quoted)) if find_template(filled) is None else None


# ytt (Carvel) writes its template code in comments that open with `#@` (`#@ load(...)`,
# `#@ if x:` ... `#@ end`, a value `name: #@ name()`) and its annotations by a slash-named
# word (`#@data/values`, `#@overlay/match`); its text templates put code in `(@ ... @)`.
# A YAML reader takes those for comments and plain text: the branches of an `if` for
# repeated keys, a value ytt fills for an empty one.
_YTT_NAME = regex.compile(r"^#@[a-z][a-z_-]*/[a-z]")
# How many lines of a file are looked at for ytt's marks (ytt's `load`s come first)
_YTT_LINES = 4096


def ytt_template(text: str) -> tuple[int, int] | None:
    """(line, column) of the first line that is ytt's (see above), or None: a comment
    that opens with `#@` and a space or an annotation's name, a value that is one, or a
    text template's `(@ ... @)` on one line. A block scalar's lines are its text (a
    script's comment), as `_template_line` reads them."""
    if "#@" not in text and "(@" not in text:
        return None
    for number, line in _outside_block_scalars(text.split("\n", _YTT_LINES)[:_YTT_LINES]):
        found = _ytt_mark(line)
        if found is not None:
            return number + 1, found
    return None


def _ytt_mark(line: str) -> int | None:
    """The column (from 1) where a line's ytt code starts, or None."""
    content = line.lstrip(" \t")
    if content.startswith("- "):
        content = content[2:].lstrip(" \t")
    at = content.find("#@")
    if at > 0 and content[:at].rstrip(" \t").endswith(":") and content[at - 1] in " \t":
        content = content[at:]  # a value that is ytt's code: `key: #@ call()`
    if content.startswith("#@") and (
        content[2:3] in (" ", "\t") or _YTT_NAME.match(content) is not None
    ):
        return len(line) - len(content) + 1
    opened = line.find("(@")
    if opened >= 0 and line[opened + 2 : opened + 3] in (" ", "=", "-"):
        closed = line.find("@)", opened + 3)
        if closed > 0 and line[closed - 1] in (" ", "-"):
            return opened + 1
    return None


# Helm's chart metadata: `apiVersion: v2` and a `name`, but no `kind` and no object.
CHART_METADATA = frozenset({"Chart.yaml", "Chart.yml"})


def _unread_references(path: str, text: str) -> list[Problem]:
    """KLB006 for each entry of a kustomization that k8slb does not read: what it leaves
    out is said, never skipped in silence."""
    top = repository_of(os.path.dirname(path))
    problems = []
    for reference in references(path, text):
        reason = unread_reference(reference, top)
        if reason is not None:
            problems.append(
                Problem(
                    "KLB006",
                    path,
                    reference.line,
                    reference.column,
                    reason,
                    severity=Severity.INFO,
                    detail=("lint it where it lives, or build with --kustomize",),
                )
            )
    return problems


def _as_written(path: str, text: str, result: ManifestFile) -> str | None:
    """The text to read as YAML, or None when the file is a template (ytt's, Helm's) and
    so skipped, with a KLB003 where it would be a manifest; a file whose only template
    actions are whole values is read with each one a value not known (result.filled)."""
    ytt = ytt_template(text)
    if ytt is not None:
        # not a manifest as written, whatever ytt makes of it; said where it would be one
        if _KUBERNETES_KEY.search(text) is None:
            result.other_documents = 1
            return None
        result.problems.append(
            Problem(
                "KLB003",
                path,
                *ytt,
                "ytt (Carvel) template: the file is skipped",
                detail=("lint the rendered output instead (`ytt -f FOLDER | k8slb check -`)",),
            )
        )
        return None
    template = find_template(text)
    filled = _values_filled(text) if template is not None else None
    if filled is not None:
        text, template = filled[0], None  # each placeholder read as a value not known
        result.filled = filled[1]
    if template is not None:
        result.problems.append(
            Problem(
                "KLB003",
                path,
                *template,
                "Helm/Go template text: the file is skipped",
                detail=("lint the rendered output instead (`helm template . | k8slb check -`)",),
            )
        )
        return None
    return text


def load_manifests(path: str, data: bytes) -> ManifestFile:
    result = ManifestFile(path)
    # not a manifest: skipped quietly, as values files are; a CI pipeline, compose or
    # skaffold file is read for its builds (build_files.py), by whatever parser its tool
    # has (GitLab's takes a repeated key), and nothing applies it to a cluster
    if os.path.basename(path) in CHART_METADATA or names_builds(path):
        result.other_documents = 1
        return result
    text = decode(path, data)
    if isinstance(text, Problem):
        result.problems.append(text)
        return result
    result.markers = comment_markers(path, text)
    if os.path.basename(path) in KUSTOMIZATION_FILES:
        result.problems += _unread_references(path, text)
        result.helm_charts = helm_charts(path, text)
        result.patch_files = merge_patch_files(path, text)
    read = _as_written(path, text, result)
    if read is None:
        return result
    text = read
    # here, not above: a run whose YAML all comes from the cache never imports ruamel.yaml
    from k8slb.reading.yamlcompose import compose

    composed = compose(text)
    result.problems += _yaml_problems(path, text, composed.problems)
    result.documents = len(composed.documents) + len(composed.problems)
    if os.path.basename(path) in KUSTOMIZATION_FILES and composed.documents:
        added = added_labels(path, composed.documents[0].data)
        result.added_labels += [added] if added is not None else []
        result.kustomization = kustomization_parts(path, composed.documents[0].data, text)
    strays: list[Document] = []
    holes = placeholder_values(text) if "{" in text else frozenset()
    holes |= result.filled
    for doc in composed.documents:
        if (
            isinstance(doc.data, YMap)
            and (
                _object_kind(doc.data)
                or _kubernetes_api(doc.data)
                or _misnamed_chart(path, doc.data, None) is not None
            )
            and not _chart_index(doc.data)
        ):
            _add_object(result, doc, doc.data, None, holes)
        elif doc.data is None or isinstance(doc.data, YMap):
            result.other_documents += 1  # empty, or YAML that is not a manifest
            if isinstance(doc.data, YMap) and "static_resources" in doc.data:
                result.proxy_configs.append(ProxyConfig(path, doc.pos[0], doc.data))
        else:
            strays.append(doc)
    result.runner = test_patterns(path, result.objects)
    for doc in strays:
        # A list or a scalar amid manifests is a slip (a bad `---` split, a stray line);
        # a file of nothing but such documents is simply not a manifest file.
        if result.objects:
            what = "a list" if isinstance(doc.data, YSeq) else "a scalar"
            result.problems.append(
                Problem(
                    "KLB002",
                    path,
                    *doc.pos,
                    f"document {doc.index} is {what}, not a Kubernetes object",
                )
            )
        else:
            result.other_documents += 1
    return result


# A test runner's assertion or error file by its name alone, in kuttl's and chainsaw's
# convention for the steps of a test folder: `<index>-assert*.yaml`, `<index>-errors.yaml`
_PATTERN_FILE = regex.compile(r"^[0-9]{1,4}-(?:assert|errors?)(?:[-_.][^/]*)?\.ya?ml$")
# The operations of a runner's step that match the cluster against a file's objects, and
# those that apply them (a file asserted after it is applied is deployed all the same)
_MATCHED = frozenset({"assert", "error"})
_APPLIED = frozenset({"apply", "create", "update", "patch"})
_BLOCKS = ("try", "catch", "finally", "cleanup")
# The files one file names to a runner at most: past it, none is read as a pattern
MAX_PATTERN_FILES = 1024


@record
class RunnerFiles:
    """What a test runner's file says of other files (test_patterns): those it matches
    against the cluster, those it applies (normalised paths)."""

    matched: tuple[str, ...] = ()
    applied: tuple[str, ...] = ()


def test_patterns(path: str, objects: Sequence[K8sObject]) -> RunnerFiles:
    """What a test runner reads of the files named here: this file itself is matched
    when its name is a step's assertion or error in kuttl's and chainsaw's convention
    (`01-assert.yaml`, `01-errors.yaml`); a chainsaw `Test` (or `StepTemplate`) names the
    files of its steps' operations (`assert:`/`error:` match, `apply:`/`create:`/... apply)
    and a kuttl `TestStep` those of its `assert:`/`error:` and `apply:` lists. A name that
    is an expression, a glob or absolute is not followed; past MAX_PATTERN_FILES, nothing."""
    matched = [os.path.normpath(path)] if _PATTERN_FILE.match(os.path.basename(path)) else []
    applied: list[str] = []
    folder = os.path.dirname(path)
    for obj in objects:
        for operation, named in _runner_files(obj):
            if len(matched) + len(applied) >= MAX_PATTERN_FILES:
                return RunnerFiles()
            if not named or any(c in named for c in "*?[($:{") or os.path.isabs(named):
                continue
            listed = matched if operation in _MATCHED else applied
            listed.append(os.path.normpath(os.path.join(folder, named)))
    return RunnerFiles(tuple(matched), tuple(applied))


def _runner_files(obj: K8sObject) -> list[tuple[str, str]]:
    """(operation, file name) of each file a chainsaw Test/StepTemplate or a kuttl
    TestStep matches or applies."""
    operations = _MATCHED | _APPLIED
    if obj.group == "kuttl.dev" and obj.kind == "TestStep":
        lists = [(key, obj.body.get(key)) for key in sorted(operations)]
        return [(k, n) for k, names in lists if isinstance(names, list) for n in names]
    if obj.group != "chainsaw.kyverno.io" or obj.kind not in ("Test", "StepTemplate"):
        return []
    spec = obj.body.get("spec")
    steps = spec.get("steps") if isinstance(spec, dict) and obj.kind == "Test" else [spec]
    found: list[tuple[str, str]] = []
    for step in steps if isinstance(steps, list) else []:
        blocks = [step.get(key) for key in _BLOCKS] if isinstance(step, dict) else []
        for operation in (o for b in blocks if isinstance(b, list) for o in b):
            for key in sorted(operations & operation.keys()) if isinstance(operation, dict) else ():
                named = operation[key].get("file") if isinstance(operation[key], dict) else None
                found += [(key, named)] if isinstance(named, str) else []
    return found


def read_as_patterns(
    manifests: Sequence[ManifestFile], rendered: Collection[str]
) -> frozenset[str]:
    """Every file (normalised) a test runner of the run matches against the cluster and
    none applies (test_patterns): its objects are patterns, never deployed."""
    runners = [m.runner for m in manifests if m.path not in rendered]
    matched = {named for r in runners for named in r.matched}
    if not matched:
        return frozenset()
    return frozenset(matched - {named for r in runners for named in r.applied})


def _yaml_problems(path: str, text: str, problems: list[tuple[int, YAMLProblem]]) -> list[Problem]:
    """KLB001 for each document YAML could not compose (its index, the problem): at info
    where it broke at a lone placeholder line of a file no Kubernetes object's key is in
    (a template a script fills), in such a file that a program's build or tests read
    (_not_applied), or in any such file that is no Kubernetes input by its name
    (_no_input: raised again where the run shows it is one, inputs_again), else an error."""
    found: list[Problem] = []
    # told apart only in a file no Kubernetes object's key is in
    keyless = bool(problems) and _KUBERNETES_KEY.search(text) is None
    templated = keyless and "$" in text  # a template a script fills
    whose = _not_applied(path) if keyless else None
    for number, (index, problem) in enumerate(problems):
        message = f"document {index} is not valid YAML: {problem.message}"
        why = None
        if whose is not None:
            why = f"not a manifest: {whose}, and the file holds no Kubernetes object's key"
        elif templated and number < _PLACEHOLDER_LOOKS:
            placeholder = _placeholder_near(text, problem.line)
            if placeholder is not None:
                why = (
                    f"a template, not read: line {placeholder[0]} is a placeholder "
                    f"(`{placeholder[1]}`) that a script fills before use, and the file "
                    "holds no Kubernetes object"
                )
        if why is None and keyless:
            told = _no_input(path, text, problem.line if number < _PLACEHOLDER_LOOKS else 0)
            why = None if told is None else NOT_AN_INPUT + told
        if why is None:  # an error: the file was meant to be a manifest
            found.append(Problem("KLB001", path, problem.line, problem.column, message))
        else:
            at = (path, problem.line, problem.column)
            found.append(Problem("KLB001", *at, f"{message}; {why}", severity=Severity.INFO))
    return found


# The folders a program's build packs into it (Maven's and Gradle's `src/<set>/resources`:
# read by the program from its classpath); those that hold a test's data are TEST_DATA
_RESOURCES = "resources"


def _not_applied(path: str) -> str | None:
    """Why a file is no manifest by where it is, or None: a program's build resources
    (which the program reads, as a text it may fill: `{resource}`), or a test's data (an
    input or an expected output a test compares), which no manifest tool applies."""
    folders = path.replace("\\", "/").split("/")[:-1]
    for at, folder in enumerate(folders):
        if folder in TEST_DATA:
            return f"a test's data (`{folder}/`)"
        if folder == _RESOURCES and at >= 2 and folders[at - 2] == "src":
            return f"a program's build resources (`src/{folders[at - 1]}/resources/`)"
    return None


# A line that is nothing but a shell or envsubst placeholder (`$OPT_POOLS`, `${EXTRA}`),
# where a script inserts a block before the file is read
_PLACEHOLDER = regex.compile(
    r"^[ \t]*(\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}))[ \t]*$"
)
# A key only Kubernetes' objects (and kubectl's files) open with: a file holding one may
# be a manifest, broken; written in block style, in flow style (`{kind: ConfigMap, ...}`)
# or as JSON (`"apiVersion": "v1"`)
_KUBERNETES_KEY = regex.compile(
    r"(?:^|[{,])[ \t]*(?:-[ \t]+)?[\"']?(?:apiVersion|kind)[\"']?[ \t]*:", regex.MULTILINE
)
# The lines above a YAML error looked at: the scanner stops on the line after the scalar
# that broke the structure (past blank lines and comments); and how many of a file's
# broken documents are looked at (each look finds its line from the file's start)
_PLACEHOLDER_LINES = 4
_PLACEHOLDER_LOOKS = 16


def _placeholder_near(text: str, line: int) -> tuple[int, str] | None:
    """(its line, the placeholder) where the line YAML stopped at (from 1), or one of the
    _PLACEHOLDER_LINES lines above it, is a placeholder alone: a template a script fills
    (`envsubst`, a shell heredoc), not YAML yet."""
    return _near(text, line, lambda text: _PLACEHOLDER.match(text), 1)


def _near(
    text: str, line: int, find: Callable[[str], regex.Match[str] | None], group: int
) -> tuple[int, str] | None:
    """(its line, the `group` of what `find` finds in it) of the last of the line YAML
    stopped at (from 1) and the _PLACEHOLDER_LINES lines above it where `find` finds it."""
    first = max(1, line - _PLACEHOLDER_LINES)
    start = _line_start(text, first)
    lines = text[start : _line_start(text, line + 1)].split("\n")[: line - first + 1]
    for number in range(len(lines) - 1, -1, -1):
        found = find(lines[number])
        if found is not None:
            return first + number, found.group(group)
    return None


# What marks a KLB001 told at info because the broken file is no Kubernetes input by what
# it holds and its name (_no_input): raised again to an error where the run shows it is one
# (inputs_again: a chart renders it, a kustomization lists it)
NOT_AN_INPUT = "not a Kubernetes input: "
# A template engine's tag (Jinja's, Ansible's, Salt's, Go's): a block tag `{% if x %}`
# (`%` starts no YAML token, so a line holding one never parses), a comment `{# ... #}`,
# an expression `{{ ... }}`; a tag does not cross its line
_TEMPLATE_TAG = regex.compile(r"\{%[-+]?[ \t]*[A-Za-z_][^\n]*?%\}|\{#[^\n]*?#\}|\{\{[^\n]*?\}\}")
# A tag quoted in a message at most (characters)
_TAG_SAID = 60
# Helm's values files by name, the word `values` in the file's name or a folder's
# (`values.yaml`, `values-prod.yaml`, `prod.values.yml`, `helm/values/agent.yaml`,
# `example_values/`): `helm install -f` reads them, a Kubernetes input with no object key
_HELM_VALUES = regex.compile(r"(?:^|/)(?:[^/]*[-_.])?values(?:[-_.][^/]*)?(?:/|\.ya?ml$)")


def _no_input(path: str, text: str, line: int) -> str | None:
    """Why a file broken at `line` (from 1) that holds no Kubernetes object's key is no
    Kubernetes input (after NOT_AN_INPUT), or None when its name says it is one: a
    kustomization (whose `apiVersion` and `kind` kustomize does not require) or a Helm
    values file. A template tag at the line YAML stopped at or one of the
    _PLACEHOLDER_LINES above it says the file is a template, not YAML yet (`line` 0: not
    looked for)."""
    name = path.replace("\\", "/")
    if os.path.basename(name) in KUSTOMIZATION_FILES or _HELM_VALUES.search(name.lower()):
        return None
    tag = _tag_near(text, line) if line > 0 else None
    if tag is not None:
        said = tag[1] if len(tag[1]) <= _TAG_SAID else tag[1][: _TAG_SAID - 3] + "..."
        return (
            f"a template, not YAML yet: line {tag[0]} holds a template engine's tag "
            f"(`{said}`), which the engine fills before the file is read, and the file "
            "holds no `apiVersion:` or `kind:` key"
        )
    return (
        "the file holds no `apiVersion:` or `kind:` key, which every object kubectl applies "
        "has, and it is no kustomization or Helm values file, nor one a chart renders or a "
        "kustomization of the run lists"
    )


def _tag_near(text: str, line: int) -> tuple[int, str] | None:
    """(its line, the tag) of the last template tag on the line YAML stopped at (from 1)
    or one of the _PLACEHOLDER_LINES lines above it."""
    return _near(text, line, lambda text: _TEMPLATE_TAG.search(text) if "{" in text else None, 0)


# A value written wholly as a placeholder that a program replaces in the text before it
# applies the file: `#{NAME}` (`namespace: #{NS}`, `- #{FLAG}`), which YAML reads as a
# comment, the value as empty; or a field of Python's `str.format`, `{name}` (`name:
# {name}`), which YAML reads as a mapping of one key and no value (a flow mapping no
# manifest means: `{}` and `{key: value}` are not placeholders)
_PLACEHOLDER_VALUE = regex.compile(
    r"^[ \t]*(?:-[ \t]+|[^#'\"{\n]*:[ \t]+)#?\{[A-Za-z_][A-Za-z0-9_.-]*\}[ \t]*\r?$",
    regex.MULTILINE,
)


def placeholder_values(text: str) -> frozenset[int]:
    """The lines (from 1) whose value is wholly a placeholder (`#{NAME}`, `{name}`): YAML
    reads an empty value or a mapping of one key there, where the file's own program
    writes one before use, so that is no wrong shape of the author's (the object stays out
    of the rules, since what fills it is not known, but KLB002 does not say it)."""
    lines: list[int] = []
    line, at = 1, 0
    for found in _PLACEHOLDER_VALUE.finditer(text):
        line += text.count("\n", at, found.start())
        at = found.start()
        lines.append(line)
    return frozenset(lines)


def _placeholder_read(value: object) -> bool:
    """Whether a value is what YAML makes of a placeholder (placeholder_values): nothing
    (`#{NAME}`), or a mapping of one key and no value (`{name}`)."""
    if isinstance(value, dict) and len(value) == 1:
        return next(iter(value.values())) is None
    return value is None


def _value_at(body: YMap, path: tuple[str | int, ...]) -> object:
    """The value at `path` in the object (None when a step is missing)."""
    value: object = body
    for step in path:
        listed = isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value)
        if not listed and not (isinstance(value, dict) and step in value):
            return None
        value = value[step]  # type: ignore[index]
    return value


# The fields a placeholder may stand in, kept as its text: every reader of a workload's
# `replicas` takes a value that is no integer for a count not known (not one pod, not
# none), where leaving the field out would read as the default, one replica
_UNKNOWN_KEPT = frozenset({("spec", "replicas")})


def _unknown_kept(error: ShapeError, body: YMap, filled: frozenset[int]) -> bool:
    """Whether a wrong shape is a placeholder (_values_filled) in a field kept as a value
    not known (_UNKNOWN_KEPT): no KLB002, and the object is judged with it."""
    return (
        error.pos[0] in filled
        and error.path in _UNKNOWN_KEPT
        and isinstance(_value_at(body, error.path), str)
    )


def _misnamed_chart(path: str, body: YMap, item: int | None) -> Problem | None:
    """A chart's metadata (`apiVersion`, `name`, `version`, no `kind`) in a file named as
    Chart.yaml in another case (`chart.yaml`): Helm loads a chart only from `Chart.yaml`, so
    there is no chart here and the templates beside it render nowhere. Said as that, not
    as an object with no kind."""
    name = os.path.basename(path)
    if item is not None or name.lower() != "chart.yaml" or name in CHART_METADATA:
        return None
    if not isinstance(body.get("name"), str) or "version" not in body:
        return None
    return Problem(
        "KLB002",
        path,
        *body.pos,
        f"{name} is a chart's metadata under a name Helm does not load: Helm reads only "
        "`Chart.yaml`, so no chart is here and its templates render nowhere",
        detail=("rename it to Chart.yaml (then its templates are rendered and linted)",),
    )


def _object_kind(body: YMap) -> bool:
    """Whether a mapping with a `kind` is meant as an object: it has an `apiVersion` or
    `metadata` beside it (either missing is KLB002). With neither it is some other tool's
    document: a Drone pipeline (`kind: pipeline`), a chart's values choosing the kind of
    workload it renders (`kind: DaemonSet`). A key written `null` is no value: a
    serialised record of another program's (`kind: null`, `apiVersion: null`, as Jackson
    writes a class's unset fields) names no kind."""
    return _given(body, "kind") and (_given(body, "apiVersion") or _given(body, "metadata"))


def _given(body: YMap, key: str) -> bool:
    return body.get(key) is not None


# The top-level keys of a Helm chart repository's index (`helm repo index` writes it:
# `apiVersion: v1`, the chart versions by name under `entries`, `generated`), Helm's
# IndexFile; a tool's file by its shape, whatever its name.
_CHART_INDEX_KEYS = frozenset(
    {"apiVersion", "entries", "generated", "annotations", "publicKeys", "serverInfo"}
)


def _chart_index(body: YMap) -> bool:
    """Whether a mapping is a chart repository's index: no `kind`, its charts under
    `entries`, and no key the index does not have."""
    return (
        "kind" not in body
        and isinstance(body.get("entries"), YMap)
        and all(key in _CHART_INDEX_KEYS for key in body)
    )


def _kubernetes_api(body: YMap) -> bool:
    """Whether a mapping's `apiVersion` has Kubernetes' form: `v1` for the core group (it
    has no other version), `<group>/<version>` otherwise (`apps/v1`, `x.io/v1beta1`).
    Grafana's provisioning files say `apiVersion: 1`, another tool's package manifest
    `apiVersion: v1beta1` (with its `tasks:`): no objects, whatever else they hold."""
    version = body.get("apiVersion")
    if not isinstance(version, str):
        return False
    group, slash, number = version.rpartition("/")
    if not slash:
        return version == "v1"
    return bool(group) and number.startswith("v") and number[1:2].isdigit()


def _unnamed(body: YMap) -> bool:
    """Whether an object names itself nowhere: no `metadata` at all, or one with neither a
    `name` nor a `generateName` (null or empty). The API server creates no such object, so
    it is a fragment: a test's assertion (a state to wait for, matched against whatever
    objects the cluster holds) or a patch. A `metadata` of the wrong shape is KLB002's."""
    metadata = body.get("metadata")
    if metadata is None:
        return True
    if not isinstance(metadata, YMap):
        return False
    return all(metadata.get(key) in (None, "") for key in ("name", "generateName"))


@record
class Unnamed:
    """What a run makes of its unnamed objects (ManifestFile.unnamed): their (path, ref),
    which no rule judges, and KLB002 for those of a file a kustomization lists among its
    `resources` (kustomize refuses to build them)."""

    objects: frozenset[tuple[str, ObjectRef]]
    said: tuple[Problem, ...]


def unnamed_objects(manifests: Sequence[ManifestFile], rendered: Collection[str]) -> Unnamed:
    """The run's unnamed objects (see Unnamed): anywhere but in a kustomization's
    resources, a document that names nothing is a pattern or a patch, left out in
    silence (a patch file's are still merged: model/patched.py reads them first)."""
    found = [problem for m in manifests if m.path not in rendered for problem in m.unnamed]
    if not found:
        return Unnamed(frozenset(), ())
    listed = {
        os.path.normpath(resource)
        for m in manifests
        if m.kustomization is not None and m.path not in rendered
        for resource in m.kustomization.resources
    }
    return Unnamed(
        frozenset((p.path, p.object) for p in found if p.object is not None),
        tuple(p for p in found if os.path.normpath(p.path) in listed),
    )


def listed_inputs(manifests: Sequence[ManifestFile], rendered: Collection[str]) -> frozenset[str]:
    """The files (normalised) a kustomization of the run lists (its resources, its patch
    files): Kubernetes inputs whatever they hold, as what a chart renders is (as_input);
    nothing when no file was told to be none."""
    if not any(NOT_AN_INPUT in p.message for m in manifests for p in m.problems):
        return frozenset()
    return frozenset(
        os.path.normpath(named)
        for m in manifests
        if m.kustomization is not None and m.path not in rendered
        for named in (
            *m.kustomization.resources,
            *(patch.file for patch in m.kustomization.patches),
        )
    )


def as_input(
    problem: Problem, path: str, rendered: Collection[str], listed: Collection[str]
) -> Problem:
    """A KLB001 of the file at `path` told at info as no Kubernetes input (_no_input),
    an error again, without that reason, where the run shows the file is one: a chart (or
    another source) rendered it, or a kustomization lists it (listed_inputs)."""
    if problem.rule != "KLB001" or (path not in rendered and os.path.normpath(path) not in listed):
        return problem
    message, said, _ = problem.message.partition(f"; {NOT_AN_INPUT}")
    return replace(problem, message=message, severity=None) if said else problem


def _unnamed_said(obj: K8sObject, where: str) -> Problem:
    """KLB002 for an object that names itself nowhere (said where unnamed_objects says)."""
    return Problem(
        "KLB002",
        obj.path,
        *obj.body.pos,
        f"{where} ({obj.kind}) has no `metadata.name` (nor `generateName`): kubectl, "
        "kustomize and Helm cannot create it, and no rule judges it",
        obj.ref,
    )


def _add_object(
    result: ManifestFile,
    doc: Document,
    body: YMap,
    item: int | None,
    holes: frozenset[int] = frozenset(),
) -> None:
    api_version, kind = body.get("apiVersion"), body.get("kind")
    where = f"document {doc.index}" + ("" if item is None else f", item {item}")
    if not isinstance(kind, str) or not kind:
        result.problems.append(
            _misnamed_chart(result.path, body, item)
            or Problem("KLB002", result.path, *body.pos, f"{where} has no `kind` string")
        )
        return
    if not isinstance(api_version, str) or not api_version:
        result.problems.append(
            Problem(
                "KLB002", result.path, *body.pos, f"{where} ({kind}) has no `apiVersion` string"
            )
        )
        return
    if item is None and kind.endswith("List") and api_version == "v1" and "items" in body:
        items = body["items"]
        if not isinstance(items, YSeq):
            result.problems.append(
                Problem("KLB002", result.path, *body.key_pos["items"], "`items` must be a list")
            )
            return
        for number, entry in enumerate(items):
            if isinstance(entry, YMap):
                _add_object(result, doc, entry, number, holes)
            else:
                result.problems.append(
                    Problem(
                        "KLB002",
                        result.path,
                        *items.item_pos[number],
                        f"{where}: item {number} of the List is not a mapping",
                    )
                )
        return
    obj = K8sObject(result.path, doc.index, item, api_version, kind, body)
    spec = KINDS.get((api_group(api_version), kind))
    if spec is not None and _unnamed(body):
        result.unnamed.append(_unnamed_said(obj, where))
    errors = [
        error
        for error in shape_errors(body, spec.shape if spec else "Object")
        if not _unknown_kept(error, body, result.filled)
    ]
    separable = [error.separable for error in errors]
    kept = all(separable)  # every wrong field is one the object can be read without
    for error, leaf in zip(errors, separable, strict=True):
        if error.pos[0] in holes and (
            error.pos[0] in result.filled or _placeholder_read(_value_at(body, error.path))
        ):
            continue  # a placeholder the code that reads the file fills: not YAML's value
        detail = (
            (f"the rules that read `{leaf[-1]}` skip this object; the others still check it",)
            if kept and leaf
            else ()
        )
        result.problems.append(
            Problem(
                "KLB002",
                result.path,
                *error.pos,
                f"{obj.ref.display}: {error.message}",
                obj.ref,
                detail=detail,
            )
        )
    if kept:
        fields = [leaf for leaf in separable if leaf]
        without_fields(body, fields)
        obj.damaged = frozenset(str(leaf[-1]) for leaf in fields)
        result.objects.append(obj)
