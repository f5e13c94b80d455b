"""One image name built from two folders apart: kubebuilder's scaffold leaves `IMG ?=
controller:latest` and `docker build -t ${IMG} .` in each component's Makefile, and each
component's `config/manager/manager.yaml` runs `image: controller:latest`. The manifest
in a component's folder runs that component's build; one in neither folder links no code
(which of the two runs is unsaid), never the first build read."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_links import links

MAKEFILE = (
    "IMG ?= controller:latest\n\n"
    "build:\n\tgo build -o bin/manager cmd/main.go\n\n"
    "docker-build:\n\tdocker build -t ${IMG} .\n\n"
    "deploy:\n\tcd config/manager && kustomize edit set image controller=${IMG}\n"
)
DOCKERFILE = (
    "FROM golang:1.22 AS builder\nWORKDIR /workspace\nCOPY . .\n"
    "RUN CGO_ENABLED=0 go build -o manager cmd/main.go\n"
    "FROM gcr.io/distroless/static:nonroot\nCOPY --from=builder /workspace/manager /manager\n"
    'ENTRYPOINT ["/manager"]\n'
)
MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: controller-manager, namespace: system}
spec:
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata: {labels: {control-plane: controller-manager}}
    spec:
      containers:
        - name: manager
          image: controller:latest
          command: [/manager]
          args: [--leader-elect]
"""


def component(name: str) -> dict[str, str]:
    return {
        f"{name}/go.mod": f"module example.com/fleet/{name}\n\ngo 1.22\n",
        f"{name}/cmd/main.go": "package main\n\nfunc main() {}\n",
        f"{name}/Makefile": MAKEFILE,
        f"{name}/Dockerfile": DOCKERFILE,
    }


def test_a_manifest_in_neither_folder_links_no_code(tmp_path: Path) -> None:
    files = {
        **component("balancer"),
        **component("placer"),
        "installer/go.mod": "module example.com/fleet/installer\n\ngo 1.22\n",
        "installer/config/manager/manager.yaml": MANAGER,
    }
    (row,) = links(tmp_path, files)
    assert row["code"] is None, row
    assert "balancer" in row["why_not"] and "placer" in row["why_not"], row


def test_a_manifest_in_a_component_s_folder_links_that_component(tmp_path: Path) -> None:
    files = {
        **component("balancer"),
        **component("placer"),
        "placer/config/manager/manager.yaml": MANAGER,
    }
    (row,) = links(tmp_path, files)
    assert row["code"] == os.path.join("placer", "cmd"), row
