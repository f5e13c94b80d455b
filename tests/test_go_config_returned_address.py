"""A Go configuration loader that fills a struct literal from the environment through a
small helper (`lookup(key, fallback)`: `os.Getenv` or its fallback) and returns the
struct's address (`cfg := Config{...}; return &cfg, nil`): each field is the variable the
helper reads. A gateway dials `cfg.LedgerHost + ":" + cfg.LedgerPort`, two such fields,
and its Deployment loads both from a ConfigMap through `envFrom`: the channel dials the
Service that ConfigMap names (KLB102)."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import EnvRef
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

GO_MOD = "module example.com/bank\n\ngo 1.22\n"

CONFIG = """\
package gateway

import "os"

// Config holds where the gateway finds the services behind it.
type Config struct {
	Listen     string
	LedgerHost string
	LedgerPort string
}

func lookup(key, fallback string) string {
	if value := os.Getenv(key); value != "" {
		return value
	}
	return fallback
}

// Load reads the gateway's settings from its environment.
func Load() (*Config, error) {
	cfg := Config{
		Listen:     lookup("LISTEN", ":8080"),
		LedgerHost: lookup("LEDGER_HOST", "localhost"),
		LedgerPort: lookup("LEDGER_PORT", "7000"),
	}
	return &cfg, nil
}

// Tuned returns the settings with the listen address changed through a pointer.
func Tuned() *Config {
	cfg := Config{LedgerHost: lookup("LEDGER_HOST", "localhost")}
	tune(&cfg)
	return &cfg
}

func tune(c *Config) { c.LedgerHost = "ledger.internal" }
"""

CLIENT = """\
package ledger

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Client talks to the ledger for the gateway's whole life.
type Client struct {
	conn *grpc.ClientConn
}

// NewClient dials the ledger once.
func NewClient(target string) (*Client, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return &Client{conn: conn}, nil
}

// Close ends the connection when the gateway stops.
func (c *Client) Close() error { return c.conn.Close() }
"""

MAIN = """\
package main

import (
	"log"
	"net/http"

	gateway "example.com/bank/gateway"
	"example.com/bank/gateway/ledger"
)

func main() {
	cfg, err := gateway.Load()
	if err != nil {
		log.Fatal(err)
	}
	client, err := ledger.NewClient(cfg.LedgerHost + ":" + cfg.LedgerPort)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	http.HandleFunc("/balance", func(w http.ResponseWriter, r *http.Request) {
		log.Printf("balance asked of %v", client)
	})
	log.Fatal(http.ListenAndServe(cfg.Listen, nil))
}
"""

MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: gateway-settings}
data:
  LEDGER_HOST: ledger
  LEDGER_PORT: "7000"
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: grpc, port: 7000}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ledger}
spec:
  replicas: 3
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec:
      containers:
        - name: ledger
          image: bank/ledger
          ports: [{containerPort: 7000}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gateway}
spec:
  selector: {matchLabels: {app: gateway}}
  template:
    metadata: {labels: {app: gateway}}
    spec:
      containers:
        - name: gateway
          image: bank/gateway
          envFrom:
            - configMapRef: {name: gateway-settings}
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /gateway ./cmd/gateway

FROM gcr.io/distroless/base
COPY --from=build /gateway /gateway
ENTRYPOINT ["/gateway"]
"""

FILES = {
    "go.mod": GO_MOD,
    "gateway/config.go": CONFIG,
    "gateway/ledger/client.go": CLIENT,
    "cmd/gateway/main.go": MAIN,
    "Dockerfile": DOCKERFILE,
    "deploy/k8s.yaml": MANIFESTS,
}


def test_a_loader_returning_its_structs_address_exports_each_field() -> None:
    config = analyse_go("gateway/config.go", CONFIG.encode())
    assert config.exports["field Load .LedgerHost"] == EnvRef("LEDGER_HOST", "localhost")
    assert config.exports["field Load .LedgerPort"] == EnvRef("LEDGER_PORT", "7000")
    # the struct's address handed to a function before it is returned: any field may change
    assert not any(key.startswith("field Tuned ") for key in config.exports)


def test_end_to_end_host_and_port_loaded_through_env_from_a_config_map_is_klb102(
    tmp_path: Path,
) -> None:
    [finding] = lint_files(tmp_path, FILES, ["KLB102"]).findings
    assert finding.path.endswith("gateway/ledger/client.go") and finding.line == 17
    assert "'ledger:7000'" in finding.text and "ConfigMap gateway-settings" in finding.text
