"""Running Helm's engine in a child process, with a time limit.

A chart is code: `{{ range until 100000000 }}` or a recursive `include` renders for ever,
and the engine is a C library (Go) that Python cannot interrupt. So charts are rendered in
a forked child, which is killed when one chart takes longer than the limit (that chart is
reported, the others are rendered in a new child). The parent never loads the library:
Go's runtime does not survive a fork, and every render forks from a parent without it.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable, Sequence
from typing import Any

TIMEOUT = 30.0  # seconds one chart may take to render
_SIZE = struct.Struct("!Q")
Outcome = tuple[bool, Any]  # (True, result) or (False, why it has none)


def run_isolated(
    call: Callable[[Any], Any], jobs: Sequence[Any], timeout: float | None = None
) -> list[Outcome]:
    """`call(job)` for each job, in order, in a child process. A job that raises, kills
    its process or runs past `timeout` seconds gets (False, why); the jobs after it run in
    a new child."""
    limit = TIMEOUT if timeout is None else timeout
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: in this process, unbounded
        return [_attempt(call, job) for job in jobs]
    results: list[Outcome] = []
    while len(results) < len(jobs):
        results += _child(call, jobs[len(results) :], limit)
    return results


def _attempt(call: Callable[[Any], Any], job: Any) -> Outcome:
    try:
        return True, call(job)
    except Exception as error:  # this job's failure, not the run's
        return False, f"{type(error).__name__}: {error}"


def _child(call: Callable[[Any], Any], jobs: Sequence[Any], limit: float) -> list[Outcome]:
    """The outcomes of the jobs one child got through, the last a failure if it stopped."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: each outcome sent as it comes, then gone without cleanup
        os.close(read_end)
        try:
            for job in jobs:
                payload = pickle.dumps(_attempt(call, job), protocol=pickle.HIGHEST_PROTOCOL)
                view = memoryview(_SIZE.pack(len(payload)) + payload)
                while view:
                    view = view[os.write(write_end, view) :]
        finally:
            os._exit(0)
    os.close(write_end)
    results: list[Outcome] = []
    buffer = b""
    deadline = time.monotonic() + limit
    try:
        while len(results) < len(jobs):
            ready, _, _ = select.select([read_end], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                return [*results, (False, f"rendering took over {limit:g} s: stopped")]
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                return [*results, (False, "the renderer's process died")]
            buffer += chunk
            while len(buffer) >= _SIZE.size:
                (size,) = _SIZE.unpack_from(buffer)
                if len(buffer) < _SIZE.size + size:
                    break
                results.append(pickle.loads(buffer[_SIZE.size : _SIZE.size + size]))
                buffer = buffer[_SIZE.size + size :]
                deadline = time.monotonic() + limit  # the next job gets its own time
        return results
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
