"""A judgement after an edit that costs the edit: the files read into the same facts as
the last judgement's are not judged again, and their findings are kept; the rules judge
only the files whose findings the edit may change.

Which files those are is worked out from the model before and after the edit, never from
what the rules happen to read today, and always more than less:

- the files whose bytes changed, the modules whose facts changed with them (a name
  resolved across files), the containers whose code changed (links.py, before and after);
- the workloads those files run or hold, the Services that select them, the workloads the
  changed Services select (and a Service's headless twins), the code those workloads run;
- every file that names one of those objects, in any case (a client's address, an env
  value, a scaler's target, a route) and every object the changed files name (with the
  workloads a named Service selects: who dials it is evidence about them; a changed
  module names what the env and args of the containers that run it name, or with none,
  of the workloads that set a variable it reads), with the code run by the workloads of
  those files, and the code no container runs that reads an
  env variable they set (addresses.destinations looks it up by name); where a Service
  changed, the code that makes an address of pieces (`"api-" + os.environ["NAME"]`),
  which names a Service no file writes whole;
- the other modules of a changed module's project and Go program, the files of its folder
  (deployment units, what is read with its unit), and the files whose findings pointed
  into a changed file (a finding quotes the line that set an address).

Those files are judged as `--context` judges its reported files (`Context.judged`), which
tests/test_context_scope.py holds to the findings of judging everything. What the model
cannot place that way starts a whole judgement: a new plan or settings, a chart or a
kustomization, a build file's facts changed, the deployment units changed, a changed
object of a kind whose relations are not by name or selector (a Namespace, a
PodDisruptionBudget, a ServiceMonitor), a changed module that makes an address of pieces.
tests/test_incremental.py holds every judgement after an edit to a fresh run's.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import itertools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from k8slb.code.facts import CodeFacts, EnvRef, EnvText
from k8slb.core.findings import Finding
from k8slb.core.progress import QUIET, Progress
from k8slb.core.results import RunResult
from k8slb.inputs import reader_of
from k8slb.languages import LANGUAGES
from k8slb.model.dialers import joinable
from k8slb.model.index import Index, literal_env, selector_of
from k8slb.model.links import container_key
from k8slb.model.units import PLAIN
from k8slb.reading.build_files import names_builds
from k8slb.reading.kustomization import KUSTOMIZATION_FILES
from k8slb.reading.objects import K8sObject
from k8slb.reading.sources import Source
from k8slb.rulekit.base import Context
from k8slb.run.cache import Cache, ParseMemo
from k8slb.run.engine import (
    SourceBytes,
    Sources,
    analyse,
    conclude,
    links_to_keep,
    read_bytes,
    read_sources,
    run,
    summary,
    verdicts,
)
from k8slb.run.run_memory import LinksToKeep, Plan, RunMemory, WholeRun, plan_of, words
from k8slb.run.settings import Settings

# The kinds whose relations to other objects the closure follows (their workloads, the
# Services that select them, names): a changed object of another kind judges everything.
FOLLOWED = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("", "ReplicationController"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("", "Pod"),
        ("", "Service"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("keda.sh", "ScaledObject"),
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "ServiceAccount"),
        ("", "PersistentVolumeClaim"),
        ("networking.k8s.io", "Ingress"),
        ("gateway.networking.k8s.io", "HTTPRoute"),
        ("gateway.networking.k8s.io", "GRPCRoute"),
    }
)


@functools.lru_cache(maxsize=65536)  # every object's name, asked on every judgement
def name_words(name: str) -> frozenset[str]:
    return words(name.encode("utf-8", "replace"))


@dataclass
class Judgement:
    """What a judgement leaves for the next: its plan and settings, the bytes it read, what
    they were read into, the model (every file judged), the result, each file's words and
    which modules make addresses of pieces."""

    sources: Sequence[Source]
    settings: Settings
    data: Mapping[str, bytes]
    read: Sources
    context: Context
    result: RunResult
    words: dict[str, frozenset[str]]
    composers: dict[str, tuple[CodeFacts, bool]]  # path -> its facts, whether it composes
    whole: bool = True  # judged whole (False: after an edit, from the last judgement)
    today: datetime.date = field(default_factory=datetime.date.today)  # exemptions end by it


def judge(
    sources: Sequence[Source],
    settings: Settings,
    contents: Mapping[str, bytes],
    *,
    memo: ParseMemo,
    before: Judgement | None = None,
) -> Judgement | RunResult:
    """The run's judgement with `contents` over the files' bytes: after `before`, only the
    files an edit may change are judged again. A tree this cannot judge by parts (charts,
    kustomizations: rendered variants) gives the whole run's result and no judgement."""
    day = settings.today or datetime.date.today()
    data = read_bytes(sources, contents)
    last = before if before is not None and _comparable(before, sources, settings) else None
    changed = _changed(last.data, data) if last is not None else set()
    if last is not None and not changed and not data.errors:
        return last
    read = read_sources(sources, data, cache=memo, settings=settings)
    read.errors[:0] = data.errors
    if read.rendered_from or read.stopped:  # variants are judged apart: the run does it
        return run(sources, settings, contents, memo=memo)
    said = _words(dict(data), last)
    return _judged(sources, settings, dict(data), read, last, changed, said, day)


