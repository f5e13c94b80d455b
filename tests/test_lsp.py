"""`k8slb lsp`, driven by a real LSP client over a pipe (tests/lsp_client.py): what the
editor is told as files open and change, with the workspace as context, and what it is
offered to do about it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from k8slb.rules.grpc_client_clusterip import GrpcClientClusterIp
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .helpers import FIXTURES, ROOT
from .lsp_client import Client, applied, session, uri

FIX_ALL = "source.fixAll.k8slb"


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


def _fixed_by_the_command_line(tmp_path: Path, name: str) -> str:
    """`k8slb fix` (safe fixes) on another copy of the demo: the file it writes."""
    other = tmp_path / "by-fix"
    shutil.copytree(FIXTURES / "demo" / "bad", other)
    subprocess.run([sys.executable, "-m", "k8slb", "fix", str(other)], capture_output=True)
    return (other / name).read_text("utf-8")


def test_fix_all_makes_byte_for_byte_what_k8slb_fix_writes(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    server = root / "server.py"
    text = server.read_text("utf-8")
    expected = _fixed_by_the_command_line(tmp_path, "server.py")
    assert expected != text

    async def body(client: Client) -> None:
        client.open(server, language="python")
        await client.wait(lambda: "KLB201" in client.codes(server))
        (action,) = await client.actions(server, 0, only=[FIX_ALL])
        assert action.kind == FIX_ALL and action.edit is not None
        changes = action.edit.changes or {}
        assert list(changes) == [uri(server)]  # the file's own fixes, in it alone
        assert applied(text, list(changes[uri(server)])) == expected

    session(root, body)


def test_each_fix_is_a_quick_fix_and_an_unsafe_one_says_so(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    server = root / "server.py"
    text = server.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(server, language="python")
        await client.wait(lambda: "KLB403" in client.codes(server))
        safe = [a for a in await client.actions(server, 12) if a.title.startswith("KLB201:")]
        (fix,) = [a for a in safe if "suppress" not in a.title]
        assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
        assert not fix.title.endswith("(unsafe)")
        assert fix.edit is not None and fix.edit.changes is not None
        fixed = applied(text, list(fix.edit.changes[uri(server)]))
        assert "grpc.max_connection_age_ms" in fixed and "grpc.max_connection_age_ms" not in text
        unsafe = [a for a in await client.actions(server, 20) if a.title.startswith("KLB403:")]
        (stop,) = [a for a in unsafe if "suppress" not in a.title]
        assert stop.title.endswith("(unsafe)") and not stop.is_preferred

    session(root, body)


def test_suppress_here_writes_the_comment_add_noqa_writes(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"
    text = client_file.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB111" in client.codes(client_file))
        found = await client.actions(client_file, 13)
        (suppress,) = [a for a in found if a.title.startswith("KLB111: suppress here")]
        assert not [a for a in found if a.title.startswith("KLB111:") and a is not suppress]
        assert suppress.edit is not None and suppress.edit.changes is not None
        silenced = applied(text, list(suppress.edit.changes[uri(client_file)]))
        line = silenced.splitlines()[13]
        assert line.endswith('os.environ["INVENTORY_ADDR"])  # k8slb: ignore[KLB111]')
        client.replace(client_file, silenced)
        await client.wait(lambda: "KLB111" not in client.codes(client_file))

    session(root, body)


def test_a_fix_the_editors_refuse_is_not_offered(tmp_path: Path) -> None:
    """KLB403's handler needs `signal.signal`: in a module where `signal` is the function,
    the Python editor refuses the edit, and the editor is offered no fix for it."""
    root = _demo(tmp_path)
    server = root / "server.py"
    text = server.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(server, language="python")
        await client.wait(lambda: "KLB403" in client.codes(server))
        assert [a for a in await client.actions(server, 20) if a.title.startswith("KLB403: add")]
        client.replace(server, "from signal import signal\n" + text)
        found = await client.actions(server, 21)  # the line moved down by one
        assert [a.title for a in found if a.title.startswith("KLB403:")] == [
            "KLB403: suppress here (# k8slb: ignore[KLB403])"
        ]

    session(root, body)


def _on_disk(client: Client, path: Path, change: types.FileChangeType) -> None:
    """What the editor's file watcher tells the server."""
    client.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri(path), type=change)])
    )


