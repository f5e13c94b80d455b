"""render_process's limits count the CPU time a render uses, not the clock's: a chart gets
the same answer on a busy machine as on an idle one, and the wall clock is only a guard,
WALL_FACTOR times as long, for a renderer stuck without using CPU."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from k8slb.reading import render_process
from k8slb.reading.render_process import Failed, run_isolated

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux's /proc")


def _burn(seconds: float) -> None:
    """Use `seconds` of this process's CPU time, however long the clock says it takes."""
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def _burn_for_ever(_: object) -> None:
    while True:
        pass


def _failure(outcome: tuple[bool, object]) -> Failed:
    ok, value = outcome
    assert not ok and isinstance(value, Failed), outcome
    return value


@pytest.fixture
def no_wall_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall clock's guard out of reach: what a test measures is the CPU limit alone,
    however loaded the machine the tests share."""
    monkeypatch.setattr(render_process, "WALL_FACTOR", 100.0)


def test_a_job_that_burns_cpu_is_stopped_by_its_cpu_limit(no_wall_guard: None) -> None:
    started = time.monotonic()
    [outcome] = run_isolated(_burn_for_ever, [None], timeout=0.5)
    stopped = _failure(outcome)
    assert stopped.why == "rendering used over 0.5 s of CPU: stopped"
    assert stopped.limit and stopped.hint == "K8SLB_HELM_SECONDS (seconds) gives a chart more time"
    assert time.monotonic() - started < 30, "stopped, not left to the guard at 50 s"


def test_a_job_that_sleeps_is_stopped_by_the_wall_guard_not_before_its_cpu_limit_would() -> None:
    """A renderer stuck without using CPU: the clock stops it, at WALL_FACTOR (4) times the
    CPU limit, never at the limit itself."""
    started = time.monotonic()
    [outcome] = run_isolated(lambda _: time.sleep(100), [None], timeout=0.3)
    took = time.monotonic() - started
    stopped = _failure(outcome)
    assert stopped.why.startswith("rendering took over 1.2 s of wall time with 0.0 s of CPU")
    assert "4 times the 0.3 s of CPU a chart may use" in stopped.why and stopped.limit
    assert 1.2 <= took < 30


@pytest.fixture
def one_busy_cpu() -> Iterator[int]:
    """A CPU three processes keep busy (pinned to it), so that a job pinned there too gets
    a quarter of it at most: a machine far busier than an idle one."""
    cpu = min(os.sched_getaffinity(0))
    hogs = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
        )
        for _ in range(3)
    ]
    try:
        yield cpu
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_starved_job_gets_the_same_answer_as_on_an_idle_machine(
    one_busy_cpu: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job of 0.3 s of CPU against a limit of 1 s, starved: it takes longer than 1 s by
    the clock (a limit by the clock stopped it), and renders all the same, every time."""
    monkeypatch.setattr(render_process, "WALL_FACTOR", 20.0)

    def starved(job: str) -> str:
        os.sched_setaffinity(0, {one_busy_cpu})
        _burn(0.3)
        return job

    for attempt in ("first", "second"):
        started = time.monotonic()
        assert run_isolated(starved, [attempt], timeout=1.0) == [(True, attempt)]
        assert time.monotonic() - started > 1.0, "the clock's limit would have stopped it"


def test_every_thread_of_the_job_is_counted(no_wall_guard: None) -> None:
    """Go's runtime works in threads of its own: one that burns CPU while the job's first
    thread waits is stopped by the CPU limit, not left to the clock's guard."""

    def threaded(_: object) -> None:
        worker = threading.Thread(target=_burn_for_ever, args=(None,), daemon=True)
        worker.start()
        worker.join()

    [outcome] = run_isolated(threaded, [None], timeout=0.5)
    assert _failure(outcome).why == "rendering used over 0.5 s of CPU: stopped"


