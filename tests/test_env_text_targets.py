"""A target made of several environment values (`host + ":" + port`, each from the
environment, directly or through locals and fields): followed to the Service as the
container that runs the code sets every one of them (facts.EnvText, addresses.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef, EnvText, joined
from k8slb.core.findings import Severity
from k8slb.languages.java.parse import parse
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files

# A load generator that keeps one grpc-java channel for its life, its address in two
# variables of its Deployment.
CLIENT = """\
package com.example.loadgen;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class LoadGenerator {
  private final String host = System.getenv("BACKEND_HOST");

  public static void main(String[] args) throws Exception {
    new LoadGenerator().run();
  }

  void run() {
    String port = System.getenv("BACKEND_PORT");
    ManagedChannel channel = ManagedChannelBuilder.forTarget(TARGET)
        .usePlaintext()
        .build();
    while (true) {
      EchoGrpc.newBlockingStub(channel).echo(Ping.getDefaultInstance());
    }
  }
}
"""
LOADGEN = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: loadgen
spec:
  selector:
    matchLabels: {app: loadgen}
  template:
    metadata:
      labels: {app: loadgen}
    spec:
      containers:
        - name: loadgen
          image: registry.example/loadgen:1.0
          env:
            - name: BACKEND_HOST
              value: backend
            - name: BACKEND_PORT
              value: "50051"
"""


def client(target: str = 'host + ":" + port') -> str:
    return CLIENT.replace("TARGET", target)


@pytest.mark.parametrize(
    "target",
    [
        'host + ":" + port',
        'System.getenv("BACKEND_HOST") + ":" + System.getenv("BACKEND_PORT")',
        'String.format("%s:%s", host, port)',
    ],
    ids=["locals-and-fields", "getenv-in-place", "format"],
)
def test_a_target_of_two_environment_values_is_kept_with_the_text_between(target: str) -> None:
    (channel,) = parse("LoadGenerator.java", client(target).encode()).channels
    assert channel.target == EnvText((EnvRef("BACKEND_HOST"), ":", EnvRef("BACKEND_PORT")))


def test_for_address_with_host_and_port_from_the_environment() -> None:
    text = client().replace(
        'forTarget(host + ":" + port)',
        'forAddress(System.getenv("BACKEND_HOST"), '
        'Integer.parseInt(System.getenv("BACKEND_PORT")))',
    )
    (channel,) = parse("LoadGenerator.java", text.encode()).channels
    assert channel.target == EnvText((EnvRef("BACKEND_HOST"), ":", EnvRef("BACKEND_PORT")))


def test_text_of_several_environment_values_is_flattened_and_bounded() -> None:
    scheme = EnvRef("HOST", "localhost", "dns:///")
    made = joined([scheme, ":", EnvRef("PORT", "50051")])
    assert made == EnvText((("dns:///"), EnvRef("HOST", "localhost"), ":", EnvRef("PORT", "50051")))
    assert made.default_text == "dns:///localhost:50051"
    assert made.filled({"HOST": "backend"}) == "dns:///backend:50051"
    assert EnvText((EnvRef("HOST"), ":", EnvRef("PORT"))).default_text is None
    assert joined([made, "/", made]) != UNKNOWN
    assert joined([EnvRef("A"), "x" * 5000, EnvRef("B")]) == UNKNOWN


