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
made, then calls until its stdin closes, printing at the end of each quarter second a JSON
line of the calls each pod answered in it; with `-inflight=N`, it makes N calls at once
and prints, as JSON, how each ended ("done", or its status code). The calls are counted
until tests/fair_share.py knows the claim (every pod's share, or enough calls), not over a
time window. A runtime slow to start (a JVM) may host several in one process: a pod
program started with several names prints each one's port on a line, in their order, and
a client program started with `-clients=N` runs N clients, each with its own channel (its
lines count the calls of all; with `-inflight`, a list of their JSON).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .fair_share import Spread, Tally, count_until_known, even
from .helpers import fixed_source, lint_files
from .l4_balancer import L4Balancer

# after a scale-up, the calls are counted once the fixed servers' connections have turned
# over (they live 0.3 s, then 1 s of grace at most)
SETTLE_S = 1.5
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
            stdin=subprocess.PIPE,  # a client stops calling when it closes
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
        _end(self.processes)


def _start_clients(
    client: Program, addresses: str, *arguments: str, count: int
) -> list[subprocess.Popen[str]]:
    """`count` client pods, their channels made; calling (at once, on a line on their
    stdin, if they wait for one)."""
    if client.hosts:
        processes = [client.start(*arguments, f"-clients={count}", PROOF_ADDRESSES=addresses)]
    else:
        processes = [client.start(*arguments, PROOF_ADDRESSES=addresses) for _ in range(count)]
    try:
        for process in processes:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "started"
        if client.starts_on_a_line:
            for process in processes:
                assert process.stdin is not None
                process.stdin.write("go\n")
                process.stdin.flush()
    except BaseException:
        _end(processes)
        raise
    return processes


def _end(processes: list[subprocess.Popen[str]]) -> None:
    """The processes ended: killed, where they still run."""
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()


def run_clients(
    client: Program, addresses: str, *arguments: str, during: Callable[[], None]
) -> list[Any]:
    """Run a client pod with `arguments` (`-inflight=N`); `during()` once it is calling.
    Its JSON (a list with one item, or one per client where the program hosts them)."""
    processes = _start_clients(client, addresses, *arguments, count=1)
    try:
        during()
        (process,) = processes
        output, _ = process.communicate(timeout=60)
        assert process.returncode == 0, output
        return json.loads(output) if client.hosts else [json.loads(output)]
    finally:
        _end(processes)


@contextlib.contextmanager
def calling(
    client: Program, addresses: str, tally: Tally, count: int
) -> Iterator[Callable[[], bool]]:
    """`count` client pods calling until the block ends, each line of counts they print
    added to `tally`; the block is given whether they all still call."""
    processes = _start_clients(client, addresses, count=count)

    def read(process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            tally.add(json.loads(line))

    readers = [threading.Thread(target=read, args=(p,), daemon=True) for p in processes]
    for reader in readers:
        reader.start()
    try:
        yield lambda: all(process.poll() is None for process in processes)
        for process in processes:  # enough calls: their stdin closes, they stop and exit
            assert process.stdin is not None
            process.stdin.close()
        for process in processes:
            assert process.wait(timeout=60) == 0, f"a client exited with {process.returncode}"
    finally:
        _end(processes)
        for reader in readers:
            reader.join(timeout=10)


def report(title: str, counts: object) -> None:
    print(f"\n{title}: {counts}")


def scale_up(
    pod: Program, client: Program, *, fair: bool, started: int = 3, clients: int = 20
) -> tuple[Spread, list[str]]:
    """Traffic from `clients` client pods on 3 pods through the balancer; 1 s after they
    all connected, scale to 10 while the calls keep coming; the calls each pod served from
    SETTLE_S after the scale-up until tests/fair_share.py knows whether every pod gets a
    fair share (`fair`) or has counted enough calls (not `fair`), and the new pods' names.
    `started`: the pods started beforehand (3 to 10)."""
    pods = Pods(pod, started)
    try:
        return _scaled(pods, client, clients, fair)
    finally:
        pods.close()


def _scaled(pods: Pods, client: Program, clients: int, fair: bool) -> tuple[Spread, list[str]]:
    target = pods.behind_balancer(3)
    tally = Tally()
    with calling(client, target, tally, count=clients) as going:
        # the scale-up comes 1 s after every client has connected: on a busy machine a
        # client slow to start would otherwise open its first connection after it, to a
        # new pod, as it would in a cluster, and test 1 would see no pinning to prove
        assert pods.balancer is not None
        ready = time.monotonic() + 10.0
        while pods.balancer.connections < clients and time.monotonic() < ready:
            time.sleep(0.01)
        time.sleep(1.0)
        new = pods.scale_to(10)
        time.sleep(SETTLE_S)
        bands = even(pods.names) if fair else []
        spread = count_until_known(tally, pods.names, bands, going=going)
    return spread, new


def assert_fair(spread: Spread, message: str) -> None:
    """Every pod within 30 % of its fair share: known at fair_share's confidence, or, when
    the time ran out first, as counted."""
    assert spread.holds is not False, f"{message}: {spread}"
    assert spread.holds or spread.within(even(list(spread.counts))), f"{message}: {spread}"


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
    spread, new = scale_up(*runtime.programs(tmp_path, server), fair=False, started=runtime.started)
    report(f"{runtime.name}, plain server, scaled 3 -> 10", spread)
    assert spread.holds, f"too few calls counted: {spread}"
    assert sum(spread.counts[name] for name in new) == 0, "the 7 new pods get no call"


def test_2_max_connection_age_from_the_klb201_fix_spreads_calls(
    runtime: Runtime, tmp_path: Path
) -> None:
    server = runtime.fixed(tmp_path, "pod_ignores_sigterm", "KLB201")
    for written in runtime.max_age:
        assert written in server
    spread, _ = scale_up(*runtime.programs(tmp_path, server), fair=True, started=runtime.started)
    report(f"{runtime.name}, KLB201-fixed servers, scaled 3 -> 10", spread)
    assert_fair(spread, "every pod within 30 % of its fair share")


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
            tally = Tally()
            with calling(client, pods.addresses(), tally, count=1) as going:
                bands = even(pods.names) if name == "round_robin" else []
                spreads[name] = count_until_known(tally, pods.names, bands, going=going)
            report(f"{runtime.name}, {name} over 10 addresses", spreads[name])
    finally:
        pods.close()
    assert_fair(spreads["round_robin"], "every pod, evenly")
    assert spreads["pick_first"].holds, f"too few calls counted: {spreads['pick_first']}"
    assert sum(1 for n in spreads["pick_first"].counts.values() if n) == 1, "without: one pod"


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
