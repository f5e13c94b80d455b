"""`k8slb lsp` on a generated workspace: the time from a `didChange` to the diagnostics it
brings, and the server's memory.

Makes the bench's monorepo (scripts/bench.py's `make_corpus`: N services in YAML, Python,
Go, Node.js and Java), starts `k8slb lsp` on it over a pipe with pygls's client, opens one
service's manifests and then, ROUNDS times, adds a line above them and takes it away
(each change moves the file's findings, so each brings a publication), waiting a quiet spell
between changes (the server judges a change after a quiet spell at once). Prints the time
to the first judgement, the median and the 95th percentile of didChange -> diagnostics,
and the server's resident and peak memory. Nothing is asserted: a bench, never a test.

With KIND `code` the file edited is a service's Python module instead (a comment added:
its facts change, what the links read of it does not).

Usage: python scripts/bench_lsp.py [N] [ROUNDS] [KIND: yaml or code]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import make_corpus
from lsprotocol import types
from pygls.lsp.client import LanguageClient

QUIET_SECONDS = 0.5  # longer than the server's debounce: each change is judged alone


def memory_mb(pid: int) -> tuple[int, int]:
    """The process's resident and peak resident memory (MB), from /proc."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) // 1024
    return fields.get("VmRSS", 0), fields.get("VmHWM", 0)


EDITED = {"yaml": ("team-*/svc-*/*.yaml", "yaml"), "code": ("team-*/svc-*/server.py", "python")}


async def measure(root: Path, rounds: int, kind: str = "yaml") -> None:
    client = LanguageClient("k8slb-bench", "1")
    arrived: dict[str, asyncio.Event] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def published(params: types.PublishDiagnosticsParams) -> None:
        arrived.setdefault(params.uri, asyncio.Event()).set()

    pattern, language = EDITED[kind]
    target = sorted(root.glob(pattern))[0]
    uri = target.resolve().as_uri()
    text = target.read_text("utf-8")
    moved = "# a line more: every finding below moves\n" + text
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "k8slb", "lsp")
    assert client._server is not None
    pid = client._server.pid
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.resolve().as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.resolve().as_uri(), name="w")],
        )
    )
    client.initialized(types.InitializedParams())
    arrived[uri] = asyncio.Event()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=1, text=text
            )
        )
    )
    await arrived[uri].wait()
    first = time.perf_counter() - started
    times = []
    for version in range(2, rounds + 2):
        await asyncio.sleep(QUIET_SECONDS)
        arrived[uri] = asyncio.Event()
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(
                        text=moved if version % 2 == 0 else text
                    )
                ],
            )
        )
        try:
            await asyncio.wait_for(arrived[uri].wait(), 120)
        except TimeoutError:
            print(f"round {version}: no diagnostics (the change ended no finding?)")
            continue
        times.append(time.perf_counter() - sent)
    rss, peak = memory_mb(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]  # pygls's client: untyped there
    files = sum(1 for p in root.rglob("*") if p.is_file())
    print(f"workspace: {files} files; the edited file: {target.relative_to(root)}")
    print(f"start, plan, first judgement, first diagnostics: {first:.2f} s")
    if times:
        ms = sorted(t * 1000 for t in times)
        p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
        print(
            f"didChange -> diagnostics over {len(ms)} changes: median "
            f"{statistics.median(ms):.0f} ms, p95 {p95:.0f} ms (targets: 150 ms, 400 ms)"
        )
    print(f"server memory: {rss} MB resident, {peak} MB at peak")


def main() -> None:
    services = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    kind = sys.argv[3] if len(sys.argv) > 3 else "yaml"
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "corpus"
        make_corpus(corpus, services)
        asyncio.run(measure(corpus, rounds, kind))


if __name__ == "__main__":
    main()