def test_the_channel_is_followed_to_the_service_its_container_names(tmp_path: Path) -> None:
    files = {
        "loadgen/src/main/java/LoadGenerator.java": client(),
        "deploy/k8s.yaml": GRPC_SERVICE + BACKEND + LOADGEN,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert (finding.line, finding.severity) == (15, Severity.WARNING)
    assert "ClusterIP Service/backend" in finding.message
    assert "BACKEND_HOST and BACKEND_PORT as Deployment/loadgen sets them" in finding.text


def test_a_container_that_sets_another_port_dials_no_grpc_port(tmp_path: Path) -> None:
    files = {
        "loadgen/src/main/java/LoadGenerator.java": client(),
        "deploy/k8s.yaml": GRPC_SERVICE + BACKEND + LOADGEN.replace('"50051"', '"8080"'),
    }
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


def test_a_server_address_of_two_environment_values_gives_its_port(tmp_path: Path) -> None:
    server = (
        "const grpc = require('@grpc/grpc-js');\n"
        "const server = new grpc.Server();\n"
        "server.bindAsync(`${process.env.BIND_HOST}:${process.env.BIND_PORT}`,\n"
        "  grpc.ServerCredentials.createInsecure(), () => {});\n"
        "process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));\n"
    )
    service = GRPC_SERVICE.replace("name: grpc", "name: tcp")  # its name says nothing
    backend = BACKEND.replace(
        "          ports:",
        "          env:\n            - name: BIND_HOST\n              value: 0.0.0.0\n"
        "            - name: BIND_PORT\n              value: '50051'\n          ports:",
    ).replace("- name: grpc", "- name: tcp")
    files = node_backend("server.js", server, service + backend)
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert "its code serves gRPC on 50051" in finding.text


@pytest.mark.parametrize(
    ("env", "port"),
    [
        ("            - name: LISTEN_PORT\n              value: '50051'\n", 50051),
        ("", 7001),  # none set: the defaults the code gives
        ("            - name: LISTEN_ADDR\n              value: 0.0.0.0:50051\n", 50051),
    ],
    ids=["port-set", "defaults", "address-set"],
)
def test_a_destructured_default_made_of_another_variable_gives_the_servers_port(
    tmp_path: Path, env: str, port: int
) -> None:
    """`const { LISTEN_ADDR = `0.0.0.0:${LISTEN_PORT}` } = process.env`: the address is
    the container's own, else its port as the container sets it, else the defaults."""
    server = (
        "import { Server, ServerCredentials } from '@grpc/grpc-js';\n"
        "const { LISTEN_PORT = 7001 } = process.env;\n"
        "const { LISTEN_ADDR = `0.0.0.0:${LISTEN_PORT}` } = process.env;\n"
        "const server = new Server();\n"
        "server.bindAsync(LISTEN_ADDR, ServerCredentials.createInsecure(), () => server.start());\n"
        "process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));\n"
    )
    service = GRPC_SERVICE.replace("name: grpc", f'name: "{port}"').replace("50051", str(port))
    backend = BACKEND.replace("          ports:", f"          env:\n{env}          ports:")
    backend = backend.replace("- name: grpc", "- name: tcp").replace("50051", str(port))
    files = node_backend("server.ts", server, service + backend)
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert f"its code serves gRPC on {port}" in finding.text


def test_values_a_config_map_loads_with_env_from_are_the_containers_too(tmp_path: Path) -> None:
    # a ConfigMap's keys loaded whole (`envFrom`, with a prefix): BACKEND_HOST and
    # BACKEND_PORT, one of them overridden by the container's own `env`
    loaded = LOADGEN.split("          env:")[0] + (
        "          envFrom:\n            - configMapRef: {name: loadgen-config}\n"
        "              prefix: BACKEND_\n"
        "          env:\n            - {name: BACKEND_PORT, value: '50051'}\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: loadgen-config}\n"
        "data:\n  HOST: backend\n  PORT: '8080'\n"
    )
    files = {
        "loadgen/src/main/java/LoadGenerator.java": client(),
        "deploy/k8s.yaml": GRPC_SERVICE + BACKEND + loaded,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "'backend:50051'" in finding.text
    assert "BACKEND_PORT as Deployment/loadgen sets them" in finding.text
    # a ConfigMap of another name loads nothing
    files["deploy/k8s.yaml"] = (
        GRPC_SERVICE
        + BACKEND
        + loaded.replace("configMapRef: {name: loadgen-config}", "configMapRef: {name: x}")
    )
    assert lint_files(tmp_path / "other", files, ["KLB102"]).findings == []


# A Django project's worker: its address in the project's settings module, read from the
# environment there, through `django.conf.settings` into fields, its channel's stub kept.
DJANGO_SETTINGS = """\
import os

BACKEND_HOST = os.environ.get("BACKEND_HOST", "localhost")
BACKEND_PORT = os.environ.get("BACKEND_PORT", "50051")
"""
DJANGO_WORKER = """\
import os

import django
import grpc

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
django.setup()

from django.conf import settings

from proto import echo_pb2_grpc


class Worker:
    def __init__(self):
        self.host = settings.BACKEND_HOST
        self.port = settings.BACKEND_PORT
        self.connect()

    def connect(self):
        channel = grpc.insecure_channel(f"{self.host}:{self.port}")
        self.stub = echo_pb2_grpc.EchoStub(channel)


if __name__ == "__main__":
    worker = Worker()
"""


def django_project(settings: dict[str, str]) -> dict[str, str]:
    return {
        "loadgen/manage.py": "import os\n",
        "loadgen/shop/__init__.py": "",
        **settings,
        "loadgen/worker.py": DJANGO_WORKER,
        "deploy/k8s.yaml": GRPC_SERVICE + BACKEND + LOADGEN,
    }


def test_django_settings_are_read_from_the_projects_settings_module(tmp_path: Path) -> None:
    files = django_project({"loadgen/shop/settings.py": DJANGO_SETTINGS})
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert (finding.path.endswith("loadgen/worker.py"), finding.line) == (True, 21)
    assert "BACKEND_HOST and BACKEND_PORT as Deployment/loadgen sets them" in finding.text


def test_django_settings_of_a_project_with_two_settings_modules_are_unknown(
    tmp_path: Path,
) -> None:
    files = django_project(
        {
            "loadgen/shop/settings.py": DJANGO_SETTINGS,
            "loadgen/other/__init__.py": "",
            "loadgen/other/settings.py": DJANGO_SETTINGS.replace("BACKEND_", "OTHER_"),
        }
    )
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


def test_a_local_channel_whose_stub_an_attribute_keeps_is_long_lived() -> None:
    from k8slb.languages.python.parse import analyse

    worker = DJANGO_WORKER.replace("settings.BACKEND_HOST", "os.environ['BACKEND_HOST']")
    (kept,) = analyse("worker.py", worker.encode()).channels
    assert kept.long_lived
    used = worker.replace(
        "self.stub = echo_pb2_grpc.EchoStub(channel)",
        "stub = echo_pb2_grpc.EchoStub(channel)\n        stub.Echo(None)",
    )
    (once,) = analyse("worker.py", used.encode()).channels
    assert not once.long_lived


def node_backend(name: str, server: str, manifests: str) -> dict[str, str]:
    """A Node.js backend (its server module `name`) that skaffold builds from backend/ and
    deploy/k8s.yaml runs."""
    return {
        f"backend/{name}": server,
        "backend/package.json": "{}",
        "backend/Dockerfile": "FROM node:20\nWORKDIR /app\nCOPY . /app\n"
        'CMD ["node", "server.js"]\n',
        "skaffold.yaml": "build:\n  artifacts:\n    - image: registry.example/backend\n"
        "      context: backend\n",
        "deploy/k8s.yaml": manifests,
    }
