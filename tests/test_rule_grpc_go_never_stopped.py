"""KLB403 in Go: a program that catches SIGTERM (signal.NotifyContext, or a library's
handler such as controller-runtime's SetupSignalHandler) while nothing ever stops its gRPC
server. The signal only cancels a context; the server serves on until the pod is killed,
and its clients get no GOAWAY."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go, signal_library

from tests.helpers import lint_files

# An inventory service's main: SIGTERM cancels the context its cache refresher watches,
# and the gRPC server is served in main with nothing that stops it.
CAUGHT = """\
package main

import (
	"context"
	"log"
	"net"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
)

func refresh(ctx context.Context) {
	ticker := time.NewTicker(time.Minute)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			log.Println("refreshing")
		}
	}
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	go refresh(ctx)
	lis, err := net.Listen("tcp", ":9000")
	if err != nil {
		log.Fatal(err)
	}
	srv := grpc.NewServer()
	reflection.Register(srv)
	if err := srv.Serve(lis); err != nil {
		log.Fatal(err)
	}
}
"""

# The same server under a controller-runtime style handler, whose context is cancelled by
# hand once the proxy in front returns, and watched only by a reconciler.
CONTROLLER = """\
package main

import (
	"context"
	"log"
	"net"

	"google.golang.org/grpc"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
)

func reconcile(ctx context.Context) {
	<-ctx.Done()
	log.Println("reconciler stopped")
}

func serveAPI() {
	var api *grpc.Server
	api = grpc.NewServer()
	lis, err := net.Listen("tcp", ":8887")
	if err != nil {
		log.Fatal(err)
	}
	if err := api.Serve(lis); err != nil {
		log.Fatal(err)
	}
}

