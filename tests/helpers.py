"""Shared test helpers: lint text as files, the way users run k8slb."""

from __future__ import annotations

import resource
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest
from k8slb.core.edits import FixValues
from k8slb.core.findings import Finding
from k8slb.core.results import RunResult
from k8slb.fixing.fixer import plan
from k8slb.reading.sources import discover
from k8slb.run.engine import run
from k8slb.run.selection import select_rules
from k8slb.run.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def within_cpu(
    command: Sequence[str], cpu_seconds: int, **options: object
) -> subprocess.CompletedProcess[str]:
    """Run `command` in a child that may use `cpu_seconds` of CPU: a budget that a busy
    machine does not eat into, as it does a wall clock's (a 10 s timeout failed under load
    on an input read in 1 s alone). Fails the test when the child used it up; the wall
    time is bounded too, generously, should it never run."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))

    try:
        done = subprocess.run(
            list(command),
            capture_output=True,
            text=True,
            check=False,
            preexec_fn=limit,
            timeout=60 * cpu_seconds,
            **options,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {60 * cpu_seconds} s of wall time")
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        pytest.fail(f"used over {cpu_seconds} s of CPU (a non-linear pattern or scan)")
    return done


def lint_files(
    folder: Path,
    files: dict[str, str | bytes],
    select: Sequence[str] = (),
    *,
    mesh: str = "none",
    report_unused_ignores: bool = False,
    links: Sequence[tuple[str, str]] = (),
) -> RunResult:
    """Write `files` (and symbolic `links`: name, target) under `folder`, lint the folder."""
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8", newline="")
    for name, link_target in links:
        (folder / name).symlink_to(link_target)
    return lint_paths([str(folder)], select, mesh=mesh, report_unused_ignores=report_unused_ignores)


def lint_paths(
    paths: Sequence[str],
    select: Sequence[str] = (),
    *,
    mesh: str = "none",
    report_unused_ignores: bool = False,
) -> RunResult:
    found = discover(paths)
    settings = Settings(
        rules=select_rules(list(select), []),
        mesh=mesh,
        report_unused_ignores=report_unused_ignores,
    )
    result = run(found.sources, settings)
    result.errors[:0] = found.errors
    return result


def lint_text(folder: Path, text: str, select: Sequence[str] = (), **kwargs: str) -> list[Finding]:
    return lint_files(folder, {"manifest.yaml": text}, select, **kwargs).findings


def rules_of(findings: Sequence[Finding]) -> list[str]:
    return [f.rule for f in findings]


def count_parses(monkeypatch: pytest.MonkeyPatch, *where: ModuleType) -> list[str]:
    """The files parsed from now on (parse_one stood in for in parsing, and in `where`:
    modules that imported it by name), in order."""
    from k8slb.run import parsing

    parsed: list[str] = []
    original = parsing.parse_one

    def counting(path: str, language: str, data: bytes) -> parsing.Parsed:
        parsed.append(path)
        return original(path, language, data)

    for module in (parsing, *where):
        monkeypatch.setattr(module, "parse_one", counting)
    return parsed


# Connection ages short enough for a proof of seconds; the fix writes whatever is configured.
FAST = FixValues(max_connection_age_ms=300, max_connection_age_grace_ms=1000)


def fixed_source(
    path: Path, source: str, rules: str, *, unsafe: bool = False, values: FixValues = FAST
) -> str:
    """`source`, written at `path`, after `k8slb fix --select RULES` with `values` (FAST's
    by default): the code the runtime proofs run is the fixer's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    settings = Settings(rules=select_rules([rules], []), fix_values=values)
    outcome = plan(discover([str(path)]).sources, settings, unsafe=unsafe)
    assert str(path) in outcome.fixed_text, f"the {rules} fix changed nothing"
    return outcome.fixed_text[str(path)].decode()


# A ClusterIP Service `backend` whose port is named grpc (KLB102's target in code tests)
GRPC_BACKEND = """\
apiVersion: v1
kind: Service
metadata: {name: backend}
spec:
  selector: {app: backend}
  ports: [{name: grpc, port: 50051}]
"""


def cart_dialed_from_frontend(port_name: str, port: int) -> str:
    """The Service `cart` (one port) and a Deployment `frontend` whose container's
    CART_ADDR names it: what a frontend's code dials through its environment."""
    return f"""\
apiVersion: v1
kind: Service
metadata: {{name: cart}}
spec:
  selector: {{app: cart}}
  ports: [{{name: {port_name}, port: {port}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: frontend}}
spec:
  selector: {{matchLabels: {{app: frontend}}}}
  template:
    metadata: {{labels: {{app: frontend}}}}
    spec:
      containers:
        - name: frontend
          image: registry.example/frontend:1.0
          env: [{{name: CART_ADDR, value: "cart:{port}"}}]
"""
