"""Values a Go file owes to other files of its module: the options a helper of another
file (or package) returns, and the address a caller in another file passes to a function's
parameter. Each file is parsed alone; the values are joined once every file is read
(code/imported.py)."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import UNKNOWN, EnvRef, FlagRef, Passed
from k8slb.code.imported import resolve_imports
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

GO_MOD = "module example.com/matcher\n\ngo 1.22\n"

# A service that builds its server in one file with options another file returns, as
# gRPC services with shared interceptors do.
SERVE = """\
package rpc

import (
	"net"

	"google.golang.org/grpc"
)

type Server struct {
	grpcServer *grpc.Server
}

func (s *Server) Start(params *Params, lis net.Listener) error {
	s.grpcServer = grpc.NewServer(newServerOptions(params)...)
	return s.grpcServer.Serve(lis)
}
"""

OPTIONS = """\
package rpc

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

type Params struct{ metrics bool }

func newServerOptions(params *Params) []grpc.ServerOption {
	opts := []grpc.ServerOption{}
	if params.metrics {
		opts = append(opts, grpc.MaxRecvMsgSize(1<<20))
	}
	return append(opts,
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             10 * time.Second,
			PermitWithoutStream: true,
		}),
KEEPALIVE	)
}
"""

MAX_AGE = "\t\tgrpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: time.Minute}),\n"


def _server(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, Severity]]:
    result = lint_files(tmp_path, {"go.mod": GO_MOD, **files}, ["KLB201"])
    return [(f.path.rsplit("/", 2)[-2], f.line, f.severity) for f in result.findings]


def test_server_options_a_helper_of_the_package_returns_are_read_across_files(
    tmp_path: Path,
) -> None:
    helper = OPTIONS.replace("KEEPALIVE", "")
    files = {"internal/rpc/server.go": SERVE, "internal/rpc/options.go": helper}
    assert _server(tmp_path / "none", files) == [("rpc", 14, Severity.WARNING)]
    files["internal/rpc/options.go"] = OPTIONS.replace("KEEPALIVE", MAX_AGE)
    assert _server(tmp_path / "set", files) == [], "the helper sets MaxConnectionAge"


def test_server_options_spread_from_a_variable_an_imported_helper_fills_are_read(
    tmp_path: Path,
) -> None:
    """`opts := util.ServerOptions(); opts = append(opts, grpc.Creds(c))`, the helper in
    another package of the module, returning a slice literal."""
    main = """\
package main

import (
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	util "example.com/matcher/internal/util/grpcopts"
)

func main() {
	lis, _ := net.Listen("tcp", ":50502")
	creds, _ := credentials.NewServerTLSFromFile("cert.pem", "key.pem")
	opts := util.ServerOptions()
	opts = append(opts, grpc.Creds(creds))
	server := grpc.NewServer(opts...)
	server.Serve(lis)
}
"""
    helper = """\
package grpcopts

import "google.golang.org/grpc"

func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxConcurrentStreams(100),
	}
}
"""
    files = {"cmd/mmf/main.go": main, "internal/util/grpcopts/options.go": helper}
    assert _server(tmp_path / "read", files) == [("mmf", 17, Severity.WARNING)]
    unread = {"cmd/mmf/main.go": main.replace("example.com/matcher", "example.org/elsewhere")}
    assert _server(tmp_path / "unread", unread) == [], (
        "a helper no scanned file declares may set the age: nothing claimed"
    )


def test_an_aliased_grpc_s_server_options_from_a_module_named_without_a_dot_are_read(
    tmp_path: Path,
) -> None:
    """`module shop` (no dot in its path, as a go.mod may name it): its packages are the
    module's, not Go's standard library, so a helper of one is followed; the gRPC package
    is imported under another name, beside a package of the module named grpc."""
    main = """\
package main

import (
	"net"

	"shop/services/trips/internal/grpc"
	"shop/shared/tracing"

	grpcserver "google.golang.org/grpc"
)

func main() {
	lis, _ := net.Listen("tcp", ":9093")
	server := grpcserver.NewServer(tracing.ServerOptions()...)
	grpc.NewHandler(server)
	server.Serve(lis)
}
"""
    helper = """\
package tracing

import "google.golang.org/grpc"

func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxConcurrentStreams(100),
	}
}
"""
    files = {
        "go.mod": "module shop\n\ngo 1.24\n",
        "services/trips/cmd/main.go": main,
        "shared/tracing/grpc.go": helper,
    }
    result = lint_files(tmp_path / "read", files, ["KLB201"])
    assert [(f.path.rsplit("/", 2)[-2], f.line) for f in result.findings] == [("cmd", 14)]
    files["shared/tracing/grpc.go"] = helper.replace(
        "grpc.MaxConcurrentStreams(100)",
        "grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: time.Minute})",
    ).replace('import "google.golang.org/grpc"', IMPORTS_WITH_KEEPALIVE)
    assert lint_files(tmp_path / "set", files, ["KLB201"]).findings == []


IMPORTS_WITH_KEEPALIVE = """import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)"""


MMF_MAIN = """\
package main

import "example.com/matcher/functions/mmf"

const (
	queryServiceAddr = "om-query.open-match.svc.cluster.local:50503"
	serverPort       = 50502
)

