"""One run: read every source once, build the index, run the selected rules, sort."""

from __future__ import annotations

import datetime
import os
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from k8slb.code.facts import CodeFacts
from k8slb.code.imported import resolve_imports
from k8slb.code.projects import (
    assign_projects,
    built_in_test_folders,
    test_only_code,
    test_support,
    without_build_output,
)
from k8slb.core.findings import Finding, ObjectRef, Problem, Severity
from k8slb.core.internal import internal_error
from k8slb.core.progress import QUIET, Progress
from k8slb.core.record import record
from k8slb.core.results import RunResult
from k8slb.inputs import MANIFESTS, READERS, Reader, ReadSettings, reader_of
from k8slb.languages import LANGUAGES, load
from k8slb.model.ci_clusters import files_in_ci_clusters, rollouts_at_info
from k8slb.model.index import Index
from k8slb.model.kustomized import (
    deployed_folders,
    kustomizations_read,
    labelled,
    left_out,
    not_deployed,
    said_at_info,
)
from k8slb.model.links import (
    CodeLinks,
    RememberedLinks,
    builds_digest,
    inputs_digest,
    link_code,
    link_code_again,
    link_rows,
    unmatched_pins,
)
from k8slb.model.patched import Patched, move_to_patches, patch_aliases, patched
from k8slb.model.runtimes import build_contexts, image_builds, named_contexts
from k8slb.model.test_data import files_in_test_data, why_test_data
from k8slb.model.units import deployment_units
from k8slb.reading.build_files import (
    BuildFacts,
    BuildFile,
    read_build_facts,
    read_build_file,
)
from k8slb.reading.chart_findings import RenderedTemplate
from k8slb.reading.charts import Rendering, real_path
from k8slb.reading.kustomization import unrendered_charts
from k8slb.reading.manifests import (
    ManifestFile,
    Unnamed,
    as_input,
    listed_inputs,
    read_as_patterns,
    unnamed_objects,
)
from k8slb.reading.objects import K8sObject
from k8slb.reading.sources import Source
from k8slb.rulekit.base import Context, Rule
from k8slb.rules.unread_file import UNREAD_FILE
from k8slb.rules.unused_suppression import UnusedSuppression
from k8slb.run.cache import Cache, ParseMemo, run_key
from k8slb.run.parsing import Parsed, Unparsed, parse_all
from k8slb.run.relocation import relocate
from k8slb.run.run_memory import LinksToKeep, RunMemory
from k8slb.run.selection import unknown_codes
from k8slb.run.settings import Settings
from k8slb.run.suppressions import Suppressions, judgeable


@dataclass
class Sources:
    """Every file of a run, read and parsed once."""

    manifests: list[ManifestFile] = field(default_factory=list)
    modules: list[CodeFacts] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)  # what was read
    readable: set[str] = field(default_factory=set)  # read, or recognised unread by the cache
    templates: dict[str, RenderedTemplate] = field(default_factory=dict)  # of rendered sources
    rendered_from: dict[str, str] = field(default_factory=dict)  # template path -> chart
    variant_of: dict[str, int] = field(default_factory=dict)  # template path -> its value set
    variants: dict[str, int] = field(default_factory=dict)  # group -> how many variants
    group_of: dict[str, str] = field(default_factory=dict)  # template path -> its group
    builds: BuildFacts = field(default_factory=BuildFacts)  # what build files say (links.py)
    namespaces_elsewhere: list[K8sObject] = field(default_factory=list)  # other variants'
    # rendered path -> the templates its chart was rendered without (Helm failed on them)
    left_out: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The rendered paths of a chart others use that is rendered alone only as their stand-in
    # (Rendering.dependency_of): its findings their renderings give too are theirs.
    stand_ins: set[str] = field(default_factory=set)
    # A chart stopped by a limit of the run (time, memory): the result is not kept, the
    # next run tries again.
    stopped: bool = False

    def variant(self, number: int) -> Sources:
        """What one variant sees: every file, each chart rendered with its `number`-th value
        set, and the `number`-th kustomization built (the last, when there are fewer):
        value sets, and kustomizations, are judged apart."""

        def seen(path: str) -> bool:
            group = self.group_of.get(path)
            if group is None:
                return True
            return self.variant_of[path] == min(number, self.variants[group] - 1)

        return replace(
            self,
            manifests=[m for m in self.manifests if seen(m.path)],
            namespaces_elsewhere=[  # cluster-wide: another build's still label this one's pods
                obj
                for m in self.manifests
                if not seen(m.path)
                for obj in m.objects
                if obj.is_a("", "Namespace")
            ],
        )


class SourceBytes(dict[str, bytes]):
    """The bytes of a run's files, by path: the files read so far. A file the cache
    recognises by its stamp is fetched only if its parse is gone from the cache; `errors`
    says what could not be read."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[str] = []

    def fetch(self, source: Source) -> bool:
        """Read the source's bytes now; False (and an error) when it cannot be read."""
        try:
            self[source.path] = source.read()
        except OSError as error:
            self.errors.append(f"{source.path}: cannot read: {error.strerror or error}")
            return False
        return True


