"""KLB405 and grpc-go's health server kept in a struct field: `Shutdown()` called through
the field, in a method of the struct, sets every service NOT_SERVING as it does when
called on the variable the server was made in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import lint_files

IMPORTS = (
    '\t"os"\n\t"os/signal"\n\t"syscall"\n\n\t"google.golang.org/grpc"\n'
    '\t"google.golang.org/grpc/health"\n\thealthpb "google.golang.org/grpc/health/grpc_health_v1"\n'
)
GATEWAY = """package gateway

import (
{imports})

type Gateway struct {{
	rpc    *grpc.Server
	probes *health.Server
}}

func NewGateway() *Gateway {{
	rpc := grpc.NewServer()
	checks := health.NewServer()
	healthpb.RegisterHealthServer(rpc, checks)
	{keep}
}}

func (g *Gateway) AwaitSignal() {{
	quit := make(chan os.Signal, 1)
	signal.Notify(quit, syscall.SIGTERM)
	<-quit
	{drain}
	g.rpc.GracefulStop()
}}
"""


def klb405(tmp_path: Path, keep: str, drain: str) -> list[str]:
    source = GATEWAY.format(imports=IMPORTS, keep=keep, drain=drain)
    files = {"go.mod": "module example.com/shop\n", "gateway/gateway.go": source}
    return [f.message for f in lint_files(tmp_path, files, ["KLB405"]).findings]


@pytest.mark.parametrize(
    "keep",
    [
        "return &Gateway{rpc: rpc, probes: checks}",  # a literal keeps it
        "g := &Gateway{rpc: rpc}\n\tg.probes = checks\n\treturn g",  # a write keeps it
    ],
)
def test_shutdown_through_the_field_that_holds_the_health_server_drains_it(
    tmp_path: Path, keep: str
) -> None:
    assert klb405(tmp_path, keep, "g.probes.Shutdown()") == []


def test_a_health_server_nothing_shuts_down_is_still_reported(tmp_path: Path) -> None:
    keep = "return &Gateway{rpc: rpc, probes: checks}"
    assert klb405(tmp_path, keep, "") == ["the gRPC health service is never set to NOT_SERVING"]


def test_shutdown_of_a_field_that_holds_something_else_drains_nothing(tmp_path: Path) -> None:
    # `Shutdown` of a field no health server is stored in drains no health service
    keep = "return &Gateway{rpc: rpc, probes: checks}"
    found = klb405(tmp_path, keep, "g.other.Shutdown()")
    assert found == ["the gRPC health service is never set to NOT_SERVING"]
