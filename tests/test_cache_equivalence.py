"""The cache and the server never change an answer: after any sequence of edits, reverts,
option changes and failing runs, `check` with the cache, `check` made by `k8slb server`
and `check --no-cache` print the same bytes and exit with the same status.

Every input a result depends on is in play: a source file's bytes, a values file outside
the chart that the configuration names, one that the command line names, `--helm-set`,
the configuration itself, the rules selected. The sequences are random but seeded: a
failure names its seed and its steps, and replays."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .test_incremental import FOLDERS, demo_files

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a server needs fork()")

CHART = {
    "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "chart/values.yaml": "grace: 30\n",
    "chart/templates/deploy.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      terminationGracePeriodSeconds: {{ .Values.grace }}
      containers:
        - name: shop
          image: shop:1
          lifecycle:
            preStop:
              exec: {command: [sleep, "20"]}
""",
}
SERVER = """\
from concurrent import futures

import grpc

server = grpc.server(futures.ThreadPoolExecutor(max_workers=4){options})
server.add_insecure_port("[::]:50051")
server.start()
server.wait_for_termination()
"""
WITH_AGE = (
    ', options=[("grpc.max_connection_age_ms", 60000), ("grpc.max_connection_age_grace_ms", 5000)]'
)
CONFIG = "helm:\n  values: [ci/values-lint.yaml]\n"


def k8slb(tree: Path, *args: str, served: bool) -> tuple[str, str, int]:
    environment = dict(os.environ)
    environment.pop("K8SLB_NO_SERVER", None)
    if not served:
        environment["K8SLB_NO_SERVER"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", *args],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout, done.stderr, done.returncode


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "repo"
    files = {
        **CHART,
        "ci/values-lint.yaml": "grace: 99\n",
        "ci/other.yaml": "grace: 2\n",
        "app/server.py": SERVER.format(options=""),
        ".k8slb.yaml": CONFIG,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".git").mkdir()
    started = k8slb(root, "server", "start", "--idle-timeout", "30", served=True)
    assert started[2] == 0, started
    yield root
    said = k8slb(root, "server", "status", served=True)[0]
    k8slb(root, "server", "stop", served=True)
    if "(pid " in said:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(said.split("(pid ")[1].split(")")[0]), signal.SIGKILL)


def edits(root: Path) -> dict[str, Callable[[], None]]:
    """Each a change of one input; applied in any order, and again (a revert)."""

    def write(name: str, text: str) -> Callable[[], None]:
        return lambda: (root / name).write_text(text)

    return {
        "outside values: grace 1": write("ci/values-lint.yaml", "grace: 1\n"),
        "outside values: grace 99": write("ci/values-lint.yaml", "grace: 99\n"),
        "chart values: grace 3": write("chart/values.yaml", "grace: 3\n"),
        "chart values: grace 30": write("chart/values.yaml", "grace: 30\n"),
        "server: no max age": write("app/server.py", SERVER.format(options="")),
        "server: max age": write("app/server.py", SERVER.format(options=WITH_AGE)),
        "config: select KLB402": write(".k8slb.yaml", CONFIG + "select: [KLB402]\n"),
        "config: no values": write(".k8slb.yaml", "select: [KLB402, KLB201]\n"),
        "config: as first": write(".k8slb.yaml", CONFIG),
        "other values: grace 2": write("ci/other.yaml", "grace: 2\n"),
        "other values: grace 98": write("ci/other.yaml", "grace: 98\n"),
    }


OPTIONS: list[list[str]] = [
    [],
    ["--select", "KLB402"],
    ["--helm-set", "grace=1"],
    ["--helm-values", "ci/other.yaml"],
    ["--context", "typo"],  # a failing run (exit 2)
    ["--exit-zero"],
]


@pytest.mark.parametrize("seed", [1, 2])
def test_cache_server_and_no_cache_give_the_same_answer(tree: Path, seed: int) -> None:
    """Each step changes one input, and now and then the command (as a user goes on with
    the same command between edits, which is when a stale answer would be served)."""
    chooser = random.Random(seed)
    changes = edits(tree)
    steps: list[str] = []
    options: list[str] = []
    where = "chart"
    codes = set()
    for _ in range(12):
        change = chooser.choice(sorted(changes))
        changes[change]()
        if chooser.random() < 0.3:
            options = chooser.choice(OPTIONS)
        if chooser.random() < 0.2:
            where = "." if where == "chart" else "chart"  # the values files are sources of "."
        steps.append(f"{change}; check {' '.join(options)} {where}")
        command = ["check", *options, where]
        fresh = k8slb(tree, *command, "--no-cache", served=False)
        cached = k8slb(tree, *command, served=False)
        served = k8slb(tree, *command, served=True)
        assert cached == fresh, f"seed {seed}, steps: {steps}"
        assert served == fresh, f"seed {seed}, steps: {steps}"
        assert "Traceback" not in fresh[1], fresh[1]
        codes.add(fresh[2])
    assert {0, 1} <= codes, "the sequence passed through clean and failing states"