def _judged(
    sources: Sequence[Source],
    settings: Settings,
    data: Mapping[str, bytes],
    read: Sources,
    last: Judgement | None,
    changed: set[str],
    said: dict[str, frozenset[str]],
    day: datetime.date,
    composes: Callable[[Sequence[CodeFacts]], dict[str, tuple[CodeFacts, bool]]] | None = None,
) -> Judgement:
    """The judgement of what was read, after `last`: the files whose findings the edit
    (`changed`) may change judged again, the others' findings kept; all, without `last`
    or where the model cannot place the edit. `composes`: which modules make addresses of
    pieces, where the caller knows better than looking again at what `last` did not read."""
    same_code = last is not None and _same_code(last, read)
    # the links made again only for the changed workloads, where no code changed: the
    # last model's are made first (they are compared below, and a model made from the
    # cache has made none yet), so that the new model keeps them rather than making its
    # own; those it took from the last whole run and were never asked for are kept as
    # they are (`keep` takes them too, and `_links_changed` passes them over)
    linked = last.context.links if last is not None and same_code else None
    if linked is not None:
        linked.make_unkept()
    context = analyse(sources, settings, read, linked)
    pieces = composes(context.modules) if composes else _composers(context.modules, last)
    affected = None if last is None else _affected(last, read, context, changed, said, pieces)
    if last is None or affected is None:
        result = conclude(sources, settings, read, context)
        return Judgement(sources, settings, data, read, context, result, said, pieces, today=day)
    # the affected files judged as `--context` judges its reported files
    new, also = verdicts(sources, settings, read, replace(context, judged=frozenset(affected)))
    kept = [f for f in last.result.findings if f.path not in affected]
    findings = sorted([*kept, *(f for f in new if f.path in affected)], key=Finding.sort_key)
    suppressed = [s for s in last.result.suppressed if s[0].path not in affected]
    suppressed += [s for s in also if s[0].path in affected]
    result = summary(sources, settings, read, context, findings, suppressed)
    return Judgement(sources, settings, data, read, context, result, said, pieces, False, today=day)


# Past one file changed in this many, judging every file costs less than making the model
# twice (before and after) to judge a few.
WHOLE_SHARE = 8


