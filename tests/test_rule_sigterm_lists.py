"""KLB406 and a shell that runs programs one after the other (`a && b`): the program that
serves is `a`, which no shell runs in its own place (only a script's last command may
be), so SIGTERM never reaches it, whichever bash the image has."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity

from .helpers import lint_files
from .test_links import workload

SKAFFOLD = (
    "build:\n  artifacts:\n    - image: registry.example/inventory\n      context: inventory\n"
)
SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: inventory, namespace: shop}
spec:
  selector: {app: inventory}
  ports: [{port: 80, targetPort: 8080}]
"""
WEB_APP = """\
import signal
import sys

from flask import Flask

app = Flask(__name__)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))


@app.route("/orders")
def orders():
    return "[]"


app.run(host="0.0.0.0", port=8080)
"""


@pytest.mark.parametrize(
    ("command", "severity", "headline"),
    [
        ("python app.py && python consumer.py", Severity.WARNING, "never reaches"),
        # the last command serves: bash 5.1 and later run it in their own place
        ("python seed.py && python app.py", Severity.INFO, "may not reach"),
    ],
)
def test_the_program_a_list_runs_first_never_gets_sigterm_from_bash(
    tmp_path: Path, command: str, severity: Severity, headline: str
) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/inventory"),
        "k8s/service.yaml": SERVICE,
        "skaffold.yaml": SKAFFOLD,
        "inventory/Dockerfile": (
            f'FROM python:3.12\nWORKDIR /app\nCOPY . .\nCMD ["bash", "-c", "{command}"]\n'
        ),
        "inventory/app.py": WEB_APP,
        "inventory/consumer.py": "import queue\n",
        "inventory/seed.py": "import sqlite3\n",
    }
    (finding,) = lint_files(tmp_path, files, ["KLB406"]).findings
    assert finding.severity is severity
    assert f"SIGTERM {headline} container 'server'" in finding.message
