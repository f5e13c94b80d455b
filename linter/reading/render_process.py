"""Running Helm's engine in a child process, with a time limit, a memory limit, and one
time budget for the run.

A chart is code: `{{ range until 100000000 }}` or a recursive `include` renders for ever,
`{{ repeat 100000000 "x" }}` fills the memory, and the engine is a C library (Go) that
Python cannot interrupt. So charts are rendered in a forked child, which is killed when one
chart takes longer than the limit (that chart is reported, the others are rendered in a new
child); the child's data may grow only so far (RLIMIT_DATA, Linux), past which Go's runtime
stops it; and the charts of one run share one budget of time, past which the rest are
reported as not rendered. The parent never loads the library: Go's runtime does not
survive a fork, and every render forks from a parent without it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

TIMEOUT = 30.0  # seconds one chart may take to render
BUDGET = 120.0  # seconds all the charts of one call may take together
MEMORY = 1024  # MiB of data the child may add to what it inherits (Go's heap, its threads)
MAX_OUTPUT = 32 * 1024 * 1024  # bytes one job may send back (a chart's rendered manifests)
# The environment may change the limits (a repository cannot: they are not configuration).
BUDGET_VARIABLE, MEMORY_VARIABLE = "K8SLB_HELM_BUDGET", "K8SLB_HELM_MEMORY"
_SIZE = struct.Struct("!Q")
_STDERR_KEPT = 1 << 16  # the end of what the child printed: why Go's runtime stopped it


@dataclass(frozen=True)
class Failed:
    """Why a job has no result. `limit`: it was stopped by a limit of this run (time,
    memory, the budget), not by what it is: another run may get through it."""

    why: str
    limit: bool = False
    hint: str = ""  # what would let it through

    def __str__(self) -> str:
        return self.why


Outcome = tuple[bool, Any]  # (True, result) or (False, Failed)


def budget() -> float:
    return _setting(BUDGET_VARIABLE, BUDGET)


def memory() -> float:
    return _setting(MEMORY_VARIABLE, MEMORY)


def _setting(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def run_isolated(
    call: Callable[[Any], Any], jobs: Sequence[Any], timeout: float | None = None
) -> list[Outcome]:
    """`call(job)` for each job, in order, in a child process. A job that raises, kills
    its process, runs past `timeout` seconds or past the memory limit gets (False, why);
    the jobs after it run in a new child. Once the budget is spent, the jobs left get
    (False, why) without being started."""
    limit = TIMEOUT if timeout is None else timeout
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: in this process, unbounded
        return [_attempt(call, job) for job in jobs]
    total = budget()
    end = time.monotonic() + total
    results: list[Outcome] = []
    while len(results) < len(jobs):
        if time.monotonic() >= end:
            spent = Failed(
                f"not rendered: the run's {total:g} s for rendering charts were spent "
                "on the charts before it",
                limit=True,
                hint=f"{BUDGET_VARIABLE} (seconds) gives a run more time for its charts",
            )
            results += [(False, spent)] * (len(jobs) - len(results))
            break
        results += _child(call, jobs[len(results) :], limit, end, total)
    return results


def _attempt(call: Callable[[Any], Any], job: Any) -> Outcome:
    try:
        return True, call(job)
    except MemoryError:
        return False, _out_of_memory()
    except Exception as error:  # this job's failure, not the run's
        return False, Failed(f"{type(error).__name__}: {error}")


def _out_of_memory() -> Failed:
    return Failed(
        f"rendering needs more than {memory():g} MiB of memory: stopped",
        limit=True,
        hint=f"{MEMORY_VARIABLE} (MiB) raises the limit",
    )


def _limit_memory() -> None:
    """In the child: its data (heap, thread stacks) may grow by `memory()` MiB past what
    it holds at the fork. Linux only (elsewhere RLIMIT_DATA does not bound mmap)."""
    import resource

    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            held = next(
                int(line.split()[1]) * 1024 for line in status if line.startswith("VmData:")
            )
    except (OSError, StopIteration, ValueError, IndexError):
        return
    limit = held + int(memory() * 2**20)
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _send(write_end: int, outcome: Outcome) -> None:
    try:
        payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        payload = pickle.dumps((False, _out_of_memory()))
    if len(payload) > MAX_OUTPUT:
        why = f"it renders more than {MAX_OUTPUT // 2**20} MiB of manifests: not read"
        payload = pickle.dumps((False, Failed(why)))
    view = memoryview(_SIZE.pack(len(payload)) + payload)
    while view:
        view = view[os.write(write_end, view) :]


def _child(
    call: Callable[[Any], Any], jobs: Sequence[Any], limit: float, end: float, total: float
) -> list[Outcome]:
    """The outcomes of the jobs one child got through, the last a failure if it stopped."""
    read_end, write_end = os.pipe()
    errors_read, errors_write = os.pipe()  # Go's dying words, kept from the user's terminal
    pid = os.fork()
    if pid == 0:  # the child: each outcome sent as it comes, then gone without cleanup
        try:
            os.setpgid(0, 0)  # its group: a `helm template` it runs is stopped with it
            os.close(read_end)
            os.close(errors_read)
            os.dup2(errors_write, 2)
            _limit_memory()
            for job in jobs:
                _send(write_end, _attempt(call, job))
        finally:
            os._exit(0)
    os.close(write_end)
    os.close(errors_write)
    with contextlib.suppress(OSError):  # it has already made its group, or is gone
        os.setpgid(pid, pid)  # as the child does: whichever runs first
    results: list[Outcome] = []
    buffer, errors = bytearray(), bytearray()
    deadline = min(time.monotonic() + limit, end)
    watched = [read_end, errors_read]
    try:
        while len(results) < len(jobs):
            ready, _, _ = select.select(watched, [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                return [*results, _stopped(deadline >= end, limit, total)]
            if errors_read in ready:
                _keep_errors(errors_read, errors, watched)
            if read_end not in ready:
                continue
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                _drain(errors_read, errors, watched)
                return [*results, _died(bytes(errors))]
            buffer += chunk
            while len(buffer) >= _SIZE.size:
                (size,) = _SIZE.unpack_from(buffer)
                if len(buffer) < _SIZE.size + size:
                    break
                results.append(pickle.loads(buffer[_SIZE.size : _SIZE.size + size]))
                del buffer[: _SIZE.size + size]
                deadline = min(time.monotonic() + limit, end)  # the next job: its own time
        return results
    finally:
        os.close(read_end)
        os.close(errors_read)
        os.waitpid(pid, 0)


def _stopped(by_budget: bool, limit: float, total: float) -> Outcome:
    if by_budget:
        return False, Failed(
            f"stopped: the run's {total:g} s for rendering charts ran out",
            limit=True,
            hint=f"{BUDGET_VARIABLE} (seconds) gives a run more time for its charts",
        )
    return False, Failed(f"rendering took over {limit:g} s: stopped", limit=True)


def _keep_errors(errors_read: int, errors: bytearray, watched: list[int]) -> None:
    """The end of what the child printed, read as it comes (a full pipe would block it)."""
    said = os.read(errors_read, 1 << 16)
    errors += said
    del errors[: max(len(errors) - _STDERR_KEPT, 0)]
    if not said:
        watched.remove(errors_read)


def _drain(errors_read: int, errors: bytearray, watched: list[int]) -> None:
    """The rest of what a dead child printed: its last words may come after the end of
    its results' pipe is seen."""
    while errors_read in watched and select.select([errors_read], [], [], 1.0)[0]:
        _keep_errors(errors_read, errors, watched)


def _died(errors: bytes) -> Outcome:
    """Why the child ended before its job: Go's runtime says `fatal error: out of memory`
    when the memory limit stops it."""
    said = errors.decode("utf-8", "replace")
    if "out of memory" in said or "MemoryError" in said:
        return False, _out_of_memory()
    last = next((line.strip() for line in said.splitlines() if "fatal error" in line), "")
    return False, Failed("the renderer's process died" + (f" ({last})" if last else ""))