def test_a_configuration_changed_on_disk_is_read_again_and_the_findings_re_published(
    tmp_path: Path,
) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB111" in client.codes(client_file))
        config = root / ".k8slb.yaml"
        config.write_text("ignore: [KLB111]\n", encoding="utf-8")
        _on_disk(client, config, types.FileChangeType.Created)
        await client.wait(lambda: "KLB111" not in client.codes(client_file))
        assert client.codes(client_file) == ["KLB102"]
        config.write_text("ignore: [KLB102]\n", encoding="utf-8")  # changed again
        _on_disk(client, config, types.FileChangeType.Changed)
        await client.wait(lambda: client.codes(client_file) == ["KLB111"])

    session(root, body)


def test_hover_on_a_finding_explains_its_rule_with_a_link(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB102" in client.codes(client_file))
        said = await client.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri(client_file)),
                position=types.Position(line=9, character=20),
            )
        )
        assert said is not None and isinstance(said.contents, types.MarkupContent)
        summary = " ".join(GrpcClientClusterIp.doc().split("\n\n", 1)[0].split())
        assert summary in said.contents.value
        assert "docs/rules/KLB102.md)" in said.contents.value
        nothing = await client.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri(client_file)),
                position=types.Position(line=0, character=0),
            )
        )
        assert nothing is None

    session(root, body)


def test_explain_links_says_which_code_runs_in_which_container(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    expected = subprocess.run(
        [sys.executable, "-m", "k8slb", "explain-links", "--no-cache", str(root)],
        capture_output=True,
        text=True,
    ).stdout
    assert "Deployment/shop/frontend" in expected

    async def body(client: Client) -> None:
        said = await client.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="k8slb.explainLinks", arguments=[])
        )
        assert said == f"{root}:\n{expected}"

    session(root, body)


def test_a_file_that_does_not_parse_gets_its_read_error_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    root = _demo(tmp_path)
    service = root / "backend.yaml"
    text = service.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(service)
        await client.wait(lambda: "KLB401" in client.codes(service))
        client.replace(service, text + "---\nkind: [unclosed\n")
        await client.wait(lambda: "KLB001" in client.codes(service))
        client.replace(service, text)
        await client.wait(lambda: "KLB001" not in client.codes(service))
        assert "KLB401" in client.codes(service)

    session(root, body)


def test_bad_requests_get_errors_and_documents_it_cannot_judge_get_nothing(
    tmp_path: Path,
) -> None:
    root = _demo(tmp_path)
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text((root / "backend.yaml").read_text("utf-8"), encoding="utf-8")
    client_file = root / "client.py"

    async def body(client: Client) -> None:
        with pytest.raises(JsonRpcException):  # an unknown method: an error response
            await client.request("k8slb/noSuchMethod", {})
        client.open(outside)  # outside the workspace
        client.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri="untitled:Untitled-1", language_id="yaml", version=1, text="kind: [\n"
                )
            )
        )
        assert await client.actions(outside, 0) == []
        client.open(client_file, language="python")  # and the server still serves
        await client.wait(lambda: "KLB102" in client.codes(client_file))
        assert uri(outside) not in client.published
        assert "untitled:Untitled-1" not in client.published

    session(root, body)


