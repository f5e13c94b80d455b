"""Images Bazel builds with no Dockerfile (rules_docker's `go_image`, `java_image`,
`cc_image`, `container_image`; rules_oci's `oci_image`): a container running one is
linked to the package its binary's code is in, by the name docker loads it under
(`bazel/<package>:<target>`) or the repository a push or a load gives it."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.reading.bazel_images import bazel_images
from k8slb.reading.build_files import read_build_facts, read_build_file

from tests.test_links import links, only, service_app, workload
from tests.test_links_builder_args import by_container

TOP_BUILD = """\
load("@io_bazel_rules_docker//go:image.bzl", "go_image")
load("@io_bazel_rules_docker//java:image.bzl", "java_image")

REGISTRY = "localhost:5000"

# the image of the orders service (a Linux binary)
go_image(
    name = "shop-orders",
    binary = "//orders:orders_linux_bin",
)

java_image(
    name = "shop-billing",
    main_class = "shop.Billing",
    runtime_deps = ["//billing:billing_lib"],
)

docker_push(
    name = "orders-push",
    image = ":shop-orders",
    registry = REGISTRY,
    repository = "acme/orders",
    tag = "{BUILD_TIMESTAMP}",
)
"""
PACKAGE_BUILD = """\
py_image(
    name = "image",
    srcs = ["server.py"],
    main = "server.py",
)
"""


def shop() -> dict[str, str]:
    """Two services' code and the top's BUILD.bazel that makes their images."""
    return {
        "WORKSPACE": 'workspace(name = "shop")\n',
        "BUILD.bazel": TOP_BUILD,
        **service_app("orders"),
        **service_app("billing"),
    }


def test_an_image_target_loaded_by_its_name_links_the_package_of_its_binary(
    tmp_path: Path,
) -> None:
    files = {**shop(), "k8s/orders.yaml": workload(name="orders", image="bazel:shop-orders")}
    row = only(links(tmp_path, files))
    assert row["code"] == "orders"
    assert row["evidence"] == [
        'bazel: BUILD.bazel:7: go_image(name = "shop-orders", binary = "//orders:orders_linux_bin")'
    ]


def test_the_tag_says_which_of_the_top_s_image_targets_runs(tmp_path: Path) -> None:
    files = {**shop(), "k8s/billing.yaml": workload(name="billing", image="bazel:shop-billing")}
    assert only(links(tmp_path, files))["code"] == "billing"


def test_a_push_s_repository_links_the_image_target_it_pushes(tmp_path: Path) -> None:
    files = {
        **shop(),
        "k8s/orders.yaml": workload(name="orders", image="registry.example/acme/orders:1.4"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "orders"
    assert row["evidence"][0].startswith("bazel: BUILD.bazel:18: docker_push(")


def test_an_image_target_in_a_package_links_that_package(tmp_path: Path) -> None:
    files = {
        **shop(),
        "orders/BUILD.bazel": PACKAGE_BUILD,
        "k8s/orders.yaml": workload(name="orders", image="bazel/orders:image"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "orders"


def test_an_oci_image_loaded_with_repo_tags_links_its_package(tmp_path: Path) -> None:
    build = (
        'oci_image(\n    name = "image",\n    base = "@distroless",\n'
        '    tars = [":app_layer"],\n)\n'
        'oci_load(name = "load", image = ":image", repo_tags = ["acme/billing:dev"])\n'
    )
    files = {
        **shop(),
        "billing/BUILD.bazel": build,
        "k8s/billing.yaml": workload(name="billing", image="acme/billing:dev"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "billing"


def test_the_bazel_image_itself_run_by_a_job_links_no_target(tmp_path: Path) -> None:
    """`gcr.io/bazel-public/bazel:7` ends with `bazel`, but no target is named `7`."""
    files = {**shop(), "k8s/ci.yaml": workload(name="ci", image="gcr.io/bazel-public/bazel:7")}
    assert only(links(tmp_path, files))["code"] is None


def test_calls_in_strings_comments_and_other_calls_are_not_image_targets() -> None:
    text = (
        '# go_image(name = "commented", binary = "//a:b")\n'
        'genrule(\n    name = "g",\n    cmd = "go_image(name = \\"quoted\\")",\n'
        '    srcs = [\n        ":x",\n    ],\n)\n'
        'go_image(\n    name = "real",\n    embed = [":lib"],\n)\n'
    )
    images = bazel_images("svc/BUILD", text)
    assert [(i.repository, i.tag, i.folder, i.line) for i in images] == [
        ("bazel/svc", "real", "svc", 9),
        ("real", None, "svc", 9),  # the target's name alone
    ]


def test_an_external_repository_s_binary_leaves_the_image_its_own_package() -> None:
    text = 'cc_image(name = "img", binary = "@vendor//tool:bin")\n'
    assert {i.folder for i in bazel_images("tools/BUILD.bazel", text)} == {"tools"}


def test_a_call_that_never_closes_reads_nothing_after_it() -> None:
    text = 'go_image(\n    name = "open",\n' + 'go_image(name = "inner")\n' * 3
    assert bazel_images("BUILD", text) == []


def test_an_image_named_as_an_image_target_links_its_package(tmp_path: Path) -> None:
    files = {**shop(), "k8s/billing.yaml": workload(name="billing", image="acme/shop-billing:3")}
    row = only(links(tmp_path, files))
    assert row["code"] == "billing"
    assert row["evidence"][0].startswith("bazel target: BUILD.bazel:12: java_image(")


def test_a_rules_k8s_object_s_images_link_the_targets_they_name(tmp_path: Path) -> None:
    build = (
        'load("@io_bazel_rules_k8s//k8s:object.bzl", "k8s_object")\n\n'
        "k8s_object(\n"
        '    name = "deploy",\n'
        '    kind = "deployment",\n'
        '    template = ":deployment.yaml",\n'
        '    images = {\n        "gcr.io/acme/orders:dev": "//orders:image",\n    },\n'
        ")\n"
    )
    files = {
        **shop(),
        "orders/BUILD.bazel": PACKAGE_BUILD,
        "k8s/BUILD.bazel": build,
        "k8s/deployment.yaml": workload(name="orders", image="gcr.io/acme/orders:dev"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "orders"
    assert row["evidence"][0].startswith("bazel: k8s/BUILD.bazel:3: k8s_object(images = ")


# The top's images, one per platform, each of layers: the settings' and the one holding
# the self-contained jar of a `java_binary` of its own package, which its entrypoint runs.
LAYERED_BUILD = """\
load("@rules_oci//oci:defs.bzl", "oci_image")
load("@rules_pkg//:pkg.bzl", "pkg_tar")

