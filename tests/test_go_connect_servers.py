"""connect-go (connectrpc.com/connect, github.com/bufbuild/connect-go): its handlers serve
gRPC as plain http.Handlers, so a mux that a generated `<pkg>connect.New<Service>Handler`
(or connect's own `NewUnaryHandler`) is registered on, served by a net/http server that
speaks HTTP/2 (h2c, TLS), is a gRPC server served through net/http: KLB403 judges its
shutdown as a grpc-go server's served so. connect-go has no connection age of its own:
KLB201 says nothing of it."""

from __future__ import annotations

import sys
from pathlib import Path

from k8slb.languages.go.parse import analyse_go
from k8slb.languages.go.parse_connect import CONNECT

from .helpers import lint_files, within_cpu

GO_MOD = "module example.com/ledger\n\ngo 1.22\n\nrequire connectrpc.com/connect v1.16.0\n"

# `{register}` registers the service on `api`; `{serve}` serves the HTTP server.
MAIN = """\
package main

import (
	"context"
	"log"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"

	ledgerv1 "example.com/ledger/gen/ledger/v1"
	"example.com/ledger/gen/ledger/v1/ledgerv1connect"
)

type ledgerServer struct{}

func (ledgerServer) Balance(
	ctx context.Context, req *connect.Request[ledgerv1.BalanceRequest],
) (*connect.Response[ledgerv1.BalanceResponse], error) {
	return connect.NewResponse(&ledgerv1.BalanceResponse{}), nil
}

var _ = signal.NotifyContext
var _ = syscall.SIGTERM
var _ = time.Second

func main() {
	api := http.NewServeMux()
{register}	mux := http.NewServeMux()
	mux.Handle("/", api)
	srv := &http.Server{Addr: ":8080", Handler: h2c.NewHandler(mux, &http2.Server{})}
{serve}}
"""

GENERATED = "\tapi.Handle(ledgerv1connect.NewLedgerServiceHandler(ledgerServer{}))\n"
BOUND = (
    "\tpath, handler := ledgerv1connect.NewLedgerServiceHandler(ledgerServer{})\n"
    "\tapi.Handle(path, handler)\n"
)
UNARY = (
    '\tapi.Handle("/ledger.v1.LedgerService/Balance", '
    'connect.NewUnaryHandler("/ledger.v1.LedgerService/Balance", ledgerServer{}.Balance))\n'
)

NO_HANDLER = "\tlog.Fatal(srv.ListenAndServe())\n"

SHUT_DOWN = """\
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		bounded, cancel := context.WithTimeout(context.Background(), 25*time.Second)
		defer cancel()
		_ = srv.Shutdown(bounded)
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
"""

CAUGHT_NEVER_STOPPED = """\
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done() }()
	log.Fatal(srv.ListenAndServe())
"""


def _main(register: str = GENERATED, serve: str = NO_HANDLER) -> str:
    return MAIN.replace("{register}", register).replace("{serve}", serve)


def _lint(folder: Path, main: str, rules: list[str]) -> list[tuple[str, int]]:
    files: dict[str, str | bytes] = {"go.mod": GO_MOD, "cmd/ledger/main.go": main}
    return [(f.rule, f.line) for f in lint_files(folder, files, rules).findings]


def _serve_line(main: str) -> int:
    return next(n for n, line in enumerate(main.splitlines(), 1) if "ListenAndServe()" in line)


def test_the_mux_of_a_generated_handler_is_a_grpc_server_served_through_http() -> None:
    main = _main()
    facts = analyse_go("cmd/ledger/main.go", main.encode())
    (server,) = facts.servers
    assert (server.factory, server.name, server.options.complete) == (CONNECT, "api", False)
    (wait,) = facts.waits
    assert (wait.server, wait.via_http, wait.loc.line) == ("api", True, _serve_line(main))


def test_each_way_to_register_a_handler_makes_the_server() -> None:
    for register in (BOUND, UNARY):
        facts = analyse_go("cmd/ledger/main.go", _main(register).encode())
        assert [(s.factory, s.name) for s in facts.servers] == [(CONNECT, "api")], register


