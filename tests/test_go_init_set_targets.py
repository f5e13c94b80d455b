"""Go targets held in package variables that `init` sets: a service declares `var stockHost
string` and `var stockPort int`, and its `init` reads each from the environment with a
default (`if stockHost = os.Getenv(...); stockHost == ""`, and for the port `strconv.Atoi`
whose failure, `err != nil`, gives the fallback). `init` runs before `main`, so a variable
only `init` assigns holds what it assigns wherever the program reads it; one written
anywhere else, or whose address is taken, stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef, EnvText
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

BASKET = """\
package main

import (
	"fmt"
	"log"
	"net"
	"os"
	"strconv"

	"google.golang.org/grpc"
)

var (
	stockHost string
	stockPort int
)

const (
	fallbackStockHost = "stock.warehouse.svc.cluster.local"
	fallbackStockPort = 9090
)

func init() {
	var err error
	if stockHost = os.Getenv("STOCK_HOST"); stockHost == "" {
		stockHost = fallbackStockHost
	}
	if stockPort, err = strconv.Atoi(os.Getenv("STOCK_PORT")); err != nil {
		stockPort = fallbackStockPort
		log.Printf("STOCK_PORT: %v", err)
	}
}

type basket struct {
	stock *grpc.ClientConn
}

func main() {
	lis, err := net.Listen("tcp", ":8080")
	if err != nil {
		log.Fatal(err)
	}
	stockAddr := fmt.Sprintf("%s:%d", stockHost, stockPort)
	conn, err := grpc.Dial(stockAddr, grpc.WithInsecure())
	if err != nil {
		log.Fatal(err)
	}
	b := &basket{stock: conn}
	_ = b
	s := grpc.NewServer()
	log.Fatal(s.Serve(lis))
}
"""

DEFAULTS = EnvText(
    (
        EnvRef("STOCK_HOST", "stock.warehouse.svc.cluster.local"),
        ":",
        EnvRef("STOCK_PORT", "9090"),
    )
)


def target(source: str) -> object:
    [channel] = analyse_go("basket/main.go", source.encode()).channels
    return channel.target


def test_package_variables_init_sets_from_the_environment_over_defaults() -> None:
    assert target(BASKET) == DEFAULTS


@pytest.mark.parametrize(
    ("line", "before"),
    [
        ('\tstockHost = "stock:9090"\n', "\tstockAddr := fmt"),  # main assigns it too
        ('\tfmt.Sscan("x", &stockHost)\n', "\tstockAddr := fmt"),  # its address handed out
        # a closure of init assigns it, whenever the goroutine runs
        ('\tgo func() { stockHost = os.Getenv("LATER") }()\n', "\tif stockPort, err"),
    ],
    ids=["assigned-in-main", "address-taken", "closure-of-init"],
)
def test_a_variable_written_outside_inits_own_body_stays_unknown(line: str, before: str) -> None:
    assert target(BASKET.replace(before, line + before, 1)) == UNKNOWN


def test_a_variable_no_init_assigns_stays_unknown() -> None:
    source = BASKET.replace("func init() {", "func setup() {")
    assert target(source) == UNKNOWN


MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: basket, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: basket}}
  template:
    metadata: {labels: {app: basket}}
    spec:
      containers:
      - name: basket
        image: registry.example.com/basket:1.0
        ports: [{containerPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: stock, namespace: warehouse}
spec:
  replicas: 3
  selector: {matchLabels: {app: stock}}
  template:
    metadata: {labels: {app: stock}}
    spec:
      containers:
      - name: stock
        image: registry.example.com/stock:1.0
        ports: [{containerPort: 9090}]
---
apiVersion: v1
kind: Service
metadata: {name: stock, namespace: warehouse}
spec:
  selector: {app: stock}
  ports: [{port: 9090}]
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /basket ./basket
FROM gcr.io/distroless/static
COPY --from=build /basket /basket
ENTRYPOINT ["/basket"]
"""


def test_end_to_end_the_channel_to_the_default_service_is_klb102(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "basket/main.go": BASKET,
        "basket/Dockerfile": DOCKERFILE,
        "deploy/shop.yaml": MANIFESTS,
    }
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert (finding.path.endswith("basket/main.go"), finding.line) == (True, 44)
    assert "Service/warehouse/stock" in finding.message
    assert "stock.warehouse.svc.cluster.local:9090" in finding.text
