"""A gRPC server on a Unix socket is reached from its own pod only (a kubelet plugin's
socket, a sidecar's): KLB201 gives it info, in each language k8slb reads, as it does a
server on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import lint_files

GO_DRIVER = """\
package main

import (
	"net"
	"os"

	"google.golang.org/grpc"
)

const pluginSocket = "/plugins/volumes.example.com/plugin.sock"

type Plugin struct {
	srv *grpc.Server
}

func (p *Plugin) Run() error {
	_ = os.Remove(pluginSocket)
	lis, err := net.Listen(NETWORK, ADDRESS)
	if err != nil {
		return err
	}
	p.srv = grpc.NewServer()
	return p.srv.Serve(lis)
}

func main() {
	p := &Plugin{}
	if err := p.Run(); err != nil {
		os.Exit(1)
	}
}
"""


@pytest.mark.parametrize(
    ("network", "address", "severity", "said"),
    [
        ('"unix"', "pluginSocket", "info", "unix:/plugins/volumes.example.com/plugin.sock"),
        ('"unixpacket"', '"/run/agent.sock"', "info", "unix:/run/agent.sock"),
        ('"unix"', 'os.Getenv("PLUGIN_SOCKET")', "info", "a Unix socket"),
        ('"tcp"', '":9090"', "warning", None),
    ],
)
def test_a_go_server_on_a_unix_listener_is_its_pods_own(
    tmp_path: Path, network: str, address: str, severity: str, said: str | None
) -> None:
    code = GO_DRIVER.replace("NETWORK", network).replace("ADDRESS", address)
    files: dict[str, str | bytes] = {"cmd/plugin/main.go": code}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity.label == severity
    if said is not None:
        assert f"it listens on {said} only" in finding.text


def test_a_go_server_on_listen_unix_is_its_pods_own(tmp_path: Path) -> None:
    code = GO_DRIVER.replace(
        "net.Listen(NETWORK, ADDRESS)",
        'net.ListenUnix("unix", &net.UnixAddr{Name: pluginSocket, Net: "unix"})',
    )
    (finding,) = lint_files(tmp_path, {"cmd/plugin/main.go": code}, ["KLB201"]).findings
    assert finding.severity.label == "info"
    assert "it listens on a Unix socket only" in finding.text


GO_LISTEN_CONFIG = """\
package main

import (
	"context"
	"net"
	"os"

	"google.golang.org/grpc"
)

func listen(ctx context.Context, path string) (net.Listener, error) {
	CONFIG
	lis, err := LISTEN(ctx, NETWORK, path)
	if err != nil {
		return nil, err
	}
	return lis, nil
}

func main() {
	ctx := context.Background()
	srv := grpc.NewServer()
	lis, err := listen(ctx, "/run/konnect/konnect.sock")
	if err != nil {
		os.Exit(1)
	}
	_ = srv.Serve(lis)
}
"""


@pytest.mark.parametrize(
    ("config", "listen", "network", "severity"),
    [
        ("var lc net.ListenConfig", "lc.Listen", '"unix"', "info"),
        ("lc := net.ListenConfig{KeepAlive: -1}", "lc.Listen", '"unix"', "info"),
        ("lc := &net.ListenConfig{}", "lc.Listen", '"unix"', "info"),
        ("", "(&net.ListenConfig{}).Listen", '"unix"', "info"),
        ("", "net.ListenConfig{}.Listen", '"unix"', "info"),
        ("var lc net.ListenConfig", "lc.Listen", '"tcp"', "warning"),
        # a type of its own with a Listen method is not net's: nothing said of it
        ("var lc listenConfig", "lc.Listen", '"unix"', "warning"),
    ],
)
def test_a_go_server_on_a_listen_configs_unix_listener_is_its_pods_own(
    tmp_path: Path, config: str, listen: str, network: str, severity: str
) -> None:
    code = (
        GO_LISTEN_CONFIG.replace("CONFIG", config)
        .replace("LISTEN", listen)
        .replace("NETWORK", network)
    )
    if "listenConfig" in config:
        code += "\ntype listenConfig struct{ net.ListenConfig }\n"
    (finding,) = lint_files(tmp_path, {"cmd/proxy/main.go": code}, ["KLB201"]).findings
    assert finding.severity.label == severity
    if severity == "info":
        assert "it listens on a Unix socket only" in finding.text


JAVA_SERVER = """\
package com.example.agent;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;

