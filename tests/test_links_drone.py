"""A Drone pipeline's Docker plugin step (`plugins/docker`, its `settings`) builds an image:
its `repo` from the folder `context` with `dockerfile` (both from the repository's top).
Drone gives a plugin each setting as `PLUGIN_<NAME>`, so a manifest written for the same
pipeline that runs `${PLUGIN_REPO}` runs that build's image."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import drone_builds

from tests.test_links import DOCKERFILE, links, only, service_app, workload

PIPELINE = """\
kind: pipeline
type: docker
name: default

steps:
- name: test
  image: python:3.12
  commands:
    - python -m pytest
- name: build server image
  image: plugins/docker
  settings:
{repo}    dockerfile: ./services/orders/Dockerfile
    context: ./services/orders
- name: notify
  image: plugins/slack
  settings:
    channel: dev
---
kind: secret
name: token
"""


def test_a_drone_docker_plugin_step_builds_its_context_with_its_dockerfile() -> None:
    builds = drone_builds(".drone.yml", PIPELINE.format(repo="    repo: acme/orders\n"))
    assert [(b.image, b.context, b.dockerfile, b.variable) for b in builds] == [
        (
            "acme/orders",
            os.path.join("services", "orders"),
            os.path.join("services", "orders", "Dockerfile"),
            "PLUGIN_REPO",
        )
    ]


def test_an_image_written_as_the_plugin_s_repo_variable_runs_the_drone_build(
    tmp_path: Path,
) -> None:
    files = {
        "config/v1/deployment.yaml": workload(name="orders", image="${PLUGIN_REPO}"),
        ".drone.yml": PIPELINE.format(repo=""),
        "services/orders/Dockerfile": DOCKERFILE,
        **service_app("services/orders"),
        "services/billing/Dockerfile": DOCKERFILE,
        **service_app("services/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "orders", "server.py")
    assert row["evidence"][0] == "drone: .drone.yml:12: settings:"


def test_a_drone_build_s_literal_repo_is_the_image_it_builds(tmp_path: Path) -> None:
    files = {
        "k8s/orders.yaml": workload(name="orders", image="registry.example/acme/orders:v2"),
        ".drone.yml": PIPELINE.format(repo="    repo: registry.example/acme/orders\n"),
        "services/orders/Dockerfile": DOCKERFILE,
        **service_app("services/orders"),
    }
    row = only(links(tmp_path, files))
    assert row["evidence"][0] == "drone: .drone.yml:13: repo: registry.example/acme/orders"


GO_PIPELINE = """\
kind: pipeline
type: docker
name: default

steps:
- name: compile
  image: golang:1.22
  commands:
    - go build -o ./cmd/server/server ./cmd/server/main.go
- name: image
  image: plugins/docker
  settings:
    dockerfile: ./cmd/server/Dockerfile
    context: ./cmd/server
"""


def test_a_go_binary_a_drone_step_compiles_runs_its_package_and_what_it_imports(
    tmp_path: Path,
) -> None:
    files = {
        "config/deployment.yaml": workload(name="greeter", image="${PLUGIN_REPO}"),
        ".drone.yml": GO_PIPELINE,
        "go.mod": "module example.com/greeter\n\ngo 1.22\n",
        "cmd/server/Dockerfile": 'FROM alpine:3.20\nCOPY server /server\nCMD ["/server"]\n',
        "cmd/server/main.go": (
            'package main\n\nimport "example.com/greeter/pkg/hello"\n\n'
            "func main() { hello.Serve() }\n"
        ),
        "pkg/hello/hello.go": "package hello\n\nfunc Serve() {}\n",
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("cmd", "server"), 2)
    assert row["evidence"][1].startswith("dockerfile: .drone.yml:9: - go build")
