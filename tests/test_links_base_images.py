"""An image built FROM an image the repository builds itself, or one that copies its program
`--from` such an image (a stage begun FROM it), and copies nothing of its own context: the
code it runs is the base build's program, followed into that build (the one folder its
stages copy, a Dockerfile kept apart from a context at the repository's top), never the
whole repository its own build names as context."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import Copy, parse_dockerfile

from tests.test_links import links, workload

RUNNER_DOCKERFILE = """\
FROM debian:bookworm AS compile
RUN apt-get update && apt-get install -y clang make
WORKDIR /work
COPY native/worker/src/ ./src/
RUN clang++ -O2 src/worker.cc -o taskd

FROM debian:bookworm-slim
RUN useradd -r runner
COPY --from=compile /work/taskd /opt/bin/taskd
ENV PATH=/opt/bin:$PATH
CMD ["taskd", "--listen", ":9000"]
"""

# a variant that adds a language's tools to the runner image and runs it as it is
PYTHON_VARIANT = """\
FROM acme-runner:latest
USER root
RUN apt-get update && apt-get install -y python3
USER runner
"""

# a variant on another base that takes only the runner's program from it
SLIM_VARIANT = """\
FROM acme-runner:latest AS runner

FROM node:20-slim
COPY --from=runner /opt/bin/taskd /usr/local/bin/taskd
CMD ["taskd"]
"""

BUILD_SCRIPT = """\
#!/bin/sh
set -e
docker build -t acme-runner:latest -f images/runner.Dockerfile .
docker build -t acme/python-runner:dev -f images/python.Dockerfile .
docker build -t acme/slim-runner:dev -f images/slim.Dockerfile .
"""


def tree(**extra: str) -> dict[str, str]:
    files = {
        "images/runner.Dockerfile": RUNNER_DOCKERFILE,
        "images/python.Dockerfile": PYTHON_VARIANT,
        "images/slim.Dockerfile": SLIM_VARIANT,
        "scripts/build-images.sh": BUILD_SCRIPT,
        "native/worker/src/worker.cc": "int main() { return 0; }\n",
        # other code of the repository: its top is no one program's folder
        "api/app.py": "import grpc\n\ndef serve():\n    pass\n",
        "api/Dockerfile": 'FROM python:3.12\nCOPY . /app\nCMD ["python", "/app/app.py"]\n',
    }
    files.update(extra)
    return files


def by_name(rows: list[dict[str, object]]) -> dict[str, object]:
    return {str(row["container"]).split("/")[-1].split(":")[0]: row["code"] for row in rows}


def test_a_copy_from_a_stage_begun_from_an_image_is_read_as_that_image_s() -> None:
    dockerfile = parse_dockerfile("images/slim.Dockerfile", SLIM_VARIANT)
    assert dockerfile.base == "node:20-slim"
    assert dockerfile.image_copies == (
        ("acme-runner:latest", Copy("/opt/bin/taskd", "/usr/local/bin/taskd")),
    )
    direct = parse_dockerfile(
        "d", 'FROM alpine\nCOPY --from=acme/tool:1 /bin/tool /bin/\nCMD ["tool"]\n'
    )
    assert direct.image_copies == (("acme/tool:1", Copy("/bin/tool", "/bin/tool")),)


def test_an_image_built_from_the_repository_s_base_image_runs_the_base_s_program(
    tmp_path: Path,
) -> None:
    files = tree(
        **{
            "deploy/python.yaml": workload("python-runner", "acme/python-runner:dev"),
            "deploy/slim.yaml": workload("slim-runner", "acme/slim-runner:dev"),
        }
    )
    found = by_name(links(tmp_path, files))
    worker = os.path.join("native", "worker", "src")
    assert found == {"python-runner": worker, "slim-runner": worker}


def test_a_file_copied_from_the_base_that_is_not_its_program_links_nothing(
    tmp_path: Path,
) -> None:
    other = SLIM_VARIANT.replace("/opt/bin/taskd /usr/local/bin/taskd", "/bin/bash /bin/")
    other = other.replace('CMD ["taskd"]', 'CMD ["bash"]')
    files = tree(
        **{
            "images/slim.Dockerfile": other,
            "deploy/slim.yaml": workload("slim-runner", "acme/slim-runner:dev"),
        }
    )
    assert by_name(links(tmp_path, files)) == {"slim-runner": None}


def test_a_base_built_by_two_dockerfiles_links_nothing_not_the_top(tmp_path: Path) -> None:
    script = BUILD_SCRIPT + "docker build -t acme-runner:latest -f images/other.Dockerfile .\n"
    files = tree(
        **{
            "scripts/build-images.sh": script,
            "images/other.Dockerfile": RUNNER_DOCKERFILE.replace("native/worker", "api"),
            "deploy/python.yaml": workload("python-runner", "acme/python-runner:dev"),
        }
    )
    assert by_name(links(tmp_path, files)) == {"python-runner": None}


def test_a_base_that_copies_its_whole_context_links_nothing(tmp_path: Path) -> None:
    whole = RUNNER_DOCKERFILE.replace("COPY native/worker/src/ ./src/", "COPY . ./")
    files = tree(
        **{
            "images/runner.Dockerfile": whole,
            "deploy/slim.yaml": workload("slim-runner", "acme/slim-runner:dev"),
        }
    )
    assert by_name(links(tmp_path, files)) == {"slim-runner": None}
