"""Which shell `/bin/sh` is in an image, as the distribution of the image it is built FROM
says. It decides whether `sh -c "server ..."` leaves the shell as PID 1 (sigterm-never-
reaches-server):

- Debian and Ubuntu link `/bin/sh` to dash, which Debian builds with the `-c` optimisation
  turned off (its patch runs `evalstring(minusc, 0)` where upstream dash passes
  `EV_EXIT`): every command of the script, a lone one too, is forked, and dash stays PID 1
  (dash 0.5.12 of Debian 12, checked: `dash -c 'sleep 9'` leaves sleep a child of dash);
- Alpine's (and BusyBox's own images') `/bin/sh` is BusyBox ash, whose `ash_main` runs the
  script with `evalstring(minusc, EV_EXIT)`: the last command of the script, run in the
  foreground, replaces the shell;
- the Red Hat family (CentOS, RHEL and its UBI images, Fedora, Rocky, Alma, Oracle Linux)
  and Amazon Linux link `/bin/sh` to bash, which runs a lone command in its own place (the
  last of several only from bash 5.1 on).

A distribution is read, strongest first, from:

- the image's repository name or a word of its tag that names one or its release
  (`openjdk:17-alpine`, `python:3.12-bookworm`, `eclipse-temurin:21-jammy`);
- the package manager the Dockerfile's last stage runs (through the stages it is built
  FROM): `apt-get`, `apt` or `dpkg` exist only on Debian and its derivatives, `apk` on
  Alpine, `yum`, `dnf`, `microdnf`, `tdnf` or `zypper` on the RPM distributions, whose
  `/bin/sh` is bash (SUSE's too); a RUN line that calls it must have run for the image
  to be built;
- a `slim` tag word: Debian's name for its trimmed images (`debian:bookworm-slim`), which
  the images built on them keep (`python:3.12-slim`, `node:20-slim`); a distribution named
  beside it (`oraclelinux:9-slim`) comes first.

Never from a product's defaults: an image that says none of these leaves the shell
unknown (an official image's version-only tag is Debian for most languages' images, but
not for all: `openjdk:17` is Oracle Linux, `amazoncorretto` Amazon Linux)."""

from __future__ import annotations

from k8slb.core import regex
from k8slb.model.runtimes import base_image
from k8slb.reading.build_files import Dockerfile, image_repository

ASH = "ash"  # BusyBox's
DASH = "dash"  # Debian's, which forks even a lone command
BASH = "bash"

# Distribution names, and the release code names that stand for them in tags.
_FAMILIES: tuple[tuple[regex.Pattern[str], str], ...] = (
    (regex.compile(r"^(?:alpine|busybox)(?:\d[\d.]*)?$"), ASH),
    (
        regex.compile(
            r"^(?:debian|ubuntu|wheezy|jessie|stretch|buster|bullseye|bookworm|trixie|sid"
            r"|trusty|xenial|bionic|focal|jammy|kinetic|lunar|mantic|noble|oracular|plucky)$"
        ),
        DASH,
    ),
    (
        regex.compile(
            r"^(?:centos(?:\d+)?|centos-stream\d*|rhel\d*|ubi\d*(?:-minimal)?|fedora"
            r"|rockylinux|almalinux|oraclelinux|amazonlinux|al20\d\d|al2)$"
        ),
        BASH,
    ),
)
_TAG_WORD = regex.compile(r"[-_]")
# Images whose maker documents the distribution a tag naming none is built on: Eclipse
# Temurin's (`eclipse-temurin:21-jdk`, and the official images built on it that carry
# `temurin` in their tags, `tomcat:10-jdk17-temurin`, `maven:3-eclipse-temurin-21`) are
# Ubuntu unless the tag names another (`-alpine`, `-ubi9-minimal`; Windows' `nanoserver`
# and `windowsservercore` have no /bin/sh): adoptium.net/installation/containers, "the
# base OS variant (optional: defaults to latest Ubuntu)".
_NO_SH = frozenset({"nanoserver", "windowsservercore"})


def _ubuntu_default(name: str, tag_words: list[str], official: bool) -> bool:
    """Whether an image is Temurin's, or an official image's Temurin variant, whose
    distribution is Ubuntu when its tag names none."""
    return name == "eclipse-temurin" or (official and "temurin" in tag_words)


# Each distribution family's package managers (Dockerfile.installers).
_INSTALLERS = {
    "apt-get": DASH,
    "apt": DASH,
    "aptitude": DASH,
    "dpkg": DASH,
    "apk": ASH,
    "yum": BASH,
    "dnf": BASH,
    "microdnf": BASH,
    "tdnf": BASH,
    "zypper": BASH,
}


def _one(found: set[str]) -> str | None:
    return next(iter(found)) if len(found) == 1 else None


def _named_sh(image: object) -> tuple[str | None, bool]:
    """The shell the image's name or tag words name a distribution of (None when none, or
    two), and whether a tag word is `slim`."""
    if not isinstance(image, str) or "$" in image:
        return None, False
    repository = image_repository(image)
    name = repository.rsplit("/", 1)[-1]
    tag = image.split("@", 1)[0].rsplit("/", 1)[-1].partition(":")[2].lower()
    words = [name, *(w for w in _TAG_WORD.split(tag) if w)]
    found = {shell for word in words for pattern, shell in _FAMILIES if pattern.match(word)}
    official = repository.removeprefix("library/").count("/") == 0
    if not found and not _NO_SH & set(words) and _ubuntu_default(name, words[1:], official):
        found = {DASH}
    return _one(found), "slim" in words[1:]


def image_sh(image: object) -> str | None:
    """What `/bin/sh` is in an image, as its repository name or a word of its tag says the
    distribution (ASH, DASH or BASH), else a `slim` tag (Debian's); None when it names
    none, or two."""
    named, slim = _named_sh(image)
    return named or (DASH if slim else None)


def dockerfile_sh(dockerfile: Dockerfile) -> str | None:
    """What `/bin/sh` is in the image a Dockerfile builds: as its last stage's base image
    (through the stages it is built FROM, and ARG defaults) names it, else as the package
    managers that stage runs say, else a `slim` tag of the base, else as the Dockerfile of
    the repository that builds that base says (`inherited`, model/links.py)."""
    named, slim = _named_sh(base_image(dockerfile))
    installed = _one({_INSTALLERS[i] for i in dockerfile.installers if i in _INSTALLERS})
    found = named or installed or (DASH if slim else None)
    if found is None and dockerfile.inherited is not None:
        return dockerfile_sh(dockerfile.inherited)  # as deep as the links followed it
    return found
