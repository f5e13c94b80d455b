"""A small stand-in for a Kubernetes Service on loopback: real grpcio servers ("pods") and
an L4 balancer that behaves like kube-proxy, picking a backend once per new TCP connection
and then piping bytes both ways. Everything binds to 127.0.0.1 and is closed by `close()`.
"""

from __future__ import annotations

import contextlib
import itertools
import random
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent import futures
from typing import Any

import grpc

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


class L4Balancer:
    """kube-proxy in miniature: a backend is chosen when a connection opens, never per call."""

    def __init__(self, ports: Iterable[int], policy: str = "round_robin") -> None:
        self.ports = list(ports)
        self.policy = policy
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def add(self, ports: Iterable[int]) -> None:
        """The scale-up moment: new endpoints, which only new connections can reach."""
        with self._lock:
            self.ports.extend(ports)

    def _pick(self) -> int:
        with self._lock:
            self.connections += 1
            if self.policy == "random":
                return random.choice(self.ports)
            return self.ports[next(self._turn) % len(self.ports)]

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(("127.0.0.1", self._pick()))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            for source, target in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(source, target), daemon=True).start()

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


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
