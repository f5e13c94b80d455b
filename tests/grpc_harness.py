"""A small stand-in for a Kubernetes Service on loopback: real grpcio servers ("pods")
behind an L4Balancer that behaves like kube-proxy. Everything binds to 127.0.0.1 and is
closed by `close()`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent import futures
from typing import Any

import grpc

from .l4_balancer import L4Balancer

SERVICE, METHOD = "proof.Echo", "Where"
PATH = f"/{SERVICE}/{METHOD}"


class Backend:
    """One gRPC server that answers with its name and counts the calls it serves."""

    def __init__(self, name: str, calls: Counter[str], make_server: Callable[[], Any]) -> None:
        self.name = name
        lock = threading.Lock()

        def where(request: bytes, context: grpc.ServicerContext) -> bytes:
            with lock:
                calls[name] += 1
            return name.encode()

        self.server = make_server()
        handler = grpc.method_handlers_generic_handler(
            SERVICE, {METHOD: grpc.unary_unary_rpc_method_handler(where)}
        )
        self.server.add_generic_rpc_handlers((handler,))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def close(self) -> None:
        self.server.stop(None)


def plain_server() -> Any:
    return grpc.server(futures.ThreadPoolExecutor(max_workers=8))


class Cluster:
    """Backends behind a balancer; `scale_to` adds backends while traffic runs."""

    def __init__(self, replicas: int, make_server: Callable[[], Any] = plain_server) -> None:
        self.calls: Counter[str] = Counter()
        self.make_server = make_server
        self.backends: list[Backend] = []
        self._add(replicas)
        self.balancer = L4Balancer(b.port for b in self.backends)

    def _add(self, count: int) -> list[Backend]:
        start = len(self.backends)
        new = [Backend(f"pod-{start + n}", self.calls, self.make_server) for n in range(count)]
        for backend in new:  # every key exists before traffic can reach it, so that
            self.calls.setdefault(backend.name, 0)  # copying the counts never races a new key
        self.backends += new
        return new

    def scale_to(self, replicas: int) -> list[str]:
        new = self._add(replicas - len(self.backends))
        self.balancer.add(b.port for b in new)
        return [b.name for b in new]

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.backends]

    def addresses(self) -> str:
        """An `ipv4:` target listing every backend: what a headless Service's DNS answers."""
        return "ipv4:" + ",".join(f"127.0.0.1:{b.port}" for b in self.backends)

    def close(self) -> None:
        self.balancer.close()
        for backend in self.backends:
            backend.close()


def client(target: str, options: Sequence[tuple[str, Any]] = ()) -> Callable[[], bytes]:
    """One client pod: its own connections (a local subchannel pool, as separate pods have)."""
    channel = grpc.insecure_channel(
        target, options=[("grpc.use_local_subchannel_pool", 1), *options]
    )
    call = channel.unary_unary(PATH)
    return lambda: call(b"", timeout=5, wait_for_ready=True)


def spread(calls: Counter[str], names: Sequence[str]) -> dict[str, int]:
    return {name: calls.get(name, 0) for name in names}
