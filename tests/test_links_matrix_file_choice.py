"""A workflow matrix job that builds each service's image with a Dockerfile chosen by an
expression of GitHub's `&&`/`||` idiom (`file: ${{ matrix.svc == 'probe' &&
'probe/Dockerfile' || 'Dockerfile' }}`): each run builds with the file its matrix value
chooses, not the default one. An image of several binaries (a stage building each) is
linked, container by container, to the program whose binary the container's command runs."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading import workflow_expressions
from k8slb.reading.build_files import workflow_builds

from tests.test_links import links

WORKFLOW = """\
on: {push: {tags: ['v*']}}
jobs:
  publish:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        svc: [gateway, probe, console]
    steps:
      - uses: actions/checkout@v4
      - uses: docker/build-push-action@v6
        with:
          push: true
          tags: ghcr.io/meshco/mesh-${{ matrix.svc }}:${{ github.ref_name }}
          build-args: |
            SVC=${{ matrix.svc }}
          file: >-
            ${{ matrix.svc == 'probe' && 'probe/Dockerfile' ||
                matrix.svc == 'console' && 'web/Dockerfile' ||
                'Dockerfile' }}
          target: ${{ matrix.svc == 'probe' && 'runtime' || '' }}
"""

SHARED_DOCKERFILE = """\
FROM golang:1.22 AS build
ARG SVC
WORKDIR /src
COPY lib/ lib/
COPY $SVC/ $SVC/
WORKDIR /src/$SVC
RUN go build -o /out/svc ./cmd
FROM gcr.io/distroless/static
COPY --from=build /out/svc /svc
ENTRYPOINT ["/svc"]
"""

PROBE_DOCKERFILE = """\
FROM golang:1.22 AS helper-build
WORKDIR /src
COPY lib/ lib/
WORKDIR /src/netcheck
COPY netcheck/ .
RUN go build -o netcheck ./cmd

FROM golang:1.22 AS probe-build
WORKDIR /src
COPY lib/ lib/
WORKDIR /src/probe
COPY probe/ .
RUN CGO_ENABLED=0 go build -o probe ./cmd

FROM gcr.io/distroless/base AS runtime
COPY --from=helper-build /src/netcheck/netcheck /opt/mesh/netcheck
COPY --from=probe-build /src/probe/probe /opt/mesh/probe
CMD ["/opt/mesh/probe"]
"""

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: mesh-probe, namespace: mesh}
spec:
  selector: {matchLabels: {app: mesh-probe}}
  template:
    metadata: {labels: {app: mesh-probe}}
    spec:
      containers:
        - name: probe
          image: ghcr.io/meshco/mesh-probe:v1.4.0
          command: [/opt/mesh/probe]
        - name: netcheck
          image: ghcr.io/meshco/mesh-probe:v1.4.0
          command: [/opt/mesh/netcheck, --interval=10s]
"""


def main_package(import_path: str = "example.com/mesh/lib") -> str:
    return f'package main\n\nimport "{import_path}"\n\nfunc main() {{ lib.Start() }}\n'


def test_an_expression_of_the_matrix_chooses_a_value() -> None:
    text = (
        "${{ matrix.svc == 'probe' && 'probe/Dockerfile' || "
        "matrix.os != 'linux' && 'x' || 'Dockerfile' }}"
    )
    chosen = workflow_expressions.text
    assert chosen(text, {"matrix.svc": "probe"}) == "probe/Dockerfile"
    assert chosen(text, {"matrix.svc": "gateway", "matrix.os": "linux"}) == "Dockerfile"
    assert chosen(text, {"matrix.svc": "gateway", "matrix.os": "darwin"}) == "x"
    assert chosen(text, {"matrix.svc": "gateway"}) is None, "a value not known: unsettled"
    assert chosen("${{ github.ref_name }}", {"matrix.svc": "probe"}) is None


def test_each_run_builds_with_the_file_its_matrix_value_chooses() -> None:
    builds = workflow_builds(".github/workflows/publish.yml", WORKFLOW)
    made = {b.image: (b.dockerfile, b.target) for b in builds}
    assert made == {
        "ghcr.io/meshco/mesh-gateway": ("Dockerfile", ""),
        "ghcr.io/meshco/mesh-probe": (os.path.join("probe", "Dockerfile"), "runtime"),
        "ghcr.io/meshco/mesh-console": (os.path.join("web", "Dockerfile"), ""),
    }


def test_each_container_links_the_binary_its_command_runs(tmp_path: Path) -> None:
    files = {
        ".github/workflows/publish.yml": WORKFLOW,
        "go.work": "go 1.22\n\nuse (\n\t./lib\n\t./probe\n\t./netcheck\n\t./gateway\n)\n",
        "lib/go.mod": "module example.com/mesh/lib\n\ngo 1.22\n",
        "lib/lib.go": "package lib\n\nfunc Start() {}\n",
        "probe/go.mod": "module example.com/mesh/probe\n\ngo 1.22\n",
        "probe/cmd/main.go": main_package(),
        "netcheck/go.mod": "module example.com/mesh/netcheck\n\ngo 1.22\n",
        "netcheck/cmd/main.go": main_package(),
        "gateway/go.mod": "module example.com/mesh/gateway\n\ngo 1.22\n",
        "gateway/cmd/main.go": main_package(),
        "Dockerfile": SHARED_DOCKERFILE,
        "probe/Dockerfile": PROBE_DOCKERFILE,
        "deploy/probe.yaml": DAEMONSET,
    }
    rows = {str(row["container"]).rpartition(":")[2]: row for row in links(tmp_path, files)}
    assert rows["probe"]["code"] == os.path.join("probe", "cmd"), rows["probe"]
    assert rows["netcheck"]["code"] == os.path.join("netcheck", "cmd"), rows["netcheck"]
