"""A Go import path read through the go.mod that declares its module: a monorepo of
services, each a module of its own in `services/<name>` whose path is not its folder's
name (`module billing-svc` in `services/billing`), each with the same layout
(`internal/server`, `internal/grpcserver`). `billing-svc/internal/grpcserver` ends as
every service's folder does, so its tail names none of them; the go.mod says which it is.
The program then links in the package its server runs in, and the SIGTERM context its
`Run` makes (and hands that package's function) is the server's program's handler."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.projects import GoPackages
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

MAIN = """\
package main

import (
	"log"

	"{module}/internal/server"
)

func main() {{
	if err := server.Run(); err != nil {{
		log.Fatal(err)
	}}
}}
"""

SERVER = """\
package server

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"{module}/internal/grpcserver"
)

// Run serves until SIGTERM, then waits for the gRPC server to drain.
func Run() error {{
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go grpcserver.Serve(ctx, &wg, ":{port}")
	wg.Wait()
	return nil
}}
"""

GRPC_SERVER = """\
package grpcserver

import (
	"context"
	"log"
	"net"
	"sync"

	"google.golang.org/grpc"
)

// Serve runs the gRPC server until ctx is done, then stops it gracefully.
func Serve(ctx context.Context, wg *sync.WaitGroup, addr string) {
	defer wg.Done()
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	go func() {
		if err := s.Serve(lis); err != nil {
			log.Println(err)
		}
	}()
	<-ctx.Done()
	s.GracefulStop()
}
"""


def _service(folder: str, module: str, port: int) -> dict[str, str]:
    return {
        f"services/{folder}/go.mod": f"module {module}\n\ngo 1.22\n",
        f"services/{folder}/cmd/main.go": MAIN.format(module=module),
        f"services/{folder}/internal/server/server.go": SERVER.format(module=module, port=port),
        f"services/{folder}/internal/grpcserver/grpc.go": GRPC_SERVER,
    }


FILES = {**_service("billing", "billing-svc", 7001), **_service("ledger", "ledger-svc", 7002)}


def test_a_program_whose_module_path_is_not_its_folders_name_links_in_its_server(
    tmp_path: Path,
) -> None:
    """Without the go.mod, `billing-svc/internal/grpcserver` is two folders alike: the
    server's package was in no program, and its SIGTERM handler was not seen (KLB403)."""
    assert lint_files(tmp_path, FILES, ["KLB403"]).findings == []


def _packages(declared: dict[str, str], shared: frozenset[str] = frozenset()) -> GoPackages:
    modules = {
        path: analyse_go(path, text.encode())
        for path, text in FILES.items()
        if path.endswith(".go")
    }
    return GoPackages(modules, declared, shared)


def test_the_go_mod_of_the_longest_module_path_names_the_folder() -> None:
    packages = _packages(
        {"billing-svc": "services/billing", "ledger-svc": "services/ledger", "x": "services"}
    )
    assert packages.closure("services/billing/cmd") == [
        "services/billing/cmd/main.go",
        "services/billing/internal/server/server.go",
        "services/billing/internal/grpcserver/grpc.go",
    ]
    # a module path the go.mod declares, with a package it does not hold: none
    assert packages.folder("billing-svc/internal/missing") is None


def test_a_module_path_two_go_mods_declare_names_no_folder() -> None:
    """Copies of one module: which one a program builds is not the go.mod's to say."""
    packages = _packages({"billing-svc": "services/billing"}, frozenset({"billing-svc"}))
    assert packages.folder("billing-svc/internal/grpcserver") is None