func main() {
	mmf.Start(queryServiceAddr, serverPort)
}
"""

MMF_SERVER = """\
package mmf

import (
	"fmt"
	"log"
	"net"

	"google.golang.org/grpc"
)

func Start(queryServiceAddr string, serverPort int) {
	conn, err := grpc.Dial(queryServiceAddr, grpc.WithInsecure())
	if err != nil {
		log.Fatalf("Failed to connect: %v", err)
	}
	defer conn.Close()

	server := grpc.NewServer()
	ln, _ := net.Listen("tcp", fmt.Sprintf(":%d", serverPort))
	server.Serve(ln)
}
"""


def test_a_dial_target_passed_from_main_in_another_package_is_followed(tmp_path: Path) -> None:
    files = {
        "go.mod": GO_MOD,
        "functions/main.go": MMF_MAIN,
        "functions/mmf/server.go": MMF_SERVER,
    }
    [finding] = lint_files(tmp_path, files, ["KLB103"]).findings
    assert finding.path.endswith("functions/mmf/server.go") and finding.line == 12
    assert "'om-query.open-match.svc.cluster.local:50503'" in finding.text
    assert finding.severity == Severity.WARNING


def test_each_copy_of_a_module_imports_its_own_package(tmp_path: Path) -> None:
    """Two copies of one module (a tutorial's skeleton and its solution, each with its
    go.mod of the same module path): each main passes its address to its own copy."""
    files: dict[str, str] = {}
    for copy, host in (("skeleton", "query-a"), ("solution", "query-b")):
        files[f"tutorial/{copy}/go.mod"] = GO_MOD
        files[f"tutorial/{copy}/functions/main.go"] = MMF_MAIN.replace("om-query", host)
        files[f"tutorial/{copy}/functions/mmf/server.go"] = MMF_SERVER
    found = lint_files(tmp_path, files, ["KLB103"]).findings
    dialled = sorted((f.path.split("/tutorial/")[1].split("/")[0], f.text) for f in found)
    assert [
        (copy, f"'{host}.open-match" in text)
        for (copy, text), host in zip(dialled, ("query-a", "query-b"), strict=True)
    ] == [("skeleton", True), ("solution", True)]


def test_a_parameter_no_file_of_its_own_calls_is_what_other_files_pass() -> None:
    server = analyse_go("svc/mmf/server.go", MMF_SERVER.encode())
    [channel] = server.channels
    assert channel.target == Passed("svc/mmf", "Start", 0) and server.deferred
    main = analyse_go(
        "svc/main.go", MMF_MAIN.replace("example.com/matcher/functions", "x.io/svc").encode()
    )
    [resolved] = resolve_imports([server, main])[0].channels
    assert resolved.target == "om-query.open-match.svc.cluster.local:50503"
    assert resolved.long_lived, "Start runs once and serves until the process ends"
    [alone] = resolve_imports([server])[0].channels
    assert alone.target == UNKNOWN, "no scanned file calls it: unknown, no guess"


CONFIG_CLIENTS = """\
package clients

import "google.golang.org/grpc"

type ClientConfig struct {
	AuthAddr string
	UserAddr string
}

func NewClients(config ClientConfig) (*grpc.ClientConn, *grpc.ClientConn) {
	auth, _ := grpc.Dial(config.AuthAddr, grpc.WithInsecure())
	user, _ := grpc.Dial(config.UserAddr, grpc.WithInsecure())
	return auth, user
}
"""

CONFIG_MAIN = """\
package main

import (
	"os"

	"x.io/svc/clients"
)

func getEnv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func main() {
	config := clients.ClientConfig{
		AuthAddr: getEnv("AUTH_ADDR", "localhost:50052"),
		UserAddr: os.Getenv("USER_ADDR"),
	}
	auth, user := clients.NewClients(config)
	defer auth.Close()
	defer user.Close()
}
"""


def test_a_field_of_a_struct_parameter_is_what_the_callers_literal_sets() -> None:
    """`grpc.Dial(config.AuthAddr)` in a constructor `main` of another package calls with
    a `ClientConfig{AuthAddr: getEnv(...)}`: each channel dials its own field's value."""
    clients = analyse_go("svc/clients/clients.go", CONFIG_CLIENTS.encode())
    assert [c.target for c in clients.channels] == [
        Passed("svc/clients", "NewClients", 0, "AuthAddr"),
        Passed("svc/clients", "NewClients", 0, "UserAddr"),
    ]
    main = analyse_go("svc/main.go", CONFIG_MAIN.encode())
    resolved = resolve_imports([clients, main])[0].channels
    assert [c.target for c in resolved] == [
        EnvRef("AUTH_ADDR", "localhost:50052"),
        EnvRef("USER_ADDR", None),
    ]
    written = CONFIG_CLIENTS.replace("\tauth, _ :=", '\tconfig.AuthAddr = "a:1"\n\tauth, _ :=')
    [own, _] = analyse_go("svc/clients/clients.go", written.encode()).channels
    assert own.target == "a:1", "a field the file writes itself is that value, as before"


