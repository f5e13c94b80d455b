"""A workflow whose matrix runs choose their Dockerfile by an expression of the matrix's
values (`file: ${{ matrix.app == 'portal' && 'portal/Dockerfile' || 'Dockerfile' }}`) or
run a step for some values only (`if: matrix.app == 'portal'`): each run builds with the
Dockerfile its values choose, never the context's own when the choice is not settled;
and a Dockerfile no run settles builds nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading import workflow_expressions
from k8slb.reading.build_files import workflow_builds

from tests.test_links import links, workload

# one shared Dockerfile at the top builds most services by a build argument; the portal
# (a Go server embedding a web bundle) and the relay have Dockerfiles of their own
WORKFLOW = """\
on: {push: {tags: ["v*"]}}
jobs:
  publish:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        app: [ledger, portal, relay]
    steps:
      - uses: actions/checkout@v4
      - name: image of ${{ matrix.app }}
        uses: docker/build-push-action@v6
        with:
          context: .
          push: true
          tags: |
            ghcr.io/tallyco/tally-${{ matrix.app }}:${{ github.ref_name }}
          build-args: |
            APP=${{ matrix.app }}
          file: >-
            ${{ matrix.app == 'portal' && 'web/Dockerfile' ||
                matrix.app == 'relay' && 'relay/Dockerfile' ||
                'Dockerfile' }}
"""

STEP_IF_WORKFLOW = """\
on: {push: {tags: ["v*"]}}
jobs:
  publish:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        app: [ledger, portal]
    steps:
      - uses: actions/checkout@v4
      - if: matrix.app != 'portal'
        uses: docker/build-push-action@v6
        with:
          context: .
          tags: ghcr.io/tallyco/tally-${{ matrix.app }}:latest
          build-args: APP=${{ matrix.app }}
      - if: ${{ matrix.app == 'portal' }}
        uses: docker/build-push-action@v6
        with:
          context: .
          file: web/Dockerfile
          tags: ghcr.io/tallyco/tally-${{ matrix.app }}:latest
"""

UNSETTLED_WORKFLOW = """\
on: {push: {tags: ["v*"]}}
jobs:
  publish:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        app: [ledger, portal]
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: .
          tags: ghcr.io/tallyco/tally-${{ matrix.app }}:latest
          file: ${{ github.event_name == 'push' && 'web/Dockerfile' || 'Dockerfile' }}
