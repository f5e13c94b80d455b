"""The container images a Bazel BUILD file makes: rules_docker's language image rules
(`go_image`, `java_image`, `cc_image`, ...) and `container_image`, rules_oci's `oci_image`,
and the names they are loaded or pushed under (`docker_push`, `container_push`,
`oci_push`'s `repository`, `oci_load`'s `repo_tags`). Read with one linear scan of the
calls at a line's start and their literal arguments (no Starlark is evaluated): what
k8slb links a container running such an image to is the package whose code the image's
binary is built from."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping

from k8slb.core import regex
from k8slb.core.record import record

BAZEL_BUILD_FILES = frozenset({"BUILD", "BUILD.bazel"})
MAX_BUILD = 1 << 20  # a BUILD file past this is not read (a generated one)
MAX_LAYER_LOOKUPS = 100_000  # past these, an image's layers are not looked into

# rules_docker's rules that make an image of a binary, and the plain image rules
_IMAGE_RULES = frozenset(
    {
        "go_image",
        "java_image",
        "cc_image",
        "py_image",
        "py3_image",
        "nodejs_image",
        "scala_image",
        "groovy_image",
        "rust_image",
        "d_image",
        "war_image",
        "container_image",
        "oci_image",
    }
)
_PUSH_RULES = frozenset({"docker_push", "container_push", "oci_push"})  # `repository`
_LOAD_RULES = frozenset({"oci_load", "oci_tarball"})  # `repo_tags`
# rules_k8s: a manifest's image names (`images = {"gcr.io/acme/web:dev": "//web:image"}`)
_K8S_RULES = frozenset({"k8s_object", "k8s_deploy"})
# the attributes that name the image's code, the strongest first
_CODE_ATTRIBUTES = ("binary", "embed", "runtime_deps", "deps", "srcs", "tars", "files")
# rules_pkg's layer of files an image's `tars` name (`srcs`: a binary, a `_deploy.jar`)
_LAYER_RULES = frozenset({"pkg_tar"})
# an image target made per platform (rules_oci's multi-arch images: `web_linux_amd64`,
# gathered by an `oci_image_index`): the image's name is the target's less the platform
_PLATFORM = regex.compile(
    r"[_-]linux[_-](?:amd64|arm64|aarch64|x86_64|arm|386|ppc64le|s390x|riscv64)\z"
)

# one pass over a BUILD file: a rule called at a line's start (`go_image(`), as BUILD files
# write them, and what changes the depth of the calls: strings (on one line), comments and
# brackets; anything else is skipped over
_TOKEN = regex.compile(
    r"^[ \t]*(\w+)[ \t]*\(|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|#[^\n]*|[()\[\]{}]",
    regex.MULTILINE,
)
# a call's literal arguments, by name
Attributes = dict[str, str | list[str] | dict[str, str]]
# `name = "x"` or `deps = ["//a:b", ":c"]`: a list up to its `]` (or the next `=`, which
# keeps a list that never closes from being read again from each attribute after it)
_ATTRIBUTE = regex.compile(r"\b(\w+)\s*=\s*(?:\"([^\"\n]*)\"|\[([^\]=]*)\])")
# `images = {"a": "//b:c", ...}`: a dict of strings up to its `}` (or the next `=`)
_DICT = regex.compile(r"\b(\w+)\s*=\s*\{([^}=]*)\}")
_STRING = regex.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")


@record
class BazelImage:
    """An image a BUILD file makes: its repository and tag as docker knows it
    (`bazel/web:image`; a push's repository with no tag known), the folder of the code it
    runs, and the call's line and what it says."""

    repository: str
    tag: str | None
    folder: str
    line: int
    text: str
    by_name: bool = False  # named as the target alone (`image: web-image`), no more


def bazel_images(path: str, text: str) -> list[BazelImage]:
    """The images a BUILD file makes (see the module's text); none of a file past
    MAX_BUILD."""
    if len(text) > MAX_BUILD or "(" not in text:
        return []
    package = os.path.dirname(os.path.normpath(path)) or "."
    calls = list(_calls(text))
    found: list[BazelImage] = []
    folders: dict[str, str] = {}  # an image target's name -> the folder of its code
    spent = [0]  # the lookups of layers' files made (_layer_code)
    layers = {  # a layer's name -> the labels of the files it holds, by their file names
        name: _held(srcs)
        for rule, _, attributes in calls
        if rule in _LAYER_RULES
        and isinstance(name := attributes.get("name"), str)
        and isinstance(srcs := attributes.get("srcs"), list)
    }
    for rule, line, attributes in calls:
        name = attributes.get("name")
        if rule not in _IMAGE_RULES or not isinstance(name, str):
            continue
        folder, named = _layer_code(package, attributes, layers, spent) or _code_folder(
            package, attributes
        )
        folders[name] = folder
        # rules_docker loads `//web:image` as bazel/web:image (the top's as bazel:image)
        repository = "bazel" if package == "." else posixpath.join("bazel", *package.split(os.sep))
        said = f'{rule}(name = "{name}"{named})'
        found.append(BazelImage(repository, name, folder, line, said))
        found.append(BazelImage(name, None, folder, line, said, by_name=True))
        if (platform := _PLATFORM.search(name)) is not None and platform.start() > 0:
            found.append(BazelImage(name[: platform.start()], None, folder, line, said, True))
    for rule, line, attributes in calls:
        if rule in _PUSH_RULES | _LOAD_RULES:
            found += _named(rule, line, attributes, package, folders)
        elif rule in _K8S_RULES and isinstance(images := attributes.get("images"), dict):
            for image, label in images.items():
                target = folders.get(label[1:]) if label.startswith(":") else None
                code = target or _label_folder(package, label)
                if code is not None and "$" not in image and "{" not in image:
                    said = f'{rule}(images = {{"{image}": "{label}"}})'
                    found.append(BazelImage(_untagged(image), None, code, line, said))
    return found


def _untagged(image: str) -> str:
    """`gcr.io/acme/web:dev` -> `gcr.io/acme/web` (a registry's port kept)."""
    last = image.rpartition("/")[2]
    return image.rpartition(":")[0] if ":" in last else image


def _named(
    rule: str,
    line: int,
    attributes: Attributes,
    package: str,
    folders: Mapping[str, str],
) -> list[BazelImage]:
    """The names a push (its `repository`) or a load (its `repo_tags`) gives an image
    target (`:image`, of the file's `folders`; another package's by its label)."""
    label = attributes.get("image")
    if not isinstance(label, str):
        return []
    target = folders.get(label[1:]) if label.startswith(":") else None
    folder = target or _label_folder(package, label)
    if folder is None:
        return []
    if rule in _PUSH_RULES:
        repository = attributes.get("repository")
        if not isinstance(repository, str) or not repository or "$" in repository:
            return []
        said = f'{rule}(image = "{label}", repository = "{repository}")'
        return [BazelImage(repository, None, folder, line, said)]
    found: list[BazelImage] = []
    tags = attributes.get("repo_tags")
    for tag in tags if isinstance(tags, list) else []:
        if "$" in tag or "{" in tag:
            continue
        named, _, known = tag.rpartition(":") if ":" in tag.rpartition("/")[2] else (tag, "", "")
        if named:
            said = f'{rule}(image = "{label}", repo_tags = ["{tag}"])'
            found.append(BazelImage(named, known or None, folder, line, said))
    return found


def _calls(text: str) -> list[tuple[str, int, Attributes]]:
    """Each call at a line's start, outside any other, of a rule k8slb reads: its rule,
    line and literal arguments. One pass over the text's tokens."""
    found: list[tuple[str, int, Attributes]] = []
    rules = _IMAGE_RULES | _PUSH_RULES | _LOAD_RULES | _K8S_RULES | _LAYER_RULES
    depth, rule, start, line, counted = 0, "", 0, 1, 0
    for token in _TOKEN.finditer(text):
        head = token.group(1)
        if depth == 0:
            if head is None:
                continue  # a string or a bracket between calls
            depth, rule, start = 1, head, token.end()
            line += text.count("\n", counted, token.start())
            counted = token.start()
            continue
        kind = token.group(0)[-1] if head is not None else token.group(0)[0]
        if kind in "([{":
            depth += 1
        elif kind in ")]}":
            depth -= 1
            if depth == 0 and rule in rules:
                found.append((rule, line, _attributes(text[start : token.start()])))
    return found


def _attributes(arguments: str) -> Attributes:
    """A call's literal arguments, the first of each name: a string, the strings of a
    list, or a dict of strings."""
    attributes: Attributes = {}
    for match in _DICT.finditer(arguments):
        strings = [a or b for a, b in _STRING.findall(match.group(2))]
        attributes.setdefault(match.group(1), dict(zip(strings[::2], strings[1::2], strict=False)))
    for match in _ATTRIBUTE.finditer(arguments):
        key, single, listed = match.group(1), match.group(2), match.group(3)
        if key in attributes:
            continue
        if single is not None:
            attributes[key] = single
        else:
            attributes[key] = [a or b for a, b in _STRING.findall(listed or "")]
    return attributes


def _layer_code(
    package: str, attributes: Attributes, layers: Mapping[str, Mapping[str, str]], spent: list[int]
) -> tuple[str, str] | None:
    """The folder of the code an image runs from one of its layers (`tars`: this file's
    `pkg_tar`s, each as the labels of its files by their file names): the package of the
    one file those layers hold that its `entrypoint` or `cmd` names by its file name
    (`java -jar /app/server_deploy.jar` and the layer's `//server:server_deploy.jar`, a
    `java_binary`'s); None when no such file, or files of several packages, are named (a
    layer of configuration beside it is not the code), or past MAX_LAYER_LOOKUPS for the
    file (`spent`: images that share big layers)."""
    tars = attributes.get("tars")
    if not isinstance(tars, list):
        return None
    run: set[str] = set()
    for key in ("entrypoint", "cmd"):
        value = attributes.get(key)
        for word in [value] if isinstance(value, str) else value or []:
            run.add(posixpath.basename(word))
    run.discard("")
    found: dict[str, tuple[str, str]] = {}
    for tar in dict.fromkeys(tars):
        held = layers.get(tar[1:], {}) if tar.startswith(":") else {}
        # the smaller side looked up in the other: what the file shares costs at most this
        spent[0] += min(len(run), len(held)) + 1
        if spent[0] > MAX_LAYER_LOOKUPS:
            return None
        named = (
            [w for w in run if w in held] if len(run) < len(held) else [n for n in held if n in run]
        )
        for target in named:
            folder = _label_folder(package, held[target])
            if folder is not None:
                found.setdefault(folder, (tar, held[target]))
    if len(found) != 1:
        return None
    folder, (tar, label) = next(iter(found.items()))
    return folder, f', tars = ["{tar}"], whose "{label}" the entrypoint runs'


def _held(srcs: list[str]) -> dict[str, str]:
    """A layer's files' labels by their file names (`//server:server_deploy.jar` as
    `server_deploy.jar`; `//cmd/api` as `api`, its package's default target), the first
    of each."""
    held: dict[str, str] = {}
    for label in srcs:
        target = label.rpartition(":")[2] if ":" in label else posixpath.basename(label)
        held.setdefault(target, label)
    return held


def _code_folder(package: str, attributes: Attributes) -> tuple[str, str]:
    """The folder of an image's code: the package of the first label its `binary`,
    `embed`, `runtime_deps`, ... name in the tree, else its own package; with the
    attribute that names it, as the call writes it (`, binary = "//web:bin"`)."""
    for key in _CODE_ATTRIBUTES:
        value = attributes.get(key)
        for label in [value] if isinstance(value, str) else value or []:
            folder = _label_folder(package, label)
            if folder is not None:
                return folder, f', {key} = "{label}"'
    return package, ""


def _label_folder(package: str, label: str) -> str | None:
    """The folder of a label's package: `//web:bin` -> web (from the tree's top, taken as
    the workspace's), `:bin` or `main.go` -> the BUILD file's own; None for an external
    repository's (`@io_grpc//...`)."""
    if label.startswith("@") or not label:
        return None
    if label.startswith("//"):
        folder = label[2:].partition(":")[0]
        return os.path.normpath(folder) if folder else "."
    return package
