"""Go's reader finds what it binds through a tree-sitter query (issue #51: a reader at the
cost of its parse), not by a walk of every node in Python. These tests hold the query's
reading to the walk's: the same nodes, in the same order, in the same scopes and under the
same `if` guards, so the same facts, on every Go file of the fixtures and the tests, on
code chosen for its corners, and on Go composed at random of those corners."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.code.facts import CodeFacts
from k8slb.code.syntax_trees import captured, walk
from k8slb.core import regex
from k8slb.languages.go import parse as go
from k8slb.languages.go import parse_late_handlers
from k8slb.languages.go import parse_shutdown as go_shutdown
from k8slb.languages.go.parse import _Collector, _parameter_places, _Scope, analyse_go, parser

if TYPE_CHECKING:
    from tree_sitter import Node

ROOT = Path(__file__).resolve().parent.parent
GO_FILES = sorted(
    path
    for folder in (ROOT / "fixtures", ROOT / "tests")
    for path in folder.rglob("*.go")
    if go.worth_parsing(path.read_bytes())
)


class _Walked(_Collector):
    """The reading the query replaced, as the specification of what the binding reads:
    every named node of the tree visited in Python, a function's body in its own scope
    (its header never), an `if`'s consequence under its condition, nothing inside an
    import spec or a string."""

    def _bind(self, node: Node, scope: _Scope) -> None:
        stack: list[tuple[Node, _Scope, Node | None]] = [(node, scope, None)]
        while stack:
            current, scope, guard = stack.pop()
            kind = current.type
            if kind == "import_spec":
                self._import(current)
                continue
            if kind == "method_declaration":
                self._health_check(current)
            if kind in ("function_declaration", "method_declaration"):
                self.declared.append(current)
            if kind in ("function_declaration", "method_declaration", "func_literal"):
                name = go._text(current.child_by_field_name("name"))
                inner = _Scope(scope, name or scope.name)
                parameters = current.child_by_field_name("parameters")
                for child in walk(parameters) if parameters is not None else ():
                    if child.type == "identifier":
                        inner.opaque.add(go._text(child))
                if name and parameters is not None:
                    inner.parameters = _parameter_places(parameters)
                    inner.callee = (name, kind == "method_declaration")
                if name and kind == "function_declaration":
                    self.functions[name] = current
                body = current.child_by_field_name("body")
                if body is not None:
                    self.scope_of[body.id] = inner
                    stack.append((body, inner, None))
                continue
            if kind in ("short_var_declaration", "assignment_statement"):
                self._assign(current, scope, guard)
            elif kind in ("var_spec", "const_spec"):
                self._declare(current, scope)
            elif kind == "range_clause":
                left = current.child_by_field_name("left")
                for child in walk(left) if left is not None else ():
                    if child.type == "identifier":
                        scope.opaque.add(go._text(child))
            elif kind == "call_expression":
                self.calls.append((current, scope))
            elif kind == "unary_expression":
                if go._text(current.child_by_field_name("operator")) == "<-":  # a receive
                    self.unary.append(current)
            elif kind == "composite_literal":
                self.literals.append((current, scope))
                self._literal_fields(current, scope)
            elif kind == "field_identifier" and (current.text or b"").endswith(b"NOT_SERVING"):
                self.facts.health_drains.append(self.loc(current))
            elif kind in ("interpreted_string_literal", "raw_string_literal"):
                self._string_literal(current, scope)
                continue
            if kind == "if_statement":
                condition = current.child_by_field_name("condition")
                consequence = current.child_by_field_name("consequence")
                for child in reversed(current.named_children):
                    stack.append((child, scope, condition if child == consequence else guard))
                continue
            for child in reversed(current.named_children):
                stack.append((child, scope, guard))


def _span(node: Node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


def _bound(collector: _Collector) -> dict[str, Any]:
    """Everything the binding recorded, nodes by where they are, scopes by the body that
    opens them (the package's as None)."""
    bodies = {id(scope): key for key, scope in collector.scope_of.items()}

    def scope_key(scope: _Scope | None) -> object:
        return None if scope is None or scope is collector.package else bodies[id(scope)]

    def spans(pairs: list[tuple[Node, _Scope]]) -> list[object]:
        return [(_span(node), scope_key(scope)) for node, scope in pairs]

    scopes = [collector.package, *collector.scope_of.values()]
    return {
        "scopes": [
            (
                scope_key(scope),
                scope.name,
                scope_key(scope.parent),
                {name: [_span(n) for n in nodes] for name, nodes in scope.bindings.items()},
                {name: [_span(n) for n in nodes] for name, nodes in scope.defaults.items()},
                sorted(scope.opaque),
                scope.parameters,
                scope.callee,
            )
            for scope in scopes
        ],
        "calls": spans(collector.calls),
        "literals": spans(collector.literals),
        "urls": spans(collector.url_expressions),
        "unary": [_span(node) for node in collector.unary],
        "declared": [_span(node) for node in collector.declared],
        "functions": {name: _span(node) for name, node in collector.functions.items()},
        "imports": (collector.imports, collector.dot_imports, collector.import_paths),
        "fields": {f: spans(writes) for f, writes in collector.field_writes.items()},
        "pointers": {
            callee: [(at, _span(node), scope_key(scope)) for at, node, scope in writes]
            for callee, writes in collector.pointer_writes.items()
        },
        "facts": repr(collector.facts),
    }


def _both(source: bytes, path: str = "svc/main.go") -> tuple[dict[str, Any], dict[str, Any]]:
    """The binding of the query and of the walk, on the same tree."""
    root = parser().parse(source).root_node
    assert not root.has_error, source.decode()
    found = []
    for kind in (_Collector, _Walked):
        collector = kind(path, source, CodeFacts(path, "go"))
        collector.bind(root)
        found.append(_bound(collector))
    return found[0], found[1]


def _facts_of_both(source: bytes, path: str = "svc/main.go") -> tuple[str, str]:
    """The whole reading's facts, bound by the query and by the walk."""
    root = parser().parse(source).root_node
    found = []
    for kind in (_Collector, _Walked):
        facts = CodeFacts(path, "go")
        kind(path, source, facts).run(root)
        found.append(repr(facts))
    return found[0], found[1]


@pytest.mark.parametrize("path", GO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_query_binds_what_the_walk_binds_in_every_go_file_of_the_project(path: Path) -> None:
    source = path.read_bytes()
    query, walked = _both(source, str(path))
    assert query == walked
    assert query["declared"] or query["calls"], "the binding read the file"
    facts_by_query, facts_by_walk = _facts_of_both(source, str(path))
    assert facts_by_query == facts_by_walk


# Go that each puts one corner of the binding to the test, as top-level declarations.
CORNERS = {
    "a string in a function's header is not read (its parameters' types)": (
        "func dial(c struct{ URL string `http://header.example:80` }) {}"
    ),
    "a struct tag of a type declaration is": (
        "type T struct{ URL string `http://tag.example:80` }"
    ),
    "an escaped URL is read as its value": 'var u = "\\x68ttp://escaped.example:80"',
    "a URL built of pieces": 'var base = "http://" + host + ":8080"',
    "a registry's target": 'var c, _ = grpc.Dial("consul://registry/svc")',
    'a default under `if x == ""`, not in its else': (
        'func main() {\n\taddr := os.Getenv("A")\n\tif addr == "" {\n\t\taddr = "d:1"\n'
        '\t} else {\n\t\taddr = "e:2"\n\t}\n\tc, _ := grpc.NewClient(addr)\n\t_ = c\n}'
    ),
    "a function literal inside an if's consequence is under no guard": (
        'func main() {\n\tif x == "" {\n\t\tgo func() {\n\t\t\tx = "d:1"\n\t\t}()\n\t}\n}'
    ),
    "an if's initializer and condition are under the outer guard": (
        'func main() {\n\tif a == "" {\n\t\tif a = "i:1"; a == "" {\n\t\t\ta = "j:2"\n\t\t}\n\t}\n}'
    ),
    "a call of a call, and a call of a literal": "func main() {\n\tf()()\n\tfunc() { g() }()\n}",
    "a method's receiver and result are not read, its body is": (
        "func (s *server) Check(ctx context.Context) (*pb.HealthCheckResponse, error) {\n"
        "\treturn &pb.HealthCheckResponse{Status: pb.HealthCheckResponse_NOT_SERVING}, nil\n}"
    ),
    "a range clause's names are opaque": (
        "func main() {\n\tfor _, addr := range addrs {\n\t\tgrpc.Dial(addr)\n\t}\n}"
    ),
    "a receive and an address": "func main() {\n\t<-stop\n\tf(&s.addr)\n\t*p = v\n}",
    "a package constant and variables": 'const A = "a:1"\nvar (\n\tB = A\n\tC []grpc.DialOption\n)',
    "a health drain": 'func stop(h *health.Server) {\n\th.SetServingStatus("", NOT_SERVING)\n}',
}
IMPORTS = (
    'import (\n\t"context"\n\t"os"\n\t"google.golang.org/grpc"\n'
    '\t"google.golang.org/grpc/health"\n\tpb "google.golang.org/grpc/health/grpc_health_v1"\n)\n'
)


def _module(*declarations: str) -> bytes:
    return ("package main\n\n" + IMPORTS + "\n" + "\n\n".join(declarations) + "\n").encode()


@pytest.mark.parametrize("corner", CORNERS)
def test_the_query_binds_what_the_walk_binds_at_each_corner(corner: str) -> None:
    source = _module(CORNERS[corner])
    query, walked = _both(source)
    assert query == walked
    facts_by_query, facts_by_walk = _facts_of_both(source)
    assert facts_by_query == facts_by_walk


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(CORNERS)), min_size=1, max_size=6))
def test_the_query_binds_what_the_walk_binds_in_go_composed_of_the_corners(
    corners: list[str],
) -> None:
    # the same function twice is still a tree (Go's compiler would refuse it, not the reader)
    source = _module(*(CORNERS[corner] for corner in corners))
    query, walked = _both(source)
    assert query == walked
    facts_by_query, facts_by_walk = _facts_of_both(source)
    assert facts_by_query == facts_by_walk


