"""What a repository's build files say about its images: which folder an image is built
from (skaffold, compose, a Tiltfile, CI workflows) and what a Dockerfile puts in it and
runs. Read from the bytes of the scanned files, nothing executed; a value that is not a
literal (`${REGISTRY}/app`, a Starlark variable) is no evidence.

The code <-> container link (links.py) is built on these facts.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import os
import posixpath
from collections import ChainMap, Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from k8slb.core import regex
from k8slb.core.record import record
from k8slb.core.shell_words import CONTROL_OPERATORS, command_words, redirection, shell_words
from k8slb.languages import LANGUAGES
from k8slb.reading import java_builds, workflow_expressions
from k8slb.reading.applied_manifests import applied_manifests, is_ci_config, local_cluster
from k8slb.reading.bazel_images import BAZEL_BUILD_FILES, bazel_images
from k8slb.reading.console_scripts import (
    PYPROJECT,
    SETUP_CFG,
    SETUP_PY,
    ConsoleScript,
    console_scripts,
)
from k8slb.reading.gradle_jib import SharedJib, shared_jib, subproject_images
from k8slb.reading.java_builds import GrpcJavaBuild, read_grpc_java
from k8slb.reading.maven_poms import (
    POM_ELEMENT,
    Pom,
    inherited_jib_images,
    parents_of,
    pom_sections,
    quarkus_images,
    read_pom,
)
from k8slb.reading.shell_guards import GUARD_WORDS, Guard, Guards, guard_at, settled
from k8slb.reading.yamltree import YMap, YSeq

# The files whose folder is a program's, for the languages that have them: a module belongs
# to the nearest such folder above it (projects.py).
# An Nx project's file: its targets' `options.main` and `options.outputPath` say which
# module a bundler (`@nx/webpack:webpack`, `@nx/esbuild:esbuild`, `@nx/js:tsc`) builds
# into which folder, both from the workspace's top
NX_PROJECT = "project.json"
# How many of a project.json's targets are read for a build's entry and output
MAX_NX_TARGETS = 64
PROJECT_FILES = frozenset(
    name for language in LANGUAGES.values() for name in language.project_files
)
# `Dockerfile`, `Dockerfile.dev`, `Dockerfile-prod`, `Dockerfile_client`, `dockerfile.auth`,
# `api.Dockerfile`; not a document or a configuration about one (`Dockerfile.md`,
# `dockerfile-lint.json`)
DOCKERFILE_NAMES = regex.compile(
    r"(?i)^(?:dockerfile|containerfile)(?:[._-].+)?$|.[._-](?:dockerfile|containerfile)$"
)
_NOT_DOCKERFILES: tuple[str, ...] = (".md", ".markdown", ".adoc", ".txt", ".json", ".yaml")
_NOT_DOCKERFILES += (".yml", ".toml", ".lock", ".sh", ".bat", ".ps1", ".bak", ".orig")
TILTFILE = "Tiltfile"
# Make runs a recipe in the Makefile's folder: its `docker build` lines say which folder
# an image is built from.
MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_SKAFFOLD = regex.compile(r"^skaffold(?:[-._].+)?\.ya?ml$")
_COMPOSE = regex.compile(r"^(?:docker-)?compose(?:[-.].+)?\.ya?ml$")
_GITLAB = regex.compile(r"^\.gitlab-ci\.ya?ml$")
_CLOUDBUILD = regex.compile(r"^cloudbuild(?:[-.].+)?\.ya?ml$")
_DRONE = regex.compile(r"^\.drone\.ya?ml$")
# GoReleaser's configuration (goreleaser.py)
_GORELEASER = frozenset(
    {".goreleaser.yml", ".goreleaser.yaml", "goreleaser.yml", "goreleaser.yaml"}
)
# A Jenkins pipeline: `Jenkinsfile`, `Jenkinsfile.master`, `Jenkinsfile-prod` (jenkins.py)
_JENKINSFILE = regex.compile(r"^[Jj]enkinsfile(?:[.-][\w.-]+)?$")
# Drone's Docker plugin and those built on it (ECR's, GCR's), which take its settings
_DRONE_DOCKER = regex.compile(r"^(?:plugins/(?:docker|ecr|gcr))(?::[\w.-]+)?$")


# Shell scripts, read for what a container that runs one as its entry point leaves as PID
# 1 (sigterm-never-reaches-server); one longer than MAX_SCRIPT is not kept.
SHELL_SCRIPT_SUFFIX = ".sh"
MAX_SCRIPT = 64 * 1024
_SHEBANG_ENV = frozenset({"env"})

# Java builds whose Jib plugin builds the image with no Dockerfile.
JIB_FILES = frozenset({"pom.xml", "build.gradle", "build.gradle.kts"})
# A Gradle script plugin (`gradle/docker.gradle`): what it configures is the project's of
# each build that applies it (`apply from: "gradle/docker.gradle"`), its `jib { }` among it.
GRADLE_SCRIPT_SUFFIXES = (".gradle", ".gradle.kts")
GRADLE_SETTINGS = frozenset({"settings.gradle", "settings.gradle.kts"})
_APPLY_FROM = regex.compile(r"""\bapply\b[ \t(]*from[ \t]*[:=][ \t]*["']([^"'$\n]+)["']""")
MAX_APPLIED = 32  # script plugins one build file applies, read
GO_MODULE = "go.mod"  # read for the name of the program at its folder

# Documentation, Markdown (a README, DEPLOYMENT.md, docs/*.md) and AsciiDoc (`*.adoc`):
# its shell code blocks are read as a script is, for the images they build (weaker
# evidence than a build file's). A file longer than MAX_MARKDOWN, and the blocks past
# MAX_BLOCKS, are not read.
MARKDOWN_SUFFIXES = (".md", ".markdown")
ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc", ".asc")
MAX_MARKDOWN = 256 * 1024
MAX_BLOCKS = 200
_SHELL_BLOCKS = frozenset(
    {"", "sh", "bash", "shell", "zsh", "console", "shell-session", "shellsession", "terminal"}
)
_FENCE = regex.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`{]*)")
_PROMPT = regex.compile(r"^\s*[$>]\s+")  # a console block's `$ ` before a command
# AsciiDoc: a listing (`----`) or literal (`....`) block, closed by the same line, and the
# block attribute line before it (`[source,bash,subs="attributes"]`, `[,sh]`, `[source]`)
_ADOC_DELIMITER = regex.compile(r"^(-{4,}|\.{4,})\s*$")
_ADOC_ATTRIBUTES = regex.compile(r"^\[([^\]]*)\]\s*$")


def is_build_file(name: str) -> bool:
    """A file that is not YAML or code but is read for the link (Dockerfiles, Tiltfile, the
    files that make a folder a program: `package.json`; Maven's and Gradle's builds, and
    Gradle's properties and version catalog, for the grpc-java they build with;
    Makefiles, shell scripts and Jenkins pipelines, for their `docker build` lines and, a
    script, for what an image that runs it as its entry point leaves as PID 1; go.mod,
    for its module's name; pyproject.toml and setup.cfg, for their console scripts)."""
    return (
        name in (TILTFILE, GO_MODULE, NX_PROJECT, PYPROJECT, SETUP_CFG)
        or name in BAZEL_BUILD_FILES
        or name == CARGO_FILE
        or name in PROJECT_FILES
        or name in java_builds.NAMES
        or _is_gradle_plugin(name)
        or _is_script(name)
        or _is_jenkinsfile(name)
        or is_dockerfile_name(name)
        or is_documentation(name)
    )


def _is_gradle_plugin(name: str) -> bool:
    return name.endswith(GRADLE_SCRIPT_SUFFIXES) and name not in JIB_FILES | GRADLE_SETTINGS


def gradle_applied(path: str, text: str) -> tuple[str, ...]:
    """The script plugins of the repository a Gradle build applies (`apply from:
    "gradle/docker.gradle"`, Kotlin's `apply(from = "...")`), as paths from the top; none
    from the web or with a variable in them."""
    folder = os.path.dirname(path)
    found = []
    for match in _APPLY_FROM.finditer(text):
        target = match.group(1).strip()
        if "://" in target or not _is_gradle_plugin(os.path.basename(target)):
            continue
        found.append(os.path.normpath(os.path.join(folder, target)))
        if len(found) == MAX_APPLIED:
            break
    return tuple(found)


def is_documentation(name: str) -> bool:
    """A Markdown (`README.md`) or AsciiDoc (`build.adoc`) file: read for its shell
    blocks' builds alone."""
    return name.lower().endswith((*MARKDOWN_SUFFIXES, *ASCIIDOC_SUFFIXES))


def _is_jenkinsfile(name: str) -> bool:
    return (
        "enkinsfile" in name
        and bool(_JENKINSFILE.match(name))
        and not name.lower().endswith(_NOT_DOCKERFILES)
    )


def _is_script(name: str) -> bool:
    return name in MAKEFILES or name.endswith((".mk", SHELL_SCRIPT_SUFFIX))


def is_bin_script(path: str) -> bool:
    """A file of a `bin/` folder whose name has no suffix (`bin/start`, `bin/setup`):
    read as a shell script when its `#!` line names a shell (read_build_file), as an
    image's command runs it whatever its name."""
    folder, name = posixpath.split(path.replace(os.sep, "/"))
    return bool(name) and "." not in name and posixpath.basename(folder) == "bin"


# the shells whose scripts a `#!` line of a suffixless file names (is_bin_script)
_SCRIPT_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})


def is_dockerfile_name(name: str) -> bool:
    """`Dockerfile`, `Dockerfile.dev`, `Dockerfile-prod`, `Dockerfile_client`,
    `dockerfile.auth`, `api.Dockerfile`, and Podman's `Containerfile`s, in any case
    (`DockerFile`, which a build names with `-f`)."""
    # most names have neither word: a substring test spares them the pattern's call
    lower = name.lower()
    return (
        ("ockerfile" in lower or "ontainerfile" in lower)
        and bool(DOCKERFILE_NAMES.search(name))
        and not name.lower().endswith(_NOT_DOCKERFILES)
    )


@record
class Said:
    """Where a build file says something, and its words, quoted in `explain-links`."""

    path: str
    line: int
    text: str


@record
class ImageBuild:
    """`image` is built from the folder `context` (with `dockerfile`, when named)."""

    image: str
    context: str
    dockerfile: str | None
    kind: str  # skaffold, compose, tiltfile, workflow, cloudbuild, drone, makefile, jib,
    # buildpacks, bazel, script, docs, jenkins, goreleaser
    said: Said
    args: tuple[tuple[str, str], ...] = ()  # the build arguments it gives (`--build-arg`)
    # the tags a script's `-t`s build, each None when not literal (none known: empty); a
    # build of a repository the script leaves unknown (`${REGISTRY}:cart-latest`) has the
    # image "" and is matched by a literal tag alone
    tags: tuple[str | None, ...] = ()
    # a loop's build over values not known here (`for svc in $(SVC)`): the loop's name,
    # its value LOOP_VALUE in the fields, which the image a container runs gives (made_for)
    each: str = ""
    # a documentation's build: the manifests its text then applies with kubectl, before
    # the next build (`kubernetes/Deployment_jvm.yml`: a path's literal end, two names at most)
    applies: tuple[str, ...] = ()
    # the command the build tool sets over the Dockerfile's ENTRYPOINT and CMD and over the
    # container's command (Tilt's `entrypoint=`; a string is run by `sh -c`), and the words
    # of the exec-form wrapper it is run under as PID 1 (`docker_build_with_restart`'s
    # `/tilt-restart-wrapper --watch_file=...`; none: it is PID 1 itself)
    entrypoint: tuple[str, ...] | None = None
    wrapper: tuple[str, ...] = ()
    # a compose service's build: the service's name (with no `image`, the image is "" and
    # compose names it for its project and the service) and the file's `name:`, if any;
    # and the container ports the service publishes (`"8080:50051"`: 50051)
    service: str = ""
    project: str = ""
    ports: tuple[int, ...] = ()
    # the variable the build's tool holds the image's repository in, whatever its value
    # (Drone's Docker plugin: its `repo` setting as PLUGIN_REPO), which a manifest written
    # for the same pipeline names (`image: ${PLUGIN_REPO}`)
    variable: str = ""
    # the Dockerfile's stage it builds (`docker build --target runtime`, build-push-action's
    # and compose's `target:`, skaffold's `docker.target`, Tilt's `target=`), lowercased:
    # "" when it names none (the last stage), UNKNOWN_TARGET when not literal
    target: str = ""
    # the module of a multi-module Maven or Gradle build a Jib build makes the image of, as
    # skaffold's `jib.project` names it (a path from the context, a Maven `[groupId:]artifactId`,
    # a Gradle `:name`): read_build_facts settles it to the module's folder, the context
    module: str = ""
    # the package of the Bazel workspace a skaffold Bazel artifact's target is in
    # (`target: //svc/api:image.tar`: `svc/api`), from the workspace's top, at or above the
    # context: read_build_facts settles it to the folder of that package's BUILD file
    bazel_package: str = ""

    def made_for(self, image: str) -> ImageBuild | None:
        """The build as it makes `image`: itself, or a loop's build with the value the
        image's name gives put in (`acme/shop-\x01` for `acme/shop-cart`); None when the
        image is not one the loop's can be."""
        if not self.each:
            return self
        before, _, after = image_repository(self.image).partition(LOOP_VALUE)
        named = regex.compile(
            rf"(?:.+/)?{regex.escape(before)}([a-z0-9][a-z0-9._-]*){regex.escape(after)}"
        ).fullmatch(image_repository(image))
        if named is None:
            return None
        value = named[1]

        def put(text: str) -> str:
            return text.replace(LOOP_VALUE, value)

        return replace(
            self,
            image=put(self.image),
            context=put(self.context),
            dockerfile=put(self.dockerfile) if self.dockerfile else None,
            args=tuple((name, put(given)) for name, given in self.args),
            tags=tuple(put(tag) if tag else tag for tag in self.tags),
            each="",
            said=replace(self.said, text=f"{self.said.text} ({self.each}={value})"),
        )


# What a loop's value not known here is while its build is read: a character no name holds
LOOP_VALUE = "\x01"


@record
class ImageTag:
    """`docker tag SOURCE TARGET` in a script: the image TARGET is SOURCE, built as it is."""

    source: str
    target: str
    said: Said

    def describe(self) -> str:
        return f"{self.source} tagged {self.target} at {self.said.path}:{self.said.line}"


@record
class Copy:
    source: str  # relative to the build context
    dest: str  # absolute, in the image


@record
class GoBuild:
    """A `go build` (or `go install`) in any stage of a Dockerfile: the package it builds,
    as a folder of the build context (a pattern `cmd/...` for every package below), and
    the binary it writes (None: Go's default name, the package's folder's)."""

    package: str
    output: str | None
    said: Said
    # a script's `go build -o bin/$1 service/$1/main.go` (in a function or a loop): the
    # variable that names both the binary and its package's folder, one build per value
    variable: str | None = None


@record
class CargoBuild:
    """A `cargo build`/`cargo install` in any stage of a Dockerfile, by what it names of a
    workspace: the package (`-p`/`--package NAME`), the binary (`--bin NAME`), or the
    crate's folder of the build context (`cargo install --path crates/x`, through the
    stage's COPY lines); each empty when not given."""

    package: str
    binary: str
    folder: str
    said: Said


@record
class MakeCall:
    """A `make [-C DIR] [-f FILE] [NAME=VALUE...] [TARGET...]` of a Dockerfile's RUN line,
    read with the ENV values its stage set before it: the folder it runs in, in the image,
    the Makefile `-f` names there (None: make's own names), its targets (none: the
    Makefile's first), and the stage's copies from the context as it runs (with the RUN
    line's bind mounts of the context). A build argument's `${NAME}` is left in the folder
    and the targets, filled in for each build (with_args)."""

    folder: str
    makefile: str | None
    targets: tuple[str, ...]
    copies: tuple[Copy, ...]
    said: Said


@record
class Dockerfile:
    """The last stage of a Dockerfile: what it copies from the context and what it runs,
    and the Go programs any of its stages builds."""

    path: str
    workdir: str = "/"
    copies: tuple[Copy, ...] = ()
    entrypoint: tuple[str, ...] | None = None
    cmd: tuple[str, ...] | None = None
    entrypoint_said: Said | None = None
    cmd_said: Said | None = None
    go_builds: tuple[GoBuild, ...] = ()
    base: str | None = None  # the image the last stage is built FROM (through its stages)
    # the context's folders a build argument chooses (`COPY . /src` then `WORKDIR
    # /src/app/${APP}`: `app/${APP}`), in any stage, each with its line
    arg_folders: tuple[tuple[str, Said], ...] = ()
    arg_defaults: tuple[tuple[str, str], ...] = ()  # `ARG NAME=value`
    # a COPY names a file of the Dockerfile's own folder by that folder's name
    # (`web/deploy/Dockerfile`: `COPY deploy/Caddyfile ...`): it is built from the parent
    copies_own_folder: bool = False
    # what the stages before the last copy from the context (a builder's `COPY ./web/ .`,
    # whose output the last stage takes `--from` it)
    stage_copies: tuple[Copy, ...] = ()
    # the distributions' package managers the last stage's RUN lines call (`apt-get`,
    # `apk`, `dnf`), through the stages it is built FROM: what its base is (model/shells.py)
    installers: tuple[str, ...] = ()
    # what the last stage copies `--from` an earlier stage, its sources as the paths of the
    # context that stage copied them from (`COPY --from=build /app/dist/apps/${APP} ./app`
    # after the builder's `COPY . /app`: `dist/apps/${APP}`), variables left in
    built_copies: tuple[Copy, ...] = ()
    # the context's folders a build argument chooses through what the last stage copies
    # from a builder (`dist/apps/${APP}`: `apps/${APP}`), each with its line: weaker than
    # `arg_folders` (a build's output need not mirror its sources' folders)
    built_arg_folders: tuple[tuple[str, Said], ...] = ()
    # any stage has a COPY or ADD line, read or not (a variable's path, a URL, a stage's)
    copies_any: bool = False
    # some COPY or ADD line takes from the build context: one without `--from` (another
    # stage's or image's files), read or not
    copies_context: bool = False
    # the FROM line that begins the last stage
    from_said: Said | None = None
    # the names any stage's ENV lines set (`ENV PORT=3000`, `ENV PORT 3000`)
    env_names: tuple[str, ...] = ()
    # the Dockerfile of the repository that builds the image `base` names, as the links
    # find it (model/links.py), with its own such base: what the image inherits from it
    inherited: Dockerfile | None = None
    # the `go build`s of any stage whose package a build argument names (`./${CMD_PATH}`,
    # the ARG with no value here): each build's arguments fill it in (with_args)
    arg_go_builds: tuple[GoBuild, ...] = ()
    # the `make` commands of any stage's RUN lines, whose Makefile's recipe may build one
    # program (model/links.py follows them)
    make_calls: tuple[MakeCall, ...] = ()
    # the `cargo build -p NAME` / `--bin NAME` / `cargo install --path DIR` of any stage,
    # which say the one crate of a workspace the image builds (MAX_MAKE_CALLS at most)
    cargo_builds: tuple[CargoBuild, ...] = ()
    # where a stage takes its program from outside the context: the first RUN that clones
    # a git repository, or COPY/ADD of a built Python package (`COPY app*.whl /tmp/`)
    fetched: Said | None = None
    # what the last stage's `COPY --from` lines take from an image rather than from what
    # a stage copied of the context: `--from=acme/base:1` itself, or a stage begun FROM an
    # image (`FROM acme/base:1 AS engine`, `--from=engine`), by that image, each copy's
    # source the path in that image; MAX_IMAGE_COPIES at most
    image_copies: tuple[tuple[str, Copy], ...] = ()
    # the last stage's name (`AS runtime`), lowercased; "" when it has none
    stage: str = ""
    # the named stages before the last, each read as a build that targets it reads it
    # (`--target builder`: the stage and those it is built from, the rest left out);
    # MAX_TARGETS of them, the last ones, of a Dockerfile of MAX_STAGES_APART stages and
    # MAX_TEXT_APART characters at most
    targets: tuple[tuple[str, Dockerfile], ...] = ()
    # what the last stage's `COPY --from=STAGE` lines take from an earlier stage of the
    # file, each source its path in that stage with variables left in (`COPY
    # --from=installer /go/bin/${COMMAND} /server`: /go/bin/${COMMAND} at /server), with
    # the line; MAX_STAGE_FILES at most (_stage_files)
    stage_files: tuple[tuple[Copy, Said], ...] = ()
    # the values the last stage's ENV lines set (through the stage it is built FROM), as
    # written (`ENV COMMAND=${COMMAND}`: a build argument's value, put in at build);
    # MAX_ENV_KEPT names at most (_stage_env)
    env_values: tuple[tuple[str, str], ...] = ()

    def targeted(self, name: str) -> Dockerfile | None:
        """The image a build with `--target NAME` makes (NAME: a stage's); None when no
        stage read here has that name."""
        wanted = name.lower()
        if wanted == self.stage:
            return self
        found = next((stage for named, stage in self.targets if named == wanted), None)
        return replace(found, inherited=self.inherited) if found is not None else None

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path) or "."

    @property
    def runs(self) -> Dockerfile:
        """The Dockerfile with the ENTRYPOINT and CMD its image runs: its own, else those of
        the base the repository builds (`inherited`), as Docker passes them on: a base's
        ENTRYPOINT and CMD when it sets neither, its ENTRYPOINT alone under a CMD of its
        own, nothing under an ENTRYPOINT of its own (which drops the base's CMD). The lines
        that set them are the base's (`entrypoint_said`, `cmd_said` name its path)."""
        base = self.inherited
        if base is None or self.entrypoint is not None:
            return self
        base = base.runs
        if self.cmd is not None:
            return replace(self, entrypoint=base.entrypoint, entrypoint_said=base.entrypoint_said)
        return replace(
            self,
            entrypoint=base.entrypoint,
            entrypoint_said=base.entrypoint_said,
            cmd=base.cmd,
            cmd_said=base.cmd_said,
        )

    def built_sources_of(self, in_image: str) -> list[str]:
        """Where in the build context what the last stage copies from an earlier stage's
        output to `in_image` was made (`.next/standalone/server.js`), the last copy first."""
        return _all_in_context(in_image, list(self.built_copies))

    def from_context(self, in_image: str) -> str | None:
        """The path in the build context of what a COPY put at `in_image` (an absolute
        path in the image), or None."""
        return next(iter(self.sources_of(in_image)), None)

    def sources_of(self, in_image: str) -> list[str]:
        """Where in the build context `in_image` may come from, the last COPY that covers
        it first: a later COPY of one file into the folder (`COPY x.patch /app`) covers
        the folder's path without putting the file there."""
        return _all_in_context(in_image, list(self.copies))

    @property
    def context(self) -> str:
        """The folder it is built from when no build definition says: its own, or the one
        above when its COPY lines name files through its own folder's name."""
        return (os.path.dirname(self.folder) or ".") if self.copies_own_folder else self.folder


@record
class ShellScript:
    """A shell script of the tree: the shell its first line names (`sh` when none does)
    and its text (None past MAX_SCRIPT)."""

    path: str
    shell: str
    text: str | None


@dataclass
class BuildFacts:
    builds: list[ImageBuild] = field(default_factory=list)
    dockerfiles: dict[str, Dockerfile] = field(default_factory=dict)  # by path
    projects: set[str] = field(default_factory=set)  # folders a project file makes programs
    packages: dict[str, NodePackage] = field(default_factory=dict)  # by folder
    scripts: dict[str, ShellScript] = field(default_factory=dict)  # by normalised path
    # the name go.mod gives the module at its folder, and where it says so
    names: dict[str, Said] = field(default_factory=dict)
    tags: list[ImageTag] = field(default_factory=list)  # scripts' `docker tag` lines
    # what Java builds say of grpc-java, by the project folder each speaks for
    grpc_java: dict[str, list[GrpcJavaBuild]] = field(default_factory=dict)
    # `go build`s run on the host (a Tiltfile's local_resource, a Makefile's, a script's),
    # their packages relative to the tree: what a Dockerfile that only ADDs a binary runs
    go_builds: list[GoBuild] = field(default_factory=list)
    # the folders of JVM builds (a pom.xml, a build.gradle(.kts)): what a build output
    # folder absent from the repository (`target/docker/app/build`) is made by
    jvm_modules: set[str] = field(default_factory=set)
    # the folders of JVM builds by the names their jars start with (jvm_artifacts)
    jvm_artifacts: dict[str, set[str]] = field(default_factory=dict)
    # Rust's crates (a Cargo.toml's `[package]`): the name cargo gives its binary, by folder
    crates: dict[str, Said] = field(default_factory=dict)
    # each Makefile's explicit targets with the `go build`s of their recipes, by its path
    make_rules: dict[str, dict[str, tuple[GoBuild, ...]]] = field(default_factory=dict)
    # each Nx project.json's bundled builds (entry module, output folder), by its folder
    bundles: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # Python projects' console scripts by their command's name: each declaring project's
    # folder, and the script (console_scripts.py)
    console: dict[str, list[tuple[str, ConsoleScript, Said]]] = field(default_factory=dict)
    # the manifest paths scripts, workflows, guides, Tiltfiles and Skaffold apply, as written
    manifests: list[str] = field(default_factory=list)
    # each CI configuration that makes a cluster on the CI machine: its path, the command
    # that makes it, and the manifest paths it applies (BuildFile.local_cluster)
    ci_clusters: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)


