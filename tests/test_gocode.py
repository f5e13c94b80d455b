"""The Go front-end: Go source read into the same facts the rules read for Python."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from k8slb.code.facts import UNKNOWN, CodeFacts, EnvRef, EnvText
from k8slb.code.imported import resolve_imports
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

if TYPE_CHECKING:
    from tree_sitter import Node


def facts(
    body: str, imports: str = '"google.golang.org/grpc"', path: str = "svc/main.go"
) -> CodeFacts:
    source = f"package main\n\nimport (\n{imports}\n)\n\n{body}\n"
    return analyse_go(path, source.encode())


def resolved(found: CodeFacts) -> CodeFacts:
    """The facts once the values other files owe it are joined (none here: unknown)."""
    return resolve_imports([found])[0]


def target(body: str, imports: str = '"os"\n\t"fmt"\n\t"google.golang.org/grpc"') -> object:
    [channel] = resolved(facts(body, imports)).channels
    return channel.target


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('const addr = "backend:50051"\nvar c, _ = grpc.NewClient(addr)', "backend:50051"),
        (
            'const host = "backend"\nconst port = 50051\n'
            'var c, _ = grpc.NewClient(fmt.Sprintf("%s:%d", host, port))',
            "backend:50051",
        ),
        ('var c, _ = grpc.NewClient("dns:///" + "backend" + ":50051")', "dns:///backend:50051"),
        ('var c, _ = grpc.NewClient(os.Getenv("ADDR"))', EnvRef("ADDR", None)),
        (
            'func main() {\n\taddr := os.Getenv("ADDR")\n\tif addr == "" {\n'
            '\t\taddr = "backend:50051"\n\t}\n\tc, _ := grpc.NewClient(addr)\n\t_ = c\n}',
            EnvRef("ADDR", "backend:50051"),
        ),
        (
            'func main() {\n\taddr, ok := os.LookupEnv("ADDR")\n\tif !ok {\n'
            '\t\taddr = "backend:50051"\n\t}\n\tc, _ := grpc.NewClient(addr)\n\t_ = c\n}',
            EnvRef("ADDR", "backend:50051"),
        ),
        (
            'func main() {\n\tc, _ := grpc.NewClient(os.Getenv("HOST") + ":50051")\n\t_ = c\n}',
            EnvRef("HOST", None, suffix=":50051"),
        ),
        ("func dial(addr string) {\n\tc, _ := grpc.NewClient(addr)\n\t_ = c\n}", UNKNOWN),
    ],
    ids=[
        "const",
        "sprintf",
        "concatenation",
        "getenv",
        "default",
        "lookupenv",
        "env-suffix",
        "param",
    ],
)
def test_targets_are_followed_through_go_values(body: str, expected: object) -> None:
    assert target(body) == expected


def test_lookupenv_defaults_follow_the_second_result_whatever_its_name() -> None:
    """`exists` told of `domain`, then (bound again) of `port`: each `if !exists` gives
    the name it last came with its default, and a Sprintf joins the two."""
    body = (
        'func main() {\n\tdomain, exists := os.LookupEnv("SERVER_DOMAIN")\n'
        '\tif !exists {\n\t\tdomain = "localhost"\n\t}\n'
        '\tport, exists := os.LookupEnv("SERVER_PORT")\n'
        '\tif !exists {\n\t\tport = "50051"\n\t}\n'
        '\ttarget := fmt.Sprintf("%s:%s", domain, port)\n'
        "\tconn, _ := grpc.Dial(target)\n\tdefer conn.Close()\n}"
    )
    expected = EnvText((EnvRef("SERVER_DOMAIN", "localhost"), ":", EnvRef("SERVER_PORT", "50051")))
    assert target(body) == expected
    assert target(body.replace("exists", "ok")) == expected


def test_a_negated_flag_of_another_name_is_no_default() -> None:
    """`if !ready` after `addr, ok := os.LookupEnv(...)` says nothing of `addr`."""
    body = (
        'func main() {\n\taddr, ok := os.LookupEnv("ADDR")\n\t_ = ok\n'
        '\tif !ready {\n\t\taddr = "backend:50051"\n\t}\n'
        "\tc, _ := grpc.NewClient(addr)\n\t_ = c\n}"
    )
    assert target(body) != EnvRef("ADDR", "backend:50051")


def test_imports_aliases_and_dot_imports() -> None:
    aliased = facts('var c, _ = g.Dial("x:1")', 'g "google.golang.org/grpc"')
    assert [c.factory for c in aliased.channels] == ["grpc.Dial"]
    dotted = facts('var c, _ = Dial("x:1")', '. "google.golang.org/grpc"')
    assert [c.factory for c in dotted.channels] == ["grpc.Dial"]
    local = facts('func Dial(s string) {}\nvar c = Dial("x:1")', '"fmt"')
    assert local.channels == []


def test_dial_defaults_to_passthrough_and_new_client_to_dns() -> None:
    found = facts(
        'var a, _ = grpc.Dial("x:1")\nvar b, _ = grpc.DialContext(ctx, "x:1")\n'
        'var c, _ = grpc.NewClient("x:1")'
    )
    assert [(c.factory, c.default_scheme, c.target) for c in found.channels] == [
        ("grpc.Dial", "passthrough", "x:1"),
        ("grpc.DialContext", "passthrough", "x:1"),
        ("grpc.NewClient", "dns", "x:1"),
    ]


def test_a_channel_closed_by_defer_in_its_function_is_per_call() -> None:
    body = (
        'func get() {\n\tconn, _ := grpc.NewClient("x:1")\n\tdefer conn.Close()\n}\n'
        'func main() {\n\tconn, _ := grpc.NewClient("y:1")\n\tdefer conn.Close()\n}\n'
        'var kept, _ = grpc.NewClient("z:1")'
    )
    assert [(c.target, c.long_lived) for c in facts(body).channels] == [
        ("x:1", False),
        ("y:1", True),
        ("z:1", True),
    ]


def test_dial_options_service_config_and_what_cannot_be_followed() -> None:
    body = (
        'var opts = []grpc.DialOption{grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": '
        '[{"round_robin": {}}]}`)}\n'
        'var a, _ = grpc.NewClient("x:1", opts...)\n'
        'var b, _ = grpc.NewClient("x:1", dialOptions()...)\n'
        'var c, _ = grpc.NewClient("x:1", grpc.WithBalancerName("round_robin"))'
    )
    a, b, c = resolved(facts(body)).channels
    config = a.options.get("grpc.service_config")
    assert config is not None and "round_robin" in config.value and a.options.complete
    assert not b.options.complete
    by_name = c.options.get("grpc.lb_policy_name")
    assert by_name is not None and by_name.value == "round_robin"


def test_server_keepalive_parameters_in_milliseconds() -> None:
    body = (
        "var params = keepalive.ServerParameters{\n"
        "\tMaxConnectionAge:      time.Duration(5) * time.Minute,\n"
        "\tMaxConnectionAgeGrace: 30 * time.Second,\n}\n"
        "func main() {\n\ts := grpc.NewServer(grpc.KeepaliveParams(params))\n"
        '\tlis, _ := net.Listen("tcp", ":"+os.Getenv("PORT"))\n\ts.Serve(lis)\n}'
    )
    imports = (
        '"net"\n\t"os"\n\t"time"\n\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/keepalive"'
    )
    found = facts(body, imports)
    [server] = found.servers
    age, grace = (
        server.options.get("grpc.max_connection_age_ms"),
        server.options.get("grpc.max_connection_age_grace_ms"),
    )
    assert age is not None and age.value == 300_000 and server.options.complete
    assert grace is not None and grace.value == 30_000
    assert found.starts == {"s"} and [w.how for w in found.waits] == ["Serve()"]
    [listen] = found.listens
    assert listen.address == EnvRef("PORT", None, prefix=":")


def test_an_option_made_elsewhere_leaves_the_server_options_incomplete() -> None:
    [server] = resolved(facts("var s = grpc.NewServer(serverOptions()...)")).servers
    assert not server.options.complete


def test_server_options_built_in_a_slice_with_conditional_appends_are_followed() -> None:
    """`var opts []grpc.ServerOption`, appends under an `if`, `grpc.NewServer(opts...)`:
    every option the slice may hold is read, so a server with no keepalive is known."""
    body = (
        "func main() {\n\tvar opts []grpc.ServerOption\n"
        '\tif os.Getenv("TLS") != "" {\n\t\topts = append(opts, grpc.Creds(nil))\n\t}\n'
        "\topts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{\n"
        "\t\tMaxConnectionAge: time.Minute,\n\t}))\n"
        "\ts := grpc.NewServer(opts...)\n\t_ = s\n}"
    )
    imports = '"os"\n\t"time"\n\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/keepalive"'
    [server] = facts(body, imports).servers
    age = server.options.get("grpc.max_connection_age_ms")
    assert server.options.complete and age is not None and age.value == 60_000
    keepalive = body[
        body.index("\topts = append(opts, grpc.KeepaliveParams") : body.index("\ts := ")
    ]
    without = body.replace(keepalive, "\topts = append(opts, grpc.MaxRecvMsgSize(1))\n")
    [bare] = facts(without, imports).servers
    assert bare.options.complete and bare.options.get("grpc.max_connection_age_ms") is None
    spread = body.replace("opts = append(opts, grpc.Creds(nil))", "opts = append(opts, more...)")
    [unknown] = facts(spread, imports).servers
    assert not unknown.options.complete, "an append of another slice is not followed"


def test_stops_and_sigterm_handling() -> None:
    body = (
        "func main() {\n\ts := grpc.NewServer()\n"
        "\tch := make(chan os.Signal, 1)\n\tsignal.Notify(ch, os.Interrupt)\n"
        "\tsignal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)\n"
        "\tctx, _ := signal.NotifyContext(context.Background(), unix.SIGTERM)\n"
        "\tsignal.Notify(ch)\n\t_ = ctx\n\ts.GracefulStop()\n\ts.Stop()\n}"
    )
    imports = (
        '"context"\n\t"os"\n\t"os/signal"\n\t"syscall"\n\t"golang.org/x/sys/unix"\n'
        '\t"google.golang.org/grpc"'
    )
    found = facts(body, imports)
    assert [loc.line for loc in found.sigterm_handlers] == [16, 17, 18], "not os.Interrupt alone"
    # a Stop in a function that also stops gracefully is that stop's bound
    assert [(s.server, s.grace) for s in found.stops] == [("s", math.inf), ("s", math.inf)]
    alone = facts("func main() {\n\ts := grpc.NewServer()\n\ts.Stop()\n}", imports)
    assert [(s.server, s.grace) for s in alone.stops] == [("s", 0)]


def test_a_stop_only_sigint_reaches_is_a_developers_ctrl_c() -> None:
    imports = '"os"\n\t"os/signal"\n\t"syscall"\n\t"google.golang.org/grpc"'
    serve = "func main() {\n\ts := grpc.NewServer()\n\tgo s.Serve(nil)\n"
    interrupt = "\tquit := make(chan os.Signal, 1)\n\tsignal.Notify(quit, os.Interrupt)\n"
    body = serve + interrupt + "\t<-quit\n\ts.Stop()\n}"
    assert [s.in_keyboard_interrupt for s in facts(body, imports).stops] == [True]
    sigint = body.replace("os.Interrupt", "syscall.SIGINT")
    assert [s.in_keyboard_interrupt for s in facts(sigint, imports).stops] == [True]
    # SIGTERM on the same channel, or received before the stop: a rollout's stop
    both = body.replace("os.Interrupt", "os.Interrupt, syscall.SIGTERM")
    assert [s.in_keyboard_interrupt for s in facts(both, imports).stops] == [False]
    term = "\tdone := make(chan os.Signal, 1)\n\tsignal.Notify(done, syscall.SIGTERM)\n"
    either = serve + interrupt + term + "\tselect {\n\tcase <-quit:\n\tcase <-done:\n\t}\n"
    assert [s.in_keyboard_interrupt for s in facts(either + "\ts.Stop()\n}", imports).stops] == [
        False
    ]
    # a stop before the receive, or in another function, is not the Ctrl-C's
    early = serve + interrupt + "\ts.Stop()\n\t<-quit\n}"
    assert [s.in_keyboard_interrupt for s in facts(early, imports).stops] == [False]
    other = serve + interrupt + "\t<-quit\n}\n\nfunc halt(s *grpc.Server) {\n\ts.Stop()\n}"
    assert [s.in_keyboard_interrupt for s in facts(other, imports).stops] == [False]


def test_stop_as_the_timeout_of_a_graceful_stop_is_not_reported(tmp_path: Path) -> None:
    """hello-grpc's shutdown: GracefulStop in a goroutine, Stop when a timeout wins."""
    body = (
        "func main() {\n\ts := grpc.NewServer()\n\tstopped := make(chan struct{})\n"
        "\tgo func() {\n\t\ts.GracefulStop()\n\t\tclose(stopped)\n\t}()\n"
        "\tselect {\n\tcase <-time.After(10 * time.Second):\n\t\ts.Stop()\n"
        "\tcase <-stopped:\n\t}\n}"
    )
    source = f'package main\n\nimport (\n\t"time"\n\t"google.golang.org/grpc"\n)\n\n{body}\n'
    assert lint_files(tmp_path, {"main.go": source}, ["KLB404"]).findings == []


