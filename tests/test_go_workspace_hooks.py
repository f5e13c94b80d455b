"""KLB403 (Go): a server stopped by a lifecycle hook, in a service of a Go workspace whose
program is below its module's folder (`cmd/`) and whose image copies a binary built on the
host. The container runs that program and the packages it imports from the workspace's
shared modules: a lifecycle library there that waits for SIGTERM and then runs the `OnStop`
hooks is the server's handler, and the `GracefulStop()` in the hook stops it. Where the
library waits for SIGINT only, the server is still reported."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_WORK = "go 1.22\n\nuse (\n\t./services/chat\n\t./kit\n)\n"
CHAT_MOD = "module example.com/acme/services/chat\n\ngo 1.22\n"
KIT_MOD = "module example.com/acme/kit\n\ngo 1.22\n"

RUNNER = """\
package runner

import (
	"context"
	"os/signal"
	"syscall"
	"time"
)

type Hook struct {
	OnStart func(context.Context) error
	OnStop  func(context.Context) error
}

type Runner struct {
	hooks []Hook
}

func New() *Runner { return &Runner{} }

func (r *Runner) Add(hook Hook) { r.hooks = append(r.hooks, hook) }

// Run starts every hook, waits for a stop signal, then stops them in reverse order.
func (r *Runner) Run() error {
	for _, hook := range r.hooks {
		if err := hook.OnStart(context.Background()); err != nil {
			return err
		}
	}
	sigCtx, cancel := signal.NotifyContext(context.Background(), SIGNALS)
	<-sigCtx.Done()
	cancel()
	stopCtx, done := context.WithTimeout(context.Background(), 20*time.Second)
	defer done()
	for i := len(r.hooks) - 1; i >= 0; i-- {
		_ = r.hooks[i].OnStop(stopCtx)
	}
	return nil
}
"""

RPC = """\
package rpc

import (
	"context"
	"net"

	"example.com/acme/kit/runner"
	"google.golang.org/grpc"
)

func Register(r *runner.Runner) {
	server := grpc.NewServer()
	r.Add(runner.Hook{
		OnStart: func(ctx context.Context) error {
			lis, err := net.Listen("tcp", ":7070")
			if err != nil {
				return err
			}
			go server.Serve(lis)
			return nil
		},
		OnStop: func(ctx context.Context) error {
			server.GracefulStop()
			return nil
		},
	})
}
"""

MAIN = """\
package main

import (
	"log"

	"example.com/acme/kit/runner"
	"example.com/acme/services/chat/internal/rpc"
)

func main() {
	r := runner.New()
	rpc.Register(r)
	if err := r.Run(); err != nil {
		log.Fatal(err)
	}
}
"""

DOCKERFILE = """\
FROM alpine:3.20
COPY services/chat/out/chat /bin/chat
CMD ["/bin/chat"]
"""

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
spec:
  replicas: 2
  selector:
    matchLabels:
      app: chat
  template:
    metadata:
      labels:
        app: chat
    spec:
      containers:
        - name: chat
          image: registry.example.com/acme/chat:1.4.0
          ports:
            - containerPort: 7070
"""


def _workspace(signals: str) -> dict[str, str | bytes]:
    return {
        "go.work": GO_WORK,
        "kit/go.mod": KIT_MOD,
        "kit/runner/runner.go": RUNNER.replace("SIGNALS", signals),
        "services/chat/go.mod": CHAT_MOD,
        "services/chat/cmd/main.go": MAIN,
        "services/chat/internal/rpc/rpc.go": RPC,
        "services/chat/Dockerfile": DOCKERFILE,
        "deploy/chat.yaml": MANIFEST,
    }


def test_a_hook_of_a_workspace_library_that_waits_for_sigterm_stops_the_server(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, _workspace("syscall.SIGINT, syscall.SIGTERM"), ["KLB403"])
    assert found.findings == []


def test_a_library_that_waits_for_sigint_only_leaves_the_server_unstopped(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, _workspace("syscall.SIGINT"), ["KLB403"])
    assert [(f.rule, f.path.rsplit("/", 1)[-1]) for f in found.findings] == [("KLB403", "rpc.go")]
    assert "no SIGTERM handler in the code container" in found.findings[0].message
