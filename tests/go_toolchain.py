"""The Go toolchain for the tests that build what k8slb writes: gofmt, and `go vet`/`go build`
in GOPATH mode against Debian's grpc-go sources (packages golang-go and
golang-google-grpc-dev, which `.ci/run` installs). Nothing is downloaded.

Where Go is missing the tests skip, with the reason; CI sets K8SLB_REQUIRE_GO, and there a
missing toolchain fails instead, so the proof cannot quietly stop running.

Debian ships grpc-go 1.33. Code written for newer releases calls `grpc.NewClient` (1.63)
and `insecure.NewCredentials` (1.34): the test GOPATH adds both to a view of the Debian
package from go_stubs/ (NewClient over `grpc.Dial`, with the same signature; plaintext
credentials as 1.34 has them), so such code is still compiled, and runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DEBIAN_GOPATH = Path("/usr/share/gocode")
GRPC = "google.golang.org/grpc"
STUBS = Path(__file__).parent / "go_stubs"


def require(tool: str) -> str:
    """The tool's path; a skip where Go is not installed, a failure where CI needs it."""
    found = shutil.which(tool)
    grpc = DEBIAN_GOPATH / "src" / GRPC
    if found is not None and (tool == "gofmt" or grpc.is_dir()):
        return found
    reason = f"no {tool} on PATH" if found is None else f"no grpc-go sources in {grpc}"
    reason += " (apt-get install golang-go golang-google-grpc-dev)"
    if os.environ.get("K8SLB_REQUIRE_GO"):
        pytest.fail(f"K8SLB_REQUIRE_GO is set, but {reason}")
    pytest.skip(reason)


def unformatted(paths: list[Path]) -> list[str]:
    """The files `gofmt -l` lists: those gofmt would change."""
    gofmt = require("gofmt")
    done = subprocess.run(
        [gofmt, "-l", *map(str, paths)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def formatted(source: str) -> str:
    """The source as gofmt writes it."""
    gofmt = require("gofmt")
    done = subprocess.run([gofmt], input=source, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def stays_formatted(before: str, after: str) -> bool:
    """Where Go is installed: an edit of code gofmt would leave alone leaves code gofmt would
    leave alone. (Where it is not, True: the tests that need Go say so themselves.)"""
    if shutil.which("gofmt") is None and not os.environ.get("K8SLB_REQUIRE_GO"):
        return True
    return formatted(before) != before or formatted(after) == after


def go_format(paths: list[Path]) -> None:
    """Rewrite the files as gofmt writes them."""
    gofmt = require("gofmt")
    done = subprocess.run(
        [gofmt, "-w", *map(str, paths)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def gopath(root: Path) -> Path:
    """A GOPATH whose grpc is Debian's with the stubs of go_stubs/ laid over it; Debian's
    GOPATH supplies the rest."""
    if not (root / "src" / GRPC).exists():
        _overlay(STUBS, DEBIAN_GOPATH / "src", root / "src")
    return root


def _overlay(stubs: Path, debian: Path, view: Path) -> None:
    """`view` holds each stub file, and a link to each Debian entry no stub replaces; a
    folder both have is overlaid in turn."""
    view.mkdir(parents=True, exist_ok=True)
    for stub in stubs.iterdir():
        if stub.is_dir():
            _overlay(stub, debian / stub.name, view / stub.name)
        else:
            (view / stub.name).symlink_to(stub)
    if debian.is_dir():
        for entry in debian.iterdir():
            if not (view / entry.name).exists():
                (view / entry.name).symlink_to(entry)


def go(root: Path, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `go` in GOPATH mode on the test's GOPATH (`root`)."""
    binary = require("go")
    environment = {
        **os.environ,
        "GOPATH": f"{gopath(root)}:{DEBIAN_GOPATH}",
        "GO111MODULE": "off",
        "GOFLAGS": "",
        "CGO_ENABLED": "0",
    }
    return subprocess.run(
        [binary, *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def vet(root: Path, package: str, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`go vet` on a package made of `files`, at src/<package> of the test GOPATH."""
    folder = gopath(root) / "src" / package
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return go(root, "vet", ".", cwd=folder)