def test_no_sigterm_handler_is_klb403_and_klb201_says_nothing(tmp_path: Path) -> None:
    main = _main()
    found = lint_files(
        tmp_path, {"go.mod": GO_MOD, "cmd/ledger/main.go": main}, ["KLB403", "KLB201"]
    ).findings
    assert [(f.rule, f.line) for f in found] == [("KLB403", _serve_line(main))]
    text = found[0].text
    assert "'api' (connect-go's handlers)" in text and "srv.Shutdown(ctx)" in text
    assert "GracefulStop" not in text and found[0].edits == ()


def test_a_shutdown_on_sigterm_drains_it(tmp_path: Path) -> None:
    assert _lint(tmp_path, _main(serve=SHUT_DOWN), ["KLB403"]) == []


def test_sigterm_caught_and_never_stopped_is_said(tmp_path: Path) -> None:
    main = _main(serve=CAUGHT_NEVER_STOPPED)
    found = lint_files(tmp_path, {"go.mod": GO_MOD, "cmd/ledger/main.go": main}, ["KLB403"])
    (finding,) = found.findings
    assert "nothing stops it, though SIGTERM is caught" in finding.text
    assert "GracefulStop" not in finding.text


def test_no_http2_or_no_connect_handler_is_no_grpc_server() -> None:
    # HTTP/1.1 only: Connect and gRPC-Web, which gRPC clients cannot call
    plain = (
        _main()
        .replace("h2c.NewHandler(mux, &http2.Server{})", "mux")
        .replace('\t"golang.org/x/net/http2"\n\t"golang.org/x/net/http2/h2c"\n', "")
    )
    assert analyse_go("cmd/ledger/main.go", plain.encode()).servers == []
    # a handler of a package that is no generated connect one
    other = _main('\tapi.Handle("/metrics", promhttp.Handler())\n')
    assert analyse_go("cmd/ledger/main.go", other.encode()).servers == []
    # TLS: HTTP/2 through ALPN
    tls = plain.replace("srv.ListenAndServe()", 'srv.ListenAndServeTLS("crt.pem", "key.pem")')
    assert [s.factory for s in analyse_go("cmd/ledger/main.go", tls.encode()).servers] == [CONNECT]


def test_a_mux_is_followed_past_many_routes_of_other_muxes() -> None:
    # a dozen services on `api`, then `mux.Handle("/", api)`: each mux's routes are read
    # up to the budget, not the file's first few of any mux
    many = "".join(
        f'\tapi.Handle("/ledger.v1.LedgerService/M{n}", '
        f'connect.NewUnaryHandler("/ledger.v1.LedgerService/M{n}", ledgerServer{{}}.Balance))\n'
        for n in range(12)
    )
    facts = analyse_go("cmd/ledger/main.go", _main(many).encode())
    assert [(wait.server, wait.via_http) for wait in facts.waits] == [("api", True)]


def test_thousands_of_functions_each_with_a_mux_of_connect_handlers_read_in_linear_time(
    tmp_path: Path,
) -> None:
    # each function's own `mux`: its scope was looked for in a list of every scope before
    # (16,000 functions, 2.7 MB: about 11 s of CPU; now about 3.4 s)
    one = (
        "func f{i}() {{\n mux := http.NewServeMux()\n"
        " mux.Handle(greetv1connect.NewGreetServiceHandler(nil))\n"
        ' http.ListenAndServe(":8080", h2c.NewHandler(mux, &http2.Server{{}}))\n}}\n'
    )
    head = (
        'package main\nimport (\n"net/http"\n"golang.org/x/net/http2"\n'
        '"golang.org/x/net/http2/h2c"\n"example.com/gen/greetv1connect"\n)\n'
    )
    source = tmp_path / "main.go"
    source.write_text(head + "".join(one.format(i=i) for i in range(16_000)))
    code = (
        "import sys; from k8slb.languages.go.parse import analyse_go; "
        "facts = analyse_go('main.go', open(sys.argv[1], 'rb').read()); "
        "print(len(facts.servers))"
    )
    done = within_cpu([sys.executable, "-c", code, str(source)], cpu_seconds=7)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