func main() {
	appCtx, cancel := context.WithCancel(signals.SetupSignalHandler())
	defer cancel()
	go reconcile(appCtx)
	go serveAPI()
	select {}
}
"""


def _klb403(tmp_path: Path, source: str) -> list[tuple[int, str, Severity]]:
    found = lint_files(tmp_path, {"main.go": source}, ["KLB403"]).findings
    return [(f.line, f.message, f.severity) for f in found]


def test_sigterm_caught_into_a_context_nothing_stops_the_server_with_is_reported(
    tmp_path: Path,
) -> None:
    [(line, message, severity)] = _klb403(tmp_path, CAUGHT)
    assert line == 38 and severity == Severity.WARNING
    assert message == (
        "gRPC server 'srv' waits in Serve() and nothing stops it, though SIGTERM is caught "
        "(line 29)"
    )
    [finding] = lint_files(tmp_path / "again", {"main.go": CAUGHT}, ["KLB403"]).findings
    assert "clients get no GOAWAY" in finding.detail[0]
    assert finding.fix is None or not finding.fix.available or not finding.edits


@pytest.mark.parametrize(
    "stop",
    [
        "\tgo func() {\n\t\t<-ctx.Done()\n\t\tsrv.GracefulStop()\n\t}()\n",
        "\tdefer srv.Stop()\n",
    ],
    ids=["graceful stop on the context", "deferred stop"],
)
def test_a_server_stopped_anywhere_in_its_function_is_not_reported(
    tmp_path: Path, stop: str
) -> None:
    source = CAUGHT.replace("\treflection.Register(srv)\n", f"\treflection.Register(srv)\n{stop}")
    assert _klb403(tmp_path, source) == []


@pytest.mark.parametrize(
    "handed",
    [
        "\trunner.Add(srv)\n",  # a framework that may stop it
        "\tapp.closers = append(app.closers, srv.GracefulStop)\n",  # its stop handed on
        "\tapp.server = srv\n",  # kept in a struct stopped elsewhere
        "\tkeep(&srv)\n",
    ],
    ids=["passed to a call", "method value handed on", "stored in a field", "address taken"],
)
def test_a_server_handed_to_code_k8slb_does_not_follow_is_not_reported(
    tmp_path: Path, handed: str
) -> None:
    source = CAUGHT.replace("\treflection.Register(srv)\n", f"\treflection.Register(srv)\n{handed}")
    assert analyse_go("main.go", source.encode()).servers[0].handed
    assert _klb403(tmp_path, source) == []


def test_a_server_in_a_package_variable_or_a_field_is_handed() -> None:
    package_variable = CAUGHT.replace("\tsrv := grpc.NewServer()\n", "\tsrv = grpc.NewServer()\n")
    package_variable = package_variable.replace(
        "func main() {", "var srv *grpc.Server\n\nfunc main() {"
    )
    [server] = analyse_go("main.go", package_variable.encode()).servers
    assert server.handed
    [local] = analyse_go("main.go", CAUGHT.encode()).servers
    assert not local.handed


def test_a_library_handler_is_a_sigterm_handler_whose_context_is_followed(
    tmp_path: Path,
) -> None:
    """controller-runtime's SetupSignalHandler catches SIGTERM: not "no SIGTERM handler"
    (which says the program exits at once), but a server nothing stops."""
    facts = analyse_go("main.go", CONTROLLER.encode())
    assert [loc.line for loc in facts.sigterm_handlers] == [30]
    [(line, message, _)] = _klb403(tmp_path, CONTROLLER)
    assert line == 24
    assert message.startswith("gRPC server 'api' waits in Serve() and nothing stops it")
    # its context, derived by WithCancel, is the signal's: a main that returns once it is
    # done exits with nothing waited for
    exits = CONTROLLER.replace("\tselect {}\n", '\t<-appCtx.Done()\n\tlog.Println("bye")\n')
    [exit] = analyse_go("main.go", exits.encode()).signal_exits
    assert (exit.handler.line, exit.how) == (34, "main returns")
    [(_, said, _)] = _klb403(tmp_path / "exits", exits)
    assert said.startswith("SIGTERM (line 34) ends the process here")


@pytest.mark.parametrize(
    ("name", "handler"),
    [
        ("sigs.k8s.io/controller-runtime.SetupSignalHandler", True),
        ("sigs.k8s.io/controller-runtime/pkg/manager/signals.SetupSignalHandler", True),
        ("k8s.io/sample-controller/pkg/signals.SetupSignalHandler", True),
        ("example.com/operator/pkg/signals.SetupSignalContext", True),
        ("k8s.io/apiserver/pkg/server.SetupSignalContext", True),
        ("knative.dev/pkg/signals.NewContext", True),
        ("example.com/operator/pkg/signals.NewContext", False),
        ("example.com/operator/pkg/setup.SetupSignalHandler", False),
        (None, False),
    ],
)
def test_the_libraries_that_catch_sigterm(name: str | None, handler: bool) -> None:
    assert signal_library(name) is handler


def test_an_older_handlers_stop_channel_is_received_as_the_signal(tmp_path: Path) -> None:
    """sample-controller's first SetupSignalHandler gave a channel closed on SIGTERM."""
    source = CONTROLLER.replace(
        "\tappCtx, cancel := context.WithCancel(signals.SetupSignalHandler())\n"
        "\tdefer cancel()\n\tgo reconcile(appCtx)\n",
        "\tstopCh := signals.SetupSignalHandler()\n",
    ).replace("\tselect {}\n", "\t<-stopCh\n")
    source = source.replace('\t"context"\n', "").replace(
        "func reconcile(ctx context.Context) {\n\t<-ctx.Done()\n"
        '\tlog.Println("reconciler stopped")\n}\n\n',
        "",
    )
    [exit] = analyse_go("main.go", source.encode()).signal_exits
    assert exit.how == "main returns"


def test_a_handler_in_another_program_of_the_project_is_not_this_ones(tmp_path: Path) -> None:
    """A worker beside the server catches SIGTERM; the server's program does not: that
    is "no SIGTERM handler" as before, where the project is judged whole, and never
    "SIGTERM is caught"."""
    bare = CAUGHT.replace(
        "\tctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
        "\tdefer cancel()\n\tgo refresh(ctx)\n",
        "\tgo refresh(context.Background())\n",
    ).replace('\t"os/signal"\n\t"syscall"\n', "")
    worker = (
        'package main\n\nimport (\n\t"context"\n\t"os/signal"\n\t"syscall"\n)\n\n'
        "func main() {\n\tctx, cancel := signal.NotifyContext(context.Background(), "
        "syscall.SIGTERM)\n\tdefer cancel()\n\t<-ctx.Done()\n}\n"
    )
    files = {"go.mod": "module example.com/shop\n", "api/main.go": bare, "worker/main.go": worker}
    found = lint_files(tmp_path, files, ["KLB403"]).findings
    assert all("SIGTERM is caught" not in f.message for f in found)
