"""A port named like gRPC (Istio's `grpc-*`) is evidence of gRPC for KLB101, unless the code
linked to every container behind it serves plain HTTP on that port and no gRPC there: an
HTTP gateway in front of a gRPC backend is named for what it fronts, not what it speaks."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

GO_MOD = "module example.com/shop\n\ngo 1.22\n"
# a REST front that dials the gRPC backend and serves HTTP/1.1 JSON on :8080
GATEWAY = """\
package main

import (
	"log"
	"net/http"

	"google.golang.org/grpc"
)

func main() {
	conn, err := grpc.Dial("orders:9090", grpc.WithInsecure())
	if err != nil {
		log.Fatal(err)
	}
	mux := newMux(conn)
{serve}
}
"""
LISTEN_AND_SERVE = '\tlog.Fatal(http.ListenAndServe(":8080", mux))'
SERVER_STRUCT = (
    '\tserver := &http.Server{Addr: ":8080", Handler: mux}\n\tlog.Fatal(server.ListenAndServe())'
)
# the same port also given to a gRPC server, whose listener k8slb reads, or cannot
GRPC_THERE = """\
	lis, _ := net.Listen("tcp", {address})
	go grpc.NewServer().Serve(lis)
"""
BUILD = """\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/shop-gateway
      context: .
      docker:
        dockerfile: gateway/Dockerfile
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/gateway ./gateway
FROM gcr.io/distroless/base
COPY --from=build /out/gateway /gateway
ENTRYPOINT ["/gateway"]
"""
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
spec:
  replicas: 3
  selector:
    matchLabels: {app: gateway}
  template:
    metadata:
      labels: {app: gateway}
    spec:
      containers:
        - name: gateway
          image: registry.example/shop-gateway:1.0
          ports:
            - name: grpc-gateway
              containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: gateway
spec:
  selector:
    app: gateway
  ports:
    - name: http
      port: 80
      targetPort: grpc-gateway
"""


def _files(serve: str, imports: str = "") -> dict[str, str]:
    code = GATEWAY.replace("{serve}", serve)
    if imports:
        code = code.replace('\t"net/http"\n', f'\t"net/http"\n{imports}', 1)
    return {
        "go.mod": GO_MOD,
        "gateway/main.go": code,
        "gateway/Dockerfile": DOCKERFILE,
        "skaffold.yaml": BUILD,
        "k8s/gateway.yaml": MANIFESTS,
    }


