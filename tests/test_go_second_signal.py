"""KLB403 in Go: the signal handler of k8s.io/apiserver and controller-runtime (and the
many programs that copy it) closes a stop channel on the first SIGTERM and calls
os.Exit only once a second signal arrives on the same channel. The kubelet sends SIGTERM
once, then SIGKILL: that exit is not what SIGTERM does, and the first signal counts as
what it does (it closes the channel)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

# A ledger service: its own copy of SetupSignalHandler, and a gRPC server on TCP that
# nothing stops.
HANDLER = """\
package main

import (
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
)

func setupSignalHandler() <-chan struct{} {
	stop := make(chan struct{})
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-ch
		close(stop)
		<-ch
		log.Println("second signal, exiting")
		os.Exit(1)
	}()
	return stop
}

func main() {
	stop := setupSignalHandler()
	go func() {
		<-stop
		log.Println("stopping")
	}()
	lis, err := net.Listen("tcp", ":7070")
	if err != nil {
		log.Fatal(err)
	}
	srv := grpc.NewServer()
	if err := srv.Serve(lis); err != nil {
		log.Fatal(err)
	}
}
"""


def _klb403(tmp_path: Path, source: str) -> list[str]:
    found = lint_files(tmp_path, {"main.go": source}, ["KLB403"]).findings
    return [f.message for f in found]


def test_an_exit_on_the_second_signal_is_not_one_on_sigterm(tmp_path: Path) -> None:
    facts = analyse_go("main.go", HANDLER.encode())
    assert [loc.line for loc in facts.sigterm_handlers] == [16]
    assert facts.signal_exits == []
    # the first signal only closes `stop`: the server is one nothing stops
    [message] = _klb403(tmp_path, HANDLER)
    assert message.startswith("gRPC server 'srv' waits in Serve() and nothing stops it")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("\t\tsig := <-ch\n\t\tlog.Println(sig)\n", "\t\t<-ch\n"),
        ("\t\t<-ch\n", '\t\tif s := os.Getenv("FORCE"); s != "" {\n\t\t\t<-ch\n\t\t}\n'),
    ],
    ids=["bound first receive", "second receive under an if"],
)
def test_the_first_receive_may_be_bound_and_the_second_nested(first: str, second: str) -> None:
    source = HANDLER.replace(
        "\t\t<-ch\n\t\tclose(stop)\n\t\t<-ch\n", f"{first}\t\tclose(stop)\n{second}"
    )
    assert analyse_go("main.go", source.encode()).signal_exits == []


def test_an_exit_on_the_first_signal_is_still_reported(tmp_path: Path) -> None:
    once = HANDLER.replace("\t\tclose(stop)\n\t\t<-ch\n", "\t\tclose(stop)\n")
    [exit] = analyse_go("main.go", once.encode()).signal_exits
    assert (exit.loc.line, exit.handler.line) == (21, 18)
    messages = _klb403(tmp_path, once)
    assert any(m.startswith("SIGTERM (line 18) ends the process here") for m in messages)


def test_a_receive_in_another_goroutine_is_not_a_second_one() -> None:
    """The goroutine that exits may take the first signal itself: it is judged alone."""
    apart = HANDLER.replace(
        "\t\t<-ch\n\t\tclose(stop)\n\t\t<-ch\n",
        "\t\t<-ch\n\t\tclose(stop)\n\t}()\n\tgo func() {\n\t\t<-ch\n",
    )
    [exit] = analyse_go("main.go", apart.encode()).signal_exits
    assert exit.handler.line == 22


def test_a_done_context_received_again_is_not_a_second_signal() -> None:
    """`<-ctx.Done()` returns at once once the context is done: the exit after it is on
    the first signal."""
    source = HANDLER.replace(
        "\tch := make(chan os.Signal, 2)\n\tsignal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)\n",
        "\tctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n",
    ).replace(
        "\t\t<-ch\n\t\tclose(stop)\n\t\t<-ch\n",
        "\t\t<-ctx.Done()\n\t\tclose(stop)\n\t\tcancel()\n\t\t<-ctx.Done()\n",
    )
    source = source.replace('import (\n\t"log"', 'import (\n\t"context"\n\t"log"')
    exits = analyse_go("main.go", source.encode()).signal_exits
    assert [exit.loc.line for exit in exits] == [23]
