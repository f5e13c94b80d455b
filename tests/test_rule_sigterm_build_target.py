"""KLB406 and the stage a build targets: a Dockerfile whose last stage is not the image
(a `docs` or `dev` stage written after it) is built with `--target runtime` (docker build,
buildx, build-push-action's and compose's `target:`, skaffold's `docker.target`, Tilt's
`target=`). The image runs the targeted stage's ENTRYPOINT and CMD; the last stage only
when no build names one, or when the builds name stages that run different commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding
from k8slb.reading.build_files import parse_dockerfile
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# A Python service: the runtime stage runs the server under tini; a docs stage built on the
# same install comes after it, its CMD a shell that builds the docs.
DOCKERFILE = """\
FROM python:3.12-slim AS install
WORKDIR /srv
COPY pyproject.toml .
COPY src/ src/
RUN pip install .

FROM install AS runtime
RUN apt-get update && apt-get install -y tini
ENTRYPOINT ["/usr/bin/tini", "--", "python", "-m", "ledger.server"]

FROM runtime AS test
RUN pip install pytest

FROM install AS docs
COPY docs/ docs/
CMD bash -c "cd docs && make html"
"""
SERVER = """\
from http.server import HTTPServer, BaseHTTPRequestHandler

HTTPServer(("", 8080), BaseHTTPRequestHandler).serve_forever()
"""


def skaffold(target: str | None) -> str:
    docker = f"        target: {target}\n" if target is not None else ""
    return (
        "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
        "      docker:\n        dockerfile: Dockerfile\n" + docker
    )


def files(build: dict[str, str]) -> dict[str, str]:
    return {
        "manifest.yaml": web_deployment(),
        "Dockerfile": DOCKERFILE,
        "pyproject.toml": '[project]\nname = "ledger"\nversion = "1"\n',
        "src/ledger/__init__.py": "",
        "src/ledger/server.py": SERVER,
        **build,
    }


def klb406(tmp_path: Path, tree: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, tree, ["KLB406"]).findings


def on_docs_stage(findings: list[Finding]) -> bool:
    return any(f.path.endswith("Dockerfile") and f.line == 16 for f in findings)


WORKFLOW = """\
on: push
jobs:
  image:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: docker buildx build --push --target {target} -t registry.example/web:latest .
"""
ACTION = """\
on: push
jobs:
  image:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: docker/build-push-action@v6
        with:
          context: .
          target: {target}
          tags: registry.example/web:latest
"""
COMPOSE = """\
services:
  web:
    image: registry.example/web
    build:
      context: .
      target: {target}
"""
TILTFILE = (
    "docker_build('registry.example/web', '.', target='{target}')\nk8s_yaml('manifest.yaml')\n"
)


def test_without_a_target_the_last_stage_is_the_image(tmp_path: Path) -> None:
    assert on_docs_stage(klb406(tmp_path, files({"skaffold.yaml": skaffold(None)})))


@pytest.mark.parametrize(
    "build",
    [
        {"skaffold.yaml": skaffold("runtime")},
        {".github/workflows/image.yml": WORKFLOW.format(target="runtime")},
        {".github/workflows/image.yml": ACTION.format(target="runtime")},
        {"docker-compose.yml": COMPOSE.format(target="runtime")},
        {"Tiltfile": TILTFILE.format(target="runtime")},
        # a test build of a stage FROM the runtime that runs what it runs: the same image's
        {
            "skaffold.yaml": skaffold("runtime"),
            "build.sh": "docker build --target test -t registry.example/web .\n",
        },
    ],
)
def test_the_stage_the_builds_target_is_the_image(tmp_path: Path, build: dict[str, str]) -> None:
    assert not klb406(tmp_path, files(build))  # tini runs the server: nothing to say


def test_builds_that_target_stages_running_different_commands_keep_the_last(
    tmp_path: Path,
) -> None:
    build = {
        "skaffold.yaml": skaffold("runtime"),
        "build.sh": "docker build --target docs -t registry.example/web .\n",
    }
    assert on_docs_stage(klb406(tmp_path, files(build)))


def test_a_targeted_stage_is_read_as_the_text_up_to_the_next_stage() -> None:
    read = parse_dockerfile("Dockerfile", DOCKERFILE)
    assert read.stage == "docs" and read.cmd is not None
    runtime = read.targeted("Runtime")
    assert runtime is not None and runtime.cmd is None
    assert runtime.entrypoint == ("/usr/bin/tini", "--", "python", "-m", "ledger.server")
    assert read.targeted("test") is not None and read.targeted("nothing") is None
