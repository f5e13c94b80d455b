"""The branches of the shell's `if`/`elif`/`else` and `case` a command sits in, read so
that a build script's command is taken only where its branch can run.

A Makefile's loop often builds each service one way and one of them another (`for s in
$(SERVICES); do if [ "$$s" = "gateway" ]; then docker build -f gateway/Dockerfile ...;
else docker build -f services/$$s/Dockerfile ...; fi; done`): each build holds for the
values its conditions let through. `Guards.read` follows the keywords of a text (a
recipe's line, or a script's lines one after another, the state kept between them) and
gives, for each command, the conditions of the branches around it; `settled` says whether
they hold once the words are known: True, False, or None when a condition is not one of
the tests read (`[ A = B ]`, `[ A != B ]`, `==`, `[[ ]]`, `test`, `-z`, `-n`, a leading
`!`) or names a value not known here.

Hostile-input safe: one pass over each character of the text, the keywords found by RE2
over each segment; the nesting kept is bounded (MAX_DEPTH, past it the branches are
unknown), as are the conditions an `elif` chain or a `case` keeps (MAX_TRIED), those of a
command in all (MAX_CLAUSES) and the length of each (MAX_CONDITION); each condition's
words are split once (a cache), however many values of a loop it is judged for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from k8slb.core import regex
from k8slb.core.shell_words import shell_words

MAX_DEPTH = 16
MAX_TRIED = 32
MAX_CONDITION = 512
MAX_CLAUSES = 32  # the conditions a command's branches keep in all: past it, not known

# A clause: ("test", condition, (), holds) or ("case", subject, patterns, holds), where
# `holds` says whether the branch needs it true or false; ("lost", "", (), True) when the
# branches past the budgets are not known.
Clause = tuple[str, str, tuple[str, ...], bool]
Guard = tuple[Clause, ...]
LOST: Clause = ("lost", "", (), True)

# A line that may open, turn or close a branch: most lines of a script are not read further
GUARD_WORDS = regex.compile(r"\b(?:if|elif|else|fi|case|esac)\b|;;")
_ARM = regex.compile(r"^\s*\(?\s*([^()\s][^()]*?)\s*\)\s*")
_CASE = regex.compile(r"^case\s+(\S+)\s+in\b\s*")
_FIRST = regex.compile(r"^\s*(\S+)\s*")
_GLOB = regex.compile(r"[*?\[\\$`]")  # a case pattern not read: a glob, a variable


@dataclass
class _Frame:
    kind: str  # "if" or "case"
    subject: str = ""  # a case's word
    tried: list[str | tuple[str, ...]] = field(default_factory=list)  # earlier branches
    current: str | tuple[str, ...] | None = None  # this branch's (None: `else`, `*)`)
    arm: bool = False  # a case waiting for its next arm's patterns
    lost: bool = False  # past the budgets: not known

    def clauses(self) -> Guard:
        if self.lost:
            return (LOST,)
        if self.kind == "if":
            found: list[Clause] = [("test", str(t), (), False) for t in self.tried]
            if isinstance(self.current, str):
                found.append(("test", self.current, (), True))
            return tuple(found)
        cases: list[Clause] = [("case", self.subject, tuple(t), False) for t in self.tried]
        if isinstance(self.current, tuple):
            cases.append(("case", self.subject, self.current, True))
        return tuple(cases)

    def turn(self, condition: str | tuple[str, ...] | None) -> None:
        """The next branch: the one before tried and found false."""
        if self.current is not None:
            self.tried.append(self.current)
        self.lost = self.lost or len(self.tried) > MAX_TRIED
        self.current = condition


@dataclass
class Guards:
    """The branches open at a point of a text read so far."""

    frames: list[_Frame] = field(default_factory=list)
    deeper: int = 0  # branches opened past MAX_DEPTH, not kept

    def guard(self) -> Guard:
        found: list[Clause] = [LOST] if self.deeper else []
        for frame in self.frames:
            found += frame.clauses()
        return tuple(found) if len(found) <= MAX_CLAUSES else (LOST,)

    def read(self, text: str) -> list[tuple[int, Guard]]:
        """Each command's start in `text` with the branches around it, in order."""
        found: list[tuple[int, Guard]] = []
        for start, after_arms, segment in _segments(text):
            offset = self._keywords(segment, after_arms)
            found.append((start + offset, self.guard()))
        return found

    def _open(self, frame: _Frame) -> None:
        if len(self.frames) >= MAX_DEPTH:
            self.deeper += 1
        else:
            self.frames.append(frame)

    def _close(self, kind: str) -> None:
        if self.deeper:
            self.deeper -= 1
        elif self.frames and self.frames[-1].kind == kind:
            self.frames.pop()

    def _keywords(self, segment: str, after_arms: bool) -> int:
        """Read the keywords that start a segment; where its command starts in it."""
        at = 0
        top = self.frames[-1] if self.frames and not self.deeper else None
        if top is not None and top.kind == "case":
            top.arm = top.arm or after_arms  # after a `;;`, here or on a line before
        if top is not None and top.kind == "case" and top.arm and segment.strip():
            arm = _ARM.match(segment)
            if arm is not None and not segment.lstrip().startswith("esac"):
                patterns = tuple(p.strip().strip("\"'") for p in arm[1].split("|"))
                top.turn(None if "*" in patterns else patterns)
                top.arm = False
                at = arm.end()
        for _ in range(8):  # `then else ...`: a few keywords at most before a command
            word = _FIRST.match(segment[at:])
            if word is None:
                return at
            keyword, rest = word[1], at + word.end()
            if keyword in ("if", "elif"):
                condition = segment[rest:].strip()
                condition = condition if len(condition) <= MAX_CONDITION else "\x00"
                if keyword == "if":
                    self._open(_Frame("if", current=condition))
                elif self.frames and not self.deeper and self.frames[-1].kind == "if":
                    self.frames[-1].turn(condition)
                return len(segment)  # the condition is the segment's rest
            if keyword == "else" and self.frames and not self.deeper:
                self.frames[-1].turn(None)
            elif keyword in ("fi", "esac"):
                self._close("if" if keyword == "fi" else "case")
            elif keyword == "case":
                opened = _CASE.match(segment[at:])
                if opened is None:
                    return at
                self._open(_Frame("case", subject=opened[1], arm=True))
                end = at + opened.end()
                return end + self._keywords(segment[end:], True)
            elif keyword not in ("then", "do", "{", "done"):
                return at
            at = rest
        return at


