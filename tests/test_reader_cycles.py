"""Reading a file leaves no reference cycle behind. A run turns the cyclic garbage
collector off (cli.run: it only re-scanned the run's long-lived objects), so whatever a
reader leaves in a cycle stays until the process ends: a collector that keeps one of its
own methods in a helper (Go's returned closers, Python's health-only servers) kept each
file's whole syntax tree and every call's shape, 60 KB a Go file and 20 KB a Python one
of the bench tree, and doubled a run's peak memory."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from k8slb.reading.sources import language_of
from k8slb.run.parsing import parse_one

from .helpers import FIXTURES, ROOT

# the bench tree's Go service (scripts/bench.py): a channel made in a helper, closed on
# its return, a server stopped on SIGTERM
GO_SERVICE = (ROOT / "scripts" / "bench.py").read_text().split('GO_SERVICE = """\\\n')[1]
GO_SERVICE = GO_SERVICE.split('"""')[0]
PYTHON_SERVICE = """\
import grpc
from grpc_health.v1 import health, health_pb2_grpc


def serve(port):
    server = grpc.server(None)
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    return server
"""


def sources() -> Iterator[tuple[str, str, bytes]]:
    """Every file of fixtures/ that a reader reads, with the two services above."""
    yield "main.go", "go", GO_SERVICE.encode()
    yield "server.py", "python", PYTHON_SERVICE.encode()
    for folder, folders, names in os.walk(FIXTURES):
        folders[:] = sorted(f for f in folders if f not in ("node_modules", ".git"))
        for name in sorted(names):
            language = language_of(name, explicit=False)
            if language is not None:
                path = os.path.join(folder, name)
                yield path, language, Path(path).read_bytes()


def cyclic_garbage(path: str, language: str, data: bytes) -> list[str]:
    """The types of what parsing the file left in cycles (the first parse of a kind may
    define a dataclass or a type: a cycle made once a process, so the second is asked)."""
    parse_one(path, language, data)
    gc.collect()
    gc.freeze()  # what is there now is not scanned: the collections below cost little
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        parse_one(path, language, data)
        gc.collect()
        return sorted({type(o).__qualname__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.unfreeze()


def test_the_bench_services_are_read_without_a_cycle() -> None:
    # the two readers that kept a cycle: each file of the bench tree
    assert cyclic_garbage("main.go", "go", GO_SERVICE.encode()) == []
    assert cyclic_garbage("server.py", "python", PYTHON_SERVICE.encode()) == []


@pytest.mark.parametrize("language", ["go", "python", "javascript", "java", "yaml", "build"])
def test_no_file_of_the_fixtures_is_read_into_a_cycle(language: str) -> None:
    left = {
        os.path.relpath(path, ROOT): found
        for path, kind, data in sources()
        if kind == language and (found := cyclic_garbage(path, kind, data))
    }
    assert left == {}
