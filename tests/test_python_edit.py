"""Python fixes parse only the top-level statements their edits fall in (libcst's parse is
slow) and visit only the innermost statements there (libcst works out the position of
every node it visits by generating its code): the result must be the one a parse and a
visit of the whole module give, whatever stands around those statements and however deep
they are."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from k8slb.core.edits import PythonEdit
from k8slb.languages.python import edit as python_edit
from k8slb.languages.python.edit_lines import line_length_for
from k8slb.reading.encodings import code_lines
from k8slb.reading.sources import discover
from k8slb.rules import ALL_RULES
from k8slb.run.engine import run
from k8slb.run.settings import Settings
from libcst import parse_module as libcst_parse

from .helpers import FIXTURES

CASES = sorted(p.parent for p in (FIXTURES / "fix").glob("python-*/in.py"))
CASES += [FIXTURES / "demo" / "bad"]

# What may stand around the statements a fix edits, each a change to a whole file.
SURROUNDINGS: dict[str, Callable[[str], str]] = {
    "as it is": lambda text: text,
    "no newline at the end": lambda text: text.rstrip("\n"),
    "CRLF line ends": lambda text: text.replace("\n", "\r\n"),
    "decorators with comments between them, after": lambda text: (
        text + "\n\n@first\n# between the decorators\n@second(1)\ndef after():\n    pass\n"
    ),
    "statements on one line, comments and a class before": lambda text: _after_imports(
        text,
        "# a comment of its own\nA = 1; B = 2\n\n\nclass Before:\n    x = 1\n\n    def m(self):\n"
        "        return 2\n\n\n",
    ),
    "a decorated function before": lambda text: _after_imports(
        text, "@decorate\n# note\n@decorate(2)\ndef before():\n    return [1,\n            2]\n\n\n"
    ),
}


def _after_imports(text: str, added: str) -> str:
    """`added` after the file's first block of imports (before the code the fixes edit)."""
    lines = text.splitlines(keepends=True)
    last = max(n for n, line in enumerate(lines) if line.startswith(("import ", "from ")))
    return "".join(lines[: last + 1]) + "\n\n" + added + "".join(lines[last + 1 :])


def _whole_module(
    monkeypatch: pytest.MonkeyPatch, text: str, edits: list[PythonEdit], length: int | None
) -> str:
    """The fix as a parse and a visit of the whole module make it: the reference."""
    with monkeypatch.context() as whole:
        whole.setattr(python_edit, "_apply_in_regions", lambda *_: None)
        whole.setattr(python_edit, "_visit_edited_statements", lambda *_: None)
        return python_edit.apply_python(text, edits, length)


def _adds_import(before: str, after: str) -> bool:
    """Whether a fix put an import line in (at the module's top: the whole module is
    parsed for it)."""
    return any(
        line.startswith("import ") for line in set(after.splitlines()) - set(before.splitlines())
    )


def _fixed_and_how(
    monkeypatch: pytest.MonkeyPatch, text: str, edits: list[PythonEdit], length: int | None
) -> tuple[str, list[object], list[str]]:
    """The fix as made now; what each walk down to the edited statements gave (None: the
    statement or module was visited whole); the texts libcst parsed."""
    statements = python_edit._visit_edited_statements
    made: list[object] = []
    with monkeypatch.context() as spying:
        parsed = _spy_parses(spying)
        spying.setattr(
            python_edit,
            "_visit_edited_statements",
            lambda *a: made.append(statements(*a)) or made[-1],
        )
        fixed = python_edit.apply_python(text, edits, length)
    return fixed, made, parsed