public final class AgentServer {
  public static void main(String[] args) throws Exception {
    EpollEventLoopGroup group = new EpollEventLoopGroup();
    Server server = NettyServerBuilder.forAddress(ADDRESS)
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(group)
        .workerEventLoopGroup(group)
        .addService(new AgentService())
        .build()
        .start();
    server.awaitTermination();
  }
}
"""


@pytest.mark.parametrize(
    ("address", "severity"),
    [
        ('new DomainSocketAddress("/var/run/agent/agent.sock")', "info"),
        ('new DomainSocketAddress(System.getenv("AGENT_SOCKET"))', "info"),
        ('new InetSocketAddress("0.0.0.0", 9090)', "warning"),
    ],
)
def test_a_java_server_on_a_domain_socket_is_its_pods_own(
    tmp_path: Path, address: str, severity: str
) -> None:
    code = JAVA_SERVER.replace("ADDRESS", address)
    path = "agent/src/main/java/com/example/agent/AgentServer.java"
    (finding,) = lint_files(tmp_path, {path: code}, ["KLB201"]).findings
    assert finding.severity.label == severity


KOTLIN_SERVER = """\
package com.example.agent

import io.grpc.netty.NettyServerBuilder
import io.netty.channel.unix.DomainSocketAddress

fun main() {
    val server = NettyServerBuilder.forAddress(DomainSocketAddress("/var/run/agent.sock"))
        .addService(AgentService())
        .build()
        .start()
    server.awaitTermination()
}
"""


def test_a_kotlin_server_on_a_domain_socket_is_its_pods_own(tmp_path: Path) -> None:
    path = "agent/src/main/kotlin/com/example/agent/Main.kt"
    (finding,) = lint_files(tmp_path, {path: KOTLIN_SERVER}, ["KLB201"]).findings
    assert finding.severity.label == "info"
    assert "it listens on unix:/var/run/agent.sock only" in finding.text


PYTHON_SERVER = """\
from concurrent import futures

import grpc


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_insecure_port(ADDRESS)
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    serve()
"""


@pytest.mark.parametrize(
    "address", ['"unix:///var/run/agent.sock"', '"unix-abstract:agent"', '"unix:agent.sock"']
)
def test_a_python_server_on_a_unix_address_is_its_pods_own(tmp_path: Path, address: str) -> None:
    code = PYTHON_SERVER.replace("ADDRESS", address)
    (finding,) = lint_files(tmp_path, {"agent/server.py": code}, ["KLB201"]).findings
    assert finding.severity.label == "info"


GO_PLUGIN = """\
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
)

func main() {
	socket := filepath.Join(os.TempDir(), fmt.Sprintf("plugin-%d.sock", os.Getpid()))
	lis, err := net.Listen("unix", socket)
	if err != nil {
		os.Exit(1)
	}
	fmt.Printf("1|1|unix|%s|grpc\\n", socket)
	srv := grpc.NewServer()
	_ = srv.Serve(lis)
}
"""


def _plugin_deployed() -> dict[str, str | bytes]:
    """The plugin above built by its Dockerfile and run by a Deployment's container as its
    own process (a kubelet plugin, say, whose socket the node shares)."""
    return {
        "go.mod": "module example.com/volumes\n\ngo 1.22\n",
        "plugin/main.go": GO_PLUGIN,
        "plugin/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/plugin ./plugin\nENTRYPOINT ["/usr/bin/plugin"]\n',
        "plugin/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: plugin}\n"
            "spec:\n  replicas: 1\n  selector: {matchLabels: {app: plugin}}\n  template:\n"
            "    metadata: {labels: {app: plugin}}\n    spec:\n      containers:\n"
            "        - name: plugin\n          image: example/volumes/plugin:latest\n"
        ),
    }


def test_a_server_on_a_unix_socket_no_container_runs_is_info_for_klb403(
    tmp_path: Path,
) -> None:
    """No container is known to run it: a server on a Unix socket alone may be a child
    its host process started (a plugin), which Kubernetes' SIGTERM never reaches."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/volumes\n\ngo 1.22\n",
        "plugin/main.go": GO_PLUGIN,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB403"]).findings
    assert finding.severity.label == "info"
    assert "it listens on a Unix socket alone" in finding.text


