"""What the front-ends that read code with tree-sitter (Go, JavaScript, Java) share: walking a
tree, a node's text, the KLB004 problem of a tree that does not parse, and whether two
texts hold the same code but for their comments (what `--add-noqa` may change)."""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Query


# CPU seconds tree-sitter may take to parse one file; the environment may change it (a
# repository cannot). Real files take milliseconds; its recovery from errors costs some
# text 20 s a megabyte (a TypeScript file of `x!x!x!...`), linear but unbounded.
PARSE_SECONDS = 10.0
PARSE_SECONDS_VARIABLE = "K8SLB_PARSE_SECONDS"
READ_CHUNK = 4096  # bytes handed to tree-sitter a read
CLOCK_EVERY = 32  # the progress reports of a parse (each 100 steps) a look at the clock


def parse_seconds() -> float:
    try:
        seconds = float(os.environ.get(PARSE_SECONDS_VARIABLE, PARSE_SECONDS))
    except ValueError:
        return PARSE_SECONDS
    return seconds if seconds > 0 else PARSE_SECONDS


def parsed(parser: Parser, data: bytes, max_reads: int | None = None) -> Node | None:
    """The file's tree, or None when tree-sitter's parse takes more than `parse_seconds()`
    of CPU, or reads the bytes more than `max_reads` times (a grammar whose recovery from
    an error goes back over what it read). The bytes are handed over in chunks so that the
    parse can be stopped, then parsed again from the bytes themselves, each node's text a
    slice of them: nothing changed, so tree-sitter reuses the whole first tree."""
    deadline = time.process_time() + parse_seconds()
    reads = 0
    reports = 0

    def read(offset: int, _point: object) -> bytes:
        nonlocal reads
        reads += 1
        over = max_reads is not None and reads > max_reads
        return b"" if over else data[offset : offset + READ_CHUNK]

    def stop(_offset: int, _has_error: bool) -> bool:
        # the CPU clock is a system call (some 1.7 µs on a VM): asked at every report
        # (tree-sitter's, each 100 steps of its parse) it cost a seventh of a parse
        nonlocal reports
        reports += 1
        return reports % CLOCK_EVERY == 0 and time.process_time() > deadline

    try:
        tree = parser.parse(read, progress_callback=stop)
    except ValueError:  # what the binding raises for a parse the callback stopped
        tree = None
    too_many = max_reads is not None and reads > max_reads
    if tree is None or too_many or time.process_time() > deadline:
        parser.reset()  # a stopped parse would go on with the next file's bytes
        return None
    return parser.parse(data, old_tree=tree).root_node


