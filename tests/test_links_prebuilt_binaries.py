"""An image whose Dockerfile is kept in a folder of no code (`build/docker/edge/
Dockerfile`) and only copies a binary built outside it (`ADD edge /usr/local/bin`), which
no build read writes (a Makefile's `go build -o $(OUT)/$(CMD) ./cmd/$(CMD)`, its
variables set by pattern rules): the container runs the one `main` package of the
repository that Go names as that binary (`cmd/edge`), whether the image's ENTRYPOINT or
the container's `command` names it; where no one package is so named, no code, never the
Dockerfile's folder."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_links import links
from tests.test_links_builder_args import by_container

MAIN = 'package main\n\nimport "example.com/acme/yard/pkg/net"\n\nfunc main() { net.Serve() }\n'
NET = "package net\n\nfunc Serve() {}\n"


def _dockerfile(name: str) -> str:
    return f'FROM alpine:3.20\nADD {name} /usr/local/bin\nENTRYPOINT ["/usr/local/bin/{name}"]\n'


def _workload(name: str, command: str = "") -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n"
        f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n"
        f"    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers:\n"
        f"        - name: {name}\n          image: acme/{name}:v0.7.0\n{command}"
    )


def _tree(**extra: str) -> dict[str, str]:
    files = {
        "go.mod": "module example.com/acme/yard\n\ngo 1.22\n",
        "pkg/net/net.go": NET,
        "Makefile": (
            "go.build.%:\n\t$(eval CMD := $(word 2,$(subst ., ,$*)))\n"
            "\tgo build -o _output/$(CMD) ./cmd/$(CMD)\n"
        ),
    }
    for name in ("edge", "tunnel"):
        files[f"cmd/{name}/main.go"] = MAIN
        files[f"build/docker/{name}/Dockerfile"] = _dockerfile(name)
        files[f"deploy/{name}.yaml"] = _workload(name)
    files["deploy/edge.yaml"] = _workload("edge", "          command: [edge]\n")
    return {**files, **extra}


def test_a_prebuilt_binary_links_the_one_main_package_go_names_so(tmp_path: Path) -> None:
    rows = by_container(links(tmp_path, _tree()))
    assert rows["tunnel"]["code"] == os.path.join("cmd", "tunnel")
    assert rows["tunnel"]["modules"] == 2, "its main and the package it imports"
    assert rows["edge"]["code"] == os.path.join("cmd", "edge"), "named by the command too"


def test_with_two_packages_so_named_no_code_is_linked_not_the_dockerfile_s_folder(
    tmp_path: Path,
) -> None:
    rows = by_container(links(tmp_path, _tree(**{"tools/edge/main.go": MAIN})))
    assert rows["edge"]["code"] is None
    assert rows["tunnel"]["code"] == os.path.join("cmd", "tunnel")


def test_a_dockerfile_beside_code_is_left_to_its_own_folder(tmp_path: Path) -> None:
    """A context holding code decides for itself: no program elsewhere is taken for it."""
    files = _tree(**{"build/docker/tunnel/helper.go": "package main\n\nfunc main() {}\n"})
    rows = by_container(links(tmp_path, files))
    assert rows["tunnel"]["code"] != os.path.join("cmd", "tunnel")
