"""KLB101 and KLB201 where every gRPC client the scanned code has opens a channel per call
(`with grpc.insecure_channel(...)`): each call is a new connection that kube-proxy places
anew, so no client seen stays on one pod; info, saying so, since a client outside the
scanned code that keeps a channel would."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity

from .helpers import lint_files

INVENTORY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: inventory, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: inventory}}
  template:
    metadata: {labels: {app: inventory}}
    spec:
      containers:
        - name: server
          image: registry.example/inventory:1.0
          ports: [{name: grpc, containerPort: 7070}]
---
apiVersion: v1
kind: Service
metadata: {name: inventory, namespace: shop}
spec:
  type: TYPE
  selector: {app: inventory}
  ports: [{name: grpc, port: 7070}]
"""
CART = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: cart, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: cart}}
  template:
    metadata: {labels: {app: cart}}
    spec:
      containers:
        - name: cart
          image: registry.example/cart:1.0
          env: [{name: INVENTORY_ADDR, value: "inventory:7070"}]
"""
DOCKERFILE = 'FROM python:3.12\nWORKDIR /app\nCOPY . .\nCMD ["python", "{entry}"]\n'
SERVER = """\
import signal
from concurrent import futures

import grpc


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(4))
    server.add_insecure_port("[::]:7070")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(20))
    server.wait_for_termination()


serve()
"""
PER_CALL = """\
import os

import grpc


def stock(sku):
    with grpc.insecure_channel(os.environ["INVENTORY_ADDR"]) as channel:
        return channel.unary_unary("/inventory.Stock/Get")(sku)
"""
KEPT = """\
import os

import grpc

channel = grpc.insecure_channel(os.environ["INVENTORY_ADDR"])


def stock(sku):
    return channel.unary_unary("/inventory.Stock/Get")(sku)
"""


# a second client, which names the Service in a configuration file it mounts; what its code
# does with it is not known
REPORTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: reports, namespace: shop}
data:
  settings.yaml: |
    stock:
      address: inventory:7070
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: reports, namespace: shop}
spec:
  selector: {matchLabels: {app: reports}}
  template:
    metadata: {labels: {app: reports}}
    spec:
      containers:
        - name: reports
          image: registry.example/reports:1.0
          volumeMounts: [{name: conf, mountPath: /etc/reports}]
      volumes: [{name: conf, configMap: {name: reports}}]
"""


def findings(
    tmp_path: Path, client: str, kind: str = "ClusterIP", more: dict[str, str] | None = None
) -> dict[str, Finding]:
    files = {
        **(more or {}),
        "k8s/inventory.yaml": INVENTORY.replace("TYPE", kind),
        "k8s/cart.yaml": CART,
        "inventory/Dockerfile": DOCKERFILE.format(entry="server.py"),
        "inventory/server.py": SERVER,
        "cart/Dockerfile": DOCKERFILE.format(entry="client.py"),
        "cart/client.py": client,
    }
    found = lint_files(tmp_path, files, ["KLB101", "KLB201"]).findings
    return {finding.rule: finding for finding in found}


def test_a_service_whose_clients_all_dial_per_call_is_info_saying_so(tmp_path: Path) -> None:
    found = findings(tmp_path, PER_CALL)
    for rule in ("KLB101", "KLB201"):
        assert found[rule].severity is Severity.INFO, found[rule].text
        assert "open a channel per call (" in found[rule].text
        assert "cart/client.py:7)" in found[rule].text
        assert "a client outside the scanned code that keeps a channel" in found[rule].text
    assert found["KLB101"].edits  # the twin is still offered


def test_a_kept_channel_keeps_the_warning(tmp_path: Path) -> None:
    found = findings(tmp_path, KEPT)
    assert found["KLB101"].severity is Severity.WARNING
    assert found["KLB201"].severity is Severity.WARNING


@pytest.mark.parametrize("kind", ["NodePort", "LoadBalancer"])
def test_a_service_reached_from_outside_the_cluster_keeps_the_warning(
    tmp_path: Path, kind: str
) -> None:
    # its clients outside the cluster are not in the tree
    found = findings(tmp_path, PER_CALL, kind)
    assert found["KLB101"].severity is Severity.WARNING
    assert found["KLB201"].severity is Severity.WARNING


def test_a_client_naming_the_service_in_a_mounted_file_keeps_the_warning(tmp_path: Path) -> None:
    # a client is seen whose channel's lifetime is not known: it may keep one
    found = findings(tmp_path, PER_CALL, more={"k8s/reports.yaml": REPORTS})
    assert found["KLB101"].severity is Severity.WARNING, found["KLB101"].text
    assert found["KLB201"].severity is Severity.WARNING, found["KLB201"].text
