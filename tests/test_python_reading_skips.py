"""Python's reader walks only what a fact may be read from (issue #51: a reader at the cost
of its parse): each kind's fields that may hold a node, and none of the children that say
nothing (a name that is read, a number, a chain of attributes on a name); the SIGTERM
pauses and the routes take the functions, calls and assignments that walk met, in
`ast.walk`'s order, instead of walking the module again. These tests hold it to the walk it
replaced, every node but the operators and contexts visited, on every Python file of the
fixtures and the tests and on code chosen for its corners."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path, PurePath

import pytest
from k8slb.code.facts import UNKNOWN, CodeFacts, is_test_path
from k8slb.languages.python import parse
from k8slb.languages.python.parse import _VISITS, ScopeNode, _Collector

ROOT = Path(__file__).resolve().parent.parent

CORNERS = """
import asyncio
import signal
import sys
import time

import grpc
from flask import Flask
from grpc_health.v1 import health_pb2, health_pb2_grpc

app = Flask(__name__)
HOST = "cart"
PORT: int = 50051
OPTIONS = [("grpc.lb_policy_name", "round_robin")]
OPTIONS += [("grpc.keepalive_time_ms", 10000)]
first, second = "a", "b"
del second
URL = f"http://{HOST}:8080/items"
OTHER = "https://" + HOST + "/x"
deep = config.a.b.c.d.e.f.g.h.i.j.k
LOOPED = "loop:1"
for LOOPED in ("loop:2", "loop:3"):
    pass
looped = grpc.insecure_channel(LOOPED)
drained = health_pb2.HealthCheckResponse.ServingStatus.NOT_SERVING
on_call = make().a.b.NOT_SERVING
chained = make().a.b.c.d.e.f.g.h.i.j.k.l


def stop():
    time.sleep(3)
    sys.exit(0)


class Servicer(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.NOT_SERVING)

    def stop(self):
        time.sleep(1)


@app.route("/healthz")
def healthz():
    return "ok"


def serve():
    global HOST
    channel = grpc.insecure_channel(f"{HOST}:{PORT}", options=OPTIONS)
    server = grpc.server(None, options=OPTIONS)
    server.add_insecure_port(f"[::]:{PORT}")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop())
    with open("x") as handle, grpc.insecure_channel("dns:///" + HOST) as scoped:
        pass
    if (found := grpc.insecure_channel("walrus:1")) is not None:
        pass
    names = [n for n in range(3) if (m := n)]
    match PORT:
        case None:
            pass
        case [first, *rest] as whole:
            pass
        case {"k": value, **others}:
            pass
    try:
        server.start()
        while True:
            time.sleep(86400)
    except KeyboardInterrupt:
        server.stop(5)
    server.wait_for_termination()

    def healthz():
        return "nested"

    @app.route("/inner")
    def inner():
        return healthz()

    def stop():
        server.stop(0)


async def main():
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop)
    await asyncio.sleep(2)


if __name__ == "__main__":
    app.run(debug=True)
    serve()
