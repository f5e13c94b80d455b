"""A Go program that reads its settings with viper (`AddConfigPath`, `SetConfigName`,
`viper.Unmarshal(&cfg)`) into a struct tagged `mapstructure:"..."` dials, from a field of
that struct, the address the YAML file a container mounts from a ConfigMap where the
program looks sets at the field's key (model/addresses_files.py)."""

from __future__ import annotations

from pathlib import Path

from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HEADLESS_TWIN

from .helpers import lint_files
from .test_spring_mounted_settings import ORDERS as SPRING_ORDERS

MAIN = """\
package main

import (
\t"github.com/spf13/viper"
\t"google.golang.org/grpc"
\t"google.golang.org/grpc/credentials/insecure"
)

type Config struct {
\tPort    string
\tBackend BackendConfig `mapstructure:"backend"`
}

type BackendConfig struct {
\tAddress string `mapstructure:"grpc_address"`
}

func main() {
\tviper.SetConfigName("settings")
\tviper.AddConfigPath("/etc/orders")
\tviper.AddConfigPath("./configs")
\t_ = viper.ReadInConfig()
\tvar cfg Config
\t_ = viper.Unmarshal(&cfg)
\tconn, _ := grpc.NewClient(cfg.Backend.Address,
\t\tgrpc.WithTransportCredentials(insecure.NewCredentials()))
\tdefer conn.Close()
\tselect {}
}
"""
CONFIG_MAP = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: orders-settings
data:
  FILE_NAME: |
    port: "8080"
    backend:
      grpc_address: backend:50051
"""
# the Spring test's Deployment mounting orders-settings, running this folder's image
ORDERS = SPRING_ORDERS.replace("registry.example/svc:1.0", "registry.example/orders:1.0")
DOCKERFILE = """\
FROM golang:1.22 AS build
COPY . /src
RUN cd /src && go build -o /orders .
FROM gcr.io/distroless/static
COPY --from=build /orders /orders
ENTRYPOINT ["/orders"]
"""


def tree(
    main: str = MAIN,
    file_name: str = "settings.yaml",
    mount: str = "/etc/orders",
    objects: str = "",
    **code: str,
) -> dict[str, str]:
    """The orders program (`main`, and more `code` by path) and its image, the backend's
    Service (and `objects`), and the ConfigMap mounted at `mount` holding `file_name`."""
    return {
        "orders/main.go": main,
        **code,
        "orders/go.mod": "module example.com/orders\n\ngo 1.22\n",
        "orders/Dockerfile": DOCKERFILE,
        "k8s.yaml": GRPC_SERVICE
        + BACKEND
        + objects
        + CONFIG_MAP.replace("FILE_NAME", file_name)
        + ORDERS.replace("MOUNT_PATH", mount),
    }


def run(tmp_path: Path, mount: str = "/etc/orders", file_name: str = "settings.yaml") -> list[str]:
    findings = lint_files(tmp_path, tree(file_name=file_name, mount=mount), ["KLB102"]).findings
    return [
        f"{f.path}:{f.line} {f.message} "
        + " ".join(f"{Path(r.path).name}:{r.line} {r.message}" for r in f.related)
        for f in findings
    ]


def test_a_settings_field_dials_the_address_the_mounted_file_sets_at_its_key(
    tmp_path: Path,
) -> None:
    (finding,) = run(tmp_path)
    assert "orders/main.go:25 " in finding
    assert "ClusterIP Service/backend" in finding
    # the ConfigMap's line that gives it, to change
    assert "k8s.yaml:39 backend.grpc_address: backend:50051" in finding


def test_a_file_mounted_where_the_program_does_not_look_gives_nothing(tmp_path: Path) -> None:
    assert run(tmp_path, mount="/etc/other") == []


def test_a_file_of_another_name_gives_nothing(tmp_path: Path) -> None:
    assert run(tmp_path, file_name="other.yaml") == []


def test_the_service_the_mounted_file_names_is_told_its_dialer(tmp_path: Path) -> None:
    files = tree(objects=HEADLESS_TWIN)
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert "orders/main.go:25 dials it, not its headless twin" in finding.message


CONFIG_PACKAGE = """\
package config

import (
\t"fmt"
\t"os"

\t"github.com/spf13/viper"
)

