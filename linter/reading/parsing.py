"""Parse every file once: serially, or in a pool of processes when there are enough files
to pay for it. The cross-file index and the rules run in the parent, on the results."""

from __future__ import annotations

import gc
import os
import pickle
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k8slb.code.facts import CodeFacts, worth_parsing
from k8slb.internal import internal_error
from k8slb.progress import QUIET, Progress
from k8slb.reading.manifests import ManifestFile, load_manifests

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

# Below this many files, starting processes costs more than it saves (measured with
# `make bench`: a worker takes some 60 ms to start and return its first results).
PARALLEL_MIN_FILES = 200


@dataclass(frozen=True)
class Unparsed:
    """A file whose parse failed inside k8slb: a bug, reported as an internal error."""

    path: str
    error: str


Parsed = ManifestFile | CodeFacts | Unparsed
Item = tuple[str, str, bytes]  # (path, language, bytes)


def parse_one(path: str, language: str, data: bytes) -> Parsed:
    try:
        if language == "yaml":
            return load_manifests(path, data)
        if language == "go":
            from k8slb.code.go import analyse_go

            return analyse_go(path, data)
        from k8slb.code.projects import module_imports
        from k8slb.code.python import analyse, analyse_exports

        # most files: no syntax tree, only the one-line values other modules may import
        facts = analyse(path, data) if worth_parsing(data) else analyse_exports(path, data)
        facts.imports = module_imports(data)
        return facts
    except Exception as error:  # a bug of k8slb's: the other files are still linted
        return Unparsed(path, internal_error(f"reading {path}", error))


def pickled(parsed: Parsed) -> bytes:
    """A parse as the cache keeps it (and as a worker sends it back when there is one)."""
    return pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)


# The items of the current parallel parse. Forked workers inherit them, so only indexes
# travel to them (the bytes would have to be pickled through a pipe otherwise).
_ITEMS: Sequence[Item] = ()


def _parse_chunk(chunk: tuple[int, int, bool]) -> list[Parsed] | list[bytes]:
    """A worker's share. For the cache, each parse pickled on its own: the parent keeps
    these bytes as they are, so a cold cache costs no second pickling. Otherwise the parses
    themselves, which travel back as one pickle (faster: one memo, one framing)."""
    gc.disable()  # a worker lives for one run; its objects are not cyclic
    start, step, keep_pickles = chunk
    parsed = [parse_one(*item) for item in _ITEMS[start::step]]
    return [pickled(p) for p in parsed] if keep_pickles else parsed


def _alone(item: Item, context: BaseContext) -> Parsed:
    """One file parsed in a process of its own, after a worker died on its batch: the
    other files of the batch are still linted, and only the culprit is an error."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(1, mp_context=context) as single:
            return single.submit(parse_one, *item).result()
    except BrokenProcessPool as error:
        return Unparsed(item[0], internal_error(f"reading {item[0]} (the process died)", error))


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


Done = tuple[Parsed, bytes | None]  # a parse, and its pickle when one was made


def _own(item: Item, progress: Progress) -> Done:
    """A parse made in this process: the cache pickles it when it writes (maybe from a
    process of its own, after the report)."""
    parsed = parse_one(*item)
    progress.advance()
    return parsed, None


def parse_all(
    items: Sequence[Item], jobs: int, progress: Progress = QUIET, *, keep_pickles: bool = False
) -> list[Done]:
    """The parse of each item, in order (each counted on `progress` as it is done), with
    its own pickle when `keep_pickles` asks for one (for the cache) and a worker made it."""
    # fork() copies only the calling thread: with other threads alive (an embedding
    # program, a test runner with gRPC channels) a lock they hold could never be released
    # in the child. The CLI has one thread; anything else parses serially.
    serial = jobs <= 1 or len(items) < PARALLEL_MIN_FILES or threading.active_count() > 1
    if not serial:  # imported only here: a one-file run should not pay for them
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
    if serial or "fork" not in multiprocessing.get_all_start_methods():  # Windows: no fork
        return [_own(item, progress) for item in items]

    global _ITEMS
    _ITEMS = items
    # Interleaved chunks balance big and small folders; a few per process keeps all busy.
    # The parent is one of the `jobs`: it parses its share while the others work, and its
    # share needs no pickling back.
    count = min(len(items), jobs * 4)
    own = list(range(0, count, jobs))
    others = [start for start in range(count) if start % jobs]
    done: dict[int, list[Done]] = {}
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs - 1, mp_context=context) as pool:
            pending = {
                start: pool.submit(_parse_chunk, (start, count, keep_pickles)) for start in others
            }
            counted: set[int] = set()

            def count_finished() -> None:  # the workers' chunks, as they come in
                for start, future in pending.items():
                    if start not in counted and future.done():
                        counted.add(start)
                        progress.advance(len(items[start::count]))

            for start in own:
                done[start] = []
                for item in items[start::count]:
                    done[start].append(_own(item, progress))
                    if progress.enabled:
                        count_finished()
            for start, future in pending.items():
                try:
                    done[start] = [
                        (pickle.loads(p), p) if isinstance(p, bytes) else (p, None)  # our own
                        for p in future.result()
                    ]
                except BrokenProcessPool:  # a worker died: find the file that killed it
                    alone = [_alone(item, context) for item in items[start::count]]
                    done[start] = [(p, None) for p in alone]
                if start not in counted:
                    counted.add(start)
                    progress.advance(len(done[start]))
    finally:
        _ITEMS = ()
    results: list[Done | None] = [None] * len(items)
    for start, chunk in done.items():
        results[start::count] = chunk
    return [r for r in results if r is not None]