def test_database_pools_and_their_lifetime() -> None:
    body = (
        'var db, _ = sql.Open("pgx", os.Getenv("DATABASE_URL"))\n'
        "func init() {\n\tdb.SetConnMaxLifetime(30 * time.Minute)\n}"
    )
    [pool] = facts(body, '"database/sql"\n\t"os"\n\t"time"').db_pools
    assert pool.lifetime == 1_800_000 and pool.url == EnvRef("DATABASE_URL", None)


def test_a_pool_stored_in_a_package_variable_of_another_file_is_long_lived() -> None:
    """`DB = db` where `DB` is declared by another file of the package (`var DB *sql.DB`
    in common.go): kept for the process, as one of this file's would be."""
    connect = (
        'func Connect() {{\n\tdb, err := sql.Open("postgres", os.Getenv("DSN"))\n'
        "\tif err != nil {{\n\t\tpanic(err)\n\t}}\n"
        "\tdb.SetConnMaxIdleTime(10 * time.Second)\n{}}}"
    )
    imports = '"database/sql"\n\t"os"\n\t"time"'
    [pool] = facts(connect.format("\tDB = db\n"), imports).db_pools
    assert pool.long_lived and pool.lifetime is None
    local = "\tvar DB *sql.DB\n\tDB = db\n\t_ = DB\n"  # declared in the function
    named = connect.format("\tDB = db\n").replace("Connect() {", "Connect() (DB *sql.DB) {")
    for body in (connect.format(local), named.replace("\n}", "\n\treturn\n}"), connect.format("")):
        [pool] = facts(body, imports).db_pools
        assert not pool.long_lived, body


# sqlx's pools, as a service's store package opens them: a *sqlx.DB embeds the *sql.DB it
# opens, with database/sql's lifetime (none unless set).
SQLX_STORE = """\
type Store struct {
\tdb *sqlx.DB
}

func NewStore(ctx context.Context) (*Store, error) {
\tdb, err := sqlx.ConnectContext(ctx, "postgres", os.Getenv("ORDERS_DSN"))
\tif err != nil {
\t\treturn nil, err
\t}
\tdb.SetMaxOpenConns(20)
\treturn &Store{db: db}, nil
}"""
SQLX_IMPORTS = '"context"\n\t"os"\n\t"time"\n\t"github.com/jmoiron/sqlx"\n\t_ "github.com/lib/pq"'


@pytest.mark.parametrize(
    ("opened", "factory"),
    [
        ('sqlx.ConnectContext(ctx, "postgres", os.Getenv("ORDERS_DSN"))', "sqlx.ConnectContext"),
        ('sqlx.Connect("postgres", os.Getenv("ORDERS_DSN"))', "sqlx.Connect"),
        ('sqlx.Open("postgres", os.Getenv("ORDERS_DSN"))', "sqlx.Open"),
    ],
)
def test_an_sqlx_pool_is_a_database_sql_pool(opened: str, factory: str) -> None:
    body = SQLX_STORE.replace(
        'sqlx.ConnectContext(ctx, "postgres", os.Getenv("ORDERS_DSN"))', opened
    )
    [pool] = facts(body, SQLX_IMPORTS).db_pools
    assert (pool.factory, pool.url, pool.lifetime) == (factory, EnvRef("ORDERS_DSN", None), None)
    assert pool.long_lived and pool.loc.line == 16


def test_a_pool_opened_through_a_package_variable_holding_the_opener_is_its_pool() -> None:
    # the opener kept in a variable, for tests to swap: `openDB = sqlx.Connect`
    held = "var (\n\topenDB = sqlx.Connect\n\tlog = fmt.Println\n)\n\n"
    body = held + SQLX_STORE.replace("sqlx.ConnectContext(ctx, ", "openDB(")
    [pool] = facts(body, '"fmt"\n\t' + SQLX_IMPORTS).db_pools
    assert (pool.factory, pool.url, pool.lifetime) == ("sqlx.Connect", EnvRef("ORDERS_DSN"), None)
    assert pool.loc.line == 22
    # a variable the file binds to something else too is not followed
    swapped = body + "\n\nfunc fake() {\n\topenDB = nil\n}"
    assert facts(swapped, '"fmt"\n\t' + SQLX_IMPORTS).db_pools == []


def test_a_lifetime_set_through_sqlx_newdb_is_the_wrapped_pools() -> None:
    body = (
        "func open() *sqlx.DB {\n"
        '\tdb, _ := sql.Open("postgres", os.Getenv("ORDERS_DSN"))\n'
        '\tdbx := sqlx.NewDb(db, "postgres")\n'
        "\tdbx.SetConnMaxLifetime(30 * time.Minute)\n\treturn dbx\n}"
    )
    [pool] = facts(body, '"database/sql"\n' + SQLX_IMPORTS).db_pools
    assert pool.factory == "sql.Open" and pool.lifetime == 1_800_000


def test_an_sqlx_pool_without_a_lifetime_is_klb203_and_one_with_it_is_not(tmp_path: Path) -> None:
    source = f"package store\n\nimport (\n{SQLX_IMPORTS}\n)\n\n{SQLX_STORE}\n"
    (finding,) = lint_files(tmp_path / "a", {"store/store.go": source}, ["KLB203"]).findings
    assert finding.message.startswith("long-lived sqlx.ConnectContext pool: no SetConnMaxLifetime")
    bounded = source.replace("SetMaxOpenConns(20)", "SetConnMaxLifetime(30 * time.Minute)")
    assert lint_files(tmp_path / "b", {"store/store.go": bounded}, ["KLB203"]).findings == []


@pytest.mark.parametrize("driver", ["sqlite3", "sqlite"])
def test_a_sqlite_pool_is_a_file_in_the_process_and_not_klb203(tmp_path: Path, driver: str) -> None:
    source = (
        'package main\n\nimport (\n\t"database/sql"\n\t_ "github.com/mattn/go-sqlite3"\n)\n\n'
        f'var db, _ = sql.Open("{driver}", "./app.db")\n'
    )
    [pool] = facts(source.split(")\n\n", 1)[1], '"database/sql"').db_pools
    assert pool.in_process and pool.long_lived
    assert lint_files(tmp_path / "a", {"main.go": source}, ["KLB203"]).findings == []
    served = source.replace(f'"{driver}", "./app.db"', '"pgx", "postgres://orders-db:5432/o"')
    assert len(lint_files(tmp_path / "b", {"main.go": served}, ["KLB203"]).findings) == 1


def test_http_transports_kept_or_per_call() -> None:
    body = (
        "var shared = &http.Transport{IdleConnTimeout: 90 * time.Second}\n"
        "func get() {\n\tt := &http.Transport{DisableKeepAlives: true}\n\t_ = t\n}"
    )
    kept, once = facts(body, '"net/http"\n\t"time"').http_clients
    assert kept.long_lived and not kept.reuse_disabled
    assert not once.long_lived and once.reuse_disabled


def test_files_that_are_not_reported() -> None:
    source = b'package main\n\nimport "google.golang.org/grpc"\n\nvar s = grpc.NewServer()\n'
    generated = b"// Code generated by protoc-gen-go. DO NOT EDIT.\n\n" + source
    assert analyse_go("svc/api.pb.go", generated).servers == []
    assert analyse_go("vendor/google.golang.org/grpc/x.go", source).servers == []
    assert analyse_go("svc/server_test.go", source).is_test
    assert analyse_go("svc/plain.go", b"package main\n\nfunc main() {}\n").servers == []


def test_a_file_that_does_not_parse_is_klb004_at_its_first_error() -> None:
    broken = (
        b'package main\n\nimport "google.golang.org/grpc"\n\n'
        b"func main() {\n\ts := grpc.NewServer(\n}\n"
    )
    problem = analyse_go("svc/main.go", broken).problem
    assert problem is not None and problem.rule == "KLB004" and problem.line in (6, 7)