type Config struct {
\tEnv     string        `mapstructure:"env"`
\tBackend BackendConfig `mapstructure:"backend"`
}

type BackendConfig struct {
\tAddress string `mapstructure:"grpc_address"`
}

func Load() (*Config, error) {
\tenv := os.Getenv("ENV")
\tviper.SetConfigName(fmt.Sprintf("settings.%s", env))
\tviper.AddConfigPath("/etc/orders")
\tif err := viper.ReadInConfig(); err != nil {
\t\tfmt.Println(err)
\t}
\tvar cfg Config
\tif err := viper.Unmarshal(&cfg); err != nil {
\t\treturn nil, err
\t}
\treturn &cfg, nil
}
"""
CLIENT_PACKAGE = """\
package backend

import (
\t"google.golang.org/grpc"
\t"google.golang.org/grpc/credentials/insecure"
)

type Client struct {
\tconn *grpc.ClientConn
}

func NewClient(address string) (*Client, error) {
\tconn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()))
\tif err != nil {
\t\treturn nil, err
\t}
\treturn &Client{conn: conn}, nil
}

func (c *Client) Close() error {
\treturn c.conn.Close()
}
"""
MAIN_OF_PACKAGES = """\
package main

import (
\t"example.com/orders/internal/backend"
\t"example.com/orders/internal/config"
)