def test_different_addresses_from_callers_in_other_files_make_a_channel_each() -> None:
    server = analyse_go("svc/mmf/server.go", MMF_SERVER.encode())
    mains = [
        analyse_go(
            f"svc/{name}/main.go",
            MMF_MAIN.replace("example.com/matcher/functions", "x.io/svc")
            .replace("om-query", name)
            .encode(),
        )
        for name in ("query", "backend")
    ]
    targets = sorted(c.target for c in resolve_imports([server, *mains])[0].channels)
    assert targets == [
        "backend.open-match.svc.cluster.local:50503",
        "query.open-match.svc.cluster.local:50503",
    ]


RESOLVER_INIT = """\
package grpcutil

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
)

func init() {
	// gRPC's DNS resolver for every client: balance over a headless Service's pods.
	resolver.SetDefaultScheme("dns")
}

func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(`{"loadBalancingPolicy":"round_robin"}`),
	}
}
"""

SCALE_MMF = """\
package mmf

import (
	"google.golang.org/grpc"

	"example.com/matcher/internal/grpcutil"
)

func Run() {
	conn, err := grpc.Dial("om-query.open-match.svc.cluster.local:50503", grpcutil.DialOptions()...)
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	select {}
}
"""


def test_a_default_scheme_an_imported_packages_init_sets_makes_a_bare_target_dns(
    tmp_path: Path,
) -> None:
    files = {
        "go.mod": GO_MOD,
        "internal/grpcutil/grpcutil.go": RESOLVER_INIT,
        "scale/mmf/mmf.go": SCALE_MMF,
    }
    assert lint_files(tmp_path / "dns", files, ["KLB103"]).findings == [], (
        "dns resolves every pod and the options ask round_robin"
    )
    files["internal/grpcutil/grpcutil.go"] = RESOLVER_INIT.replace(
        '\tresolver.SetDefaultScheme("dns")\n', ""
    ).replace('\t"google.golang.org/grpc/resolver"\n', "")
    [finding] = lint_files(tmp_path / "passthrough", files, ["KLB103"]).findings
    assert "passthrough" in finding.text


def test_a_default_scheme_set_by_the_program_that_links_the_package_in(tmp_path: Path) -> None:
    """The scheme set in main's package, the dial in a package main imports."""
    main = """\
package main

import (
	"google.golang.org/grpc/resolver"

	"example.com/matcher/scale/mmf"
)

func main() {
	resolver.SetDefaultScheme("dns")
	mmf.Run()
}
"""
    helper = RESOLVER_INIT.replace('\tresolver.SetDefaultScheme("dns")\n', "").replace(
        '\t"google.golang.org/grpc/resolver"\n', ""
    )
    files = {
        "go.mod": GO_MOD,
        "internal/grpcutil/grpcutil.go": helper,
        "scale/mmf/mmf.go": SCALE_MMF,
        "scale/main.go": main,
    }
    assert lint_files(tmp_path / "set", files, ["KLB103"]).findings == []
    files["cmd/bench/main.go"] = (
        'package main\n\nimport "example.com/matcher/scale/mmf"\n\nfunc main() {\n\tmmf.Run()\n}\n'
    )
    found = lint_files(tmp_path / "one-program-not", files, ["KLB103"]).findings
    assert len(found) == 1, "a second program links the dial in without the scheme"


FLAG_CLIENT = """\
package main

import (
	"flag"
	"log"

	"google.golang.org/grpc"
)

var addr = flag.String("addr", "localhost:50051", "the address to connect to")

func main() {
	flag.Parse()
	conn, err := grpc.Dial(*addr, grpc.WithInsecure())
	if err != nil {
		log.Fatalf("did not connect: %v", err)
	}
	defer conn.Close()
	select {}
}
"""


def flag_client(args: str) -> dict[str, str]:
    """A client whose target is a command-line flag, its Deployment passing it in args,
    and the headless Service of the server it names."""
    return {
        "go.mod": GO_MOD,
        "client/main.go": FLAG_CLIENT,
        "client/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/client ./client\nENTRYPOINT ["/usr/bin/client"]\n',
        "client/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: client, namespace: load}\n"
            "spec:\n  selector: {matchLabels: {app: client}}\n  template:\n"
            "    metadata: {labels: {app: client}}\n    spec:\n      containers:\n"
            "        - name: client\n          image: example/matcher/client:latest\n"
            f"          args: {args}\n"
            "---\napiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: load}\n"
            "spec:\n  clusterIP: None\n  selector: {app: backend}\n"
            "  ports: [{name: grpc, port: 11111}]\n"
        ),
    }


def test_a_target_given_by_a_command_line_flag_is_what_the_container_args_pass(
    tmp_path: Path,
) -> None:
    for at, args in enumerate(('["--addr=backend:11111"]', '["-addr", "backend:11111"]')):
        [finding] = lint_files(tmp_path / str(at), flag_client(args), ["KLB103"]).findings
        assert finding.path.endswith("client/main.go") and finding.line == 14
        assert "'backend:11111' (--addr as Deployment/load/client passes it)" in finding.text
    unset = lint_files(tmp_path / "default", flag_client('["--verbose"]'), ["KLB103"])
    assert unset.findings == [], "its default, localhost, is no Service"


