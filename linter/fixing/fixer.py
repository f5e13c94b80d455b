"""`k8slb fix`: check, apply the chosen fixes in memory, check again, repeat until nothing
changes (one fix can make another possible: a preStop pause, then a longer grace period),
and only then write, or show the diff.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from k8slb.core.edits import ChartEdit, CodeEdit, Edit, LineEdit, Refusal, Refused, YamlEdit
from k8slb.core.findings import Finding
from k8slb.core.internal import internal_error
from k8slb.core.parallel import Work, fork_map
from k8slb.core.results import RunResult
from k8slb.editing.chart_fix import apply_chart_edits
from k8slb.editing.line_edit import edit_lines
from k8slb.editing.yaml_edit import apply_yaml_edits
from k8slb.inputs import MANIFESTS
from k8slb.languages import language_of, load
from k8slb.reading.encodings import codec_for
from k8slb.reading.sources import Source
from k8slb.reading.yamlcompose import keeping_composes
from k8slb.run.cache import Cache, ParseMemo
from k8slb.run.engine import run
from k8slb.run.parsing import Parsed, Unparsed, parse_one
from k8slb.run.settings import Settings

MAX_PASSES = 8


@dataclass
class FixOutcome:
    original: dict[str, bytes] = field(default_factory=dict)
    fixed_text: dict[str, bytes] = field(default_factory=dict)  # only the files that change
    fixed: list[Finding] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "path: why"
    result: RunResult = field(default_factory=RunResult)  # the check of the fixed text
    unsafe_left: int = 0  # fixes left out because they are unsafe
    # Fixes made whose finding is still there (a twin Service added while a client still
    # dials the old one): written, and said, but not counted as fixed.
    partial: list[Finding] = field(default_factory=list)
    # Findings gone where another, new, now stands at the same place (a Service made
    # headless: the passthrough channel that was KLB102 is KLB103): moved, not fixed.
    replaced: list[tuple[Finding, Finding]] = field(default_factory=list)
    first: RunResult | None = None  # the check of the text as it was read


def unsafe_fixes_left(findings: Sequence[Finding], *, unsafe: bool) -> int:
    """Fixes left out because they need --unsafe-fixes."""
    return 0 if unsafe else sum(1 for f in findings if f.edits and not f.fix.safe)


def _identity(finding: Finding) -> tuple[object, ...]:
    """What a finding is about, whatever line it has moved to and however its message
    changed (a fix elsewhere can change the advice). A finding whose severity drops (a
    gRPC Service that now has its headless twin) counts as fixed."""
    ref = finding.object  # by name, not document index: a new document shifts the others
    where = (ref.kind, ref.namespace, ref.name, ref.item) if ref else None
    return (finding.rule, finding.path, where, finding.container, finding.severity)


def _gone(before: Sequence[Finding], after: Sequence[Finding]) -> list[Finding]:
    """The findings of `before` that `after` no longer has (counted per identity)."""
    left = Counter(_identity(f) for f in after)
    gone: list[Finding] = []
    for finding in before:
        key = _identity(finding)
        if left[key] > 0:
            left[key] -= 1
        else:
            gone.append(finding)
    return gone


def still_said(fixed: Sequence[Finding], remaining: Sequence[Finding]) -> list[Finding]:
    """The remaining findings that are fixed ones at their lower severity (a gRPC Service
    with its headless twin now is KLB101 at info): counted fixed, and among what remains."""
    was = {_identity(f)[:-1]: f.severity for f in fixed}  # the identity but its severity
    return [f for f in remaining if f.severity < was.get(_identity(f)[:-1], f.severity)]


def apply_edits(data: bytes, edits: Sequence[Edit]) -> tuple[bytes, list[str]]:
    """The file with the edits made, and why any of them could not be."""
    chart_edits = [e for e in edits if isinstance(e, ChartEdit)]
    if chart_edits:  # a chart's files, packed: not text
        return apply_chart_edits(data, chart_edits)
    codec = codec_for(edits[0].path, data) if edits else None
    if codec is None:
        return data, ["the file declares an encoding Python does not know"]
    try:
        text = codec.decode(data)
    except UnicodeDecodeError:
        return data, [f"the file is not text in {codec.codec}"]
    refusals: list[str] = []
    yaml_edits = [e for e in edits if isinstance(e, YamlEdit)]
    code_edits = [e for e in edits if isinstance(e, CodeEdit)]
    if yaml_edits:
        text = apply_yaml_edits(text, yaml_edits, refusals)
    line_edits = [e for e in edits if isinstance(e, LineEdit)]
    if line_edits:
        text = edit_lines(text, line_edits, refusals)
    if code_edits:
        path = code_edits[0].path
        language = language_of(path)
        try:
            if language is None:
                raise Refused("an edit of code for a file in no language k8slb reads")
            text = load(language.editor).edit(text, code_edits, path)
        except Refused as refused:
            refusals += [Refusal(str(refused), edit) for edit in code_edits]
    try:
        return codec.encode(text), refusals
    except UnicodeEncodeError:
        return data, [f"the fixed text cannot be written in the file's encoding ({codec.codec})"]


EditTask = tuple[str, bytes, list[Edit], bool]  # a file, its bytes, its edits, whether YAML
# new bytes, refusals, the new YAML's parse, whether making the edits failed (a bug or a
# dead process: the file is edited no more in this run)
Edited = tuple[bytes, list[str], Parsed | None, bool]


def _edit_file(task: EditTask) -> Edited:
    """A file with its edits made (here or in a child process), and a YAML file's new
    parse, read while its text's compose is at hand (the check of the edit made one)."""
    path, data, edits, is_yaml = task
    try:
        new, refusals = apply_edits(data, edits)
    except Exception as error:  # a bug of k8slb's: this file is left as it is
        return data, [internal_error("fixing it", error)], None, True
    parsed = parse_one(path, MANIFESTS.name, new) if is_yaml and new != data else None
    return new, refusals, None if isinstance(parsed, Unparsed) else parsed, False


