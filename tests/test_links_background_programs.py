"""A container whose `sh -c` runs several programs (`a & b & c`) runs the code of each."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.code.entry_points import entry_of

from .test_links import links, only, workload

SKAFFOLD = (
    "build:\n  artifacts:\n    - image: registry.example/inventory\n      context: inventory\n"
)


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
        ("manage.py", "python manage.py runserver"),
        ("grpc_server.py", "python grpc_server.py"),
    ]
    sequential = entry_of(["sh", "-c", "python seed.py && python worker.py"])
    assert sequential is not None and sequential.beside == ()


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