def after_edit(
    memory: RunMemory,
    data: SourceBytes,
    settings: Settings,
    jobs: int = 1,
    progress: Progress = QUIET,
) -> tuple[RunResult, LinksToKeep] | None:
    """`check` of every file after some changed since the last run that judged every file,
    from what it left in the cache (its plan, the keys of the bytes it read, its result and
    its model's links; each file's parse and words by those keys): the model before the
    edit and after it made from the parses (the links before it, those the last run made
    of the very same files, taken as it left them), and only the files whose findings the
    edit may change judged again, as after an editor's edit (`judge`); the result, and the
    links of the model after it for the next. None where it cannot be made so
    (no such run, a parse or the words of a file as it was no longer kept, a chart or a
    kustomization, a file added or removed that is not read alone, most files changed):
    the run then judges every file."""
    edit = _edit_since_last_whole(memory, data, settings)
    if edit is None:
        return None
    last, changed, said = edit
    keys, cache = memory.keys or {}, memory.cache
    known = cache.words
    shared = _Shared(cache)
    before_sources = _sources_of(last.plan, memory.sources)
    before_read = _read_before(before_sources, data, changed, settings, shared, last.keys)
    if before_read is None:
        return None
    projects = [(facts, facts.project) for facts in before_read.modules]
    read = read_sources(
        memory.sources,
        data,
        settings=settings,
        jobs=jobs,
        cache=shared,
        progress=progress,
        keys=keys,
    )
    if data.errors or read.rendered_from or read.stopped:
        return None
    if any(facts.project != project for facts, project in projects):
        return None  # a file added or removed moved a module shared by both models

    def composers(modules: Sequence[CodeFacts], by: Mapping[str, str]) -> dict[str, Any]:
        return _known_composers(modules, by, shared)

    before_context = analyse(before_sources, settings, before_read)
    # the last run's links, made of these very files: but a changed build file that is read
    # from its bytes on every run (a compose or skaffold file) is not read as it was then,
    # and the model before the edit rests on other build facts than those links did
    kept = memory.kept_links() if last.links is not None else None
    if kept is not None and kept.token == last.links and not any(map(names_builds, changed)):
        before_context.links.restore(kept.links, as_made=True)
    day = settings.today or datetime.date.today()
    before = Judgement(
        before_sources,
        settings,
        {},
        before_read,
        before_context,
        last.result,
        {path: known[key] for path, key in last.keys.items()},
        composers(before_context.modules, last.keys),
        today=day,
    )
    judged = _judged(
        memory.sources,
        settings,
        data,
        read,
        before,
        changed,
        said,
        day,
        lambda modules: composers(modules, keys),
    )
    return judged.result, links_to_keep(read, judged.context, settings)


def _edit_since_last_whole(
    memory: RunMemory, data: SourceBytes, settings: Settings
) -> tuple[WholeRun, set[str], dict[str, frozenset[str]]] | None:
    """The last run that judged every file with these settings, the files changed since,
    and every file's words now; None where a check cannot start from that run (a hook's
    run, other kinds of files, no change or most files changed, the parse or the words of
    a changed file as it was no longer kept)."""
    keys, cache = memory.keys, memory.cache
    if keys is None or not all(source.report for source in memory.sources):
        return None  # a run with --context (a pre-commit hook's) judges its files alone
    last = memory.last_whole(settings.digest(()))
    if last is None or not _same_kinds(last.plan, plan_of(memory.sources)):
        return None
    changed = {p for p in last.keys.keys() | keys.keys() if last.keys.get(p) != keys.get(p)}
    if not changed or len(changed) * WHOLE_SHARE > len(keys):
        return None
    said = _words_by_key(memory, data)
    known = cache.words
    if said is None or not all(
        cache.holds(key) and key in known for path, key in last.keys.items() if path in changed
    ):
        return None
    return last, changed, said


def _read_before(
    sources: Sequence[Source],
    data: SourceBytes,
    changed: set[str],
    settings: Settings,
    shared: ParseMemo,
    keys: Mapping[str, str],
) -> Sources | None:
    """The files as the last whole run read them: the unchanged ones' bytes, the changed
    ones' parses by their old keys (never read again); None where that cannot be so."""
    unread = _Unread()
    unread.update((path, content) for path, content in data.items() if path not in changed)
    read = read_sources(sources, unread, settings=settings, cache=shared, keys=keys)
    if unread.errors or read.rendered_from or read.stopped:
        return None
    return read