def test_a_flag_bound_to_a_variable_by_stringvar_is_its_value() -> None:
    body = FLAG_CLIENT.replace(
        'var addr = flag.String("addr", "localhost:50051", "the address to connect to")',
        'var address string\n\nfunc init() {\n\tflag.StringVar(&address, "address", "", "")\n}',
    ).replace("*addr", "address")
    [channel] = analyse_go("client/main.go", body.encode()).channels
    assert channel.target == FlagRef("address", "")
    cobra = body.replace('"flag"', '"github.com/spf13/cobra"').replace(
        'flag.StringVar(&address, "address", "", "")',
        'rootCmd.Flags().StringVarP(&address, "address", "a", "svc:1", "")',
    )
    [channel] = analyse_go("client/main.go", cobra.encode()).channels
    assert channel.target == FlagRef("address", "svc:1")


FLAG_SERVER = """\
package main

import (
	"flag"
	"fmt"
	"log"
	"net"

	"google.golang.org/grpc"
)

var port = flag.Int("port", 9000, "the port to serve on")

func main() {
	flag.Parse()
	lis, err := net.Listen("tcp", fmt.Sprintf(":%d", *port))
	if err != nil {
		log.Fatalf("failed to listen: %v", err)
	}
	s := grpc.NewServer()
	if err := s.Serve(lis); err != nil {
		log.Fatalf("failed to serve: %v", err)
	}
}
"""


def test_an_integer_flag_is_the_port_a_server_listens_on() -> None:
    [listen] = analyse_go("server/main.go", FLAG_SERVER.encode()).listens
    assert listen.address == FlagRef("port", "9000", ":")
    bound = FLAG_SERVER.replace(
        'var port = flag.Int("port", 9000, "the port to serve on")',
        'var port int\n\nfunc init() {\n\tflag.IntVar(&port, "port", 9000, "")\n}',
    ).replace('fmt.Sprintf(":%d", *port)', '":" + strconv.Itoa(port)')
    bound = bound.replace('"net"', '"net"\n\t"strconv"')
    [listen] = analyse_go("server/main.go", bound.encode()).listens
    assert listen.address == FlagRef("port", "9000", ":")
    cobra = bound.replace('"flag"', '"github.com/spf13/cobra"').replace(
        'flag.IntVar(&port, "port", 9000, "")', 'cmd.Flags().IntVarP(&port, "port", "p", 9000, "")'
    )
    [listen] = analyse_go("server/main.go", cobra.encode()).listens
    assert listen.address == FlagRef("port", "9000", ":")


def flag_server(args: str) -> dict[str, str]:
    """The server above, built by its Dockerfile, its Deployment passing `args`, behind a
    ClusterIP Service whose port's name says nothing of gRPC."""
    return {
        "go.mod": GO_MOD,
        "server/main.go": FLAG_SERVER,
        "server/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/server ./server\nENTRYPOINT ["/usr/bin/server"]\n',
        "server/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: backend}\n"
            "spec:\n  replicas: 3\n  selector: {matchLabels: {app: backend}}\n  template:\n"
            "    metadata: {labels: {app: backend}}\n    spec:\n      containers:\n"
            "        - name: server\n          image: example/matcher/server:latest\n"
            f"          args: {args}\n"
            "---\napiVersion: v1\nkind: Service\nmetadata: {name: backend}\n"
            "spec:\n  selector: {app: backend}\n"
            "  ports: [{name: tcp, port: 80, targetPort: 9001}]\n"
        ),
    }


def test_the_port_an_integer_flag_gives_a_server_shows_its_service_carries_grpc(
    tmp_path: Path,
) -> None:
    for at, args in enumerate(('["--port=9001"]', '["-port", "9001"]')):
        [finding] = lint_files(tmp_path / str(at), flag_server(args), ["KLB101"]).findings
        assert "its code serves gRPC on 9001: main.go:16" in finding.text
    other = lint_files(tmp_path / "default", flag_server('["--verbose"]'), ["KLB101"])
    assert other.findings == [], "it serves its default, 9000, which the Service does not target"


INPUT = """\
package input

import (
	"context"
	"net"

	"google.golang.org/grpc"
)

type logInput struct {
	address string
	server  *grpc.Server
}

func newLogInput(address string) *logInput {
	server := grpc.NewServer()
	in := &logInput{address: address, server: server}
	return in
}

func (in *logInput) Connect(_ context.Context) error {
	ln, err := net.Listen("tcp", in.address)
	if err != nil {
		return err
	}
	go in.server.Serve(ln)
	return nil
}

func (in *logInput) Close(_ context.Context) error {
	in.server.Stop()
	return nil
}
"""


def test_a_server_stopped_through_the_struct_field_that_holds_it_aborts_its_calls() -> None:
    """The constructor keeps the server in a field; a method stops it through the field,
    under whatever name its receiver has."""
    [stop] = analyse_go("input/otel.go", INPUT.encode()).stops
    assert (stop.server, stop.grace, stop.loc.line) == ("in.server", 0, 31)
    assigned = INPUT.replace(
        "\tin := &logInput{address: address, server: server}\n",
        "\tin := &logInput{address: address}\n\tin.server = server\n",
    )
    [stop] = analyse_go("input/otel.go", assigned.encode()).stops
    assert stop.server == "in.server" and stop.grace == 0
    graceful = INPUT.replace("in.server.Stop()", "in.server.GracefulStop()")
    [stop] = analyse_go("input/otel.go", graceful.encode()).stops
    assert stop.grace != 0