def _edit_died(task: EditTask, error: BaseException) -> Edited:
    return task[1], [internal_error("fixing it (the process died)", error)], None, True


_EDITS: Work[EditTask, Edited] = Work.same(_edit_file, _edit_died)
# Fewer files than a parse pays processes for: an edit costs several parses.
PARALLEL_MIN_EDITS = 50


def plan(
    sources: Sequence[Source],
    settings: Settings,
    *,
    unsafe: bool,
    jobs: int = 1,
    cache: Cache | None = None,
    contents: Mapping[str, bytes] | None = None,
    memo: ParseMemo | None = None,
    only: Set[str] | None = None,
) -> FixOutcome:
    """Every fix that applies, made in memory; nothing is written here. With a `cache`, a
    pass whose text a run has checked before takes its result from there (`check`, then
    `fix`), and the parses and the result of the fixed text are kept for the next run.
    `contents` overrides some files' bytes (an editor's unsaved text), `memo` keeps the
    parses (an editor's session), and with `only` just the findings of those files are
    fixed, and only in them."""
    with keeping_composes():  # each edited text is read back, then checked: composed once
        outcome = _plan(
            sources,
            settings,
            unsafe=unsafe,
            jobs=jobs,
            cache=cache,
            given=contents or {},
            memo=memo,
            only=only,
        )
    if cache is not None:
        cache.save()  # once, after every pass
    return outcome


def _replaced(
    fixed: Sequence[Finding], first: RunResult | None, last: RunResult
) -> list[tuple[Finding, Finding]]:
    """Each finding the fixes ended where a finding of another rule, which the first check
    did not have, now stands: the same object (a manifest) or the same line (code). The
    fix hid it under that rule; the problem is still there."""
    before = Counter(_identity(f) for f in (first.findings if first else []))
    new = []
    for finding in last.findings:
        if before[_identity(finding)] > 0:
            before[_identity(finding)] -= 1
        else:
            new.append(finding)

    def place(finding: Finding) -> tuple[object, ...]:
        ref = finding.object
        if ref is not None:
            return (finding.path, ref.kind, ref.namespace, ref.name, finding.container)
        return (finding.path, finding.line)

    standing = {place(f): f for f in new}
    return [  # the same rule there again: its severity dropped (a twin added), a real fix
        (f, standing[place(f)])
        for f in fixed
        if place(f) in standing and standing[place(f)].rule != f.rule
    ]


def _refused(path: str, reason: str, applied: Sequence[Finding]) -> tuple[str, str]:
    """The key of what was not made (the edit's repr, or the path: all its edits), and the
    refusal as the user reads it: the file, the rules whose fixes were refused, why."""
    edit = reason.edit if isinstance(reason, Refusal) else None
    if edit is None:
        rules = {f.rule for f in applied if any(e.path == path for e in f.edits)}
    else:
        rules = {f.rule for f in applied if repr(edit) in map(repr, f.edits)}
    named = f"{', '.join(sorted(rules))}: " if rules else ""
    return (repr(edit) if edit is not None else path), f"{path}: {named}{reason}"


