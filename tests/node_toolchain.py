"""Node.js and @grpc/grpc-js for the proof that runs what k8slb writes in Node.js code.

grpc-js is an npm package (Debian does not ship it): `require_node()` installs the pinned
versions with npm once, into a folder of the cache (the tests' XDG_CACHE_HOME: the checkout's
.test-cache/, tests/conftest.py), and reuses it. Where node or npm is missing, or the
install fails (no registry), the tests skip, with the reason; CI sets K8SLB_REQUIRE_NODE,
and there they fail instead, so the proof cannot quietly stop running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

GRPC_JS = "1.14.7"
PROTO_LOADER = "0.8.1"
PACKAGES = {"@grpc/grpc-js": GRPC_JS, "@grpc/proto-loader": PROTO_LOADER}


def _cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "k8slb-node-proof" / f"grpc-js-{GRPC_JS}-proto-loader-{PROTO_LOADER}"


def _unavailable(reason: str) -> None:
    if os.environ.get("K8SLB_REQUIRE_NODE"):
        pytest.fail(f"K8SLB_REQUIRE_NODE is set, but {reason}")
    pytest.skip(reason)


def _installed(folder: Path) -> bool:
    manifest = folder / "node_modules" / "@grpc" / "grpc-js" / "package.json"
    return manifest.is_file() and json.loads(manifest.read_text())["version"] == GRPC_JS


def require_node() -> Path:
    """The folder whose node_modules holds the pinned grpc-js and proto-loader."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            _unavailable(f"no {tool} on PATH (apt-get install nodejs npm)")
    folder = _cache()
    if _installed(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    # installed beside the cache folder, then renamed into place: an interrupted or
    # concurrent install never leaves a half-filled folder that looks complete
    staging = Path(tempfile.mkdtemp(prefix=".install-", dir=folder.parent))
    try:
        package = {"private": True, "dependencies": PACKAGES}
        (staging / "package.json").write_text(json.dumps(package))
        # one retry, not npm's two with up to a minute's back-off: offline, the skip comes in
        # about 20 s; no install scripts: grpc-js needs none
        command = ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"]
        command.append("--fetch-retries=1")
        try:
            done = subprocess.run(
                command, cwd=staging, capture_output=True, text=True, check=False, timeout=300
            )
        except subprocess.TimeoutExpired:
            _unavailable("npm install of @grpc/grpc-js took over 300 s")
        if done.returncode != 0 or not _installed(staging):
            _unavailable(f"npm install of @grpc/grpc-js {GRPC_JS} failed: {done.stderr[-2000:]}")
        if folder.exists() and not _installed(folder):
            shutil.rmtree(folder)  # left by a different install: replaced
        try:
            staging.rename(folder)
        except OSError:
            if not _installed(folder):  # another run put its own there first: use that
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def node_environment(folder: Path) -> dict[str, str]:
    """The environment in which `node` finds the installed packages from any folder."""
    return {**os.environ, "NODE_PATH": str(folder / "node_modules")}