def _same_kinds(before: Plan, now: Plan) -> bool:
    """Whether every file is reported in both plans, the files of both are read alike, and
    every file added or removed is one read alone (neither rendered nor left unread)."""
    old = {source[0]: source for source in before}
    new = {source[0]: source for source in now}
    if not all(source[2] for source in (*old.values(), *new.values())):
        return False  # a run with --context judges some files only
    for path in old.keys() ^ new.keys():
        _, language, _, unread, _ = old.get(path) or new[path]
        reader = reader_of(language)
        if unread is not None or (reader is not None and reader.renders):
            return False
    return all(old[path] == new[path] for path in old.keys() & new.keys())


def _sources_of(plan: Plan, sources: Sequence[Source]) -> list[Source]:
    """The last run's sources: a file removed since is never read again (its parse is
    taken by its key, and `_Unread` refuses to read it)."""
    now = {source.path: source for source in sources}
    return [
        now.get(path) or Source(path, language, None, report, unread, test_data)
        for path, language, report, unread, test_data in plan
    ]


def _words_by_key(memory: RunMemory, data: SourceBytes) -> dict[str, frozenset[str]] | None:
    """Each read file's words, as the cache keeps them by its bytes' key; those it lacks
    worked out (the file read if need be) and kept. None when a file cannot be read."""
    keys, known = memory.keys or {}, memory.cache.words
    missing: dict[str, frozenset[str]] = {}
    for source in memory.sources:
        key = keys.get(source.path)
        if key is None or key in known or key in missing:
            continue
        if source.path in data:
            content = data[source.path]
        else:  # recognised unread: read here for its words alone (not in the result)
            try:
                content = source.read()
            except OSError:
                return None
        missing[key] = words(content)
    memory.cache.note_derived(missing)
    return {path: known[key] if key in known else missing[key] for path, key in keys.items()}


def _known_composers(
    modules: Sequence[CodeFacts], keys: Mapping[str, str], shared: _Shared
) -> dict[str, tuple[CodeFacts, bool]]:
    """`_composers` of the modules, from the cache where a module's facts are its file's
    parse as kept (no name in it resolved from another file): looked for again only in
    the others, and kept for the next run."""
    composes = shared.cache.composes
    found: dict[str, tuple[CodeFacts, bool]] = {}
    noted: dict[str, bool] = {}
    for facts in modules:
        key = keys.get(facts.path)
        own = key is not None and shared.loaded.get(key) is facts
        known = composes.get(key) if own and key is not None else None
        if known is None:
            known = _holds_pieces(facts, 0)
            if own and key is not None:
                noted[key] = known
        found[facts.path] = (facts, known)
    shared.cache.note_derived({}, noted)
    return found


class _Shared(ParseMemo):
    """The cache's parses, each unpickled once for both models (before and after an edit),
    but those a run's `settle` step changes in place (they are made afresh for each)."""

    def __init__(self, cache: Cache) -> None:
        super().__init__()
        self.cache = cache
        self.loaded: dict[str, Any] = {}

    def parsed_by_key(self, key: str, path: str) -> Any:
        found = self.loaded.get(key)
        if found is None:
            found = self.cache.parsed_by_key(key, path)
            settled = isinstance(found, CodeFacts) and LANGUAGES[found.language].settle
            if found is not None and not settled:
                self.loaded[key] = found
        return found

    def store_by_key(self, key: str, path: str, parsed: Any, blob: bytes | None = None) -> None:
        self.cache.store_by_key(key, path, parsed, blob)

    keeps_facts = True  # the cache's, for both models

    def build_facts(self, key: str) -> Any:
        return self.cache.build_facts(key)

    def keep_build_facts(self, key: str, blob: bytes) -> None:
        self.cache.keep_build_facts(key, blob)

    def keep_unread(self, key: str, path: str) -> bool:
        return self.cache.keep_unread(key, path)


