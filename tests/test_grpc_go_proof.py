"""Proof on a real grpc-go runtime, as tests/test_grpc_proof.py is on grpcio: a ClusterIP
pins calls to the pods that were there when the connections opened, and the Go code that
k8slb's fixes write spreads them and drains them.

The servers and clients are Go programs built at test time from tests/go_proof/ against
Debian's grpc-go (go_toolchain.py; nothing is fetched): a program's folder holds the
harness (the service, the load loop), and its main.go is one of go_proof/mains/, the code
as services write it, which goes through `k8slb fix` first: what runs is what the fixer
wrote. Pods stand behind the same loopback L4Balancer as the Python proof. Every scenario
ends by itself in seconds. Run with `-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_go_proof.py -s -q
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .go_toolchain import go
from .helpers import fixed_source, lint_files
from .l4_balancer import L4Balancer

SOURCES = Path(__file__).parent / "go_proof"
MAINS = SOURCES / "mains"
BUCKET_S = 0.25  # the client's counts come per quarter second since its start


@pytest.fixture(scope="module")
def gopath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gopath")


def main(name: str) -> str:
    return (MAINS / f"{name}.go").read_text()


def build(gopath: Path, program: str, source: str, tmp_path: Path) -> Path:
    """The program of go_proof/<program>/ with `source` as its main.go, built."""
    folder = gopath / "src" / "proof" / tmp_path.name / program
    folder.mkdir(parents=True)
    for harness in [*(SOURCES / program).glob("*.go"), SOURCES / "codec.go"]:
        (folder / harness.name).write_text(harness.read_text())
    (folder / "main.go").write_text(source)
    binary = tmp_path / program
    done = go(gopath, "build", "-o", str(binary), ".", cwd=folder)
    assert done.returncode == 0, done.stderr
    return binary


def fixed(tmp_path: Path, name: str, rules: str) -> str:
    """go_proof/mains/<name>.go after `k8slb fix --select RULES --unsafe-fixes`."""
    return fixed_source(tmp_path / "fix" / name / "main.go", main(name), rules, unsafe=True)


def client_source(source: str) -> str:
    """The client's dial, aimed at the test's resolver instead of cluster DNS."""
    target = '"dns:///backend.shop.svc.cluster.local:50051"'
    assert target in source
    return source.replace(target, '"proof:///backend"')


class Pods:
    """Go server processes, each a pod named pod-N; behind an L4Balancer when asked."""

    def __init__(self, binary: Path, replicas: int, delay_ms: int = 0) -> None:
        self.binary = binary
        self.environment = {**os.environ, "PROOF_DELAY_MS": str(delay_ms)}
        self.processes: list[subprocess.Popen[str]] = []
        self.ports: list[int] = []
        self.balancer: L4Balancer | None = None
        self.add(replicas)

    def add(self, count: int) -> list[str]:
        names = []
        for _ in range(count):
            name = f"pod-{len(self.processes)}"
            process = subprocess.Popen(
                [str(self.binary), name], stdout=subprocess.PIPE, env=self.environment, text=True
            )
            self.processes.append(process)
            assert process.stdout is not None
            self.ports.append(int(process.stdout.readline()))
            names.append(name)
        return names

    def behind_balancer(self) -> str:
        self.balancer = L4Balancer(self.ports)
        return f"127.0.0.1:{self.balancer.port}"

    def scale_to(self, replicas: int) -> list[str]:
        first = len(self.ports)
        names = self.add(replicas - first)
        assert self.balancer is not None
        self.balancer.add(self.ports[first:])
        return names

    @property
    def names(self) -> list[str]:
        return [f"pod-{n}" for n in range(len(self.processes))]

    def addresses(self) -> str:
        """Every pod's address: what a headless Service's DNS answers."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.close()
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()


def run_clients(
    binary: Path,
    addresses: str,
    *arguments: str,
    count: int = 1,
    during: Callable[[], None] | None = None,
) -> list[Any]:
    """Run `count` client pods; `during()` once their channels are made. Their JSON."""
    environment = {**os.environ, "PROOF_ADDRESSES": addresses}
    processes = [
        subprocess.Popen(
            [str(binary), *arguments], stdout=subprocess.PIPE, env=environment, text=True
        )
        for _ in range(count)
    ]
    outputs = []
    try:
        for process in processes:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "started"
        if during is not None:
            during()
        for process in processes:
            output, _ = process.communicate(timeout=60)
            assert process.returncode == 0, output
            outputs.append(json.loads(output))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return outputs


def scale_up(
    gopath: Path, tmp_path: Path, server: str, clients: int = 20
) -> tuple[dict[str, int], list[str]]:
    """Traffic from `clients` client pods on 3 pods of `server` through the balancer; 1 s
    in, scale to 10 while the calls keep coming; the calls each pod served from 1.5 s to
    4 s after the scale-up (the fixed servers' connections live 0.3 s, then 1 s of grace at
    most), and the new pods' names."""
    pod = build(gopath, "pod", server, tmp_path)
    client = build(gopath, "client", client_source(main("client")), tmp_path)
    pods = Pods(pod, 3)
    try:
        return _scaled(pods, client, clients)
    finally:
        pods.close()