def test_the_corners_give_the_facts_they_are_named_for() -> None:
    """What the corners are for, as facts: strings are read in a struct tag and through an
    escape, not in a function's header; a `Check` that answers NOT_SERVING drains."""
    urls = [url for url, _ in analyse_go("svc/main.go", _module(*CORNERS.values())).urls]
    assert "http://tag.example:80" in urls
    assert "http://escaped.example:80" in urls
    assert "http://header.example:80" not in urls
    check = CORNERS["a method's receiver and result are not read, its body is"]
    found = analyse_go("svc/main.go", _module(check))
    assert found.health_drains
    assert [servicer.class_can_fail for servicer in found.health_servicers] == [True]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40).map(lambda raw: bytes(b'"a\n b'[byte % 5] for byte in raw)))
def test_an_import_blocks_paths_are_what_the_pattern_of_a_quoted_path_finds(text: bytes) -> None:
    # the scan that replaced RE2's findall (an object a match) finds the same, in order
    assert go._quoted(text) == regex.compile(rb'"([^"\n]+)"').findall(text)


def test_a_files_imports_are_read_from_its_lines_and_blocks() -> None:
    source = (
        b'package main\n\nimport "os"\nimport g "google.golang.org/grpc"\nimport (\n'
        b'\t"net/http"\n\t_ "embed"\n\t""\n\t"fmt"\n)\n'
    )
    assert [path for _, path in go.go_imports(source)] == [
        "os",
        "google.golang.org/grpc",
        "net/http",
        "embed",
        "fmt",
    ]