class _Unread(SourceBytes):
    """The bytes of the last run's files that are as they were: a file whose parse as it
    was is gone is not read again (its bytes now are not those), but an error."""

    def fetch(self, source: Source) -> bool:
        self.errors.append(source.path)
        return False


def _comparable(before: Judgement, sources: Sequence[Source], settings: Settings) -> bool:
    """Whether the last judgement was of the same plan and settings, on the same day (an
    exemption that ends changes every file it covers)."""
    if before.today != (settings.today or datetime.date.today()):
        return False  # a judgement made on another day
    return before.settings == settings and [
        (s.path, s.language, s.report, s.unread) for s in before.sources
    ] == [(s.path, s.language, s.report, s.unread) for s in sources]


def _changed(before: Mapping[str, bytes], now: Mapping[str, bytes]) -> set[str]:
    """The files whose bytes differ (read, or no longer read)."""
    return {
        path for path in before.keys() | now.keys() if not _same(before.get(path), now.get(path))
    }


def _same(one: bytes | None, other: bytes | None) -> bool:
    return one is other or one == other


def _words(data: dict[str, bytes], before: Judgement | None) -> dict[str, frozenset[str]]:
    """Each file's words, made again only for the files whose bytes changed."""
    known = before.words if before is not None else {}
    old = before.data if before is not None else {}
    return {
        path: known[path] if path in known and _same(old.get(path), content) else words(content)
        for path, content in data.items()
    }


def _affected(
    before: Judgement,
    read: Sources,
    context: Context,
    changed: set[str],
    said: Mapping[str, frozenset[str]],
    composers: Mapping[str, tuple[CodeFacts, bool]],
) -> set[str] | None:
    """The files whose findings the edit may change; None when the edit reaches further
    than the model can place (see the module's doc): a whole judgement."""
    if read.builds != before.read.builds or _units_changed(before.context, context):
        return None
    if any(_patching(path, before.context) or _patching(path, context) for path in changed):
        return None  # a patch merges into another file's object: see model/patched.py
    if before.context.unnamed_said != context.unnamed_said:
        return None  # a kustomization's resources name a file of unnamed objects, or no more
    if before.context.patterns != context.patterns:
        return None  # a test runner's file names other files as patterns, or no more
    if before.context.ci_clusters != context.ci_clusters:
        return None  # a CI configuration applies files to a cluster it makes, or no more
    seeds = set(changed)
    seeds |= _facts_changed(before.context.modules, context.modules)
    seeds |= _links_changed(before.context, context)
    affected = set(seeds)
    models = ((before.context, before.words, before.composers), (context, said, composers))
    for model, words_of, pieces in models:
        near = _near(model, seeds, words_of, pieces)
        if near is None:
            return None
        affected |= near
    folders = {_folder(path) for path in seeds}
    affected |= {path for path in said if _folder(path) in folders}
    # a finding that quotes a changed file's line (the env entry that set an address)
    affected |= {f.path for f in before.result.findings if any(r.path in seeds for r in f.related)}
    return affected


def _patching(path: str, context: Context) -> bool:
    """Whether the file is a kustomize patch or, with patches read, a kustomization."""
    if not context.patch_files:
        return False
    normal = os.path.normpath(path)
    return normal in context.patch_files or os.path.basename(normal) in KUSTOMIZATION_FILES


def _same_code(before: Judgement, read: Sources) -> bool:
    """Whether the edit left every build file's facts as they were, and of every module
    what links read (CodeFacts.link_inputs): then a container's link depends on its
    workload alone."""
    if read.builds != before.read.builds or len(read.modules) != len(before.read.modules):
        return False
    pairs = zip(read.modules, before.read.modules, strict=True)
    return all(one is other or one.link_inputs() == other.link_inputs() for one, other in pairs)


def _units_changed(before: Context, now: Context) -> bool:
    """Whether a file's deployment unit changed (a file with no objects is in none)."""
    old, new = before.index.units, now.index.units
    return any(old.get(path, PLAIN) != new.get(path, PLAIN) for path in old.keys() | new.keys())


