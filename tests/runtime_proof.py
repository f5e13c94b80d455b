"""The proof on real gRPC runtimes, whatever the runtime: the tests of
tests/test_grpc_go_proof.py (grpc-go), tests/test_grpc_node_proof.py (grpc-js) and
tests/test_grpc_java_proof.py (grpc-java), their
scenarios (pods behind the loopback L4Balancer, client pods that count where their calls
went: a scale-up under load, a spread over every pod's address, SIGTERM with calls in
flight) and their checks. A runtime's module imports the tests, so pytest runs them there,
and gives them a `Runtime` by its `runtime` fixture: how its programs are made (built, or
put together) and started, and what its fixes write. This module is not collected itself.

The programs of every runtime keep one protocol: a pod (`pod-N` as its argument) prints
its port on its first line and answers each call with its name, PROOF_DELAY_MS late; a
client dials the addresses of PROOF_ADDRESSES, prints "started" once its channels are
made, and at its end prints JSON: with `-seconds=S`, the calls each pod served per quarter
second since the client's start, with `-inflight=N`, how each of N calls ended ("done", or
its status code). A runtime slow to start (a JVM) may host several in one process: a pod
program started with several names prints each one's port on a line, in their order, and a
client program started with `-clients=N` runs N clients, each with its own channel, and
prints their JSON as a list.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .helpers import fixed_source, lint_files
from .l4_balancer import L4Balancer

BUCKET_S = 0.25  # the client's counts come per quarter second since its start
STOPPING_RULES = ["KLB403", "KLB404"]  # the rules of a stop that cuts calls in flight, fixed


@dataclass(frozen=True)
class Program:
    """How a runtime starts one of its programs: the command (arguments follow) and the
    environment. With `starts_on_a_line`, its stdin is a pipe, and a client waits there for
    a line before it calls, so that clients whose runtime took longer to load keep time.
    With `hosts`, one process runs every pod or client of a scenario (see the module's
    docstring)."""

    command: Sequence[str]
    environment: Mapping[str, str]
    starts_on_a_line: bool = False
    hosts: bool = False

    def start(self, *arguments: str, **environment: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*self.command, *arguments],
            stdin=subprocess.PIPE if self.starts_on_a_line else None,
            stdout=subprocess.PIPE,
            env={**self.environment, **environment},
            text=True,
        )


@dataclass(frozen=True)
class Runtime:
    """What a runtime's proof module says, all the scenarios need of it."""

    name: str  # what its numbers are printed under: grpc-go
    file: str  # the name of a program's main: main.go
    main: Callable[[str], str]  # a main of its mains/, as services write it, by name
    client_source: Callable[[str], str]  # a client's main, dialing the test's pods
    # ("pod" or "client", its main's source, a folder of the test's): the program, made
    program: Callable[[str, str, Path], Program]
    started: int  # how many pods a scale-up starts beforehand: 3 (the rest at the scale-up) to 10
    max_age: Sequence[str]  # lines the KLB201 fix writes
    # by the rule that reports it, the pod that stops badly as written and a line the fix writes
    stopping: Mapping[str, tuple[str, str]]

    def __post_init__(self) -> None:
        assert sorted(self.stopping) == STOPPING_RULES

    def fixed(self, tmp_path: Path, name: str, rules: str) -> str:
        """The main `name` after `k8slb fix --select RULES --unsafe-fixes`."""
        path = tmp_path / "fix" / name / self.file
        return fixed_source(path, self.main(name), rules, unsafe=True)

    def programs(self, tmp_path: Path, server: str) -> tuple[Program, Program]:
        """A pod running `server`, and the client as services write it."""
        pod = self.program("pod", server, tmp_path)
        return pod, self.program("client", self.client_source(self.main("client")), tmp_path)


class Pods:
    """Pods of `program` named pod-N, a server process each (or one process for the pods
    started together, where the program hosts several); the first few behind an
    L4Balancer when asked. A runtime slow to start may start the pods of a scale-up
    beforehand: the balancer takes them in at once, as the Service's endpoints take in a
    Deployment's new pods when they are ready."""

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
        names = [f"pod-{len(self.ports) + n}" for n in range(count)]
        groups = [names] if self.program.hosts and names else [[name] for name in names]
        started = [self.program.start(*group, PROOF_DELAY_MS=self.delay_ms) for group in groups]
        self.processes += started
        # started together, then their ports read: a runtime may take a while to load
        for process, group in zip(started, groups, strict=True):
            assert process.stdout is not None
            self.ports += [int(process.stdout.readline()) for _ in group]

    def behind_balancer(self, replicas: int) -> str:
        self.balancer = L4Balancer(self.ports[:replicas])
        return f"127.0.0.1:{self.balancer.port}"

    def scale_to(self, replicas: int) -> list[str]:
        """The balancer takes in the pods up to `replicas`, started now if they were not
        yet; their names."""
        assert self.balancer is not None
        self.add(replicas - len(self.ports))
        first = len(self.balancer.ports)
        self.balancer.add(self.ports[first:replicas])
        return self.names[first:replicas]

    @property
    def names(self) -> list[str]:
        return [f"pod-{n}" for n in range(len(self.ports))]

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
    """Run `count` client pods; `during()` once their channels are made and they all started
    calling (at once, on a line on their stdin, if they wait for one). Their JSON, a client's
    an item."""
    if client.hosts:
        processes = [client.start(*arguments, f"-clients={count}", PROOF_ADDRESSES=addresses)]
    else:
        processes = [client.start(*arguments, PROOF_ADDRESSES=addresses) for _ in range(count)]
    outputs = []
    try:
        for process in processes:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "started"
        if client.starts_on_a_line:
            for process in processes:
                assert process.stdin is not None
                process.stdin.write("go\n")
                process.stdin.flush()
        if during is not None:
            during()
        for process in processes:
            output, _ = process.communicate(timeout=60)
            assert process.returncode == 0, output
            if client.hosts:
                outputs += json.loads(output)
            else:
                outputs.append(json.loads(output))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return outputs


