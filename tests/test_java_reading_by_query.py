"""Java's reader finds what it reads in a body through its query's nodes, by their bytes
(issue #51: a reader at the cost of its parse), not by walks of every node in Python. These
tests hold each such reading to the walk it replaced, as its specification: a scope's own
bindings (not those of the lambdas, classes and methods it holds), a scope's declarations,
a shutdown hook's lambdas, the calls a node holds, and the first pause of a body, on every
Java file of the fixtures and the tests and on code chosen for its corners."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from k8slb.code.facts import CodeFacts
from k8slb.code.syntax_trees import first_pause as walked_first_pause
from k8slb.code.syntax_trees import node_text, walk
from k8slb.languages.java import parse as java
from k8slb.languages.java.parse_shutdown import Placed, first_pause

if TYPE_CHECKING:
    from tree_sitter import Node

ROOT = Path(__file__).resolve().parent.parent

CORNERS = b"""
package com.example;

import io.grpc.Server;
import java.util.concurrent.TimeUnit;

public class Corners {
  private static final long GRACE = 5;
  private Server server;
  private final String url;

  Corners(String url, int port) {
    this.url = url;
    Runnable later = () -> { this.port = port; int inner = 1; };
    try { port = Integer.parseInt("1"); } catch (NumberFormatException e) { port = 2; }
  }

  void start() throws Exception {
    int retries = 3, delay;
    delay = retries * 2;
    for (String name : java.util.List.of("a", "b")) { String copy = name; copy = name + "x"; }
    Runnable outer = () -> { int a = 1; Runnable inner = () -> { int b = 2; }; };
    java.util.function.Function<Integer, Runnable> curried = x -> () -> { int c = x; };
    java.util.function.Function<Integer, java.util.function.Function<Integer, Integer>> twice =
        x -> y -> x + y;
    Object anonymous = new Object() {
      int hidden = 4;
      void run() { int deeper = 5; hidden = deeper; }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      Runnable notNow = () -> { try { Thread.sleep(100); } catch (Exception e) {} };
      new Thread() { public void run() { server.shutdown(); } }.start();
      try { TimeUnit.SECONDS.sleep(GRACE); } catch (InterruptedException e) { }
      server.shutdown();
    }));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> server.shutdownNow()));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> () -> Thread.sleep(1)));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> { Thread.sleep(2); stop(); }));
      stop();
    }));
    Runtime.getRuntime().addShutdownHook(new Thread(Corners.this::stop));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> drain()));
  }

  void drain() {
    Runnable skipped = () -> { try { Thread.sleep(10); } catch (Exception e) {} };
    try { Thread.sleep(3000); } catch (InterruptedException e) { Thread.currentThread(); }
    server.shutdown();
  }

  void stop() { server.shutdown(); try { server.awaitTermination(30, TimeUnit.SECONDS); }
    catch (InterruptedException e) { server.shutdownNow(); } }
}
"""

SOURCES = [
    pytest.param(path.read_bytes(), id=str(path.relative_to(ROOT)))
    for folder in (ROOT / "fixtures", ROOT / "tests")
    for path in sorted(folder.rglob("*.java"))
    if java.worth_parsing(path.read_bytes())
] + [pytest.param(CORNERS, id="corners")]

_SCOPE_TYPES = ("method_declaration", "constructor_declaration", "lambda_expression")
# what `_Reader._own` yields, by the kind its query's capture names
_BINDING_KINDS = {
    "variable_declarator": "declarator",
    "catch_formal_parameter": "catch",
    "enhanced_for_statement": "for",
    "assignment_expression": "assignment",
}
_ENDS = frozenset({*_SCOPE_TYPES, "class_body"})


def _read(data: bytes) -> tuple[java._Reader, Node]:
    root = java.parser().parse(data).root_node
    assert not root.has_error
    reader = java._Reader("src/main/java/Corners.java", CodeFacts("Corners.java", "java"))
    reader.run(root, data)
    return reader, root


def _walked_own(node: Node | None) -> Iterator[Node]:
    """The walk the reader's query replaced: a body's nodes, not those of the lambdas,
    classes and methods within it (the body itself is walked, whatever its kind)."""
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(child for child in reversed(current.children) if child.type not in _ENDS)


def _ids(nodes: list[Node]) -> list[int]:
    return [node.id for node in nodes]


def test_the_corners_are_read_into_the_facts_of_their_hooks() -> None:
    """The corners' source says what it exercises: hooks, their pauses, stops."""
    facts = java.parse("src/main/java/Corners.java", CORNERS)
    assert facts.problem is None
    assert len(facts.sigterm_handlers) == 7
    # a hook is what an `addShutdownHook` call hands the JVM, not a function within it (the
    # JVM runs no lambda a hook only makes, nor a hook registered while hooks run): the
    # first hook's sleep of GRACE seconds (not its inner lambda's nor its anonymous
    # class's), and the one `drain` makes (not its lambda's); `() -> () -> ...` sleeps in no
    # hook, and the hook that registers another stops (`stop()`) before any sleep
    pauses = [pause.seconds for pause in facts.signal_pauses]
    assert pauses == [5, 3]


