"""Public images that no build of the repository makes, guessed by a name alike before: an
image run as the FROM of a Dockerfile named as it (`FROM vendor/logd:v1` in
`docker/Dockerfile.logd`) is that base, not the build; and of two folders named as an
image, neither a program (a client package named for the broker it talks to, a folder of a
developer's script), none is a copy of a service to guess."""

from __future__ import annotations

from pathlib import Path

from tests.test_links import links, only, service_app, workload

LOGD = "FROM vendor/logd:v1.2\nCOPY logd_config/logd.conf /etc/logd/\nCOPY plugins /plugins\n"
LOGD_TREE = {
    "docker/Dockerfile.logd": LOGD,
    "logd_config/logd.conf": "<source>\n</source>\n",
    "plugins/__init__.py": "",
    "plugins/filter.py": "import json\n",
}


def test_an_image_run_as_the_base_of_a_dockerfile_named_as_it_is_that_base(
    tmp_path: Path,
) -> None:
    """`docker/Dockerfile.logd` adds a configuration to `vendor/logd:v1.2`; the manifest
    runs `vendor/logd:v1.2` itself, not the image built on it."""
    files = {**LOGD_TREE, "k8s/logd.yaml": workload(name="logd", image="vendor/logd:v1.2")}
    assert only(links(tmp_path, files))["code"] is None


def test_the_image_built_on_that_base_is_still_the_dockerfile_s(tmp_path: Path) -> None:
    files = {**LOGD_TREE, "k8s/logd.yaml": workload(name="logd", image="registry.example/logd:v3")}
    assert only(links(tmp_path, files))["code"] == "plugins"


def test_of_two_folders_named_as_an_image_neither_a_program_none_is_guessed(
    tmp_path: Path,
) -> None:
    """`kafka/` holds a developer's consumer script, `core/northbound/kafka/` the core's
    client package: neither is built into an image, so neither is a copy of the broker."""
    files = {
        "kafka/consumer.py": "import kafka\n",
        "core/__init__.py": "",
        "core/northbound/__init__.py": "",
        "core/northbound/kafka/__init__.py": "",
        "core/northbound/kafka/proxy.py": "import kafka\n",
        "k8s/kafka.yaml": workload(name="kafka", image="brokers/kafka:1.0.0"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_of_two_copies_of_a_service_named_as_an_image_the_nearest_is_guessed(
    tmp_path: Path,
) -> None:
    dockerfile = 'FROM python:3.12\nCOPY . /app\nCMD ["python", "/app/server.py"]\n'
    files = {
        "cart/Dockerfile": dockerfile,
        **service_app("cart"),
        "workshop/cart/Dockerfile": dockerfile,
        **service_app("workshop/cart"),
        "workshop/k8s/cart.yaml": workload(name="cart", image="acme/cart:1.0.0"),
    }
    row = only(links(tmp_path, files))
    assert str(row["code"]).startswith("workshop/cart"), row