"""


class _Walked(_Collector):
    """The reader as it was: every node but the operators and contexts visited."""

    def _walk(
        self, node: ast.AST, parents: tuple[ast.AST, ...], scope: parse.Scope, keyboard: bool
    ) -> None:
        stack = [(node, parents, scope, keyboard)]
        while stack:
            node, parents, scope, keyboard = stack.pop()
            visit = _VISITS.get(node.__class__)
            if visit is not None:
                visit(self, node, parents, scope, keyboard)
            if isinstance(node, ScopeNode):
                scope = self._scope(node, scope)
            elif isinstance(node, ast.ExceptHandler):
                keyboard = keyboard or parse._catches_keyboard_interrupt(node)
            below = (*parents, node)
            children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, parse._INERT)]
            stack += [(child, below, scope, keyboard) for child in reversed(children)]


def _read(kind: type[_Collector], path: str, data: bytes) -> tuple[CodeFacts, _Collector]:
    facts = CodeFacts(path, "python", is_test=is_test_path(path))
    collector = kind(path, data, facts, None)
    collector.run(parse._parse(data, path))
    return facts, collector


def _sources() -> list[tuple[str, bytes]]:
    found = [("corners/app.py", CORNERS.encode())]
    for folder in (ROOT / "fixtures", ROOT / "tests"):
        for path in sorted(folder.rglob("*.py")):
            data = path.read_bytes()
            try:
                parse._parse(data, str(path))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            found.append((str(path.relative_to(ROOT)), data))
    return found


SOURCES = _sources()


def test_the_corners_give_the_facts_they_are_there_for() -> None:
    """The corners' code is read for what it holds, or the comparison below proves
    little: the channels, the server, the URLs, the drains, the pauses, the routes."""
    facts, _ = _read(_Collector, "corners/app.py", CORNERS.encode())
    assert len(facts.channels) == 4 and len(facts.servers) == 1
    # a loop's target binds the name again: its value is not followed
    assert [c.target for c in facts.channels if c.loc.line == 24] == [UNKNOWN]
    assert [url for url, _ in facts.urls] == ["http://cart:8080/items", "https://cart/x"]
    assert len(facts.health_drains) == 3  # a chain on a name, on a call, in a call
    assert len(facts.signal_pauses) == 2 and facts.signal_servers
    # the last function of a name in ast.walk's order handles its routes: the nested
    # `healthz`, which declares none, hides the module's
    assert [route.path for route in facts.routes] == ["/inner"]
    assert any(wait.how.startswith("a `while True") for wait in facts.waits)


def test_the_facts_are_those_of_the_walk_of_every_node() -> None:
    assert len(SOURCES) > 100
    differ = [
        path
        for path, data in SOURCES
        if _read(_Collector, path, data)[0] != _read(_Walked, path, data)[0]
    ]
    assert differ == []


@pytest.mark.parametrize("web", [False, True])
def test_the_nodes_the_walk_keeps_are_in_ast_walks_order(web: bool) -> None:
    """What the pauses and the routes read (the functions; the calls, assignments,
    functions and classes) is, sorted by depth, what `ast.walk` of the module gives."""
    routed_kinds = (ast.Call, ast.Assign, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for path, data in SOURCES:
        if web and b"route" not in data:
            continue
        _, collector = _read(_Collector, path, data)
        walked = list(ast.walk(parse._parse(data, path)))
        defined = [node for _, node in sorted(collector.defined, key=parse._depth)]
        expected = [node for node in walked if isinstance(node, functions)]
        assert [ast.dump(n) for n in defined] == [ast.dump(n) for n in expected], path
        if collector.routed is not None:
            routed = [node for _, node in sorted(collector.routed, key=parse._depth)]
            expected = [node for node in walked if isinstance(node, routed_kinds)]
            assert [ast.dump(n) for n in routed] == [ast.dump(n) for n in expected], path


def test_a_skipped_child_says_nothing() -> None:
    """What the walk leaves out, against what it must visit."""
    skipped = ["x", "3", "b'x'", "None", "self.a.b", "a.b.c.d.e.f.g.h.i"]  # 8 deep
    kept = ["'x'", "f()", "a.NOT_SERVING", "f().a", "a.b.c.d.e.f.g.h.i.j", "lambda: 1"]
    for text in skipped:
        assert parse._says_nothing(ast.parse(text, mode="eval").body), text
    for text in kept:
        assert not parse._says_nothing(ast.parse(text, mode="eval").body), text
    assert not parse._says_nothing(ast.parse("x = 1").body[0].targets[0])  # type: ignore[attr-defined]
    assert parse._says_nothing(None) and parse._says_nothing(ast.Load())


def test_a_test_path_is_told_by_its_parts_as_pure_path_splits_them() -> None:
    def by_pure_path(path: str) -> bool:
        parts = PurePath(path).parts
        name = parts[-1] if parts else path
        return (
            name.startswith("test_")
            or name.endswith("_test.py")
            or name == "conftest.py"
            or any(part in ("tests", "test", "testing") for part in parts[:-1])
        )

    atoms = ["", "/", ".", "..", "tests", "test", "testing", "test_a.py", "a_test.py"]
    atoms += ["conftest.py", "app", "//", "src/tests"]
    for size in range(1, 4):
        for combination in itertools.product(atoms, repeat=size):
            for path in ("/".join(combination), "".join(combination)):
                assert is_test_path(path) == by_pure_path(path), path