def test_end_to_end_a_stop_through_a_field_is_klb404(tmp_path: Path) -> None:
    [finding] = lint_files(tmp_path, {"input/otel.go": INPUT}, ["KLB404"]).findings
    assert finding.line == 31 and finding.message == "in.server.Stop() aborts every call in flight"


APP_RUN = """\
package appmain

import (
	"os"
	"os/signal"
	"syscall"

	"example.com/matcher/internal/rpc"
)

type App struct {
	closers []func() error
}

// Run starts the server and stops it, through its closers, on SIGTERM.
func Run(params *rpc.Params) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	a := &App{}
	s := &rpc.Server{}
	go s.Start(params, nil)
	a.closers = append(a.closers, s.Stop)
	<-c
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}
"""

RPC_SERVER = (
    SERVE + "\nfunc (s *Server) Stop() error {\n\ts.grpcServer.GracefulStop()\n\treturn nil\n}\n"
)


def _framework(main_imports: dict[str, str]) -> dict[str, str]:
    files = {
        "go.mod": GO_MOD,
        "internal/rpc/server.go": RPC_SERVER,
        "internal/rpc/options.go": OPTIONS.replace("KEEPALIVE", MAX_AGE),
        "internal/appmain/appmain.go": APP_RUN,
    }
    for folder, body in main_imports.items():
        files[f"{folder}/main.go"] = body
    return files


def test_a_server_every_program_runs_under_a_framework_that_handles_sigterm(
    tmp_path: Path,
) -> None:
    """The server's package has no handler of its own; each program that links it in
    runs it through a framework's run function that catches SIGTERM."""
    main = (
        'package main\n\nimport (\n\t"example.com/matcher/internal/appmain"\n'
        '\t"example.com/matcher/internal/rpc"\n)\n\n'
        "func main() {\n\tappmain.Run(&rpc.Params{})\n}\n"
    )
    files = _framework({"cmd/query": main, "cmd/backend": main})
    assert lint_files(tmp_path / "all", files, ["KLB403"]).findings == []
    bare = (
        'package main\n\nimport "example.com/matcher/internal/rpc"\n\n'
        "func main() {\n\t_ = rpc.Params{}\n}\n"
    )
    files = _framework({"cmd/query": main, "cmd/docs": bare})
    [finding] = lint_files(tmp_path / "one-not", files, ["KLB403"]).findings
    assert finding.severity == Severity.INFO
    assert finding.message == (
        "gRPC server 's.grpcServer' waits in Serve() with no SIGTERM handler in "
        f"{tmp_path}/one-not/cmd/docs, one of the Go programs that link it in"
    )
    files = _framework({"cmd/docs": bare})
    del files["internal/appmain/appmain.go"]
    [alone] = lint_files(tmp_path / "none", files, ["KLB403"]).findings
    assert alone.severity == Severity.WARNING, "no program that links it in handles SIGTERM"


# A client package whose factory wraps its channel in a struct, closed by the wrapper's
# Close, as gateways that dial a backend per request do.
TRIPS_CLIENT = """\
package clients

import (
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type TripsClient struct {
	conn *grpc.ClientConn
}

func NewTripsClient() (*TripsClient, error) {
	target := os.Getenv("TRIPS_URL")
	if target == "" {
		target = "backend:50051"
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &TripsClient{conn: conn}, nil
}

func (c *TripsClient) Close() {
	if c.conn != nil {
		c.conn.Close()
	}
}
"""

PER_REQUEST = """\
package main

import (
	"net/http"

	"shop/gateway/clients"
)

func handleTrip(w http.ResponseWriter, r *http.Request) {
	trips, err := clients.NewTripsClient()
	if err != nil {
		return
	}
	defer trips.Close()
	w.WriteHeader(http.StatusOK)
}

func handleDriver(w http.ResponseWriter, r *http.Request) {
	trips, err := clients.NewTripsClient()
	if err != nil {
		return
	}
	defer func() {
		trips.Close()
	}()
}
"""

KEPT_IN_MAIN = """\
package main

import "shop/gateway/clients"

var trips *clients.TripsClient

func main() {
	trips, _ = clients.NewTripsClient()
}
"""


def _pinned(tmp_path: Path, files: dict[str, str]) -> list[str]:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    every = {"go.mod": "module shop\n\ngo 1.24\n", "k8s.yaml": GRPC_SERVICE + BACKEND, **files}
    result = lint_files(tmp_path, every, ["KLB102"])
    return [f.path.rsplit("/", 1)[1] for f in result.findings]


def test_a_channel_a_factory_of_another_package_makes_for_each_request_is_not_long_lived(
    tmp_path: Path,
) -> None:
    """Every caller closes the wrapper (deferred, or in a deferred function literal)
    before its handler returns: a channel per call, which kube-proxy balances."""
    files = {"gateway/clients/trips.go": TRIPS_CLIENT, "gateway/http.go": PER_REQUEST}
    assert _pinned(tmp_path / "per-call", files) == []
    files["gateway/main.go"] = KEPT_IN_MAIN
    assert _pinned(tmp_path / "kept", files) == ["trips.go"], "one caller keeps it"


