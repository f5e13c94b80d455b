"""A Go server's keepalive parameters held in a variable assigned more than once
(`kasp = keepalive.ServerParameters{...}` after `kasp := ...`): every value is a literal the
reader sees, so the options are known, and when none sets MaxConnectionAge the server has
none (KLB201). A value that is not a literal leaves them unknown, as before."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

SERVER = """\
package main

import (
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

func serve(idle time.Duration) error {
	params := keepalive.ServerParameters{Time: 2 * time.Minute}
	idle = idle + time.Second
	params = keepalive.ServerParameters{second}
	lis, err := net.Listen("tcp", ":7300")
	if err != nil {
		return err
	}
	opts := []grpc.ServerOption{grpc.KeepaliveParams(params)}
	server := grpc.NewServer(opts...)
	return server.Serve(lis)
}

func main() {
	_ = serve(0)
}
"""


def _server(second: str):  # type: ignore[no-untyped-def]
    code = SERVER.replace("{second}", second)
    (server,) = analyse_go("main.go", code.encode()).servers
    return server, code


def test_literals_assigned_again_are_all_read(tmp_path: Path) -> None:
    server, code = _server("{Time: time.Minute, Timeout: idle}")
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms") is None
    found = lint_files(tmp_path, {"go.mod": "module example.com/m\n", "main.go": code}, ["KLB201"])
    assert [f.rule for f in found.findings] == ["KLB201"]


def test_one_literal_that_sets_the_age_counts_as_set(tmp_path: Path) -> None:
    server, code = _server("{MaxConnectionAge: idle}")
    assert server.options.get("grpc.max_connection_age_ms") is not None
    found = lint_files(tmp_path, {"go.mod": "module example.com/m\n", "main.go": code}, ["KLB201"])
    assert found.findings == []


def test_a_value_that_is_no_literal_leaves_the_options_unknown() -> None:
    code = SERVER.replace(
        "\tparams = keepalive.ServerParameters{second}\n", "\tparams = defaults()\n"
    )
    (server,) = analyse_go("main.go", code.encode()).servers
    assert not server.options.complete
