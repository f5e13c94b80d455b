"""Code no container is linked to is judged meshed when every workload that may run it
(each with a container left unlinked) is in a mesh: a link k8slb failed to make (an image
named after the product, code in `server/`) loses no mesh the tree declares, and KLB103
and KLB201 stay quiet where the sidecars balance each call. One unmeshed workload that
may run it keeps the findings."""

from __future__ import annotations

from pathlib import Path

from k8slb.rulekit.examples import go_server
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files

MESHED_NAMESPACE = (
    "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
    "  labels: {istio-injection: enabled}\n"
)
# a Go client dialing with no scheme: passthrough, one address whatever the policy
CLIENT = """\
package main

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var conn, _ = grpc.Dial(
	"backend.shop.svc.cluster.local:50051",
	grpc.WithTransportCredentials(insecure.NewCredentials()),
)
"""
CLIENT_DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: caller
  namespace: shop
spec:
  selector:
    matchLabels: {app: caller}
  template:
    metadata:
      labels: {app: caller}
    spec:
      containers:
        - name: caller
          image: registry.example/demo:caller
"""


def in_shop(manifest: str) -> str:
    return manifest.replace("  name: backend\n", "  name: backend\n  namespace: shop\n", 1)


def tree(*, caller_namespace: str = "shop") -> dict[str, str]:
    """A server in `server/` and a client in `client/`, run by images no build names
    (so linked to no container), deployed in the Istio-injected namespace `shop`."""
    manifests = (
        in_shop(GRPC_SERVICE)
        + in_shop(BACKEND)
        + CLIENT_DEPLOYMENT.replace("namespace: shop", f"namespace: {caller_namespace}")
        + MESHED_NAMESPACE
    )
    return {
        "deploy/app.yaml": manifests,
        "server/main.go": go_server(),
        "client/main.go": CLIENT,
    }


def test_unlinked_code_whose_every_possible_runner_is_meshed_is_not_reported(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, tree(), ["KLB103", "KLB201"]).findings
    assert found == []


def test_one_unmeshed_workload_that_may_run_the_code_keeps_the_findings(tmp_path: Path) -> None:
    # the caller runs in `default`, which injects no sidecar: it may run either program
    found = lint_files(tmp_path, tree(caller_namespace="default"), ["KLB103", "KLB201"]).findings
    assert sorted(f.rule for f in found) == ["KLB103", "KLB201"]
