"""A script's `docker build` run in a subshell that changes folder first (`(cd web &&
docker build -t acme/web .)`), or after `cd DIR;` or `pushd DIR &&` on its own line: the
build's context is that folder, not the script's, and the container runs its code."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from k8slb.reading.build_files import script_builds

from tests.test_links import DOCKERFILE, links, only, service_app, workload

INSTALL = """\
#!/bin/bash
set -e

function build_images {{
    echo "building the shop"
    (cd {prefix}storefront \\
        && docker build -t acme/storefront:dev . \\
        && kind load docker-image acme/storefront:dev)

    ( cd {prefix}ledger && docker build -t acme/ledger:dev -f Dockerfile.release . )
}}

build_images
"""


def test_a_subshell_that_changes_folder_builds_from_that_folder() -> None:
    builds = script_builds("install.sh", INSTALL.format(prefix=""))
    assert [(b.image, b.context, b.dockerfile) for b in builds] == [
        ("acme/storefront", "storefront", None),
        ("acme/ledger", "ledger", "ledger/Dockerfile.release"),
    ]


def test_cd_and_pushd_on_the_build_s_line_move_it_and_a_substitution_is_kept_whole() -> None:
    text = (
        "cd billing; docker build -t acme/billing .\n"
        "pushd mailer && docker build -t acme/mailer . && popd\n"
        "(cd search && docker build -t acme/search --label at=$(date +%s) .)\n"
    )
    builds = script_builds("ci/images.sh", text)
    assert [(b.image, b.context) for b in builds] == [
        ("acme/billing", "ci/billing"),
        ("acme/mailer", "ci/mailer"),
        ("acme/search", "ci/search"),
    ]


def _tree(script: str, prefix: str) -> dict[str, str]:
    return {
        script: INSTALL.format(prefix=prefix),
        **service_app("storefront"),
        "storefront/Dockerfile": DOCKERFILE,
        **service_app("ledger"),
        "ledger/Dockerfile.release": DOCKERFILE,
        "deploy/storefront.yaml": workload("storefront", "acme/storefront:dev"),
        "deploy/ledger.yaml": workload("ledger", "acme/ledger:dev"),
    }


def _code(rows: list[dict[str, Any]], name: str) -> str:
    return str(only([r for r in rows if f"/{name}:" in r["container"]])["code"])


def test_the_container_runs_the_code_of_the_folder_the_subshell_entered(tmp_path: Path) -> None:
    rows = links(tmp_path, _tree("install.sh", ""))
    assert _code(rows, "storefront") == os.path.join("storefront", "server.py")
    assert _code(rows, "ledger") == os.path.join("ledger", "server.py")


def test_a_script_below_the_top_whose_folders_are_the_top_s_is_read_as_run_from_there(
    tmp_path: Path,
) -> None:
    """`hack/install.sh` entering `storefront`: no `hack/storefront` holds a Dockerfile,
    the top's `storefront` does, so the script is run from the top."""
    rows = links(tmp_path, _tree("hack/install.sh", ""))
    assert _code(rows, "storefront") == os.path.join("storefront", "server.py")


def test_a_make_function_in_a_build_arg_is_one_word_not_the_context() -> None:
    """`--build-arg v=$(shell git describe 2>/dev/null || echo none)` after the context:
    its words are the argument's value; neither `2>/dev/null` nor `||` in it ends the
    command or is the build's folder."""
    text = (
        "IMG ?= acme/portal\n"
        "image:\n"
        "\tdocker build -t $(IMG):dev . --build-arg release=$(shell git describe"
        ' --tags 2>/dev/null || echo "untagged") --build-arg sha=$(SHA)\n'
    )
    builds = script_builds("web/portal/Makefile", text)
    assert [(b.image, b.context) for b in builds] == [("acme/portal", "web/portal")]