def test_a_process_the_job_runs_is_counted_and_stopped_with_it(
    no_wall_guard: None, tmp_path: Path
) -> None:
    """A `helm template` the child runs (the binary engine) burns CPU in a process of its
    own: counted (its group's time), and killed with the child."""
    recorded = tmp_path / "pid"

    def runs_helm(_: object) -> None:
        process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        recorded.write_text(str(process.pid))
        process.wait()

    [outcome] = run_isolated(runs_helm, [None], timeout=0.5)
    assert _failure(outcome).why == "rendering used over 0.5 s of CPU: stopped"
    stat = Path("/proc", recorded.read_text(), "stat")
    for _ in range(100):  # killed: gone, or a zombie until init reaps it
        if not stat.exists() or stat.read_text().rpartition(")")[2].split()[0] == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail("the process the job ran outlived it")


def test_the_runs_budget_counts_cpu_not_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four jobs that take 0.3 s each by the clock and use no CPU fit a budget of 0.5 s of
    CPU (a budget by the clock would leave the last two out)."""
    monkeypatch.setenv("K8SLB_HELM_BUDGET", "0.5")

    def waits(job: int) -> int:
        time.sleep(0.3)
        return job

    assert run_isolated(waits, [1, 2, 3, 4], timeout=5.0) == [(True, job) for job in (1, 2, 3, 4)]


def test_the_job_the_cpu_budget_runs_out_on_is_stopped_and_the_rest_not_started(
    no_wall_guard: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K8SLB_HELM_BUDGET", "0.5")

    def burns(job: int) -> int:
        _burn(0.3)
        return job

    first, second, third = run_isolated(burns, [1, 2, 3], timeout=5.0)
    assert first == (True, 1)
    assert _failure(second).why == "stopped: the run's 0.5 s of CPU for rendering charts ran out"
    assert _failure(third).why == (
        "not rendered: the run's 0.5 s of CPU for rendering charts were spent on the charts "
        "before it"
    )
    assert "K8SLB_HELM_BUDGET (seconds)" in _failure(third).hint


def test_the_runs_budget_has_a_wall_guard_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs stuck without using CPU under a high limit of their own: the run's wall clock
    stops them at WALL_FACTOR times its budget."""
    monkeypatch.setenv("K8SLB_HELM_BUDGET", "0.25")
    first, second = run_isolated(lambda _: time.sleep(100), [1, 2], timeout=10.0)
    assert _failure(first).why == (
        "stopped: the run's 1 s of wall time for rendering charts ran out "
        "(a guard, 4 times its 0.25 s of CPU)"
    )
    assert _failure(second).why == (
        "not rendered: the run's 1 s of wall time for rendering charts were spent on the "
        "charts before it"
    )


def test_where_no_proc_tells_the_cpu_time_the_limits_are_the_clocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not Linux: no process's CPU time to read, and the clock's limit is the chart's."""
    monkeypatch.setattr(render_process, "_stat", lambda pid: None)
    started = time.monotonic()
    [outcome] = run_isolated(lambda _: time.sleep(100), [None], timeout=0.3)
    assert _failure(outcome).why == "rendering took over 0.3 s: stopped"
    assert time.monotonic() - started < 1.2, "at its limit, not at a guard four times it"


def test_k8slb_helm_seconds_gives_a_chart_more_cpu(
    no_wall_guard: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render_process, "TIMEOUT", 0.2)

    def burns(_: object) -> str:
        _burn(0.4)
        return "rendered"

    assert "used over 0.2 s of CPU" in _failure(run_isolated(burns, [None])[0]).why
    monkeypatch.setenv("K8SLB_HELM_SECONDS", "3")
    assert run_isolated(burns, [None]) == [(True, "rendered")]
    monkeypatch.setenv("K8SLB_HELM_SECONDS", "not a number")
    assert render_process.seconds() == 0.2


def test_a_job_past_its_limit_between_two_readings_is_past_it_all_the_same(
    no_wall_guard: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a job is over its limit is the CPU it used, not whether a reading caught it
    running past (here none does): the CPU it says it ended at decides, and the next job
    goes on in the same child."""
    monkeypatch.setattr(render_process, "_group_cpu", lambda group: 0.0)

    def burns(seconds: float) -> float:
        _burn(seconds)
        return seconds

    over, within = run_isolated(burns, [0.4, 0.05], timeout=0.2)
    assert _failure(over).why == "rendering used over 0.2 s of CPU: stopped"
    assert within == (True, 0.05)
