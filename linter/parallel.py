"""One function over many items, in forked processes when there are enough items to pay
for them: the parse of a large tree, the fixer's edits of its files. The parent takes a
share itself (its results need no pickling back); the children inherit the items, so only
indexes travel to them; a child that dies costs only the item that killed it, which is
run again in a process of its own to find it."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from k8slb.progress import QUIET, Progress

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass(frozen=True)
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


# The work of the current map. Forked children inherit it, so only indexes travel to them
# (the items would have to be pickled through a pipe otherwise).
_CURRENT: tuple[Work[Any, Any], Sequence[Any]] | None = None


def _chunk(chunk: tuple[int, int]) -> list[Any]:
    """A child's share: every `step`th item from `start`, answered together (one pickle
    back: one memo, one framing)."""
    gc.disable()  # a child lives for one map; its objects are not cyclic
    assert _CURRENT is not None
    work, items = _CURRENT
    start, step = chunk
    return [work.there(item) for item in items[start::step]]


def _one(index: int) -> Any:
    assert _CURRENT is not None
    work, items = _CURRENT
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
    `jobs` processes (the parent one of them) from `min_items` items on."""
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
    _CURRENT = (work, items)
    # Interleaved chunks balance big and small folders; a few per process keeps all busy.
    count = min(len(items), jobs * 4)
    own = list(range(0, count, jobs))
    others = [start for start in range(count) if start % jobs]
    done: dict[int, list[Result]] = {}
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs - 1, mp_context=context) as pool:
            pending = {start: pool.submit(_chunk, (start, count)) for start in others}
            counted: set[int] = set()

            def count_finished() -> None:  # the children's chunks, as they come in
                for start, future in pending.items():
                    if start not in counted and future.done():
                        counted.add(start)
                        progress.advance(len(items[start::count]))

            for start in own:
                done[start] = []
                for item in items[start::count]:
                    done[start].append(_counted(work.here(item), progress))
                    if progress.enabled:
                        count_finished()
            for start, future in pending.items():
                try:
                    done[start] = [work.back(answer) for answer in future.result()]
                except BrokenProcessPool:  # a child died: find the item that killed it
                    done[start] = [
                        _alone(work, index, items[index], context)
                        for index in range(start, len(items), count)
                    ]
                if start not in counted:
                    counted.add(start)
                    progress.advance(len(done[start]))
    finally:
        _CURRENT = None
    results: list[Result | None] = [None] * len(items)
    for start, chunk in done.items():
        results[start::count] = chunk
    return results  # type: ignore[return-value]  # every slot filled by its chunk


def _counted(result: Result, progress: Progress) -> Result:
    progress.advance()
    return result
