"""Proof on a real gRPC runtime: a ClusterIP pins gRPC calls to the pods that were there
when the connections opened, and the code k8slb's fixes write spreads them.

Every scenario runs real grpcio servers and clients on 127.0.0.1 behind `L4Balancer`
(kube-proxy's behaviour: a backend per new TCP connection), ends by itself in seconds, and
takes the code under test from the fixer itself (the fixed source is executed), so a fix
that stops working fails here. Run with `-s` to see the measured spreads:
    .venv/bin/python -m pytest tests/test_grpc_proof.py -s -q
"""

from __future__ import annotations

import ast
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # no GOAWAY chatter when pods stop
grpc = pytest.importorskip("grpc")
pytestmark = pytest.mark.proof

from .fair_share import Band, Spread, Tally, count_until_known  # noqa: E402
from .grpc_harness import Cluster, client, spread  # noqa: E402
from .helpers import fixed_source  # noqa: E402


def fixed(tmp_path: Path, source: str, rules: str, *, unsafe: bool = False) -> str:
    """`source` after `k8slb fix --select RULES`: the code under test is the fixer's."""
    return fixed_source(tmp_path / "app.py", textwrap.dedent(source), rules, unsafe=unsafe)


def load(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "fixed.py", "exec"), namespace)  # the fixed module, for real
    return namespace


@contextlib.contextmanager
def traffic(
    callers: Sequence[Callable[[], bytes]], cluster: Cluster, tally: Tally
) -> Iterator[None]:
    """Every client calls in a loop until the block ends, as a service under steady load;
    the calls the pods serve are added to `tally` as they come."""
    stop = threading.Event()

    def loop(call: Callable[[], bytes]) -> None:
        while not stop.is_set():
            call()

    def count() -> None:
        seen: Counter[str] = Counter()
        while not stop.wait(0.05):
            now = Counter(cluster.calls)
            tally.add(now - seen)
            seen = now

    threads = [threading.Thread(target=loop, args=(call,)) for call in callers]
    threads.append(threading.Thread(target=count))
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def report(title: str, counts: object) -> None:
    shown = " ".join(f"{k}={n}" for k, n in counts.items()) if isinstance(counts, dict) else counts
    print(f"\n{title}: {shown}")


SERVER = """\
    from concurrent import futures

    import grpc


    def make_server():
        return grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    """


def scale_up(cluster: Cluster, clients: int, *, bands: bool) -> tuple[Spread, list[str]]:
    """Traffic on 3 pods; 1 s in, scale to 10 while the calls keep coming; the calls each
    pod served from 1.5 s after the scale-up until tests/fair_share.py knows whether the new
    pods get their share (`bands`), or has counted enough calls (not `bands`)."""
    callers = [client(f"127.0.0.1:{cluster.balancer.port}") for _ in range(clients)]
    tally = Tally()
    with traffic(callers, cluster, tally):
        time.sleep(1.0)
        new = cluster.scale_to(10)
        time.sleep(1.5)
        claim = [Band(tuple(new), 0.4, 1.0)]  # the 7 new pods together: 70 % when even
        spread = count_until_known(tally, cluster.names, claim if bands else [])
    return spread, new


def test_1_a_clusterip_pins_calls_to_the_first_pods() -> None:
    cluster = Cluster(3)
    try:
        spread, new = scale_up(cluster, clients=6, bands=False)
    finally:
        cluster.close()
    report("plain channel, scaled 3 -> 10", spread)
    assert spread.holds, f"too few calls counted: {spread}"
    assert sum(spread.counts[name] for name in new) == 0, "the 7 new pods get no call"


def test_2_max_connection_age_from_the_klb201_fix_spreads_calls(tmp_path: Path) -> None:
    source = fixed(tmp_path, SERVER, "KLB201")
    assert "grpc.max_connection_age_ms" in source and "grpc.max_connection_age_grace_ms" in source
    cluster = Cluster(3, load(source)["make_server"])
    try:
        spread, new = scale_up(cluster, clients=6, bands=True)
    finally:
        cluster.close()
    report("KLB201-fixed servers, scaled 3 -> 10", spread)
    assert spread.holds is not False, f"the new pods get too little: {spread}"
    counts = spread.counts
    assert all(counts[name] > 0 for name in new), "every new pod gets calls"
    assert sum(counts[name] for name in new) >= 0.4 * spread.calls, "a fair share (even: 70%)"


