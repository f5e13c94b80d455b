"""Go: a struct kelseyhightower/envconfig fills, held in a package variable another package
reads (`settings.Values.LedgerHost + ":" + settings.Values.LedgerPort`), whose fields carry
`split_words:"true"` and no `envconfig` name: each field is the variable envconfig derives
(the field's words joined by `_`, in capitals: LEDGER_HOST), with its `default`; read across
the package, the address a workload sets is judged (KLB111)."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/billing\n\ngo 1.22\n"

SETTINGS = """\
package settings

type Settings struct {
	LedgerHost   string `split_words:"true" default:"localhost"`
	LedgerPort   string `split_words:"true" default:"7070"`
	GRPCTimeout  string `split_words:"true" default:"5s"`
	MetricsPort  string `envconfig:"METRICS_PORT" default:"9102"`
}

var Values Settings
"""

MAIN = """\
package main

import (
	"log"

	"github.com/kelseyhightower/envconfig"

	"example.com/billing/ledger"
	"example.com/billing/settings"
)

func main() {
	if err := envconfig.Process("", &settings.Values); err != nil {
		log.Fatal(err)
	}
	ledger.Connect()
	select {}
}
"""

CLIENT = """\
package ledger

import (
	"log"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"example.com/billing/settings"
)

func Connect() *grpc.ClientConn {
	conn, err := grpc.NewClient(settings.Values.LedgerHost+":"+settings.Values.LedgerPort,
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	return conn
}
"""

DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/billing .

FROM gcr.io/distroless/static
COPY --from=build /out/billing /billing
ENTRYPOINT ["/billing"]
"""

MANIFESTS = """\
apiVersion: v1
kind: Service
metadata:
  name: ledger
spec:
  selector:
    app: ledger
  ports:
    - name: grpc
      port: 7071
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: billing
spec:
  selector:
    matchLabels:
      app: billing
  template:
    metadata:
      labels:
        app: billing
    spec:
      containers:
        - name: billing
          image: registry.example.com/shop/billing:3.0.1
          env:
            - name: LEDGER_HOST
              value: ledger
            - name: LEDGER_PORT
              value: "{port}"
"""


def _lint(tmp_path: Path, port: str, settings: str = SETTINGS) -> list[tuple[str, str, int]]:
    found = lint_files(
        tmp_path,
        {
            "billing/go.mod": GO_MOD,
            "billing/main.go": MAIN,
            "billing/settings/settings.go": settings,
            "billing/ledger/client.go": CLIENT,
            "billing/Dockerfile": DOCKERFILE,
            "deploy/k8s.yaml": MANIFESTS.replace("{port}", port),
        },
        ["KLB111"],
    )
    return [(f.rule, f.path.split("/billing/", 1)[-1], f.line) for f in found.findings]


def test_split_words_fields_of_another_packages_variable(tmp_path: Path) -> None:
    assert _lint(tmp_path, "7070") == [("KLB111", "ledger/client.go", 13)]


def test_the_port_the_service_exposes_is_fine(tmp_path: Path) -> None:
    assert _lint(tmp_path, "7071") == []


def test_a_field_without_split_words_is_another_variable(tmp_path: Path) -> None:
    # envconfig reads LEDGERHOST and LEDGERPORT then: the workload sets neither
    settings = SETTINGS.replace('split_words:"true" ', "")
    assert _lint(tmp_path, "7070", settings) == []


def test_envconfig_splits_words_and_acronyms() -> None:
    from k8slb.languages.go.parse import _words

    assert _words("LedgerHost") == ["Ledger", "Host"]
    assert _words("GRPCTimeout") == ["GRPC", "Timeout"]
    assert _words("TlsCertB64") == ["Tls", "Cert", "B64"]
    assert _words("ID") == ["ID"]
