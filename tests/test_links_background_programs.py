"""A container whose `sh -c` runs several programs (`a & b & c`) runs the code of each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.code.entry_points import entry_of

from .test_links import links, only, workload

SKAFFOLD = (
    "build:\n  artifacts:\n    - image: registry.example/inventory\n      context: inventory\n"
)
DOCKERFILE = 'FROM python:3.12\nWORKDIR /app\nCOPY . .\nCMD ["bash", "-c", "{command}"]\n'
FLASK_APP = """\
from flask import Flask

import routes

app = Flask(__name__)


@app.route("/orders")
def orders():
    return "[]"


app.run(host="0.0.0.0", port=8080)
"""


def test_the_lists_a_shell_sends_to_the_background_run_beside_its_last_program() -> None:
    """`&` ends a list run in the background, whose last program keeps running (`migrate &&
    runserver &`); a list that ends with `;` or `&&` ran to its end before the next."""
    entry = entry_of(
        [
            "sh",
            "-c",
            "python manage.py migrate && python manage.py runserver & "
            "python grpc_server.py & python worker.py",
        ]
    )
    assert entry is not None and entry.script == "worker.py"
    assert [(e.script, e.words) for e in entry.beside] == [
        ("manage.py", "python manage.py migrate"),
        ("grpc_server.py", "python grpc_server.py"),
    ]
    assert [e.words for e in entry.beside[0].then] == ["python manage.py runserver"]
    sequential = entry_of(["sh", "-c", "python seed.py && python worker.py"])
    assert sequential is not None and sequential.beside == ()


@pytest.mark.parametrize("joined", [" && ", "; ", " || "])
def test_of_programs_run_one_after_the_other_the_first_runs_while_the_pod_serves(
    joined: str,
) -> None:
    """`a && b`: b runs only once a has exited; `a; b` and `a || b` alike."""
    entry = entry_of(["bash", "-c", f"python app.py{joined}python consumer.py"])
    assert entry is not None and entry.script == "app.py"
    assert [e.script for e in entry.then] == ["consumer.py"]


def test_a_server_an_application_server_starts_after_a_set_up_is_what_serves() -> None:
    entry = entry_of(["sh", "-c", "python manage.py migrate && gunicorn shop.wsgi:application"])
    assert entry is not None and (entry.script, entry.module) == (None, "shop.wsgi")


def test_a_container_running_a_web_app_then_a_consumer_runs_the_web_app_s_code(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/inventory"),
        "skaffold.yaml": SKAFFOLD,
        "inventory/Dockerfile": DOCKERFILE.format(command="python app.py && python consumer.py"),
        "inventory/app.py": FLASK_APP,
        "inventory/routes.py": "import requests\n",
        "inventory/consumer.py": "import queue\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory", "app.py")
    assert row["modules"] == 2  # the web app and what it imports, not the consumer


def test_a_set_up_program_that_serves_nothing_is_followed_by_the_program_that_serves(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/inventory"),
        "skaffold.yaml": SKAFFOLD,
        "inventory/Dockerfile": DOCKERFILE.format(command="python seed.py && python app.py"),
        "inventory/seed.py": "import sqlite3\n",
        "inventory/app.py": FLASK_APP,
        "inventory/routes.py": "import requests\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory", "app.py")


def test_a_container_running_programs_in_the_background_links_each_one_s_modules(
    tmp_path: Path,
) -> None:
    command = "python grpc_server.py & python worker.py"
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/inventory"),
        "skaffold.yaml": SKAFFOLD,
        "inventory/Dockerfile": (
            f'FROM python:3.12\nWORKDIR /app\nCOPY . .\nCMD ["sh", "-c", "{command}"]\n'
        ),
        "inventory/grpc_server.py": "import grpc\nimport handlers\n",
        "inventory/handlers.py": "import grpc\n",
        "inventory/worker.py": "import queue\n",
        "inventory/unused.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory", "worker.py")
    assert row["modules"] == 3  # the worker, the gRPC server and what it imports


def test_a_command_s_set_up_script_is_followed_by_the_module_that_serves_with_no_folder_known(
    tmp_path: Path,
) -> None:
    """An image nothing builds in the tree runs `python render_conf.py && python -m
    gateway.agent.main` (its own command, each program found once in the tree): the
    set-up script writes a file and exits, the module after it serves, and it is linked."""
    command = (
        "          command: [sh, -c]\n          args: ['/usr/bin/env python3 "
        "/usr/local/bin/render_conf.py && /usr/bin/env python3 -m gateway.agent.main']\n"
    )
    files = {
        "k8s/agent.yaml": workload("agent", "registry.example/edge/runtime:2", command),
        "edge/scripts/render_conf.py": "import json\n\njson.dump({}, open('/tmp/c', 'w'))\n",
        "edge/python/gateway/agent/main.py": FLASK_APP,
        "edge/python/gateway/agent/routes.py": "import json\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("edge", "python", "gateway", "agent", "main.py")
