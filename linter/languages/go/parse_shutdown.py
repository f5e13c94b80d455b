"""Whether a Go program waits for its shutdown once SIGTERM arrives (code/facts.py's
`SignalExit`): from each place the signal is received (`<-ch` of a `signal.Notify`
channel, `<-ctx.Done()` of a `signal.NotifyContext` context or of one made from it by
`errgroup.WithContext` or `context.WithCancel`), the statements that follow
are walked until the process exits (`os.Exit`, a `Fatal` log, a return from `main` or
from the function `main` ends with) or something blocks. Anything k8slb cannot show to
return at once blocks: a call other than a log line, a context's cancel or a close, a
channel operation, a `select`, a loop. A goroutine that ends, or a walk that blocks, is
a process that waits; only a path of non-blocking steps to an exit is reported. A
receive of a signal channel that comes after another receive of it in the same function
(`<-ch; close(stop); <-ch; os.Exit(1)`) waits for a second signal, which the kubelet
never sends: its path is not followed (_received_before).

grpc-go's `Serve` returns only once a `GracefulStop` has finished, so a handler that
starts the stop in a goroutine while `main` returns from `Serve` is waited for: only the
signal's own path is followed here, never `Serve`'s.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING

from k8slb.code.budget import MAX_NESTING
from k8slb.code.facts import Loc, SignalExit, SignalPause
from k8slb.code.syntax_trees import first_pause, walk
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

# Calls that return at once: a log line, a context's cancel, closing or flushing.
_QUIET_PACKAGES = frozenset(
    {"fmt", "log", "errors", "strconv", "strings", "time", "signal", "context"}
)
# the context functions whose context is done when their parent is
_DERIVED = frozenset(
    {"WithTimeout", "WithDeadline", "WithCancel", "WithTimeoutCause", "WithDeadlineCause"}
)
# (a method's name is looked up in sets: an RE2 match a statement cost the binding's copy
# of the name and a match object; tests/test_go_reading_by_query.py holds them to the patterns)
_LOGGED = ("Info", "Warn", "Warning", "Error", "Debug", "Trace", "Notice", "Print", "Log")
_LOG_METHODS = frozenset(
    f"{name}{suffix}"
    for name in (*_LOGGED, "Msg", "Msgf", "Send")
    for suffix in ("", "f", "ln", "w", "Context", "S")
)
_QUIET_NAMES = _LOG_METHODS | {"Sugar", "String", "Err", "Close", "Sync", "Flush", "Now", "Since"}
_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")  # RE2's \w
_QUIET_BUILTINS = frozenset({"close", "len", "print", "println", "cancel", "stop"})
_BLOCKING_TIME = frozenset({"Sleep"})  # time.Sleep waits: a drain by the clock
_FATAL = frozenset({"Fatal", "Fatalf", "Fatalln", "Fatalw", "Exit"})
_GRACEFUL = frozenset({"GracefulStop", "Shutdown"})
_FUNCTIONS = ("function_declaration", "method_declaration", "func_literal")


class _Blocks(Exception):
    """The walk met a step that may wait (or a path it does not follow): no exit is
    reported."""


def signal_exits(
    mains: dict[str, Node],
    unary: Iterable[Node],
    sources: list[tuple[str, str]],
    loc: Callable[[Node], Loc],
) -> list[SignalExit]:
    """The exits each receive of a SIGTERM source reaches with nothing waited for.
    `mains`: `main_tails`; `unary`: the file's receives (`<-x`), in source order (the
    reader's binding found them);
    `sources`: (how, name), `("channel", "sig")` for `signal.Notify(sig, ...)`,
    `("context", "ctx")` for `ctx, stop := signal.NotifyContext(...)`."""
    found: list[SignalExit] = []
    memo = _Memo()
    channels = {name for how, name in sources if how == "channel"}
    for receive in _receives(unary, sources):
        operand = _text(receive.child_by_field_name("operand"))
        if operand in channels and _received_before(receive, operand, memo):
            continue  # a second signal's exit: the first one's path says what SIGTERM does
        # after `<-ctx.Done()`, ctx is done
        walker = _Walker(mains, {operand.removesuffix(".Done()")} - {operand}, memo)
        try:
            exit_node, how = walker.after_receive(receive)
        except _Blocks:
            continue
        if exit_node is None:
            continue
        started = loc(walker.started) if walker.started is not None else None
        expired = loc(walker.expired) if walker.expired is not None else None
        found.append(SignalExit(loc(exit_node), loc(receive), how, started, expired))
    return found


# the calls that stop a server (a health server's `Shutdown` fails readiness: not these)
_STOPS = frozenset({"GracefulStop", "Stop", "Shutdown", "Close"})


def signal_pauses(
    unary: Iterable[Node],
    sources: list[tuple[str, str]],
    loc: Callable[[Node], Loc],
    sleep: Callable[[Node], object | None],
    health: set[str],
) -> list[SignalPause]:
    """The sleeps (`time.Sleep(d)`, `<-time.After(d)`: `sleep` gives their seconds) that
    come, after a receive of a SIGTERM source, in the statements that follow it in its
    block or case, before a server's stop, an exit or a return. `unary`: as for
    signal_exits."""

    receives = list(_receives(unary, sources))
    return _pauses_after(receives, loc, sleep, health, signalled=True)


# a server that drains itself says NOT_SERVING a few times at most
MAX_DRAIN_STARTS = 64


def drain_pauses(
    not_serving: Iterable[Node],
    loc: Callable[[Node], Loc],
    sleep: Callable[[Node], object | None],
    health: set[str],
) -> list[SignalPause]:
    """The sleeps that follow, in its block, a health service set NOT_SERVING (`not_serving`:
    the `NOT_SERVING` names), before a server's stop, an exit or a return: a server that
    drains itself, on a path from SIGTERM k8slb may not follow (the signal received in
    another file, the drain in a method it calls). Only the first MAX_DRAIN_STARTS are
    looked after: each start's statement is found by climbing its parents, and tree-sitter
    finds a node's parent from the root (a hostile file's thousands of them, nested
    thousands deep, were a quadratic walk)."""
    starts = list(islice(not_serving, MAX_DRAIN_STARTS))
    return _pauses_after(starts, loc, sleep, health, signalled=False)


def _pauses_after(
    starts: list[Node],
    loc: Callable[[Node], Loc],
    sleep: Callable[[Node], object | None],
    health: set[str],
    signalled: bool,
) -> list[SignalPause]:
    """The first sleep after each of `starts`, in the statements that follow its own in
    its block or case, before a server's stop, an exit or a return."""
    waiting = {start.id for start in starts}

    def stops(node: Node) -> bool:
        # another start begins a walk of its own (and each statement is walked once,
        # however many starts a block has)
        if node.type == "return_statement" or node.id in waiting:
            return True
        if node.type != "call_expression":
            return False
        called = node.child_by_field_name("function")
        if called is None or called.type != "selector_expression":
            return False
        operand = _text(called.child_by_field_name("operand"))
        field = _text(called.child_by_field_name("field"))
        return (field in _STOPS and operand not in health) or _fatal(node) is not None

    found: list[SignalPause] = []
    memo = _Memo()
    for start in starts:
        statement = start
        while statement.parent is not None and statement.parent.type not in (
            "statement_list",
            "block",
            "communication_case",
        ):
            statement = statement.parent
        holder = statement.parent
        if holder is None or statement.type in _FUNCTIONS:
            continue
        if holder.type == "communication_case" and signalled:  # `case <-ch:`: its statements
            after: Iterable[Node] | None = _statements(holder, memo)
        else:
            after = memo.after(holder, statement)
        if after is None:
            continue
        first = first_pause(after, sleep, stops, _FUNCTIONS)
        if first is not None:
            found.append(SignalPause(loc(first[0]), loc(start), first[1], signalled))
    return found