@pytest.mark.parametrize(
    ("call", "severity"),
    [
        ("new(time.Duration(30) * time.Second)", Severity.INFO),  # Go 1.26's new(expr)
        ('new(fmt.Sprint("a", "b"))', Severity.INFO),
        ("new(time.Duration(30) * time.Second", None),  # broken: an error still
    ],
)
def test_new_given_an_expression_is_go_the_grammar_lags(
    call: str, severity: Severity | None
) -> None:
    source = (
        'package main\n\nimport (\n\t"fmt"\n\t"time"\n\n\t"google.golang.org/grpc"\n)\n\n'
        "type limits struct{ idle *time.Duration }\n\n"
        f"func main() {{\n\tl := limits{{idle: {call}}}\n\tfmt.Println(l, grpc.NewServer())\n}}\n"
    )
    problem = analyse_go("svc/main.go", source.encode()).problem
    assert problem is not None and (problem.rule, problem.severity) == ("KLB004", severity)
    if severity is not None:
        assert problem.message.startswith("not analysed: `new` given an expression at line 13")


def test_go_suppression_comments(tmp_path: Path) -> None:
    source = (
        'package main\n\nimport (\n\t"net"\n\n\t"google.golang.org/grpc"\n)\n\n'
        'func main() {\n\tlis, _ := net.Listen("tcp", ":50051")\n'
        "\ts := grpc.NewServer() // k8slb: ignore[KLB201] ages out behind Envoy\n"
        "\ts.Serve(lis)\n}\n"
    )
    result = lint_files(tmp_path, {"svc/main.go": source}, select=["KLB201"])
    assert result.findings == [] and len(result.suppressed) == 1


def test_go_findings_offer_go_edits_only(tmp_path: Path) -> None:
    source = (
        'package main\n\nimport (\n\t"net"\n\n\t"google.golang.org/grpc"\n)\n\n'
        'func main() {\n\tlis, _ := net.Listen("tcp", ":50051")\n'
        "\ts := grpc.NewServer()\n\ts.Serve(lis)\n}\n"
    )
    [finding] = lint_files(tmp_path, {"svc/main.go": source}, select=["KLB201"]).findings
    assert finding.fix.available
    assert [type(edit).__name__ for edit in finding.edits] == ["GoEdit"]


def test_the_default_client_dials_with_the_process_wide_transport(tmp_path: Path) -> None:
    source = (
        'package main\n\nimport (\n\t"fmt"\n\t"net/http"\n\t"os"\n)\n\n'
        "func stock() {\n"
        '\thttp.Get(fmt.Sprintf("http://%s/stock", os.Getenv("INVENTORY_HOST")))\n'
        '\thttp.DefaultClient.Get("http://inventory.shop.svc.cluster.local/items")\n}\n'
    )
    [first, second] = analyse_go("svc/main.go", source.encode()).http_clients
    assert first.factory == "http.DefaultClient" and first.long_lived
    assert first.base_url == EnvRef("INVENTORY_HOST", None, prefix="http://", suffix="/stock")
    assert second.base_url == "http://inventory.shop.svc.cluster.local/items"
    [finding] = lint_files(tmp_path, {"svc/main.go": source}, select=["KLB202"]).findings
    assert finding.message == "long-lived http.DefaultClient keeps its connections for ever"


@pytest.mark.parametrize(
    "serve",
    [
        "func h(w http.ResponseWriter, r *http.Request) { s.ServeHTTP(w, r) }",
        'func main() { http.ListenAndServe(":80", h2c.NewHandler(s, &http2.Server{})) }',
        'func main() { (&http.Server{Addr: ":80", Handler: s}).ListenAndServe() }',
        'func main() { mux := http.NewServeMux(); mux.Handle("/pb.Echo/", s) }',
        'func main() { r := router(); r.HandleFunc("/", s.ServeHTTP) }',
        "func main() { h := http.HandlerFunc(s.ServeHTTP); _ = h }",
    ],
    ids=["ServeHTTP", "h2c", "http.Server", "mux.Handle", "method-value", "HandlerFunc"],
)
def test_a_server_handed_to_net_http_is_served_as_a_handler(serve: str) -> None:
    imports = (
        '"net/http"\n\t"golang.org/x/net/http2"\n\t"golang.org/x/net/http2/h2c"\n'
        '\t"google.golang.org/grpc"'
    )
    found = facts(f"var s = grpc.NewServer()\n{serve}", imports)
    assert found.http_served == {"s"} and not found.starts
    assert facts("var s = grpc.NewServer()").http_served == set()


def test_a_handle_call_of_another_shape_or_a_server_started_is_not_served_as_a_handler() -> None:
    """`Handle` with the server not second (a registry's `Handle(s)`, grpc-gateway's
    `Handle(method, pattern, h)`) says nothing; the rule still judges a server that is
    also started with Serve (`starts`)."""
    imports = '"net/http"\n\t"google.golang.org/grpc"'
    assert (
        facts("var s = grpc.NewServer()\nfunc main() { reg.Handle(s) }", imports).http_served
        == set()
    )
    three = 'func main() { gw.Handle("GET", "/x", s) }'
    assert facts(f"var s = grpc.NewServer()\n{three}", imports).http_served == set()


MUX_HANDLER = """\
package grpcutil

import "net/http"

// NewMuxHandler serves gRPC and HTTP requests on one port.
func NewMuxHandler(grpcHandler, httpHandler http.Handler) http.Handler {
\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
\t\tif r.ProtoMajor == 2 {
\t\t\tgrpcHandler.ServeHTTP(w, r)
\t\t} else {
\t\t\thttpHandler.ServeHTTP(w, r)
\t\t}
\t})
}

// Register is given a server to register services with, not to serve.
func Register(server interface{ RegisterService() }, name string) {}
"""
MUX_MAIN = """\
package main

import (
\t"net"
\t"net/http"

\t"example.com/app/internal/grpcutil"
\t"google.golang.org/grpc"
)

func main() {
\tserver := grpc.NewServer()
\thandler := CALL
\tlis, _ := net.Listen("tcp", ":8080")
\t(&http.Server{Handler: handler}).Serve(lis)
}
"""


@pytest.mark.parametrize(
    ("call", "served"),
    [
        ("grpcutil.NewMuxHandler(server, http.NotFoundHandler())", True),
        ("grpcutil.NewMuxHandler(http.NotFoundHandler(), server)", True),
        ('grpcutil.Register(server, "api")', False),
    ],
    ids=["first-handler", "second-handler", "not-a-handler"],
)
def test_a_server_given_to_another_packages_http_handler_parameter_is_served_as_one(
    tmp_path: Path, call: str, served: bool
) -> None:
    """A gRPC server passed where another package's function takes an http.Handler is
    served through ServeHTTP: KLB201 says info (grpc-go ignores keepalive there)."""
    main = MUX_MAIN.replace("CALL", call)
    if not served:  # (Register returns nothing: no handler to serve)
        main = main.replace("handler := ", "").replace("Handler: handler", "Handler: nil")
    files = {
        "go.mod": "module example.com/app\n",
        "internal/grpcutil/mux.go": MUX_HANDLER,
        "main.go": main,
    }
    [finding] = lint_files(tmp_path, files, select=["KLB201"]).findings
    assert (finding.severity == Severity.INFO) is served
    assert ("served as an HTTP handler" in finding.message) is served


HEALTH_IMPORTS = '"context"\n\thealthpb "google.golang.org/grpc/health/grpc_health_v1"'
CHECK = (
    "type healthServer struct{ healthpb.UnimplementedHealthServer; ready bool }\n"
    "func (h *healthServer) Check(ctx context.Context, req *healthpb.HealthCheckRequest) "
    "(*healthpb.HealthCheckResponse, error) {\n{body}\n}"
)

SERVING = (
    "\treturn &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil"
)


@pytest.mark.parametrize(
    ("body", "can_fail"),
    [
        (
            SERVING,
            False,
        ),
        (
            "\tif !h.ready {\n\t\treturn &healthpb.HealthCheckResponse{"
            "Status: healthpb.HealthCheckResponse_NOT_SERVING}, nil\n\t}\n" + SERVING,
            True,
        ),
        ("\treturn &healthpb.HealthCheckResponse{Status: h.status()}, nil", True),
    ],
    ids=["always-serving", "not-serving-when-unready", "status-from-a-method"],
)
def test_a_hand_written_health_check_that_always_answers_serving(body: str, can_fail: bool) -> None:
    [servicer] = facts(CHECK.replace("{body}", body), HEALTH_IMPORTS).health_servicers
    assert servicer.custom_class == "healthServer" and servicer.class_can_fail is can_fail


def test_a_hand_written_check_beside_grpcs_own_health_server_is_not_what_probes_reach(
    tmp_path: Path,
) -> None:
    """microservices-demo's Go services: a `Check` method on the service type, and
    `RegisterHealthServer(srv, health.NewServer())`: the library's service is the one
    served (and judged); the method is not reported."""
    check = CHECK.replace("{body}", SERVING)
    served = (
        "func serve(srv *grpc.Server) {\n"
        "\thealthpb.RegisterHealthServer(srv, health.NewServer())\n}\n"
    )
    imports = HEALTH_IMPORTS + '\n\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/health"'
    files = {
        "svc/check.go": f"package main\n\nimport (\n\t{HEALTH_IMPORTS}\n)\n\n{check}\n",
        "svc/main.go": f"package main\n\nimport (\n\t{imports}\n)\n\n{served}",
    }
    found = lint_files(tmp_path, files, ["KLB405"]).findings
    assert [(f.path.rsplit("/", 1)[-1], f.message) for f in found] == [
        ("main.go", "the gRPC health service is never set to NOT_SERVING")
    ]
    alone = lint_files(tmp_path / "alone", {"svc/check.go": files["svc/check.go"]}, ["KLB405"])
    assert [f.message for f in alone.findings] == [
        "health servicer healthServer.Check always answers SERVING"
    ]


