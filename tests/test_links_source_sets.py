"""A folder inside a module's source set (`src/main/java/acme/redis`) is a package of that
module's code: never a service's folder by its name, whatever image is named as it is."""

from __future__ import annotations

from pathlib import Path

from tests.test_links import links, only, workload
from tests.test_links_absent_contexts import maven_module


def test_a_stock_image_is_not_linked_to_a_java_package_named_as_it_is(tmp_path: Path) -> None:
    files = {
        "k8s/redis.yaml": workload(name="redis", image="redis:7.2"),
        **maven_module("cache-security", "redis"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None


def test_a_maven_module_named_as_the_image_is_still_its_code(tmp_path: Path) -> None:
    files = {
        "k8s/orders.yaml": workload(name="orders", image="orders-service:0.0.1-SNAPSHOT"),
        **maven_module("orders-service", "orders"),
        **maven_module("cache-security", "redis"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "orders-service"


def test_an_image_named_as_a_package_of_a_module_built_into_an_image_runs_the_module(
    tmp_path: Path,
) -> None:
    """`authors:1` names the package `acme/authors` of a module with a Dockerfile of its
    own (`Dockerfile.jvm`): the module's code, not the package's alone; a library's
    package of that name beside it is no one's image."""
    files = {
        "authors-spring/k8s/authors.yaml": workload(name="authors", image="authors:1"),
        **maven_module("authors-spring", "authors"),
        "authors-spring/Dockerfile.jvm": 'FROM eclipse-temurin:21\nCMD ["java", "-jar", "a.jar"]\n',
        "authors-spring/src/main/java/acme/Config.java": "package acme;\n\nclass Config {}\n",
        **maven_module("authors-cache", "authors"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == ("authors-spring", 2)