def read_bytes(
    sources: Sequence[Source],
    contents: Mapping[str, bytes] | None = None,
    recognised: Mapping[str, str] | None = None,
) -> SourceBytes:
    """Every source's bytes (`contents` overrides some: the fixer lints its edited text
    before it writes anything), but those of `recognised` files (the cache knows their
    keys), which are read only if asked for; `errors` says what could not be read."""
    data = SourceBytes()
    for source in sources:
        if source.unread is not None or (recognised and source.path in recognised):
            continue  # an unread file is reported as KLB006, never opened
        if contents and source.path in contents:
            data[source.path] = contents[source.path]
        else:
            data.fetch(source)
    return data


def read_sources(
    sources: Sequence[Source],
    data: SourceBytes,
    *,
    settings: ReadSettings | None = None,
    jobs: int = 1,
    cache: ParseMemo | None = None,
    progress: Progress = QUIET,
    keys: Mapping[str, str] | None = None,
) -> Sources:
    """Parse every source's bytes once, and render each rendered source (a chart, a
    kustomization: its reader's kind) into files parsed with the others. Parses come from
    the cache when the file has not changed (looked up by the key of its bytes: `keys` has
    those the run worked out, a file the cache recognised unread among them), and from a
    pool of `jobs` processes otherwise. `settings`: those the readers render with (the
    defaults when None)."""
    settings = settings or Settings(rules=())
    read = Sources(contents=data)
    parses = _Parses(cache)
    facts = None
    if cache is not None and cache.keeps_facts and keys is not None:
        facts = _KeptFacts(cache, keys)
    for source in sources:
        key = keys.get(source.path) if keys else None
        if key is None and source.path not in data:
            continue
        read.readable.add(source.path)
        reader = reader_of(source.language)
        if reader is not None and reader.renders:  # rendered below
            continue
        if source.path not in data and facts is not None and key and reader and reader.links:
            facts.unread.append((source, key))  # loaded below unless its facts are kept
            continue
        _parse(source, key, data, parses, read)
    if facts is not None:
        facts.settle(sources, data, parses, read)
    rendered = [
        (reader, _render(reader, sources, data, settings, cache, read))
        for reader in READERS.values()
        if reader.renders
    ]
    origin: dict[str, tuple[Reader, Rendering]] = {}  # each rendered file's reader, rendering
    for reader, renderings in rendered:
        _add_rendered(read, parses, reader, renderings, origin)
    parses.make(jobs, progress)
    for reader, renderings in rendered:
        for rendering in (r for _, each in renderings for r in each):
            late = reader.after_parse(rendering, parses.parsed)
            if late is not None:
                read.manifests.append(ManifestFile(late.path, problems=[late]))
    for path in read.rendered_from:
        found = parses.parsed.get(path)
        if isinstance(found, ManifestFile):
            reader, rendering = origin[path]
            read.manifests.append(reader.placed(found, rendering, settings))
        elif isinstance(found, Unparsed):
            read.errors.append(found.error)
    _gather(read, sources, parses.parsed, data, facts)
    return read


def _parse(
    source: Source, key: str | None, data: SourceBytes, parses: _Parses, read: Sources
) -> None:
    """The source's parse: the cache's (by its key) for a file it recognised unread, read
    and parsed when that is unusable; else of its bytes (`_Parses.make`)."""
    cache = parses.cache
    if source.path not in data:  # recognised by the cache unread: its parse is kept
        hit = cache.parsed_by_key(key, source.path) if cache is not None and key else None
        if hit is not None:
            parses.parsed[source.path] = hit
            return
        if not data.fetch(source):  # the kept parse is unusable and the file is gone
            read.readable.discard(source.path)
            return
    parses.add(source.path, source.language, data[source.path], key)


class _KeptFacts:
    """A run's build facts kept in the cache by the key of what makes them: the build
    files in the run's order (`read_build_facts` reads them so), each by the key of its
    bytes, and each other file whose name says it builds (a compose file, setup.py: read
    from its bytes every run). With the key of the last run that made them, the build
    files the cache recognised are not loaded (a pre-commit hook on a manifest or a
    module: some 3,000 parses at 10,000 files) and the facts are taken as kept."""

    def __init__(self, cache: ParseMemo, keys: Mapping[str, str]) -> None:
        self.cache, self.keys = cache, keys
        self.unread: list[tuple[Source, str]] = []  # build files recognised, not loaded
        self.also: dict[str, BuildFile | None] = {}  # another file's facts, by path
        self.key = ""
        self.kept: BuildFacts | None = None

    def settle(
        self, sources: Sequence[Source], data: SourceBytes, parses: _Parses, read: Sources
    ) -> None:
        """Take the facts kept for these files, or load the build files left unread."""
        said: list[str] = []
        for source in sources:
            key = self.keys.get(source.path)
            if key is not None and _links(source):
                said.append(f"build\0{source.path}\0{key}")
            elif not _links(source) and source.path in data:
                also = _also_builds(source, data)
                self.also[source.path] = also
                said.append(f"also\0{source.path}\0{key}" if also is not None else "")
        self.key = run_key("build facts", said)
        found = self.cache.build_facts(self.key)
        self.kept = found if isinstance(found, BuildFacts) else None
        for source, key in self.unread:
            if self.kept is None or not self.cache.keep_unread(key, source.path):
                _parse(source, key, data, parses, read)

    def keep(self, facts: BuildFacts, parsed: Mapping[str, Parsed], data: SourceBytes) -> None:
        """Keep the facts made, as they are now, when every file they rest on was read
        as its key says (none gone, none that failed to parse)."""
        if data.errors or any(isinstance(found, Unparsed) for found in parsed.values()):
            return
        self.cache.keep_build_facts(self.key, pickle.dumps(facts, pickle.HIGHEST_PROTOCOL))