def test_a_service_types_check_in_a_package_every_program_runs_beside_grpcs_own_health(
    tmp_path: Path,
) -> None:
    """A service type in a package of its own that answers `Check` beside its service's
    methods, registered as that service's server by a `main` of another folder that
    registers `health.NewServer()`: the program's health service is the library's, so the
    method is not reported; with no library health service in the program it is."""
    check = CHECK.replace("{body}", SERVING).replace("healthServer", "Accounts")
    library = "\thealthpb.RegisterHealthServer(srv, health.NewServer())\n"
    main = (
        "package main\n\nimport (\n\t{imports}\n)\n\n"
        "func main() {{\n\tsrv := grpc.NewServer()\n"
        "\tbankpb.RegisterAccountsServer(srv, accounts.New())\n{library}}}\n"
    )
    imports = (
        HEALTH_IMPORTS + '\n\t"google.golang.org/grpc"\n\t"google.golang.org/grpc/health"'
        '\n\t"example.com/bank/accounts"\n\tbankpb "example.com/bank/gen/bank"'
    )
    files = {
        "go.mod": "module example.com/bank\n",
        "accounts/service.go": (
            f"package accounts\n\nimport (\n\t{HEALTH_IMPORTS}\n)\n\n"
            "func New() *Accounts { return &Accounts{} }\n\n" + check + "\n"
        ),
        "cmd/bank/main.go": main.format(imports=imports, library=library),
    }
    found = lint_files(tmp_path, files, ["KLB405"]).findings
    assert [(f.path.rsplit("/", 1)[-1], f.message) for f in found] == [
        ("main.go", "the gRPC health service is never set to NOT_SERVING")
    ]
    files["cmd/bank/main.go"] = main.format(
        imports=imports.replace('\n\t"google.golang.org/grpc/health"', ""), library=""
    )
    again = lint_files(tmp_path / "own", files, ["KLB405"]).findings
    assert [(f.path.rsplit("/", 1)[-1], f.message) for f in again] == [
        ("service.go", "health servicer Accounts.Check always answers SERVING")
    ]


def test_a_sigterm_handler_registered_after_a_blocking_serve_is_never_in_place(
    tmp_path: Path,
) -> None:
    """otel-demo's checkout: `srv.Serve(lis)`, then `signal.NotifyContext(..., SIGTERM)`
    in the same function: Serve returns only when the server stops."""
    body = (
        'func main() {\n\tlis, _ := net.Listen("tcp", ":5050")\n\tsrv := grpc.NewServer()\n'
        "\terr := srv.Serve(lis)\n\t_ = err\n"
        "\tctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
        "\tdefer cancel()\n\t<-ctx.Done()\n\tsrv.GracefulStop()\n}"
    )
    imports = '"context"\n\t"net"\n\t"os/signal"\n\t"syscall"\n\t"google.golang.org/grpc"'
    source = f"package main\n\nimport (\n\t{imports}\n)\n\n{body}\n"
    (finding,) = lint_files(tmp_path, {"main.go": source}, ["KLB403"]).findings
    assert finding.message == (
        "gRPC server 'srv' waits in Serve() before its SIGTERM handler (line 16) is registered"
    )
    assert not finding.fix.available
    served_in_a_goroutine = source.replace("\terr := srv.Serve(lis)\n\t_ = err\n", "").replace(
        "\tdefer cancel()\n", "\tdefer cancel()\n\tgo srv.Serve(lis)\n"
    )
    assert (
        lint_files(tmp_path / "ok", {"main.go": served_in_a_goroutine}, ["KLB403"]).findings == []
    )


SHUTDOWN_IMPORTS = (
    '"context"\n\t"log"\n\t"net"\n\t"os"\n\t"os/signal"\n\t"sync"\n\t"syscall"\n'
    '\t"google.golang.org/grpc"'
)
SERVE_IN_A_GOROUTINE = (
    '\tlis, _ := net.Listen("tcp", ":50051")\n\ts := grpc.NewServer()\n\tgo s.Serve(lis)\n'
)
NOTIFY = "\tsig := make(chan os.Signal, 1)\n\tsignal.Notify(sig, syscall.SIGTERM)\n"
# mercari-microservices-example's services: SIGTERM cancels the context, run() returns
# 0 at once and main exits, while the server drains in a goroutine
RETURNS_TO_EXIT = (
    "func main() {\n\tos.Exit(run(context.Background()))\n}\n\n"
    "func run(ctx context.Context) int {\n"
    "\tctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)\n"
    "\tdefer stop()\n\terrCh := make(chan error, 1)\n"
    "\tgo func() {\n\t\terrCh <- serve(ctx)\n\t}()\n"
    "\tselect {\n\tcase err := <-errCh:\n\t\tlog.Println(err)\n\t\treturn 1\n"
    '\tcase <-ctx.Done():\n\t\tlog.Println("shutting down...")\n\t\treturn 0\n\t}\n}\n\n'
    "func serve(ctx context.Context) error {\n"
    + SERVE_IN_A_GOROUTINE.replace("\t", "\t", 1)
    + "\t<-ctx.Done()\n\ts.GracefulStop()\n\treturn nil\n}"
)


# The HTTP form: a Shutdown whose context is the signal's, done already, drains nothing.
SHUTDOWN_WITH = (
    "func main() {{\n"
    "\tctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
    "\tdefer stop()\n"
    '\tsrv := &http.Server{{Addr: ":8080"}}\n\tgo srv.ListenAndServe()\n\t<-ctx.Done()\n'
    "\tshutdownCtx, cancel := context.WithTimeout({parent}, 10*time.Second)\n"
    "\tdefer cancel()\n\tif err := srv.Shutdown(shutdownCtx); err != nil {{\n"
    "\t\tlog.Println(err)\n\t}}\n}}"
)
HTTP_IMPORTS = SHUTDOWN_IMPORTS + '\n\t"net/http"\n\t"time"'


def test_a_shutdown_with_the_signals_context_returns_at_once_and_is_no_wait() -> None:
    """`<-ctx.Done()`, then `srv.Shutdown` with a context derived from that ctx: it is
    done already, so Shutdown closes the listeners and returns with the requests in
    flight; main ends. With a fresh context, Shutdown waits for them."""
    [exit] = facts(SHUTDOWN_WITH.format(parent="ctx"), HTTP_IMPORTS).signal_exits
    assert (exit.loc.line, exit.how, exit.expired and exit.expired.line) == (
        24,
        "main returns",
        24,
    )
    fresh = SHUTDOWN_WITH.format(parent="context.Background()")
    assert facts(fresh, HTTP_IMPORTS).signal_exits == []


@pytest.mark.parametrize(
    ("body", "exit_line", "how", "started"),
    [
        (RETURNS_TO_EXIT, 31, "run() returns to os.Exit() in main", None),
        (
            "func main() {\n"
            + SERVE_IN_A_GOROUTINE
            + NOTIFY
            + '\tgo func() {\n\t\t<-sig\n\t\tgo s.GracefulStop()\n\t\tlog.Println("bye")\n'
            "\t\tos.Exit(0)\n\t}()\n\tselect {}\n}",
            24,
            "os.Exit",
            22,
        ),
        (
            "func main() {\n"
            + SERVE_IN_A_GOROUTINE
            + NOTIFY
            + '\t<-sig\n\tlog.Println("stopping")\n}',
            21,
            "main returns",
            None,
        ),
        (
            "func main() {\n"
            + SERVE_IN_A_GOROUTINE
            + NOTIFY
            + '\tgot := <-sig\n\tlog.Fatalf("got %v", got)\n}',
            21,
            "log.Fatalf",
            None,
        ),
    ],
)
def test_a_sigterm_handler_that_exits_with_nothing_waited_for_is_a_signal_exit(
    body: str, exit_line: int, how: str, started: int | None
) -> None:
    """From where SIGTERM is received, nothing blocks before the process exits: the
    server is cut however it drains (a graceful stop in a goroutine is not waited for)."""
    [exit] = facts(body, SHUTDOWN_IMPORTS).signal_exits
    assert (exit.loc.line, exit.how) == (exit_line, how)
    assert (exit.started.line if exit.started else None) == started


@pytest.mark.parametrize(
    "body",
    [
        # the graceful stop runs where the process exits, after the signal
        "func main() {\n" + SERVE_IN_A_GOROUTINE + NOTIFY + "\t<-sig\n\ts.GracefulStop()\n}",
        # grpc-go's Serve returns only once the GracefulStop has finished
        'func main() {\n\tlis, _ := net.Listen("tcp", ":50051")\n\ts := grpc.NewServer()\n'
        + NOTIFY
        + "\tgo func() {\n\t\t<-sig\n\t\ts.GracefulStop()\n\t}()\n"
        "\tif err := s.Serve(lis); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}",
        # a done channel the stopping goroutine closes
        "func main() {\n"
        + SERVE_IN_A_GOROUTINE
        + NOTIFY
        + "\tdone := make(chan struct{})\n\t<-sig\n"
        "\tgo func() {\n\t\ts.GracefulStop()\n\t\tclose(done)\n\t}()\n\t<-done\n}",
        # a WaitGroup
        "func main() {\n" + SERVE_IN_A_GOROUTINE + NOTIFY + "\tvar wg sync.WaitGroup\n\twg.Add(1)\n"
        "\tgo func() {\n\t\tdefer wg.Done()\n\t\t<-sig\n\t\ts.GracefulStop()\n\t}()\n"
        "\twg.Wait()\n}",
        # a deferred graceful stop runs before run() returns
        RETURNS_TO_EXIT.replace("\tdefer stop()\n", "\tdefer stop()\n\tdefer drain()\n"),
        # a goroutine that receives the signal and ends exits nothing
        "func main() {\n"
        + SERVE_IN_A_GOROUTINE
        + NOTIFY
        + "\tgo func() {\n\t\t<-sig\n\t\ts.GracefulStop()\n\t}()\n\tselect {}\n}",
    ],
)
def test_a_sigterm_handler_whose_stop_is_waited_for_is_no_signal_exit(body: str) -> None:
    assert facts(body, SHUTDOWN_IMPORTS).signal_exits == []


SERVER_PACKAGE = (
    'package server\n\nimport (\n\t"context"\n\t"net"\n\n\t"google.golang.org/grpc"\n)\n\n'
    "func Run(ctx context.Context) error {\n"
    '\tlis, _ := net.Listen("tcp", ":50051")\n\ts := grpc.NewServer()\n\tgo s.Serve(lis)\n'
    "\t<-ctx.Done()\n\ts.GracefulStop()\n\treturn nil\n}\n"
)