def test_a_values_file_outside_the_chart_is_part_of_the_key(tree: Path) -> None:
    """The case a user hit: the configuration names ci/values-lint.yaml; changing it from
    grace 99 to 1 must bring the KLB402 error the uncached run reports."""
    command = ("check", "--select", "KLB402", "chart")
    assert k8slb(tree, *command, served=False)[2] == 0
    (tree / "ci" / "values-lint.yaml").write_text("grace: 1\n")
    out, _, code = k8slb(tree, *command, served=False)
    assert code == 1 and "KLB402" in out
    (tree / ".k8slb.yaml").write_text("helm:\n  values: [ci/other.yaml]\n")
    (tree / "ci" / "other.yaml").write_text("grace: 99\n")
    assert k8slb(tree, *command, served=False)[2] == 0, "the configuration named another file"
    (tree / "ci" / "other.yaml").write_text("grace: 2\n")
    assert k8slb(tree, *command, served=False)[2] == 1
    assert k8slb(tree, *command, "--helm-set", "grace=90", served=False)[2] == 0


# A tree of plain files, which a whole check after an edit judges by the edit's part alone
# (incremental.after_edit); each edit applied to the file's current text (None: removed).
PLAIN_EDITS: dict[str, tuple[str, Callable[[str], str] | None]] = {
    "a YAML object changed": (
        "backend/k8s.yaml",
        lambda text: text.replace(
            "spec:\n  selector:\n    app: backend\n",
            "spec:\n  clusterIP: None\n  selector:\n    app: backend\n",
        ),
    ),
    "a YAML object changed back": (
        "backend/k8s.yaml",
        lambda text: text.replace("  clusterIP: None\n", "", 1),
    ),
    "a Service added": (
        "backend/more.yaml",
        lambda _: (
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: backend-v2\n  namespace: shop\n"
            "spec:\n  selector:\n    app: backend\n  ports:\n    - name: grpc\n"
            "      port: 50051\n      targetPort: grpc\n"
        ),
    ),
    "the added file deleted": ("backend/more.yaml", None),
    "a code file changed": (
        "frontend/client.py",
        lambda text: text.replace("grpc.insecure_channel(BACKEND_ADDR)", "None", 1),
    ),
    "a code file changed back": (
        "frontend/client.py",
        lambda text: text.replace(
            "channel = None", "channel = grpc.insecure_channel(BACKEND_ADDR)"
        ),
    ),
    "a file deleted": ("inventory/k8s.yaml", None),
    # what the links rest on (the last whole run's are kept: links.cache)
    "a Dockerfile for the backend": (
        "backend/Dockerfile",
        lambda _: 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/server.py"]\n',
    ),
    "the backend's Dockerfile runs another module": (
        "backend/Dockerfile",
        lambda _: 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/worker.py"]\n',
    ),
    "a module added beside the backend's server": ("backend/worker.py", lambda _: "import os\n"),
    "the added module deleted": ("backend/worker.py", None),
    "a build file builds the backend's image from the frontend": (
        "skaffold.yaml",
        lambda _: (
            "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
            "    - image: registry.example/shop/backend\n      context: frontend\n"
        ),
    ),
    "the build file deleted": ("skaffold.yaml", None),
    "the backend's image renamed": (
        "backend/k8s.yaml",
        lambda text: text.replace("shop/backend:1.4.2", "shop/inventory:1.4.2"),
    ),
    "the backend's image named back": (
        "backend/k8s.yaml",
        lambda text: text.replace("shop/inventory:1.4.2", "shop/backend:1.4.2"),
    ),
}
# The whole check, with the links it found, and the pre-commit hook's on the backend's
# files (.pre-commit-hooks.yaml's command: the repository as context), which takes the
# links of the last whole check where what they rest on is as then.
PLAIN_COMMANDS = [
    ["check", "--show-links", "."],
    ["check", "--force-exclude", "--context", ".", "backend/server.py"],
    ["check", "--force-exclude", "--context", ".", "backend/k8s.yaml", "frontend/client.py"],
]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_check_after_an_edited_file_gives_the_same_answer(tree: Path, seed: int) -> None:
    """The demo's services in folders of their own: after a whole check, each step edits,
    adds or deletes one file and checks the tree again, with the cache (judging the edit's
    part alone), made by the server, and afresh."""
    plain = tree.parent / "plain"  # a repository of its own: every file is reported
    for name, data in demo_files(FOLDERS).items():
        (plain / name).parent.mkdir(parents=True, exist_ok=True)
        (plain / name).write_bytes(data)
    (plain / ".git").mkdir()
    chooser = random.Random(seed)
    steps: list[str] = []
    command = PLAIN_COMMANDS[0]
    first = k8slb(plain, *command, served=False)
    assert first == k8slb(plain, *command, "--no-cache", served=False)
    for _ in range(12):
        step = chooser.choice(sorted(PLAIN_EDITS))
        command = chooser.choice(PLAIN_COMMANDS) if chooser.random() < 0.4 else PLAIN_COMMANDS[0]
        steps.append(f"{step}; {' '.join(command)}")
        name, edit = PLAIN_EDITS[step]
        path = plain / name
        if edit is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(edit(path.read_text() if path.exists() else ""))
        fresh = k8slb(plain, *command, "--no-cache", served=False)
        cached = k8slb(plain, *command, served=False)
        served = k8slb(plain, *command, served=True)
        assert cached == fresh, f"seed {seed}, steps: {steps}"
        assert served == fresh, f"seed {seed}, steps: {steps}"
        assert "Traceback" not in fresh[1], fresh[1]