def _plan(
    sources: Sequence[Source],
    settings: Settings,
    *,
    unsafe: bool,
    jobs: int,
    cache: Cache | None,
    given: Mapping[str, bytes],
    memo: ParseMemo | None,
    only: Set[str] | None,
) -> FixOutcome:
    passes = _Passes(
        sources, settings, unsafe=unsafe, jobs=jobs, cache=cache, given=given, memo=memo, only=only
    )
    outcome = passes.outcome
    first: RunResult | None = None
    changed_now: set[str] = set()
    result: RunResult | None = None
    previous: RunResult | None = None
    applied: list[Finding] = []  # the findings whose fixes the pass made
    for _ in range(MAX_PASSES):
        result = passes.check()
        if previous is not None:  # what the last pass's edits ended
            gone = _gone(previous.findings, result.findings)
            outcome.fixed += gone
            ended = {id(f) for f in gone}
            outcome.partial += [f for f in applied if id(f) not in ended]
        first, previous = first or result, result
        applied, chosen = passes.choose(result.findings)
        changed_now, applied = passes.make(chosen, applied)
        if not changed_now:
            break
    passes.settle(first, result, changed_now)
    return outcome


class _Passes:
    """A fix's state across its passes: each file's text now, which files a fix may edit,
    and those no pass touches again."""

    def __init__(
        self,
        sources: Sequence[Source],
        settings: Settings,
        *,
        unsafe: bool,
        jobs: int,
        cache: Cache | None,
        given: Mapping[str, bytes],
        memo: ParseMemo | None,
        only: Set[str] | None,
    ) -> None:
        self.sources, self.settings, self.unsafe = sources, settings, unsafe
        self.jobs, self.cache, self.only = jobs, cache, only
        # each pass parses again only the files the last one edited
        self.memo = cache if cache is not None else memo if memo is not None else ParseMemo()
        self.outcome = FixOutcome()
        self.contents = _contents(sources, given)
        self.outcome.original = dict(self.contents)
        self.writable = {s.path for s in sources if s.report}  # never edit `--context` files
        if only is not None:
            self.writable &= only
        self.yaml_files = {s.path for s in sources if s.language == MANIFESTS.name}
        self.refused_files: set[str] = set()
        # where making an edit failed: no later pass touches them, not even for another
        # file's fix (the next try would be in this process, and a crash there would end
        # the run)
        self.broken_files: set[str] = set()

    def check(self) -> RunResult:
        """The check of the text as it is now."""
        return run(
            self.sources,
            self.settings,
            self.contents,
            jobs=self.jobs,
            cache=self.cache,
            memo=self.memo,
            save=False,
        )

    def choose(self, findings: Sequence[Finding]) -> tuple[list[Finding], dict[str, list[Edit]]]:
        """The findings whose fixes this pass makes, and their edits by file (each once)."""
        applied: list[Finding] = []
        chosen: dict[str, list[Edit]] = defaultdict(list)
        seen: set[str] = set()  # edits hold dicts (unhashable): known by their repr
        for finding in findings:
            if not finding.edits or finding.path in self.refused_files:
                continue
            if self.only is not None and finding.path not in self.only:
                continue
            if any(e.path in self.broken_files for e in finding.edits):
                continue
            if (finding.fix.safe or self.unsafe) and all(
                e.path in self.writable for e in finding.edits
            ):
                applied.append(finding)
                for edit in finding.edits:
                    if repr(edit) not in seen:
                        seen.add(repr(edit))
                        chosen[edit.path].append(edit)
        return applied, chosen

    def make(
        self, chosen: Mapping[str, list[Edit]], applied: Sequence[Finding]
    ) -> tuple[set[str], list[Finding]]:
        """The chosen edits made (each file's in a process of its own when there are many):
        the files they changed, and the fixes of `applied` every edit of which was made."""
        contents = self.contents
        tasks = [
            (p, contents[p], edits, p in self.yaml_files)
            for p, edits in chosen.items()
            if p in contents
        ]
        # each language's editor (libcst for Python) imported once, before any fork
        for language in {language_of(e.path) for _, _, edits, _ in tasks for e in edits}:
            if language is not None:
                load(language.editor)
        edited = fork_map(_EDITS, tasks, self.jobs, min_items=PARALLEL_MIN_EDITS)
        changed: set[str] = set()
        not_made: set[str] = set()  # the edits refused (by repr), or a path: all of its edits
        for (path, data, _, _), (new, refusals, parsed, broke) in zip(tasks, edited, strict=True):
            for reason in refusals:
                key, said = _refused(path, reason, applied)
                not_made.add(key)
                self.outcome.refused.append(said)
            if refusals and new == data:
                self.refused_files.add(path)
            if broke:
                self.broken_files.add(path)
            if new != data:
                contents[path] = new
                changed.add(path)
                if parsed is not None:
                    self.memo.store(path, new, parsed)
        # a fix some edit of which was refused was not made: never "also made"
        made = [
            f
            for f in applied
            if not any(repr(e) in not_made or e.path in not_made for e in f.edits)
        ]
        return changed, made

    def settle(
        self, first: RunResult | None, last: RunResult | None, changed_now: set[str]
    ) -> None:
        """The outcome once the passes are over: files still changing put back, the fixed
        text's check, the fixes counted."""
        outcome, contents = self.outcome, self.contents
        # Still changing after every pass: a fix that its own rule does not recognise, which
        # would be made again on every run. Such a file is left exactly as it was.
        for path in changed_now:
            contents[path] = outcome.original[path]
            outcome.refused.append(
                f"{path}: not fixed: its fixes do not settle (made again after each pass)"
            )
        # The last pass changed nothing: its check is the check of the fixed text.
        outcome.result = last if last is not None and not changed_now else self.check()
        if changed_now:  # the files that did not settle were put back: count afresh
            outcome.fixed = _gone(first.findings if first else [], outcome.result.findings)
            outcome.partial = []
        outcome.first = first
        outcome.fixed_text = {p: d for p, d in contents.items() if d != outcome.original.get(p)}
        _account(outcome, unsafe=self.unsafe)