def shop(main: str, server: str = SERVER_PACKAGE) -> dict[str, str]:
    """A Go service as mercari-microservices-example lays one out: its main package and
    Dockerfile beside its Deployment, built from the repository's root, and what it
    serves in a package it imports."""
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: geo, namespace: shop}\n"
        "spec:\n  replicas: 3\n  selector: {matchLabels: {app: geo}}\n  template:\n"
        "    metadata: {labels: {app: geo}}\n    spec:\n      containers:\n"
        "        - name: app\n          image: acme/shop/geo:latest\n"
    )
    imports = SHUTDOWN_IMPORTS.replace(
        '\t"google.golang.org/grpc"', '\t"github.com/acme/shop/pkg/server"'
    )
    return {
        "go.mod": "module github.com/acme/shop\n",
        "services/geo/main.go": f"package main\n\nimport (\n\t{imports}\n)\n\n{main}\n",
        "services/geo/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/geo ./services/geo\nCMD ["/usr/bin/geo"]\n',
        "services/geo/deployment.yaml": deployment,
        "pkg/server/server.go": server,
    }


def test_a_process_that_exits_on_sigterm_while_its_grpc_server_drains_is_reported(
    tmp_path: Path,
) -> None:
    """The handler is there, but main exits as soon as the signal arrives: the server
    its code runs (in another package) is cut as if there were no handler."""
    main = RETURNS_TO_EXIT[: RETURNS_TO_EXIT.index("\n\nfunc serve")]
    main = main.replace("serve(ctx)", "server.Run(ctx)")
    (finding,) = lint_files(tmp_path, shop(main), ["KLB403"]).findings
    assert finding.path.endswith("services/geo/main.go") and finding.line == 31
    assert finding.severity == Severity.WARNING
    assert finding.message == (
        "SIGTERM (line 29) ends the process here before gRPC server 's' has drained"
    )
    assert [line.replace(f"{tmp_path}/", "") for line in finding.detail[:2]] == [
        "run() returns to os.Exit() in main with nothing waiting in between: the calls in "
        "flight are cut as if there were no handler",
        "s is made at pkg/server/server.go:12",
    ]
    waited = main.replace("\t\treturn 0\n", "\t\t<-errCh\n\t\treturn 0\n")
    assert lint_files(tmp_path / "waited", shop(waited), ["KLB403"]).findings == []
    no_grpc = (
        'package server\n\nimport "context"\n\nfunc Run(ctx context.Context) error { return nil }\n'
    )
    assert lint_files(tmp_path / "http", shop(main, no_grpc), ["KLB403"]).findings == [], (
        "no gRPC server in the code it runs"
    )


GO_HELPERS = '"database/sql"\n\t"fmt"\n\t"net/http"\n\t"os"\n\t"time"\n\t"google.golang.org/grpc"'


def test_a_dial_parameter_is_what_the_files_calls_pass_one_channel_each() -> None:
    body = (
        "func dial(addr string) *grpc.ClientConn {\n"
        "\tconn, _ := grpc.Dial(addr, grpc.WithInsecure())\n\treturn conn\n}\n"
        "func main() {\n"
        '\tgeo := dial(os.Getenv("GEO_ADDR"))\n'
        '\trate := dial(fmt.Sprintf("%s:%d", os.Getenv("RATE_HOST"), 8080))\n'
        "\t_, _ = geo, rate\n}"
    )
    geo, rate = facts(body, GO_HELPERS).channels
    assert geo.target == EnvRef("GEO_ADDR", None) and geo.long_lived
    assert rate.target == EnvRef("RATE_HOST", None, suffix=":8080") and rate.long_lived


def test_a_constructor_builds_the_target_from_its_parameter() -> None:
    body = (
        "type Client struct{ conn *grpc.ClientConn }\n"
        "func NewClient(name string) *Client {\n"
        '\tconn, _ := grpc.NewClient(name + ":8080")\n\treturn &Client{conn: conn}\n}\n'
        'var geo = NewClient(os.Getenv("GEO_HOST"))'
    )
    [channel] = facts(body, GO_HELPERS).channels
    assert channel.target == EnvRef("GEO_HOST", None, suffix=":8080") and channel.long_lived


@pytest.mark.parametrize(
    ("caller", "long_lived"),
    [
        ("func main() {\n\tc := dial()\n\t_ = c\n}", True),
        ("func handle() {\n\tc := dial()\n\tdefer c.Close()\n}", False),
        ("", True),  # no call in the file: a factory's caller keeps what it returns
    ],
    ids=["kept-by-main", "closed-by-each-caller", "no-caller"],
)
def test_a_returned_channel_lives_as_long_as_its_callers_keep_it(
    caller: str, long_lived: bool
) -> None:
    body = (
        "func dial() *grpc.ClientConn {\n"
        '\tconn, _ := grpc.Dial("backend:50051")\n\treturn conn\n}\n' + caller
    )
    [channel] = facts(body, GO_HELPERS).channels
    assert channel.long_lived is long_lived


def test_a_parameter_with_no_call_or_a_variadic_call_is_unknown() -> None:
    body = "func dial(addr string) (*grpc.ClientConn, error) {\n\treturn grpc.Dial(addr)\n}"
    assert [c.target for c in resolved(facts(body, GO_HELPERS)).channels] == [UNKNOWN]
    spread = body + "\nfunc main() {\n\tdial(addrs...)\n}"
    assert [c.target for c in facts(spread, GO_HELPERS).channels] == [UNKNOWN]
    # more values than a parameter is followed to (budget.MAX_CHOICES): one unknown
    many = "".join(f'\tc{i}, _ := dial("h{i}:1")\n' for i in range(9))
    crowded = body + "\nfunc main() {\n" + many + "}"
    assert [c.target for c in facts(crowded, GO_HELPERS).channels] == [UNKNOWN]


def test_a_url_built_from_an_http_literal_is_read_whole() -> None:
    body = (
        "func main() {\n"
        '\tweb := "http://" + os.Getenv("WEB_HOST")\n'
        '\tapi := fmt.Sprintf("http://%s:8080/api", os.Getenv("API_HOST"))\n'
        "\t_, _ = web, api\n}"
    )
    urls = [url for url, _ in facts(body, GO_HELPERS).urls]
    assert urls == [
        EnvRef("WEB_HOST", None, prefix="http://"),
        EnvRef("API_HOST", None, prefix="http://", suffix=":8080/api"),
    ]


def test_a_pool_returned_by_a_helper_takes_the_lifetime_its_caller_sets() -> None:
    helper = (
        "func openDB(dsn string) (*sql.DB, error) {\n"
        '\tdb, err := sql.Open("pgx", dsn)\n'
        "\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn db, nil\n}\n"
    )
    main = 'func main() {\n\tdb, _ := openDB(os.Getenv("DSN"))\n\t_ = db\n}'
    [pool] = facts(helper + main, GO_HELPERS).db_pools
    assert pool.long_lived and pool.lifetime is None and pool.returned
    assert pool.url == EnvRef("DSN", None)
    bounded = main.replace("_ = db", "db.SetConnMaxLifetime(30 * time.Minute)")
    [pool] = facts(helper + bounded, GO_HELPERS).db_pools
    assert pool.lifetime == 1_800_000 and not pool.returned


@pytest.mark.parametrize(
    ("transport", "reported"),
    [
        ("&ochttp.Transport{}", True),
        ("http.DefaultTransport", True),
        ("&ochttp.Transport{Base: &http.Transport{}}", False),  # the Transport is reported
        ("&custom.RoundTripper{}", False),  # whose pool k8slb cannot know
    ],
)
def test_a_client_over_a_wrapper_of_the_default_transport_pools_there(
    transport: str, reported: bool
) -> None:
    imports = '"net/http"\n\t"go.opencensus.io/plugin/ochttp"\n\t"example.com/custom"'
    body = f"var client = &http.Client{{Transport: {transport}}}"
    clients = [c.factory for c in facts(body, imports).http_clients]
    assert ("http.Client" in clients) is reported


def client_env(name: str, value: str) -> str:
    return (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
        "spec:\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
        f"      containers:\n        - name: web\n          env:\n"
        f'            - {{name: {name}, value: "{value}"}}\n'
    )


def test_end_to_end_a_dial_helper_given_an_env_var_is_pinned_to_the_clusterip(
    tmp_path: Path,
) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    in_shop = "  name: backend\n  namespace: shop\n"
    manifests = (GRPC_SERVICE + BACKEND).replace("  name: backend\n", in_shop)
    source = (
        'package main\n\nimport (\n\t"os"\n\n\t"google.golang.org/grpc"\n)\n\n'
        "func openConn(host string) *grpc.ClientConn {\n"
        "\tconn, err := grpc.Dial(host, grpc.WithInsecure())\n"
        "\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn conn\n}\n\n"
        'func main() {\n\tconn := openConn(os.Getenv("BACKEND_HOST"))\n'
        "\tdefer conn.Close()\n}\n"
    )
    files = {"k8s.yaml": manifests + client_env("BACKEND_HOST", "backend:50051"), "main.go": source}
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "to ClusterIP Service/shop/backend stays on one pod" in finding.message
    assert (finding.path.rsplit("/", 1)[1], finding.line, finding.column) == ("main.go", 10, 15)
    headless = manifests.replace("spec:\n  selector", "spec:\n  clusterIP: None\n  selector")
    files["k8s.yaml"] = headless + client_env("BACKEND_HOST", "backend:50051")
    assert lint_files(tmp_path / "headless", files, ["KLB102"]).findings == []


def test_end_to_end_a_package_client_posting_to_a_url_built_from_an_env_var(
    tmp_path: Path,
) -> None:
    source = (
        'package main\n\nimport (\n\t"net/http"\n\t"os"\n\n'
        '\t"go.opencensus.io/plugin/ochttp"\n)\n\n'
        "var client = &http.Client{Transport: &ochttp.Transport{}}\n\n"
        'func main() {\n\tweb := "http://" + os.Getenv("WEB_HOST")\n'
        '\tfor {\n\t\tclient.Get(web + "/api/list")\n\t}\n}\n'
    )
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: web-svc, namespace: shop}\n"
        "spec:\n  selector: {app: site}\n  ports: [{port: 80}]\n"
    )
    files = {"k8s.yaml": service + client_env("WEB_HOST", "web-svc.shop:80"), "main.go": source}
    [finding] = lint_files(tmp_path, files, ["KLB202"]).findings
    assert (finding.line, finding.column) == (10, 15)
    assert "'http://web-svc.shop:80/api/list'" in finding.text  # the request's own URL


