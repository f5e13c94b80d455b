"""A Tiltfile's `entrypoint=`: the command Tilt sets over the Dockerfile's and the manifest's,
which the link follows and KLB406 judges (not the Dockerfile's line Tilt replaces)."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.core.findings import Finding
from k8slb.reading.build_files import tiltfile_builds
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files
from .test_links import links, only, workload

# Each service's Dockerfile only ADDs the binaries Tilt compiled; the driver's ENTRYPOINT
# was copied from the trip service's and names its binary.
COPIED_ENTRYPOINT = "FROM alpine\nWORKDIR /app\nADD build build\nENTRYPOINT build/trip\n"


def _rides(call: str = "docker_build_with_restart") -> dict[str, str]:
    tiltfile = ""
    files = {"go.mod": "module example.com/rides\n\ngo 1.23\n"}
    for name in ("trip", "driver"):
        tiltfile += (
            f"local_resource('{name}-compile', 'go build -o build/{name} "
            f"./services/{name}/cmd/main.go')\n"
            f"{call}('rides/{name}', '.', entrypoint=['/app/build/{name}'],\n"
            f"  dockerfile='./infra/docker/{name}.Dockerfile', only=['./build/{name}'])\n"
        )
        files[f"infra/docker/{name}.Dockerfile"] = COPIED_ENTRYPOINT
        files[f"services/{name}/cmd/main.go"] = "package main\n\nfunc main() {}\n"
    files["Tiltfile"] = tiltfile
    return files


def test_tilt_s_entrypoint_is_read_as_the_words_it_runs_and_the_wrapper_around_them() -> None:
    text = (
        "docker_build('a', '.', entrypoint='node server.js')\n"
        "docker_build_with_restart('b', '.', ['/go/bin/b'], live_update=[])\n"
        "docker_build('c', '.', 'Dockerfile.c')\n"
        "docker_build('d', '.', entrypoint=[NAME])\n"
        "docker_build('e', '.', {}, 'Dockerfile.e', entrypoint=['/e'])\n"
    )
    builds = {b.image: (b.entrypoint, b.wrapper) for b in tiltfile_builds("Tiltfile", text)}
    assert builds["a"] == (("sh", "-c", "node server.js"), ())
    assert builds["b"][0] == ("/go/bin/b",)
    assert builds["b"][1][0] == "/tilt-restart-wrapper"
    assert builds["c"] == (None, ())  # docker_build's third argument is its Dockerfile
    assert builds["d"] == (None, ())  # not literal
    assert builds["e"] == (("/e",), ())


def test_the_link_follows_tilt_s_entrypoint_over_a_copied_dockerfile_entrypoint(
    tmp_path: Path,
) -> None:
    """The driver's Dockerfile names the trip binary (copied), but Tilt runs
    /app/build/driver: the container runs the driver's package, as its image name says."""
    files = {**_rides(), "k8s/driver.yaml": workload(name="driver", image="rides/driver")}
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "driver", "cmd")
    assert row["overruled"] == []


def _klb406(tmp_path: Path, call: str, entrypoint: str) -> list[Finding]:
    tiltfile = f"{call}('registry.example/web', '.', entrypoint={entrypoint})\n"
    files = {
        "manifest.yaml": web_deployment(),
        "Tiltfile": tiltfile,
        "Dockerfile": "FROM debian:12\nWORKDIR /app\nCOPY . /app\nENTRYPOINT python app.py\n",
        "app.py": "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n",
    }
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_a_dockerfile_entrypoint_tilt_replaces_under_its_exec_form_wrapper_is_not_judged(
    tmp_path: Path,
) -> None:
    """docker_build_with_restart makes its exec-form wrapper PID 1 (the Dockerfile's
    shell-form line never runs), and a Tilt list entrypoint is exec form."""
    assert _klb406(tmp_path, "docker_build_with_restart", "['python', 'app.py']") == []
    assert _klb406(tmp_path / "b", "docker_build", "['python', 'app.py']") == []


def test_a_shell_entrypoint_tilt_sets_is_judged_at_the_tiltfile_s_line_with_no_fix(
    tmp_path: Path,
) -> None:
    (finding,) = _klb406(tmp_path, "docker_build", "'python app.py'")
    assert finding.path.endswith("Tiltfile") and finding.line == 1
    assert finding.edits == ()
