"""Images built from the repository's top with a Dockerfile kept in a folder of its own
(`docker/api/Dockerfile`, built by a Makefile's `docker build -f docker/api/Dockerfile .`)
that copies an app and the libraries it takes: the container runs the app's folder, the one
its command names a path or a module of, not the Dockerfile's folder or the whole top. And a
Makefile's image whose registry and namespace a variable glued in front of the name gives
(`${HUB_NAMESPACE}shop-api`) is the image of that name wherever it is pushed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading.build_files import script_builds

from tests.test_links import links, only, workload

LIBRARY = {
    "lib/common/acme/common/__init__.py": "",
    "lib/common/acme/common/config.py": "import os\n",
    "lib/proto/acme/proto/__init__.py": "",
    "lib/proto/acme/proto/api_pb2.py": "import grpc\n",
}
APP = {
    "app/api/acme/api/__init__.py": "",
    "app/api/acme/api/wsgi.py": "from flask import Flask\n\napp = Flask(__name__)\n",
    "app/api/acme/api/tasks.py": "from celery import Celery\n\ncelery = Celery('api')\n",
    "app/api/acme/api/app.ini": "[uwsgi]\nmodule = acme.api.wsgi:app\n",
    "app/stats/acme/stats/__init__.py": "",
    "app/stats/acme/stats/server.py": "from flask import Flask\n\napp = Flask(__name__)\n",
}


def dockerfile(command: str) -> str:
    """A builder stage copying the libraries and the app, the last stage its output."""
    return (
        "FROM python:3.12-slim AS builder\n"
        "WORKDIR /srv\n"
        "COPY ./lib/common /srv/lib/common\n"
        "COPY ./lib/proto /srv/lib/proto\n"
        "COPY ./app/api /srv/app/api\n"
        "RUN pip install /srv/lib/common /srv/lib/proto\n"
        "FROM python:3.12-slim\n"
        "COPY --from=builder /srv /srv\n"
        "ENV PYTHONPATH=/srv/app/api\n"
        f"CMD {command}\n"
    )


MAKEFILE = (
    'images:\n\tdocker build -t "${HUB_NAMESPACE}shop-api:latest" -f ./docker/api/Dockerfile .\n'
)


@pytest.mark.parametrize(
    "command",
    [
        "uwsgi --ini /srv/app/api/acme/api/app.ini --need-app",
        '["uwsgi", "--ini=/srv/app/api/acme/api/app.ini"]',
        'celery --app "acme.api.tasks.celery" worker --concurrency=$CONCURRENCY',
        '["celery", "-A", "acme.api.tasks", "worker"]',
    ],
)
def test_the_app_a_command_names_of_the_folders_a_dockerfile_copies_is_the_code(
    tmp_path: Path, command: str
) -> None:
    files = {
        "helm/templates/api.yaml": workload(name="api", image="eu.gcr.io/acme/shop-api:latest"),
        "Makefile": MAKEFILE,
        "docker/api/Dockerfile": dockerfile(command),
        **LIBRARY,
        **APP,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("app", "api")
    assert row["evidence"][0].startswith("makefile: Makefile:2: docker build")


@pytest.mark.parametrize(
    "command",
    [
        "uwsgi --ini /etc/uwsgi/app.ini",  # a path of no copy: which app is unsaid
        "celery --app acme.stats.server worker",  # a module of a folder it does not copy
        "python -c 'import acme'",
    ],
)
def test_a_command_naming_none_of_the_copied_folders_keeps_the_top(
    tmp_path: Path, command: str
) -> None:
    files = {
        "helm/templates/api.yaml": workload(name="api", image="eu.gcr.io/acme/shop-api:latest"),
        "Makefile": MAKEFILE,
        "docker/api/Dockerfile": dockerfile(command),
        **LIBRARY,
        **APP,
    }
    row = only(links(tmp_path, files))
    assert row["code"] != os.path.join("app", "api")


@pytest.mark.parametrize(
    ("command", "image"),
    [
        ('docker build -t "${HUB_NAMESPACE}shop-api:latest" .', "shop-api"),
        ("docker build -t $(REGISTRY)$(REPOSITORY)shop-api:$(TAG) .", "shop-api"),
        ("docker build -t ${REGISTRY}/shop-api:${TAG} .", "shop-api"),
        # a variable that begins the name, not a namespace: not known
        ("docker build -t ${PROJECT}-api:${TAG} .", None),
        ("docker build -t shop-api${SUFFIX}:${TAG} .", None),
    ],
)
def test_variables_glued_in_front_of_an_image_s_name_are_its_registry(
    command: str, image: str | None
) -> None:
    builds = script_builds("Makefile", f"images:\n\t{command}\n")
    assert [b.image for b in builds] == ([image] if image else [])


def test_another_service_s_code_copied_beside_the_app_keeps_the_top(tmp_path: Path) -> None:
    """`app/stats` has a Dockerfile of its own: copied beside `app/api`, it is no library of
    it, and which program the image is stays the top's to say."""
    command = "uwsgi --ini /srv/app/api/acme/api/app.ini"
    files = {
        "helm/templates/api.yaml": workload(name="api", image="eu.gcr.io/acme/shop-api:latest"),
        "Makefile": MAKEFILE,
        "docker/api/Dockerfile": dockerfile(command).replace(
            "COPY ./lib/proto /srv/lib/proto\n", "COPY ./app/stats /srv/app/stats\n"
        ),
        "app/stats/Dockerfile": 'FROM python:3.12\nCOPY . /app\nCMD ["python", "server.py"]\n',
        **LIBRARY,
        **APP,
    }
    assert only(links(tmp_path, files))["code"] != os.path.join("app", "api")