def test_end_to_end_a_pool_opened_in_a_helper_with_no_lifetime_anywhere(tmp_path: Path) -> None:
    helper = (
        'package store\n\nimport "database/sql"\n\n'
        "func Open(dsn string) (*sql.DB, error) {\n"
        '\tif db, err := sql.Open("mysql", dsn); err == nil {\n\t\treturn db, nil\n\t}\n'
        "\treturn nil, nil\n}\n"
    )
    caller = (
        'package main\n\nimport (\n\t"os"\n\n\t"example.com/app/pkg/store"\n)\n\n'
        'func main() {\n\tdb, _ := store.Open(os.Getenv("DSN"))\n\t_ = db\n}\n'
    )
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: mysql, namespace: shop}\n"
        "spec:\n  selector: {app: mysql}\n  ports: [{port: 3306}]\n"
    )
    files = {
        "k8s.yaml": service + client_env("DSN", "root@tcp(mysql.shop:3306)/app"),
        "pkg/store/db.go": helper,
        "cmd/main.go": caller,
    }
    [finding] = lint_files(tmp_path, files, ["KLB203"]).findings
    assert (finding.path.rsplit("/", 1)[1], finding.line) == ("db.go", 6)
    # a module that calls the helper's package sets a lifetime: maybe this pool's
    files["cmd/main.go"] = caller.replace("_ = db", "db.SetConnMaxLifetime(1800000000000)")
    assert lint_files(tmp_path / "bounded", files, ["KLB203"]).findings == []


def test_a_factory_is_judged_once_a_caller_what_main_keeps_and_a_handler_uses_once() -> None:
    body = (
        "func connect(addr string) *grpc.ClientConn {\n"
        "\tc, _ := grpc.NewClient(addr)\n\treturn c\n}\n"
        'func main() {\n\tkept := connect(os.Getenv("PAYMENT_ADDR"))\n\t_ = kept\n}\n'
        'func charge() {\n\tonce := connect("badAddress:50051")\n\t_ = once\n}'
    )
    kept, once = facts(body, GO_HELPERS).channels
    assert (kept.target, kept.long_lived) == (EnvRef("PAYMENT_ADDR", None), True)
    assert (once.target, once.long_lived) == ("badAddress:50051", False)


def test_a_field_set_through_a_pointer_helper_and_a_channel_written_through_one() -> None:
    """microservices-demo's shape: `mustMapEnv(&svc.addr, "ADDR")` fills a field from the
    environment, `mustConnGRPC(ctx, &svc.conn, svc.addr)` dials it into another field."""
    body = (
        "type frontend struct {\n\tcartAddr string\n\tadAddr string\n"
        "\tcartConn *grpc.ClientConn\n\tadConn *grpc.ClientConn\n}\n"
        "func mustMapEnv(target *string, key string) {\n"
        '\tv := os.Getenv(key)\n\tif v == "" {\n\t\tpanic(key)\n\t}\n\t*target = v\n}\n'
        "func mustConn(conn **grpc.ClientConn, addr string) {\n"
        "\tvar err error\n\t*conn, err = grpc.NewClient(addr)\n\t_ = err\n}\n"
        "func connectOnce(addr string) {\n"
        "\tvar conn *grpc.ClientConn\n\tmustConn(&conn, addr)\n}\n"
        "func main() {\n\tsvc := new(frontend)\n"
        '\tmustMapEnv(&svc.cartAddr, "CART_ADDR")\n\tmustMapEnv(&svc.adAddr, "AD_ADDR")\n'
        "\tmustConn(&svc.cartConn, svc.cartAddr)\n\tmustConn(&svc.adConn, svc.adAddr)\n"
        '\tconnectOnce("probe:1")\n}'
    )
    found = {(c.target, c.long_lived) for c in facts(body, GO_HELPERS).channels}
    assert found == {
        (EnvRef("CART_ADDR", None), True),
        (EnvRef("AD_ADDR", None), True),
        ("probe:1", False),  # written into a local of a function that runs per call
    }


def test_a_request_url_built_from_a_field_is_an_address_the_clients_send_to() -> None:
    body = (
        "type checkout struct {\n\tshippingAddr string\n\thttpClient *http.Client\n}\n"
        "func (cs *checkout) quote() {\n"
        '\treq, _ := http.NewRequest("POST", cs.shippingAddr+"/get-quote", nil)\n'
        "\tcs.httpClient.Do(req)\n}\n"
        "func main() {\n\tsvc := new(checkout)\n"
        "\tsvc.httpClient = &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport)}\n"
        '\tsvc.shippingAddr = os.Getenv("SHIPPING_ADDR")\n}'
    )
    imports = GO_HELPERS + '\n\t"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"'
    found = facts(body, imports)
    assert [url for url, _ in found.urls] == [EnvRef("SHIPPING_ADDR", None, suffix="/get-quote")]
    [client] = found.http_clients
    assert client.factory == "http.Client" and client.long_lived


def test_end_to_end_a_helper_whose_callers_dial_a_headless_twin_with_round_robin(
    tmp_path: Path,
) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    in_shop = "  name: backend\n  namespace: shop\n"
    manifests = (GRPC_SERVICE + BACKEND).replace("  name: backend\n", in_shop)
    headless = GRPC_SERVICE.replace(
        "  name: backend\n", "  name: backend-headless\n  namespace: shop\n"
    )
    headless = headless.replace("spec:\n  selector", "spec:\n  clusterIP: None\n  selector")
    source = (
        'package main\n\nimport "google.golang.org/grpc"\n\n'
        "func openConn(target string) *grpc.ClientConn {\n"
        "\tconn, _ := grpc.NewClient(target, grpc.WithDefaultServiceConfig(\n"
        '\t\t`{"loadBalancingConfig": [{"round_robin": {}}]}`))\n\treturn conn\n}\n\n'
        'func main() {\n\tconn := openConn("dns:///backend-headless.shop.svc.cluster.local:50051")\n'
        "\tdefer conn.Close()\n}\n"
    )
    files = {"k8s.yaml": manifests + "---\n" + headless, "main.go": source}
    assert lint_files(tmp_path, files, ["KLB102", "KLB103"]).findings == []
    pinned = source.replace("backend-headless", "backend")  # the ClusterIP itself: pinned
    files["main.go"] = pinned
    [finding] = lint_files(tmp_path / "clusterip", files, ["KLB102", "KLB103"]).findings
    assert finding.rule == "KLB102" and finding.line == 6


# A payments service's main: the signals it stops on are kept in one list, spread into
# NotifyContext, and each server is stopped by a goroutine of an errgroup over its context.
SIGNALS_IN_A_LIST = (
    "var shutdownSignals = []os.Signal{\n\tos.Interrupt,\n\tsyscall.SIGTERM,\n}\n\n"
    "func main() {\n"
    "\tctx, stop := signal.NotifyContext(context.Background(), shutdownSignals...)\n"
    "\tdefer stop()\n"
    "\tgroup, ctx := errgroup.WithContext(ctx)\n\tserveGRPC(ctx, group)\n"
    "\tif err := group.Wait(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}\n\n"
    "func serveGRPC(ctx context.Context, group *errgroup.Group) {\n"
    '\tlis, err := net.Listen("tcp", ":9090")\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n'
    "\tsrv := grpc.NewServer()\n"
    "\tgroup.Go(func() error {\n\t\treturn srv.Serve(lis)\n\t})\n"
    "\tgroup.Go(func() error {\n\t\t<-ctx.Done()\n\t\tsrv.GracefulStop()\n\t\treturn nil\n\t})\n}"
)
ERRGROUP_IMPORTS = SHUTDOWN_IMPORTS + '\n\t"golang.org/x/sync/errgroup"'


@pytest.mark.parametrize(
    "declared",
    [
        "var shutdownSignals = []os.Signal{\n\tos.Interrupt,\n\tsyscall.SIGTERM,\n}",
        "var shutdownSignals = append([]os.Signal{os.Interrupt}, syscall.SIGTERM)",
        "var base = []os.Signal{syscall.SIGTERM}\n\nvar shutdownSignals = append(base, os.Kill)",
    ],
    ids=["slice literal", "append", "append to another list"],
)
def test_signals_spread_from_a_list_variable_make_a_sigterm_handler(declared: str) -> None:
    body = SIGNALS_IN_A_LIST.replace(
        "var shutdownSignals = []os.Signal{\n\tos.Interrupt,\n\tsyscall.SIGTERM,\n}", declared
    )
    assert [loc.line for loc in facts(body, ERRGROUP_IMPORTS).sigterm_handlers] != []


def test_a_list_of_signals_without_sigterm_makes_no_sigterm_handler() -> None:
    body = SIGNALS_IN_A_LIST.replace("\tsyscall.SIGTERM,\n", "\tsyscall.SIGHUP,\n")
    assert facts(body, ERRGROUP_IMPORTS).sigterm_handlers == []


def test_a_local_list_of_signals_spread_into_notify_makes_a_sigterm_handler() -> None:
    body = (
        "func main() {\n\ts := grpc.NewServer()\n"
        "\tstopOn := []os.Signal{syscall.SIGINT, syscall.SIGTERM}\n"
        "\tch := make(chan os.Signal, 1)\n\tsignal.Notify(ch, stopOn...)\n"
        "\t<-ch\n\ts.GracefulStop()\n}"
    )
    [handler] = facts(body, SHUTDOWN_IMPORTS).sigterm_handlers
    assert handler.line == 18


@pytest.mark.parametrize(
    ("loop", "handles"),
    [
        ("for _, sig := range stopOn {", True),
        ("for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {", True),
        ("for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGHUP} {", False),
        ("for sig := range stopOn {", False),  # the index, not a signal
    ],
    ids=["named list", "literal", "no sigterm", "index"],
)
def test_notify_in_a_loop_over_signals_makes_a_sigterm_handler(loop: str, handles: bool) -> None:
    """Each signal of a list registered in a loop, as Python's `for name in (...)` does."""
    body = (
        "func main() {\n\ts := grpc.NewServer()\n"
        "\tstopOn := []os.Signal{syscall.SIGINT, syscall.SIGTERM}\n"
        f"\tch := make(chan os.Signal, 1)\n\t{loop}\n\t\tsignal.Notify(ch, sig)\n\t}}\n"
        "\t_ = stopOn\n\t<-ch\n\ts.GracefulStop()\n}"
    )
    assert bool(facts(body, SHUTDOWN_IMPORTS).sigterm_handlers) == handles


def test_notify_context_over_a_list_with_an_errgroup_goroutine_that_stops_is_not_reported(
    tmp_path: Path,
) -> None:
    """The server's stop waits on the signal's context in a goroutine of an errgroup
    that main waits for: a graceful shutdown, not a server with no handler."""
    main = f"package main\n\nimport (\n{ERRGROUP_IMPORTS}\n)\n\n{SIGNALS_IN_A_LIST}\n"
    assert lint_files(tmp_path, {"main.go": main}, ["KLB403"]).findings == []
    bare = main.replace("\tsyscall.SIGTERM,\n", "\tsyscall.SIGHUP,\n")
    (finding,) = lint_files(tmp_path / "bare", {"main.go": bare}, ["KLB403"]).findings
    assert "no SIGTERM handler" in finding.message


