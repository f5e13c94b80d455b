"""A client's code is judged by the worst deployment it can be part of: where the tree
holds several copies of the Service a channel dials (the same namespace and name in
several folders: scenarios, alternatives, overlays), KLB102's severity is that of the
copy whose pods are scaled, and the message names that copy; KLB101 still judges each
copy of the Service on its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HPA

from .helpers import lint_files

_CLIENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
  namespace: shop
spec:
  selector:
    matchLabels: {app: gateway}
  template:
    metadata:
      labels: {app: gateway}
    spec:
      containers:
        - name: gateway
          image: registry.example/gateway:1.0
          env:
            - name: BACKEND_ADDR
              value: backend.shop.svc.cluster.local:50051
"""
# The gateway's code, built into the image the Deployments run (a skaffold artifact).
_CODE = {
    "gateway/app.py": (
        "import os\n\nimport grpc\n\nchannel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n"
    ),
    "gateway/Dockerfile": 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/app.py"]\n',
    "skaffold.yaml": (
        "build:\n  artifacts:\n    - image: registry.example/gateway\n      context: gateway\n"
    ),
}


def _copy(replicas: int, *, scaled: bool = False) -> str:
    """One deployment of the application: the backend's Service and pods, the gateway."""
    service = GRPC_SERVICE.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    backend = BACKEND.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    backend = backend.replace("replicas: 3", f"replicas: {replicas}")
    hpa = HPA.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    return service + backend + (hpa if scaled else "") + _CLIENT


@pytest.mark.parametrize("scenario", ["a-scaled", "z-scaled"])
def test_a_channel_is_judged_by_the_scaled_copy_of_the_service_it_dials(
    tmp_path: Path, scenario: str
) -> None:
    """One replica in the base folder, an HPA in a scenario's copy: the channel reaches
    the scaled pods when that scenario is applied, so it is a warning whichever folder
    sorts first, and the message says which copy gave it."""
    files = {
        **_CODE,
        "k8s/app.yaml": _copy(1),
        f"k8s/scenarios/{scenario}/app.yaml": _copy(1, scaled=True),
    }
    found = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    services = sorted(
        (str(Path(f.path).relative_to(tmp_path)), f.severity.label)
        for f in found
        if f.rule == "KLB101"
    )
    assert services == sorted(
        [("k8s/app.yaml", "info"), (f"k8s/scenarios/{scenario}/app.yaml", "warning")]
    ), "each copy of the Service keeps its own judgement"
    (client,) = [f for f in found if f.rule == "KLB102"]
    assert client.severity.label == "warning"
    copy = tmp_path / "k8s" / "scenarios" / scenario / "app.yaml"
    assert f"2 files hold Service/shop/backend: judged by the worst for this channel, {copy}:" in (
        client.text
    )
    assert "(HorizontalPodAutoscaler/backend scales Deployment/shop/backend up to 10" in (
        client.text
    ), "why that copy is the worst"
    # the address quoted is the one given beside that copy
    assert f"the address from {copy}:" in client.text
    assert "runs one replica and nothing scales it" not in client.text


def test_a_channel_whose_every_copy_runs_one_replica_stays_info(tmp_path: Path) -> None:
    files = {**_CODE, "k8s/app.yaml": _copy(1), "k8s/scenarios/other/app.yaml": _copy(1)}
    found = lint_files(tmp_path, files, ["KLB102"]).findings
    (client,) = found
    assert client.severity.label == "info"
    assert "(every copy runs one replica; " in client.text
    first = tmp_path / "k8s" / "app.yaml"
    assert f"judged by the worst for this channel, {first}:" in client.text, "first by path"


def test_a_single_copy_says_nothing_of_copies(tmp_path: Path) -> None:
    (client,) = lint_files(tmp_path, {**_CODE, "k8s/app.yaml": _copy(3)}, ["KLB102"]).findings
    assert client.severity.label == "warning"
    assert "files hold" not in client.text