def _received_before(receive: Node, channel: str, memo: _Memo) -> bool:
    """Whether a receive of a signal channel comes after another receive of it in the
    same function, one that is a statement of its own (`<-ch`, `sig := <-ch`) earlier in a
    block that holds this one (k8s.io/apiserver's and controller-runtime's handler:
    `<-ch; close(stop); <-ch; os.Exit(1)`). It then waits for a second signal, and the
    kubelet sends SIGTERM once (then SIGKILL): what follows it is not what SIGTERM does.
    (A context's `<-ctx.Done()` is not one: once done, it returns at once again.) The
    climb stops at MAX_NESTING enclosing nodes: a deeper receive is judged alone."""
    node = receive
    for _ in range(MAX_NESTING):
        holder = node.parent
        if holder is None or holder.type in _FUNCTIONS:
            return False
        if holder.type in ("statement_list", "block") and memo.receives_before(
            holder, node, channel
        ):
            return True
        node = holder
    return False


def _receive_of(statement: Node) -> str | None:
    """The channel a statement only receives from (`<-ch`, `sig := <-ch`, `sig = <-ch`)."""
    if statement.type == "expression_statement":
        values = statement.named_children
    elif statement.type in ("short_var_declaration", "assignment_statement"):
        right = statement.child_by_field_name("right")
        values = right.named_children if right is not None else []
    else:
        return None
    if len(values) != 1 or values[0].type != "unary_expression":
        return None
    if _text(values[0].child_by_field_name("operator")) != "<-":
        return None
    return _text(values[0].child_by_field_name("operand"))