func main() {
\tcfg, err := config.Load()
\tif err != nil {
\t\tpanic(err)
\t}
\tclient, _ := backend.NewClient(cfg.Backend.Address)
\t_ = client
\tselect {}
}
"""


def test_a_field_of_the_settings_another_package_loads_dials_the_mounted_files_address(
    tmp_path: Path,
) -> None:
    # the file's name is built from the environment: any YAML file in the folder is read
    files = tree(
        MAIN_OF_PACKAGES,
        "settings.kind.yaml",
        **{
            "orders/internal/config/config.go": CONFIG_PACKAGE,
            "orders/internal/backend/client.go": CLIENT_PACKAGE,
        },
    )
    findings = lint_files(tmp_path, files, ["KLB102"]).findings
    (finding,) = [f"{f.path}:{f.line} {f.message} {f.related}" for f in findings]
    assert "orders/internal/backend/client.go:13 " in finding
    assert "ClusterIP Service/backend" in finding


def test_a_file_setconfigfile_names_is_read_where_it_is_mounted(tmp_path: Path) -> None:
    main = MAIN.replace(
        '\tviper.SetConfigName("settings")\n\tviper.AddConfigPath("/etc/orders")\n'
        '\tviper.AddConfigPath("./configs")\n',
        '\tviper.SetConfigFile("/etc/orders/settings.yml")\n',
    )
    assert "SetConfigFile" in main
    files = tree(main, "settings.yml")
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "ClusterIP Service/backend" in finding.message


def test_a_section_two_fields_hold_is_no_key(tmp_path: Path) -> None:
    # `Primary` and `Replica` are both a BackendConfig: which one a read is, is the code's
    main = MAIN.replace(
        '\tBackend BackendConfig `mapstructure:"backend"`\n',
        '\tBackend BackendConfig `mapstructure:"backend"`\n'
        '\tReplica BackendConfig `mapstructure:"replica"`\n',
    ).replace("cfg.Backend.Address", "cfg.Replica.Address")
    assert "Replica" in main
    files = tree(main)
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


# viper reading the environment: `backend.grpc_address` from BACKEND_GRPC_ADDRESS
ENVIRONMENT = (
    '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n'
    "\tviper.AutomaticEnv()\n"
    '\tviper.SetDefault("backend.grpc_address", "DEFAULT")\n'
)


def from_environment(default: str | None = "localhost:50051") -> str:
    main = MAIN.replace(
        '\t"github.com/spf13/viper"\n', '\t"strings"\n\n\t"github.com/spf13/viper"\n'
    )
    main = main.replace(
        "\t_ = viper.ReadInConfig()\n", "\t_ = viper.ReadInConfig()\n" + ENVIRONMENT
    )
    if default is None:
        return main.replace('\tviper.SetDefault("backend.grpc_address", "DEFAULT")\n', "")
    return main.replace("DEFAULT", default)


def with_env(value: str) -> str:
    """The orders Deployment with BACKEND_GRPC_ADDRESS set, and nothing mounted."""
    return ORDERS.split("          volumeMounts:")[0] + (
        f"          env:\n            - {{name: BACKEND_GRPC_ADDRESS, value: '{value}'}}\n"
    )


def environment_tree(main: str, deployment: str) -> dict[str, str]:
    files = tree(main)
    files["k8s.yaml"] = GRPC_SERVICE + BACKEND + deployment
    return files


def test_the_variable_automatic_env_reads_gives_a_settings_key_viper_knows(
    tmp_path: Path,
) -> None:
    files = environment_tree(from_environment(), with_env("backend:50051"))
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "ClusterIP Service/backend" in finding.message
    assert "BACKEND_GRPC_ADDRESS as Deployment/orders sets it" in finding.text
    # over the file a ConfigMap mounts, the variable wins
    mounted = tree(from_environment())
    mounted["k8s.yaml"] = mounted["k8s.yaml"].replace(
        "          volumeMounts:",
        "          env:\n            - {name: BACKEND_GRPC_ADDRESS, value: 'elsewhere:1'}\n"
        "          volumeMounts:",
    )
    assert lint_files(tmp_path / "mounted", mounted, ["KLB102"]).findings == []


def test_a_variable_of_a_key_viper_does_not_know_is_not_read(tmp_path: Path) -> None:
    """`viper.Unmarshal` reads the environment only for the keys a file or a default
    sets: with neither, the variable is not read."""
    files = environment_tree(from_environment(None), with_env("backend:50051"))
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


def test_the_default_viper_is_given_is_the_address_with_no_variable(tmp_path: Path) -> None:
    plain = ORDERS.split("          volumeMounts:")[0]
    files = environment_tree(from_environment("backend:50051"), plain)
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "the default viper gives backend.grpc_address" in finding.text
    other = environment_tree(from_environment(), plain)
    assert lint_files(tmp_path / "other", other, ["KLB102"]).findings == []


# viper told which variable a key reads (`BindEnv`): the key is known with no file or
# default, and its variable is the one named (else the key's own, after the prefix)
BOUND = (
    '\tviper.SetEnvPrefix("orders")\n'
    '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n'
    "\t_ = viper.BindEnv(BINDING)\n"
)


def bound(binding: str, *, files: bool = True, automatic: bool = False) -> str:
    main = MAIN.replace(
        '\t"github.com/spf13/viper"\n', '\t"strings"\n\n\t"github.com/spf13/viper"\n'
    )
    environment = BOUND.replace("BINDING", binding) + ("\tviper.AutomaticEnv()\n" * automatic)
    main = main.replace("\t_ = viper.ReadInConfig()\n", environment)
    if not files:  # the environment only: no settings file is looked for
        main = main.replace('\tviper.SetConfigName("settings")\n', "")
        main = main.replace('\tviper.AddConfigPath("/etc/orders")\n', "")
        main = main.replace('\tviper.AddConfigPath("./configs")\n', "")
    return main


def with_variable(name: str) -> str:
    return ORDERS.split("          volumeMounts:")[0] + (
        f"          env:\n            - {{name: {name}, value: 'backend:50051'}}\n"
    )


def test_a_key_bound_to_a_variable_reads_it_with_no_file(tmp_path: Path) -> None:
    main = bound('"backend.grpc_address", "UPSTREAM_ADDR"', files=False)
    files = environment_tree(main, with_variable("UPSTREAM_ADDR"))
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "UPSTREAM_ADDR as Deployment/orders sets it" in finding.text
    other = environment_tree(main, with_variable("BACKEND_GRPC_ADDRESS"))
    assert lint_files(tmp_path / "other", other, ["KLB102"]).findings == []


def test_a_key_bound_alone_reads_its_own_variable_after_the_prefix(tmp_path: Path) -> None:
    main = bound('"backend.grpc_address"', files=False)
    files = environment_tree(main, with_variable("ORDERS_BACKEND_GRPC_ADDRESS"))
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "ORDERS_BACKEND_GRPC_ADDRESS as Deployment/orders sets it" in finding.text


def test_a_key_two_variables_may_give_reads_neither(tmp_path: Path) -> None:
    """AutomaticEnv's own variable is looked up before the bound one: either may give it."""
    main = bound('"backend.grpc_address", "UPSTREAM_ADDR"', automatic=True)
    files = environment_tree(main, with_variable("UPSTREAM_ADDR"))
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []
