"""KLB406 for a Python project's console script as the container's command: pip installs
`acme-api = acme.bin.api:main` as a Python script that calls the module's function, so
Python is PID 1, judged by the module the script points at (here one setup.py declares);
a prefix that execs the script (OpenTelemetry's, Datadog's, New Relic's) is looked
through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.code.launchers import after_prefix
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

SETUP_PY = """\
from os import path

from setuptools import find_packages, setup

here = path.abspath(path.dirname(__file__))

setup(
    name="acme-shop",
    version="1.2.0",
    packages=find_packages(),
    install_requires=["waitress==3.0.0"],
    entry_points={
        "console_scripts": [
            "acme-api=acme.bin.api:main",
            "acme-worker = acme.bin.worker:main",
        ],
    },
)
"""
API = """\
import argparse

from waitress import serve

from acme.web import make_app


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    serve(make_app(), host="0.0.0.0", port=args.port)
"""
WEB = """\
def make_app():
    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    return app
"""
HANDLER = """\
import signal
import sys

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
"""
# the image installs the project, and sets no command: the manifest names the script
DOCKERFILE = "FROM python:3.12-alpine\nWORKDIR /srv\nCOPY . .\nRUN pip install .\n"
SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: services/shop\n"


def tree(command: str, web: str = WEB) -> dict[str, str]:
    return {
        "deploy/web.yaml": web_deployment(f"command: {command}"),
        "skaffold.yaml": SKAFFOLD,
        "services/shop/Dockerfile": DOCKERFILE,
        "services/shop/setup.py": SETUP_PY,
        "services/shop/acme/__init__.py": "",
        "services/shop/acme/bin/__init__.py": "",
        "services/shop/acme/bin/api.py": API,
        "services/shop/acme/bin/worker.py": HANDLER + "\n\ndef main():\n    pass\n",
        "services/shop/acme/web.py": web,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


@pytest.mark.parametrize(
    "command",
    [
        "[opentelemetry-instrument, acme-api, --port=8080]",
        "[ddtrace-run, acme-api, --port=8080]",
        "[newrelic-admin, run-program, acme-api, --port=8080]",
        "[acme-api, --port=8080]",
    ],
)
def test_a_console_script_run_through_a_prefix_that_execs_it_is_python_as_pid_1(
    tmp_path: Path, command: str
) -> None:
    (finding,) = klb406(tmp_path, tree(command))
    assert finding.severity is Severity.WARNING
    assert finding.path.endswith(os.path.join("deploy", "web.yaml"))
    assert "acme-api (Python) is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_a_handler_in_the_code_the_console_script_runs_counts(tmp_path: Path) -> None:
    files = tree("[opentelemetry-instrument, acme-api]", web=WEB + "\n" + HANDLER)
    assert klb406(tmp_path, files) == []


def test_ddtrace_run_and_newrelic_admin_run_program_exec_the_command_after_them() -> None:
    assert after_prefix(["ddtrace-run", "-p", "gunicorn", "app:app"]) == ["gunicorn", "app:app"]
    assert after_prefix(["newrelic-admin", "run-program", "acme-api"]) == ["acme-api"]
    assert after_prefix(["newrelic-admin", "generate-config", "KEY", "f.ini"]) is None
