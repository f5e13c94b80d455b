"""A Go gRPC server kept in a struct's field: a constructor makes it in the struct's literal
(`&Server{rpc: grpc.NewServer()}`) or sets the field (`s.rpc = grpc.NewServer()`), and a
method of the type serves it under its own receiver's name (`srv.rpc.Serve(lis)`). The
field is the server's, named by its type, so the Serve is its wait (KLB403 when nothing
catches SIGTERM), and named as the Serve call names it, the name the advice and the fix
use where it waits."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

IN_LITERAL = """\
package rpc

import (
	"net"

	"google.golang.org/grpc"
)

type Server struct {
	rpc  *grpc.Server
	port string
}

func New(port string) *Server {
	s := &Server{rpc: grpc.NewServer(), port: port}
	return s
}

func (srv *Server) Run() error {
	lis, err := net.Listen("tcp", ":"+srv.port)
	if err != nil {
		return err
	}
	return srv.rpc.Serve(lis)
}
"""

SET_IN_CONSTRUCTOR = IN_LITERAL.replace(
    "\ts := &Server{rpc: grpc.NewServer(), port: port}\n",
    "\ts := &Server{port: port}\n\ts.rpc = grpc.NewServer()\n",
)

MAIN = """\
package main

import (
	"log"

	"example.com/inventory/internal/rpc"
)

func main() {
	if err := rpc.New("9090").Run(); err != nil {
		log.Fatal(err)
	}
}
"""


def served(source: str) -> tuple[list[str | None], list[str | None], set[str]]:
    facts = analyse_go("internal/rpc/server.go", source.encode())
    return [s.name for s in facts.servers], [w.server for w in facts.waits], facts.starts


def test_a_server_made_in_a_literal_is_waited_on_in_a_method_of_its_type() -> None:
    assert served(IN_LITERAL) == (["srv.rpc"], ["srv.rpc"], {"srv.rpc"})


def test_a_server_the_constructor_sets_is_waited_on_in_a_method_of_its_type() -> None:
    assert served(SET_IN_CONSTRUCTOR) == (["srv.rpc"], ["srv.rpc"], {"srv.rpc"})


def test_a_stop_in_another_method_of_the_type_is_the_servers() -> None:
    stopping = IN_LITERAL + "\nfunc (x *Server) Close() {\n\tx.rpc.GracefulStop()\n}\n"
    facts = analyse_go("internal/rpc/server.go", stopping.encode())
    assert [stop.server for stop in facts.stops] == ["srv.rpc"]


def test_a_field_of_that_name_in_another_type_is_not_the_server() -> None:
    other = IN_LITERAL.replace("return srv.rpc.Serve(lis)", "return (&Gateway{}).serve(lis)") + (
        "\ntype Gateway struct {\n\trpc *grpc.Server\n}\n\n"
        "func (g *Gateway) serve(lis net.Listener) error {\n\treturn g.rpc.Serve(lis)\n}\n"
    )
    names, waits, starts = served(other)
    assert names == ["Server.rpc"]
    assert waits == [] and starts == set()


def test_end_to_end_the_wait_with_no_sigterm_handler_is_klb403(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/inventory\n\ngo 1.22\n",
        "internal/rpc/server.go": IN_LITERAL,
        "cmd/inventory/main.go": MAIN,
    }
    [finding] = lint_files(tmp_path, files, ["KLB403"]).findings
    assert (finding.path.endswith("internal/rpc/server.go"), finding.line) == (True, 24)
    assert "'srv.rpc' waits in Serve() with no SIGTERM handler" in finding.message
    assert finding.fix is not None and "srv.rpc.GracefulStop()" in finding.fix.description