def _scaled(pods: Pods, client: Path, clients: int) -> tuple[dict[str, int], list[str]]:
    new: list[str] = []

    def scale() -> None:
        time.sleep(1.0)
        new.extend(pods.scale_to(10))

    target = pods.behind_balancer()
    window: Counter[str] = Counter()
    for buckets in run_clients(client, target, "-seconds=5.2", count=clients, during=scale):
        for bucket, counts in buckets.items():
            if 2.5 <= int(bucket) * BUCKET_S < 5.0:
                window.update(counts)
    return {name: window.get(name, 0) for name in pods.names}, new


def report(title: str, counts: object) -> None:
    print(f"\n{title}: {counts}")


def test_1_a_clusterip_pins_calls_to_the_first_pods(gopath: Path, tmp_path: Path) -> None:
    counts, new = scale_up(gopath, tmp_path, main("pod_ignores_sigterm"))
    report("grpc-go, plain server, scaled 3 -> 10", counts)
    assert sum(counts.values()) > 100
    assert sum(counts[name] for name in new) == 0, "the 7 new pods get no call"


def test_2_max_connection_age_from_the_klb201_fix_spreads_calls(
    gopath: Path, tmp_path: Path
) -> None:
    server = fixed(tmp_path, "pod_ignores_sigterm", "KLB201")
    assert "MaxConnectionAge: 300 * time.Millisecond" in server
    assert "MaxConnectionAgeGrace: 1 * time.Second" in server
    counts, _ = scale_up(gopath, tmp_path, server)
    report("grpc-go, KLB201-fixed servers, scaled 3 -> 10", counts)
    fair = sum(counts.values()) / len(counts)
    assert all(0.7 * fair <= n <= 1.3 * fair for n in counts.values()), (
        "every pod within 30 % of its fair share"
    )


def test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod(
    gopath: Path, tmp_path: Path
) -> None:
    balanced = fixed(tmp_path, "client", "KLB103")
    assert "round_robin" in balanced
    pod = build(gopath, "pod", main("pod_ignores_sigterm"), tmp_path)
    with_fix = build(gopath, "client", client_source(balanced), tmp_path / "fixed")
    without = build(gopath, "client", client_source(main("client")), tmp_path / "plain")
    pods = Pods(pod, 10)
    try:
        spreads = {}
        for name, client in (("round_robin", with_fix), ("pick_first", without)):
            (buckets,) = run_clients(client, pods.addresses(), "-seconds=1")
            total: Counter[str] = Counter()
            for counts in buckets.values():
                total.update(counts)
            spreads[name] = {pod: total.get(pod, 0) for pod in pods.names}
            report(f"grpc-go, {name} over 10 addresses", spreads[name])
    finally:
        pods.close()
    even = spreads["round_robin"]
    fair = sum(even.values()) / len(even)
    assert all(0.7 * fair <= n <= 1.3 * fair for n in even.values()), "every pod, evenly"
    assert sum(1 for n in spreads["pick_first"].values() if n) == 1, "without: one pod"


def calls_through_sigterm(gopath: Path, tmp_path: Path, server: str) -> list[str]:
    """Start the server with slow calls (1.5 s), put 4 in flight, send SIGTERM (what the
    kubelet does) half a second in, and say how each call ended."""
    pod = build(gopath, "pod", server, tmp_path)
    client = build(gopath, "client", client_source(main("client")), tmp_path)
    pods = Pods(pod, 1, delay_ms=1500)

    def stop() -> None:
        time.sleep(0.5)
        pods.processes[0].send_signal(signal.SIGTERM)

    try:
        (outcomes,) = run_clients(client, pods.addresses(), "-inflight=4", during=stop)
        pods.processes[0].wait(timeout=30)
    finally:
        pods.close()
    assert isinstance(outcomes, list)
    return outcomes


# the pod as written, the rule that reports it, and a line the rule's fix writes
STOPPING = {
    "KLB403": ("pod_ignores_sigterm", "signal.Notify(sigterm, syscall.SIGTERM)"),
    "KLB404": ("pod_stops_on_sigterm", "server.GracefulStop()"),
}


@pytest.mark.parametrize("rule", sorted(STOPPING))
def test_4_the_fix_drains_calls_in_flight(gopath: Path, tmp_path: Path, rule: str) -> None:
    name, written = STOPPING[rule]
    server = fixed(tmp_path, name, rule)
    assert written in server
    outcomes = calls_through_sigterm(gopath, tmp_path, server)
    report(f"grpc-go, SIGTERM with the {rule} fix", outcomes)
    assert outcomes == ["done"] * 4, "no call in flight is lost"


@pytest.mark.parametrize("rule", sorted(STOPPING))
def test_4_unfixed_sigterm_cuts_calls_in_flight(gopath: Path, tmp_path: Path, rule: str) -> None:
    server = main(STOPPING[rule][0])
    outcomes = calls_through_sigterm(gopath, tmp_path, server)
    report(f"grpc-go, SIGTERM as written (the {rule} case)", outcomes)
    assert "done" not in outcomes, "every call in flight is cut"
    findings = lint_files(tmp_path / "lint", {"main.go": server}, [rule]).findings
    assert [f.rule for f in findings] == [rule], "and k8slb says so"
