"""KLB111 (Go): a gRPC client whose target the Go reader resolves exactly (a literal, a
constant, `fmt.Sprintf` or a concatenation of those) dials a port the Service does not
expose: an error where a container runs the code; also one a function of the file builds
from the call's arguments (what its returns all give). A target of a function whose returns
differ, or read from an environment variable no workload sets, is left alone."""

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

func regionAddress(service string, port int) string {
	if strconv.Itoa(port) == "" {
		return "dns:///" + service + "-eu:50051"
	}
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


def test_a_target_a_helper_function_builds_is_judged_as_it_returns(tmp_path: Path) -> None:
    assert _lint(tmp_path, 'stockAddress("stock", stockPort)') == [("KLB111", 16, "error")]


def test_a_target_of_a_helper_whose_returns_differ_is_not_judged(tmp_path: Path) -> None:
    assert _lint(tmp_path, 'regionAddress("stock", stockPort)') == []


def test_a_target_from_an_environment_variable_no_workload_sets(tmp_path: Path) -> None:
    target = 'os.Getenv("STOCK_ADDR")'
    assert _lint(tmp_path, target) == []


HTTP_CLIENT = """\
package main

import (
	"log"
	"net/http"
	"os"
)

const ledgerURL = "LEDGER"

func main() {
	req, err := http.NewRequest("GET", REQUEST_URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	_, _ = http.DefaultClient.Do(req)
	_ = os.Getenv("HOME")
	log.Fatal(http.ListenAndServe(":8080", nil))
}
"""


def _lint_http(tmp_path: Path, url: str, ledger: str = "http://ledger:7000") -> list[int]:
    ledger_service = (
        MANIFESTS.replace("name: stock", "name: ledger", 1)
        .replace("app: stock", "app: ledger", 1)
        .replace("name: grpc\n      port: 50051", "name: http\n      port: 80")
    )
    found = lint_files(
        tmp_path,
        {
            "storefront/go.mod": GO_MOD,
            "storefront/main.go": HTTP_CLIENT.replace("REQUEST_URL", url).replace("LEDGER", ledger),
            "storefront/Dockerfile": DOCKERFILE,
            "deploy/k8s.yaml": ledger_service,
        },
        ["KLB111"],
    )
    return sorted(f.line for f in found.findings)


def test_a_constant_url_a_request_carries_is_reported_where_it_is_written(tmp_path: Path) -> None:
    """`const ledgerURL = "http://ledger:7000"` (9), then `http.NewRequest("GET",
    ledgerURL+"/entries", nil)` (12): one wrong port, one finding, at the constant."""
    assert _lint_http(tmp_path, 'ledgerURL + "/entries"') == [9]


def test_what_a_request_adds_before_its_path_is_judged_at_the_request(tmp_path: Path) -> None:
    """`ledgerURL + ":7000/entries"` writes the port at the request: the request is the
    line to change (the constant's own port, 80, is exposed)."""
    assert _lint_http(tmp_path, 'ledgerURL + ":7000/entries"', ledger="http://ledger") == [12]