def test_receiving_from_a_context_derived_from_the_signals_is_receiving_the_signal() -> None:
    """`g, gctx := errgroup.WithContext(ctx)`: gctx is done when SIGTERM arrives, so a
    main that returns right after `<-gctx.Done()` exits with nothing waited for."""
    body = (
        "func main() {\n"
        + SERVE_IN_A_GOROUTINE
        + "\tctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
        "\tdefer stop()\n\tgroup, gctx := errgroup.WithContext(ctx)\n\t_ = group\n"
        '\t<-gctx.Done()\n\tlog.Println("bye")\n}'
    )
    [exit] = facts(body, ERRGROUP_IMPORTS).signal_exits
    assert (exit.loc.line, exit.handler.line, exit.how) == (24, 23, "main returns")
    waited = body.replace('\tlog.Println("bye")\n', "\ts.GracefulStop()\n")
    assert facts(waited, ERRGROUP_IMPORTS).signal_exits == []


def test_the_sigterm_receives_come_from_the_readers_one_walk_of_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The receives of a SIGTERM source (`<-sig`) are among the unary expressions the
    reader's walk already meets: no second walk of the whole file looks for them (a walk
    in Python makes an object of every node, most of a Go file's reading time)."""
    from k8slb.languages.go import parse_shutdown

    started: list[str] = []
    walk = parse_shutdown.walk

    def noted(node: Node) -> Iterator[Node]:
        started.append(node.type)
        return walk(node)

    monkeypatch.setattr(parse_shutdown, "walk", noted)
    body = (
        "func main() {\n"
        + SERVE_IN_A_GOROUTINE
        + NOTIFY
        + '\t<-sig\n\ttime.Sleep(5 * time.Second)\n\tlog.Fatal("bye")\n}'
    )
    found = facts(body, SHUTDOWN_IMPORTS + '\n\t"time"')
    [pause] = found.signal_pauses  # the sleep after `<-sig`, found from its receive
    assert (pause.handler.line, pause.loc.line, pause.seconds) == (21, 22, 5.0)
    assert "source_file" not in started


def test_the_routes_come_from_the_readers_one_walk_of_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The routes a file registers, and the handlers they name, are read from the calls
    and declarations the reader's walk already met: no second walk of the whole file."""
    from k8slb.languages.go import parse_routes

    started: list[str] = []

    def noted(node: Node) -> Iterator[Node]:
        started.append(node.type)
        return iter(())

    monkeypatch.setattr(parse_routes, "walk", noted, raising=False)
    body = (
        "func healthz(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }\n\n"
        'func main() {\n\thttp.HandleFunc("/healthz", healthz)\n'
        '\thttp.ListenAndServe(":8080", nil)\n}'
    )
    [route] = facts(body, '"net/http"').routes
    assert (route.path, route.handler, route.trivial) == ("/healthz", "healthz", True)
    assert started == []


def test_each_call_is_keyed_for_the_other_files_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # what a file's calls of other files' functions pass, and whether each closes what it
    # gets, are exported by one key a call, worked out once (a reader's cost is its parse's)
    from k8slb.languages.go import parse as go

    keyed: list[int] = []
    call_key = go._Collector._call_key

    def counted(collector: go._Collector, shape: go._Called, scope: go._Scope) -> str | None:
        keyed.append(id(shape))  # each call's `_Called`, read once
        return call_key(collector, shape, scope)

    monkeypatch.setattr(go._Collector, "_call_key", counted)
    found = facts(
        'func fetch() {\n\tconn, _ := client.Dial("backend:50051")\n\tdefer conn.Close()\n'
        "\tgrpc.NewServer()\n}",
        imports='"google.golang.org/grpc"\n\t"example.com/shop/client"',
    )
    assert found.exports["call example.com/shop/client Dial"] == [("backend:50051",)]
    assert found.exports["closes example.com/shop/client Dial"] == [True]
    assert len(keyed) == len(set(keyed)) == 3  # Dial, Close, NewServer


# A client kept in a struct its constructor fills, whose requests go to a URL a field
# holds, from the environment the Deployment sets (`&Finalizer{baseURL: ...}`).
KEPT_CLIENT = """\
package billing

import (
\t"bytes"
\t"context"
\t"net/http"
\t"os"
\t"strings"
\t"time"
)

type Notifier struct {
\tbaseURL string
\tclient  *http.Client
}

func NewNotifier() *Notifier {
\treturn &Notifier{
\t\tbaseURL: strings.TrimRight(os.Getenv("LEDGER_URL"), "/"),
\t\tclient:  &http.Client{Timeout: 10 * time.Second},
\t}
}

func (n *Notifier) Notify(ctx context.Context, body []byte) error {
\turl := n.baseURL + "/entries"
\treq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
\tif err != nil {
\t\treturn err
\t}
\tresp, err := n.client.Do(req)
\tif err != nil {
\t\treturn err
\t}
\treturn resp.Body.Close()
}
"""
LEDGER = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: ledger, namespace: shop}\n"
    "spec:\n  selector: {app: ledger}\n  ports: [{port: 8000}]\n"
)


def test_a_field_a_struct_literal_fills_is_what_requests_read_of_it() -> None:
    found = analyse_go("billing/notifier.go", KEPT_CLIENT.encode())
    assert [url for url, _ in found.urls] == [EnvRef("LEDGER_URL", None, suffix="/entries")]
    (client,) = found.http_clients
    assert client.long_lived and client.base_url is None


def test_a_client_kept_in_a_struct_sending_to_a_service_the_deployment_names_is_klb202(
    tmp_path: Path,
) -> None:
    files = {
        "k8s.yaml": LEDGER + client_env("LEDGER_URL", "http://ledger.shop:8000"),
        "billing/notifier.go": KEPT_CLIENT,
    }
    [finding] = lint_files(tmp_path, files, ["KLB202"]).findings
    assert (finding.line, finding.column) == (20, 13)
    assert "'http://ledger.shop:8000/entries'" in finding.text


@pytest.mark.parametrize("value", ["https://$(IDP_DOMAIN)", "https://${IDP_DOMAIN}", "https://%s"])
def test_a_url_whose_host_is_a_reference_no_one_expanded_names_no_service(
    tmp_path: Path, value: str
) -> None:
    """`$(IDP_DOMAIN)` (a reference to another variable the kubelet expands, from a value
    k8slb does not follow), `${...}` or a format's `%s` is no name of the cluster: what
    the client talks to is unknown, never a Service."""
    files = {
        "k8s.yaml": LEDGER + client_env("LEDGER_URL", value),
        "billing/notifier.go": KEPT_CLIENT,
    }
    assert lint_files(tmp_path, files, ["KLB202"]).findings == []


def test_the_default_clients_do_sends_to_the_modules_urls(tmp_path: Path) -> None:
    # a proxy helper: the request's URL is its parameter, the Service's URL a default
    source = (
        'package main\n\nimport (\n\t"net/http"\n\t"os"\n)\n\n'
        'var ledger = getEnv("LEDGER_URL", "http://ledger.shop.svc.cluster.local:8000")\n\n'
        "func getEnv(key, fallback string) string {\n"
        "\tif v, ok := os.LookupEnv(key); ok {\n\t\treturn v\n\t}\n\treturn fallback\n}\n\n"
        "func proxy(base string, r *http.Request) (*http.Response, error) {\n"
        "\treq, _ := http.NewRequest(r.Method, base+r.RequestURI, r.Body)\n"
        "\treturn http.DefaultClient.Do(req)\n}\n"
    )
    (client,) = analyse_go("web/main.go", source.encode()).http_clients
    assert client.factory == "http.DefaultClient" and client.base_url is None
    [finding] = lint_files(tmp_path, {"web/main.go": source}, ["KLB202"]).findings
    assert (finding.line, finding.column) == (19, 9)


XDS_SERVER = """\
package main

import (
\t"log"
\t"net"

\t"google.golang.org/grpc"
\t"google.golang.org/grpc/credentials/insecure"
\txdscreds "google.golang.org/grpc/credentials/xds"
\t"google.golang.org/grpc/xds"
)

func main() {
\tfallback := xdscreds.ServerOptions{FallbackCreds: insecure.NewCredentials()}
\tcreds, err := xdscreds.NewServerCredentials(fallback)
\tif err != nil {
\t\tlog.Fatal(err)
\t}
\tsrv := xds.NewGRPCServer(grpc.Creds(creds))
\tquotes.RegisterQuotesServer(srv, &quoteService{})
\tlis, err := net.Listen("tcp", ":7070")
\tif err != nil {
\t\tlog.Fatal(err)
\t}
\tif err := srv.Serve(lis); err != nil {
\t\tlog.Fatal(err)
\t}
}
"""


def test_an_xds_server_is_a_grpc_server_whose_clients_balance_each_call() -> None:
    found = analyse_go("cmd/quotes/main.go", XDS_SERVER.encode())
    (server,) = found.servers
    assert (server.factory, server.name, server.balanced_by) == ("xds.NewGRPCServer", "srv", "xDS")
    assert "srv" in found.starts and [listen.address for listen in found.listens] == [":7070"]


def test_an_xds_server_served_with_no_sigterm_handler_is_klb403_and_never_klb201(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, {"cmd/quotes/main.go": XDS_SERVER}, ["KLB403", "KLB201"])
    assert [(f.rule, f.line) for f in found.findings] == [("KLB403", 25)]
    plain = XDS_SERVER.replace("xds.NewGRPCServer(", "grpc.NewServer(")
    again = lint_files(tmp_path / "plain", {"cmd/quotes/main.go": plain}, ["KLB403", "KLB201"])
    assert sorted(f.rule for f in again.findings) == ["KLB201", "KLB403"]


GET_ENV = (
    "func getEnv(key, fallback string) string {\n"
    '\tif value := os.Getenv(key); value != "" {\n\t\treturn value\n\t}\n\treturn fallback\n}\n'
)


