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


# A service's own code: its application class in the top package, and a package of it
# named for the server it talks to (a cache client), with no entry point of its own.
LEDGER_APP = """\
package org.example.ledger;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class LedgerApplication {
    public static void main(String[] args) {
        SpringApplication.run(LedgerApplication.class, args);
    }
}
"""
LEDGER_CACHE = """\
package org.example.ledger.memcached;

public class EntryCache {
    private final String host = System.getenv("MEMCACHED_HOST");

    public String host() {
        return host;
    }
}
"""
LEDGER_DOCKERFILE = """\
FROM eclipse-temurin:21-jre
COPY build/libs/ledger.jar /app.jar
CMD ["java", "-jar", "/app.jar"]
"""


def ledger(language: str = "java") -> dict[str, str]:
    """A Gradle service built into an image (its Dockerfile), whose sub-package
    `memcached` holds a client of a Memcached server."""
    top = f"ledger/src/main/{language}/org/example/ledger"
    if language == "kotlin":
        return {
            "ledger/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "ledger/Dockerfile": LEDGER_DOCKERFILE,
            f"{top}/LedgerApplication.kt": (
                "package org.example.ledger\n\n@SpringBootApplication\nclass LedgerApplication\n\n"
                "fun main(args: Array<String>) {\n    runApplication<LedgerApplication>(*args)\n}\n"
            ),
            f"{top}/memcached/EntryCache.kt": (
                "package org.example.ledger.memcached\n\n"
                'class EntryCache(val host: String = System.getenv("MEMCACHED_HOST"))\n'
            ),
        }
    return {
        "ledger/build.gradle": "plugins { id 'java' }\n",
        "ledger/Dockerfile": LEDGER_DOCKERFILE,
        f"{top}/LedgerApplication.java": LEDGER_APP,
        f"{top}/memcached/EntryCache.java": LEDGER_CACHE,
    }


def test_a_stock_image_is_not_linked_to_a_service_s_package_named_for_its_server(
    tmp_path: Path,
) -> None:
    """`memcached:1.6` beside a service whose client of it is the package `.../memcached`:
    that package is part of the ledger service, not the Memcached server's code."""
    files = {"k8s/memcached.yaml": workload(name="memcached", image="memcached:1.6"), **ledger()}
    row = only(links(tmp_path, files))
    assert row["code"] is None


def test_a_kotlin_service_s_package_named_for_its_server_is_not_the_server(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/memcached.yaml": workload(name="memcached", image="memcached:1.6"),
        **ledger("kotlin"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None


def test_the_package_holding_the_service_s_entry_point_still_names_its_module(
    tmp_path: Path,
) -> None:
    """`acme/ledger:2` names the package `org/example/ledger`, where the application's
    main class is: the service's module, its client packages with it."""
    files = {"k8s/ledger.yaml": workload(name="ledger", image="acme/ledger:2"), **ledger()}
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == ("ledger", 2)


def test_a_test_s_main_method_is_no_entry_point(tmp_path: Path) -> None:
    """A test source set's class with a `main` (a benchmark's runner) makes no package of
    it the application's."""
    files = {
        "k8s/memcached.yaml": workload(name="memcached", image="memcached:1.6"),
        **ledger(),
        "ledger/src/test/java/org/example/ledger/memcached/Bench.java": (
            "package org.example.ledger.memcached;\n\nclass Bench {\n"
            "    public static void main(String[] args) {}\n}\n"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None