def _also_builds(source: Source, data: SourceBytes) -> BuildFile | None:
    """What a file of another kind says of builds (its bytes read whole, every run)."""
    reader = reader_of(source.language)
    own = data[source.path]
    return read_build_file(source.path, reader.build_bytes(own) if reader else own)


def _gather(
    read: Sources,
    sources: Sequence[Source],
    parsed: Mapping[str, Parsed],
    data: SourceBytes,
    facts: _KeptFacts | None = None,
) -> None:
    """The sources' parses in `read`, by what they are (objects, code, build facts), and
    what is settled once a run, whatever its variants: which modules form a program, the
    names they import from each other, what the build files say."""
    build_files: list[BuildFile] = []
    for source in sources:
        found = parsed.get(source.path)
        if isinstance(found, BuildFile):
            build_files.append(found)
            continue
        if isinstance(found, ManifestFile):
            read.manifests.append(found)
        elif isinstance(found, Unparsed):
            read.errors.append(found.error)
        elif found is not None:
            read.modules.append(found)
        # a compose or skaffold file, a CI workflow: read here, whole, on every run (any
        # other file's name says it is no build file, and it is not decoded)
        if not _links(source) and source.path in data:
            known = facts.also if facts is not None else {}
            also = known[source.path] if source.path in known else _also_builds(source, data)
            build_files += [also] if also is not None else []
    if facts is not None and facts.kept is not None:
        read.builds = facts.kept
    else:
        read.builds = read_build_facts(build_files)
        if facts is not None:
            facts.keep(read.builds, parsed, data)
    read.modules = without_build_output(read.modules)
    read.modules = built_in_test_folders(read.modules, read.builds.dockerfiles)
    assign_projects(read.modules, read.builds.projects)
    read.modules = test_support(read.modules)
    read.modules = test_only_code(read.modules)
    read.modules = resolve_imports(read.modules)
    for language in {module.language for module in read.modules}:
        if LANGUAGES[language].settle:
            load(LANGUAGES[language].settle)(read.modules, read.builds.grpc_java)


def _links(source: Source) -> bool:
    """Whether the source is read for the link of code to containers only (a build file)."""
    reader = reader_of(source.language)
    return reader is not None and reader.links


class _Parses:
    """The parses of a run's files: from the cache, found by the key of a file's bytes
    (worked out once), or made all together (`make`), in a pool where it pays."""

    def __init__(self, cache: ParseMemo | None) -> None:
        self.cache = cache
        self.parsed: dict[str, Parsed] = {}
        self.pending: list[tuple[str, str, bytes]] = []
        self.pending_keys: list[str] = []  # each pending parse's key, for the cache

    def add(self, path: str, language: str, content: bytes, key: str | None) -> None:
        if self.cache is not None:
            key = key or self.cache.file_key(path, content)
            hit = self.cache.parsed_by_key(key, path)
            if hit is not None:
                self.parsed[path] = hit
                return
        self.pending.append((path, language, content))
        self.pending_keys.append(key or "")

    def make(self, jobs: int, progress: Progress) -> None:
        progress.stage("files parsed", len(self.pending))
        keep = isinstance(self.cache, Cache)  # the cache on disk keeps each parse pickled
        done = parse_all(self.pending, jobs, progress, keep_pickles=keep)
        for (path, _, _), key, (result, blob) in zip(
            self.pending, self.pending_keys, done, strict=True
        ):
            self.parsed[path] = result
            if self.cache is not None and not isinstance(result, Unparsed):
                self.cache.store_by_key(key, path, result, blob)


Renderings = list[tuple[Source, list[Rendering]]]  # each source of a kind, its renderings


