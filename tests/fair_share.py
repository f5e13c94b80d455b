"""When a runtime proof has counted enough calls to judge where they went: the one rule of
the four proofs (tests/test_grpc_proof.py on grpcio, and tests/runtime_proof.py's on
grpc-go, grpc-js and grpc-java), in place of a time window, which on a busy machine held a
dozen calls.

The calls are counted in a `Tally` from the moment its window opens, in quarter seconds;
quarter seconds are merged into batches of BATCH_CALLS calls at least. A share (a pod's,
or a group's) is the ratio of its calls to all; calls on one connection go to one pod, so
calls are not independent draws, and the share's standard error is taken from how it
varies from batch to batch (batch means, a ratio estimator). A claim is a band for each
share: it holds once every share's interval at CONFIDENCE (Student's t over the batches,
Bonferroni over the shares) lies in its band, and fails once one lies outside it, never
before MINIMUM_CALLS calls in MINIMUM_BATCHES batches. The calls go on until then, or
until TIME_LIMIT_S (generous: minutes of a loaded machine's calls), where the shares as
counted are judged against their bands."""

from __future__ import annotations

import functools
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

SLOT_S = 0.25  # the quarter second in which calls are counted
BATCH_CALLS = 50  # a batch: quarter seconds merged until it holds this many calls
# a pod that got 1 % of the calls shows at least one of them, at 99 %: 1 - 0.99**460 > 0.99
MINIMUM_CALLS = 460
MINIMUM_BATCHES = 8
CONFIDENCE = 0.99  # of all the shares of a claim together
TOLERANCE = 0.3  # a fair share: within 30 % of an even split
TIME_LIMIT_S = 90.0


@dataclass(frozen=True)
class Band:
    """The share of the calls that `pods` (together) should get: between low and high."""

    pods: tuple[str, ...]
    low: float
    high: float


def even(pods: Sequence[str]) -> list[Band]:
    """Every pod within TOLERANCE of an even split."""
    fair = 1 / len(pods)
    return [Band((pod,), (1 - TOLERANCE) * fair, (1 + TOLERANCE) * fair) for pod in pods]


class Tally:
    """Calls per pod, counted per quarter second once `open()` is called (those before are
    not counted: the scenario is settling). `add` may be called from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._opened: float | None = None
        self._slots: list[Counter[str]] = []

    def open(self) -> None:
        with self._lock:
            self._opened = time.monotonic()

    def _slot(self) -> int:
        assert self._opened is not None
        return int((time.monotonic() - self._opened) / SLOT_S)

    def add(self, counts: Mapping[str, int]) -> None:
        with self._lock:
            if self._opened is None:
                return
            slot = self._slot()
            while len(self._slots) <= slot:
                self._slots.append(Counter())
            self._slots[slot].update(counts)

    def batches(self) -> list[Counter[str]]:
        """The quarter seconds that are over, merged into batches of BATCH_CALLS calls at
        least (a last one with fewer is left out)."""
        with self._lock:
            over = self._slots[: self._slot()] if self._opened is not None else []
            batches, batch = [], Counter[str]()
            for slot in over:
                batch.update(slot)
                if batch.total() >= BATCH_CALLS:
                    batches.append(batch)
                    batch = Counter()
        return batches


@dataclass(frozen=True)
class Spread:
    """Where the counted calls went, and what the claim's bands make of it."""

    counts: dict[str, int]  # by pod, every pod named (0 for none)
    batches: int
    seconds: float
    holds: bool | None  # None: not known at CONFIDENCE when the time ran out
    intervals: tuple[tuple[str, float, float, float], ...]  # (pods, low, share, high)

    @property
    def calls(self) -> int:
        return sum(self.counts.values())

    def __str__(self) -> str:
        counted = f"{self.calls} calls in {self.batches} batches, {self.seconds:.1f} s"
        if not self.intervals:
            enough = "enough" if self.holds else "too few"
            return f"{counted} ({enough}): {self.counts}"
        shares = ", ".join(f"{p} {s:.3f} [{lo:.3f}, {hi:.3f}]" for p, lo, s, hi in self.intervals)
        known = {True: "holds", False: "fails", None: "is not known"}[self.holds]
        return f"{counted}: the claim {known} at {CONFIDENCE:.0%}; {self.counts}; shares {shares}"

    def within(self, bands: Sequence[Band]) -> bool:
        """The claim, judged by the shares as counted (what is left when time ran out)."""
        total = self.calls
        return total > 0 and all(
            band.low <= sum(self.counts[p] for p in band.pods) / total <= band.high
            for band in bands
        )


def judge(
    batches: Sequence[Counter[str]], bands: Sequence[Band]
) -> tuple[bool | None, list[tuple[str, float, float, float]]]:
    """Whether the bands hold (True), fail (False) or are not known yet (None), with each
    band's interval (pods, low, share, high)."""
    counts = [sum(batch.values()) for batch in batches]
    total = sum(counts)
    if total < MINIMUM_CALLS or len(batches) < MINIMUM_BATCHES or not bands:
        return None, []
    t = student_t_quantile(1 - (1 - CONFIDENCE) / (2 * len(bands)), len(batches) - 1)
    mean = total / len(batches)
    holds: bool | None = True
    intervals = []
    for band in bands:
        group = [sum(batch[p] for p in band.pods) for batch in batches]
        share = sum(group) / total
        spread = sum((n - share * calls) ** 2 for n, calls in zip(group, counts, strict=True))
        error = math.sqrt(spread / (len(batches) * (len(batches) - 1))) / mean
        low, high = share - t * error, share + t * error
        intervals.append(("+".join(band.pods), low, share, high))
        if high < band.low or low > band.high:
            holds = False
        elif holds and not (band.low <= low and high <= band.high):
            holds = None
    return holds, intervals


def count_until_known(
    tally: Tally,
    pods: Sequence[str],
    bands: Sequence[Band] = (),
    *,
    going: Callable[[], bool] = lambda: True,
    limit_s: float = TIME_LIMIT_S,
) -> Spread:
    """Wait, from the tally's opening, until the bands are known to hold or fail (with no
    bands: until MINIMUM_CALLS calls in MINIMUM_BATCHES batches), or until `limit_s`, or
    until `going()` says the calls stopped; what was counted."""
    tally.open()
    start = time.monotonic()
    while True:
        time.sleep(SLOT_S / 2)
        batches = tally.batches()
        holds, intervals = judge(batches, bands or [Band(tuple(pods), 0.0, 1.0)])
        elapsed = time.monotonic() - start
        if holds is not None or elapsed > limit_s or not going():
            break
    total: Counter[str] = Counter()
    for batch in batches:
        total.update(batch)
    counts = {pod: total.get(pod, 0) for pod in pods}
    if not bands:  # no claim on shares: enough calls were counted, that is all
        intervals = []
    return Spread(counts, len(batches), elapsed, holds, tuple(intervals))


@functools.cache
def student_t_quantile(p: float, dof: int) -> float:
    """The p-quantile of Student's t with `dof` degrees of freedom (p > 0.5), by bisection
    on its distribution function (Simpson's rule over the density)."""

    scale = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)

    def density(x: float) -> float:
        return math.exp(scale - (dof + 1) / 2 * math.log1p(x * x / dof))

    def cdf(x: float, steps: int = 400) -> float:
        h = x / steps
        inner = sum((4 if i % 2 else 2) * density(i * h) for i in range(1, steps))
        return 0.5 + h / 3 * (density(0) + inner + density(x))

    low, high = 0.0, 1.0
    while cdf(high) < p:
        low, high = high, high * 2
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < p else (low, middle)
    return (low + high) / 2
