"""A Go server no other pod reaches (grpc-go's in-memory bufconn listener, a loopback
address) and a Go server age set to grpc-go's `infinity` (`math.MaxInt64`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import lint_files

GO_EXPORTER = """\
package main

import (
	"context"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
)

type Exporter struct {
	server *grpc.Server
	cc     *grpc.ClientConn
}

func NewExporter() *Exporter {
	return &Exporter{server: grpc.NewServer()}
}

func (e *Exporter) Start() {
	LISTENER
	go func() {
		_ = e.server.Serve(lis)
	}()
	cc, err := grpc.NewClient("passthrough://ignore",
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			return net.Dial("tcp", "127.0.0.1:1")
		}), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	e.cc = cc
}

func (e *Exporter) Close() {
	e.server.Stop()
}

func main() {
	e := NewExporter()
	e.Start()
	select {}
}
"""
BUFCONN = "lis := bufconn.Listen(1024 * 1024)"
ALL_ADDRESSES = 'lis, _ := net.Listen("tcp", ":4317")'
LOOPBACK = 'lis, _ := net.Listen("tcp", "127.0.0.1:0")'


def _exporter(listener: str) -> dict[str, str | bytes]:
    code = GO_EXPORTER.replace("LISTENER", listener)
    if listener != BUFCONN:
        code = code.replace('\t"google.golang.org/grpc/test/bufconn"\n', "")
    return {"go.mod": "module example.com/otel\n\ngo 1.22\n", "cmd/otel/main.go": code}


@pytest.mark.parametrize(
    ("listener", "severity"), [(BUFCONN, "info"), (LOOPBACK, "info"), (ALL_ADDRESSES, "warning")]
)
def test_klb201_on_a_server_in_its_process_memory_is_info(
    tmp_path: Path, listener: str, severity: str
) -> None:
    (finding,) = lint_files(tmp_path, _exporter(listener), ["KLB201"]).findings
    assert finding.severity.label == severity
    if listener == BUFCONN:
        assert "it listens on its process's memory only" in finding.text
        assert "dials it in memory" in finding.text
        assert "proxy" not in finding.text  # no proxy is in front of it


def test_klb403_and_klb404_on_a_server_in_its_process_memory_are_info(tmp_path: Path) -> None:
    findings = lint_files(tmp_path, _exporter(BUFCONN), ["KLB403", "KLB404"]).findings
    assert sorted(f.rule for f in findings) == ["KLB403", "KLB404"]
    for finding in findings:
        assert finding.severity.label == "info"
        assert "it listens in its process's memory alone" in finding.text


def test_klb403_and_klb404_on_a_server_on_every_address_stay_warnings(tmp_path: Path) -> None:
    findings = lint_files(tmp_path, _exporter(ALL_ADDRESSES), ["KLB403", "KLB404"]).findings
    assert sorted(f.rule for f in findings) == ["KLB403", "KLB404"]
    assert {f.severity.label for f in findings} == {"warning"}


def test_a_loopback_server_is_info_for_klb201_but_not_for_klb403(tmp_path: Path) -> None:
    """A sidecar proxy of the pod may send Service traffic to a loopback server: the proxy
    ends its clients' connections (no age here moves them), but the server's stop cuts
    the calls the proxy has in flight."""
    files = _exporter(LOOPBACK)
    found = {f.rule: f for f in lint_files(tmp_path, files, ["KLB201", "KLB403"]).findings}
    assert found["KLB201"].severity.label == "info"
    assert "it listens on 127.0.0.1:0 only" in found["KLB201"].text
    assert found["KLB403"].severity.label == "warning"


GO_TUNNEL = """\
package main

import (
	"math"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

var kasp = keepalive.ServerParameters{
	MaxConnectionAge:      AGE,
	MaxConnectionAgeGrace: 5 * time.Second,
}

var _ = math.Pi

func main() {
	opts := []grpc.ServerOption{grpc.KeepaliveParams(kasp)}
	s := grpc.NewServer(opts...)
	lis, _ := net.Listen("tcp", ":9000")
	_ = s.Serve(lis)
}
"""


@pytest.mark.parametrize(
    ("age", "found"),
    [
        ("time.Duration(math.MaxInt64)", 1),
        ("math.MaxInt64", 1),
        ("30 * time.Minute", 0),
    ],
)
def test_an_age_of_grpc_gos_infinity_counts_as_none(tmp_path: Path, age: str, found: int) -> None:
    """grpc-go's keepalive reads `time.Duration(math.MaxInt64)` as `infinity`, its default."""
    code = GO_TUNNEL.replace("AGE", age)
    findings = lint_files(tmp_path, {"cmd/tunnel/main.go": code}, ["KLB201"]).findings
    assert len(findings) == found
