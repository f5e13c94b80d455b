"""KLB406 for Python as PID 1: a wait that is no gRPC server's (an asyncio loop's
`run_forever()` in a worker thread of a module that starts no server) leaves the process's
SIGTERM to this rule; only a gRPC server the code starts and waits on is
grpc-no-graceful-shutdown's to report instead."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

DOCKERFILE = (
    "FROM python:3.12-slim\nWORKDIR /srv\nCOPY requirements.txt /srv/\n"
    "RUN pip install -r requirements.txt\nCOPY ./*.py /srv/\nEXPOSE 8080\n"
    'CMD ["python", "app.py"]\n'
)
APP = """\
import os

from flask import Flask, jsonify

app = Flask(__name__)
replayer = None
if os.environ.get("REPLAY") == "on":
    from replay import Replayer

    replayer = Replayer()


@app.route("/health")
def health():
    return jsonify(status="ok")


if __name__ == "__main__":
    if replayer is not None:
        replayer.start()
    app.run(host="0.0.0.0", port=8080)
"""
WORKER_LOOP = """\
import asyncio
import threading

import requests


class Replayer:
    def replay(self, url, body):
        return requests.post(url, json=body, timeout=5)

    def start(self):
        self._loop = asyncio.new_event_loop()
        worker = threading.Thread(target=self._run, daemon=True)
        worker.start()
        return worker

    def _run(self):
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()
"""
GRPC_SERVER = """\
from concurrent import futures

import grpc


class Replayer:
    def start(self):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        server.add_insecure_port("[::]:50051")
        server.start()
        server.wait_for_termination()
"""


def _tree(replay: str) -> dict[str, str | bytes]:
    return {
        "deploy/web.yaml": web_deployment(),
        "web/Dockerfile": DOCKERFILE,
        "web/requirements.txt": "flask\n",
        "web/app.py": APP,
        "web/replay.py": replay,
    }


def test_python_as_pid1_beside_a_worker_loop_is_reported(tmp_path: Path) -> None:
    (finding,) = lint_files(tmp_path, _tree(WORKER_LOOP), ["KLB406"]).findings
    assert finding.severity is Severity.WARNING
    assert "python is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_python_as_pid1_waiting_on_a_grpc_server_is_left_to_klb403(tmp_path: Path) -> None:
    assert lint_files(tmp_path, _tree(GRPC_SERVER), ["KLB406"]).findings == []
