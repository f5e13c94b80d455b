"""Python fixes edit only the top-level statements their edits fall in (libcst works out
the position of every node it visits, which for a whole module cost more than the rest of
the fix): the result must be the one a visit of the whole module gives, whatever stands
around those statements."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from k8slb.engine import Settings, run
from k8slb.fixing import python_edit
from k8slb.fixing.edits import PythonEdit
from k8slb.fixing.line_length import line_length_for
from k8slb.reading.sources import discover
from k8slb.rules import ALL_RULES

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
    statements = python_edit._visit_edited_statements
    made: list[object] = []
    monkeypatch.setattr(
        python_edit, "_visit_edited_statements", lambda *a: made.append(statements(*a)) or made[-1]
    )
    for path, file_edits in edits.items():
        text, length = path.read_bytes().decode(), line_length_for(str(path))
        parts = python_edit.apply_python(text, file_edits, length)
        assert made[-1] is not None, "made statement by statement"
        with monkeypatch.context() as whole:
            whole.setattr(python_edit, "_visit_edited_statements", lambda *_: None)
            assert parts == python_edit.apply_python(text, file_edits, length), path
        assert parts != text


def test_when_the_two_parsers_do_not_agree_on_a_statement_the_whole_module_is_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statements' lines come from Python's parser; libcst must place each edited one
    at the same line, or the fix is made by a visit of the whole module."""
    case = FIXTURES / "fix" / "python-sigterm"
    shutil.copytree(case, tmp_path / "case", ignore=shutil.ignore_patterns("out.*"))
    edits = _edits(tmp_path / "case")
    ((path, file_edits),) = edits.items()
    text = path.read_text()
    expected = (case / "out.py").read_text()
    lines = python_edit._statement_lines

    def shifted(source: str, module: object) -> list[tuple[int, int, int]] | None:
        spans = lines(source, module)  # type: ignore[arg-type]
        return [(first + 1, last + 1, leading) for first, last, leading in spans or []]

    monkeypatch.setattr(python_edit, "_statement_lines", shifted)
    parts = python_edit._visit_edited_statements
    tried: list[object] = []
    monkeypatch.setattr(
        python_edit, "_visit_edited_statements", lambda *a: tried.append(parts(*a)) or tried[-1]
    )
    assert python_edit.apply_python(text, file_edits, line_length_for(str(path))) == expected
    assert tried == [None]
