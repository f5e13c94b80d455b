"""A Go service's configuration in nested structs: a loader fills each piece of its
`Config` from a function of its own (`Upstreams: upstreamsFromEnv()`) that calls an env
helper of another package (`envutil.StringOr("ACCOUNTS_ADDR", "")`, which trims what
`os.Getenv` reads), checks the struct with a method that changes nothing, and returns it;
`main` hands it to a constructor that keeps it in a field, and the methods dial
`w.Cfg.Upstreams.AccountsAddr`. The channels live as long as the struct that keeps them
(appended to its connections, or closed by a cleanup it keeps), and the Deployment loads
the addresses from a ConfigMap through `envFrom`: a client of a headless Service with no
balancing policy is KLB103."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import EnvRef
from k8slb.code.imported import resolve_imports
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

GO_MOD = "module example.com/ledger\n\ngo 1.22\n"

ENVUTIL = """\
package envutil

import (
	"os"
	"strings"
)

// StringOr reads a variable, trimmed, or gives the fallback when it is empty.
func StringOr(key, fallback string) string {
	value := strings.TrimSpace(os.Getenv(key))
	if value == "" {
		return fallback
	}
	return value
}
"""

CONFIG = """\
package config

import (
	"errors"

	"example.com/ledger/internal/envutil"
)

// Config is all the billing service reads at start.
type Config struct {
	Listen    ListenConfig
	Upstreams UpstreamConfig
}

// ListenConfig is where billing serves.
type ListenConfig struct {
	Port string
}

// UpstreamConfig holds the addresses of the services billing calls.
type UpstreamConfig struct {
	AccountsAddr string
	RatesAddr    string
}

