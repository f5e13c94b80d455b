"""The language server: pygls over stdio, each workspace folder a `state.Workspace`.

A folder is judged whole when the editor opens it, when a buffer changes (after a pause:
typing is not judged keystroke by keystroke), at once on save, and when a file changes on
disk (a configuration read again first). After each judgement the diagnostics of every
file whose diagnostics changed are published, those left with none cleared: editing a
Service re-publishes the findings of the code that dials it. A request (hover, code
actions) first makes the judgement that is due, so it answers about the text as it is.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import Callable
from typing import Any, TypeVar

from k8slb import __version__
from k8slb.core.internal import internal_error
from k8slb.interface.lsp import actions, diagnostics, hover
from k8slb.interface.lsp.actions import FIX_ALL, Found
from k8slb.interface.lsp.positions import Text, contains, path_of, same_lines, uri_of
from k8slb.interface.lsp.state import Workspace
from k8slb.report.links import links_text
from lsprotocol import types
from pygls.lsp.server import LanguageServer

# A change after a quiet spell is judged at once; the changes that follow it within this
# long of each other are judged once, when they pause (a debounce on both edges: one
# edit's diagnostics come as soon as they can, a burst of typing costs two judgements).
DEBOUNCE_SECONDS = 0.2
EXPLAIN_LINKS = "k8slb.explainLinks"
# How long the editor is quiet before the garbage of old judgements is collected.
COLLECT_AFTER_SECONDS = 10.0
F = TypeVar("F", bound=Callable[..., Any])


class K8slbServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("k8slb", __version__)
        self.folders: list[Workspace] = []
        self.debounce = DEBOUNCE_SECONDS
        self.published: dict[str, list[types.Diagnostic]] = {}  # uri -> what was said
        self.found: dict[str, list[Found]] = {}  # path -> its diagnostics and findings
        self._pending: dict[str, asyncio.TimerHandle] = {}  # folder root -> its judgement
        self._changed: dict[str, float] = {}  # folder root -> its last change (loop time)
        # path -> its text as last judged, its diagnostics (kept while neither changes)
        self._said: dict[str, tuple[Text, list[Found]]] = {}
        self._owner: dict[str, Workspace] = {}  # path published -> its folder
        self._collection: asyncio.TimerHandle | None = None  # the garbage's, when quiet

    # the folders

    def folder_of(self, path: str) -> Workspace | None:
        """The innermost workspace folder that holds the file."""
        holding = [w for w in self.folders if w.owns(path)]
        return max(holding, key=lambda w: len(w.root), default=None)

    def document(self, uri: str) -> tuple[str, Workspace] | None:
        """The file a URI names and its folder; None for another scheme or a file outside
        every folder (nothing is said about it)."""
        path = path_of(uri)
        if path is None:
            return None
        path = os.path.abspath(path)
        folder = self.folder_of(path)
        return (path, folder) if folder is not None else None

    # judging

    def schedule(self, folder: Workspace) -> None:
        """Judge the folder now if it has been quiet, else once its changes pause."""
        loop = asyncio.get_running_loop()
        last = self._changed.get(folder.root)
        quiet = folder.root not in self._pending and (
            last is None or loop.time() - last >= self.debounce
        )
        self._changed[folder.root] = loop.time()
        self._cancel(folder)
        wait = 0 if quiet else self.debounce
        self._pending[folder.root] = loop.call_later(wait, self.judge, folder)

    def _cancel(self, folder: Workspace) -> None:
        handle = self._pending.pop(folder.root, None)
        if handle is not None:
            handle.cancel()

    def due(self, folder: Workspace) -> None:
        """Make the judgement a change scheduled, now: a request answers about the text
        as the editor has it."""
        never = folder.result is None and folder.run is not None  # a broken plan: said once
        if folder.root in self._pending or never:
            self.judge(folder)

    def judge(self, folder: Workspace) -> None:
        self._cancel(folder)
        try:
            result = folder.judge()
        except Exception as error:  # a bug of k8slb's: said, and the server goes on
            self.log(internal_error(f"checking {folder.root}", error), types.MessageType.Error)
            return
        finally:
            self._settle_memory()
        if result is None:
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Error, message=f"k8slb: {folder.problem}"
                )
            )
            self._publish(folder, {})
            return
        for message in [*result.errors, *result.warnings]:
            self.log(f"k8slb: {message}", types.MessageType.Warning)
        seen: dict[str, Text | None] = {}

        def text_of(path: str) -> Text | None:
            if path not in seen:
                # not a chart's folder (a file read from disk, by its stamp, is none)
                readable = folder.read_from_disk(path) or path in folder.buffers
                readable = readable or os.path.isfile(path)
                text = folder.text_of(path) if readable else None
                seen[path] = self._located(path, text) if text is not None else None
            return seen[path]

        said = diagnostics.by_file(result, text_of, self._said)
        others = {p: s for p, s in self._said.items() if self._owner.get(p) is not folder}
        self._said = {**others, **said}
        self._publish(folder, {path: pairs for path, (_, pairs) in said.items()})

    def _settle_memory(self) -> None:
        """Keep what the judgement left out of the collector's rounds (the parsed
        workspace: a full round over it cost an edit's judgement a third of a second), and
        collect the garbage of old judgements once the editor has been quiet a while."""
        gc.freeze()
        if self._collection is not None:
            self._collection.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # judged outside the server's loop (a test)
            return
        self._collection = loop.call_later(COLLECT_AFTER_SECONDS, _collect)

    def _located(self, path: str, text: str) -> Text:
        """The file's lines, numbered both ways: worked out again only when its text
        changed (most files with findings are the same from one judgement to the next)."""
        known = self._said.get(path)
        if known is not None and known[0].text == text:
            return known[0]
        return Text(path, text, self.workspace.position_codec)

    def _publish(self, folder: Workspace, found: dict[str, list[Found]]) -> None:
        """Publish each file's diagnostics that changed; clear those of the folder's files
        that have none now."""
        before = {p for p, owner in self._owner.items() if owner is folder}
        for path in before - found.keys():
            self.found.pop(path, None)
            self._owner.pop(path, None)
            self._send(path, [])
        for path, pairs in found.items():
            self.found[path] = pairs
            self._owner[path] = folder
            self._send(path, [d for d, _ in pairs])

    def _send(self, path: str, said: list[types.Diagnostic], *, force: bool = False) -> None:
        uri = uri_of(path)
        if not force and self.published.get(uri, []) == said:
            return
        self.published[uri] = said
        document = self.workspace.text_documents.get(uri)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=said, version=document.version if document else None
            )
        )

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def found_at(self, uri: str) -> tuple[str, Workspace, list[Found]] | None:
        """The findings of a document, its judgement made if due."""
        known = self.document(uri)
        if known is None:
            return None
        path, folder = known
        self.due(folder)
        return path, folder, self.found.get(path, [])


# The LSP methods k8slb answers: (method, its options, the handler), filled by `_feature`
# below and registered on each server `build` makes.
_FEATURES: list[tuple[str, Any, Callable[..., Any]]] = []


def _feature(method: str, options: Any = None) -> Callable[[F], F]:
    """The handler of `method` (pygls passes the server as its `ls`), for every server."""

    def registered(handler: F) -> F:
        _FEATURES.append((method, options, handler))
        return handler

    return registered


def build() -> K8slbServer:
    """A server with every feature k8slb serves."""
    server = K8slbServer()
    for method, options, handler in _FEATURES:
        server.feature(method, options)(handler)
    server.command(EXPLAIN_LINKS)(_explain_links)
    return server


@_feature(types.INITIALIZE)
def _initialize(ls: K8slbServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("debounceMs"), (int, float)):
        ls.debounce = max(float(options["debounceMs"]), 0.0) / 1000


@_feature(types.INITIALIZED)
def _initialized(ls: K8slbServer, params: types.InitializedParams) -> None:
    roots = [path_of(f.uri) for f in ls.workspace.folders.values()]
    if not roots and ls.workspace.root_path:
        roots = [ls.workspace.root_path]
    ls.folders = [Workspace(root) for root in roots if root]
    if not ls.folders:
        ls.log("k8slb: no workspace folder: nothing is checked", types.MessageType.Warning)
    watching = ls.client_capabilities.workspace
    dynamic = (
        watching is not None
        and watching.did_change_watched_files is not None
        and watching.did_change_watched_files.dynamic_registration
    )
    if dynamic:
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="k8slb-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                        ),
                    )
                ]
            )
        )
    for folder in ls.folders:
        folder.plan()
        ls.judge(folder)


@_feature(types.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: K8slbServer, params: types.DidOpenTextDocumentParams) -> None:
    known = ls.document(params.text_document.uri)
    if known is None:
        return
    path, folder = known
    if not folder.matters(path):
        return
    judged = folder.text_of(path) if folder.result is not None else None
    if folder.open(path, params.text_document.text):
        folder.plan()  # a file the last plan did not find
        judged = None
    if judged != params.text_document.text:
        ls.judge(folder)
    ls._send(path, [d for d, _ in ls.found.get(path, [])], force=True)


@_feature(types.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: K8slbServer, params: types.DidChangeTextDocumentParams) -> None:
    known = ls.document(params.text_document.uri)
    if known is None:
        return
    path, folder = known
    if folder.matters(path):
        folder.open(path, ls.workspace.get_text_document(params.text_document.uri).source)
        ls.schedule(folder)


@_feature(types.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: K8slbServer, params: types.DidSaveTextDocumentParams) -> None:
    known = ls.document(params.text_document.uri)
    if known is None:
        return
    path, folder = known
    if folder.touched(path, added_or_gone=False) == "plan":
        folder.plan()
    ls.judge(folder)


@_feature(types.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: K8slbServer, params: types.DidCloseTextDocumentParams) -> None:
    known = ls.document(params.text_document.uri)
    if known is None:
        return
    path, folder = known
    folder.close(path)  # the file on disk stands for it again
    ls.schedule(folder)


@_feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def _watched(ls: K8slbServer, params: types.DidChangeWatchedFilesParams) -> None:
    touched: dict[str, set[str | None]] = {}  # folder root -> what its changes call for
    for change in params.changes:
        known = ls.document(change.uri)
        if known is not None:
            path, folder = known
            added_or_gone = change.type != types.FileChangeType.Changed
            touched.setdefault(folder.root, set()).add(
                folder.touched(path, added_or_gone=added_or_gone)
            )
    for folder in ls.folders:
        calls = touched.get(folder.root, set())
        if "plan" in calls:
            folder.plan()
        if calls - {None}:  # a checkout touches many files: judged once
            ls.schedule(folder)


@_feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def _folders_changed(ls: K8slbServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    gone = {os.path.abspath(p) for f in params.event.removed if (p := path_of(f.uri))}
    for folder in [f for f in ls.folders if f.root in gone]:
        ls.folders.remove(folder)
        ls._cancel(folder)
        ls._publish(folder, {})  # its files' diagnostics cleared
    for added in params.event.added:
        root = path_of(added.uri)
        if root is not None and all(f.root != os.path.abspath(root) for f in ls.folders):
            folder = Workspace(root)
            ls.folders.append(folder)
            folder.plan()
            ls.judge(folder)


@_feature(types.TEXT_DOCUMENT_HOVER)
def _on_hover(ls: K8slbServer, params: types.HoverParams) -> types.Hover | None:
    found = ls.found_at(params.text_document.uri)
    if found is None:
        return None
    return hover.hover([f for d, f in found[2] if contains(d.range, params.position)])


@_feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True
    ),
)
def _code_action(ls: K8slbServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    found = ls.found_at(params.text_document.uri)
    if found is None:
        return None
    path, folder, pairs = found
    codec = ls.workspace.position_codec
    only = params.context.only
    here = [(d, f) for d, f in pairs if same_lines(d.range, params.range)]
    made: list[types.CodeAction] = []
    if actions.wanted(types.CodeActionKind.QuickFix, only) and here:
        made += actions.fixes(folder, here, codec)
        made += actions.suppressions(folder, here, codec)
    if actions.wanted(FIX_ALL, only) and actions.has_safe_fix(pairs):
        if only is None and _resolves_edits(ls):  # worked out when chosen
            made.append(actions.fix_all_action(data={"uri": params.text_document.uri}))
        else:
            edit = actions.fix_all(folder, path, codec)
            if edit is not None:
                made.append(actions.fix_all_action(edit=edit))
    return made


@_feature(types.CODE_ACTION_RESOLVE)
def _resolve(ls: K8slbServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    known = ls.document(str(data.get("uri", "")))
    if action.kind == FIX_ALL and known is not None:
        path, folder = known
        ls.due(folder)
        action.edit = actions.fix_all(
            folder, path, ls.workspace.position_codec
        ) or types.WorkspaceEdit(changes={})
    return action


def _explain_links(ls: K8slbServer, *args: Any) -> str:
    """Which code runs in which container, in each folder (`k8slb explain-links`)."""
    said = []
    for folder in ls.folders:
        ls.due(folder)
        if folder.result is not None:
            said.append(f"{folder.root}:\n{links_text(folder.result.links)}")
        else:
            said.append(f"{folder.root}: {folder.problem}\n")
    return "\n".join(said)


def _collect() -> None:
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _resolves_edits(ls: K8slbServer) -> bool:
    text = ls.client_capabilities.text_document
    action = text.code_action if text is not None else None
    support = action.resolve_support if action is not None else None
    return support is not None and "edit" in support.properties


def serve() -> None:
    """Serve over stdin and stdout until the client says exit or goes away."""
    gc.enable()  # the command line turns it off for its short life; a server lives long
    logging.basicConfig(level=logging.WARNING)  # on stderr: stdout carries the protocol
    build().start_io()
