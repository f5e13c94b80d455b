"""A gRPC server whose port the program reads from its configuration file is evidence of
gRPC for KLB101 on the Service port of that number, whatever the port is named, when a YAML
file the container mounts from a ConfigMap sets the number at a key of an RPC server's place
(`rpc.ports`, `grpc.port`): the code's listener cannot be read, the mounted file says where
it is. Never on a key beside a host it dials (a peer's port), a port named for scrapes, or
a number the code serves plain HTTP on."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

GO_MOD = "module example.com/ledger\n\ngo 1.22\n"
# the program loads /etc/ledger/ledger.yaml and listens where `rpc.port` says
MAIN = """\
package main

import (
	"fmt"
	"log"
	"net"
	"os"

	"google.golang.org/grpc"
	"gopkg.in/yaml.v3"
)

type Settings struct {
	RPC struct {
		Port int `yaml:"port"`
	} `yaml:"rpc"`
}

func load(path string) (*Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Settings
	return &s, yaml.Unmarshal(data, &s)
}

func main() {
	cfg, err := load("/etc/ledger/ledger.yaml")
	if err != nil {
		log.Fatal(err)
	}
	lis, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.RPC.Port))
	if err != nil {
		log.Fatal(err)
	}
	server := grpc.NewServer()
	log.Fatal(server.Serve(lis))
}
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/ledger ./ledger
FROM gcr.io/distroless/base
COPY --from=build /out/ledger /ledger
ENTRYPOINT ["/ledger"]
"""
BUILD = """\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/ledger
      context: .
      docker:
        dockerfile: ledger/Dockerfile
"""
SETTINGS = """\
    rpc:
      listenIP: 0.0.0.0
      port: 7400
    metrics:
      port: 7401
"""
MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: ledger-settings
data:
  ledger.yaml: |
{settings}---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
spec:
  replicas: 3
  selector:
    matchLabels: {app: ledger}
  template:
    metadata:
      labels: {app: ledger}
    spec:
      containers:
        - name: ledger
          image: registry.example/ledger:2.1
          ports:
            - containerPort: 7400
            - containerPort: 7401
          volumeMounts:
            - {name: settings, mountPath: /etc/ledger}
      volumes:
        - name: settings
          configMap: {name: ledger-settings}
---
apiVersion: v1
kind: Service
metadata:
  name: ledger
spec:
  selector:
    app: ledger
  ports:
    - name: {name}
      port: 7400
    - name: metrics
      port: 7401
"""


def _files(settings: str = SETTINGS, name: str = "http-7400", code: str = MAIN) -> dict[str, str]:
    return {
        "go.mod": GO_MOD,
        "ledger/main.go": code,
        "ledger/Dockerfile": DOCKERFILE,
        "skaffold.yaml": BUILD,
        "k8s/ledger.yaml": MANIFESTS.replace("{settings}", settings).replace("{name}", name),
    }


def _klb101(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return [f.message for f in lint_files(tmp_path, files, ["KLB101"]).findings]


def test_a_port_the_mounted_configuration_gives_the_grpc_server_carries_grpc(
    tmp_path: Path,
) -> None:
    (message,) = _klb101(tmp_path, _files())
    assert "Service/ledger carries gRPC" in message
    assert "reads from its configuration (main.go:33)" in message
    assert "rpc.port: 7400 in ConfigMap ledger-settings's ledger.yaml" in message
    assert "/etc/ledger/ledger.yaml" in message


def test_a_list_of_ports_and_a_listen_address_are_read_too(tmp_path: Path) -> None:
    listed = SETTINGS.replace("port: 7400", "ports: [ 7400 ]")
    assert len(_klb101(tmp_path / "list", _files(listed))) == 1
    address = SETTINGS.replace("port: 7400", 'grpcListen: "0.0.0.0:7400"')
    assert len(_klb101(tmp_path / "address", _files(address))) == 1


def test_without_the_mounted_file_the_name_says_http(tmp_path: Path) -> None:
    files = _files()
    files["k8s/ledger.yaml"] = (
        files["k8s/ledger.yaml"]
        .replace("            - {name: settings, mountPath: /etc/ledger}\n", "")
        .replace("          volumeMounts:\n", "")
    )
    assert _klb101(tmp_path, files) == []


def test_a_port_set_beside_a_host_to_dial_is_a_peers(tmp_path: Path) -> None:
    # the file names where the ledger dials its peer; its own server's port is not there
    peer = "    audit:\n      rpc:\n        host: audit\n        port: 7400\n"
    assert _klb101(tmp_path, _files(peer)) == []


def test_a_key_of_no_rpc_server_says_nothing(tmp_path: Path) -> None:
    http = SETTINGS.replace("rpc:", "api:")
    assert _klb101(tmp_path, _files(http)) == []


def test_a_port_named_for_scrapes_is_not_grpc(tmp_path: Path) -> None:
    assert _klb101(tmp_path, _files(name="prometheus-7400")) == []


def test_code_that_serves_plain_http_on_that_number_is_not_read_as_grpc(tmp_path: Path) -> None:
    code = MAIN.replace('\t"os"\n', '\t"net/http"\n\t"os"\n').replace(
        "\tserver := grpc.NewServer()\n",
        '\tgo http.ListenAndServe(":7400", nil)\n\tserver := grpc.NewServer()\n',
    )
    assert _klb101(tmp_path, _files(code=code)) == []


def test_code_whose_grpc_port_is_read_keeps_its_own_evidence(tmp_path: Path) -> None:
    code = MAIN.replace('fmt.Sprintf(":%d", cfg.RPC.Port)', '":7500"')
    assert _klb101(tmp_path, _files(code=code)) == []
