"""Running Helm's engine in a child process, with a limit of CPU time, a memory limit, and
one budget of CPU time for the run.

A chart is code: `{{ range until 100000000 }}` or a recursive `include` renders for ever,
`{{ repeat 100000000 "x" }}` fills the memory, and the engine is a C library (Go) that
Python cannot interrupt. So charts are rendered in a forked child, which is killed when one
chart uses more CPU time than the limit (that chart is reported, the others are rendered in
a new child); the child's data may grow only so far (RLIMIT_DATA, Linux), past which Go's
runtime stops it; and the charts of one run share one budget of CPU time, past which the
rest are reported as not rendered. The parent never loads the library: Go's runtime does not
survive a fork, and every render forks from a parent without it.

The limits count CPU time, not the clock's: on a busy machine a big chart takes three or
four times as long by the clock for the same work, and a limit by the clock would render it
in one run and not the next. The CPU time is the child's process group's, read from
/proc/PID/stat (every thread of Go's runtime, and a `helm template` the child runs), and the
child says its own at the end of each job, so that a job is charged from where the one
before it ended. The wall clock stays as a guard WALL_FACTOR times as long, for a renderer
stuck without using CPU; where no /proc tells a process's CPU time (not Linux), the limits
are the wall clock's.
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

TIMEOUT = 30.0  # seconds of CPU one chart may use to render
BUDGET = 120.0  # seconds of CPU all the charts of one call may use together
# The wall clock's guard, in times the CPU limits: a renderer stuck without using CPU. On
# two cores at a load of 6-7 a render gets 1/3.5 of a core; at 4 times, a chart short of
# its CPU limit by a seventh still ends within its guard there.
WALL_FACTOR = 4.0
POLL = 0.5  # seconds between two readings of the renderer's CPU time (a scan of /proc)
_TICK = 0.01  # /proc's grain (USER_HZ): no sooner than this between two readings
MEMORY = 1024  # MiB of data the child may add to what it inherits (Go's heap, its threads)
MAX_OUTPUT = 32 * 1024 * 1024  # bytes one job may send back (a chart's rendered manifests)
# The environment may change the limits (a repository cannot: they are not configuration).
BUDGET_VARIABLE, MEMORY_VARIABLE = "K8SLB_HELM_BUDGET", "K8SLB_HELM_MEMORY"
SECONDS_VARIABLE = "K8SLB_HELM_SECONDS"
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


def seconds() -> float:
    """The CPU seconds one chart may use (K8SLB_HELM_SECONDS, else TIMEOUT)."""
    return _setting(SECONDS_VARIABLE, TIMEOUT)


def _setting(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass
class _Run:
    """The limits of one call and what its jobs have used so far: `spent`, in seconds of
    CPU (of the wall clock where `cpu` is False: no /proc), and the wall clock's guard."""

    limit: float  # one job's
    total: float  # all the jobs'
    cpu: bool
    wall_end: float
    spent: float = 0.0

    @property
    def unit(self) -> str:
        return " of CPU" if self.cpu else ""

    def over(self) -> Failed | None:
        """Why no further job may start: the budget is spent, by CPU or by the clock."""
        if self.spent >= self.total:
            said = f"{self.total:g} s{self.unit}"
        elif time.monotonic() >= self.wall_end:  # the guard (CPU), or the budget (no /proc)
            said = (
                f"{self.total * WALL_FACTOR:g} s of wall time" if self.cpu else f"{self.total:g} s"
            )
        else:
            return None
        return Failed(
            f"not rendered: the run's {said} for rendering charts were spent on the charts "
            "before it",
            limit=True,
            hint=_BUDGET_HINT,
        )


_BUDGET_HINT = f"{BUDGET_VARIABLE} (seconds) gives a run more time for its charts"
_HINT = f"{SECONDS_VARIABLE} (seconds) gives a chart more time"