def names_builds(path: str) -> bool:
    """Whether a file's name says it is a build file (its bytes make build facts): setup.py
    too, Python code read for its console scripts as well."""
    return _name_builds(os.path.basename(path)) or _is_workflow(path) or is_ci_config(path)


@functools.lru_cache(maxsize=4096)
def _name_builds(name: str) -> bool:
    """`names_builds` by the name alone (all but a CI workflow's folder): a run asks it of
    every file of the tree two or three times, and a tree has few names."""
    return (
        is_dockerfile_name(name)
        or name == SETUP_PY
        or name in BAZEL_BUILD_FILES
        or _builds_reader("", name) is not None  # ("": no workflow's folder)
    )


@record
class NodePackage:
    """A package.json: what `npm start` (or `npm run NAME`) runs, and the module `node .`
    runs (`main`, `index.js` when it names none)."""

    scripts: dict[str, str]
    main: str
    engines_node: str | None = None  # `engines.node`: the Node.js versions it says it runs on
    # its `name` (`@acme/router`), with the line that says it: the program's own name
    name: tuple[str, int] | None = None


@record
class BuildFile:
    """What one build file says: a Dockerfile's last stage, or the images a skaffold,
    compose, Tilt or CI file builds. A parse of its own, so the cache keeps it by the
    file's key and a run reads only the build files that changed."""

    path: str
    dockerfile: Dockerfile | None = None
    builds: tuple[ImageBuild, ...] = ()
    project: bool = False  # a file that makes its folder a program's (PROJECT_FILES)
    package: NodePackage | None = None  # a package.json's scripts and main
    script: ShellScript | None = None  # a shell script's (SHELL_SCRIPT_SUFFIX)
    name: Said | None = None  # the program's name it gives (go.mod's module), and where
    tags: tuple[ImageTag, ...] = ()  # a script's `docker tag SOURCE TARGET` lines
    grpc_java: GrpcJavaBuild | None = None  # a Java build's grpc-java version and properties
    go_builds: tuple[GoBuild, ...] = ()  # `go build`s run on the host (Tiltfile, Makefile, script)
    crate: Said | None = None  # a Cargo.toml's package name, and where it says it
    # the names a JVM build's jars start with (a pom's own artifactId and finalName, a
    # Gradle module's folder name): what an image's jar named so is built by
    artifacts: tuple[str, ...] = ()
    # a Makefile's explicit targets, each with the `go build`s of its recipe (make_rules)
    make_rules: tuple[tuple[str, tuple[GoBuild, ...]], ...] = ()
    # an Nx project.json's bundled builds: (the entry module, the output folder), each as
    # the file writes it, from the workspace's top
    bundles: tuple[tuple[str, str], ...] = ()
    # a pom.xml's coordinates, parent, properties and Jib configuration: the image a module
    # inherits from its parent POM (maven_poms.py), settled once every POM is read
    pom: Pom | None = None
    # a root Gradle build's Jib image for its subprojects, by their names (gradle_jib.py)
    shared_jib: SharedJib | None = None
    # a Python project's console scripts (pyproject.toml, setup.cfg, setup.py)
    console: tuple[ConsoleScript, ...] = ()
    # a Gradle build's script plugins it applies (gradle_applied), and a script plugin's
    # Jib builds, made the applying project's once every build file is read
    applies: tuple[str, ...] = ()
    applied_builds: tuple[ImageBuild, ...] = ()
    # the manifest paths its `kubectl apply -f` commands name (a Tiltfile's or Skaffold's:
    # every YAML path it writes), literal ones as written (reading/applied_manifests.py)
    manifests: tuple[str, ...] = ()
    # a CI configuration's command that makes a cluster on the CI machine (`minikube
    # start`), as written: what it applies goes to that cluster (model/ci_clusters.py)
    local_cluster: str = ""


def read_build_file(path: str, data: bytes) -> BuildFile | None:
    """The build facts of one file; None when its name says it is no build file. A
    script, a workflow, a guide, a Tiltfile or a Skaffold configuration also keeps the
    manifests it applies (reading/applied_manifests.py)."""
    facts = _build_file(path, data)
    name = os.path.basename(path)
    ci = _is_workflow(path) or is_ci_config(path) or name.startswith(".gitlab-ci")
    if facts is None and is_ci_config(path):  # read for what it applies, and where
        facts = BuildFile(path)
    if facts is None or not (
        ci or is_documentation(name) or is_bin_script(path) or _builds_reader(path, name)
    ):
        return facts
    yaml_paths = name == TILTFILE or (name.startswith("skaffold") and bool(_SKAFFOLD.match(name)))
    applied = applied_manifests(data, yaml_paths=yaml_paths)
    if applied and ci and (cluster := local_cluster(data)):
        facts = replace(facts, local_cluster=cluster)
    return replace(facts, manifests=applied) if applied else facts


def _build_file(path: str, data: bytes) -> BuildFile | None:
    name = os.path.basename(path)
    if name == "package.json":
        return BuildFile(path, project=True, package=_node_package(_text(data)))
    if name in PROJECT_FILES:
        return BuildFile(path, project=True)
    if name == NX_PROJECT:
        return BuildFile(path, bundles=_nx_bundles(_text(data)))
    if name in (PYPROJECT, SETUP_CFG, SETUP_PY):
        return BuildFile(path, console=console_scripts(name, _text(data)))
    if name == GO_MODULE:
        return BuildFile(path, name=_go_module(path, _text(data)))
    if name == CARGO_FILE:
        return BuildFile(path, crate=_crate(path, _text(data)))
    if name in BAZEL_BUILD_FILES:
        return BuildFile(path, builds=tuple(bazel_builds(path, _text(data))))
    if name in JIB_FILES:
        text = _text(data)
        jib = tuple(jib_builds(path, text))
        java = read_grpc_java(path, data)
        pom = read_pom(path, text) if name == "pom.xml" else None
        shared = shared_jib(path, text) if pom is None and len(data) <= MAX_SCRIPT * 8 else None
        artifacts = jvm_artifacts(path, data)
        applies = gradle_applied(path, text) if pom is None else ()
        return BuildFile(
            path,
            builds=jib,
            grpc_java=java,
            artifacts=artifacts,
            pom=pom,
            shared_jib=shared,
            applies=applies,
        )
    if name in java_builds.NAMES:  # Gradle's properties and version catalog
        return BuildFile(path, grpc_java=read_grpc_java(path, data))
    if _is_gradle_plugin(name):
        applied = jib_builds(path, _text(data)) if len(data) <= MAX_SCRIPT * 8 else []
        return BuildFile(path, applied_builds=tuple(applied))
    if is_dockerfile_name(name):
        return BuildFile(path, dockerfile=parse_dockerfile(path, _text(data)))
    if is_documentation(name):  # its shell blocks' builds, as a script's
        builds, tags = markdown_facts(path, data)
        return BuildFile(path, builds=tuple(builds), tags=tuple(tags))
    if _is_script(name):  # a script's builds and tags, and, a shell's, its text for PID 1
        text = _text(data)
        builds, tags = script_facts(path, text)
        script = shell_script(path, data) if name.endswith(SHELL_SCRIPT_SUFFIX) else None
        return BuildFile(
            path,
            builds=tuple(builds),
            tags=tuple(tags),
            script=script,
            go_builds=host_go_builds(path, text, shell=script is not None, make=script is None),
            make_rules=make_rules(path, text) if script is None else (),
        )
    if name in _GORELEASER:  # its images, and its Go builds as the host's
        from k8slb.reading.goreleaser import goreleaser_facts

        images, programs = goreleaser_facts(path, _text(data))
        return BuildFile(path, builds=tuple(images), go_builds=programs)
    if is_bin_script(path) and "." not in name:
        return _bin_script(path, data)
    reader = _builds_reader(path, name)
    if reader is None:
        return _goreleaser_by_content(path, data)
    text = _text(data)
    # a Tiltfile's local_resource and a Drone step's `commands` build on the host's tree
    go = tilt_go_builds(path, text) if name == TILTFILE else ()
    go = host_go_builds(path, text) if reader is drone_builds else go
    return BuildFile(path, builds=tuple(reader(path, text)), go_builds=go)


def _bin_script(path: str, data: bytes) -> BuildFile | None:
    """A suffixless file of a `bin/` folder whose `#!` line names a shell: a script, its
    builds and tags read as a `.sh` file's are; None for another (a Ruby or Python
    program, a binary)."""
    if not data.startswith(b"#!"):
        return None
    script = shell_script(path, data)
    if script.shell not in _SCRIPT_SHELLS:
        return None
    text = _text(data)
    builds, tags = script_facts(path, text)
    go = host_go_builds(path, text, shell=True, make=False)
    return BuildFile(path, builds=tuple(builds), tags=tuple(tags), script=script, go_builds=go)


# Top-level keys a GoReleaser configuration of another name holds: each at a line's start
_RELEASE_BUILDS = regex.compile(rb"(?m)^builds:")
_RELEASE_IMAGES = regex.compile(rb"(?m)^dockers(?:_v2)?:")


def _goreleaser_by_content(path: str, data: bytes) -> BuildFile | None:
    """A YAML file of another name that is a GoReleaser configuration by its content (its
    top-level `builds:` and `dockers:`, of GoReleaser's shape): its images and Go builds,
    its paths from the repository's top; None for any other file."""
    if not path.endswith((".yml", ".yaml")) or len(data) > MAX_SCRIPT * 4:
        return None
    if not _RELEASE_BUILDS.search(data) or not _RELEASE_IMAGES.search(data):
        return None
    from k8slb.reading.goreleaser import goreleaser_facts

    images, programs = goreleaser_facts(path, _text(data), by_content=True)
    return BuildFile(path, builds=tuple(images), go_builds=programs) if images else None


# A `go build` on the host, in a CI step's line: up to a quote or the line's end
_HOST_GO_BUILD = regex.compile(r"(?:\b\w+=\S*\s+)*\bgo\s+(?:build|install)\b[^'\"\n;&|]*")


# A shell script's `go build`, its words quoted or not (`-o "$OUT/api"`), to the line's end
# or its next command
_SHELL_GO_BUILD = regex.compile(r"(?:\b\w+=\S*\s+)*\bgo\s+(?:build|install)\b[^\n;&|]*")


# A Starlark string literal (a triple-quoted one across lines) or a comment, which is
# skipped: the commands a Tiltfile runs are its strings. No branch crosses a line but a
# triple-quoted string's, which fails only once (no closing quotes after it): linear.
_STARLARK_STRING = regex.compile(
    r"#[^\n]*"
    r"|(?i:[rb])?(?:'''(?s:.*?)'''|\"\"\"(?s:.*?)\"\"\")"
    r"|(?i:[rb])?(?:'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
)
_GO_BUILD_WORDS = regex.compile(r"\bgo\s+(?:build|install)\b")


def tilt_go_builds(path: str, text: str) -> tuple[GoBuild, ...]:
    """The `go build`s of a Tiltfile's strings: a `local_resource`'s `cmd=` (or
    `serve_cmd=`), a `custom_build`'s command, a variable's value given to one. Tilt runs
    such a string with `sh -c` from the Tiltfile's folder, so each literal that runs `go
    build` or `go install` is read as a shell script's lines are (host_go_builds: its
    `cd`, its `NAME=value` words, its quoted words), from its own line of the Tiltfile.
    Literal strings only (a `%`-formatted one keeps its `%s`, and builds nothing read);
    comments skipped; none of a Tiltfile past MAX_SCRIPT."""
    if "go" not in text or len(text) > MAX_SCRIPT:
        return ()
    found: list[GoBuild] = []
    line, counted = 1, 0  # counted from the last string on: linear
    for match in _STARLARK_STRING.finditer(text):
        literal = match.group(0)
        if literal.startswith("#") or not _GO_BUILD_WORDS.search(literal):
            continue
        line += text.count("\n", counted, match.start())
        counted = match.start()
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, str):
            found += host_go_builds(path, value, shell=True, first=line)
    return tuple(found)


def host_go_builds(
    path: str, text: str, *, shell: bool = False, make: bool = False, first: int = 1
) -> tuple[GoBuild, ...]:
    """The `go build -o OUT PACKAGE` commands a Tiltfile (a `local_resource`'s command), a
    Makefile or a shell script runs on the host, from the file's folder: their packages
    as folders of the tree (`../../hack/copier` from `tools/copier/` is `hack/copier`; one
    above the tree's top is none). Literal words only; none of a file past MAX_SCRIPT. A
    `shell` script's builds run where its `cd`, `pushd` and `popd` lines lead, their
    folders named by the variables it set before (`pushd "$SERVICES/api"`). A `make`
    file's recipes are read with the variables the file sets (`$(GOBUILD) -o
    $(BIN)/$(NAME) $(MAIN_PACKAGE)`, as Make reads them all first), quoted words too
    (`-ldflags "$(LDFLAGS)"`). Its lines are numbered from `first` (a Tiltfile's string's
    own line)."""
    if "go" not in text or len(text) > MAX_SCRIPT:
        return ()
    here: str | None = os.path.dirname(path) or "."  # None: a `cd` to a folder not known
    pushed: list[str | None] = []
    variables: dict[str, str | None] = {}
    lines: Iterable[tuple[int, str]] = enumerate(text.splitlines(), start=first)
    if make:
        lines = list(_logical_lines(text, comments=True))
        variables = _make_variables(text)
    pattern = _SHELL_GO_BUILD if shell or make else _HOST_GO_BUILD
    recipes = {number for number, recipe, _ in _make_lines(text) if recipe} if make else set()
    targets: list[str] = []  # the rule's targets a recipe's `$@` names in turn
    room = [MAX_TARGET_COMMANDS]  # what a file's commands made for each target may hold
    budget = [MAX_EXPANDED]  # what the variables put in the file's lines may add
    made: set[str] = set()  # the folders a `mkdir` of the rule's recipe made so far
    found: list[GoBuild] = []
    for number, line in lines:
        if shell:
            here = _shell_folder(line.strip(), here, pushed, variables)
        said = Said(path, number, line.strip())
        if make and number not in recipes and ":" in line and not _MAKE_DIRECTIVE.match(line):
            targets = _rule_targets(_expanded(line, variables=variables, make=True, budget=budget))
            made = set()
        if make and number not in recipes and _MAKE_ASSIGNMENT.match(line):
            continue  # `GOBUILD = $(GOCMD) build`: a value, run where a recipe uses it
        if make and "$" in line:
            line = _expanded(line, variables=variables, make=True, budget=budget)
        if make and number in recipes:
            made |= _made_folders(line.lstrip("\t@-+ "))
        if "go" not in line or line.lstrip().startswith("#") or here is None:
            continue
        # the tree (from the root, for an absolute path) as if copied to /host, the
        # command run in its folder there
        root = "/" if here.startswith("/") else "."
        copied, workdir = [Copy(root, "/host")], posixpath.normpath("/host/" + here.lstrip("/"))
        for match in pattern.finditer(line):
            commands = _each_target(match.group(0), targets, room) if make else [match.group(0)]
            for command in commands:
                # a target's own command, as make runs it (`go build -o ./api/api ./api/`)
                run = said if command == match.group(0) else replace(said, text=command.strip())
                found += _go_builds(command, workdir, copied, run, templates=True, folders=made)
    return tuple(found)


# Make's automatic variables for a rule's target (`$@`; its folder `$(@D)`, `$(dir $@)`;
# its file name `$(@F)`, `$(notdir $@)`); how many targets of one rule are read, and how
# many characters the commands made for each target may hold in all, in one file
_TARGET_VARIABLE_USE = regex.compile(r"\$(?:\(dir \$@\)|\(notdir \$@\)|[({]@([DF])[)}]|@)")
MAX_RULE_TARGETS = 64
MAX_TARGET_COMMANDS = 4 * MAX_SCRIPT
# a conditional's line, which leaves the rule a recipe belongs to as it was
_MAKE_DIRECTIVE = regex.compile(r"\s*(?:ifeq|ifneq|ifdef|ifndef|else|endif)\b")


def _each_target(command: str, targets: Sequence[str], room: list[int]) -> list[str]:
    """A recipe's command as make runs it for each of its rule's targets in turn, when it
    names the target (`go build -o ./$@ ./$(dir $@)` under `agent/agent api/api:`); the
    command as it is otherwise, when no literal target is known, or once the file's
    commands so made would pass `room` (MAX_RULE_TARGETS, MAX_TARGET_COMMANDS)."""
    if "$" not in command or not targets or not _TARGET_VARIABLE_USE.search(command):
        return [command]
    targets = targets[:MAX_RULE_TARGETS]
    cost = sum(len(command) + len(target) * command.count("$") for target in targets)
    if cost > room[0]:
        return [command]
    room[0] -= cost

    def put(target: str) -> Callable[[regex.Match[str]], str]:
        folder, name = posixpath.split(target)
        parts = {
            "(dir $@)": (folder or ".") + "/",
            "(notdir $@)": name,
            "D": folder or ".",
            "F": name,
        }

        def value(match: regex.Match[str]) -> str:
            text = match.group(0)[1:]
            return parts.get(match.group(1) or text, target)

        return value

    return [_TARGET_VARIABLE_USE.sub(put(t), command) for t in targets]


def _shell_folder(
    line: str, here: str | None, pushed: list[str | None], variables: dict[str, str | None]
) -> str | None:
    """The folder a script runs in after a line that sets a variable, or changes folder
    (`cd DIR`, `pushd DIR`, `popd`); `pushed` the folders `pushd` left, last on top."""
    if line.startswith("popd"):
        return pushed.pop() if pushed else None
    if not line.startswith(("cd ", "pushd ")):
        _assign(line, variables, make=False)
        return here
    try:
        words = shell_words(line, comments=True)
    except ValueError:
        words = []
    target = _expanded(words[1], variables=variables, make=False) if len(words) > 1 else "$"
    if line.startswith("pushd"):
        pushed.append(here)
    return _cd(here, ["cd", target, ""]) if here is not None else None


def shell_script(path: str, data: bytes) -> ShellScript:
    """A script's shell (`#!/bin/bash`, `#!/usr/bin/env bash`; `sh` with no such line)
    and its text, when within MAX_SCRIPT."""
    first = data[:256].split(b"\n", 1)[0].decode("utf-8", "replace")
    words = first[2:].split() if first.startswith("#!") else []
    if words and posixpath.basename(words[0]) in _SHEBANG_ENV:
        words = [w for w in words[1:] if not w.startswith("-")]
    shell = posixpath.basename(words[0]) if words else "sh"
    return ShellScript(path, shell, _text(data) if len(data) <= MAX_SCRIPT else None)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _node_package(text: str) -> NodePackage:
    """package.json's scripts and main; none from a file that is not a JSON object."""
    try:
        package = json.loads(text)
    except (ValueError, RecursionError):
        package = None
    if not isinstance(package, dict):
        return NodePackage({}, "index.js")
    scripts = package.get("scripts")
    found = {
        name: command
        for name, command in (scripts.items() if isinstance(scripts, dict) else ())
        if isinstance(name, str) and isinstance(command, str)
    }
    main = package.get("main")
    engines = package.get("engines")
    node = engines.get("node") if isinstance(engines, dict) else None
    name = package.get("name")
    said = None
    if isinstance(name, str) and name:
        at = text.find(json.dumps(name))  # the value as written, its first place
        said = (name, text.count("\n", 0, at) + 1 if at >= 0 else 1)
    return NodePackage(
        found,
        main if isinstance(main, str) and main else "index.js",
        node if isinstance(node, str) else None,
        said,
    )


def _nx_bundles(text: str) -> tuple[tuple[str, str], ...]:
    """An Nx project.json's targets that build an entry module into a folder: each
    target's (or configuration's) `options.main` and `options.outputPath`, MAX_NX_TARGETS
    targets at most; none from a file that is not a JSON object."""
    try:
        project = json.loads(text)
    except (ValueError, RecursionError):
        return ()
    targets = project.get("targets") if isinstance(project, dict) else None
    if not isinstance(targets, dict):
        return ()
    found: list[tuple[str, str]] = []
    for target in list(targets.values())[:MAX_NX_TARGETS]:
        options = target.get("options") if isinstance(target, dict) else None
        if not isinstance(options, dict):
            continue
        main, output = options.get("main"), options.get("outputPath")
        if isinstance(main, str) and isinstance(output, str) and main and output:
            found.append((main, output))
    return tuple(dict.fromkeys(found))


_GO_MODULE_LINE = regex.compile(r"^\s*module\s+\"?([^\s\"]+)\"?\s*(?://.*)?$", regex.MULTILINE)


def _go_module(path: str, text: str) -> Said | None:
    """go.mod's module path (`module github.com/acme/shop`), with its line."""
    match = _GO_MODULE_LINE.search(text)
    if match is None:
        return None
    line = text.count("\n", 0, match.start(1)) + 1
    return Said(path, line, match.group(1))


_JIB_MAVEN = regex.compile(
    r"<artifactId>\s*jib-maven-plugin\s*</artifactId>.*?<to>\s*<image>\s*([^<\s]+)\s*</image>",
    regex.DOTALL,
)
_JIB_GRADLE = regex.compile(
    r"\bjib\s*\{.*?\bto\s*\{.*?\bimage\s*=\s*['\"]([^'\"]+)['\"]", regex.DOTALL
)


# Spring Boot's own image build (Cloud Native Buildpacks): Maven's `spring-boot-maven-plugin`
# `<image><name>`, Gradle's `bootBuildImage { imageName = '...' }` (or `.set(...)`).
_BUILDPACKS_MAVEN = regex.compile(
    r"<artifactId>\s*spring-boot-maven-plugin\s*</artifactId>.*?(?:<image>\s*<name>|<imageName>)"
    r"\s*([^<\s]+)\s*</(?:name|imageName)>",
    regex.DOTALL,
)
_BUILDPACKS_GRADLE = regex.compile(
    r"\bbootBuildImage\b[^{]*\{.*?\bimageName(?:\s*=\s*|\.set\(\s*)['\"]([^'\"]+)['\"]",
    regex.DOTALL,
)


CARGO_FILE = "Cargo.toml"
# a TOML table's header (`[package]`, `[[bin]]`) and a `name = "..."` key, each a line
_TOML_LINE = regex.compile(r"(?m)^[ \t]*(?:\[\[?([\w.-]+)\]\]?|name[ \t]*=[ \t]*\"([^\"\n]+)\")")


def _crate(path: str, text: str) -> Said | None:
    """The name a Cargo.toml's `[package]` gives its crate (the name of the binary cargo
    builds), and its line; None for a workspace's with no package of its own."""
    if len(text) > MAX_SCRIPT:
        return None
    table = ""
    for match in _TOML_LINE.finditer(text):
        if match.group(1) is not None:
            table = match.group(1)
        elif table == "package":
            line = text.count("\n", 0, match.start()) + 1
            return Said(path, line, match.group(0).strip())
    return None


def bazel_builds(path: str, text: str) -> list[ImageBuild]:
    """The images a Bazel BUILD file makes (reading/bazel_images.py), each built from the
    folder of its binary's code, with no Dockerfile; its tag the image target's name."""
    return [
        ImageBuild(
            image.repository,
            image.folder,
            None,
            "bazel target" if image.by_name else "bazel",
            Said(path, image.line, image.text),
            tags=(image.tag,) if image.tag is not None else (),
        )
        for image in bazel_images(path, text)
    ]


def jib_builds(path: str, text: str) -> list[ImageBuild]:
    """The image Jib (Maven's `jib-maven-plugin` `<to><image>`, Gradle's `jib { to { image
    = '...' } }`) or Spring Boot's buildpacks (`spring-boot-maven-plugin`'s `<image><name>`,
    Gradle's `bootBuildImage { imageName = '...' }`) build from the module, from the build
    file's folder: Java services built so have no Dockerfile. A name whose repository has a
    property in it (`${project.name}`) is no evidence; one in its tag is no matter. The
    tag is kept (`apache/shop:order_v1_1.0`; None when not literal): modules that push to
    one repository are told apart by it."""
    maven = path.endswith(".xml")
    found = []
    for kind, pattern in (
        ("jib", _JIB_MAVEN if maven else _JIB_GRADLE),
        ("buildpacks", _BUILDPACKS_MAVEN if maven else _BUILDPACKS_GRADLE),
    ):
        match = pattern.search(text)
        if match is None:
            continue
        image = match.group(1)
        if maven and "${" in image:  # `stnick/${artifactId}:${version}`: the pom's values
            image = _MAVEN_PROPERTY.sub(lambda m: _maven_values(text).get(m[1], m[0]), image)
        if literal_image(image) is None:
            continue
        line = text.count("\n", 0, match.start(1)) + 1
        folder = os.path.dirname(path) or "."
        # its tag kept: modules that push to one repository are told apart by their tags
        built = _built(image, folder, None, kind, path, text, line)
        found.append(replace(built, tags=(image_tag(image),)))
    return found


_MAVEN_PROPERTY = regex.compile(r"\$\{([\w.-]+)\}")


@functools.lru_cache(maxsize=8)
def _maven_values(text: str) -> dict[str, str]:
    """What a pom's `${...}` may name: its own `artifactId`, `groupId`, `version` and
    `name` (also as `project.X`) and its `<properties>`; the sections that are not the
    pom's own coordinates left out as maven_poms.pom_sections finds them (one pass)."""
    sections, own = pom_sections(text)
    properties = sections.get("properties", (0, ""))[1]
    values: dict[str, str] = {}
    for name, value, closed in POM_ELEMENT.findall(properties):
        if name == closed:
            values.setdefault(name, value)
    for name, value, closed in POM_ELEMENT.findall(own):
        if name == closed and name in ("artifactId", "groupId", "version", "name") and value:
            values.setdefault(name, value)
            values.setdefault(f"project.{name}", value)
    return values