def _receives(unary: Iterable[Node], sources: list[tuple[str, str]]) -> Iterator[Node]:
    channels = {name for how, name in sources if how == "channel"}
    contexts = {f"{name}.Done()" for how, name in sources if how == "context"}
    for node in unary:
        if _text(node.child_by_field_name("operator")) != "<-":
            continue
        operand = _text(node.child_by_field_name("operand"))
        if operand in channels or operand in contexts:
            yield node


def main_tails(
    bodies: Iterable[Node], called: Callable[[Node], Iterable[tuple[int, str]]]
) -> dict[str, Node]:
    """The functions whose return ends the process: `main`, and each function of the file
    that `main` calls in a statement after which `main` only exits (`os.Exit(run(ctx))`,
    `if err := run(); err != nil { log.Fatal(err) }` at its end), by name, with the
    statement of `main` that calls it. `bodies`: the bodies of the file's functions named
    `main`; `called(body)`: where each call of a named function (`run(ctx)`) the body makes
    itself (not a function literal inside it) starts, and the name, in source order (the
    reader's binding found them)."""
    tails: dict[str, Node] = {}
    for body in bodies:
        tails["main"] = body
        statements = _statements(body)
        starts = [statement.start_byte for statement in statements]
        for start, name in called(body):
            at = bisect_right(starts, start) - 1
            if at < 0 or start >= statements[at].end_byte:
                continue
            if statements[at].type not in ("go_statement", "defer_statement"):
                tails.setdefault(name, statements[at])
    return tails


def _statements(block: Node, memo: _Memo | None = None) -> list[Node]:
    """The statements of a block, a case or a statement list (kept in `memo`: a block of
    thousands of receives is asked once for each)."""
    if memo is not None and block.id in memo.statements:
        return memo.statements[block.id]
    inner = [c for c in block.named_children if c.type == "statement_list"]
    holder = inner[0] if inner else block
    statements = [c for c in holder.named_children if c.type != "comment"]
    if memo is not None:
        memo.statements[block.id] = statements
    return statements


class _Memo:
    """The statements of each block read, and where each statement is among them, by
    node id: each receive's walk asks for its block's, found once."""

    def __init__(self) -> None:
        self.statements: dict[int, list[Node]] = {}
        self.places: dict[int, dict[int, int]] = {}
        # each block's first statement that receives from each channel, by its place
        self.first_receives: dict[int, dict[str, int]] = {}

    def after(self, holder: Node, statement: Node) -> Iterator[Node] | None:
        """The statements of `holder` after `statement`, as the walk takes them (a walk
        that stops early reads no more); None when it is not one of them."""
        statements = _statements(holder, self)
        place = self._place(holder, statement)
        if place is None:
            return None
        return (statements[i] for i in range(place + 1, len(statements)))

    def _place(self, holder: Node, statement: Node) -> int | None:
        places = self.places.get(holder.id)
        if places is None:
            statements = _statements(holder, self)
            places = self.places[holder.id] = {s.id: i for i, s in enumerate(statements)}
        return places.get(statement.id)

    def receives_before(self, holder: Node, statement: Node, channel: str) -> bool:
        """Whether a statement of `holder` before `statement` only receives from `channel`
        (each block's first receive of each channel is found once: _receive_of)."""
        place = self._place(holder, statement)
        if place is None:
            return False
        firsts = self.first_receives.get(holder.id)
        if firsts is None:
            firsts = self.first_receives[holder.id] = {}
            for at, each in enumerate(_statements(holder, self)):
                received = _receive_of(each)
                if received is not None:
                    firsts.setdefault(received, at)
        first = firsts.get(channel)
        return first is not None and first < place


