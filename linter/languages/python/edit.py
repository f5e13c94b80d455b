"""Apply Python edits with libcst, which keeps every byte it is not asked to change
(comments, quotes, layout). Imports a fix needs (`signal`, `asyncio`) go where isort and
ruff would put them, so that the fixed file stays lint-clean."""

from __future__ import annotations

import ast
import io
import json
import sys
import tokenize
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, cast

import libcst as cst
from k8slb.core.edits import CodeEdit, PythonEdit, Refused
from k8slb.core.record import record
from k8slb.editing.verify import python_fix_problem
from k8slb.languages.python.edit_lines import balanced, line_length_for, split_call, split_sequence
from k8slb.reading.encodings import code_lines
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata import position_provider as _libcst_positions

# libcst's own position reckoning, which can start inside a module: not its public API, so
# with a libcst that lacks it (or changed its shape) every fix visits its whole module
_CODEGEN_STATE: Any = getattr(_libcst_positions, "PositionProvidingCodegenState", None)


def literal(value: Any) -> str:
    """Python source for a value, as people write them: `300_000`, and a JSON string in
    single quotes."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return f"{value:_}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, str):
        return f"'{value}'" if '"' in value and "'" not in value else json.dumps(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ")"
    return repr(value)


# libcst's nodes never change, so one parse of a snippet serves every file it goes into:
# a tree's fixes insert the same few option lists, values and handlers again and again.
@lru_cache(maxsize=256)
def _expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


@lru_cache(maxsize=256)
def _statement(code: str) -> cst.SimpleStatementLine | cst.BaseCompoundStatement:
    return cst.parse_statement(code)


def _opening_space(opening: Any) -> Any:
    """The whitespace after an opening bracket, or after a call's `(`."""
    if isinstance(opening, cst.Call):
        return opening.whitespace_before_args
    return getattr(opening, "whitespace_after", None)


def _between(elements: Sequence[Any], opening: Any) -> cst.Comma:
    """The comma (and whitespace) that separates elements, as the code already writes it."""
    if len(elements) >= 2 and isinstance(elements[-2].comma, cst.Comma):
        comma = elements[-2].comma
        space = comma.whitespace_after
        if isinstance(space, cst.ParenthesizedWhitespace) and space.first_line.comment:
            return comma.with_changes(  # the layout, not that element's comment
                whitespace_after=space.with_changes(first_line=cst.TrailingWhitespace())
            )
        return comma
    after = _opening_space(opening)
    if isinstance(after, cst.ParenthesizedWhitespace):  # one element per line
        return cst.Comma(whitespace_after=after)
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _append(elements: Sequence[Any], new: Any, opening: Any) -> list[Any]:
    """`elements + [new]`, with the new one laid out like the others (trailing comma and
    line breaks kept). A comment after the last element stays on that element's line."""
    if not elements:
        return [new]
    last = elements[-1]
    separator = _between(elements, opening)
    own = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else None
    split = separator.whitespace_after
    if (
        isinstance(split, cst.ParenthesizedWhitespace)
        and isinstance(own, cst.ParenthesizedWhitespace)
        and own.first_line.comment
    ):
        # `last,  # note` then the closing line: the note stays, the new element follows.
        kept = last.comma.with_changes(whitespace_after=own.with_changes(last_line=split.last_line))
        closing = own.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
        new = new.with_changes(comma=last.comma.with_changes(whitespace_after=closing))
        return [*elements[:-1], last.with_changes(comma=kept), new]
    new = new.with_changes(comma=last.comma)
    return [*elements[:-1], last.with_changes(comma=separator), new]


def _comment_to_last_element(sequence: Any, elements: list[Any]) -> Any:
    """In `[a,  # note` + newline + `]` the note belongs to the closing bracket's
    whitespace; hand it to the last element (`elements` changes in place), so that new
    elements go after the note, not under it."""
    closing_name = "rbracket" if isinstance(sequence, cst.List) else None
    closing = sequence.rbracket if closing_name else (sequence.rpar[0] if sequence.rpar else None)
    space = getattr(closing, "whitespace_before", None)
    if closing is None or not (
        isinstance(space, cst.ParenthesizedWhitespace)
        and space.first_line.comment
        and elements
        and isinstance(elements[-1].comma, cst.Comma)
    ):
        return sequence
    last = elements[-1]
    elements[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=space))
    bare = closing.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    if closing_name:
        return sequence.with_changes(rbracket=bare)
    return sequence.with_changes(rpar=[bare, *sequence.rpar[1:]])


