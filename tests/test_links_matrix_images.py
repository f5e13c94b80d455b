"""A workflow job whose `strategy.matrix` lists its images as mappings (`image: [{name,
dockerfile, context}]`, or `include` entries with a mapping) and builds each with
`${{ matrix.image.dockerfile }}`: one build a run, its values put in."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import workflow_builds

from tests.test_links import links, only, workload

WORKFLOW = """\
on: {push: {branches: [main]}}
jobs:
  images:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        image:
          - {name: relay-api, dockerfile: services/Dockerfile.api, context: .}
          - {name: relay-sync, dockerfile: services/sync/Dockerfile, context: ./services/sync}
        platform: [linux/amd64, linux/arm64]
        include:
          - platform: linux/amd64
            image: {name: relay-cli, dockerfile: cli/Dockerfile, context: cli}
    steps:
      - uses: actions/checkout@v4
      - uses: docker/build-push-action@v6
        with:
          context: ${{ matrix.image.context }}
          file: ${{ matrix.image.dockerfile }}
          platforms: ${{ matrix.platform }}
          tags: ghcr.io/relayco/${{ matrix.image.name }}:${{ github.sha }}
      - run: |
          docker build -t relayco/${{ matrix.image.name }}-debug \\
            -f ${{ matrix.image.dockerfile }} ${{ matrix.image.context }}
"""


def test_each_mapping_of_a_matrix_key_is_a_build() -> None:
    builds = workflow_builds(".github/workflows/images.yml", WORKFLOW)
    sync = os.path.join("services", "sync")
    assert sorted({(b.image, b.context, b.dockerfile) for b in builds}) == [
        ("ghcr.io/relayco/relay-api", ".", os.path.join("services", "Dockerfile.api")),
        ("ghcr.io/relayco/relay-cli", "cli", os.path.join("cli", "Dockerfile")),
        ("ghcr.io/relayco/relay-sync", sync, os.path.join(sync, "Dockerfile")),
        ("relayco/relay-api-debug", ".", os.path.join("services", "Dockerfile.api")),
        ("relayco/relay-cli-debug", "cli", os.path.join("cli", "Dockerfile")),
        ("relayco/relay-sync-debug", sync, os.path.join(sync, "Dockerfile")),
    ]


def test_a_container_runs_the_code_its_matrix_build_copies(tmp_path: Path) -> None:
    files = {
        ".github/workflows/images.yml": WORKFLOW,
        "services/Dockerfile.api": (
            "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
            "RUN go build -o /out/api ./services/api\n"
            'FROM alpine:3.20\nCOPY --from=build /out/api /api\nENTRYPOINT ["/api"]\n'
        ),
        "go.mod": "module example.com/relay\n\ngo 1.22\n",
        "services/api/main.go": "package main\n\nfunc main() {}\n",
        "services/sync/main.go": "package main\n\nfunc main() {}\n",
        "services/sync/Dockerfile": "FROM golang:1.22\nCOPY . .\nRUN go build -o /sync .\n",
        "deploy/api.yaml": workload(name="relay-api", image="ghcr.io/relayco/relay-api:v3"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "api")
    assert row["evidence"][0].startswith("workflow: .github/workflows/images.yml:")


METADATA_WORKFLOW = """\
on: {push: {tags: ["v*"]}}
env:
  REGISTRY: ghcr.io
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: meta-gateway
        uses: docker/metadata-action@v5
        with:
          images: |
            ${{ env.REGISTRY }}/tollbooth/gateway
            name=tollbooth/gateway-mirror,enable=false
          tags: type=semver,pattern={{version}}
      - id: meta-ledger
        uses: docker/metadata-action@v5
        with:
          images: name=${{ env.REGISTRY }}/tollbooth/ledger,enable=true
      - uses: docker/build-push-action@v6
        with:
          context: .
          target: gateway
          tags: ${{ steps.meta-gateway.outputs.tags }}
      - uses: docker/build-push-action@v6
        with:
          context: ledger
          tags: ${{ steps.meta-ledger.outputs.tags }}
          labels: ${{ steps.meta-ledger.outputs.labels }}
"""


def test_a_build_tagged_by_a_metadata_step_builds_that_steps_images() -> None:
    builds = workflow_builds(".github/workflows/release.yml", METADATA_WORKFLOW)
    assert sorted((b.image, b.context) for b in builds) == [
        ("ghcr.io/tollbooth/gateway", "."),
        ("ghcr.io/tollbooth/ledger", "ledger"),
    ]


def test_a_container_of_a_metadata_named_image_runs_the_code_its_build_copies(
    tmp_path: Path,
) -> None:
    files = {
        ".github/workflows/release.yml": METADATA_WORKFLOW,
        "Dockerfile": (
            "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
            "RUN go build -o /out/gateway ./cmd/gateway\n"
            "FROM alpine:3.20 AS gateway\nCOPY --from=build /out/gateway /gateway\n"
            'ENTRYPOINT ["/gateway"]\n'
        ),
        "go.mod": "module example.com/tollbooth\n\ngo 1.22\n",
        "cmd/gateway/main.go": "package main\n\nfunc main() {}\n",
        "deploy/gateway.yaml": workload(name="gateway", image="ghcr.io/tollbooth/gateway:1.4.0"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "gateway")
    assert row["evidence"][0].startswith("workflow: .github/workflows/release.yml:")
