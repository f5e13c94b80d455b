"""KLB403 (Go): a gRPC server served by a net/http server (its handler, or inside it
through `ServeHTTP`), waited on in that HTTP server's `ListenAndServe`/`Serve`, is judged
as a `Serve(lis)` is: reported with no SIGTERM handler in its program, and where SIGTERM
is caught but neither server is stopped; not where the HTTP server is shut down on the
signal, nor where the HTTP server's handler cannot be tied to the gRPC server. No fix is
offered: the drain is the HTTP server's Shutdown, not GracefulStop."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/ledger\n\ngo 1.22\n"

# `{body}` is main's body after the server and its mux are made.
MAIN = """\
package main

import (
	"context"
	"log"
	"net/http"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
)

func route(rpc *grpc.Server, rest http.Handler) http.Handler {
	return h2c.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		grpcCall := strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
		if r.ProtoMajor == 2 && grpcCall {
			rpc.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	}), &http2.Server{})
}

var _ = context.Background
var _ = signal.NotifyContext
var _ = syscall.SIGTERM
var _ = time.Second

func main() {
	gs := grpc.NewServer()
	mux := http.NewServeMux()
{body}}
"""

NO_HANDLER = """\
	srv := &http.Server{Addr: ":8080", Handler: route(gs, mux)}
	log.Fatal(srv.ListenAndServe())
"""

SHUT_DOWN = """\
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: ":8080", Handler: route(gs, mux)}
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
	go refresh(ctx)
	srv := &http.Server{Addr: ":8080", Handler: route(gs, mux)}
	log.Fatal(srv.ListenAndServe())
}

func refresh(ctx context.Context) {
	<-ctx.Done()
"""

BARE_LISTEN = """\
	log.Fatal(http.ListenAndServe(":8080", h2c.NewHandler(gs, &http2.Server{})))
"""

DEFAULT_MUX = """\
	http.Handle("/", gs)
	log.Fatal(http.ListenAndServe(":8080", nil))
"""

# the HTTP server serves the mux alone: the gRPC server is never its handler
PLAIN_MUX = """\
	_ = gs
	log.Fatal(http.ListenAndServe(":8080", mux))
"""


def _main(body: str) -> str:
    return MAIN.replace("{body}", body)


def _lint(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    found = lint_files(tmp_path, {"go.mod": GO_MOD, **files}, ["KLB403"])
    return [(f.path.rsplit("/", 1)[-1], f.line, f.text) for f in found.findings]


def test_served_through_an_http_server_with_no_sigterm_handler(tmp_path: Path) -> None:
    found = lint_files(
        tmp_path, {"go.mod": GO_MOD, "cmd/ledger/main.go": _main(NO_HANDLER)}, ["KLB403"]
    )
    assert [(f.rule, f.line) for f in found.findings] == [("KLB403", 37)]
    finding = found.findings[0]
    assert "gRPC server 'gs' is served by srv.ListenAndServe() with no" in finding.message
    assert "served through net/http" in finding.text
    assert "no SIGTERM handler" in finding.text
    assert "srv.Shutdown(ctx) with a context.WithTimeout of 25 s" in finding.text
    assert "hijacked" in finding.text and "Not gs.GracefulStop()" in finding.text
    # no fix: the existing one inserts GracefulStop, which ServeHTTP's connections lack
    assert not finding.fix.available and finding.edits == ()


def test_shut_down_on_the_signal_is_fine(tmp_path: Path) -> None:
    assert _lint(tmp_path, {"cmd/ledger/main.go": _main(SHUT_DOWN)}) == []


def test_caught_but_neither_server_stopped(tmp_path: Path) -> None:
    found = _lint(tmp_path, {"cmd/ledger/main.go": _main(CAUGHT_NEVER_STOPPED)})
    assert [(name, line) for name, line, _ in found] == [("main.go", 40)]
    assert "served by srv.ListenAndServe() and nothing stops it" in found[0][2]
    assert "when the signal's context is done, call srv.Shutdown(ctx)" in found[0][2]


def test_a_bare_listen_and_serve_is_told_to_use_an_http_server(tmp_path: Path) -> None:
    found = _lint(tmp_path, {"cmd/ledger/main.go": _main(BARE_LISTEN)})
    assert [(name, line) for name, line, _ in found] == [("main.go", 36)]
    assert "served by http.ListenAndServe() with" in found[0][2]
    assert "serve it from an http.Server{Addr: ..., Handler: ...} instead" in found[0][2]


def test_the_default_mux_given_the_server(tmp_path: Path) -> None:
    found = _lint(tmp_path, {"cmd/ledger/main.go": _main(DEFAULT_MUX)})
    assert [(name, line) for name, line, _ in found] == [("main.go", 37)]


def test_an_http_server_whose_handler_is_not_the_grpc_server(tmp_path: Path) -> None:
    assert _lint(tmp_path, {"cmd/ledger/main.go": _main(PLAIN_MUX)}) == []


# A library package's run method serves a handler that another package's function makes:
# the gRPC server arrives at a parameter of type http.Handler, or of another type.
MUXING = """\
package muxing

import "net/http"

func Split(grpcHandler http.Handler, rest http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			grpcHandler.ServeHTTP(w, r)
			return
		}
		rest.ServeHTTP(w, r)
	})
}

