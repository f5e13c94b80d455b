"""KLB406 and which shell `/bin/sh` is, as the distribution of the image's base says:
BusyBox ash (Alpine) runs the last command of `sh -c` in its own place, bash (the Red Hat
family, Amazon Linux) a lone command, Debian's dash none."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.model.shells import ASH, BASH, DASH, dockerfile_sh, image_sh
from k8slb.reading.build_files import parse_dockerfile
from k8slb.rulekit.examples import web_deployment
from k8slb.rules.sigterm_never_reaches_server import pid1

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
# A Go server: Go's runtime exits on SIGTERM, PID 1 or not, once the signal reaches it.
SERVER = """\
package main

import "net/http"

func main() {
\thttp.ListenAndServe(":8080", nil)
}
"""


def klb406(tmp_path: Path, dockerfile: str) -> list[Finding]:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": dockerfile,
        "main.go": SERVER,
    }
    return lint_files(tmp_path, files, ["KLB406"]).findings


@pytest.mark.parametrize(
    ("image", "shell"),
    [
        ("alpine:3.8", ASH),
        ("eclipse-temurin:17-jre-alpine", ASH),
        ("golang:1.22-alpine3.19", ASH),
        ("busybox", ASH),
        ("centos:7", BASH),
        ("quay.io/centos/centos:stream9", BASH),
        ("amazonlinux:2023", BASH),
        ("registry.example/base:1-ubi9", BASH),
        ("debian:bookworm-slim", DASH),
        ("ubuntu:22.04", DASH),
        ("python:3.12-slim-bookworm", DASH),
        ("eclipse-temurin:21-jre-noble", DASH),
        # Debian's trimmed images, and the language images built on them
        ("python:3.12-slim", DASH),
        ("openjdk:11-jre-slim", DASH),
        ("oraclelinux:9-slim", BASH),  # a distribution named beside `slim` comes first
        # no distribution named, or two: unknown
        ("node:20", None),
        ("registry.example/slim:1", None),  # a repository's name is no tag word
        ("registry.example/acme/base:1.4", None),
        ("registry.example/alpine:bookworm", None),
        ("${BASE}", None),
    ],
)
def test_the_shell_is_read_from_the_distribution_an_image_names(
    image: str, shell: str | None
) -> None:
    assert image_sh(image) == shell


def test_the_shell_is_read_through_the_stages_and_arg_defaults_of_a_dockerfile() -> None:
    staged = "FROM alpine:3.19 AS run\nRUN apk add curl\nFROM golang:1.22 AS build\nFROM run\n"
    assert dockerfile_sh(parse_dockerfile("Dockerfile", staged)) == ASH
    argued = "ARG BASE=centos:7\nFROM ${BASE}\nCMD /server\n"
    assert dockerfile_sh(parse_dockerfile("Dockerfile", argued)) == BASH
    unset = "ARG BASE\nFROM ${BASE}\nCMD /server\n"
    assert dockerfile_sh(parse_dockerfile("Dockerfile", unset)) is None


@pytest.mark.parametrize(
    ("dockerfile", "shell"),
    [
        ("FROM node:18\nRUN apt-get update && apt-get install -y curl\n", DASH),
        ("FROM node:18\nRUN set -eux; \\\n  dpkg -i /tmp/tool.deb\n", DASH),
        ('FROM registry.example/base:1\nRUN ["apk", "add", "curl"]\n', ASH),
        ("FROM registry.example/base:1\nRUN microdnf install -y shadow-utils\n", BASH),
        ("FROM registry.example/base:1\nRUN sudo yum install -y curl\n", BASH),
        # the stage the last is built FROM ran it
        ("FROM node:18 AS base\nRUN apt-get update\nFROM base\nCOPY . .\n", DASH),
        # the name comes first: Alpine whatever a line says
        ("FROM alpine:3.19\nRUN apt-get update || apk add curl\n", ASH),
        # `slim` yields to what the stage runs
        ("FROM registry.example/jre:17-slim\nRUN microdnf install -y curl\n", BASH),
        # only the last stage's lines (and its bases') count
        ("FROM debian AS build\nRUN apt-get update\nFROM node:18\nCOPY --from=build / /\n", None),
        ("FROM node:18\nRUN echo apt-get install is not run here\n", None),
        ("FROM registry.example/base:1\nRUN apt-get update || apk update\n", None),
    ],
)
def test_the_package_manager_the_last_stage_runs_says_the_distribution_its_base_does_not(
    dockerfile: str, shell: str | None
) -> None:
    assert dockerfile_sh(parse_dockerfile("Dockerfile", dockerfile)) == shell


def test_busybox_ash_hands_pid1_to_the_last_command_and_dash_to_none() -> None:
    script = ["sh", "-c", "cd /app && node server.js"]
    handed = pid1(script, ASH)
    assert handed is not None and (handed.kind, handed.program) == ("runtime", "node")
    kept = pid1(script, DASH)
    assert kept is not None and kept.kind == "shell" and kept.severity is None
    unknown = pid1(script)
    assert unknown is not None and unknown.severity is Severity.INFO
    # a pipeline or a background job keeps any shell PID 1
    piped = pid1(["sh", "-c", "node server.js | tee log"], ASH)
    assert piped is not None and piped.kind == "shell" and piped.severity is None


def test_a_shell_form_line_on_an_alpine_base_hands_pid1_over(tmp_path: Path) -> None:
    dockerfile = "FROM golang:1.22-alpine\nCOPY . .\nRUN go build -o /server .\n"
    dockerfile += "CMD /server --port 8080\n"
    assert klb406(tmp_path, dockerfile) == []


def test_a_lone_command_on_a_bash_distribution_is_handed_over(tmp_path: Path) -> None:
    assert klb406(tmp_path, "FROM centos:7\nCOPY server /server\nCMD /server $PARAMS\n") == []


def test_several_commands_on_a_bash_distribution_stay_info_saying_why(tmp_path: Path) -> None:
    dockerfile = "FROM centos:7\nCOPY server /server\nCMD cd / && /server $PARAMS\n"
    (finding,) = klb406(tmp_path, dockerfile)
    assert finding.severity is Severity.INFO and "may not reach" in finding.text
    assert "/bin/sh is bash in the image's distribution" in finding.text


def test_a_shell_form_line_on_a_debian_base_keeps_dash_pid1(tmp_path: Path) -> None:
    dockerfile = "FROM debian:bookworm-slim\nCOPY server /server\nCMD /server --port 8080\n"
    (finding,) = klb406(tmp_path, dockerfile)
    assert finding.severity is Severity.WARNING and "never reaches" in finding.text
    assert "/bin/sh is dash" in finding.text
    assert finding.fix.description == 'write CMD ["/server", "--port", "8080"]'


@pytest.mark.parametrize(
    "base",
    ["FROM python:3.12-slim\n", "FROM node:18\nRUN apt-get update && apt-get install -y curl\n"],
    ids=["slim-tag", "apt-get"],
)
def test_a_lone_command_of_sh_c_on_a_debian_base_is_a_certain_warning(
    tmp_path: Path, base: str
) -> None:
    dockerfile = base + 'COPY server /server\nCMD ["sh", "-c", "/server --port 8080"]\n'
    (finding,) = klb406(tmp_path, dockerfile)
    assert finding.severity is Severity.WARNING and "never reaches" in finding.text
    assert "/bin/sh is dash" in finding.text


def test_a_base_that_names_no_distribution_keeps_the_hedge(tmp_path: Path) -> None:
    dockerfile = "FROM registry.example/base:1\nCOPY server /server\nCMD /server --port 8080\n"
    (finding,) = klb406(tmp_path, dockerfile)
    assert finding.severity is Severity.INFO and "depends on which shell it is" in finding.text


def test_a_manifest_shell_is_judged_by_the_containers_image_without_a_dockerfile(
    tmp_path: Path,
) -> None:
    manifest = web_deployment("command: [sh, -c, 'cd /app && ./server']").replace(
        "registry.example/web:1.0", "alpine:3.19"
    )
    assert lint_files(tmp_path, {"manifest.yaml": manifest}, ["KLB406"]).findings == []


def test_a_dash_script_of_uv_runs_keeps_sigterm_from_the_last(tmp_path: Path) -> None:
    """`uv run` runs its command as a child and passes SIGTERM on (since November 2024), but
    the shell in front of it, PID 1, never gets it to uv: the shell is what is reported,
    a chain of `&&` or one command alike."""
    for script in ("uv run migrate up && uv run python ./main.py", "uv run python ./main.py"):
        found = pid1(["sh", "-c", script], DASH)
        assert found is not None and found.kind == "shell"
        assert found.last == ("uv", "run", "python", "./main.py")
        dockerfile = f'FROM python:3.12-slim\nCOPY . /app\nCMD ["sh", "-c", "{script}"]\n'
        (finding,) = klb406(tmp_path / str(len(script)), dockerfile)
        assert finding.severity is Severity.WARNING and "sh -c is PID 1" in finding.text
