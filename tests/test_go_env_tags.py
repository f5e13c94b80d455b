"""Go clients whose address is a field of a config struct that an env library fills from
the struct tags: caarlos0/env's `env:"NAME"` (with `envDefault`), kelseyhightower/
envconfig's `envconfig:"NAME"` (upper-cased, with `default`). The field stands for the
variable, as `os.Getenv("NAME")` does, so the env a workload sets leads to the Service."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.languages.go.parse import analyse_go

from .helpers import lint_files

_IMPORTS = '\t"fmt"\n\t"log"\n\n\t"github.com/caarlos0/env"\n\t"google.golang.org/grpc"\n'


def _main(fields: str, dial: str, imports: str = _IMPORTS) -> str:
    return (
        f"package main\n\nimport (\n{imports})\n\n"
        f"type Config struct {{\n{fields}}}\n\n"
        "func main() {\n\tcfg := Config{}\n"
        "\tif err := env.Parse(&cfg); err != nil {\n\t\tlog.Fatal(err)\n\t}\n"
        f"\tconn, err := grpc.Dial({dial}, grpc.WithInsecure())\n"
        "\tif err != nil {\n\t\tpanic(err)\n\t}\n\tserve(conn)\n}\n"
    )


def _target(fields: str, dial: str, imports: str = _IMPORTS) -> object:
    [channel] = analyse_go("web/main.go", _main(fields, dial, imports).encode()).channels
    return channel.target


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ('\tAddr string `env:"BACKEND_ADDR"`\n', EnvRef("BACKEND_ADDR", None)),
        ('\tAddr string `env:"BACKEND_ADDR,required"`\n', EnvRef("BACKEND_ADDR", None)),
        (
            '\tAddr string `env:"BACKEND_ADDR" envDefault:"backend:50051"`\n',
            EnvRef("BACKEND_ADDR", "backend:50051"),
        ),
        ('\tAddr string `json:"addr" env:"BACKEND_ADDR"`\n', EnvRef("BACKEND_ADDR", None)),
        ('\tAddr string `envconfig:"backend_addr"`\n', EnvRef("BACKEND_ADDR", None)),
        (
            '\tAddr string `envconfig:"BACKEND_ADDR" default:"backend:50051"`\n',
            EnvRef("BACKEND_ADDR", "backend:50051"),
        ),
        ('\tAddr string `json:"addr"`\n', UNKNOWN),
        ('\tAddr string `env:"-"`\n', UNKNOWN),
        ('\tAddr string `myenv:"BACKEND_ADDR"`\n', UNKNOWN),
    ],
    ids=[
        "env",
        "env-options",
        "env-default",
        "among-other-keys",
        "envconfig-upper-cased",
        "envconfig-default",
        "no-env-tag",
        "env-skipped",
        "another-key",
    ],
)
def test_a_tagged_config_field_is_the_variable_its_tag_names(field: str, expected: object) -> None:
    assert _target(field, "cfg.Addr") == expected


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ("cfg.Mailer.Host", EnvRef("MAILER_HOST", None)),
        ("cfg.Backend.Host", EnvRef("BACKEND_HOST", "backend:50051")),
        ("cfg.Addr", EnvRef("ADDR", None)),
        ("s.cfg.Addr", EnvRef("ADDR", None)),
    ],
)
def test_a_field_of_a_nested_section_is_the_variable_of_that_sections_tag(
    read: str, expected: object
) -> None:
    """A config struct of sections (`Mailer struct { Host string ... }`) tags one field
    name in each: a read through the section's field is that section's variable; a read
    of a named type's field (`cfg.Addr`, or a struct field holding the config) is its own."""
    fields = (
        '\tMailer struct {\n\t\tHost string `env:"MAILER_HOST"`\n\t}\n'
        '\tBackend struct {\n\t\tHost string `env:"BACKEND_HOST" envDefault:"backend:50051"`\n\t}\n'
        '\tAddr string `env:"ADDR"`\n'
    )
    code = _main(fields, read).replace(
        "func main() {", "type server struct{ cfg Config }\n\nfunc main() {\n\ts := server{}"
    )
    [channel] = analyse_go("web/main.go", code.encode()).channels
    assert channel.target == expected


def test_a_prefix_makes_the_tags_name_only_the_end_of_the_variable() -> None:
    """caarlos0/env's `envPrefix` (or Options' Prefix) puts a prefix before the tag's
    name: which variable is read is not the tag's alone, so it is not guessed."""
    fields = '\tAddr string `env:"ADDR"`\n'
    prefixed = _main(fields, "cfg.Addr").replace(
        "env.Parse(&cfg)", 'env.ParseWithOptions(&cfg, env.Options{Prefix: "BACKEND_"})'
    )
    [channel] = analyse_go("web/main.go", prefixed.encode()).channels
    assert channel.target == UNKNOWN


def test_host_and_port_fields_formatted_together_read_both_variables(tmp_path: Path) -> None:
    """A front end's config struct of unexported host and port fields, formatted into the
    target once in main and kept for the process: the Deployment's env leads to the
    ClusterIP Service of scaled gRPC pods, a KLB102 warning quoting both variables."""
    fields = (
        '\tdataServiceHost string `env:"DATA_SERVICE_HOST"`\n'
        '\tdataServicePort int    `env:"DATA_SERVICE_PORT"`\n'
    )
    code = _main(fields, 'fmt.Sprintf("%s:%d", cfg.dataServiceHost, cfg.dataServicePort)')
    code += "\nfunc serve(conn *grpc.ClientConn) {\n\tfmt.Println(conn)\n}\n"
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
        "  replicas: 3\n  selector:\n    matchLabels: {app: web}\n  template:\n"
        "    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n"
        "        - name: web\n          image: registry.example/web:1.0\n          env:\n"
        "            - name: DATA_SERVICE_HOST\n              value: data-svc\n"
        "            - name: DATA_SERVICE_PORT\n              value: '1111'\n"
    )
    data = (
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: data-svc\nspec:\n"
        "  selector: {app: data}\n  ports:\n    - name: grpc\n      port: 1111\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: data\nspec:\n"
        "  replicas: 3\n  selector:\n    matchLabels: {app: data}\n  template:\n"
        "    metadata:\n      labels: {app: data}\n    spec:\n      containers:\n"
        "        - name: data\n          image: registry.example/data:1.0\n"
        "          ports: [{name: grpc, containerPort: 1111}]\n"
    )
    files = {"web/main.go": code, "k8s/app.yaml": deployment + data}
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.severity.label == "warning"
    assert finding.message == "gRPC channel to ClusterIP Service/data-svc stays on one pod"
    assert "it dials 'data-svc:1111' (DATA_SERVICE_HOST and DATA_SERVICE_PORT as" in finding.text