type Registrar interface{ Register(name string) }

func Describe(r Registrar, rest http.Handler) http.Handler {
	r.Register("ledger")
	return rest
}
"""

SERVING = """\
package api

import (
	"net"
	"net/http"

	"example.com/ledger/muxing"
	"google.golang.org/grpc"
)

type API struct{ stop chan struct{} }

func (a *API) newRPC() *grpc.Server {
	rpc := grpc.NewServer()
	return rpc
}

func (a *API) Run(lis net.Listener) {
	rpc := a.newRPC()
	handler := muxing.{call}(rpc, http.NewServeMux())
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(lis) }()
	<-a.stop
}
"""

CMD = """\
package main

import (
	"net"

	"example.com/ledger/api"
)

func main() {
	lis, _ := net.Listen("tcp", ":8080")
	(&api.API{}).Run(lis)
}
"""


def _module(call: str) -> dict[str, str]:
    """The three packages, in a folder named as the module (packages found by their
    import path's tail, as the reader of another package's functions finds them)."""
    return {
        "ledger/go.mod": GO_MOD,
        "ledger/muxing/muxing.go": MUXING,
        "ledger/api/api.go": SERVING.replace("{call}", call),
        "ledger/cmd/ledger/main.go": CMD,
    }


def test_handed_to_another_packages_handler_parameter(tmp_path: Path) -> None:
    files = _module("Split")
    found = _lint(tmp_path, files)
    assert [(name, line) for name, line, _ in found] == [("api.go", 22)]
    assert "no SIGTERM handler in its project" in found[0][2]
    assert "gRPC server 'rpc' is served by srv.Serve() with" in found[0][2]


def test_handed_to_another_packages_parameter_of_another_type(tmp_path: Path) -> None:
    assert _lint(tmp_path, _module("Describe")) == []


def test_a_handler_given_as_a_parameter_is_no_tie(tmp_path: Path) -> None:
    library = """\
package web

import (
	"log"
	"net/http"

	"google.golang.org/grpc"
)

func Serve(addr string, h http.Handler) {
	_ = grpc.NewServer()
	log.Fatal(http.ListenAndServe(addr, h))
}
"""
    assert _lint(tmp_path, {"web/web.go": library}) == []


# A package of the module makes the http.Server (or the handler) that serves a gRPC server
# it is given, the grpc-gateway way, and stops it on the signals it is told; the program
# serves what it returns.
GATEWAY = """\
package gateway

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"google.golang.org/grpc"
)

var _ = syscall.SIGTERM

func split(rpc http.Handler, rest http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		grpcCall := strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
		if r.ProtoMajor == 2 && grpcCall {
			rpc.ServeHTTP(w, r)
		} else {
			rest.ServeHTTP(w, r)
		}
	})
}

func Server(ctx context.Context, rpc *grpc.Server, rest http.Handler) (*http.Server, error) {
	if ctx == nil {
		return nil, errors.New("no context")
	}
	return &http.Server{Handler: {handler}}, nil
}

func Handler(rpc *grpc.Server, rest http.Handler) http.Handler {
	return split(rpc, rest)
}

func StopOn(servers ...interface{ Shutdown(context.Context) error }) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, {signals})
	<-ch
	for _, s := range servers {
		_ = s.Shutdown(context.Background())
	}
}
"""

GATEWAY_MAIN = """\
package main