def test_a_factory_channel_no_scanned_call_reaches_or_whose_wrapper_never_closes_it_is_kept(
    tmp_path: Path,
) -> None:
    assert _pinned(tmp_path / "no-caller", {"gateway/clients/trips.go": TRIPS_CLIENT}) == [
        "trips.go"
    ]
    unclosed = TRIPS_CLIENT.replace("c.conn.Close()", "c.conn = nil")
    files = {"gateway/clients/trips.go": unclosed, "gateway/http.go": PER_REQUEST}
    assert _pinned(tmp_path / "unclosed", files) == ["trips.go"], "Close leaves it open"


# Handlers that make a client per request, call one method on it and drop it (never
# closed): the factory hands its channel out in an exported field, with no Close method.
EXPORTED_CLIENT = (
    TRIPS_CLIENT.replace("conn *grpc", "Conn *grpc")
    .replace("&TripsClient{conn: conn}", "&TripsClient{Conn: conn}")
    .split("func (c *TripsClient) Close()")[0]
)

DROPPED_PER_REQUEST = """\
package main

import (
	"net/http"

	"shop/gateway/clients"
)

func handleTrip(w http.ResponseWriter, r *http.Request) {
	trips, err := clients.NewTripsClient()
	if err != nil {
		return
	}
	res, err := trips.Client.Get(r.Context(), nil)
	_ = res
}
"""


def test_a_factory_channel_request_handlers_only_call_methods_on_and_drop_is_per_call(
    tmp_path: Path,
) -> None:
    """Each request makes a connection kube-proxy places anew: nothing keeps it."""
    files = {"gateway/clients/trips.go": EXPORTED_CLIENT, "gateway/http.go": DROPPED_PER_REQUEST}
    assert _pinned(tmp_path / "dropped", files) == []
    for kept in (
        "\tshared = trips\n",  # stored beyond the request
        "\tgo serve(trips)\n",  # handed to a function that may keep it
        "\ttrips, err = clients.NewTripsClient()\n",  # bound again
    ):
        body = DROPPED_PER_REQUEST.replace("\t_ = res\n", f"\t_ = res\n{kept}")
        body += "\nvar shared *clients.TripsClient\n\nfunc serve(t *clients.TripsClient) {}\n"
        files["gateway/http.go"] = body
        assert _pinned(tmp_path / str(len(kept)), files) == ["trips.go"], kept
    not_handler = DROPPED_PER_REQUEST.replace("w http.ResponseWriter, r *http.Request", "")
    files["gateway/http.go"] = not_handler.replace("r.Context()", "nil")
    assert _pinned(tmp_path / "not-a-handler", files) == ["trips.go"]


def test_a_factory_channel_its_own_files_handlers_close_is_per_call(tmp_path: Path) -> None:
    """The factory and the handler that calls it per request in one file."""
    handler = PER_REQUEST.replace("package main", "package clients").replace(
        'import (\n\t"net/http"\n\n\t"shop/gateway/clients"\n)', 'import "net/http"'
    )
    one_file = TRIPS_CLIENT + handler.split('import "net/http"\n', 1)[1].replace(
        "clients.NewTripsClient", "NewTripsClient"
    )
    one_file = one_file.replace('import (\n\t"os"\n', 'import (\n\t"net/http"\n\t"os"\n')
    assert _pinned(tmp_path / "per-call", {"gateway/clients/trips.go": one_file}) == []
    kept = one_file + "\nvar shared, _ = NewTripsClient()\n"
    assert _pinned(tmp_path / "kept", {"gateway/clients/trips.go": kept}) == ["trips.go"]


# Addresses kept as constants of a config package, dialled by a client package's Init that
# keeps the client in a package variable; a pool kept in one, its DSN another package's.
CONFIG = """\
package config

const (
	ProfilePort    = ":29003"
	ProfileIngress = "svc-profile:29003"
)

var ProfileDSN = "app:secret@tcp(mysql-primary:3306)/profiles"
"""

PROFILE_CLIENT = """\
package client

import (
	"log"

	"example.com/matcher/internal/config"
	pb "example.com/matcher/profile/proto"
	"google.golang.org/grpc"
)

var profiles pb.ProfileClient

func Init() {
	conn, err := grpc.Dial(config.ProfileIngress, grpc.WithInsecure())
	if err != nil {
		log.Fatal(err)
	}
	profiles = pb.NewProfileClient(conn)
}
"""

PROFILE_POOL = """\
package store

import (
	"database/sql"

	"example.com/matcher/internal/config"
)

var db *sql.DB

func OpenStore() {
	db, _ = sql.Open("mysql", config.ProfileDSN)
	db.SetMaxOpenConns(100)
}
"""


