"""A GoReleaser configuration (`.goreleaser.yml`, `.goreleaser.yaml`, `goreleaser.yml`; or
a YAML file of another name whose content has GoReleaser's shape, top-level `builds:` of Go
builds and `dockers:` of images, `goreleaser/docker.yml` given by `--config`, its paths then
from the repository's top), read for the images it builds and the Go programs they run.

Its `builds[]` compile Go programs on the host: each its `id` (the project's name when
none), its `main` package (`./cmd/api/main.go`, or a folder; `.` when none) under its
`dir`, and its `binary` (the project's name when none). Its `dockers[]` (and
`dockers_v2[]`) build images with a Dockerfile in a folder of their own that holds the
binaries of the builds their `ids` name (every build when none) and their
`extra_files`: the Dockerfile only copies the binary, and the code the image runs is that
build's `main` package. So each image is read as built from the folder of that package
(with its Dockerfile as the one it names), when its `ids` name one build, or the file
has one build; with several, from the file's folder, where links.py takes the build of
the binary the image runs, and links nothing when it runs none of them (the Dockerfile's
folder holds no code), nor when its Dockerfile copies none of the binaries of the
builds its `ids` name (an image of `extra_files` alone, migrations and a script, which
names a build only because GoReleaser wants one). Each build is also a `go build` on the
host (its package and binary), for what a Dockerfile that copies a binary runs.

Templates: an image's `{{ .ProjectName }}` is the project's name, `{{ .Env.NAME }}` the
file's `env:` entry `NAME=value` when literal; a template left at the start of the image
whose every literal piece ends with `/` (`{{ .Env.REPO }}` set to `acme/` or another
owner) is a registry and owner not known, dropped (the name then matched as a bare name,
as skaffold's); any other template leaves the image unknown. Budgets: MAX_ENTRIES builds
and images, MAX_TEMPLATES of an image's templates."""

from __future__ import annotations

import os
from typing import Any

from k8slb.core import regex
from k8slb.reading.build_files import (
    MAX_SCRIPT,
    GoBuild,
    ImageBuild,
    Said,
    _documents,
    _line,
    image_repository,
)

MAX_ENTRIES = 256  # the builds and the images a file's lists give that are read
MAX_TEMPLATES = 8  # the templates of one image that are put in
MAX_VALUE = 1024  # the longest image template and `env` entry read
# A template action, `{{ .Env.DOCKER_REPO }}`, `{{ if index .Env "X" }}`: none nests braces
_ACTION = regex.compile(r"\{\{-?\s*([^{}]*?)\s*-?\}\}")
_ENV_FIELD = regex.compile(r"\.Env\.([A-Za-z_][A-Za-z0-9_]*)")
_PROJECT = regex.compile(r"\.ProjectName")


def goreleaser_facts(
    path: str, text: str, *, by_content: bool = False
) -> tuple[list[ImageBuild], tuple[GoBuild, ...]]:
    """The images a GoReleaser file builds, and its Go builds as the host's. A file
    `by_content` (named otherwise, `release/docker.yml`, given by `--config`) is read only
    where a document has GoReleaser's shape (shaped), its paths from the repository's top,
    where GoReleaser runs."""
    if len(text) > MAX_SCRIPT * 4:
        return [], ()
    top = "." if by_content else os.path.dirname(path) or "."
    images: list[ImageBuild] = []
    programs: list[GoBuild] = []
    for document in _documents(path, text):
        if not isinstance(document, dict) or (by_content and not shaped(document)):
            continue
        project = document.get("project_name")
        project = project if isinstance(project, str) and "{{" not in project else None
        env = _env(document.get("env"))
        builds = _builds(path, text, top, document.get("builds"), project)
        programs += [build for _, build in builds]
        for key in ("dockers", "dockers_v2"):
            listed = document.get(key)
            for entry in listed[:MAX_ENTRIES] if isinstance(listed, list) else ():
                if isinstance(entry, dict):
                    images += _images(path, text, top, entry, builds, project, env)
    return images, tuple(programs)


# keys of a GoReleaser build, and of a `dockers[]` (or `dockers_v2[]`) entry
_BUILD_KEYS = frozenset({"main", "binary", "goos", "goarch", "ldflags"})
_IMAGE_KEYS = frozenset({"image_templates", "images"})


def shaped(document: dict[Any, Any]) -> bool:
    """Whether a YAML document is a GoReleaser configuration by its content: top-level
    `builds:`, a list whose entries name a Go build's keys (`main`, `binary`, `goos`), and
    `dockers:` (or `dockers_v2:`), a list whose entries give images (`image_templates`)."""
    builds = document.get("builds")
    images = [*_listed(document.get("dockers")), *_listed(document.get("dockers_v2"))]
    return any(isinstance(b, dict) and _BUILD_KEYS & b.keys() for b in _listed(builds)) and any(
        isinstance(i, dict) and _IMAGE_KEYS & i.keys() for i in images
    )


def _listed(value: object) -> list[Any]:
    """A list's first MAX_ENTRIES items; none of anything else."""
    return value[:MAX_ENTRIES] if isinstance(value, list) else []