import (
	"context"
	"log"
	"net"
	"net/http"

	"example.com/ledger/gateway"
	"google.golang.org/grpc"
)

var _ = context.Background

func main() {
	rpc := grpc.NewServer()
	lis, _ := net.Listen("tcp", ":8080")
{body}}
"""

GATEWAY_SERVED = """\
	srv, err := gateway.Server(context.Background(), rpc, http.NewServeMux())
	if err != nil {
		log.Fatal(err)
	}
	go gateway.StopOn(srv)
	log.Fatal(srv.Serve(lis))
"""

GATEWAY_HANDLER = """\
	_ = gateway.StopOn
	log.Fatal(http.Serve(lis, gateway.Handler(rpc, http.NewServeMux())))
"""


def _gateway(body: str, handler: str = "split(rpc, rest)", signals: str = "os.Interrupt"):
    return {
        "ledger/go.mod": GO_MOD,
        "ledger/gateway/gateway.go": GATEWAY.replace("{handler}", handler).replace(
            "{signals}", signals
        ),
        "ledger/cmd/ledger/main.go": GATEWAY_MAIN.replace("{body}", body),
    }


def test_an_http_server_another_package_makes_of_the_grpc_server(tmp_path: Path) -> None:
    """Only os.Interrupt is caught (SIGINT, which Kubernetes never sends): SIGTERM ends the
    program at once, with the calls the gateway's http.Server was serving."""
    found = _lint(tmp_path, _gateway(GATEWAY_SERVED))
    assert [(name, line) for name, line, _ in found] == [("main.go", 23)]
    assert "gRPC server 'rpc' is served by srv.Serve() with no SIGTERM handler" in found[0][2]
    assert "served through net/http" in found[0][2]
    assert "it catches SIGINT alone (`os.Interrupt`, " in found[0][2]
    assert "gateway/gateway.go:41), which Kubernetes never sends" in found[0][2]


def test_an_http_server_another_package_makes_stopped_on_sigterm(tmp_path: Path) -> None:
    files = _gateway(GATEWAY_SERVED, signals="os.Interrupt, syscall.SIGTERM")
    assert _lint(tmp_path, files) == []


def test_an_http_server_another_package_makes_of_another_handler(tmp_path: Path) -> None:
    """The server's handler is `rest` alone: the gRPC server it is given is not served."""
    assert _lint(tmp_path, _gateway(GATEWAY_SERVED, handler="rest")) == []


def test_a_handler_another_package_makes_of_the_grpc_server(tmp_path: Path) -> None:
    found = _lint(tmp_path, _gateway(GATEWAY_HANDLER))
    assert [(name, line) for name, line, _ in found] == [("main.go", 19)]
    assert "served by http.Serve() with no SIGTERM handler" in found[0][2]


def test_keepalive_of_a_server_another_package_serves_over_http(tmp_path: Path) -> None:
    """KLB201: its connections are the gateway's http.Server's, which its keepalive
    options do not reach."""
    found = lint_files(tmp_path, _gateway(GATEWAY_SERVED), ["KLB201"]).findings
    assert [(f.line, f.severity.label) for f in found] == [(16, "info")]
    assert "is served as an HTTP handler" in found[0].message


def test_an_http_server_a_function_of_the_file_makes_of_the_grpc_server(tmp_path: Path) -> None:
    """The gateway's functions in the program's own file: read there, no export needed."""
    gateway = GATEWAY.replace("{handler}", "split(rpc, rest)").replace("{signals}", "os.Interrupt")
    own = gateway.replace("package gateway", "package main").replace("func Server(", "func gw(")
    main = own + GATEWAY_MAIN.split("\n)\n", 1)[1].replace(
        "{body}",
        GATEWAY_SERVED.replace("gateway.Server(", "gw(").replace("gateway.StopOn", "StopOn"),
    )
    main = main.replace("import (\n", 'import (\n\t"log"\n\t"net"\n', 1)
    found = _lint(tmp_path, {"cmd/ledger/main.go": main})
    assert [name for name, _, _ in found] == ["main.go"]
    assert "gRPC server 'rpc' is served by srv.Serve() with no SIGTERM handler" in found[0][2]
