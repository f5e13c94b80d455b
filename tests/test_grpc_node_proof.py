"""Proof on a real @grpc/grpc-js runtime, as tests/test_grpc_go_proof.py is on grpc-go: a
ClusterIP pins calls to the pods that were there when the connections opened, and the
Node.js code that k8slb's fixes write spreads them and drains them.

The servers and clients are Node programs put together at test time from
tests/node_proof/ and run with the pinned grpc-js that node_toolchain.py installs once
with npm: a program's folder holds the harness (the service, the load loop), and its
main.js is one of node_proof/mains/, the code as services write it, which goes through
`k8slb fix` first: what runs is what the fixer wrote. The tests, their scenarios and the pods
behind the same loopback L4Balancer as the Python and Go proofs' are
tests/runtime_proof.py's, shared with the Go proof: this module says how grpc-js programs
are put together and started, and what the fixes write. Every scenario ends by itself in
seconds. Run with
`-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_node_proof.py -s -q
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from .node_toolchain import node_environment, require_node
from .runtime_proof import (  # noqa: F401  (the tests: collected here, they run on grpc-js)
    Program,
    Runtime,
    test_1_a_clusterip_pins_calls_to_the_first_pods,
    test_2_max_connection_age_from_the_klb201_fix_spreads_calls,
    test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod,
    test_4_the_fix_drains_calls_in_flight,
    test_4_unfixed_sigterm_cuts_calls_in_flight,
)

pytestmark = pytest.mark.proof

SOURCES = Path(__file__).parent / "node_proof"
MAINS = SOURCES / "mains"
ENTRY = {"pod": "main.js", "client": "load.js"}  # the file node runs, in each program

# lines the KLB201 fix writes
MAX_AGE = ("'grpc.max_connection_age_ms': 300", "'grpc.max_connection_age_grace_ms': 1000")

# the pod as written, the rule that reports it, and a line the rule's fix writes
STOPPING = {
    "KLB403": ("pod_ignores_sigterm", "process.on('SIGTERM', () => {"),
    "KLB404": ("pod_stops_on_sigterm", "server.tryShutdown(() => {});"),
}


@pytest.fixture(scope="module")
def packages() -> Path:
    return require_node()


@pytest.fixture(scope="module")
def runtime(packages: Path) -> Runtime:
    return Runtime(
        name="grpc-js",
        file="main.js",
        main=main,
        client_source=client_source,
        program=functools.partial(program, packages),
        # node takes up to a second to start 7 pods on a small machine: the 10 pods of a
        # scale-up start beforehand, and the balancer takes the 7 in at the scale-up
        started=10,
        max_age=MAX_AGE,
        stopping=STOPPING,
    )


def main(name: str) -> str:
    return (MAINS / f"{name}.js").read_text()


def program(packages: Path, name: str, source: str, tmp_path: Path) -> Program:
    """node_proof/<name>/ with `source` as its main.js, in a folder of its own. Its clients
    start calling on a line on their stdin: node takes a while to load grpc-js."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    for harness in [*(SOURCES / name).glob("*.js"), SOURCES / "echo.js"]:
        (folder / harness.name).write_text(harness.read_text())
    (folder / "main.js").write_text(source)
    command = ["node", str(folder / ENTRY[name])]
    return Program(command, node_environment(packages), starts_on_a_line=True)


def client_source(source: str) -> str:
    """The client's target, aimed at the addresses of PROOF_ADDRESSES instead of cluster
    DNS: grpc-js's own `ipv4:` scheme resolves a list to every address in it."""
    target = "'dns:///backend.shop.svc.cluster.local:50051'"
    assert target in source
    return source.replace(target, "`ipv4:${process.env.PROOF_ADDRESSES}`")
