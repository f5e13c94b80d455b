"""A Dockerfile that builds its Go program by import path (`go build -o /app/dispatcher
github.com/quarry/dispatch/dispatcher`) in a WORKDIR laid out as GOPATH lays a module out
(`/go/src/github.com/quarry/dispatch`): the package is the WORKDIR's `dispatcher`
folder, so the image runs the code the COPY put there, not the whole context."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import read_build_file

from tests.test_links import links, workload

DOCKERFILE = """\
FROM golang:1.22 AS builder
WORKDIR /go/src/github.com/quarry/dispatch
COPY go.mod go.sum ./
RUN go mod download
COPY {name} ./{name}
COPY shared ./shared
RUN CGO_ENABLED=0 go build -installsuffix cgo -o /app/{name} github.com/quarry/dispatch/{name}

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /app /app
ENTRYPOINT ["/app/{name}"]
"""

MAIN = """\
package main

import "github.com/quarry/dispatch/shared/logging"

func main() {{
\tlogging.Info("{name} up")
}}
"""


def tree() -> dict[str, str]:
    files = {
        "go.mod": "module github.com/quarry/dispatch\n\ngo 1.22\n",
        "go.sum": "",
        "shared/logging/log.go": (
            'package logging\n\nimport "log"\n\nfunc Info(s string) { log.Print(s) }\n'
        ),
        "build.sh": "#!/bin/sh\nset -e\n"
        "docker build . -f Dispatcher.Dockerfile -t $REGISTRY/quarry-dispatcher:$TAG\n"
        "docker build . -f Planner.Dockerfile -t $REGISTRY/quarry-planner:$TAG\n",
    }
    for name in ("dispatcher", "planner"):
        files[f"{name.capitalize()}.Dockerfile"] = DOCKERFILE.format(name=name)
        files[f"{name}/main.go"] = MAIN.format(name=name)
        files[f"k8s/{name}.yaml"] = workload(
            name=name, image=f"registry.quarry.example/quarry-{name}:v3"
        )
    return files


def test_an_import_path_built_in_a_gopath_workdir_is_the_folder_copied_there(
    tmp_path: Path,
) -> None:
    rows = {row["container"].split(":")[0].split("/")[-1]: row for row in links(tmp_path, tree())}
    assert rows["dispatcher"]["code"] == "dispatcher"
    assert rows["planner"]["code"] == "planner"
    # its own package and the one it imports, not the other program's
    assert rows["dispatcher"]["modules"] == 2
    assert rows["dispatcher"]["evidence"][-1].startswith("dockerfile: Dispatcher.Dockerfile:7:")


def test_the_package_is_read_from_the_import_path_past_the_workdir() -> None:
    text = DOCKERFILE.format(name="dispatcher")
    parsed = read_build_file("Dispatcher.Dockerfile", text.encode())
    assert parsed is not None and parsed.dockerfile is not None
    assert [build.package for build in parsed.dockerfile.go_builds] == ["dispatcher"]
    # a WORKDIR that is no start of the path: the package as written, not guessed
    moved = text.replace("WORKDIR /go/src/github.com/quarry/dispatch", "WORKDIR /src")
    parsed = read_build_file("Dispatcher.Dockerfile", moved.encode())
    assert parsed is not None and parsed.dockerfile is not None
    assert [build.package for build in parsed.dockerfile.go_builds] != ["dispatcher"]
