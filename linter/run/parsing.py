"""Parse every file once: serially, or in a pool of processes when there are enough files
to pay for it. The cross-file index and the rules run in the parent, on the results."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence

from k8slb.code.facts import CodeFacts
from k8slb.code.test_containers import started_images
from k8slb.core.internal import internal_error
from k8slb.core.parallel import Work, fork_map
from k8slb.core.progress import QUIET, Progress
from k8slb.core.record import record
from k8slb.inputs import READERS
from k8slb.languages import LANGUAGES, load
from k8slb.reading.build_files import BuildFile
from k8slb.reading.manifests import ManifestFile
from k8slb.run import parse_codec

# Below this many files, starting processes costs more than it saves (measured with
# `make bench`: a worker takes some 60 ms to start and return its first results).
PARALLEL_MIN_FILES = 200

# What parsing a KB of each language costs in one process, in ms (each kind's files of the
# 8,000-file bench tree parsed in process, on a 2-core VM: docs/speed.md; Java's and
# JavaScript's since their readers stopped walking what they do not read); a reader's
# kind says its own (`Reader.parse_ms_per_kb`). A language not listed is costed as Python.
PARSE_MS_PER_KB = {
    "python": 0.26,
    "go": 1.45,
    "java": 0.53,
    "javascript": 0.76,
}


def parse_ms_per_kb(kind: str) -> float:
    """What parsing a KB of a source of this kind costs in one process, in ms."""
    reader = READERS.get(kind)
    if reader is not None:
        return reader.parse_ms_per_kb
    return PARSE_MS_PER_KB.get(kind, PARSE_MS_PER_KB["python"])


# What a pool costs beyond the parse it takes over: the children's start, the parses sent
# back, the parent's waits. Fitted on trees of one kind each and on the mixed bench tree
# (`-j 2` against `-j 1`, interleaved, docs/speed.md): a pool lost up to an expected saving
# of 0.43 s (YAML-only, Python-only, Java-only, JavaScript-only and Go-only trees, and the
# 2,000-file bench tree) and gained from 0.58 s.
FORK_MIN_MS = 450.0


def _parse_ms(item: Item) -> float:
    _, language, data = item
    return len(data) / 1024 * parse_ms_per_kb(language)


def pool_saving_ms(items: Sequence[Item], jobs: int) -> float:
    """The parse time, in ms, that `jobs` processes are expected to save over one: the
    children take the files the parent does not keep for itself (_cheaper_here: YAML),
    up to an even share of all the parse work."""
    here = sum(_parse_ms(item) for item in items if _cheaper_here(item))
    there = sum(_parse_ms(item) for item in items if not _cheaper_here(item))
    return min(there, (here + there) * (jobs - 1) / jobs)


def fork_pays(items: Sequence[Item], jobs: int) -> bool:
    """Whether parsing `items` in a pool of `jobs` processes is expected to beat one
    process: by the parse work it would take over (bytes of each kind at that kind's
    cost), as the file count alone does not tell (a tree of YAML, which the parent reads
    anyway, or of small Python files, loses by forking however many files it has)."""
    if jobs <= 1 or len(items) < PARALLEL_MIN_FILES:
        return False
    return pool_saving_ms(items, jobs) >= FORK_MIN_MS


@record
class Unparsed:
    """A file whose parse failed inside k8slb: a bug, reported as an internal error."""

    path: str
    error: str


Parsed = ManifestFile | CodeFacts | BuildFile | Unparsed
Item = tuple[str, str, bytes]  # (path, language, bytes)


def parse_one(path: str, language: str, data: bytes) -> Parsed:
    try:
        reader = READERS.get(language)
        if reader is not None:
            return reader.parse(path, data)
        front_end: Callable[[str, bytes], CodeFacts] = load(LANGUAGES[language].parse)
        facts = front_end(path, data)
        if facts.is_test:  # what a test starts, in any language (test_containers.py)
            facts.started_images = started_images(data)
        return facts
    except Exception as error:  # a bug of k8slb's: the other files are still linted
        return Unparsed(path, internal_error(f"reading {path}", error))


def pickled(parsed: Parsed) -> bytes:
    """A parse as the cache keeps it (and as a worker sends it back when there is one)."""
    return parse_codec.dumps(parsed)


Done = tuple[Parsed, bytes | None]  # a parse, and its pickle when one was made


def _died(item: Item, error: BaseException) -> Done:
    path = item[0]
    return Unparsed(path, internal_error(f"reading {path} (the process died)", error)), None


def _read_whole(parsed: Parsed) -> Parsed:
    """A parse a child sent, with its objects' bodies (and a module's code) loaded now: a
    pickled one keeps them pickled until read, and this runs while the other processes
    still parse; the whole tree's rules read them all anyway."""
    if isinstance(parsed, ManifestFile):
        for obj in parsed.objects:
            obj.load()
    elif isinstance(parsed, CodeFacts):
        parsed.load()
    return parsed


# A parse made in this process is kept as it is: the cache pickles it when it writes
# (maybe from a process of its own, after the report). A child's comes back pickled.
# (Looked up when called: a test may stand in for parse_one.)
_PARSES: Work[Item, Done] = Work(
    here=lambda item: (parse_one(*item), None),
    there=lambda item: parse_one(*item),
    back=lambda parsed: (_read_whole(parsed), None),
    died=_died,
)
# For the cache, each parse pickled on its own in the child: the parent keeps these
# bytes as they are, so a cold cache costs no second pickling.
_PICKLED_PARSES: Work[Item, Done] = Work(
    here=_PARSES.here,
    there=lambda item: pickled(parse_one(*item)),
    back=lambda blob: (_read_whole(pickle.loads(blob)), blob),
    died=_died,
)


def parse_all(
    items: Sequence[Item], jobs: int, progress: Progress = QUIET, *, keep_pickles: bool = False
) -> list[Done]:
    """The parse of each item, in order (each counted on `progress` as it is done), with
    its own pickle when `keep_pickles` asks for one (for the cache) and a worker made it."""
    work = _PICKLED_PARSES if keep_pickles else _PARSES
    if not fork_pays(items, jobs):
        jobs = 1
    return fork_map(
        work, items, jobs, progress, min_items=PARALLEL_MIN_FILES, stays_here=_cheaper_here
    )


def _cheaper_here(item: Item) -> bool:
    """A file its reader parses more cheaply in the parent than a child parses and sends
    back (YAML: `Reader.parsed_here`)."""
    reader = READERS.get(item[1])
    return reader is not None and reader.parsed_here