def _render(
    reader: Reader,
    sources: Sequence[Source],
    data: SourceBytes,
    settings: ReadSettings,
    cache: ParseMemo | None,
    read: Sources,
) -> Renderings:
    """The renderings of each source of the reader's kind. Rendered once per content of
    the source and the reader's inputs: a pre-commit run whose change is elsewhere takes a
    chart's rendering from the cache. One a limit of the run stopped is kept nowhere."""
    mine = [s for s in sources if s.language == reader.name and s.path in data]
    if not mine:
        return []
    inputs = reader.inputs(settings)
    keys = {s.path: f"{s.path}\0{reader.name}\0{inputs}" for s in mine}
    kept = cache if reader.cached else None
    known = {
        s.path: kept.parsed(keys[s.path], data[s.path]) if kept is not None else None for s in mine
    }
    missing = [s for s in mine if known[s.path] is None]
    fresh = reader.render([(s.path, data[s.path]) for s in missing], settings)
    for source, renderings in zip(missing, fresh, strict=True):
        known[source.path] = renderings
        if any(rendering.stopped or rendering.uncached for rendering in renderings):
            read.stopped = True
        elif kept is not None:
            kept.store(keys[source.path], data[source.path], renderings)
    seen = reader.among([(s.path, known[s.path] or []) for s in mine])
    return list(zip(mine, seen, strict=True))


def _add_rendered(
    read: Sources,
    parses: _Parses,
    reader: Reader,
    rendered: Renderings,
    origin: dict[str, tuple[Reader, Rendering]],
) -> None:
    """The files the renderings wrote, parsed like any (from the cache when their text is
    known), each judged in its variant and reported for its source; the problems that
    kept a source from rendering, listed under its file."""
    for number, (source, renderings) in enumerate(rendered):
        problems = [p for rendering in renderings for p in rendering.problems]
        where = reader.problems_path(source.path, renderings)
        read.manifests.append(ManifestFile(where, problems=problems))
        group = reader.name if reader.apart else source.path
        # a source's renderings judged together share a variant (a helmfile's releases)
        variants = 1 + max((r.variant for r in renderings), default=0)
        read.variants[group] = len(rendered) if reader.apart else variants
        for rendering in renderings:
            read.templates.update(reader.templates(rendering, source.path))
            variant = number if reader.apart else rendering.variant
            without = tuple(rendering.path_of(member) for member in rendering.left_out)
            for path, text in rendering.files.items():
                read.rendered_from[path], read.group_of[path] = source.path, group
                if without:
                    read.left_out[path] = without
                read.variant_of[path], origin[path] = variant, (reader, rendering)
                if rendering.dependency_of is not None:
                    read.stand_ins.add(path)
                parses.add(path, MANIFESTS.name, text.encode(), None)


# A judgement of only what changed since the last run that judged every file, from what
# that run left in the cache (incremental.after_edit): its result and the links of its
# model; None where it cannot be made so.
AfterEdit = Callable[
    [RunMemory, SourceBytes, Settings, int, Progress], tuple[RunResult, LinksToKeep] | None
]


def run(
    sources: Sequence[Source],
    settings: Settings,
    contents: Mapping[str, bytes] | None = None,
    *,
    jobs: int = 1,
    cache: Cache | None = None,
    memo: ParseMemo | None = None,
    progress: Progress = QUIET,
    save: bool = True,
    after_edit: AfterEdit | None = None,
) -> RunResult:
    """Check `sources`. `cache` keeps parses and the result on disk (written now unless
    `save` is False: the caller saves it once after several runs); `memo` keeps parses in
    memory only. With `contents` (text that need not be on disk: the fixer's passes) the
    cache is used by the bytes' keys alone, never by the files' stamps. `after_edit`: how
    a run judges again only what changed since the last that judged every file."""
    memory = (
        RunMemory(cache, sources, settings.digest(sources), by_stamps=contents is None)
        if cache is not None and sources
        else None
    )
    if memory is not None and (unchanged := memory.unchanged()) is not None:
        return detached(unchanged)  # no file touched since the last run (like ruff's cache)
    data = read_bytes(sources, contents, memory.recognised() if memory is not None else {})
    errors = list(data.errors)
    whole = settings.digest(()) if memory is not None and contents is None else None
    if memory is not None and not errors and (same := memory.same_bytes(data)) is not None:
        if whole is not None:  # the bytes of a remembered run again (an edit undone)
            memory.keep_whole(whole, same)
        if save:
            memory.cache.save()
        return replace(detached(same), contents=dict(data))  # touched, but every byte as was
    if memory is not None and whole is not None and not errors:
        memory.note_words(data)
        judged = after_edit(memory, data, settings, jobs, progress) if after_edit else None
        if judged is not None:
            judged_result, links = judged
            kept_result = replace(detached(judged_result), contents={})
            memory.keep(kept_result)
            memory.keep_whole(whole, kept_result, links)
            if save:
                memory.cache.save()
            return judged_result
    read = read_sources(
        sources,
        data,
        settings=settings,
        jobs=jobs,
        cache=(cache if sources else None) or memo,
        progress=progress,
        keys=memory.keys if memory is not None else None,
    )
    read.errors[:0] = data.errors  # with any recognised file gone before it was parsed
    late = len(data.errors) > len(errors)
    variants = max(read.variants.values(), default=1)
    first = read.variant(0)
    context = analyse(sources, settings, first)
    if memory is not None:  # the links of the workloads as then, from the last whole run
        context.links.before_all = lambda links: memory.restore_links(
            links,
            lambda said: inputs_digest(first.modules, first.builds, settings.links, said),
        )
    concluded = conclude(sources, settings, first, context, progress)
    checked = [_variant(concluded, context, several=variants > 1)]
    for number in range(1, variants):
        checked.append(_check(sources, settings, read.variant(number), several=True))
    result = _merged(checked)
    if memory is not None and not late and not read.stopped:
        kept_result = replace(detached(result), contents={})
        kept = memory.keep(kept_result)
        if whole is not None and not read.rendered_from:
            memory.keep_whole(whole, kept_result, links_to_keep(first, context, settings))
        if kept and save:
            memory.cache.save()
    if _ends_unfreed(cache, sources, contents):
        _OUTLIVING.append((data, read, first, context, concluded, checked))
    return result


