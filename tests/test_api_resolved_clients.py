"""gRPC clients that resolve a Service's pods through the Kubernetes API (a resolver that
watches its endpoints: `kubernetes:///svc:port`, or `k8s:///` as it is often registered)
balance their calls over the pods themselves, new pods included: KLB102 does not report
them, and KLB101 and KLB201 count them as clients that stay on no pod."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.model.dialers import api_target

from .helpers import lint_files

GO_MOD = "module example.com/quotes\n\ngo 1.22\n"
SERVER = """\
package main

import (
	"log"
	"net"

	"google.golang.org/grpc"
)

func main() {
	lis, err := net.Listen("tcp", ":50051")
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	log.Fatal(s.Serve(lis))
}
"""
CLIENT = """\
package main

import (
	"flag"
	"log"

	"github.com/sercand/kuberesolver/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var target = flag.String("target", "{target}", "the quotes service")

func main() {
	flag.Parse()
	kuberesolver.RegisterInCluster()
	conn, err := grpc.NewClient(*target,
		grpc.WithDefaultServiceConfig(`{"loadBalancingPolicy": "round_robin"}`),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	serve(conn)
}
"""
BUILD = """\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/quotes-server
      context: .
      docker:
        dockerfile: server/Dockerfile
    - image: registry.example/quotes-client
      context: .
      docker:
        dockerfile: client/Dockerfile
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/app ./{folder}
FROM gcr.io/distroless/base
COPY --from=build /out/app /app
ENTRYPOINT ["/app"]
"""
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: quotes
spec:
  replicas: 3
  selector:
    matchLabels: {app: quotes}
  template:
    metadata:
      labels: {app: quotes}
    spec:
      containers:
        - name: quotes
          image: registry.example/quotes-server:1.0
          ports:
            - {name: grpc, containerPort: 50051}
---
apiVersion: v1
kind: Service
metadata:
  name: quotes
spec:
  selector:
    app: quotes
  ports:
    - name: grpc
      port: 50051
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: front
spec:
  selector:
    matchLabels: {app: front}
  template:
    metadata:
      labels: {app: front}
    spec:
      containers:
        - name: front
          image: registry.example/quotes-client:1.0
"""


def _files(target: str) -> dict[str, str]:
    return {
        "go.mod": GO_MOD,
        "server/main.go": SERVER,
        "client/main.go": CLIENT.replace("{target}", target),
        "server/Dockerfile": DOCKERFILE.replace("{folder}", "server"),
        "client/Dockerfile": DOCKERFILE.replace("{folder}", "client"),
        "skaffold.yaml": BUILD,
        "k8s/quotes.yaml": MANIFESTS,
    }


def _by_rule(tmp_path: Path, files: dict[str, str]) -> dict[str, Finding]:
    findings = lint_files(tmp_path, files, ["KLB101", "KLB102", "KLB201"]).findings
    return {finding.rule: finding for finding in findings}


@pytest.mark.parametrize(
    "target",
    ["kubernetes:///quotes:50051", "k8s:///quotes:grpc", "kubernetes:///quotes.default:50051"],
)
def test_a_client_that_resolves_the_pods_through_the_api_stays_on_no_pod(
    tmp_path: Path, target: str
) -> None:
    found = _by_rule(tmp_path, _files(target))
    assert "KLB102" not in found
    assert found["KLB101"].severity is Severity.INFO
    assert "resolve its pods through the Kubernetes API" in found["KLB101"].message
    assert found["KLB201"].severity is Severity.INFO
    assert "resolve its pods through the Kubernetes API" in found["KLB201"].text


def test_a_client_of_the_clusterip_itself_keeps_the_warnings(tmp_path: Path) -> None:
    found = _by_rule(tmp_path, _files("dns:///quotes:50051"))
    assert found["KLB102"].severity is Severity.WARNING
    assert found["KLB101"].severity is Severity.WARNING
    assert found["KLB201"].severity is Severity.WARNING


def test_another_client_of_the_clusterip_beside_keeps_the_warnings(tmp_path: Path) -> None:
    files = _files("kubernetes:///quotes:50051")
    files["k8s/quotes.yaml"] += "          args: ['--quotes=quotes:50051']\n"
    found = _by_rule(tmp_path, files)
    assert found["KLB101"].severity is Severity.WARNING
    assert found["KLB201"].severity is Severity.WARNING


@pytest.mark.parametrize(
    ("target", "named"),
    [
        ("kubernetes:///quotes:50051", ("quotes", None)),
        ("k8s:///quotes.shop:grpc", ("quotes", "shop")),
        ("kubernetes://shop/quotes:50051", ("quotes", "shop")),
        ("dns:///quotes:50051", None),
        ("kubernetes:///", None),
    ],
)
def test_the_service_an_api_resolvers_target_names(
    target: str, named: tuple[str, str | None] | None
) -> None:
    assert api_target(target) == named
