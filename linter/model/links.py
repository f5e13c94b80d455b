"""Which code runs in which container: the link from each container of each scanned
workload to the Python and Go modules it runs, from evidence in the repository.

The evidence, strongest first (each kept, quoted by `explain-links` and in `related`):
0. the configuration's `links` table, which pins a container to a folder or a file;
1. a build definition that builds the container's image from a folder: `skaffold.yaml`
   (a Jib artifact's `jib.project`: the module's folder), a compose file (a service with
   no `image`: the name compose gives it), a `Tiltfile`'s
   `docker_build`, a CI workflow's, a Makefile's, a shell script's or a Jenkins
   pipeline's `docker build`, Cloud Build, a Drone pipeline's Docker plugin step (its
   image also as `${PLUGIN_REPO}`), Jib, Spring Boot's buildpacks or Quarkus's
   container-image extension (its module's `quarkus.container-image.*`); of several
   builds of one repository, the one that writes the image's tag, else the one whose tag
   is it at another version (`order_v1_1.4` run as `order_v1_1.3`); weaker, a
   `docker build` written in a Markdown file's shell block (`docs`; of those, one its
   page follows with the `kubectl apply` of the manifest is that manifest's);
2. (refines the folder) the folder's Dockerfile: what its ENTRYPOINT/CMD runs, found in
   the context through its WORKDIR and COPY lines; for Go, the `go build` (any stage) of
   the binary it runs, or its `go run main.go`: the `main` package it builds, and the
   scanned packages it imports (of `go install ./...`, every program built, the one the
   container's `command`/`args` names as a binary; none named, no link); of a binary it
   copies from the context, built on the host, the `go build` of a Tiltfile's command
   string, a Makefile's, a script's: none read, from a Dockerfile kept in a folder of no
   code (`build/docker/edge/`), the one `main` package of the tree Go names as the binary
   (`cmd/edge`), else no link when the folder found is not one Go program's (the top, a
   library copied beside it, that folder of no code). A Makefile's recipe is read with
   the variables the file sets (`$(GO) build -o $(BINDIR) ...`), an `-o` folder (one its
   recipe `mkdir`s, one ending with `/`, or given several packages) naming each binary
   for its package, an import path (`example.com/shop/cmd/api`) the folder its go.mod
   says; where an image's build is not read in full (a target an included Makefile
   makes, `go build $(WHAT)`), the one `main` package of the code it copies that Go names
   as the binary the container runs (`/usr/local/bin/binder`: `cmd/binder`). A program
   that is a file the image copies from another image the tree does not build (`COPY
   --from=registry.k8s.io/pause:3.9 /pause /pause`, `CMD ["/pause"]`) runs no code of the
   repository. Of several folders of code a Dockerfile copies from a wide context (an app
   and the libraries it takes, `docker/api/Dockerfile` built from the top), the one whose
   copy holds a path the command names in the image (`uwsgi --ini /srv/app/api/app.ini`)
   or the application module a launcher loads (`celery --app acme.tasks`) is the code;
3. the container's own `command`/`args` naming a script or module (they override the
   Dockerfile's, as in Kubernetes; with no folder known, a script found once in the tree,
   or the one Go `package main` named as the binary it runs, a prefix that execs it
   looked through: `envdir /etc/env /opt/bin/ledger`);
4. a Dockerfile kept apart from the code, named by the image's last path segment
   (`docker/cart/Dockerfile`, `cart.Dockerfile`), that copies a source folder: its
   context is the folder above it from which that copy is found; one beside code that
   copies only files and runs a start script it copies runs that script alone; one at the
   repository's top that copies no folder of code and runs none links nothing;
5. the image's last path segment naming a source folder (`.../recommendationservice:v1`
   and `src/recommendationservice/`), unless it holds several services' builds or only
   Go libraries (generated stubs), or is a part of a Node package's sources (below its
   package.json's `src/`: a page its bundler builds into that app), or the module a
   go.mod beside a Dockerfile declares (`github.com/acme/shopctl`; with its Dockerfile
   kept apart, the module's one `package main`);
6. (as strong as 5: the folder nearer the manifest wins) a manifest kept in a service's
   own folder (`cart/charts/cart/templates/`, `cart/k8s/`) beside its Dockerfile: the
   container whose image's name shares a word with the folder's (`acme/cart-api`) runs
   that folder's code, not another folder named as the image (a variant elsewhere);
   by place, never for an image other than the one a build of the tree makes of that
   folder (a sidecar `vendor/cart-exporter` beside the `acme/cart` CI builds there);
   a manifest sitting in a folder of code with its Dockerfile (`cart/node/pod.yaml`),
   whose image's name shares a word with that folder's or its parent's, is as strong as
   a documented build (`manifest in folder`) when other evidence points elsewhere;
   weaker, for an image nothing above links, the one folder a compose service named as
   the workload or the container builds (`compose service`; for an image the manifest
   leaves empty, a guess: `compose service guess`; for an image of its own
   carrying the container's name, `acme/comments-grpc`, whatever port the manifest
   gives, or the service building the folder named as the container);
7. the weakest, a guess that says so (`image name guess`), of the one folder an image is
   built from so named: the longest end of the image's name after a project's prefix
   (`shop-cart` and `src/cart/`; its words as a folder's last two or three names,
   `shop-mail-worker` and `images/worker/mail/`; none when its last word alone is left
   and names a folder of several builds), else a folder whose name ends with the image's (`cart`
   and `services/com.acme.cart/`), else one named as it is but for a role suffix
   (`chat-service` and `services/chat/`), else Go's command so named (`shop-checkout` and
   `cmd/checkout/`, a `package main`); or a manifest beside a Dockerfile in a folder of
   code named alike (`manifest beside guess`), or a manifest named as its folder beside
   the folder's one Dockerfile kept under that name (`client/client.yaml`,
   `client/Dockerfile.client`); or an image named after the repository
   whose tag names a folder with its Dockerfile (`acme/mesh-demo:client`, `client/`); or
   a server's image named as the gRPC service one build folder's code registers
   (`payments:v1`, `RegisterPaymentsServiceServer`); or the one Dockerfile named for a
   role (`docker/client.Dockerfile`) that the image's tag or name and the workload's or
   container's name both say (`acme/go-grpc:client-1.0.0` run as `go-grpc-client`); or,
   of the builds of one repository told apart by their tags (Jib modules pushing
   `acme/shop:shop-order_v1_1.4`), none of the image's tag at any version, the one whose
   tag's own words are the image's tag's (`acme/shop:demo-order_v1_1.4`: `order v1`).
Of several folders named as an image with no build, the fewest steps from the manifest is a
guess only between copies of one service (code of the same languages): the programs among
them (a Go `package main`, a Node package, a Dockerfile's folder), none when none is one (a
client package named for the broker it talks to, a folder of a developer's script), never
one of two programs in two languages (a Go `cmd/api` and a Node `api/`). Nor is an image
the code of a Dockerfile built FROM it (`FROM fluent/fluentd:v1` in `Dockerfile.fluentd`,
the manifest running `fluent/fluentd:v1`: the base, not what is built on it). A script's
`cp -R DIR COPY` then `cd COPY` and `docker build .` builds DIR's code (a scratch copy).
A chart's image that a shell script sets at deploy time (`--set image.repository=$REPO`)
is not the chart's default: the image the script writes, or the default where the release
is named as it, else none.
A build whose context the repository does not hold (a build tool's output folder) is of
the JVM module above it that makes it; a jar a build argument names by its file name alone
is of the one module whose artifactId (or finalName, or Gradle folder name) it starts with
before its version, else of none (no link); evidence pointing to a folder the repository
does not hold is never stronger than evidence pointing to code. A Dockerfile kept apart from
its context that copies nothing of it (`FROM postgres` with ENV lines) runs no code: no link;
but one FROM an image the tree builds, or that copies the file it runs `--from` such an
image whose program that file is, runs the base build's program (_through_base: the one
folder the base's stages copy of a wide context, else none, never the top);
nor does one running its base's program on files that hold no code (SQL migrations), nor
one that clones a git repository or copies in a wheel, its folder holding no code.
An image of one name with no owner and no registry that is one of Docker Hub's official
images (data/docker_library.json: `postgres:16`, `rabbitmq`) is that published image unless
a build of the tree, a documented one too, tags that very name: no folder named as it is
(a tool, a client package) links it, by name, place or guess.
A container whose own command runs an inline Python program (`python -c CODE`, in place of
the image's entry) runs none of the folder's code unless the program imports a module or
package of the folder's top: no link then (a Job testing the libraries an image installs).
A container links to one folder: the strongest evidence's; weaker evidence that points
elsewhere is kept as overruled. With an entry point the container runs its import closure;
without one, every module of the folder (a Go module's folder with one `main` package
below it and no Go build in its image: that program's import closure; with several, and no
Dockerfile known to say which, no link). A launcher given its application as a module
(Celery's `-A acme.queues`, in the container's command or the image's CMD/ENTRYPOINT, found
through WORKDIR and COPY) narrows a wide context (the repository's top) to the package it
is in, `acme/`, where that package is all the Python program its folder on `sys.path`
holds (the module's imports stay in it; beside it only tests, setup.py and other images'
folders): every module of the package, as the app loads its tasks by name; else the wide
folder stays.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import os
import posixpath
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from k8slb.code.entry_points import (
    Entry,
    app_module,
    compiled_sources,
    container_argv,
    entry_of,
    inline_python,
    runs_code,
    script_words,
    shell_script_of,
)
from k8slb.code.facts import (
    CodeFacts,
    EnvRef,
    EnvText,
    FlagRef,
    Listen,
    Loc,
    Registration,
    Route,
    Server,
)
from k8slb.code.launchers import past_prefixes
from k8slb.code.projects import GoPackages, ImportGraph, node_loads
from k8slb.core import regex
from k8slb.core.record import record
from k8slb.core.results import LinkRow
from k8slb.core.shell_words import shell_words
from k8slb.languages import LANGUAGES
from k8slb.model.index import Index
from k8slb.model.objects import Container, flag_value, pod_template, pos_of
from k8slb.model.runtimes import base_image
from k8slb.model.scripts import PATH_FOLDERS, image_script
from k8slb.model.well_known import docker_library
from k8slb.reading.build_files import (
    OUTPUT_FOLDERS,
    SHELL_SCRIPT_SUFFIX,
    UNKNOWN_TARGET,
    BuildFacts,
    Copy,
    Dockerfile,
    GoBuild,
    ImageBuild,
    MakeCall,
    NodePackage,
    Said,
    ShellScript,
    arg_folder,
    context_paths,
    env_filled,
    go_binary_name,
    image_repository,
    image_tag,
    is_import_path,
    literal_image,
    package_with_args,
    stage_file_name,
    stage_file_unknown,
    with_args,
)
from k8slb.reading.objects import K8sObject
from k8slb.reading.script_defaults import script_default

# How many images built in the repository a Dockerfile's base is followed through (a base
# FROM a base of the tree ...): each is a Dockerfile's FROM, and a real tree has one or two.
MAX_BASE_DEPTH = 4
# the fewest letters of a name a repository's modules give its owner or itself that is
# matched against an image's words (`io` of a registry's host is none)
MIN_OWN_NAME = 3


# Python files at a project's top that build or test it, which no program imports.
_PACKAGING_SCRIPTS = frozenset({"setup.py", "conftest.py", "noxfile.py"})
# The most steps (a module read, or one it loads) the Node closures of a run take
# (_Finder._node_closure): past them, a container runs its whole package, as it would
# had its command named no entry.
NODE_CLOSURE_STEPS = 200_000


@record
class Pin:
    """A container pinned to its code by the configuration's `links`: the folder or file,
    and where the configuration says so."""

    target: str
    said: Said


STRENGTH = {
    "config": 0,
    "skaffold": 1,
    "compose": 1,
    "tiltfile": 1,
    "workflow": 1,
    "cloudbuild": 1,
    "drone": 1,
    "makefile": 1,
    "jib": 1,
    "bazel": 1,
    "script": 1,
    "jenkins": 1,
    "goreleaser": 1,
    "buildpacks": 1,
    "quarkus": 1,  # Quarkus's container-image extension, configured in the module's POM
    "docs": 2,  # a build command written in Markdown: weaker than a build file's
    "dockerfile": 2,
    "manifest in folder": 2,  # in a folder of code with its Dockerfile, against builds elsewhere
    "command": 3,
    "dockerfile name": 4,
    "image name": 5,
    "bazel target": 5,  # an image named as a Bazel image target (`web-image`), as a name is
    "manifest beside": 5,  # as strong as a name: the nearer to the manifest wins
    # a compose service named as the workload or the container, whose image links nothing:
    # the same program by the name its author gave it twice, weaker than a build of the image
    "compose service": 6,
    "image name guess": 7,
    "manifest beside guess": 7,
    # a compose service named as the workload or the container of one whose image the
    # manifest leaves empty (a chart's, set at deploy): the names alone, no image to weigh
    "compose service guess": 7,
}
# The evidence that is a name alike alone: a link resting on it is a guess.
NAME_GUESSES = frozenset({"image name guess", "manifest beside guess", "compose service guess"})
# The evidence that is a build of the image (which may target a stage of its Dockerfile).
BUILD_KINDS = frozenset(
    {
        *(kind for kind, strength in STRENGTH.items() if strength == 1),
        "docs",
        "compose service",
        "compose service guess",
    }
)
# Folders a service keeps its own manifests or chart in, beside its Dockerfile and code.
MANIFEST_FOLDERS = frozenset(
    {"chart", "charts", "helm", "k8s", "kubernetes", "deploy", "deployment", "manifests"}
)


@record
class Evidence:
    kind: str  # a key of STRENGTH
    said: Said
    folder: str  # the code folder it points to
    dockerfile: str | None = None  # the Dockerfile a build definition names
    args: tuple[tuple[str, str], ...] = ()  # the build arguments a build definition gives
    applies: tuple[str, ...] = ()  # the manifests a documented build's text then applies
    # the command a build definition sets over the Dockerfile's and the container's, and
    # the exec-form wrapper it runs under (ImageBuild's)
    entrypoint: tuple[str, ...] | None = None
    wrapper: tuple[str, ...] = ()
    target: str = ""  # the Dockerfile's stage the build targets (ImageBuild's)

    @property
    def strength(self) -> int:
        return STRENGTH[self.kind]

    def paired(self, manifest: str) -> str | None:
        """The end of the manifest's path a documented build's text then applies with
        kubectl (the tutorial pairs them); None when it does not."""
        path = "/".join(os.path.normpath(manifest).split(os.sep))
        ends = (end for end in self.applies if path == end or path.endswith("/" + end))
        return next(ends, None)

    def describe(self) -> str:
        return f"{self.kind}: {self.said.path}:{self.said.line}: {self.said.text}"


@record
class Link:
    workload: K8sObject
    container: Container
    folder: str
    entry: str | None  # the module the container starts, when known
    modules: tuple[str, ...]  # the modules it runs (paths, normalised)
    evidence: tuple[Evidence, ...]  # what the link rests on, strongest first
    overruled: tuple[Evidence, ...] = ()  # weaker evidence that points elsewhere
    dockerfile: Dockerfile | None = None  # the Dockerfile its image is built with, if known
    # the build definition that sets the container's command over the Dockerfile's and
    # the manifest's (Tilt's `entrypoint=`), when one does: its `entrypoint` and `wrapper`
    # say what runs, and as PID 1
    entrypoint_set: Evidence | None = None

    @property
    def key(self) -> str:
        return container_key(self.workload, self.container.name)

    @property
    def guessed(self) -> bool:
        """Whether the link rests on a name alike alone (`image name guess`; the folder's
        own Dockerfile only refines it): what it shows of the code is a guess, which lowers
        what rules conclude from it."""
        return guessed(self.evidence)


def guessed(evidence: Sequence[Evidence]) -> bool:
    """`Link.guessed` of a link of this evidence."""
    kinds = {said.kind for said in evidence}
    return bool(kinds & NAME_GUESSES) and kinds <= {*NAME_GUESSES, "dockerfile"}


# A link as `CodeLinks.remembered` keeps it: Link's fields after its workload and container.
RememberedLink = tuple[
    str,
    str | None,
    tuple[str, ...],
    tuple[Evidence, ...],
    tuple[Evidence, ...],
    Dockerfile | None,
    Evidence | None,
]
# A long-running container's name, its link (None: it has none), why it has none, when the
# evidence says, the module it starts (model/entries.started; None: not known), read
# from its command line when its link names no entry: what the entries of a hook's
# containers are read from, with no workload's body (the file's key and `inputs_digest`
# cover what it rests on); and, with no link, the Dockerfile its evidence found and, when
# a build of the image found it, that build's context folder ("" when none did).
RememberedContainer = tuple[
    str, RememberedLink | None, str | None, str | None, Dockerfile | None, str
]
# By a workload's path, document and item: each long-running container's.
RememberedLinks = dict[tuple[str, int, int | None], tuple[RememberedContainer, ...]]


def _remembered_link(link: Link) -> RememberedLink:
    return (
        link.folder,
        link.entry,
        link.modules,
        link.evidence,
        link.overruled,
        link.dockerfile,
        link.entrypoint_set,
    )


# Functions a program runs when it starts, whoever calls them (`main`, a server's `Run`,
# Python's `__init__` and `__main__` code, a constructor).
STARTUP = regex.compile(
    r"^(main|init|__init__|run|serve|start|setup|(Run|Serve|Start|New|new)\w*)$"
)


def container_key(workload: K8sObject, container: str) -> str:
    """`Deployment/shop/frontend:web` (`Deployment/frontend:web` with no namespace), the
    key of the configuration's `links` table."""
    return f"{workload.ref.display}:{container}"


def same_image(built: str, used: str) -> bool:
    """An image a build names is the one a container runs: the same repository, or one is
    the other with a registry in front (skaffold and Tilt rewrite bare names), or the same
    path of two segments or more under two registries."""
    a, b = image_repository(built), image_repository(used)
    if not a or not b:
        return False
    if a == b or a.endswith("/" + b) or b.endswith("/" + a):
        return True
    # the same path pushed to another registry (`localhost/acme/auth` built, a chart's
    # `registry.example.com/acme/auth` run)
    path_a, path_b = _less_registry(a), _less_registry(b)
    return path_a is not None and path_a == path_b


# The most segments of an image's repository looked at as its ends (ImageSet): a real one
# has two or three.
MAX_IMAGE_SEGMENTS = 16


class ImageSet:
    """Images, asked whether one of them is an image `same_image` says is the same: each
    asked in time of its own segments, not of how many images there are (every pair
    compared would be quadratic in a tree of thousands)."""

    def __init__(self, images: Iterable[str]) -> None:
        self._whole: dict[str, str] = {}  # a repository -> an image of it
        self._ends: dict[str, str] = {}  # each shorter end of a repository (`acme/auth`)
        self._paths: dict[str, str] = {}  # a repository less its registry host
        for image in images:
            repository = image_repository(image)
            if not repository:
                continue
            self._whole.setdefault(repository, image)
            for end in _ends(repository):
                self._ends.setdefault(end, image)
            path = _less_registry(repository)
            if path is not None:
                self._paths.setdefault(path, image)

    def find(self, image: str) -> str | None:
        """An image of the set that is the same as `image` (`same_image`), or None."""
        repository = image_repository(image)
        if not repository:
            return None
        path = _less_registry(repository)
        found = (
            self._whole.get(repository)
            or next((self._whole[e] for e in _ends(repository) if e in self._whole), None)
            or self._ends.get(repository)
            or (self._paths.get(path) if path is not None else None)
        )
        return found


def _ends(repository: str) -> list[str]:
    """The shorter ends of a repository, by whole segments (`acme/auth`, `auth` of
    `registry.example/acme/auth`)."""
    segments = repository.split("/")[-MAX_IMAGE_SEGMENTS:]
    return ["/".join(segments[i:]) for i in range(1, len(segments))]


_COMPOSE_PROJECT = regex.compile(r"[^a-z0-9_-]")  # what compose drops of a project's name


def compose_images(build: ImageBuild) -> tuple[str, ...]:
    """The names compose gives the image of a service's build with no `image`: the
    project's and the service's, joined by `_` (compose v1) or `-` (v2); the project is the
    file's `name:`, else its folder's name, lower case, less what compose drops."""
    if not build.service or build.image:
        return ()
    folder = os.path.basename(os.path.abspath(os.path.dirname(build.said.path) or "."))
    project = _COMPOSE_PROJECT.sub("", (build.project or folder).lower()).lstrip("_-")
    service = build.service.lower()
    return (f"{project}_{service}", f"{project}-{service}") if project else ()


def _names_variable(image: str, variable: str) -> bool:
    """Whether an image's repository ends with the variable alone as its last segment,
    with a tag or not (`${PLUGIN_REPO}`, `$PLUGIN_REPO:v2`, `${REGISTRY}/${SERVICE}:${TAG}`
    for a workflow's `${{ env.SERVICE }}`)."""
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return last in (f"${{{variable}}}", f"${variable}") or last.startswith(
        (f"${{{variable}}}:", f"${variable}:")
    )


def _past_host(image: str) -> str:
    """An image's repository past a registry host (`localhost:5000/redis` -> `redis`, as
    skaffold and Tilt push a local build), the rest kept whole (`acme/redis`)."""
    repository = image_repository(image)
    host, slash, path = repository.partition("/")
    return path if slash and ("." in host or ":" in host or host == "localhost") else repository


def _less_registry(repository: str) -> str | None:
    """`registry.example.com/acme/auth` -> `acme/auth`; None with no registry host, or
    with a path of one segment (`localhost/auth`: too little to say it is the same)."""
    host, _, path = repository.partition("/")
    if not ("." in host or ":" in host or host == "localhost") or "/" not in path:
        return None
    return path


# A COPY source that may take any file of its context: the context whole, a glob, a variable
_RELEASE_WIDE = regex.compile(r"^\.?/?$|[*?\[$]")
# The builds run from a folder their file does not say: a script's (run from the top, or
# from its own folder), a Jenkins pipeline's (from the workspace, the checkout's top)
_CLIMBING = frozenset({"script", "jenkins"})
# The builds that make an image with no Dockerfile: of the code they name
_NO_DOCKERFILE = frozenset({"jib", "bazel", "bazel target", "buildpacks", "quarkus"})
# The builds of images for a developer's machine: where they are named is no registry the
# repository publishes to
_LOCAL_BUILDS = frozenset({"compose", "tiltfile", "docs"})
# ko's images: as a manifest names them for ko to resolve, and as ko names what it pushes
_KO_SCHEME = "ko://"
_KO_NAME = regex.compile(r"(.+)-([0-9a-f]{32})")
_SEPARATORS = dict.fromkeys(map(ord, "-_."))  # deleted
_WORDS = regex.compile(r"[-_.]")  # what separates the words of an image's name
_MAX_END_NAMES = 3  # the most folder names (and words) an image's name's end is matched to
_MAX_START_WORDS = 64  # the words of an entry point searched for its start script


# A tag's version at its end (`order_v1_0.0.2`: `_0.0.2`; `web-1.4.0-rc.1`): dotted
# numbers, a `v` before them allowed, a pre-release after
_TAG_VERSION = regex.compile(r"[-_.]?v?[0-9]+(?:\.[0-9]+)+(?:-[A-Za-z0-9.]+)?$")


def _unversioned(tag: str) -> str:
    """A tag less the version at its end (`order_v1_0.0.2` -> `order_v1`)."""
    return _TAG_VERSION.sub("", tag)


def _tagged_at_another_version(builds: list[ImageBuild], wanted: str) -> list[ImageBuild]:
    """Of builds of one repository from several folders, none of the container's tag: the
    ones whose tag is that tag at another version (`shop:order_v1_0.0.1` of the build
    of `shop:order_v1_0.0.2`; what is left once the version is cut must name something),
    with those whose tag is not known (which may be it); none when none is."""
    unversioned = _unversioned(wanted)
    if not unversioned or unversioned == wanted:
        return []
    kept = []
    for build in builds:
        tags = [t for t in build.tags if t is not None and _unversioned(t) == unversioned]
        if tags:
            text = f"{build.said.text} (its tag {tags[0]}: {wanted} at another version)"
            kept.append(replace(build, said=replace(build.said, text=text)))
        elif None in build.tags or not build.tags:
            kept.append(build)
    return kept if any(build.tags and None not in build.tags for build in kept) else []


def _tag_words_guess(builds: list[ImageBuild], image: str) -> ImageBuild | None:
    """A guess, of builds of one repository from several folders each with one literal
    tag, none the container's at any version: the one build whose tag's own words (less
    the words every build's tag shares, the repository's name's words and bare numbers)
    are the container's tag's own (`dubbo-demo:demo-order_v1_2.0` run, `dubbo-demo:
    shop-order_v1_2.1` and `dubbo-demo:shop-order_v2_2.1` built: `order v1`); none when
    several or none are, or a build's tag is not known. Its evidence is a guess (`image
    name guess`)."""
    wanted = image_tag(image)
    if not wanted or any(len(b.tags) != 1 or b.tags[0] is None for b in builds):
        return None
    named = set(_words(image_repository(image).rsplit("/", 1)[-1]))

    def own(tag: str) -> frozenset[str]:
        return frozenset(w for w in _words(tag) if not w.isdigit()) - named

    tagged = [(build, own(build.tags[0] or "")) for build in builds]
    shared = frozenset.intersection(*(words for _, words in tagged))
    wanted_words = own(wanted) - shared
    if not wanted_words:
        return None
    chosen = [build for build, words in tagged if words - shared == wanted_words]
    if len({build.context for build in chosen}) != 1:
        return None
    build = chosen[0]
    text = (
        f"{build.said.text} (a guess: of the builds of {image_repository(image)}, its tag "
        f"{build.tags[0]} alone says what {wanted} says: {' '.join(sorted(wanted_words))})"
    )
    return replace(build, said=replace(build.said, text=text))


def _normal(name: str) -> str:
    return name.lower().translate(_SEPARATORS)


def _words(name: str) -> tuple[str, ...]:
    """`shop-cart` -> ("shop", "cart"): a name's words, as its separators cut it."""
    return tuple(word for word in name.lower().translate(_SPACES).split() if word)


_SPACES = dict.fromkeys(map(ord, "-_."), " ")
_VARIABLE_USE = regex.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")  # `${APP}`, `$APP`
# The last words of a name that say a program's role, not which program it is.
ROLE_SUFFIXES = frozenset({"service", "svc", "server", "api", "app"})


# `Dockerfile-Server`, `Dockerfile_client`, `server-dockerfile`: the word beside the
# Dockerfile's own, after a `-` or `_` (a `.` is cut apart as before, any word of either side)
_KEPT_UNDER = regex.compile(
    r"^(?:dockerfile|containerfile)[-_](?P<after>.+)$|^(?P<before>.+)[-_](?:dockerfile|containerfile)$",
    regex.IGNORECASE,
)


def _kept_under(name: str) -> list[str]:
    """The names a Dockerfile's file name keeps it under, other than `Dockerfile`'s own:
    `api` of `api.Dockerfile`, `Dockerfile.api`, `Dockerfile-api` and `Dockerfile_api`."""
    found = [
        named
        for named in (name.partition(".")[2], name.rpartition(".")[0])
        if named and named.lower() not in ("dockerfile", "containerfile")
    ]
    if (spelled := _KEPT_UNDER.match(name)) is not None:
        found.append(spelled.group("after") or spelled.group("before"))
    return found


