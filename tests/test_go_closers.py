"""A Go function that returns, beside the client it makes on a channel, a closer of the
channel (`release := func() { conn.Close() }`), and callers that run that closer before
they return (`defer release()`): a channel per call (go/parse_closers.py). The factory may
be a function literal kept in a struct field and called through it, and a method may
return its call whole to callers that run the closer."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

# A use case that opens a ledger client for each operation: the factory is a function
# literal put in the struct's field, so a test can swap it; the callers reach it through
# the field, directly or through a method that returns its call whole.
POSTER = """\
package ledger

import (
	"context"
	"fmt"

	pb "example.com/bank/gen/ledger"
	"example.com/bank/pkg/rpcdial"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type LedgerFactory func(addr string) (pb.LedgerClient, func(), error)

type Poster struct {
	addr    string
	factory LedgerFactory
}

func NewPoster(addr string) *Poster {
	open := func(addr string) (pb.LedgerClient, func(), error) {
		conn, err := DIAL
		if err != nil {
			return nil, nil, fmt.Errorf("dial ledger: %w", err)
		}
		release := func() {
			if err := conn.Close(); err != nil {
				fmt.Println(err)
			}
		}
		return pb.NewLedgerClient(conn), release, nil
	}
	return &Poster{addr: addr, factory: open}
}

func (p *Poster) client() (pb.LedgerClient, func(), error) {
	return p.factory(p.addr)
}

func (p *Poster) Post(ctx context.Context, entry *pb.Entry) error {
	c, release, err := p.client()
	if err != nil {
		return err
	}
	defer release()
	_, err = c.Post(ctx, entry)
	return err
}

func (p *Poster) Balance(ctx context.Context) error {
	c, done, err := p.factory(p.addr)
	if err != nil {
		return err
	}
	_, err = c.Balance(ctx, nil)
	done()
	return err
}
"""

OWN = "grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))"
SHARED = "rpcdial.New(addr)"


def _own_channel(code: str) -> bool:
    [channel] = analyse_go("internal/ledger/poster.go", code.encode()).channels
    return channel.long_lived


def _closes_shared(code: str) -> list[bool]:
    exports = analyse_go("internal/ledger/poster.go", code.encode()).exports
    return exports["closes example.com/bank/pkg/rpcdial New"]


def test_a_closer_every_caller_runs_makes_the_channel_per_call() -> None:
    assert _own_channel(POSTER.replace("DIAL", OWN)) is False
    assert _closes_shared(POSTER.replace("DIAL", SHARED)) == [True]
    # the local named as the field it is put in (`factory: factory`)
    same = POSTER.replace("open := func", "factory := func").replace(
        "factory: open", "factory: factory"
    )
    assert _own_channel(same.replace("DIAL", OWN)) is False


@pytest.mark.parametrize(
    "change",
    [
        ("\tdone()\n", "\tp.keep = done\n"),  # a caller keeps the closer for later
        ("\tdefer release()\n", "\t_ = release\n"),  # a caller never runs it
        ("c, done, err := p.factory(p.addr)", "c, _, err := p.factory(p.addr)"),  # drops it
        ("factory: open}", "factory: open}\n\tshare(open)"),  # the factory handed on
        ("func (p *Poster) Post(", "func (p *Poster) Run("),  # run once: kept for the process
        (
            "\t\treturn pb.NewLedgerClient(conn), release, nil",
            "\t\treturn pb.NewLedgerClient(conn), nil, nil",
        ),
    ],
)
def test_a_closer_one_caller_does_not_run_keeps_the_channel(change: tuple[str, str]) -> None:
    old, new = change
    assert old in POSTER
    code = POSTER.replace(old, new)
    assert _own_channel(code.replace("DIAL", OWN)) is True
    assert _closes_shared(code.replace("DIAL", SHARED)) == [False]


def test_a_declared_factory_whose_callers_defer_its_closer_is_per_call() -> None:
    code = """\
package ledger

import (
	"context"

	"google.golang.org/grpc"
)

func openLedger(addr string) (*grpc.ClientConn, func() error, error) {
	conn, err := grpc.NewClient(addr)
	if err != nil {
		return nil, nil, err
	}
	return conn, conn.Close, nil
}

func dialLedger(addr string) (*grpc.ClientConn, func(), error) {
	conn, err := grpc.NewClient(addr)
	return conn, func() { conn.Close() }, err
}

func Handle(ctx context.Context) {
	conn, closeConn, err := dialLedger("ledger:7000")
	if err != nil {
		return
	}
	defer func() {
		closeConn()
	}()
	_ = conn
}
"""
    facts = analyse_go("internal/ledger/open.go", code.encode())
    # `conn.Close` handed back as a value is no closer k8slb reads; dialLedger's is
    assert [(c.loc.line, c.long_lived) for c in facts.channels] == [(10, True), (18, False)]


# The channel made by a helper of another package: each program's call sites judge it
DIALER = """\
package rpcdial

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func New(addr string) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return conn, nil
}
"""


def test_a_shared_helper_whose_one_caller_runs_the_returned_closer_is_not_pinned(
    tmp_path: Path,
) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    code = POSTER.replace("DIAL", SHARED.replace("addr", '"backend:50051"'))
    files = {
        "go.mod": "module example.com/bank\n\ngo 1.24\n",
        "k8s.yaml": GRPC_SERVICE + BACKEND,
        "pkg/rpcdial/dial.go": DIALER,
        "internal/ledger/poster.go": code,
    }
    result = lint_files(tmp_path / "per-call", files, ["KLB102"])
    assert [f.path for f in result.findings] == []
    files["internal/ledger/poster.go"] = code.replace("\tdone()\n", "\tp.keep = done\n")
    result = lint_files(tmp_path / "kept", files, ["KLB102"])
    assert [f.path.rsplit("/", 1)[1] for f in result.findings] == ["dial.go"]


# -- each program's calls judge a shared helper's channel (code/imported_programs.py) -----

STOCK = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: stock, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: stock}}
  template:
    metadata: {labels: {app: stock}}
    spec:
      containers:
        - name: server
          image: registry.example/stock:1.0
          ports: [{name: grpc, containerPort: 7070}]
---
apiVersion: v1
kind: Service
metadata: {name: stock, namespace: shop}
spec:
  selector: {app: stock}
  ports: [{name: grpc, port: 7070}]
"""

