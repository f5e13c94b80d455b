"""A launcher given its application as a module (`celery -A acme.queues worker`) in an
image built from the repository's top: the container runs the package that module is in
(`acme/`), when that package is all the Python program its folder on `sys.path` holds;
else the wide folder is kept (a refused narrowing, never a wrong one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.entry_points import app_module

from tests.test_links import links, only, workload


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["celery", "-A", "acme.queues", "-c", "4", "worker"], "acme.queues"),
        (["celery", "--app", "acme.queues", "beat"], "acme.queues"),
        (["python3", "-m", "celery", "--app=acme.tasks:app", "worker"], "acme.tasks"),
        (["tini", "--", "celery", "worker", "-A", "acme.worker"], "acme.worker"),
        (["sh", "-c", "alembic upgrade head && exec celery -A acme.jobs worker"], "acme.jobs"),
        (["celery", "-A", "$CELERY_APP", "worker"], None),  # a variable: unknown
        (["celery", "worker"], None),  # no app named (Celery's default)
        (["python", "-m", "acme.worker"], None),  # an entry (entry_of), not an app loaded
        (["gunicorn", "acme.web:app"], None),
    ],
)
def test_a_loader_s_option_names_its_application_module(
    argv: list[str], module: str | None
) -> None:
    entry = app_module(argv)
    assert (entry.module if entry else None) == module


ROOT_DOCKERFILE = """\
FROM python:3.12-slim
COPY requirements.txt /tmp/
RUN pip install -r /tmp/requirements.txt
COPY . /srv
WORKDIR /srv
CMD ["gunicorn", "acme.web:app"]
"""
WORKER = workload(
    name="worker",
    image="registry.example/acme:1",
    extra='          command: ["celery", "-A", "acme.queues", "worker", "-l", "INFO"]\n',
)
ACME = {
    "acme/__init__.py": "",
    "acme/queues.py": "from acme.core import celery as app\nfrom acme.logic import ingest\n",
    "acme/core.py": "from celery import Celery\n\ncelery = Celery('acme')\n",
    "acme/logic/__init__.py": "",
    "acme/logic/ingest.py": "import requests\n",
    "acme/web.py": "from flask import Flask\n\napp = Flask(__name__)\n",
}
# another image's code kept in the same repository, with a Dockerfile of its own
OCR = {
    "services/ocr/Dockerfile": 'FROM python:3.12\nCOPY . /app\nCMD ["python", "/app/ocr.py"]\n',
    "services/ocr/ocr.py": "import grpc\n",
}


def root_build(extra: dict[str, str]) -> dict[str, str]:
    return {
        "deploy/worker.yaml": WORKER,
        "Makefile": "build:\n\tdocker build -t registry.example/acme:$(TAG) .\n",
        "Dockerfile": ROOT_DOCKERFILE,
        "setup.py": "from setuptools import setup\n\nsetup(name='acme')\n",
        **ACME,
        **OCR,
        **extra,
    }


def test_a_celery_worker_of_the_top_s_image_runs_its_app_s_package(tmp_path: Path) -> None:
    row = only(links(tmp_path, root_build({})))
    assert (row["code"], row["modules"]) == ("acme", 6)
    assert any(
        e.startswith("command: deploy/worker.yaml:") and "the package acme holds the program" in e
        for e in row["evidence"]
    ), row["evidence"]


def test_the_image_s_cmd_names_the_app_when_the_container_sets_none(tmp_path: Path) -> None:
    files = root_build({})
    files["deploy/worker.yaml"] = workload(name="worker", image="registry.example/acme:1")
    files["Dockerfile"] = ROOT_DOCKERFILE.replace(
        'CMD ["gunicorn", "acme.web:app"]', 'CMD ["celery", "-A", "acme.queues", "worker"]'
    )
    row = only(links(tmp_path, files))
    assert row["code"] == "acme"
    assert any(e.startswith("dockerfile: Dockerfile:6:") for e in row["evidence"]), row


@pytest.mark.parametrize(
    "beside",
    [
        # a Django project: its apps beside the project package, which Celery autodiscovers
        {"manage.py": "import django\n", "orders/__init__.py": "", "orders/tasks.py": ""},
        # Celery's configuration module at the top, which the app loads by name
        {"celeryconfig.py": "broker_url = 'redis://redis:6379/0'\n"},
    ],
)
def test_other_code_beside_the_package_keeps_the_wide_folder(
    tmp_path: Path, beside: dict[str, str]
) -> None:
    row = only(links(tmp_path, root_build(beside)))
    assert row["code"] == "."


def test_an_app_importing_code_outside_its_package_keeps_the_wide_folder(
    tmp_path: Path,
) -> None:
    files = root_build({"shared/__init__.py": "", "shared/db.py": "import sqlalchemy\n"})
    files["acme/queues.py"] += "from shared import db\n"
    row = only(links(tmp_path, files))
    assert row["code"] == "."


def test_an_app_module_at_the_top_keeps_its_folder(tmp_path: Path) -> None:
    """`celery -A tasks`: a module of no package, whose folder is the context itself."""
    files = root_build({"tasks.py": "from celery import Celery\n\napp = Celery('t')\n"})
    files["deploy/worker.yaml"] = WORKER.replace("acme.queues", "tasks")
    row = only(links(tmp_path, files))
    assert row["code"] == "."