def report(title: str, counts: object) -> None:
    print(f"\n{title}: {counts}")


def scale_up(
    pod: Program, client: Program, *, started: int = 3, clients: int = 20
) -> tuple[dict[str, int], list[str]]:
    """Traffic from `clients` client pods on 3 pods through the balancer; 1 s in, scale to
    10 while the calls keep coming; the calls each pod served from 1.5 s to 4 s after the
    scale-up (the fixed servers' connections live 0.3 s, then 1 s of grace at most), and
    the new pods' names. `started`: the pods started beforehand (3 to 10)."""
    pods = Pods(pod, started)
    try:
        return _scaled(pods, client, clients)
    finally:
        pods.close()


def _scaled(pods: Pods, client: Program, clients: int) -> tuple[dict[str, int], list[str]]:
    new: list[str] = []

    def scale() -> None:
        # the scale-up comes 1 s after every client has connected: on a busy machine a
        # client slow to start would otherwise open its first connection after it, to a
        # new pod, as it would in a cluster, and test 1 would see no pinning to prove
        assert pods.balancer is not None
        ready = time.monotonic() + 10.0
        while pods.balancer.connections < clients and time.monotonic() < ready:
            time.sleep(0.01)
        time.sleep(1.0)
        new.extend(pods.scale_to(10))

    target = pods.behind_balancer(3)
    window: Counter[str] = Counter()
    for buckets in run_clients(client, target, "-seconds=5.2", count=clients, during=scale):
        for bucket, counts in buckets.items():
            if 2.5 <= int(bucket) * BUCKET_S < 5.0:
                window.update(counts)
    return {name: window.get(name, 0) for name in pods.names}, new


def assert_fair(counts: dict[str, int], message: str) -> None:
    """Every pod served within 30 % of its fair share."""
    fair = sum(counts.values()) / len(counts)
    assert all(0.7 * fair <= n <= 1.3 * fair for n in counts.values()), message


def calls_through_sigterm(pod: Program, client: Program, delay_ms: int = 1500) -> list[str]:
    """Start the server with slow calls (1.5 s unless told), put 4 in flight, send SIGTERM
    (what the kubelet does) half a second in, and say how each call ended."""
    pods = Pods(pod, 1, delay_ms=delay_ms)

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


# The tests, the same on every runtime: a runtime's module imports them, and pytest runs
# them there, on the Runtime of that module's `runtime` fixture (numbers printed with -s).


def test_1_a_clusterip_pins_calls_to_the_first_pods(runtime: Runtime, tmp_path: Path) -> None:
    server = runtime.main("pod_ignores_sigterm")
    counts, new = scale_up(*runtime.programs(tmp_path, server), started=runtime.started)
    report(f"{runtime.name}, plain server, scaled 3 -> 10", counts)
    assert sum(counts.values()) > 100
    assert sum(counts[name] for name in new) == 0, "the 7 new pods get no call"


def test_2_max_connection_age_from_the_klb201_fix_spreads_calls(
    runtime: Runtime, tmp_path: Path
) -> None:
    server = runtime.fixed(tmp_path, "pod_ignores_sigterm", "KLB201")
    for written in runtime.max_age:
        assert written in server
    counts, _ = scale_up(*runtime.programs(tmp_path, server), started=runtime.started)
    report(f"{runtime.name}, KLB201-fixed servers, scaled 3 -> 10", counts)
    assert_fair(counts, "every pod within 30 % of its fair share")


def test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod(
    runtime: Runtime, tmp_path: Path
) -> None:
    balanced = runtime.fixed(tmp_path, "client", "KLB103")
    assert "round_robin" in balanced
    pod = runtime.program("pod", runtime.main("pod_ignores_sigterm"), tmp_path)
    clients = {
        "round_robin": runtime.program(
            "client", runtime.client_source(balanced), tmp_path / "fixed"
        ),
        "pick_first": runtime.program(
            "client", runtime.client_source(runtime.main("client")), tmp_path / "plain"
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
            report(f"{runtime.name}, {name} over 10 addresses", spreads[name])
    finally:
        pods.close()
    assert_fair(spreads["round_robin"], "every pod, evenly")
    assert sum(1 for n in spreads["pick_first"].values() if n) == 1, "without: one pod"


@pytest.mark.parametrize("rule", STOPPING_RULES)
def test_4_the_fix_drains_calls_in_flight(runtime: Runtime, tmp_path: Path, rule: str) -> None:
    name, written = runtime.stopping[rule]
    server = runtime.fixed(tmp_path, name, rule)
    assert written in server
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path, server))
    report(f"{runtime.name}, SIGTERM with the {rule} fix", outcomes)
    assert outcomes == ["done"] * 4, "no call in flight is lost"


@pytest.mark.parametrize("rule", STOPPING_RULES)
def test_4_unfixed_sigterm_cuts_calls_in_flight(
    runtime: Runtime, tmp_path: Path, rule: str
) -> None:
    server = runtime.main(runtime.stopping[rule][0])
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path, server))
    report(f"{runtime.name}, SIGTERM as written (the {rule} case)", outcomes)
    assert "done" not in outcomes, "every call in flight is cut"
    findings = lint_files(tmp_path / "lint", {runtime.file: server}, [rule]).findings
    assert [f.rule for f in findings] == [rule], "and k8slb says so"
