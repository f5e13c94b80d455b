"""A Go server that listens on a port read from viper's own registry by name
(`viper.GetInt("APP_PORT")`), where another package the program links in tells viper to
read the environment (`viper.AutomaticEnv()` in a config package), listens on the port the
container's `APP_PORT` gives: KLB101 ties the gRPC server to the Service port that targets
it (code/imported.py, facts.ViperKey)."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

GO_MOD = "module example.com/ranker\n\ngo 1.22\n"
SERVER = """\
package rpc

import (
	"net"
	"strconv"

	"github.com/spf13/viper"
	"google.golang.org/grpc"
)

type Runner struct {
	srv *grpc.Server
}

func New() *Runner {
	return &Runner{srv: grpc.NewServer()}
}

func (r *Runner) Start() error {
	port := viper.GetInt("RANKER_PORT")
	lis, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	return r.srv.Serve(lis)
}
"""
SETTINGS = """\
package settings

import "github.com/spf13/viper"

func Load() {
	{calls}
}
"""
MAIN = """\
package main

import (
	"example.com/ranker/internal/rpc"
	"example.com/ranker/internal/settings"
)

func main() {
	settings.Load()
	if err := rpc.New().Start(); err != nil {
		panic(err)
	}
}
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/ranker ./cmd/ranker
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
          env:
            - name: RANKER_PORT
              value: "7070"
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
BUILD = """\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/ranker
      context: .
      docker:
        dockerfile: Dockerfile
"""


def _files(calls: str) -> dict[str, str]:
    return {
        "go.mod": GO_MOD,
        "cmd/ranker/main.go": MAIN,
        "internal/rpc/server.go": SERVER,
        "internal/settings/settings.go": SETTINGS.replace("{calls}", calls),
        "Dockerfile": DOCKERFILE,
        "skaffold.yaml": BUILD,
        "k8s/ranker.yaml": MANIFESTS,
    }


def _klb101(tmp_path: Path, calls: str) -> list[tuple[str, str]]:
    findings = lint_files(tmp_path, _files(calls), ["KLB101"]).findings
    return [(f.rule, f.severity.name) for f in findings]


def test_the_registry_read_is_deferred_to_the_program() -> None:
    facts = analyse_go("internal/rpc/server.go", SERVER.encode())
    assert facts.deferred
    assert [x.loc.line for x in facts.listens] == [21]


def test_automatic_env_in_another_package_gives_the_containers_port(tmp_path: Path) -> None:
    assert _klb101(tmp_path, "viper.AutomaticEnv()") == [("KLB101", "WARNING")]


def test_a_binding_in_another_package_gives_its_variable(tmp_path: Path) -> None:
    calls = 'viper.BindEnv("RANKER_PORT", "RANKER_PORT")'
    assert _klb101(tmp_path, calls) == [("KLB101", "WARNING")]


def test_no_environment_said_gives_no_port(tmp_path: Path) -> None:
    assert _klb101(tmp_path, 'viper.SetDefault("other", "x")') == []


def test_a_prefix_names_another_variable(tmp_path: Path) -> None:
    calls = 'viper.SetEnvPrefix("APP")\n\tviper.AutomaticEnv()'
    assert _klb101(tmp_path, calls) == []


def test_a_key_the_program_sets_itself_is_not_the_environments(tmp_path: Path) -> None:
    calls = 'viper.AutomaticEnv()\n\tviper.Set("ranker_port", 9090)'
    assert _klb101(tmp_path, calls) == []