def _env(listed: object) -> dict[str, str]:
    """The file's `env:` list, `NAME=value` each."""
    found: dict[str, str] = {}
    for item in listed[:MAX_ENTRIES] if isinstance(listed, list) else ():
        if isinstance(item, str) and "=" in item and len(item) <= MAX_VALUE:
            name, _, value = item.partition("=")
            found[name.strip()] = value
    return found


def _builds(
    path: str, text: str, top: str, listed: object, project: str | None
) -> list[tuple[str, GoBuild]]:
    """Each build's id and its `go build`: its package as a folder of the tree, its
    binary's name (a literal one alone)."""
    found: list[tuple[str, GoBuild]] = []
    for entry in listed[:MAX_ENTRIES] if isinstance(listed, list) else ():
        if not isinstance(entry, dict) or entry.get("skip") is True:
            continue
        ident = entry.get("id", project)
        main, folder = entry.get("main", "."), entry.get("dir", ".")
        binary = entry.get("binary", project)
        if not all(isinstance(v, str) and v and "{{" not in v for v in (ident, main, folder)):
            continue
        if not isinstance(binary, str) or not binary or "{{" in binary:
            continue
        package = os.path.normpath(os.path.join(top, folder, main))
        if package.endswith(".go"):
            package = os.path.dirname(package) or "."
        if package.startswith(os.pardir):
            continue
        line = _line(entry, "main" if "main" in entry else "binary")
        said = Said(path, line, _quoted(text, line))
        found.append((str(ident), GoBuild(package, os.path.basename(binary), said)))
    return found


def _images(
    path: str,
    text: str,
    top: str,
    entry: dict[str, Any],
    builds: list[tuple[str, GoBuild]],
    project: str | None,
    env: dict[str, str],
) -> list[ImageBuild]:
    """The images one `dockers[]` entry builds, from the package of the one build its
    `ids` name (the file's one build when it names none), or of several from the file's
    folder; none with no build."""
    ids = entry.get("ids")
    if isinstance(ids, list):
        named = {str(i) for i in ids}
        chosen = [build for ident, build in builds if ident in named]
    else:
        chosen = [build for _, build in builds]
    packages = list(dict.fromkeys(build.package for build in chosen))
    dockerfile = entry.get("dockerfile", "Dockerfile")
    if not packages or not isinstance(dockerfile, str) or "{{" in dockerfile:
        return []
    # the one build's package; of several, the file's folder, where the binary the image
    # runs chooses its build (links.py), and none is linked when it does not
    context = packages[0] if len(packages) == 1 else top
    named_file = os.path.normpath(os.path.join(top, dockerfile))
    templates = entry.get("image_templates")
    if templates is None:
        templates = entry.get("images")  # dockers_v2: the repositories, tags apart
    key = "image_templates" if "image_templates" in entry else "images"
    line = _line(entry, key)
    mains = "; ".join(dict.fromkeys(build.said.text for build in chosen[:4]))
    said = Said(path, line, f"{_quoted(text, line)} ({dockerfile}, {mains})")
    found = []
    for template in templates[:MAX_ENTRIES] if isinstance(templates, list) else ():
        image = _image(template, project, env)
        if image:
            found.append(ImageBuild(image, context, named_file, "goreleaser", said))
    return list(dict.fromkeys(found))


def _image(template: object, project: str | None, env: dict[str, str]) -> str | None:
    """An image's repository with its templates put in, as the module's docstring says;
    None when one is left unknown."""
    if not isinstance(template, str) or len(template) > MAX_VALUE:
        return None
    # its tag (`:{{ .Version }}`) cut off first: the colon of the last segment outside
    # the templates, found with each template masked at its length
    masked = _ACTION.sub(lambda action: "_" * len(action[0]), template)
    last = masked.rfind("/") + 1
    colon = masked.find(":", last)
    text = template[:colon] if colon >= 0 else template
    for _ in range(MAX_TEMPLATES):
        action = _ACTION.search(text)
        if action is None:
            break
        value = _value(action[1], project, env)
        if value is None:
            if action.start() != 0 or not _registry(action[1], env):
                return None
            value = ""
        text = text[: action.start()] + value + text[action.end() :]
    else:
        return None
    if "{{" in text or "$" in text:
        return None
    repository = image_repository(text.strip())
    return repository or None


def _value(action: str, project: str | None, env: dict[str, str]) -> str | None:
    """A template action's literal value: the project's name, or a literal env entry."""
    if _PROJECT.fullmatch(action):
        return project
    named = _ENV_FIELD.fullmatch(action)
    value = env.get(named[1]) if named is not None else None
    return value if value is not None and "{{" not in value and "$" not in value else None


def _registry(action: str, env: dict[str, str]) -> bool:
    """Whether an env entry's every literal piece ends with `/` (a registry and owner,
    whichever its template chooses)."""
    named = _ENV_FIELD.fullmatch(action)
    value = env.get(named[1]) if named is not None else None
    if value is None:
        return False
    pieces = [piece for piece in _ACTION.split(value)[::2] if piece.strip()]
    return bool(pieces) and all(piece.strip().endswith("/") for piece in pieces)


def _quoted(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""