def test_a_server_on_a_unix_socket_a_container_runs_is_info_for_klb403(
    tmp_path: Path,
) -> None:
    """Run as its container's process, it gets SIGTERM and dies with calls in flight, but
    those are its socket's callers on the node: no Service traffic is cut."""
    (finding,) = lint_files(tmp_path, _plugin_deployed(), ["KLB403"]).findings
    assert finding.severity.label == "info"
    assert "which no Service reaches" in finding.text


def test_a_server_on_tcp_no_container_runs_keeps_klb403s_warning(tmp_path: Path) -> None:
    code = GO_PLUGIN.replace('net.Listen("unix", socket)', 'net.Listen("tcp", ":9090")')
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/volumes\n\ngo 1.22\n",
        "plugin/main.go": code,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB403"]).findings
    assert finding.severity.label == "warning"


GO_FIELD_LISTENER = """\
package main

import (
	"net"

	"google.golang.org/grpc"
)

type hookServer struct {
	listener net.Listener
	server   *grpc.Server
}

func (s *hookServer) setup() error {
	l, err := net.Listen(NETWORK, "/run/hooks/hook.sock")
	if err != nil {
		return err
	}
	s.listener = l
	s.server = grpc.NewServer()
	return nil
}

func (s *hookServer) Start() {
	go s.server.Serve(s.listener)
}

func (s *hookServer) Stop() {
	s.server.Stop()
}

func main() {
	s := &hookServer{}
	_ = s.setup()
	s.Start()
	select {}
}
"""


@pytest.mark.parametrize(("network", "severity"), [('"unix"', "info"), ('"tcp"', "warning")])
def test_a_go_listener_a_field_holds_is_read_where_it_is_written(
    tmp_path: Path, network: str, severity: str
) -> None:
    """`s.listener = l` in the method that listens, `Serve(s.listener)` in another."""
    code = GO_FIELD_LISTENER.replace("NETWORK", network)
    (finding,) = lint_files(tmp_path, {"cmd/hook/main.go": code}, ["KLB201"]).findings
    assert finding.severity.label == severity


@pytest.mark.parametrize(("network", "severity"), [('"unix"', "info"), ('"tcp"', "warning")])
def test_klb404_on_a_server_on_a_unix_socket_is_info(
    tmp_path: Path, network: str, severity: str
) -> None:
    """Its Stop() cuts its socket's callers on the node, no Service traffic."""
    code = GO_FIELD_LISTENER.replace("NETWORK", network)
    (finding,) = lint_files(tmp_path, {"cmd/hook/main.go": code}, ["KLB404"]).findings
    assert finding.severity.label == severity
    assert ("which no Service reaches" in finding.text) == (severity == "info")


GO_CNI_SERVER = """\
package cniserver

import (
	"example.com/agent/pkg/util"
	"google.golang.org/grpc"
)

func Run(path string, stop <-chan struct{}) {
	listener, err := util.ListenLocalSocket(path)
	if err != nil {
		return
	}
	rpcServer := grpc.NewServer()
	go rpcServer.Serve(listener)
	<-stop
}
"""

GO_LISTEN_LINUX = """\
package util

import (
	"net"
	"os"
)

// ListenLocalSocket listens on a Unix socket.
func ListenLocalSocket(address string) (net.Listener, error) {
	_ = os.Remove(address)
	listener, err := listenUnix(address)
	if err != nil {
		return nil, err
	}
	return listener, nil
}
"""

GO_LISTEN_WINDOWS = """\
//go:build windows

package util

import (
	"net"
	"strings"

	"github.com/Microsoft/go-winio"
)

func ListenLocalSocket(address string) (net.Listener, error) {
	if strings.HasPrefix(address, `\\.\\pipe\\`) {
		return winio.ListenPipe(address, nil)
	}
	return listenUnix(address)
}
"""