def test_without_the_lsp_extra_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from click.testing import CliRunner
    from k8slb.interface.cli import cli

    for name in [m for m in sys.modules if m.split(".")[0] in ("pygls", "k8slb")]:
        if name.split(".")[0] == "pygls" or name.startswith("k8slb.interface.lsp"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygls", None)  # as if it were not installed
    result = CliRunner().invoke(cli, ["lsp"])
    assert result.exit_code == 2
    assert "pip install 'k8slb[lsp]'" in result.output


def _chart(tmp_path: Path) -> Path:
    root = tmp_path / "helm"
    shutil.copytree(FIXTURES / "helm", root)
    return root


def test_an_unsaved_template_of_a_chart_is_rendered_with_the_chart(tmp_path: Path) -> None:
    root = _chart(tmp_path)
    service = root / "payments" / "templates" / "service.yaml"
    text = service.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(service)
        await client.wait(lambda: "KLB101" in client.codes(service))
        client.replace(service, text.replace("spec:\n", "spec:\n  clusterIP: None\n", 1))
        await client.wait(lambda: "KLB101" not in client.codes(service))

    session(root, body)


def test_fix_all_in_a_chart_template_makes_what_k8slb_fix_writes_there(tmp_path: Path) -> None:
    root = _chart(tmp_path)
    deployment = root / "payments" / "templates" / "deployment.yaml"
    text = deployment.read_text("utf-8")
    other = tmp_path / "by-fix"
    shutil.copytree(FIXTURES / "helm", other)
    subprocess.run([sys.executable, "-m", "k8slb", "fix", str(other)], capture_output=True)
    expected = (other / "payments" / "templates" / "deployment.yaml").read_text("utf-8")
    assert "preStop" in expected and "preStop" not in text

    async def body(client: Client) -> None:
        client.open(deployment)
        await client.wait(lambda: "KLB401" in client.codes(deployment))
        (action,) = await client.actions(deployment, 0, only=[FIX_ALL])
        assert action.edit is not None and action.edit.changes is not None
        assert list(action.edit.changes) == [uri(deployment)]
        assert applied(text, list(action.edit.changes[uri(deployment)])) == expected

    session(root, body)


def test_a_client_that_resolves_gets_fix_all_worked_out_when_chosen(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    server = root / "server.py"
    text = server.read_text("utf-8")
    expected = _fixed_by_the_command_line(tmp_path, "server.py")

    async def body(client: Client) -> None:
        client.open(server, language="python")
        await client.wait(lambda: "KLB201" in client.codes(server))
        (offered,) = [a for a in await client.actions(server, 0) if a.kind == FIX_ALL]
        assert offered.edit is None  # not worked out for a menu
        chosen = await client.client.code_action_resolve_async(offered)
        assert chosen.edit is not None and chosen.edit.changes is not None
        assert applied(text, list(chosen.edit.changes[uri(server)])) == expected

    session(root, body, resolve=True)


def test_a_new_file_not_yet_saved_is_judged_with_the_workspace(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    new = root / "second_client.py"
    text = (root / "client.py").read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(new, text, language="python")  # on no disk
        await client.wait(lambda: "KLB102" in client.codes(new))
        assert not new.exists()

    session(root, body)


def test_a_workspace_folder_added_is_judged_and_one_removed_is_cleared(tmp_path: Path) -> None:
    first = _demo(tmp_path)
    second = _chart(tmp_path)
    service = second / "payments" / "templates" / "service.yaml"

    async def body(client: Client) -> None:
        await client.wait(lambda: "KLB102" in client.codes(first / "client.py"))
        client.client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=uri(second), name="helm")],
                    removed=[types.WorkspaceFolder(uri=uri(first), name="root")],
                )
            )
        )
        await client.wait(lambda: "KLB101" in client.codes(service))
        await client.wait(lambda: client.codes(first / "client.py") == [])

    session(first, body)


def test_a_broken_configuration_is_said_and_its_findings_cleared_until_it_is_mended(
    tmp_path: Path,
) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"
    config = root / ".k8slb.yaml"

    async def body(client: Client) -> None:
        await client.wait(lambda: "KLB111" in client.codes(client_file))
        config.write_text("no-such-key: 1\n", encoding="utf-8")
        _on_disk(client, config, types.FileChangeType.Created)
        await client.wait(lambda: any("no-such-key" in m for m in client.shown))
        await client.wait(lambda: client.codes(client_file) == [])
        config.write_text("ignore: [KLB102]\n", encoding="utf-8")
        _on_disk(client, config, types.FileChangeType.Changed)
        await client.wait(lambda: client.codes(client_file) == ["KLB111"])

    session(root, body)


