"""Proof on a real grpc-java runtime, as tests/test_grpc_go_proof.py is on grpc-go: a
ClusterIP pins calls to the pods that were there when the connections opened, and the Java
code that k8slb's fixes write spreads them and drains them.

The servers and clients are Java programs compiled at test time (javac) from
tests/java_proof/ against Debian's grpc-java 1.41 on the netty transport (java_toolchain.py;
nothing is fetched; the service is described by hand, no protoc): a program's folder holds
the harness (the service, the host of its pods or clients), and its Main.java is one of
java_proof/mains/, the code as services write it, which goes through `k8slb fix` first:
what runs is what the fixer wrote. A JVM takes a second or more to load grpc-java, so one
JVM hosts every pod of a scenario (each pod its own server, on its own port, run by the
main as written) and one JVM its clients (each with its own channel, so its own
connections), except where SIGTERM stops a pod: there the pod is a JVM of its own. The
tests, their scenarios and the pods behind the same loopback L4Balancer as the Python
proof's are tests/runtime_proof.py's, shared with the Go and Node.js proofs: this module
says how grpc-java programs are compiled and started, and what the fixes write. Every
scenario ends by itself in seconds. Run with `-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_java_proof.py -s -q
"""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from k8slb.fixing.fixer import plan
from k8slb.reading.sources import discover
from k8slb.run.selection import select_rules
from k8slb.run.settings import Settings

