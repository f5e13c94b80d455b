"""A compose service built with no `image`: compose names its image for the project and the
service (`<project>_<service>` in compose v1, `<project>-<service>` in v2; the project is
the file's `name:`, else its folder's name), and a container running that image runs the
service's build context."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading.build_files import compose_builds

from tests.test_links import DOCKERFILE, links, only, service_app, workload

COMPOSE = """\
services:
  receipt-api:
    build:
      context: ../receipt
      dockerfile: Dockerfile
  mongo:
    image: mongo:7
"""


@pytest.mark.parametrize("image", ["docker_receipt-api:latest", "docker-receipt-api"])
def test_an_image_named_as_compose_names_a_service_s_build_runs_its_context(
    tmp_path: Path, image: str
) -> None:
    files = {
        "k8s/receipt.yaml": workload(name="receipt", image=image),
        "docker/docker-compose.yml": COMPOSE,
        "receipt/Dockerfile": DOCKERFILE,
        **service_app("receipt"),
        "ledger/Dockerfile": DOCKERFILE,
        **service_app("ledger"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("receipt", "server.py")
    assert row["evidence"][0] == "compose: docker/docker-compose.yml:2: receipt-api:"


def test_the_compose_file_s_name_is_the_project_its_images_are_named_for(tmp_path: Path) -> None:
    files = {
        "k8s/receipt.yaml": workload(name="receipt", image="shop-receipt-api:1"),
        "docker/docker-compose.yml": "name: Shop\n" + COMPOSE,
        "receipt/Dockerfile": DOCKERFILE,
        **service_app("receipt"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("receipt", "server.py")
    assert row["evidence"][0].startswith("compose: docker/docker-compose.yml:3: ")


def test_a_compose_service_built_with_no_image_is_read_as_its_service_and_project() -> None:
    """What the reader keeps: the service and the project, no image name of its own (a
    service with a literal `image` builds that image; one with no build, none)."""
    builds = compose_builds("docker/docker-compose.yml", "name: shop\n" + COMPOSE)
    assert [(b.image, b.service, b.project, b.context) for b in builds] == [
        ("", "receipt-api", "shop", "receipt")
    ]


def test_a_container_running_another_project_s_image_of_the_service_has_no_compose_link(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/receipt.yaml": workload(name="receipt", image="billing_receipt-api:latest"),
        "docker/docker-compose.yml": COMPOSE,
        "receipt/Dockerfile": DOCKERFILE,
        **service_app("receipt"),
    }
    row = only(links(tmp_path, files))
    assert not any(e.startswith("compose:") for e in row["evidence"])


def test_a_database_image_that_copies_the_app_s_code_to_prepare_runs_its_own_folder(
    tmp_path: Path,
) -> None:
    """`db` is built from the service's folder by `docker/db/Dockerfile`, which copies the
    app's code in to set the database up and then runs `postgres`, a program of its base
    image: the container runs the Dockerfile's folder, not the app's code."""
    compose = (
        "services:\n  db:\n    build:\n      context: .\n      dockerfile: ./docker/db/Dockerfile\n"
    )
    dockerfile = (
        "FROM alpine:3.20\nRUN apk add postgresql python3\nWORKDIR /opt/code\n"
        "ADD ./orders/ /opt/code/\nADD ./docker/db/* /opt/code/db/\n"
        "RUN /opt/code/db/prepare.sh\nUSER postgres\nCMD {cmd}\n"
    )
    files = {
        "k8s/db.yaml": workload(name="db", image="shop_db:latest"),
        "shop/docker-compose.yaml": compose,
        "shop/docker/db/Dockerfile": dockerfile.format(cmd='["postgres"]'),
        "shop/docker/db/prepare.sh": "#!/bin/sh\npython3 /opt/code/init_db.py\n",
        **service_app("shop/orders"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("shop", "docker", "db"), 0)
    files["shop/docker/db/Dockerfile"] = dockerfile.format(cmd='["python3", "server.py"]')
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("shop", "orders", "server.py")
    # an application server named alone reads its settings file: it runs the code copied
    files["shop/docker/db/Dockerfile"] = dockerfile.format(cmd='["gunicorn"]')
    row = only(links(tmp_path / "gunicorn", files))
    assert row["code"] == os.path.join("shop", "orders")