_FINAL_NAME = regex.compile(r"<finalName>\s*([^<\s]+)\s*</finalName>")
_JAR_NAME = regex.compile(r"[A-Za-z0-9][\w.-]*")


def jvm_artifacts(path: str, data: bytes) -> tuple[str, ...]:
    """The names a JVM build's jars start with: a pom.xml's own `artifactId` (not its
    parent's or a dependency's) and its `<finalName>`, their `${...}` filled from the pom;
    a Gradle build's, its folder's name (Gradle's default project name; none for the top,
    whose name the checkout's folder gives). A name left with a `${...}` is none."""
    if not path.endswith(".xml"):
        name = os.path.basename(os.path.dirname(os.path.normpath(path)))
        return (name,) if name and _JAR_NAME.fullmatch(name) else ()
    if len(data) > java_builds.MAX_BUILD_FILE:
        return ()
    text = _text(data)
    values = _maven_values(text)
    names = [values.get("artifactId", "")]
    final = _FINAL_NAME.search(text)
    if final is not None:
        names.append(_MAVEN_PROPERTY.sub(lambda m: values.get(m[1], m[0]), final[1]))
    return tuple(dict.fromkeys(n for n in names if _JAR_NAME.fullmatch(n)))


def read_build_facts(files: Iterable[BuildFile]) -> BuildFacts:
    """The build facts of a run, from each of its build files' (in the run's order)."""
    facts = BuildFacts()
    poms: list[Pom] = []
    shared: list[SharedJib] = []
    gradle: list[str] = []
    bazel: set[str] = set()  # the folders of Bazel's BUILD files: its packages
    applied: dict[str, set[str]] = {}  # a Gradle script plugin -> the folders applying it
    plugins: list[ImageBuild] = []
    for file in files:
        for plugin in file.applies:
            applied.setdefault(plugin, set()).add(os.path.dirname(os.path.normpath(file.path)))
        plugins += file.applied_builds
        if os.path.basename(file.path) in BAZEL_BUILD_FILES:
            bazel.add(os.path.dirname(os.path.normpath(file.path)) or ".")
        if file.pom is not None:
            poms.append(file.pom)
        elif os.path.basename(file.path) in JIB_FILES:
            gradle.append(file.path)
            shared += [file.shared_jib] if file.shared_jib is not None else []
        if file.dockerfile is not None:
            facts.dockerfiles[os.path.normpath(file.path)] = file.dockerfile
        facts.builds += (_with_target(_within_run(build)) for build in file.builds)
        if file.script is not None:
            facts.scripts[os.path.normpath(file.path)] = file.script
        facts.tags += file.tags
        if file.project:
            folder = os.path.dirname(os.path.normpath(file.path)) or "."
            facts.projects.add(folder)
            if file.package is not None:
                facts.packages[folder] = file.package
        if file.name is not None:
            facts.names[os.path.dirname(os.path.normpath(file.path)) or "."] = file.name
        if file.grpc_java is not None:
            facts.grpc_java.setdefault(file.grpc_java.folder, []).append(file.grpc_java)
        facts.go_builds += file.go_builds
        if os.path.basename(file.path) in JIB_FILES:
            facts.jvm_modules.add(os.path.dirname(os.path.normpath(file.path)) or ".")
        for artifact in file.artifacts:
            folder = os.path.dirname(os.path.normpath(file.path)) or "."
            facts.jvm_artifacts.setdefault(artifact, set()).add(folder)
        if file.crate is not None:
            facts.crates[os.path.dirname(os.path.normpath(file.path)) or "."] = file.crate
        if file.make_rules:
            facts.make_rules[os.path.normpath(file.path)] = dict(file.make_rules)
        for script in file.console:
            folder = os.path.dirname(os.path.normpath(file.path)) or "."
            said = Said(file.path, script.line, script.text)
            facts.console.setdefault(script.name, []).append((folder, script, said))
        if file.bundles:
            facts.bundles[os.path.dirname(os.path.normpath(file.path)) or "."] = file.bundles
        facts.manifests += file.manifests
        if file.local_cluster:
            facts.ci_clusters.append((file.path, file.local_cluster, file.manifests))
    facts.builds += map(_within_run, _applied_jib_builds(plugins, applied))
    if poms:
        facts.builds += map(_within_run, _inherited_jib_builds(poms, facts.builds))
        facts.builds += (
            _within_run(
                ImageBuild(q.image, q.module, None, "quarkus", Said(q.path, q.line, q.quoted))
            )
            for q in quarkus_images(poms)
        )
        _inherited_registries(poms, facts.grpc_java)
    if shared:
        facts.builds += map(_within_run, _subproject_jib_builds(shared, gradle, facts.builds))
    facts.builds = [_jib_module_build(build, facts) for build in facts.builds]
    if any(build.bazel_package for build in facts.builds):
        facts.builds = [_bazel_package_build(build, bazel) for build in facts.builds]
    return facts


def _applied_jib_builds(
    plugins: list[ImageBuild], applied: dict[str, set[str]]
) -> Iterator[ImageBuild]:
    """A script plugin's Jib build, of the one project's folder whose build applies it:
    one no build applies is of no project, and one several apply names the same image
    for each, which says nothing of which one a container runs."""
    for build in plugins:
        folders = applied.get(os.path.normpath(build.said.path), set())
        if len(folders) == 1:
            yield replace(build, context=next(iter(folders)) or ".")


def _bazel_package_build(build: ImageBuild, packages: set[str]) -> ImageBuild:
    """A skaffold Bazel artifact's build as one of the package its target is in: the
    folder of that package's BUILD file, under the nearest folder at or above the context
    (Bazel finds its workspace's top by climbing from where it runs) that holds one; with
    none found, the build as it was read (of its context)."""
    if not build.bazel_package:
        return build
    folder = os.path.normpath(build.context)
    while True:
        package = os.path.normpath(os.path.join(folder, build.bazel_package))
        if package in packages:
            said = replace(build.said, text=f"{build.said.text} (Bazel's package {package})")
            return replace(build, context=package, said=said, bazel_package="")
        parent = os.path.dirname(folder) or "."
        if parent == folder or folder in (".", ""):
            return replace(build, bazel_package="")
        folder = parent


def _jib_module_build(build: ImageBuild, facts: BuildFacts) -> ImageBuild:
    """A build of the module a Jib `project` names (skaffold's `jib.project`), as a Jib
    build of the module's folder: the path from the context to a folder with a pom.xml or
    a Gradle build (`services/cart`, Gradle's `:services:cart`), else the one module below
    the context whose Maven artifactId it is (`cart`, `com.acme:cart`). A name no module
    or several answer to leaves the build as it was read (of its context)."""
    if not build.module:
        return build
    context = os.path.normpath(build.context)
    name = build.module
    paths = [name.strip(":").replace(":", "/")] if name.startswith(":") else [name]
    folders = {
        folder
        for path in paths
        if (folder := _joined(context, path)) in facts.jvm_modules and folder != context
    }
    if not folders and not name.startswith(":"):
        below = context + os.sep if context != "." else ""
        folders = {
            folder
            for folder in facts.jvm_artifacts.get(name.rpartition(":")[2], ())
            if folder.startswith(below) and folder != context
        }
    if len(folders) != 1:
        return replace(build, module="")
    folder = folders.pop()
    said = replace(build.said, text=f"{build.said.text} (Jib's module {folder})")
    return replace(build, context=folder, kind="jib", dockerfile=None, said=said, module="")


def _inherited_jib_builds(poms: list[Pom], builds: list[ImageBuild]) -> list[ImageBuild]:
    """The Jib builds of Maven modules whose image their parent POMs configure (or whose
    own `${...}` their parents' properties fill): a module Jib's own reading of its POM
    found a build for is left as it is."""
    built = {os.path.normpath(b.context) for b in builds if b.kind == "jib"}
    return [
        ImageBuild(
            found.image,
            found.module,
            None,
            "jib",
            Said(found.path, found.line, found.quoted),
            tags=(image_tag(found.image),),
        )
        for found in inherited_jib_images(poms)
        if os.path.normpath(found.module) not in built
    ]


def _inherited_registries(poms: list[Pom], grpc_java: dict[str, list[GrpcJavaBuild]]) -> None:
    """A Maven module inherits its parent POMs' dependencies: the discovery starters and
    the Spring Boot gRPC starters they declare are the module's too (its reading in
    `grpc_java` given them; the cached reading of its own POM is left as it is)."""
    read = {
        os.path.normpath(os.path.abspath(build.path)): build
        for files in grpc_java.values()
        for build in files
        if os.path.basename(build.path) == "pom.xml"
    }
    for path, parents in parents_of(poms).items():
        own = read.get(os.path.normpath(os.path.abspath(path)))
        inherited = tuple(
            written
            for parent in parents
            if (build := read.get(os.path.normpath(os.path.abspath(parent.path)))) is not None
            for written in build.registries
        )
        starters = frozenset(
            starter
            for parent in parents
            if (build := read.get(os.path.normpath(os.path.abspath(parent.path)))) is not None
            for starter in build.starters
        )
        if own is None or not (inherited or starters - own.starters):
            continue
        files = grpc_java[own.folder]
        given = replace(
            own,
            registries=(own.registries + inherited)[: java_builds.MAX_ENTRIES],
            starters=own.starters | starters,
        )
        files[:] = [given if build is own else build for build in files]


def _subproject_jib_builds(
    shared: list[SharedJib], gradle: list[str], builds: list[ImageBuild]
) -> list[ImageBuild]:
    """The Jib builds of Gradle subprojects whose image the root build's `subprojects`
    block names by their names; a subproject whose own build gives Jib an image keeps it,
    and an image several subprojects would get names none."""
    built = {os.path.normpath(b.context) for b in builds if b.kind == "jib"}
    found = [
        each
        for each in subproject_images(shared, gradle)
        if os.path.normpath(each.folder) not in built and literal_image(each.image) is not None
    ]
    given = Counter(each.image for each in found)
    return [
        ImageBuild(
            each.image,
            each.folder,
            None,
            "jib",
            Said(each.said.path, each.said.line, f"{each.said.quoted} (subproject {each.folder})"),
            tags=(image_tag(each.image),),
        )
        for each in found
        if given[each.image] == 1
    ]


def _within_run(build: ImageBuild) -> ImageBuild:
    """A build read from a file above the run's folder (the repository's workflow, where
    the run names `server/`: `../server/apps/users`), its paths as the run's code is
    shown (`apps/users`) when they lead back into the run's folder."""
    if not (build.context.startswith(os.pardir) or (build.dockerfile or "").startswith(os.pardir)):
        return build
    named = build.dockerfile
    return replace(
        build, context=_shown(build.context), dockerfile=_shown(named) if named else None
    )


def _shown(path: str) -> str:
    """`../server/apps/users`, run from `server/`: `apps/users` (a path outside it as is)."""
    if not path.startswith(os.pardir):
        return path
    again = os.path.relpath(os.path.abspath(path))
    return path if again.startswith(os.pardir) else again


def _builds_reader(path: str, name: str) -> Callable[[str, str], list[ImageBuild]] | None:
    """What reads the images a file builds, by its name; None for any other file."""
    if name == TILTFILE:
        return tiltfile_builds
    if name.startswith("skaffold") and _SKAFFOLD.match(name):  # (the test: fewer calls)
        return skaffold_builds
    if "compose" in name and _COMPOSE.match(name):
        return compose_builds
    if name.startswith("cloudbuild") and _CLOUDBUILD.match(name):
        return cloudbuild_builds
    if name.startswith(".drone") and _DRONE.match(name):
        return drone_builds
    if (name.startswith(".gitlab-ci") and _GITLAB.match(name)) or _is_workflow(path):
        return workflow_builds
    if _is_script(name):
        return script_builds
    if _is_jenkinsfile(name):
        from k8slb.reading.jenkins import jenkins_builds  # (it reads steps as scripts)

        return jenkins_builds
    if name in _GORELEASER:
        from k8slb.reading.goreleaser import goreleaser_facts

        return lambda path, text: goreleaser_facts(path, text)[0]
    return None


def _is_workflow(path: str) -> bool:
    if not path.endswith((".yml", ".yaml")) or "workflows" not in path:
        return False  # most files: no need to split the path
    parts = os.path.normpath(path).split(os.sep)
    return len(parts) >= 3 and parts[-3:-1] == [".github", "workflows"]


def _literal(value: object) -> str | None:
    """A plain string with no variable in it (`${TAG}`, `$(...)`, `{{ }}`)."""
    if not isinstance(value, str) or not value or "$" in value or "{{" in value:
        return None
    return value


def image_repository(image: object) -> str:
    """`registry.example/shop/backend:1.4@sha256:...` -> `registry.example/shop/backend`
    (lower case, Docker Hub's implied `docker.io/library/` dropped); the tag begins at the
    last segment's first `:`, so one a variable gives with a default holds its own
    (`shop/web:${TAG:-2.6.0}` -> `shop/web`)."""
    if not isinstance(image, str):
        return ""
    name = image.split("@", 1)[0]
    head, slash, last = name.rpartition("/")
    if ":" in last:
        name = head + slash + last.partition(":")[0]
    return name.lower().removeprefix("docker.io/").removeprefix("library/")


def literal_image(value: object) -> str | None:
    """An image whose repository is literal: `ghcr.io/acme/app:${{ github.sha }}` names
    `ghcr.io/acme/app` whatever its tag."""
    name = image_repository(value)
    return name if _literal(name) else None


def _image_past_registry(value: object) -> str | None:
    """An image whose repository is literal past the segments a variable names (a CI's
    secret registry, `${{ secrets.REGISTRY }}/acme/app`): `acme/app`, which every registry
    it is pushed to serves. None when its last segment is not literal."""
    segments = image_repository(value).split("/")
    ends = [i for i, segment in enumerate(segments) if _literal(segment) is None]
    return literal_image("/".join(segments[ends[-1] + 1 :])) if ends else literal_image(value)


def image_tag(image: str) -> str | None:
    """`acme/shop:v2-timeout` -> `v2-timeout` (`latest` when none is written); None when
    it is not literal (`acme/shop:$(TAG)`)."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    tag = last.rpartition(":")[2] if ":" in last else "latest"
    return None if "$" in tag or "{" in tag else tag


def _joined(base: str, relative: str) -> str:
    return os.path.normpath(os.path.join(base, relative))


UNKNOWN_TARGET = "$"  # a build's `--target` that is not literal
_TARGET_FLAG = regex.compile(r"(?:^|\s)--target(?:=|\s+)[\"']?([^\s\"';|&)]+)")


def build_target(value: object) -> str:
    """A build definition's target stage as ImageBuild keeps it."""
    if value is None or value == "":
        return ""
    literal = _literal(value) if isinstance(value, str) else None
    return literal.lower() if literal else UNKNOWN_TARGET


def _with_target(build: ImageBuild) -> ImageBuild:
    """A command line's build with the `--target` its line gives (read from its text)."""
    if build.target or "--target" not in build.said.text:
        return build
    found = _TARGET_FLAG.search(build.said.text)
    return replace(build, target=build_target(found.group(1)) if found else UNKNOWN_TARGET)


def _built(
    image: str,
    root: str,
    dockerfile: str | None,
    kind: str,
    path: str,
    text: str,
    line: int,
    args: object = None,
) -> ImageBuild:
    """`image` built from the folder `root` (a Dockerfile named relative to it), as the
    file at `path` says on `line`, with the build arguments `args` gives."""
    named = _joined(root, dockerfile) if dockerfile else None
    said = Said(path, line, _quote(text, line))
    return ImageBuild(image, root, named, kind, said, _arg_pairs(args))


def _arg_pairs(args: object) -> tuple[tuple[str, str], ...]:
    """Build arguments as a build definition gives them: a mapping (compose's and
    skaffold's), a list of `NAME=VALUE` (compose's), or lines of them (build-push-action's
    `build-args`)."""
    if isinstance(args, str):
        args = args.splitlines()
    if isinstance(args, dict):
        items = [(str(k), v) for k, v in args.items()]
    elif isinstance(args, list):
        items = [(n, v) for n, _, v in (str(a).strip().partition("=") for a in args)]
    else:
        return ()
    return tuple(
        (name, str(value)) for name, value in items if name and isinstance(value, str | int | float)
    )


# -- YAML build definitions ------------------------------------------------------------------


def _documents(path: str, text: str) -> Iterator[Any]:
    """Each YAML document that parses, as the manifests' composer builds it (its mappings
    and sequences know their lines; the same nesting and alias limits, in C where it was
    built); a document that does not parse is left out (the file is linted, and reported,
    as YAML on its own)."""
    from k8slb.reading.yamlcompose import compose

    for document in compose(text).documents:
        yield document.data


def _line(node: Any, key: str | None = None) -> int:
    """The 1-based line of a key in a mapping (or of the node itself)."""
    if key is not None and isinstance(node, YMap) and key in node.key_pos:
        return node.key_pos[key][0]
    pos = getattr(node, "pos", None)
    return int(pos[0]) if pos is not None else 1


def _quote(text: str, line: int) -> str:
    lines = _stripped_lines(text)
    return lines[line - 1] if 0 < line <= len(lines) else ""


@functools.lru_cache(maxsize=1)
def _stripped_lines(text: str) -> list[str]:
    """The lines of the file being read, split once for all its builds (not once each)."""
    return [line.strip() for line in text.splitlines()]


_MAX_MODULE = 256  # the length of a Jib project's name read


def skaffold_builds(path: str, text: str) -> list[ImageBuild]:
    """`build.artifacts[]` (and each profile's): `image`, `context` (default the file's
    folder), `docker.dockerfile`; a Jib artifact's `jib.project`, the module of a
    multi-module build it makes the image of (its folder settled by read_build_facts)."""
    folder = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    for document in _documents(path, text):
        if not isinstance(document, dict):
            continue
        builds = [document.get("build")]
        profiles = document.get("profiles")
        if isinstance(profiles, list):
            builds += [p.get("build") for p in profiles if isinstance(p, dict)]
        for build in builds:
            artifacts = build.get("artifacts") if isinstance(build, dict) else None
            for artifact in artifacts if isinstance(artifacts, list) else []:
                if not isinstance(artifact, dict):
                    continue
                image = literal_image(artifact.get("image"))
                context = artifact.get("context", ".")
                if image is None or _literal(context) is None:
                    continue
                docker = artifact.get("docker")
                docker = docker if isinstance(docker, dict) else {}
                dockerfile = _literal(docker.get("dockerfile"))
                root, line = _joined(folder, context), _line(artifact, "image")
                args = docker.get("buildArgs")
                built = _built(image, root, dockerfile, "skaffold", path, text, line, args)
                found.append(replace(built, target=build_target(docker.get("target"))))
                jib = artifact.get("jib")
                project = _literal(jib.get("project")) if isinstance(jib, dict) else None
                if project is not None and len(project) <= _MAX_MODULE:
                    found[-1] = replace(found[-1], module=project)
                bazel = artifact.get("bazel")
                label = _literal(bazel.get("target")) if isinstance(bazel, dict) else None
                if label is not None and (package := _bazel_label_package(label)) is not None:
                    found[-1] = replace(found[-1], bazel_package=package)
    return found


def _bazel_label_package(label: str) -> str | None:
    """The package an absolute Bazel label names from its workspace's top (`//svc/api:image`,
    `//svc/api`: `svc/api`); None for a relative label (`:image`, the context's own
    package), another repository's (`@rules//x:y`), the top's (`//:image`) or a path that
    leaves the workspace."""
    if not label.startswith("//") or len(label) > _MAX_MODULE:
        return None
    package = label[2:].partition(":")[0]
    if not package or "$" in package or not _literal(package):
        return None
    normal = posixpath.normpath(package)
    return None if normal.startswith(("../", "/")) or normal in (".", "..") else normal


def compose_builds(path: str, text: str) -> list[ImageBuild]:
    """`services.NAME.build` (a context, or `{context, dockerfile}`) with `image` (and the
    tag it names); with no `image`, the image compose names for the project and the
    service (the build's `service`, and the file's `name:` as its `project`)."""
    folder = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    for document in _documents(path, text):
        services = document.get("services") if isinstance(document, dict) else None
        if not isinstance(services, dict):
            continue
        project = _literal(document.get("name")) or ""
        for name, service in services.items():
            if not isinstance(service, dict):
                continue
            named = _compose_defaults(service.get("image"))
            image, build = literal_image(named), service.get("build")
            context = build.get("context", ".") if isinstance(build, dict) else build
            context = _compose_defaults(context)
            if build is None or _literal(context) is None:
                continue
            if image is None and ("image" in service or _literal(name) is None):
                continue  # an image not literal
            given = build if isinstance(build, dict) else {}
            dockerfile = _literal(_compose_defaults(given.get("dockerfile")))
            line = _line(service, "image") if image else _line(services, name)
            root, args = _joined(folder, str(context)), given.get("args")
            built = _built(image or "", root, dockerfile, "compose", path, text, line, args)
            built = replace(
                built,
                service=str(name),
                project=project,
                ports=_compose_ports(service),
                target=build_target(given.get("target")),
            )
            if image is None:
                found.append(built)
                continue
            # the tag its `image` names (`gateway` is `gateway:latest`), when literal
            found.append(replace(built, tags=(image_tag(str(named)),)))
    return found


# A compose value that is one variable given a default (`${IMAGE_API:-shop_api}`,
# `${SRC-./api}`): compose writes the default when the variable is not set
_COMPOSE_DEFAULT = regex.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^${}]*)\}")
_MAX_COMPOSE_VALUE = 1024  # the longest value whose default is read


def _compose_defaults(value: object) -> object:
    """A compose value that is one variable with a literal default, as compose writes it
    with the variable not set: that default (`${IMAGE_API:-shop_api}` -> `shop_api`). Any
    other value as given: a variable inside a name (`${REGISTRY:-acme}/api`) is a registry
    the deploy sets, the default one the manifests need not name."""
    if not isinstance(value, str) or not value.startswith("${") or len(value) > _MAX_COMPOSE_VALUE:
        return value
    whole = _COMPOSE_DEFAULT.fullmatch(value)
    return whole.group(1) if whole is not None else value


def _compose_ports(service: Mapping[str, Any]) -> tuple[int, ...]:
    """The container ports a compose service publishes, as literal numbers: `"50051"`,
    `"8080:50051"`, `"127.0.0.1:8080:50051/tcp"` and `{target: 50051}` (50051); a range
    or a variable is left out."""
    listed = service.get("ports")
    found: list[int] = []
    for entry in listed if isinstance(listed, list) else ():
        given = entry.get("target") if isinstance(entry, dict) else entry
        port = str(given).partition("/")[0].rpartition(":")[2] if given is not None else ""
        if port.isdigit():
            found.append(int(port))
    return tuple(found)


_STRING = r"""(?:'([^'"]+)'|"([^'"]+)")"""  # a literal string, its text in group 1 or 2
# space between a call's arguments, with a comment to its line's end (`'img',  # the app`)
_GAP = r"(?:\s|#[^\n]*\n)*"
_DOCKER_BUILD = regex.compile(
    rf"\bdocker_build(?:_with_restart|_sub)?\({_GAP}(?:ref\s*=\s*)?{_STRING}{_GAP},{_GAP}"
    rf"(?:context\s*=\s*)?{_STRING}"
    r"(?P<rest>[^)]*)\)"
)
_DOCKERFILE_ARG = regex.compile(rf"\bdockerfile\s*=\s*{_STRING}")
_TILT_TARGET = regex.compile(r"\btarget\s*=\s*(?:'([^'\"]*)'|\"([^'\"]*)\"|(\S))")


def tiltfile_builds(path: str, text: str) -> list[ImageBuild]:
    """`docker_build('image', 'context', dockerfile='...')` with literal strings only (and
    tilt-extensions' `docker_build_sub` and `docker_build_with_restart`, which take the
    same first two); the
    Dockerfile is the context's own unless `dockerfile=` names one (from the Tiltfile's
    folder, as Tilt resolves every path it is given)."""
    folder = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    line, counted, commented = 1, 0, False  # counted from the last match on: linear
    for match in _DOCKER_BUILD.finditer(text):
        start = match.start()
        line += text.count("\n", counted, start)
        line_start = text.rfind("\n", counted, start) + 1
        if line_start or not counted:  # a line of its own: is it a comment?
            first = line_start
            while text[first].isspace():
                first += 1
            commented = text[first] == "#"
        counted = start
        if commented:
            continue
        root = _joined(folder, match.group(3) or match.group(4))
        named = _DOCKERFILE_ARG.search(match.group("rest") or "")
        # Tilt takes `dockerfile=` from the Tiltfile's folder, not from the context
        dockerfile = _joined(folder, named.group(1) or named.group(2)) if named else None
        image = match.group(1) or match.group(2)
        built = _built(image, root, None, "tiltfile", path, text, line)
        targeted = _TILT_TARGET.search(match.group("rest") or "")
        target = "" if targeted is None else targeted.group(1) or targeted.group(2) or "$"
        built = replace(built, dockerfile=dockerfile, target=build_target(target))
        found.append(_tilt_entrypoint(built, match.group(0), match.group("rest") or ""))
    return found