def test_a_dial_target_that_is_a_config_packages_constant_is_its_value() -> None:
    client = analyse_go("matcher/profile/client/client.go", PROFILE_CLIENT.encode())
    config = analyse_go("matcher/internal/config/service.go", CONFIG.encode())
    [resolved] = resolve_imports([client, config])[0].channels
    assert resolved.target == "svc-profile:29003"
    assert resolved.long_lived, "Init keeps the client made on it in a package variable"
    [alone] = resolve_imports([client])[0].channels
    assert alone.target == UNKNOWN, "no scanned file declares it"


def test_a_package_variable_set_again_in_a_function_is_no_known_value() -> None:
    moved = CONFIG + '\nfunc UseHost(host string) {\n\tProfileDSN = "app@tcp(" + host + ")/p"\n}\n'
    assert "value ProfileDSN" in analyse_go("internal/config/service.go", CONFIG.encode()).exports
    assert (
        "value ProfileDSN" not in analyse_go("internal/config/service.go", moved.encode()).exports
    )


def test_a_pool_a_function_keeps_in_a_package_variable_is_long_lived() -> None:
    pool = analyse_go("matcher/store/store.go", PROFILE_POOL.encode())
    config = analyse_go("matcher/internal/config/service.go", CONFIG.encode())
    [found] = resolve_imports([pool, config])[0].db_pools
    assert found.long_lived and found.lifetime is None
    assert found.url == "app:secret@tcp(mysql-primary:3306)/profiles"


def test_end_to_end_a_channel_to_a_config_constant_is_klb102(tmp_path: Path) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    files = {
        "go.mod": GO_MOD,
        "internal/config/service.go": CONFIG.replace("svc-profile:29003", "backend:50051"),
        "profile/client/client.go": PROFILE_CLIENT,
        "store/store.go": PROFILE_POOL,
        "k8s/backend.yaml": GRPC_SERVICE + BACKEND,
    }
    found = lint_files(tmp_path, files, ["KLB102", "KLB203"]).findings
    assert sorted((f.rule, f.path.rsplit("/", 1)[-1], f.line) for f in found) == [
        ("KLB102", "client.go", 14),
        ("KLB203", "store.go", 12),
    ]


def test_a_factory_that_returns_a_client_made_on_its_channel_hands_the_channel_out() -> None:
    factory = PROFILE_CLIENT.replace("var profiles pb.ProfileClient\n\n", "").replace(
        "func Init() {", "func CreateProfileClient() pb.ProfileClient {"
    )
    factory = factory.replace(
        "profiles = pb.NewProfileClient(conn)", "return pb.NewProfileClient(conn)"
    )
    [channel] = analyse_go("matcher/profile/client/client.go", factory.encode()).channels
    assert channel.long_lived, "no scanned call reaches the factory: its callers keep it"


def test_a_factory_that_returns_a_client_it_named_hands_the_channel_out() -> None:
    factory = PROFILE_CLIENT.replace("var profiles pb.ProfileClient\n\n", "").replace(
        "func Init() {", "func CreateProfileClient() (pb.ProfileClient, error) {"
    )
    named = factory.replace(
        "profiles = pb.NewProfileClient(conn)",
        "client := pb.NewProfileClient(conn)\n\treturn client, nil",
    )
    [channel] = analyse_go("matcher/profile/client/client.go", named.encode()).channels
    assert channel.long_lived and channel.kept_by is not None, "its callers keep the client"
    closed = named.replace("\tclient :=", "\tdefer conn.Close()\n\tclient :=")
    [per_call] = analyse_go("matcher/profile/client/client.go", closed.encode()).channels
    assert not per_call.long_lived
    other = named.replace(
        "return client, nil", "_ = client\n\treturn pb.NewProfileClient(nil), nil"
    )
    [dropped] = analyse_go("matcher/profile/client/client.go", other.encode()).channels
    assert not dropped.long_lived, "a client of another channel is returned"


# A client package whose constructor keeps its channel in the struct it returns, and a
# program that reads the address through an env helper of a utilities package (a file
# with nothing else k8slb reads: no gRPC, no HTTP, not `main`).
INVENTORY_CLIENT = """\
package inventory

import "google.golang.org/grpc"

type Client struct {
	conn *grpc.ClientConn
}

func NewClient(addr string) (*Client, error) {
	conn, err := grpc.Dial(addr, grpc.WithInsecure())
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn}, nil
}

func (c *Client) Close() error { return c.conn.Close() }
"""

ENV_UTIL = """\
package util

import "os"

func EnvOr(key, fallback string) string {
	value, ok := os.LookupEnv(key)
	if !ok {
		return fallback
	}
	return value
}
"""

INVENTORY_MAIN = """\
package main

import (
	"fmt"
	"log"

	"example.com/matcher/internal/inventory"
	"example.com/matcher/pkg/util"
)

func main() {
	host := util.EnvOr("INVENTORY_HOST", "localhost")
	port := util.EnvOr("INVENTORY_PORT", "50051")
	client, err := inventory.NewClient(fmt.Sprintf("%s:%s", host, port))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	serve(client)
}
"""


