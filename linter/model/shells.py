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

A distribution is read from the image's repository name or a word of its tag
(`openjdk:17-alpine`, `python:3.12-bookworm`), never from a product's defaults: an image
that names no distribution leaves the shell unknown."""

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
            r"^(?:debian|ubuntu|jessie|stretch|buster|bullseye|bookworm|trixie"
            r"|xenial|bionic|focal|jammy|noble)$"
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


def image_sh(image: object) -> str | None:
    """What `/bin/sh` is in an image, as its repository name or a word of its tag says the
    distribution (ASH, DASH or BASH); None when it names none, or two."""
    if not isinstance(image, str) or "$" in image:
        return None
    repository = image_repository(image)
    name = repository.rsplit("/", 1)[-1]
    tag = image.split("@", 1)[0].rsplit("/", 1)[-1].partition(":")[2].lower()
    words = [name, *(w for w in _TAG_WORD.split(tag) if w)]
    found = {shell for word in words for pattern, shell in _FAMILIES if pattern.match(word)}
    return found.pop() if len(found) == 1 else None


def dockerfile_sh(dockerfile: Dockerfile) -> str | None:
    """What `/bin/sh` is in the image a Dockerfile builds: its last stage's base image's
    (through the stages it is built FROM, and ARG defaults)."""
    return image_sh(base_image(dockerfile))