def _same_namespace(a: str, b: str) -> bool:
    """Two images' registries and namespaces are one: the same, one the other with a
    registry in front (`public.example/x/acme` and `acme`), or one not known (a bare name)."""
    return not a or not b or a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _less_role(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """`("chat", "service")` -> `("chat",)`; None for a name with no role suffix."""
    return words[:-1] if len(words) > 1 and words[-1] in ROLE_SUFFIXES else None


def _command_run(
    container: Container, chosen: Evidence, dockerfile: Dockerfile | None
) -> tuple[list[object], Evidence | None]:
    """The command line the container runs, and the evidence whose build tool sets its
    command (over the Dockerfile's and the container's), if any."""
    command, args = container.body.get("command"), container.body.get("args")
    set_by = chosen if chosen.entrypoint is not None else None
    if set_by is not None:
        command = list(set_by.entrypoint or ())
    argv = container_argv(
        command if isinstance(command, list) else None,
        args if isinstance(args, list) else None,
        dockerfile.entrypoint if dockerfile else None,
        dockerfile.cmd if dockerfile else None,
    )
    if dockerfile is not None and set_by is None and not command and not args:
        argv = _env_expanded(argv, container, chosen, dockerfile)
    return argv, set_by


def _env_expanded(
    argv: list[object], container: Container, chosen: Evidence, dockerfile: Dockerfile
) -> list[object]:
    """The image's command line with the program its shell runs (`ENTRYPOINT /app/$SERVICE`)
    as that shell finds it when the container starts: the variables from the image's ENV
    (env_filled; the build's arguments put in). As it is when the container's own `env` or
    `envFrom` may set one of them (a value of the cluster's, not the build's)."""
    script = shell_script_of(argv)
    words = past_prefixes(script_words(script)) if script is not None else []  # (`envdir /env /x`)
    if script is None or not words or "$" not in words[0] or container.body.get("envFrom"):
        return argv
    env = container.body.get("env")
    own = (
        {str(e.get("name")) for e in env if isinstance(e, dict)} if isinstance(env, list) else set()
    )
    if any(f"${name}" in words[0] or f"${{{name}}}" in words[0] for name in own):
        return argv
    filled = env_filled(dockerfile, words[0], chosen.args)
    if filled is None:
        return argv
    return [*argv[:2], script.replace(words[0], filled[0], 1), *argv[3:]]


def _settled_args(evidence: Sequence[Evidence]) -> Evidence:
    """The strongest evidence with the build arguments its build gives that every other
    build of the image as strong, of the same Dockerfile, gives alike: one that two
    definitions give different values (a compose file's COMMAND=api, a script's
    COMMAND=worker) is not known, as one no build gives."""
    chosen = evidence[0]
    if not chosen.args:
        return chosen
    given: dict[str, set[str]] = defaultdict(set)
    for other in evidence:
        if (other.strength, other.folder, other.dockerfile) == (
            chosen.strength,
            chosen.folder,
            chosen.dockerfile,
        ):
            for name, value in other.args:
                given[name].add(value)
    args = tuple((name, value) for name, value in chosen.args if len(given[name]) == 1)
    return chosen if args == chosen.args else replace(chosen, args=args)


def _agreeing_within(overruled: list[Evidence], context: str, folder: str) -> list[Evidence]:
    """Narrowed to a `folder` inside the `context`: the evidence naming a folder around it,
    inside the context (the service's folder, by its image's name), agrees."""
    return [
        e
        for e in overruled
        if e.folder != context  # (`.` is below `.`)
        and _below(e.folder, context)
        and _within(folder, e.folder)
    ]


class CodeLinks:
    """Every container's link, each made when first asked for (a pre-commit run judges a
    few workloads of thousands), and the reverse: which containers run a module (which
    needs them all)."""

    def __init__(
        self,
        modules: Mapping[str, CodeFacts] | None = None,
        finder: _Finder | None = None,
        index: Index | None = None,
    ) -> None:
        self.modules: dict[str, CodeFacts] = dict(modules or {})  # by normalised path
        self._finder = finder
        self._index = index
        self._workloads = {id(w) for w in index.workload_objects} if index is not None else set()
        self._made: dict[tuple[int, int], Link | None] = {}  # by (id(workload), id(container))
        # by module: the place (workload, position among its long-running containers) of
        # each container that runs it, found without making the links `restore` took
        self._runners: dict[str, list[tuple[K8sObject, int]]] | None = None
        self._running: dict[str, list[Link]] = {}  # running(), by normalised module path
        # where a value of a module's code points, read through these links (kept by
        # addresses.destinations_of): by the index's and the value's ids, the parser, the module
        self.destinations: dict[tuple[int, int, object, str], tuple[Index, object, list[Any]]] = {}
        # the links `restore` took, by id(workload), made into Links when first asked: a
        # pre-commit run asks who runs a module, which reads every link but few workloads
        self._pending: dict[int, tuple[K8sObject, tuple[RememberedContainer, ...]]] = {}
        self.renamed = 0  # how many of them were not as kept (_take)
        # those of them taken from a model of the very same files (restore's `as_made`):
        # their containers are as kept, so what is kept of them is read without a body
        self._as_made: set[int] = set()
        self._programs: list[tuple[list[str], set[str]]] | None = None  # programs()
        # asked once, before every link is made: may `restore` links kept from another run
        self.before_all: Callable[[CodeLinks], None] | None = None

    @property
    def scripts(self) -> Mapping[str, ShellScript]:
        """The shell scripts of the tree, by normalised path."""
        return self._finder.builds.scripts if self._finder is not None else {}

    @property
    def packages(self) -> Mapping[str, NodePackage]:
        """The package.json files of the tree, by their folder (normalised)."""
        return self._finder.builds.packages if self._finder is not None else {}

    @property
    def bundles(self) -> Mapping[str, tuple[tuple[str, str], ...]]:
        """The Nx project.json files' bundled builds (entry module, output folder, from
        the workspace's top), by the file's folder (normalised)."""
        return self._finder.builds.bundles if self._finder is not None else {}

    def node_loads(self, entry: str) -> frozenset[str] | None:
        """The modules a Node program starting at the module `entry` loads, itself among
        them (_Finder._node_closure); None when that is not known."""
        if self._finder is None or entry not in self.modules:
            return None
        return self._finder.node_closure(entry)

    def console_module(self, argv: Sequence[object]) -> str | None:
        """The module a command line runs as a Python project's console script, past the
        prefixes that exec it; None when it is none (_Finder.console_module)."""
        return self._finder.console_module(argv) if self._finder is not None else None

    def console_function(self, argv: Sequence[object]) -> str | None:
        """The function a command line calls as a Python project's console script (`main`
        of `acme = 'acme.cli:main'`), when it runs one module (console_module); None
        otherwise, or when the declarations of that module name different functions."""
        return self._finder.console_function(argv) if self._finder is not None else None

    def package_of(self, facts: CodeFacts) -> NodePackage | None:
        """The package.json of the module's program (the folder of its project), if read."""
        if self._finder is None or not facts.project:
            return None
        return self._finder.builds.packages.get(os.path.normpath(facts.project))

    def _link(self, workload: K8sObject, container: Container) -> Link | None:
        key = (id(workload), id(container))
        if key not in self._made and id(workload) in self._pending:
            self._take(workload)
        if key not in self._made:
            finder = self._finder
            self._made[key] = finder.link(workload, container) if finder is not None else None
        return self._made[key]

    @property
    def links(self) -> list[Link]:
        """Every link, in the order of the index's workloads (all made now)."""
        if self._index is None:
            return []
        self._before_all()
        return [
            link
            for workload, template in self._index.workloads
            for container in template.long_running
            if (link := self._link(workload, container)) is not None
        ]

    def _before_all(self) -> None:
        if self.before_all is not None:
            before_all, self.before_all = self.before_all, None
            before_all(self)

    def make_all(self) -> None:
        """Make every container's link now (`keep` takes only those made)."""
        self.links  # noqa: B018 - made as they are listed

    def make_unkept(self) -> None:
        """Make now the link of every container but those `restore` took and none has
        asked for yet (`keep` takes those as they are, and every link made)."""
        self._before_all()
        self.links_but(frozenset(self._pending))

    def links_but(self, skipped: Collection[int]) -> list[Link]:
        """Every link, in the order of `links`, but those of the workloads `skipped` (by
        id), which are neither made nor have their pod templates read."""
        if self._index is None:
            return []
        self._before_all()
        index = self._index
        return [
            link
            for workload in index.workload_objects
            if id(workload) not in skipped
            for container in index.template(workload).long_running
            if (link := self._link(workload, container)) is not None
        ]

    def kept_alike(self, other: CodeLinks) -> dict[int, tuple[K8sObject, tuple[str, ...]]]:
        """The workloads whose links both models are still to make from the same kept
        links (`restore`, then `keep`: the same objects, so the same links once made), by
        id, with the names of their containers as kept."""
        self._before_all()
        other._before_all()
        return {
            key: (pending[0], tuple(kept[0] for kept in pending[1]))
            for key, pending in self._pending.items()
            if other._pending.get(key) is pending
        }

    def remembered(self) -> RememberedLinks:
        """The links made, as plain data by each workload's place (its file, document and
        item) and each long-running container's (its position and name), with why one has
        none: what `restore` gives a model made of the very same files again (a check
        after an edit makes the model before it from the cache: incremental.after_edit)."""
        from k8slb.model.entries import started  # (entries reads links: imported here)

        if self._index is None:
            return {}
        why_not = self._finder.why_not if self._finder is not None else {}
        unlinked = self._finder.unlinked if self._finder is not None else {}
        built_in = self._finder.built_in if self._finder is not None else {}
        found: RememberedLinks = {}
        for workload in self._index.workload_objects:
            pending = self._pending.get(id(workload))
            if pending is not None:  # taken from another run and never asked
                found[(workload.path, workload.document, workload.item)] = pending[1]
                continue
            made = []
            for container in self._index.template(workload).long_running:
                key = (id(workload), id(container))
                if key not in self._made:
                    break  # never asked: made when asked, after a restore too
                link = self._made[key]
                kept = None if link is None else _remembered_link(link)
                start = None if link is None else started(self, link)
                built = None if link is not None else unlinked.get(key)
                context = "" if built is None else built_in.get(key, "")
                made.append((container.name, kept, why_not.get(key), start, built, context))
            else:
                found[(workload.path, workload.document, workload.item)] = tuple(made)
        return found

    def restore(
        self,
        remembered: RememberedLinks,
        unchanged: Callable[[str], bool] = lambda _: True,
        *,
        as_made: bool = False,
    ) -> None:
        """Take the links `remembered` says for the workloads of the same place whose
        long-running containers have the same names, in the files `unchanged` says are as
        they were then; the others are made when asked. Only for a model whose links rest
        on what theirs did (`inputs_digest`): a link reads nothing else but its workload.
        `as_made`: this model is made of the very files they were made of (the model
        before an edit, incremental.after_edit), so every workload's containers are as
        kept, and who runs a module and the link rows are read from them unmade."""
        if self._index is None or self._finder is None:
            return
        asked = {key[0] for key in self._made}  # made already: a rule may hold them
        self._running.clear()
        self.destinations.clear()
        for workload in self._index.workload_objects:
            kept = remembered.get((workload.path, workload.document, workload.item))
            if kept is None or id(workload) in asked or not unchanged(workload.path):
                continue
            # a file as it was holds the same containers: their names are compared when
            # the links are made (_take), so no workload's body is read here
            self._pending[id(workload)] = (workload, kept)
            if as_made:
                self._as_made.add(id(workload))

    def _take(self, workload: K8sObject) -> None:
        """Make the links `restore` took for the workload, if its long-running containers
        have the names they had; else they are made as asked."""
        _, kept = self._pending.pop(id(workload))
        assert self._index is not None and self._finder is not None  # (restore's)
        containers = self._index.template(workload).long_running
        if [c.name for c in containers] != [k[0] for k in kept]:
            self.renamed += 1
            return
        for container, (_, link, why, _, built, context) in zip(containers, kept, strict=True):
            key = (id(workload), id(container))
            self._made[key] = None if link is None else Link(workload, container, *link)
            if why is not None:
                self._finder.why_not[key] = why
            if built is not None:
                self._finder.unlinked[key] = built
            if context:
                self._finder.built_in[key] = context

    def keep(self, other: CodeLinks) -> None:
        """Take the links `other` made for the workloads both have (the same objects): for
        a model made again after an edit that changed no code and no build file, which
        are all a link reads besides its own workload (k8slb lsp)."""
        if self._finder is None or self._index is None or other._index is None:
            return
        why_not = dict(other._finder.why_not) if other._finder is not None else {}
        unlinked = dict(other._finder.unlinked) if other._finder is not None else {}
        built_in = dict(other._finder.built_in) if other._finder is not None else {}
        self._running.clear()
        self.destinations.clear()
        self._finder.why_not = {}  # by the ids of this model's objects (the finder may be shared)
        self._finder.unlinked = {}
        self._finder.built_in = {}
        if self._programs is None:  # the Go programs: of the code alone
            self._programs = other._programs
        # the same objects' pod templates, so their containers are the same too
        self._index.share_templates(other._index)
        for key, link in other._made.items():
            if key[0] in self._workloads:
                self._made[key] = link
        for workload_id, pending in other._pending.items():  # (the same objects)
            if workload_id in self._workloads:
                self._pending[workload_id] = pending
                if workload_id in other._as_made:
                    self._as_made.add(workload_id)
        for key, why in why_not.items():
            if key[0] in self._workloads:
                self._finder.why_not[key] = why
        for key, built in unlinked.items():
            if key[0] in self._workloads:
                self._finder.unlinked[key] = built
        for key, context in built_in.items():
            if key[0] in self._workloads:
                self._finder.built_in[key] = context

    def of(self, workload: K8sObject, container: str) -> Link | None:
        """The link of the workload's long-running container of that name (the last, if
        the name is repeated)."""
        if self._index is None or id(workload) not in self._workloads:
            return None
        named = [c for c in self._index.template(workload).long_running if c.name == container]
        return self._link(workload, named[-1]) if named else None

    def why_not(self, workload: K8sObject, container: str) -> str | None:
        """Why the container has no link, when its evidence says: a Dockerfile shared by
        services whose build argument no build gives."""
        if self._index is None or self._finder is None or self.of(workload, container):
            return None
        named = [c for c in self._index.template(workload).long_running if c.name == container]
        return self._finder.why_not.get((id(workload), id(named[-1]))) if named else None

    def unlinked_dockerfile(self, workload: K8sObject, container: str) -> Dockerfile | None:
        """The Dockerfile the evidence found for a container linked to no code (a shared
        Dockerfile whose build argument no build gives, a build of no code k8slb reads):
        what its image is built from, as its base says, with no code to link."""
        if self._index is None or self._finder is None or self.of(workload, container):
            return None
        named = [c for c in self._index.template(workload).long_running if c.name == container]
        return self._finder.unlinked.get((id(workload), id(named[-1]))) if named else None

    def unlinked_build(self, workload: K8sObject, container: str) -> tuple[Dockerfile, str] | None:
        """The Dockerfile a build of the container's image found, for a container linked
        to no code (`docker build -t acme/api api/docker/` of a folder that holds only the
        Dockerfile and its scripts, the program coming from a release archive), with that
        build's context folder: where the COPY lines of the Dockerfile take its scripts
        from. None when no build found it (a name alike alone is no evidence of what the
        image runs)."""
        built = self.unlinked_dockerfile(workload, container)
        if built is None or self._finder is None or self._index is None:
            return None
        named = [c for c in self._index.template(workload).long_running if c.name == container]
        context = self._finder.built_in.get((id(workload), id(named[-1])), "")
        return (built, context) if context else None

    def kept_as_made(self, workload: K8sObject) -> tuple[RememberedContainer, ...] | None:
        """The workload's containers as `restore` took them with `as_made`, if no one has
        asked for their links since (they are made then): the same as those links."""
        key = id(workload)
        pending = self._pending.get(key) if key in self._as_made else None
        return pending[1] if pending is not None else None

    def runs(self, module_path: str) -> bool:
        """Whether a container runs the module (`running` is not empty): a container
        `restore` took as made says so without its link made, nor its workload's body read."""
        for workload, _ in self._places().get(os.path.normpath(module_path), []):
            if self.kept_as_made(workload) is not None:
                return True  # its link is made as kept: _take finds its names as they were
        return bool(self.running(module_path))

    def running(self, module_path: str) -> list[Link]:
        """The containers whose code includes the module (each module's worked out once:
        the rules ask it some 9 times a module)."""
        path = os.path.normpath(module_path)
        known = self._running.get(path)
        if known is not None:
            return list(known)
        renamed = self.renamed
        found = [link for place in self._places().get(path, []) if (link := self.at(*place))]
        if self.renamed != renamed:  # a restored workload's containers were not as kept
            self._runners = None
            self._running.clear()
            self.destinations.clear()
            return self.running(module_path)
        self._running[path] = found  # one entry a module asked: linear
        return list(found)

    def modules_run_by(self, workload: K8sObject) -> set[str]:
        """The modules the workload's long-running containers run (normalised paths):
        `running` of a module holds one of its links exactly when the module is here."""
        if self._index is None:
            return set()
        self._before_all()  # (as `running` does: links taken as kept, not made anew)
        count = len(self._index.template(workload).long_running)
        return {m for p in range(count) if (link := self.at(workload, p)) for m in link.modules}

    def at(self, workload: K8sObject, position: int) -> Link | None:
        """The link of the workload's long-running container at that position."""
        assert self._index is not None  # (a CodeLinks with no index places nothing)
        return self._link(workload, self._index.template(workload).long_running[position])

    def place(self, link: Link) -> tuple[K8sObject, int]:
        """The link's workload and its container's position among the long-running ones."""
        assert self._index is not None  # (a link is made of the index's workloads)
        containers = self._index.template(link.workload).long_running
        # (by where it is written: a link `keep` took may hold another run's template's)
        where = link.container.path
        return link.workload, next((i for i, c in enumerate(containers) if c.path == where), -1)

    def _places(self) -> dict[str, list[tuple[K8sObject, int]]]:
        """By module: where each container that runs it is, in the order of `links`."""
        if self._runners is None:
            self._runners = defaultdict(list)
            for workload, position, modules, _, _ in self.placed():
                for module in modules:
                    self._runners[module].append((workload, position))
        return self._runners

    def folders(self) -> Iterator[tuple[K8sObject, str, bool]]:
        """Each link's workload, folder and whether it is guessed, in the order of `links`:
        those of a workload `restore` took as made and no one asked for since read as kept
        (its links the same once made: `kept_as_made`), so that no body is read for them;
        the others made as `links` makes them."""
        if self._index is None:
            return
        self._before_all()
        for workload in self._index.workload_objects:
            kept = self.kept_as_made(workload)
            if kept is not None:
                yield from ((workload, link[0], guessed(link[3])) for _, link, *_ in kept if link)
                continue
            for container in self._index.template(workload).long_running:
                if (made := self._link(workload, container)) is not None:
                    yield workload, made.folder, made.guessed

    def placed(
        self,
    ) -> Iterator[tuple[K8sObject, int, tuple[str, ...], str | None, Link | None]]:
        """Each linked container's workload, position, modules and entry, in the order of
        `links`, and its link; for one `restore` took and no one asked for yet, the module
        it starts as kept (entries.started) and None (no workload's body is read for it)."""
        if self._index is None:
            return
        self._before_all()
        for workload in self._index.workload_objects:
            pending = self._pending.get(id(workload))
            if pending is not None:
                for position, (_, kept, _, start, _, _) in enumerate(pending[1]):
                    if kept is not None:
                        yield workload, position, kept[2], start, None
                continue
            for position, container in enumerate(self._index.template(workload).long_running):
                if (link := self._link(workload, container)) is not None:
                    yield workload, position, link.modules, link.entry, link

    def env_readers(self, judged: Iterable[CodeFacts]) -> dict[str, list[str]]:
        """By container key: the judged modules no container runs whose channels dial a
        variable the container's `env` sets, where the rules look it up with no link (the
        workloads nearest the code: addresses.destinations), as `client.py: BACKEND_ADDR`.
        (Who runs a module needs every link: asked only of the modules the rules judge.)"""
        if self._index is None:
            return {}
        found: dict[str, dict[str, list[str]]] = defaultdict(dict)
        for facts in judged:
            # the targets a module keeps beside its header: no module's code is loaded
            names = [t.name for t in facts.dialed_targets() if isinstance(t, EnvRef)]
            if facts.is_test or not names or self.runs(facts.path):
                continue
            for name in dict.fromkeys(names):
                for setting in self._index.env_settings_near(name, facts.path):
                    key = container_key(setting.workload, setting.container.name)
                    found[key].setdefault(facts.path, []).append(name)
        return {
            key: [f"{path}: {', '.join(names)}" for path, names in sorted(by_path.items())]
            for key, by_path in found.items()
        }

    def code(self, link: Link) -> list[CodeFacts]:
        return [self.modules[path] for path in link.modules if path in self.modules]

    def programs(self, module_path: str) -> list[list[CodeFacts]]:
        """The code of each Go program of the tree that links the module's package in (its
        packages' import closure: code/projects.GoPackages), whichever container runs it;
        none for a module of another language."""
        if self._finder is None:
            return []
        if self._programs is None:
            self._programs = [(files, set(files)) for files in self._finder.go.programs()]
        path = os.path.normpath(module_path)
        return [
            [self.modules[p] for p in files if p in self.modules]
            for files, members in self._programs
            if path in members
        ]

    def listening(self, workload: K8sObject, container: Container) -> list[Served]:
        """The gRPC servers the container's code starts, with the port each listens on
        (an address from the environment read through this container's `env`)."""
        link = self.of(workload, container.name)
        if link is None:
            return []
        found: list[Served] = []
        for facts in self.code(link):
            servers = {server.name: server for server in facts.servers if server.name}
            for listen in facts.listens:
                server = servers.get(listen.server)
                port = port_of(listen.address, workload, container)
                if server is not None and port is not None:
                    found.append(Served(link, facts, server, listen, port))
        return found

    def registration(self, workload: K8sObject, container: Container) -> Registration | None:
        """Where the container's code registers the process in a service registry: a
        register call made at the top level, in a function that runs once (`main`,
        `Run`...), or in one the code calls by name (`Register`, a wrapper of Consul's
        `ServiceRegister`) from the same folder or from a module that imports it. None
        when the code makes none, or only in functions it never calls (a registry package
        imported for its client)."""
        link = self.of(workload, container.name)
        if link is None:
            return None
        code = self.code(link)
        made = [(facts, r) for facts in code for r in facts.registrations]
        for facts, registration in made:
            within = registration.within
            if not within or STARTUP.match(within):
                return registration
            # a method, or the function through its package's name (not another's)
            names = {within, f"{os.path.basename(os.path.dirname(facts.path))}.{within}"}
            if any(names & other.called and may_call_into(other, facts) for other in code):
                return registration
        return None

    def route(self, workload: K8sObject, container: Container, path: object) -> Reached | None:
        """The handler an HTTP path reaches in the container's code: of the routes that
        declare the path (`routes`), the one nearest the program's entry, when one is
        nearer than the others or they all reach one handler; None otherwise."""
        found = self.routes(workload, container, path)
        if len(found) < 2:
            return found[0] if found else None
        link = self.of(workload, container.name)
        assert link is not None  # routes were found in its code
        nearest = _nearness(link, found[0].facts)
        best = [r for r in found if _nearness(link, r.facts) == nearest]
        return best[0] if all(best[0].same_handler(other) for other in best[1:]) else None

    def routes(self, workload: K8sObject, container: Container, path: object) -> list[Reached]:
        """Every route of the container's code that declares an HTTP path (a query string
        and a trailing slash do not matter), nearest the program's entry first: in its
        entry module, then in the module whose folder shares the most leading folders with
        the entry (the link's folder when it has none). A folder of several apps, or an app
        and its test double, may each declare `/healthz`: the nearest is the one run."""
        link = self.of(workload, container.name)
        if link is None or not isinstance(path, str):
            return []
        wanted = path.split("?", 1)[0].rstrip("/") or "/"
        found = [
            Reached(facts, route)
            for facts in self.code(link)
            for route in facts.routes
            if (route.path.rstrip("/") or "/") == wanted
        ]
        return sorted(found, key=lambda r: _nearness(link, r.facts), reverse=True)

    def dependencies(self, link: Link) -> list[tuple[CodeFacts, Loc, str]]:
        """What the container's code connects to: gRPC channels, DB pools, HTTP clients."""
        found: list[tuple[CodeFacts, Loc, str]] = []
        for facts in self.code(link):
            found += [(facts, c.loc, "a gRPC channel") for c in facts.channels]
            found += [(facts, d.loc, "a database pool") for d in facts.db_pools]
            found += [(facts, h.loc, "an HTTP client") for h in facts.http_clients]
        return found


@record
class Reached:
    """A route in a container's code, and the module that declares it."""

    facts: CodeFacts
    route: Route

    def same_handler(self, other: Reached) -> bool:
        return self.facts is other.facts and self.route.handler == other.route.handler

    @property
    def where(self) -> str:
        return f"{os.path.basename(self.route.loc.path)}:{self.route.loc.line}"


@record
class Served:
    """A gRPC server in a container's code, listening on `port`."""

    link: Link
    facts: CodeFacts
    server: Server
    listen: Listen
    port: int


def _nearness(link: Link, facts: CodeFacts) -> tuple[bool, int]:
    """How near a module of a link's code is to the program's entry (greater: nearer): the
    entry itself, then by the leading folders its folder shares with the entry (with the
    link's folder when no entry is known)."""
    here = os.path.normpath(facts.path)
    anchor = link.entry or link.folder
    return here == link.entry, _shared(os.path.dirname(here) or ".", anchor)


def port_of(address: object, workload: K8sObject, container: Container) -> int | None:
    """7070 for `[::]:7070`, `0.0.0.0:7070`, `:7070`, or an env variable or a command-line
    flag (as the container's args give it, else its default) holding one."""
    if isinstance(address, FlagRef):
        given = flag_value(container, address.name)
        address = address.filled(given) if given is not None else address.default_text
    elif isinstance(address, EnvRef):
        setting = Index.env_setting(workload, container, address.name, address.any_case)
        if setting is None and isinstance(address.default, EnvRef) and not address.suffix:
            # a default made of another variable (Node's `{HOST = `0.0.0.0:${PORT}`} =
            # process.env`): that one as the container sets it, else its own default
            return port_of(address.default, workload, container)
        address = address.filled(setting.value) if setting else address.default_text
    elif isinstance(address, EnvText):  # `${HOST}:${PORT}`: each from the container's env
        settings = {name: Index.env_setting(workload, container, name) for name in address.names}
        address = address.filled({n: s.value for n, s in settings.items() if s is not None})
    if not isinstance(address, str):
        return None
    port = address.rsplit(":", 1)[-1]
    return int(port) if port.isdigit() else None


def link_code(
    index: Index,
    python: Sequence[CodeFacts],
    builds: BuildFacts,
    pins: Mapping[str, Pin] | None = None,
) -> CodeLinks:
    """The link of every long-running container of every scanned workload that has one
    (each made when it is first asked for)."""
    modules = {os.path.normpath(m.path): m for m in python if not m.is_test}
    if not modules and not builds.dockerfiles and not builds.scripts:
        return CodeLinks()  # (a script a manifest's shell runs is read with no link)
    return CodeLinks(modules, _Finder(modules, builds, pins or {}), index)


def inputs_digest(
    modules: Sequence[CodeFacts],
    builds: BuildFacts,
    pins: Mapping[str, Pin] | None = None,
    builds_said: str | None = None,
) -> str:
    """A digest of everything a link reads besides its workload (the finder's inputs):
    what links read of every module (CodeFacts.link_inputs: its header and a digest of
    what they read of its code), the
    build files' facts and the configuration's pins, each in the order of its paths (a
    whole run reads the tree in the walk's order, a pre-commit hook its named files first;
    `--context` judges as judging everything does: tests/test_context_scope.py). Two
    models of one digest link a workload alike (CodeLinks.restore). `builds_said`: the
    build facts' `builds_digest`, when known (kept by the run that had the same build
    files: some 0.03 s of records' reprs at 10,000 files)."""
    said = repr(
        (
            [m.link_inputs() for m in sorted(modules, key=lambda m: m.path)],
            builds_digest(builds) if builds_said is None else builds_said,
            sorted((pins or {}).items()),
        )
    )
    return hashlib.blake2b(said.encode(), digest_size=20).hexdigest()


def builds_digest(builds: BuildFacts) -> str:
    """A digest of the build files' facts, each in the order of its paths: what
    `inputs_digest` reads of them, a function of the build files alone (engine._gather)."""
    said = repr(
        (
            sorted(map(repr, builds.builds)),
            sorted(builds.dockerfiles.items()),
            sorted(builds.projects),
            sorted(builds.packages.items()),
            sorted(builds.scripts.items()),
            sorted(builds.names.items()),
            sorted(map(repr, builds.tags)),
            sorted(builds.grpc_java.items()),
            sorted(map(repr, builds.go_builds)),
            sorted(builds.make_rules.items()),
            sorted(builds.bundles.items()),
        )
    )
    return hashlib.blake2b(said.encode(), digest_size=20).hexdigest()


def link_code_again(index: Index, python: Sequence[CodeFacts], before: CodeLinks) -> CodeLinks:
    """`link_code` after an edit that left the code, the build files and the pins as
    `before` had them: its finder (what it learnt of the folders and programs) and the
    links of the workloads both models have are kept; only a changed workload is linked
    again (k8slb lsp)."""
    if before._finder is None:
        return CodeLinks()
    modules = {os.path.normpath(m.path): m for m in python if not m.is_test}
    made = CodeLinks(modules, before._finder, index)
    made.keep(before)
    return made


class _Finder:
    # the files the host's `go build`s write, as paths of the tree (_host_written)
    _written: dict[str, list[GoBuild]] | None = None
    # the tree's `main` packages by the binary's name Go gives each (_prebuilt_main)
    _mains_named: dict[str, list[str]] | None = None

    def __init__(
        self, modules: Mapping[str, CodeFacts], builds: BuildFacts, pins: Mapping[str, Pin]
    ) -> None:
        self.modules = modules
        self.imports = ImportGraph(modules)
        # a Node program's modules (_entry_run): what each module loads, the folder and
        # file names of each program (by its folder), each entry's closure, and the steps
        # spent on them, bounded by NODE_CLOSURE_STEPS a run
        self._node_loads: dict[str, tuple[str, ...] | None] = {}
        self._node_names: dict[str, frozenset[str]] = {}
        self._node_closures: dict[tuple[str, int], frozenset[str] | None] = {}
        self._node_steps = 0
        said = Counter(name.text for name in builds.names.values())
        self.go = GoPackages(
            modules,
            {name.text: f for f, name in builds.names.items()},
            {text for text, count in said.items() if count > 1},
        )
        self.builds = builds
        self.pins = {key: os.path.abspath(pin.target) for key, pin in pins.items()}
        self.pinned_at = {key: pin.said for key, pin in pins.items()}
        self.dockerfiles = builds.dockerfiles  # by normalised path
        # by a container's key: why it has no link, where its evidence says; the Dockerfile
        # the evidence found when it links it to no code, and the build's context, if a build
        self.why_not: dict[tuple[int, int], str] = {}
        self.unlinked: dict[tuple[int, int], Dockerfile] = {}
        self.built_in: dict[tuple[int, int], str] = {}
        self.by_folder: dict[str, list[str]] = defaultdict(list)  # folder -> modules below
        folders_named: dict[str, set[str]] = defaultdict(set)
        for path in modules:  # normalised: a folder is what is left of its last separator
            folder, _, _ = path.rpartition(os.sep)
            while folder not in ("", os.sep, "."):
                below = self.by_folder.get(folder)
                if below is None:  # a folder's name is read once, not once a module below
                    below = self.by_folder[folder] = []
                    folders_named[_normal(folder.rpartition(os.sep)[2])].add(folder)
                below.append(path)
                folder = folder.rpartition(os.sep)[0]
            if not os.path.isabs(path):
                self.by_folder["."].append(path)
        # a folder with a Dockerfile is named too, with no code k8slb reads in it (Ruby, shell:
        # its image's ENTRYPOINT and CMD run); a relative tree's top by its own name
        for path, dockerfile in self.dockerfiles.items():
            folder = os.path.dirname(path) or "."
            if folder not in self.by_folder and self._context_of(dockerfile) is not None:
                continue  # kept apart from the code it copies: `dockerfile name` finds it
            name = os.path.basename(os.path.abspath(folder))
            if folder not in folders_named[_normal(name)]:
                folders_named[_normal(name)].add(folder)
        self.folders_named = folders_named
        # a folder's name's words, by its last (made when an image names no folder whole)
        self._by_last_word: dict[str, list[tuple[tuple[str, ...], str]]] | None = None
        self._role_less: dict[str, set[str]] | None = None  # by a name less a role (`_server`)
        self._built_paths: set[str] | None = None  # what Dockerfiles copy and build (_is_built)
        self._per_folder: Counter[str] | None = None  # _dockerfiles_in
        self._built_patterns: list[regex.Pattern[str]] = []  # what their build arguments choose
        # folders' Dockerfiles with no code, by their name (`docker/cart/Dockerfile`: cart)
        self._apart: dict[str, list[Dockerfile]] | None = None
        self._beside: dict[str, list[Dockerfile]] | None = None  # `cart.Dockerfile` by code
        self._programs: dict[str, list[str]] | None = None
        self._built: tuple[dict[str, set[str]], dict[str, int]] | None = None
        self._built_ends: dict[frozenset[str], set[str]] | None = None  # _path_ends, by words
        self._kind_names: frozenset[str] | None = None  # _kinds
        self._above: dict[str, Dockerfile] | None = None
        self._folder_dockerfiles: dict[str, Dockerfile | None] = {}  # _dockerfile, by folder
        self._evidence_of: dict[str, list[Evidence]] = {}  # _build_evidence, by image
        # the folders of code with a Dockerfile, by their parent (made when first asked)
        self._children_built: dict[str, list[str]] | None = None
        self._namespaces: set[str] | None = None  # where the builds push (_pushed_elsewhere)
        self._jvm_sorted: list[str] | None = None  # the JVM modules in order (_jvm_modules_below)
        self._owners: frozenset[str] | None = None  # what its modules name it (_own_names)
        self._held_folders: set[str] | None = None  # the folders holding files read (_held)
        self._modules_named: dict[str, list[tuple[str, Said]]] | None = None
        self._sets: list[tuple[str, str, Said]] | None = None  # scripts' image `--set`s
        self._apis: dict[tuple[str, ...], set[str]] | None = None  # _served_apis
        self._bases: dict[str, Dockerfile | None] = {}  # _inherited, by a Dockerfile's path
        # absolute path -> as shown, for the configuration's pins alone (made only for them)
        self.shown: dict[str, str] = (
            {os.path.abspath(p): p for p in (*modules, *self.by_folder)} if pins else {}
        )

    # -- the folder --------------------------------------------------------------------------

    def _folder_evidence(self, workload: K8sObject, container: Container) -> list[Evidence]:
        found: list[Evidence] = []
        key = container_key(workload, container.name)
        if key in self.pins:
            target = self.pins[key]
            shown = self.shown.get(target) or os.path.relpath(target)
            folder = shown if shown in self.by_folder else os.path.dirname(shown) or "."
            said = replace(self.pinned_at[key], text=f"{key} = {shown}")
            found.append(Evidence("config", said, folder))
        image = container.body.get("image")
        deployed = self._deployed_image(workload, container, image)
        if deployed is not None:  # what a script sets at deploy time over the chart's default
            image, set_at, known_as = deployed
            if image is None:
                self.why_not[(id(workload), id(container))] = (
                    f"{set_at.path}:{set_at.line}: `{set_at.text}` sets the image of the chart "
                    "at deploy time to a value k8slb does not know: its default "
                    f"{container.body.get('image')} is not what runs"
                )
                return found
        if isinstance(image, str):
            line = pos_of(container.body, "image", value=True)[0]
            said = Said(workload.path, line, f"image: {image}")
            if deployed is not None:
                text = (
                    f"image: {image} ({set_at.path}:{set_at.line} sets it at deploy time: "
                    f"{known_as})"
                )
                said = replace(said, text=text)
            doubts: list[str] = []
            found += self._image_evidence(image, said, doubts)
            for tag in self.builds.tags:  # `docker tag SOURCE IMAGE`: what SOURCE is built from
                if same_image(tag.target, image) and not same_image(tag.source, image):
                    found += [
                        replace(e, said=replace(e.said, text=f"{e.said.text} ({tag.describe()})"))
                        for e in self._image_evidence(tag.source, said)
                    ]
        if not found and image is None:  # left empty (a chart's `image: {{ .Values.image }}`)
            found += self._guessed(workload, container, "")
        elif not found and isinstance(image, str) and not self._library_image(image):
            found += self._guessed(workload, container, image)
        segment = image_repository(image).rsplit("/", 1)[-1]
        service = self._service_beside(workload, segment)
        if service is not None and (self._published(image) or self._built_as_other(service, image)):
            service = None  # by place, a manifest beside a Dockerfile runs its image alone
        if service is not None:
            line = pos_of(container.body, "image", value=True)[0]
            said = Said(workload.path, line, f"in {service}, beside its Dockerfile")
            found.append(Evidence("manifest beside", said, service))
        if not found and isinstance(image, str):
            beside = self._beside_its_dockerfile(workload, container, segment)
            found += (
                []
                if not beside
                or self._published(image)
                or self._built_as_other(beside[0].folder, image)
                else beside
            )
        elif (own := self._manifest_folder(workload, segment)) is not None and any(
            e.folder != own for e in found
        ):
            # builds or names elsewhere (a variant's) against the folder the manifest sits
            # in with its Dockerfile: as strong as a documented build, and the nearest
            line = pos_of(container.body, "image", value=True)[0]
            said = Said(workload.path, line, f"in {own}, beside its Dockerfile")
            found.append(Evidence("manifest in folder", said, own))
        if not found and isinstance(image, str) and doubts:
            self.why_not[(id(workload), id(container))] = doubts[0]
        found = self._ranked(workload, found)
        if (ambiguous := self._builds_apart(workload, found)) is not None:
            self.why_not[(id(workload), id(container))] = ambiguous
            return []
        return found

    def _builds_apart(self, workload: K8sObject, ranked: Sequence[Evidence]) -> str | None:
        """Why a container whose image two builds make from folders apart (neither inside
        the other: `docker build -t ${IMG} .` in two components' Makefiles, a scaffold's
        `IMG ?= controller:latest` in each) links no code when they are equally strong and
        equally near the manifest: the folder that holds it decides (a component's own
        `config/manager/`), and neither does. None when the strongest evidence is no
        build, or no other build ties with it."""
        if len(ranked) < 2 or ranked[0].kind not in BUILD_KINDS:
            return None

        def rank(e: Evidence) -> tuple[object, ...]:
            paired = e.paired(workload.path) is None
            return (self._absent(e), e.strength, paired, self._missing(e))

        first = ranked[0]
        near = _shared(first.folder, workload.path)
        for other in ranked[1:]:
            if other.kind not in BUILD_KINDS or rank(other) != rank(first):
                continue
            if _within(other.folder, first.folder) or _within(first.folder, other.folder):
                continue
            if _shared(other.folder, workload.path) != near:
                continue
            return (
                f"{first.said.path}:{first.said.line} and {other.said.path}:{other.said.line} "
                f"both build the image, from {first.folder} and {other.folder}, and neither "
                f"folder holds {workload.path}: which code runs is unsaid, no code is linked"
            )
        return None

    def _guessed(self, workload: K8sObject, container: Container, image: str) -> list[Evidence]:
        """What names the program where nothing builds its image, the first that says
        anything: the chart the image is named as, a compose service named as the workload,
        the gRPC service one build folder serves, a Dockerfile named for the role."""
        # an image left empty: the compose service named as the workload or the container
        # first, a name of this program alone, before the chart's, which may hold several
        if found := self._compose_service(workload, container, image):
            return found
        if not image_repository(image) and (
            found := self._named_as_its_chart(workload, container, image)
        ):
            return found
        if not image_repository(image) and (
            found := self._chart_in_service(workload, container, image)
        ):
            return found
        if _listed(container.body.get("ports")):
            line = pos_of(container.body, "image", value=True)[0]
            segment = image_repository(image).rsplit("/", 1)[-1]
            said = Said(workload.path, line, f"image: {image}")
            if found := self._serving_api(workload, container, segment, said):
                return found
        return self._role_named(workload, container, image)

    def _ranked(self, workload: K8sObject, found: list[Evidence]) -> list[Evidence]:
        """The evidence for a container's folder, strongest first."""
        if len(found) < 2:
            return found  # nothing to rank (most containers: the paths are not compared)
        # equally strong: a documented build its text pairs with this manifest (it applies
        # it next), a build whose Dockerfile is in the tree (a build naming one that is not
        # fails), then the build nearest the manifest (a monorepo's services alike)
        found.sort(
            key=lambda e: (
                self._absent(e),
                e.strength,
                e.paired(workload.path) is None,
                self._missing(e),
                -_shared(e.folder, workload.path),
            )
        )
        # of the builds of the chosen folder, the one whose build file is nearest the
        # manifest says which Dockerfile (`scripts/prod/deploy.sh`'s `-f Dockerfile-prod`
        # for `scripts/cd/x.yaml`, not a compose file's development build)
        top = found[0].folder
        found = [  # the pairing said where it decides
            replace(e, said=replace(e.said, text=f"{e.said.text} (then applies {end})"))
            if (end := e.paired(workload.path)) is not None
            else e
            for e in found
        ]
        return sorted(
            found,
            key=lambda e: (
                self._absent(e),
                e.strength,
                e.paired(workload.path) is None,
                self._missing(e),
                -_shared(e.folder, workload.path),
                -_shared(os.path.dirname(e.said.path), workload.path) if e.folder == top else 0,
            ),
        )

    def _named_as_its_chart(
        self, workload: K8sObject, container: Container, image: str
    ) -> list[Evidence]:
        """A chart's container whose image repository is left to the deploy
        (`--set image.repository=...`): the one folder an image is built from named as the
        chart is (`helm/orders/` and `apps/orders/`), a guess from the names alone."""
        parts = os.path.normpath(workload.path).split(os.sep)
        if "templates" not in parts[1:]:
            return []
        chart_folder = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("templates")])
        chart = os.path.basename(chart_folder)
        built = [
            folder
            for folder in self.folders_named.get(_normal(chart), ())
            if folder != chart_folder and self._is_built(folder)
        ]
        if len(built) != 1 or self._dockerfiles_in(built[0]) > 1:
            return []  # (a folder of several images' Dockerfiles: which one runs is unsaid)
        line = pos_of(container.body, "image", value=True)[0]
        text = (
            f"image: {image} (a guess: the chart {chart_folder} leaves the image's repository "
            f"empty; {built[0]} is the one build folder named as the chart)"
        )
        return [Evidence("image name guess", Said(workload.path, line, text), built[0])]

    def _dockerfiles_in(self, folder: str) -> int:
        """How many Dockerfiles the folder itself holds (`api.Dockerfile`, `worker.Dockerfile`)."""
        if self._per_folder is None:
            self._per_folder = Counter(os.path.dirname(path) or "." for path in self.dockerfiles)
        return self._per_folder[os.path.normpath(folder)]

    def _chart_in_service(
        self, workload: K8sObject, container: Container, image: str
    ) -> list[Evidence]:
        """A chart kept in a service's folder (`cart/helm-chart/`, `cart/charts/cart/`)
        whose image is left to the deploy (`{{ .Values.imageUrl }}:latest`): the service
        folder, with its Dockerfile and code, a guess. Not the repository's top (it may hold
        every service's code), nor a container beside another whose image is left too."""
        parts = os.path.normpath(workload.path.partition("#")[0]).split(os.sep)
        if "templates" not in parts[1:]:
            return []
        at = len(parts) - 1 - parts[::-1].index("templates") - 1  # the chart's folder's index
        if at >= 2 and parts[at - 1] in MANIFEST_FOLDERS:  # `cart/charts/cart/templates/`
            at -= 1
        service = os.sep.join(parts[:at])
        if not service or service not in self.by_folder or self._dockerfile(service) is None:
            return []
        template = pod_template(workload)
        images = [c.body.get("image") for c in template.containers] if template else []
        left = [i for i in images if not isinstance(i, str) or not image_repository(i)]
        if len(left) != 1:
            return []
        line = pos_of(container.body, "image", value=True)[0]
        text = (
            f"image: {image} (a guess: the chart {os.sep.join(parts[: at + 1])} in {service} "
            "leaves the image to the deploy; its Dockerfile is beside it)"
        )
        return [Evidence("manifest beside guess", Said(workload.path, line, text), service)]

    def _deployed_image(
        self, workload: K8sObject, container: Container, image: object
    ) -> tuple[str | None, Said, str] | None:
        """The image a shell script of the tree sets for a chart's container at deploy time
        (`--set image.repository=$repository`, or `--set backend.image.repository=...` for
        the container named `backend`), naming the chart's folder; with where it does, and
        how the image is known: the one its value names when literal past a registry
        (`$REGISTRY/cart`), else the chart's default when the release the container is
        rendered for (its `app.kubernetes.io/instance` or `release` label) is named as it
        (the release's own image, built again), else None: not known. None when no script
        sets it."""
        parts = os.path.normpath(workload.path.partition("#")[0]).split(os.sep)
        if not isinstance(image, str) or "templates" not in parts[1:]:
            return None
        chart = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("templates")])
        words = set(_words(container.name))
        sets = [
            (value, said)
            for key, value, said in self._image_sets()
            if _names_folder(self.builds.scripts[said.path], said.path, chart)
            and (not key or words & set(_words(key)))
        ]
        if not sets:
            return None
        labels = workload.labels
        label = labels.get("app.kubernetes.io/instance") or labels.get("release")
        release = label if isinstance(label, str) else None

        def named_as_release(name: str | None) -> bool:
            if not name or not release:
                return False
            return _normal(name.rsplit("/", 1)[-1]) == _normal(release)

        named = [(_literal_past_registry(value), said) for value, said in sets]
        # the image written for this release (`helm upgrade billing ... =$REGISTRY/billing`),
        # else the one image every set writes
        for literal, said in [n for n in named if named_as_release(n[0])] or named[:1]:
            if literal is not None and (len(named) == 1 or named_as_release(literal)):
                return literal, said, "the image it names"
        said = sets[0][1]
        if named_as_release(image_repository(image)):
            return image, said, f"the chart's default, named as the release {release}"
        defaults = {script_default(value, self.builds.scripts[at.path]) for value, at in sets}
        given = defaults.pop() if len(defaults) == 1 else None
        if given is not None and _begins_image(image, given):
            return image, said, f"the value its variable has unless given one, {given}"
        return None, said, ""

    def _image_sets(self) -> list[tuple[str, str, Said]]:
        """Every `--set` of a chart's image repository in the tree's shell scripts: the key's
        part before `image` (`backend.`; "" for the top's), the value, and where."""
        if self._sets is None:
            self._sets = []
            for path, script in sorted(self.builds.scripts.items()):
                text = script.text or ""
                for match in _IMAGE_SET.finditer(text):
                    line = text.count("\n", 0, match.start()) + 1
                    said = Said(path, line, text.splitlines()[line - 1].strip())
                    self._sets.append((match["key"] or "", match["value"], said))
        return self._sets

    def _compose_service(
        self, workload: K8sObject, container: Container, image: str
    ) -> list[Evidence]:
        """For an image no evidence links: the compose service named as the container or
        its workload (`voos-service`), or as the image's name ends (two words or more),
        built from one folder the repository holds, that
        publishes one of the container's ports when both name theirs (a stock image run
        under a built service's name serves elsewhere)."""
        names = {_normal(n) for n in (container.name, workload.name) if n}
        # the service the image's name ends with (`acme/hellov2-grpc-server`: grpc-server)
        words = _words(image_repository(image).rsplit("/", 1)[-1])
        names |= {_normal("-".join(words[i:])) for i in range(1, len(words) - 1)}
        ports = {
            p.get("containerPort")
            for p in _listed(container.body.get("ports"))
            if isinstance(p, dict)
        }
        # an image of its own, its name carrying the container's (`acme/comments-grpc` for
        # `comments`): no stock image run under a built service's name, so a port the
        # manifest gives otherwise than compose does is no sign of another program, and the
        # service may be the one that builds the folder named as the container
        own = "/" in image_repository(image) and _normal(container.name) in words
        if self._vendor_family(image):
            # a third party's published image (`logvendor/shipper-k8s-daemonset`), run under
            # the name of a service compose builds on another image of that vendor's
            # (`FROM logvendor/shipper`): it runs none of that build
            return []
        found: dict[str, tuple[ImageBuild, str]] = {}
        for build in self.builds.builds:
            run_from = self._run_from(build) if build.kind == "compose" else None
            if run_from is None:
                continue
            folder = os.path.normpath(run_from[0])
            by_folder = own and _normal(os.path.basename(folder)) == _normal(container.name)
            if _normal(build.service) not in names and not by_folder:
                continue
            if ports and build.ports and not ports & set(build.ports) and not own:
                continue
            if not self._held(run_from[0]) or self._missing(build):
                continue
            if not self._rebuilds(folder, image_repository(image).rsplit("/", 1)[-1]):
                # (a build FROM the very image the container runs adds to a stock image)
                found.setdefault(folder, (build, build.service))
        if len(found) != 1:
            return []
        ((folder, (build, service)),) = found.items()
        said = build.said
        named_as = (
            "the container"
            if _normal(service) == _normal(container.name)
            else "the workload"
            if _normal(service) == _normal(workload.name or "")
            else "the image's name ends"
            if _normal(service) in names
            else "the container by the folder it builds"
        )
        if not image_repository(image):
            # no image to weigh against the build (a stock one run under a built service's
            # name): the names alone, a guess
            text = (
                f"{said.text} (a guess: the compose service {service}, named as {named_as}, "
                f"builds {folder}; the manifest leaves the image's name empty)"
            )
            said = replace(said, text=text)
            kind = "compose service guess"
        else:
            text = (
                f"{said.text} (the compose service {service}, named as {named_as}, "
                f"builds {folder}; the image {image} links nothing: weaker than a build of it)"
            )
            said = replace(said, text=text)
            kind = "compose service"
        return [Evidence(kind, said, folder, build.dockerfile, target=build.target)]

    def _vendor_family(self, image: str) -> bool:
        """Whether a third party's image (a namespace none of the repository's builds push
        to) shares its namespace with the base of a Dockerfile a compose service builds:
        the vendor's own image, beside which the repository builds another of its."""
        namespace = image_repository(image).rpartition("/")[0]
        if not namespace or not self._pushed_elsewhere(image):
            return False
        for build in self.builds.builds:
            if build.kind != "compose" or (run_from := self._run_from(build)) is None:
                continue
            dockerfile = self._dockerfile(os.path.normpath(run_from[0]))
            base = dockerfile.base if dockerfile is not None else None
            if base and image_repository(base).rpartition("/")[0] == namespace:
                return True
        return False

    def _missing(self, evidence: Evidence | ImageBuild) -> bool:
        """Whether the evidence (or the build) names a Dockerfile the tree does not hold."""
        named = evidence.dockerfile
        return named is not None and self._missing_path(named)

    def _absent(self, evidence: Evidence) -> bool:
        """Whether the evidence points to a folder the repository does not hold (nothing
        k8slb read is in it, and its Dockerfile is not in the tree either: a build's output,
        made when the build runs): never stronger than evidence pointing to code. A pin
        of the configuration is the user's word."""
        if evidence.kind == "config" or self._held(evidence.folder):
            return False
        return evidence.dockerfile is None or self._missing(evidence)

    def _held(self, folder: str) -> bool:
        """Whether the repository holds a file k8slb read in the folder or below it."""
        if self._held_folders is None:
            builds = self.builds
            paths = [*self.dockerfiles, *builds.scripts]
            paths += [os.path.join(f, "_") for f in (*builds.projects, *builds.names)]
            paths += [os.path.join(f, "_") for f in builds.jvm_modules]
            held = set(self.by_folder)
            for path in paths:
                inner = os.path.dirname(path)
                while inner not in held and inner not in ("", os.sep):
                    held.add(inner)
                    inner = os.path.dirname(inner)
            self._held_folders = held
        return os.path.normpath(folder) in self._held_folders or folder in ("", ".")

    def _producer(self, context: str, dockerfile: str | None) -> str | None:
        """The JVM module whose build makes a build context the repository does not hold
        (fabric8's docker-maven-plugin's `person/target/docker/person/build`, Gradle's
        `build/docker`): the nearest folder above it with a pom.xml or build.gradle(.kts),
        whose code the image runs; None for a context the repository holds, or one no
        such module is above (the repository's top only when it is the one module)."""
        if self._held(context) or not (dockerfile is None or self._missing_path(dockerfile)):
            return None
        modules = self.builds.jvm_modules
        folder = os.path.dirname(os.path.normpath(context))
        while folder not in ("", os.sep):
            if folder in modules:
                return folder
            folder = os.path.dirname(folder)
        return "." if modules == {"."} else None

    def _output_of(self, path: str) -> str | None:
        """The JVM module whose build writes a path the repository does not hold: the
        folder holding the `target/` (Maven) or `build/` (Gradle) it is below, with a
        pom.xml or build.gradle(.kts) (`target/app-0.1.jar`, `api/build/libs/api.jar`);
        None for any other path."""
        if self._held(path):
            return None
        parts = os.path.normpath(path).split(os.sep)
        for i, part in enumerate(parts):
            if part in ("target", "build"):
                module = os.sep.join(parts[:i]) or "."
                return module if module in self.builds.jvm_modules else None
        return self._jar_module(parts[-1])

    def _jar_module(self, name: str) -> str | None:
        """The JVM module whose build makes a jar of that file name, wherever the image's
        build finds it: the one module whose artifactId (or finalName) the name is, or
        starts with before a version (`orders-service-1.2.0-all.jar`: `orders-service`,
        not `orders`); the longest such name decides, and a name two modules give, none.
        None for a file that is no jar."""
        if not name.endswith(".jar"):
            return None
        stem = name[: -len(".jar")]
        artifacts = self.builds.jvm_artifacts
        ends = [i for i in range(len(stem) - 1) if stem[i] == "-" and stem[i + 1].isdigit()]
        for end in (len(stem), *reversed(ends)):
            folders = artifacts.get(stem[:end])
            if folders:
                return next(iter(folders)) if len(folders) == 1 else None
        return None

    def _missing_path(self, dockerfile: str) -> bool:
        return os.path.normpath(dockerfile) not in self.dockerfiles

    def _rebuilds(self, folder: str, segment: str) -> bool:
        """Whether the folder's Dockerfile is built FROM an image of the name the container's
        image has (`FROM acme/cache-server` in `cache-server/`): a container that runs an
        image so named may as well run that base, from its registry."""
        dockerfile = self._dockerfile(folder)
        base = image_repository(dockerfile.base) if dockerfile and dockerfile.base else ""
        return bool(base) and _normal(base.rsplit("/", 1)[-1]) == _normal(segment)

    def _one_go_main_below(self, folder: str, dockerfile: Dockerfile | None) -> str | None:
        """The `main` package below a folder whose go.mod declares a module (one of a
        workspace's) and that holds Go code only, when it holds exactly one and the image
        builds no Go (no Dockerfile known, or one that copies a binary built on the host):
        the container runs that program, with the packages it imports from elsewhere in
        the tree (a workspace's shared libraries), not the folder's files alone."""
        if dockerfile is not None and (dockerfile.go_builds or dockerfile.make_calls):
            return None
        if folder not in self.builds.names:
            return None
        own = self.by_folder.get(folder, ())
        if not own or any(self.modules[p].language != "go" for p in own if p in self.modules):
            return None
        mains = self.go.mains_below(folder)
        return mains[0] if len(mains) == 1 else None

    def _own_modules(self, folder: str) -> tuple[str, ...]:
        """The modules of a build's folder, less those below a folder of it that holds a
        Dockerfile of its own: another image's code (a repository's top holds every
        service's)."""
        own: list[str] = []
        for module in self.by_folder.get(folder, ()):
            inner = os.path.dirname(module)
            while inner not in ("", ".", os.sep, folder) and self._dockerfile(inner) is None:
                inner = os.path.dirname(inner)
            if inner in ("", ".", os.sep, folder):
                own.append(module)
        return tuple(own)

    def _named_at_the_end(self, segment: str, near: str) -> list[str] | None:
        """The folders an image is built from (a Dockerfile's, a build's context; code or
        not: a proxy's configuration is that image's) that the image's name ends with, after
        the project's prefix (`shop-frontend` or `acme_shop.frontend` for `frontend/`), or
        whose last two or three folder names hold an end's words (`shop-edge-gateway`, the
        whole name too, for `docker/gateway/edge/`, before `docker/gateway/`): the longest
        such end that names any decides, a shorter one never; the nearest to the manifest.
        None when no end names one; none (no other guess either) when the last word alone
        is left and names a folder holding several builds (`shop-sms-worker` and
        `worker/mail/`, `worker/shop/`: which of them is unsaid)."""
        named = self._build_folders()[0]
        parts = _WORDS.split(segment)
        for start in range(len(parts)):
            # a folder whose last names hold the end's words (`shop-edge-gateway` and
            # `docker/gateway/edge/`) says more than one named by the end's last word alone
            ends = self._path_ends(parts[start:])
            built = sorted(f for f in ends if not self._rebuilds(f, segment))
            if not built and start:
                end = _normal("".join(parts[start:]))
                if start == len(parts) - 1 and end in self._kinds():
                    return []  # `shop-sms-worker`: which of the `worker/` family is unsaid
                built = sorted(f for f in named.get(end, ()) if not self._rebuilds(f, segment))
            if built:
                # of as near, the one under a folder the rest of the name names
                # (`thoughts_backend_db` and `thoughts_backend/docker/db`)
                return _most_words(_nearest(built, near), _words("_".join(parts[:start])))
        return None

    def _kinds(self) -> frozenset[str]:
        """The names of folders holding two or more folders an image is built from
        (`images/worker/mail/`, `images/worker/shop/`: `worker`): a kind of program, which
        one of them an image's last word alone does not say."""
        if self._kind_names is None:
            below = self._build_folders()[1]
            self._kind_names = frozenset(
                _normal(os.path.basename(folder))
                for folder, count in below.items()
                if count >= 2 and folder not in ("", ".")
            )
        return self._kind_names

    def _path_ends(self, words: list[str]) -> set[str]:
        """The folders an image is built from whose last two or three folder names, and no
        more, hold exactly the words given, in any order (`edge`, `gateway` for
        `docker/gateway/edge/`): a family of builds kept by kind (`gateway/`, `operator/`)
        under one folder each. Empty for a single word (a folder's own name says that)."""
        wanted = frozenset(_normal(word) for word in words if word)
        if len(wanted) < 2 or len(wanted) > _MAX_END_NAMES:
            return set()
        if self._built_ends is None:
            self._built_ends = defaultdict(set)
            for folders in self._build_folders()[0].values():
                for folder in folders:
                    names = [p for p in folder.split(os.sep) if p not in ("", ".")]
                    for count in range(2, min(len(names), _MAX_END_NAMES) + 1):
                        ends = [w for name in names[-count:] for w in _words(name)]
                        if len(ends) <= _MAX_END_NAMES:
                            self._built_ends[frozenset(map(_normal, ends))].add(folder)
        return self._built_ends.get(wanted, set())

    def _service_beside(self, workload: K8sObject, segment: str) -> str | None:
        """The service folder whose own manifests hold the workload (`cart/charts/cart/...`,
        `cart/k8s/...`, the nearest), with its Dockerfile and code: the container's, when its
        image's name shares a word with the folder's. Not a dependency chart's
        (`cart/charts/cart/charts/redis/...`)."""
        parts = os.path.dirname(os.path.normpath(workload.path)).split(os.sep)
        for at in range(len(parts) - 1, 0, -1):
            if parts[at] not in MANIFEST_FOLDERS:
                continue
            service = os.sep.join(parts[:at])
            if service not in self.by_folder or self._dockerfile(service) is None:
                continue
            if "charts" in parts[at + 1 :]:
                return None  # a chart's dependency: another program's pods
            # the service's own image, not a store or a sidecar its manifests also run
            return service if set(_words(segment)) & set(_words(parts[at - 1])) else None
        return None

    def _manifest_folder(self, workload: K8sObject, segment: str) -> str | None:
        """The folder of code a manifest sits in with its Dockerfile (`cart/node/pod.yaml`,
        `cart/node/Dockerfile`), when the image's name shares a word with that folder's
        name or its parent's (`acme/cart`): not a store it also runs."""
        folder = os.path.dirname(os.path.normpath(workload.path)) or "."
        if folder not in self.by_folder or self._dockerfile(folder) is None:
            return None
        named = os.path.abspath(folder)
        words = {
            *_words(os.path.basename(named)),
            *_words(os.path.basename(os.path.dirname(named))),
        }
        return folder if set(_words(segment)) & words else None

    def _beside_its_dockerfile(
        self, workload: K8sObject, container: Container, segment: str
    ) -> list[Evidence]:
        """A guess, when nothing builds the image: a manifest kept in a folder of code with
        its Dockerfile (`api/api-pod.yaml` and `api/Dockerfile`) runs that folder's image,
        when the image's name shares a word with the folder's (not a store it also runs)."""
        folder = os.path.dirname(os.path.normpath(workload.path)) or "."
        if folder not in self.by_folder:
            return []
        name = os.path.basename(os.path.abspath(folder))
        if self._dockerfile(folder) is None or not set(_words(segment)) & set(_words(name)):
            return self._beside_its_role_dockerfile(workload, container, folder, name)
        line = pos_of(container.body, "image", value=True)[0]
        text = f"image: {container.body.get('image')} (a guess: in {folder}, beside its Dockerfile)"
        return [Evidence("manifest beside guess", Said(workload.path, line, text), folder)]

    def _beside_its_role_dockerfile(
        self, workload: K8sObject, container: Container, folder: str, name: str
    ) -> list[Evidence]:
        """A guess, when nothing builds the image: a manifest named as its folder of code
        (`client/client.yaml`), of a pod of one container, beside the folder's one
        Dockerfile, kept under that name too (`client/Dockerfile.client`): the folder's
        program, whatever the image is called. None with any other Dockerfile there."""
        stem = os.path.splitext(os.path.basename(workload.path.partition("#")[0]))[0]
        template = pod_template(workload)
        if _normal(stem) != _normal(name) or template is None or len(template.containers) != 1:
            return []
        _, beside = self._dockerfiles_named()
        kept = [d for d in beside.get(_normal(name), ()) if d.folder == folder]
        if len(kept) != 1 or self._dockerfile(folder) is not None:
            return []
        line = pos_of(container.body, "image", value=True)[0]
        text = (
            f"image: {container.body.get('image')} (a guess: {workload.path} is named as "
            f"its folder, beside {kept[0].path}, kept under that name too)"
        )
        return [
            Evidence("manifest beside guess", Said(workload.path, line, text), folder, kept[0].path)
        ]

    def _named_in_part(self, segment: str) -> list[str]:
        """The folders whose name's words end the image's, or are ended by them (`shop-cart`
        and `cart`; `cart` and `com.acme.cart`): a weaker guess than a name matched whole."""
        if self._by_last_word is None:
            self._by_last_word = defaultdict(list)
            for folders in self.folders_named.values():
                for folder in folders:
                    words = _words(folder.rpartition(os.sep)[2])
                    if words:
                        self._by_last_word[words[-1]].append((words, folder))
        wanted = _words(segment)
        if not wanted:
            return []
        return sorted(
            folder
            for words, folder in self._by_last_word.get(wanted[-1], ())
            if words != wanted
            and (words == wanted[-len(words) :] or wanted == words[-len(wanted) :])
        )

    def _start_script(self, dockerfile: Dockerfile) -> str | None:
        """The shell script of the repository an image runs as its entry point when the
        Dockerfile copies no folder of code, only files (a proxy's configuration and its
        start script, `COPY gateway/proxy/start.sh /` with `CMD /start.sh`; the program a
        published image's): found from the Dockerfile's folder or the nearest above it
        that holds it. None for an image that copies a folder or runs no script."""
        runs = dockerfile.runs
        words = [*(runs.entrypoint or ()), *(runs.cmd or ())][:_MAX_START_WORDS]
        started = [w for w in words if w.endswith(SHELL_SCRIPT_SUFFIX) and "$" not in w]
        if not started:
            return None
        in_image = posixpath.join(dockerfile.workdir, started[0])
        sources = dockerfile.sources_of(in_image)[:1]
        if sources and posixpath.basename(posixpath.dirname(sources[0])) == posixpath.basename(
            sources[0]
        ):  # `COPY proxy/start.sh /`: the file itself, not a folder so named
            sources.insert(0, posixpath.dirname(sources[0]))
        copies = (*dockerfile.copies, *dockerfile.stage_copies)
        folder = dockerfile.folder
        while sources:
            base = folder or "."
            held = (_joined_folder(base, source) for source in sources)
            script = next((path for path in held if path in self.builds.scripts), None)
            if script is not None:
                code = self.by_folder
                if any(
                    c.source in (".", "./") or _joined_folder(base, c.source) in code
                    for c in copies
                ):
                    return None  # it copies code too: the program's folder, not the script
                return script
            if folder in ("", ".", os.sep):
                return None
            folder = os.path.dirname(folder)
        return None

    def _apart_named(self, segment: str) -> list[Dockerfile]:
        """The Dockerfiles kept where no code is (`docker/<name>/Dockerfile`,
        `<name>.Dockerfile`, `Dockerfile.<name>`) under the image's name."""
        return self._dockerfiles_named()[0].get(_normal(segment), [])

    def _beside_named(self, segment: str) -> list[Dockerfile]:
        """The Dockerfiles kept beside code under the image's name (`Dockerfile.cart`,
        `cart.Dockerfile` in the repository's top): built from their folder."""
        return self._dockerfiles_named()[1].get(_normal(segment), [])

    def _dockerfiles_named(self) -> tuple[dict[str, list[Dockerfile]], dict[str, list[Dockerfile]]]:
        """The Dockerfiles by the name they are kept under: those where no code is, and
        those beside code (named apart from `Dockerfile`); made when first asked."""
        if self._apart is None or self._beside is None:
            self._apart, self._beside = defaultdict(list), defaultdict(list)
            for path, dockerfile in self.dockerfiles.items():
                folder, name = os.path.split(path)
                # beside code, a plain `Dockerfile`: the image's name finds that folder
                found = self._beside if (folder or ".") in self.by_folder else self._apart
                for named in dict.fromkeys(_kept_under(name)):
                    found[_normal(named)].append(dockerfile)
                if name in ("Dockerfile", "Containerfile") and found is self._apart:
                    self._apart[_normal(os.path.basename(folder))].append(dockerfile)
        return self._apart, self._beside

    def _role_named(self, workload: K8sObject, container: Container, image: str) -> list[Evidence]:
        """A guess: the one Dockerfile named for a role (`docker/client.Dockerfile`,
        `Dockerfile.client`) that the image's tag or name and the workload's or container's
        name all say (`acme/go-grpc:client-1.0.0` run as `go-grpc-client`: images of one
        repository told apart by their tags), built from the folder above it it copies from.
        None when no role, or several Dockerfiles, are so named."""
        segment = image_repository(image).rsplit("/", 1)[-1]
        said_by_image = {*_words(segment), *_words(image_tag(image) or "")}
        said_by_names = {*_words(workload.name or ""), *_words(container.name)}
        apart, beside = self._dockerfiles_named()
        named = {
            (role, dockerfile.path): dockerfile
            for role in said_by_image & said_by_names
            for dockerfile in (*apart.get(role, ()), *beside.get(role, ()))
            if os.path.basename(dockerfile.path).lower() not in ("dockerfile", "containerfile")
            and not _built_from(dockerfile, image)
        }
        whole = _normal(segment)
        if whole in {_normal(workload.name or ""), _normal(container.name)}:
            # the image's whole name, the container's too (`registration-operator`), over
            # a word of it (`Dockerfile.registration` beside `Dockerfile.registration-operator`)
            exact = {
                d.path: d
                for d in (*apart.get(whole, ()), *beside.get(whole, ()))
                if not _built_from(d, image)
            }
            if len(exact) == 1:
                named = {(segment, path): d for path, d in exact.items()}
        if not named:
            return self._role_named_by_image(workload, container, image, segment)
        if len(named) != 1:
            return []
        ((role, _), dockerfile), *_ = named.items()
        context = self._role_context(dockerfile)
        if context is None:
            return []  # it copies no code (a migration tool's image, given only SQL files)
        line = pos_of(container.body, "image", value=True)[0]
        text = (
            f"image: {image} (a guess: {role}, said by the image and by "
            f"{workload.name}/{container.name}, names {dockerfile.path}, built from {context})"
        )
        return [
            Evidence("image name guess", Said(workload.path, line, text), context, dockerfile.path)
        ]

    def _role_context(self, dockerfile: Dockerfile) -> str | None:
        """The folder a role's Dockerfile is built from, when it copies code from it: the
        whole context, a folder of code in any stage (a builder's `COPY api/ api/`, the last
        stage taking only the binary), or the jar a JVM project's build writes there
        (`COPY build/libs/app.jar`: that project's folder). None when it copies no code."""
        copied = self._context_of(dockerfile)
        context = copied[0] if copied is not None else dockerfile.folder
        copies = (*dockerfile.copies, *dockerfile.stage_copies)
        sources = [_joined_folder(context, c.source.lstrip("/") or ".") for c in copies]
        if any(s in self.by_folder or s in self.modules for s in sources):
            return context if context in self.by_folder else None
        built = {self._output_of(source) for source in sources} - {None}
        if len(built) == 1 and (module := built.pop()) in self.by_folder:
            return module
        return None

    def _role_named_by_image(
        self, workload: K8sObject, container: Container, image: str, segment: str
    ) -> list[Evidence]:
        """A guess: the one Dockerfile named for the role the image's name ends with
        (`acme/tutor-webserver`, `Dockerfile.webserver`) where the workload's name says no
        role (`http-service`), only when it copies one folder's program (`COPY
        node-webserver/index.js .` from the top): that folder. None when several
        Dockerfiles are so named, or it copies the whole context or several folders."""
        words = _words(segment)
        if len(words) < 2:
            return []  # no prefix: the image's whole name, not a role in it
        apart, beside = self._dockerfiles_named()
        named = [
            dockerfile
            for dockerfile in (*apart.get(words[-1], ()), *beside.get(words[-1], ()))
            if os.path.basename(dockerfile.path).lower() not in ("dockerfile", "containerfile")
            and not _built_from(dockerfile, image)
        ]
        if len(named) != 1:
            return []
        copied = self._context_of(named[0])
        context = copied[0] if copied is not None else named[0].folder
        folder = self._copied_folder(named[0], context)
        if folder is None or folder == context:
            return []
        line = pos_of(container.body, "image", value=True)[0]
        text = (
            f"image: {image} (a guess: its last word {words[-1]} names {named[0].path}, "
            f"which copies the program of {folder})"
        )
        return [
            Evidence("image name guess", Said(workload.path, line, text), folder, named[0].path)
        ]

    def _context_of(self, dockerfile: Dockerfile) -> tuple[str, str] | None:
        """The build context of a Dockerfile kept apart, and the source that says so: the
        nearest folder above it from which one of its COPY sources is a folder of code
        (`COPY src/cart /app` from the repository's top). None when none is."""
        folder = os.path.dirname(dockerfile.path)
        while True:
            base = folder or "."
            # a builder stage's copies too (`COPY go.mod go.sum ./`, the last stage taking
            # only the binary it built): the module's go.mod places its context
            for copy in (*dockerfile.copies, *dockerfile.stage_copies):
                if copy.source in (".", "./"):
                    if self._builds_from(dockerfile, base):
                        return base, copy.source  # `COPY . .` then `make`: the Makefile's
                    continue
                source = _joined_folder(base, copy.source)
                if source in self.by_folder or (
                    posixpath.basename(copy.source) == "go.mod"
                    and (os.path.dirname(source) or ".") in self.builds.names
                ):
                    return base, copy.source
            if not folder or folder in (os.sep, "."):
                return None
            folder = os.path.dirname(folder)

    def _builds_from(self, dockerfile: Dockerfile, base: str) -> bool:
        """Whether a Dockerfile that copies its whole context builds Go from `base` as that
        context: a `make` of its finds a Makefile read there (through the stage's copies),
        or a `go build` of its names a package of the tree there. What the build runs,
        not a guess: a context without that file fails the build."""
        for call in dockerfile.make_calls:
            names = [call.makefile] if call.makefile else ["GNUmakefile", "makefile", "Makefile"]
            for name in names:
                in_image = posixpath.normpath(posixpath.join(call.folder, name))
                for source in context_paths(in_image, call.copies)[:1]:
                    if os.path.normpath(os.path.join(base, source)) in self.builds.make_rules:
                        return True
        for build in dockerfile.go_builds:
            below = build.package.partition("/...")[0]
            if (
                below not in (".", "")
                and os.path.normpath(os.path.join(base, below)) in self.go.files
            ):
                return True
        return False

    def _copied_folder(
        self, dockerfile: Dockerfile, context: str, argv: Sequence[object] = ()
    ) -> str | None:
        """The one folder of code a Dockerfile copies from its wide context (`COPY
        ./inventory/app /app` from the repository's top; a JVM module's build output, the
        module's: `ADD api/build/install/*`), or, when its last stage copies no
        code, the one its earlier stages copy (a builder's `COPY ./web/ .`, the last stage
        serving what it built), else of several, the one the command `argv` names
        (_copy_named): None when it copies the whole context, several folders or files of
        code none of which is so named, or none."""
        code: set[str] = set()
        for copies in (dockerfile.copies, dockerfile.stage_copies):
            for copy in copies:
                source = _joined_folder(context, copy.source)
                if source == context:
                    return None
                if source in self.by_folder:
                    code.add(source)
                elif source in self.modules:
                    # a program's file (`COPY web/index.js .`): its folder, when below the
                    # context (a file at the context's top says no folder)
                    folder = os.path.dirname(source) or "."
                    code.add(folder if folder != context and folder in self.by_folder else source)
                elif (module := self._output_of(source)) not in (None, context):
                    code.add(module)  # `ADD api/build/install/*`: what api's build wrote
            if code:
                break
        outer = [f for f in code if not any(_below(f, other) for other in code)]
        if len(outer) > 1 and not any(os.path.isabs(f) for f in outer):
            # `COPY svc/main.go .` and `COPY svc/proto ./proto` from above svc: svc's code
            outer = [os.path.commonpath(outer)]
        if len(outer) != 1 or outer[0] not in self.by_folder or not _below(outer[0], context):
            # of an app and its libraries, the one the command names (`argv`: its run)
            return self._copy_named(argv, dockerfile, context) if argv else None
        return outer[0]

    def _copy_named(
        self, argv: Sequence[object], dockerfile: Dockerfile, context: str
    ) -> str | None:
        """Of several folders of code a Dockerfile copies from its wide context (an app and
        the libraries it takes: `COPY ./lib/common ...`, `COPY ./app/api /srv/app/api`, by
        its last stage, else by the builder stages it takes its files from), the one whose
        copy holds a path the command names in the image (`uwsgi --ini
        /srv/app/api/app.ini`), or holds at its top the application module a launcher loads
        (`celery --app acme.tasks.app`: `acme/tasks.py`): the program's, the others its
        libraries. None when no folder, or several, are so named, or another folder copied
        is another image's code (below a Dockerfile of its own: two services copied)."""
        folders: dict[str, list[Copy]] = defaultdict(list)
        for copies in (dockerfile.copies, dockerfile.stage_copies):
            for copy in copies:
                source = _joined_folder(context, copy.source)
                if source in self.by_folder and _below(source, context):
                    folders[source].append(copy)
            if folders:
                break
        if len(folders) < 2:
            return None  # one folder is _copied_folder's
        services = {f for f in folders if self._service_folder_of(f, context) is not None}
        script = shell_script_of(argv)
        try:
            words = shell_words(script, comments=True) if script else [str(w) for w in argv]
        except ValueError:
            return None
        # the copies by where they land, each distinct one once: a path the command names
        # looks up its own folders, not every COPY line (thousands, each for 256 words)
        landing: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        for folder, taken in folders.items():
            for copy in taken:
                landing[copy.dest.rstrip("/")].add((folder, copy.source, copy.dest))
        named: set[str] = set()
        for word in words[:MAX_LINE_WORDS]:
            path = word.partition("=")[2] if word.startswith("-") else word
            if path.startswith("/"):
                named.update(_folders_copied_to(posixpath.normpath(path), landing, context))
        app = app_module(argv)
        if app is not None and app.module is not None:
            # the module, or the module of an attribute it names (Celery's `-A acme.tasks.app`)
            parts = app.module.split(".")
            named.update(
                folder
                for folder in folders
                for relative in {os.path.join(*parts), os.path.join(*parts[:-1] or parts)}
                for end in (".py", os.sep + "__init__.py")
                if os.path.join(folder, relative) + end in self.modules
            )
        if len(named) != 1 or services - named:
            return None  # none named, or another service's code copied beside it (no library)
        return named.pop()

    def _service_folder_of(self, folder: str, context: str) -> str | None:
        """The folder at or above `folder`, below the context, with a Dockerfile of its own
        (the code of an image of its own, not a library another app takes), or None."""
        while folder != context and _below(folder, context):
            if self._dockerfile(folder) is not None:
                return folder
            folder = os.path.dirname(folder) or "."
        return None

    def _module_built(self, dockerfile: Dockerfile, context: str) -> str | None:
        """The one JVM module below a wide context whose build output the image's last stage
        takes, from a builder stage that copied the whole context (`COPY --from=build
        /src/orders/target/orders.jar`, after `mvn -pl orders package`) or from the context
        itself: that module. None when it takes none, or several modules' outputs."""
        copies = (*dockerfile.built_copies, *dockerfile.copies)
        # a source is the context's, a leading `/` too (`COPY /target/app.jar .`)
        built = {self._output_of(_joined_folder(context, c.source.lstrip("/"))) for c in copies}
        built.discard(None)
        if len(built) != 1:
            return None
        module = built.pop()
        return module if module in self.by_folder and _below(module, context) else None

    def _copied_code(self, dockerfile: Dockerfile, context: str) -> list[str]:
        """The modules below the code folders a Dockerfile copies from its context."""
        found: list[str] = []
        for copy in dockerfile.copies:
            folder = _joined_folder(context, copy.source)
            if copy.source not in (".", "./") and folder in self.by_folder:
                found += self.by_folder[folder]
        return list(dict.fromkeys(found))

    def _image_evidence(
        self, image: str, said: Said, doubts: list[str] | None = None
    ) -> list[Evidence]:
        """What the repository says of the folder an image is built from: the builds that
        name it, else its name (`said`: where the container names it); in `doubts`, why
        its name links no folder where several are named so, naming them."""
        found = self._build_evidence(image)
        if ko := self._ko_built(image, said):
            return found + ko  # the package its name says: no name likeness besides
        if not found and self._pushed_elsewhere(image):
            return found  # a third party's image: a folder named as it is is no evidence
        if not found and docker_library(image_repository(image)):
            return found  # Docker Hub's own (`redis:7`), which no build here tags
        segment = image_repository(image).rsplit("/", 1)[-1]
        if segment:
            found += [
                e
                for e in self._dockerfile_name_evidence(segment)
                if not _built_from(self.dockerfiles.get(e.dockerfile or ""), image)
            ]
        found += self._name_evidence(image, segment, said, bool(found), doubts)
        return found or self._tag_named(image, segment, said)

    def _serving_api(
        self, workload: K8sObject, container: Container, segment: str, said: Said
    ) -> list[Evidence]:
        """A guess, for a server's image nothing else links: the one folder of code with
        its own Dockerfile whose code registers the gRPC service the image is named for
        (`payments:v1` and `RegisterPaymentsServiceServer`, `add_PaymentsServicer_to_server`;
        a role suffix aside on either), unless that code listens on ports the container
        declares none of (a stock `redis` beside a service that wraps it)."""
        wanted = _less_role(_words(segment)) or _words(segment)
        if not wanted:
            return []
        found = {
            folder: api
            for api, folders in self._served_apis().items()
            if (_less_role(api) or api) == wanted
            for folder in folders
        }
        if len(found) != 1:
            return []
        ((folder, api),) = found.items()
        declared = {
            p.get("containerPort")
            for p in _listed(container.body.get("ports"))
            if isinstance(p, dict)
        }
        listened = {
            port
            for module in self._own_modules(folder)
            for listen in self.modules[module].listens
            if (port := port_of(listen.address, workload, container)) is not None
        }
        if listened and not listened & declared:
            return []
        text = (
            f"{said.text} (a guess: {folder} is the one build folder whose code serves the "
            f"gRPC service {''.join(w.capitalize() for w in api)}, named as the image)"
        )
        return [Evidence("image name guess", replace(said, text=text), folder)]

    def _build_folder_of(self, path: str) -> str | None:
        """The nearest folder of code with its own Dockerfile at or above a module's."""
        folder = os.path.dirname(path) or "."
        while self._dockerfile(folder) is None or folder not in self.by_folder:
            if folder in ("", ".", os.sep):
                return None
            folder = os.path.dirname(folder) or "."
        return folder

    def _served_apis(self) -> dict[tuple[str, ...], set[str]]:
        """The gRPC services the code registers on a server (its name's words), each with
        the folders of code with their own Dockerfile that hold the registering module;
        made when first asked, reading only the modules that import a gRPC library."""
        if self._apis is None:
            self._apis = defaultdict(set)
            for path, facts in self.modules.items():
                if not any("grpc" in name for _, name in facts.imports):
                    continue
                folder = self._build_folder_of(path)
                for called in facts.called if folder is not None else ():
                    registered = _REGISTERS_API.fullmatch(called.rpartition(".")[2])
                    if registered is not None and folder is not None:
                        name = registered["go"] or registered["python"]
                        self._apis[_camel_words(name)].add(folder)
        return self._apis

    def _tag_named(self, image: str, segment: str, said: Said) -> list[Evidence]:
        """A guess, for an image nothing else links, named after the repository with a tag
        naming a folder (`acme/shop:client` and `client/Dockerfile`): the one folder of code
        with its own Dockerfile the tag names, when the image's name is an element of the
        module path the go.mod at or above that folder declares (`github.com/acme/shop/
        client`): the repository's name, not a stock image's (`redis:alpine`)."""
        tag = image_tag(image)
        if not tag or not segment:
            return []
        folders = [
            folder
            for folder in self.folders_named.get(_normal(tag), ())
            if folder in self.by_folder and self._dockerfile(folder) is not None
        ]
        if len(folders) != 1:
            return []
        (folder,) = folders
        module = folder
        while module not in self.builds.names and module not in ("", ".", os.sep):
            module = os.path.dirname(module) or "."
        declared = self.builds.names.get(module)
        if declared is None or _normal(segment) not in map(_normal, declared.text.split("/")):
            return []
        text = (
            f"{said.text} (a guess: its tag names {folder}, the one folder with a Dockerfile "
            f"so named, and {segment} is the repository's name in the module "
            f"{declared.text} that {declared.path} declares)"
        )
        return [Evidence("image name guess", replace(said, text=text), folder)]

    def _build_evidence(self, image: str) -> list[Evidence]:
        """The builds that make `image` (a loop's, with the value its name gives), each
        with the folder it runs from."""
        found = self._evidence_of.get(image)  # (each base of a chain of images asks again)
        if found is None:
            found = self._evidence_of[image] = self._builds_making(image)
        return list(found)

    def _builds_making(self, image: str) -> list[Evidence]:
        """_build_evidence, worked out."""
        wanted = image_tag(image)
        made = ((each.each, each.made_for(image)) for each in self.builds.builds)
        matched = [
            (loop, build)
            for loop, build in made
            if build is not None
            # a loop's: of a folder of code, with a Dockerfile the tree holds
            and (not loop or (build.context in self.by_folder and not self._missing(build)))
            # a Bazel target's image (`bazel/web:image`): by its tag, the target's name
            and (build.kind != "bazel" or not build.tags or wanted in build.tags)
            and (
                same_image(build.image, image)
                # a repository a script's parameter gives: the tag that names the service
                or (not build.image and wanted not in (None, "latest") and wanted in build.tags)
                # a compose service's build with no `image`: the name compose gives it
                or any(same_image(name, image) for name in compose_images(build))
                # the variable the build's tool holds its image in (`${PLUGIN_REPO}`)
                or (build.variable and _names_variable(image, build.variable))
            )
        ]
        # a build that names the image itself, over a loop's whose name only fits it
        builds = [build for loop, build in matched if not loop] or [b for _, b in matched]
        guess = None
        if wanted is not None and any(wanted in build.tags for build in builds):
            # builds of the very tag the container runs (`:v2-timeout`) decide between the
            # folders the other tags of the name are built from (a tag not known stays)
            builds = [b for b in builds if wanted in b.tags or None in b.tags or not b.tags]
        elif wanted is not None and len({b.context for b in builds}) > 1:
            # modules pushing to one repository, told apart by their tags: the one whose
            # tag is the container's but for its version; else a guess by the tag's words
            builds = _tagged_at_another_version(builds, wanted) or builds
            guess = _tag_words_guess(builds, image) if len(builds) > 1 else None
            builds = [guess] if guess is not None else builds
        found = []
        for build in builds:
            run_from = self._run_from(build)
            if run_from is None:
                continue
            said = build.said
            if (module := self._producer(*run_from)) is not None:
                # a build tool's output, absent from the repository: its module's code
                text = f"{said.text} ({run_from[0]} is the output of the build of {module})"
                said, run_from = replace(said, text=text), (module, None)
            found.append(
                Evidence(
                    "image name guess" if guess is not None else build.kind,
                    said,
                    *run_from,
                    build.args,
                    build.applies,
                    build.entrypoint,
                    build.wrapper,
                    build.target,
                )
            )
        return found

    def _dockerfile_name_evidence(self, segment: str) -> list[Evidence]:
        """Dockerfiles named as the image (`cart.Dockerfile`, `docker/cart/Dockerfile`)."""
        found = []
        for dockerfile in self._apart_named(segment):
            copied = self._context_of(dockerfile)
            if copied is not None:
                context, source = copied
                text = f"named {segment}, copies {source} from {context}"
                found.append(
                    Evidence(
                        "dockerfile name", Said(dockerfile.path, 1, text), context, dockerfile.path
                    )
                )
        beside = self._beside_named(segment)
        if len(beside) == 1:  # `benthos-collector.Dockerfile` at the top: built from there
            dockerfile = beside[0]
            script = self._start_script(dockerfile)
            if script is not None:  # a published program's image with its start script
                text = f"named {segment}, runs {script}, copying no folder of code"
                said_here = Said(dockerfile.path, 1, text)
                found.append(Evidence("dockerfile name", said_here, script, dockerfile.path))
                return found
            text = f"named {segment}, built from {dockerfile.folder}"
            said_here = Said(dockerfile.path, 1, text)
            found.append(Evidence("dockerfile name", said_here, dockerfile.folder, dockerfile.path))
        return found

    def _name_evidence(
        self, image: str, segment: str, said: Said, built: bool, doubts: list[str] | None
    ) -> list[Evidence]:
        """The folder the image's name gives, strongest first: the one folder so named (as
        near the manifest, under the folders its path names), a module so declared, then
        guesses; `built` when builds or Dockerfiles named it already."""
        named = sorted(
            self._app_within(f)
            for f in (self.folders_named.get(_normal(segment), ()) if segment else ())
            if not self._rebuilds(f, segment) and not self._go_library(f)
            if self._module_of_package(f) is not None
        )
        if docker_library(segment.lower()):
            # an official image's program (`ghcr.io/acme/nats:2.9`, NATS mirrored or rebuilt
            # under the project's name): of the folders so named, only one that builds an
            # image is its code, not one whose code talks to it (a client, a protocol's
            # parser); nor is any other guessed
            named = [f for f in named if self._dockerfile(f) is not None]
            if not named:
                return []
        with_dockerfile = [f for f in named if self._dockerfile(f) is not None]
        # a folder holding other services' builds is not one service's code (too wide)
        candidates = _nearest(with_dockerfile or self._not_parents(named), said.path)
        # of as near, the one under a folder the image's path names (`acme-workshop/cart` and
        # `workshop/apps/cart`, not `apps/cart`)
        candidates = _most_words(candidates, _words(image_repository(image).rpartition("/")[0]))
        # a package of a module's code (chosen, as near, by where it is) is that module's
        candidates = list(dict.fromkeys(self._module_of_package(f) or f for f in candidates))
        module = self._module_named(segment) if not named and segment else None
        if len(candidates) == 1:
            return [Evidence("image name", said, candidates[0])]
        if module is not None:  # one program run as a server and as a client alike
            folder, declared = module
            what = "package" if declared.path.endswith("package.json") else "module"
            text = f"{said.text} (the {what} {declared.path}:{declared.line} declares: "
            text += declared.text
            if folder != (os.path.dirname(declared.path) or "."):
                text += f"; its one `package main` is {folder}"
            return [Evidence("image name", replace(said, text=f"{text})"), folder)]
        if not named and (guess := self._guessed_folder(segment, said.path, not built)):
            folder, how = guess
            text = f"{said.text} (a guess: {folder} is the one {how})"
            return [Evidence("image name guess", replace(said, text=text), folder)]
        if not built and not named and (role := self._built_but_role(image)) is not None:
            folder, other = role
            text = f"{said.text} (a guess: {folder} builds {other}, its name but for a role suffix)"
            return [Evidence("image name guess", replace(said, text=text), folder)]
        # of the folders so named, the programs (a Go `package main`, a Node package, a
        # Dockerfile's folder) over packages of a program's code (`web/components/cart`);
        # with none, no copies of a service: parts of programs (a client package named for
        # the broker it talks to, `app/northbound/kafka`) or a tool's scripts, no image's
        programs = [f for f in candidates if self._program_folder(f)]
        copies = len(candidates) > 1 and bool(programs) and self._alike(programs)
        if copies and not built and (near := _closest(programs, said.path)):
            # copies of a service (a workshop's beside the originals) as near by the folders
            # they share with the manifest: the fewest steps from it, as a guess; not two
            # programs in two languages that share a name (a Go `cmd/api` and a Node
            # package `api/`), which are no copies of one another
            text = f"{said.text} (a guess: of {len(candidates)} folders so named, {near} is "
            text += "the fewest steps away)"
            return [Evidence("image name guess", replace(said, text=text), near)]
        if len(candidates) > 1 and doubts is not None:
            doubts.append(
                f"{said.path}:{said.line}: {len(candidates)} folders are named as image "
                f"{segment}, none nearer the manifest: {', '.join(candidates[:4])}; pin the "
                "one it runs in the configuration's `links`"
            )
        return []

    def _program_folder(self, folder: str) -> bool:
        """Whether the folder is a program's own: a Go `package main`, a Node package (its
        package.json), or one with a Dockerfile."""
        return (
            self.go.is_main(folder)
            or folder in self.builds.packages
            or self._dockerfile(folder) is not None
        )

    def _alike(self, folders: Sequence[str]) -> bool:
        """Whether the folders hold code of the same languages (copies of one service
        do; two programs of one name in two languages are not copies)."""
        held = {
            frozenset(self.modules[path].language for path in self.by_folder.get(folder, ()))
            for folder in folders
        }
        return len(held) == 1

    def _module_of_package(self, folder: str) -> str | None:
        """A folder, or for one inside a module's source set (`authors/src/main/java/acme/
        authors`: a package of its code, never a service's folder by its name) the module,
        when the package holds the program's entry point (a `main` method, a Spring Boot
        application: the application's own package) and an image is built from the module
        (a Dockerfile of any name, a build's context). A library's package named as a stock
        image (`.../acme/redis`) is no one's image, and neither is a package of a service
        named for what it talks to (`.../blog/redis`, `.../rent/kafka`: a client, a listener).
        Nor is a folder of a Node package's sources (`web/src/apps/shop`, `web/package.json`
        above it): a page or part of that package's program, which its bundler builds into
        one app (`_in_node_sources`)."""
        if self._in_node_sources(folder):
            return None
        if not _in_source_set(folder):
            return folder
        if not self._holds_entry_point(folder):
            return None
        parts = folder.split(os.sep)
        at = max(i for i, part in enumerate(parts[:-2]) if part == "src")
        module = os.sep.join(parts[:at]) or "."
        if self._is_built(module) or any(
            (os.path.dirname(path) or ".") == module for path in self.dockerfiles
        ):
            return module
        return None

    def _in_node_sources(self, folder: str) -> bool:
        """Whether a folder is below the `src/` of the nearest Node package above it (its
        package.json's folder), holds Node code alone and no package.json or Dockerfile of
        its own: a part of that package's program, which an image named as the folder is
        not (the package is built whole; its own image, if any, is the package's)."""
        packages = self.builds.packages
        if folder in packages or self._dockerfile(folder) is not None:
            return False
        parts = folder.split(os.sep)
        for at in range(len(parts) - 1, -1, -1):
            above = os.sep.join(parts[:at]) or "."
            if above not in packages:
                continue
            below = self.by_folder.get(folder, ())
            return (
                "src" in parts[at:-1]
                and bool(below)
                and all(LANGUAGES[self.modules[m].language].project_files for m in below)
            )
        return False

    def _resolved(self, build: ImageBuild) -> bool:
        """Whether what a build makes its image of is known: the Dockerfile it names, or
        Docker's default one in its context, is one of the tree's, or it is a build with
        none (Jib's, Bazel's, buildpacks', Quarkus's). A script's `docker build .` whose Dockerfile
        is nowhere it may be run from names a folder that is no image's code (CI scripts
        beside the Dockerfile they build from the top): no guess rests on it."""
        if build.kind in _NO_DOCKERFILE:
            return True
        run_from = self._run_from(build)
        return run_from is not None and self._dockerfile(*run_from) is not None

    def _holds_entry_point(self, folder: str) -> bool:
        """Whether a file of the folder itself (not of a package below it) declares the
        program's entry point: the Java and Kotlin readers mark it as Go's `package main`."""
        return any(
            os.path.dirname(path) == folder
            and (facts := self.modules.get(path)) is not None
            and facts.language in ("java", "kotlin")
            and facts.package == "main"
            for path in self.by_folder.get(folder, ())
        )

    def _built_but_role(self, image: str) -> tuple[str, str] | None:
        """The one folder the builds of an image named as this one is but for a role
        suffix build from (`acme/ads-service` run, `acme/ads` built from ads-service/), of
        the same namespace; with that image. None when none or several folders are."""
        namespace, _, segment = image_repository(image).rpartition("/")
        words = _words(segment)
        found: dict[str, str] = {}
        for build in self.builds.builds:
            other_namespace, _, other = image_repository(build.image).rpartition("/")
            if not _same_namespace(namespace, other_namespace):
                continue
            other_words = _words(other)
            if _less_role(words) != other_words and _less_role(other_words) != words:
                continue
            run_from = self._run_from(build)
            if run_from is not None and run_from[0] in self.by_folder and self._resolved(build):
                found.setdefault(run_from[0], build.image)
        return next(iter(found.items())) if len(found) == 1 else None

    def _ko_built(self, image: str, said: Said) -> list[Evidence]:
        """The Go package ko builds an image of: `ko://<import path>` as written for ko to
        resolve, or the name ko gives the image it pushes, the package's last element and
        the MD5 of its import path (`shop/cart-<32 hex>`); the package's folder found by
        the go.mod that declares its module."""
        repository = image_repository(image)
        name = repository.rsplit("/", 1)[-1]
        if repository.startswith(_KO_SCHEME):
            digest = None
        elif (hashed := _KO_NAME.fullmatch(name)) is not None:
            name, digest = hashed[1], hashed[2]
        else:
            return []
        found = []
        for folder in sorted(self.folders_named.get(_normal(name), ())):
            path = self._import_path(folder)
            if path is None:
                continue
            if digest is None and path.lower() != repository.removeprefix(_KO_SCHEME):
                continue
            if digest is not None and hashlib.md5(path.encode()).hexdigest() != digest:
                continue
            text = f"{said.text} (ko's image of the Go package {path})"
            found.append(Evidence("image name", replace(said, text=text), folder))
        return found

    def _import_path(self, folder: str) -> str | None:
        """The Go import path of the package in a folder: its module's path (the nearest
        go.mod at or above it) and the folder below the module's."""
        module = folder
        while module not in self.builds.names:
            if module in ("", ".", os.sep):
                return None
            module = os.path.dirname(module) or "."
        declared = self.builds.names[module].text
        below = os.path.relpath(folder, module)
        return declared if below == "." else f"{declared}/{below.replace(os.sep, '/')}"

    def _pushed_elsewhere(self, image: str) -> bool:
        """Whether the image's registry and namespace are none that the repository's
        builds push to, while some say where they push: a third party's image (`apache/kafka`
        where every build is `acme/...`), whatever folder is named as it is. Compose, Tilt
        and documented builds name local images, not where the repository publishes."""
        namespace = image_repository(image).rpartition("/")[0]
        if not namespace or "$" in namespace:
            # a bare name: a local build's as well; a namespace a variable gives
            # (`gcr.io/${PROJECT}/db`): the deploy's own, whatever a build pushes to
            return False
        if self._namespaces is None:
            self._namespaces = {
                image_repository(build.image).rpartition("/")[0]
                for build in self.builds.builds
                if build.kind not in _LOCAL_BUILDS and not _vendored(build.said.path)
            } - {""}
        if self._namespaces:
            return not any(_same_namespace(namespace, pushed) for pushed in self._namespaces)
        # no build says where it pushes: the names the repository's Go modules give its
        # owner and itself (`github.com/acme/shop/...`); an image naming neither in its
        # path or its words is a third party's (`grafana/grafana`, `k8s.gcr.io/x/controller`)
        own = self._own_names()
        if not own or "$" in image:
            return False  # nothing known, or a name a variable gives (`gcr.io/${PROJECT}/db`)
        named = {
            word
            for part in image_repository(image).split("/")
            for word in (_normal(part), *_words(part))
            if len(word) >= MIN_OWN_NAME
        }
        return not any(
            word.startswith(name) or name.startswith(word) for word in named for name in own
        )

    def _own_names(self) -> frozenset[str]:
        """The owner and repository names of the Go modules declared at a host's path
        (`github.com/acme/shop/v2`: `acme`, `shop`; `github.com/acme`: `acme`), normalised;
        none for a module named without a host (`shop`), which says neither."""
        if self._owners is None:
            found: set[str] = set()
            for said in self.builds.names.values():
                parts = said.text.strip().split("/")
                if len(parts) >= 2 and "." in parts[0] and not _vendored(said.path):
                    found.update(
                        name for name in map(_normal, parts[1:3]) if len(name) >= MIN_OWN_NAME
                    )
            self._owners = frozenset(found)
        return self._owners

    def _published(self, image: object) -> bool:
        """Whether an image no build of the tree names is a published one, a store or a
        broker its manifests run beside the service's own: pushed where the tree's builds
        do not push (`_pushed_elsewhere`), or named as Docker Hub's own images are, one
        name at a release's tag (`rabbitmq:3.6.8-management`, `postgres:15`), where a
        local build's tag is rarely a version, or one of Docker Hub's official images at any
        tag. A name alike by place is no evidence then."""
        if not isinstance(image, str) or self._build_evidence(image):
            return False
        repository, tag = image_repository(image), image_tag(image)
        if "/" not in repository:
            return docker_library(repository) or (
                bool(repository) and tag is not None and tag[:1].isdigit()
            )
        return self._pushed_elsewhere(image)

    def _built_as_other(self, folder: str, image: object) -> bool:
        """Whether a build of the tree makes the folder's Dockerfile into an image it names
        that is not `image` (`acme/db` built from `db/`, a sidecar `exporters/db-exporter`
        run beside it): a Dockerfile makes one image, so the folder is that image's code,
        and a second image whose name only shares a word with the folder is another's
        (a published exporter, a proxy). A build whose image a variable gives says no
        name; a loop's build may make any name; a local one (compose's, Tilt's, a
        documented `docker build -t <your-repo>/x .`) names the image as the reader may,
        not as the manifest must."""
        if not isinstance(image, str):
            return False
        for build in self.builds.builds:
            if build.each or build.kind in _LOCAL_BUILDS or not literal_image(build.image):
                continue
            if same_image(build.image, image):
                continue
            run_from = self._run_from(build)
            if run_from is not None and run_from[0] == folder and self._resolved(build):
                return True
        return False

    def _library_image(self, image: str) -> bool:
        """Whether a container's image is one of Docker Hub's official images (`mysql:8.0`,
        `nats`: one name, no owner, no registry) that no build of the tree tags, by any
        name it is known as (a documented `docker build -t mysql .` too): the published
        image runs, and no folder is guessed for it (a client named as the server is not
        the server)."""
        name = image_repository(image)
        return docker_library(name) and not any(
            not build.each and name in map(_past_host, (build.image, *compose_images(build)))
            for build in self.builds.builds
        )

    def _app_within(self, folder: str) -> str:
        """A service's folder with no Dockerfile and no code of its own that keeps both in
        one folder beside its chart (`sku/app/`, `sku/helm-chart/`): that folder; else the
        folder itself."""
        if self._dockerfile(folder) is not None or any(
            os.path.dirname(module) == folder for module in self.by_folder.get(folder, ())
        ):
            return folder  # its own Dockerfile, or code of its own
        if self._children_built is None:
            self._children_built = defaultdict(list)
            for path in self.dockerfiles:
                inner = os.path.dirname(path) or "."
                if inner in self.by_folder:
                    self._children_built[os.path.dirname(inner) or "."].append(inner)
        inner_folders = self._children_built.get(folder, [])
        return inner_folders[0] if len(inner_folders) == 1 else folder

    def _run_from(self, build: ImageBuild) -> tuple[str, str | None] | None:
        """The context and Dockerfile of a build; a Markdown file's (`docs/deploy.md`) is
        often run from a folder above its own: the nearest from which its Dockerfile is
        one of the tree's, and none when there is none (the text left a `cd` out)."""
        if build.kind != "docs":
            named = build.dockerfile
            if build.kind not in _CLIMBING or (
                os.path.normpath(named) in self.dockerfiles
                if named is not None
                else self._held(build.context)
            ):
                return build.context, build.dockerfile
            # a script run from a folder above its own (`./source/docker/Dockerfile` from
            # the top, `docker build springboot/demo` from `back/` by `back/scripts/x.sh`):
            # that folder, when the Dockerfile is found from it; else as written
            return self._climbed(build) or (build.context, build.dockerfile)
        return self._climbed(build)

    def _climbed(self, build: ImageBuild) -> tuple[str, str | None] | None:
        """The context and Dockerfile of a build run from the nearest folder at or above
        its file's from which the Dockerfile it names is one of the tree's."""
        here = os.path.dirname(build.said.path) or "."
        named = build.dockerfile or os.path.join(build.context, "Dockerfile")
        context, dockerfile = os.path.relpath(build.context, here), os.path.relpath(named, here)
        base = here
        code: str | None = None  # the nearest folder of code the text's context names
        while True:
            found = os.path.normpath(os.path.join(base, dockerfile))
            if found in self.dockerfiles:
                return _joined_folder(base, context), found if build.dockerfile else None
            folder = _joined_folder(base, context)
            if code is None and context != "." and folder in self.by_folder:
                code = folder
            if base in ("", ".", os.sep):
                # a documented build whose folder (`cd customer/java/quarkus`) is code but
                # keeps its Dockerfile elsewhere (`src/main/docker/`): that folder
                return (code, None) if code is not None and build.kind == "docs" else None
            base = os.path.dirname(base) or "."

    def _guessed_folder(self, segment: str, near: str, roles: bool) -> tuple[str, str] | None:
        """The one ladder of name guesses, each only of a folder an image is built from:
        the longest end of the image's name after a project's prefix (`shop-cart` for
        `cart/`), else a folder whose name's words end with the image's (`cart` for
        `com.acme.cart/`), else (`roles`: when nothing builds the image) one named as it
        is but for a role suffix (`_named_but_role`), else Go's command named as the image
        or an end of its name (`_go_command`); with how it was guessed. None when no step
        finds exactly one."""
        if not segment:
            return None
        ended = self._named_at_the_end(segment, near)
        if ended is not None:
            return (ended[0], "build folder its name ends with") if len(ended) == 1 else None
        parts = _nearest(
            [f for f in self._named_in_part(segment) if self._dockerfile(f) is not None], near
        )
        if parts or not roles:  # a role suffix aside: only for an image nothing builds
            return (
                (parts[0], "build folder whose name ends with its name")
                if len(parts) == 1
                else None
            )
        found = self._named_but_role(segment, near)
        if found:
            return (
                (
                    found[0],
                    "build folder named as it is (a role suffix aside, or with its parent's name)",
                )
                if len(found) == 1
                else None
            )
        command = self._go_command(segment, near)
        return (command, "Go command so named (`cmd/NAME`, `package main`)") if command else None

    def _go_command(self, segment: str, near: str) -> str | None:
        """The `main` package of Go's layout for a binary, `cmd/<name>/` (`go build` names
        the binary for its folder), named as the image or the longest end of its name that
        names any (`openmatch-backend` and `cmd/backend/`); the nearest the manifest, None
        when two are as near. For an image nothing builds: a Makefile's pattern rule or a
        build argument chose the command."""
        words = _words(segment)
        for start in range(len(words)):
            name = "".join(words[start:])
            found = sorted(
                folder
                for folder in self.folders_named.get(name, ())
                if os.path.basename(os.path.dirname(folder)) == "cmd" and self.go.is_main(folder)
            )
            if found:
                nearest = _nearest(found, near)
                return nearest[0] if len(nearest) == 1 else None
        return None

    def _is_built(self, folder: str) -> bool:
        """Whether an image is built from the folder: it holds a Dockerfile, or is a build's
        context, or a Dockerfile copies it or `go build`s it (`./services/chat` from
        docker/Dockerfile.chat): not code that only talks to another program (a client of
        a third-party server of that name)."""
        if self._built_paths is None:
            paths = {
                posixpath.normpath(path.partition("/...")[0])
                for dockerfile in self.dockerfiles.values()
                for path in (
                    *(build.package for build in dockerfile.go_builds),
                    *(copy.source for copy in dockerfile.copies),
                )
            }
            self._built_paths = {os.path.normpath(p) for p in paths if p not in (".", "")}
            # a shared Dockerfile's folder chosen by a build argument (`app/${APP_PATH}`)
            self._built_patterns = [
                regex.compile(
                    "(?:^|.*/)"
                    + "[^/]+(?:/[^/]+)*".join(
                        regex.escape(part) for part in _VARIABLE_USE.split(template)
                    )
                    + "$"
                )
                for dockerfile in self.dockerfiles.values()
                for template, _ in dockerfile.arg_folders
            ]
        if self._dockerfile(folder) is not None:
            return True
        if folder in self._build_folders()[0].get(_normal(os.path.basename(folder)), ()):
            return True
        parts = folder.split(os.sep)
        if any(os.sep.join(parts[at:]) in self._built_paths for at in range(len(parts))):
            return True
        posix = "/".join(parts)
        return any(pattern.match(posix) for pattern in self._built_patterns)

    def _named_but_role(self, segment: str, near: str) -> list[str]:
        """The folders an image is built from named as the image is, or an end of its name
        after a project's prefix, but for a role suffix on either (`chat-service` and
        `services/chat/`, `grpc_car` and `car_server/`), the longest end that names any;
        never a folder holding several builds. A folder named for its role alone is named
        with its parent's name (`app/cart/service` as `cart-service`)."""
        if self._role_less is None:
            self._role_less = defaultdict(set)
            for folders in self.folders_named.values():
                for folder in folders:
                    parent, name = os.path.split(os.path.abspath(folder))
                    words = _words(name)
                    rest = _less_role(words)
                    if rest:
                        self._role_less["".join(rest)].add(folder)
                    elif len(words) == 1 and words[0] in ROLE_SUFFIXES:
                        self._role_less[_normal(os.path.basename(parent)) + words[0]].add(folder)
        words = _words(segment)
        for start in range(len(words)):
            end = words[start:]
            rest = _less_role(end)
            # the folder named by the whole end first (`cart/service`), then by it less its
            # role suffix (`cart`)
            for found in (
                self._role_less.get("".join(end), set()),
                (
                    self.folders_named.get("".join(rest), set())
                    | self._role_less.get("".join(rest), set())
                    if rest
                    else set()
                ),
            ):
                built = (
                    f
                    for f in found
                    if self._is_built(f)
                    and not self._rebuilds(f, segment)
                    and not self._go_library(f)  # a package a Dockerfile copies: no program
                )
                kept = self._not_parents(sorted(built))
                if kept:
                    return _nearest(kept, near)
        return []

    def _build_folders(self) -> tuple[dict[str, set[str]], dict[str, int]]:
        """The folders an image is built from (a Dockerfile's, a build's context) by their
        normalised name, and how many of them each folder holds below it."""
        if self._built is None:
            folders = {dockerfile.context for dockerfile in self.dockerfiles.values()}
            folders |= {os.path.normpath(build.context) for build in self.builds.builds}
            named: dict[str, set[str]] = defaultdict(set)
            below: dict[str, int] = defaultdict(int)
            for folder in folders:
                named[_normal(os.path.basename(folder))].add(folder)
                parent = folder
                while parent not in ("", ".", os.sep):  # up to the top, `.` included
                    parent = os.path.dirname(parent)
                    below[parent or "."] += 1
            self._built = (named, below)
        return self._built

    def _jvm_modules_below(self, folder: str) -> list[str]:
        """The JVM modules (a pom.xml, a build.gradle) strictly below a folder: in sorted
        order, the names that begin `folder/` are one run, found by bisection (asked for
        each build's folder, a scan of every module was quadratic in a JVM monorepo)."""
        if self._jvm_sorted is None:
            self._jvm_sorted = sorted(self.builds.jvm_modules)
        modules = self._jvm_sorted
        if folder == ".":
            return [m for m in modules if m != "." and _below(m, ".")]
        prefix = folder + os.sep
        found = []
        for at in range(bisect.bisect_left(modules, prefix), len(modules)):
            if not modules[at].startswith(prefix):
                break
            found.append(modules[at])
        return found

    def _not_parents(self, folders: list[str]) -> list[str]:
        """The folders that do not hold two or more folders an image is built from."""
        below = self._build_folders()[1]
        return [folder for folder in folders if below.get(folder, 0) < 2]

    def _module_named(self, segment: str) -> tuple[str, Said] | None:
        """The one folder whose go.mod names its module as the image is named (its path's
        last element: `github.com/acme/shop-cli` and `.../shop-cli:1`), holding a
        Dockerfile and code; or, where the module's folder holds no Dockerfile (one kept
        under `build/`), the module's one `main` package (`cmd/`, a binary with
        subcommands): what is built of it is a program. A package.json's `name` (its
        scope aside: `@acme/shop-cli`) names its folder so too, where a Dockerfile is."""
        if self._modules_named is None:  # by the last element of their path, made once
            self._modules_named = defaultdict(list)
            for folder, said in self.builds.names.items():
                self._modules_named[_normal(said.text.rsplit("/", 1)[-1])].append((folder, said))
            for folder, package in self.builds.packages.items():
                if package.name is not None:
                    name, line = package.name
                    said = Said(os.path.join(folder, "package.json"), line, f'"name": "{name}"')
                    self._modules_named[_normal(name.rsplit("/", 1)[-1])].append((folder, said))
        found: list[tuple[str, Said]] = []
        for folder, said in self._modules_named.get(_normal(segment), []):
            if folder not in self.by_folder:
                continue
            if self._dockerfile(folder) is not None:
                found.append((folder, said))
            elif said.path.endswith("package.json"):
                continue  # a library's, or a program whose image is not built here
            elif len(mains := self._mains_of_module(folder)) == 1:
                found.append((mains[0], said))
        return found[0] if len(found) == 1 else None

    def _mains_of_module(self, folder: str) -> list[str]:
        """The `main` packages of the Go module at `folder`, less those of a module nested
        in it (a go.mod of their own below)."""
        nested = [f for f in self.builds.names if f != folder and _below(f, folder)]
        return [
            main
            for main in self.go.mains_below(folder)
            if not any(_within(main, inner) for inner in nested)
        ]

    def _go_library(self, folder: str) -> bool:
        """Whether a folder holds Go code alone, of no `main` package, and no Dockerfile:
        generated stubs or a library, named as an image may be (`.../bookinfo` and
        `kitex_gen/cwg/bookinfo/`), which no image runs as its program. The files of a
        `testdata` folder below it (a test's fixtures, a Python model a test loads) are no
        code of it: the Go tool skips them."""
        return (
            self._dockerfile(folder) is None
            and all(
                self.modules[m].language == "go"
                for m in self.by_folder.get(folder, ())
                if not _fixture(m, folder)
            )
            and self.go.is_library(folder)
        )

    def _dockerfile(self, folder: str, named: str | None = None) -> Dockerfile | None:
        if named is not None:
            return self.dockerfiles.get(os.path.normpath(named))
        if folder in self._folder_dockerfiles:  # asked some 7 times a container
            return self._folder_dockerfiles[folder]
        # Docker's own default names, the lowercase one its CLI falls back to
        for name in ("Dockerfile", "Containerfile", "dockerfile"):
            found = self.dockerfiles.get(os.path.normpath(os.path.join(folder, name)))
            if found is not None:
                break
        else:
            found = self._built_above().get(folder)
        self._folder_dockerfiles[folder] = found  # one entry a folder asked: linear
        return found

    def _built_above(self) -> dict[str, Dockerfile]:
        """The Dockerfiles built from the folder above their own (`web/deploy/Dockerfile`
        that copies `deploy/Caddyfile`), by that folder; made when first asked."""
        if self._above is None:
            self._above = {
                dockerfile.context: dockerfile
                for dockerfile in self.dockerfiles.values()
                if dockerfile.copies_own_folder
            }
        return self._above

    # -- the entry point ---------------------------------------------------------------------

    def _entry_source(self, entry: Entry, folder: str, dockerfile: Dockerfile | None) -> str | None:
        """The scanned module an entry point is, in the build context `folder`: through
        the Dockerfile's COPY lines when there is one, else by its path in the folder."""
        workdir = dockerfile.workdir if dockerfile is not None else "/"
        for relative in entry.relative_paths():
            in_image = posixpath.normpath(posixpath.join(workdir, relative))
            for copy in reversed(dockerfile.copies if dockerfile is not None else ()):
                for source in _copied_from(copy.source, copy.dest, in_image):
                    candidate = os.path.normpath(os.path.join(folder, source))
                    if candidate in self.modules:
                        return candidate
        # a folder that is the package the entry names (`mapreduce`, for `python -m
        # mapreduce.worker.server` or `python mapreduce/worker/server.py`, run from the
        # folder above it): its path from there
        above = os.path.dirname(folder)
        for relative in entry.relative_paths():
            tail = os.path.normpath(relative.lstrip("/"))
            below = self.by_folder.get(folder, [])
            matches = [
                m
                for m in below
                if m == os.path.join(folder, tail)
                or m.endswith(os.sep + tail)
                or (folder not in ("", ".") and m == os.path.join(above, tail))
            ]
            if len(matches) == 1:
                return matches[0]
        return None

    def _built_source(
        self, entry: Entry, dockerfile: Dockerfile, chosen: Evidence, *, by_argument: bool
    ) -> str | None:
        """The scanned module an entry point is when the image takes it from a builder
        stage (`COPY --from=build /app/dist/apps/${APP} ./app`, then `node app/main.js`):
        that stage's path of the context, the build's arguments filled in, or the source a
        Node script there is compiled from (`apps/<app>/src/main.ts`, `web/dist/main.js`'s
        `web/src/main.ts`); None when an argument's value is unknown, or no one module is
        found. Read for the app a build argument chose (`by_argument`) or a Node program."""
        if not (by_argument or entry.node):
            return None
        for relative in entry.relative_paths():
            in_image = posixpath.normpath(posixpath.join(dockerfile.workdir, relative))
            for copy in reversed(dockerfile.built_copies):
                for source in _copied_from(copy.source, copy.dest, in_image):
                    path = with_args(dockerfile, source, chosen.args)
                    if path is None:
                        continue
                    tails = [path, *(_compiled_from(path) if entry.node else ())]
                    found = {
                        candidate
                        for tail in tails
                        if (candidate := os.path.normpath(os.path.join(chosen.folder, tail)))
                        in self.modules
                    }
                    if len(found) == 1:
                        return found.pop()
        return None

    def _serving(
        self, entry: Entry, source: str, folder: str, dockerfile: Dockerfile | None
    ) -> tuple[Entry, str]:
        """Of a list's programs (`python seed.py && python app.py`), the one whose code
        serves: the first, unless its code starts no server and listens to nothing (a
        set-up that exits) while a program after it does."""
        for candidate, module in [(entry, source)] + [
            (then, found)
            for then in entry.then
            if (found := self._entry_source(then, folder, dockerfile)) is not None
        ]:
            if self._serves(module, folder):
                return candidate, module
        return entry, source

    def console_module(self, argv: Sequence[object]) -> str | None:
        """The module a command line runs as a Python project's console script, past the
        prefixes that exec it (`_console_run`); None when it is none."""
        found = self._console_run(list(argv), None)
        return found[0] if found is not None else None

    def console_function(self, argv: Sequence[object]) -> str | None:
        """The function of the module `console_module` finds that the declarations call,
        when they all name one."""
        found = self._console_run(list(argv), None)
        if found is None:
            return None
        ran = past_prefixes([str(w) for w in container_argv(list(argv), None, None, None)])
        declared = self.builds.console.get(posixpath.basename(ran[0])) if ran else None
        functions = {script.function for _, script, _ in declared or ()}
        return functions.pop() if len(functions) == 1 else None

    def _console_run(self, command: object, args: object) -> tuple[str, Said] | None:
        """The module a command line runs as a Python project's console script (its first
        word, past wrappers, is a name pyproject.toml or setup.cfg declares: `acme_worker`
        for `acme_worker = 'acme.batch.worker:main'`), and the declaration, its words
        saying so; None when no project declares it, or declarations name modules of
        different files, or the module is not found in its project's folder (or `src/`)."""
        argv = container_argv(
            command if isinstance(command, list) else None,
            args if isinstance(args, list) else None,
            None,
            None,
        )
        ran = past_prefixes([str(w) for w in argv])
        declared = self.builds.console.get(posixpath.basename(ran[0])) if ran else None
        found: dict[str, Said] = {}
        for folder, script, said in declared or ():
            base = script.module.replace(".", os.sep)
            for root in (folder, os.path.join(folder, "src")):
                for tail in (f"{base}.py", os.path.join(base, "__main__.py")):
                    path = os.path.normpath(os.path.join(root, tail))
                    if path in self.modules:
                        found.setdefault(path, said)
        if len(found) != 1:
            return None
        ((source, said),) = found.items()
        name = posixpath.basename(ran[0])
        text = f"{said.text} (the command {name} is this project's console script: {source})"
        return source, replace(said, text=text)

    def _serving_anywhere(self, entry: Entry, script: str) -> str:
        """`_serving` for a command's list with no folder known: of its programs found once
        in the tree (`script` the first's), the first whose code serves, else the first."""
        for module in [script] + [
            found for then in entry.then if (found := self._script_anywhere(then)) is not None
        ]:
            if self._serves(module, os.path.dirname(module) or "."):
                return module
        return script

    def _serves(self, source: str, folder: str) -> bool:
        """Whether a Python program's code serves: a server, a route, a listen in its
        import closure (a Node program is taken to)."""
        if LANGUAGES[self.modules[source].language].project_files:
            return True
        return any(
            facts.servers or facts.routes or facts.http_served or facts.listens
            for path in self.imports.closure(source, [os.path.dirname(source), folder])
            if (facts := self.modules.get(path)) is not None
        )

    def _script_anywhere(self, entry: Entry) -> str | None:
        """A script a container's command names, found once in the whole tree; a module's
        (`python -m pkg.server.main`) by its whole path alone, as Python finds it from a
        folder on its path (its file, or its package's `__main__.py`)."""
        for relative in entry.relative_paths()[: 2 if entry.script is None else None]:
            tail = os.path.normpath(relative.lstrip("/"))
            parts = tail.split(os.sep)
            for start in range(len(parts) if entry.script is not None else 1):
                # the longest tail that is found exactly once
                suffix = os.path.join(*parts[start:])
                matches = [m for m in self.modules if m == suffix or m.endswith(os.sep + suffix)]
                if len(matches) == 1:
                    return matches[0]
                if matches:
                    break
        return None

    def _multi_module_top(self, chosen: Evidence, folder: str) -> str | None:
        """Why a build of a multi-module JVM build's top whose Dockerfile narrows it to none
        of its modules (a compose service's `context: ..`) links no one program's code;
        None where the folder is no such top."""
        inner = self._jvm_modules_below(folder)
        if len(inner) < 2:
            return None
        more = ", ..." if len(inner) > 3 else ""
        return (
            f"{chosen.said.path}:{chosen.said.line}: builds {folder}, the top of a "
            f"multi-module build ({', '.join(inner[:3])}{more}), and its Dockerfile runs no "
            "one module's code the tree shows"
        )

    def _refused(self, chosen: Evidence, folder: str, dockerfile: Dockerfile | None) -> str | None:
        """Why a build whose Dockerfile names no program links no code: a multi-module
        build's top, every Go program of a folder built, or nothing of the context copied."""
        return (
            self._multi_module_top(chosen, folder)
            or self._go_pattern_unnamed(dockerfile, folder, chosen.args)
            or self._copies_no_code(dockerfile, folder)
            or self._copies_only_files(dockerfile, folder)
            or self._fetches_program(dockerfile, folder)
            or self._released_unnamed(chosen, folder)
            or self._released_elsewhere(chosen, folder, dockerfile)
        )

    def _host_binary_untraced(
        self, argv: Sequence[object], context: str, folder: str, dockerfile: Dockerfile | None
    ) -> str | None:
        """Why an image that runs a binary copied from its build context, a file the tree
        does not hold (built on the host: a Tiltfile's local_resource, a Makefile's, a CI
        step's) whose build no file read traces, links no code when the folder found for
        it is not one Go program's: the context's top holding several, or a folder the
        Dockerfile copies beside the binary (a shared library, migrations) holding none.
        None when a stage of the image builds the code, the folder is a program's (or
        holds one), the binary is a crate's, or the tree holds no Go."""
        if dockerfile is None or dockerfile.go_builds or dockerfile.make_calls or not argv:
            return None
        if self.go.is_main(folder) or folder in self.builds.crates:
            return None
        if not self.go.files or len(self.go.mains_below(folder)) == 1:
            return None
        script = shell_script_of(argv)
        words = past_prefixes([str(w) for w in (script_words(script) if script else argv)])
        ran = words[0] if words else ""
        named = {posixpath.basename(c.source.rstrip("/")) for c in dockerfile.copies}
        if not ran or "$" in ran or ("/" not in ran and ran not in named):
            return None  # a program of the image's PATH, not a file copied
        if posixpath.splitext(ran)[1]:
            return None  # a script's, a jar's: a file of code, not a binary
        sources = self._binary_copied(ran, dockerfile, context)
        if not sources:
            return None
        return (
            f"{dockerfile.path}: the image runs {ran}, copied from {sources[0]}, which the "
            "repository does not hold (a binary built outside the image) and no build read "
            f"makes; {folder} is no one Go program's folder: no code is linked"
        )

    def _runs_script_of_its_folder(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> bool:
        """Whether a wide context's Dockerfile (`docker build -f ./Dockerfile ../..`) is
        kept in a folder below it that holds no module but the shell script the image
        runs, copied from there: that folder is the image's code, not the context."""
        inner = dockerfile.folder
        if not _below(inner, folder) or inner in self.by_folder:
            return False
        script = self._image_script(argv, dockerfile, folder)
        return script is not None and _within(script, inner)

    def _image_script(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> str | None:
        """The path of the shell script of the tree the image's program is, copied from the
        build context `folder` (`bash ./bootstrap.sh`, `/entrypoint.sh`); None when not so."""
        words = [str(word) for word in argv]
        operand = bool(words) and posixpath.basename(words[0]) in ("sh", "bash", "ash", "dash")
        if operand:  # a shell run on a script file: its first word past the flags
            words = [word for word in words[1:] if not word.startswith("-")]
        script = (
            image_script(self.builds.scripts, dockerfile, folder, words[0], operand)
            if words
            else None
        )
        return script.path if script is not None else None

    def _binary_copied(self, ran: str, dockerfile: Dockerfile, context: str) -> list[str]:
        """Where in the tree the file the image runs as `ran` is copied from (from the build
        context `context`), when the repository holds none of them: a binary built outside
        the image: a path from the WORKDIR, and a name without a slash in the image's PATH
        folders too, where the shell finds it (`command: [edge]`, `ADD edge /usr/local/bin`).
        Empty when nothing copies it, or the tree holds what is copied."""
        places = [posixpath.normpath(posixpath.join(dockerfile.workdir, ran))]
        if "/" not in ran:
            places += [posixpath.join(folder, ran) for folder in PATH_FOLDERS]
        sources = [
            os.path.normpath(os.path.join(context, s))
            for in_image in places
            for s in dockerfile.sources_of(in_image)
        ]
        held = (*self.modules, *self.builds.scripts)
        if any(s in held or self._held(s) for s in sources):
            return []
        return sources

    def _prebuilt_main(
        self, ran: str, dockerfile: Dockerfile, context: str
    ) -> tuple[GoBuild, str] | None:
        """The Go program of an image that only copies a binary built outside it, from a
        build context holding no code (`build/docker/edge/Dockerfile`: `ADD edge
        /usr/local/bin`), when no build read writes that binary (a Makefile's `go build
        -o $(OUT)/$(CMD) ./cmd/$(CMD)`, its variables set by pattern rules): the one `main`
        package of the repository that Go names as the binary (`cmd/edge`), as `go build`
        names what it writes for the package's folder. None when the context holds code
        (its own program decides), the binary is not copied from it, or not exactly one
        package is so named (then nothing is linked: never the folder of no code)."""
        if not _NAME.fullmatch(ran) or posixpath.splitext(ran)[1] or not self.go.files:
            return None
        if self.by_folder.get(context) or self.by_folder.get(dockerfile.folder):
            return None
        if not self._binary_copied(ran, dockerfile, context):
            return None
        if self._mains_named is None:
            self._mains_named = defaultdict(list)
            for main in self.go.mains_below("."):
                if not _vendored(main):
                    self._mains_named[go_binary_name(main)].append(main)
        mains = self._mains_named.get(ran, [])
        if len(mains) != 1:
            return None
        # the line that runs it, where the image's own does (a command may set another)
        said = next(
            (s for s in (dockerfile.entrypoint_said, dockerfile.cmd_said) if s and ran in s.text),
            Said(dockerfile.path, 1, dockerfile.path),
        )
        text = f"{said.text} (runs {ran}, a binary copied from {context} and built outside "
        text += f"the image: {mains[0]} is the one main package that Go names so)"
        return GoBuild(mains[0], ran, replace(said, text=text)), mains[0]

    def _runs_image_file(self, argv: Sequence[object], dockerfile: Dockerfile | None) -> str | None:
        """Why an image whose program is a file its last stage copies from another image
        the tree does not build (`COPY --from=registry.k8s.io/pause:3.9 /pause /pause`, `CMD
        ["/pause"]`) runs no code of the repository, whatever else it copies (a script
        another container of the pod runs). Only for a program named by its path in the
        image, run as it is (no shell), which no COPY from the context covers, in an
        image none of whose stages takes code from the context or builds any."""
        if dockerfile is None or not argv or shell_script_of(argv) is not None:
            return None
        if dockerfile.stage_copies or dockerfile.go_builds or dockerfile.make_calls:
            return None  # a stage of its own builds from the context (`--from=build`)
        if dockerfile.arg_go_builds or dockerfile.cargo_builds:
            return None
        words = past_prefixes([str(w) for w in argv])
        ran = posixpath.normpath(words[0]) if words and words[0].startswith("/") else ""
        if not ran or "$" in ran or dockerfile.sources_of(ran) or dockerfile.built_sources_of(ran):
            return None
        for image, copy in dockerfile.image_copies:
            dest = posixpath.normpath(copy.dest)
            at = (dest, posixpath.join(dest, posixpath.basename(copy.source.rstrip("/"))))
            if ran not in at or "$" in image:
                continue
            if any(same_image(build.image, image) for build in self.builds.builds):
                return None  # an image of the tree's: its program may be the tree's code
            return (
                f"{dockerfile.path}: the image runs {ran}, a file it copies from the image "
                f"{image}, which the repository does not build: no code of the repository"
            )
        return None

    @staticmethod
    def _named_at_top(chosen: Evidence, folder: str, modules: Sequence[str]) -> str | None:
        """Why a Dockerfile at the repository's top named for the image (`Dockerfile.cache`)
        that copies no folder of code and runs none of it (a public program re-tagged, or
        built from its upstream, with a file or a binary made elsewhere) links no code:
        the whole repository is no program's folder. None when it copies code."""
        if chosen.kind != "dockerfile name" or folder not in (".", "") or modules:
            return None
        return (
            f"{chosen.said.path}: named for the image at the repository's top, it copies no "
            "folder of code and runs none of the tree's programs: no code is linked"
        )

    def _released_elsewhere(
        self, chosen: Evidence, folder: str, dockerfile: Dockerfile | None
    ) -> str | None:
        """Why a GoReleaser image whose Dockerfile copies none of its builds' binaries (a
        `FROM migrate/migrate` image that copies only the SQL and a script of its
        `extra_files`) links no code: the builds its `ids` name only ride along in its
        context. None when any COPY may take a binary (the context whole, a glob, a
        variable), or a stage builds Go."""
        if chosen.kind != "goreleaser" or dockerfile is None or dockerfile.go_builds:
            return None
        binaries = {
            build.output
            for build in self.builds.go_builds
            if build.said.path == chosen.said.path and build.package == folder and build.output
        }
        sources = [copy.source for copy in (*dockerfile.copies, *dockerfile.stage_copies)]
        if not binaries or not sources or not dockerfile.copies_any:
            return None
        if any(
            _RELEASE_WIDE.search(source) or os.path.basename(os.path.normpath(source)) in binaries
            for source in sources
        ):
            return None
        return (
            f"{dockerfile.path}: the image copies none of the binaries its GoReleaser entry "
            f"({chosen.said.path}:{chosen.said.line}) is given ({', '.join(sorted(binaries))}): "
            "it runs none of their code"
        )

    def _released_unnamed(self, chosen: Evidence, folder: str) -> str | None:
        """Why a GoReleaser image of several builds' binaries links no code when the
        binary it runs is none of them by name (its folder is the file's, no program's)."""
        if chosen.kind != "goreleaser" or folder != chosen.folder or self.go.is_main(folder):
            return None
        return (
            f"{chosen.said.path}:{chosen.said.line}: the image holds the binaries of several "
            "builds, and the container runs none of them by a binary's name"
        )

    def _copies_no_code(self, dockerfile: Dockerfile | None, folder: str) -> str | None:
        """Why an image whose Dockerfile takes nothing from its build context (`FROM
        postgres:16` with ENV and CMD lines) runs no code of the repository, whatever the
        context; None when any stage has a COPY or ADD line (read or not: `COPY
        dist/$TARGETPLATFORM/app`) or builds Go, or it is built FROM an image the tree
        builds (whose code it may hold). Only for a Dockerfile kept apart from the folder
        it is built from: one kept with it may have a base whose ONBUILD lines copy the
        context (`FROM node:onbuild`), or the folder mounted at run time. One whose every
        COPY and ADD takes `--from` another stage or image (`COPY --from=acme/tool:1.2
        /usr/local/bin/ ...`), none from the context, repackages a published program
        wherever it is kept: assembled from images, it has no folder to mount. One FROM
        an image the tree builds whose build the links did not follow (_through_base:
        builds of several Dockerfiles name it) links no code when built from the
        repository's top, never the whole repository."""
        if dockerfile is None or dockerfile.base is None or "$" in dockerfile.base:
            return None
        if "onbuild" in _words(dockerfile.base) or dockerfile.go_builds:
            return None
        repackaged = dockerfile.copies_any and not dockerfile.copies_context
        if not repackaged and (dockerfile.folder == folder or dockerfile.copies_any):
            return None
        if any(
            same_image(build.image, dockerfile.base) and not self._builds_it(build, dockerfile)
            for build in self.builds.builds
        ):
            if folder not in (".", "") or repackaged:
                return None  # its code may be the base's, which the links did not follow
            return (
                f"{dockerfile.path}: builds FROM {dockerfile.base}, an image the repository "
                "builds, whose program the builds read do not settle, and copies nothing of "
                "its context: the whole repository is no one program's code, no code is linked"
            )
        how = ", only other images' or stages' files" if repackaged else ""
        return (
            f"{dockerfile.path}: builds FROM {dockerfile.base} and copies nothing of its "
            f"context{how}: the image runs no code of the repository"
        )

    def _copies_only_files(self, dockerfile: Dockerfile | None, folder: str) -> str | None:
        """Why an image that runs its base's program (no ENTRYPOINT or CMD of its own, no
        build run) on files of the repository that are no code (`FROM a migration tool`
        with `COPY ./db/migrations migrations` and its configuration) runs no code of the
        repository: each path it copies from the context, seen from the build's folder or
        any above it, holds no module, script or project read, nor is a build's output
        (a web app's `dist/` its nginx serves is its folder's code, built). Only where the build's
        folder holds code (a module's top, which the link would give it); one that holds
        none links no code anyway. None for an image the tree builds its base of, or a
        copy a build argument names."""
        if dockerfile is None or dockerfile.base is None or "$" in dockerfile.base:
            return None
        if not self.by_folder.get(folder):
            return None
        if dockerfile.entrypoint is not None or dockerfile.cmd is not None:
            return None
        if dockerfile.go_builds or dockerfile.arg_go_builds or dockerfile.make_calls:
            return None
        copies = (*dockerfile.copies, *dockerfile.stage_copies)
        if not copies or any("$" in c.source or _built_output(c.source) for c in copies):
            return None  # a build's output (`COPY ./dist ...`) is the folder's code, built
        for copy in copies:
            for base in _climbed(folder):
                path = _joined_folder(base, copy.source)
                if path in self.modules or path in self.builds.scripts or self._held(path):
                    return None
                if path in self._host_written():
                    return None  # a binary a host's `go build` writes: that program's code
        if any(same_image(build.image, dockerfile.base) for build in self.builds.builds):
            return None
        copied = ", ".join(sorted({c.source for c in copies})[:3])
        return (
            f"{dockerfile.path}: runs its base {dockerfile.base}'s program on files it copies "
            f"({copied}), none of them code of the repository"
        )

    def _fetches_program(self, dockerfile: Dockerfile | None, folder: str) -> str | None:
        """Why an image whose Dockerfile takes its program from outside its context (it
        clones a git repository and builds that, or installs a wheel a build made) links
        no code when its folder holds none: the Dockerfile's folder, its scripts and
        configuration, is not the program it runs. None where the folder holds code."""
        if dockerfile is None or dockerfile.fetched is None or self.by_folder.get(folder):
            return None
        said = dockerfile.fetched
        text = said.text if len(said.text) <= 80 else said.text[:77] + "..."
        return (
            f"{said.path}:{said.line}: `{text}` takes the image's program from a clone or a "
            f"built package, not its context's code, and {folder} holds no code: no code "
            "is linked"
        )

    @staticmethod
    def _builds_it(build: ImageBuild, dockerfile: Dockerfile) -> bool:
        """Whether a build is of this Dockerfile (its own image, named like its base)."""
        if build.dockerfile is None:
            return False
        named = os.path.normpath(build.dockerfile)
        return dockerfile.path in (named, os.path.normpath(os.path.join(build.context, named)))

    def _go_pattern_unnamed(
        self, dockerfile: Dockerfile | None, folder: str, args: Sequence[tuple[str, str]] = ()
    ) -> str | None:
        """Why an image that builds every program below a folder (`go install ./...`) and
        runs none of them by a name the tree shows links no one program's code (where it
        copies what it runs from the builder's stage by a build argument's path, `COPY
        --from=installer /go/bin/${COMMAND} /server`, the build's `args` not giving that
        argument one value, saying so); None where it builds no such pattern or the folder
        holds one `main` package at most."""
        if dockerfile is None:
            return None
        pattern = next((b for b in dockerfile.go_builds if b.package.endswith("/...")), None)
        mains = self.go.mains_below(folder) if pattern is not None else []
        if pattern is None or len(mains) < 2:
            return None
        more = ", ..." if len(mains) > 3 else ""
        why = (
            f"{pattern.said.path}:{pattern.said.line}: `{pattern.said.text}` builds every "
            f"program below {folder} ({', '.join(mains[:3])}{more}), and the container runs "
            "none of them by a binary's name"
        )
        program = _program_word(dockerfile.runs) or ""
        unknown = stage_file_unknown(dockerfile, program, args) or _variable_run(dockerfile, args)
        return f"{why}: {unknown}" if unknown else why

    def _built_by(self, chosen: Evidence, evidence: list[Evidence]) -> Dockerfile | None:
        """The Dockerfile the chosen evidence builds; for a build whose Dockerfile the tree
        lacks (compose's `build: .` with none there), the one weaker evidence of the same
        folder names, that the tree holds."""
        dockerfile = self._dockerfile(chosen.folder, chosen.dockerfile)
        if dockerfile is not None:
            return dockerfile
        named = [e.dockerfile for e in evidence if e.folder == chosen.folder]
        held = [self._dockerfile(chosen.folder, n) for n in named if n is not None]
        return next((d for d in held if d is not None), None)

    def _targeted(self, built: Dockerfile | None, evidence: list[Evidence]) -> Dockerfile | None:
        """The image the evidence's builds of the Dockerfile make: the stage they target
        (`--target runtime`), when each names one (a name not literal aside) and the stages
        they name run the same ENTRYPOINT and CMD; else its last stage."""
        if built is None:
            return None
        targets = {
            e.target
            for e in evidence
            if e.kind in BUILD_KINDS and self._dockerfile(e.folder, e.dockerfile) is built
        }
        named = targets - {UNKNOWN_TARGET}
        if not named or "" in named:
            return built
        stages = [built.targeted(target) for target in sorted(named)]
        runs = {
            (s.entrypoint, s.cmd, s.entrypoint_said, s.cmd_said) if s is not None else None
            for s in stages
        }
        first = stages[0]
        return first if len(runs) == 1 and first is not None else built

    def link(self, workload: K8sObject, container: Container) -> Link | None:
        found = self._evidence(workload, container)
        if found is None:
            return None
        evidence, script, program = found
        chosen = evidence[0]
        dockerfile = own = self._targeted(self._built_by(chosen, evidence), evidence)
        through = self._through_base(own) if script is None and program is None else None
        if through is not None and chosen.kind != "config":  # the program of an image it takes
            (chosen, dockerfile), evidence = through, [through[0], *evidence]
        chose = self._folder_chosen(workload, container, evidence, dockerfile)
        if chose is None:
            self._unlinked(workload, container, own, chosen)
            return None
        folder, agreeing = chose
        by_argument = folder != chosen.folder  # a shared Dockerfile's app, an argument chose
        # a build naming a Dockerfile the tree lacks does not agree with one naming its own
        stale = set() if self._missing(chosen) else {id(e) for e in evidence if self._missing(e)}
        used = [e for e in evidence if e.folder in agreeing and id(e) not in stale]
        overruled = [e for e in evidence if e.folder not in agreeing or id(e) in stale]
        argv, set_by = _command_run(container, chosen, dockerfile)
        entry = self._through_package(entry_of(argv), folder, dockerfile)
        source = script or (
            self._entry_source(entry, folder, dockerfile) if entry is not None else None
        )
        if source is None and entry is None and (console := self._console_run(argv, None)):
            source, said = console
            used.append(Evidence("command", said, os.path.dirname(said.path) or "."))
        if source is None and entry is not None and dockerfile is not None:
            source = self._built_source(entry, dockerfile, chosen, by_argument=by_argument)
        if entry is not None and entry.then and source is not None and script is None:
            entry, source = self._serving(entry, source, folder, dockerfile)
        if source is not None and dockerfile is not None and chosen.kind != "config":
            copied = self._copied_folder(dockerfile, folder) or self._package_run(
                argv, dockerfile, folder
            )
            if copied is not None and _below(source, copied):
                folder = copied  # a wide context: the code is what the Dockerfile copies
        source = self._source_run(workload, container, chosen, dockerfile, source, folder, used)
        modules, folder = self._modules_run(
            source, program, argv, dockerfile, chosen, folder, used, by_argument=by_argument
        )
        if dockerfile is not None and dockerfile is not own and source is None:
            modules, folder = self._base_narrowed(folder, dockerfile, chosen) or (modules, folder)
        app = None  # (a command a build tool sets over both, Tilt's, is its own evidence)
        if source is None and program is None and chosen.kind != "config" and not set_by:
            app = self._app_package(workload, container, argv, folder, dockerfile)
            if app is not None:  # `celery -A acme.queues`: the package acme, of a wide context
                folder, modules = app[0], self._own_modules(app[0])
                used.append(app[1])
        named = source or program or app  # what the command names: never refused
        if not named and (refused := self._why_refused(argv, chosen, folder, modules, own)):
            self.why_not[(id(workload), id(container))] = refused
            self._unlinked(workload, container, own, chosen)
            return None
        for beside in entry.beside if entry is not None and source is not None else ():
            # a program its shell runs beside it (`a & b & it`): its modules run here too
            other = self._entry_source(beside, folder, dockerfile)
            if other is not None and other not in modules:
                ran, _ = self._modules_run(other, None, argv, dockerfile, chosen, folder, [])
                modules = tuple(dict.fromkeys((*modules, *ran)))
        modules = self._entry_run(container, folder, source, modules)
        agree = _agreeing_within(overruled, chosen.folder, folder)
        used += agree
        overruled = [e for e in overruled if e not in agree]
        used.sort(key=lambda e: e.strength)
        if own is not None and (base := self._inherited(own)) is not None:
            own = replace(own, inherited=base)  # the image's Dockerfile, its base read from it
        return Link(
            workload,
            container,
            folder,
            source,
            modules,
            tuple(used),
            tuple(overruled),
            own,
            set_by,
        )

    def _inline_elsewhere(
        self, workload: K8sObject, container: Container, argv: Sequence[object], folder: str
    ) -> bool:
        """Whether the container runs an inline Python program (`python -c CODE`, Python
        running the string, in place of the image's entry, as the container's command sets
        it) that imports no package or module of the folder's top: none of the folder's
        code runs (`why_not` says so). One too long, or not Python that parses, is not
        judged."""
        if not (container.body.get("command") or container.body.get("args")):
            return False  # the image's own command: its Dockerfile's to say
        code = inline_python(argv)
        if code is None or len(code) > MAX_INLINE_CODE:
            return False
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        imported = {
            name.split(".", 1)[0]
            for node in ast.walk(tree)
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
        }
        tops = {
            os.path.relpath(module, folder).split(os.sep, 1)[0].removesuffix(".py")
            for module in self._own_modules(folder)
        }
        if imported & tops:
            return False
        said = self._command_said(workload, container)
        self.why_not[(id(workload), id(container))] = (
            f"{said.path}:{said.line}: the container runs an inline Python program (`python "
            f"-c`) in place of the image's, which imports no module of {folder}"
        )
        return True

    def _app_package(
        self,
        workload: K8sObject,
        container: Container,
        argv: Sequence[object],
        folder: str,
        dockerfile: Dockerfile | None,
    ) -> tuple[str, Evidence] | None:
        """The Python package a launcher's application module is in (`celery -A
        acme.queues worker`: `acme/`, found through the Dockerfile's WORKDIR and COPY), when
        it narrows the folder (a context of several programs, the repository's top) and is
        all the program the module's folder on `sys.path` holds (`_whole_program`); with the
        command line that names it. None when not so (the folder is kept, not guessed)."""
        app = app_module(argv)
        source = self._entry_source(app, folder, dockerfile) if app is not None else None
        if app is None or source is None or app.module is None:
            return None
        facts = self.modules[source]
        depth = app.module.count(".") + (0 if source.endswith("__init__.py") else 1)
        base = os.path.normpath(os.path.join(source, *([os.pardir] * depth)))
        package = os.path.normpath(os.path.join(base, app.module.split(".", 1)[0]))
        if facts.language != "python" or facts.project != base or not _below(package, folder):
            return None  # a module outside any package (`celery -A tasks`): its folder is all
        if not self._whole_program(source, package, base, folder):
            return None
        kind, said = "command", None
        if container.body.get("command") or container.body.get("args"):
            said = self._command_said(workload, container)
        elif dockerfile is not None:
            kind, said = "dockerfile", dockerfile.cmd_said or dockerfile.entrypoint_said
        if said is None:
            return None
        text = f"{said.text} (its application module {app.module} is {source}: the package"
        text += f" {package} holds the program)"
        return package, Evidence(kind, replace(said, text=text), package)

    def _whole_program(self, source: str, package: str, base: str, folder: str) -> bool:
        """Whether the package holds all the Python code a program started from `source`
        may load from `base`, its folder on `sys.path`: the module's imports stay in it,
        and `base` holds no other module or package (a Django project's apps beside it,
        `manage.py`, a `celeryconfig.py`) but tests and its packaging script, nor does
        any folder of the context not kept for another image (a Dockerfile of its own)."""
        if not all(_within(m, package) for m in self.imports.closure(source, [base, folder])):
            return False
        for module in self._own_modules(folder):
            facts = self.modules[module]
            if facts.project != base or facts.is_test or _within(module, package):
                continue
            if os.path.basename(module) not in _PACKAGING_SCRIPTS:
                return False
        return True

    def _why_refused(
        self,
        argv: Sequence[object],
        chosen: Evidence,
        folder: str,
        modules: Sequence[str],
        own: Dockerfile | None,
    ) -> str | None:
        """Why a container whose command names no module of the tree links no code (its
        build's Dockerfile `own`, or the base's whose program it runs: _through_base)."""
        if chosen.kind == "config":
            return None
        through = self._through_base(own)
        dockerfile = through[1] if through is not None else own
        return (
            self._runs_image_file(argv, dockerfile)
            or self._refused(chosen, folder, dockerfile)
            or self._named_at_top(chosen, folder, modules)
            or self._host_binary_untraced(argv, chosen.folder, folder, dockerfile)
            or self._go_programs_unnamed(chosen, folder, dockerfile)
            or self._base_too_wide(chosen, folder, dockerfile, own)
        )

    def _go_programs_unnamed(
        self, chosen: Evidence, folder: str, dockerfile: Dockerfile | None
    ) -> str | None:
        """Why a build of a Go module's folder (its go.mod's, Go code only) that holds
        several programs below it (`cmd/api`, `cmd/worker`) and is none itself links no
        code when nothing says which it runs: no Dockerfile of the build is known (a file
        of the build's is read: _host_binary_untraced and the Go builds decide). The
        module's whole code is every program's, not the container's. None where the
        folder holds one program at most."""
        if dockerfile is not None:
            return None
        if folder not in self.builds.names or self.go.is_main(folder):
            return None
        own = self.by_folder.get(folder, ())
        if not own or any(self.modules[p].language != "go" for p in own if p in self.modules):
            return None
        mains = self.go.mains_below(folder)
        if len(mains) < 2:
            return None
        more = ", ..." if len(mains) > 3 else ""
        return (
            f"{chosen.said.path}:{chosen.said.line}: builds {folder}, a Go module of several "
            f"programs ({', '.join(mains[:3])}{more}), with no Dockerfile known: which one "
            "the container runs the build does not say"
        )

    def _through_base(self, dockerfile: Dockerfile | None) -> tuple[Evidence, Dockerfile] | None:
        """The build of the repository whose image holds the program of an image that takes
        nothing of its own context (no COPY or ADD of it, no build run, nothing fetched),
        and that build's Dockerfile with the ENTRYPOINT and CMD the image runs (_base_step):
        followed MAX_BASE_DEPTH images deep while each takes nothing of its context, never
        back to one already followed. None when the first step is not known."""
        found = None
        seen: list[str] = []
        while dockerfile is not None and len(seen) < MAX_BASE_DEPTH:
            if (
                dockerfile.copies_context
                or dockerfile.go_builds
                or dockerfile.make_calls
                or dockerfile.fetched is not None
            ):
                break
            step = self._base_step(dockerfile)
            if step is None or step[1].path in (dockerfile.path, *seen):
                break
            seen.append(dockerfile.path)
            found, dockerfile = step, step[1]
        return found

    def _base_step(self, dockerfile: Dockerfile) -> tuple[Evidence, Dockerfile] | None:
        """One step of _through_base: the image `dockerfile` is built FROM, when a build of
        the tree makes it (its program run, or the image's own ENTRYPOINT and CMD over it,
        as Docker passes them on); else the image a `COPY --from` takes the very file the
        image runs from (`COPY --from=engine /usr/local/bin/engine ...`, `engine` a stage
        FROM that image, or the image itself), when the program that image runs is that
        file. None when no build of the tree makes the image, builds of several
        Dockerfiles do (which one it is, the tree does not settle), or the file is not the
        image's program."""
        base = base_image(dockerfile)
        built = self._one_build(base) if base is not None else None
        if built is not None:
            evidence, parent = built
            text = f"{evidence.said.text} (the image {dockerfile.path} is built FROM)"
            if dockerfile.entrypoint is not None:
                parent = replace(
                    parent,
                    entrypoint=dockerfile.entrypoint,
                    entrypoint_said=dockerfile.entrypoint_said,
                    cmd=dockerfile.cmd,
                    cmd_said=dockerfile.cmd_said,
                )
            elif dockerfile.cmd is not None:
                parent = replace(parent, cmd=dockerfile.cmd, cmd_said=dockerfile.cmd_said)
            return replace(evidence, said=replace(evidence.said, text=text)), parent
        ran = _program_word(dockerfile)
        if ran is None:
            return None
        at = posixpath.normpath(posixpath.join(dockerfile.workdir, ran)) if "/" in ran else None
        images = {
            (image, copy.source)
            for image, copy in dockerfile.image_copies
            if copy.dest == at or (at is None and posixpath.basename(copy.dest) == ran)
        }
        if len(images) != 1:
            return None
        image, source = images.pop()
        built = self._one_build(image)
        if built is None:
            return None
        evidence, parent = built
        own = _program_word(parent)
        if own is None or posixpath.basename(own) != posixpath.basename(source):
            return None  # a file of the image that is not its program
        text = f"{evidence.said.text} ({dockerfile.path} copies {source}, its program, from it)"
        return replace(evidence, said=replace(evidence.said, text=text)), parent

    def _one_build(self, image: str) -> tuple[Evidence, Dockerfile] | None:
        """The build of `image` the tree makes, and its Dockerfile (with what that inherits
        from a base the tree builds), when the builds that name it all build one."""
        found = [
            (evidence, held)
            for evidence in self._build_evidence(image)
            for held in [self._dockerfile(evidence.folder, evidence.dockerfile)]
        ]
        paths = {held.path if held is not None else None for _, held in found}
        if len(paths) != 1 or None in paths:
            return None
        evidence, parent = found[0]
        assert parent is not None
        if (inherited := self._inherited(parent)) is not None:
            parent = replace(parent, inherited=inherited).runs
        return evidence, parent

    def _base_narrowed(
        self, folder: str, dockerfile: Dockerfile, chosen: Evidence
    ) -> tuple[tuple[str, ...], str] | None:
        """For an image whose program is a base image's (_through_base) that the base's
        build links to its whole context, from a Dockerfile kept apart from it (`-f
        docker/base.Dockerfile .`): the one folder the base's stages copy of that context
        (`COPY src/engine/src/ ./src/` in its builder) and its modules. None when it
        copies the whole context or folders of none in common (_base_too_wide says why no
        code is linked then), or the Dockerfile is kept in its context, whose folder is its
        program's."""
        if folder != chosen.folder or dockerfile.folder == folder:
            return None
        copied = (*dockerfile.copies, *dockerfile.stage_copies)
        sources = sorted({_joined_folder(folder, c.source) for c in copied})
        common = os.path.normpath(os.path.commonpath(sources)) if sources else folder
        if len(sources) == 1 and posixpath.splitext(posixpath.basename(common))[1]:
            common = os.path.dirname(common) or "."  # one file copied: its folder
        if common == folder or not _below(common, folder):
            return None
        return self._own_modules(common), common

    @staticmethod
    def _base_too_wide(
        chosen: Evidence, folder: str, dockerfile: Dockerfile | None, own: Dockerfile | None
    ) -> str | None:
        """Why an image whose program is a base image's links no code when the base's
        build is linked to its whole context from a Dockerfile kept apart (_base_narrowed
        found no one folder it copies): the whole repository is no one program's code."""
        if dockerfile is None or dockerfile is own or own is None:
            return None
        if folder != chosen.folder or dockerfile.folder == folder:
            return None
        return (
            f"{chosen.said.path}:{chosen.said.line}: {own.path} runs the program of the base "
            f"image built by `{chosen.said.text}`, whose Dockerfile {dockerfile.path} copies "
            f"no one folder of {folder}: no code is linked"
        )

    def _entry_run(
        self, container: Container, folder: str, source: str | None, modules: tuple[str, ...]
    ) -> tuple[str, ...]:
        """The modules a container runs whose own command names a Node entry of the
        image's program (`command: [node, dist/jobs/purge.js]`, a CronJob beside the
        server's Deployment): that entry's and those it loads (projects.node_closure),
        of `modules`, not the whole package; `modules` as they are when the command names
        no such entry or what it loads is not known."""
        command, args = container.body.get("command"), container.body.get("args")
        if not command and not args:
            return modules
        own = entry_of(container_argv(command, args, None, None))
        if own is None or not own.node or own.script is None:
            return modules
        entry = source if source is not None else self._compiled_source(own.script, folder)
        if entry is None or entry not in modules:
            return modules
        if not LANGUAGES[self.modules[entry].language].project_files:
            return modules
        loaded = self.node_closure(entry, len(modules))
        if loaded is None:
            return modules
        return tuple(m for m in modules if m in loaded)

    def node_closure(self, entry: str, limit: int | None = None) -> frozenset[str] | None:
        """`_node_closure` of the entry, worked out once a run for each `limit` (the most
        modules it may load and be known; by default, as many as the tree holds)."""
        key = (entry, len(self.modules) if limit is None else limit)
        if key not in self._node_closures:
            self._node_closures[key] = self._node_closure(*key)
        return self._node_closures[key]

    def _node_closure(self, entry: str, limit: int) -> frozenset[str] | None:
        """The modules a Node program starting at `entry` loads, directly or not (each
        module's read once a run: projects.node_loads); None when that is not known for
        one on the way, past `limit` modules, or once the run's NODE_CLOSURE_STEPS are
        spent (what is loaded is then not known)."""
        seen, queue = {entry}, [entry]
        while queue:
            path = queue.pop()
            if path not in self._node_loads:
                project = self.modules[path].project if path in self.modules else ""
                if project not in self._node_names:
                    own = [p for p, m in self.modules.items() if m.project == project]
                    base = project or "."
                    parts = {x for p in own for x in os.path.relpath(p, base).split(os.sep)}
                    self._node_names[project] = frozenset(
                        parts | {os.path.splitext(x)[0] for x in parts}
                    )
                self._node_loads[path] = node_loads(path, self.modules, self._node_names[project])
            loaded = self._node_loads[path]
            self._node_steps += 1 + len(loaded or ())
            if loaded is None or len(seen) > limit or self._node_steps > NODE_CLOSURE_STEPS:
                return None
            for found in loaded:
                if found not in seen:
                    seen.add(found)
                    queue.append(found)
        return frozenset(seen)

    def _compiled_source(self, script: str, folder: str) -> str | None:
        """The one module below `folder` a compiled Node script may be built from
        (entries.compiled_source, as the links see the modules)."""
        tails = [os.sep + os.path.normpath(tail) for tail in compiled_sources(script)]
        found = {
            path
            for path in self.modules
            if _within(path, folder) and any((os.sep + path).endswith(t) for t in tails)
        }
        return found.pop() if len(found) == 1 else None

    def _unlinked(
        self,
        workload: K8sObject,
        container: Container,
        dockerfile: Dockerfile | None,
        chosen: Evidence,
    ) -> None:
        """Keep the Dockerfile the evidence found for a container it links to no code
        (with the base the repository builds), for what its image is (`/bin/sh`), and, when
        the evidence is a build of the image, that build's context: what the image runs
        (its ENTRYPOINT, CMD and scripts) needs no code."""
        if dockerfile is not None:
            if (base := self._inherited(dockerfile)) is not None:
                dockerfile = replace(dockerfile, inherited=base)
            key = (id(workload), id(container))
            self.unlinked[key] = dockerfile
            if chosen.strength == 1:  # a build file's (not a document's, nor a name's)
                self.built_in[key] = chosen.folder

    def _inherited(self, dockerfile: Dockerfile, seen: tuple[str, ...] = ()) -> Dockerfile | None:
        """The Dockerfile of the repository that builds the image `dockerfile` is built FROM:
        the one the builds naming that image (those that link a container to its folder)
        all build, with its own base followed the same way, MAX_BASE_DEPTH deep at most and
        never back to one already followed; None when no build names the image, or builds
        of several Dockerfiles do (which one the base is, the tree does not settle)."""
        if len(seen) >= MAX_BASE_DEPTH:
            return None
        if not seen and dockerfile.path in self._bases:
            return self._bases[dockerfile.path]
        base = base_image(dockerfile)
        built = {
            found.path if found is not None else None: found
            for evidence in (self._build_evidence(base) if base is not None else [])
            for found in [self._dockerfile(evidence.folder, evidence.dockerfile)]
        }
        parent = next(iter(built.values())) if len(built) == 1 else None
        if parent is not None and parent.path not in (dockerfile.path, *seen):
            parent = replace(parent, inherited=self._inherited(parent, (*seen, dockerfile.path)))
        else:
            parent = None
        if not seen:
            self._bases[dockerfile.path] = parent
        return parent

    def _evidence(
        self, workload: K8sObject, container: Container
    ) -> tuple[list[Evidence], str | None, str | None] | None:
        """The evidence of the folder whose code the container runs, strongest first: its
        folder's (builds, names), else a script of the tree its command names, else the Go
        program its command names; with that script and that program. None with none."""
        evidence = self._folder_evidence(workload, container)
        command, args = container.body.get("command"), container.body.get("args")
        own = entry_of(container_argv(command, args, None, None)) if command or args else None
        script = None
        if not evidence and own is not None and (own.script is not None or _package_module(own)):
            script = self._script_anywhere(own)
            if script is not None and own.then:  # `python gen_config.py && python -m app`
                script = self._serving_anywhere(own, script)
            if script is not None:
                said = self._command_said(workload, container)
                evidence = [Evidence("command", said, os.path.dirname(script) or ".")]
        if not evidence and own is None and (console := self._console_run(command, args)):
            script, said = console
            evidence = [Evidence("command", said, said.path.rpartition("/")[0] or ".")]
        program = None
        ran = past_prefixes([str(w) for w in container_argv(command, args, None, None)])
        if not evidence and own is None and isinstance(command, list) and ran:
            # `./geo`: the Go program of that name, when the tree holds one (a prefix that
            # execs it looked through: `envdir /env /bin/geo`)
            program = self.go.program_named(posixpath.basename(ran[0]))
            if program is not None:
                said = self._command_said(workload, container)
                evidence = [Evidence("command", said, program)]
        if not evidence:
            return None
        return [_settled_args(evidence), *evidence[1:]], script, program

    def _folder_chosen(
        self,
        workload: K8sObject,
        container: Container,
        evidence: list[Evidence],
        dockerfile: Dockerfile | None,
    ) -> tuple[str, set[str]] | None:
        """The folder the strongest evidence names (or, for a Dockerfile shared by
        services, the one a build argument chooses: its evidence added to `evidence`), and
        the folders whose evidence agrees with it. None when no build of the image gives
        that argument's value, or the container runs an inline program that imports none of
        the folder's code (`why_not` says so)."""
        chosen = evidence[0]
        folder = chosen.folder
        argv = _command_run(container, chosen, dockerfile)[0]
        if chosen.kind != "config" and self._inline_elsewhere(workload, container, argv, folder):
            return None
        agreeing = {folder}
        if chosen.kind == "dockerfile name" and dockerfile is not None:
            # a folder it copies is its code: evidence pointing there agrees
            agreeing |= {_joined_folder(folder, copy.source) for copy in dockerfile.copies}
        chooses = arg_folder(dockerfile, chosen.args) if dockerfile is not None else None
        if chooses is not None:  # a Dockerfile shared by services: a build argument says whose
            chosen_folder, said = chooses
            if chosen_folder is None:
                self.why_not[(id(workload), id(container))] = (
                    f"{said.path}:{said.line}: `{said.text}` builds the folder a build "
                    f"argument chooses, and no build of image {container.body.get('image')} "
                    "gives its value"
                )
                return None
            folder = os.path.normpath(os.path.join(chosen.folder, chosen_folder))
            if dockerfile and not dockerfile.arg_folders and not self.by_folder.get(folder):
                # a builder's output named by the argument whose sources are not found in
                # the folder it mirrors: no folder is known, the context stays
                return chosen.folder, agreeing
            given = ", ".join(f"{name}={value}" for name, value in chosen.args)
            text = f"{said.text} ({given})" if given else said.text
            if (module := self._output_of(folder)) is not None:
                # `ARG JAR_FILE=target/app.jar`: a build's output, whose code is its module's
                text = f"{text} (built by the module {module})"
                folder = module
            elif folder.endswith(".jar") and not self._held(folder):
                # a jar's file name is no code: with no module known to build it, no link
                self.why_not[(id(workload), id(container))] = (
                    f"{said.path}:{said.line}: `{said.text}` ({given}) copies the jar "
                    f"{folder}, and no Maven or Gradle module of the tree says it builds it"
                )
                return None
            evidence.append(Evidence("dockerfile", replace(said, text=text), folder))
            agreeing.add(folder)
        return folder, agreeing

    def _source_run(
        self,
        workload: K8sObject,
        container: Container,
        chosen: Evidence,
        dockerfile: Dockerfile | None,
        source: str | None,
        folder: str,
        used: list[Evidence],
    ) -> str | None:
        """The module the container runs: the configuration's pin, or `source`, the entry
        its command line names (that line added to `used`: the container's, or the
        Dockerfile's)."""
        pinned = self.shown.get(self.pins.get(container_key(workload, container.name), ""))
        if chosen.kind == "config" and pinned in self.modules:
            return pinned
        if source is not None and chosen.kind != "command":
            if container.body.get("command") or container.body.get("args"):
                used.append(Evidence("command", self._command_said(workload, container), folder))
            elif dockerfile is not None:
                line = dockerfile.cmd_said or dockerfile.entrypoint_said
                if line is not None:
                    used.append(Evidence("dockerfile", line, folder))
        return source

    def _modules_run(
        self,
        source: str | None,
        program: str | None,
        argv: Sequence[object],
        dockerfile: Dockerfile | None,
        chosen: Evidence,
        folder: str,
        used: list[Evidence],
        *,
        by_argument: bool = False,
    ) -> tuple[tuple[str, ...], str]:
        """The modules the container runs, and the folder of its code as they narrow it: the
        entry's imports (a Node program's package), the Go program its command names or its
        image builds (that build added to `used`), or the code its Dockerfile copies, else
        the folder's own."""
        if dockerfile is not None and source is None:
            # its `go build`s of a package a build argument names, as this build gives it
            dockerfile = self._argument_builds(dockerfile, chosen.args)
        go = self._go_main(argv, dockerfile, folder, chosen) if not source and dockerfile else None
        if source is not None and LANGUAGES[self.modules[source].language].project_files:
            # a Node program: the modules of its package (the nearest package.json's folder)
            project = self.modules[source].project
            modules = self.programs().get(project, [])
            if by_argument and _below(folder, project):
                # a workspace's one package (an Nx monorepo's) and the app a build argument
                # chose in it: that app's modules and the shared ones, not its sibling apps'
                apps = os.path.dirname(folder) or "."
                modules = [m for m in modules if _within(m, folder) or not _below(m, apps)]
            return tuple(dict.fromkeys((source, *modules))), folder
        if source is not None:
            bases = [os.path.dirname(source), folder]
            return tuple(self.imports.closure(source, bases)), folder
        if program is not None:  # the Go program the command names, and its imports
            return tuple(self.go.closure(program)), folder
        if go is not None:  # the Go program the image builds, and what it imports
            build, package = go
            # not the whole context; nor a folder of the binary alone when it is built on
            # the host (its code is elsewhere)
            host = build not in dockerfile.go_builds if dockerfile else False
            folder = package if _below(package, folder) or host else folder
            used.append(Evidence("dockerfile", build.said, folder))
            return tuple(self.go.closure(package)), folder
        crate = self._crate_of(argv, dockerfile, folder) if source is None and dockerfile else None
        if crate is not None:  # the Rust crate whose binary it copies, or its build names
            used.append(Evidence("dockerfile", crate[1], crate[0]))
            return self._own_modules(crate[0]), crate[0]
        if dockerfile is None and self.go.is_main(folder):
            # a Go program whose Dockerfile is not known (a module's one `main`): it runs
            # the packages it imports, not the files of its folder alone
            return tuple(self.go.closure(folder)), folder
        if dockerfile is not None and self._runs_script_of_its_folder(argv, dockerfile, folder):
            return (), dockerfile.folder
        if (main := self._one_go_main_below(folder, dockerfile)) is not None:
            return tuple(self.go.closure(main)), folder  # the module's one program, its imports
        if chosen.kind == "dockerfile name" and dockerfile is not None:
            # its context holds more than the image: what it copies of the code, and the one
            # folder of code it copies, when it copies one, not the whole context
            copied = self._copied_folder(dockerfile, folder)
            return tuple(self._copied_code(dockerfile, folder)), copied or folder
        if dockerfile is not None and (module := self._module_built(dockerfile, folder)):
            return self._own_modules(module), module  # `mvn -pl orders`, then its jar
        if dockerfile is not None and (node := self._package_run(argv, dockerfile, folder)):
            return self._own_modules(node), node  # a Node package's, of a wide context
        if dockerfile is not None and (copied := self._copied_folder(dockerfile, folder, argv)):
            if _runs_base_program(argv, dockerfile) and _below(dockerfile.folder, folder):
                # `CMD ["postgres"]`: a program of its base image, set up by the files of
                # the Dockerfile's folder, not the code it copies in to prepare (a DB's)
                return self._own_modules(dockerfile.folder), dockerfile.folder
            return self._own_modules(copied), copied  # a wide context: what the Dockerfile copies
        inner = dockerfile.folder if dockerfile is not None else folder
        if (
            inner in self.by_folder
            and _below(inner, folder)
            and (not self._not_parents([folder]) or inner in self.builds.jvm_modules)
        ):
            # a context of several services, or a multi-module build's top whose module
            # holds the Dockerfile (`-f gateway/Dockerfile .`, `mvn -pl gateway`): its code
            folder = inner
        return self._own_modules(folder), folder

    def programs(self) -> dict[str, list[str]]:
        """The modules of each project, made when a Node entry first asks."""
        if self._programs is None:
            self._programs = defaultdict(list)
            for path, module in self.modules.items():
                self._programs[module.project].append(path)
        return self._programs

    def _through_package(
        self, entry: Entry | None, folder: str, dockerfile: Dockerfile | None = None
    ) -> Entry | None:
        """`npm start` as the command its package.json's script runs (npm's own default for
        start, `node server.js`, when it names none), and `node .` as the package's main,
        for the package.json of the folder it runs in: the build's, or the one of the
        context the Dockerfile's WORKDIR is (`COPY . /app`, `WORKDIR /app/web`), or the
        one `npm --prefix web` names (the paths of its scripts then from there)."""
        where, prefix = self._package_folder(entry, folder, dockerfile)
        for _ in range(3):  # a script may run another (`npm run serve`)
            if entry is None or not entry.node:
                return entry
            package = self.builds.packages.get(where)
            if entry.script in (".", "./") and package is not None:
                return replace(entry, script=posixpath.join(prefix, package.main))
            if entry.package_script is None:
                return entry
            scripts = package.scripts if package is not None else {}
            command = scripts.get(entry.package_script)
            if command is None and entry.package_script == "start":
                command = "node server.js"
            if command is None:
                return None
            try:
                entry = entry_of(shell_words(command))
            except ValueError:
                return None
            if entry is not None and entry.script is not None:
                entry = replace(entry, script=posixpath.join(prefix, entry.script))
        return None

    def _package_folder(
        self, entry: Entry | None, folder: str, dockerfile: Dockerfile | None
    ) -> tuple[str, str]:
        """The folder of the package.json whose script an npm command runs, and its path
        from the folder the container runs in (`web` of `npm --prefix web start`; empty
        when it is that folder)."""
        where = os.path.normpath(folder)
        if entry is None or not entry.node:
            return where, ""
        inside = dockerfile.from_context(dockerfile.workdir) if dockerfile is not None else None
        packaged = _package_copied(dockerfile) if dockerfile is not None else None
        if packaged is not None and (
            inside is None
            or os.path.normpath(os.path.join(folder, inside)) not in self.builds.packages
        ):
            # `COPY ./api/package.json ./api/package-lock.json ./`, files into the WORKDIR
            # (the last a source of it too): the folder whose package.json it copies there
            inside = packaged
        if inside is not None and "$" not in inside and not os.path.isabs(inside):
            moved = os.path.normpath(os.path.join(folder, inside))
            where = moved if moved in self.builds.packages and _within(moved, folder) else where
        prefix = entry.package_folder
        if prefix is not None:
            moved = os.path.normpath(os.path.join(where, prefix))
            if moved in self.builds.packages and _below(moved, where):
                return moved, prefix
        return where, ""

    def _package_run(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> str | None:
        """The one package below a wide context whose code a Node image runs: its command
        runs npm, yarn or node in the WORKDIR the package's package.json is copied to
        (`COPY ./api/package.json ./`), or in the package `npm --prefix ./api` names from
        the folder it runs in, and every other file its last stage copies is of
        that package, or a build's output (not in the tree) put below the WORKDIR, not in
        it (a web app's static files, `COPY --from=web /ui/build ./ui`). None otherwise."""
        entry = entry_of(argv)
        if entry is None or not entry.node:
            return None
        where, _ = self._package_folder(entry, folder, dockerfile)  # `--prefix web` too
        if where == folder or not _below(where, folder):
            return None
        for copy in dockerfile.copies:
            if not _within(_joined_folder(folder, copy.source), where):
                return None
        for copy in dockerfile.built_copies:
            source = _joined_folder(folder, copy.source)
            if _within(source, where):
                continue
            held = source in self.by_folder or source in self.modules
            if held or posixpath.normpath(copy.dest) == posixpath.normpath(dockerfile.workdir):
                return None
        return where

    def _go_main(
        self,
        argv: Sequence[object],
        dockerfile: Dockerfile,
        folder: str,
        built_by: Evidence | None = None,
    ) -> tuple[GoBuild, str] | None:
        """The `go build` of the binary the container runs (named by its path or, for
        `go install`, by its package's folder), or the Dockerfile's only one, with the
        scanned folder of its package; None when none is known or it holds no Go. Of a
        binary built on the host, the build that writes the very file the image copies
        from the context of the build `built_by` (`COPY ./api/api /usr/bin/acme-api`, `go
        build -o ./api/api ./api`) before one named as the binary."""
        if (run := self._go_run(argv, dockerfile, folder)) is not None:
            return run
        given = argv
        # with the `go build`s of the recipes its `make` commands run (folders of the tree)
        builds = (*dockerfile.go_builds, *self._make_builds(dockerfile, folder))
        script = shell_script_of(argv)  # `ENTRYPOINT build/trip`, `["sh", "-c", "/x $A"]`
        if script is not None:
            argv = script_words(script)[:1] or argv
        argv = past_prefixes([str(word) for word in argv])  # `envdir /env /bin/trip`
        ran = posixpath.basename(str(argv[0])) if argv else ""
        if ran.endswith(".sh") and len(argv) > 1 and ran not in map(_binary, builds):
            # an entry point script that runs its arguments (`exec "$@"`): the program next
            ran = posixpath.basename(str(argv[1]))
        taken = self._stage_file_run(argv, ran, builds, dockerfile, folder, built_by)
        ran = taken[0] if taken is not None else ran  # its name where a build made it
        copies = dockerfile.copies or dockerfile.stage_copies or dockerfile.copies_context
        if not builds and copies and ran:
            # an image that only ADDs a binary built on the host (a Tiltfile's
            # local_resource, a Makefile's `go build -o build/trip ./services/trip`, a
            # script's `go build -o bin/$1 service/$1/main.go`), its name a build
            # argument's too (`COPY ./${PROJECT}_api ./`)
            context = built_by.folder if built_by is not None else folder
            made = self._host_builds_copied(given, dockerfile, context)
            host = [_named(b, ran) for b in self.builds.go_builds]
            named: dict[str, GoBuild] = {}  # of a package's builds, the file's first
            for build in host:
                if build is not None and _binary(build) == ran:
                    named.setdefault(build.package, build)
            builds = made or tuple(named.values())
            prebuilt = None if builds else self._prebuilt_main(ran, dockerfile, context)
            if prebuilt is not None:  # none read writes it: Go's name for a program of the tree
                return prebuilt
        elif not builds and not ran:
            # no program named (a kustomize base's, its overlay setting the command): the
            # one binary built on the host that the image copies, and nothing else
            builds = self._host_binaries_copied(dockerfile, built_by.folder if built_by else folder)

        def package_of(build: GoBuild) -> str:
            return self._built_package(build, ran, folder, dockerfile)

        # every program below a pattern (`./cmd/...`), not one written to a file
        patterns = [b for b in builds if b.package.endswith("/...") and b.output is None]
        chosen = [b for b in builds if ran and _binary(b) == ran]
        chosen += [b for b in patterns if ran and package_of(b) in self.go.files]
        if not chosen and len({b.package for b in builds}) == 1 and not patterns:
            chosen = list(builds)  # (`if ...; then go build -trimpath ./x; else go build ./x`)
        by_package: dict[str, GoBuild] = {}  # two scripts that build the same package agree
        for build in chosen:
            by_package.setdefault(package_of(build), build)
        if len(by_package) > 1:
            return None
        if by_package:
            ((package, build),) = by_package.items()
            args = built_by.args if built_by is not None else ()
            why = taken[1] if taken is not None else _env_named_run(dockerfile, ran, args)
            if package in self.go.files and why is not None:
                text = f"{build.said.text} (builds {ran}, the binary the container runs:"
                build = replace(build, said=replace(build.said, text=f"{text} {why})"))
            if package in self.go.files:
                return build, package
        unread = [b for b in builds if package_of(b) not in self.go.files]
        return self._binary_main(ran, dockerfile, folder, bool(unread))

    def _stage_file_run(
        self,
        argv: Sequence[str],
        ran: str,
        builds: Sequence[GoBuild],
        dockerfile: Dockerfile,
        folder: str,
        built_by: Evidence | None,
    ) -> tuple[str, str] | None:
        """The name the binary the container runs (`ran`, a word of `argv`) has in the
        stage that built it, as the last stage copies it from there under another name,
        or one a build argument gives (`COPY --from=installer /go/bin/${COMMAND} /server`,
        with the build's COMMAND=kazoku: `kazoku`), when a `go build` of the image makes
        a binary of that name (`go install ./cmd/...` makes one per `main` package below,
        named for its folder); with words saying so. None otherwise."""
        program = next((w for w in argv[:2] if posixpath.basename(w) == ran), "")
        taken = stage_file_name(dockerfile, program, built_by.args if built_by else ())
        if taken is None or taken[0] == ran:
            return None
        name = taken[0]
        for build in builds:
            if _binary(build) == name or (
                build.package.endswith("/...")
                and build.output is None
                and self._built_package(build, name, folder, dockerfile) in self.go.files
            ):
                return taken
        return None

    def _built_package(self, build: GoBuild, ran: str, folder: str, dockerfile: Dockerfile) -> str:
        """The folder of the tree of the package a `go build` makes the binary `ran` of: a
        pattern's (`./cmd/...`) the one main below named as the binary (the pattern's own
        folder when so named: `go install ./...` in /src/api makes `api`), or, written to
        one file (`-o bin/x ./cmd/...`, as Go allows of a pattern of one `main`), its one
        main package; an import path's below its module's go.mod."""
        below, dots, _ = build.package.partition("/...")
        one = bool(dots and build.output)  # a pattern of one program, written to a file
        named = dots and not one and posixpath.basename(below) != ran
        module = self._import_folder(below)
        if module is not None:  # an import path (a host's build): its module's folder
            package = os.path.join(module, ran) if named else module
        else:
            package = self._context_package(
                build, os.path.join(below, ran if named else ""), folder, dockerfile
            )
        if one:
            mains = self.go.mains_below(package)
            return mains[0] if len(mains) == 1 else package + "/..."
        return package

    def _context_package(
        self, build: GoBuild, relative: str, folder: str, dockerfile: Dockerfile
    ) -> str:
        """A build's package path as a folder of the tree: the build context is the
        Dockerfile's folder or, as often, one above it (the repository's: `docker build
        -f services/geo/Dockerfile .`); a host's build runs from its file's folder or, as
        often, one above it (a script that first changes to the repository's root)."""
        base = folder
        if build not in dockerfile.go_builds:
            base = os.path.dirname(build.said.path) or "."
            relative = os.path.relpath(relative, base)
        while True:
            package = os.path.normpath(os.path.join(base, relative))
            parent = os.path.dirname(base) or "."
            if package in self.go.files or base in ("", ".") or parent == base:
                return package  # a named folder's climb ends at the root ("/")
            base = parent

    def _binary_main(
        self, ran: str, dockerfile: Dockerfile, folder: str, unread: bool
    ) -> tuple[GoBuild, str] | None:
        """The `main` package an image builds in a stage whose Go build is not read in full
        (`make build` whose recipe Make's functions hide, `go build $(WHAT)`: `unread`, or
        a `make` target no Makefile read makes), named as the binary the container runs:
        the one `package main` of what the stages copy from the build context `folder`
        that Go names so (`cmd/registration-operator`, for `/registration-operator`), as
        several binaries of one image are each run by name. None when each build read is
        of a known package (a binary none of them makes is not guessed), when the context
        holds one program at most, or not one package so named."""
        steps: list[GoBuild | MakeCall] = [*dockerfile.go_builds, *dockerfile.make_calls]
        if not ran or not _NAME.fullmatch(ran) or not steps:
            return None
        if not unread and not self._make_unread(dockerfile, folder):
            return None
        if len(self.go.mains_below(folder)) < 2:
            return None  # one program at most: the folder says as much
        copied = {
            _joined_folder(folder, copy.source)
            for copy in (*dockerfile.stage_copies, *dockerfile.copies)
            if "$" not in copy.source and not any(c in copy.source for c in "*?[")
        }
        mains = {
            main
            for source in copied
            if _within(source, folder)
            for main in self.go.mains_below(source)
            if go_binary_name(main) == ran and not _vendored(main)
        }
        chosen = self._packages_set(dockerfile, folder)
        if chosen:  # `GO_BUILD_PACKAGES=./cmd/x make build`: of the packages its line names
            mains &= chosen
        if len(mains) != 1:
            return None
        (main,) = mains
        said = steps[-1].said
        text = f"{said.text} (builds {ran}, the binary the container runs: {main} is the one "
        text += "main package of those it copies that Go names so)"
        return GoBuild(main, ran, replace(said, text=text)), main

    def _packages_set(self, dockerfile: Dockerfile, folder: str) -> set[str]:
        """The `main` packages of the context `folder` a `make` line's variables name
        (`GO_BUILD_PACKAGES=./cmd/ledger make build`, `make build WHAT=cmd/ledger`): a
        value that is a package's path from the folder make runs in, through its copies."""
        found: set[str] = set()
        for call in dockerfile.make_calls:
            try:
                words = shell_words(call.said.text.removeprefix("RUN "))
            except ValueError:
                continue
            for word in words[:MAX_LINE_WORDS]:
                name, equals, value = word.partition("=")
                if not equals or not name.isidentifier() or "$" in value:
                    continue
                for path in value.split()[:MAX_LINE_WORDS]:
                    in_image = posixpath.normpath(posixpath.join(call.folder, path))
                    for source in context_paths(in_image, call.copies, package=True)[:1]:
                        package = os.path.normpath(os.path.join(folder, source))
                        if self.go.is_main(package):
                            found.add(package)
        return found

    def _make_unread(self, dockerfile: Dockerfile, folder: str) -> bool:
        """Whether a `make` of the Dockerfile runs a target whose `go build`s no Makefile
        read shows: a Makefile not found, a target it does not hold (one an included file
        or a pattern rule makes), or one named by a build argument."""
        for call in dockerfile.make_calls:
            base, rules = self._makefile(call, folder)
            if base is None:
                return True
            for target in call.targets or tuple(rules)[:1]:
                if "$" in target or not rules.get(target):
                    return True
        return False

    def _host_builds_copied(
        self, argv: Sequence[object], dockerfile: Dockerfile, context: str
    ) -> tuple[GoBuild, ...]:
        """The host's `go build`s that write the file the image runs, as the Dockerfile
        copies it from the build `context` (`COPY ./api/api /usr/bin/acme-api` and a
        Makefile's `go build -o ./api/api ./api`, or `go build ./api` run in the folder
        above: Go names the binary after the package), one per package; none when the
        command's program is not a file copied from the context."""
        script = shell_script_of(argv)
        words = past_prefixes([str(w) for w in (script_words(script) if script else argv)])
        ran = words[0] if words else ""
        if not ran or "$" in ran:
            return ()
        in_image = posixpath.normpath(posixpath.join(dockerfile.workdir, ran))
        sources = {
            os.path.normpath(os.path.join(context, source))
            for source in dockerfile.sources_of(in_image)
            if "$" not in source and not any(c in source for c in "*?[")
        }
        found: dict[str, GoBuild] = {}
        for source in sorted(sources):
            for build in self._host_written().get(source, ()):
                found.setdefault(build.package, build)
        return tuple(found.values())

    def _host_binaries_copied(self, dockerfile: Dockerfile, context: str) -> tuple[GoBuild, ...]:
        """The host's `go build` of the one file the image's last stage copies from the
        build `context`, when that file is a binary such a build writes (`COPY
        bin/manager /`); none when it copies anything else from the context."""
        if len(dockerfile.copies) != 1 or dockerfile.stage_copies:
            return ()
        source = os.path.normpath(os.path.join(context, dockerfile.copies[0].source))
        return tuple(self._host_written().get(source, ())[:1])

    def _host_written(self) -> Mapping[str, list[GoBuild]]:
        """The files the host's `go build`s write (their `-o`, else the package's folder's
        name in the folder the build runs from), as paths of the tree, with their builds;
        not a template's (`-o bin/$1`) nor a pattern's (`./cmd/...`)."""
        if self._written is None:
            self._written = defaultdict(list)
            for build in self.builds.go_builds:
                if build.variable is not None or (
                    build.package.endswith("/...") and build.output is None
                ):
                    continue
                output = build.output or posixpath.basename(build.package)
                if "$" in output or os.path.isabs(output):
                    continue
                folder = os.path.dirname(build.said.path)
                self._written[os.path.normpath(os.path.join(folder, output))].append(build)
        return self._written

    @staticmethod
    def _argument_builds(dockerfile: Dockerfile, args: Sequence[tuple[str, str]]) -> Dockerfile:
        """The Dockerfile with its `go build`s of a package a build argument names (`go
        build ./${CMD_PATH}`) as the build's arguments `args` (over the ARGs' defaults)
        name it, among its others; one whose value is not known is left out."""
        filled = []
        for build in dockerfile.arg_go_builds:
            package = package_with_args(dockerfile, build.package, args)
            if package is None or not _literal_path(package):
                continue
            output = with_args(dockerfile, build.output, args) if build.output else None
            filled.append(replace(build, package=posixpath.normpath(package), output=output))
        if not filled:
            return dockerfile
        return replace(dockerfile, go_builds=(*dockerfile.go_builds, *filled))

    def _make_builds(self, dockerfile: Dockerfile, folder: str) -> tuple[GoBuild, ...]:
        """The `go build`s the `make` commands of the Dockerfile's RUN lines run, one level
        deep, their packages as folders of the tree: for each target, the recipe of the
        Makefile they run (found in the build context `folder`, or one above it, through
        the stage's copies), else, for a target that is a path (`make cmd/api/api`, a
        pattern rule's), the program whose folder or file it is. Build arguments left in
        a target are not known here: that target builds nothing read."""
        found: list[GoBuild] = []
        for call in dockerfile.make_calls:
            base, rules = self._makefile(call, folder)
            targets = call.targets or tuple(rules)[:1]  # none: the Makefile's first
            for target in targets:
                if "$" in target:
                    continue
                if rules.get(target):
                    found += self._recipe_builds(call, base, rules[target], target)
                elif "/" in target and (path := self._program_path(call, base, folder, target)):
                    said = replace(call.said, text=f"{call.said.text} (make {target})")
                    found.append(GoBuild(path, target, said))
        return tuple(found)

    def _makefile(
        self, call: MakeCall, folder: str
    ) -> tuple[str | None, Mapping[str, tuple[GoBuild, ...]]]:
        """The folder of the tree the build context is, as the Makefile a `make` runs is
        found from `folder` or one above it, with that Makefile's rules; (None, {}) when
        the tree holds none the stage copied there."""
        names = [call.makefile] if call.makefile else ["GNUmakefile", "makefile", "Makefile"]
        for name in names:
            if "$" in call.folder or "$" in name:
                break
            in_image = posixpath.normpath(posixpath.join(call.folder, name))
            for source in context_paths(in_image, call.copies)[:1]:
                for base in _climbed(folder):
                    rules = self.builds.make_rules.get(os.path.normpath(os.path.join(base, source)))
                    if rules is not None:
                        return base, rules
        return None, {}

    def _recipe_builds(
        self, call: MakeCall, base: str | None, builds: tuple[GoBuild, ...], target: str
    ) -> list[GoBuild]:
        """A target's recipe's builds, their packages (relative to the folder make runs
        in) as folders of the tree, through the stage's copies from the context `base`."""
        found = []
        run_by = f"{call.said.path}:{call.said.line}"
        for build in builds:
            text = f"{build.said.text} (make {target}, run by {run_by})"
            below, dots, _ = build.package.partition("/...")
            module = self._import_folder(below)
            if module is not None:  # `go build antrea.io/antrea/v2/cmd/agent`: the module's
                found.append(GoBuild(module + dots, build.output, replace(build.said, text=text)))
                continue
            in_image = posixpath.normpath(posixpath.join(call.folder, below))
            for source in context_paths(in_image, call.copies, package=True):
                package = os.path.normpath(os.path.join(base or ".", source)) + dots
                found.append(GoBuild(package, build.output, replace(build.said, text=text)))
        return found

    def _import_folder(self, package: str) -> str | None:
        """The folder of the tree a `go build` names by its import path (its first element
        a domain: `example.com/shop/cmd/api`), below the module a go.mod of the tree
        declares (Go's module mode); None for a path (`./cmd/api`) or another module's."""
        if "$" in package or not is_import_path(package):
            return None
        return self.go.module_folder(package)

    def _program_path(
        self, call: MakeCall, base: str | None, folder: str, target: str
    ) -> str | None:
        """The folder of the Go `main` package a make target names as a path (its folder,
        or a file of it: the binary a pattern rule writes there), in the tree through the
        stage's copies from the context `base` (or `folder`, or one above it)."""
        in_image = posixpath.normpath(posixpath.join(call.folder, target))
        for source in context_paths(in_image, call.copies)[:1]:
            for at in [base] if base is not None else _climbed(folder):
                path = os.path.normpath(os.path.join(at, source))
                for package in (path, os.path.dirname(path) or "."):
                    if self.go.is_main(package):
                        return package
        return None

    def _crate_run(self, argv: Sequence[object], dockerfile: Dockerfile) -> tuple[str, Said] | None:
        """The Rust crate whose binary an image copies and runs (`COPY dist/linux/orders
        /app/orders`, `CMD ["./orders"]`): the one crate of the tree named as the binary
        (cargo names a package's binary as the package), with its Cargo.toml's line; None
        when none or several are."""
        if not self.builds.crates or not argv:
            return None
        script = shell_script_of(argv)
        words = script_words(script) if script else []
        ran = posixpath.basename(words[0] if words else str(argv[0]))
        copied = {
            posixpath.basename(copy.source.rstrip("/"))
            for copy in (*dockerfile.copies, *dockerfile.stage_copies)
        }
        if not ran or ran not in copied:
            return None
        named = [
            (folder, said)
            for folder, said in self.builds.crates.items()
            if said.text.partition('"')[2].rpartition('"')[0] == ran
        ]
        if len(named) != 1:
            return None
        folder, said = named[0]
        return folder, replace(said, text=f"{said.text} (the crate of the binary {ran} it runs)")

    def _crate_of(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> tuple[str, Said] | None:
        """The Rust crate the image runs, within the build's folder: the one of the binary
        it copies from the context (_crate_run), else the one its `cargo` build names."""
        crate = self._crate_run(argv, dockerfile)
        if crate is not None and _within(crate[0], folder):
            return crate
        return self._cargo_built(argv, dockerfile, folder)

    def _cargo_built(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> tuple[str, Said] | None:
        """The crate of a Cargo workspace in the build context `folder` that the image's
        `cargo build -p NAME` / `--bin NAME` / `cargo install --path DIR` builds: the folder
        DIR, else the crate whose Cargo.toml's `[package]` is NAME (the name cargo gives
        its binary, too), with the build's line. Of several crates built, or beside a
        build of crates not known (`cargo build --workspace`), the one whose binary the
        container runs. None when none names one crate of the tree."""
        found: dict[str, tuple[Said, str]] = {}  # each crate: the build, the binary made
        unknown = False
        for build in dockerfile.cargo_builds:
            name = build.package or build.binary
            if build.folder:
                crate = os.path.normpath(os.path.join(folder, build.folder))
                named = [crate] if crate in self.builds.crates else []
            else:
                named = [
                    crate
                    for crate, said in self.builds.crates.items()
                    if name and _crate_name(said) == name and _within(crate, folder)
                ]
            if len(named) != 1:
                unknown = True
                continue
            binary = build.binary or _crate_name(self.builds.crates[named[0]])
            found.setdefault(named[0], (build.said, binary))
        if len(found) > 1 or unknown:  # an image of several programs: the one it runs
            script = shell_script_of(argv)
            words = past_prefixes([str(w) for w in (script_words(script) if script else argv)])
            ran = posixpath.basename(words[0]) if words else ""
            found = {crate: made for crate, made in found.items() if made[1] == ran}
        if len(found) != 1:
            return None
        crate, (said, _) = found.popitem()
        return crate, said

    def _go_run(
        self, argv: Sequence[object], dockerfile: Dockerfile, folder: str
    ) -> tuple[GoBuild, str] | None:
        """`go run main.go` (or a package's folder): the scanned package it compiles and
        runs, found in the build context through the Dockerfile's WORKDIR and COPY lines
        (of a wide context, the one folder of those it copies that holds the program)."""
        words = [str(word) for word in argv]
        if len(words) < 3 or posixpath.basename(words[0]) != "go" or words[1] != "run":
            return None
        named = next((w for w in words[2:] if not w.startswith("-")), None)
        if named is None:
            return None
        in_image = posixpath.normpath(posixpath.join(dockerfile.workdir, named))
        for source in dockerfile.sources_of(in_image):
            path = os.path.normpath(os.path.join(folder, source))
            package = os.path.dirname(path) if path.endswith(".go") else path
            if package in self.go.files:
                said = dockerfile.cmd_said or dockerfile.entrypoint_said
                return GoBuild(source, None, said or Said(dockerfile.path, 0, "")), package
        return None

    @staticmethod
    def _command_said(workload: K8sObject, container: Container) -> Said:
        key = "command" if "command" in container.body else "args"
        line = pos_of(container.body, key)[0]
        return Said(workload.path, line, f"{key}: {' '.join(container.words)}")


_NAME = regex.compile(r"[\w.-]+")  # a binary's name a script's variable may hold
MAX_LINE_WORDS = 256  # the words of a RUN line read for the packages its variables name
MAX_INLINE_CODE = 65_536  # the longest inline program (`python -c CODE`) parsed for its imports


def _crate_name(said: Said) -> str:
    """The name a Cargo.toml's `name = "x"` line gives its crate."""
    value = said.text.partition("=")[2].strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'" else ""


def _program_word(dockerfile: Dockerfile) -> str | None:
    """The program a Dockerfile's image runs (its ENTRYPOINT's or CMD's first word past
    the launchers that exec it, through a shell's `-c` script), None when it runs none or
    a variable names it."""
    argv = container_argv(None, None, dockerfile.entrypoint, dockerfile.cmd)
    script = shell_script_of(argv)
    words = past_prefixes([str(w) for w in (script_words(script) if script else argv)])
    ran = words[0] if words else ""
    return ran if ran and "$" not in ran else None


def _env_named_run(dockerfile: Dockerfile, ran: str, args: Sequence[tuple[str, str]]) -> str | None:
    """Words saying the image's shell finds the binary `ran` by a variable its ENV sets
    (`ENTRYPOINT /app/$SERVICE`, `ENV SERVICE=${SERVICE}`, the build's SERVICE=orders:
    _env_expanded); None when its command names it outright."""
    runs = dockerfile.runs
    script = shell_script_of(container_argv(None, None, runs.entrypoint, runs.cmd))
    words = past_prefixes(script_words(script)) if script is not None else []
    filled = env_filled(dockerfile, words[0], args) if words else None
    said = runs.entrypoint_said if runs.entrypoint is not None else runs.cmd_said
    if filled is None or said is None or posixpath.basename(filled[0]) != ran:
        return None
    return f"{said.path}:{said.line} `{said.text}` runs {filled[0]} ({filled[1]}, its ENV's)"


def _variable_run(dockerfile: Dockerfile, args: Sequence[tuple[str, str]]) -> str | None:
    """Words saying the image names its program by a variable nothing sets when it starts:
    in the exec form (`CMD ["/go/bin/${COMMAND}"]`, run as written: no shell expands it,
    Docker's reference says), or in a shell's script where the image's ENV does not set it
    to a value known (env_filled: a build argument is no variable of the running
    container); None when it names its program outright, or so known."""
    runs = dockerfile.runs
    argv = container_argv(None, None, runs.entrypoint, runs.cmd)
    said = runs.entrypoint_said if runs.entrypoint is not None else runs.cmd_said
    script = shell_script_of(argv)
    words = (
        past_prefixes(script_words(script)) if script is not None else [str(w) for w in argv[:1]]
    )
    if said is None or not words or "$" not in words[0]:
        return None
    where = f"{said.path}:{said.line} `{said.text}`"
    if script is None:
        return f"{where} is the exec form, which no shell expands: it runs {words[0]} as written"
    if env_filled(dockerfile, words[0], args) is not None:
        return None
    return f"{where} names its program by a variable the image's ENV does not set to a known value"


def _package_copied(dockerfile: Dockerfile) -> str | None:
    """The folder of the context whose package.json the last stage copies into its
    WORKDIR (`COPY ./api/package.json ./api/package-lock.json ./`), when one is."""
    workdir = posixpath.normpath(dockerfile.workdir)
    folders = {
        posixpath.dirname(copy.source) or "."
        for copy in dockerfile.copies
        if posixpath.basename(copy.source) in ("package.json", "package*.json")
        and posixpath.normpath(copy.dest) in (workdir, posixpath.join(workdir, "package.json"))
    }
    return folders.pop() if len(folders) == 1 else None


def _package_module(entry: Entry) -> bool:
    """Whether a Python entry is a module of a package (`python -m pkg.server`): a dotted
    path that names one file of the tree, where a bare `-m app` may be any service's."""
    return entry.script is None and not entry.node and "." in (entry.module or "")


def _built_from(dockerfile: Dockerfile | None, image: str) -> bool:
    """Whether a Dockerfile is built FROM the image itself (`FROM fluent/fluentd:v1` named
    `Dockerfile.fluentd`, run as `fluent/fluentd:v1`): a container running that image runs
    the Dockerfile's base, never what it builds on it."""
    base = dockerfile.base if dockerfile is not None else None
    return base is not None and same_image(base, image)


def _named(build: GoBuild, ran: str) -> GoBuild | None:
    """A host's build as it makes the binary `ran`: a template's (`-o bin/$1 service/$1`)
    with its variable set to that name; None when the variable's value would be no name."""
    if build.variable is None:
        return build
    if not _NAME.fullmatch(ran):
        return None
    use = regex.compile(r"\$(?:\{%s\}|%s\b)" % ((regex.escape(build.variable),) * 2))
    output = use.sub(lambda _: ran, build.output or "")
    return GoBuild(use.sub(lambda _: ran, build.package), output or None, build.said)


def _built_output(source: str) -> bool:
    """Whether a COPY's source is a build's output: in an output folder (`dist/`, `build/`,
    `out/`, Maven's `target/`) or a JVM archive (`app.jar`, `*.war`) a build made."""
    parts = posixpath.normpath(source).split("/")
    return any(part in OUTPUT_FOLDERS or part == "target" for part in parts) or parts[-1].endswith(
        (".jar", ".war")
    )


def _climbed(folder: str) -> Iterator[str]:
    """A folder and each one above it, to the top (`.`, or the root of an absolute one)."""
    while True:
        yield folder
        parent = os.path.dirname(folder) or "."
        if folder in ("", ".") or parent == folder:
            return
        folder = parent


def _literal_path(path: str) -> bool:
    """Whether a path a build argument filled in is a folder of the context: literal, and
    not leaving it (`../x`, `/abs`)."""
    normal = posixpath.normpath(path)
    return "$" not in path and not normal.startswith(("../", "/")) and normal != ".."


def _runs_base_program(argv: Sequence[object], dockerfile: Dockerfile) -> bool:
    """Whether the image runs a program of its base image by its name alone, with no
    argument (`CMD ["postgres"]`): no path, no shell, no runtime of code (`gunicorn` with
    its settings file), nothing a COPY puts in the image under that name."""
    if len(argv) != 1 or shell_script_of(argv) is not None:
        return False
    name = str(argv[0])
    if not name or "/" in name or "$" in name or runs_code(name):
        return False
    copied = (*dockerfile.copies, *dockerfile.stage_copies)
    return not any(
        name in (posixpath.basename(c.dest), posixpath.basename(c.source)) for c in copied
    )


def _binary(build: GoBuild) -> str:
    """The name of the binary a `go build` writes: its `-o`'s, else the one Go gives its
    package (`example.com/tool/v2`: `tool`)."""
    return posixpath.basename(build.output) if build.output else go_binary_name(build.package)


# The call that registers a gRPC service on a server, with the service's name: grpc-go's
# generated `Register<Name>Server`, grpcio's `add_<Name>Servicer_to_server`
_REGISTERS_API = regex.compile(r"Register(?P<go>\w+)Server|add_(?P<python>\w+)Servicer_to_server")


def _camel_words(name: str) -> tuple[str, ...]:
    """`PaymentsService` -> ("payments", "service"); `order_api` -> ("order", "api")."""
    spaced = "".join(
        f" {c}" if c.isupper() and at and (name[at - 1].islower() or name[at - 1].isdigit()) else c
        for at, c in enumerate(name)
    )
    return _words(spaced.replace(" ", "_"))


# A chart's image repository set at deploy time: `--set image.repository=$REPO`,
# `--set-string backend.image=acme/api` (the key's prefix names the container)
_IMAGE_SET = regex.compile(
    r"--set(?:-string)?[= ]+[\"']?(?:(?P<key>[\w.-]+)\.)?image(?:\.repository|\.name)?="
    r"[\"']?(?P<value>[^\s\"',]+)"
)


def _literal_past_registry(value: str) -> str | None:
    """`$REGISTRY/cart` -> `cart`, `acme/cart` as it is: an image whose last segment is
    literal; None for `$repository`."""
    if "$" not in value and "{" not in value:
        return value
    last = value.rsplit("/", 1)[-1]
    return last if "/" in value and "$" not in last and "{" not in last else None


def _begins_image(image: str, given: str) -> bool:
    """Whether the chart's own image is `given`'s repository, or begins with it as whole
    segments (`acme` of `acme/cart`, a registry or owner the chart joins to the name)."""
    repository, named = image_repository(image), image_repository(given)
    return bool(named) and (repository == named or repository.startswith(named + "/"))


def _names_folder(script: ShellScript, path: str, folder: str) -> bool:
    """Whether a script's text names the folder as a path, from the script's folder or the
    top (`$DIR/chart`, `./deploy/chart`, `deploy/chart/`)."""
    text = script.text or ""
    here = os.path.dirname(path) or "."
    for named in {os.path.relpath(folder, here), os.path.normpath(folder)}:
        posix = named.replace(os.sep, "/")
        if posix.startswith("..") or posix == ".":
            continue
        escaped = regex.escape(posix)
        # one name alone is a word of any text (`chart`): a `/` beside it says it is a path
        patterns = [f"/{escaped}{_PATH_END}", f"{_PATH_START}(?:\\./)?{escaped}/"]
        if "/" in posix:
            patterns.append(f"{_PATH_START}(?:\\./)?{escaped}{_PATH_END}")
        if any(regex.compile(p, regex.MULTILINE).search(text) for p in patterns):
            return True
    return False


_PATH_START = r"(?:^|[\s\"'=])"  # what may come before a path in a script
_PATH_END = r"(?:/|[\s\"';)]|$)"  # and after it


def _listed(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def may_call_into(importer: CodeFacts, module: CodeFacts) -> bool:
    """Whether a module may call into another: the same folder (a Go package, a Python
    package's siblings), or an import whose last name is the other's folder or file
    (`.../hotel/registry`, `from app import registry`)."""
    folder = os.path.dirname(module.path)
    if os.path.dirname(importer.path) == folder:
        return True
    names = {os.path.basename(folder), os.path.splitext(os.path.basename(module.path))[0]}
    return any(name.replace(".", "/").rsplit("/", 1)[-1] in names for _, name in importer.imports)


# Maven's and Gradle's source sets: `src/main/java/...`, `src/test/kotlin/...`
_SOURCE_SETS = frozenset({"main", "test"})


def _in_source_set(folder: str) -> bool:
    """Whether a folder is inside a module's source set (`src/main/java/acme/redis`)."""
    parts = folder.split(os.sep)
    return any(
        part == "src" and parts[at + 1] in _SOURCE_SETS for at, part in enumerate(parts[:-2])
    )


def _compiled_from(script: str) -> list[str]:
    """The context's paths a Node script of a build's output may be compiled from: the
    output folder's own place kept (`web/dist/main.js`: `web/src/main.ts`, as a package's
    `tsc` writes it; `dist/apps/auth/main.js`: `apps/auth/main.ts`)."""
    parts = posixpath.normpath(script).split("/")
    at = next((i for i, part in enumerate(parts) if part in OUTPUT_FOLDERS), 0)
    return [posixpath.join(*parts[:at], tail) for tail in compiled_sources(script)]


def _below(inner: str, outer: str) -> bool:
    """Whether the folder `inner` is inside `outer` (both as normpath names them)."""
    if outer == ".":
        return not inner.startswith("..") and not os.path.isabs(inner)
    return inner.startswith(outer + os.sep)


def _within(inner: str, outer: str) -> bool:
    """Whether the folder `inner` is `outer` or inside it."""
    return inner == outer or _below(inner, outer)


def _nearest(folders: list[str], path: str) -> list[str]:
    """The folders that share the most leading folders with `path`: in a monorepo each
    service keeps its code and manifests together."""
    if len(folders) < 2:
        return folders
    best = max(_shared(folder, path) for folder in folders)
    return [folder for folder in folders if _shared(folder, path) == best]


def _closest(folders: list[str], path: str) -> str | None:
    """The one folder the fewest steps up and down the tree from the file `path`'s folder
    (`apps/cart` from `deploy/x.yaml`, not `workshop/apps/cart`); None when two tie."""
    here = os.path.dirname(os.path.abspath(path))
    steps = {
        folder: len(os.path.relpath(os.path.abspath(folder), here).split(os.sep))
        for folder in folders
    }
    fewest = min(steps.values())
    closest = [folder for folder in folders if steps[folder] == fewest]
    return closest[0] if len(closest) == 1 else None


def _most_words(folders: list[str], words: Iterable[str]) -> list[str]:
    """Of the folders, those whose path's folder names hold the most of the words (all of
    them when none holds any)."""
    wanted = set(words)
    if len(folders) < 2 or not wanted:
        return folders
    held = {
        folder: len(wanted & {word for part in folder.split(os.sep) for word in _words(part)})
        for folder in folders
    }
    best = max(held.values())
    return [folder for folder in folders if held[folder] == best] if best else folders


def _shared(folder: str, path: str) -> int:
    """How many leading folders `folder` and `path` have in common."""
    common = os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)])
    return len(common.split(os.sep))


# folders of third parties' code copied in: their builds publish the third party's images
_VENDORED = frozenset({"vendor", "node_modules"})
_FIXTURES = "testdata"  # a folder the Go tool skips: a test's files, of any language


def _fixture(path: str, folder: str) -> bool:
    """Whether a file below `folder` is in a `testdata` folder under it."""
    below = os.path.relpath(os.path.dirname(path), folder)
    return _FIXTURES in below.split(os.sep)


def _vendored(path: str) -> bool:
    """Whether a file is in a folder of third parties' code (`src/app/vendor/x/Makefile`)."""
    return not _VENDORED.isdisjoint(path.replace(os.sep, "/").split("/")[:-1])


def _joined_folder(context: str, source: str) -> str:
    """A COPY source as a folder of the tree, seen from the build context."""
    return os.path.normpath(os.path.join(context, source.rstrip("/")))


def _folders_copied_to(
    in_image: str, landing: dict[str, set[tuple[str, str, str]]], context: str
) -> set[str]:
    """The folders whose copies may have put a file at `in_image`: those copied to it or
    to a folder above it (`landing`: each copy by its destination, trailing slash
    dropped, as the folder, source and destination copied)."""
    found: set[str] = set()
    place, above = in_image, ""
    while place != above:  # up to the root (`//` is its own parent too)
        for folder, source, dest in landing.get(place.rstrip("/"), ()):
            if folder not in found and any(
                _within(_joined_folder(context, copied), folder)
                for copied in _copied_from(source, dest, in_image)
            ):
                found.add(folder)
        place, above = posixpath.dirname(place), place
    return found


def _copied_from(source: str, dest: str, in_image: str) -> Iterable[str]:
    """The context paths a COPY of `source` to `dest` may have put at `in_image`: the
    source is a folder (its content lands in dest) or a file (it lands at dest, or in it)."""
    if in_image == dest:
        yield source
    if in_image.startswith(dest.rstrip("/") + "/"):
        rest = in_image[len(dest.rstrip("/")) + 1 :]
        yield posixpath.join(source, rest)
        if rest == posixpath.basename(source):
            yield source


def link_rows(
    workloads: Iterable[K8sObject],
    index: Index,
    links: CodeLinks,
    judged: Iterable[CodeFacts] = (),
) -> list[LinkRow]:
    """Every long-running container of the workloads, linked or not; one with no link
    names the judged modules that read its `env` all the same (CodeLinks.env_readers).
    A workload whose links `restore` took as made (and of no repeated container name) is
    read from them, with no body read for its pod template."""
    rows: list[LinkRow] = []
    readers: dict[str, list[str]] | None = None  # found once a container has no link
    for workload in workloads:
        kept = links.kept_as_made(workload)
        if kept is not None and len({c[0] for c in kept}) == len(kept):
            for name, remembered, why, _, _, _ in kept:
                key = container_key(workload, name)
                if remembered is not None:
                    rows.append(_row(key, *remembered[:5]))
                    continue
                readers = links.env_readers(judged) if readers is None else readers
                env_read_by = tuple(readers.get(key, ()))
                rows.append(LinkRow(key, None, 0, env_read_by=env_read_by, why_not=why))
            continue
        for container in index.template(workload).containers:
            if not container.long_running:
                continue
            link = links.of(workload, container.name)
            key = container_key(workload, container.name)
            if link is None:
                readers = links.env_readers(judged) if readers is None else readers
                rows.append(
                    LinkRow(
                        key,
                        None,
                        0,
                        env_read_by=tuple(readers.get(key, ())),
                        why_not=links.why_not(workload, container.name),
                    )
                )
                continue
            rows.append(
                _row(key, link.folder, link.entry, link.modules, link.evidence, link.overruled)
            )
    return rows


def _row(
    key: str,
    folder: str,
    entry: str | None,
    modules: tuple[str, ...],
    evidence: tuple[Evidence, ...],
    overruled: tuple[Evidence, ...],
) -> LinkRow:
    return LinkRow(
        key,
        entry or folder,
        len(modules),
        tuple(e.describe() for e in evidence),
        tuple(e.describe() for e in overruled),
    )


def unmatched_pins(
    pins: Mapping[str, Pin], index: Index, modules: Sequence[CodeFacts]
) -> list[str]:
    """A sentence for each pin of the configuration's `links` that names no container the
    run read, although the code it pins was read (so it was meant for this run: a
    misspelt key, a renamed workload), with the closest container key when one is close."""
    if not pins:
        return []
    containers = sorted(
        container_key(workload, container.name)
        for workload, template in index.workloads
        for container in template.containers
    )
    read = [os.path.abspath(m.path) for m in modules]
    warnings = []
    for key, pin in sorted(pins.items()):
        target = os.path.abspath(pin.target)
        code_read = any(p == target or p.startswith(target.rstrip(os.sep) + os.sep) for p in read)
        if key in containers or not code_read:
            continue
        import difflib  # only for a pin to nothing

        close = difflib.get_close_matches(key, containers, n=1)
        suggestion = f" (did you mean {close[0]}?)" if close else ""
        warnings.append(
            f"{pin.said.path}:{pin.said.line}: `links`: {key} is no container k8slb read"
            f"{suggestion}; the pin is not applied"
        )
    return warnings
