"""One function over many items, in forked processes when there are enough items to pay
for them: the parse of a large tree, the fixer's edits of its files. The parent works too
(its results need no pickling back); the children inherit the items, so only chunk numbers
travel to them; every process takes the next chunk as it is free, so none waits for
another at the end; a child that dies costs only the item that killed it, which is run
again in a process of its own to find it."""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from k8slb.progress import QUIET, Progress
from k8slb.record import record

if TYPE_CHECKING:
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


# The work of the current map and the read end of its pipe of chunk numbers. Forked
# children inherit both, so only chunk numbers travel between processes (the items would
# have to be pickled through a pipe otherwise).
_CURRENT: tuple[Work[Any, Any], Sequence[Any], int, int] | None = None

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


def _drain() -> tuple[int, list[Any]] | None:
    """A child's task: one chunk taken from the pipe and answered (one pickle for the
    chunk), or None once every chunk is taken."""
    gc.disable()  # a child lives for one map; its objects are not cyclic
    assert _CURRENT is not None
    work, items, tokens, count = _CURRENT
    start = _take(tokens)
    if start is None:
        return None
    return start, [work.there(item) for item in items[start::count]]


def _one(index: int) -> Any:
    assert _CURRENT is not None
    work, items, _, _ = _CURRENT
    return work.there(items[index])


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
) -> list[Result]:
    """The result of each item, in order, each counted on `progress` as it is done; in
    `jobs` processes (the parent one of them) from `min_items` items on.

    The items are cut into interleaved chunks (big and small folders alike in each), and
    every process takes the next chunk until none is left: a child, which must pickle its
    answers and starts late, takes fewer than the parent, and all finish together."""
    # fork() copies only the calling thread: with other threads alive (an embedding
    # program, a test runner with gRPC channels) a lock they hold could never be released
    # in the child. The CLI has one thread; anything else runs serially.
    serial = jobs <= 1 or len(items) < min_items or threading.active_count() > 1
    if not serial:  # imported only here: a one-file run should not pay for them
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
    if serial or "fork" not in multiprocessing.get_all_start_methods():  # Windows: no fork
        return [_counted(work.here(item), progress) for item in items]

    global _CURRENT
    count = min(len(items), jobs * CHUNKS_PER_JOB, MAX_CHUNKS)
    tokens, writer = os.pipe()
    os.write(writer, bytes(range(count)))  # far below a pipe's buffer: never blocks
    os.close(writer)  # then a read finds the end once every chunk is taken
    _CURRENT = (work, items, tokens, count)
    done: dict[int, list[Result]] = {}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs - 1, mp_context=context) as pool:
            # a task per chunk at most: each takes one, or finds none left and returns
            pending = []
            for _ in range(count):
                try:
                    pending.append(pool.submit(_drain))
                except BrokenProcessPool:  # a child died already: no more tasks
                    break
            collected: set[int] = set()

            def collect(wait: bool) -> None:  # the children's chunks, as they come in
                for number, future in enumerate(pending):
                    if number in collected or not (wait or future.done()):
                        continue
                    collected.add(number)
                    try:
                        answer = future.result()
                    except BrokenProcessPool:  # a child died: its chunk is missing below
                        continue
                    if answer is not None:
                        start, answers = answer
                        done[start] = [work.back(a) for a in answers]
                        progress.advance(len(answers))

            while (start := _take(tokens)) is not None:
                done[start] = []
                for item in items[start::count]:
                    done[start].append(_counted(work.here(item), progress))
                    if progress.enabled:
                        collect(wait=False)
                collect(wait=False)  # taking a child's answers in (`back`) is work too
            collect(wait=True)
            for start in range(count):  # taken by a child that died: find the culprit
                if start not in done:
                    done[start] = [
                        _counted(_alone(work, index, items[index], context), progress)
                        for index in range(start, len(items), count)
                    ]
    finally:
        sys.setswitchinterval(interval)
        _CURRENT = None
        os.close(tokens)
    results: list[Result | None] = [None] * len(items)
    for start, chunk in done.items():
        results[start::count] = chunk
    return results  # type: ignore[return-value]  # every slot filled by its chunk


def _counted(result: Result, progress: Progress) -> Result:
    progress.advance()
    return result