def _facts_changed(before: Sequence[CodeFacts], now: Sequence[CodeFacts]) -> set[str]:
    """The modules whose facts differ: changed by another file (a name it imports, the
    project it is in, the settings of its framework)."""
    old = {facts.path: facts for facts in before}
    new = {facts.path: facts for facts in now}
    return {
        path
        for path in old.keys() | new.keys()
        if (one := old.get(path)) is not (other := new.get(path)) and one != other
    }


def _links_changed(before: Context, now: Context) -> set[str]:
    """The files of the containers whose code changed, and of that code, before and after.
    The workloads whose links both models take from the same kept links, not made yet,
    have the same links: they are left unmade, but where one of their keys is another
    link's too (two workloads of one name), which the comparison by key would mix."""
    alike = before.links.kept_alike(now.links)
    old = {link.key: link for link in before.links.links_but(alike)}
    new = {link.key: link for link in now.links.links_but(alike)}
    keys = {container_key(w, name) for w, names in alike.values() for name in names}
    if not keys.isdisjoint(old.keys() | new.keys()):
        old = {link.key: link for link in before.links.links}
        new = {link.key: link for link in now.links.links}
    touched: set[str] = set()
    for key in old.keys() | new.keys():
        one, other = old.get(key), new.get(key)
        if one == other:
            continue
        for link in (one, other):
            if link is not None:
                touched.add(link.workload.path)
                touched.update(link.modules)
    return touched


def _near(
    context: Context,
    seeds: set[str],
    words_of: Mapping[str, frozenset[str]],
    composers: Mapping[str, tuple[CodeFacts, bool]],
) -> set[str] | None:
    """The files one model relates to the seed files (the module's doc, in order)."""
    index, links = context.index, context.links
    objects = [obj for obj in index.objects if obj.path in seeds]
    if any((obj.group, obj.kind) not in FOLLOWED for obj in objects):
        return None
    modules = [facts for facts in context.modules if facts.path in seeds]
    if any(composers.get(facts.path, (facts, False))[1] for facts in modules):
        return None  # it makes an address of pieces: which Service it names, no word says
    is_workload = {id(w) for w in index.workload_objects}
    workloads = {id(o): o for o in objects if id(o) in is_workload}
    for facts in modules:
        for link in links.running(facts.path):
            workloads[id(link.workload)] = link.workload
    services = {id(o): o for o in objects if o.is_a("", "Service")}
    for service in list(services.values()):
        for workload, _ in index.selected(service):
            workloads[id(workload)] = workload
        services.update((id(t), t) for t in _twins(context, service))
    for workload in list(workloads.values()):
        services.update((id(s), s) for s in index.selecting(workload))
    related = [*objects, *workloads.values(), *services.values()]
    near = {obj.path for obj in related}
    names = {word for obj in related if obj.name for word in name_words(obj.name)}
    # what the seeds name: their own words, and for a changed module the words of the
    # manifests that give its addresses (its containers' env and args; with no container,
    # every workload that sets a variable it names: addresses.destinations)
    naming = set(seeds)
    for facts in modules:
        runners = links.running(facts.path)
        naming |= {link.workload.path for link in runners}
        if not runners:
            naming |= _setting(index, words_of.get(facts.path, frozenset()))
    named = set().union(*(words_of.get(path, frozenset()) for path in naming))
    near |= {path for path, found in words_of.items() if found & names}
    # the objects the seeds name, and for a Service the pods it sends to: who dials a
    # Service is evidence about them (serving.called_through)
    for obj in index.objects:
        if obj.name and name_words(obj.name) <= named:
            near.add(obj.path)
            if obj.is_a("", "Service"):
                near |= {workload.path for workload, _ in index.selected(obj)}
                near |= {twin.path for twin in _twins(context, obj)}
    # the code run by the workloads of every file reached, and the code no container runs
    # that reads a variable they set (every variable of a seed's workloads, the others'
    # whose values name one of the objects): addresses.destinations looks it up by name
    variables: set[str] = set()
    for workload in index.workload_objects:
        if workload.path not in near:
            continue
        near |= _code_of(context, workload)
        for container in index.template(workload).containers:
            for setting in literal_env(workload, container):
                if workload.path in seeds or name_words(setting.value) & names:
                    variables.add(str(setting.entry.get("name")).lower())
    if any(obj.is_a("", "Service") for obj in objects):
        # an address made of pieces (`"api-" + os.environ["NAME"]`) names a Service no
        # file writes whole: the code that makes one is judged again with every Service
        near |= {path for path, (_, pieces) in composers.items() if pieces}
    if variables:
        near |= {
            facts.path
            for facts in context.modules
            if words_of.get(facts.path, frozenset()) & variables and not links.runs(facts.path)
        }
    projects = {facts.project for facts in modules}
    near |= {facts.path for facts in context.modules if facts.project in projects}
    for facts in modules:
        near |= {f.path for program in links.programs(facts.path) for f in program}
    return near