# The models of the runs whose process ends without freeing them (`_ends_unfreed`).
_OUTLIVING: list[object] = []


def _ends_unfreed(
    cache: Cache | None, sources: Sequence[Source], contents: Mapping[str, bytes] | None
) -> bool:
    """Whether the run's model is left unfreed as it returns: in a command line of its own
    (its cache written in the background, by a child, once the report is out), which ends
    without freeing anything (cli._leave), a run that reports on some of its files (a
    pre-commit hook's) spent some 0.05 s of 0.8 freeing the whole tree's model here, for a
    report of a few lines. A whole run's model is let go before its report, whose peak of
    memory it would add to, and each pass of a fix's (`contents`) before the next."""
    return (
        isinstance(cache, Cache)
        and cache.background
        and contents is None
        and not all(source.report for source in sources)
    )


def links_to_keep(read: Sources, context: Context, settings: Settings) -> LinksToKeep:
    """The model's links, their digest and their build facts' part of it, for the cache to
    work out when it is written."""

    def kept() -> tuple[str, str, RememberedLinks]:
        said = builds_digest(read.builds)
        digest = inputs_digest(read.modules, read.builds, settings.links, said)
        return digest, said, context.links.remembered()

    return kept


def detached(result: RunResult) -> RunResult:
    """A result whose lists are its own: the caller adds to a run's errors (a missing
    `--context` path, a report it cannot write) and applies a baseline to its findings,
    which must never reach the result the cache keeps for the next run."""
    return replace(
        result,
        findings=list(result.findings),
        suppressed=list(result.suppressed),
        errors=list(result.errors),
        warnings=list(result.warnings),
    )


_Item = TypeVar("_Item")


def _said(finding: Finding) -> tuple[tuple[str, int, int, str], str]:
    """What a finding says, where: two that say the same on the same line are one."""
    return finding.sort_key(), finding.text


def _without_repeats(placed: list[tuple[Finding, Finding]], stand_ins: set[str]) -> list[Finding]:
    """The findings, each (as found, as placed on its template), but those on a stand-in's
    rendered file (a dependency chart alone, with its own defaults) that a finding of
    another rendering gives at the same place, at that severity or above."""
    if not stand_ins:
        return [f for _, f in placed]
    theirs: dict[tuple[str, str, int, int], Severity] = {}
    for found, f in placed:
        if found.path not in stand_ins:
            place = (f.rule, f.path, f.line, f.column)
            theirs[place] = max(theirs.get(place, f.severity), f.severity)
    return [
        f
        for found, f in placed
        if found.path not in stand_ins
        or (place := (f.rule, f.path, f.line, f.column)) not in theirs
        or theirs[place] < f.severity
    ]


def _once(items: Sequence[_Item], finding: Callable[[_Item], Finding]) -> list[_Item]:
    """The items, each finding said once: a template line that renders several times (in
    a `range`) writes the same finding each time."""
    seen: set[tuple[tuple[str, int, int, str], str]] = set()
    kept = []
    for item in items:
        said = _said(finding(item))
        if said not in seen:
            seen.add(said)
            kept.append(item)
    return kept


@record
class _Variant:
    """One variant's result, and the modules its containers run (links.py)."""

    result: RunResult
    ran: frozenset[str]


def _merged(judged: Sequence[_Variant]) -> RunResult:
    """The variants' results as one. A module's code is judged in every variant, with its
    pods only where a container of the variant runs it: a finding about it from a variant
    that does not (a base's Deployment built by an overlay, its server judged again with
    the infrastructure's build) is left to those that do; and where several variants
    still judge one code site by one rule, the most severe judgement stands alone."""
    ran = frozenset().union(*(v.ran for v in judged))
    best: dict[tuple[str, int, int, str], tuple[Severity, int]] = {}
    kept: list[list[Finding]] = []
    for number, variant in enumerate(judged):
        kept.append(
            [
                f
                for f in variant.result.findings
                if f.object is not None
                or os.path.normpath(f.path) in variant.ran
                or os.path.normpath(f.path) not in ran
            ]
        )
        for finding in kept[-1]:
            key = finding.sort_key()
            if finding.object is None and (key not in best or finding.severity > best[key][0]):
                best[key] = (finding.severity, number)
    for number, (variant, findings) in enumerate(zip(judged, kept, strict=True)):
        variant.result.findings[:] = [
            f for f in findings if f.object is not None or best[f.sort_key()][1] == number
        ]
    result = judged[0].result
    for variant in judged[1:]:
        _merge(result, variant.result)
    return result


