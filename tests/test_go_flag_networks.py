"""KLB201/KLB404 in Go: a gRPC server whose listener's network is a struct's field
(`net.Listen(s.opts.Network, s.opts.Address)`) that a command-line flag with the default
"unix" sets (`fs.StringVar(&c.Network, "network", "unix", ...)`, through other fields:
`Options{Network: cfg.HookNetwork}`) listens on a Unix socket: the findings are info,
and say where the network came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.field_networks import MAX_FIELDS, unix_network
from k8slb.core.findings import Severity

from tests.helpers import lint_files

# A node agent's hook server, in a package of its own
SERVER = """\
package hookserver

import (
	"net"

	"google.golang.org/grpc"
)

type Options struct {
	Network string
	Address string
}

type Server struct {
	opts Options
	rpc  *grpc.Server
}

func New(opts Options) *Server {
	return &Server{opts: opts}
}

func (s *Server) Start() error {
	lis, err := net.Listen(s.opts.Network, s.opts.Address)
	if err != nil {
		return err
	}
	s.rpc = grpc.NewServer()
	go s.rpc.Serve(lis)
	return nil
}

func (s *Server) Stop() {
	s.rpc.Stop()
}
"""

# Its configuration: a flag bound in the config's InitFlags, its default the config's
CONFIG = """\
package main

import (
	"flag"

	"example.com/agent/pkg/hookserver"
)

type Config struct {
	HookNetwork string
	HookAddress string
}

func NewDefaultConfig() *Config {
	return &Config{HookNetwork: "unix", HookAddress: "/var/run/agent/hook.sock"}
}

func (c *Config) InitFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.HookNetwork, "hook-network", c.HookNetwork, "the hook server's network")
	fs.StringVar(&c.HookAddress, "hook-address", c.HookAddress, "the hook server's address")
}

func main() {
	cfg := NewDefaultConfig()
	cfg.InitFlags(flag.CommandLine)
	flag.Parse()
	srv := hookserver.New(hookserver.Options{Network: cfg.HookNetwork, Address: cfg.HookAddress})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Stop()
	select {}
}
"""


def _found(tmp_path: Path, config: str) -> dict[str, tuple[Severity, str]]:
    files = {
        "go.mod": "module example.com/agent\n",
        "pkg/hookserver/server.go": SERVER,
        "cmd/agent/main.go": config,
    }
    found = lint_files(tmp_path, files, ["KLB201", "KLB404"]).findings
    return {f.rule: (f.severity, " ".join((f.message, *f.detail))) for f in found}


def test_a_network_field_a_unix_flag_sets_is_a_unix_socket(tmp_path: Path) -> None:
    found = _found(tmp_path, CONFIG)
    for rule in ("KLB201", "KLB404"):
        severity, message = found[rule]
        assert severity == Severity.INFO
        assert (
            "its network is the field Network, set from the field HookNetwork, which the "
            'flag -hook-network sets, by default "unix"'
        ) in message


@pytest.mark.parametrize(
    "config",
    [
        CONFIG.replace('HookNetwork: "unix"', 'HookNetwork: "tcp"'),
        # another struct of the program with a field of that name, given TCP
        CONFIG.replace(
            "func main() {",
            'type Probe struct{ Network string }\n\nvar probe = Probe{Network: "tcp"}\n\n'
            "func main() {",
        ),
        # no flag: a struct literal alone says nothing of the command line
        CONFIG.replace("\tcfg.InitFlags(flag.CommandLine)\n", "").replace(
            '\tfs.StringVar(&c.HookNetwork, "hook-network", c.HookNetwork, "the hook server\'s'
            ' network")\n',
            "",
        ),
    ],
    ids=["tcp default", "same-named field given tcp", "no flag"],
)
def test_any_other_write_leaves_the_network_unknown(tmp_path: Path, config: str) -> None:
    found = _found(tmp_path, config)
    assert all(severity == Severity.WARNING for severity, _ in found.values())
    assert "KLB201" in found


def test_the_following_is_cycle_safe_and_bounded() -> None:
    own = {"Net": [("flag", "net", "field", "Net"), ("text", "unix")]}
    assert unix_network(own, "Net") is not None
    assert unix_network({"Net": [("flag", "net", "field", "Net")]}, "Net") is None  # no text
    chain = {f"F{i}": [("field", f"F{i + 1}")] for i in range(MAX_FIELDS + 1)}
    chain[f"F{MAX_FIELDS + 1}"] = [("flag", "net", "text", "unix")]
    assert unix_network(chain, "F0") is None
    short = {"F0": [("field", "F1")], "F1": [("flag", "net", "text", "unixpacket")]}
    assert unix_network(short, "F0") is not None
