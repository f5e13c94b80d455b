"""A progress bar on stderr for long runs: files parsed out of the total, then rules run.

Shown only where a person watches: stderr is a terminal, `CI` is not set, and the run has
lasted a second already (a quick run never flickers). It redraws at most ten times a second
and erases itself when done, so what follows prints on a clean line.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

DELAY = 1.0  # seconds before the bar appears
REDRAW = 0.1  # seconds between redraws
WIDTH = 30  # characters of the bar itself


class Progress:
    """Counts work done; draws only when `enabled`. A disabled one costs a method call."""

    def __init__(self, *, enabled: bool, stream: TextIO | None = None) -> None:
        self.enabled = enabled
        self._stream = stream or sys.stderr
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._shown = False
        self._label = ""
        self._done = 0
        self._total = 0

    @classmethod
    def for_terminal(cls) -> Progress:
        """On when a person watches stderr: a terminal, and not a CI log."""
        watched = sys.stderr.isatty() and not os.environ.get("CI")
        return cls(enabled=watched)

    def stage(self, label: str, total: int) -> None:
        """A new stage of `total` steps (`files parsed`, `rules run`)."""
        self._label, self._done, self._total = label, 0, total
        self._draw(force=self._shown)

    def advance(self, steps: int = 1) -> None:
        self._done += steps
        if self.enabled:
            self._draw()

    def _draw(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._started < DELAY or (not force and now - self._drawn_at < REDRAW):
            return
        self._drawn_at = now
        self._shown = True
        total = max(self._total, 1)
        filled = min(WIDTH, WIDTH * self._done // total)
        bar = "#" * filled + "-" * (WIDTH - filled)
        self._stream.write(f"\r[{bar}] {self._done}/{self._total} {self._label}\x1b[K")
        self._stream.flush()

    def close(self) -> None:
        """Erase the bar, if it was ever drawn."""
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


QUIET = Progress(enabled=False)