class _Walker:
    def __init__(self, mains: dict[str, Node], done: set[str], memo: _Memo) -> None:
        self.mains = mains
        self.memo = memo  # the statements of each block, by its id (_statements)
        self.done = done  # the contexts known to be done: a Shutdown with one returns at once
        self.started: Node | None = None  # `go server.GracefulStop()` on the way
        self.expired: Node | None = None  # `srv.Shutdown(ctx)` with a done ctx on the way
        self.depth = 0  # main's own calls followed (one: `main` -> `run`)
        self.nesting = 0  # the `if`s the walk is inside (each a recursion)

    def after_receive(self, receive: Node) -> tuple[Node | None, str]:
        """Walk on from the statement that receives (or the case that does)."""
        statement = receive
        while statement.parent is not None and statement.parent.type not in (
            "statement_list",
            "block",
            "communication_case",
        ):
            statement = statement.parent
            if statement.type in _FUNCTIONS:
                return None, ""
        holder = statement.parent
        if holder is None:
            return None, ""
        if holder.type == "communication_case":  # `case <-ch:`: the case's statements
            return self.walk_on(holder, None)
        if statement.type != "expression_statement" and statement.type not in (
            "short_var_declaration",
            "assignment_statement",
        ):
            return None, ""  # a receive inside an `if`, a `for`...: not followed
        return self.walk_on(holder, statement)

    def walk_on(self, holder: Node, after: Node | None) -> tuple[Node | None, str]:
        """From the statement after `after` in `holder` (from the first when None), up
        through the statements that enclose it, to an exit."""
        while True:
            statements = _statements(holder, self.memo)
            rest = self.memo.after(holder, after) if after is not None else statements
            for statement in rest or []:
                ended = self.step(statement)
                if ended is not None:
                    return ended
            # the end of the block: the statement that holds it ends too (a loop's does not)
            node = holder.parent if holder.type == "statement_list" else holder
            if node is None:
                return None, ""
            if node.parent is not None and node.parent.type in _FUNCTIONS:
                return self.returns(node.parent, statements[-1] if statements else node)
            ended_statement = _ended_statement(node)
            outer = ended_statement.parent if ended_statement is not None else None
            if outer is None or outer.type not in ("statement_list", "block"):
                return None, ""
            holder, after = outer, ended_statement

    def step(self, statement: Node) -> tuple[Node | None, str] | None:
        """None to go on; (exit, how) when the statement exits; _Blocks when it may wait."""
        kind = statement.type
        if kind == "return_statement":
            self.quiet(statement)
            function = statement.parent
            while function is not None and function.type not in _FUNCTIONS:
                function = function.parent
            return self.returns(function, statement) if function is not None else (None, "")
        if kind == "go_statement":
            for node in walk(statement):
                called = node.child_by_field_name("function")
                if (
                    node.type == "call_expression"
                    and called is not None
                    and called.type == "selector_expression"
                    and _text(called.child_by_field_name("field")) in _GRACEFUL
                ):
                    self.started = self.started or node
            return None
        if kind == "expression_statement" and statement.named_children:
            call = statement.named_children[0]
            if call.type == "call_expression":
                how = _fatal(call)
                if how is not None:
                    return statement, how
        if kind in ("defer_statement", "empty_statement", "comment", "var_declaration"):
            return None
        if kind in (
            "for_statement",
            "select_statement",
            "send_statement",
            "labeled_statement",
            "goto_statement",
        ):
            raise _Blocks
        if kind == "if_statement":
            return self.conditional(statement)
        if kind == "short_var_declaration":
            self.derive(statement)
        self.quiet(statement)
        return None

    def derive(self, statement: Node) -> None:
        """`c, cancel := context.WithTimeout(ctx, 10*time.Second)` of a done ctx is done
        at once (so is one with no time at all)."""
        left = statement.child_by_field_name("left")
        right = statement.child_by_field_name("right")
        names = list(left.named_children) if left is not None else []
        values = list(right.named_children) if right is not None else []
        if not names or len(values) != 1 or values[0].type != "call_expression":
            return
        called = values[0].child_by_field_name("function")
        arguments = values[0].child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if (
            called is None
            or called.type != "selector_expression"
            or _text(called.child_by_field_name("operand")) != "context"
            or _text(called.child_by_field_name("field")) not in _DERIVED
            or not args
        ):
            return
        if _text(args[0]) in self.done or (len(args) > 1 and _text(args[1]) == "0"):
            self.done.add(_text(names[0]))

    def conditional(self, statement: Node) -> tuple[Node | None, str] | None:
        """An `if` whose branches only log or exit: an exit under it is one the signal may
        reach; either way the walk goes on after it. Past MAX_NESTING nested `if`s (or an
        `else if` chain that long) the walk stops as if the statement waited: no finding."""
        if self.nesting >= MAX_NESTING:
            raise _Blocks
        self.nesting += 1
        try:
            return self._branches(statement)
        finally:
            self.nesting -= 1

    def _branches(self, statement: Node) -> tuple[Node | None, str] | None:
        self.quiet(statement.child_by_field_name("initializer"))
        self.quiet(statement.child_by_field_name("condition"))
        for branch in (
            statement.child_by_field_name("consequence"),
            statement.child_by_field_name("alternative"),
        ):
            if branch is None:
                continue
            if branch.type == "if_statement":
                self.conditional(branch)
                continue
            for inner in _statements(branch, self.memo):
                if inner.type == "return_statement":
                    raise _Blocks  # a return on one branch only: not followed
                ended = self.step(inner)
                if ended is not None:
                    break
        return None

    def quiet(self, node: Node | None) -> None:
        """Raise _Blocks unless every call and channel operation in the node returns at
        once (function literals are not run here)."""
        if node is None:
            return
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "func_literal":
                continue
            if (
                current.type == "unary_expression"
                and _text(current.child_by_field_name("operator")) == "<-"
            ):
                raise _Blocks
            if (
                current.type == "call_expression"
                and not _quiet(current)
                and not self.expires(current)
            ):
                raise _Blocks
            stack.extend(current.named_children)

    def expires(self, call: Node) -> bool:
        """`srv.Shutdown(ctx)` with a done ctx: it closes the listeners and returns at
        once, with the requests in flight still running."""
        called = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if (
            called is not None
            and called.type == "selector_expression"
            and _text(called.child_by_field_name("field")) == "Shutdown"
            and len(args) == 1
            and _text(args[0]) in self.done
        ):
            self.expired = self.expired or call
            return True
        return False

    def returns(self, function: Node, at: Node) -> tuple[Node | None, str]:
        """A return from `function` at `at`: an exit when the function is `main`, or one
        `main` ends with; deferred calls of the function run first, and must not wait."""
        name = _text(function.child_by_field_name("name"))
        if function.type != "function_declaration" or name not in self.mains:
            return None, ""  # a goroutine's end, a method, a function of unknown callers
        self.defers(function)
        if name == "main":
            return at, "main returns"
        if self.depth:
            return None, ""
        self.depth += 1
        call_site = self.mains[name]
        first = call_site.named_children[0] if call_site.named_children else None
        how = _fatal(first) if call_site.type == "expression_statement" and first else None
        if how is not None:
            return at, f"{name}() returns to {how}() in main"
        ended, then = self.walk_on(call_site.parent or self.mains["main"], call_site)
        return (at, f"{name}() returns, then {then}") if ended is not None else (None, "")

    def defers(self, function: Node) -> None:
        body = function.child_by_field_name("body")
        for statement in _statements(body, self.memo) if body is not None else []:
            if statement.type == "defer_statement":
                self.quiet(statement.named_children[0] if statement.named_children else None)


