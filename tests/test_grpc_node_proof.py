"""Proof on a real @grpc/grpc-js runtime, as tests/test_grpc_go_proof.py is on grpc-go: a
ClusterIP pins calls to the pods that were there when the connections opened, and the
Node.js code that k8slb's fixes write spreads them and drains them.

The servers and clients are Node programs put together at test time from
tests/node_proof/ and run with the pinned grpc-js that node_toolchain.py installs once
with npm: a program's folder holds the harness (the service, the load loop), and its
main.js is one of node_proof/mains/, the code as services write it, which goes through
`k8slb fix` first: what runs is what the fixer wrote. Pods stand behind the same loopback
L4Balancer as the Python and Go proofs. Every scenario ends by itself in seconds. Run with
`-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_node_proof.py -s -q
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .helpers import fixed_source, lint_files
from .l4_balancer import L4Balancer
from .node_toolchain import node_environment, require_node

SOURCES = Path(__file__).parent / "node_proof"
MAINS = SOURCES / "mains"
BUCKET_S = 0.25  # the client's counts come per quarter second since its start
ENTRY = {"pod": "main.js", "client": "load.js"}  # the file node runs, in each program


@pytest.fixture(scope="module")
def packages() -> Path:
    return require_node()


def main(name: str) -> str:
    return (MAINS / f"{name}.js").read_text()


class Program:
    """node_proof/<program>/ with `source` as its main.js, in a folder of its own."""

    def __init__(self, packages: Path, program: str, source: str, folder: Path) -> None:
        folder.mkdir(parents=True)
        for harness in [*(SOURCES / program).glob("*.js"), SOURCES / "echo.js"]:
            (folder / harness.name).write_text(harness.read_text())
        (folder / "main.js").write_text(source)
        self.command = ["node", str(folder / ENTRY[program])]
        self.environment = node_environment(packages)

    def start(self, *arguments: str, **environment: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*self.command, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**self.environment, **environment},
            text=True,
        )


def fixed(tmp_path: Path, name: str, rules: str) -> str:
    """node_proof/mains/<name>.js after `k8slb fix --select RULES --unsafe-fixes`."""
    return fixed_source(tmp_path / "fix" / name / "main.js", main(name), rules, unsafe=True)


def client_source(source: str) -> str:
    """The client's target, aimed at the addresses of PROOF_ADDRESSES instead of cluster
    DNS: grpc-js's own `ipv4:` scheme resolves a list to every address in it."""
    target = "'dns:///backend.shop.svc.cluster.local:50051'"
    assert target in source
    return source.replace(target, "`ipv4:${process.env.PROOF_ADDRESSES}`")


class Pods:
    """Node server processes, each a pod named pod-N; the first few behind an L4Balancer
    when asked. Node takes up to a second to start 7 pods on a small machine, so the pods
    of a scale-up are started beforehand: the balancer takes them in at once, as the
    Service's endpoints take in a Deployment's new pods when they are ready."""

    def __init__(self, program: Program, replicas: int, delay_ms: int = 0) -> None:
        self.program = program
        self.delay_ms = str(delay_ms)
        self.processes: list[subprocess.Popen[str]] = []
        self.ports: list[int] = []
        self.balancer: L4Balancer | None = None
        try:
            self.add(replicas)
        except BaseException:
            self.close()
            raise

    def add(self, count: int) -> None:
        started = [
            self.program.start(f"pod-{len(self.processes) + n}", PROOF_DELAY_MS=self.delay_ms)
            for n in range(count)
        ]
        self.processes += started
        for process in started:  # started together: node takes a while to load grpc-js
            assert process.stdout is not None
            self.ports.append(int(process.stdout.readline()))

    def behind_balancer(self, replicas: int) -> str:
        self.balancer = L4Balancer(self.ports[:replicas])
        return f"127.0.0.1:{self.balancer.port}"

    def scale_to(self, replicas: int) -> list[str]:
        """The balancer takes in the pods up to `replicas`; their names."""
        assert self.balancer is not None
        first = len(self.balancer.ports)
        self.balancer.add(self.ports[first:replicas])
        return self.names[first:replicas]

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
    client: Program,
    addresses: str,
    *arguments: str,
    count: int = 1,
    during: Callable[[], None] | None = None,
) -> list[Any]:
    """Run `count` client pods; `during()` once their clients are made and they all started
    calling (at once, on a line on their stdin). Their JSON."""
    processes = [client.start(*arguments, PROOF_ADDRESSES=addresses) for _ in range(count)]
    outputs = []
    try:
        for process in processes:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "started"
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
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
    packages: Path, tmp_path: Path, server: str, clients: int = 20
) -> tuple[dict[str, int], list[str]]:
    """Traffic from `clients` client pods on 3 pods of `server` through the balancer; 1 s
    in, scale to 10 while the calls keep coming; the calls each pod served from 1.5 s to
    4 s after the scale-up (the fixed servers' connections live 0.3 s, then 1 s of grace at
    most), and the new pods' names."""
    pod = Program(packages, "pod", server, tmp_path / "pod")
    client = Program(packages, "client", client_source(main("client")), tmp_path / "client")
    pods = Pods(pod, 10)
    try:
        return _scaled(pods, client, clients)
    finally:
        pods.close()