def test_a_hostile_buffer_is_a_read_error_within_check_s_limits(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    service = root / "backend.yaml"

    async def body(client: Client) -> None:
        client.open(service)
        await client.wait(lambda: "KLB401" in client.codes(service))
        client.replace(service, "[" * 28_000)  # nested past the native stack
        await client.wait(lambda: client.codes(service) == ["KLB001"])
        (said,) = client.published[uri(service)]
        assert "nesting deeper than 200 levels" in said.message

    session(root, body)


def test_a_burst_of_changes_ends_in_the_diagnostics_of_the_last_text(tmp_path: Path) -> None:
    root = _demo(tmp_path)
    client_file = root / "client.py"
    text = client_file.read_text("utf-8")

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB111" in client.codes(client_file))
        for number in range(1, 6):  # typing: each text moves the findings down a line
            client.replace(client_file, "#\n" * number + text)
        await client.wait(
            lambda: [d.range.start.line for d in client.published[uri(client_file)]] == [14, 18]
        )

    session(root, body)


def test_the_server_ends_when_its_client_goes_away(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "k8slb", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None
    server.stdin.close()  # the editor crashed: no shutdown, no exit
    assert server.wait(timeout=120) == 0


def test_a_file_changed_outside_the_editor_is_read_again(tmp_path: Path) -> None:
    """A `git checkout` that makes the Service headless, the manifests never opened."""
    root = _demo(tmp_path)
    client_file, service = root / "client.py", root / "backend.yaml"

    async def body(client: Client) -> None:
        client.open(client_file, language="python")
        await client.wait(lambda: "KLB102" in client.codes(client_file))
        manifests = service.read_text("utf-8")
        service.write_text(
            manifests.replace("spec:\n  selector:", "spec:\n  clusterIP: None\n  selector:", 1),
            encoding="utf-8",
        )
        _on_disk(client, service, types.FileChangeType.Changed)
        await client.wait(lambda: "KLB102" not in client.codes(client_file))

    session(root, body)


def test_the_workspace_s_diagnostics_are_check_s_findings_file_by_file(tmp_path: Path) -> None:
    """Every file kind the demo holds (manifests, Python, Go), published without being
    opened, as `k8slb check` of the folder reports them."""
    root = _demo(tmp_path)
    (root / ".k8slb.yaml").write_text("ignore: [KLB301]\n", encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "k8slb", "check", "--no-cache", "--format", "json", str(root)],
        capture_output=True,
        text=True,
    )
    expected: dict[str, list[tuple[str, int]]] = {}
    for finding in json.loads(checked.stdout)["findings"]:
        path = uri(Path(finding["path"]))
        expected.setdefault(path, []).append((finding["rule"], finding["line"] - 1))
    assert uri(root / "checkout" / "main.go") in expected
    assert "KLB301" not in {rule for said in expected.values() for rule, _ in said}

    def published(client: Client) -> dict[str, list[tuple[str, int]]]:
        return {
            path: sorted((str(d.code), d.range.start.line) for d in said)
            for path, said in client.published.items()
            if said
        }

    async def body(client: Client) -> None:
        wanted = {path: sorted(said) for path, said in expected.items()}
        await client.wait(lambda: published(client) == wanted)

    session(root, body)


def test_the_vs_code_extension_starts_the_server_and_asks_its_command() -> None:
    """editors/vscode's own tests (node's runner, VS Code stubbed), and the command it
    asks for is the server's."""
    from k8slb.interface.lsp.server import EXPLAIN_LINKS

    extension = ROOT / "editors" / "vscode"
    assert f'SERVER_COMMAND = "{EXPLAIN_LINKS}"' in (extension / "extension.js").read_text()
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run the extension's tests")
    done = subprocess.run(
        [node, "--test", "test/"], cwd=extension, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_chart_s_values_file_changed_renders_the_chart_again(tmp_path: Path) -> None:
    root = _chart(tmp_path)
    values = root / "payments" / "values.yaml"
    service = root / "payments" / "templates" / "service.yaml"

    def replicas(client: Client) -> list[str]:
        return [
            d.message for d in client.published.get(uri(service), []) if "replicas" in d.message
        ]

    async def body(client: Client) -> None:
        await client.wait(lambda: any("runs 4 replicas" in m for m in replicas(client)))
        client.open(values)  # unsaved first
        client.replace(values, values.read_text("utf-8").replace("replicas: 4", "replicas: 6"))
        await client.wait(lambda: any("runs 6 replicas" in m for m in replicas(client)))
        client.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri(values))
            )
        )  # the edit dropped: the file on disk again
        await client.wait(lambda: any("runs 4 replicas" in m for m in replicas(client)))
        values.write_text(values.read_text("utf-8").replace("replicas: 4", "replicas: 9"))
        _on_disk(client, values, types.FileChangeType.Changed)  # then changed on disk
        await client.wait(lambda: any("runs 9 replicas" in m for m in replicas(client)))

    session(root, body)
