"""Python: what the order of a gRPC server's calls in a block says. A `stop(0)` that runs
only once `wait_for_termination()` has returned stops a server already ended (no KLB404);
a `wait_for_termination()` right after the server's own graceful `stop(grace)` waits for
that stop, not for SIGTERM (no KLB403 on it)."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.python.parse import analyse

from tests.helpers import lint_files

# A service object: `run()` starts the server, waits for its end, then tidies up with
# `stop()`, whose `stop(None)` then meets no call in flight.
_SERVICE = """\
import grpc
from concurrent import futures


class LedgerService:
    def __init__(self, port):
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._server.add_insecure_port("[::]:%d" % port)
        self._running = False

    def start(self):
        self._server.start()
        self._running = True

    def stop(self):
        if self._running:
            self._server.stop(None)
            self._running = False

    def run(self):
        self.start()
        self._server.wait_for_termination()
        self.stop()
"""

_MAIN = """\
from ledger.service import LedgerService

if __name__ == "__main__":
    LedgerService(50051).run()
"""


def test_a_stop_reached_only_after_the_wait_returned_is_no_klb404(tmp_path: Path) -> None:
    files = {"ledger/service.py": _SERVICE, "ledger/main.py": _MAIN}
    assert lint_files(tmp_path / "a", files, ["KLB404"]).findings == []
    # the same stop written right after the wait, in the same function
    inline = _SERVICE.replace("        self.stop()\n", "        self._server.stop(None)\n").replace(
        "            self._server.stop(None)\n", "            pass\n"
    )
    assert lint_files(tmp_path / "b", {"ledger/service.py": inline}, ["KLB404"]).findings == []


def test_a_stop_something_else_may_call_while_serving_is_still_klb404(tmp_path: Path) -> None:
    # a SIGTERM handler that names the method: it runs while the server serves
    handled = _SERVICE.replace(
        "        self.start()\n",
        "        signal.signal(signal.SIGTERM, lambda *_: self.stop())\n        self.start()\n",
    ).replace("import grpc\n", "import signal\n\nimport grpc\n")
    (finding,) = lint_files(tmp_path / "a", {"ledger/service.py": handled}, ["KLB404"]).findings
    assert finding.line == 19
    # another module that imports this one calls `stop` by name, on SIGTERM
    stopper = _MAIN.replace(
        "    LedgerService(50051).run()\n",
        "    service = LedgerService(50051)\n"
        "    signal.signal(signal.SIGTERM, lambda *_: service.stop())\n"
        "    service.run()\n",
    ).replace("from ledger", "import signal\n\nfrom ledger")
    files = {"ledger/service.py": _SERVICE, "ledger/main.py": stopper}
    (finding,) = lint_files(tmp_path / "b", files, ["KLB404"]).findings
    assert finding.path.endswith("ledger/service.py")
    # a stop before the wait, in its block
    before = _SERVICE.replace(
        "        self._server.wait_for_termination()\n        self.stop()\n",
        "        self.stop()\n        self._server.wait_for_termination()\n",
    )
    (finding,) = lint_files(tmp_path / "c", {"ledger/service.py": before}, ["KLB404"]).findings
    assert finding.rule == "KLB404"


# A peer link whose state thread, once closed, stops the server gracefully and waits for
# that stop to finish; the process's own wait is elsewhere.
_PEER = """\
import threading

import grpc
from concurrent import futures


class PeerLink:
    def __init__(self, port):
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._server.add_insecure_port("[::]:%d" % port)
        self._closed = threading.Event()

    def open(self):
        self._server.start()
        threading.Thread(target=self._state_loop, daemon=True).start()

    def _state_loop(self):
        self._closed.wait()
        self._server.stop(10)
        self._server.wait_for_termination()
"""


def test_a_wait_right_after_the_servers_graceful_stop_is_no_wait_for_sigterm(
    tmp_path: Path,
) -> None:
    assert analyse("peer/link.py", _PEER.encode()).waits == []
    assert lint_files(tmp_path / "a", {"peer/link.py": _PEER}, ["KLB403"]).findings == []
    # the wait before the stop is the server's wait: still KLB403's
    waiting = _PEER.replace(
        "        self._server.stop(10)\n        self._server.wait_for_termination()\n",
        "        self._server.wait_for_termination()\n        self._server.stop(10)\n",
    )
    (finding,) = lint_files(tmp_path / "b", {"peer/link.py": waiting}, ["KLB403"]).findings
    assert finding.line == 19
