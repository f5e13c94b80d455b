"""A Go server's keepalive parameters (or its option slice) changed where the reader did
not look: a value given under `if !ok`/`if len(opts) == 0` (read as a default), a field
or an element set in place (`kasp.MaxConnectionAge = age`, `opts[0] = ...`), the
variable's address handed to other code (`tune(&kasp)`), a `range` that rebinds it. Any
of them leaves the options unknown, and KLB201 silent: no finding rests on one binding
that a branch may replace. Values the reader sees whole in every branch stay known."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

SERVER = """\
package main

import (
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

func tune(p *keepalive.ServerParameters) {}

func serve(age time.Duration, extra []grpc.ServerOption, build func() []grpc.ServerOption) error {
	params := keepalive.ServerParameters{Time: 2 * time.Minute}
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(1 << 20)}
{changes}
	opts = append(opts, grpc.KeepaliveParams(params))
	lis, err := net.Listen("tcp", ":7300")
	if err != nil {
		return err
	}
	server := grpc.NewServer(opts...)
	return server.Serve(lis)
}

func main() {
	_ = serve(time.Minute, nil, nil)
}
"""

UNKNOWN = {
    "a value given when a lookup fails": """\
	mode, ok := os.LookupEnv("KEEPALIVE_MODE")
	if !ok {
		params = loadParams(mode)
	}""",
    "an option slice given when empty": """\
	opts = nil
	if len(opts) == 0 {
		opts = build()
	}""",
    "a field set in a branch": """\
	if os.Getenv("ROTATE") != "" {
		params.MaxConnectionAge = age
	}""",
    "a field set in a case": """\
	switch os.Getenv("MODE") {
	case "rotate":
		params.MaxConnectionAge = age
	}""",
    "the address handed on": """\
	tune(&params)""",
    "an element replaced in a loop": """\
	for i := range extra {
		opts[0] = extra[i]
	}""",
    "rebound by a range": """\
	for _, params = range []keepalive.ServerParameters{{MaxConnectionAge: age}} {
	}""",
    "set in a function literal": """\
	apply := func() { params.MaxConnectionAge = age }
	apply()""",
}


def _code(changes: str) -> str:
    return SERVER.replace("{changes}", changes)


@pytest.mark.parametrize("changes", UNKNOWN.values(), ids=list(UNKNOWN))
def test_a_change_the_reader_cannot_weigh_leaves_the_options_unknown(
    changes: str, tmp_path: Path
) -> None:
    code = _code(changes)
    (server,) = analyse_go("main.go", code.encode()).servers
    assert not server.options.complete
    found = lint_files(tmp_path, {"go.mod": "module example.com/m\n", "main.go": code}, ["KLB201"])
    assert found.findings == []


def test_literals_in_every_case_are_read_whole(tmp_path: Path) -> None:
    code = _code("""\
	switch os.Getenv("MODE") {
	case "idle":
		params = keepalive.ServerParameters{Time: time.Minute, Timeout: 20 * time.Second}
	default:
		params = keepalive.ServerParameters{Timeout: 10 * time.Second}
	}""")
    (server,) = analyse_go("main.go", code.encode()).servers
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms") is None
    found = lint_files(tmp_path, {"go.mod": "module example.com/m\n", "main.go": code}, ["KLB201"])
    assert [f.rule for f in found.findings] == ["KLB201"]


def test_an_age_given_when_a_lookup_fails_counts_as_set() -> None:
    code = _code("""\
	raw, ok := os.LookupEnv("KEEPALIVE_MODE")
	if !ok {
		params = keepalive.ServerParameters{Time: time.Minute, MaxConnectionAge: 5 * time.Minute}
	}
	_ = raw""")
    (server,) = analyse_go("main.go", code.encode()).servers
    assert server.options.get("grpc.max_connection_age_ms") is not None
