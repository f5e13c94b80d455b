"""Dockerfiles kept at the repository's top or in a `docker/` folder, beside the code of
several programs: a container runs what its Dockerfile copies and builds, not the whole
context (`Dockerfile.api` that copies `client/` only), and a Dockerfile named for a role
(`client.Dockerfile`) is the image's whose tag or name says that role."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.code.entry_points import entry_of
from k8slb.reading.build_files import read_build_file

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


# -- Dockerfiles named for a role, of one image repository told apart by its tags --------

ROLE_DOCKERFILE = """\
FROM golang:1.22 AS builder
WORKDIR /app
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN {build}

FROM debian:bookworm-slim
WORKDIR /app
COPY --from=builder /app/bin/{role} /app/bin/{role}
ENTRYPOINT ["/app/bin/{role}"]
"""


def greeter(build: str = "go build -o bin/{role} ./cmd/{role}") -> dict[str, str]:
    """A module with a server and a client under cmd/, a Dockerfile for each in docker/."""
    return {
        "go.mod": "module example.com/greeter\n\ngo 1.22\n",
        "go.sum": "",
        "cmd/server/server.go": GO_SERVER,
        "cmd/client/client.go": GO_CLIENT,
        **{
            f"docker/{role}.Dockerfile": ROLE_DOCKERFILE.format(
                role=role, build=build.format(role=role)
            )
            for role in ("server", "client")
        },
    }


def test_a_tag_and_a_workload_that_say_a_role_link_the_dockerfile_named_for_it(
    tmp_path: Path,
) -> None:
    files = {
        **greeter(),
        "k8s/client.yaml": workload(
            name="greeter-client", image="ghcr.io/acme/greeter:client-1.0.0"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "client")
    assert row["evidence"][-1].startswith("image name guess: k8s/client.yaml:11: ")
    assert "names docker/client.Dockerfile" in row["evidence"][-1]


def test_a_role_dockerfile_whose_builder_runs_make_links_the_package_the_makefile_builds(
    tmp_path: Path,
) -> None:
    files = {
        **greeter(build="make"),
        "Makefile": "build:\n\tgo build -o bin/server cmd/server/server.go\n"
        "\tgo build -o bin/client cmd/client/client.go\n",
        "k8s/client.yaml": workload(
            name="greeter-client", image="ghcr.io/acme/greeter:client-1.0.0"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "client")


def test_a_tag_that_says_no_role_links_no_role_dockerfile(tmp_path: Path) -> None:
    """`greeter:1.0.0` run as `greeter`: of the server's and the client's Dockerfiles,
    nothing says which (no link is better than a wrong one)."""
    files = {**greeter(), "k8s/server.yaml": workload(name="greeter", image="acme/greeter:1.0.0")}
    assert only(links(tmp_path, files))["code"] is None


def test_a_role_the_workload_does_not_share_links_nothing(tmp_path: Path) -> None:
    files = {**greeter(), "k8s/web.yaml": workload(name="web", image="acme/greeter:client-1.0.0")}
    assert only(links(tmp_path, files))["code"] is None


def test_two_dockerfiles_named_for_the_role_link_neither(tmp_path: Path) -> None:
    files = {
        **greeter(),
        "Dockerfile.client": ROLE_DOCKERFILE.format(role="client", build="go build ./cmd/client"),
        "k8s/client.yaml": workload(name="greeter-client", image="acme/greeter:client-1.0.0"),
    }
    assert only(links(tmp_path, files))["code"] is None


@pytest.mark.parametrize("image", ["acme/shop:api-1.2", "acme/shop-api:1.2"])
def test_a_top_dockerfile_named_for_a_role_links_the_command_its_go_build_names(
    tmp_path: Path, image: str
) -> None:
    """`Dockerfile.api` and `Dockerfile.worker` at the top, each building its `cmd/<role>`:
    the role said by the image's tag or name and by the workload's name picks one."""
    dockerfile = (
        "FROM golang:1.22 AS builder\nWORKDIR /src\nCOPY . .\n"
        "RUN go build -o /out/{role} ./cmd/{role}\n"
        'FROM alpine\nCOPY --from=builder /out/{role} /{role}\nENTRYPOINT ["/{role}"]\n'
    )
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "cmd/api/main.go": GO_CLIENT,
        "cmd/worker/main.go": GO_SERVER,
        "Dockerfile.api": dockerfile.format(role="api"),
        "Dockerfile.worker": dockerfile.format(role="worker"),
        "k8s/api.yaml": workload(name="shop-api", image=image),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "api")
    assert any(e.startswith("image name guess: k8s/api.yaml:11: ") for e in row["evidence"])


def test_a_copy_to_a_variables_path_lands_where_a_workdir_of_that_variable_is(
    tmp_path: Path,
) -> None:
    """`WORKDIR $GOPATH/src/demo` then `COPY server $GOPATH/src/demo/server`: both paths
    start at the variable's absolute value, not one inside the other."""
    files = {
        **two_programs_at_the_top(),
        "Dockerfile.ms": "FROM golang:alpine\nWORKDIR $GOPATH/src/demo\n"
        "COPY server $GOPATH/src/demo/server\nCOPY pb $GOPATH/src/demo/pb\n"
        'CMD ["go", "run", "./server"]\n',
        "gcd.yaml": workload(name="gcd", image="local/ms:dev"),
        "build.sh": "#!/bin/sh\ndocker build -t local/ms:dev -f Dockerfile.ms .\n",
    }
    assert only(links(tmp_path, files))["code"] == "server"