CLIENT = """\
    import grpc

    channel = grpc.insecure_channel("dns:///backend.shop.svc.cluster.local:50051")
    """


def channel_options(source: str) -> list[tuple[str, Any]]:
    """The `options=` literal of the channel the fixed source makes."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "options":
                    options: list[tuple[str, Any]] = ast.literal_eval(keyword.value)
                    return options
    return []


def test_3_round_robin_from_the_klb103_fix_spreads_calls_over_every_pod(tmp_path: Path) -> None:
    options = channel_options(fixed(tmp_path, CLIENT, "KLB103"))
    assert options, "the fix wrote options"
    cluster = Cluster(10)
    try:
        balanced = client(cluster.addresses(), options)  # every pod's address, as headless DNS
        for _ in range(200):
            balanced()
        with_fix = spread(cluster.calls, cluster.names)
        cluster.calls.clear()
        pick_first = client(cluster.addresses())
        for _ in range(200):
            pick_first()
        without = spread(cluster.calls, cluster.names)
    finally:
        cluster.close()
    report("round_robin over 10 addresses", with_fix)
    report("pick_first over the same addresses", without)
    assert all(n >= 10 for n in with_fix.values()), "every pod gets about a tenth"
    assert sorted(without.values())[-1] == 200, "without the fix, one pod gets everything"


SLOW_SERVER = """\
    import sys
    import time
    from concurrent import futures

    import grpc


    def slow(request, context):
        time.sleep(1.5)
        return b"done"


    def serve():
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        handler = grpc.method_handlers_generic_handler(
            "proof.Slow", {"Call": grpc.unary_unary_rpc_method_handler(slow)}
        )
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        print(port, flush=True)
        server.wait_for_termination()


    if __name__ == "__main__":
        serve()
    """


def calls_through_sigterm(tmp_path: Path, source: str, count: int = 4) -> list[str]:
    """Start the server, put `count` slow calls in flight, send SIGTERM (what the kubelet
    does), and say how each call ended."""
    script = tmp_path / "server.py"
    script.write_text(source)
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        call = grpc.insecure_channel(f"127.0.0.1:{port}").unary_unary("/proof.Slow/Call")
        with futures.ThreadPoolExecutor(count) as pool:
            pending = [pool.submit(call, b"", timeout=10) for _ in range(count)]
            time.sleep(0.5)  # the calls are in flight
            os.kill(process.pid, signal.SIGTERM)
            outcomes = []
            for future in pending:
                try:
                    outcomes.append(future.result().decode())
                except grpc.RpcError as error:
                    outcomes.append(error.code().name)
        process.wait(timeout=30)
        return outcomes
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_4_the_klb403_handler_drains_calls_in_flight(tmp_path: Path) -> None:
    source = fixed(tmp_path, SLOW_SERVER, "KLB403", unsafe=True)
    assert "signal.SIGTERM" in source
    outcomes = calls_through_sigterm(tmp_path, source)
    print(f"\nSIGTERM with the KLB403 handler: {outcomes}")
    assert outcomes == ["done"] * 4, "no call in flight is lost"


def test_4_without_a_handler_sigterm_cuts_calls_in_flight(tmp_path: Path) -> None:
    outcomes = calls_through_sigterm(tmp_path, textwrap.dedent(SLOW_SERVER))
    print(f"\nSIGTERM with no handler, the KLB403 case: {outcomes}")
    assert "done" not in outcomes, "every call in flight is cut"


def test_4_stop_without_grace_cuts_calls_in_flight(tmp_path: Path) -> None:
    source = fixed(tmp_path, SLOW_SERVER, "KLB403", unsafe=True)
    cut = source.replace("server.stop(grace=25)", "server.stop(0)")
    assert cut != source
    outcomes = calls_through_sigterm(tmp_path, cut)
    print(f"\nSIGTERM with stop(0), the KLB404 case: {outcomes}")
    assert "done" not in outcomes, "every call in flight is cut"
    from .helpers import lint_files

    findings = lint_files(tmp_path / "lint", {"server.py": cut}, ["KLB404"]).findings
    assert [f.rule for f in findings] == ["KLB404"], "and k8slb says so"