IMPORT_PIECES = [b"import", b" ", b"\n", b"\t", b"\v", b"(", b")", b'"', b"g.", b"x", b"_", b"\xe9"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(IMPORT_PIECES), max_size=24).map(b"".join))
def test_a_files_imports_are_the_matches_of_the_import_patterns(data: bytes) -> None:
    # the scan that replaced RE2's finditer of both patterns (each copied the whole text)
    # finds what they find, in their order
    found = [m.group(1) for m in go._IMPORT_LINE.finditer(data)]
    for block in go._IMPORT_BLOCK.finditer(data):
        found += go._quoted(block.group(1))
    expected = [path.decode("utf-8", "replace") for path in dict.fromkeys(found)]
    assert [path for _, path in go.go_imports(data)] == expected


PACKAGE_PIECES = [b"package", b" ", b"\n", b"\t", b"\v", b"main", b"_", b"(", b"\xe9", b"x"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PACKAGE_PIECES), max_size=16).map(b"".join))
def test_a_files_package_is_the_first_match_of_the_package_clause(data: bytes) -> None:
    found = go._PACKAGE_CLAUSE.search(data)
    expected = found.group(1).decode("ascii", "replace") if found is not None else ""
    assert go.go_package(data) == expected


QUIET = regex.compile(
    r"^(?:(?:Info|Warn|Warning|Error|Debug|Trace|Notice|Print|Log|Msg|Msgf|Send)"
    r"(?:f|ln|w|Context|S)?|With\w*|Sugar|String|Err|Close|Sync|Flush|Now|Since)$"
)
FATAL = regex.compile(r"^(?:Fatal|Fatalf|Fatalln|Fatalw|Exit)$")
NAME_PIECES = ["Info", "Warn", "ing", "Msg", "f", "ln", "w", "Context", "S", "With", "_", "1"]
NAME_PIECES += ["Fatal", "Exit", "Close", "Sync", "Now", "é", "x", "\n", "Err", "Sugar"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(NAME_PIECES), max_size=5).map("".join))
def test_the_quiet_and_fatal_methods_are_those_the_patterns_name(name: str) -> None:
    # sets and a scan in place of an RE2 match a statement the shutdown walk steps over
    assert go_shutdown._quiet_method(name) == (QUIET.match(name) is not None)
    assert (name in go_shutdown._FATAL) == (FATAL.match(name) is not None)


