"""The rule the runtime proofs judge a spread of calls by (tests/fair_share.py): enough
calls to know each share at the stated confidence, never a time window's handful."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from .fair_share import (
    BATCH_CALLS,
    MINIMUM_BATCHES,
    MINIMUM_CALLS,
    Band,
    Spread,
    Tally,
    count_until_known,
    even,
    judge,
    student_t_quantile,
)

PODS = [f"pod-{n}" for n in range(10)]


def _round_robin(calls: int, start: int = 0) -> Counter[str]:
    return Counter(PODS[(start + n) % len(PODS)] for n in range(calls))


def _random(calls: int, weights: list[float], seed: int) -> Counter[str]:
    return Counter(random.Random(seed).choices(PODS, weights, k=calls))


def test_eleven_calls_decide_nothing() -> None:
    """What a 1-second window held on a loaded machine: not a verdict either way, however
    uneven (one pod with 2 of the 11, where 1.1 is fair)."""
    batches = [Counter({pod: 1}) for pod in PODS] + [Counter({"pod-0": 1})]
    assert judge(batches, even(PODS))[0] is None


def test_round_robin_is_known_fair_once_enough_calls_are_counted() -> None:
    batches = [_round_robin(BATCH_CALLS, start=n) for n in range(MINIMUM_BATCHES)]
    assert sum(b.total() for b in batches) < MINIMUM_CALLS
    assert judge(batches, even(PODS))[0] is None, "below the minimum of calls"
    batches = [_round_robin(100, start=n) for n in range(MINIMUM_BATCHES)]
    holds, intervals = judge(batches, even(PODS))
    assert holds is True
    assert all(low >= 0.07 and high <= 0.13 for _, low, _, high in intervals)


def test_a_pod_with_twice_its_share_is_known_unfair() -> None:
    weights = [2.0] + [1.0] * 9
    batches = [_random(200, weights, seed) for seed in range(20)]
    holds, intervals = judge(batches, even(PODS))
    assert holds is False
    assert intervals[0][1] > 0.13, "pod-0's interval lies above its band"


def test_fair_but_noisy_calls_wait_for_more_batches() -> None:
    """Calls spread at random (fair on average, noisy in each batch): a few batches leave
    the shares unknown, many make them known to hold; never known to fail."""
    weights = [1.0] * 10
    few = [_random(60, weights, seed) for seed in range(MINIMUM_BATCHES)]
    many = [_random(600, weights, seed) for seed in range(40)]
    assert judge(few, even(PODS))[0] is None
    assert judge(many, even(PODS))[0] is True


def test_students_t_quantiles_are_the_tables() -> None:
    assert student_t_quantile(0.975, 10) == pytest.approx(2.228, abs=1e-3)
    assert student_t_quantile(0.9995, 5) == pytest.approx(6.869, abs=1e-3)
    assert student_t_quantile(0.995, 30) == pytest.approx(2.750, abs=1e-3)


def test_calls_before_the_window_opens_are_not_counted() -> None:
    tally = Tally()
    tally.add({"pod-0": 1000})
    spread = count_until_known(tally, PODS, even(PODS), going=lambda: False)
    assert spread.calls == 0 and spread.holds is None


def test_when_the_time_runs_out_the_shares_are_judged_as_counted() -> None:
    spread = Spread({"a": 10, "b": 12}, batches=3, seconds=90.0, holds=None, intervals=())
    assert spread.within([Band(("a",), 0.35, 0.65), Band(("b",), 0.35, 0.65)])
    assert not spread.within([Band(("a",), 0.5, 1.0)])
