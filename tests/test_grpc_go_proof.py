"""Proof on a real grpc-go runtime, as tests/test_grpc_proof.py is on grpcio: a ClusterIP
pins calls to the pods that were there when the connections opened, and the Go code that
k8slb's fixes write spreads them and drains them.

The servers and clients are Go programs built at test time from tests/go_proof/ against
Debian's grpc-go (go_toolchain.py; nothing is fetched): a program's folder holds the
harness (the service, the load loop), and its main.go is one of go_proof/mains/, the code
as services write it, which goes through `k8slb fix` first: what runs is what the fixer
wrote. The tests, their scenarios and the pods behind the same loopback L4Balancer as the Python
proof's are tests/runtime_proof.py's, shared with the Node.js proof: this module says how
grpc-go programs are built and started, and what the fixes write. Every scenario ends by
itself in seconds. Run with `-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_go_proof.py -s -q
"""

from __future__ import annotations

import functools
import os
from dataclasses import replace
from pathlib import Path

import pytest

from .go_toolchain import go
from .helpers import FAST, fixed_source, lint_files
from .runtime_proof import (  # noqa: F401  (the tests: collected here, they run on grpc-go)
    Program,
    Runtime,
    calls_through_sigterm,
    report,
    test_1_a_clusterip_pins_calls_to_the_first_pods,
    test_2_max_connection_age_from_the_klb201_fix_spreads_calls,
    test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod,
    test_4_the_fix_drains_calls_in_flight,
    test_4_unfixed_sigterm_cuts_calls_in_flight,
)

pytestmark = pytest.mark.proof

SOURCES = Path(__file__).parent / "go_proof"
MAINS = SOURCES / "mains"

# lines the KLB201 fix writes
MAX_AGE = ("MaxConnectionAge: 300 * time.Millisecond", "MaxConnectionAgeGrace: 1 * time.Second")

# the pod as written, the rule that reports it, and a line the rule's fix writes
STOPPING = {
    "KLB403": ("pod_ignores_sigterm", "signal.Notify(sigterm, syscall.SIGTERM)"),
    "KLB404": ("pod_stops_on_sigterm", "time.AfterFunc(25*time.Second, server.Stop)"),
}


def test_4_the_klb404_fix_ends_the_calls_that_outlive_the_grace(
    runtime: Runtime, tmp_path: Path
) -> None:
    """GracefulStop() alone waits for every call, however long: the timer the KLB404 fix
    writes stops the server outright once stop-grace-seconds (here 1) have passed. The
    calls take 20 s, within the 30 s the client gives a call in flight: an unbounded
    GracefulStop() would let them all finish, and a loaded machine has 19 s to cut them."""
    path = tmp_path / "fix" / "main.go"
    values = replace(FAST, stop_grace_seconds=1)
    server = fixed_source(path, main("pod_stops_on_sigterm"), "KLB404", unsafe=True, values=values)
    assert "time.AfterFunc(1*time.Second, server.Stop)" in server
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path, server), delay_ms=20_000)
    report(f"{runtime.name}, SIGTERM with the KLB404 fix, calls longer than its grace", outcomes)
    assert outcomes == ["Unavailable"] * 4, "cut by the timer's Stop(), not by their deadline"


@pytest.fixture(scope="module")
def gopath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gopath")


@pytest.fixture(scope="module")
def runtime(gopath: Path) -> Runtime:
    return Runtime(
        name="grpc-go",
        file="main.go",
        main=main,
        client_source=client_source,
        program=functools.partial(build, gopath),
        started=3,  # Go starts a pod in milliseconds: the new pods start at the scale-up
        max_age=MAX_AGE,
        stopping=STOPPING,
    )


def main(name: str) -> str:
    return (MAINS / f"{name}.go").read_text()


def build(gopath: Path, program: str, source: str, tmp_path: Path) -> Program:
    """The program of go_proof/<program>/ with `source` as its main.go, built."""
    folder = gopath / "src" / "proof" / tmp_path.name / program
    folder.mkdir(parents=True)
    for harness in [*(SOURCES / program).glob("*.go"), SOURCES / "codec.go"]:
        (folder / harness.name).write_text(harness.read_text())
    (folder / "main.go").write_text(source)
    binary = tmp_path / program
    done = go(gopath, "build", "-o", str(binary), ".", cwd=folder)
    assert done.returncode == 0, done.stderr
    return Program([str(binary)], dict(os.environ))


def client_source(source: str) -> str:
    """The client's dial, aimed at the test's resolver instead of cluster DNS."""
    target = '"dns:///backend.shop.svc.cluster.local:50051"'
    assert target in source
    return source.replace(target, '"proof:///backend"')


def test_4_a_handler_that_exits_while_the_server_drains_cuts_calls_in_flight(
    runtime: Runtime, tmp_path: Path
) -> None:
    """A SIGTERM handler that starts GracefulStop() in a goroutine and calls os.Exit at
    once cuts every call in flight, as no handler would, and KLB403 says so; the same
    handler waiting for the stop before it exits (the rule's advice) lets all four finish."""
    server = main("pod_exits_while_draining")
    for folder in ("exits", "waits"):
        (tmp_path / folder).mkdir()
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path / "exits", server))
    report(f"{runtime.name}, SIGTERM with a handler that exits at once", outcomes)
    assert "done" not in outcomes, "every call in flight is cut"
    findings = lint_files(tmp_path / "lint", {"main.go": server}, ["KLB403"]).findings
    assert [f.message.split(" (")[0] for f in findings] == ["SIGTERM"]
    waited = server.replace("\t\tgo server.GracefulStop()\n", "\t\tserver.GracefulStop()\n")
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path / "waits", waited))
    report(f"{runtime.name}, SIGTERM with a handler that waits for the stop", outcomes)
    assert outcomes == ["done"] * 4, "no call in flight is lost"
    assert lint_files(tmp_path / "lint-waits", {"main.go": waited}, ["KLB403"]).findings == []
