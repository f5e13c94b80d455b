"""The budget the hostile-input tests give a child is CPU time, which a busy machine does
not eat into (tests/helpers.py's `within_cpu`): a child past it fails the test."""

from __future__ import annotations

import sys

import pytest

from .helpers import within_cpu


def test_a_child_that_spins_past_its_cpu_budget_fails_the_test() -> None:
    with pytest.raises(pytest.fail.Exception, match="used over 1 s of CPU"):
        within_cpu([sys.executable, "-c", "while True: pass"], cpu_seconds=1)


def test_a_child_that_waits_uses_no_cpu_budget() -> None:
    """Two seconds asleep, within a one-second budget: wall time is not counted."""
    done = within_cpu([sys.executable, "-c", "import time; time.sleep(2); print('up')"], 1)
    assert done.stdout.strip() == "up"
