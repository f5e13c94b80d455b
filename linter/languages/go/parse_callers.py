"""Who mentions each name in a Go file, read from every file (parsed or not: a test's
helper that never names gRPC is not parsed, yet it is what calls a server's method): for
each word the file calls or hands on as a value (`srv.RunTest(lis)`, `RunE: serve,`), the
top-level functions it is written in. code/projects.py's `test_only_code` reads them for
the whole tree: a function that only tests, and functions only tests call, mention is
run by no container.

A line scan, as `gofmt` writes Go: a top-level function opens at a line beginning `func`
and closes at a line that is `}` alone at its start. Comments and one-line strings are
skipped. What the scan cannot tell keeps a function real: a mention outside any function
is the package's (`*`), and a file past the budget says nothing (`complete` False), which
leaves every function of the tree real."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from k8slb.code.facts import MENTIONED_BY_TEST as TEST
from k8slb.code.facts import MENTIONED_OUTSIDE as PACKAGE
from k8slb.code.facts import SERVING_FACTS, CodeFacts
from k8slb.core import regex

# (name, caller) pairs a file may record; past them it is read as saying nothing
MAX_MENTIONS = 20_000
MAX_SCANNED = 1 << 20  # bytes of a file scanned at most (a larger one says nothing)
_HEADER = 2048  # bytes of a function's declaration read for a test's handle
_DIGITS = frozenset(b"0123456789")

_SCAN = regex.compile(
    rb"//[^\n]*"  # a comment
    rb'|"(?:[^"\\\n]|\\.)*"'  # a one-line string
    rb"|^func[ \t]*(?:\([^)\n]*\)[ \t]*)?(\w+)[^\n(]*\([^\n{]*"  # a top-level function
    rb"|^(\})"  # its end
    rb"|(?:(\w+)\.)?(\w+)[ \t]*(?:\(|[,)}]|$)",  # a call, or a value handed on
    regex.MULTILINE,
)
# A test's handle among a function's parameters (`t *testing.T`, `tb testing.TB`).
_TEST_HANDLE = regex.compile(rb"\btesting\.(?:T|TB|B|F)\b")
_KEYWORDS = frozenset(
    {
        "if",
        "for",
        "switch",
        "select",
        "func",
        "return",
        "go",
        "defer",
        "range",
        "make",
        "len",
        "cap",
        "new",
        "append",
        "panic",
        "nil",
        "true",
        "false",
        "err",
        "ctx",
        "string",
        "int",
        "error",
    }
)


@dataclass
class Callers:
    """What read_callers finds in one file."""

    # each name mentioned, with the callers it is mentioned in (TEST for all of a test's)
    mentions: dict[str, frozenset[str]] = field(default_factory=dict)
    # the top-level functions of a file that is no test's, and not given a test's handle:
    # (name, first line, last line)
    spans: tuple[tuple[str, int, int], ...] = ()
    complete: bool = False  # read whole (False: over the budget, says nothing)


# The methods of the `testing` package's T, B, F and M a test calls (`m.Run()`, `t.Run`):
# a test's mention of a name among them says nothing of a function of the tree so named.
_TESTING_METHODS = frozenset(
    {
        "Run",
        "Cleanup",
        "Context",
        "Deadline",
        "Error",
        "Errorf",
        "Fail",
        "FailNow",
        "Failed",
        "Fatal",
        "Fatalf",
        "Helper",
        "Log",
        "Logf",
        "Name",
        "Parallel",
        "Setenv",
        "Skip",
        "SkipNow",
        "Skipf",
        "TempDir",
        "Chdir",
        "ReportAllocs",
        "ResetTimer",
        "StartTimer",
        "StopTimer",
        "Loop",
        "Fuzz",
        "Add",
    }
)


def read_callers(data: bytes, is_test: bool, packages: Collection[str] = ()) -> Callers:
    """Each name the file mentions with the callers it is mentioned in, and where its
    functions are. A name another package's gives (`packages`: the names the file's imports
    go by) is kept with it (`fakes.Start`); a method's (`srv.RunTest`), alone."""
    if len(data) > MAX_SCANNED:
        return Callers()
    found: dict[str, set[str]] = {}
    spans: list[tuple[str, int, int]] = []
    pairs, line, counted = 0, 1, 0
    current = TEST if is_test else PACKAGE
    opened = 0  # the line the current function opens at
    # each match's spans, not its groups: the binding's `groups()` was most of the scan
    for (start, _), declared, end, owner, word in _SCAN.spans(data):
        if declared[0] != -1 or end[0] != -1:
            line += data.count(b"\n", counted, start)
            counted = start
        if declared[0] != -1:
            if not is_test:
                handle = _TEST_HANDLE.search(_header(data, start)) is not None
                current = TEST if handle else data[declared[0] : declared[1]].decode("latin-1")
                opened = line
            continue
        if end[0] != -1:
            if current not in (TEST, PACKAGE) and len(spans) < MAX_MENTIONS:
                spans.append((current, opened, line))
            current = TEST if is_test else PACKAGE
            continue
        if word[0] == -1 or data[word[0]] in _DIGITS:
            continue
        name = data[word[0] : word[1]].decode("latin-1")
        if name in _KEYWORDS or (current == TEST and name in _TESTING_METHODS):
            continue
        if owner[0] != -1:
            package = data[owner[0] : owner[1]].decode("latin-1")
            if package in packages:
                name = f"{package}.{name}"  # another package's function
        callers = found.setdefault(name, set())
        if current not in callers:
            callers.add(current)
            pairs += 1
            if pairs > MAX_MENTIONS:
                return Callers()
    mentions = {name: frozenset(callers) for name, callers in found.items()}
    return Callers(mentions, tuple(spans), True)


def _header(data: bytes, start: int) -> bytes:
    """A function's declaration from `func` to its body's `{` (its parameters, over lines
    as gofmt wraps them), _HEADER bytes at most."""
    end = data.find(b"{", start, start + _HEADER)
    return data[start : end if end != -1 else start + _HEADER]


def serving_spans(
    facts: CodeFacts, spans: tuple[tuple[str, int, int], ...]
) -> tuple[tuple[str, int, int], ...]:
    """Of a parsed file's functions (`spans`), those that hold a server, a listener, a
    wait or a stop (facts.SERVING_FACTS): the only ones whose callers are asked
    (test_only_code)."""
    lines = [fact.loc.line for kind in SERVING_FACTS for fact in getattr(facts, kind)]
    return tuple(
        (name, first, last)
        for name, first, last in spans
        if any(first <= line <= last for line in lines)
    )


def import_names(imports: tuple[tuple[int, str], ...]) -> frozenset[str]:
    """The names a Go file's imports go by, as their paths give them (the last element,
    or the one before a major version's `v2`); an alias is not known."""
    names = set()
    for _, path in imports:
        parts = path.split("/")
        last = parts[-1]
        if len(parts) > 1 and last[:1] == "v" and last[1:].isdigit():
            last = parts[-2]
        names.add(last.replace("-", "_").replace(".", "_"))
    return frozenset(names)