def _merge(result: RunResult, other: RunResult) -> None:
    """Add what another value set's run found: the findings and objects only it has."""
    seen = {_said(f) for f in result.findings}
    result.findings += [f for f in other.findings if _said(f) not in seen]
    result.findings.sort(key=Finding.sort_key)
    known = {_said(f) for f, _ in result.suppressed}
    result.suppressed += [(f, w) for f, w in other.suppressed if _said(f) not in known]
    result.errors += [e for e in other.errors if e not in result.errors]
    # a pin to nothing is said when no value set renders its container
    result.warnings = [w for w in result.warnings if w in other.warnings]
    result.objects = max(result.objects, other.objects)


def _check(
    sources: Sequence[Source],
    settings: Settings,
    read: Sources,
    progress: Progress = QUIET,
    *,
    several: bool = False,
) -> _Variant:
    """One variant of a run, stage by stage: analyse what was read into the model, then
    judge it; of one of `several`, which modules its containers run (every link made: a
    run of one variant makes only those its rules ask for)."""
    context = analyse(sources, settings, read)
    return _variant(conclude(sources, settings, read, context, progress), context, several=several)


def _variant(result: RunResult, context: Context, *, several: bool) -> _Variant:
    """A variant's result, and (of one of `several`) the modules its containers run."""
    if not several:
        return _Variant(result, frozenset())
    return _Variant(result, frozenset(m for link in context.links.links for m in link.modules))


def conclude(
    sources: Sequence[Source],
    settings: Settings,
    read: Sources,
    context: Context,
    progress: Progress = QUIET,
) -> RunResult:
    """The judgement of a model and the run's result."""
    findings, suppressed = verdicts(sources, settings, read, context, progress)
    return summary(sources, settings, read, context, findings, suppressed)


def verdicts(
    sources: Sequence[Source],
    settings: Settings,
    read: Sources,
    context: Context,
    progress: Progress = QUIET,
) -> tuple[list[Finding], list[tuple[Finding, str]]]:
    """The findings kept and those suppressed: run the rules, suppress, relocate findings
    to the templates that wrote them, keep what is reported."""
    findings = run_rules(context, settings.rules, read.errors, progress)
    findings = move_to_patches(findings, context.patched)
    findings, suppressed = suppress(findings, context, settings, read)
    if context.unbuilt:  # deployed by nothing of the repository's
        findings = not_deployed(findings, context.unbuilt)
    if context.test_data:  # applied by a test, if at all
        findings = said_at_info(findings, context.test_data)
    if context.ci_clusters:  # applied to a CI job's own cluster
        findings = rollouts_at_info(findings, context.ci_clusters)
    reported = _reported(sources, read)
    if not reported.every:  # what another chart rendered of a template a named one renders
        findings = [f for f in findings if reported.rendered(f.path)]
        suppressed = [(f, why) for f, why in suppressed if reported.rendered(f.path)]
    if read.templates:  # findings about rendered charts and builds go to their files
        placed = [(f, relocate(f, read.templates)) for f in findings]
        findings = _once(_without_repeats(placed, read.stand_ins), lambda f: f)
        suppressed = _once(
            [(relocate(f, read.templates), w) for f, w in suppressed], lambda pair: pair[0]
        )
    if not reported.every:  # --context: the other files only inform
        findings = [f for f in findings if reported(f.path)]
        suppressed = [(f, why) for f, why in suppressed if reported(f.path)]
    findings.sort(key=Finding.sort_key)
    return findings, suppressed


def summary(
    sources: Sequence[Source],
    settings: Settings,
    read: Sources,
    context: Context,
    findings: list[Finding],
    suppressed: list[tuple[Finding, str]],
) -> RunResult:
    """The run's result around its findings: what it read, the links, the warnings."""
    result = _result(sources, read, context, _reported(sources, read), findings, suppressed)
    result.warnings = unmatched_pins(settings.links, context.index, read.modules)
    return result