APP_DIR = "opt/ledger"

pkg_tar(
    name = "settings_layer",
    srcs = [":settings.yml", "@ledger_defaults//conf:files"],
    package_dir = APP_DIR,
)

pkg_tar(
    name = "ledger_layer",
    srcs = ["//services/ledger:ledger-server_deploy.jar"],
    package_dir = APP_DIR,
)

oci_image(
    name = "ledger-server_linux_arm64",
    base = "@temurin_jre",
    entrypoint = [
        # the jar Bazel packs with its dependencies
        "java",
        "-jar",
        "/" + APP_DIR + "/ledger-server_deploy.jar",
    ],
    tars = [
        ":settings_layer",
        ":ledger_layer",
    ],
)
"""
LEDGER_BUILD = """\
java_binary(
    name = "ledger-server",
    main_class = "org.example.ledger.Server",
    runtime_deps = ["//services/ledger/server"],
)
"""


def layered() -> dict[str, str]:
    return {
        "WORKSPACE": 'workspace(name = "ledger")\n',
        "BUILD.bazel": LAYERED_BUILD,
        "settings.yml": "port: 8080\n",
        "services/ledger/BUILD.bazel": LEDGER_BUILD,
        **service_app("services/ledger/server"),
        **service_app("tools/report"),
    }


def test_an_image_s_layer_that_holds_the_jar_its_entrypoint_runs_is_its_code() -> None:
    images = bazel_images("BUILD.bazel", LAYERED_BUILD)
    assert {i.folder for i in images} == {"services/ledger"}
    assert images[0].text == (
        'oci_image(name = "ledger-server_linux_arm64", tars = [":ledger_layer"], whose '
        '"//services/ledger:ledger-server_deploy.jar" the entrypoint runs)'
    )


def test_an_image_made_per_platform_is_named_as_its_target_less_the_platform(
    tmp_path: Path,
) -> None:
    """`acme/ledger-server:1.4` runs the target `ledger-server_linux_arm64` (rules_oci's
    multi-arch images, one per platform), whose layer's jar is `services/ledger`'s."""
    files = {
        **layered(),
        "k8s/ledger.yaml": workload(name="ledger", image="acme/ledger-server:1.4"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "services/ledger"
    assert row["evidence"][0].startswith("bazel target: BUILD.bazel:18: oci_image(")


def test_layers_whose_files_the_entrypoint_does_not_name_leave_the_image_its_package() -> None:
    """An entrypoint that runs no file of its layers (a base image's own program): the
    layers' packages are no more the code than before, the image's own package is."""
    text = LAYERED_BUILD.replace('"/" + APP_DIR + "/ledger-server_deploy.jar",', '"app.jar",')
    assert {i.folder for i in bazel_images("BUILD.bazel", text)} == {"."}


def test_layers_that_hold_named_files_of_two_packages_decide_nothing() -> None:
    text = LAYERED_BUILD.replace('":settings.yml",', '"//tools/report:ledger-server_deploy.jar",')
    assert {i.folder for i in bazel_images("BUILD.bazel", text)} == {"."}


# A demo of two programs beside each other, each its own Bazel package, built by a
# skaffold file in their common folder whose artifacts name Bazel targets from the
# workspace's top (`//demos/echo/client:image.tar`), their context the demo's folder.
ECHO_SKAFFOLD = """\
apiVersion: skaffold/v4beta1
kind: Config
build:
  artifacts:
  - image: echo-server
    context: .
    bazel:
      target: //demos/echo/server:server_image.tar
  - image: echo-client
    context: .
    bazel:
      target: //demos/echo/client:client_image.tar
      args: ["--config=release"]
manifests:
  kustomize:
    paths:
    - demos/echo/k8s
"""


def echo_demo() -> dict[str, str]:
    return {
        "WORKSPACE": 'workspace(name = "acme")\n',
        "demos/echo/skaffold.yaml": ECHO_SKAFFOLD,
        **{
            f"demos/echo/{role}/BUILD.bazel": (
                f'py_binary(name = "{role}", srcs = ["server.py"])\n'
                f'container_image(name = "{role}_image", files = [":{role}"])\n'
            )
            for role in ("server", "client")
        },
        **service_app("demos/echo/server"),
        **service_app("demos/echo/client"),
        "demos/echo/k8s/server.yaml": workload(name="server", image="echo-server"),
        "demos/echo/k8s/client.yaml": workload(name="client", image="echo-client"),
    }


def test_a_skaffold_bazel_artifact_links_the_package_its_target_is_in(tmp_path: Path) -> None:
    """Not the artifact's context, which holds both programs: the package the target's
    label names, found from the workspace's top above that context."""
    rows = by_container(links(tmp_path, echo_demo()))
    for role in ("server", "client"):
        row = rows[role]
        assert row["code"] == f"demos/echo/{role}", row
        assert f"(Bazel's package demos/echo/{role})" in row["evidence"][0], row


def test_a_label_of_a_package_the_tree_lacks_leaves_the_artifact_its_context() -> None:
    text = ECHO_SKAFFOLD.replace("//demos/echo/server:", "//gone/server:")
    files = [
        read_build_file("demos/echo/skaffold.yaml", text.encode()),
        read_build_file("demos/echo/client/BUILD.bazel", b'py_binary(name = "client")\n'),
    ]
    builds = read_build_facts([f for f in files if f is not None]).builds
    contexts = {b.image: b.context for b in builds if b.kind == "skaffold"}
    assert contexts == {"echo-server": "demos/echo", "echo-client": "demos/echo/client"}


@pytest.mark.parametrize(
    "label", [":server_image.tar", "@other//svc:image", "//:image", "//../x:y"]
)
def test_a_label_that_names_no_package_of_the_workspace_keeps_the_context(label: str) -> None:
    """A relative label (the context's own package), another repository's, the top's, or
    one leaving the workspace: no folder of the tree, though the tree holds those names."""
    text = ECHO_SKAFFOLD.replace("//demos/echo/server:server_image.tar", f"'{label}'")
    packages = ("BUILD", "svc/BUILD", "demos/echo/svc/BUILD", "x/BUILD", "demos/x/BUILD")
    files = [read_build_file(path, b'py_binary(name = "app")\n') for path in packages]
    files.append(read_build_file("demos/echo/skaffold.yaml", text.encode()))
    builds = read_build_facts([f for f in files if f is not None]).builds
    assert {b.image: b.context for b in builds}["echo-server"] == "demos/echo"
