"""SIGTERM handlers registered after a blocking `Serve` (go/parse.py's late handlers): the
`Serve` call that a statement before the handler's call makes, in its function and not
in a goroutine, a deferred call or a function literal, on a server the file made before
the handler (otel-demo's checkout registers its SIGTERM context below its
`srv.Serve(lis)`: the handler is never in place while the server serves).

Each handler's search goes up its statements and, at each level, back over the earlier
statements of the block, nearest first, each read depth first: the first `Serve` met on a
server known then is the one. Asked handler by handler over the tree, that search read
every earlier statement of the block again for each handler (thousands of handlers after
thousands of statements: quadratic). Here the handlers are asked once the file's calls
are all read: each statement's `Serve` calls are read once, and each block keeps them in
a tree of the least "when its server was made" of each run of them, so that a level of a
handler's search is a descent of that tree (logarithmic), whatever comes before it."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

_FUNCTION_NODES = ("function_declaration", "method_declaration", "func_literal")
_BLOCKS = ("statement_list", "block")
_NOT_WAITED = ("func_literal", "go_statement", "defer_statement")  # what runs apart


def _serves_in(statement: Node) -> list[tuple[str, int]]:
    """The `x.Serve(...)` calls a statement makes itself (not in a goroutine, a deferred
    call or a function literal): each receiver's text and where the call starts, in the
    order a depth-first read from the statement's last child meets them."""
    found = []
    stack = [statement]
    while stack:
        node = stack.pop()
        if node.type in _NOT_WAITED:
            continue
        function = node.child_by_field_name("function") if node.type == "call_expression" else None
        if (
            function is not None
            and function.type == "selector_expression"
            and _text(function.child_by_field_name("field")) == "Serve"
        ):
            found.append((_text(function.child_by_field_name("operand")), node.start_byte))
        stack.extend(node.named_children)
    return found


class _Block:
    """A block's statements before the furthest one a handler's search starts from: their
    `Serve` calls in one row (statement after statement, each statement's read backwards,
    so that a search reads the row from its end), where each row of statements ends, and
    a tree of the least weight of each power-of-two run of the row."""

    def __init__(self, statements: Sequence[Node], weight: dict[str, int]) -> None:
        self.row: list[int] = []  # each call's start
        weights: list[float] = []
        self.ends = [0]  # the row's length after each statement
        for statement in statements:
            for receiver, start in reversed(_serves_in(statement)):
                self.row.append(start)
                weights.append(weight.get(receiver, math.inf))
            self.ends.append(len(self.row))
        self.size = 1
        while self.size < len(weights):
            self.size *= 2
        self.least = [math.inf] * (2 * self.size)
        self.least[self.size : self.size + len(weights)] = weights
        for at in range(self.size - 1, 0, -1):
            self.least[at] = min(self.least[2 * at], self.least[2 * at + 1])

    def last_before(self, statements: int, known: int) -> int | None:
        """Where the `Serve` call starts that a search back from the block's statement
        `statements` meets first among those on a server of the first `known` made."""
        end = self.ends[statements]
        at = self._last(1, 0, self.size, end, known)
        return None if at is None else self.row[at]

    def _last(self, node: int, low: int, high: int, end: int, known: int) -> int | None:
        if low >= end or self.least[node] >= known:
            return None
        if high - low == 1:
            return low
        middle = (low + high) // 2
        found = self._last(2 * node + 1, middle, high, end, known)
        return found if found is not None else self._last(2 * node, low, middle, end, known)


def _after_a_serve(earliest: float, call: Node) -> bool:
    """Whether a `Serve` call of a server known when the handler was read starts before
    it (`earliest`: the first such call's start): else no search is made."""
    return earliest < call.start_byte


class ServesBefore:
    """The handlers' calls asked (`ask`, as the file's calls are read), answered together
    once every server of the file is known (`answers`)."""

    def __init__(self) -> None:
        # each handler's call, with how many servers the file had made when it was read
        self.asked: list[tuple[Node, int]] = []
        self.positions: dict[int, dict[int, int]] = {}  # by block: each statement's place

    def ask(self, call: Node, known: int) -> None:
        self.asked.append((call, known))

    def answers(
        self, servers: Sequence[str], serve_calls: Sequence[tuple[int, str]]
    ) -> Iterator[tuple[int, Node]]:
        """Where the blocking `Serve` call starts, and the handler's call, for each handler
        asked that one comes before, in the order asked. `servers`: the names of the
        file's servers in the order they were made; `serve_calls`: where each `x.Serve(...)`
        call of the file starts, and its receiver."""
        weight = {name: made for made, name in enumerate(servers)}
        first = dict[str, int]()
        for start, receiver in serve_calls:
            first[receiver] = min(start, first.get(receiver, start))
        # the first Serve call of any of the first `known` servers made: none, no search
        earliest = [math.inf]
        for name in servers:
            earliest.append(min(earliest[-1], first.get(name, math.inf)))
        searches = [
            (call, known, self._levels(call))
            for call, known in self.asked
            if _after_a_serve(earliest[known], call)
        ]
        furthest: dict[int, tuple[Node, int]] = {}  # by block: its node, statements asked
        for _, _, levels in searches:
            for block, statements in levels:
                if statements > furthest.get(block.id, (block, 0))[1]:
                    furthest[block.id] = (block, statements)
        blocks = {
            key: _Block(block.named_children[:statements], weight)
            for key, (block, statements) in furthest.items()
        }
        for call, known, levels in searches:
            for block, statements in levels:
                found = blocks[block.id].last_before(statements, known) if statements else None
                if found is not None:
                    yield found, call
                    break

    def _levels(self, call: Node) -> list[tuple[Node, int]]:
        """The blocks a handler's search goes back in, nearest first, each with how many
        of its statements come before the one that holds the call, up to its function."""
        levels = []
        node = call
        while node.parent is not None and node.type not in _FUNCTION_NODES:
            block = node.parent
            if block.type in _BLOCKS:
                if block.id not in self.positions:  # read once a block, not once a handler
                    children = block.named_children
                    self.positions[block.id] = {child.id: at for at, child in enumerate(children)}
                levels.append((block, self.positions[block.id][node.id]))
            node = block
        return levels