def _segments(text: str) -> list[tuple[int, bool, str]]:
    """The text cut at each `;`, `;;` and line end outside quotes: each piece's start,
    whether a `;;` (a case arm's end) came before it, and its text."""
    found: list[tuple[int, bool, str]] = []
    start, quote, after_arms, index = 0, "", False, 0
    while index < len(text):
        character = text[index]
        if quote:
            quote = "" if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character in ";\n":
            found.append((start, after_arms, text[start:index]))
            double = text.startswith(";;", index)
            after_arms = double
            index += 2 if double else 1
            start = index
            continue
        index += 1
    found.append((start, after_arms, text[start:]))
    return found


def guard_at(read: list[tuple[int, Guard]], offset: int) -> Guard:
    """The branches around the command at `offset` of a text `Guards.read` read."""
    guard: Guard = ()
    for start, around in read:
        if start > offset:
            break
        guard = around
    return guard


_TEST_OPENERS = {"[": "]", "[[": "]]", "test": None}


def settled(guard: Guard, literal: Callable[[str], str | None]) -> bool | None:
    """Whether a command's branches can run: False when a condition says not, True when
    every one says so, None when one is not known. `literal`: a word's value, None when
    it is not known here."""
    known = True
    for kind, text, patterns, holds in guard:
        if kind == "lost":
            known = False
            continue
        if kind == "case":
            subject = literal(text.strip("\"'"))
            result = None if subject is None else _case_matches(subject, patterns)
        else:
            result = _test(text, literal)
        if result is None:
            known = False
        elif result != holds:
            return False
    return True if known else None


def _case_matches(subject: str, patterns: tuple[str, ...]) -> bool | None:
    if any(_GLOB.search(p) for p in patterns):
        return None  # a glob or a value not known: not read
    return subject in patterns


@functools.lru_cache(maxsize=1024)
def _words(condition: str) -> tuple[str, ...]:
    """A condition's words (none where the shell would not split it)."""
    try:
        return tuple(shell_words(condition))
    except ValueError:
        return ()


def _test(condition: str, literal: Callable[[str], str | None]) -> bool | None:
    """`[ A = B ]` and its kin, its words' values given by `literal`; None: not read."""
    words = list(_words(condition))
    negated = bool(words) and words[0] == "!"
    words = words[1:] if negated else words
    if not words or words[0] not in _TEST_OPENERS:
        return None
    closing = _TEST_OPENERS[words[0]]
    if closing is not None:
        if words[-1] != closing:
            return None
        words = words[1:-1]
    else:
        words = words[1:]
    if len(words) not in (2, 3):
        return None
    values = [literal(word) for word in words]
    result: bool | None = None
    if len(words) == 3 and words[1] in ("=", "==", "!="):
        left, right = values[0], values[2]
        if left is not None and right is not None:
            result = (left == right) != (words[1] == "!=")
    elif len(words) == 2 and words[0] in ("-z", "-n") and values[1] is not None:
        result = (values[1] == "") == (words[0] == "-z")
    if result is None:
        return None
    return result != negated