def _contents(sources: Sequence[Source], given: Mapping[str, bytes]) -> dict[str, bytes]:
    """Each source's bytes: those `given`, or as read (a file that cannot be read is left
    out: the check reports it)."""
    contents: dict[str, bytes] = {}
    for source in sources:
        if source.unread is not None:
            continue
        if source.path in given:
            contents[source.path] = given[source.path]
            continue
        try:
            contents[source.path] = source.read()
        except OSError:
            continue  # the check reports it
    return contents


def _account(outcome: FixOutcome, *, unsafe: bool) -> None:
    """Sort the fixes of `outcome.fixed` by what they came to in `outcome.result`: fixed,
    made but the finding remains, or moved under another rule."""
    fixed_keys = {_identity(f) for f in outcome.fixed}  # fixed in a later pass after all
    outcome.partial = [f for f in outcome.partial if _identity(f) not in fixed_keys]
    outcome.replaced = _replaced(outcome.fixed, outcome.first, outcome.result)
    moved = {id(old) for old, _ in outcome.replaced}
    outcome.fixed = [f for f in outcome.fixed if id(f) not in moved]
    outcome.unsafe_left = unsafe_fixes_left(outcome.result.findings, unsafe=unsafe)
    outcome.refused = list(dict.fromkeys(outcome.refused))


def as_written(
    outcome: FixOutcome,
    sources: Sequence[Source],
    settings: Settings,
    unwritten: Set[str],
    *,
    unsafe: bool,
    jobs: int = 1,
    cache: Cache | None = None,
) -> FixOutcome:
    """The outcome of a fix whose files in `unwritten` could not be written: the check of
    the files as they are on disk now (not of the text that was not written: its lines,
    its added twins), and only the fixes that reached the disk counted as made."""
    streamed = {  # stdin is on no disk: its fixed text is what was printed
        s.path: outcome.fixed_text.get(s.path, outcome.original[s.path])
        for s in sources
        if s.location is None and s.path in outcome.original
    }
    result = run(sources, settings, streamed, jobs=jobs, cache=cache)
    first = outcome.first
    after = FixOutcome(
        original=outcome.original,
        fixed_text={p: d for p, d in outcome.fixed_text.items() if p not in unwritten},
        fixed=_gone(first.findings if first else [], result.findings),
        refused=list(outcome.refused),
        result=result,
        partial=[f for f in outcome.partial if not any(e.path in unwritten for e in f.edits)],
        first=first,
    )
    _account(after, unsafe=unsafe)
    return after
