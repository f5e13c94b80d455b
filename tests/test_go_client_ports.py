"""KLB111 (Go): a gRPC client whose target the Go reader resolves exactly (a literal, a
constant, `fmt.Sprintf` or a concatenation of those) dials a port the Service does not
expose: an error where a container runs the code. A target built by a function the reader
does not follow, or read from an environment variable no workload sets, is left alone."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/storefront\n\ngo 1.22\n"

CLIENT = """\
package main

import (
	"fmt"
	"log"
	"net/http"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const stockPort = 9090

func main() {
	conn, err := grpc.NewClient(TARGET, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	_ = fmt.Sprint(strconv.Itoa(stockPort))
	log.Fatal(http.ListenAndServe(":8080", nil))
}

func stockAddress(service string, port int) string {
	return fmt.Sprintf("dns:///%s:%d", service, port)
}
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/storefront .

FROM gcr.io/distroless/static
COPY --from=build /out/storefront /storefront
ENTRYPOINT ["/storefront"]
"""

MANIFESTS = """\
apiVersion: v1
kind: Service
metadata:
  name: stock
spec:
  selector:
    app: stock
  ports:
    - name: grpc
      port: 50051
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: storefront
spec:
  selector:
    matchLabels:
      app: storefront
  template:
    metadata:
      labels:
        app: storefront
    spec:
      containers:
        - name: storefront
          image: registry.example.com/shop/storefront:2.1.0
"""


def _lint(tmp_path: Path, target: str) -> list[tuple[str, int, str]]:
    found = lint_files(
        tmp_path,
        {
            "storefront/go.mod": GO_MOD,
            "storefront/main.go": CLIENT.replace("TARGET", target),
            "storefront/Dockerfile": DOCKERFILE,
            "deploy/k8s.yaml": MANIFESTS,
        },
        ["KLB111"],
    )
    return [(f.rule, f.line, f.severity.name.lower()) for f in found.findings]


def test_a_sprintf_of_a_constant_port_the_service_does_not_expose(tmp_path: Path) -> None:
    assert _lint(tmp_path, 'fmt.Sprintf("dns:///stock:%d", stockPort)') == [("KLB111", 16, "error")]


def test_a_concatenation_of_a_literal_host_and_a_constant_port(tmp_path: Path) -> None:
    assert _lint(tmp_path, '"stock:" + strconv.Itoa(stockPort)') == [("KLB111", 16, "error")]


def test_the_port_the_service_exposes_is_fine(tmp_path: Path) -> None:
    assert _lint(tmp_path, '"dns:///stock:50051"') == []


def test_a_target_a_helper_function_builds_is_not_judged(tmp_path: Path) -> None:
    assert _lint(tmp_path, 'stockAddress("stock", stockPort)') == []


def test_a_target_from_an_environment_variable_no_workload_sets(tmp_path: Path) -> None:
    target = 'os.Getenv("STOCK_ADDR")'
    assert _lint(tmp_path, target) == []