from .helpers import FAST, fixed_source
from .java_toolchain import javac, require_java
from .runtime_proof import (  # noqa: F401  (the tests: collected here, they run on grpc-java)
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

SOURCES = Path(__file__).parent / "java_proof"
MAINS = SOURCES / "mains"
ENTRY = {"pod": "Pods", "client": "Load"}  # the class the JVM runs, in each program

# lines the KLB201 fix writes (grpc-java's netty server holds a connection 1 s at least)
MAX_AGE = (
    ".maxConnectionAge(300, TimeUnit.MILLISECONDS)",
    ".maxConnectionAgeGrace(1, TimeUnit.SECONDS)",
)

# the pod as written, the rule that reports it, and a line the rule's fix writes
STOPPING = {
    "KLB403": ("pod_ignores_sigterm", "Runtime.getRuntime().addShutdownHook(new Thread(() -> {"),
    "KLB404": ("pod_stops_on_sigterm", "if (!server.awaitTermination(25, TimeUnit.SECONDS)) {"),
}


def test_4_the_klb404_fix_ends_the_calls_that_outlive_the_grace(
    runtime: Runtime, tmp_path: Path
) -> None:
    """shutdown() lets every call in flight finish, however long: the
    `awaitTermination(grace)` the KLB404 fix writes, then `shutdownNow()`, ends them once
    stop-grace-seconds (here 1) have passed. The calls take 20 s, within the 30 s the
    client gives a call in flight: a shutdown with no bound would let them all finish, and
    a loaded machine has 19 s to cut them."""
    path = tmp_path / "fix" / "Main.java"
    values = replace(FAST, stop_grace_seconds=1)
    server = fixed_source(path, main("pod_stops_on_sigterm"), "KLB404", unsafe=True, values=values)
    assert "if (!server.awaitTermination(1, TimeUnit.SECONDS)) {" in server
    outcomes = calls_through_sigterm(*runtime.programs(tmp_path, server), delay_ms=20_000)
    report(f"{runtime.name}, SIGTERM with the KLB404 fix, calls longer than its grace", outcomes)
    # shutdownNow() resets each stream (the client reads CANCELLED) and the process then
    # closes the connection (UNAVAILABLE): which the client sees first is the machine's race
    cut = {"UNAVAILABLE", "CANCELLED"}
    assert len(outcomes) == 4 and set(outcomes) <= cut, "cut by shutdownNow(), not by deadline"


# a server on a plain io.grpc.ServerBuilder, as a service on grpc-java before 1.47 writes it
PLAIN_SERVER = """\
import io.grpc.Server;
import io.grpc.ServerBuilder;

public final class Main {
  public static void main(String[] args) throws Exception {
    Server server = ServerBuilder.forPort(0).build().start();
    server.shutdown();
  }
}
"""
DEBIAN_POM = """\
<project>
  <properties>
    <grpc.version>1.41.3</grpc.version>
  </properties>
  <dependencies>
    <dependency>
      <groupId>io.grpc</groupId>
      <artifactId>grpc-netty</artifactId>
      <version>${grpc.version}</version>
    </dependency>
  </dependencies>
</project>
"""


def test_the_klb201_fix_on_a_plain_server_builder_is_refused_on_grpc_java_1_41(
    classpath: str, tmp_path: Path
) -> None:
    """Debian's grpc-java is 1.41.3, whose ServerBuilder has no maxConnectionAge (it came in
    1.47.0): the fix k8slb offers, unsafe, where no build says the version does not compile
    there, and with a pom.xml that says 1.41.3 k8slb makes no edit, even with
    --unsafe-fixes, so the server still compiles."""
    path = tmp_path / "unknown" / "Main.java"
    path.write_text(fixed_source(path, PLAIN_SERVER, "KLB201", unsafe=True))
    assert ".maxConnectionAge(" in path.read_text()
    failed = _javac(classpath, tmp_path / "unknown")
    assert failed.returncode != 0 and "maxConnectionAge" in failed.stderr
    project = tmp_path / "debian"
    project.mkdir()
    (project / "Main.java").write_text(PLAIN_SERVER)
    (project / "pom.xml").write_text(DEBIAN_POM)
    settings = Settings(rules=select_rules(["KLB201"], []), fix_values=FAST)
    outcome = plan(discover([str(project)]).sources, settings, unsafe=True)
    assert outcome.fixed_text == {}, "no edit on grpc-java 1.41.3"
    assert _javac(classpath, project).returncode == 0


def _javac(classpath: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """javac on the folder's Main.java, its result whether it compiles or not."""
    command = ["javac", "-nowarn", "-cp", classpath, "-d", str(folder / "classes")]
    return subprocess.run(
        [*command, str(folder / "Main.java")], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def classpath() -> str:
    return require_java()


@pytest.fixture(scope="module")
def runtime(classpath: str) -> Runtime:
    return Runtime(
        name="grpc-java",
        file="Main.java",
        main=main,
        client_source=client_source,
        program=functools.partial(program, classpath, {}),
        # one JVM hosts the 10 pods of a scale-up, started beforehand: the balancer takes
        # the 7 in at the scale-up
        started=10,
        max_age=MAX_AGE,
        stopping=STOPPING,
    )


def main(name: str) -> str:
    return (MAINS / f"{name}.java").read_text()


def program(
    classpath: str, compiled: dict[tuple[str, str], Program], name: str, source: str, tmp_path: Path
) -> Program:
    """java_proof/<name>/ with `source` as its Main.java, compiled in a folder of its own
    (once for each source: javac takes seconds, and the scenarios share their programs).
    It hosts every pod or client of a scenario, and its clients start calling on a line on
    their stdin, once their channels are connected."""
    if (name, source) not in compiled:
        compiled[name, source] = _compile(classpath, name, source, tmp_path)
    return compiled[name, source]


def _compile(classpath: str, name: str, source: str, tmp_path: Path) -> Program:
    folder = tmp_path / name
    folder.mkdir(parents=True)
    for harness in [*(SOURCES / name).glob("*.java"), SOURCES / "Echo.java"]:
        (folder / harness.name).write_text(harness.read_text())
    (folder / "Main.java").write_text(source)
    classes = folder / "classes"
    javac(classpath, sorted(folder.glob("*.java")), classes)
    command = ["java", "-cp", os.pathsep.join([str(classes), classpath]), ENTRY[name]]
    return Program(command, dict(os.environ), starts_on_a_line=True, hosts=True)


def client_source(source: str) -> str:
    """The client's target, aimed at the test's resolver instead of cluster DNS: Load.java
    registers the "proof" scheme, which resolves to the addresses of PROOF_ADDRESSES."""
    target = '"dns:///backend.shop.svc.cluster.local:50051"'
    assert target in source
    return source.replace(target, '"proof:///backend"')