def test_an_env_helper_of_another_package_reads_the_variable_with_its_default() -> None:
    """`util.EnvOr("INVENTORY_HOST", "localhost")` in the program that calls a
    constructor: an env read, as the helper's own package shows it to be one."""
    from k8slb.code.facts import EnvText

    client = analyse_go("svc/internal/inventory/client.go", INVENTORY_CLIENT.encode())
    util = analyse_go("svc/pkg/util/env.go", ENV_UTIL.encode())
    assert util.exports.get("env EnvOr") is True, "read though the file is otherwise skipped"
    main = analyse_go(
        "svc/cmd/main.go", INVENTORY_MAIN.replace("example.com/matcher", "x.io/svc").encode()
    )
    [resolved] = resolve_imports([client, util, main])[0].channels
    assert resolved.target == EnvText(
        (EnvRef("INVENTORY_HOST", "localhost"), ":", EnvRef("INVENTORY_PORT", "50051"))
    )
    assert resolved.long_lived, "NewClient returns it in the struct its caller keeps"
    [alone] = resolve_imports([client, main])[0].channels
    assert alone.target == UNKNOWN, "no scanned file declares EnvOr: no guess"
    other = ENV_UTIL.replace("return value", 'return value + "-suffix"')
    not_helper = analyse_go("svc/pkg/util/env.go", other.encode())
    assert "env EnvOr" not in not_helper.exports
    [unknown] = resolve_imports([client, not_helper, main])[0].channels
    assert unknown.target == UNKNOWN, "a function that changes what it read is no env read"


def test_an_env_helper_in_another_file_of_the_same_package_is_read() -> None:
    own = INVENTORY_MAIN.replace('\t"example.com/matcher/pkg/util"\n', "").replace(
        "util.EnvOr", "envOr"
    )
    main = analyse_go("svc/cmd/main.go", own.replace("example.com/matcher", "x.io/svc").encode())
    env = analyse_go(
        "svc/cmd/env.go",
        ENV_UTIL.replace("package util", "package main").replace("EnvOr", "envOr").encode(),
    )
    client = analyse_go("svc/internal/inventory/client.go", INVENTORY_CLIENT.encode())
    [resolved] = resolve_imports([client, env, main])[0].channels
    assert "INVENTORY_HOST" in getattr(resolved.target, "names", ())


INVENTORY_DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: storefront
spec:
  template:
    metadata:
      labels: {app: storefront}
    spec:
      containers:
        - name: web
          image: registry.example/storefront:1.0
          env:
            - name: INVENTORY_HOST
              value: backend
            - name: INVENTORY_PORT
              value: "50051"
"""


def test_end_to_end_a_constructor_s_channel_to_an_env_helper_s_address_is_klb102(
    tmp_path: Path,
) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    files = {
        "go.mod": GO_MOD,
        "internal/inventory/client.go": INVENTORY_CLIENT,
        "pkg/util/env.go": ENV_UTIL,
        "cmd/storefront/main.go": INVENTORY_MAIN,
        "k8s/backend.yaml": GRPC_SERVICE + BACKEND,
        "k8s/storefront.yaml": INVENTORY_DEPLOYMENT,
    }
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert (finding.path.rsplit("/", 1)[-1], finding.line) == ("client.go", 10)
    assert "'backend:50051'" in finding.text and "INVENTORY_HOST" in finding.text


# A server struct that holds two clients' addresses in fields of the same name, each in
# its own field of the struct (`s.meta.address`, `s.search.address`).
TWO_ADDRESSES = """\
package api

import "google.golang.org/grpc"

type peer struct {
	address string
	conn    *grpc.ClientConn
}

type Server struct {
	address string
	meta    peer
	search  peer
}

func NewServer(address, metaAddr, searchAddr string) *Server {
	return &Server{
		address: address,
		meta:    peer{address: metaAddr},
		search:  peer{address: searchAddr},
	}
}

func (s *Server) Serve() error {
	s.meta.conn, _ = grpc.Dial(s.meta.address, grpc.WithInsecure())
	s.search.conn, _ = grpc.Dial(s.search.address, grpc.WithInsecure())
	return nil
}
"""


def test_a_field_read_through_its_holder_is_what_that_holder_s_literal_sets() -> None:
    facts = analyse_go("svc/api/server.go", TWO_ADDRESSES.encode())
    assert [c.target for c in facts.channels] == [
        Passed("svc/api", "NewServer", 1),
        Passed("svc/api", "NewServer", 2),
    ]
    flat = TWO_ADDRESSES.replace("meta:    peer{", "meta:    &peer{")
    assert [c.target for c in analyse_go("svc/api/server.go", flat.encode()).channels] == [
        Passed("svc/api", "NewServer", 1),
        Passed("svc/api", "NewServer", 2),
    ], "`&peer{...}` is held the same way"


def test_a_call_given_no_variable_s_name_is_not_asked_whether_it_reads_one() -> None:
    """`zap.String("mode", mode)`: a lowercase key names no environment variable, so the
    call is no env helper's read to resolve once every file is read."""
    logs = (
        'package main\n\nimport (\n\t"go.uber.org/zap"\n\t"google.golang.org/grpc"\n)\n\n'
        'func main() {\n\tmode := "serve"\n\tlogger.Info("starting", zap.String("mode", mode))\n'
        "\tgrpc.NewServer()\n}\n"
    )
    facts = analyse_go("svc/cmd/main.go", logs.encode())
    assert not facts.deferred
    assert "PackageEnv" not in repr(facts.exports)