def test_a_role_dockerfile_that_copies_no_code_links_nothing(tmp_path: Path) -> None:
    """`server/Dockerfile.migration` installs a migration tool and copies SQL files: the
    Job named for that role runs none of the server's code beside it."""
    files = {
        "server/go.mod": "module example.com/server\n\ngo 1.22\n",
        "server/cmd/server/main.go": GO_SERVER,
        "server/Dockerfile": ROLE_DOCKERFILE.format(role="server", build="go build ./cmd/server"),
        "server/Dockerfile.migration": "FROM alpine\nRUN go install example.org/migrate@latest\n"
        "WORKDIR /migrations\nCOPY internal/migrations/ ./\n",
        "server/internal/migrations/001_init.sql": "create table t (id int);\n",
        "k8s/migration.yaml": workload(name="db-migration", image="server-migration:latest"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a binary a script builds on the host, from the folder its pushd lines lead to ---------

HOST_BUILD = """\
#!/bin/bash
set -e
OUT="$(pwd)/dist/linux"
SERVICES="./services"
mkdir -p "$OUT"
pushd "$SERVICES/{name}" > /dev/null
GOOS=linux CGO_ENABLED=0 go build -o "$OUT/{name}" .
popd > /dev/null
go build -o "$OUT/tool" .
"""
BINARY_DOCKERFILE = (
    'FROM alpine:3.20\nWORKDIR /app\nCOPY ./dist/linux/{name} /app/{name}\nCMD ["./{name}"]\n'
)


def host_built(name: str) -> dict[str, str]:
    """A Go service built on the host by build.sh into dist/linux/, beside another, and a
    Dockerfile at the top that copies its binary."""
    return {
        "go.mod": "module example.com/game\n\ngo 1.22\n",
        f"services/{name}/main.go": GO_SERVER,
        "services/other/main.go": GO_CLIENT,
        "main.go": GO_CLIENT,
        "build.sh": HOST_BUILD.format(name=name),
        f"Dockerfile.{name}": BINARY_DOCKERFILE.format(name=name),
        "deploy.sh": f"#!/bin/sh\ndocker build -f Dockerfile.{name} -t {name}:latest .\n",
        "k8s/gateway.yaml": workload(name="gateway", image=f"{name}:latest"),
    }


def test_a_binary_a_script_builds_after_pushd_links_the_package_of_that_folder(
    tmp_path: Path,
) -> None:
    """`pushd "$SERVICES/gateway"` then `go build -o "$OUT/gateway" .`: the binary the
    Dockerfile copies from dist/linux/ is that folder's program, not the context's."""
    row = only(links(tmp_path, host_built("gateway")))
    assert row["code"] == os.path.join("services", "gateway")
    assert any("build.sh:7: " in e for e in row["evidence"])


def test_after_popd_a_script_builds_from_the_folder_it_left(tmp_path: Path) -> None:
    """`popd` goes back: `go build -o "$OUT/tool" .` builds the top's program."""
    files = {**host_built("gateway"), "Dockerfile.gateway": BINARY_DOCKERFILE.format(name="tool")}
    row = only(links(tmp_path, files))
    assert row["code"] == "."
    assert any("build.sh:9: " in e for e in row["evidence"])


# -- a Rust binary built on the host, copied into the image --------------------------------

CARGO_WORKSPACE = '[workspace]\nresolver = "2"\nmembers = ["services/orders", "services/billing"]\n'


def crate(name: str) -> str:
    return f'[package]\nname = "{name}"\nversion = "0.1.0"\n\n[dependencies]\ntokio = "1"\n'


def rust_services(*names: str) -> dict[str, str]:
    """A cargo workspace of Rust services beside a Go program, each binary built on the
    host into dist/linux/ and copied by a Dockerfile at the top."""
    files = {
        "Cargo.toml": CARGO_WORKSPACE,
        "go.mod": "module example.com/game\n\ngo 1.22\n",
        "gateway/main.go": GO_SERVER,
        "build.sh": "#!/bin/sh\ncargo build --release -p orders\ncp target/release/orders dist/\n",
        "deploy.sh": "#!/bin/sh\ndocker build -f Dockerfile.orders -t orders:latest .\n",
        "Dockerfile.orders": BINARY_DOCKERFILE.format(name="orders"),
        "k8s/orders.yaml": workload(name="orders", image="orders:latest"),
    }
    for name in names:
        files[f"services/{name}/Cargo.toml"] = crate(name)
        files[f"services/{name}/src/main.rs"] = "fn main() {}\n"
    return files


def test_a_rust_binary_the_image_copies_links_the_crate_named_as_it(tmp_path: Path) -> None:
    row = only(links(tmp_path, rust_services("orders", "billing")))
    assert row["code"] == os.path.join("services", "orders")
    assert row["modules"] == 0  # Rust is not read: the folder, and none of the Go code
    assert any(
        e.startswith('dockerfile: services/orders/Cargo.toml:2: name = "orders"')
        for e in row["evidence"]
    )


def test_two_crates_named_as_the_binary_link_neither(tmp_path: Path) -> None:
    files = {
        **rust_services("orders"),
        "legacy/orders/Cargo.toml": crate("orders"),
        "legacy/orders/src/main.rs": "fn main() {}\n",
    }
    assert only(links(tmp_path, files))["code"] != os.path.join("services", "orders")


WORKSPACE_DOCKERFILE = """\
FROM rust:1.80 AS build
WORKDIR /work
COPY Cargo.toml Cargo.lock ./
COPY services services
RUN {build}

FROM debian:bookworm-slim
COPY --from=build /work/target/release/{binary} /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/{binary}"]
"""


def workspace_built(build: str, binary: str = "orders") -> dict[str, str]:
    """The workspace's crates built in the image, its build naming one of them: no binary
    copied from the context names the crate, the build does."""
    files = {
        **rust_services("orders", "billing"),
        "Dockerfile.orders": WORKSPACE_DOCKERFILE.format(build=build, binary=binary),
    }
    del files["build.sh"]
    return files


@pytest.mark.parametrize(
    "build",
    [
        "cargo build --release --bin orders",
        "cargo build --locked --release -p orders",
        "cargo build --release --package=orders --target-dir target",
        "cargo install --path services/orders --root /work/target/release/..",
        "cd services && cargo install --locked --path ./orders",
    ],
)
def test_a_workspace_build_naming_one_crate_links_that_crate(build: str, tmp_path: Path) -> None:
    """The image's `cargo build --bin orders` (or `-p`, or `install --path`) of a
    workspace copied whole: the crate services/orders, not the folder of every crate."""
    row = only(links(tmp_path, workspace_built(build)))
    assert row["code"] == os.path.join("services", "orders"), row
    assert any(
        e.startswith(f"dockerfile: Dockerfile.orders:5: RUN {build}") for e in row["evidence"]
    )


@pytest.mark.parametrize(
    "build",
    [
        "cargo build --release",
        "cargo build --release -p ${CRATE}",
        "cargo build -p orders -p billing",
    ],
)
def test_a_workspace_build_naming_no_one_crate_narrows_to_none(build: str, tmp_path: Path) -> None:
    row = only(links(tmp_path, workspace_built(build)))
    assert row["code"] not in (
        os.path.join("services", "orders"),
        os.path.join("services", "billing"),
    )


def test_beside_a_build_of_the_whole_workspace_a_named_crate_must_be_the_one_run(
    tmp_path: Path,
) -> None:
    """`cargo build --workspace && cargo build -p orders`: the image holds every crate's
    binary; it runs billing's, so orders is not its code (nor, unnamed, is billing)."""
    build = "cargo build --release --workspace && cargo build --release -p orders"
    row = only(links(tmp_path, workspace_built(build, binary="billing")))
    assert row["code"] != os.path.join("services", "orders"), row
    row = only(links(tmp_path / "runs-orders", workspace_built(build)))
    assert row["code"] == os.path.join("services", "orders"), row


def test_of_two_crates_an_image_builds_it_links_the_one_it_runs(tmp_path: Path) -> None:
    build = "cargo build --release -p billing && cargo build --release -p orders"
    row = only(links(tmp_path, workspace_built(build, binary="billing")))
    assert row["code"] == os.path.join("services", "billing"), row


def test_a_cargo_manifest_s_name_is_its_package_s_not_a_dependency_s() -> None:
    text = '[dependencies]\nname = "not-this"\n\n[package]\nname = "orders"\n'
    said = read_build_file("svc/Cargo.toml", text.encode())
    assert said is not None and said.crate is not None
    assert (said.crate.line, said.crate.text) == (5, 'name = "orders"')
    workspace = read_build_file("Cargo.toml", CARGO_WORKSPACE.encode())
    assert workspace is not None and workspace.crate is None


NODE_WEB = (
    "const express = require('express');\nconst app = express();\n"
    "app.get('/', (req, res) => res.send('hi'));\napp.listen(3000);\n"
)
# at the top, run from there: copies one program's files out of its folder
NODE_WEB_DOCKERFILE = """\
FROM node:alpine
WORKDIR /usr/app/web
COPY {folder}/package.json .
COPY {folder}/index.js .
RUN npm install
CMD ["npm", "run", "web"]
"""


def web_beside_a_python_service(**dockerfiles: str) -> dict[str, str]:
    return {
        "webapp/index.js": NODE_WEB,
        "webapp/package.json": '{"name": "web", "scripts": {"web": "node index.js"}}\n',
        "tutor/server.py": "import grpc\n\nserver = grpc.server(None)\n",
        "Dockerfile.service": "FROM python:3.11\nCOPY tutor tutor\n"
        'CMD ["python", "-m", "tutor.server"]\n',
        **dockerfiles,
        "k8s/app.yaml": workload(name="http-service", image="acme/tutor-webserver"),
    }


def test_an_image_s_last_word_names_the_role_dockerfile_that_copies_one_folder_s_program(
    tmp_path: Path,
) -> None:
    """`acme/tutor-webserver` run as `http-service`: the workload says no role, the image's
    last word names `Dockerfile.webserver`, which copies webapp's files alone: a guess."""
    files = web_beside_a_python_service(
        **{"Dockerfile.webserver": NODE_WEB_DOCKERFILE.format(folder="webapp")}
    )
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("webapp", "index.js")
    assert row["evidence"][-1].startswith("image name guess: k8s/app.yaml:11: ")
    assert "a guess: its last word webserver names Dockerfile.webserver" in row["evidence"][-1]


def test_an_image_s_last_word_naming_two_role_dockerfiles_links_neither(tmp_path: Path) -> None:
    files = web_beside_a_python_service(
        **{
            "Dockerfile.webserver": NODE_WEB_DOCKERFILE.format(folder="webapp"),
            "deploy/Dockerfile.webserver": NODE_WEB_DOCKERFILE.format(folder="webapp"),
        }
    )
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_s_last_word_naming_a_dockerfile_that_copies_everything_links_nothing(
    tmp_path: Path,
) -> None:
    """`COPY . .`: the whole repository, of a Node program and a Python one, says no
    program; the workload's name does not say the role either."""
    files = web_beside_a_python_service(
        **{"Dockerfile.webserver": 'FROM node:alpine\nCOPY . .\nCMD ["node", "webapp/index.js"]\n'}
    )
    assert only(links(tmp_path, files))["code"] is None


# -- a root context whose build step compiles one program's folder -------------------------

# from the repository's top, copying all of it: the step that compiles names the program
CD_BUILD_DOCKERFILE = """\
FROM golang:1.22-alpine AS build
WORKDIR /app
COPY . .
RUN {build}

FROM alpine:3.20
WORKDIR /root/
COPY --from=build /app/{role}/main .
CMD ["./main"]
"""


def two_programs_one_module() -> dict[str, str]:
    """A Go module at the top with a server, a client and their generated stubs, and
    Dockerfiles at the top built with the whole repository as their context."""
    return {
        "go.mod": "module example.com/adder\n\ngo 1.22\n",
        "server/main.go": GO_SERVER,
        "client/main.go": GO_CLIENT,
        "gen/pb/stubs.go": GO_STUBS,
    }


@pytest.mark.parametrize(
    "build",
    [
        "cd {role} && go build -o main .",
        "cd /app/{role} && CGO_ENABLED=0 go build -o main",
        "go build -o ./{role}/main ./{role}",
    ],
)
def test_a_root_dockerfile_whose_step_compiles_one_folder_links_that_folder(
    tmp_path: Path, build: str
) -> None:
    """`COPY . .` then `RUN cd server && go build`: the container runs the server's
    program, not the whole context (which holds the client's too)."""
    files = {
        **two_programs_one_module(),
        **{
            f"{role}.Dockerfile": CD_BUILD_DOCKERFILE.format(
                role=role, build=build.format(role=role)
            )
            for role in ("server", "client")
        },
        "build.sh": "#!/bin/sh\ndocker build -t acme/adder-server:v1 -f server.Dockerfile .\n",
        "k8s/server.yaml": workload(name="adder-server", image="acme/adder-server:v1"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "server"
    assert any(e.startswith("dockerfile: server.Dockerfile:4: RUN ") for e in row["evidence"])


def test_a_cd_to_a_folder_a_variable_names_narrows_nothing(tmp_path: Path) -> None:
    """`cd $APP && go build`: which folder is not known, so the link stays the context."""
    files = {
        **two_programs_one_module(),
        **{
            "server.Dockerfile": CD_BUILD_DOCKERFILE.format(
                role="server", build="cd $APP && go build -o main ."
            )
        },
        "build.sh": "#!/bin/sh\ndocker build -t acme/adder-server:v1 -f server.Dockerfile .\n",
        "k8s/server.yaml": workload(name="adder-server", image="acme/adder-server:v1"),
    }
    assert only(links(tmp_path, files))["code"] == "."


def test_a_step_that_compiles_two_programs_links_no_narrower_than_the_context(
    tmp_path: Path,
) -> None:
    """Both programs built into one image, run by a script that starts either: which one
    this container runs is not said, so neither is guessed."""
    dockerfile = (
        "FROM golang:1.22-alpine\nWORKDIR /app\nCOPY . .\n"
        "RUN cd server && go build -o /bin/server . && cd ../client && go build -o /bin/client .\n"
        'CMD ["/app/start.sh"]\n'
    )
    files = {
        **two_programs_one_module(),
        **{"Dockerfile_all": dockerfile},
        "start.sh": "#!/bin/sh\n/bin/server &\nexec /bin/client\n",
        "build.sh": "#!/bin/sh\ndocker build -t acme/adder:v1 -f Dockerfile_all .\n",
        "k8s/adder.yaml": workload(name="adder", image="acme/adder:v1"),
    }
    assert only(links(tmp_path, files))["code"] == "."


def test_a_dockerfile_spelled_with_an_underscore_is_the_one_a_script_builds(
    tmp_path: Path,
) -> None:
    """`-f Dockerfile_client .`: that file is a Dockerfile, and its `go build ./client`
    says the program."""
    dockerfile = (
        "FROM golang:alpine AS builder\nWORKDIR /src\nCOPY . /src\n"
        "RUN CGO_ENABLED=0 go build -o ./{role}/{role} ./{role}\n"
        "FROM alpine\nWORKDIR /src\nCOPY --from=builder /src/{role}/{role} .\n"
        'CMD ["./{role}"]\n'
    )
    files = {
        **two_programs_one_module(),
        **{f"Dockerfile_{role}": dockerfile.format(role=role) for role in ("server", "client")},
        "build.sh": "docker build -t adder-client:v1 -f Dockerfile_client .\n"
        "docker build -t adder-server:v1 -f Dockerfile_server .\n",
        "k8s/client.yaml": workload(name="adder-client", image="adder-client:v1"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "client"
    assert row["evidence"][0] == (
        "script: build.sh:1: docker build -t adder-client:v1 -f Dockerfile_client ."
    )


# -- role Dockerfiles at the top that no build names, in any spelling ----------------------

# a builder that copies the module's files, the stubs and one program's folder, the last
# stage taking only the binary
ROLE_BUILDER = """\
FROM golang:1.22-alpine AS builder
WORKDIR /app
COPY go.mod go.sum ./
RUN go mod download
COPY gen/ gen/
COPY {role}/ {role}/
RUN go build -o {role}-bin {role}/main.go

FROM gcr.io/distroless/base
COPY --from=builder /app/{role}-bin /app/{role}-bin
ENTRYPOINT ["/app/{role}-bin"]
"""


@pytest.mark.parametrize(
    "spelling", ["{role}.Dockerfile", "Dockerfile.{role}", "Dockerfile-{Role}", "Dockerfile_{role}"]
)
def test_a_role_dockerfile_in_any_spelling_links_the_program_its_builder_copies(
    tmp_path: Path, spelling: str
) -> None:
    """`acme/adder-client` run as `client`: the image's last word names the client's
    Dockerfile (`Dockerfile-Client` too), whose builder copies client/ and builds it."""
    files = {
        **two_programs_one_module(),
        **{
            spelling.format(role=role, Role=role.title()): ROLE_BUILDER.format(role=role)
            for role in ("server", "client")
        },
        "go.sum": "",
        "k8s/client.yaml": workload(name="client-deployment", image="acme/adder-client"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "client"
    assert "(a guess: client, said by the image and by client-deployment/server" in " ".join(
        row["evidence"]
    )


def test_a_role_named_by_two_spellings_links_neither(tmp_path: Path) -> None:
    files = {
        **two_programs_one_module(),
        **{
            "client.Dockerfile": ROLE_BUILDER.format(role="client"),
            "Dockerfile-client": ROLE_BUILDER.format(role="client"),
        },
        "go.sum": "",
        "k8s/client.yaml": workload(name="client-deployment", image="acme/adder-client"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_whose_words_name_no_role_dockerfile_links_nothing(tmp_path: Path) -> None:
    """`acme/adder-service` for server.Dockerfile: `service` is not `server`; nothing but
    a likeness says which of the two it is, so no guess."""
    files = {
        **two_programs_one_module(),
        **{f"{role}.Dockerfile": ROLE_BUILDER.format(role=role) for role in ("server", "client")},
        "go.sum": "",
        "k8s/adder.yaml": workload(name="adder-deployment", image="acme/adder-service"),
    }
    assert only(links(tmp_path, files))["code"] is None


JAVA_APP = """\
package com.example.adder;

public class AdderApplication {
    public static void main(String[] args) {
        System.out.println("adder");
    }
}
"""


@pytest.mark.parametrize("spelling", ["Dockerfile-Server", "server.Dockerfile"])
def test_a_role_dockerfile_copying_the_root_project_s_jar_links_that_project(
    tmp_path: Path, spelling: str
) -> None:
    """`COPY build/libs/adder-0.1.jar server.jar`: the jar the top's one Gradle project
    builds, so the container runs that project's code."""
    files = {
        "settings.gradle": "rootProject.name = 'adder'\n",
        "build.gradle": "plugins { id 'java' }\nversion = '0.1'\n",
        "src/main/java/com/example/adder/AdderApplication.java": JAVA_APP,
        spelling: "FROM eclipse-temurin:17\nCOPY build/libs/adder-0.1.jar server.jar\n"
        'ENTRYPOINT ["java", "-jar", "/server.jar"]\n',
        "k8s/server.yaml": workload(name="server", image="acme/simple-adder-server"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "."
    assert f"names {spelling}, built from .)" in row["evidence"][-1]


def test_a_role_dockerfile_copying_a_jar_no_project_builds_links_nothing(tmp_path: Path) -> None:
    files = {
        "src/main/java/com/example/adder/AdderApplication.java": JAVA_APP,
        "Dockerfile-Server": "FROM eclipse-temurin:17\nCOPY build/libs/adder-0.1.jar server.jar\n"
        'ENTRYPOINT ["java", "-jar", "/server.jar"]\n',
        "k8s/server.yaml": workload(name="server", image="acme/simple-adder-server"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a root context whose builder packages one module of a multi-module JVM build ----------

MAVEN_TOP = """\
<project><modelVersion>4.0.0</modelVersion><groupId>com.example</groupId>
<artifactId>shop</artifactId><version>1</version><packaging>pom</packaging>
<modules><module>orders</module><module>billing</module></modules></project>
"""
MAVEN_MODULE = """\
<project><modelVersion>4.0.0</modelVersion>
<parent><groupId>com.example</groupId><artifactId>shop</artifactId><version>1</version></parent>
<artifactId>{name}</artifactId></project>
"""
MODULE_BUILDER = """\
FROM maven:3-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -pl orders -am package -DskipTests
FROM eclipse-temurin:17
{taken}
ENTRYPOINT ["java", "-jar", "/app.jar"]
"""


def two_maven_modules(taken: str) -> dict[str, str]:
    files = {
        "pom.xml": MAVEN_TOP,
        "Dockerfile": MODULE_BUILDER.format(taken=taken),
        "build.sh": "#!/bin/sh\ndocker build -t acme/shop:1 .\n",
        "k8s/shop.yaml": workload(name="shop", image="acme/shop:1"),
    }
    for name in ("orders", "billing"):
        files[f"{name}/pom.xml"] = MAVEN_MODULE.format(name=name)
        files[f"{name}/src/main/java/com/example/{name}/App.java"] = JAVA_APP.replace("adder", name)
    return files


def test_the_jar_a_builder_packages_from_the_whole_context_links_its_module(
    tmp_path: Path,
) -> None:
    """`COPY . .`, `mvn -pl orders package`, then the last stage takes
    `orders/target/orders-1.jar`: the orders module's code, not the build's top."""
    files = two_maven_modules("COPY --from=build /src/orders/target/orders-1.jar /app.jar")
    assert only(links(tmp_path, files))["code"] == "orders"


def test_the_jars_of_two_modules_taken_from_a_builder_link_neither(tmp_path: Path) -> None:
    files = two_maven_modules(
        "COPY --from=build /src/orders/target/orders-1.jar /app.jar\n"
        "COPY --from=build /src/billing/target/billing-1.jar /billing.jar"
    )
    assert only(links(tmp_path, files))["code"] is None


def test_a_module_s_own_jar_copied_from_a_rooted_path_links_that_module(tmp_path: Path) -> None:
    """`COPY /target/orders-1.jar app.jar` in orders/Dockerfile, built from orders/: the
    leading `/` is the context's top, the module's own output, not the build's top."""
    files = {
        **two_maven_modules(""),
        "orders/Dockerfile": "FROM eclipse-temurin:17\nCOPY /target/orders-1.jar app.jar\n"
        'ENTRYPOINT ["java", "-jar", "app.jar"]\n',
        "build.sh": "#!/bin/sh\ndocker build -t acme/shop:1 orders\n",
    }
    del files["Dockerfile"]
    assert only(links(tmp_path, files))["code"] == "orders"


# -- a root context whose npm step runs one package's script -------------------------------

NODE_SERVICE = "const express = require('express');\nconst app = express();\napp.listen(3000);\n"


def two_node_packages(dockerfile: str) -> dict[str, str]:
    """Two packages at the top, each with a start script, and a Dockerfile copying both."""
    files = {
        "Dockerfile": dockerfile,
        "build.sh": "#!/bin/sh\ndocker build -t acme/shop:1 .\n",
        "k8s/shop.yaml": workload(name="shop", image="acme/shop:1"),
    }
    for name in ("web", "api"):
        files[f"{name}/main.js"] = NODE_SERVICE
        files[f"{name}/package.json"] = (
            f'{{"name": "{name}", "scripts": {{"start": "node main.js"}}}}\n'
        )
    return files


@pytest.mark.parametrize(
    "run",
    [
        'WORKDIR /app/web\nRUN npm ci\nCMD ["npm", "start"]',
        'RUN cd web && npm ci\nCMD ["npm", "--prefix", "web", "start"]',
        'CMD ["yarn", "--cwd=web", "start"]',
    ],
)
def test_an_npm_script_run_in_one_package_s_folder_links_that_package(
    tmp_path: Path, run: str
) -> None:
    """`COPY . .` of two packages, then `npm start` where the WORKDIR or `--prefix` says:
    that package's start script, not the context's."""
    files = two_node_packages(f"FROM node:20\nWORKDIR /app\nCOPY . .\n{run}\n")
    assert only(links(tmp_path, files))["code"] == os.path.join("web", "main.js")


@pytest.mark.parametrize(
    ("argv", "script", "folder"),
    [
        (["npm", "--prefix", "web", "start"], "start", "web"),
        (["npm", "run", "serve", "--prefix=web"], "serve", "web"),
        (["pnpm", "-C", "web", "start"], "start", "web"),
        (["npm", "start"], "start", None),
        (["npm", "--prefix", "$APP", "start"], None, None),
    ],
)
def test_a_package_manager_s_folder_flag_is_not_the_script_it_runs(
    argv: list[str], script: str | None, folder: str | None
) -> None:
    entry = entry_of(argv)
    found = (entry.package_script, entry.package_folder) if entry else (None, None)
    assert found == (script, folder)


def test_an_npm_prefix_a_variable_names_links_no_package(tmp_path: Path) -> None:
    files = two_node_packages(
        'FROM node:20\nWORKDIR /app\nCOPY . .\nCMD ["npm", "--prefix", "$APP", "start"]\n'
    )
    assert only(links(tmp_path, files))["code"] == "."
