"""The code <-> container link in the layouts real repositories use: images named with a
project's prefix, built by Makefiles and scripts, from a shared Dockerfile, one binary run
as several commands; and never a folder that holds other services' code."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_links import DOCKERFILE, links, only, service_app, workload

# -- an image named `<prefix>-<folder>` ------------------------------------------------------


def test_an_image_named_with_a_prefix_is_guessed_to_be_its_one_build_folder(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/acme/shop-inventory:3.1"),
        "src/inventory/Dockerfile": DOCKERFILE,
        **service_app("src/inventory"),
        "src/billing/Dockerfile": DOCKERFILE,
        **service_app("src/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "inventory", "server.py")
    assert row["evidence"] == [
        'dockerfile: src/inventory/Dockerfile:4: CMD ["python", "server.py"]',
        "image name guess: deploy/inventory.yaml:11: image: registry.example/acme/"
        "shop-inventory:3.1 (a guess: src/inventory is the one build folder its name ends with)",
    ]


def test_a_prefix_guess_with_two_build_folders_of_that_name_is_no_link(tmp_path: Path) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        "v1/inventory/Dockerfile": DOCKERFILE,
        **service_app("v1/inventory"),
        "v2/inventory/Dockerfile": DOCKERFILE,
        **service_app("v2/inventory"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_prefix_guess_needs_a_build_in_the_folder(tmp_path: Path) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        **service_app("lib/inventory"),  # code, but no image is built from it
    }
    assert only(links(tmp_path, files))["code"] is None


def test_the_longest_tail_of_the_name_that_names_a_build_decides(tmp_path: Path) -> None:
    """`shop-edge-router` is the build of `edge-router` (no code: a proxy's configuration),
    never of another service's `router` folder."""
    files = {
        "deploy/edge.yaml": workload(name="edge", image="registry.example/shop-edge-router:1"),
        "src/edge-router/Dockerfile": "FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/\n",
        "src/router/Dockerfile": DOCKERFILE,
        **service_app("src/router"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_named_as_a_folder_is_not_linked_by_a_prefix_guess(tmp_path: Path) -> None:
    """The name of a folder itself is stronger than a tail of it: `shop-inventory` names the
    folder `shop-inventory`, not the build folder `inventory`."""
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        **service_app("tools/shop-inventory"),
        "src/inventory/Dockerfile": DOCKERFILE,
        **service_app("src/inventory"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("tools", "shop-inventory")
    assert row["evidence"] == [
        "image name: deploy/inventory.yaml:11: image: registry.example/shop-inventory:3.1"
    ]


# -- never too wide --------------------------------------------------------------------------


def test_an_image_named_as_a_folder_of_several_services_is_not_linked_to_it(
    tmp_path: Path,
) -> None:
    """`services/app` holds the web front-end and the server, each built by its own
    Dockerfile: the image `app` is one of them, not both."""
    files = {
        "deploy/app.yaml": workload(name="app", image="registry.example/app:1"),
        "services/app/frontend/Dockerfile": 'FROM node:22\nCOPY . .\nCMD ["node", "web.js"]\n',
        "services/app/frontend/web.js": "console.log('web')\n",
        "services/app/server/Dockerfile": DOCKERFILE,
        **service_app("services/app/server"),
    }
    assert only(links(tmp_path, files))["code"] is None