# a web front that dials the stock service per request through the shared helper
FRONT = """\
package main

import (
	"net/http"

	"example.com/bank/pkg/rpcdial"
)

func reserve(w http.ResponseWriter, r *http.Request) {
	conn, err := rpcdial.New("stock:7070")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer conn.Close()
	w.WriteHeader(http.StatusNoContent)
}

func main() {
	http.HandleFunc("/reserve", reserve)
	_ = http.ListenAndServe(":8080", nil)
}
"""

# an operator's command line tool that keeps one channel for its whole run
TOOL = """\
package main

import (
	"fmt"
	"os"

	"example.com/bank/pkg/rpcdial"
)

func main() {
	conn, err := rpcdial.New(TARGET)
	if err != nil {
		os.Exit(1)
	}
	fmt.Println(conn.Target())
}
"""


def _stock_service(tmp_path: Path, tool_target: str) -> Severity:
    files = {
        "go.mod": "module example.com/bank\n\ngo 1.24\n",
        "k8s/stock.yaml": STOCK,
        "pkg/rpcdial/dial.go": DIALER,
        "cmd/front/main.go": FRONT,
        "cmd/stockctl/main.go": TOOL.replace("TARGET", tool_target),
    }
    [finding] = lint_files(tmp_path, files, ["KLB101"]).findings
    return finding.severity


def test_a_shared_helper_is_per_call_in_the_program_whose_calls_close_it(tmp_path: Path) -> None:
    """The tool keeps its channel, to an address from its environment that no container
    sets: the front, the one client of the Service, closes each it opens."""
    assert _stock_service(tmp_path / "tool-elsewhere", 'os.Getenv("STOCK_ADDR")') is Severity.INFO
    # the tool keeps a channel to the Service itself: a client that stays on one pod
    assert _stock_service(tmp_path / "tool-too", '"stock:7070"') is Severity.WARNING
