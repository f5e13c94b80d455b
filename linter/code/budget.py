"""How far the code readers follow a value, one definition for every language (Python, Go,
JavaScript and TypeScript, Java, and the values that cross modules, code/imported.py).

A value past its budget is unknown, never an error: a name followed through more than
MAX_DEPTH steps (names, operators, members, re-exports), a string longer than MAX_TEXT
characters or a text made of more than MAX_PARTS pieces (facts.joined), and any value once a
file's reading has computed MAX_STEPS of them. The depth bounds each value's recursion; the
steps bound the work of a file that fans out (an object whose members name another object
eighty times, five levels deep), which a depth alone lets grow as the fan-out to the power
of the depth; the sizes bound the memory of a string doubled again and again. A parameter
is followed to the values its function's call sites pass, each one a step deeper, and to
at most MAX_CHOICES different ones."""

from __future__ import annotations

MAX_DEPTH = 8  # names, operators and members one value is followed through
MAX_TEXT = 4096  # characters of a string value: far more than any address, URL or option
MAX_PARTS = 64  # pieces of a text that waits for an imported value (facts.Joined)
MAX_STEPS = 20_000  # values one file's reading computes
# values a function's parameter is followed to (its call sites', facts.Alternatives): past
# it the parameter is unknown
MAX_CHOICES = 8
# statements nested in one another (an `if` in an `if`, an `else if` chain) that a walk
# over a function's statements follows by recursion: past it the walk gives up, as unknown
MAX_NESTING = 100


class Budget:
    """What one reading may still compute (a reader makes one per file)."""

    def __init__(self, steps: int = MAX_STEPS) -> None:
        self.left = steps

    def step(self, depth: int) -> bool:
        """Count one value computed `depth` steps from where it was asked; False when it is
        past the budget (too deep, or the reading's steps are spent): it is then unknown."""
        self.left -= 1
        return depth <= MAX_DEPTH and self.left >= 0
