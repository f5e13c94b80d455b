"""An image that copies a Go binary built on the host: the Makefile's recipe that builds it
names the package through the file's variables (`$(GOBUILD) -o $(BIN_DIR)/$(NAME)
$(MAIN_PKG)`, `-ldflags "$(LDFLAGS)"`), from a folder of the tree other than the
Dockerfile's (`../../cmd/sweeper`), and the Dockerfile may copy it by a build argument's
name (`COPY ./${APP}_gateway ./`). The container links the package the recipe compiles,
never the binary's file name (a path the tree does not hold) nor the Dockerfile's folder."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import host_go_builds

from tests.test_links import links, workload
from tests.test_links_builder_args import by_container

MAIN = 'package main\n\nimport "example.com/yard/internal/tidy"\n\nfunc main() { tidy.Run() }\n'
TIDY = "package tidy\n\nfunc Run() {}\n"

SWEEPER_MAKEFILE = (
    "GOCMD=go\nGOBUILD=$(GOCMD) build\nBIN_DIR=out\nNAME=sweeper\n"
    "MAIN_PKG=../../cmd/sweeper\n\n"
    "build:\n\t$(GOBUILD) -o $(BIN_DIR)/$(NAME) -v $(MAIN_PKG)\n\n"
    "image:\n\tdocker build -t sweeper:$(TAG) .\n"
)
SWEEPER_DOCKERFILE = (
    'FROM alpine:3.20\nWORKDIR /srv\nCOPY out/sweeper .\nENTRYPOINT ["./sweeper"]\n'
)


def test_a_makefile_s_go_build_is_read_with_the_file_s_variables() -> None:
    (build,) = host_go_builds("tools/sweeper/Makefile", SWEEPER_MAKEFILE, make=True)
    assert build.package == "cmd/sweeper"
    assert build.output == "out/sweeper"
    assert build.said.line == 8


def test_a_package_above_the_tree_s_top_is_none() -> None:
    text = "build:\n\tgo build -o app ../../elsewhere\n"
    assert host_go_builds("tools/Makefile", text, make=True) == ()


def test_an_image_copying_a_binary_a_makefile_builds_links_its_package(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/yard\n\ngo 1.22\n",
        "internal/tidy/tidy.go": TIDY,
        "cmd/sweeper/main.go": MAIN,
        "tools/sweeper/Makefile": SWEEPER_MAKEFILE,
        "tools/sweeper/Dockerfile": SWEEPER_DOCKERFILE,
        "tools/sweeper/pod.yaml": workload(name="sweeper", image="ghcr.io/acme/sweeper:0.1"),
    }
    row = by_container(links(tmp_path, files))["sweeper"]
    assert row["code"] == os.path.join("cmd", "sweeper")
    assert row["modules"] == 2, "its main and the package it imports"


GATEWAY_MAKEFILE = (
    "APP=depot\nLDFLAGS := -s -w\n\n"
    "docker:\n"
    "\tdocker build -f Dockerfile-gateway -t acme/$(APP)-gateway:latest .\n"
    "\tdocker build -f Dockerfile-worker -t acme/$(APP)-worker:latest .\n\n"
    "build-linux:\n"
    '\tenv CGO_ENABLED=0 GOOS=linux go build -ldflags "$(LDFLAGS)" -o $(APP)_gateway '
    "./gateway/$(APP).go\n"
    '\tenv CGO_ENABLED=0 GOOS=linux go build -ldflags "$(LDFLAGS)" -o $(APP)_worker '
    "./worker/$(APP).go\n"
)


def argument_dockerfile(role: str) -> str:
    return (
        f"FROM alpine:3.20\nARG APP=depot\nWORKDIR /srv\nCOPY ./${{APP}}_{role} ./\n"
        f"COPY ./{role}/etc/ ./etc/\n"
        f'ENTRYPOINT ["./depot_{role}", "-f", "etc/{role}.yaml"]\n'
    )


def test_a_binary_copied_by_a_build_argument_s_name_links_the_package_built(
    tmp_path: Path,
) -> None:
    files = {
        "go.mod": "module example.com/yard\n\ngo 1.22\n",
        "internal/tidy/tidy.go": TIDY,
        "gateway/depot.go": MAIN,
        "gateway/etc/gateway.yaml": "port: 8080\n",
        "worker/depot.go": MAIN,
        "worker/etc/worker.yaml": "port: 9090\n",
        "Makefile": GATEWAY_MAKEFILE,
        "Dockerfile-gateway": argument_dockerfile("gateway"),
        "Dockerfile-worker": argument_dockerfile("worker"),
        "deploy/gateway.yaml": workload(name="gateway", image="acme/depot-gateway:latest"),
        "deploy/worker.yaml": workload(name="worker", image="acme/depot-worker:latest"),
    }
    rows = by_container(links(tmp_path, files))
    for role in ("gateway", "worker"):
        assert rows[role]["code"] == role, "the package compiled, not the binary's name"
        assert rows[role]["modules"] == 2
