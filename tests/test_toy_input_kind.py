"""A kind of input is a reader and one line in `k8slb.inputs.READERS`: a toy rendered
source (tests/toy_input_kind/, `$NAME` words replaced by the values its first line sets)
added that way is found, rendered, its objects linted where its lines wrote them, its
problems reported with their path and line, and its renderings kept in the cache, with
nothing else in k8slb told about it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.inputs import READERS
from k8slb.interface.cli import cli

from tests import toy_input_kind
from tests.helpers import ROOT
from tests.toy_input_kind import SUBST

SHOP = """\
# subst: name=shop port=8080
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
spec:
  selector:
    matchLabels: {app: $name}
  template:
    metadata:
      labels: {app: $name}
    spec:
      containers:
        - name: $name
          image: $name:1
          ports:
            - containerPort: $port
---
apiVersion: v1
kind: Service
metadata:
  name: $name
spec:
  selector: {app: $name}
  ports:
    - port: 80
      targetPort: $port
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "shop.subst").write_text(SHOP)
    (tmp_path / "README.md").write_text("the shop\n")
    return tmp_path


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The toy's line in the registry; what it renders, call by call."""
    monkeypatch.setitem(READERS, SUBST.name, SUBST)
    monkeypatch.setattr(toy_input_kind, "RENDERED", [])
    return toy_input_kind.RENDERED


def k8slb(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(cli, [*args, "--output-format", "concise"])
    return ran.exit_code, ran.output


def test_a_kind_no_line_names_is_not_read(tree: Path) -> None:
    code, output = k8slb("check", "--no-cache", str(tree))
    assert code == 0 and "shop.subst" not in output


def test_a_registered_kind_is_rendered_and_its_objects_judged_at_its_own_lines(
    tree: Path, registered: list[str]
) -> None:
    code, output = k8slb("check", "--no-cache", "--select", "KLB302", str(tree))
    assert code == 1
    assert f"{tree / 'shop.subst'}:14:9: KLB302 [warning] container 'shop' of" in output
    assert "Found 1 finding: 1 warning (1 file, 2 objects)." in output
    assert registered == [str(tree / "shop.subst")]


def test_a_source_that_does_not_render_is_a_problem_at_its_path_and_line(
    tree: Path, registered: list[str]
) -> None:
    (tree / "shop.subst").write_text(SHOP.replace("image: $name:1", "image: $registry/shop"))
    code, output = k8slb("check", "--no-cache", str(tree))
    assert code == 1
    assert (
        f"{tree / 'shop.subst'}:15:18: KLB003 [warning] subst: $registry has no value on the"
        " first line" in output
    )
    assert "KLB302" not in output, "nothing of it is rendered"


def test_a_fix_of_what_it_rendered_is_said_where_to_make_and_its_file_left_as_it_is(
    tree: Path, registered: list[str]
) -> None:
    fixing = ["fix", "--no-cache", "--unsafe-fixes", "--select", "KLB401", str(tree)]
    ran = CliRunner().invoke(cli, fixing)
    code, output = ran.exit_code, ran.output
    assert code == 1
    assert f"{tree / 'shop.subst'}:14:9: KLB401 [warning]" in output
    assert "make that change in the .subst file" in output
    assert (tree / "shop.subst").read_text() == SHOP


def test_a_rendering_is_kept_in_the_cache_until_its_source_changes(
    tree: Path, registered: list[str]
) -> None:
    (tree / "other.yaml").write_text("# the shop's other objects, to come\n")
    first = k8slb("check", str(tree))
    assert first[0] == 1 and registered == [str(tree / "shop.subst")]
    # another file changes: the run is made again, the rendering taken from the cache
    (tree / "other.yaml").write_text("# the shop's other objects, soon\n")
    assert k8slb("check", str(tree)) == first
    assert registered == [str(tree / "shop.subst")]
    (tree / "shop.subst").write_text(SHOP.replace("port=8080", "port=9090"))
    k8slb("check", str(tree))
    assert registered == [str(tree / "shop.subst")] * 2, "a changed source is rendered again"


def kind_tests(where: str, source: str) -> list[str]:
    """Each comparison of a source's kind (`x.language`, `language`) with a reader's name
    in a module's source (`where`: its path, for the message)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = [s.value for s in sides if isinstance(s, ast.Constant) and s.value in READERS]
        kind = any(
            (isinstance(s, ast.Attribute) and s.attr == "language")
            or (isinstance(s, ast.Name) and s.id == "language")
            for s in sides
        )
        if named and kind:
            found.append(f"{where}:{node.lineno}: {named[0]!r}")
    return found


def test_no_stage_outside_the_readers_asks_which_kind_a_source_is() -> None:
    readers = {("linter", "inputs"), ("linter", "languages")}
    found = []
    for path in [*(ROOT / "linter").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]:
        where = path.relative_to(ROOT)
        if where.parts[:2] not in readers:
            found += kind_tests(where.as_posix(), path.read_text("utf-8"))
    assert found == []


def test_a_test_of_a_kind_by_its_name_is_found() -> None:
    assert kind_tests("stage.py", 'if source.language == "helm":\n    pass\n') == [
        "stage.py:1: 'helm'"
    ]
    assert kind_tests("stage.py", 'kept = "build" != language\n') == ["stage.py:1: 'build'"]
    assert kind_tests("stage.py", 'go = module.language == "go"\n') == []