@pytest.mark.parametrize("data", SOURCES)
def test_a_scopes_own_bindings_are_those_its_walk_meets(data: bytes) -> None:
    reader, root = _read(data)
    bodies = [n.child_by_field_name("body") for n in walk(root) if n.type in _SCOPE_TYPES]
    for body in bodies:
        walked = [
            (node.id, _BINDING_KINDS[node.type])
            for node in _walked_own(body)
            if node.type in _BINDING_KINDS
        ]
        assert [(node.id, kind) for node, kind in reader._own(body)] == walked


@pytest.mark.parametrize("data", SOURCES)
def test_a_scopes_declarations_are_those_its_walk_meets(data: bytes) -> None:
    reader, root = _read(data)
    for scope in (n for n in walk(root) if n.type in _SCOPE_TYPES):
        walked = [
            node
            for node in walk(scope)
            if node.type in ("formal_parameter", "local_variable_declaration")
        ]
        assert _ids(reader._declarations(scope)) == _ids(walked)


@pytest.mark.parametrize("data", SOURCES)
def test_the_lambdas_and_calls_a_node_holds_are_those_its_walk_meets(data: bytes) -> None:
    """A hook's lambdas (those its `addShutdownHook` call holds) and the calls a hook or a
    method makes, each by the bytes of the query's nodes."""
    reader, root = _read(data)
    calls = Placed(reader.calls)
    for node in walk(root):
        if node.type not in ("method_invocation", *_SCOPE_TYPES, "block"):
            continue
        held = list(walk(node))
        lambdas = [n for n in held if n.type == "lambda_expression"]
        assert _ids(java._within(reader.found.get("lambda", []), node)) == _ids(lambdas)
        made = [(n.id, java._method(n)) for n in held if n.type == "method_invocation"]
        assert [(call.id, name) for call, name in calls.within(node)] == made


@pytest.mark.parametrize("data", SOURCES)
def test_the_first_pause_of_a_body_is_the_one_its_walk_finds(data: bytes) -> None:
    """Every body of the file: the first call named `sleep` before any that stops, the
    calls of the functions it holds (or is) left out, as syntax_trees.first_pause walks."""
    reader, root = _read(data)
    calls, functions = Placed(reader.calls), reader._functions()
    stops = ("shutdown", "shutdownNow", "stop", "close", "exit", "halt")

    def sleeping(node: Node) -> str | None:
        named = node.type == "method_invocation" and java._method(node) == "sleep"
        return node_text(node) if named else None

    def stopping(node: Node) -> bool:
        return node.type == "method_invocation" and java._method(node) in stops

    def wait(node: Node, name: str) -> str | None:
        return node_text(node) if name == "sleep" else None

    functions_walked = ("lambda_expression", "class_body", "method_declaration")
    bodies = [n.child_by_field_name("body") for n in walk(root) if n.type in _SCOPE_TYPES]
    for body in [b for b in bodies if b is not None]:
        walked = walked_first_pause([body], sleeping, stopping, functions_walked)
        found = first_pause(body, calls, functions, wait)
        expected = (walked[0].id, walked[1]) if walked is not None else None
        assert ((found[0].id, found[1]) if found is not None else None) == expected


BOUND_AND_READ = b"""
package com.example;

import io.grpc.ManagedChannelBuilder;
import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties("backend")
public class BackendProperties {
  private String host = "localhost";
  private Ports ports;

  public static class Ports { private int grpc = 9090; }

  ManagedChannel channel() {
    return ManagedChannelBuilder.forTarget(host + ":" + ports.grpc).usePlaintext().build();
  }
}
"""


def test_a_file_whose_properties_are_bound_and_whose_code_is_read_is_parsed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = java.parser()
    parsed: list[int] = []

    class Counted:
        language = parser.language

        def parse(self, source: object, **options: object) -> object:
            if isinstance(source, bytes):  # the text itself (a first pass may read chunks)
                parsed.append(len(source))
            return parser.parse(source, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(java, "parser", Counted)
    facts = java.parse("src/main/java/BackendProperties.java", BOUND_AND_READ)
    assert parsed == [len(BOUND_AND_READ)]
    assert "BackendProperties.ports.grpc" in facts.exports  # a nested class's property
    assert len(facts.channels) == 1