def analyse(
    sources: Sequence[Source], settings: Settings, read: Sources, links: CodeLinks | None = None
) -> Context:
    """The model the rules read: the index of objects (deployment units, meshes), which
    code runs in which container, the read problems; with --context, what is judged.
    `links`: the last model's, after an edit that changed no code and no build file."""
    patterns = read_as_patterns(read.manifests, read.rendered_from)  # a test's, to match
    merged = patched(
        [
            obj
            for m in read.manifests
            if not patterns or os.path.normpath(m.path) not in patterns
            for obj in m.objects
        ],
        read.manifests,
        read.rendered_from,
    )
    unnamed = unnamed_objects(read.manifests, read.rendered_from)
    if unnamed.objects:  # patterns and patches: never judged as objects deployed
        merged.objects = [o for o in merged.objects if (o.path, o.ref) not in unnamed.objects]
    objects = labelled(
        merged.objects,
        [labels for m in read.manifests for labels in m.added_labels],
        read.rendered_from,
        kustomizations_read(read.manifests, read.rendered_from),  # an overlay's reach bases
    )
    said = frozenset(p.path for p in unnamed.said)  # their shape is said there too
    test_data = files_in_test_data(sources, read.rendered_from)  # a test's: no deploy applies
    problems = _read_problems(sources, read, merged, unnamed, patterns, said)
    index = Index(
        objects,
        settings.mesh,
        deployment_units(objects, read.rendered_from, test_data),
        manifest_files=[m.path for m in read.manifests],
        namespaces_elsewhere=read.namespaces_elsewhere,
        built_replicas=merged.scaled,
        built_in=merged.built_in,
    )
    reported = {s.path for s in sources if s.report}
    return Context(
        index=index,
        problems=problems,
        modules=read.modules,
        kubernetes_version=settings.kubernetes_version,
        fix_values=settings.fix_values,
        links=link_code(index, read.modules, read.builds, settings.links)
        if links is None
        else link_code_again(index, read.modules, links),
        proxy_configs=[c for m in read.manifests for c in m.proxy_configs],
        # a file a program fills before use (template values read as unknown) says no
        # more than a patched object's does: findings about its objects get no fix
        patched={
            **{(o.path, o.ref): {} for m in read.manifests if m.filled for o in m.objects},
            **merged.moved,
        },
        patch_files=merged.patch_files,
        unnamed_said=said,
        patterns=patterns,
        left_out=read.left_out,
        unbuilt=_unbuilt(read, merged),
        test_data=why_test_data(test_data),
        ci_clusters=files_in_ci_clusters(
            read.builds.ci_clusters, read.manifests, read.rendered_from
        ),
        grpc_java=read.builds.grpc_java,
        build_contexts=build_contexts(read.builds),
        named_contexts=named_contexts(read.builds),
        image_builds=image_builds(read.builds),
        # with --context only the reported files' objects are judged; a rendered file's
        # findings may move to a reported template, so those are all judged
        judged=frozenset(reported | read.rendered_from.keys())
        if len(reported) < len(sources)
        else None,
        reported_beyond=bool(read.rendered_from) or any(_renders(s) for s in sources if s.report),
    )


def _unbuilt(read: Sources, merged: Patched) -> dict[str, str]:
    """The files no kustomization builds and nothing else applies (kustomized.left_out)."""
    return left_out(
        read.manifests,
        read.rendered_from,
        merged.built_in,
        merged.complete,
        merged.patch_files,
        # what scripts, workflows, guides, Tilt, Skaffold, Argo CD and Flux apply
        [*read.builds.manifests, *deployed_folders(merged.objects)],
    )


def _renders(source: Source) -> bool:
    """Whether the source is rendered (a chart, a kustomization, a helmfile): findings in
    other files than its own are reported for it (engine._reported)."""
    reader = reader_of(source.language)
    return reader is not None and reader.renders


def _read_problems(
    sources: Sequence[Source],
    read: Sources,
    merged: Patched,
    unnamed: Unnamed,
    patterns: frozenset[str],
    said: frozenset[str],
) -> list[Problem]:
    """What reading found wrong: each manifest's problems but a patch file's and those of
    objects never judged (patterns, unnamed patches), a kustomization's charts k8slb does
    not fetch (KLB006), the code readers' and the files not read."""
    listed = listed_inputs(read.manifests, read.rendered_from)  # inputs, whatever they hold
    problems: list[Problem] = [
        as_input(p, m.path, read.rendered_from, listed)
        for m in read.manifests
        if os.path.normpath(m.path) not in merged.patch_files
        for p in m.problems
        if (p.path, p.object) not in unnamed.objects or p.path in said
        if p.rule != "KLB002" or os.path.normpath(p.path) not in patterns
    ]
    problems += unnamed.said
    problems += [  # a kustomization's charts k8slb does not fetch (KLB006)
        p
        for m in read.manifests
        if m.helm_charts is not None and m.path not in read.rendered_from
        if (p := unrendered_charts(m.helm_charts)) is not None
    ]
    problems += [facts.problem for facts in read.modules if facts.problem is not None]
    problems += [Problem(UNREAD_FILE, s.path, 1, 1, s.unread) for s in sources if s.unread]
    return problems


def run_rules(
    context: Context,
    rules: Sequence[type[Rule]],
    errors: list[str],
    progress: Progress = QUIET,
) -> list[Finding]:
    """Every rule's findings; a rule that fails is an internal error in `errors`, and the
    others still run. An object left without a field of the wrong shape (KLB002) is not
    judged by the rules that read that field."""
    damaged: dict[tuple[str, ObjectRef | None], frozenset[str]] = {
        (obj.path, obj.ref): obj.damaged for obj in context.index.objects if obj.damaged
    }
    findings: list[Finding] = []
    progress.stage("rules run", len(rules))
    for rule in rules:
        progress.advance()
        try:
            found = list(rule().check(context))  # all of a rule's findings, or none
        except Exception as error:  # a bug of k8slb's: the other rules still run
            errors.append(internal_error(f"running rule {rule.id}", error))
            continue
        if damaged and rule.reads:
            found = [
                f for f in found if not rule.reads & damaged.get((f.path, f.object), frozenset())
            ]
        findings += found
    return findings


