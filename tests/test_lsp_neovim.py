"""`k8slb lsp` under a real editor's client: Neovim, headless, runs
tests/editor_clients/neovim.lua, which opens a manifest and prints the diagnostics it is
sent and the code actions it is offered. pygls's own client drives the rest of the tests
(test_lsp.py); this one shows an editor other than VS Code speaks to the server as the
README's set-up says. Where Neovim is missing it skips; CI installs it and sets
K8SLB_REQUIRE_NEOVIM, and there it fails instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "editor_clients" / "neovim.lua"
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: api:1
          readinessProbe: {grpc: {port: 50051}}
          ports: [{name: grpc, containerPort: 50051}]
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports: [{name: grpc, port: 50051, targetPort: grpc}]
"""


def _neovim() -> str:
    found = shutil.which("nvim")
    if found is None:
        reason = "Neovim (nvim) is not installed: apt-get install neovim"
        if os.environ.get("K8SLB_REQUIRE_NEOVIM"):
            pytest.fail(f"K8SLB_REQUIRE_NEOVIM is set, but {reason}")
        pytest.skip(reason)
    return found


def test_neovim_shows_the_findings_of_an_opened_manifest_and_offers_their_fixes(
    tmp_path: Path,
) -> None:
    nvim = _neovim()
    (tmp_path / "app.yaml").write_text(MANIFEST)
    k8slb = Path(sys.executable).with_name("k8slb")
    done = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-c", f"luafile {SCRIPT}"],
        cwd=tmp_path,
        env={**os.environ, "K8SLB": str(k8slb), "K8SLB_FILE": "app.yaml"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    said = {tuple(line.split()[1:]) for line in lines if line.startswith("diagnostic ")}
    # the container's line (11) and the Service's (19), as `k8slb check` places them
    assert said == {("11", "KLB401"), ("19", "KLB101")}, done.stdout + done.stderr
    actions = [line.split(" ", 2)[1:] for line in lines if line.startswith("action ")]
    assert ["quickfix", "KLB401: add lifecycle.preStop.sleep (5 s)"] in actions
    assert ["quickfix", "KLB401: suppress here (# k8slb: ignore[KLB401])"] in actions
    assert ["source.fixAll.k8slb", "k8slb: fix all safe fixes in this file"] in actions
