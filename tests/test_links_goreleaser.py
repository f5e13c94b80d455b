"""A GoReleaser file's `dockers[]` build images whose Dockerfile, in a folder of its own,
only copies a binary one of its `builds[]` compiles: the image runs that build's `main`
package, not the Dockerfile's folder (which holds no code)."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.goreleaser import goreleaser_facts

from tests.test_links import links, only, workload

RELEASE = """\
project_name: ledger
version: 2
env:
  - REGISTRY={{ if index .Env "REGISTRY" }}{{ .Env.REGISTRY }}/{{ else }}ledgerco/{{ end }}
builds:
  - id: gateway
    binary: gateway
    main: ./cmd/gateway/main.go
    env: [CGO_ENABLED=0]
  - id: settler
    binary: settler
    main: ./cmd/settler
    goos: [linux]
dockers:
  - id: gateway-image
    image_templates:
      - "{{ .Env.REGISTRY }}ledger-gateway:latest"
      - "{{ .Env.REGISTRY }}ledger-gateway:{{ .Version }}"
    ids: [gateway]
    extra_files: [config/gateway.yaml]
    dockerfile: images/gateway/Dockerfile
  - id: tools-image
    image_templates:
      - "ghcr.io/ledgerco/{{ .ProjectName }}-tools:{{ .Tag }}"
    ids: [gateway, settler]
    dockerfile: images/tools/Dockerfile
"""
BINARY_DOCKERFILE = """\
FROM alpine:3.20
COPY {binary} /usr/local/bin/
COPY config/ /etc/ledger/
ENTRYPOINT ["/usr/local/bin/{binary}"]
"""
GO_CODE = {
    "go.mod": "module example.com/ledger\n\ngo 1.22\n",
    "cmd/gateway/main.go": (
        'package main\n\nimport "example.com/ledger/internal/routes"\n\n'
        "func main() { routes.Serve() }\n"
    ),
    "cmd/settler/main.go": "package main\n\nfunc main() {}\n",
    "internal/routes/routes.go": "package routes\n\nfunc Serve() {}\n",
}


def test_each_image_is_built_from_the_package_of_the_build_its_ids_name() -> None:
    images, programs = goreleaser_facts(".goreleaser.yml", RELEASE)
    assert [(b.image, b.context, b.dockerfile, b.kind) for b in images] == [
        (
            "ledger-gateway",
            os.path.join("cmd", "gateway"),
            "images/gateway/Dockerfile",
            "goreleaser",
        ),
        ("ghcr.io/ledgerco/ledger-tools", ".", "images/tools/Dockerfile", "goreleaser"),
    ]
    assert [(p.package, p.output) for p in programs] == [
        (os.path.join("cmd", "gateway"), "gateway"),
        (os.path.join("cmd", "settler"), "settler"),
    ]


def test_a_template_that_is_no_registry_leaves_the_image_unknown() -> None:
    text = RELEASE.replace("{{ .Env.REGISTRY }}ledger-gateway", "{{ .Env.PREFIX }}gateway")
    images, _ = goreleaser_facts(".goreleaser.yml", text)
    assert [b.image for b in images] == ["ghcr.io/ledgerco/ledger-tools"]


def test_the_image_of_a_released_binary_runs_its_build_s_package(tmp_path: Path) -> None:
    files = {
        "deploy/gateway.yaml": workload(name="gateway", image="ledgerco/ledger-gateway:1.4.0"),
        ".goreleaser.yml": RELEASE,
        "images/gateway/Dockerfile": BINARY_DOCKERFILE.format(binary="gateway"),
        "images/tools/Dockerfile": BINARY_DOCKERFILE.format(binary="settler"),
        **GO_CODE,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "gateway")
    assert row["evidence"][0].startswith("goreleaser: .goreleaser.yml:16: image_templates:")
    assert row["modules"] == 2, "the main package and the package it imports"


def test_an_image_of_several_binaries_runs_the_one_its_entry_point_names(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/tools.yaml": workload(name="tools", image="ghcr.io/ledgerco/ledger-tools:v1"),
        ".goreleaser.yml": RELEASE,
        "images/gateway/Dockerfile": BINARY_DOCKERFILE.format(binary="gateway"),
        "images/tools/Dockerfile": BINARY_DOCKERFILE.format(binary="settler"),
        **GO_CODE,
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("cmd", "settler")
    # one that runs none of the binaries by name: no code, not the whole repository
    files["images/tools/Dockerfile"] = 'FROM alpine:3.20\nCOPY . /opt/\nCMD ["/opt/run.sh"]\n'
    assert only(links(tmp_path, files))["code"] is None


SCHEMA_DOCKERFILE = """\
FROM flyway/flyway:10-alpine
COPY ./schema/sql /flyway/sql
COPY ./schema/apply.sh /usr/local/bin/
ENTRYPOINT ["apply.sh"]
"""


def test_an_image_that_copies_none_of_its_builds_binaries_runs_none_of_their_code(
    tmp_path: Path,
) -> None:
    """A `dockers[]` entry whose `ids` name a build only because GoReleaser wants one, its
    Dockerfile copying SQL and a script of its `extra_files`: not the build's program."""
    release = RELEASE.replace(
        "    dockerfile: images/tools/Dockerfile\n",
        "    dockerfile: images/tools/Dockerfile\n"
        "  - id: schema-image\n"
        '    image_templates: ["ledgerco/ledger-schema:{{ .Tag }}"]\n'
        "    ids: [settler]\n"
        "    extra_files: [schema/sql, schema/apply.sh]\n"
        "    dockerfile: schema/Dockerfile.release\n",
    )
    files = {
        "deploy/schema.yaml": workload(name="schema", image="ledgerco/ledger-schema:v1"),
        ".goreleaser.yml": release,
        "images/gateway/Dockerfile": BINARY_DOCKERFILE.format(binary="gateway"),
        "images/tools/Dockerfile": BINARY_DOCKERFILE.format(binary="settler"),
        "schema/Dockerfile.release": SCHEMA_DOCKERFILE,
        "schema/sql/001_init.up.sql": "CREATE TABLE entries (id bigint);\n",
        "schema/apply.sh": "#!/bin/sh\nexec flyway migrate\n",
        **GO_CODE,
    }
    assert only(links(tmp_path, files))["code"] is None
    # the same entry whose Dockerfile copies the build's binary runs its package
    files["schema/Dockerfile.release"] = BINARY_DOCKERFILE.format(binary="settler")
    assert only(links(tmp_path, files))["code"] == os.path.join("cmd", "settler")


def test_a_goreleaser_file_of_another_name_is_read_by_its_content(tmp_path: Path) -> None:
    """`release/images.yml`, given to GoReleaser by `--config` from the repository's top:
    its top-level `builds:` and `dockers:` are GoReleaser's, and its paths (`main`, the
    Dockerfile) are from the top, not from its folder. A YAML file that only has a key
    `builds:` (a CI tool's list of names) is not read as one."""
    files = {
        "deploy/gateway.yaml": workload(name="gateway", image="ledgerco/ledger-gateway:1.4.0"),
        "release/images.yml": RELEASE,
        "release/ci.yml": "builds:\n  - name: gateway\n    main: nightly\ndockers: [gateway]\n",
        "images/gateway/Dockerfile": BINARY_DOCKERFILE.format(binary="gateway"),
        "images/tools/Dockerfile": BINARY_DOCKERFILE.format(binary="settler"),
        **GO_CODE,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "gateway")
    assert row["evidence"][0].startswith("goreleaser: release/images.yml:16: image_templates:")
    assert [e for e in row["evidence"] if "ci.yml" in e] == []
