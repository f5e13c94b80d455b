"""Go edits: spliced where tree-sitter says, with the imports they need added in gofmt's
order, under the names the file already uses; refused when in doubt."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import Loc, Stop
from k8slb.core.edits import GoEdit, Refused
from k8slb.languages.go.dialect import DIALECT, GRPC_PACKAGES
from k8slb.languages.go.edit import apply_go

from .go_toolchain import go_format, stays_formatted, unformatted

KEEPALIVE = (
    "{grpc}.KeepaliveParams({keepalive}.ServerParameters{MaxConnectionAge: 5 * {time}.Minute})"
)


def add_argument(source: str, line: int, column: int, code: str = KEEPALIVE) -> str:
    edit = GoEdit("main.go", line, column, "add-argument", code, GRPC_PACKAGES)
    fixed = apply_go(source, [edit])
    assert stays_formatted(source, fixed), fixed
    return fixed


def test_an_aliased_package_is_named_as_the_file_names_it() -> None:
    source = 'package main\n\nimport g "google.golang.org/grpc"\n\nvar s = g.NewServer()\n'
    assert add_argument(source, 5, 9) == (
        'package main\n\nimport (\n\t"time"\n\n\tg "google.golang.org/grpc"\n'
        '\t"google.golang.org/grpc/keepalive"\n)\n\nvar s = g.NewServer(g.KeepaliveParams('
        "keepalive.ServerParameters{MaxConnectionAge: 5 * time.Minute}))\n"
    )


def test_imports_go_to_their_groups_in_order() -> None:
    source = (
        'package main\n\nimport (\n\t"net"\n\t"os"\n\n\t"github.com/acme/log"\n'
        '\t"google.golang.org/grpc"\n)\n\nvar s = grpc.NewServer()\n'
    )
    fixed = add_argument(source, 11, 9)
    assert fixed.startswith(
        'package main\n\nimport (\n\t"net"\n\t"os"\n\t"time"\n\n\t"github.com/acme/log"\n'
        '\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/keepalive"\n)\n'
    )


def test_a_single_import_becomes_a_block() -> None:
    source = 'package main\n\nimport "google.golang.org/grpc"\n\nvar s = grpc.NewServer()\n'
    fixed = add_argument(source, 5, 9, "{grpc}.MaxRecvMsgSize(1 << 20)")
    assert fixed == source.replace("NewServer()", "NewServer(grpc.MaxRecvMsgSize(1 << 20))")
    with_time = add_argument(source, 5, 9, "{grpc}.ConnectionTimeout(5 * {time}.Second)")
    assert with_time.startswith(
        'package main\n\nimport (\n\t"time"\n\n\t"google.golang.org/grpc"\n)\n'
    )


def test_a_name_taken_by_another_package_is_refused() -> None:
    source = (
        'package main\n\nimport (\n\t"google.golang.org/grpc"\n\ttime "github.com/acme/clock"\n)'
        "\n\nvar s = grpc.NewServer()\nvar _ = time.Now\n"
    )
    with pytest.raises(Refused, match="'time' is taken"):
        add_argument(source, 8, 9)


def test_a_comment_after_the_last_argument_is_refused() -> None:
    source = (
        'package main\n\nimport "google.golang.org/grpc"\n\n'
        "var s = grpc.NewServer(grpc.MaxRecvMsgSize(1) /* why */)\n"
    )
    with pytest.raises(Refused, match="comment"):
        add_argument(source, 5, 9, "{grpc}.MaxSendMsgSize(1)")


def test_an_edit_where_no_call_starts_is_refused() -> None:
    source = 'package main\n\nimport "google.golang.org/grpc"\n\nvar s = grpc.NewServer()\n'
    with pytest.raises(Refused, match="no call_expression"):
        add_argument(source, 5, 5)


def test_nothing_is_added_after_a_spread_slice() -> None:
    source = (
        'package main\n\nimport "google.golang.org/grpc"\n\n'
        "var opts = []grpc.ServerOption{grpc.MaxRecvMsgSize(1)}\n"
        "var s = grpc.NewServer(opts...)\n"
    )
    with pytest.raises(Refused, match="spreads a slice"):
        add_argument(source, 6, 9, "{grpc}.MaxSendMsgSize(1)")


def test_a_multi_line_call_gets_the_argument_on_its_own_line() -> None:
    source = (
        'package main\n\nimport "google.golang.org/grpc"\n\n'
        "var s = grpc.NewServer(\n\tgrpc.MaxRecvMsgSize(1), // the limit\n)\n"
    )
    assert add_argument(source, 5, 9, "{grpc}.MaxSendMsgSize(1)") == source.replace(
        "// the limit\n)", "// the limit\n\tgrpc.MaxSendMsgSize(1),\n)"
    )


# Arguments whose operators gofmt spaces by depth (go/printer's binaryExpr and cutoff).
SPACED_BY_DEPTH = [
    "8 << 20",
    "a + b*c",
    "a*b + c",
    "a + b - c",
    "a<<b | c",
    "-a * b",
    "a / *p",
    "a - -b",
    "(a + b) * c",
    "x[i+1] * 2",
    "s[a+b:] + t",
    "f(a + b)",
    "f(a+b, c)",
    "m.Get(a * b).Size",
    "v.(int) + 1",
    "T{X: a + b}",
    "func() int { return a + b }()",
    "!ok && n > 1 || done",
    "&a",
    "1 << 20 * size",
]


@pytest.mark.parametrize("place", ["s := grpc.NewServer({})", "s := wrap(grpc.NewServer({}), 1)"])
def test_a_new_argument_leaves_the_call_as_gofmt_writes_it(tmp_path: Path, place: str) -> None:
    """Each call starts as gofmt writes it; after the edit `gofmt -l` lists no file: the
    operators of the argument already there are re-spaced where the second argument makes
    gofmt space them otherwise, and left as they were where it does not."""
    files = []
    for number, expression in enumerate(SPACED_BY_DEPTH):
        source = f"package main\n\nfunc main() {{\n\t{place.format(expression)}\n}}\n"
        path = tmp_path / f"case{number}.go"
        path.write_text(source)
        files.append(path)
    go_format(files)  # as gofmt writes them
    for path in files:
        column = path.read_text().splitlines()[3].index("grpc.NewServer") + 1
        path.write_text(add_argument(path.read_text(), 4, column, "{grpc}.MaxRecvMsgSize(1 << 20)"))
    assert unformatted(files) == [], [p.read_text().splitlines()[3] for p in files]


HANDLER = "go func() {\n\t<-{time}.After({time}.Second)\n}()"


def insert_before(source: str, line: int, column: int) -> str:
    edit = GoEdit("main.go", line, column, "insert-statements", HANDLER, GRPC_PACKAGES)
    fixed = apply_go(source, [edit])
    assert stays_formatted(source, fixed), fixed
    return fixed


def test_statements_go_before_the_statement_that_holds_the_call_at_its_indentation() -> None:
    source = (
        'package main\n\nimport "time"\n\nfunc main() {\n\tif true {\n'
        "\t\tif err := s.Serve(l); err != nil {\n\t\t\tpanic(err)\n\t\t}\n\t}\n}\n"
    )
    fixed = insert_before(source, 7, 13)
    assert fixed == source.replace(
        "\t\tif err",
        "\t\tgo func() {\n\t\t\t<-time.After(time.Second)\n\t\t}()\n\t\tif err",
    )


def test_statements_are_not_inserted_into_a_line_another_statement_shares() -> None:
    source = 'package main\n\nimport "time"\n\nfunc main() { s.Serve(l) }\n'
    with pytest.raises(Refused, match="does not start its own line"):
        insert_before(source, 5, 15)


def bounded(source: str, line: int, column: int) -> str:
    [edit] = DIALECT.graceful_stop(Stop(Loc("main.go", line, column), "s", 0, False), 25)
    fixed = apply_go(source, [edit])
    assert stays_formatted(source, fixed), fixed
    return fixed


STOPS = 'package main\n\nimport "time"\n\nfunc stop() {\n\t{stop}\n}\n'


def test_a_stop_becomes_a_graceful_stop_that_a_timer_bounds() -> None:
    source = STOPS.replace("{stop}", "s.Stop() // on SIGTERM")
    assert bounded(source, 6, 2) == source.replace(
        "\ts.Stop()", "\ttime.AfterFunc(25*time.Second, s.Stop)\n\ts.GracefulStop()"
    )


@pytest.mark.parametrize("keyword", ["defer", "go"])
def test_a_stop_that_runs_later_is_bounded_when_it_runs(keyword: str) -> None:
    """A timer started where `defer s.Stop()` stands would stop the server long before the
    deferred call runs: the deferred call starts it."""
    source = STOPS.replace("{stop}", f"{keyword} s.Stop()")
    assert bounded(source, 6, len(keyword) + 3) == source.replace(
        f"\t{keyword} s.Stop()",
        f"\t{keyword} func() {{\n\t\ttime.AfterFunc(25*time.Second, s.Stop)\n"
        "\t\ts.GracefulStop()\n\t}()",
    )


def test_a_stop_inside_an_expression_is_refused() -> None:
    source = STOPS.replace("{stop}", "if s.Stop(); true {\n\t}")
    with pytest.raises(Refused, match="not a statement of its own"):
        bounded(source, 6, 5)


def test_a_stop_on_an_expression_is_left_unfixed() -> None:
    """`servers[0].Stop` written twice could name two servers: no fix is offered."""
    stop = Stop(Loc("main.go", 6, 2), "servers[0]", 0, False)
    assert DIALECT.graceful_stop(stop, 25) == []