# `entrypoint=`, or docker_build_with_restart's third argument: a list of strings or one
_ENTRYPOINT_VALUE = r"""(\[[^\]]*\]|'[^']*'|"[^"]*")"""
_ENTRYPOINT_ARG = regex.compile(rf"\bentrypoint\s*=\s*{_ENTRYPOINT_VALUE}")
_THIRD_ARG = regex.compile(rf"^\s*,\s*{_ENTRYPOINT_VALUE}")
# what restart_process's docker_build_with_restart makes PID 1 (tilt-extensions'
# restart_process/Tiltfile, wrap_entrypoint): the entrypoint runs as its child
_RESTART_WRAPPER = ("/tilt-restart-wrapper", "--watch_file=/.restart-proc")


def _tilt_entrypoint(build: ImageBuild, call: str, rest: str) -> ImageBuild:
    """The build with the entrypoint a Tiltfile's call sets, literal strings only: Tilt
    runs a string with `sh -c`; `docker_build_with_restart` runs it under its wrapper."""
    restart = call.startswith("docker_build_with_restart")
    match = _ENTRYPOINT_ARG.search(rest) or (_THIRD_ARG.match(rest) if restart else None)
    if match is None:
        return build
    try:
        value = ast.literal_eval(match.group(1))
    except (ValueError, SyntaxError):
        return build
    if isinstance(value, str):
        words: tuple[str, ...] = ("sh", "-c", value)
    elif isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        words = tuple(value)
    else:
        return build
    return replace(build, entrypoint=words, wrapper=_RESTART_WRAPPER if restart else ())


def workflow_builds(path: str, text: str) -> list[ImageBuild]:
    """`docker build -t IMAGE [-f FILE] CONTEXT` in a step's script (literal words only),
    `docker/build-push-action` steps and its drop-ins' (`with: {context, tags, file}`), and
    another action's step that builds a `context` into the image its `with:` names
    (`repository`, `image`, `images`, `image-name`), relative to the
    repository's top: the folder above `.github`, or the GitLab file's. Each run of a
    matrix settles the expressions of its values (workflow_expressions.py): the
    Dockerfile it chooses, the steps its `if:` leaves out."""
    with workflow_expressions.settling():
        return _workflow_builds(path, text)


def _workflow_builds(path: str, text: str) -> list[ImageBuild]:
    parts = os.path.normpath(path).split(os.sep)
    github = parts[-3:-2] == [".github"]
    top = (os.sep.join(parts[:-3]) if github else os.path.dirname(path)) or "."
    documents = list(_documents(path, text))
    # the folder each run step's lines run in (its `working-directory`), by line
    folders = {
        number: folder for document in documents for number, folder in _step_folders(document)
    }
    # the lines of the run steps (GitLab's jobs) that change folder on a line of their own:
    # read as scripts, step by step (_run_step_variables) or job by job
    moving = {number for document in documents for number in _moving_steps(document)}
    sessions = [] if github else [s for d in documents for s in _gitlab_sessions(d)]
    moving.update(n for first, lines in sessions for n in range(first, first + len(lines)))
    found: list[ImageBuild] = []
    room = [MAX_RUN_LINES]  # the lines of run steps read run by run, in the whole file
    for first, lines in sessions:
        builds = step_builds(path, "\n".join(lines), first, top, {})
        found += [replace(b, kind="workflow") for b in builds]
    for number, line in _logical_lines(text, comments=False):
        build = _docker_build_words(line) if number not in moving else None
        folder = folders.get(number, ".")
        if build is not None and folder is not None:  # (None: read run by run)
            image, context, dockerfile, args = build
            here = _moved(_joined(top, folder), line)
            if here is None:
                continue
            root = _joined(here, context)
            said = Said(path, number, line.strip().lstrip("-").strip())
            dockerfile = _joined(here, dockerfile) if dockerfile else None
            found.append(ImageBuild(image, root, dockerfile, "workflow", said, args))
    for document in documents:
        jobs = document.get("jobs") if isinstance(document, dict) else None
        for job in jobs.values() if isinstance(jobs, dict) else []:
            if not isinstance(job, dict):
                continue
            steps, strategy = job.get("steps"), job.get("strategy")
            matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
            runs = _matrix(matrix)
            exported: dict[str, str | None] = {}  # what steps wrote to $GITHUB_ENV
            job_env = _literal_env(document.get("env"), job.get("env"))
            metadata = _metadata_steps(steps)  # once a job: each step asks only its own
            for step in steps if isinstance(steps, list) else []:
                if not isinstance(step, dict):
                    continue
                envs = (document.get("env"), job.get("env"), step.get("env"))
                literal = _run_folder(document, job, step, {})
                for known in _expressions(runs, envs) if "${{" in str(step) else [{}]:
                    if workflow_expressions.skipped(step.get("if"), known):
                        continue  # `if: matrix.app == 'web'`: a step of the web run only
                    known.update(_metadata_tags(step, metadata, known))
                    found += _build_push_step(path, text, top, step, known)
                    folder = literal or _run_folder(document, job, step, known)
                    if folder is not None:
                        here = _joined(top, folder)
                        found += _run_step_builds(path, here, step, known, room, not literal)
                here = _joined(top, literal) if literal is not None else None
                found += _run_step_variables(path, here, step, job_env, exported)
    return list(dict.fromkeys(found))  # a step that uses no matrix value: once, not a run


def _run_folder(
    document: object, job: dict[str, Any], step: dict[str, Any], known: dict[str, str]
) -> str | None:
    """The folder a run step runs in, from the repository's top: its `working-directory`,
    else its job's `defaults.run`'s, else the workflow's (`.`: none given), with the
    values `known` (a matrix run's, the env's) put in; None when what is given is not
    literal once they are (`services/${{ matrix.service }}` outside a matrix run)."""
    given: object = None
    outer = document.get("defaults") if isinstance(document, dict) else None
    for defaults in (job.get("defaults"), outer):
        run = defaults.get("run") if isinstance(defaults, dict) else None
        given = given or (run.get("working-directory") if isinstance(run, dict) else None)
    given = step.get("working-directory") or given
    if given is None:
        return "."
    return _literal(_filled(given, known)) if isinstance(given, str) and given else None


def _working_directory(job: dict[str, Any], step: dict[str, Any]) -> str:
    """The folder a run step runs in, from the repository's top: its literal
    `working-directory`, else its job's `defaults.run`'s (`.`: the top)."""
    defaults = job.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    for given in (
        step.get("working-directory"),
        run.get("working-directory") if isinstance(run, dict) else None,
    ):
        folder = _literal(given) if isinstance(given, str) else None
        if folder:
            return folder
    return "."


def _moved(folder: str, line: str) -> str | None:
    """The folder a line's `docker build` runs in after a `cd` before it on the line (`cd
    infra && docker build ...`, `cd infra; docker build ...`); None: not known."""
    start = _DOCKER_BUILD_COMMAND.search(line)
    before = line[: start.start()] if start is not None else ""
    if "cd" not in before:
        return folder
    try:
        return _cd(folder, shell_words(before, comments=True))
    except ValueError:
        return None


def _run_steps(document: object) -> Iterator[tuple[dict[str, Any], dict[str, Any], str]]:
    """Each run step of a workflow, with its job and its script."""
    jobs = document.get("jobs") if isinstance(document, dict) else None
    for job in jobs.values() if isinstance(jobs, dict) else []:
        steps = job.get("steps") if isinstance(job, dict) else None
        for step in steps if isinstance(steps, list) else []:
            script = step.get("run") if isinstance(step, dict) else None
            if isinstance(script, str):
                yield job, step, script


def _moving_steps(document: object) -> Iterator[int]:
    """The lines of each run step with a line of its own that changes folder (`cd infra`
    before `docker build ... .`)."""
    for _, step, script in _run_steps(document):
        if _changes_folder(script):
            first = _line(step, "run")
            yield from range(first, first + script.count("\n") + 2)


def _gitlab_sessions(document: object) -> Iterator[tuple[int, list[str]]]:
    """Each GitLab job whose `before_script` and `script` (one shell) change folder on a
    line of their own, as gitlab_job_shell gives it; up to MAX_SCRIPT of them in a file
    (the jobs past it read line by line)."""
    room = MAX_SCRIPT
    for job in document.values() if isinstance(document, dict) else []:
        shell = gitlab_job_shell(job)
        if shell is None:
            continue
        first, lines = shell
        size = sum(len(line) for line in lines)
        if size > room or not _changes_folder("\n".join(lines)):
            continue
        room -= size
        yield first, lines


def gitlab_job_shell(job: object) -> tuple[int, list[str]] | None:
    """A GitLab job's `before_script` and `script`, the one shell GitLab runs them in: its
    first line and its lines from there, each item's at its own line of the file (a block
    scalar's from the line after its `- |`), blank between. None for a job with neither,
    or whose items hold more than MAX_SCRIPT characters or span more lines of the file."""
    if not isinstance(job, dict):
        return None
    items: list[tuple[int, str]] = []
    for key in ("before_script", "script"):
        listed = job.get(key)
        if isinstance(listed, str):
            items.append((_line(job, key) + ("\n" in listed), listed))
        for index, item in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(item, str):
                items.append((_item_line(listed, index) + ("\n" in item), item))
    if not items or sum(len(item) for _, item in items) > MAX_SCRIPT:
        return None
    first = min(line for line, _ in items)
    span = max(line + item.count("\n") for line, item in items) - first + 1
    if span > MAX_SCRIPT:  # items far apart (an anchor's, merged into many jobs)
        return None
    lines = [""] * span
    for line, item in items:
        for offset, text in enumerate(item.splitlines()):
            lines[line - first + offset] = text
    return first, lines


def _changes_folder(script: str) -> bool:
    """Whether a script no longer than MAX_SCRIPT changes folder on a line of its own."""
    return len(script) <= MAX_SCRIPT and any(
        line.lstrip().startswith(("cd ", "pushd ")) for line in script.splitlines()
    )


def _step_folders(document: object) -> Iterator[tuple[int, str | None]]:
    """The lines of each run step run in a folder other than the top, with that folder
    (None: one a matrix's or env's value names)."""
    for job, step, script in _run_steps(document):
        folder = _run_folder(document, job, step, {})
        if folder != ".":
            first = _line(step, "run")
            for number in range(first, first + script.count("\n") + 2):
                yield number, folder


# `echo "NAME=VALUE" >> $GITHUB_ENV`: a variable every later step of the job has
_GITHUB_ENV_WRITE = regex.compile(
    r"""^echo\s+["']?([A-Za-z_][A-Za-z0-9_]*)=([^"'>]*)["']?\s*>>\s*["']?\$\{?GITHUB_ENV\}?["']?$"""
)


def _run_step_variables(
    path: str,
    top: str | None,
    step: dict[str, Any],
    job_env: dict[str, str | None],
    exported: dict[str, str | None],
) -> list[ImageBuild]:
    """The `docker build` lines of a step's `run` script whose words are shell variables:
    the literal `env` of the workflow and the job (`job_env`, made once a job) and of the
    step, and what earlier steps of the job wrote to `$GITHUB_ENV` (this step's writes are
    read for the steps after, as Actions applies them). Run from the top; the script read
    once, with the variables it uses set before it (its own length bounds them). `top`
    None: the step's folder is not literal (its builds are read run by run, if at all)."""
    script = step.get("run")
    if not isinstance(script, str):
        return []
    moves = _changes_folder(script)  # a script of its own: every build read here
    if "$" not in script and not moves:
        return []
    variables = ChainMap(_literal_env(step.get("env")), job_env, exported)
    writes: dict[str, str | None] = {}  # for the steps after this one
    for _, line in _logical_lines(script, comments=True):
        written = _GITHUB_ENV_WRITE.match(line)
        if written is not None:
            value = _expanded(written[2], variables=variables, make=False)
            writes[written[1]] = value if "$" not in value and "`" not in value else None
    if top is None or _DOCKER_BUILD_COMMAND.search(script) is None:
        exported.update(writes)
        return []
    first = _line(step, "run") + (1 if "\n" in script.rstrip("\n") else 0)
    builds = step_builds(path, _expressions_as_words(script), first, top, variables)
    exported.update(writes)
    if "${{" in script:  # each build said as the step writes it, its expressions kept
        as_written = {first + n - 1: line for n, line in _logical_lines(script, comments=True)}
        builds = [
            replace(b, said=replace(b.said, text=as_written[b.said.line]))
            if "${EXPRESSION}" in b.said.text and b.said.line in as_written
            else b
            for b in builds
        ]
    return [
        replace(b, kind="workflow")
        for b in builds
        if moves or "$" in b.said.text  # a literal one was read from the file's text
    ]


def step_builds(
    path: str, script: str, first: int, folder: str, variables: Mapping[str, str | None]
) -> list[ImageBuild]:
    """The builds of a CI step's shell script (script_facts), which starts on line `first`
    of the file and runs in `folder` with the literal `variables` it uses set before it;
    their lines the file's."""
    used = dict.fromkeys(a or b for a, b in _SHELL_VARIABLE.findall(script))
    known = [(n, v) for n in used if (v := variables.get(n)) and " " not in v]
    prelude = "".join(f"{name}={value}\n" for name, value in known)
    builds, _ = script_facts(path, prelude + script, make=False, folder=folder)
    start = first - len(known) - 1
    return [replace(b, said=replace(b.said, line=start + b.said.line)) for b in builds]


def shell_expanded(word: str, variables: Mapping[str, str | None]) -> str:
    """A word with the shell variables known in it put in (an unknown one left)."""
    return _expanded(word, variables=variables, make=False)


def _literal_env(*envs: object) -> dict[str, str | None]:
    """The literal values of `env` mappings, the later over the earlier (None: not
    literal)."""
    found: dict[str, str | None] = {}
    for env in envs:
        for name, value in env.items() if isinstance(env, dict) else ():
            found[str(name)] = (
                _literal(str(value)) if isinstance(value, str | int | float) else None
            )
    return found


# How many lines of run steps a workflow's matrix runs read, in all: past it, none (each
# run reads its steps' scripts again, its values put in)
MAX_RUN_LINES = 20_000
# How many runs of a job's matrix are read: past it, none (a matrix so large builds no
# one service's image).
MAX_MATRIX = 256
MAX_MATRIX_KEYS = 512  # the values a run keeps (`image.name`, `platform`, ...): the first


def _matrix(matrix: object) -> list[dict[str, str]]:
    """The values of each run of a job's `strategy.matrix`: every combination of its
    literal lists, and its `include` entries (one that sets only keys of its own extends
    every combination, another is a run of its own); [{}] for a job with none. A value
    that is a mapping of literals (`image: [{name: api, dockerfile: api/Dockerfile}]`)
    gives each of its keys (`image.name`, for `${{ matrix.image.name }}`). A key whose
    values are not literal is left out, and so its uses stay unknown; so are the keys past
    MAX_MATRIX_KEYS values of a run."""
    if not isinstance(matrix, dict):
        return [{}]
    runs: list[dict[str, str]] = [{}]
    keys: set[str] = set()
    for key, values in matrix.items():
        if key in ("include", "exclude") or not isinstance(values, list):
            continue
        if len(runs[0]) >= MAX_MATRIX_KEYS:
            break
        literal = [_matrix_value(str(key), v) for v in values]
        literal = [v for v in literal if v]
        if len(runs) * len(literal) > MAX_MATRIX:
            return [{}]
        runs = [{**run, **value} for run in runs for value in literal]
        keys.add(str(key))
    included = matrix.get("include")
    for entry in included if isinstance(included, list) else []:
        if not isinstance(entry, dict):
            continue
        pairs = (pair for k, v in entry.items() for pair in _matrix_value(str(k), v).items())
        values = dict(itertools.islice(pairs, MAX_MATRIX_KEYS))
        if keys and not {name.partition(".")[0] for name in values} & keys:
            runs = [{**run, **values} for run in runs]
        elif len(runs) < MAX_MATRIX:
            runs = [*(run for run in runs if run), values]
    return runs


def _matrix_value(key: str, value: object) -> dict[str, str]:
    """A matrix key's value in a run: `{key: value}` of a literal, `{key.sub: value}` for
    each literal of a mapping (none of one nested deeper); empty when not literal."""
    if isinstance(value, str | int | float):
        return {key: str(value)}
    if not isinstance(value, dict):
        return {}
    literal = ((sub, given) for sub, given in value.items() if isinstance(given, str | int | float))
    return {f"{key}.{sub}": str(given) for sub, given in itertools.islice(literal, MAX_MATRIX_KEYS)}


def _expressions(runs: list[dict[str, str]], envs: Iterable[object]) -> list[dict[str, str]]:
    """What `${{ matrix.KEY }}` and `${{ env.NAME }}` are in each run of a step: the
    matrix's values, and the literal `env` of the workflow, the job and the step (the
    nearest first), each with the matrix's values put in."""
    found = []
    for run in runs:
        known = {f"matrix.{key}": value for key, value in run.items()}
        for env in envs:
            for name, value in env.items() if isinstance(env, dict) else ():
                if isinstance(value, str | int | float):
                    known[f"env.{name}"] = str(_filled(str(value), known))
        found.append(known)
    return found


def _filled(value: object, known: dict[str, str]) -> object:
    """A string with the values known put in for `${{ matrix.KEY }}` and `${{ env.NAME }}`,
    and for an expression of them the run settles (`${{ matrix.app == 'web' && 'web/Dockerfile'
    || 'Dockerfile' }}`, workflow_expressions.py)."""
    if not known or not isinstance(value, str) or "${{" not in value:
        return value
    return _WORKFLOW_EXPRESSION.sub(lambda m: _settled(m.group(0), known), value)


def _settled(expression: str, known: dict[str, str]) -> str:
    """An expression put in by its value in the run: a value known (`${{ matrix.app }}`),
    or one of matrix and env values the run settles (else left as it is)."""
    named = known.get(expression[3:-2].strip())
    if named is not None:
        return named
    if "matrix." not in expression and "env." not in expression:
        return expression
    found = workflow_expressions.text(expression, known)
    return expression if found is None else found


# the keys a build action other than docker's names the image it builds in (a repository,
# its tags given apart)
_WORKFLOW_IMAGE_KEYS = ("repository", "image", "images", "image-name", "image_name", "name")
# the keys such an action names the Dockerfile in (from the repository's top), and the
# options of its `docker build` it passes whole (`buildoptions: "--target migrations"`)
_WORKFLOW_DOCKERFILE_KEYS = ("file", "dockerfile")
_WORKFLOW_OPTION_KEYS = ("buildoptions", "build-options", "build_options")


def _build_push_step(
    path: str, text: str, top: str, step: dict[str, Any], known: dict[str, str]
) -> list[ImageBuild]:
    given = step.get("with")
    action = str(step.get("uses", "")).split("@", 1)[0]
    if not isinstance(given, dict):
        return []
    # docker's action and its drop-ins (`depot/`, `useblacksmith/build-push-action`) name
    # whole images in `tags`; another action that builds a `context` names the image's
    # repository in a key of its own (`repository: acme/app`, `tags: v1`)
    key = "tags" if action.rsplit("/", 1)[-1] == "build-push-action" else None
    if key is None and "context" in given:
        key = next((k for k in _WORKFLOW_IMAGE_KEYS if k in given), None)
    if key is None:
        return []
    context = _literal(_filled(given.get("context", "."), known))
    if context is None:
        return []
    root = _joined(top, context)
    file_key = next((k for k in _WORKFLOW_DOCKERFILE_KEYS if given.get(k)), "file")
    dockerfile = _literal(_filled(given.get(file_key), known))  # from the repository's top
    if dockerfile is None and given.get(file_key):
        return []  # a Dockerfile the run does not settle: not the context's own
    named = os.path.relpath(_joined(top, dockerfile), root) if dockerfile else None
    # an expression left (`${{ github.sha }}`) is one word, whatever spaces it holds
    listed = _WORKFLOW_EXPRESSION.sub("${EXPRESSION}", str(_filled(given.get(key, ""), known)))
    tags = listed.replace(",", " ").split()
    line = _line(given, key)
    args = _filled(given.get("build-args"), known)
    target = build_target(_filled(given.get("target"), known))
    options = next((given[k] for k in _WORKFLOW_OPTION_KEYS if k in given), None)
    if not target and isinstance(options, str):  # `--target migrations` among the options
        flag = _TARGET_FLAG.search(str(_filled(options, known)))
        target = build_target(flag[1]) if flag is not None else ""
    return [
        replace(_built(tag, root, named, "workflow", path, text, line, args), target=target)
        for tag in filter(None, map(_image_past_registry, tags))
    ]


# What a `docker/metadata-action` step's `images` are read of: its first entries, each
# as long as an image's name may reasonably be (a build-push step that names the step is
# given them: a hostile workflow's steps may all name one huge list)
MAX_METADATA_IMAGES = 16
MAX_IMAGE_ENTRY = 512
_STEP_TAGS = regex.compile(r"steps\.([A-Za-z0-9_-]+)\.outputs\.tags")


def _metadata_steps(steps: object) -> dict[str, tuple[str, ...]]:
    """The `images` entries of each docker `metadata-action` step of a job, by its id
    (one a line, or `name=IMAGE,enable=...`), their values not yet put in."""
    found: dict[str, tuple[str, ...]] = {}
    for step in steps if isinstance(steps, list) else []:
        given = step.get("with") if isinstance(step, dict) else None
        if not isinstance(given, dict) or not isinstance(step.get("id"), str):
            continue
        if str(step.get("uses", "")).split("@", 1)[0] != "docker/metadata-action":
            continue
        entries = str(given.get("images", "")).splitlines()[:MAX_METADATA_IMAGES]
        found[step["id"]] = tuple(e for e in entries if len(e) <= MAX_IMAGE_ENTRY)
    return found


def _metadata_tags(
    step: dict[str, Any], metadata: dict[str, tuple[str, ...]], known: dict[str, str]
) -> dict[str, str]:
    """What `${{ steps.ID.outputs.tags }}` in a step's `tags` names where the step ID is
    docker's `metadata-action`: each of its `images` (one with `enable=false` left out)
    with a tag not known here. A build-push step is given its tags so more often than it
    writes them."""
    given = step.get("with")
    tags = given.get("tags") if isinstance(given, dict) else None
    if not metadata or not isinstance(tags, str):
        return {}
    found = {}
    for named in dict.fromkeys(_STEP_TAGS.findall(tags)):
        images = []
        for entry in metadata.get(named, ()):
            entry = str(_filled(entry, known)).split("#", 1)[0].strip()
            fields = {}
            for field_ in entry.split(",") if "=" in entry else ():
                key, _, value = field_.partition("=")
                fields[key.strip()] = value.strip()
            name = fields.get("name", "") if fields else entry
            if name and fields.get("enable", "true") != "false":
                images.append(f"{name}:${{EXPRESSION}}")
        if images:
            found[f"steps.{named}.outputs.tags"] = "\n".join(images)
    return found


def _run_step_builds(
    path: str, top: str, step: dict[str, Any], known: dict[str, str], room: list[int], whole: bool
) -> list[ImageBuild]:
    """The `docker build` lines of a step's `run` script that are builds only once the
    matrix's and env's values are put in (the others were read from the file's text),
    and, when the folder it runs in is known only so (`whole`), all of them; none once
    the file's runs have read `room` lines."""
    script = step.get("run")
    if not known or not isinstance(script, str) or ("${{" not in script and not whole):
        return []
    room[0] -= script.count("\n") + 1
    if room[0] < 0:
        return []
    first = _line(step, "run") + (1 if "\n" in script.rstrip("\n") else 0)
    found = []
    # a script that changes folder: read whole, its values put in, its `cd` lines followed
    moves = _changes_folder(script)
    moved: dict[int, list[ImageBuild]] = defaultdict(list)
    filled = _expressions_as_words(str(_filled(script, known))) if moves else ""
    for built in step_builds(path, filled, first, top, {}) if moves else ():
        moved[built.said.line].append(built)
    for number, line in _logical_lines(script, comments=False):
        if not whole and ("${{" not in line or _docker_build_words(line) is not None):
            continue
        if moves:
            said = Said(path, first + number - 1, line.strip())
            found += [replace(b, kind="workflow", said=said) for b in moved[said.line]]
            continue
        build = _docker_build_words(str(_filled(line, known)))
        if build is not None:
            image, context, dockerfile, args = build
            said = Said(path, first + number - 1, line.strip())
            named = _joined(top, dockerfile) if dockerfile else None
            root = _joined(top, context)
            variable = _env_named_image(line) or ""
            found.append(ImageBuild(image, root, named, "workflow", said, args, variable=variable))
    return found


def _expressions_as_words(script: str) -> str:
    """A step's script with each `${{ ... }}` left on one line written `${EXPRESSION}`: one
    word, whatever spaces it holds (`-t acme/app:${{ github.sha }} .` builds `.`, not `}}`)."""
    if "${{" not in script:
        return script
    return _WORKFLOW_EXPRESSION.sub(lambda m: m[0] if "\n" in m[0] else "${EXPRESSION}", script)