"""

SHARED_DOCKERFILE = """\
FROM golang:1.22 AS build
ARG APP
WORKDIR /src
COPY go.work ./
COPY lib/ lib/
COPY $APP/ $APP/
RUN cd $APP && go build -o /out/app .
FROM gcr.io/distroless/static
COPY --from=build /out/app /app
ENTRYPOINT ["/app"]
"""

PORTAL_DOCKERFILE = """\
FROM node:20 AS bundle
WORKDIR /ui
COPY web/ui/ .
RUN npm ci && npm run build
FROM golang:1.22 AS build
WORKDIR /src
COPY lib/ lib/
COPY web/ web/
COPY --from=bundle /ui/dist web/ui/dist
RUN cd web && go build -o /out/portal .
FROM gcr.io/distroless/static
COPY --from=build /out/portal /portal
ENTRYPOINT ["/portal"]
"""


def _go(module: str) -> dict[str, str]:
    return {
        f"{module}/go.mod": f"module example.com/tally/{module}\n\ngo 1.22\n",
        f"{module}/main.go": "package main\n\nfunc main() {}\n",
    }


def _tree(workflow: str) -> dict[str, str]:
    return {
        ".github/workflows/publish.yml": workflow,
        "Dockerfile": SHARED_DOCKERFILE,
        "web/Dockerfile": PORTAL_DOCKERFILE,
        "relay/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /relay .\n"
        'ENTRYPOINT ["/relay"]\n',
        **_go("ledger"),
        **_go("web"),
        **_go("relay"),
        "lib/go.mod": "module example.com/tally/lib\n\ngo 1.22\n",
        "lib/log.go": "package lib\n",
        "deploy/ledger.yaml": workload(
            name="tally-ledger", image="ghcr.io/tallyco/tally-ledger:v1"
        ),
        "deploy/portal.yaml": workload(
            name="tally-portal", image="ghcr.io/tallyco/tally-portal:v1"
        ),
    }


def test_each_matrix_run_builds_with_the_dockerfile_its_expression_chooses() -> None:
    builds = workflow_builds(".github/workflows/publish.yml", WORKFLOW)
    assert sorted((b.image, b.context, b.dockerfile) for b in builds) == [
        ("ghcr.io/tallyco/tally-ledger", ".", "Dockerfile"),
        ("ghcr.io/tallyco/tally-portal", ".", os.path.join("web", "Dockerfile")),
        ("ghcr.io/tallyco/tally-relay", ".", os.path.join("relay", "Dockerfile")),
    ]


def test_a_step_whose_if_excludes_a_matrix_value_builds_nothing_in_that_run() -> None:
    builds = workflow_builds(".github/workflows/publish.yml", STEP_IF_WORKFLOW)
    assert sorted((b.image, b.dockerfile) for b in builds) == [
        ("ghcr.io/tallyco/tally-ledger", None),
        ("ghcr.io/tallyco/tally-portal", os.path.join("web", "Dockerfile")),
    ]


def test_a_dockerfile_the_run_does_not_settle_is_no_build() -> None:
    assert workflow_builds(".github/workflows/publish.yml", UNSETTLED_WORKFLOW) == []


@pytest.mark.parametrize("workflow", [WORKFLOW, STEP_IF_WORKFLOW])
def test_the_service_a_matrix_builds_apart_links_to_its_own_dockerfile_s_code(
    tmp_path: Path, workflow: str
) -> None:
    rows = {row["container"]: row for row in links(tmp_path, _tree(workflow))}
    assert rows["Deployment/shop/tally-portal:server"]["code"] == "web"
    assert rows["Deployment/shop/tally-ledger:server"]["code"] == "ledger"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("${{ matrix.app == 'Portal' && 'web' || 'top' }}", "web"),
        ("matrix.app != 'portal' && 'a' || 'b'", "b"),
        ("!(matrix.app == 'ledger') && matrix.app", "portal"),
        ("matrix.app == 'portal'", "true"),
        ("matrix.missing == 'x' && 'a' || 'b'", None),
        ("contains(matrix.app, 'p') && 'a' || 'b'", None),
        ("github.ref == 'refs/heads/main' || 'x'", None),
        ("'it''s'", "it's"),
        ("(" * 40 + "'a'" + ")" * 40, None),
        ("'a' || " * 400 + "'b'", None),
    ],
)
def test_expressions_a_run_settles(expression: str, expected: str | None) -> None:
    assert workflow_expressions.text(expression, {"matrix.app": "portal"}) == expected


def test_an_expression_in_a_script_that_changes_folder_is_one_word() -> None:
    """`cd web` on a line of its own, then `docker build . -t ...:${{ github.sha }}
    --build-arg ...`: the context is `.` of web/, not the `}}` the expression's spaces
    left as a word of its own."""
    workflow = (
        "on: push\njobs:\n  web:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: |\n          cd web\n"
        "          docker build . -f Dockerfile -t acme/web:${{ github.sha }} --build-arg A=1\n"
    )
    builds = workflow_builds(".github/workflows/web.yml", workflow)
    assert [(b.image, b.context) for b in builds] == [("acme/web", "web")]


def test_a_jvm_module_s_build_output_is_still_linked(tmp_path: Path) -> None:
    """A context below a Maven module's `target/` is made when the module builds: not a
    folder the repository lacks for good."""
    files = {
        ".github/workflows/ship.yml": (
            "on: push\njobs:\n  ship:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: docker build -t acme/agent:1 -f agent/src/docker/Dockerfile"
            " agent/target/docker/build\n"
        ),
        "agent/pom.xml": "<project><artifactId>agent</artifactId></project>\n",
        "agent/src/docker/Dockerfile": (
            'FROM eclipse-temurin:21\nCOPY . /opt/agent\nCMD ["/opt/agent/run"]\n'
        ),
        "deploy/agent.yaml": workload(name="agent", image="acme/agent:1"),
    }
    row = {r["container"]: r for r in links(tmp_path, files)}["Deployment/shop/agent:server"]
    assert row["code"] == os.path.join("agent", "target", "docker", "build")
