"""A release script's `docker build`s written as scripts write them: the script moves to the
repository's top through the absolute path of its own folder (`HERE=$(cd "$(dirname
"$0")"; pwd)`, `cd "$(cd "$(dirname "$0")/.." && pwd)"`), and runs `docker ${BUILDX}
build ${PLATFORM} -t IMAGE:${tag} DIR/` with a variable that is `buildx` or nothing
between `docker` and `build`. Each image is built from its DIR, from the top; a build so
found beats a folder named as the image elsewhere."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import script_builds

from tests.test_links import DOCKERFILE, links, service_app, workload

RELEASE = """\
#!/usr/bin/env bash
BUILDX=""
PLATFORM=""
if [ "$1" = "--buildx" ]; then
  BUILDX="buildx"
  PLATFORM="--platform linux/arm64"
fi
HERE=$(cd "$(dirname "$0")";pwd)
cd ${HERE}
cd ..
version=$(cat VERSION)
tag=${version}-amd64

docker ${BUILDX} build ${PLATFORM} -t acme/console:${tag}  console/image/  --build-arg V=${version}
docker $BUILDX build -t acme/relay:${tag} relay/
"""


def test_a_script_at_its_top_through_its_own_folder_s_path_builds_from_there() -> None:
    builds = script_builds("release/images.sh", RELEASE)
    assert [(b.image, b.context) for b in builds] == [
        ("acme/console", "console/image"),
        ("acme/relay", "relay"),
    ]


def test_cd_to_the_path_of_the_folder_above_the_script() -> None:
    text = (
        'TOP="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"\n'
        'cd "$TOP"\n'
        "docker build -t acme/relay:dev relay\n"
        "cd $(cd relay && pwd)\n"
        "docker build -t acme/relay-tools:dev tools\n"
    )
    builds = script_builds("hack/build/images.sh", text)
    assert [(b.image, b.context) for b in builds] == [
        ("acme/relay", "hack/relay"),
        ("acme/relay-tools", "hack/relay/tools"),
    ]


def test_a_variable_word_not_between_docker_and_build_is_no_build() -> None:
    text = "docker ${COMMAND} -t acme/relay:dev relay\ndocker $A $B build -t acme/x:1 x\n"
    assert script_builds("images.sh", text) == []


def test_the_script_s_build_beats_a_folder_named_as_the_image(tmp_path: Path) -> None:
    """`acme/console`: a `queue/console/` with its own Dockerfile is named as it is, but
    the script builds the image from `console/image/`, whose Dockerfile copies the
    console's code."""
    files = {
        "release/images.sh": RELEASE,
        **service_app("console/image"),
        "console/image/Dockerfile": DOCKERFILE,
        **service_app("queue/console"),
        "queue/console/Dockerfile": DOCKERFILE,
        **service_app("relay"),
        "relay/Dockerfile": DOCKERFILE,
        "deploy/console.yaml": workload("console", "acme/console:latest"),
        "deploy/relay.yaml": workload("relay", "acme/relay:latest"),
    }
    rows = {r["container"].split("/")[2].split(":")[0]: r for r in links(tmp_path, files)}
    assert rows["console"]["code"] == "console/image/server.py"
    assert rows["console"]["evidence"][0].startswith("script: release/images.sh:14: docker ")
    assert rows["relay"]["code"] == "relay/server.py"