PIECES = [b"// Code generated ", b"by protoc", b" DO NOT EDIT", b".", b"\n", b"package ", b"x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10).map(b"".join))
def test_a_generated_file_is_told_by_its_comment_before_package(data: bytes) -> None:
    # the words looked for before the pattern: the pattern's answer, on the text before
    # the package clause
    head = data.split(b"\npackage ", 1)[0]
    assert go.is_generated(data) == (go._GENERATED.search(head) is not None)


# a file whose calls of other packages pass the same names again and again: the exports'
# values, each remembered once computed
REPEATED = b"""package main

import "example.com/lib"

type Server struct{ addr string; db *lib.DB }

func New(addr string) *Server { return &Server{addr: addr} }

func (s *Server) Run(ctx lib.Context, name string) {
	lib.Log(ctx, s.addr, name)
	lib.Log(ctx, s.addr, name + ":80")
	lib.Dial(ctx, s.addr, lib.Opt(name), lib.Opt(name))
	lib.Dial(ctx, s.addr, lib.Opt(name), lib.Opt(s.addr))
}

func main() {
	s := New("db:5432")
	s.Run(lib.Background(), "x")
	s.Run(lib.Background(), lib.Name)
}
"""


@pytest.mark.parametrize("steps", [None, 12, 40, 90])
def test_the_exports_values_remembered_are_the_values_computed_again(
    monkeypatch: pytest.MonkeyPatch, steps: int | None
) -> None:
    # the same facts (exports and the budget's cut-offs included) as a reading that
    # computes every value again, whole and with a budget too small for the file
    if steps is not None:
        budget = go.Budget
        monkeypatch.setattr(go, "Budget", lambda left=steps: budget(left))
    sources = [(Path("svc/repeated.go"), REPEATED)] + [
        (path, path.read_bytes()) for path in sorted((ROOT / "fixtures").rglob("*.go"))
    ]
    remembered = [repr(analyse_go(str(path), data)) for path, data in sources]
    computed = go._Collector._value
    monkeypatch.setattr(go._Collector, "value", lambda s, n, scope, d=0: computed(s, n, scope, d))
    assert [repr(analyse_go(str(path), data)) for path, data in sources] == remembered


def _bodies(root: Node) -> list[Node]:
    query = (
        "(function_declaration body: (block) @b) (method_declaration body: (block) @b)"
        " (func_literal body: (block) @b)"
    )
    return captured(parser(), root, query).get("b", [])


@pytest.mark.parametrize("path", GO_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_names_uses_found_by_its_bytes_are_the_bodys_identifiers_of_that_name(
    path: Path,
) -> None:
    """`uses_of` (the places a body's bytes hold the name) finds the nodes `identifiers_of`
    (a query of every identifier of the body) finds, in the same order: for every name of
    every body of the project's Go files, and for words that are no identifier there (a
    field, a type, a string's, a comment's, a longer name's part)."""
    source = path.read_bytes()
    root = parser().parse(source).root_node
    for body in _bodies(root):
        collector = _Collector(str(path), source, CodeFacts(str(path), "go"))
        every = collector.identifiers_of(body)
        words = regex.compile(r"[A-Za-z_]\w*").findall(go._text(body))
        for name in {*every, *words[:60]}:
            collector.identifiers, collector.uses = {}, None  # no index: each name scanned
            assert [n.id for n in collector.uses_of(body, name)] == [
                n.id for n in every.get(name, [])
            ], name


def test_a_name_written_more_often_than_a_body_names_one_thing_is_looked_up_in_its_index() -> None:
    """`uses_of` looks at _MAX_SCANNED places of a name's bytes at most, and scans a body
    for _MAX_SCANS names at most: past either, the body's identifiers are indexed once."""
    many = " + ".join(["ab"] * (go._MAX_SCANNED + 10))
    names = "\n".join(f"\tv{n} := {n}" for n in range(go._MAX_SCANS + 3))
    source = _module(f"func main() {{\n\tab := 1\n\t_ = ab{'b' * 3000}\n\tx := {many}\n{names}\n}}")
    root = parser().parse(source).root_node
    (body,) = _bodies(root)
    collector = _Collector("m.go", source, CodeFacts("m.go", "go"))
    found = collector.uses_of(body, "ab")
    assert len(found) == go._MAX_SCANNED + 11
    assert body.id in collector.identifiers  # past _MAX_SCANNED places: indexed
    collector = _Collector("m.go", source, CodeFacts("m.go", "go"))
    for n in range(go._MAX_SCANS + 3):
        assert [go._text(use) for use in collector.uses_of(body, f"v{n}")] == [f"v{n}"]
    assert body.id in collector.identifiers  # past _MAX_SCANS names: indexed


LATE = b"""package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
)

func main() {
	lis, _ := net.Listen("tcp", ":50051")
	srv := grpc.NewServer()
	if lis != nil {
		srv.Serve(lis)
	}
	other := grpc.NewServer()
	go func() { other.Serve(lis) }()
	client := http.DefaultClient
	client.Get("http://a:80/")
	http.DefaultClient.Post("http://b:80/", "", nil)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	srv.GracefulStop()
	other.Serve(lis)
}
"""


def test_what_a_byte_or_call_pre_check_skips_is_what_the_reading_would_not_find(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `Serve` before a SIGTERM handler is looked for only where a `Serve` call of a
    server starts before it, and `http.DefaultClient` only where the file writes its name:
    the same facts as a reading that asks every call."""
    sources = [(Path("svc/late.go"), LATE)] + [
        (path, path.read_bytes()) for path in GO_FILES if b"Serve" in path.read_bytes()
    ]
    checked = [repr(analyse_go(str(path), data)) for path, data in sources]
    late = analyse_go("svc/late.go", LATE)
    assert [wait.late_handler is not None for wait in late.waits] == [True, False, False]
    assert {client.base_url for client in late.http_clients} == {"http://a:80/", "http://b:80/"}
    monkeypatch.setattr(parse_late_handlers, "_after_a_serve", lambda earliest, call: True)
    original = go._Collector.__init__

    def every_call(self: go._Collector, *args: Any) -> None:
        original(self, *args)
        self.default_client = True

    monkeypatch.setattr(go._Collector, "__init__", every_call)
    assert [repr(analyse_go(str(path), data)) for path, data in sources] == checked
