"""A build command read from a Makefile, a script or a RUN line ends at the shell's
control operators (`|`, `&&`, `;`, `&`), and its redirections (`2>&1`, `>build.log`, `2>
/dev/null`, `&>out`) and their targets are none of its arguments: `docker build -f
./Dockerfile ../.. 2>&1 | sed ...` builds from `../..`, not from a folder named `2>&1`."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.core.shell_words import command_words, redirection
from k8slb.reading.build_files import host_go_builds, script_builds

from tests.test_links import links, workload
from tests.test_links_builder_args import by_container


def test_a_redirection_takes_its_target_in_it_or_the_next_word() -> None:
    assert [redirection(w) for w in ("2>&1", ">log", "2>/dev/null", "&>out", "<<<x")] == [1] * 5
    assert [redirection(w) for w in (">", "2>", ">>", "&>", "<")] == [2] * 5
    assert [redirection(w) for w in ("../..", "-t", "a=>b", "2", "--x=>1")] == [0] * 5


def test_a_command_s_words_end_at_a_control_operator_less_its_redirections() -> None:
    words = ["docker", "build", "-t", "x", "2>", "/dev/null", "../..", "2>&1", "|", "sed"]
    assert command_words(words) == ["docker", "build", "-t", "x", "../.."]
    assert command_words(["cp", "-R", "a", "b", ">log", "&", "wait"]) == ["cp", "-R", "a", "b"]


def test_a_build_piped_through_sed_builds_from_its_context() -> None:
    text = (
        "IMAGE = shop-api\n"
        "dockerize:\n"
        "\tdocker build --file ./Dockerfile --tag $(IMAGE):latest ../../"
        ' 2>&1 | sed -e "s/^/ | /g"\n'
        "\tdocker build -t shop-api:debug . > build.log\n"
        "\tdocker build -t shop-api:quiet . &>/dev/null && echo done\n"
    )
    builds = script_builds("services/api/Makefile", text)
    assert [(b.image, b.context) for b in builds] == [
        ("shop-api", "."),
        ("shop-api", "services/api"),
        ("shop-api", "services/api"),
    ]


def test_a_go_build_s_redirection_is_no_package() -> None:
    text = "build:\n\tgo build -o out/api ./cmd/api 2>&1 | tee build.log\n"
    (build,) = host_go_builds("Makefile", text, make=True)
    assert build.package == "cmd/api"


MAIN = 'package main\n\nimport "net/http"\n\nfunc main() { http.ListenAndServe(":8080", nil) }\n'


def test_the_container_links_the_code_of_a_build_whose_output_is_piped(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "services/api/main.go": MAIN,
        "services/api/Makefile": (
            "dockerize:\n\tdocker build --file ./Dockerfile --tag shop-api:latest ../../"
            ' 2>&1 | sed -e "s/^/ | /g"\n'
        ),
        "services/api/Dockerfile": (
            "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
            "RUN go build -o /bin/api ./services/api 2>&1\n"
            'FROM alpine:3.20\nCOPY --from=build /bin/api /bin/api\nENTRYPOINT ["/bin/api"]\n'
        ),
        "deploy/api.yaml": workload(name="api", image="shop-api:latest"),
    }
    row = by_container(links(tmp_path, files))["api"]
    assert row["code"] == os.path.join("services", "api")


def test_a_wide_context_s_dockerfile_running_a_script_of_its_folder_links_that_folder(
    tmp_path: Path,
) -> None:
    """`docker build -f ./Dockerfile ../..` whose Dockerfile copies SQL from elsewhere
    and runs the shell script of its own folder: that folder, not the repository's top."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "services/api/main.go": MAIN,
        "db/migrations/001.sql": "create table t (id int);\n",
        "tools/schema/Makefile": (
            "image:\n\tdocker build --file ./Dockerfile --tag shop-schema:latest ../.. 2>&1\n"
        ),
        "tools/schema/Dockerfile": (
            "FROM cockroachdb/cockroach\nCOPY db/migrations /migrations\n"
            'COPY tools/schema/bootstrap.sh .\nENTRYPOINT ["bash", "./bootstrap.sh"]\n'
        ),
        "tools/schema/bootstrap.sh": "#!/bin/bash\nset -e\ncockroach sql < /migrations/001.sql\n",
        "deploy/schema.yaml": workload(name="schema", image="shop-schema:latest"),
    }
    row = by_container(links(tmp_path, files))["schema"]
    assert row["code"] == os.path.join("tools", "schema")