def suppress(
    findings: list[Finding], context: Context, settings: Settings, read: Sources
) -> tuple[list[Finding], list[tuple[Finding, str]]]:
    """The findings kept, and those suppressed with what suppressed them (comments,
    annotations, per-file-ignores, exemptions); KLB005 on the suppressions that name no
    rule, or, with --report-unused-ignores, silence nothing."""
    suppressions = Suppressions(
        comments=[m for f in read.manifests for m in f.markers]
        + [m for f in read.modules for m in f.markers],
        per_file_ignores=dict(settings.per_file_ignores),
        config_root=settings.config_root or Path.cwd(),
        exemptions=settings.exemptions,
        today=settings.today or datetime.date.today(),
    )
    judged = (obj for obj in context.index.objects if context.judges(obj))
    suppressions.add_objects(judged)  # their annotations, and the findings that are theirs
    suppressions.aliases = patch_aliases(context.index.objects, context.patched)
    outcome = suppressions.apply(findings)
    kept = outcome.kept
    if UnusedSuppression in settings.rules:  # a code no rule has: always worth a word
        misnamed = {id(m): unknown_codes(m.codes) for m in outcome.markers if m.codes}
        kept += [
            UnusedSuppression.unknown(m, misnamed[id(m)])
            for m in outcome.markers
            if misnamed.get(id(m))
        ]
        if settings.report_unused_ignores:
            selected = {rule.id for rule in settings.rules}
            kept += [
                UnusedSuppression.about(marker)
                for marker in outcome.unused
                if judgeable(marker, selected) and not misnamed.get(id(marker))
            ]
    return kept, outcome.suppressed


@record
class Reported:
    """The files a run reports on: all of them, or with --context the named ones, the
    rendered files of a named chart, and a named chart's own files (a finding a helper
    wrote is in its _helpers.tpl, which renders to no file)."""

    every: bool
    paths: frozenset[str]
    charts: tuple[str, ...]  # the named charts' folders, each ending in a separator
    # The files (keys) that charts the run did not name rendered of a template that a
    # named chart renders too (a dependency folder several charts use), where no named
    # file or folder holds it: the template is reported for the named chart's objects.
    elsewhere: frozenset[str] = frozenset()

    def __call__(self, path: str) -> bool:
        return self.every or path in self.paths or path.startswith(self.charts)

    def rendered(self, path: str) -> bool:
        """Whether a finding at `path`, before it goes to its template, is reported: not
        one on another chart's rendering of a template a named chart renders."""
        return path not in self.elsewhere


def _reported(sources: Sequence[Source], read: Sources) -> Reported:
    named = {s.path for s in sources if s.report}
    if len(named) == len(sources):
        return Reported(True, frozenset(named), ())
    own = set(named)
    theirs = {real_path(path) for path, chart in read.rendered_from.items() if chart in own}
    named |= theirs
    readers = [(s, reader) for s in sources if s.report and (reader := reader_of(s.language))]
    named |= {path for s, reader in readers for path in reader.reported_files(s.path)}
    folders = tuple(os.path.join(s.path, "") for s, reader in readers if reader.reports_folder)
    elsewhere = frozenset(
        path
        for path, chart in read.rendered_from.items()
        if chart not in own
        and (template := real_path(path)) in theirs
        and template not in own
        and not template.startswith(folders)
    )
    return Reported(False, frozenset(named), folders, elsewhere)


def _result(
    sources: Sequence[Source],
    read: Sources,
    context: Context,
    reported: Reported,
    findings: list[Finding],
    suppressed: list[tuple[Finding, str]],
) -> RunResult:
    """The run's result: its findings and what it read, counted over the reported files."""
    manifests, objects = read.manifests, context.index.objects

    def counted(path: str) -> bool:  # an object of a reported file, or of a named chart
        return path in reported.paths or read.rendered_from.get(path) in reported.paths

    return RunResult(
        findings=findings,
        suppressed=suppressed,
        paths=[  # the files reported on: a file read as context is no test case of JUnit's
            path
            for path in [m.path for m in manifests]
            + [f.path for f in read.modules]
            + [s.path for s in sources if _links(s) and s.path in read.readable]
            if reported(path)
        ],
        contents=dict(read.contents),  # plain: a result is pickled for the cache
        files=sum(1 for s in sources if s.report and s.path in read.readable),
        objects=sum(1 for obj in objects if counted(obj.path)),
        unknown_kinds=sum(1 for obj in objects if obj.spec is None and counted(obj.path)),
        other_documents=sum(m.other_documents for m in manifests),
        errors=read.errors,
        # with --context: the reported files' containers, and the reported modules
        links=link_rows(
            context.workload_objects(), context.index, context.links, context.judged_code()
        ),
    )