def _scaled(pods: Pods, client: Program, clients: int) -> tuple[dict[str, int], list[str]]:
    new: list[str] = []

    def scale() -> None:
        time.sleep(1.0)
        new.extend(pods.scale_to(10))

    target = pods.behind_balancer(3)
    window: Counter[str] = Counter()
    for buckets in run_clients(client, target, "-seconds=5.2", count=clients, during=scale):
        for bucket, counts in buckets.items():
            if 2.5 <= int(bucket) * BUCKET_S < 5.0:
                window.update(counts)
    return {name: window.get(name, 0) for name in pods.names}, new


def report(title: str, counts: object) -> None:
    print(f"\n{title}: {counts}")


def test_1_a_clusterip_pins_calls_to_the_first_pods(packages: Path, tmp_path: Path) -> None:
    counts, new = scale_up(packages, tmp_path, main("pod_ignores_sigterm"))
    report("grpc-js, plain server, scaled 3 -> 10", counts)
    assert sum(counts.values()) > 100
    assert sum(counts[name] for name in new) == 0, "the 7 new pods get no call"


def test_2_max_connection_age_from_the_klb201_fix_spreads_calls(
    packages: Path, tmp_path: Path
) -> None:
    server = fixed(tmp_path, "pod_ignores_sigterm", "KLB201")
    assert "'grpc.max_connection_age_ms': 300" in server
    assert "'grpc.max_connection_age_grace_ms': 1000" in server
    counts, _ = scale_up(packages, tmp_path, server)
    report("grpc-js, KLB201-fixed servers, scaled 3 -> 10", counts)
    fair = sum(counts.values()) / len(counts)
    assert all(0.7 * fair <= n <= 1.3 * fair for n in counts.values()), (
        "every pod within 30 % of its fair share"
    )


def test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod(
    packages: Path, tmp_path: Path
) -> None:
    balanced = fixed(tmp_path, "client", "KLB103")
    assert "round_robin" in balanced
    pod = Program(packages, "pod", main("pod_ignores_sigterm"), tmp_path / "pod")
    clients = {
        "round_robin": Program(packages, "client", client_source(balanced), tmp_path / "fixed"),
        "pick_first": Program(
            packages, "client", client_source(main("client")), tmp_path / "plain"
        ),
    }
    pods = Pods(pod, 10)
    try:
        spreads = {}
        for name, client in clients.items():
            (buckets,) = run_clients(client, pods.addresses(), "-seconds=1")
            total: Counter[str] = Counter()
            for counts in buckets.values():
                total.update(counts)
            spreads[name] = {pod: total.get(pod, 0) for pod in pods.names}
            report(f"grpc-js, {name} over 10 addresses", spreads[name])
    finally:
        pods.close()
    even = spreads["round_robin"]
    fair = sum(even.values()) / len(even)
    assert all(0.7 * fair <= n <= 1.3 * fair for n in even.values()), "every pod, evenly"
    assert sum(1 for n in spreads["pick_first"].values() if n) == 1, "without: one pod"


def calls_through_sigterm(packages: Path, tmp_path: Path, server: str) -> list[str]:
    """Start the server with slow calls (1.5 s), put 4 in flight, send SIGTERM (what the
    kubelet does) half a second in, and say how each call ended."""
    pod = Program(packages, "pod", server, tmp_path / "pod")
    client = Program(packages, "client", client_source(main("client")), tmp_path / "client")
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
    "KLB403": ("pod_ignores_sigterm", "process.on('SIGTERM', () => {"),
    "KLB404": ("pod_stops_on_sigterm", "server.tryShutdown(() => {});"),
}


@pytest.mark.parametrize("rule", sorted(STOPPING))
def test_4_the_fix_drains_calls_in_flight(packages: Path, tmp_path: Path, rule: str) -> None:
    name, written = STOPPING[rule]
    server = fixed(tmp_path, name, rule)
    assert written in server
    outcomes = calls_through_sigterm(packages, tmp_path, server)
    report(f"grpc-js, SIGTERM with the {rule} fix", outcomes)
    assert outcomes == ["done"] * 4, "no call in flight is lost"


@pytest.mark.parametrize("rule", sorted(STOPPING))
def test_4_unfixed_sigterm_cuts_calls_in_flight(packages: Path, tmp_path: Path, rule: str) -> None:
    server = main(STOPPING[rule][0])
    outcomes = calls_through_sigterm(packages, tmp_path, server)
    report(f"grpc-js, SIGTERM as written (the {rule} case)", outcomes)
    assert "done" not in outcomes, "every call in flight is cut"
    findings = lint_files(tmp_path / "lint", {"main.js": server}, [rule]).findings
    assert [f.rule for f in findings] == [rule], "and k8slb says so"
