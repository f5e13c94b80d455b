"""Go binaries a Tiltfile builds on the host (a `local_resource`'s `cmd=`, a `custom_build`'s
command) and images whose Dockerfile only copies such a binary: the link is the package the
build compiles, and, when no build read makes the binary, no code (never the build
context's top, nor a library folder the Dockerfile copies beside the binary)."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import tilt_go_builds

from tests.test_links import links, only, workload

# Each service's image copies the library folder its binary reads at run time, its SQL,
# and the binary the Tiltfile compiled on the host.
COPIES_BINARY = (
    "FROM alpine:3.20\nWORKDIR /srv\nCOPY lib /srv/lib\nCOPY apps/{name}/sql /srv/sql\n"
    'COPY out/{name} /srv/out/{name}\nCMD ["/srv/out/{name}"]\n'
)


def _parcels(tiltfile: str) -> dict[str, str]:
    files = {"go.mod": "module example.com/parcels\n\ngo 1.23\n", "Tiltfile": tiltfile}
    for name in ("tracker", "billing"):
        files[f"deploy/docker/{name}.Dockerfile"] = COPIES_BINARY.format(name=name)
        files[f"apps/{name}/cmd/main.go"] = (
            f'package main\n\nimport "example.com/parcels/apps/{name}"\n\n'
            f"func main() {{ {name}.Run() }}\n"
        )
        files[f"apps/{name}/run.go"] = f"package {name}\n\nfunc Run() {{}}\n"
        files[f"apps/{name}/sql/embed.go"] = "package sql\n"
    files["lib/queue/queue.go"] = "package queue\n"
    files["k8s/tracker.yaml"] = workload(name="tracker", image="parcels/tracker")
    return files


def _image(name: str) -> str:
    return (
        f"docker_build('parcels/{name}', '.', dockerfile='deploy/docker/{name}.Dockerfile',\n"
        f"  only=['./out/{name}', './lib', './apps/{name}/sql'])\n"
    )


def test_a_local_resource_s_cmd_keyword_builds_the_binary_the_image_copies(
    tmp_path: Path,
) -> None:
    """`cmd='CGO_ENABLED=0 go build ...'` (Tilt's keyword, no space around `=`, quoted
    flags inside): the container runs the package built, not the library folder the
    Dockerfile also copies."""
    tiltfile = ""
    for name in ("tracker", "billing"):
        tiltfile += (
            f"local_resource('{name}-bin',\n"
            f'  cmd=\'CGO_ENABLED=0 GOOS=linux go build -ldflags "-s -w" -o out/{name} '
            f"./apps/{name}/cmd',\n  deps=['apps/{name}', 'lib'])\n" + _image(name)
        )
    row = only(links(tmp_path, _parcels(tiltfile)))
    assert row["code"] == os.path.join("apps", "tracker", "cmd")
    assert row["modules"] == 2  # its package and the service's package it imports
    assert any("go build -ldflags" in e and "out/tracker" in e for e in row["evidence"])


def test_an_image_whose_host_built_binary_no_build_makes_links_no_code(tmp_path: Path) -> None:
    """The binary is built by hand (no build of it is in the tree): the image's code is not
    known, and neither the context's top (every service) nor the library folder it
    copies is linked; the reason names the binary."""
    tiltfile = _image("tracker") + _image("billing")
    row = only(links(tmp_path, _parcels(tiltfile)))
    assert row["code"] is None
    assert "out/tracker" in row["why_not"] and "no build read makes" in row["why_not"]


def test_an_image_copying_only_a_library_beside_an_untraced_binary_links_no_code(
    tmp_path: Path,
) -> None:
    """The Dockerfile copies one folder of code (a library, no program) beside the binary:
    it is not what the container runs."""
    files = _parcels(_image("tracker"))
    files["deploy/docker/tracker.Dockerfile"] = (
        'FROM alpine:3.20\nCOPY lib /lib\nCOPY out/tracker /tracker\nENTRYPOINT ["/tracker"]\n'
    )
    row = only(links(tmp_path, files))
    assert row["code"] is None


def test_tilt_s_command_strings_are_read_as_shell_commands_from_the_tiltfile_s_folder() -> None:
    text = (
        "# local_resource('old', cmd='go build -o out/old ./apps/old')\n"
        "local_resource('a', cmd=\"cd apps/a && go build -o ../../out/a ./cmd\")\n"
        "custom_build('parcels/b', 'go build -o out/b ./apps/b/cmd && "
        "docker build -t $EXPECTED_REF .', deps=['apps/b'])\n"
        "script = '''\nset -e\nGOOS=linux go install ./tools/c\n'''\n"
        "d = 'go build -o out/%s ./apps/%s/cmd' % (n, n)\n"
        "local_resource('e', cmd='docker compose up', serve_cmd='go run ./apps/e')\n"
    )
    builds = tilt_go_builds(os.path.join("dev", "Tiltfile"), text)
    found = [(b.package, b.output, b.said.line) for b in builds]
    assert found == [
        (os.path.join("dev", "apps", "a", "cmd"), "../../out/a", 2),
        (os.path.join("dev", "apps", "b", "cmd"), "out/b", 3),
        (os.path.join("dev", "tools", "c"), None, 6),
        (os.path.join("dev", "apps", "%s", "cmd"), "out/%s", 8),
    ]
