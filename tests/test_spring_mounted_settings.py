"""A Spring `application.yaml` held in a ConfigMap and mounted where Spring reads settings
(a `config` folder, or a location SPRING_CONFIG_LOCATION names) gives the starter's
channels their address over the jar's own settings, in the containers that mount it
(model/addresses_spring.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files
from .test_spring import RESOURCES

# The jar's settings: the channel dials a sidecar-less localhost, as in development.
JAR = """\
grpc:
  client:
    backend:
      address: static://localhost:50051
      negotiation-type: plaintext
"""
CONFIG_MAP = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: orders-settings
data:
  application.yaml: |
    grpc:
      client:
        backend:
          address: static://backend:50051
"""
ORDERS = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: registry.example/svc:1.0
          volumeMounts:
            - {name: settings, mountPath: MOUNT_PATH}
      volumes:
        - name: settings
          configMap: {name: orders-settings}
"""
DOCKERFILE = "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n"


def run(tmp_path: Path, deployment: str, config_map: str = CONFIG_MAP) -> list[str]:
    files = {
        f"{RESOURCES}/application.yml": JAR,
        "svc/Dockerfile": DOCKERFILE,
        "k8s.yaml": GRPC_SERVICE + BACKEND + config_map + deployment,
    }
    findings = lint_files(tmp_path, files, ["KLB102"]).findings
    return [f"{f.path}:{f.line} {f.message} {f.text} {f.related}" for f in findings]


@pytest.mark.parametrize("mount", ["/config", "/app/config/"])
def test_settings_mounted_in_a_config_folder_override_the_jars_address(
    tmp_path: Path, mount: str
) -> None:
    (finding,) = run(tmp_path, ORDERS.replace("MOUNT_PATH", mount))
    assert f"{RESOURCES}/application.yml:4 " in finding
    assert "ClusterIP Service/backend" in finding
    # the line of the ConfigMap that gives it
    assert "ConfigMap orders-settings's application.yaml" in finding
    assert "k8s.yaml:40" in finding


def test_a_location_spring_config_location_names_is_read(tmp_path: Path) -> None:
    env = (
        "          env:\n"
        "            - {name: SPRING_CONFIG_LOCATION, value: 'optional:file:/etc/orders/'}\n"
    )
    deployment = ORDERS.replace("MOUNT_PATH", "/etc/orders").replace(
        "          volumeMounts:", env + "          volumeMounts:"
    )
    (finding,) = run(tmp_path, deployment)
    assert "ClusterIP Service/backend" in finding


def test_settings_mounted_where_spring_reads_none_change_nothing(tmp_path: Path) -> None:
    assert run(tmp_path, ORDERS.replace("MOUNT_PATH", "/etc/orders")) == []


def test_a_mounted_placeholder_is_read_from_the_containers_env(tmp_path: Path) -> None:
    config_map = CONFIG_MAP.replace("static://backend:50051", "static://${BACKEND_HOST}:50051")
    env = "          env:\n            - {name: BACKEND_HOST, value: backend}\n"
    deployment = ORDERS.replace("MOUNT_PATH", "/config").replace(
        "          volumeMounts:", env + "          volumeMounts:"
    )
    (finding,) = run(tmp_path, deployment, config_map)
    assert "ClusterIP Service/backend" in finding
    assert run(tmp_path / "unset", ORDERS.replace("MOUNT_PATH", "/config"), config_map) == []