def _set_second(pair: cst.List | cst.Tuple, value: Any) -> cst.List | cst.Tuple:
    """`("key", old)` -> `("key", value)`: an option's value, its key and layout kept."""
    elements = list(pair.elements)
    elements[1] = elements[1].with_changes(value=_expression(literal(value)))
    return pair.with_changes(elements=elements)


# Where each node of the code being visited is in the whole source.
Positions = Mapping[cst.CSTNode, CodeRange]

_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class _Editor(cst.CSTTransformer):
    def __init__(
        self,
        edits: Sequence[PythonEdit],
        names: dict[str, str],
        layout: _Layout | None = None,
    ) -> None:
        super().__init__()
        self.names = names  # how the module names `signal` and `asyncio`
        self.layout = layout  # None: lines may grow as long as the fix makes them
        self.positions: Positions = {}  # of the statement or module being visited
        # where each statement around the node being visited starts, innermost last
        self.statement_lines: list[int] = []
        self.too_long: set[int] = set()  # edited literals their call must split
        self.at = {(e.line, e.column): e for e in edits}
        self.done: set[tuple[int, int]] = set()
        self.handlers: dict[tuple[int, int], PythonEdit] = {
            (e.line, e.column): e for e in edits if e.op == "add-sigterm-handler"
        }

    def _edit_for(self, node: cst.CSTNode) -> PythonEdit | None:
        """The edit for this node: where Python's parser puts the node, which for a
        parenthesized tuple is its opening parenthesis (libcst's position skips it)."""
        parens = getattr(node, "lpar", None)
        start = self._span(parens[0] if parens else node).start
        key = (start.line, start.column + 1)
        edit = self.at.get(key)
        if edit is not None and key not in self.done and edit.op != "add-sigterm-handler":
            self.done.add(key)
            return edit
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self.statement_lines.append(self._span(node).start.line)
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
        if isinstance(original, _STATEMENTS):
            self.statement_lines.pop()
        return super().on_leave(original, updated)

    def _span(self, node: cst.CSTNode) -> CodeRange:
        """Where the node is in the whole source."""
        return self.positions[node]

    def _fit(self, original: cst.CSTNode, new: Any) -> Any:
        """The edited node, split over lines when the fix made its line longer than the
        project's line length. A literal inside a call on one line is left to the call
        (split there, as black does); anything else inside a bracket opened earlier on
        its line is left as it is, since its indentation cannot be known."""
        layout = self.layout
        if layout is None:
            return new
        parens = getattr(original, "lpar", None)
        start = self._span(parens[0] if parens else original).start
        closing = getattr(original, "rpar", None)
        end = self._span(closing[-1] if closing else original).end
        if start.line != end.line:
            return new
        line = layout.lines[start.line - 1]
        prefix, suffix = line[: start.column], line[end.column :].rstrip("\r\n")
        code = cst.Module([]).code_for_node
        if len(prefix) + len(code(new)) + len(suffix) <= layout.limit:
            return new
        if not balanced(prefix):
            if isinstance(new, cst.List | cst.Tuple):
                self.too_long.add(id(new))  # the call around it splits, then it
            return new
        # The line's indentation beyond its statement's (the block's, which libcst adds).
        block = _leading(layout.lines[self.statement_lines[-1] - 1])
        level = _leading(line)[len(block) :] if _leading(line).startswith(block) else None
        if level is None:
            return new
        step = layout.step
        if isinstance(new, cst.List | cst.Tuple):
            return split_sequence(new, level, step)
        if not isinstance(new, cst.Call):
            return new
        split = split_call(new, level, step)
        width = len(_leading(line)) + len(step)
        args = [
            arg.with_changes(value=split_sequence(arg.value, level + step, step))
            if isinstance(arg.value, cst.List | cst.Tuple)
            and (id(arg.value) in self.too_long or width + len(code(arg)) + 1 > layout.limit)
            else arg
            for arg in split.args
        ]
        return split.with_changes(args=args)

    def leave_List(self, original: cst.List, updated: cst.List) -> cst.BaseExpression:
        return self._sequence(original, updated, updated.lbracket)

    def leave_Tuple(self, original: cst.Tuple, updated: cst.Tuple) -> cst.BaseExpression:
        return self._sequence(original, updated, updated.lpar[0] if updated.lpar else None)

    def _sequence(
        self, original: cst.List | cst.Tuple, updated: cst.List | cst.Tuple, opening: Any
    ) -> cst.BaseExpression:
        """An options literal gains pairs; an option pair gets a new value."""
        edit = self._edit_for(original)
        if edit is None:
            return updated
        if edit.op == "set-pair-value":
            return _set_second(updated, edit.value)
        elements = list(updated.elements)
        updated = _comment_to_last_element(updated, elements)
        for pair in edit.value:
            elements = _append(elements, cst.Element(_expression(literal(pair))), opening)
        return self._fit(original, updated.with_changes(elements=elements))  # type: ignore[no-any-return]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        edit = self._edit_for(original)
        if edit is None:
            if any(id(arg.value) in self.too_long for arg in updated.args):
                return self._fit(original, updated)  # type: ignore[no-any-return]
            return updated
        if edit.op == "add-options":
            pairs = "[" + ", ".join(literal(p) for p in edit.value) + "]"
            argument = cst.Arg(
                value=_expression(pairs),
                keyword=cst.Name("options"),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=cst.SimpleWhitespace(""),
                ),
            )
            new = updated.with_changes(args=_append(list(updated.args), argument, updated))
            return self._fit(original, new)  # type: ignore[no-any-return]
        if edit.op == "set-argument":
            index, keyword, value = edit.value
            args = list(updated.args)
            for number, arg in enumerate(args):
                named = arg.keyword is not None and arg.keyword.value == keyword
                if named or (arg.keyword is None and number == index):
                    args[number] = arg.with_changes(value=_expression(literal(value)))
                    return updated.with_changes(args=args)
        return updated

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.BaseSuite:
        return updated.with_changes(body=self._insert_handlers(original.body, updated.body))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._insert_handlers(original.body, updated.body))

    def _insert_handlers(
        self, before: Sequence[cst.BaseStatement], after: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement]:
        """The statements, with a SIGTERM handler before the one that waits on a server
        (matched by the original's position: the updated nodes have none)."""
        result: list[cst.BaseStatement] = []
        for old, new in zip(before, after, strict=True):
            result += self.handlers_before(old)
            result.append(new)
        return result

    def handlers_before(self, statement: cst.BaseStatement) -> list[cst.BaseStatement]:
        """The SIGTERM handlers that go before this statement (each made once)."""
        made: list[cst.BaseStatement] = []
        if self.handlers and isinstance(statement, cst.SimpleStatementLine):
            span = self._span(statement)
            for key, edit in list(self.handlers.items()):
                if span.start.line <= edit.line <= span.end.line:
                    server, is_async, grace = edit.value
                    made.append(_statement(_handler(server, is_async, grace, self.names)))
                    del self.handlers[key]
        return made


