"""A gRPC client whose address is a property of an object its program read from a
configuration file (`processor.addr`, k8slb not following the parsing) dials what the
YAML or JSON files its containers mount from a ConfigMap or a Secret set at a key of that
name: KLB102 reports it when the Service named there shows gRPC by evidence of its own."""

from __future__ import annotations

import base64
from pathlib import Path

from k8slb.code.facts import FileKey
from k8slb.languages.javascript.parse import parse

from .helpers import lint_files

# A router that reads its upstreams from a mounted file and keeps one client for each.
ROUTER = """\
import * as grpc from "@grpc/grpc-js"
import { loadConfig } from "./config"
import { ROUTE_PROTO } from "./proto"

export function connectUpstreams(upstreams: { name: string; addr: string }[]) {
  const clients = new Map<string, unknown>()
  for (const upstream of upstreams) {
    clients.set(
      upstream.name,
      new (ROUTE_PROTO as any).Router(upstream.addr, grpc.credentials.createInsecure())
    )
  }
  return clients
}

const config = loadConfig("/etc/router/router.yaml")
export const upstreams = connectUpstreams(config.spec.upstreams)
"""
ROUTER_FILE = """\
kind: Router
spec:
  listen: 0.0.0.0:7000
  upstreams:
    - name: ranking
      addr: ranking.shop:7100
"""
BUILT = {
    "router/package.json": '{"name": "router", "main": "dist/index.js"}\n',
    "router/Dockerfile": 'FROM node:22-slim\nCOPY . /app\nCMD ["node", "/app/dist/index.js"]\n',
    "skaffold.yaml": (
        "build:\n  artifacts:\n    - image: registry.example/router\n      context: router\n"
    ),
}


def _manifests(config: str, probe: str = "grpc: {port: 7100}") -> str:
    return f"""\
{config}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: router, namespace: shop}}
spec:
  selector:
    matchLabels: {{app: router}}
  template:
    metadata:
      labels: {{app: router}}
    spec:
      containers:
        - name: router
          image: registry.example/router:1.0
          volumeMounts:
            - name: config
              mountPath: /etc/router/router.yaml
              subPath: router.yaml
      volumes:
        - name: config
          configMap: {{name: router-config}}
---
apiVersion: v1
kind: Service
metadata: {{name: ranking, namespace: shop}}
spec:
  selector: {{app: ranking}}
  ports: [{{port: 7100}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ranking, namespace: shop}}
spec:
  replicas: 4
  selector:
    matchLabels: {{app: ranking}}
  template:
    metadata:
      labels: {{app: ranking}}
    spec:
      containers:
        - name: ranking
          image: registry.example/ranking:1.0
          ports: [{{containerPort: 7100}}]
          livenessProbe:
            {probe}
"""


def _config_map(text: str) -> str:
    indented = "".join(f"    {line}\n" for line in text.splitlines())
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: router-config, namespace: shop}\n"
        f"data:\n  router.yaml: |\n{indented}"
    )


def _files(manifests: str) -> dict[str, str]:
    return {"router/src/router.ts": ROUTER, "k8s/router.yaml": manifests, **BUILT}


def test_a_property_of_an_object_read_from_a_file_is_that_file_s_key() -> None:
    (channel,) = parse("router/src/router.ts", ROUTER.encode()).channels
    assert channel.long_lived and channel.target == FileKey("addr")


def test_the_address_a_mounted_config_map_gives_the_key_is_dialled(tmp_path: Path) -> None:
    files = _files(_manifests(_config_map(ROUTER_FILE)))
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("router.ts") and finding.line == 10
    assert "gRPC channel to ClusterIP Service/shop/ranking stays on one pod" in finding.message
    assert "spec.upstreams[0].addr in ConfigMap router-config's router.yaml" in finding.text


def test_a_secret_s_json_file_gives_it_too(tmp_path: Path) -> None:
    text = '{"spec": {"upstreams": [{"name": "ranking", "addr": "ranking.shop:7100"}]}}'
    secret = (
        "apiVersion: v1\nkind: Secret\nmetadata: {name: router-config, namespace: shop}\n"
        f"data:\n  router.json: {base64.b64encode(text.encode()).decode()}\n"
    )
    manifests = (
        _manifests(secret)
        .replace("configMap: {name: router-config}", "secret: {secretName: router-config}")
        .replace("router.yaml", "router.json")
    )
    (finding,) = lint_files(tmp_path, _files(manifests), ["KLB102"]).findings
    assert "Service/shop/ranking" in finding.message


def test_the_key_s_name_alone_shows_no_grpc_on_the_port(tmp_path: Path) -> None:
    """Matched by a key's name, the address may be anything's: the Service must show gRPC
    by evidence of its own (here, without its gRPC probe, it shows none)."""
    files = _files(_manifests(_config_map(ROUTER_FILE), "tcpSocket: {port: 7100}"))
    assert lint_files(tmp_path, files, ["KLB102", "KLB101"]).findings == []


def test_another_key_of_the_file_gives_nothing(tmp_path: Path) -> None:
    text = ROUTER_FILE.replace("      addr: ranking.shop:7100", "      target: ranking.shop:7100")
    files = _files(_manifests(_config_map(text)))
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


def test_the_container_s_own_service_named_in_its_file_is_not_dialled(tmp_path: Path) -> None:
    """A server's file names its own address, to listen on or to advertise."""
    own = ROUTER_FILE.replace("ranking.shop:7100", "router.shop:7100")
    manifests = _manifests(_config_map(own)).replace(
        "metadata: {name: ranking, namespace: shop}\nspec:\n  selector: {app: ranking}\n"
        "  ports: [{port: 7100}]",
        "metadata: {name: router, namespace: shop}\nspec:\n  selector: {app: router}\n"
        "  ports: [{name: grpc, port: 7100}]",
    )
    assert "name: router, namespace: shop}\nspec:\n  selector: {app: router}" in manifests
    assert lint_files(tmp_path, _files(manifests), ["KLB102"]).findings == []
