"""A real LSP client (pygls's) driving `k8slb lsp` over a pipe, for the tests: it keeps the
diagnostics the server publishes and waits for those a test expects (no timing is judged:
the wait is generous, and only a hung server reaches its end)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls", reason="k8slb[lsp] is not installed")

from lsprotocol import types
from pygls.lsp.client import LanguageClient

WAIT_SECONDS = 120  # only a hung server waits this long


def uri(path: Path) -> str:
    return path.resolve().as_uri()


class Client:
    """The client's side of one session: what was published, by URI, and the versions of
    the documents it opened."""

    def __init__(self) -> None:
        self.client = LanguageClient("k8slb-tests", "1")
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.logged: list[str] = []
        self.shown: list[str] = []
        self.versions: dict[str, int] = {}
        self._news = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = list(params.diagnostics)
            self._news.set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def logged(params: types.LogMessageParams) -> None:
            self.logged.append(params.message)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def shown(params: types.ShowMessageParams) -> None:
            self.shown.append(params.message)
            self._news.set()

    async def start(self, root: Path, *, resolve: bool = False) -> types.InitializeResult:
        await self.client.start_io(sys.executable, "-m", "k8slb", "lsp")
        action = types.CodeActionClientCapabilities(
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
            if resolve
            else None
        )
        result = await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    text_document=types.TextDocumentClientCapabilities(code_action=action)
                ),
                root_uri=uri(root),
                workspace_folders=[types.WorkspaceFolder(uri=uri(root), name="root")],
            )
        )
        self.client.initialized(types.InitializedParams())
        return result

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def wait(self, ready: Callable[[], bool]) -> None:
        """Until `ready()` holds, checked after each publication."""

        async def until() -> None:
            while not ready():
                self._news.clear()
                await self._news.wait()

        await asyncio.wait_for(until(), WAIT_SECONDS)

    def codes(self, path: Path) -> list[str]:
        return sorted(str(d.code) for d in self.published.get(uri(path), []))

    def open(self, path: Path, text: str | None = None, language: str = "yaml") -> None:
        self.versions[uri(path)] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri(path),
                    language_id=language,
                    version=1,
                    text=path.read_text("utf-8") if text is None else text,
                )
            )
        )

    def replace(self, path: Path, text: str) -> None:
        """The whole buffer replaced (unsaved): a change of the full text."""
        self.versions[uri(path)] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri(path), version=self.versions[uri(path)]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def actions(
        self, path: Path, line: int, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri(path)),
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=0),
                ),
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def request(self, method: str, params: Any) -> Any:
        return await self.client.protocol.send_request_async(method, params)


def applied(text: str, edits: list[types.TextEdit]) -> str:
    """The text with an LSP edit's changes made (UTF-16 positions; tests use ASCII)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def session(root: Path, body: Callable[[Client], Any], *, resolve: bool = False) -> None:
    """Run `body(client)` (a coroutine function) in a session with the server on `root`."""

    async def main() -> None:
        client = Client()
        await client.start(root, resolve=resolve)
        try:
            await body(client)
        finally:
            await client.stop()

    asyncio.run(main())