def _handler(server: str, is_async: bool, grace: int, names: dict[str, str]) -> str:
    """The handler's code, naming `signal` and `asyncio` as the module imports them."""
    sig, aio = names.get("signal", "signal"), names.get("asyncio", "asyncio")
    if is_async:
        return (
            f"{aio}.get_running_loop().add_signal_handler(\n"
            f"    {sig}.SIGTERM, lambda: {aio}.ensure_future({server}.stop({grace}))\n"
            ")\n"
        )
    return f"{sig}.signal({sig}.SIGTERM, lambda signum, frame: {server}.stop(grace={grace}))\n"


def module_names(module: cst.Module, wanted: Sequence[str]) -> dict[str, str]:
    """The name each `wanted` module goes by (`import signal as sg`: "sg"); Refused when
    its own name is bound to something else (`from signal import signal`), where a new
    `import signal` would shadow that."""
    names: dict[str, str] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    imported = cst.Module([]).code_for_node(alias.name)
                    if imported in wanted:
                        bound = alias.asname.name if alias.asname else alias.name
                        names.setdefault(imported, cst.Module([]).code_for_node(bound))
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name) and bound.value in wanted:
                        raise Refused(
                            f"the module binds the name {bound.value!r} to something "
                            "else; add the handler by hand"
                        )
    return names


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


@record
class _Layout:
    limit: int  # the project's line length
    step: str  # the module's indentation unit
    lines: list[str]  # the original source's lines