// Load reads the configuration from the environment.
func Load() (*Config, error) {
	cfg := &Config{
		Listen:    listenFromEnv(),
		Upstreams: upstreamsFromEnv(),
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func listenFromEnv() ListenConfig {
	return ListenConfig{Port: envutil.StringOr("PORT", "7000")}
}

func upstreamsFromEnv() UpstreamConfig {
	return UpstreamConfig{
		AccountsAddr: envutil.StringOr("ACCOUNTS_ADDR", ""),
		RatesAddr:    envutil.StringOr("RATES_ADDR", "localhost:7001"),
	}
}

// Check refuses a configuration billing cannot start with.
func (c *Config) Check() error {
	if c.Listen.Port == "" {
		return errors.New("no port")
	}
	return nil
}
"""

WIRING = """\
package app

import (
	"log"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"example.com/ledger/services/billing/config"
)

// Wiring holds what billing's handlers share for the life of the process.
type Wiring struct {
	Cfg      *config.Config
	accounts *grpc.ClientConn
	conns    []*grpc.ClientConn
	closers  []func()
}

// NewWiring connects billing to the services it calls.
func NewWiring(cfg *config.Config) (*Wiring, error) {
	w := &Wiring{Cfg: cfg}
	if err := w.connectAccounts(); err != nil {
		return nil, err
	}
	if err := w.connectRates(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Wiring) connectAccounts() error {
	if w.Cfg.Upstreams.AccountsAddr == "" {
		return nil
	}
	conn, err := grpc.NewClient(
		w.Cfg.Upstreams.AccountsAddr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	)
	if err != nil {
		return err
	}
	w.closers = append(w.closers, func() {
		if err := conn.Close(); err != nil {
			log.Printf("closing accounts: %v", err)
		}
	})
	return nil
}

func (w *Wiring) connectRates() error {
	conn, err := grpc.NewClient(w.Cfg.Upstreams.RatesAddr,
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	w.conns = append(w.conns, conn)
	return nil
}

// Close ends every connection when billing stops.
func (w *Wiring) Close() {
	for _, closeOne := range w.closers {
		closeOne()
	}
	for _, conn := range w.conns {
		_ = conn.Close()
	}
}
"""

MAIN = """\
package main

import (
	"log"

	"example.com/ledger/services/billing/app"
	"example.com/ledger/services/billing/config"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		log.Fatal(err)
	}
	wiring, err := app.NewWiring(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer wiring.Close()
	select {}
}
"""

FILES = {
    "go.mod": GO_MOD,
    "internal/envutil/envutil.go": ENVUTIL,
    "services/billing/config/config.go": CONFIG,
    "services/billing/app/wiring.go": WIRING,
    "services/billing/cmd/main.go": MAIN,
}

MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: billing-env}
data:
  ACCOUNTS_ADDR: accounts:7000
  RATES_ADDR: rates:7001
---
apiVersion: v1
kind: Service
metadata: {name: accounts}
spec:
  clusterIP: None
  selector: {app: accounts}
  ports: [{name: grpc, port: 7000}]
---
apiVersion: v1
kind: Service
metadata: {name: rates}
spec:
  clusterIP: None
  selector: {app: rates}
  ports: [{name: grpc, port: 7001}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: accounts}
spec:
  replicas: 3
  selector: {matchLabels: {app: accounts}}
  template:
    metadata: {labels: {app: accounts}}
    spec:
      containers:
        - {name: accounts, image: ledger/accounts, ports: [{containerPort: 7000}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: rates}
spec:
  replicas: 2
  selector: {matchLabels: {app: rates}}
  template:
    metadata: {labels: {app: rates}}
    spec:
      containers:
        - {name: rates, image: ledger/rates, ports: [{containerPort: 7001}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: billing}
spec:
  replicas: 2
  selector: {matchLabels: {app: billing}}
  template:
    metadata: {labels: {app: billing}}
    spec:
      containers:
        - name: billing
          image: ledger/billing
          envFrom:
            - configMapRef: {name: billing-env}
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /billing ./services/billing/cmd

FROM gcr.io/distroless/base
COPY --from=build /billing /billing
ENTRYPOINT ["/billing"]
"""

PROJECT = {**FILES, "Dockerfile": DOCKERFILE, "deploy/billing.yaml": MANIFESTS}


def _channels(files: dict[str, str]) -> list[tuple[int, object, bool]]:
    modules = [analyse_go(p, t.encode()) for p, t in files.items() if p.endswith(".go")]
    [wiring] = [m for m in resolve_imports(modules) if m.path.endswith("wiring.go")]
    return [(c.loc.line, c.target, c.long_lived) for c in wiring.channels]


def test_a_trimmed_read_with_a_fallback_is_an_env_helper() -> None:
    envutil = analyse_go("internal/envutil/envutil.go", ENVUTIL.encode())
    assert envutil.exports.get("env StringOr") is True


def test_a_loader_exports_the_nested_structs_its_own_functions_fill() -> None:
    """`Upstreams: upstreamsFromEnv()` is that function's literal; `cfg.Check()` reads
    the struct only, so the loader still says what it returns."""
    config = analyse_go("services/billing/config/config.go", CONFIG.encode())
    upstreams = config.exports["field Load .Upstreams"]
    assert isinstance(upstreams, dict) and set(upstreams) == {"AccountsAddr", "RatesAddr"}
    # a method that writes its receiver may change any field: nothing is exported
    writing = CONFIG.replace(
        'return errors.New("no port")', 'c.Listen.Port = "7000"\n\t\treturn nil'
    )
    changed = analyse_go("services/billing/config/config.go", writing.encode())
    assert not any(key.startswith("field Load ") for key in changed.exports)


def test_the_channels_dial_the_nested_fields_and_live_with_their_struct() -> None:
    assert _channels(FILES) == [
        (36, EnvRef("ACCOUNTS_ADDR", ""), True),
        (52, EnvRef("RATES_ADDR", "localhost:7001"), True),
    ]


def test_a_connection_closed_before_the_method_returns_is_per_call() -> None:
    closed = WIRING.replace("\tw.conns = append(w.conns, conn)\n", "\tdefer conn.Close()\n")
    lines = _channels({**FILES, "services/billing/app/wiring.go": closed})
    assert [kept for line, _, kept in lines if line == 52] == [False]


def test_end_to_end_clients_of_headless_services_through_env_from_are_klb103(
    tmp_path: Path,
) -> None:
    findings = lint_files(tmp_path, PROJECT, ["KLB103"]).findings
    assert sorted((f.path.rsplit("/", 1)[-1], f.line) for f in findings) == [
        ("wiring.go", 36),
        ("wiring.go", 52),
    ]
    assert all("ConfigMap billing-env" in f.text for f in findings), [f.text for f in findings]


UPSTREAM = """\
package upstream

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Clients are the stubs a caller keeps for as long as it needs the gateway.
type Clients struct {
	conn *grpc.ClientConn
}

// Dial connects to the gateway.
func Dial(target string) (*Clients, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &Clients{conn: conn}, nil
}

// Close ends the connection.
func (c *Clients) Close() error { return c.conn.Close() }
"""

WIRE = """\
package main

import "example.com/ledger/internal/upstream"

func wire() (func(), error) {
	clients, err := upstream.Dial("gateway:8080")
	if err != nil {
		return nil, err
	}
	return func() { _ = clients.Close() }, nil
}
"""


def _kept(files: dict[str, str]) -> list[bool]:
    modules = [analyse_go(p, t.encode()) for p, t in files.items()]
    [made] = [m for m in resolve_imports(modules) if m.path.endswith("upstream.go")]
    return [c.long_lived for c in made.channels]


def test_a_struct_returned_holding_the_channel_hands_it_to_the_callers() -> None:
    """`return &Clients{conn: conn}` from a function of no once-only name: kept where a
    caller keeps the struct (a cleanup returned for shutdown), per call where every caller
    closes it before it returns."""
    upstream = analyse_go("internal/upstream/upstream.go", UPSTREAM.encode())
    assert [c.long_lived for c in upstream.channels] == [True]
    files = {"internal/upstream/upstream.go": UPSTREAM, "cmd/billing/wire.go": WIRE}
    assert _kept(files) == [True]
    per_call = WIRE.replace(
        "\treturn func() { _ = clients.Close() }, nil\n",
        "\tdefer clients.Close()\n\treturn nil, nil\n",
    )
    assert _kept({**files, "cmd/billing/wire.go": per_call}) == [False]
