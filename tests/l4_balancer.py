"""kube-proxy in miniature, on loopback: a backend is picked once per new TCP connection,
then bytes are piped both ways. It knows nothing of gRPC: the grpcio and the grpc-go proofs
both stand their pods behind it."""

from __future__ import annotations

import contextlib
import itertools
import random
import socket
import threading
from collections.abc import Iterable


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
