"""The forked map under the parse and the fixer: every item answered once, in order,
whichever process took it, and a child that dies costs only its item.

Each case runs in a fresh interpreter: the map forks only in a process with one thread,
and a test run may have others alive."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from k8slb.core.parallel import MAX_CHUNKS, SWITCH_INTERVAL, Work, _chunks, fork_map

ROOT = Path(__file__).resolve().parent.parent
PARENT = os.getpid()
MARKER: list[Path] = []  # where the first child to die notes its item (inherited by fork)


def _square(item: int) -> tuple[int, int]:
    time.sleep(0.002)  # long enough for a child to start and take chunks too
    return item * item, os.getpid()


def _first_in_a_child_dies(item: int) -> tuple[int, int]:
    """The first item a child meets kills every child that takes it on (as a native crash
    would), and none of the others."""
    if os.getpid() != PARENT:
        if not MARKER[0].exists():
            MARKER[0].write_text(str(item))
        if MARKER[0].read_text() == str(item):
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel ends it (SIGSEGV: a dump)
    return _square(item)


def _died(item: int, error: BaseException) -> tuple[int, int]:
    return -item, 0


def every_item_once_and_in_order() -> None:
    items = list(range(300))
    results = fork_map(Work.same(_square, _died), items, 2, min_items=10)
    assert [square for square, _ in results] == [i * i for i in items]
    assert len({pid for _, pid in results}) == 2, "the parent and a child both took chunks"
    assert sys.getswitchinterval() != SWITCH_INTERVAL, "the parent's setting is put back"


def what_stays_here_is_the_parents_first() -> None:
    """Items whose answer costs more to send back than to make are the parent's first; a
    child takes them only when nothing else is left, here never (the parent is done with
    them long before the others run out)."""
    items = list(range(300))
    stays = {item for item in items if item % 10 == 0}
    results = fork_map(
        Work.same(_square, _died), items, 2, min_items=10, stays_here=stays.__contains__
    )
    assert [square for square, _ in results] == [i * i for i in items]
    assert {pid for item, (_, pid) in enumerate(results) if item in stays} == {os.getpid()}
    assert len({pid for item, (_, pid) in enumerate(results) if item not in stays}) == 2


def only_what_stays_here_still_spreads() -> None:
    """When every item would stay here, the children still take their share."""
    items = list(range(300))
    results = fork_map(Work.same(_square, _died), items, 2, min_items=10, stays_here=lambda _: True)
    assert [square for square, _ in results] == [i * i for i in items]
    assert len({pid for _, pid in results}) == 2


def below_the_threshold_all_here() -> None:
    results = fork_map(Work.same(_square, _died), list(range(9)), 2, min_items=10)
    assert {pid for _, pid in results} == {os.getpid()}


def a_dead_child_costs_one_item(folder: str) -> None:
    MARKER[:] = [Path(folder) / "died"]
    items = list(range(300))
    results = fork_map(Work.same(_first_in_a_child_dies, _died), items, 2, min_items=10)
    culprit = int(MARKER[0].read_text())
    assert [square for square, _ in results] == [-i if i == culprit else i * i for i in items]


@pytest.mark.parametrize(
    "case",
    [
        "every_item_once_and_in_order()",
        "what_stays_here_is_the_parents_first()",
        "only_what_stays_here_still_spreads()",
        "below_the_threshold_all_here()",
        "a_dead_child_costs_one_item({folder!r})",
    ],
)
def test_the_forked_map(case: str, tmp_path: Path) -> None:
    call = case.format(folder=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", f"from tests.test_parallel import *; {call}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("staying", [0, 1, 150, 999, 1000])
def test_chunks_hold_every_item_once_and_a_byte_names_each(staying: int) -> None:
    """However the items split between the parent's kind and the others, each is in one
    chunk, the parent's chunks come first, and there are never more chunks than one byte
    can name (a chunk's number travels as one)."""
    items = list(range(1000))
    chunks, near = _chunks(items, MAX_CHUNKS, lambda item: item < staying)
    assert sorted(index for chunk in chunks for index in chunk) == items
    assert len(chunks) <= MAX_CHUNKS and all(chunks)
    assert all(index < staying for chunk in chunks[:near] for index in chunk)
    assert all(index >= staying for chunk in chunks[near:] for index in chunk)
