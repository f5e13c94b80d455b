"""Each finding's fix as replacements in the file as it is now, for reports that carry fixes
(SARIF) without writing anything.

Every suggestion is checked as `k8slb fix` checks what it writes (the text read back must be
the old one with exactly the fix made). A YAML file is read once for all its findings, and
their fixes are checked together, so a stream with a thousand findings costs two parses,
not two thousand; only when that joint check fails is each fix checked alone.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, MutableMapping, Sequence

from k8slb.core.edits import ChartEdit, Refused, YamlEdit
from k8slb.core.findings import Finding
from k8slb.core.parallel import Work, fork_map
from k8slb.core.record import record
from k8slb.editing.chart_fix import apply_chart_edits
from k8slb.editing.verify import yaml_fix_problem
from k8slb.editing.yaml_edit import TextEdit, YamlFile, apply, text_edits
from k8slb.fixing.fixer import apply_edits
from k8slb.reading.encodings import codec_for, file_bytes


@record
class Replacement:
    """Characters `start:end` of the decoded file `path` become `text`."""

    path: str
    start: int
    end: int
    text: str


def suggestions(
    findings: Sequence[Finding], contents: MutableMapping[str, bytes], jobs: int = 1
) -> dict[int, list[Replacement]]:
    """The replacements of each finding (by its index) whose fix can be made; a file read
    here (a run answered from the cache reads none) is kept in `contents`. The files are
    read first, here, so that `jobs` processes can make the fixes (forked: they share them)."""
    wanted = [i for i, f in enumerate(findings) if f.fix.available and f.edits]
    by_file: dict[str, list[int]] = defaultdict(list)
    alone: list[int] = []
    for i in wanted:
        paths = {edit.path for edit in findings[i].edits}
        yaml_only = all(isinstance(edit, YamlEdit) for edit in findings[i].edits)
        if len(paths) == 1 and yaml_only:
            by_file[paths.pop()].append(i)
        else:
            alone.append(i)
    for path in dict.fromkeys(e.path for i in wanted for e in findings[i].edits):
        _read(path, contents)
    made: dict[int, list[Replacement]] = {}
    files = [(path, indexes) for path, indexes in by_file.items() if path in contents]
    planned = [(path, contents[path], [findings[i] for i in indexes]) for path, indexes in files]
    joint = fork_map(_JOINT, planned, jobs, min_items=PARALLEL_MIN_SUGGESTIONS)
    for (_, indexes), (accepted, rest) in zip(files, joint, strict=True):
        made.update({indexes[k]: pieces for k, pieces in accepted.items()})
        alone += [indexes[k] for k in rest]
    singles = [(findings[i], contents) for i in alone]
    for i, pieces in zip(
        alone, fork_map(_ALONE, singles, jobs, min_items=PARALLEL_MIN_SUGGESTIONS), strict=True
    ):
        if pieces:
            made[i] = pieces
            for edit in findings[i].edits:  # SARIF counts a template's lines in its text
                if isinstance(edit, ChartEdit):
                    contents.setdefault(os.path.join(edit.path, edit.member), edit.old.encode())
    return made


# Fewer items than a parse pays processes for: a fix checked alone costs several parses.
PARALLEL_MIN_SUGGESTIONS = 50


def _read(path: str, contents: MutableMapping[str, bytes]) -> bytes | None:
    try:
        return file_bytes(path, contents)
    except OSError:
        return None


Joint = tuple[dict[int, list[Replacement]], list[int]]  # accepted by index, left to try alone


def _together(path: str, data: bytes, findings: Sequence[Finding]) -> Joint:
    """The fixes of one file's findings, planned on one reading of it and checked together;
    returns those accepted and the indexes left to check one by one."""
    everyone = list(range(len(findings)))
    codec = codec_for(path, data)
    if codec is None:
        return {}, []  # no fix can be made in a file of an unknown encoding
    try:
        text = codec.decode(data)
        file = YamlFile(text)
    except (UnicodeDecodeError, Refused):
        return {}, everyone
    planned: dict[int, list[TextEdit]] = {}
    for k, finding in enumerate(findings):
        try:
            planned[k] = [p for e in finding.edits for p in text_edits(file, e)]  # type: ignore[arg-type]
        except Refused:
            continue  # refused alone too: no suggestion
    fixed, skipped = apply(text, [p for pieces in planned.values() for p in pieces])
    clashing = {k for k, pieces in planned.items() if any(p in skipped for p in pieces)}
    together = {k: pieces for k, pieces in planned.items() if k not in clashing}
    if clashing:
        fixed, _ = apply(text, [p for pieces in together.values() for p in pieces])
    edits = [e for k in together for e in findings[k].edits if isinstance(e, YamlEdit)]
    try:
        codec.encode(fixed)
    except UnicodeEncodeError:
        return {}, everyone
    if yaml_fix_problem(text, fixed, edits) is not None:
        return {}, sorted(together) + sorted(clashing)
    accepted = {
        k: [Replacement(path, p.start, p.end, p.text) for p in pieces]
        for k, pieces in together.items()
    }
    return accepted, sorted(clashing)


def changed_span(path: str, before: str, after: str) -> Replacement:
    """The one stretch where `after` differs from `before`."""
    most = min(len(before), len(after))
    prefix = _longest(most, lambda n: before[:n] == after[:n])
    suffix = _longest(most - prefix, lambda n: before[len(before) - n :] == after[len(after) - n :])
    return Replacement(path, prefix, len(before) - suffix, after[prefix : len(after) - suffix])


def _longest(most: int, same: Callable[[int], bool]) -> int:
    """The largest n <= most for which `same(n)` holds, `same` holding up to a point and
    not after it: by halving, each try a comparison of slices (a loop character by
    character cost a quarter of a second on a large tree's fixes)."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _in_chart(finding: Finding, contents: MutableMapping[str, bytes]) -> list[Replacement]:
    """A template fix, checked by rendering as `k8slb fix` checks it, as a replacement in
    the template file."""
    (edit,) = finding.edits
    assert isinstance(edit, ChartEdit)
    data = _read(edit.path, contents)
    if data is None:
        return []
    _, refusals = apply_chart_edits(data, [edit])
    if refusals:
        return []
    return [changed_span(os.path.join(edit.path, edit.member), edit.old, edit.new)]


def _alone(finding: Finding, contents: MutableMapping[str, bytes]) -> list[Replacement]:
    """One finding's fix, made on the whole of each file it touches and checked there; the
    replacement is the span where the old and new text differ."""
    if any(isinstance(edit, ChartEdit) for edit in finding.edits):
        return _in_chart(finding, contents)
    pieces = []
    for path in dict.fromkeys(edit.path for edit in finding.edits):
        old = _read(path, contents)
        if old is None:
            return []
        new, refusals = apply_edits(old, [e for e in finding.edits if e.path == path])
        if refusals or new == old:
            return []
        codec = codec_for(path, old)
        assert codec is not None  # apply_edits refused the file otherwise
        pieces.append(changed_span(path, codec.decode(old), codec.decode(new)))
    return pieces


# Here or in a child process: a child that dies costs its file's (or finding's) suggestions.
_JOINT: Work[tuple[str, bytes, Sequence[Finding]], Joint] = Work.same(
    lambda task: _together(*task), lambda task, error: ({}, [])
)
_ALONE: Work[tuple[Finding, MutableMapping[str, bytes]], list[Replacement]] = Work.same(
    lambda task: _alone(*task), lambda task, error: []
)
