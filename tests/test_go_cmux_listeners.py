"""A gRPC server that serves a connection multiplexer's listener (`m.Match(cmux.HTTP2())` of
`m := cmux.New(lis)`) listens where the multiplexer's own listener does: KLB101 ties it to
the Service port that targets that number, whatever the port is named."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

GO_MOD = "module example.com/ranker\n\ngo 1.22\n"
# one port for both protocols: gRPC picked by its HTTP/2 preface, the rest to a health page
SERVER = """\
package main

import (
	"log"
	"net"
	"net/http"

	"{mux}"
	"google.golang.org/grpc"
)

func main() {
	lis, err := net.Listen("tcp", ":7070")
	if err != nil {
		log.Fatal(err)
	}
	m := cmux.New(lis)
	rpcLis := {match}
	webLis := m.Match(cmux.HTTP1Fast())
	rpc := grpc.NewServer()
	go func() { _ = rpc.Serve(rpcLis) }()
	go func() { _ = http.Serve(webLis, http.NotFoundHandler()) }()
	log.Fatal(m.Serve())
}
"""
HTTP2 = "m.Match(cmux.HTTP2())"
HEADER = 'm.Match(cmux.HTTP2HeaderField("content-type", "application/grpc"))'
WRITERS = (
    'm.MatchWithWriters(cmux.HTTP2MatchHeaderFieldSendSettings("content-type", "application/grpc"))'
)
BUILD = """\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/ranker
      context: .
      docker:
        dockerfile: ranker/Dockerfile
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/ranker ./ranker
FROM gcr.io/distroless/base
COPY --from=build /out/ranker /ranker
ENTRYPOINT ["/ranker"]
"""
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ranker
spec:
  replicas: 3
  selector:
    matchLabels: {app: ranker}
  template:
    metadata:
      labels: {app: ranker}
    spec:
      containers:
        - name: ranker
          image: registry.example/ranker:1.0
---
apiVersion: v1
kind: Service
metadata:
  name: ranker
spec:
  selector:
    app: ranker
  ports:
    - name: http
      port: 80
      targetPort: 7070
"""


def _code(match: str, mux: str = "github.com/soheilhy/cmux") -> str:
    return SERVER.replace("{mux}", mux).replace("{match}", match)


def _files(code: str) -> dict[str, str]:
    return {
        "go.mod": GO_MOD,
        "ranker/main.go": code,
        "ranker/Dockerfile": DOCKERFILE,
        "skaffold.yaml": BUILD,
        "k8s/ranker.yaml": MANIFESTS,
    }


@pytest.mark.parametrize("match", [HTTP2, HEADER, WRITERS])
def test_grpc_served_through_a_multiplexer_listens_on_its_port(match: str) -> None:
    facts = analyse_go("ranker/main.go", _code(match).encode())
    assert [(x.server, x.address, x.loc.line) for x in facts.listens] == [("rpc", ":7070", 13)]


def test_the_fork_of_the_multiplexer_is_read_alike() -> None:
    code = _code(HTTP2, mux="github.com/cockroachdb/cmux")
    assert [x.address for x in analyse_go("ranker/main.go", code.encode()).listens] == [":7070"]


def test_a_match_of_another_packages_new_is_no_multiplexer() -> None:
    code = _code(HTTP2).replace("m := cmux.New(lis)", "m := other.New(lis)")
    assert analyse_go("ranker/main.go", code.encode()).listens == []


def test_klb101_ties_the_multiplexed_grpc_server_to_the_http_named_port(tmp_path: Path) -> None:
    findings = lint_files(tmp_path, _files(_code(HTTP2)), ["KLB101"]).findings
    assert [(f.rule, f.severity.name) for f in findings] == [("KLB101", "WARNING")]