def _klb101(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return [f.message for f in lint_files(tmp_path, files, ["KLB101"]).findings]


@pytest.mark.parametrize("serve", [LISTEN_AND_SERVE, SERVER_STRUCT])
def test_plain_http_behind_a_grpc_named_port_is_not_grpc(tmp_path: Path, serve: str) -> None:
    assert _klb101(tmp_path, _files(serve)) == []
    facts = analyse_go("gateway/main.go", _files(serve)["gateway/main.go"].encode())
    assert [listen.address for listen in facts.http_listens] == [":8080"]


@pytest.mark.parametrize(
    "grpc",
    [
        GRPC_THERE.replace("{address}", '":8080"'),  # a gRPC server on that very port
        GRPC_THERE.replace("{address}", "addr()"),  # one on a port k8slb cannot read
    ],
)
def test_a_grpc_server_that_may_listen_there_keeps_the_name_as_evidence(
    tmp_path: Path, grpc: str
) -> None:
    files = _files(grpc + LISTEN_AND_SERVE, imports='\t"net"\n')
    (message,) = _klb101(tmp_path, files)
    assert "container port 'grpc-gateway'" in message


def test_http2_in_the_clear_keeps_the_name_as_evidence(tmp_path: Path) -> None:
    # h2c serves HTTP/2 without TLS on the port, which gRPC rides (a handler may route it)
    files = _files(LISTEN_AND_SERVE, imports='\t"golang.org/x/net/http2/h2c"\n')
    (message,) = _klb101(tmp_path, files)
    assert "container port 'grpc-gateway'" in message


def test_without_the_code_linked_the_name_is_evidence(tmp_path: Path) -> None:
    files = _files(LISTEN_AND_SERVE)
    del files["skaffold.yaml"], files["gateway/Dockerfile"]
    (message,) = _klb101(tmp_path, files)
    assert "container port 'grpc-gateway'" in message


# the port number alone: gRPC's conventional 50051, unnamed, served by a listener handed to
# net/http (the port from a flag the container's args set)
SERVE_ON_LISTENER = """\
	port := flag.Int("port", 0, "the port to serve")
	flag.Parse()
	lis, err := net.Listen("tcp", ":"+strconv.Itoa(*port))
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.Serve(lis, mux))"""
CONVENTIONAL = (
    MANIFESTS.replace(
        "- name: grpc-gateway\n              containerPort: 8080", "- containerPort: 50051"
    )
    .replace("targetPort: grpc-gateway", "targetPort: 50051")
    .replace(
        "image: registry.example/shop-gateway:1.0\n",
        "image: registry.example/shop-gateway:1.0\n          args: [--port=50051]\n",
    )
)


def test_plain_http_on_grpc_s_conventional_port_is_not_taken_for_grpc(tmp_path: Path) -> None:
    """50051 is only a hint; the code behind it serving plain HTTP there says otherwise."""
    files = {
        **_files(SERVE_ON_LISTENER, imports='\t"flag"\n\t"net"\n\t"strconv"\n'),
        "k8s/gateway.yaml": CONVENTIONAL,
    }
    assert _klb101(tmp_path, files) == []
    facts = analyse_go("gateway/main.go", files["gateway/main.go"].encode())
    (listen,) = facts.http_listens
    assert getattr(listen.address, "name", None) == "port"


def test_grpc_s_conventional_port_stays_a_hint_where_the_code_is_not_linked(
    tmp_path: Path,
) -> None:
    files = {
        **_files(SERVE_ON_LISTENER, imports='\t"flag"\n\t"net"\n\t"strconv"\n'),
        "k8s/gateway.yaml": CONVENTIONAL,
    }
    del files["skaffold.yaml"], files["gateway/Dockerfile"]
    (message,) = _klb101(tmp_path, files)
    assert "gRPC's conventional port" in message


# a worker whose code serves no gRPC at all (nor HTTP on the port): a Service port named
# `grpc` in front of it is a name the code contradicts, not the protocol shown
WORKER = """\
package main

import (
	"log"
	"time"
)

func main() {
	for {
		log.Println("reconciling")
		time.Sleep(time.Minute)
	}
}
"""
NAMED_GRPC = MANIFESTS.replace(
    "- name: grpc-gateway\n              containerPort: 8080", "- containerPort: 9090"
).replace(
    "- name: http\n      port: 80\n      targetPort: grpc-gateway", "- name: grpc\n      port: 9090"
)


def _worker(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str]]:
    found = lint_files(tmp_path, files, ["KLB101"]).findings
    return [(f.severity.name, f"{f.message} {' '.join(f.detail)}") for f in found]


def test_a_grpc_name_the_linked_code_contradicts_is_info(tmp_path: Path) -> None:
    files = {**_files(""), "gateway/main.go": WORKER, "k8s/gateway.yaml": NAMED_GRPC}
    ((severity, message),) = _worker(tmp_path, files)
    assert severity == "INFO"
    assert "may carry gRPC (port name 'grpc')" in message
    assert "gateway) makes no gRPC server k8slb knows: the name may be stale" in message


def test_a_grpc_name_stays_a_warning_where_the_code_makes_a_server(tmp_path: Path) -> None:
    server = WORKER.replace('\t"time"\n', '\t"net"\n\t"time"\n\n\t"google.golang.org/grpc"\n')
    server = server.replace(
        "\tfor {",
        '\tlis, _ := net.Listen("tcp", addr())\n\tgo grpc.NewServer().Serve(lis)\n\tfor {',
    )
    files = {**_files(""), "gateway/main.go": server, "k8s/gateway.yaml": NAMED_GRPC}
    assert [s for s, _ in _worker(tmp_path, files)] == ["WARNING"]


def test_a_grpc_name_stays_a_warning_where_the_code_is_not_linked(tmp_path: Path) -> None:
    files = {**_files(""), "gateway/main.go": WORKER, "k8s/gateway.yaml": NAMED_GRPC}
    del files["skaffold.yaml"], files["gateway/Dockerfile"]
    assert [s for s, _ in _worker(tmp_path, files)] == ["WARNING"]
