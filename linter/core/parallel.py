"""One function over many items, in forked processes when there are enough items to pay
for them: the parse of a large tree, the fixer's edits of its files. The parent works too
(its results need no pickling back); the children inherit the items, so only chunk numbers
travel to them; every process takes the next chunk as it is free, so none waits for
another at the end; items whose answer costs more to send back than to make are the
parent's first; a child that dies costs only the item that killed it, which is run again
in a process of its own to find it."""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from k8slb.core.progress import QUIET, Progress
from k8slb.core.record import record

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

Item = TypeVar("Item")
Result = TypeVar("Result")


@record
class Work(Generic[Item, Result]):
    """What to do with each item: `here` in the parent; `there` in a child, whose answer
    travels back pickled and becomes the result through `back`; `died` gives the result
    for an item whose process died, from the error's description."""

    here: Callable[[Item], Result]
    there: Callable[[Item], Any]
    back: Callable[[Any], Result]
    died: Callable[[Item, BaseException], Result]

    @staticmethod
    def same(
        function: Callable[[Item], Result], died: Callable[[Item, BaseException], Result]
    ) -> Work[Item, Result]:
        """One function here and in a child, its result travelling back as it is."""
        return Work(here=function, there=function, back=_itself, died=died)


def _itself(result: Any) -> Any:
    return result


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@record
class _Map:
    """The current map, which forked children inherit, so that only chunk numbers travel
    between processes (the items would have to be pickled through a pipe otherwise): the
    work, the items, each chunk's item indexes, and the read ends of two pipes of chunk
    numbers, those the parent takes first (`near`) and the others (`far`)."""

    work: Work[Any, Any]
    items: Sequence[Any]
    chunks: list[list[int]]
    near: int
    far: int


_CURRENT: _Map | None = None

# Chunks a process takes: enough that the last ones even out the processes' finishing
# times, few enough that each answer is a pickle worth sending. One byte names a chunk.
CHUNKS_PER_JOB = 16
MAX_CHUNKS = 255
# A child's answer is read from a pipe by a thread of the parent's pool, in pieces of
# 64 KiB, each after the thread gets the interpreter's lock; the child waits meanwhile.
# At Python's default of a switch every 5 ms a child spent a third of its time waiting
# (`make bench`'s parse on two cores: 0.84 s, 0.73 s with this).
SWITCH_INTERVAL = 0.0002


def _take(tokens: int) -> int | None:
    """The next chunk nobody has taken, or None when all are: each is one byte in a pipe
    written whole before any child started, and a read takes a byte from it atomically,
    whichever process reads."""
    token = os.read(tokens, 1)
    return token[0] if token else None


def _take_first(first: int, then: int) -> int | None:
    """The next chunk of the `first` pipe, or of `then` once that one is empty."""
    chunk = _take(first)
    return chunk if chunk is not None else _take(then)


def _drain() -> tuple[int, list[Any]] | None:
    """A child's task: one chunk taken (the parent's own kind last) and answered (one
    pickle for the chunk), or None once every chunk is taken."""
    gc.disable()  # a child lives for one map; its objects are not cyclic
    assert _CURRENT is not None
    current = _CURRENT
    chunk = _take_first(current.far, current.near)
    if chunk is None:
        return None
    return chunk, [current.work.there(current.items[i]) for i in current.chunks[chunk]]


def _one(index: int) -> Any:
    assert _CURRENT is not None
    return _CURRENT.work.there(_CURRENT.items[index])


def _chunks(
    items: Sequence[Item], count: int, stays_here: Callable[[Item], bool] | None
) -> tuple[list[list[int]], int]:
    """The items' indexes cut into at most `count` interleaved chunks (big and small folders
    alike in each), those that stay here in the first ones: (chunks, how many of them are
    the parent's first)."""
    here: list[int] = []
    there: list[int] = []
    for index, item in enumerate(items):
        (here if stays_here is not None and stays_here(item) else there).append(index)
    near = min(len(here), max(1, round(count * len(here) / len(items)))) if here else 0
    if there:  # the other kind keeps a chunk at least (with both kinds, count is 2 or more)
        near = min(near, count - 1)
    far = min(len(there), count - near)
    return [here[k::near] for k in range(near)] + [there[k::far] for k in range(far)], near