def _composers(
    modules: Sequence[CodeFacts], before: Judgement | None
) -> dict[str, tuple[CodeFacts, bool]]:
    """Whether each module makes an address of pieces: an environment value joined to
    text before or after it (`EnvRef`'s prefix or suffix), or to another (`EnvText`).
    Looked for again only in the facts that are not the last judgement's."""
    known = before.composers if before is not None else {}
    found: dict[str, tuple[CodeFacts, bool]] = {}
    for facts in modules:
        last = known.get(facts.path)
        found[facts.path] = (
            last if last is not None and last[0] is facts else (facts, _holds_pieces(facts, 0))
        )
    return found


def _holds_pieces(value: object, depth: int) -> bool:
    """Whether a value (of a module's facts) holds an env value joined to text that may
    run on with a name (`"api-" + ...`, not `... + ".shop:50051"`), or to another value."""
    if isinstance(value, EnvText):
        return any(_joined(one, other) for one, other in itertools.pairwise(value.parts))
    if isinstance(value, EnvRef):
        return joinable(value.prefix[-1:]) or joinable(value.suffix[:1])
    if depth > 12 or isinstance(value, str | bytes | int | float | bool | type(None)):
        return False
    if isinstance(value, Mapping):
        return any(_holds_pieces(v, depth + 1) for v in value.values())
    if isinstance(value, tuple | list | set | frozenset):
        return any(_holds_pieces(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value):
        return any(
            _holds_pieces(getattr(value, f.name, None), depth + 1)
            for f in dataclasses.fields(value)
        )
    return False


def _joined(one: str | EnvRef, other: str | EnvRef) -> bool:
    """Whether two parts of an `EnvText` may run on into one name."""
    if isinstance(one, str):
        return isinstance(other, EnvRef) and joinable(one[-1:])
    return isinstance(other, EnvRef) or joinable(other[:1])


def _setting(index: Index, words: frozenset[str]) -> set[str]:
    """The files of the workloads that set an env variable among `words`."""
    return {
        workload.path
        for workload in index.workload_objects
        for container in index.template(workload).containers
        for setting in literal_env(workload, container)
        if str(setting.entry.get("name")).lower() in words
    }


def _twins(context: Context, service: K8sObject) -> Iterable[K8sObject]:
    """The Services of the same namespace and selector (a headless twin)."""
    selector = selector_of(service)
    return [
        other
        for other in context.index.services
        if other.namespace == service.namespace and selector_of(other) == selector
    ]


def _code_of(context: Context, workload: K8sObject) -> set[str]:
    template = context.index.template(workload)
    return {
        path
        for container in template.containers
        if (link := context.links.of(workload, container.name)) is not None
        for path in link.modules
    }


def _folder(path: str) -> str:
    return path.rpartition(os.sep)[0]
