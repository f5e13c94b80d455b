"""A Go client whose address a config package builds from viper's registry: the host from
the environment (`SetEnvPrefix` + `AutomaticEnv`), the port from `SetDefault`, read as a
string and made a number by `strconv.Atoi` or by a function of the file that does only
that (`convertPort(viper.GetString(key))`). Where the program names a settings file
(`SetConfigName`, `AddConfigPath`, `ReadInConfig`) that the repository holds no copy of,
viper finds none and the key keeps its default: KLB102 follows the channel to the Service
(code/imported.py, facts.ViperKey)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code import settings_files
from k8slb.code.facts import ViperKey
from k8slb.core.findings import Finding
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

GO_MOD = "module example.com/shop\n\ngo 1.22\n"
CONFIG = """\
package config

import (
	"log"
	"strconv"

	"github.com/spf13/viper"
)

const (
	EnvPrefix         = "SHOP"
	LedgerHostKey     = "LEDGER_HOST"
	LedgerPortKey     = "LEDGER_PORT"
	DefaultLedgerPort = 7000
)

type Config struct {
	LedgerHost string
	LedgerPort int
}

func Load() *Config {
	viper.SetConfigName("shop-config")
	viper.AddConfigPath(".")
	if err := viper.ReadInConfig(); err != nil {
		log.Printf("no settings file: %v", err)
	}
	viper.SetDefault(LedgerHostKey, "localhost")
	viper.SetDefault(LedgerPortKey, DefaultLedgerPort)
	viper.SetEnvPrefix(EnvPrefix)
	viper.AutomaticEnv()
	return &Config{
		LedgerHost: viper.GetString(LedgerHostKey),
		LedgerPort: convertPort(viper.GetString(LedgerPortKey)),
	}
}

func convertPort(text string) int {
	port, err := strconv.Atoi(text)
	if err != nil {
		log.Fatalf("port %s is invalid", text)
	}
	return port
}
"""
CLIENT = """\
package ledger

import (
	"fmt"

	"example.com/shop/config"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type Adapter struct {
	conn *grpc.ClientConn
}

func NewAdapter(cfg *config.Config) (*Adapter, error) {
	address := fmt.Sprintf("%s:%d", cfg.LedgerHost, cfg.LedgerPort)
	conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &Adapter{conn: conn}, nil
}
"""
MAIN = """\
package main

import (
	"log"

	"example.com/shop/config"
	"example.com/shop/ledger"
)

func main() {
	cfg := config.Load()
	adapter, err := ledger.NewAdapter(cfg)
	if err != nil {
		log.Fatal(err)
	}
	_ = adapter
	select {}
}
"""
DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /shop ./cmd/main.go
FROM gcr.io/distroless/base
COPY --from=build /shop /shop
ENTRYPOINT ["/shop"]
"""
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
        - name: shop
          image: registry.example/shop:1
          env:
            - {name: SHOP_LEDGER_HOST, value: ledger}
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
          image: registry.example/ledger:1
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: grpc, port: 7000, targetPort: 7000}]
"""


def tree(**changed: str) -> dict[str, str]:
    files = {
        "shop/go.mod": GO_MOD,
        "shop/config/config.go": CONFIG,
        "shop/ledger/ledger.go": CLIENT,
        "shop/cmd/main.go": MAIN,
        "shop/Dockerfile": DOCKERFILE,
        "build.sh": "docker build -t registry.example/shop:1 ./shop\n",
        "k8s/app.yaml": MANIFESTS,
    }
    files.update(changed)
    return files


def check(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    result = lint_files(tmp_path, files, ["KLB102"])
    assert result.errors == []
    return result.findings


def test_the_host_from_the_environment_and_the_port_from_the_default(tmp_path: Path) -> None:
    (finding,) = check(tmp_path, tree())
    assert finding.path.endswith("shop/ledger/ledger.go") and finding.line == 17
    assert "'ledger:7000'" in finding.text and "Service/ledger" in finding.text


def test_a_function_that_only_parses_its_parameter_keeps_the_key() -> None:
    facts = analyse_go("config/config.go", CONFIG.encode())
    assert facts.exports["literal Config"] == [
        {"LedgerHost": ViperKey("LEDGER_HOST"), "LedgerPort": ViperKey("LEDGER_PORT")}
    ]
    # one that does more with it (a port moved by one) is not read as a parse of it
    shifted = CONFIG.replace("\treturn port\n", "\treturn port + 1\n")
    fields = analyse_go("config/config.go", shifted.encode()).exports["literal Config"]
    assert fields[0]["LedgerPort"] != ViperKey("LEDGER_PORT")


def test_strconv_atoi_of_a_registry_read_keeps_the_key() -> None:
    inline = CONFIG.replace(
        "\treturn &Config{",
        "\tport, _ := strconv.Atoi(viper.GetString(LedgerPortKey))\n\treturn &Config{",
    ).replace("convertPort(viper.GetString(LedgerPortKey))", "port")
    fields = analyse_go("config/config.go", inline.encode()).exports["literal Config"]
    assert fields[0]["LedgerPort"] == ViperKey("LEDGER_PORT")


def test_a_copy_of_the_settings_file_in_the_repository_may_set_the_port(
    tmp_path: Path,
) -> None:
    # the copy sets another key: what it leaves out is not known (it may be given later)
    files = tree(**{"shop/shop-config.yaml": "log_level: debug\n"})
    assert check(tmp_path, files) == []


def test_the_copy_s_port_is_dialled(tmp_path: Path) -> None:
    files = tree(**{"shop/shop-config.yaml": "ledger_port: 7000\n"})
    (finding,) = check(tmp_path, files)
    assert "'ledger:7000'" in finding.text


def test_a_copy_anywhere_in_the_repository_may_be_the_image_s(tmp_path: Path) -> None:
    # outside the go.mod's folder, but in the repository a build context may copy from
    (tmp_path / ".git").mkdir()
    files = tree(**{"configs/shop-config.yaml": "log_level: debug\n"})
    assert check(tmp_path, files) == []
    (tmp_path / "configs/shop-config.yaml").unlink()
    assert len(check(tmp_path, tree())) == 1


def test_a_repository_past_the_listing_budget_is_not_said_to_hold_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings_files, "MAX_LISTED", 3)
    assert check(tmp_path, tree()) == []
