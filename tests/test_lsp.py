"""`k8slb lsp`, driven by a real LSP client over a pipe (tests/lsp_client.py): what the
editor is told as files open and change, with the workspace as context, and what it is
offered to do about it."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsprotocol import types

from .helpers import FIXTURES
from .lsp_client import Client, session, uri


def _demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", root)
    return root


def test_an_opened_client_gets_its_findings_judged_against_the_services(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: uri(client_file) in client.published)
        said = client.published[uri(client_file)]
        assert sorted(str(d.code) for d in said) == ["KLB102", "KLB111"]
        grpc = next(d for d in said if d.code == "KLB102")
        # client.py:10:11, `grpc.insecure_channel(BACKEND_ADDR)`, to the end of its line
        line = client_file.read_text("utf-8").splitlines()[9]
        assert line.index("grpc.insecure_channel") == 10
        assert grpc.range == types.Range(
            start=types.Position(line=9, character=10),
            end=types.Position(line=9, character=len(line)),
        )
        assert grpc.severity == types.DiagnosticSeverity.Warning
        assert grpc.source == "k8slb"
        assert grpc.code_description is not None
        assert grpc.code_description.href.endswith("docs/rules/KLB102.md")
        related = grpc.related_information or []
        assert any(r.location.uri == uri(root / "backend.yaml") for r in related)

    session(root, body)


def test_an_unsaved_change_that_ends_a_finding_clears_it(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"
    text = client_file.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB111" in client.codes(client_file))
        fixed = text.replace('os.environ["INVENTORY_ADDR"]', '"inventory:7070"')
        client.replace(client_file, fixed)
        await client.wait(lambda: "KLB111" not in client.codes(client_file))
        assert "KLB102" in client.codes(client_file)  # the backend's channel: still said
        assert client_file.read_text("utf-8") == text  # judged unsaved: nothing written

    session(root, body)


def test_making_a_service_headless_clears_the_finding_in_the_code_that_dials_it(
    tmp_path: Path,
) -> None:
    root = _demo(tmp_path)
    client_file, service = root / "client.py", root / "backend.yaml"
    manifests = service.read_text("utf-8")
    headless = manifests.replace(
        "spec:\n  selector:\n    app: backend\n  ports:",
        "spec:\n  clusterIP: None\n  selector:\n    app: backend\n  ports:",
    )
    assert headless != manifests

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        client.open(service)
        await client.wait(lambda: "KLB102" in client.codes(client_file))
        client.replace(service, headless)  # the client file is not touched
        await client.wait(lambda: "KLB102" not in client.codes(client_file))
        client.replace(service, manifests)  # and back: said again
        await client.wait(lambda: "KLB102" in client.codes(client_file))

    session(root, body)