def _alone(work: Work[Item, Result], index: int, item: Item, context: BaseContext) -> Result:
    """One item in a process of its own, after a child died on its share: the other items
    of the share are still done, and only the culprit gets `died`."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(1, mp_context=context) as single:
            return work.back(single.submit(_one, index).result())
    except BrokenProcessPool as error:
        return work.died(item, error)


def fork_map(
    work: Work[Item, Result],
    items: Sequence[Item],
    jobs: int,
    progress: Progress = QUIET,
    *,
    min_items: int,
    stays_here: Callable[[Item], bool] | None = None,
) -> list[Result]:
    """The result of each item, in order, each counted on `progress` as it is done; in
    `jobs` processes (the parent one of them) from `min_items` items on.

    The items are cut into interleaved chunks, and every process takes the next chunk
    until none is left: a child, which must pickle its answers and starts late, takes
    fewer than the parent, and all finish together. The items `stays_here` picks (whose
    answer costs more to pickle and unpickle than to make) are the parent's first: it
    takes their chunks before the others, and a child takes them only when no other
    chunk is left."""
    # fork() copies only the calling thread: with other threads alive (an embedding
    # program, a test runner with gRPC channels) a lock they hold could never be released
    # in the child. The CLI has one thread; anything else runs serially.
    serial = jobs <= 1 or len(items) < min_items or threading.active_count() > 1
    if not serial:  # imported only here: a one-file run should not pay for them
        import multiprocessing
    if serial or "fork" not in multiprocessing.get_all_start_methods():  # Windows: no fork
        return [_counted(work.here(item), progress) for item in items]
    return _forked_map(work, items, jobs, progress, stays_here)


def _forked_map(
    work: Work[Item, Result],
    items: Sequence[Item],
    jobs: int,
    progress: Progress,
    stays_here: Callable[[Item], bool] | None,
) -> list[Result]:
    """fork_map's work shared with `jobs - 1` forked children, each taking the next chunk."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _CURRENT
    wanted = min(len(items), jobs * CHUNKS_PER_JOB, MAX_CHUNKS)
    chunks, near_count = _chunks(items, wanted, stays_here)
    near, far = _pipe_of(range(near_count)), _pipe_of(range(near_count, len(chunks)))
    _CURRENT = _Map(work, items, chunks, near, far)
    answers = _Answers(work, progress)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs - 1, mp_context=context) as pool:
            answers.submit(pool, len(chunks))
            while (chunk := _take_first(near, far)) is not None:
                answers.make_here(chunk, [items[index] for index in chunks[chunk]])
            answers.collect(wait=True)
            for chunk in range(len(chunks)):  # taken by a child that died: find the culprit
                if chunk not in answers.done:
                    answers.done[chunk] = [
                        _counted(_alone(work, index, items[index], context), progress)
                        for index in chunks[chunk]
                    ]
    finally:
        sys.setswitchinterval(interval)
        _CURRENT = None
        os.close(near)
        os.close(far)
    results: list[Result | None] = [None] * len(items)
    for chunk, made in answers.done.items():
        for index, answer in zip(chunks[chunk], made, strict=True):
            results[index] = answer
    return results  # type: ignore[return-value]  # every slot filled by its chunk


class _Answers(Generic[Item, Result]):
    """Each chunk's results as they are made: the parent's own, and the children's as
    their answers come in (`done`, by chunk number)."""

    def __init__(self, work: Work[Item, Result], progress: Progress) -> None:
        self.work = work
        self.progress = progress
        self.done: dict[int, list[Result]] = {}
        self.pending: list[Future[tuple[int, list[Any]] | None]] = []
        self.collected: set[int] = set()

    def submit(self, pool: ProcessPoolExecutor, count: int) -> None:
        """A task per chunk at most: each takes one, or finds none left and returns."""
        from concurrent.futures.process import BrokenProcessPool

        for _ in range(count):
            try:
                self.pending.append(pool.submit(_drain))
            except BrokenProcessPool:  # a child died already: no more tasks
                break

    def make_here(self, chunk: int, items: Sequence[Item]) -> None:
        """A chunk the parent took, made here, the children's answers taken in meanwhile."""
        self.done[chunk] = []
        for item in items:
            self.done[chunk].append(_counted(self.work.here(item), self.progress))
            if self.progress.enabled:
                self.collect(wait=False)
        self.collect(wait=False)  # taking a child's answers in (`back`) is work too

    def collect(self, *, wait: bool) -> None:
        """The children's chunks that are in (with `wait`, all of them)."""
        from concurrent.futures.process import BrokenProcessPool

        for number, future in enumerate(self.pending):
            if number in self.collected or not (wait or future.done()):
                continue
            self.collected.add(number)
            try:
                answer = future.result()
            except BrokenProcessPool:  # a child died: its chunk is missing from `done`
                continue
            if answer is not None:
                chunk, answers = answer
                self.done[chunk] = [self.work.back(a) for a in answers]
                self.progress.advance(len(answers))


def _pipe_of(chunks: range) -> int:
    """The read end of a pipe holding these chunk numbers, a byte each: written whole
    before any child starts (far below a pipe's buffer: never blocks), and closed, so that
    a read finds the end once every chunk is taken."""
    tokens, writer = os.pipe()
    os.write(writer, bytes(chunks))
    os.close(writer)
    return tokens


def _counted(result: Result, progress: Progress) -> Result:
    progress.advance()
    return result