_ENV_EXPRESSION = regex.compile(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_VARIABLE_WORD = regex.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _env_named_image(line: str) -> str | None:
    """The `env` variable a step's `docker build -t .../${{ env.NAME }}:...` names its
    image by (the last segment of its repository), which a manifest the same pipeline
    fills in writes `${NAME}`; None when the image's name is not one variable."""
    start = _DOCKER_BUILD_COMMAND.search(line)
    if start is None:
        return None
    rest = _WORKFLOW_EXPRESSION.sub(
        "${EXPRESSION}", _ENV_EXPRESSION.sub(r"${\1}", line[start.end() :])
    )
    try:
        tags, _, _ = _docker_build_args(shell_words(rest, comments=True))
    except ValueError:
        return None
    # (its case kept: image_repository's lower case is no variable's name)
    last = tags[0].split("@", 1)[0].rsplit("/", 1)[-1].partition(":")[0] if tags else ""
    named = _VARIABLE_WORD.fullmatch(last)
    return named[1] if named and named[1] != "EXPRESSION" else None


def _logical_lines(text: str, *, comments: bool) -> Iterator[tuple[int, str]]:
    """Lines with their `\\` continuations joined, each with its first line's number;
    `comments` drops whole-line `#` comments (a Dockerfile's, even inside a
    continuation)."""
    pending: list[str] = []
    first = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if comments and (stripped.startswith("#") or (not stripped and pending)):
            continue
        if not pending:
            first = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        yield first, " ".join(part.strip() for part in pending).strip()
        pending = []
    if pending:
        yield first, " ".join(part.strip() for part in pending).strip()


_BUILD_FLAGS_WITH_VALUE = frozenset(
    {
        "-t",
        "--tag",
        "-f",
        "--file",
        "--build-arg",
        "--target",
        "--platform",
        "--label",
        "--cache-from",
    }
)


# `docker build`, `docker buildx build`, `docker image build`, and a variable word between
# (`docker ${USE_BUILDX} build`: `buildx` or nothing, as the script chooses)
_DOCKER_BUILD_COMMAND = regex.compile(
    r"\b(?:docker|podman)"
    r"(?:\s+(?:buildx|image|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|\$\([A-Za-z_]\w*\)))?\s+build\b"
)
_WORKFLOW_EXPRESSION = regex.compile(r"\$\{\{[^}]*\}\}")  # GitHub's `${{ ... }}`
_VARIABLE = regex.compile(r"\w+=\S*")  # `CGO_ENABLED=0` before a command


def _docker_build_words(
    line: str,
) -> tuple[str, str, str | None, tuple[tuple[str, str], ...]] | None:
    start = _DOCKER_BUILD_COMMAND.search(line)
    if start is None:
        return None
    rest = _WORKFLOW_EXPRESSION.sub("${EXPRESSION}", line[start.end() :])
    try:
        words = shell_words(rest, comments=True)
    except ValueError:
        return None
    tags, context, dockerfile = _docker_build_args(words)
    image, context = _image_past_registry(tags[0] if tags else None), _literal(context)
    if (
        image is None
        or context is None
        or (dockerfile is not None and _literal(dockerfile) is None)
    ):
        return None
    return image, context, dockerfile, _build_arg_values(words)


def _docker_build_args(words: list[str]) -> tuple[list[str], str | None, str | None]:
    """The tags, the context and the Dockerfile of `docker build`'s arguments (the words
    after `build`, up to the end of the command)."""
    tags: list[str] = []
    dockerfile = context = None
    depth = 0  # of `$(...)` opened in the words: a `)` past them closes a subshell
    for end, word in enumerate(words):  # `docker build -t x .; docker push x`: up to `;`
        closing = _subshell_end(word, depth)
        if closing is not None:  # `(cd web && docker build -t x .)`: up to the subshell's end
            words = [*words[:end], word[:closing]] if closing else words[:end]
            break
        depth += word.count("(") - word.count(")")
        if word.endswith(";") and word != ";":
            words = [*words[:end], word[:-1]]
            break
    words = _substitutions_whole(words)
    index = 0
    while index < len(words):
        word = words[index]
        if word in CONTROL_OPERATORS:
            break
        if taken := redirection(word):  # `../.. 2>&1 | sed ...`: no path of the build
            index += taken
            continue
        flag, _, inline = word.partition("=")
        if flag in _BUILD_FLAGS_WITH_VALUE:
            value = inline if inline else (words[index + 1] if index + 1 < len(words) else "")
            index += 1 if inline else 2
            if flag in ("-t", "--tag"):
                tags.append(value)
            elif flag in ("-f", "--file"):
                dockerfile = value
            continue
        if not word.startswith("-"):
            # the last: `docker build` takes one PATH, and a word a `$(date -u +%s)` split
            # in the middle of the flags is not it
            context = word
        index += 1
    return tags, context, dockerfile


def _substitutions_whole(words: list[str]) -> list[str]:
    """The words with each `$(...)` split by spaces joined back into one word: in
    `--build-arg v=$(shell git describe 2>/dev/null || echo none) .`, the words inside
    are neither the context nor a `||` that ends the command (one pass, one word built
    at a time)."""
    joined: list[list[str]] = []
    depth = 0
    for word in words:
        if depth > 0:
            joined[-1].append(word)
        else:
            joined.append([word])
        depth = max(0, depth + word.count("(") - word.count(")"))
    return [" ".join(parts) for parts in joined]


def _subshell_end(word: str, depth: int) -> int | None:
    """Where in a word a `)` closes more than the `$(` opened before it (`depth` of them,
    in the words before) do: the end of the subshell the command runs in; None: nowhere."""
    if ")" not in word:
        return None
    for index, character in enumerate(word):
        depth += (character == "(") - (character == ")")
        if depth < 0:
            return index
    return None


def _build_arg_values(words: list[str]) -> tuple[tuple[str, str], ...]:
    """The `--build-arg NAME=VALUE` pairs of `docker build`'s arguments (a value that is
    not literal kept as it is: what reads it sees it is unknown)."""
    found = []
    for index, word in enumerate(words):
        if word in CONTROL_OPERATORS:
            break
        flag, _, inline = word.partition("=")
        if flag == "--build-arg":
            value = inline if inline else (words[index + 1] if index + 1 < len(words) else "")
            name, equals, given = value.partition("=")
            if equals and name:
                found.append((name, given))
    return tuple(found)


# A variable's assignment: Make's (`NAME = v`, `:=`, `::=`, `?=`, `+=`, after `export` or
# `override`) and the shell's (`NAME=v`, after `export`, `local` or `readonly`).
_MAKE_ASSIGNMENT = regex.compile(
    r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(::?=|:::=|\?=|\+=|=)\s*(.*)$"
)
_SHELL_ASSIGNMENT = regex.compile(
    r"^(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*$"
)
# A variable's use: `$(NAME)` and `${NAME}` in Make; `${NAME}` and `$NAME` in the shell.
# The shell's idiom for the folder a script is in: `$(dirname "$0")`, `$(dirname
# "${BASH_SOURCE[0]}")`, quoted or not.
_SCRIPT_FOLDER = regex.compile(
    r'"?\$\(\s*dirname\s+"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?\s*\)"?'
)
# The shell's idiom for a folder's absolute path, `$(cd DIR && pwd)` (`;` for `&&`, `cd
# -P`, `pwd -P`): DIR, from where the script runs (a `$(dirname "$0")` in it already the
# script's folder, `.`)
_CD_PWD = regex.compile(
    r"\$\(\s*cd\s+(?:-[PL]\s+)?([^\s;&|()$`]+)\s*(?:;|&&)\s*pwd(?:\s+-[PL])?\s*\)"
)
_VARIABLE_ONLY = regex.compile(
    r"\$\{?\(?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9])\}?\)?"
)  # `${REGISTRY}`, `$1`
# Variables glued in front of an image's last segment (`${HUB_NAMESPACE}shop-api`, `$(REG)$(
# REPO)shop-api`): a prefix of registry and namespace, ending with its own `/` (or empty)
_PREFIX_VARIABLES = regex.compile(r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$\([A-Za-z_][A-Za-z0-9_]*\))+")
_MAKE_VARIABLE = regex.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SHELL_VARIABLE = regex.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _past_prefix(segment: str) -> str:
    """An image's last segment past the variables glued in front of it that hold the
    registry and namespace (`${HUB_NAMESPACE}shop-api` -> `shop-api`, pushed as
    `eu.gcr.io/acme/shop-api` or run as `shop-api`), when the rest is a name of its own
    (a letter or digit first: `${PROJECT}-api` is a name the variable begins, kept whole)."""
    prefix = _PREFIX_VARIABLES.match(segment)
    if prefix is None or not segment[prefix.end() :][:1].isalnum():
        return segment
    return segment[prefix.end() :]


def script_builds(path: str, text: str) -> list[ImageBuild]:
    """The images a Makefile or a shell script builds (script_facts)."""
    return script_facts(path, text)[0]


_DOCKER_TAG_COMMAND = regex.compile(r"\b(?:docker|podman)(?:\s+image)?\s+tag\b")


def script_facts(
    path: str, text: str, *, make: bool | None = None, folder: str | None = None
) -> tuple[list[ImageBuild], list[ImageTag]]:
    """`docker build -t|--tag[=] NAME[:TAG] [-f FILE] CONTEXT` (`podman build`, `docker
    buildx build`) and `docker tag SOURCE TARGET` in a Makefile or a shell script, run in
    the file's folder (or the one a `cd DIR &&`, `cd DIR;` or `pushd DIR &&` before it on
    the line names, in a subshell too: `(cd web && docker build .)`, or a script's
    `cd DIR` lines before it; `$(dirname "$0")` is the script's folder; after a `cd` to a
    folder not known, no build). A variable is read where the same file sets it (`IMAGE
    ?= acme/shop`: Make's anywhere in the file, as Make reads them all before it runs a
    recipe; the shell's on a line before); an image whose registry is still a variable
    (`$(HUB)/app:$(TAG)`; `${HUB_NAMESPACE}app`, variables glued in front of the name
    that hold the registry and namespace) is named by its last segment alone, a bare name.
    `make`: whether the text is Make's (by default, unless the file is a `.sh`); `folder`:
    where it runs (by default, the file's folder)."""
    make = not path.endswith(".sh") if make is None else make
    folder = folder or os.path.dirname(path) or "."
    lines = list(_logical_lines(text, comments=True))
    variables: dict[str, str | None] = {}  # None: set, but to nothing known here
    if make:
        for _, line in lines:
            _assign(line, variables, make=True)
    found: list[ImageBuild] = []
    tags: list[ImageTag] = []
    here: str | None = folder  # a script's folder after its `cd` lines (None: unknown)
    expand = functools.partial(_expanded, variables=variables, make=make)
    loops: list[tuple[str, str]] = []  # a script's `for NAME in WORDS` around the line
    scratch: dict[str, str] = {}  # a folder a script's `cp -R` made: the folder it copied
    guards = Guards()  # a script's branches open at its line
    unsure: list[ImageBuild] = []  # builds in a branch whose condition is not known here
    # Make's `NAME ?= value`: a default the caller's `make NAME=...` replaces
    defaults = {
        assigned[1]
        for _, line in lines
        if make and (assigned := _MAKE_ASSIGNMENT.match(line)) and assigned[2] == "?="
    }
    for number, raw in lines:
        # `$(dirname "$0")` is the script's own folder, where it starts
        line = raw if make or "dirname" not in raw else _SCRIPT_FOLDER.sub(".", raw)
        if not make and "pwd" in line:  # `$(cd "$(dirname "$0")/.." && pwd)`: `./..`
            line = _CD_PWD.sub(lambda found: found[1].replace('"', ""), line)
        recipe = line.lstrip("@-+ \t") if make else line
        # the `if`/`case` branches around its commands (a script's: from the lines before)
        if GUARD_WORDS.search(recipe) or (guards.frames and not make):  # a `case`'s arm too
            branches = (Guards() if make else guards).read(recipe)
        else:
            branches = [] if make else [(0, guards.guard())]
        start = _DOCKER_BUILD_COMMAND.search(recipe)
        tag = _DOCKER_TAG_COMMAND.search(recipe) if start is None else None
        if tag is not None:
            tags += _tag(recipe[tag.end() :], expand, Said(path, number, line.strip()))
        if start is None:
            if not make:
                header = _loop_header(line)
                if header is not None:
                    loops.append(header)
                elif loops and line.startswith("done") and _LOOP_END.match(line):
                    loops.pop()
                _assign(line, variables, make=False)
                if line.startswith(("cd ", "pushd ")):  # each recipe line of Make: a new shell
                    try:
                        words = [expand(word) for word in shell_words(line, comments=True)]
                    except ValueError:
                        words = ["cd", "$"]
                    here = _cd(here, ["cd", *words[1:2]]) if here is not None else None
                    # a scratch copy the script made of a folder: the folder's code
                    here = scratch.get(here, here) if here is not None else None
                elif line.startswith("cp ") and here is not None:
                    _scratch_copy(line, expand, here, scratch)
            continue
        found += _commands_builds(
            (path, number, recipe, here, make),
            branches,
            loops[-1] if loops else None,
            (expand, variables, defaults),
            unsure,
        )
    return _without_rivals(found, unsure), tags


def _commands_builds(
    line: tuple[str, int, str, str | None, bool],
    branches: list[tuple[int, Guard]],
    around: tuple[str, str] | None,
    known: tuple[Callable[[str], str], Mapping[str, str | None], set[str]],
    unsure: list[ImageBuild],
) -> list[ImageBuild]:
    """The builds of each `docker build` of a script's line (`line`: the file, the line's
    number and text, the folder it runs in, whether it is Make's), each taken where its
    `branches` can run; `around`: the loop a script's lines before opened; `known`: the
    expansion, the variables and Make's defaults; `unsure` gets the builds of a branch
    whose condition is not known here."""
    path, number, recipe, here, make = line
    expand, variables, defaults = known
    found: list[ImageBuild] = []
    for command, masked in _line_commands(recipe):
        guard, doubtful = guard_at(branches, command.start()), len(unsure)
        loop = _loop_header(masked[: command.start()]) or around
        if loop is None:
            held = settled(guard, functools.partial(_test_word, expand, defaults))
            if held is False:
                continue
            built = _line_builds(path, number, masked, expand, here, make, command)
            if make and "$" in masked[command.end() :]:  # a variable the caller gives
                built += _parameter_builds(path, number, masked, variables, expand, here, defaults)
            unsure += built if held is None else []
        else:
            built = _loop_builds(
                path, number, masked, loop, expand, here, make, defaults, (guard, unsure)
            )
        # the line as written (not blanked), and the builds in doubt as quoted so
        built_raw, built = (
            built,
            [replace(b, said=replace(b.said, text=recipe.strip())) for b in built],
        )
        doubts = {id(b) for b in unsure[doubtful:]}
        unsure[doubtful:] = [q for b, q in zip(built_raw, built, strict=True) if id(b) in doubts]
        found += built
    return found


# How many `docker build`s of one line are read (`if ...; then docker build ...; else
# docker build ...; fi`): past it, the line's first ones
MAX_LINE_COMMANDS = 16


def _line_commands(recipe: str) -> Iterator[tuple[regex.Match[str], str]]:
    """Each `docker build` of a line, with the line as its build is read: the ones before
    it blanked out (the same length, so that the places found stay), the ones after it
    cut off."""
    commands = list(itertools.islice(_DOCKER_BUILD_COMMAND.finditer(recipe), MAX_LINE_COMMANDS))
    masked = recipe
    for command, after in itertools.zip_longest(commands, commands[1:]):
        # up to the next one: a command's words end before it (read once, not each time)
        yield command, masked[: after.start()] if after is not None else masked
        span = command.end() - command.start()
        masked = masked[: command.start()] + "_" * span + masked[command.end() :]


def _test_word(expand: Callable[[str], str], defaults: set[str], word: str) -> str | None:
    """A test's word's value once the file's variables are put in; None: not known, as is
    a Make default's (`ENV ?= dev`: the caller's `make ENV=prod` is the one tested)."""
    if defaults and any(a in defaults or b in defaults for a, b in _MAKE_VARIABLE.findall(word)):
        return None
    value = expand(word)
    return None if "$" in value or "{{" in value else value


def _without_rivals(found: list[ImageBuild], unsure: list[ImageBuild]) -> list[ImageBuild]:
    """The builds less those in a branch whose condition is not known (`unsure`) where
    another build makes the same image otherwise: which one runs is not known here, and
    a wrong link is worse than none."""
    if not unsure:
        return found
    made: dict[tuple[str, str], set[tuple[str, str | None]]] = defaultdict(set)
    for build in found:
        made[(build.image, build.each)].add((build.context, build.dockerfile))
    doubtful = {id(build) for build in unsure}
    return [
        build
        for build in found
        if id(build) not in doubtful or len(made[(build.image, build.each)]) == 1
    ]


# `cp`'s options that copy a folder whole (`-R`, `-r`, `-a`, together with others: `-rf`)
_RECURSIVE_COPY = regex.compile(r"-[A-Za-z]*[Rra][A-Za-z]*|--recursive|--archive")


def _scratch_copy(
    line: str, expand: Callable[[str], str], here: str, scratch: dict[str, str]
) -> None:
    """Keep in `scratch` the folder a script's `cp -R SOURCE DEST` (`-r`, `-a`) makes of
    another (`cp -R ../assist ../_assist_ee`, then `cd ../_assist_ee` and `docker build .`:
    a scratch copy to lay an edition's files over): the copy holds the source's code. Both
    paths literal once the script's variables are read, one source only; a copy of a
    scratch copy is of its source."""
    try:
        words = [expand(word) for word in shell_words(line, comments=True)]
    except ValueError:
        return
    words = command_words(words)[1:]  # (`cp -R a b 2>/dev/null || true`: a and b)
    options = [word for word in words if word.startswith("-")]
    paths = [word for word in words if not word.startswith("-")]
    if len(paths) != 2 or not any(_RECURSIVE_COPY.fullmatch(word) for word in options):
        return
    source, dest = (_literal(word.rstrip("/")) for word in paths)
    if source is None or dest is None or "*" in source:
        return
    copied = _joined(here, source)
    scratch[_joined(here, dest)] = scratch.get(copied, copied)


def _line_builds(
    path: str,
    number: int,
    recipe: str,
    expand: Callable[[str], str],
    here: str | None,
    make: bool,
    command: regex.Match[str] | None = None,
) -> list[ImageBuild]:
    """The build of a script's line's `docker build` (`command`, when found already; none
    when its image, its folder or its context is not known)."""
    command = command or _DOCKER_BUILD_COMMAND.search(recipe)
    if command is None:
        return []
    try:
        words = [expand(word) for word in shell_words(recipe[command.end() :], comments=True)]
        before = [expand(word) for word in shell_words(recipe[: command.start()])]
    except ValueError:
        return []
    cwd = _cd(here, before) if here is not None else None
    named_as, context, dockerfile = _docker_build_args(words)
    image = literal_image(named_as[0]) if named_as else None
    if image is None and named_as:  # `$(REGISTRY)/name:$(TAG)`: its literal last segment
        image = literal_image(_past_prefix(image_repository(named_as[0]).rsplit("/", 1)[-1]))
    tagged = tuple(image_tag(name) for name in named_as)
    if image is None and any(_VARIABLE_ONLY.fullmatch(image_repository(n)) for n in named_as):
        # `${REGISTRY}:cart-latest`: the repository a parameter, the tag the service's
        image = "" if any(t not in (None, "latest") for t in tagged) else None
    if (
        image is None
        or cwd is None
        or _literal(context) is None
        or (dockerfile is not None and _literal(dockerfile) is None)
    ):
        return []
    named = _joined(cwd, dockerfile) if dockerfile else None  # -f: from where it runs
    said = Said(path, number, recipe.strip())  # a recipe's line less its `@-+`
    kind = "makefile" if make else "script"
    root = _joined(cwd, str(context))
    args = _build_arg_values(words)
    return [ImageBuild(image, root, named, kind, said, args, tagged)]


# `for NAME in WORDS; do` (the shell's loop, in a script or a Make recipe) and its `done`
_LOOP_HEADER = regex.compile(
    r"(?:^|[;&|({]\s*|\bdo\s+|\bthen\s+)for\s+([A-Za-z_]\w*)\s+in\s+([^;]*?)\s*(?:;|$)"
)
_LOOP_END = regex.compile(r"^done\b")
# How many values of a loop are read: past it, the loop is read as one of values not known
MAX_LOOP = 64
_GLOB_WORD = regex.compile(r"[*?\[]")


def _loop_header(text: str) -> tuple[str, str] | None:
    """The name and the words of the last `for NAME in WORDS` in the text, or None."""
    if "for" not in text:  # most lines: no regex run
        return None
    found = list(_LOOP_HEADER.finditer(text))
    return (found[-1][1], found[-1][2]) if found else None


def _loop_builds(
    path: str,
    number: int,
    recipe: str,
    loop: tuple[str, str],
    expand: Callable[[str], str],
    here: str | None,
    make: bool,
    defaults: set[str],
    guarded: tuple[Guard, list[ImageBuild]] = ((), []),
) -> list[ImageBuild]:
    """The builds of a `docker build` in a `for NAME in WORDS` loop: one a value, where
    the words are literal (`for svc in $(SERVICES)`, `SERVICES := cart orders`); where
    they are not, or are Make's default that `make SVC=...` replaces, one build whose
    image names the value (`acme/shop-$$svc`), matched by the images run (`made_for`).
    `guarded`: the branches around the command, and the list its builds whose branch
    may not run are added to (a value for which a branch cannot run builds nothing)."""
    name, listed = loop
    use = regex.compile((r"\$\$" if make else r"\$") + rf"(?:\{{{name}\}}|{name}\b)")
    guard, unsure = guarded
    if use.search(recipe) is None:
        held = settled(guard, functools.partial(_test_word, expand, defaults))
        built = _line_builds(path, number, recipe, expand, here, make) if held is not False else []
        unsure += built if held is None else []
        return built
    try:
        # a variable's value is split into words, as the shell does with `$(SERVICES)`
        values = [v for word in shell_words(listed, comments=True) for v in expand(word).split()]
    except ValueError:
        values = []
    known = bool(values) and len(values) <= MAX_LOOP
    known = known and all(_literal(v) and not _GLOB_WORD.search(v) for v in values)
    given = [a or b for a, b in _MAKE_VARIABLE.findall(listed)] if make else []
    found: list[ImageBuild] = []
    for value in values if known else []:

        def valued(word: str, value: str = value) -> str | None:
            return _test_word(expand, defaults, use.sub(lambda _: value, word))

        held = settled(guard, valued)
        if held is not False:
            built = _built_with(path, number, recipe, use, value, expand, here, make)
            unsure += built if held is None else []
            found += built
    if not known or any(variable in defaults for variable in given):
        held = settled(guard, functools.partial(_test_word, expand, defaults))
        if held is not False:
            built = _builds_of_each(path, number, recipe, name, use, expand, here, make)
            unsure += built if held is None else []
            found += built
    return found


def _parameter_builds(
    path: str,
    number: int,
    recipe: str,
    variables: Mapping[str, str | None],
    expand: Callable[[str], str],
    here: str | None,
    defaults: set[str],
) -> list[ImageBuild]:
    """A Make recipe's build over a variable the caller gives (`make image BIN=user`: one
    the file never sets, or sets with `?=`): as a loop's over values not known here."""
    start = _DOCKER_BUILD_COMMAND.search(recipe)
    if start is None:
        return []
    used = dict.fromkeys(a or b for a, b in _MAKE_VARIABLE.findall(recipe[start.end() :]))
    return [
        build
        for name in used
        if name not in variables or name in defaults
        for build in _builds_of_each(
            path,
            number,
            recipe,
            name,
            regex.compile(rf"\$\({name}\)|\$\{{{name}\}}"),
            expand,
            here,
            True,
        )
    ]


def _builds_of_each(
    path: str,
    number: int,
    recipe: str,
    name: str,
    use: regex.Pattern[str],
    expand: Callable[[str], str],
    here: str | None,
    make: bool,
) -> list[ImageBuild]:
    """The build a line makes for each value of `name` (its uses, `use`), whose image's
    name holds the value once, and whose context, Dockerfile or build arguments hold it
    too (one that builds the same whatever the value names no service)."""
    found = []
    for build in _built_with(path, number, recipe, use, LOOP_VALUE, expand, here, make):
        repository = image_repository(build.image)
        chosen = [build.context, build.dockerfile or "", *(value for _, value in build.args)]
        if (
            LOOP_VALUE in repository.rsplit("/", 1)[-1]
            and repository.count(LOOP_VALUE) == 1
            and any(LOOP_VALUE in text for text in chosen)
        ):
            found.append(replace(build, each=name))
    return found


def _built_with(
    path: str,
    number: int,
    recipe: str,
    use: regex.Pattern[str],
    value: str,
    expand: Callable[[str], str],
    here: str | None,
    make: bool,
) -> list[ImageBuild]:
    """A loop's line's build with the loop's name given `value`."""
    line = use.sub(lambda _: value, recipe)
    builds = _line_builds(path, number, line, expand, here, make)
    return [replace(b, said=replace(b.said, text=recipe.strip())) for b in builds]


def markdown_facts(path: str, data: bytes) -> tuple[list[ImageBuild], list[ImageTag]]:
    """The builds and tags of a documentation file's shell code blocks (Markdown's ``` or
    ~~~ fences, AsciiDoc's `----` and `....` blocks; with no language or a shell's; a
    console's `$ ` prompts dropped), the blocks read in turn as one shell script run from
    the file's folder (a `cd` in one holds for the next), and each block alone too (links.py
    looks above the folder when the Dockerfile a build names is not there),
    kind `docs`. An image named with a placeholder for its registry or owner
    (`<YOUR-USER>/app`) is named by its last segment. One pass over the lines; only the
    first MAX_BLOCKS blocks, and none of a file past MAX_MARKDOWN."""
    if len(data) > MAX_MARKDOWN or (b"docker" not in data and b"podman" not in data):
        return [], []
    lines = _text(data).splitlines()
    asciidoc = path.lower().endswith(ASCIIDOC_SUFFIXES)
    # the shell blocks at their lines, the rest blank: one session, as a reader runs the
    # page's blocks in one terminal (a `cd` in one holds for the blocks after it)
    session = [""] * len(lines)
    alone: list[ImageBuild] = []  # each block's builds read from the file's folder
    for start, block in itertools.islice(
        _adoc_blocks(lines) if asciidoc else _markdown_blocks(lines), MAX_BLOCKS
    ):
        text = [_PROMPT.sub("", line, count=1) for line in block or ()]
        session[start : start + len(text)] = text
        if any("docker" in line or "podman" in line for line in text):
            built, _ = script_facts(path, "\n".join(text), make=False)
            alone += [replace(b, said=replace(b.said, line=b.said.line + start)) for b in built]
    found, tags = script_facts(path, "\n".join(session), make=False)
    # a block read alone too: an earlier block's `cd` may be a step it does not follow
    # (`cd docker` to start compose, then builds from the top); links.py keeps the
    # reading whose Dockerfile the tree holds, the session's first
    seen = {(b.said.line, b.context, b.dockerfile) for b in found}
    found += [b for b in alone if (b.said.line, b.context, b.dockerfile) not in seen]
    applied = _applied_after(lines, sorted({b.said.line for b in found}))
    return [
        replace(b, applies=applied.get(b.said.line, ())) for b in map(_from_docs, found) if b
    ], tags


_KUBECTL_APPLY = regex.compile(r"\bkubectl\s+(?:apply|create|replace)\b")
_MANIFEST_PATH = regex.compile(r"[^\s\[\]()<>\"'`=]+\.ya?ml\b")


def _applied_after(lines: list[str], built_at: list[int]) -> dict[int, tuple[str, ...]]:
    """By the line of each build, the manifests a documentation's `kubectl apply|create
    -f` lines name after it and before the next build (in a code block or not: AsciiDoc's
    `link:{repo}/kubernetes/Deployment.yml[...]` too): each path's literal end, its last
    two names at most, with no attribute or variable in them."""
    found: dict[int, list[str]] = defaultdict(list)
    at = 0  # the index in built_at of the build the lines follow
    for number, line in enumerate(lines, start=1):
        while at < len(built_at) and built_at[at] <= number:
            at += 1
        if at == 0 or "kubectl" not in line or _KUBECTL_APPLY.search(line) is None:
            continue
        for path in _MANIFEST_PATH.findall(line):
            names = path.split("/")[-2:]
            literal = [n for n in names if n and not any(c in n for c in "{}$:")]
            if literal and literal[-1] == names[-1]:
                found[built_at[at - 1]].append("/".join(literal[-2:]))
    return {line: tuple(dict.fromkeys(paths)) for line, paths in found.items()}


# A line of a page's text that is a `docker build` command alone, out of any code block
# (`docker build -t grpc-service:v1 grpc-project/`), in backticks or not, a `<br>` after it
_PROSE_BUILD = regex.compile(r"(?:docker|podman)(?:\s+buildx)?\s+build\s")
_LINE_BREAK_TAG = regex.compile(r"<br\s*/?>$", regex.IGNORECASE)


def _prose_build(line: str) -> str | None:
    """The command a line of text is, when it is a build command alone; else None."""
    if "build" not in line:  # most lines: no regex run
        return None
    text = _PROMPT.sub("", _LINE_BREAK_TAG.sub("", line.strip()).rstrip(), count=1)
    if len(text) > 2 and text[0] == text[-1] == "`":
        text = text[1:-1]
    return text if _PROSE_BUILD.match(text) and "`" not in text and "<" not in text else None


def _markdown_blocks(lines: list[str]) -> Iterator[tuple[int, list[str] | None]]:
    """Each fenced block's opening line and, a shell's, its lines (None: another
    language's), and each line of the text that is a build command alone, as a block of
    its own; a block never closed runs to the end of the file (CommonMark)."""
    fence: str | None = None  # the open block's fence
    block: list[str] = []
    shell, start = False, 0
    for number, raw in enumerate(lines, start=1):
        if fence is None:
            opened = _FENCE.match(raw)
            if opened is not None:
                fence, start, block = opened.group(1), number, []
                shell = opened.group(2).lower() in _SHELL_BLOCKS
            elif (command := _prose_build(raw)) is not None:
                yield number - 1, [command]  # a paragraph that is a build command alone
            continue
        stripped = raw.strip()
        if not (stripped.startswith(fence) and not stripped.strip(fence[0])):
            block.append(raw)
            continue
        fence = None
        yield start, block if shell else None
    if fence is not None:
        yield start, block if shell else None


def _adoc_blocks(lines: list[str]) -> Iterator[tuple[int, list[str] | None]]:
    """Each AsciiDoc listing or literal block's opening line and, a shell's (its
    attribute line's language a shell's, or none given), its lines; one never closed
    runs to the end of the file."""
    delimiter: str | None = None
    block: list[str] = []
    language, shell, start = "", False, 0
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if delimiter is None:
            attributes = _ADOC_ATTRIBUTES.match(stripped)
            opened = _ADOC_DELIMITER.match(stripped)
            if attributes is not None:  # `[source,bash]`: the style, then the language
                positional = [p.strip() for p in attributes.group(1).split(",")]
                language = positional[1] if len(positional) > 1 and "=" not in positional[1] else ""
            elif opened is not None:
                delimiter, start, block = opened.group(1), number, []
                shell, language = language.lower() in _SHELL_BLOCKS, ""
            elif stripped and not stripped.startswith("."):  # a `.Title` keeps the attributes
                language = ""
            continue
        if stripped != delimiter:
            block.append(raw)
            continue
        delimiter = None
        yield start, block if shell else None
    if delimiter is not None:
        yield start, block if shell else None


_PLACEHOLDER = regex.compile(r"[<>\[\]{}]")  # in no image's name: `<YOUR-USER>`, `[URL]`


def _from_docs(build: ImageBuild) -> ImageBuild | None:
    """A build read in a documentation's block: kind `docs`, a placeholder registry or
    owner (`<YOUR-USER>/app`, `[YOUR_REGISTRY_URL]/app`, set in an earlier block)
    dropped; None when the image's own name is a placeholder."""
    image = build.image
    if _PLACEHOLDER.search(image):
        image = image.rsplit("/", 1)[-1]
    if _PLACEHOLDER.search(image):
        return None
    return replace(build, image=image, kind="docs")


def _tag(rest: str, expand: Callable[[str], str], said: Said) -> list[ImageTag]:
    """`SOURCE TARGET` after `docker tag`, each an image whose repository is literal."""
    try:
        words = [expand(w) for w in shell_words(rest, comments=True) if not w.startswith("-")]
    except ValueError:
        return []
    if len(words) < 2:
        return []
    source, target = literal_image(words[0]), literal_image(words[1])
    return [ImageTag(source, target, said)] if source and target and source != target else []


# What `getopts` gives an option's case: a script's variable set to it keeps its default,
# what the script does run without the option (`tag=acme/db:1` ... `t) tag=$OPTARG ;;`).
_OPTION_VALUES = frozenset({"$OPTARG", "${OPTARG}"})


def _assign(line: str, variables: dict[str, str | None], *, make: bool) -> None:
    """Read a line that sets a variable: its value with the variables known so far in it."""
    assigned = (_MAKE_ASSIGNMENT if make else _SHELL_ASSIGNMENT).match(line)
    if assigned is None:
        return
    name, how = assigned.group(1), assigned.group(2) if make else "="
    if how == "?=" and name in variables:
        return
    given = assigned.group(3 if make else 2).strip().strip("\"'")
    if not make and given in _OPTION_VALUES and variables.get(name):
        return  # `tag=$OPTARG` under `getopts`: a run without the option keeps the default
    value = _expanded(given, variables=variables, make=make)
    # a value still holding a variable unknown here keeps it (its last segment may be
    # literal); one appended to is unknown
    variables[name] = value if how != "+=" and len(value) <= _MAX_VALUE else None


# The longest value a variable keeps (as code/budget.py's MAX_TEXT, a layer above): past it
# the variable is unknown, so `A := $(A)$(A)` line after line stays small.
_MAX_VALUE = 4096
# What a Makefile's recipe and rule lines may grow by in all as its variables are put in
# (each line by _MAX_VALUE at most): 16,000 lines of `$(GOBUILD)`, a value of 4 KB naming
# hundreds of packages, would otherwise be 64 MB of commands read
MAX_EXPANDED = 4 * MAX_SCRIPT


def _expanded(
    word: str,
    *,
    variables: Mapping[str, str | None],
    make: bool,
    budget: list[int] | None = None,
) -> str:
    """A word with the variables the file set to a literal before it replaced, in one pass
    (each value was expanded when it was set); an unknown one is left as it is, and so is
    one past what `budget` (the file's, shared by its lines) has left to put in."""
    if "$" not in word:
        return word
    room = [_MAX_VALUE]  # what the values put in may add: `$(A)` ten thousand times stays small
    rooms = [room] if budget is None else [room, budget]

    def value(match: regex.Match[str]) -> str:
        known = variables.get(match.group(1) or match.group(2) or "")
        if known is None or any(len(known) > left[0] for left in rooms):
            return match.group(0)
        for left in rooms:
            left[0] -= len(known)
        return known

    return (_MAKE_VARIABLE if make else _SHELL_VARIABLE).sub(value, word)


def _cd(folder: str, words: list[str]) -> str | None:
    """The folder a command runs in after the words before it on its line (`cd ../.. &&`);
    None when a `cd` goes to a folder that is not literal."""
    cwd = folder
    for index, word in enumerate(words[:-1]):
        # `cd`, `pushd`, and either opening a subshell (`(cd infra && docker build .)`)
        if word.removeprefix("(") in ("cd", "pushd"):
            target = words[index + 1].removesuffix(";")  # `cd infra; docker build ...`
            if _literal(target) is None:
                return None
            cwd = _joined(cwd, target)
    return cwd


def cloudbuild_builds(path: str, text: str) -> list[ImageBuild]:
    """Google Cloud Build: a step of the `docker` builder whose `args` are a `docker
    build` (every literal `-t` tag, the context, `-f`), run in the step's `dir`. `dir` is
    relative to the build's source, whose top is not known: a file that lives in that
    folder (`dir: quickstarts/web` in quickstarts/web/cloudbuild.yaml) is taken to be in
    it, else the file's folder is the top."""
    folder = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    for document in _documents(path, text):
        steps = document.get("steps") if isinstance(document, dict) else None
        for step in steps if isinstance(steps, list) else []:
            if not isinstance(step, dict) or not str(step.get("name", "")).endswith(
                "cloud-builders/docker"
            ):
                continue
            args = step.get("args")
            if not isinstance(args, list) or args[:1] != ["build"]:
                continue
            words = [str(a) for a in args[1:]]
            tags, context, dockerfile = _docker_build_args(words)
            workdir = _literal(step.get("dir", "."))
            if _literal(context) is None or workdir is None:
                continue
            if dockerfile is not None and _literal(dockerfile) is None:
                continue
            inside = os.path.abspath(folder).endswith(os.sep + os.path.normpath(workdir))
            cwd = folder if inside or workdir == "." else _joined(folder, workdir)
            root = _joined(cwd, str(context))
            named = os.path.relpath(_joined(cwd, dockerfile), root) if dockerfile else None
            at = {str(arg).rpartition("=")[2]: i for i, arg in reversed(list(enumerate(args)))}
            images = {literal_image(tag): at.get(tag, 0) for tag in reversed(tags)}  # first of each
            given = dict(_build_arg_values(words))
            found += [
                _built(image, root, named, "cloudbuild", path, text, _item_line(args, i), given)
                for image, i in images.items()
                if image is not None
            ]
    return found


def drone_builds(path: str, text: str) -> list[ImageBuild]:
    """A Drone pipeline's (`kind: pipeline`) steps run with the Docker plugin
    (`plugins/docker`): its `settings` are the build, `context` (`.` by default) and
    `dockerfile` (`Dockerfile` by default) from the repository's top, the image its
    `repo`, passed to the plugin as PLUGIN_REPO (Drone gives a plugin each setting as
    `PLUGIN_<NAME>`): a build with no literal `repo` is of that variable's image alone."""
    folder = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    for document in _documents(path, text):
        if not isinstance(document, dict) or document.get("kind") != "pipeline":
            continue
        steps = document.get("steps")
        for step in steps if isinstance(steps, list) else []:
            if not isinstance(step, dict) or not _DRONE_DOCKER.match(str(step.get("image", ""))):
                continue
            settings = step.get("settings")
            settings = settings if isinstance(settings, dict) else {}
            context = _literal(settings.get("context", "."))
            dockerfile = _literal(settings.get("dockerfile", "Dockerfile"))
            if context is None or dockerfile is None:
                continue
            root = _joined(folder, context)
            named = os.path.relpath(_joined(folder, dockerfile), root)
            image = literal_image(settings.get("repo")) or ""
            line = _line(settings, "repo") if image else _line(step, "settings")
            built = _built(
                image, root, named, "drone", path, text, line, settings.get("build_args")
            )
            found.append(replace(built, variable="PLUGIN_REPO"))
    return found


def _item_line(sequence: Any, index: int) -> int:
    """The 1-based line of a sequence's item."""
    if isinstance(sequence, YSeq) and 0 <= index < len(sequence.item_pos):
        return sequence.item_pos[index][0]
    return 1


# -- Dockerfiles --------------------------------------------------------------------------------


def _instructions(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, INSTRUCTION, arguments) with continuations joined and comments dropped."""
    for line, joined in _logical_lines(text, comments=True):
        if joined:
            word, _, rest = joined.partition(" ")
            yield line, word.upper(), rest.strip()


def _argv(arguments: str) -> tuple[str, ...]:
    """The exec form (a JSON array) as it is; the shell form as `/bin/sh -c TEXT`."""
    if arguments.startswith("["):
        try:
            words = json.loads(arguments)
        except ValueError:
            words = None
        if isinstance(words, list) and all(isinstance(w, str) for w in words):
            return tuple(words)
    return ("/bin/sh", "-c", arguments)


def parse_dockerfile(path: str, text: str, *, stages: bool = True) -> Dockerfile:
    """What a Dockerfile's last stage copies and runs, with its FROM line and the names
    its ENV lines set; with `stages`, each named stage before it read as the image a
    build targeting it makes (the text cut where the next stage begins)."""
    read = _run_stage_first(_parse_stages(path, text), text)
    froms = [
        (line, _stage_named(arguments)[1])
        for line, word, arguments in _instructions(text)
        if word == "FROM"
    ]
    read_apart = stages and 1 < len(froms) <= MAX_STAGES_APART and len(text) <= MAX_TEXT_APART
    lines = text.splitlines(keepends=True) if read_apart else []
    ends = [(name, froms[i + 1][0]) for i, (_, name) in enumerate(froms[:-1]) if name]
    targets = tuple(
        (name, parse_dockerfile(path, "".join(lines[: end - 1]), stages=False))
        for name, end in ends[-MAX_TARGETS:]
        if lines and name != froms[-1][1]
    )
    return replace(
        read,
        from_said=_last_from(path, text),
        env_names=_env_names(text),
        fetched=_fetched(path, text),
        stage=froms[-1][1] if froms else "",
        targets=targets,
        stage_files=_stage_files(path, text),
        env_values=_stage_env(text),
    )


MAX_TARGETS = 8  # named stages of a Dockerfile read as a build's target
MAX_STAGES_APART = 24  # a Dockerfile of more stages has its last one read alone
MAX_TEXT_APART = 32 * 1024  # so has one longer than this (characters)


def _parse_stages(path: str, text: str) -> Dockerfile:
    workdir = "/"
    copies: list[Copy] = []
    entrypoint: tuple[str, ...] | None = None
    cmd: tuple[str, ...] | None = None
    entrypoint_said = cmd_said = None
    base: str | None = None
    declared: dict[str, str | None] = {}  # the ARGs, with their literal defaults
    arg_folders: list[tuple[str, Said]] = []
    named_stage = ""  # the stage being read's name (`AS name`)
    # each named stage's state when the next began: a stage FROM it starts from there
    stages: dict[str, tuple[Any, ...]] = {}
    earlier: list[Copy] = []  # the copies of the stages before the one being read
    outputs = _StageOutputs()  # what each stage copies from earlier ones, as context paths
    built_arg_folders: list[tuple[str, Said]] = []
    runs = _Runs(path, _global_args(text))  # what the RUN lines build, with the ENV values
    sourced: list[Copy] = []  # the stage's copies, its ARGs' defaults put in (_defaulted)
    from_images: list[tuple[str, Copy]] = []  # the stage's copies from images
    for line, instruction, arguments in runs.expanded(_instructions(text)):
        runs.read(line, instruction, arguments, named_stage, (workdir, sourced, declared))
        if instruction == "FROM":  # a new stage: only the last one runs
            earlier += copies
            if base is not None:
                state = (workdir, copies, entrypoint, cmd, entrypoint_said, cmd_said, base)
                if named_stage:
                    stages[named_stage] = state
                outputs.end(named_stage, copies)
            base, named_stage = _stage_named(arguments)
            outputs.begin(_stage_choices(_stage_key(base, runs.global_args), stages))
            inherited = _stage_start(base, stages, runs.global_args)
            workdir, copied, entrypoint, cmd, entrypoint_said, cmd_said, base = inherited
            copies, sourced, from_images = list(copied), list(copied), []
        elif instruction == "ARG":
            _declare(arguments, declared)
        elif instruction == "WORKDIR":
            workdir = _in_image(workdir, arguments.strip("\"'"))
            chosen = _in_context(workdir, copies) if _chooses(workdir, declared) else None
            if chosen is not None:
                arg_folders.append((chosen, Said(path, line, f"WORKDIR {arguments}")))
        elif instruction == "COPY" and (stage_built := outputs.take(arguments, workdir, copies)):
            said = Said(path, line, f"COPY {arguments}")
            built_arg_folders += _built_arg_folders(stage_built, declared, said)
        elif instruction in ("COPY", "ADD"):
            copies += _copies(arguments, workdir)
            from_images += _from_image(arguments, workdir, stages, len(from_images))
            sourced += _copies(_defaulted(arguments, declared), workdir)
            said = Said(path, line, f"{instruction} {arguments}")
            arg_folders += _arg_sources(arguments, declared, said)
        elif instruction == "ENTRYPOINT":
            entrypoint = _argv(arguments)
            entrypoint_said = Said(path, line, f"ENTRYPOINT {arguments}")
            cmd, cmd_said = None, None  # Docker resets CMD when ENTRYPOINT is set
        elif instruction == "CMD":
            cmd = _argv(arguments)
            cmd_said = Said(path, line, f"CMD {arguments}")
    last = set(copies)  # the last stage's copies: those before it are the others' (below)
    return Dockerfile(
        path,
        workdir,
        tuple(copies),
        entrypoint,
        cmd,
        entrypoint_said,
        cmd_said,
        tuple(runs.go_builds),
        base,
        tuple(arg_folders),
        tuple((name, value) for name, value in declared.items() if value is not None),
        _copies_below(earlier + copies, os.path.basename(os.path.dirname(path))),
        tuple(dict.fromkeys(c for c in earlier if c not in last)),
        _installers(text),
        tuple(copy for copy, _, _ in outputs.taken),
        tuple(built_arg_folders),
        any(instruction in ("COPY", "ADD") for _, instruction, _ in _instructions(text)),
        _copies_context(text),
        arg_go_builds=tuple(runs.arg_go_builds),
        make_calls=tuple(runs.make_calls),
        image_copies=tuple(from_images),
        cargo_builds=tuple(runs.cargo_builds),
    )


# How many copies from images a Dockerfile's last stage keeps (Dockerfile.image_copies)
MAX_IMAGE_COPIES = 16


def _from_image(
    arguments: str, workdir: str, stages: Mapping[str, tuple[Any, ...]], kept: int
) -> list[tuple[str, Copy]]:
    """What a `COPY --from=NAME SOURCE... DEST` takes from an image: NAME's, when it
    names no stage (`--from=acme/base:1`), or the image the stage NAME began FROM (through
    the stages it began from: `_stage_start` keeps it); each source its path in that image
    and the path it is put at. None for a name with a variable or a stage's index, or one
    of a stage begun from no image; MAX_IMAGE_COPIES in all, `kept` of them already."""
    stage, sources, dest = _copy_from_words(arguments)
    sources = sources[: max(0, MAX_IMAGE_COPIES - kept)]
    if not stage or not sources or "$" in stage or stage.isdigit():
        return []
    image = stages[stage][6] if stage in stages else stage
    if not isinstance(image, str) or not image or "$" in image or image.lower() in stages:
        return []
    into = dest.endswith("/") or len(sources) > 1 or dest in (".", "./")
    dest = _in_image(workdir, dest)
    return [
        (
            image,
            Copy(
                posixpath.normpath(posixpath.join("/", source)),
                posixpath.join(dest, posixpath.basename(source.rstrip("/"))) if into else dest,
            ),
        )
        for source in sources
    ]


# `git clone` run as a command of a RUN line (as _INSTALLER's commands are found), and a
# wheel a COPY or ADD takes (`dist/app-1.0-py3-none-any.whl`, `app*.whl`)
_GIT_CLONE = regex.compile(r"(?:^|[;&|(]|\b(?:sudo|then|do|else)|\[)\s*\"?git\"?[\s,]+\"?clone\b")
_WHEEL = regex.compile(r"\.whl(?:\s|$)", regex.IGNORECASE)


def _fetched(path: str, text: str) -> Said | None:
    """The first line of any stage that takes the image's program from elsewhere than its
    context's code: a RUN that clones a git repository, or a COPY or ADD of the context
    (not `--from`) that takes a wheel, a package a build made."""
    for line, instruction, arguments in _instructions(text):
        if instruction == "RUN" and _GIT_CLONE.search(arguments):
            return Said(path, line, f"RUN {arguments}"[:200])
        copied = instruction in ("COPY", "ADD") and "--from" not in arguments
        if copied and _WHEEL.search(arguments):
            return Said(path, line, f"{instruction} {arguments}"[:200])
    return None


# What a Dockerfile's RUN lines are read with: MAX_ENV names of its ENV lines at most, and
# MAX_MAKE_CALLS `make` commands, each with the stage's last MAX_MAKE_COPIES copies
MAX_ENV = 256
MAX_MAKE_CALLS = 16
MAX_MAKE_COPIES = 256


@dataclass
class _Runs:
    """What a Dockerfile's RUN lines build, read with the values its stage's ENV lines set
    before them (`ENV PKG=gateway/lb`, then `make cmd/${PKG}`): a stage FROM a named one
    starts with that one's, any other with none."""

    path: str
    # the ARGs declared before the first FROM, with their literal defaults: what a FROM
    # line's `${NAME}` is (`FROM ${FLAVOUR}-base`)
    global_args: Mapping[str, str | None] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stage_env: dict[str, dict[str, str]] = field(default_factory=dict)
    go_builds: list[GoBuild] = field(default_factory=list)
    arg_go_builds: list[GoBuild] = field(default_factory=list)
    make_calls: list[MakeCall] = field(default_factory=list)
    cargo_builds: list[CargoBuild] = field(default_factory=list)

    def read(
        self,
        line: int,
        instruction: str,
        arguments: str,
        stage: str,
        where: tuple[str, list[Copy], Mapping[str, str | None]],
    ) -> None:
        """Keep a FROM's and an ENV's values (`stage`: the name of the stage before), and
        read a RUN line where the stage is (its WORKDIR, its copies, the ARGs declared)."""
        if instruction == "RUN":
            self.run(line, arguments, *where)
        elif instruction == "FROM":
            if stage:
                self.stage_env[stage] = self.env
            base, _ = _stage_named(arguments)
            chosen = _stage_choices(_stage_key(base, self.global_args), self.stage_env)
            envs = [self.stage_env[name] for name in chosen]
            # what the stages it may start from all set
            self.env = (
                {k: v for k, v in envs[0].items() if all(e.get(k) == v for e in envs)}
                if envs
                else {}
            )
        elif instruction == "ENV":
            for name, value in _env_pairs(arguments):
                value = _expanded(value, variables=self.env, make=False)
                if "$" in value or len(value) > _MAX_VALUE:
                    self.env.pop(name, None)  # a build argument's, or another's unknown here
                elif name in self.env or len(self.env) < MAX_ENV:
                    self.env[name] = value

    def expanded(
        self, instructions: Iterable[tuple[int, str, str]]
    ) -> Iterator[tuple[int, str, str]]:
        """The instructions as they are read, a WORKDIR's, COPY's or ADD's arguments with
        the values the stage's ENV lines set before it put in (`COPY $APP_DIR /$APP_DIR/`,
        as Docker does); `read` keeps those values as each instruction is read."""
        for line, instruction, arguments in instructions:
            if instruction in ("WORKDIR", "COPY", "ADD"):
                arguments = _expanded(arguments, variables=self.env, make=False)
            yield line, instruction, arguments

    def run(
        self,
        line: int,
        arguments: str,
        workdir: str,
        copies: list[Copy],
        declared: Mapping[str, str | None],
    ) -> None:
        """Read a RUN line's `go build`s, `make`s and `cargo build`s, its ENV values put
        in."""
        said = Said(self.path, line, f"RUN {arguments}")
        script = _expanded(arguments, variables=self.env, make=False)
        mounted = copies + _context_mounts(script, workdir)
        for build in _go_builds(script, workdir, mounted, said, declared=declared):
            (self.arg_go_builds if "$" in build.package else self.go_builds).append(build)
        for call in _make_calls(script, workdir, mounted, said):
            if len(self.make_calls) < MAX_MAKE_CALLS:
                self.make_calls.append(call)
        if "cargo" in script:
            for cargo in _cargo_builds(script, workdir, mounted, said):
                if len(self.cargo_builds) < MAX_MAKE_CALLS:
                    self.cargo_builds.append(cargo)


def _env_pairs(arguments: str) -> list[tuple[str, str]]:
    """The names and values an ENV line sets: `ENV A=1 B="2 3"` (each), `ENV A 1 2` (one)."""
    try:
        words = shell_words(arguments)
    except ValueError:
        return []
    if words and "=" not in words[0]:
        return [(words[0], " ".join(words[1:]))]
    return [
        (name, value)
        for word in words
        for name, equals, value in [word.partition("=")]
        if equals and _is_name(name)
    ]


def _is_name(text: str) -> bool:
    """`[A-Za-z_][A-Za-z0-9_]*`, asked of each word of an ENV line without RE2 (its binding
    copies the text each call: 100,000 names a Dockerfile cost seconds)."""
    return text.isascii() and text.isidentifier()


# a RUN line's `--mount=type=bind,...` (BuildKit's default type), before its command
_MOUNT = regex.compile(r"^\s*--mount=(\S+)")


def _context_mounts(script: str, workdir: str) -> list[Copy]:
    """The build context's folders a RUN line's bind mounts put in the image (`--mount=
    type=bind,target=.`: the context's root at the WORKDIR); none from a stage or an
    image (`from=`), none of a cache, a secret or a tmpfs."""
    mounts: list[Copy] = []
    rest = script
    for _ in range(16):  # a RUN line has a few flags
        flag = _MOUNT.match(rest)
        if flag is None:
            break
        rest = rest[flag.end() :]
        options = dict(option.partition("=")[::2] for option in flag[1].strip("\"'").split(","))
        if options.get("type", "bind") != "bind" or "from" in options:
            continue
        target = options.get("target") or options.get("dst") or options.get("destination")
        source = options.get("source") or options.get("src") or "."
        if target and "$" not in target + source:
            mounts.append(Copy(posixpath.normpath(source), _in_image(workdir, target)))
    return mounts


# make's options that take a value as the next word (`-C dir`) or joined (`-Cdir`)
_MAKE_VALUE_FLAGS = frozenset({"-C", "-f", "-I", "-o", "-W", "-l"})
_MAKE_LONG_FLAGS = {"--directory": "-C", "--file": "-f", "--makefile": "-f"}
MAX_MAKE_TARGETS = 16


def _make_calls(script: str, workdir: str, copies: list[Copy], said: Said) -> list[MakeCall]:
    """The `make` commands of a RUN line, in the folder its `cd`s and `-C`s lead to."""
    found = []
    for here, command in _commands_where(script, workdir):
        if not command or posixpath.basename(command[0]) not in ("make", "gmake"):
            continue
        folder, makefile = here, None
        targets: list[str] = []
        words = iter(command[1:])
        for word in words:
            flag, equals, value = word.partition("=")
            if flag in _MAKE_LONG_FLAGS and equals:
                flag, word = _MAKE_LONG_FLAGS[flag], _MAKE_LONG_FLAGS[flag] + value
            if word[:2] in _MAKE_VALUE_FLAGS:
                value = word[2:] or next(words, "")
                if word[:2] == "-C":
                    folder = _in_image(folder, value)
                elif word[:2] == "-f":
                    makefile = value
            elif word.startswith("-") or "=" in word:
                continue  # a switch (`-j`, `--no-print-directory`) or `NAME=value`
            elif len(targets) < MAX_MAKE_TARGETS and not word.isdigit():  # (`-j 4`)
                targets.append(word)
        kept = tuple(copies[-MAX_MAKE_COPIES:])
        found.append(MakeCall(folder, makefile, tuple(targets), kept, said))
    return found


# A Makefile's rules: MAX_MAKE_RULES explicit targets, MAX_RULE_BUILDS builds of each
MAX_MAKE_RULES = 512
MAX_RULE_BUILDS = 16
# a recipe's `go build` (after `CGO_ENABLED=0`, `$(GO_ENV)`, `@`), to the line's end
_RECIPE_GO_BUILD = regex.compile(r"\bgo\s+(?:build|install)\b")
# a target-specific variable (`build: VERSION := 1`), no recipe's target line
_TARGET_VARIABLE = regex.compile(r"^\s*(?:export\s+|override\s+)?[A-Za-z_][\w.-]*\s*[:+?!]?=")


def make_rules(path: str, text: str) -> tuple[tuple[str, tuple[GoBuild, ...]], ...]:
    """A Makefile's explicit targets, in its order, each with the `go build`s its recipe
    runs (their packages relative to the Makefile's folder, where make runs a recipe):
    literal words only; none past MAX_SCRIPT, nor a pattern's (`%.o: %.c`) or a special
    target's (`.PHONY`)."""
    if len(text) > MAX_SCRIPT or ":" not in text:
        return ()
    variables = _make_variables(text)
    budget = [MAX_EXPANDED]  # what the variables put in the recipes may add
    rules: dict[str, list[GoBuild]] = {}
    current: list[str] = []
    made_folders: set[str] = set()  # what this rule's recipe made with `mkdir` so far
    for number, recipe, line in _make_lines(text):
        if not recipe:
            current, made_folders = _rule_targets(line), set()
            for target in current:
                if len(rules) < MAX_MAKE_RULES or target in rules:
                    rules.setdefault(target, [])
            continue
        said = Said(path, number, line[:200])  # as written, the variables' names in it
        line = _expanded(line, variables=variables, make=True, budget=budget)
        made_folders |= _made_folders(line)
        start = _RECIPE_GO_BUILD.search(line)
        if start is None or not current:
            continue
        made = _go_builds(
            line[start.start() :], "/make", [Copy(".", "/make")], said, folders=made_folders
        )
        for target in current:
            if target in rules:
                rules[target] = (rules[target] + made)[:MAX_RULE_BUILDS]
    return tuple((target, tuple(builds)) for target, builds in rules.items())


def _make_variables(text: str) -> dict[str, str | None]:
    """The variables a Makefile sets, as Make reads them all before it runs a recipe (with
    their values expanded as set); `CURDIR`, Make's own, the folder it runs in: `.`, the
    paths of a recipe being relative to it. A recipe's `GO=$(GO) hack/x.sh` sets none:
    it is the shell's, for that command."""
    variables: dict[str, str | None] = {"CURDIR": "."}
    for _, recipe, line in _make_lines(text):
        if not recipe:
            _assign(line, variables, make=True)
    return variables


MAX_MKDIR_FOLDERS = 16
# a `mkdir -p DIR` of a recipe or a script (after `@`, before `&&`): the folders it makes
_MKDIR = regex.compile(r"(?:^|[;&|(]\s*)mkdir((?:\s+[^\s;&|)]+)+)")


def _made_folders(line: str) -> set[str]:
    """The literal folders a line's `mkdir` commands make (quotes and a last `/` left out):
    what a later `go build -o DIR` writes its binary into, named for its package."""
    found: set[str] = set()
    for match in _MKDIR.finditer(line.strip()):
        for word in match.group(1).split()[:MAX_MKDIR_FOLDERS]:
            folder = word.strip("\"'").rstrip("/")
            if folder and not folder.startswith("-") and "$" not in folder:
                found.add(posixpath.normpath(folder))
    return found


def _make_lines(text: str) -> Iterator[tuple[int, bool, str]]:
    """A Makefile's logical lines (continuations joined), each with its first line's
    number and whether it is a recipe's (begun by a tab); comments and blanks left out."""
    pending: list[str] = []
    first, recipe = 0, False
    for number, raw in enumerate(text.splitlines(), start=1):
        if not pending:
            first, recipe = number, raw.startswith("\t")
        stripped = raw.strip()
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        joined = " ".join(part.strip() for part in pending).strip()
        pending = []
        if joined and not joined.startswith("#"):
            yield first, recipe, joined.lstrip("@-+ ") if recipe else joined


def _rule_targets(line: str) -> list[str]:
    """The targets a rule's line names (`build-api build: deps`), none of a variable's
    line, a pattern's, a special target's or one named by a variable."""
    before, colon, after = line.partition(":")
    if not colon or "=" in before or after.startswith("=") or _TARGET_VARIABLE.match(after):
        return []
    return [
        target
        for target in before.split()
        if "%" not in target and "$" not in target and not target.startswith(".")
    ]


def _stage_start(
    base: str | None,
    stages: Mapping[str, tuple[Any, ...]],
    global_args: Mapping[str, str | None] | None = None,
) -> tuple[Any, ...]:
    """A stage's state as it begins: `FROM base AS final` starts from the base stage's
    WORKDIR, COPY, CMD and image (`FROM ${FLAVOUR}-base`, a global ARG's default naming
    it, too); one FROM an image, afresh. A stage FROM a name a build argument chooses
    (`build-${TARGETARCH}`) starts from what every stage it may name shares: the copies
    each of them made, and their WORKDIR, ENTRYPOINT, CMD and image where all agree (a
    WORKDIR they do not agree on is unknown: `.`, which only paths relative to it meet)."""
    fresh = ("/", (), None, None, None, None, base)
    if not base:
        return fresh
    chosen = _stage_choices(_stage_key(base, global_args or {}), stages)
    if not chosen:
        return fresh
    states = [stages[name] for name in chosen]
    first = states[0]
    if all(state == first for state in states[1:]):
        return first
    shared = [
        first[at] if all(state[at] == first[at] for state in states) else None
        for at in range(len(first))
    ]
    held = [set(state[1]) for state in states[1:]]
    copies = [c for c in first[1] if all(c in each for each in held)]
    return (shared[0] or ".", copies, *shared[2:6], shared[6] or base)


# How many stages a FROM line's name with a build argument in it may match
# (`build-${TARGETARCH}`: `build-amd64`, `build-arm64`) and still be read, and how many
# stages before it such a name is matched against at most
MAX_STAGE_CHOICES = 16
MAX_STAGES_MATCHED = 64


def _stage_key(base: str | None, global_args: Mapping[str, str | None]) -> str:
    """The name of the stage a FROM line's image may be, lower-cased, with the defaults of
    the ARGs declared before the first FROM put in (`${FLAVOUR}-base`, `ARG
    FLAVOUR=slim`: `slim-base`); Docker reads no other ARG there."""
    return _defaulted(base or "", global_args).lower()


def _stage_choices(key: str, stages: Mapping[str, Any]) -> list[str]:
    """The stages a FROM line's stage name (`_stage_key`) may be: itself, or, for a name a
    build argument still chooses (`build-${TARGETARCH}`, a platform's, set for each
    build), each stage whose name it may take (`build-amd64`, `build-arm64`); none past
    MAX_STAGE_CHOICES, or after MAX_STAGES_MATCHED stages."""
    if key in stages:
        return [key]
    if "$" not in key or len(stages) > MAX_STAGES_MATCHED:
        return []
    parts = _SHELL_VARIABLE.split(key)[::3]  # the literal text around each variable
    if any("$" in part for part in parts):
        return []  # a `$` that is no variable's
    chosen = [name for name in stages if _glob_match(name, parts)]
    return chosen if len(chosen) <= MAX_STAGE_CHOICES else []


def _glob_match(name: str, parts: Sequence[str]) -> bool:
    """Whether `name` is the literal `parts` in order, each gap filled by a nonempty value."""
    if len(name) < sum(map(len, parts)) + len(parts) - 1:
        return False
    if not (name.startswith(parts[0]) and name.endswith(parts[-1])):
        return False
    at, end = len(parts[0]) + 1, len(name) - len(parts[-1]) - 1
    for part in parts[1:-1]:
        found = name.find(part, at, end)
        if found < 0:
            return False
        at = found + len(part) + 1
    return at <= end + 1


def _global_args(text: str) -> dict[str, str | None]:
    """The ARGs declared before a Dockerfile's first FROM, with their literal defaults."""
    declared: dict[str, str | None] = {}
    for _, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            break
        if instruction == "ARG" and len(declared) < MAX_ENV:
            _declare(arguments, declared)
    return declared


def _run_stage_first(read: Dockerfile, text: str) -> Dockerfile:
    """The Dockerfile with the folders build arguments choose in the stage that built
    what its last stage runs (`COPY --from=api-build /src/api /api` under `ENTRYPOINT
    ["/api"]`) first: of stages that build from different folders (a web bundle's, a
    server's), the one the container runs."""
    if len(read.arg_folders) < 2:
        return read
    starts: list[tuple[int, str]] = []  # each stage's FROM line, its name
    taken: list[tuple[str, str]] = []  # what the last stage copies `--from`: (stage, file)
    workdir = "/"
    for line, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            starts.append((line, _stage_named(arguments)[1]))
            taken, workdir = [], "/"
        elif instruction == "WORKDIR":
            workdir = _in_image(workdir, arguments.strip("\"'"))
        elif instruction == "COPY" and "--from" in arguments and len(taken) < MAX_BUILT_COPIES:
            taken += _taken_from_stage(arguments, workdir)
    ran = _stage_run(read.entrypoint or read.cmd, read.workdir, taken)
    if not ran:
        return read

    def stage_of(said: Said) -> str:
        return next((name for at, name in reversed(starts) if at <= said.line), "")

    first = sorted(read.arg_folders, key=lambda chosen: stage_of(chosen[1]) != ran)
    return replace(read, arg_folders=tuple(first))


# How many files the last stage's `COPY --from` lines take from earlier stages are kept
# (Dockerfile.stage_files): a real Dockerfile's are a handful
MAX_STAGE_FILES = 16


def _stage_files(path: str, text: str) -> tuple[tuple[Copy, Said], ...]:
    """What the last stage's `COPY --from=STAGE SOURCE... DEST` lines take from an earlier
    stage of the file (its name, or its index: `--from=0`), each source as its path in
    that stage, from its root, variables left in (a build argument's value is each
    build's: links.py fills it in), and where it is put in the image; none from an image
    (`--from=acme/base:1`) or a stage a variable names. MAX_STAGE_FILES at most."""
    earlier: set[str] = set()  # the names and indexes of the stages before the one read
    name, count = "", 0
    found: list[tuple[Copy, Said]] = []
    workdir = "/"
    for line, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            if count:  # the stage before ends: later ones may copy from it
                earlier |= {name, str(count - 1)} - {""}
            name, count = _stage_named(arguments)[1], count + 1
            found, workdir = [], "/"
        elif instruction == "WORKDIR":
            workdir = _in_image(workdir, arguments.strip("\"'"))
        elif instruction == "COPY" and "--from" in arguments:
            stage, sources, dest = _copy_from_words(arguments)
            if stage not in earlier:
                continue
            into = dest.endswith("/") or len(sources) > 1 or dest in (".", "./")
            dest = _in_image(workdir, dest)
            said = Said(path, line, f"COPY {arguments}"[:200])
            for source in sources[: MAX_STAGE_FILES - len(found)]:
                placed = posixpath.join(dest, posixpath.basename(source.rstrip("/")))
                taken = posixpath.normpath(posixpath.join("/", source))
                found.append((Copy(taken, placed if into else dest), said))
    return tuple(found)


# What of the last stage's ENV lines a Dockerfile keeps (Dockerfile.env_values): the
# names, and the length of a value (a longer one is not kept); read for a variable
# naming the program its command runs, a short word
MAX_ENV_KEPT = 64
MAX_ENV_VALUE = 256


def _stage_env(text: str) -> tuple[tuple[str, str], ...]:
    """What the last stage's ENV lines set, as written (variables left in), after what the
    stage it is built FROM set, when that is one of the file's; MAX_ENV_KEPT names, each
    value MAX_ENV_VALUE characters at most."""
    stages: dict[str, dict[str, str]] = {}
    env: dict[str, str] = {}
    name = ""
    for _, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            if name:
                stages[name] = env
            base, name = _stage_named(arguments)
            env = dict(stages.get((base or "").lower(), {}))
        elif instruction == "ENV":
            for key, value in _env_pairs(arguments):
                if len(value) <= MAX_ENV_VALUE and (key in env or len(env) < MAX_ENV_KEPT):
                    env[key] = value
    return tuple(env.items())


def env_filled(
    dockerfile: Dockerfile, word: str, given: Iterable[tuple[str, str]]
) -> tuple[str, str] | None:
    """A word of the command the image runs through a shell (`ENTRYPOINT /app/$SERVICE`,
    Docker's shell form) as that shell expands it when the container starts, from the
    variables the image's ENV lines set (`ENV SERVICE=${SERVICE}`: a build argument's
    value, `given` over the ARGs' defaults, put in at build), with the values (`SERVICE=
    orders`). None when it names no variable, or one the ENV does not set (a build
    argument alone is none of the running container's) or sets to a value not known."""
    names = sorted(_variables_used(word))
    env = dict(dockerfile.env_values)
    values: dict[str, str | None] = {}
    for name in names[:MAX_ENV_KEPT]:
        value = env.get(name)
        values[name] = with_args(dockerfile, value, given) if value is not None else None
    filled = shell_expanded(word, values)
    if not names or "$" in filled or not all(values.values()):
        return None
    return filled, ", ".join(f"{name}={values[name]}" for name in names)


def _last_from(path: str, text: str) -> Said | None:
    """The FROM line that begins the last stage, the one whose image runs."""
    found = None
    for line, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            found = Said(path, line, f"FROM {arguments}")
    return found


def _env_names(text: str) -> tuple[str, ...]:
    """The names any stage's ENV lines set: `ENV NAME value` (one), `ENV A=1 B=2` (each)."""
    names: dict[str, None] = {}
    for _, instruction, arguments in _instructions(text):
        words = arguments.split() if instruction == "ENV" else []
        if words and "=" not in words[0]:
            names[words[0]] = None
            continue
        for word in words:
            name, equals, _ = word.partition("=")
            if equals and _is_name(name):
                names[name] = None
    return tuple(names)


# the folders a build writes its output to (`dist/apps/auth/main.js`), below the sources
# it mirrors: code/entry_points reads compiled scripts by them too
OUTPUT_FOLDERS = frozenset({"dist", "build", "out"})


# What a Dockerfile copies `--from` its stages is read for its first sources only: each is
# found among the stage's COPY lines, and a real Dockerfile has a handful.
MAX_BUILT_COPIES = 64
MAX_LINE_DEFAULTED = 4096  # the longest COPY line whose ARGs' defaults are put in


def _declare(arguments: str, declared: dict[str, str | None]) -> None:
    """Record an ARG with its literal default, keeping an earlier stage's default."""
    name, equals, default = arguments.partition("=")
    literal = _literal(default.strip("\"'")) if equals else None
    declared[name.strip()] = literal or declared.get(name.strip())


def _defaulted(arguments: str, declared: Mapping[str, str | None]) -> str:
    """A COPY's or ADD's arguments with each `${NAME}` and `$NAME` of an ARG that has a
    literal default put in (one with none, or of the platform's, left as it is): where a
    stage's `go build` comes from (`COPY ${SERVER_DIR}/cmd/ cmd/`, `ARG SERVER_DIR=./api`)."""

    def value(match: regex.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        known = declared.get(name) if name not in _PLATFORM_ARGS else None
        return posixpath.normpath(known) if known else match.group(0)

    if "$" not in arguments or len(arguments) > MAX_LINE_DEFAULTED:
        return arguments
    return _SHELL_VARIABLE.sub(value, arguments)


def _arg_sources(
    arguments: str, declared: Mapping[str, str | None], said: Said
) -> list[tuple[str, Said]]:
    """The sources of a COPY or ADD that a build argument chooses."""
    return [
        (posixpath.normpath(source), said)
        for source in _copied_sources(arguments)
        if _chooses(source, declared)
    ]


def _stage_named(arguments: str) -> tuple[str | None, str]:
    """A FROM line's image and the name it gives its stage (`FROM golang AS build`)."""
    words = [w for w in arguments.split() if not w.startswith("--")]
    base = words[0] if words else None
    return base, words[2].lower() if len(words) > 2 and words[1].lower() == "as" else ""


def _copies_below(copies: list[Copy], own: str) -> bool:
    """Whether a COPY takes a path below a folder named as the Dockerfile's own."""
    return bool(own) and any(c.source.split("/", 1)[0] == own and "/" in c.source for c in copies)


def _built_arg_folders(
    built: list[Copy], declared: Mapping[str, str | None], said: Said
) -> list[tuple[str, Said]]:
    """The context folders a build argument chooses among what a `COPY --from` takes."""
    return [
        (folder, said)
        for copy in built
        if _chooses(copy.source, declared) and (folder := _source_folder(copy.source))
    ]


# How many stages a file of the context may pass through before the last stage has it: a
# builder's `COPY . /src`, a second stage's `COPY --from=builder /src/run.sh /run.sh`, the
# last one's `COPY --from=second /run.sh .` are two hops; one past MAX_STAGE_HOPS is lost
MAX_STAGE_HOPS = 4
# and how many of the stages' copies `--from` sources are looked up among, in all (a real
# Dockerfile's few `COPY --from` lines each look through a few dozen)
MAX_STAGE_LOOKUPS = 20_000

# what a stage copied from an earlier one: the copy (its source the context's path), the
# hops it took, and how many of the stage's own copies from the context came before it
_Taken = tuple[Copy, int, int]


@dataclass
class _StageOutputs:
    """What each stage of a Dockerfile holds of the context: its own COPY lines' and what
    its `COPY --from` lines took from earlier stages (by name, or by index: `--from=0`),
    followed through MAX_STAGE_HOPS stages at most, and MAX_BUILT_COPIES sources in all."""

    # each stage read: its copies from the context and what it took, by name and index
    held: dict[str, tuple[list[Copy], list[_Taken]]] = field(default_factory=dict)
    taken: list[_Taken] = field(default_factory=list)  # the stage being read's
    index: int = 0
    resolved: int = 0  # the `--from` sources read, each looked up in a stage's copies
    looked: int = 0  # the copies they were looked up among

    def end(self, name: str, copies: list[Copy]) -> None:
        """Keep what a stage held as the next one begins."""
        self.held[str(self.index)] = (copies, self.taken)
        if name:
            self.held[name] = (copies, self.taken)
        self.index += 1

    def begin(self, chosen: list[str]) -> None:
        """A new stage holds what the one stage it is built FROM took (its copies from the
        context come from _stage_start); one FROM an image, or a name a build argument
        chooses among several, took nothing."""
        self.taken = list(self.held[chosen[0]][1]) if len(chosen) == 1 else []

    def take(self, arguments: str, workdir: str, copies: list[Copy]) -> list[Copy]:
        """What a `COPY --from=STAGE SOURCE... DEST` takes from an earlier stage, each
        source as the path of the context that stage's COPY lines (or a stage before it)
        put there; none from an image or a path no stage copied from the context."""
        if self.resolved >= MAX_BUILT_COPIES:
            return []
        found, looked = _from_stage(arguments, workdir, self.held, MAX_STAGE_LOOKUPS - self.looked)
        found = found[: MAX_BUILT_COPIES - self.resolved]
        self.resolved += len(found)
        self.looked += looked
        self.taken += [(copy, hops, len(copies)) for copy, hops in found]
        return [copy for copy, _ in found]


def _from_stage(
    arguments: str,
    workdir: str,
    held: Mapping[str, tuple[list[Copy], list[_Taken]]],
    budget: int,
) -> tuple[list[tuple[Copy, int]], int]:
    """What a `COPY --from=STAGE SOURCE... DEST` takes from an earlier stage (its name or
    index), each source as the path of the context it came from, with the stages it took,
    and how many copies they were looked up among: `budget` at most."""
    stage, sources, dest = _copy_from_words(arguments)
    if stage not in held or not sources:
        return [], 0
    copies, taken = held[stage]
    sources = sources[: min(MAX_BUILT_COPIES, budget // (len(copies) + len(taken) + 1))]
    found = []
    for named in sources:
        # a `--from` source is a path of that stage, from its root
        source = _held_source(posixpath.normpath(posixpath.join("/", named)), copies, taken)
        if source is not None and source[1] < MAX_STAGE_HOPS:
            found.append((Copy(source[0], _in_image(workdir, dest)), source[1] + 1))
    return found, len(sources) * (len(copies) + len(taken) + 1)


def _held_source(in_image: str, copies: list[Copy], taken: list[_Taken]) -> tuple[str, int] | None:
    """The path of the context a stage holds at `in_image`, with the stages it came
    through: the last of its copies from the context or of what it took from another stage
    that put it there."""
    own = next(
        (
            (at, path)
            for at in range(len(copies) - 1, -1, -1)
            if (path := _holding(copies[at], in_image)) is not None
        ),
        None,
    )
    for copy, hops, after in reversed(taken):
        if own is not None and own[0] >= after:
            break  # the stage's own COPY came later
        path = _holding(copy, in_image)
        if path is not None:
            return path, hops
    return (own[1], 0) if own is not None else None


def _holding(copy: Copy, in_image: str) -> str | None:
    """The context's path a COPY put at `in_image`: below a folder it copied, or a file it
    copied there (`COPY run.sh ./`, `COPY run.sh /app/start.sh`); a file copied into a
    folder (`COPY pom.xml go.sum ./`) holds no path below that folder: what a build made
    there (`target/app.jar`) is none of the context's."""
    name = posixpath.basename(copy.source)
    if not _file_name(name):
        covered = _covers(copy, in_image)
        return (
            posixpath.normpath(posixpath.join(copy.source, posixpath.relpath(in_image, copy.dest)))
            if covered
            else None
        )
    into = in_image == posixpath.join(copy.dest, name)
    return (
        copy.source
        if into or (in_image == copy.dest and _file_name(posixpath.basename(in_image)))
        else None
    )


def _copy_from_words(arguments: str) -> tuple[str, list[str], str]:
    """A `COPY --from=STAGE SOURCE... DEST`'s stage (lower case; "" with no `--from`), its
    sources and its destination (none and "" with fewer than two paths)."""
    words = _copy_words(arguments)
    stage = next((w.partition("=")[2].lower() for w in words if w.startswith("--from=")), "")
    words = [w for w in words if not w.startswith("--")]
    if len(words) < 2:
        return stage, [], ""
    return stage, words[:-1], words[-1]


def _taken_from_stage(arguments: str, workdir: str) -> list[tuple[str, str]]:
    """What a `COPY --from=STAGE SOURCE... DEST` puts in the image: the stage's name and
    each file's path in the image (DEST itself for one source not into a folder)."""
    stage, sources, dest = _copy_from_words(arguments)
    if not stage or not sources:
        return []
    sources = sources[:MAX_BUILT_COPIES]
    into = dest.endswith("/") or len(sources) > 1 or dest in (".", "./")
    dest = _in_image(workdir, dest)
    return [
        (stage, posixpath.join(dest, posixpath.basename(source.rstrip("/"))) if into else dest)
        for source in sources
    ]


def _stage_run(
    argv: tuple[str, ...] | None, workdir: str, taken: list[tuple[str, str]]
) -> str | None:
    """The stage the program the last stage runs was copied from, by its path (a
    relative one from the WORKDIR); None when it was not copied from a stage."""
    if not argv or not argv[0] or "$" in argv[0]:
        return None
    program = _in_image(workdir, argv[0])
    stages = {stage for stage, placed in taken if placed == program}
    return stages.pop() if len(stages) == 1 else None


def _file_name(name: str) -> bool:
    """Whether a path's last name is a file's by its suffix (`pom.xml`, `go.sum`)."""
    return bool(posixpath.splitext(name)[1])


def _source_folder(source: str) -> str | None:
    """The folder of the context a builder's output copied from it comes from, as far as
    its build arguments choose it: a build's output folder mirrors its sources below it
    (`dist/apps/${APP}`: `apps/${APP}`), and what is built inside the chosen folder is
    its (`${SERVICE}/build/libs/*.jar`: `${SERVICE}`)."""
    parts = source.split("/")
    if len(parts) > 1 and parts[0] in OUTPUT_FOLDERS:
        parts = parts[1:]
    chosen = max((at for at, part in enumerate(parts) if "$" in part), default=None)
    return "/".join(parts[: chosen + 1]) if chosen is not None else None


def _installers(text: str) -> tuple[str, ...]:
    """The package managers the last stage's RUN lines call, with those of the stages it
    is built FROM (Dockerfile.installers)."""
    installers: list[str] = []  # the stage's, and those of the stages it is built FROM
    stages: dict[str, list[str]] = {}
    for _, instruction, arguments in _instructions(text):
        if instruction == "FROM":
            words = [w for w in arguments.split() if not w.startswith("--")]
            installers = list(stages.get(words[0].lower(), ())) if words else []
            if len(words) > 2 and words[1].lower() == "as":
                stages[words[2].lower()] = installers  # the same list: its RUNs land in it
        elif instruction == "RUN":
            installers += _INSTALLER.findall(arguments)
    return tuple(dict.fromkeys(installers))


# A distribution's package manager run as a command of a RUN line (at its start, after
# an operator, `sudo` or `then`; or exec form's first word): `apt-get install`, `apk add`.
_INSTALLER = regex.compile(
    r"(?:^|[;&|(]|\b(?:sudo|then|do|else)|\[)\s*\"?"
    r"(apt-get|apt|aptitude|dpkg|apk|yum|dnf|microdnf|tdnf|zypper)\"?[\s,]"
)


# The ARGs BuildKit sets itself, for the platform built on and for: a path they choose
# (`COPY dist/$TARGETPLATFORM/bin/app`) is one program's build for each platform.
_PLATFORM_ARGS = frozenset(
    f"{when}{what}"
    for when in ("TARGET", "BUILD")
    for what in ("PLATFORM", "OS", "ARCH", "VARIANT")
)


def _chooses(path: str, declared: Mapping[str, str | None]) -> bool:
    """Whether a path is chosen by build arguments: it names variables, each an ARG, and
    not one of the platform's."""
    names = [a or b for a, b in _SHELL_VARIABLE.findall(path)]
    return (
        bool(names)
        and all(name in declared for name in names)
        and not _PLATFORM_ARGS.intersection(names)
    )


def _copied_sources(arguments: str) -> list[str]:
    """The sources of a COPY from the build context that name a variable (`app/${APP}`),
    which the copies leave out; none from another stage."""
    try:
        words = shell_words(arguments) if not arguments.startswith("[") else json.loads(arguments)
    except ValueError:
        return []
    words = [str(w) for w in words] if isinstance(words, list) else []
    if any(w.startswith("--from") for w in words):
        return []
    sources = [w for w in words if not w.startswith("--")][:-1]
    return [source for source in sources if "$" in source and "://" not in source]


_GLOB = regex.compile(r"[*?\[]")


def with_args(dockerfile: Dockerfile, path: str, given: Iterable[tuple[str, str]]) -> str | None:
    """A path of the Dockerfile with the build arguments `given` (over the ARGs' defaults)
    filled in; None when it names one whose value is not known."""
    values: dict[str, str | None] = {**dict(dockerfile.arg_defaults), **dict(given)}
    filled = _expanded(path, variables=values, make=False)
    return None if "$" in filled else filled


def stage_file_name(
    dockerfile: Dockerfile, program: str, given: Iterable[tuple[str, str]]
) -> tuple[str, str] | None:
    """The name the file a container runs (`/server`, from the WORKDIR when relative) has
    in the earlier stage the last stage copies it from (`COPY --from=installer
    /go/bin/${COMMAND} /server`: a `go install`'s binary, named for its package), the
    build arguments `given` (over the ARGs' defaults) filled in (COMMAND=kazoku:
    `kazoku`), with words saying so. None when no such copy puts it there (the last one
    that does counts), or an argument's value is not known or is no file's name."""
    taken = _stage_file(dockerfile, program, given)
    if taken is None:
        return None
    source, filled, said = taken
    name = posixpath.basename(filled or "")
    if filled is None or not _FILE_NAME.fullmatch(name) or name in (".", ".."):
        return None
    values = dict((*dockerfile.arg_defaults, *given))
    used = ", ".join(f"{n}={values[n]}" for n in sorted(_variables_used(source)) if n in values)
    text = f"{said.path}:{said.line} `{said.text}` takes {program} from {filled}"
    return name, f"{text} ({used})" if used else text


def stage_file_unknown(
    dockerfile: Dockerfile, program: str, given: Iterable[tuple[str, str]]
) -> str | None:
    """Words saying the file a container runs is copied from an earlier stage by a path a
    build argument names whose value `given` (over the ARGs' defaults) leaves unknown;
    None when it is not so copied, or every value is known."""
    taken = _stage_file(dockerfile, program, given)
    if taken is None or taken[1] is not None:
        return None
    source, _, said = taken
    values = {**dict(dockerfile.arg_defaults), **dict(given)}
    unknown = ", ".join(sorted(n for n in _variables_used(source) if n not in values))
    return f"{said.path}:{said.line} `{said.text}` takes {program} from {source}" + (
        f", and no build of the image gives {unknown} one value" if unknown else ""
    )


def _stage_file(
    dockerfile: Dockerfile, program: str, given: Iterable[tuple[str, str]]
) -> tuple[str, str | None, Said] | None:
    """The path in an earlier stage the last COPY `--from` it that puts the file the
    container runs there takes it from (variables left in), that path with the build
    arguments filled in (None when a value is not known), and the COPY's line."""
    if not program or "$" in program:
        return None
    given = tuple(given)
    in_image = posixpath.normpath(posixpath.join(dockerfile.workdir, program))
    for copy, said in reversed(dockerfile.stage_files):
        dest = with_args(dockerfile, copy.dest, given)  # (`/usr/local/bin/${COMMAND}`)
        source = next(iter(_copied_from(copy.source, dest, in_image)), None) if dest else None
        if source is not None:
            return source, with_args(dockerfile, source, given), said
    return None


# a file's name a build argument may give (`COMMAND=kazoku`)
_FILE_NAME = regex.compile(r"[\w.+-]+")


def _copied_from(source: str, dest: str, in_image: str) -> Iterator[str]:
    """The paths a COPY of `source` to `dest` may have put at `in_image`: the source is a
    file (it lands at dest) or a folder (its content lands in dest)."""
    if in_image == dest:
        yield source
    if in_image.startswith(dest.rstrip("/") + "/"):
        yield posixpath.join(source, in_image[len(dest.rstrip("/")) + 1 :])


def package_with_args(
    dockerfile: Dockerfile, package: str, given: Iterable[tuple[str, str]]
) -> str | None:
    """A `go build`'s package that build arguments name (`./${CMD}`), as `with_args` fills
    it; None also when an argument it names is empty or a flag (`go build $GO_FLAGS
    ./cmd/api`, GO_FLAGS="" or "-tags x"): that word expands to no package."""
    values: dict[str, str | None] = {**dict(dockerfile.arg_defaults), **dict(given)}
    for name in _variables_used(package):
        value = (values.get(name) or "").strip()
        if not value or value.startswith("-"):
            return None
    return with_args(dockerfile, package, given)


def arg_folder(
    dockerfile: Dockerfile, given: Iterable[tuple[str, str]]
) -> tuple[str | None, Said] | None:
    """The folder of the build context that the build arguments `given` (over the ARGs'
    defaults) choose in the Dockerfile, relative to the context, with the line that
    chooses it; (None, line) when a value is not known; None for a Dockerfile that
    chooses none. A folder its context COPY or WORKDIR lines choose first, else the one
    what it copies from a builder's output comes from (Dockerfile.built_arg_folders)."""
    chosen_by = dockerfile.arg_folders or dockerfile.built_arg_folders
    if not chosen_by:
        return None
    values: dict[str, str | None] = {**dict(dockerfile.arg_defaults), **dict(given)}
    template, said = chosen_by[0]
    parts = template.split("/")
    chosen = max(i for i, part in enumerate(parts) if "$" in part)
    if chosen < len(parts) - 1 and ("." in parts[-1] or _GLOB.search(parts[-1])):
        # `COPY ${SERVICE}/package.json`, `${SERVICE}/*.js`: a file of the folder chosen
        template = "/".join(parts[: chosen + 1])
    folder = _expanded(template, variables=values, make=False)
    if _GLOB.search(folder):
        return None  # a pattern (`build/libs/*-all.jar`): a build's output, no one's folder
    if "$" in folder or not _literal(folder):
        return None, said
    return posixpath.normpath(folder), said


# `go` and the cross-compiling wrapper of tonistiigi/xx, which takes go's arguments
_GO_COMMANDS = frozenset({"go", "xx-go"})
# BuildKit's flags of a RUN line (`--mount=type=cache,target=...`), before its command
_RUN_FLAGS = regex.compile(r"^(?:\s*--(?:mount|network|security)=\S+)+\s*")
# `go build` flags that take a value (`-o out`, `-tags x`); the others are switches
_GO_VALUE_FLAGS = frozenset(
    {
        "-C",
        "-o",
        "-ldflags",
        "-gcflags",
        "-asmflags",
        "-tags",
        "-mod",
        "-modfile",
        "-p",
        "-pkgdir",
        "-installsuffix",
        "-overlay",
        "-pgo",
        "-buildmode",
        "-compiler",
        "-toolexec",
    }
)


# a word that is one variable's value alone (`$1`, `${SERVICE}`): its name
def _below_import_path(package: str, within: str) -> str:
    """A package named by its import path (`example.com/acme/shop/api`, its first element
    a domain) built in a folder whose path ends with the start of it (GOPATH's layout,
    `/go/src/example.com/acme/shop`, or a WORKDIR named after the module): its path from
    that folder (`api`). Any other package as written."""
    parts = package.split("/")
    if package.startswith((".", "/")) or "." not in parts[0] or "$" in package:
        return package
    folders = within.strip("/").split("/")
    for length in range(min(len(parts) - 1, len(folders)), 0, -1):
        if folders[-length:] == parts[:length]:
            return "/".join(parts[length:])
    return package


_LONE_VARIABLE = regex.compile(r"\$(?:\{(\w+)\}|(\w+))")


# the shell's words before a command of a compound one (`then go build ...; fi`)
_SHELL_KEYWORDS = frozenset({"then", "else", "do", "{", "!"})


def _commands_where(script: str, workdir: str) -> Iterator[tuple[str, list[str]]]:
    """The commands of a RUN line (its words split at `&&`, `||`, `;`, `|` and `&`, less
    the `NAME=value` words before each and the redirections: `2>&1`), each with the
    folder it runs in: where its `cd`s lead from the stage's WORKDIR (none past a `cd` to
    a folder not literal)."""
    argv = _argv(_RUN_FLAGS.sub("", script))  # `RUN --mount=... go build`: the command
    try:
        words = shell_words(argv[2]) if argv[:2] == ("/bin/sh", "-c") else list(argv)
    except ValueError:
        return
    commands: list[list[str]] = [[]]
    index = 0
    while index < len(words):
        word = words[index]
        taken = redirection(word)  # `2>&1`, `> build.log`: no argument of the command
        index += taken or 1
        if taken:
            continue
        if word in CONTROL_OPERATORS:
            commands.append([])
        elif word.endswith(";"):  # `]; then go build ...`
            commands[-1].append(word.rstrip(";"))
            commands.append([])
        else:
            commands[-1].append(word)
    here: str | None = workdir  # where the next command runs: None after a `cd` not literal
    for command in commands:
        # `CGO_ENABLED=0 go build`, `if [ ... ]; then go build`
        while command and (_VARIABLE.fullmatch(command[0]) or command[0] in _SHELL_KEYWORDS):
            command = command[1:]
        if command[:1] == ["cd"] and here is not None:  # `cd server && go build -o main .`
            target = _literal(command[1]) if len(command) > 1 else None
            here = _in_image(here, target) if target is not None else None
            continue
        if here is None:
            return
        yield here, command


def _go_builds(
    script: str,
    workdir: str,
    copies: list[Copy],
    said: Said,
    templates: bool = False,
    declared: Mapping[str, str | None] | None = None,
    folders: Collection[str] = (),
) -> list[GoBuild]:
    """The `go build`/`go install` commands of a RUN line, run where its `cd`s lead from
    the stage's WORKDIR (`cd server && go build`), their packages mapped back from the
    image to the build context through the stage's COPY lines. With `templates` (a host's
    script), a build whose binary is named by a variable alone keeps the package that
    variable names too (`go build -o bin/$1 service/$1/main.go`); with `declared` (a
    Dockerfile's ARGs), one whose package the build arguments choose (`./${CMD_PATH}`).
    An `-o` that is a folder (ending with `/`, one of `folders` a `mkdir` made before, or
    given with several packages, as Go requires) writes each binary into it under Go's
    name for it (go_binary_name): `-o bin/ ./cmd/api` writes `bin/api`."""
    found = []
    for here, command in _commands_where(script, workdir):
        if len(command) < 2 or posixpath.basename(command[0]) not in _GO_COMMANDS:
            continue
        if command[1] not in ("build", "install"):
            continue
        output, packages, rest, within = None, [], iter(command[2:]), here
        for word in rest:
            flag, equals, value = word.partition("=")
            if flag in _GO_VALUE_FLAGS:
                value = value if equals else next(rest, "")
                output = value if flag == "-o" else output
                if flag == "-C" and "$" not in value:  # `go build -C ./collector ./cmd`
                    within = posixpath.normpath(posixpath.join(workdir, value))
            elif not word.startswith("-"):
                packages.append(word)
        named = _LONE_VARIABLE.fullmatch(posixpath.basename(output or "")) if templates else None
        variable = (named.group(1) or named.group(2)) if named else None
        # a package named by a variable is known only as the binary's template, or as
        # the build arguments (`declared`, a Dockerfile's ARGs) that choose it
        packages = [
            p
            for p in packages
            if "$" not in p
            or (variable and {variable} == _variables_used(p) and "/..." not in p)
            or (declared is not None and _chooses(p, declared) and "/..." not in p)
        ]
        into = output is not None and (
            output.endswith("/")
            or posixpath.normpath(output) in folders
            or len({p for p in packages if not p.endswith(".go")}) > 1
        )
        for package in packages or ["."]:
            written = output
            if into and output is not None and "/..." not in package:
                written = posixpath.join(output.rstrip("/") or "/", go_binary_name(package))
            # `./cmd/...`: every main package below, each binary named for its folder
            package, dots, _ = package.partition("/...")
            if package.endswith(".go"):  # `go build ./cmd/main.go`: that file's package
                package = posixpath.dirname(package) or "."
            package = _below_import_path(package, within)
            if is_import_path(package):
                # `go build example.com/shop/cmd/api`: a module's package wherever it runs,
                # its folder the one go.mod says (model/links.py), not the folder it runs in
                found.append(
                    GoBuild(package + dots, written if not dots or not into else None, said)
                )
                continue
            in_image = posixpath.normpath(posixpath.join(within, package))
            context = _package_in_context(in_image, copies)
            if context is not None:
                template = variable if "$" in package else None
                # a pattern's binaries named for their packages, unless one file is
                # given (`-o bin/x ./cmd/...`: Go requires the pattern's one main)
                kept = None if dots and (into or output is None) else written
                found.append(GoBuild(context + dots, kept, said, variable=template))
    return found


def is_import_path(package: str) -> bool:
    """Whether a `go build`'s package is an import path (its first element a domain:
    `example.com/shop/cmd/api`), not a folder (`./cmd/api`, `cmd/api/main.go`)."""
    first = package.split("/", 1)[0]
    return "." in first and first not in (".", "..") and not package.endswith(".go")


_MAJOR_VERSION = regex.compile(r"v[0-9]+")


def go_binary_name(package: str) -> str:
    """The name Go gives a package's binary: its path's last element, or the one before a
    major version's (`example.com/tool/v2`: `tool`); of files named on the command line,
    the first file's without `.go` (`go build ./cmd/api/main.go` writes `main`, as `go
    help build` says)."""
    parts = [p for p in package.split("/") if p not in ("", ".", "...")]
    if parts and parts[-1].endswith(".go"):
        return parts[-1].removesuffix(".go") or "."
    if len(parts) > 1 and _MAJOR_VERSION.fullmatch(parts[-1]):
        parts = parts[:-1]
    return parts[-1] if parts else "."


# `cargo build` options that take a value (`--target x86_64-unknown-linux-musl`); what a
# build names of a workspace is read apart (`-p`, `--bin`, `--path`)
_CARGO_VALUE_FLAGS = frozenset(
    {
        "--target",
        "--features",
        "-F",
        "--profile",
        "--manifest-path",
        "--target-dir",
        "-j",
        "--jobs",
        "--root",
        "--config",
        "--color",
        "--message-format",
        "-Z",
        "--version",
    }
)
_CARGO_NAMED = {"-p": "package", "--package": "package", "--bin": "binary", "--path": "folder"}


def _cargo_builds(
    script: str, workdir: str, copies: list[Copy], said: Said
) -> Iterator[CargoBuild]:
    """The `cargo build`/`cargo install --path` commands of a RUN line, by the one crate
    of a workspace each names: `-p NAME` (`--package`), `--bin NAME`, or `--path DIR` (run
    where the line's `cd`s lead, mapped back to the context through the stage's COPY
    lines). A build naming none, several, or one by a variable builds crates not known
    (a CargoBuild naming nothing); `cargo install NAME`, a registry's tool, is none."""
    for here, command in _commands_where(script, workdir):
        if len(command) < 2 or posixpath.basename(command[0]) != "cargo":
            continue
        words = [w for w in command[1:] if not w.startswith("+")]  # `cargo +nightly build`
        if not words or words[0] not in ("build", "install", "b"):
            continue
        named: dict[str, list[str]] = {"package": [], "binary": [], "folder": []}
        rest = iter(words[1:])
        for word in rest:
            flag, equals, value = word.partition("=")
            if flag in _CARGO_NAMED:
                named[_CARGO_NAMED[flag]].append(value if equals else next(rest, ""))
            elif flag in _CARGO_VALUE_FLAGS and not equals:
                next(rest, "")
        given = [values for values in named.values() if values]
        if words[0] == "install" and not named["folder"]:
            continue  # a tool from the registry (`cargo install cargo-chef`)
        if not given or any(len(v) != 1 or not _literal(v[0]) for v in given):
            yield CargoBuild("", "", "", said)  # which crates, not known
            continue
        package, binary, path = (named[k][0] if named[k] else "" for k in named)
        folder = ""
        if path:
            in_image = posixpath.normpath(posixpath.join(here, path))
            folder = _package_in_context(in_image, copies) or ""
        yield CargoBuild(package if folder or not path else "", binary, folder, said)


def _package_in_context(in_image: str, copies: list[Copy]) -> str | None:
    """The folder of the build context a package built at `in_image` comes from: the last
    COPY covering it, unless that one copies a file (`COPY go.mod go.sum ./`, a file put
    in the folder, not the folder); then, or with none covering it, the folder the COPYs
    of its subfolders agree it is (`COPY models models` and `COPY api api` in `/src`: the
    context's root), else the covering COPY's."""
    covering = next((c for c in reversed(copies) if _covers(c, in_image)), None)
    if covering is not None and not (
        in_image == covering.dest and posixpath.splitext(posixpath.basename(covering.source))[1]
    ):
        return _in_context(in_image, copies)
    roots = set()
    for copy in copies:
        if not copy.dest.startswith(in_image.rstrip("/") + "/"):
            continue
        placed = posixpath.relpath(copy.dest, in_image)  # `models`: where it lands below
        if copy.source != placed and not copy.source.endswith("/" + placed):
            continue
        roots.add(posixpath.normpath(copy.source[: len(copy.source) - len(placed)] or "."))
    if len(roots) == 1:
        return roots.pop()
    return _in_context(in_image, copies)


def context_paths(in_image: str, copies: Iterable[Copy], *, package: bool = False) -> list[str]:
    """Where in the build context a path of the image comes from through `copies` (a
    MakeCall's), the last COPY covering it first; with `package`, the one folder a Go
    package built there comes from (_package_in_context), if any."""
    if package:
        found = _package_in_context(in_image, list(copies))
        return [found] if found is not None else []
    return _all_in_context(in_image, list(copies))


def _covers(copy: Copy, in_image: str) -> bool:
    return in_image == copy.dest or in_image.startswith(copy.dest.rstrip("/") + "/")


def _variables_used(word: str) -> set[str]:
    return {a or b for a, b in _LONE_VARIABLE.findall(word)}


def _in_context(in_image: str, copies: list[Copy]) -> str | None:
    """The path of the build context that the last COPY covering `in_image` put there."""
    return next(iter(_all_in_context(in_image, copies)), None)


def _all_in_context(in_image: str, copies: list[Copy]) -> list[str]:
    """The paths of the build context that the COPYs covering `in_image` would have put
    there, the last one first."""
    return [
        posixpath.normpath(posixpath.join(copy.source, posixpath.relpath(in_image, copy.dest)))
        for copy in reversed(copies)
        if in_image == copy.dest or in_image.startswith(copy.dest.rstrip("/") + "/")
    ]


def _in_image(workdir: str, path: str) -> str:
    """A WORKDIR's or a COPY destination's path in the image: from the working folder,
    or from the root when it starts with a variable (`$GOPATH/src/app`: the base image's
    ENV sets it to an absolute path)."""
    return posixpath.normpath(posixpath.join("/" if path.startswith("$") else workdir, path))


def _copy_words(arguments: str) -> list[str]:
    """The words of a COPY or ADD, in exec form or shell form; none when unreadable."""
    try:
        if arguments.startswith("["):
            words = json.loads(arguments)
            return [str(w) for w in words] if isinstance(words, list) else []
        return shell_words(arguments)
    except ValueError:
        return []


def _copies_context(text: str) -> bool:
    """Whether any line of a Dockerfile takes from the build context: a COPY or ADD not
    `--from` another stage or image, read or not, or a RUN that mounts the context
    (`RUN --mount=type=bind,target=. make build`: a bind mount from no other source)."""
    for _, instruction, arguments in _instructions(text):
        if instruction in ("COPY", "ADD") and not any(
            word.startswith("--from") for word in _copy_words(arguments)
        ):
            return True
        if instruction == "RUN" and any(map(_mounts_context, arguments.split())):
            return True
    return False


def _mounts_context(word: str) -> bool:
    """`--mount=type=bind,target=.` with no `from=`: the build context, mounted for a RUN."""
    if not word.startswith("--mount="):
        return False
    options = word.removeprefix("--mount=").split(",")
    return "type=bind" in options and not any(o.startswith("from=") for o in options)


def _copies(arguments: str, workdir: str) -> list[Copy]:
    """The (source, destination) pairs of a COPY or ADD from the build context; one from
    another stage (`--from=`) or a URL copies nothing from the context."""
    words = _copy_words(arguments)
    flags = [w for w in words if w.startswith("--")]
    words = [w for w in words if not w.startswith("--")]
    if any(flag.startswith("--from") for flag in flags) or len(words) < 2:
        return []
    *sources, dest = words
    dest = _in_image(workdir, dest)
    return [
        Copy(posixpath.normpath(source), dest)
        for source in sources
        if "://" not in source and "$" not in source
    ]


# What other readers of scripts and workflows share (reading/chart_installers.py: the helm
# commands that install a chart): a script's logical lines, a workflow's documents, its run
# steps, the folder a step runs in and the line of a key.
logical_lines = _logical_lines
yaml_documents = _documents
run_steps = _run_steps
step_folder = _working_directory
step_line = _line
