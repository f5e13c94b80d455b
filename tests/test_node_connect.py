"""connect-node's client transports (languages/javascript/parse_connect.py): an HTTP/2
transport keeps one connection to its `baseUrl`'s origin, so one made once for the process
and dialling a ClusterIP Service is KLB102's, with advice that fits a library with no
balancing policy. A kustomize overlay's patch that adds a key to a base's ConfigMap gives
`envFrom` that key."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import CONNECT_ADDRESS, EnvRef
from k8slb.languages.javascript.parse import parse_typescript
from k8slb.model.addresses import parse_grpc_target

from .helpers import lint_files

RPC = """\
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { LedgerService } from "@/gen/ledger/v1/ledger_pb";

const baseUrl = process.env.LEDGER_URL ?? "http://localhost:9001";
const transport = createGrpcTransport({ baseUrl });

export const ledger = createClient(LedgerService, transport);
"""


def channels(text: str) -> list[object]:
    return list(parse_typescript("web/src/lib/rpc.ts", text.encode()).channels)


def test_a_module_level_grpc_transport_is_a_long_lived_channel() -> None:
    (channel,) = parse_typescript("web/src/lib/rpc.ts", RPC.encode()).channels
    assert (channel.factory, channel.loc.line, channel.long_lived) == (
        "createGrpcTransport",
        6,
        True,
    )
    assert channel.target == EnvRef("LEDGER_URL", "http://localhost:9001")
    assert channel.default_scheme == CONNECT_ADDRESS and not channel.options.complete


@pytest.mark.parametrize(
    ("made", "read"),
    [
        ('createConnectTransport({ baseUrl, httpVersion: "2" })', 1),
        ('createConnectTransport({ baseUrl, httpVersion: "1.1" })', 0),
        ("createConnectTransport({ baseUrl })", 0),
        ("createGrpcWebTransport({ baseUrl, sessionManager })", 1),
        ("createGrpcTransport(options)", 0),
    ],
    ids=["connect-http2", "connect-http1", "no-version", "session-manager", "options-elsewhere"],
)
def test_only_http2_transports_are_channels(made: str, read: int) -> None:
    text = RPC.replace("createGrpcTransport({ baseUrl })", made).replace(
        "import { createGrpcTransport }",
        "import { createConnectTransport, createGrpcTransport, createGrpcWebTransport }",
    )
    assert len(channels(text)) == read


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        (
            "let transport;\nexport function rpc() {\n"
            "  if (!transport) transport = createGrpcTransport({ baseUrl: URL });\n"
            "  return transport;\n}\n",
            True,
        ),
        (
            "export class Ledger {\n  connect() {\n"
            "    this.client = createClient(S, createGrpcTransport({ baseUrl: URL }));\n  }\n}\n",
            True,
        ),
        (
            "export async function handler(req) {\n"
            "  const t = createGrpcTransport({ baseUrl: URL });\n"
            "  return createClient(S, t).get(req.body);\n}\n",
            False,
        ),
        (
            "let transport;\nexport function rpc(transport) {\n"
            "  transport = createGrpcTransport({ baseUrl: URL });\n  return transport;\n}\n",
            False,
        ),
    ],
    ids=["kept-in-a-module-variable", "kept-in-a-field", "per-request", "own-parameter"],
)
def test_a_transport_made_in_a_function_counts_only_when_kept(code: str, kept: bool) -> None:
    head = (
        'import { createGrpcTransport } from "@bufbuild/connect-node";\n'
        'const URL = "http://ledger:9001";\n'
    )
    found = channels(head + code)
    assert len(found) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("base", "host", "port"),
    [
        ("http://ledger:9001", "ledger", 9001),
        ("http://ledger:9001/api/", "ledger", 9001),
        ("http://ledger.shop.svc.cluster.local", "ledger.shop.svc.cluster.local", 80),
        ("https://ledger", "ledger", 443),
    ],
)
def test_a_base_url_dials_its_origin(base: str, host: str, port: int) -> None:
    address = parse_grpc_target(base, CONNECT_ADDRESS)
    assert (address.host, address.port, address.reach) == (host, port, "cluster")


def test_a_base_url_that_is_no_http_url_dials_nothing_known() -> None:
    assert parse_grpc_target("ledger:9001", CONNECT_ADDRESS).reach == "other"


LEDGER = """\
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: http, port: 9001, targetPort: 9001}]
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
          image: registry.example/ledger:1.0
          ports: [{containerPort: 9001}]
"""
WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example/web:1.0
          envFrom: [{configMapRef: {name: web}}]
"""
KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
PROJECT = {
    "web/package.json": '{"name": "web", "dependencies": {"@connectrpc/connect-node": "^2"}}\n',
    "web/Dockerfile": 'FROM node:22\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n',
    "web/src/lib/rpc.ts": RPC,
    "web/kubernetes/base/deployment.yaml": WEB,
    "web/kubernetes/base/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: web}\ndata: {}\n",
    "web/kubernetes/base/kustomization.yaml": KUSTOMIZATION
    + "resources: [deployment.yaml, configmap.yaml]\n",
    "web/kubernetes/overlays/prod/kustomization.yaml": KUSTOMIZATION
    + "resources:\n  - ../../base\npatches:\n  - path: configmap.yaml\n",
    "web/kubernetes/overlays/prod/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: web}\ndata:\n  LEDGER_URL: http://ledger:9001\n",
    "ledger/k8s.yaml": LEDGER,
}


def test_a_transport_to_a_clusterip_service_an_overlay_names_is_klb102(tmp_path: Path) -> None:
    found = lint_files(tmp_path, PROJECT, ["KLB102"]).findings
    (finding,) = found
    assert finding.path.endswith("web/src/lib/rpc.ts") and finding.line == 6
    assert "createGrpcTransport() transport to ClusterIP Service/ledger stays on one pod" in (
        finding.message
    )
    said = finding.text
    assert "LEDGER_URL in ConfigMap web" in said
    assert "maximum connection age" in said and "round_robin" not in said
    assert not finding.edits