_CASES = ("communication_case", "expression_case", "default_case", "type_case")
_SWITCHES = ("select_statement", "expression_switch_statement", "type_switch_statement")


def _ended_statement(node: Node) -> Node | None:
    """The statement that ends when a block or case of it does: the `select` or `switch`
    of a case, the outermost `if` of an `else if` chain, a bare block; None for a loop's
    body (it goes round again) and anything else."""
    if node.type in _CASES:
        parent = node.parent
        while parent is not None and parent.type not in _SWITCHES:
            parent = parent.parent
        return parent
    if node.type != "block" or node.parent is None:
        return None
    parent = node.parent
    if parent.type in ("statement_list", "block"):
        return node
    if parent.type != "if_statement":
        return None
    while parent.parent is not None and parent.parent.type == "if_statement":
        parent = parent.parent
    return parent


def _fatal(node: Node) -> str | None:
    """`os.Exit`, `log.Fatal(...)`, `logger.Fatalf(...)`: how a call ends the process."""
    if node.type != "call_expression":
        return None
    called = node.child_by_field_name("function")
    if called is None or called.type != "selector_expression":
        return None
    field = _text(called.child_by_field_name("field"))
    operand = _text(called.child_by_field_name("operand"))
    if field == "Exit" and operand != "os":
        return None
    return f"{operand}.{field}" if field in _FATAL else None


def _quiet(call: Node) -> bool:
    """A call that returns at once (by its name: k8slb follows no call)."""
    called = call.child_by_field_name("function")
    if called is None:
        return False
    if called.type == "identifier":
        return _text(called) in _QUIET_BUILTINS or _text(called).startswith(("cancel", "stop"))
    if called.type != "selector_expression":
        return False
    field = _text(called.child_by_field_name("field"))
    operand = called.child_by_field_name("operand")
    if operand is not None and operand.type == "identifier" and _text(operand) in _QUIET_PACKAGES:
        return field not in _BLOCKING_TIME
    return _quiet_method(field)


def _quiet_method(name: str) -> bool:
    """A method that returns at once by its name: a log line's, `With...`, `Close`..."""
    return name in _QUIET_NAMES or (name.startswith("With") and all(c in _WORD for c in name[4:]))
