"""A server's listen address built from a literal host and a port k8slb cannot read
(`fmt.Sprintf("localhost:%v", port)`, `f"127.0.0.1:{port}"`, `'unix://' + path`) still
says where it listens: KLB201 gives a loopback or Unix-socket server info, in each language
whose listen address k8slb reads, as it does when the whole address is a literal. A host
k8slb cannot read, or one that is every address of the pod, keeps the warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import listen_head

from tests.helpers import lint_files


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("localhost:", "localhost:"),
        ("127.0.0.1:50", "127.0.0.1:"),  # a port cut short: the host is whole
        ("[::1]:", "[::1]:"),
        ("0.0.0.0:", "0.0.0.0:"),
        ("unix://", "unix:"),
        ("unix:", "unix:"),
        ("unix-abstract:", "unix:"),
        ("", None),
        (":", None),  # no host: every address of the pod
        ("local", None),  # the host cut short
        ("[::", None),
        ("::1:", None),
        ("localhost:x", None),
        ("http://localhost:", None),
    ],
)
def test_the_literal_head_of_an_address_says_its_host_when_whole(
    text: str, said: str | None
) -> None:
    assert listen_head(text) == said


GO_SERVICE = """\
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"google.golang.org/grpc"
)

func main() {
	port, _ := strconv.Atoi(os.Args[1])
	lis, err := net.Listen("tcp", ADDRESS)
	if err != nil {
		panic(err)
	}
	srv := grpc.NewServer()
	if err := srv.Serve(lis); err != nil {
		panic(err)
	}
}
"""


@pytest.mark.parametrize(
    ("address", "severity", "said"),
    [
        ('fmt.Sprintf("localhost:%v", port)', "info", "localhost"),
        ('fmt.Sprintf("127.0.0.1:%d", port)', "info", "127.0.0.1"),
        ('net.JoinHostPort("::1", strconv.Itoa(port))', "info", "[::1]"),
        ('"localhost:" + strconv.Itoa(port+1)', "info", "localhost"),
        ('fmt.Sprintf("%s:%d", os.Args[2], port)', "warning", None),
        ('fmt.Sprintf(":%d", port)', "warning", None),
        ('fmt.Sprintf("0.0.0.0:%d", port)', "warning", None),
    ],
)
def test_a_go_server_on_a_formatted_loopback_address_is_its_pods_own(
    tmp_path: Path, address: str, severity: str, said: str | None
) -> None:
    code = GO_SERVICE.replace("ADDRESS", address)
    (finding,) = lint_files(tmp_path, {"cmd/ratings/main.go": code}, ["KLB201"]).findings
    assert finding.severity.label == severity
    if said is not None:
        assert f"it listens on {said} only" in finding.text


def test_a_go_address_built_in_a_variable_is_followed(tmp_path: Path) -> None:
    code = GO_SERVICE.replace(
        '\tlis, err := net.Listen("tcp", ADDRESS)',
        '\taddr := fmt.Sprintf("localhost:%v", port)\n\tlis, err := net.Listen("tcp", addr)',
    )
    (finding,) = lint_files(tmp_path, {"cmd/ratings/main.go": code}, ["KLB201"]).findings
    assert finding.severity.label == "info"


PYTHON_SERVICE = """\
import os
from concurrent import futures

import grpc

PORT = int(os.environ["PORT"])


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_insecure_port(ADDRESS)
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    serve()
"""


@pytest.mark.parametrize(
    ("address", "severity"),
    [
        ('f"localhost:{PORT}"', "info"),
        ('"127.0.0.1:%d" % PORT', "info"),
        ('"[::1]:{}".format(PORT)', "info"),
        ('"localhost:" + str(PORT)', "info"),
        ("f\"unix://{os.environ['SOCKET_DIR']}/agent.sock\"", "info"),
        ('f"[::]:{PORT}"', "warning"),
        ("f\"{os.environ['HOST']}:{PORT}\"", "warning"),
    ],
)
def test_a_python_server_on_a_formatted_loopback_address_is_its_pods_own(
    tmp_path: Path, address: str, severity: str
) -> None:
    code = PYTHON_SERVICE.replace("ADDRESS", address)
    (finding,) = lint_files(tmp_path, {"ratings/server.py": code}, ["KLB201"]).findings
    assert finding.severity.label == severity


NODE_SERVICE = """\
import * as grpc from '@grpc/grpc-js';
import * as os from 'os';
import * as path from 'path';

export class AgentServer {
  private readonly scheme: string = 'unix';
  private readonly socketPath: string;
  private server: grpc.Server;

  constructor(dir: string = os.tmpdir()) {
    this.socketPath = path.join(dir, `agent_${process.pid}.sock`);
    this.server = new grpc.Server();
  }

  public start(port: number): void {
    const address = ADDRESS;
    this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), () => {});
  }
}
"""


@pytest.mark.parametrize(
    ("address", "severity", "said"),
    [
        ("this.scheme + '://' + this.socketPath", "info", "a Unix socket"),
        ("'unix:' + this.socketPath", "info", "a Unix socket"),
        ("`localhost:${port}`", "info", "localhost"),
        ("'127.0.0.1:' + port", "info", "127.0.0.1"),
        ("`0.0.0.0:${port}`", "warning", None),
        ("`${process.env.HOST}:${port}`", "warning", None),
    ],
)
def test_a_node_server_on_a_built_loopback_address_is_its_pods_own(
    tmp_path: Path, address: str, severity: str, said: str | None
) -> None:
    code = NODE_SERVICE.replace("ADDRESS", address)
    files: dict[str, str | bytes] = {
        "agent/package.json": '{"name": "agent", "dependencies": {"@grpc/grpc-js": "^1.10.0"}}',
        "agent/src/server.ts": code,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity.label == severity
    if said is not None:
        assert f"it listens on {said} only" in finding.text


def test_a_class_field_the_class_assigns_again_is_not_taken_for_its_initial_value(
    tmp_path: Path,
) -> None:
    code = NODE_SERVICE.replace("ADDRESS", "this.scheme + '://' + this.socketPath").replace(
        "    this.server = new grpc.Server();\n",
        "    this.server = new grpc.Server();\n    this.scheme = process.env.SCHEME ?? 'dns';\n",
    )
    files: dict[str, str | bytes] = {"agent/src/server.ts": code}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity.label == "warning"


JAVA_SERVICE = """\
package com.example.ratings;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

public final class RatingsServer {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(HOST, port))
        .addService(new RatingsService())
        .build()
        .start();
    server.awaitTermination();
  }
}
"""


@pytest.mark.parametrize(("host", "severity"), [('"localhost"', "info"), ('"0.0.0.0"', "warning")])
def test_a_java_server_on_a_loopback_host_and_unread_port_is_its_pods_own(
    tmp_path: Path, host: str, severity: str
) -> None:
    code = JAVA_SERVICE.replace("HOST", host)
    path = "ratings/src/main/java/com/example/ratings/RatingsServer.java"
    (finding,) = lint_files(tmp_path, {path: code}, ["KLB201"]).findings
    assert finding.severity.label == severity
