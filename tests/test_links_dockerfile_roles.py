"""Dockerfiles kept at the repository's top or in a `docker/` folder, beside the code of
several programs: a container runs what its Dockerfile copies and builds, not the whole
context (`Dockerfile.api` that copies `client/` only), and a Dockerfile named for a role
(`client.Dockerfile`) is the image's whose tag or name says that role."""

from __future__ import annotations

from pathlib import Path

from tests.test_links import links, only, workload

GO_SERVER = """\
package main

import (
\t"net"

\t"google.golang.org/grpc"
)

func main() {
\tlis, _ := net.Listen("tcp", ":3000")
\tgrpc.NewServer().Serve(lis)
}
"""
GO_CLIENT = (
    'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.ListenAndServe(":8080", nil)\n}\n'
)
GO_STUBS = 'package pb\n\nconst Name = "gcd"\n'
# at the repository's top, run from there: it copies one program's folder and the stubs
# it vendors, and compiles that folder's main.go when the container starts
ROOT_DOCKERFILE = """\
FROM golang:alpine
WORKDIR $GOPATH/src/demo/{role}
COPY {role} .
COPY pb $GOPATH/src/demo/{role}/vendor/demo/pb
CMD [ "go", "run", "main.go" ]
"""


GO_RUN_PACKAGE = 'FROM golang:1.22\nWORKDIR /src\nCOPY . .\nCMD ["go", "run", "./server"]\n'


def two_programs_at_the_top() -> dict[str, str]:
    return {
        "server/main.go": GO_SERVER,
        "client/main.go": GO_CLIENT,
        "pb/stubs.go": GO_STUBS,
        "Dockerfile.api": ROOT_DOCKERFILE.format(role="client"),
        "Dockerfile.ms": ROOT_DOCKERFILE.format(role="server"),
    }


def test_a_top_dockerfile_that_copies_one_program_links_that_program_not_the_repository(
    tmp_path: Path,
) -> None:
    files = {
        **two_programs_at_the_top(),
        "api.yaml": workload(name="api", image="local/api:latest"),
        "scripts/build.sh": "#!/bin/sh\ndocker build -t local/api:latest -f Dockerfile.api .\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "client"
    assert 'dockerfile: Dockerfile.api:5: CMD [ "go", "run", "main.go" ]' in row["evidence"]


def test_a_compose_build_whose_dockerfile_is_absent_takes_the_one_a_script_builds_with(
    tmp_path: Path,
) -> None:
    """compose's `build: .` names a Dockerfile the top does not hold; the build script's
    `-f Dockerfile.api` of the same context is the Dockerfile the image is built with."""
    files = {
        **two_programs_at_the_top(),
        "api.yaml": workload(name="api", image="local/api:latest"),
        "docker-compose.yml": "services:\n  api:\n    build: .\n    image: local/api:latest\n",
        "scripts/build.sh": "#!/bin/sh\ndocker build -t local/api:latest -f Dockerfile.api .\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "client"
    assert row["evidence"][0].startswith("compose: docker-compose.yml")


def test_go_run_of_a_package_folder_links_that_package(tmp_path: Path) -> None:
    files = {
        **two_programs_at_the_top(),
        "Dockerfile.ms": GO_RUN_PACKAGE,
        "gcd.yaml": workload(name="gcd", image="local/ms:dev"),
        "build.sh": "#!/bin/sh\ndocker build -t local/ms:dev -f Dockerfile.ms .\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "server"
