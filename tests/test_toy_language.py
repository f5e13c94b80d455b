"""A language is its own package and one line in `k8slb.languages.LANGUAGES`: a toy one
(tests/toy_language/, `dial ADDRESS` lines) added that way is found, parsed, judged by the
code rules in its own words, fixed by its own editor, and suppressed with its own
comments, with nothing else in k8slb told about it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.languages import LANGUAGES, Language
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HPA

DIAL = Language(
    "dial",
    (".dial",),
    "--",
    " ",
    "app.dial",
    "tests.toy_language.parse:parse",
    "tests.toy_language.dialect:DIALECT",
    "tests.toy_language.edit",
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "manifests.yaml").write_text(GRPC_SERVICE + BACKEND + HPA)
    (tmp_path / "client.dial").write_text("-- the shop's client\ndial backend:50051\n")
    return tmp_path


def k8slb(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(cli, [*args, "--no-cache"])
    return ran.exit_code, ran.output


def test_a_language_no_line_names_is_not_read(tree: Path) -> None:
    code, output = k8slb("check", "--select", "KLB102", str(tree))
    assert code == 0 and "client.dial" not in output


def test_a_registered_language_is_judged_fixed_and_suppressed_in_its_own_syntax(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LANGUAGES, "dial", DIAL)
    code, output = k8slb("check", "--select", "KLB102", "--output-format", "concise", str(tree))
    assert code == 1
    assert "client.dial:2:1: KLB102 [warning] gRPC channel to ClusterIP Service/backend" in output

    copy = tree.parent / "suppressed"
    copy.mkdir()
    for name in ("manifests.yaml", "client.dial"):
        (copy / name).write_bytes((tree / name).read_bytes())
    code, _ = k8slb("check", "--select", "KLB102", "--add-noqa", str(copy))
    assert (copy / "client.dial").read_text().splitlines()[1] == (
        "dial backend:50051 -- k8slb: ignore[KLB102]"
    )
    assert k8slb("check", "--select", "KLB102", str(copy))[0] == 0

    code, output = k8slb("fix", "--select", "KLB102", "--unsafe-fixes", str(tree))
    assert (tree / "client.dial").read_text() == (
        "-- the shop's client\ndial dns:///backend-headless:50051 round_robin\n"
    )
    assert "name: backend-headless" in (tree / "manifests.yaml").read_text()
    assert k8slb("check", "--select", "KLB102", str(tree))[0] == 0