@lru_cache(maxsize=8)
def _parsed(source: str) -> cst.Module:
    """A module's tree, kept for the next fix of the same text (SARIF makes each finding's
    fix alone: a module with three findings was parsed three times)."""
    return cst.parse_module(source)


@lru_cache(maxsize=8)
def _syntax(source: str) -> ast.Module:
    """Python's own tree of a source: the split into top-level statements reads it, and
    so does the walk down to the edited statements (of the whole source, when the split
    leaves it whole). Never changed by its readers."""
    return ast.parse(source)


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    """The fixer's entry (languages/): the Python file with its edits made, to the line
    length its project configures, and still compiling."""
    if not all(isinstance(e, PythonEdit) for e in edits):
        raise Refused("an edit for a file that is not Python")
    python = [e for e in edits if isinstance(e, PythonEdit)]
    fixed = apply_python(text, python, line_length_for(path))
    problem = python_fix_problem(fixed, path)
    if problem is not None:
        raise Refused(problem)
    return fixed


def same_code(old: str, new: str, path: str) -> bool:
    """Whether `--add-noqa`'s comments left the code as it was: the same syntax tree."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))
    except (SyntaxError, ValueError):
        return False


def apply_python(source: str, edits: Sequence[PythonEdit], line_length: int | None = None) -> str:
    """The source with the edits made, its lines kept to `line_length` where a fix would
    make one longer; Refused when an edit cannot be made."""
    lines = code_lines(source, keepends=True)
    made = _apply_in_regions(source, lines, edits, line_length)
    if made is not None:
        return made
    try:
        module = _parsed(source)
    except cst.ParserSyntaxError as error:
        raise Refused(f"the file does not parse: {error.message}") from None
    needed = _imports_needed(edits)
    names = module_names(module, ("signal", "asyncio")) if needed else {}
    layout = _Layout(line_length, module.default_indent, lines) if line_length is not None else None
    editor = _Editor(edits, names, layout)
    edited = _visit_edited_statements(source, lines, module, editor) or _visit_module(
        module, editor
    )
    if _missing(edits, editor) or editor.handlers:
        raise Refused("the code changed since it was checked")
    for name in sorted(needed - set(names)):
        edited = add_stdlib_import(edited, name)
    return edited.code


def _missing(edits: Sequence[PythonEdit], editor: _Editor) -> list[PythonEdit]:
    """The edits (handlers aside, which the editor keeps until placed) it did not make."""
    return [
        e for e in edits if (e.line, e.column) not in editor.done and e.op != "add-sigterm-handler"
    ]


def _imports_needed(edits: Sequence[PythonEdit]) -> set[str]:
    """The modules the SIGTERM handlers call: `signal`, and `asyncio` for an async one."""
    handlers = [e for e in edits if e.op == "add-sigterm-handler"]
    return ({"signal"} if handlers else set()) | {"asyncio" for e in handlers if e.value[1]}


# Parsing the edited statements alone pays when they are a small part of their module;
# when they are most of it (a module that is one large class), it is parsed whole once.
MOST_OF_A_MODULE = 0.5


def _apply_in_regions(
    source: str, lines: list[str], edits: Sequence[PythonEdit], line_length: int | None
) -> str | None:
    """The edits made by parsing only the top-level statements they fall in, each alone,
    and putting their new code back in place of their lines: libcst's parse is slow (2 s
    for mypy's 8,700-line semanal.py here), and a fix of one call in a large module cost
    its whole parse and its whole code generated again. An edit works only on the
    statement its call is in (a SIGTERM handler goes before its statement, naming
    `signal` as the module's imports do) and lays out new lines with the module's
    indentation unit and line break, read from the whole source as libcst reads them;
    the rest of the source is kept as it is, by construction. None when this cannot be
    done for sure (the whole module is then parsed), and when a handler needs an import
    the module lacks (added at its top)."""
    try:
        tree = _syntax(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    runs = _runs(tree)
    regions = _regions(runs, {e.line for e in edits})
    if regions is None or sum(b - a + 1 for a, b, _ in regions) > MOST_OF_A_MODULE * len(lines):
        return None
    step = _indent_unit(source)
    if step is None:
        return None
    newline = _first_newline(source)
    if any(_top_level_simple(regions, e.line) for e in edits if e.op == "add-sigterm-handler"):
        return None  # a handler goes above the comments before its statement: not in the text
    names: dict[str, str] = {}
    needed = _imports_needed(edits)
    if needed:
        found = _imported_names(runs, lines)
        if found is None or needed - set(found):
            return None
        names = found
    pieces: list[str] = []
    done = 0  # the lines put in `pieces` so far
    for first, last, _ in regions:
        own = [replace(e, line=e.line - first + 1) for e in edits if first <= e.line <= last]
        own_lines = lines[first - 1 : last]
        text = "".join(own_lines)
        try:
            module = _parsed(text)
        except cst.ParserSyntaxError:
            return None
        if module.default_newline != newline:  # a line break a split adds would differ
            return None
        layout = _Layout(line_length, step, own_lines) if line_length is not None else None
        editor = _Editor(own, names, layout)
        edited = _visit_edited_statements(text, own_lines, module, editor) or _visit_module(
            module, editor
        )
        if _missing(own, editor) or editor.handlers:
            return None  # the whole module's visit says what is wrong
        pieces += [*lines[done : first - 1], edited.code]
        done = last
    return "".join([*pieces, *lines[done:]])


Run = tuple[int, int, list[ast.stmt]]  # top-level statements on lines first..last


def _runs(tree: ast.Module) -> list[Run]:
    """The module's top-level statements as runs of whole lines, decorators included;
    statements that share a line (`a = 1; b = 2`) are one run."""
    runs: list[Run] = []
    for node in tree.body:
        first, last = _line_span([node])
        if runs and first <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(last, runs[-1][1]), [*runs[-1][2], node])
        else:
            runs.append((first, last, [node]))
    return runs


def _line_span(nodes: Sequence[ast.stmt]) -> tuple[int, int]:
    """The first line (a decorator's, if any) and the last of statements by Python's
    parser."""
    decorated = [d.lineno for node in nodes for d in getattr(node, "decorator_list", ())]
    return min([nodes[0].lineno, *decorated]), max(n.end_lineno or n.lineno for n in nodes)


def _regions(runs: list[Run], lines: set[int]) -> list[Run] | None:
    """The runs that `lines` fall in; None when a line is in none of them (between
    statements: the source changed)."""
    chosen = [run for run in runs if any(run[0] <= line <= run[1] for line in lines)]
    if not all(any(a <= line <= b for a, b, _ in chosen) for line in lines):
        return None
    return chosen


def _top_level_simple(runs: list[Run], line: int) -> bool:
    """Whether `line` is in a top-level simple statement (no block of its own): the
    comment lines above such a statement are libcst's part of it, but not of its text."""
    return any(
        (node.lineno <= line <= (node.end_lineno or node.lineno)) and not hasattr(node, "body")
        for _, _, nodes in runs
        for node in nodes
    )


def _imported_names(runs: list[Run], lines: list[str]) -> dict[str, str] | None:
    """How the module names `signal` and `asyncio` (module_names), read from its
    top-level imports alone, which are all module_names reads; None when it refuses."""
    imports = [
        (a, b)
        for a, b, nodes in runs
        if any(isinstance(n, ast.Import | ast.ImportFrom) for n in nodes)
    ]
    try:
        module = _parsed("".join(line for a, b in imports for line in lines[a - 1 : b]))
        return module_names(module, ("signal", "asyncio"))
    except (cst.ParserSyntaxError, Refused):
        return None


def _indent_unit(source: str) -> str | None:
    """The module's indentation unit as libcst reads it (its `default_indent`): the
    indentation of its first indented block, four spaces when it has none; None when
    Python's tokenizer cannot read the source."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.INDENT:
                return token.string
    except (tokenize.TokenError, SyntaxError):
        return None
    return "    "


def _first_newline(source: str) -> str:
    """The module's line break as libcst reads it (its `default_newline`): the first one."""
    at = min((i for i in (source.find("\r"), source.find("\n")) if i != -1), default=-1)
    if at == -1 or source[at] == "\n":
        return "\n"
    return "\r\n" if source[at + 1 : at + 2] == "\n" else "\r"


# The compound statements whose body the fixer goes into, by libcst's class and the classes
# Python's parser gives the same statement.
_BODIES: dict[type[cst.CSTNode], tuple[type[ast.stmt], ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
}

Place = tuple[int, ...]  # where a statement is: its index in each body on the way down to it


@record
class _Statement:
    node: cst.SimpleStatementLine | cst.BaseCompoundStatement
    first: int  # its first line (its first decorator's), by Python's parser
    last: int
    syntax: list[ast.stmt]  # what Python's parser makes of it


Statements = list[_Statement] | None  # a body's statements paired with Python's, if they pair


@record
class _Unit:
    """A statement an edit falls in, and what it takes to work out where its nodes are."""

    path: Place
    node: cst.BaseStatement
    first_line: int  # the line its text starts on (its leading comments and blank lines)
    indents: tuple[str, ...]  # the indentation of each block around it


def _visit_module(module: cst.Module, editor: _Editor) -> cst.Module:
    """The whole module visited by the editor."""
    # libcst's nodes never change: the edits build new ones, so the module needs no copy
    editor.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return module.visit(editor)


def _visit_edited_statements(
    source: str, lines: list[str], module: cst.Module, editor: _Editor
) -> cst.Module | None:
    """The module with the editor run over only the innermost statements the edits fall
    in (libcst works out where each node it visits is by generating its code: for a whole
    module, or a large class, that cost more than the rest of the fix). None when a
    statement's place cannot be told for sure: the whole module is then visited."""
    try:
        tree = _syntax(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # too deep for ast
        return None
    known: dict[int, list[_Statement] | None] = {}  # each body paired once, for every edit

    def paired(body: Sequence[cst.BaseStatement], nodes: Sequence[ast.stmt]) -> Statements:
        if id(body) not in known:
            known[id(body)] = _paired(body, nodes)
        return known[id(body)]

    units: dict[Place, _Unit] = {}
    for line in {e.line for e in editor.at.values()} | {e.line for e in editor.handlers.values()}:
        unit = _unit_of(line, module, tree, paired)
        if unit is None:
            return None
        units[unit.path] = unit
    # an edit in a statement that another edit's statement holds is made by visiting that one
    outer = [
        unit
        for unit in units.values()
        if not any(len(path) < len(unit.path) and unit.path[: len(path)] == path for path in units)
    ]
    starts = [0]  # where each line of the source starts
    for text_line in lines:
        starts.append(starts[-1] + len(text_line))
    placed = []
    for unit in outer:  # every place is known before anything is edited
        positions = _positions(unit, module, source, starts)
        if positions is None:
            return None
        placed.append((unit, positions))
    changes: dict[Place, list[cst.BaseStatement]] = {}
    for unit, positions in placed:
        editor.positions = positions
        edited = unit.node.visit(editor)
        assert isinstance(edited, cst.BaseStatement)  # the editor never removes a statement
        changes[unit.path] = [*editor.handlers_before(unit.node), edited]
    return module.with_changes(body=_rebuilt(module.body, changes))


def _unit_of(
    line: int,
    module: cst.Module,
    tree: ast.Module,
    paired: Callable[[Sequence[cst.BaseStatement], Sequence[ast.stmt]], Statements],
) -> _Unit | None:
    """The innermost statement that `line` is in, going into the bodies of functions,
    classes, `if`, loops, `with` and `try` (a line in a statement's header, or in another
    part such as `else`, is that statement's). None when the two parsers' statements do not
    pair up."""
    statements = paired(module.body, tree.body)
    path: Place = ()
    indents: tuple[str, ...] = ()
    while True:
        index = next((n for n, s in enumerate(statements or ()) if s.first <= line <= s.last), None)
        if statements is None or index is None:
            return None
        found = statements[index]
        path += (index,)
        unit = _Unit(path, found.node, found.first - len(found.node.leading_lines), indents)
        block = getattr(found.node, "body", None)
        kinds = _BODIES.get(type(found.node))
        if not (
            kinds
            and isinstance(block, cst.IndentedBlock)
            and len(found.syntax) == 1
            and isinstance(found.syntax[0], kinds)
        ):
            return unit
        statements = paired(block.body, found.syntax[0].body)  # type: ignore[attr-defined]
        if statements is None or not statements[0].first <= line <= statements[-1].last:
            return unit  # in its header, its `else`, its handlers
        indents += (module.default_indent if block.indent is None else block.indent,)


def _paired(body: Sequence[cst.BaseStatement], nodes: Sequence[ast.stmt]) -> Statements:
    """libcst's statements of a body with their lines by Python's parser, which makes one
    statement of each `a; b` part; None when the two do not pair up."""
    syntax = iter(nodes)
    paired: list[_Statement] = []
    for statement in body:
        if not isinstance(statement, _STATEMENTS):
            return None
        count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        group = [node for node in (next(syntax, None) for _ in range(count)) if node is not None]
        if len(group) != count:
            return None
        paired.append(_Statement(statement, *_line_span(group), group))
    if next(syntax, None) is not None:
        return None
    return paired


def _positions(unit: _Unit, module: cst.Module, source: str, starts: list[int]) -> Positions | None:
    """Where each node of the statement is in the whole source: libcst's own reckoning,
    started at the statement's line inside its blocks. None unless the code that reckoning
    generates is the source's own text at that line (then every position is right)."""
    if _CODEGEN_STATE is None or not 1 <= unit.first_line < len(starts):
        return None
    provider = PositionProvider()
    try:
        state = _CODEGEN_STATE(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=provider,
            indent_tokens=list(unit.indents),
            line=unit.first_line,
        )
        unit.node._codegen(state)
        tokens: list[str] = state.tokens
        positions = cast(Positions, provider._computed)
    except (TypeError, AttributeError):  # a libcst whose internals changed shape
        return None
    text, start = "".join(tokens), starts[unit.first_line - 1]
    if not source.startswith(text, start):
        # a file without a newline at its end: its last statement's is not in the source
        last = tokens[-1] if tokens else ""
        if module.has_trailing_newline or source[start:] != text.removesuffix(last):
            return None
    return positions


def _rebuilt(
    body: Sequence[cst.BaseStatement], changes: dict[Place, list[cst.BaseStatement]], at: Place = ()
) -> list[cst.BaseStatement]:
    """The statements of a body with each changed one replaced (by what it became, after
    any handler put before it), going into the blocks that hold changed statements."""
    result: list[cst.BaseStatement] = []
    for index, statement in enumerate(body):
        here = (*at, index)
        if here in changes:
            result += changes[here]
            continue
        if any(path[: len(here)] == here for path in changes):
            # only the indented blocks of compound statements are gone into
            assert isinstance(statement, cst.BaseCompoundStatement)
            block = statement.body
            assert isinstance(block, cst.IndentedBlock)
            inner = _rebuilt(block.body, changes, here)
            statement = statement.with_changes(body=block.with_changes(body=inner))
        result.append(statement)
    return result


def _plain_imports(statement: cst.CSTNode) -> list[str]:
    """The modules of an `import a, b` line ([] for anything else)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        only = statement.body[0]
        if isinstance(only, cst.Import):
            return [cst.Module([]).code_for_node(alias.name) for alias in only.names]
    return []


def _import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Import | cst.ImportFrom) for small in statement.body
    )


def add_stdlib_import(module: cst.Module, name: str) -> cst.Module:
    """`import NAME` where isort and ruff would put it: among the standard library's plain
    imports, in alphabetical order, before the `from` imports of that block; nothing when
    the module already imports it."""
    body = list(module.body)
    if any(name in _plain_imports(statement) for statement in body):
        return module
    new = _statement(f"import {name}\n")
    stdlib = [
        number
        for number, statement in enumerate(body)
        if (modules := _plain_imports(statement))
        and modules[0].split(".")[0] in sys.stdlib_module_names
    ]
    later = [n for n in stdlib if _plain_imports(body[n])[0] > name]
    if later:
        at = later[0]
        new = new.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=())
    elif stdlib:
        at = stdlib[-1] + 1
    else:
        first = next(
            (n for n, s in enumerate(body) if _import_line(s) and n >= _preamble(body)), None
        )
        at = first if first is not None else _preamble(body)
        if first is not None:
            new = new.with_changes(leading_lines=body[first].leading_lines)
            body[first] = body[first].with_changes(leading_lines=())
    body.insert(max(at, _preamble(body)), new)
    return module.with_changes(body=body)


def _preamble(body: Sequence[cst.BaseStatement]) -> int:
    """How many statements must stay first: the docstring, then `from __future__` imports."""
    count = 0
    if body and _is_docstring(body[0]):
        count = 1
    while count < len(body) and _is_future_import(body[count]):
        count += 1
    return count


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _is_future_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, cst.ImportFrom)
        and isinstance(small.module, cst.Name)
        and small.module.value == "__future__"
        for small in statement.body
    )