def _spy_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts libcst is asked to parse from now on, the edited statements parsed alone
    however much of the module they are (the fixtures are small)."""
    monkeypatch.setattr(python_edit, "MOST_OF_A_MODULE", 1.0)
    parsed = python_edit._parsed
    python_edit._parsed.cache_clear()
    texts: list[str] = []
    monkeypatch.setattr(python_edit, "_parsed", lambda text: texts.append(text) or parsed(text))
    return texts


def _edits(tree: Path) -> dict[Path, list[PythonEdit]]:
    found: dict[Path, list[PythonEdit]] = {}
    for finding in run(discover([str(tree)]).sources, Settings(rules=ALL_RULES)).findings:
        for edit in finding.edits:
            if isinstance(edit, PythonEdit) and edit not in found.get(Path(edit.path), []):
                found.setdefault(Path(edit.path), []).append(edit)
    return found


@pytest.mark.parametrize("around", SURROUNDINGS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_editing_the_statements_gives_what_editing_the_module_gives(
    tmp_path: Path, case: Path, around: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / case.name
    shutil.copytree(case, tree, ignore=shutil.ignore_patterns("out.*"))
    for source in tree.rglob("*.py"):
        source.write_bytes(SURROUNDINGS[around](source.read_text()).encode())
    edits = _edits(tree)
    assert edits, "the case has Python fixes"
    for path, file_edits in edits.items():
        text, length = path.read_bytes().decode(), line_length_for(str(path))
        parts, made, parsed = _fixed_and_how(monkeypatch, text, file_edits, length)
        assert made and made[-1] is not None, "made statement by statement"
        assert (text in parsed) == _adds_import(text, parts), "parsed whole for an import"
        assert parts == _whole_module(monkeypatch, text, file_edits, length), path
        assert parts != text


def test_when_the_two_parsers_do_not_agree_on_a_statement_the_whole_module_is_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statements' lines come from Python's parser; the code libcst generates for each
    edited one must be the source's own text at that line, or the fix is made by a visit
    of the whole module."""
    case = FIXTURES / "fix" / "python-sigterm"
    shutil.copytree(case, tmp_path / "case", ignore=shutil.ignore_patterns("out.*"))
    edits = _edits(tmp_path / "case")
    ((path, file_edits),) = edits.items()
    text = path.read_text()
    expected = (case / "out.py").read_text()
    paired = python_edit._paired

    def shifted(body: Any, nodes: Any) -> list[Any] | None:
        found = paired(body, nodes)
        return [replace(s, first=s.first + 1, last=s.last + 1) for s in found or []]

    monkeypatch.setattr(python_edit, "_paired", shifted)
    parts = python_edit._visit_edited_statements
    tried: list[object] = []
    monkeypatch.setattr(
        python_edit, "_visit_edited_statements", lambda *a: tried.append(parts(*a)) or tried[-1]
    )
    assert python_edit.apply_python(text, file_edits, line_length_for(str(path))) == expected
    assert tried == [None]


# Calls to fix in every kind of place a statement can stand: methods, `with` headers and
# bodies, `try` bodies and handlers, `else` branches, decorators, one-line suites, blocks
# indented by tabs or by other steps than the module's, continuation lines indented less
# than their block, text before a call that is not ASCII, comments between statements.
NESTED = """\
import signal

import grpc

CHANNEL = grpc.insecure_channel("a")


class Client:
    # a comment before the method
    def dial(self):
        return grpc.insecure_channel("b")

    @staticmethod
    @decorate(grpc.insecure_channel("c"))
    def other():
        if True:
          x = grpc.insecure_channel(
        "d")  # continuation less indented than the block
        else:
            x = grpc.insecure_channel("e")
        return x


def serve():
\twith grpc.insecure_channel("f") as channel:
\t\ttry:
\t\t\tname = "é"; channel = grpc.insecure_channel("g")
\t\texcept ValueError:
\t\t\tchannel = grpc.insecure_channel("h")
\tfor _ in range(1): y = grpc.insecure_channel("i")
\tserver = grpc.server(None)
\tserver.wait_for_termination()


async def main():
    async with grpc.aio.insecure_channel("j") as channel:
        while True:
            await channel.close()
            server.wait_for_termination()
"""

OPTIONS = (("grpc.max_connection_age_ms", 300_000),)


def _nested_edits(text: str) -> list[PythonEdit]:
    """An options edit at every channel call, a handler before every wait for the end."""
    edits: list[PythonEdit] = []
    for number, line in enumerate(code_lines(text), start=1):
        for marker in ("grpc.insecure_channel(", "grpc.aio.insecure_channel("):
            at = line.find(marker)
            if at >= 0 and (marker.startswith("grpc.aio") or "aio." not in line):
                edits.append(PythonEdit("x.py", number, at + 1, "add-options", OPTIONS))
        if "server.wait_for_termination()" in line:
            edits.append(PythonEdit("x.py", number, 1, "add-sigterm-handler", ("server", False, 5)))
    return edits


def _lf_then_crlf(text: str) -> str:
    """The first line ended by LF, the others by CRLF: the module's line break is LF."""
    first, rest = text.split("\n", 1)
    return first + "\n" + rest.replace("\n", "\r\n")