def parse_too_long(path: str, language: str) -> Problem:
    """KLB004 at info for a file `parsed` gave up on."""
    why = (
        f"tree-sitter took more than {parse_seconds():g} s of CPU to parse this {language} "
        f"file ({PARSE_SECONDS_VARIABLE})"
    )
    return Problem("KLB004", path, 1, 1, f"not analysed: {why}", severity=Severity.INFO)


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node`, in source order (iteratively: code can nest deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def first_pause(
    nodes: Iterable[Node],
    sleep: Callable[[Node], object | None],
    stops: Callable[[Node], bool],
    functions: tuple[str, ...],
) -> tuple[Node, object] | None:
    """The first sleep among the nodes, in source order, that comes before anything that
    stops the server or the process: (the sleep's node, what `sleep` said of it: its
    seconds). The bodies of `functions` (literals, lambdas) are not walked: they do not run
    there. What a SIGTERM handler does before it stops (code/facts.py's `SignalPause`)."""
    for node in nodes:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in functions:
                continue
            if stops(current):
                return None
            seconds = sleep(current)
            if seconds is not None:
                return current, seconds
            stack.extend(reversed(current.children))
    return None


class Calls:
    """Where a file calls each callee (`client.close`, keyed as its front-end keys them):
    whether a function makes a call is a bisection of the function's bytes, not a walk of
    the function each time it is asked (a walk per client made a function that makes
    thousands of clients quadratic)."""

    def __init__(self, calls: Iterable[tuple[str, Node]]) -> None:
        self.starts: dict[str, list[int]] = {}
        for callee, node in calls:
            self.starts.setdefault(callee, []).append(node.start_byte)
        for starts in self.starts.values():
            starts.sort()

    def within(self, callee: str, scope: Node, before: int | None = None) -> bool:
        """Whether `scope` holds a call of `callee` (one that starts before byte `before`)."""
        starts = self.starts.get(callee, [])
        at = bisect_left(starts, scope.start_byte)
        end = scope.end_byte if before is None else min(scope.end_byte, before)
        return at < len(starts) and starts[at] < end


def captured(parser: Parser, root: Node, query: str) -> dict[str, list[Node]]:
    """The nodes a query captures below `root`, by capture name, each list in source
    order: the walk done by tree-sitter's query engine, in C, leaving Python only the nodes
    a front-end reads (a walk in Python visited every token: most of a module's time)."""
    from tree_sitter import QueryCursor

    found: dict[str, list[Node]] = QueryCursor(_query(parser.language, query)).captures(root)
    # the binding gathers each capture's nodes in an order that changes from run to run (a
    # file's channels came out as 418, 426 one run and 426, 418 the next): sorted here, an
    # enclosing node before the ones it holds, as a walk meets them
    return {name: sorted(nodes, key=_source_order) for name, nodes in found.items()}


def captured_unordered(parser: Parser, root: Node, query: str) -> dict[str, list[Node]]:
    """`captured`'s nodes in the order the binding gives them (which changes from run to
    run): for a reader that sorts them into its own order anyway (one sort, not two)."""
    from tree_sitter import QueryCursor

    found: dict[str, list[Node]] = QueryCursor(_query(parser.language, query)).captures(root)
    return found


def _source_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


@cache
def _query(language: Language, source: str) -> Query:
    from tree_sitter import Query

    compiled: Query = Query(language, source)
    return compiled


def call_arguments(call: Node, comments: tuple[str, ...] = ("comment",)) -> list[Node]:
    """A call's (or a `new`'s) arguments, its comments left out (their node types: Java
    names two)."""
    arguments = call.child_by_field_name("arguments")
    return [c for c in arguments.named_children if c.type not in comments] if arguments else []


def node_text(node: Node | None) -> str:
    text = node.text if node is not None else None  # a slice of the source each time asked
    return text.decode("utf-8", "replace") if text else ""


def syntax_problem(
    path: str,
    root: Node,
    language: str,
    within_types: frozenset[str] = frozenset(),
    automatic_semicolons: bool = False,
    grammars_own: Callable[[Node], bool] | None = None,
) -> Problem | None:
    """KLB004 at the tree's first syntax error, when it has one. An error inside a
    declaration of types only (`within_types`: TypeScript's interfaces and type aliases)
    is the grammar's, not the file's: a compiler that accepts the file runs none of it,
    and k8slb reads nothing there, so it is no problem. With `automatic_semicolons`
    (JavaScript's rule) a `;` the tree lacks before a line break is none either, and
    neither is an error `grammars_own` says the grammar makes of valid code (a construct
    newer than the grammar, read whole around the error)."""
    if not root.has_error:
        return None
    found = False
    for node, held, depth in _errors(root, within_types):
        found = True
        # an error past MAX_TREE_DEPTH is the file's: asking for its excuses climbs its
        # parents, which crashed tree-sitter's binding 100,000 levels down
        deep = depth > MAX_TREE_DEPTH
        if held or (automatic_semicolons and not deep and _inserted_semicolon(node)):
            continue
        if grammars_own is not None and not deep and grammars_own(node):
            continue
        line = int(node.start_point[0]) + 1
        return Problem(
            "KLB004", path, line, 1, f"not valid {language}: a syntax error at line {line}"
        )
    if found:
        return None
    line = int(root.start_point[0]) + 1
    return Problem("KLB004", path, line, 1, f"not valid {language}: a syntax error at line {line}")


# How deep a tree may nest to be read: below what tree-sitter's query engine and a node's
# `parent` (found by descending from the root) slow down at, above real code (of 40,844
# files in the rounds' projects, the deepest nest 631 levels, generated protobuf code, and
# 503, a hand-written TypeScript component; one of 6,632, a generated Go string, is not read)
MAX_TREE_DEPTH = 1000


def too_deep(path: str, root: Node, language: str) -> Problem | None:
    """KLB004 at info where the tree nests more than MAX_TREE_DEPTH nodes deep, none with a
    syntax error: the file is left unread. A query's cost grows with the depth of the
    nodes it holds (a megabyte of `if`s nested in each other took one 12 s), and so does a
    reader's every question of a node's parent. Only a subtree that holds enough nodes to
    reach that deep is looked into (a node knows how many it holds without a walk): an
    ordinary file costs a look at its largest few nodes."""
    deep = _deeper_than(root, MAX_TREE_DEPTH)
    if deep is None:
        return None
    line = int(deep.start_point[0]) + 1
    problem = Problem("KLB004", path, line, 1, "")
    why = f"{language} code nested more than {MAX_TREE_DEPTH} levels deep (at line {line})"
    return not_analysed(problem, why)


def _deeper_than(root: Node, limit: int) -> Node | None:
    """A node more than `limit` levels below `root`, or None. A child `depth` below the root
    holding `count` nodes (itself included) reaches `depth + count - 1` at most."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        deep = [(c, depth + 1) for c in node.children if depth + c.descendant_count > limit]
        stack += reversed(deep)  # the first in source order on top
    return None


# A template language's action in a line (Hugo's and Go's `{{ if ... }}`, `{{ .Title }}`,
# `{{ site.Params.x }}`, Jinja's `{{ name }}` and `{% if %}`): not JSX's `={{ ... }}`, an
# object literal given to an attribute, nor a bare `{{` of nested blocks.
_TEMPLATE_ACTION = regex.compile(
    r"([\w-]=\s*)?\{\{-?\s*(?:"
    r"(?:if|else|end|range|with|define|template|block|partial|partialCached)\b"
    r"|[.$]"
    r"|[A-Za-z_]\w*(?:\.\w+)*\s*-?\}\}"
    r")"
    r"|\{%-?\s*(?:if|for|endif|endfor|block|endblock|extends|include|set|macro)\b"
)
# A template language's control action anywhere in a file (`{{ if ... }}`, `{{- range`,
# `{{ end }}`, `{% for %}`): no JavaScript or Python holds one outside a string, and a
# client framework's templates in strings use their own (`v-if`, `{{#if}}`).
_BLOCK_ACTION = regex.compile(
    rb"\{\{-?\s*(?:if|range|with|end|define|block)\b[^}\n]{0,200}\}\}"
    rb"|\{%-?\s*(?:if|for|endif|endfor|block|endblock|extends)\b[^%\n]{0,200}%\}"
)
# The length of a line looked at (a minified file is one line of megabytes)
_TEMPLATE_LINE = 4096


def template_line(data: bytes, line: int) -> str | None:
    """The text of line `line` (from 1) when it holds a template language's action, else
    the first control action of one in the file: a file whose syntax error is there, or
    that holds one, is a template rendered before it is code (a docs site's asset with a
    `.js` name), not broken code."""
    found = _line_action(data, line)
    return found if found is not None else template_block(data)


def template_block(data: bytes) -> str | None:
    """The first control action of a template language in the file (`{{ if ... }}`,
    `{% for ... %}`), if any."""
    if b"{{" not in data and b"{%" not in data:
        return None
    block = _BLOCK_ACTION.search(data)
    return block.group(0).decode("utf-8", "replace") if block is not None else None


def _line_action(data: bytes, line: int) -> str | None:
    """The text of line `line` (from 1) when it holds a template language's action."""
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    end = data.find(b"\n", start)
    text = data[start : end if end >= 0 else len(data)][:_TEMPLATE_LINE]
    if b"{{" not in text and b"{%" not in text:
        return None
    decoded = text.decode("utf-8", "replace")
    for found in _TEMPLATE_ACTION.finditer(decoded):
        if found.group(1) is None:  # `style={{` is JSX's object in an attribute
            return decoded.strip()
    return None


# A minifier's output by its name (`jquery.min.js`, `chart-min.js`, `vendor.bundle.js`)
_MINIFIED_NAMES = (".min.", "-min.", ".bundle.")
# A minified file by its layout: the line in error this long, and the file's lines this
# long on average (GitHub's linguist takes JavaScript averaging over 110 characters a line
# for minified): a build's output or a vendored library, not code written by hand, whose
# lines a formatter keeps under 80-120 characters.
MINIFIED_LINE = 500
MINIFIED_AVERAGE = 110


def minified(path: str, data: bytes, line: int) -> str | None:
    """Why a file whose syntax error is at `line` (from 1) is a minifier's output, or None:
    its name says so, or its line in error is over MINIFIED_LINE characters long in a file
    whose lines average over MINIFIED_AVERAGE. A bundler's or minifier's output is code a
    build wrote (and that its runtime parses); tree-sitter's grammar lags on some of what
    they emit, and a hand-written file's error is on a line of ordinary length."""
    name = path.rsplit("/", 1)[-1].lower()
    if any(mark in name for mark in _MINIFIED_NAMES):
        return f"named `{name}`"
    start = 0
    for _ in range(line - 1):  # at most as many finds as the file has lines: linear
        start = data.find(b"\n", start) + 1
        if start == 0:
            return None
    end = data.find(b"\n", start)
    length = (end if end >= 0 else len(data)) - start
    lines = data.count(b"\n") + 1
    if length <= MINIFIED_LINE or len(data) <= MINIFIED_AVERAGE * lines:
        return None
    return f"line {line} is {length:,} characters long"


def not_analysed(problem: Problem, why: str) -> Problem:
    """KLB004 told at `info`: a file the grammar refuses but its own toolchain takes (a
    dialect, or a version of the language newer than the grammar), which k8slb leaves
    unread. Only where the file shows what it is written in; a broken file stays an error."""
    return replace(problem, severity=Severity.INFO, message=f"not analysed: {why}")


def graded(problem: Problem | None, root: Node, data: bytes, language: str) -> Problem | None:
    """KLB004 as k8slb can judge a syntax error a tree-sitter grammar reports, whose
    grammar is not the language's compiler and lags it (`(number) => string` as a
    TypeScript parameter's type, a bare `&` in a JSX attribute's string, Go 1.26's
    `new(expr)`): an error only where the file shows it is broken for any version of its
    language: its brackets do not pair up (counted on the tree's tokens, so a bracket in
    a string, a comment or a regular expression is none), it holds a merge's conflict
    markers, or it nests past MAX_TREE_DEPTH (as no program's code does). Else the file
    is left unread, told at `info`. A problem told at `info` already (with a more precise
    reason) is kept."""
    if problem is None or problem.severity is not None:
        return problem
    if _conflict_markers(data):
        return replace(problem, message=f"{problem.message} (it holds a merge's conflict markers)")
    if _deeper_than(root, MAX_TREE_DEPTH) is not None:  # no program's code nests so deep
        return problem
    unpaired = _unpaired_bracket(root)
    if unpaired is not None:
        line = int(unpaired.start_point[0]) + 1
        bracket = node_text(unpaired)[:2]
        return replace(
            problem, message=f"{problem.message} (its `{bracket}` at line {line} pairs with none)"
        )
    return not_analysed(
        problem,
        f"tree-sitter's {language} grammar finds a syntax error at line {problem.line} of a "
        "file whose brackets pair up: most likely a construct the grammar does not read yet "
        f"(it lags {language}'s compiler); the file is left unread",
    )


# The brackets every tree-sitter grammar k8slb reads names as tokens of these types (a
# template's substitution opens with `${`)
_CLOSING = {"(": ")", "[": "]", "{": "}", "${": "}"}
_CLOSERS = frozenset(_CLOSING.values())
_BRACKET_BYTES = frozenset(b"()[]{}")


def _unpaired_bracket(root: Node) -> Node | None:
    """The first bracket token of the tree that pairs with none (a closer that closes no
    opener, or the innermost opener left open), or None. A token the grammar's lexer
    could not read (an ERROR leaf) that holds a bracket is unpaired: its brackets are
    not known. Tokens the recovery inserted (missing ones) are not the file's."""
    stack = [root]
    opened: list[Node] = []
    while stack:
        node = stack.pop()
        if node.child_count:
            stack.extend(reversed(node.children))
            continue
        if node.is_missing:
            continue
        kind = node.type
        if kind in _CLOSING:
            opened.append(node)
        elif kind in _CLOSERS:
            if not opened or _CLOSING[opened.pop().type] != kind:
                return node
        elif kind == "ERROR" and _BRACKET_BYTES.intersection(node.text or b""):
            return node
    return opened[-1] if opened else None


def _conflict_markers(data: bytes) -> bool:
    """Whether a line opens with a merge's conflict marker (`<<<<<<< ours`, `>>>>>>>
    theirs`), which no language reads."""
    return any(
        data.startswith(marker[1:]) or marker in data for marker in (b"\n<<<<<<< ", b"\n>>>>>>> ")
    )


def _errors(root: Node, within_types: frozenset[str]) -> Iterator[tuple[Node, bool, int]]:
    """The ERROR and missing nodes below `root` in source order, each with whether a node
    above it is of `within_types` and how deep it is: one walk (asking each error's
    ancestors again was quadratic in a file of nested errors: 50,000 `(` took half a
    minute)."""
    stack = [(root, False, 0)]
    while stack:
        node, held, depth = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            yield node, held, depth
        held = held or node.type in within_types
        stack.extend((child, held, depth + 1) for child in reversed(node.children))


def _inserted_semicolon(node: Node) -> bool:
    """Whether a missing node is a `;` that JavaScript inserts itself: the next token, one
    no production allows there, is on a later line (an import followed by a line that
    opens with `(`: tree-sitter's scanner leaves that `;` out, its recovery puts it back
    and the tree is the one the language reads). A `;` missing between two tokens of one
    line stays an error."""
    if not (node.is_missing and node.type == ";"):
        return False
    # the recovery may put the `;` after a comment: the tokens around it decide
    before, after = _token_beside(node, forward=False), _token_beside(node, forward=True)
    if before is None or after is None:
        return after is None
    return after.start_point[0] > before.end_point[0]


def _token_beside(node: Node, forward: bool) -> Node | None:
    """The nearest leaf after (or before) `node` that is not a comment."""
    current: Node | None = node
    while current is not None:
        sibling = current.next_sibling if forward else current.prev_sibling
        while sibling is not None:
            leaf = next((n for n in _walk_from(sibling, forward) if _token(n)), None)
            if leaf is not None:
                return leaf
            sibling = sibling.next_sibling if forward else sibling.prev_sibling
        current = current.parent
    return None


def _walk_from(node: Node, forward: bool) -> Iterator[Node]:
    """`walk`, from the last node backwards when not `forward` (lazily: the first token
    of a large statement is near its edge)."""
    if forward:
        yield from walk(node)
        return
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _token(node: Node) -> bool:
    return node.child_count == 0 and node.type != "comment" and not node.is_missing


def same_code(parser: Callable[[], Parser], old: bytes, new: bytes) -> bool:
    """Whether two texts say the same but for their comments: the same tokens in the same
    order, and the new text parses."""

    def tokens(data: bytes) -> list[tuple[str, bytes]] | None:
        root = parser().parse(data).root_node
        if root.has_error:
            return None
        return [
            (node.type, node.text or b"")
            for node in walk(root)
            # Go's and JavaScript's `comment`, Java's `line_comment` and `block_comment`
            if node.child_count == 0 and not node.type.endswith("comment")
        ]

    before = tokens(old)
    return before is not None and before == tokens(new)
