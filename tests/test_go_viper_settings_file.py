"""A Go client that dials an address read from viper's registry (`viper.GetString(
"backend.address")`) of a program that reads a settings file (`SetConfigFile` of a
`--config` flag's default, `ReadInConfig`) dials what the repository's copy of that file
sets at the key, where no container sets the variable `AutomaticEnv` reads for it (after
`SetEnvPrefix` and through `SetEnvKeyReplacer`): KLB102 reports the channel
(code/settings_files.py, code/imported.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code import settings_files
from k8slb.code.settings_files import SettingsFiles
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

GO_MOD = "module example.com/relay\n\ngo 1.22\n"
ROOT = """\
package app

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"google.golang.org/grpc"
)

var cfgFile string

func init() {
	cobra.OnInitialize(initConfig)
	rootCmd.PersistentFlags().StringVar(&cfgFile, "config", "/etc/relay/relay.toml", "settings")
}

var rootCmd = &cobra.Command{
	Use: "relay",
	Run: func(cmd *cobra.Command, args []string) {
		conn, err := grpc.Dial(viper.GetString("backend.address"), grpc.WithInsecure())
		if err != nil {
			return
		}
		defer conn.Close()
		forward(conn)
	},
}

func forward(conn *grpc.ClientConn) {}

func Execute() { _ = rootCmd.Execute() }

func initConfig() {
	viper.SetConfigFile(cfgFile)
	viper.SetEnvPrefix("RELAY")
	viper.AutomaticEnv()
	viper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	{read}
}
"""
MAIN = """\
package main

import "example.com/relay/relay/cmd/app"

func main() { app.Execute() }
"""
SETTINGS = '[backend]\naddress = "backend.shop.svc.cluster.local:50051"\n'
MANIFESTS = """\
apiVersion: v1
kind: Service
metadata: {name: backend, namespace: shop}
spec:
  selector: {app: backend}
  ports: [{name: grpc, port: 50051}]
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: shop}
spec:
  selector: {app: other}
  ports: [{name: grpc, port: 50051}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: backend, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec:
      containers: [{name: backend, image: registry.example/backend:1.0}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: other, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: other}}
  template:
    metadata: {labels: {app: other}}
    spec:
      containers: [{name: other, image: registry.example/other:1.0}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: relay, namespace: shop}
spec:
  selector: {matchLabels: {app: relay}}
  template:
    metadata: {labels: {app: relay}}
    spec:
      containers:
        - name: relay
          image: registry.example/relay:1.0
          env: [{name: {variable}, value: "other.shop:50051"}]
"""


def _files(
    read: str = "if err := viper.ReadInConfig(); err != nil {\n\t\tpanic(err)\n\t}",
    variable: str = "RELAY_BACKENDADDRESS",
    **more: str,
) -> dict[str, str]:
    return {
        "go.mod": GO_MOD,
        "relay/cmd/main.go": MAIN,
        "relay/cmd/app/root.go": ROOT.replace("{read}", read),
        "relay/etc/relay.toml": SETTINGS,
        "deploy/shop.yaml": MANIFESTS.replace("{variable}", variable),
        **more,
    }


def _klb102(tmp_path: Path, files: dict[str, str]) -> list[str]:
    findings = lint_files(tmp_path, files, ["KLB102"]).findings
    return [f"{f.severity.name} {f.message} {' '.join(f.detail)}" for f in findings]


def test_the_settings_files_value_is_dialled_where_no_container_sets_its_variable(
    tmp_path: Path,
) -> None:
    # RELAY_BACKENDADDRESS is no variable viper reads: RELAY_BACKEND_ADDRESS is
    (found,) = _klb102(tmp_path, _files())
    assert found.startswith("WARNING gRPC channel to ClusterIP Service/shop/backend")
    assert "backend.address in " in found and "relay/etc/relay.toml" in found
    assert "no container sets RELAY_BACKEND_ADDRESS, which would override it" in found


def test_the_variable_viper_reads_overrides_the_file(tmp_path: Path) -> None:
    (found,) = _klb102(tmp_path, _files(variable="RELAY_BACKEND_ADDRESS"))
    assert "Service/shop/other" in found


def test_a_yaml_settings_file_gives_its_line(tmp_path: Path) -> None:
    files = _files()
    files["relay/cmd/app/root.go"] = files["relay/cmd/app/root.go"].replace("relay.toml", "r.yml")
    del files["relay/etc/relay.toml"]
    files["relay/etc/r.yml"] = "backend:\n  address: backend.shop:50051\n"
    (found,) = _klb102(tmp_path, files)
    assert "backend.address in " in found and "relay/etc/r.yml:2" in found


def test_copies_that_disagree_as_near_leave_it_unknown(tmp_path: Path) -> None:
    other = SETTINGS.replace("backend.shop", "other.shop")
    assert _klb102(tmp_path, _files(**{"relay/docker/relay.toml": other})) == []


def test_the_nearest_copy_wins(tmp_path: Path) -> None:
    far = SETTINGS.replace("backend.shop", "other.shop")
    (found,) = _klb102(tmp_path, _files(**{"tools/relay.toml": far}))
    assert "Service/shop/backend" in found


def test_settings_read_from_a_reader_are_not_known(tmp_path: Path) -> None:
    read = '_ = viper.ReadConfig(strings.NewReader(""))'
    assert _klb102(tmp_path, _files(read=read)) == []


def test_a_cobra_run_literal_keeps_its_channel_for_the_process() -> None:
    # cobra runs a command's Run once a process: its deferred Close runs at exit
    text = ROOT.replace("{read}", "").encode()
    facts = analyse_go("relay/cmd/app/root.go", text)
    assert [c.long_lived for c in facts.channels] == [True]


def test_a_file_past_its_budget_gives_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "go.mod").write_text(GO_MOD)
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "relay.toml").write_text(SETTINGS)
    code = str(tmp_path / "cmd" / "main.go")
    assert SettingsFiles().value(code, ["/etc/relay/relay.toml"], "backend.address")
    monkeypatch.setattr(settings_files, "MAX_SETTINGS_BYTES", 8)
    assert SettingsFiles().value(code, ["/etc/relay/relay.toml"], "backend.address") is None
    monkeypatch.setattr(settings_files, "MAX_SETTINGS_BYTES", 1 << 20)
    monkeypatch.setattr(settings_files, "MAX_LISTED", 1)
    assert SettingsFiles().value(code, ["/etc/relay/relay.toml"], "BACKEND.ADDRESS") is None