@pytest.mark.parametrize(
    ("helper", "expected"),
    [
        (GET_ENV, EnvRef("ADDR", "backend:50051")),
        (
            "func getEnv(key, fallback string) string {\n"
            "\tv, ok := os.LookupEnv(key)\n\tif !ok {\n\t\treturn fallback\n\t}\n\treturn v\n}\n",
            EnvRef("ADDR", "backend:50051"),
        ),
        # it returns something else than the variable or the fallback: not a plain read
        (GET_ENV.replace("return value", 'return value + ":443"'), UNKNOWN),
        (GET_ENV.replace("os.Getenv(key)", 'os.Getenv("HOME")'), UNKNOWN),
    ],
)
def test_an_env_helper_with_a_fallback_is_the_variable_with_that_default(
    helper: str, expected: object
) -> None:
    body = helper + 'var c, _ = grpc.NewClient(getEnv("ADDR", "backend:50051"))'
    assert target(body) == expected


def test_a_client_made_per_call_pools_in_the_default_transport_and_is_klb202(
    tmp_path: Path,
) -> None:
    source = (
        'package main\n\nimport (\n\t"bytes"\n\t"net/http"\n\t"os"\n\t"time"\n)\n\n'
        'var events = getEnv("EVENTS_URL", "http://localhost:5000")\n\n' + GET_ENV + "\n"
        "func send(body []byte) {\n"
        "\tclient := &http.Client{Timeout: 2 * time.Second}\n"
        '\tresp, err := client.Post(events+"/api/events", "application/json", '
        "bytes.NewBuffer(body))\n"
        "\tif err == nil {\n\t\tresp.Body.Close()\n\t}\n}\n"
    )
    (client,) = analyse_go("web/main.go", source.encode()).http_clients
    assert (client.factory, client.long_lived) == ("http.DefaultTransport", True)
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: events, namespace: shop}\n"
        "spec:\n  selector: {app: events}\n  ports: [{port: 5000}]\n"
    )
    files = {
        "k8s.yaml": service + client_env("EVENTS_URL", "http://events:5000"),
        "main.go": source,
    }
    [finding] = lint_files(tmp_path / "a", files, ["KLB202"]).findings
    assert (finding.line, finding.column) == (20, 13)
    assert "'http://events:5000/api/events'" in finding.text
    # its own Transport is its own pool, reported where that is made
    own = source.replace("{Timeout:", "{Transport: &http.Transport{}, Timeout:")
    clients = analyse_go("web/main.go", own.encode()).http_clients
    assert [(c.factory, c.long_lived) for c in clients] == [("http.Transport", False)]


def test_a_per_call_client_sends_to_the_request_made_last_before_its_do() -> None:
    source = (
        'package main\n\nimport (\n\t"net/http"\n\t"os"\n)\n\n'
        "func submit() {\n"
        '\tr, err := http.NewRequest("POST", os.Getenv("AGENDA_URL")+"/items", nil)\n'
        "\tclient := &http.Client{}\n\tres, err := client.Do(r)\n"
        '\tr, err = http.NewRequest("POST", os.Getenv("NOTIFY_URL")+"/notes", nil)\n'
        "\tother := &http.Client{}\n\tres, err = other.Do(r)\n\t_, _ = res, err\n}\n"
    )
    clients = analyse_go("c4p/main.go", source.encode()).http_clients
    assert [(c.loc.line, c.base_url) for c in clients] == [
        (10, EnvRef("AGENDA_URL", None, suffix="/items")),
        (13, EnvRef("NOTIFY_URL", None, suffix="/notes")),
    ]


CHI_ROUTER = """\
type server struct{ db *sql.DB }

func (s *server) ready(w http.ResponseWriter, r *http.Request) {
	if err := s.db.PingContext(r.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *server) routes(r chi.Router) {
	r.Route("/billing", func(r chi.Router) {
		r.Get("/", s.list)
		r.Route("/health/", func(health chi.Router) {
			health.Get("/", s.ready)
			health.Head("/live", func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(200)
			})
		})
	})
	r.Route(routes.Metrics, func(r chi.Router) {
		r.Get("/", s.metrics)
	})
	r.Get("/version", s.version)
}
"""


def test_a_chi_route_is_under_the_prefixes_of_the_route_calls_around_it() -> None:
    found = facts(CHI_ROUTER, '"database/sql"\n\t"net/http"\n\t"github.com/go-chi/chi/v5"')
    paths = {route.path: (route.handler, route.trivial) for route in found.routes}
    assert paths == {
        "/billing": ("s.list", False),
        "/billing/health": ("s.ready", False),
        "/billing/health/live": ("func literal at line 24", True),
        # (`routes.Metrics`, another package's constant: its `Get("/")` is not at "/")
        "/version": ("s.version", False),
    }


_MUXED = """\
package gateway

import (
	"context"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
)

type Gateway struct {
	rpc  *grpc.Server
	web  *http.Server
}

func (g *Gateway) Setup(addr string) {
	g.rpc = grpc.NewServer()
	g.web = &http.Server{Addr: addr, Handler: http.HandlerFunc(g.route)}
}

func (g *Gateway) route(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		g.rpc.ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

func (g *Gateway) Run() error {
	return g.web.ListenAndServeTLS("tls.crt", "tls.key")
}

func (g *Gateway) Close(wait time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_ = g.web.Shutdown(ctx)
	g.rpc.Stop()
}
SERVE
"""


def test_stop_of_a_server_reached_only_as_an_http_handler_is_not_klb404(tmp_path: Path) -> None:
    """A gRPC server served only through ServeHTTP: the HTTP server's Shutdown drains its
    connections, and GracefulStop() cannot (grpc-go panics on them), so its Stop() is no
    finding; one that also serves a listener of its own still is."""
    handler_only = _MUXED.replace("SERVE", "")
    assert lint_files(tmp_path / "h", {"gw/gateway.go": handler_only}, ["KLB404"]).findings == []
    own = _MUXED.replace(
        "SERVE",
        "func (g *Gateway) Direct(lis net.Listener) error { return g.rpc.Serve(lis) }",
    ).replace('"net/http"', '"net"\n\t"net/http"')
    (finding,) = lint_files(tmp_path / "o", {"gw/gateway.go": own}, ["KLB404"]).findings
    assert finding.rule == "KLB404"


_GRPC_WEB = """\
package companion

import (
\t"net/http"

\t"github.com/improbable-eng/grpc-web/go/grpcweb"
\t"google.golang.org/grpc"
)

func Serve(addr string, svc StatusServer) error {
\trpc := grpc.NewServer()
\tRegisterStatusServer(rpc, svc)
\tdefer rpc.Stop()
\treturn http.ListenAndServe(addr, grpcweb.WrapServer(rpc, grpcweb.WithWebsockets(true)))
}
"""


def test_a_server_wrapped_by_grpc_web_is_served_as_an_http_handler(tmp_path: Path) -> None:
    """grpc-web's WrapServer makes an http.Handler of the gRPC server: its connections are
    the HTTP server's, so KLB201 says so at info (keepalive options do nothing there) and
    its Stop() is no KLB404, as for a server handed to net/http itself."""
    found = lint_files(tmp_path, {"companion/serve.go": _GRPC_WEB}, ["KLB201", "KLB404"])
    (finding,) = found.findings
    assert (finding.rule, finding.severity) == ("KLB201", Severity.INFO)
    assert "HTTP handler" in finding.message


COMMENTED_OPTIONS = """\
package rpc

import (
\t"google.golang.org/grpc"
)

func New(limit int) *grpc.Server {
\topts := []grpc.ServerOption{
\t\t// messages up to the configured size
\t\tgrpc.MaxRecvMsgSize(limit),
\t}
\treturn grpc.NewServer(opts...)
}
"""


def test_a_comment_among_a_slices_options_is_no_option_it_cannot_follow() -> None:
    (server,) = analyse_go("rpc/server.go", COMMENTED_OPTIONS.encode()).servers
    assert server.options.complete and server.options.entries == ()


KRATOS_SERVER = """\
package server

import (
\t"time"

\tktransport "github.com/go-kratos/kratos/v2/transport/grpc"
\tgrpcgo "google.golang.org/grpc"
)

func NewRPC(cfg *Config) *ktransport.Server {
\tvar opts = []ktransport.ServerOption{
\t\t// kratos middleware run before the interceptors
\t\tktransport.Middleware(tracing()),
\t\tktransport.UnaryInterceptor(audit),
\t\tktransport.Options(grpcgo.MaxRecvMsgSize(8 << 20)),
\t\tktransport.Address(":9100"),
\t}
\tif cfg.Slow {
\t\topts = append(opts, ktransport.Timeout(30*time.Second))
\t}
\tsrv := ktransport.NewServer(opts...)
\tpb.RegisterLedgerServer(srv, &ledger{})
\treturn srv
}
"""


def test_a_kratos_server_is_a_grpc_server_with_the_grpc_options_it_is_given() -> None:
    found = analyse_go("internal/server/grpc.go", KRATOS_SERVER.encode())
    (server,) = found.servers
    assert (server.factory, server.name) == ("kratos/grpc.NewServer", "srv")
    assert server.options.complete and server.options.entries == ()
    assert [(x.server, x.address) for x in found.listens] == [("srv", ":9100")]
    aged = KRATOS_SERVER.replace(
        "grpcgo.MaxRecvMsgSize(8 << 20)",
        "grpcgo.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: time.Minute})",
    ).replace(
        '\tgrpcgo "google.golang.org/grpc"',
        '\tgrpcgo "google.golang.org/grpc"\n\t"google.golang.org/grpc/keepalive"',
    )
    (server,) = analyse_go("internal/server/grpc.go", aged.encode()).servers
    assert [(x.key, x.value) for x in server.options.entries] == [
        ("grpc.max_connection_age_ms", 60_000)
    ]


@pytest.mark.parametrize(
    "option",
    [
        "ktransport.Options(grpcOptions()...)",  # grpc-go options k8slb does not follow
        "ktransport.Logger(logger)",
        "plugins.Option(cfg)",  # not kratos': what it sets is unknown
    ],
)
def test_a_kratos_option_k8slb_cannot_read_keeps_the_server_unknown(option: str) -> None:
    source = KRATOS_SERVER.replace("ktransport.UnaryInterceptor(audit)", option)
    (server,) = analyse_go("internal/server/grpc.go", source.encode()).servers
    assert server.options.complete is (option == "ktransport.Logger(logger)")


def test_a_kratos_server_with_no_max_age_is_klb201_with_advice_and_no_edit(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, {"internal/server/grpc.go": KRATOS_SERVER}, ["KLB201"])
    (finding,) = found.findings
    assert (finding.rule, finding.line, finding.severity) == ("KLB201", 21, Severity.WARNING)
    assert finding.message.startswith("go-kratos' grpc.NewServer() sets no MaxConnectionAge")
    assert "grpc.Options(...)" in finding.text and not finding.edits
