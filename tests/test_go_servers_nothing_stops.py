"""KLB403 (Go): gRPC servers that nothing stops, reached through functions of their own
file: a server made as the argument of a method that keeps it in a struct's field and
served from that field in a goroutine (while main runs an HTTP server, no SIGTERM caught
anywhere), and a server kept in a local, handed only to a registration function of the
same file, while the program catches SIGTERM and returns without stopping it. A function
of the file that keeps the server where other code may stop it is still a hand-off."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/shop\n\ngo 1.22\n"

FIELD_SERVER = """\
package rpc

import (
	"fmt"
	"log"
	"net"

	"google.golang.org/grpc"
)

type Server struct {
	port int
	rpc  *grpc.Server
}

func New(port int) *Server {
	s := &Server{port: port}
	return s.attach(grpc.NewServer())
}

func (s *Server) attach(server *grpc.Server) *Server {
	s.rpc = server
	return s
}

func (s *Server) Listen() {
	lis, err := net.Listen("tcp", fmt.Sprintf(":%d", s.port))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.rpc.Serve(lis); err != nil {
		log.Fatal(err)
	}
}
"""

FIELD_MAIN = """\
package main

import (
	"net/http"

	"example.com/shop/rpc"
)

func main() {
	server := rpc.New(9090)
	go server.Listen()
	_ = http.ListenAndServe(":8080", http.NewServeMux())
}
"""


def test_a_server_kept_in_a_field_by_a_method_and_served_from_it(tmp_path: Path) -> None:
    found = lint_files(
        tmp_path,
        {"go.mod": GO_MOD, "rpc/server.go": FIELD_SERVER, "cmd/shop/main.go": FIELD_MAIN},
        ["KLB403"],
    )
    assert [(f.rule, f.path.rsplit("/", 1)[-1], f.line) for f in found.findings] == [
        ("KLB403", "server.go", 31)
    ]
    assert "no SIGTERM handler" in found.findings[0].message


REGISTERED = """\
package xds

import (
	"fmt"
	"net"

	"google.golang.org/grpc"
)

type Discovery interface{}

var streams []chan struct{}

// CloseStreams ends the open discovery streams.
func CloseStreams() {
	for _, stream := range streams {
		close(stream)
	}
}

func register(server *grpc.Server, impl Discovery) {
	{register}
}

func Start(port int, impl Discovery) error {
	server := grpc.NewServer()
	lis, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return err
	}
	register(server, impl)
	go func() {
		_ = server.Serve(lis)
	}()
	return nil
}
"""

CAUGHT_MAIN = """\
package main

import (
	"context"
	"log"
	"os/signal"
	"syscall"

	"example.com/shop/xds"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := xds.Start(18000, nil); err != nil {
		log.Fatal(err)
	}
	<-ctx.Done()
	log.Print("shutting down")
	xds.CloseStreams()
}
"""


def _registered(body: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    return lint_files(
        tmp_path,
        {
            "go.mod": GO_MOD,
            "xds/server.go": REGISTERED.replace("{register}", body),
            "cmd/control/main.go": CAUGHT_MAIN,
        },
        ["KLB403"],
    )


def test_a_server_handed_only_to_a_registration_function_of_its_file(tmp_path: Path) -> None:
    found = _registered("discovery.RegisterAggregatedDiscoveryServer(server, impl)", tmp_path)
    assert [(f.rule, f.line) for f in found.findings] == [("KLB403", 33)]
    assert "nothing stops it" in found.findings[0].message


def test_a_function_of_the_file_that_keeps_the_server_is_a_hand_off(tmp_path: Path) -> None:
    found = _registered("running = append(running, server)", tmp_path)
    assert found.findings == []
