"""A launcher whose program is the value of a flag (`locust --locustfile=load.py`): the
container runs that module and what it imports, not every module of its image's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.entry_points import entry_of

from tests.test_links import DOCKERFILE, links, only, service_app, workload


@pytest.mark.parametrize(
    ("argv", "script", "module"),
    [
        (["locust", "--master", "--locustfile=load.py"], "load.py", None),
        (["locust", "-f", "perf/users.py", "--headless", "-u", "10"], "perf/users.py", None),
        (["locust", "--worker", "-f", "perf.users"], None, "perf.users"),
        (["python", "-m", "locust", "-f", "load.py"], "load.py", None),
        (["/bin/sh", "-c", "exec locust -f /mnt/load.py --master"], "/mnt/load.py", None),
        (["locust", "--help"], None, None),  # the program not named: Locust's default
        (["locust", "-f", "a.py,b.py"], None, None),  # several programs
        (["locust", "-f", "$LOCUSTFILE"], None, None),
    ],
)
def test_a_launcher_s_flag_names_the_program_it_runs(
    argv: list[str], script: str | None, module: str | None
) -> None:
    entry = entry_of(argv)
    assert ((entry.script, entry.module) if entry else (None, None)) == (script, module)


LOAD_USERS = (
    "import grpc\nfrom locust import User, task\n\n\nclass GreeterUser(User):\n"
    "    def on_start(self):\n        self.channel = grpc.insecure_channel(self.host)\n"
)
LOCUSTFILE = "from load_users import GreeterUser\n\nuser_classes = [GreeterUser]\n"
LOCUST_MANIFEST = workload(
    name="load",
    image="acme/load:1",
    extra='          command: ["locust"]\n'
    '          args: ["--master", "--host=grpc-service:50051", "--locustfile=locustfile.py"]\n',
)


def test_a_load_generator_sharing_the_service_s_folder_runs_its_locustfile_alone(
    tmp_path: Path,
) -> None:
    """The service and Locust images are both built from the repository's top; the Locust
    container runs locustfile.py and the users it imports, not the server's modules."""
    files = {
        "deploy/load.yaml": LOCUST_MANIFEST,
        "build.sh": "docker build -f Dockerfile.locust -t acme/load:1 .\n",
        "Dockerfile": DOCKERFILE,
        "Dockerfile.locust": "FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\n",
        **service_app("."),
        "locustfile.py": LOCUSTFILE,
        "load_users.py": LOAD_USERS,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "locustfile.py"
    assert row["modules"] == 2, "locustfile.py and load_users.py, not the server's modules"