def run_isolated(
    call: Callable[[Any], Any], jobs: Sequence[Any], timeout: float | None = None
) -> list[Outcome]:
    """`call(job)` for each job, in order, in a child process. A job that raises, kills
    its process, uses more than `timeout` seconds of CPU or runs past the memory limit
    gets (False, why); the jobs after it run in a new child. Once the budget is spent,
    the jobs left get (False, why) without being started."""
    limit = seconds() if timeout is None else timeout
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: in this process, unbounded
        return [_attempt(call, job) for job in jobs]
    total = budget()
    cpu = _stat(str(os.getpid())) is not None
    run = _Run(limit, total, cpu, time.monotonic() + total * (WALL_FACTOR if cpu else 1))
    results: list[Outcome] = []
    while len(results) < len(jobs):
        spent = run.over()
        if spent is not None:
            results += [(False, spent)] * (len(jobs) - len(results))
            break
        results += _child(call, jobs[len(results) :], run)
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
    """The job's outcome, and the CPU time the child has used by its end (all its threads,
    and the `helm template` it waited for: no other process of its group is alive here)."""
    times = os.times()
    used = times.user + times.system + times.children_user + times.children_system
    try:
        payload = pickle.dumps((outcome, used), protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        payload = pickle.dumps(((False, _out_of_memory()), used))
    if len(payload) > MAX_OUTPUT:
        why = f"it renders more than {MAX_OUTPUT // 2**20} MiB of manifests: not read"
        payload = pickle.dumps(((False, Failed(why)), used))
    view = memoryview(_SIZE.pack(len(payload)) + payload)
    while view:
        view = view[os.write(write_end, view) :]


def _child(call: Callable[[Any], Any], jobs: Sequence[Any], run: _Run) -> list[Outcome]:
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
    try:
        return _watch(pid, read_end, errors_read, len(jobs), run)
    finally:
        os.close(read_end)
        os.close(errors_read)
        os.waitpid(pid, 0)


def _watch(pid: int, read_end: int, errors_read: int, count: int, run: _Run) -> list[Outcome]:
    """The child's outcomes as they come, its job's time read every POLL seconds: past a
    limit the child's group is killed and the job's outcome says which limit."""
    results: list[Outcome] = []
    buffer, errors = bytearray(), bytearray()
    job = _Job(run, pid)
    watched = [read_end, errors_read]
    while len(results) < count:
        ready, _, _ = select.select(watched, [], [], job.wait())
        if errors_read in ready:
            _keep_errors(errors_read, errors, watched)
        if read_end in ready:
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                _drain(errors_read, errors, watched)
                job.charge(job.used())
                return [*results, _died(bytes(errors))]
            buffer += chunk
            _unpack(buffer, results, job)
        if len(results) < count and job.due():
            stopped = job.stopped()
            if stopped is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                return [*results, (False, stopped)]
    return results


def _unpack(buffer: bytearray, results: list[Outcome], job: _Job) -> None:
    """The outcomes whole in `buffer`, taken out of it. A job that used more than its
    limit gets the limit's failure whether or not a reading saw it running past: which
    charts render depends on the CPU they use, not on when it was read."""
    while len(buffer) >= _SIZE.size:
        (size,) = _SIZE.unpack_from(buffer)
        if len(buffer) < _SIZE.size + size:
            break
        outcome, ended = pickle.loads(buffer[_SIZE.size : _SIZE.size + size])
        del buffer[: _SIZE.size + size]
        over = job.end(ended)  # the next job: its own time, from where this one ended
        results.append(outcome if over is None else (False, over))


class _Job:
    """The time of the job a child is on: CPU seconds of its group since the job began (or
    wall seconds without /proc), and wall seconds, against the limits of its run."""

    def __init__(self, run: _Run, pid: int) -> None:
        self.run, self.pid = run, pid
        self.start = 0.0 if run.cpu else time.monotonic()  # a new process has used no CPU
        self.began = self.read_at = time.monotonic()
        self.last = self.start  # the last reading (the group is gone once the child dies)

    def used(self) -> float:
        reading = _group_cpu(self.pid) if self.run.cpu else time.monotonic()
        self.last = self.last if reading is None else reading
        self.read_at = time.monotonic()
        return self.last - self.start

    def charge(self, used: float) -> None:
        self.run.spent += used

    def end(self, ended: float) -> Failed | None:
        """The job ended, the child's CPU time then `ended`: the run is charged, the next
        job starts, and the limit it passed, if it did, is said."""
        end = ended if self.run.cpu else time.monotonic()
        over = _verdict(self.run, end - self.start, None)
        self.charge(end - self.start)
        self.start = self.last = end
        self.began = self.read_at = time.monotonic()
        return over

    def wait(self) -> float:
        """Seconds to the next reading: POLL, or sooner where the job nears a limit."""
        run, now = self.run, time.monotonic()
        factor = WALL_FACTOR if run.cpu else 1.0
        left = min(run.limit, run.total - run.spent) - (self.last - self.start)
        wall = min(self.began + run.limit * factor, run.wall_end) - now
        return max(min(self.read_at + min(POLL, max(left, _TICK)) - now, wall), 0.0)

    def due(self) -> bool:
        return self.wait() <= 0

    def stopped(self) -> Failed | None:
        """Why the job is stopped now, or None while it is within every limit; a job
        stopped is charged to the run."""
        used = self.used()
        said = _verdict(self.run, used, time.monotonic() - self.began)
        if said is not None:
            self.charge(used)
        return said


def _verdict(run: _Run, used: float, took: float | None) -> Failed | None:
    """The limit a job that has used `used` (CPU, or wall without /proc) and taken `took`
    seconds of wall time is past, or None. The job's own limit or the run's budget,
    whichever is lower, then the wall clock's guards (`took` None: the job has ended, and
    no guard of the clock stops what is done)."""
    if used >= run.limit and run.limit <= run.total - run.spent:
        verb = "used" if run.cpu else "took"
        return Failed(f"rendering {verb} over {run.limit:g} s{run.unit}: stopped", True, _HINT)
    if run.spent + used >= run.total:
        said = f"stopped: the run's {run.total:g} s{run.unit} for rendering charts ran out"
        return Failed(said, True, _BUDGET_HINT)
    if not run.cpu or took is None:
        return None
    if took >= run.limit * WALL_FACTOR:
        return Failed(
            f"rendering took over {run.limit * WALL_FACTOR:g} s of wall time with {used:.1f} s "
            f"of CPU (a guard, {WALL_FACTOR:g} times the {run.limit:g} s of CPU a chart may "
            "use, for a renderer stuck or a machine too busy): stopped",
            True,
            _HINT,
        )
    if time.monotonic() >= run.wall_end:
        said = (
            f"stopped: the run's {run.total * WALL_FACTOR:g} s of wall time for rendering "
            f"charts ran out (a guard, {WALL_FACTOR:g} times its {run.total:g} s of CPU)"
        )
        return Failed(said, True, _BUDGET_HINT)
    return None


def _group_cpu(group: int) -> float | None:
    """The CPU seconds the processes of a group have used (every thread, and the children
    they reaped), or None where /proc does not tell any."""
    used, found = 0, False
    try:
        entries = os.scandir("/proc")
    except OSError:
        return None
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            fields = _stat(entry.name)
            if fields is None or len(fields) < 15 or fields[2] != b"%d" % group:
                continue
            found = True
            used += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
    return used / os.sysconf("SC_CLK_TCK") if found else None


def _stat(pid: str) -> list[bytes] | None:
    """A process's /proc/PID/stat, its fields after its name (which may hold anything)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()
    except OSError:
        return None


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
