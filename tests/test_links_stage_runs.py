"""A multi-stage Dockerfile whose stages build from folders build arguments choose (a
web bundle from `${WEB_DIR}`, a Go server from `${SERVER_DIR}`): the code the container
runs is that of the stage its last stage copies the program it runs from, not the first
folder any stage copies."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import arg_folder, parse_dockerfile

from tests.test_links import links, only, workload

CONSOLE_DOCKERFILE = """\
ARG WEB_DIR=./web
ARG SERVER_DIR=./server

FROM node:22-alpine AS assets
ARG WEB_DIR
WORKDIR /build
COPY ${WEB_DIR} /build
RUN npm ci && npm run bundle

FROM golang:1.23 AS gateway
ARG SERVER_DIR
ARG TARGETARCH
WORKDIR /go/src/console
COPY ${SERVER_DIR}/go.mod ${SERVER_DIR}/go.sum ./
RUN go mod download
COPY ${SERVER_DIR}/cmd/ cmd/
COPY ${SERVER_DIR}/pkg/ pkg/
RUN CGO_ENABLED=0 GOARCH=${TARGETARCH} go build -o console-server ./cmd

FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=gateway /go/src/console/console-server ./
COPY --from=assets /build/dist ./public/
ENTRYPOINT ["/console-server"]
"""


def test_the_stage_that_built_the_program_run_chooses_the_folder() -> None:
    dockerfile = parse_dockerfile("console/Dockerfile", CONSOLE_DOCKERFILE)
    chosen = arg_folder(dockerfile, ())
    assert chosen is not None and chosen[0] == "server"
    assert [(b.package, b.output) for b in dockerfile.go_builds] == [
        ("server/cmd", "console-server")
    ]


def test_a_stage_whose_output_is_not_run_keeps_the_first_folder() -> None:
    """The last stage runs a file of its own base: no stage's folder comes first."""
    text = CONSOLE_DOCKERFILE.replace('ENTRYPOINT ["/console-server"]', 'CMD ["/bin/serve"]')
    chosen = arg_folder(parse_dockerfile("console/Dockerfile", text), ())
    assert chosen is not None and chosen[0] == "web"


def test_the_container_runs_the_server_stage_s_code(tmp_path: Path) -> None:
    files = {
        "console/Dockerfile": CONSOLE_DOCKERFILE,
        "console/Makefile": "image:\n\tdocker build -t acme/console:dev .\n",
        "console/web/package.json": '{"name": "console-web", "scripts": {"bundle": "vite"}}\n',
        "console/web/src/main.ts": 'import { mount } from "./app";\nmount();\n',
        "console/web/src/app.ts": "export function mount(): void {}\n",
        "console/server/go.mod": "module example.com/console\n\ngo 1.23\n",
        "console/server/go.sum": "",
        "console/server/cmd/main.go": (
            'package main\n\nimport "example.com/console/pkg/api"\n\nfunc main() { api.Serve() }\n'
        ),
        "console/server/pkg/api/api.go": "package api\n\nfunc Serve() {}\n",
        "deploy/console.yaml": workload("console", "acme/console:dev"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("console", "server", "cmd")


# one Dockerfile for a service and its schema migrations, each published from its stage
SERVICE_DOCKERFILE = """\
FROM python:3.12-slim AS migrations
WORKDIR /db
COPY services/schema/ .
CMD ["python", "migrate.py"]

FROM python:3.12-slim AS api
WORKDIR /app
COPY services/api/ .
CMD ["python", "server.py"]
"""
PUBLISH_WORKFLOW = """\
on: push
jobs:
  migrations:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: acme/publish-docker-action@v5
        with:
          name: acme/shop-migrations
          context: .
          dockerfile: deploy/Dockerfile
          buildoptions: "--target migrations"
          tags: "latest,${{ github.sha }}"
"""


def test_a_publish_action_s_build_options_choose_the_stage_it_builds(tmp_path: Path) -> None:
    """An action that names the image in `name`, the Dockerfile in `dockerfile` and passes
    `--target` among its `buildoptions`: the image is that stage's, whose code is the
    folder it copies, not the last stage's."""
    files = {
        ".github/workflows/publish.yml": PUBLISH_WORKFLOW,
        "deploy/Dockerfile": SERVICE_DOCKERFILE,
        "services/schema/migrate.py": "import json\n\nprint(json.dumps({}))\n",
        "services/api/server.py": "import json\n",
        "k8s/migrate.yaml": workload(name="migrate", image="acme/shop-migrations:1.2"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "schema", "migrate.py")
    assert row["evidence"][0] == (
        "workflow: .github/workflows/publish.yml:9: name: acme/shop-migrations"
    )