GO_LISTEN_UNIX = """\
package util

import "net"

func listenUnix(address string) (net.Listener, error) {
	return net.Listen(NETWORK, address)
}
"""


@pytest.mark.parametrize(("network", "severity"), [('"unix"', "info"), ('"tcp"', "warning")])
def test_a_go_listener_another_packages_function_returns_is_followed(
    tmp_path: Path, network: str, severity: str
) -> None:
    """`util.ListenLocalSocket(path)` of another package, which returns a same-package
    helper's `net.Listen("unix", address)` (its Windows build a named pipe's or that)."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/agent\n\ngo 1.22\n",
        "pkg/cniserver/server.go": GO_CNI_SERVER,
        "pkg/util/net_linux.go": GO_LISTEN_LINUX,
        "pkg/util/net_windows.go": GO_LISTEN_WINDOWS,
        "pkg/util/net.go": GO_LISTEN_UNIX.replace("NETWORK", network),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity.label == severity
    assert ("on a Unix socket only" in finding.text) == (severity == "info")


def test_a_go_listener_of_a_function_with_a_tcp_return_is_not_a_unix_socket(
    tmp_path: Path,
) -> None:
    """One return of the function listens on TCP: its listener may be reached by a Service."""
    windows = GO_LISTEN_WINDOWS.replace(
        "winio.ListenPipe(address, nil)", 'net.Listen("tcp", address)'
    )
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/agent\n\ngo 1.22\n",
        "pkg/cniserver/server.go": GO_CNI_SERVER,
        "pkg/util/net_linux.go": GO_LISTEN_LINUX,
        "pkg/util/net_windows.go": windows,
        "pkg/util/net.go": GO_LISTEN_UNIX.replace("NETWORK", '"unix"'),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity.label == "warning"


GO_EXITS = """\
package main

import (
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
)

func main() {
	lis, err := net.Listen("unix", "/run/agent/agent.sock")
	if err != nil {
		os.Exit(1)
	}
	srv := grpc.NewServer()
	go srv.Serve(lis)
	EXTRA
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	<-ch
	os.Exit(0)
}
"""

TCP_TOO = """\
	pub, err := net.Listen("tcp", ":9090")
	if err != nil {
		os.Exit(1)
	}
	api := grpc.NewServer()
	go api.Serve(pub)
"""


@pytest.mark.parametrize(
    ("extra", "severity", "named"), [("", "info", "srv"), (TCP_TOO, "warning", "api")]
)
def test_klb403_exit_before_a_unix_socket_server_drains_is_info(
    tmp_path: Path, extra: str, severity: str, named: str
) -> None:
    """An exit on SIGTERM with every server on a Unix socket cuts no Service traffic; a
    server on TCP beside it is the one named, at warning."""
    files: dict[str, str | bytes] = {"cmd/agent/main.go": GO_EXITS.replace("EXTRA", extra)}
    (finding,) = [
        f for f in lint_files(tmp_path, files, ["KLB403"]).findings if "os.Exit" in f.text
    ]
    assert finding.severity.label == severity
    assert f"gRPC server {named!r}" in finding.text


GO_TWO_FRONTENDS = """\
package main

import (
	"net"

	"google.golang.org/grpc"
)

func runLocal(path string) error {
	grpcServer := grpc.NewServer()
	lis, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	return grpcServer.Serve(lis)
}

func runRemote(addr string) error {
	grpcServer := grpc.NewServer()
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return grpcServer.Serve(lis)
}

func main() {
	go runLocal("/run/proxy.sock")
	_ = runRemote(":8090")
}
"""


def test_same_named_go_servers_each_listen_where_their_own_serve_does(tmp_path: Path) -> None:
    """Two functions' `grpcServer` locals are two servers: the Unix socket's listen is the
    first's alone, so it is info and the other, on TCP, is still a warning."""
    found = lint_files(tmp_path, {"cmd/proxy/main.go": GO_TWO_FRONTENDS}, ["KLB201"]).findings
    assert [(f.line, f.severity.label) for f in found] == [(10, "info"), (19, "warning")]
    assert "it listens on unix:/run/proxy.sock only" in found[0].text
