"""The Node.js version a module runs on, as the image it is built into says: the official
`node` image's tag (`FROM node:23-alpine` is Node 23). Read from the Dockerfile of each
container that runs the module (links.py), else of the nearest build context that holds
it (a Dockerfile's own folder, or the context a build definition gives it). Where the
image does not say (another base image, no Dockerfile), the package's `engines.node`
does: the lowest major version its range admits (`>=20` and `^20.11` are 20)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TypeVar

from k8slb.core import regex
from k8slb.reading.build_files import BuildFacts, Dockerfile, ImageBuild, image_repository

_Built = TypeVar("_Built")

# The `node` image's tags that name no number: the newest release, whatever it is today
# (Node 19 and later: every release since October 2022)
_NEWEST = frozenset({"", "latest", "current", "lts", "alpine", "slim", "bookworm", "bullseye"})
_MAJOR = regex.compile(r"^(\d+)(?:[.\-]|$)")
_ARG = regex.compile(r"\$\{(\w+)\}|\$(\w+)")
# a release Node 19 or later: the newest, as the untagged image is
NEWEST = 10_000


def node_major(dockerfile: Dockerfile) -> int | None:
    """The Node.js major version of the image a Dockerfile's last stage is built FROM
    (its ARG defaults filled in); None when it is no `node` image or its tag says no
    version (a codename, an unfilled ARG)."""
    base = base_image(dockerfile)
    if base is None or image_repository(base).rsplit("/", 1)[-1] != "node":
        return None
    name = base.split("@", 1)[0].rsplit("/", 1)[-1]
    tag = name.partition(":")[2].lower()
    found = _MAJOR.match(tag)
    if found is not None:
        return int(found.group(1))
    return NEWEST if tag.split("-", 1)[0] in _NEWEST else None


def base_image(dockerfile: Dockerfile) -> str | None:
    """The image a Dockerfile's last stage is built FROM, its ARG defaults filled in; None
    when there is none or an ARG with no default names it."""
    if dockerfile.base is None:
        return None
    defaults = dict(dockerfile.arg_defaults)
    base = _ARG.sub(lambda m: defaults.get(m.group(1) or m.group(2), "$"), dockerfile.base)
    return None if "$" in base else base


# a comparator of a semver range: an operator and a version, each part of which may be a
# wildcard (`>=18`, `^20.11.0`, `~v16.4`, `18.x`, `=22`)
_COMPARATOR = regex.compile(r"^(>=|<=|>|<|=|\^|~)?\s*v?(\d+|[xX*])(?:\.[\dxX*]+)*(?:-[\w.]+)?$")
_SPACED_OPERATOR = regex.compile(r"(>=|<=|>|<|=|\^|~)\s+")


def engines_major(node: str) -> int | None:
    """The lowest Node.js major version a package.json's `engines.node` range admits: of
    its alternatives (`||`), the least lower bound (`>=18`, `^20`, `20.x`, `16 - 20`);
    None when one of them has none (`<20`, `*`) or the range is not read."""
    lows: list[int] = []
    for alternative in node.split("||"):
        words = _SPACED_OPERATOR.sub(r"\1", alternative.strip()).split()
        if len(words) == 3 and words[1] == "-":  # a hyphen range: its first version is the low
            words = [f">={words[0]}"]
        low: int | None = None
        for word in words:
            found = _COMPARATOR.match(word)
            if found is None:
                return None
            operator, major = found.group(1) or "=", found.group(2)
            if operator in ("<", "<=") or not major.isdigit():
                continue  # an upper bound, or any version: no lower bound
            low = max(low or 0, int(major))
        if low is None:
            return None
        lows.append(low)
    return min(lows) if lows else None


def build_contexts(builds: BuildFacts) -> dict[str, list[Dockerfile]]:
    """The Dockerfiles built from each context folder (normalised): a Dockerfile's own
    (or its parent, when its COPY lines say so), and each build definition's."""
    found: dict[str, list[Dockerfile]] = {}
    for dockerfile in builds.dockerfiles.values():
        found.setdefault(os.path.normpath(dockerfile.context), []).append(dockerfile)
    for build in builds.builds:
        named = builds.dockerfiles.get(os.path.normpath(build.dockerfile or "")) or (
            builds.dockerfiles.get(os.path.normpath(os.path.join(build.context, "Dockerfile")))
        )
        if named is not None:
            found.setdefault(os.path.normpath(build.context), []).append(named)
    return found


def named_contexts(builds: BuildFacts) -> frozenset[str]:
    """The context folders (normalised) a build definition builds an image it names from
    (skaffold, compose, a workflow, a script's `docker build -t`): an image that may be
    deployed where the tree does not show, unlike one a lone Dockerfile would build."""
    return frozenset(
        os.path.normpath(build.context) for build in builds.builds if build.image or build.tags
    )


def image_builds(builds: BuildFacts) -> dict[str, list[ImageBuild]]:
    """The builds that name the image they make (Jib's, skaffold's, a workflow's...), by
    their context folder (normalised)."""
    found: dict[str, list[ImageBuild]] = {}
    for build in builds.builds:
        if build.image:
            found.setdefault(os.path.normpath(build.context), []).append(build)
    return found


def nearest_context(module_path: str, contexts: Mapping[str, _Built]) -> _Built | None:
    """What is built from the innermost build context that holds the module (its
    Dockerfiles, or its builds)."""
    folder = os.path.dirname(os.path.normpath(module_path))
    while True:
        if folder in contexts:
            return contexts[folder]
        parent = os.path.dirname(folder)
        if parent == folder or not folder:
            return contexts.get(".") if folder and not os.path.isabs(folder) else None
        folder = parent


def lowest(majors: Iterable[int | None]) -> int | None:
    """The lowest of the versions, None when one is unknown (or there are none)."""
    found = list(majors)
    if not found or any(major is None for major in found):
        return None
    return min(major for major in found if major is not None)
