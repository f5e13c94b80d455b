"""SIGTERM handlers registered after a blocking `Serve` (go/parse_late_handlers.py): which
`Serve` each handler follows, as the search over the tree handler by handler found it
before the handlers were answered together (the file's servers known, each block's
`Serve` calls read once)."""

from __future__ import annotations

from k8slb.languages.go.parse import analyse_go

SOURCE = b"""package main

import (
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
)

var late *grpc.Server

func main() {
	s := grpc.NewServer()
	t := grpc.NewServer()
	s.Serve(t.Serve(nil))
	if err := s.Serve(nil); err != nil {
		signal.Notify(make(chan os.Signal), syscall.SIGTERM)
	}
	{
		t.Serve(nil)
		{
			x.Serve(nil)
		}
	}
	for {
		late.Serve(nil)
		go s.Serve(nil)
		defer t.Serve(nil)
		func() { s.Serve(nil) }()
		signal.Notify(make(chan os.Signal), syscall.SIGTERM)
	}
	signals.SetupSignalHandler()
	go func() {
		s.Serve(nil)
		signal.Notify(make(chan os.Signal), syscall.SIGTERM)
	}()
	late.Serve(nil)
	signal.Notify(make(chan os.Signal), syscall.SIGTERM)
}

func other() {
	u := grpc.NewServer()
	signal.Notify(make(chan os.Signal), syscall.SIGTERM)
	u.Serve(nil)
	late.Serve(nil)
	signal.Notify(make(chan os.Signal))
}

func setup() {
	late = grpc.NewServer()
	late.Serve(nil)
	signals.SetupSignalHandler()
}
"""


def test_each_blocking_serve_is_followed_by_the_first_handler_that_finds_it() -> None:
    """A handler's search goes back over the statements of its block, nearest first, then
    its enclosing blocks', up to its function: the first `Serve` met (depth first, a call
    before the calls in its arguments) on a server made before the handler is the one.
    Not one in a goroutine, a deferred call or a function literal, nor one in an `if`'s
    initializer (no statement before the handler's), nor one of a server made below
    (`late`, made in setup() after main and other() are read); a `Serve` two handlers
    find keeps the first."""
    facts = analyse_go("svc/main.go", SOURCE)
    found = {
        (wait.loc.line, wait.loc.column): (wait.late_handler.line, wait.late_handler.column)
        for wait in facts.waits
        if wait.late_handler is not None
    }
    assert found == {
        (17, 2): (19, 3),  # s.Serve(t.Serve(nil)): the outer call, not t's in it
        (22, 3): (32, 3),  # t's, in a block before the loop: the loop's handler, not main's
        (36, 3): (37, 3),  # in a function literal: its own handler
        (46, 2): (48, 2),  # u's: `late` was no server yet when other() was read
        (53, 2): (54, 2),
    }
