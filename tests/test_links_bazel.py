"""Images Bazel builds with no Dockerfile (rules_docker's `go_image`, `java_image`,
`cc_image`, `container_image`; rules_oci's `oci_image`): a container running one is
linked to the package its binary's code is in, by the name docker loads it under
(`bazel/<package>:<target>`) or the repository a push or a load gives it."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.bazel_images import bazel_images

from tests.test_links import links, only, service_app, workload

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