# The module around the nested calls: its indentation unit two spaces (a block before the
# code), which a split call's lines step by whatever the statement's own indentation; its
# line break not the one of the edited statements; `signal` imported under another name,
# or not at all (the handler's import then goes at the top: the whole module is parsed).
VARIANTS: dict[str, Callable[[str], str]] = {
    "as it is": lambda text: text,
    "2 spaces first": lambda text: text.replace(
        "CHANNEL = ", "if True:\n  FIRST = 1\n\n\nCHANNEL = ", 1
    ),
    "LF then CRLF": _lf_then_crlf,
    "signal as sg": lambda text: text.replace("import signal\n", "import signal as sg\n", 1),
    "no signal": lambda text: text.replace("import signal\n", "", 1),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("length", [None, 40], ids=["no line length", "split at 40"])
@pytest.mark.parametrize("only", [None, *range(12)], ids=lambda n: "all" if n is None else f"#{n}")
def test_a_statement_inside_blocks_is_edited_as_a_visit_of_the_module_edits_it(
    only: int | None, length: int | None, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = VARIANTS[variant](NESTED)
    edits = _nested_edits(text)
    assert len(edits) == 12
    chosen = edits if only is None else [edits[only]]
    parts, made, parsed = _fixed_and_how(monkeypatch, text, chosen, length)
    assert made and made[-1] is not None, "made statement by statement"
    whole = _adds_import(text, parts) or variant == "LF then CRLF"
    assert (text in parsed) == whole, "parsed whole only then"
    assert parts == _whole_module(monkeypatch, text, chosen, length)
    assert parts != text


def test_a_call_in_a_with_header_is_split_at_the_line_length_like_any_other() -> None:
    """What a split call is indented by is measured from the statement it is in, here the
    `with` itself (it was the last statement visited before it, or none: left unsplit)."""
    (edit,) = [e for e in _nested_edits(NESTED) if e.line == 36]
    fixed = python_edit.apply_python(NESTED, [edit], 40)
    assert (
        "    async with grpc.aio.insecure_channel(\n"
        '        "j",\n'
        "        options=[\n"
        '            ("grpc.max_connection_age_ms", 300_000),\n'
        "        ],\n"
        "    ) as channel:\n"
    ) in fixed


@pytest.mark.parametrize("missing", ["the class", "its shape"])
def test_with_a_libcst_whose_position_reckoning_changed_the_whole_module_is_edited(
    missing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starting libcst's position reckoning inside a module uses what is not its public
    API: a libcst without it, or with it changed, still gets every fix, made the slow way."""
    edits = _nested_edits(NESTED)
    expected = python_edit.apply_python(NESTED, edits, 40)
    if missing == "the class":
        monkeypatch.setattr(python_edit, "_CODEGEN_STATE", None)
    else:
        monkeypatch.setattr(python_edit, "_CODEGEN_STATE", lambda **_: object())
    statements = python_edit._visit_edited_statements
    made: list[object] = []
    monkeypatch.setattr(
        python_edit, "_visit_edited_statements", lambda *a: made.append(statements(*a)) or made[-1]
    )
    python_edit._parsed.cache_clear()
    assert python_edit.apply_python(NESTED, edits, 40) == expected
    assert made and all(m is None for m in made), "every statement visited the slow way"


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",  # no block at all
        "if x:\n\ty = 1\n",
        "def f():\n  return [\n        1]\n",  # a continuation line deeper than the block
        "X = (\n   1)\nclass C:\n      pass\n",  # a continuation line before the first block
        '"""doc\n    text"""\nif x:\n   y = 1\n',  # indented text in a string is no block
        "if x:\n \t y = 1\n",
        "\x0cif x:\n    y = 1\n",
        "if x:\n\x0c    y = 1\n",  # a form feed in the indentation is part of it
        "if x:  # c\n\n   # a comment indented otherwise\n    y = 1\n",
        "if x:\r\n    y = 1\r\n",
    ],
)
def test_the_indentation_unit_is_read_from_the_whole_source_as_libcst_reads_it(
    source: str,
) -> None:
    """A split call's lines step by the module's unit; the fixer parses only the
    statements it edits, so it reads the unit from the source as libcst would."""
    assert python_edit._indent_unit(source) == libcst_parse(source).default_indent


def test_only_the_statements_a_fix_edits_are_parsed_unless_they_are_most_of_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    functions = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(50))
    dial = "def dial():\n    return grpc.insecure_channel('b')\n"
    methods = "".join(f"    def m{n}(self):\n        return {n}\n\n" for n in range(50))
    parsed: list[str] = []
    for text, alone in (
        ("import grpc\n\n\n" + functions + dial, True),
        (
            "import grpc\n\n\nclass Big:\n"
            + methods
            + "    "
            + dial.replace("\n    ", "\n        "),
            False,
        ),
    ):
        line = next(n for n, row in enumerate(text.splitlines(), 1) if "insecure" in row)
        column = text.splitlines()[line - 1].index("grpc.") + 1
        edits = [PythonEdit("x.py", line, column, "add-options", OPTIONS)]
        parsed.clear()
        with monkeypatch.context() as spying:
            spying.setattr(
                python_edit, "_parsed", lambda text: parsed.append(text) or libcst_parse(text)
            )
            fixed = python_edit.apply_python(text, edits, 79)
        assert fixed == _whole_module(monkeypatch, text, edits, 79)
        assert parsed == ([dial] if alone else [text])


def test_a_handler_before_a_module_level_statement_goes_above_the_comments_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libcst counts the comment lines above a statement as its own, which the statement's
    lines alone lack: such a handler is made in the whole module."""
    text = (
        "import signal\n\nimport grpc\n\nserver = grpc.server(None)\n\n"
        "# until the end\nserver.wait_for_termination()\n"
    )
    edits = [PythonEdit("x.py", 8, 1, "add-sigterm-handler", ("server", False, 5))]
    fixed = python_edit.apply_python(text, edits, None)
    assert fixed == _whole_module(monkeypatch, text, edits, None)
    assert "server = grpc.server(None)\nsignal.signal(" in fixed
