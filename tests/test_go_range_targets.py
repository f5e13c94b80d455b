"""Go clients dialled in a loop over a literal: a gateway keeps its backends' addresses in a
map (or a slice of structs) written in the code and dials each in a `for ... range`. The
loop's variable is each of the literal's values (code/budget.py's MAX_CHOICES at most),
one channel fact each; a loop over anything else, or a variable the loop changes, stays
unknown."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

# a gateway whose backends are a map of anonymous structs, positional, each address an env
# helper's value over a default; the dial is a helper the loop calls
GATEWAY = """\
package main

import (
	"context"
	"log"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type Backends struct {
	conns map[string]*grpc.ClientConn
}

func addrOf(variable, fallback string) string {
	if v := os.Getenv(variable); v != "" {
		return v
	}
	return fallback
}

func NewBackends() *Backends {
	b := &Backends{conns: map[string]*grpc.ClientConn{}}
	backends := map[string]struct {
		target string
		retry  bool
	}{
		"ledger":   {addrOf("LEDGER_ADDR", "localhost:7001"), true},
		"accounts": {addrOf("ACCOUNTS_ADDR", "localhost:7002"), false},
	}
	for name, backend := range backends {
		conn, err := open(backend.target)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		b.conns[name] = conn
	}
	return b
}

func open(target string) (*grpc.ClientConn, error) {
	return grpc.DialContext(context.Background(), target,
		grpc.WithTransportCredentials(insecure.NewCredentials()))
}

func main() {
	_ = NewBackends()
	select {}
}
"""

MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: gateway}
spec:
  replicas: 2
  selector: {matchLabels: {app: gateway}}
  template:
    metadata: {labels: {app: gateway}}
    spec:
      containers:
      - name: gateway
        image: registry.example.com/gateway:1.0
        env:
        - {name: LEDGER_ADDR, value: "ledger:7001"}
        - {name: ACCOUNTS_ADDR, value: "accounts:7002"}
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: grpc, port: 7001}]
---
apiVersion: v1
kind: Service
metadata: {name: accounts}
spec:
  selector: {app: accounts}
  ports: [{name: grpc, port: 7002}]
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /gateway ./cmd/gateway
FROM gcr.io/distroless/static
COPY --from=build /gateway /gateway
ENTRYPOINT ["/gateway"]
"""


def targets(source: str) -> list[object]:
    facts = analyse_go("cmd/gateway/main.go", source.encode())
    return [channel.target for channel in facts.channels]


def test_each_value_of_a_map_of_structs_ranged_over_is_a_channel() -> None:
    assert targets(GATEWAY) == [
        EnvRef("LEDGER_ADDR", "localhost:7001"),
        EnvRef("ACCOUNTS_ADDR", "localhost:7002"),
    ]


def test_end_to_end_each_service_the_loop_dials_is_klb102(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/gw\n\ngo 1.22\n",
        "cmd/gateway/main.go": GATEWAY,
        "Dockerfile": DOCKERFILE,
        "deploy/k8s.yaml": MANIFESTS,
    }
    found = lint_files(tmp_path, files, ["KLB102"]).findings
    assert sorted(f.message.split("Service/")[1].split(" ")[0] for f in found) == [
        "accounts",
        "ledger",
    ]


def main_dialling(loop: str, before: str = "", after: str = "") -> str:
    return (
        'package main\n\nimport (\n\t"os"\n\n\t"google.golang.org/grpc"\n)\n\n'
        f"{before}func main() {{\n\tconns := []*grpc.ClientConn{{}}\n{loop}"
        "\t_ = os.Args\n\t_ = conns\n}\n" + after
    )


def test_a_slice_of_addresses_written_in_the_loop() -> None:
    loop = (
        '\tfor _, addr := range []string{"ledger:7001", "accounts:7002"} {\n'
        "\t\tconn, _ := grpc.NewClient(addr)\n\t\tconns = append(conns, conn)\n\t}\n"
    )
    assert targets(main_dialling(loop)) == ["ledger:7001", "accounts:7002"]


def test_a_package_map_the_loop_reads_its_values_and_its_keys() -> None:
    before = (
        "var peers = map[string]string{\n"
        '\t"ledger":   "ledger:7001",\n\t"accounts": os.Getenv("ACCOUNTS_ADDR"),\n}\n\n'
        'var hosts = map[string]bool{"audit:7003": true}\n\n'
    )
    loop = (
        "\tfor _, addr := range peers {\n\t\tconn, _ := grpc.NewClient(addr)\n"
        "\t\tconns = append(conns, conn)\n\t}\n"
        "\tfor host := range hosts {\n\t\tconn, _ := grpc.NewClient(host)\n"
        "\t\tconns = append(conns, conn)\n\t}\n"
    )
    assert targets(main_dialling(loop, before)) == [
        "ledger:7001",
        EnvRef("ACCOUNTS_ADDR", None),
        "audit:7003",
    ]


def test_a_field_a_literal_fills_holding_structs_of_a_named_type() -> None:
    after = (
        "type peer struct {\n\tname string\n\taddr string\n}\n\n"
        "type Pool struct {\n\tpeers []peer\n\tconns []*grpc.ClientConn\n}\n\n"
        "func NewPool() *Pool {\n"
        '\treturn &Pool{peers: []peer{{"ledger", "ledger:7001"}, {name: "accounts", '
        'addr: "accounts:7002"}}}\n}\n\n'
        "func (p *Pool) Start() {\n\tfor _, each := range p.peers {\n"
        "\t\tconn, _ := grpc.NewClient(each.addr)\n\t\tp.conns = append(p.conns, conn)\n\t}\n}\n"
    )
    assert targets(main_dialling("\tNewPool().Start()\n", after=after)) == [
        "ledger:7001",
        "accounts:7002",
    ]


def test_what_the_loop_cannot_tell_stays_unknown() -> None:
    many = ", ".join(f'"peer-{i}:7000"' for i in range(9))  # past MAX_CHOICES
    loops = {
        # the body changes the variable
        '\tfor _, addr := range []string{"ledger"} {\n\t\taddr += ":7001"\n'
        "\t\tconn, _ := grpc.NewClient(addr)\n\t\tconns = append(conns, conn)\n\t}\n",
        # the map is changed in place before the loop
        '\tpeers := map[string]string{"ledger": "localhost:7001"}\n'
        '\tpeers["ledger"] = os.Getenv("LEDGER_ADDR")\n'
        "\tfor _, addr := range peers {\n\t\tconn, _ := grpc.NewClient(addr)\n"
        "\t\tconns = append(conns, conn)\n\t}\n",
        # more values than a value may be one of
        f"\tfor _, addr := range []string{{{many}}} {{\n\t\tconn, _ := grpc.NewClient(addr)\n"
        "\t\tconns = append(conns, conn)\n\t}\n",
        # the index of a slice, and a loop over what a call returns
        '\tfor i := range []string{"ledger:7001"} {\n\t\tconn, _ := grpc.NewClient(i)\n'
        "\t\tconns = append(conns, conn)\n\t}\n",
        "\tfor _, addr := range os.Args {\n\t\tconn, _ := grpc.NewClient(addr)\n"
        "\t\tconns = append(conns, conn)\n\t}\n",
        # two loops of one name: which one a dial is in is not asked
        '\tfor _, addr := range []string{"a:1"} {\n\t\t_ = addr\n\t}\n'
        '\tfor _, addr := range []string{"b:2"} {\n\t\tconn, _ := grpc.NewClient(addr)\n'
        "\t\tconns = append(conns, conn)\n\t}\n",
    }
    for loop in loops:
        assert targets(main_dialling(loop)) == [UNKNOWN], loop
