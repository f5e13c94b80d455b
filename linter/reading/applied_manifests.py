"""The manifest files a repository applies by other means than a kustomize build: the
paths a `kubectl apply|create|replace -f PATH` command names (`--filename PATH`, `-f=PATH`)
in a script, a Makefile, a CI workflow or a guide, and the YAML paths a Tiltfile
(`k8s_yaml('k8s/app.yaml')`) or a Skaffold configuration (`rawYaml: [k8s/*.yaml]`) names.
A file a kustomization leaves out of its build but that one of those applies is deployed
(model/kustomized.py's `left_out`).

Only literal paths are kept (a `$VAR`, a `{{ }}` expression, a URL, stdin's `-` are not
paths of the tree), as written: where they lead is judged by their last names
(`applied_tails`), so a command run from another folder still names the file. Bounded:
files past MAX_APPLYING_BYTES are not read, at most MAX_APPLIED paths a file, and a
file deeper than MAX_APPLIED_DEPTH folders counts as applied (never said left out)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from k8slb.core import regex
from k8slb.core.paths import path_parts

MAX_APPLYING_BYTES = 1024 * 1024
# The folders CI systems read their configuration from, at a repository's top
CI_FOLDERS = frozenset({".circleci", ".github", ".gitlab", ".buildkite"})
# The configuration files of CI systems, by their folder and name as each documents them
# (GitHub's workflows, GitLab's `.gitlab-ci.yml`: build_files.py reads them already)
_CI_CONFIGS = frozenset(
    {
        (".circleci", "config.yml"),
        (".circleci", "config.yaml"),
        (".buildkite", "pipeline.yml"),
        (".buildkite", "pipeline.yaml"),
    }
)
# A command or a GitHub action that makes a cluster on the CI machine itself, as the
# tools document it: minikube's `minikube start`, kind's `kind create cluster`, k3d's
# `k3d cluster create`, and the actions that run them.
_LOCAL_CLUSTER = regex.compile(
    r"\bminikube\s+start\b|\bkind\s+create\s+cluster\b|\bk3d\s+cluster\s+create\b"
    r"|\b(?:helm|container-tools)/kind-action\b|\bengineerd/setup-kind\b"
    r"|\bmedyagh/setup-minikube\b|\bAbsaOSS/k3d-action\b|\bnolar/setup-k3d-k3s\b"
)
MAX_APPLIED = 256
MAX_APPLIED_DEPTH = 64  # folders of a file's path matched against the applied ones
_KUBECTL_APPLY = regex.compile(r"\bkubectl\s+(?:apply|create|replace)\b")
# a YAML file's path as a Tiltfile or Skaffold writes it (quotes and brackets around it)
_YAML_PATH = regex.compile(r"[^\s\[\]()<>\"'`=,]+\.ya?ml\b")
_FILENAME_FLAGS = ("-f", "--filename")
_ENDS = frozenset({"|", "||", "&&", ";", "&", ")", "\\"})
_GLOB = frozenset("*?[")
_RECURSIVE = frozenset(("-R", "--recursive", "--recursive=true"))


def applied_manifests(data: bytes, *, yaml_paths: bool) -> tuple[str, ...]:
    """The paths the file's `kubectl apply|create|replace` commands name with `-f`, and
    with `yaml_paths` (a Tiltfile, a Skaffold configuration) every YAML path it writes."""
    if len(data) > MAX_APPLYING_BYTES or (b"kubectl" not in data and not yaml_paths):
        return ()
    text = data.decode("utf-8", errors="replace")
    found: dict[str, None] = {}
    for line in text.splitlines():
        if "kubectl" in line and (command := _KUBECTL_APPLY.search(line)) is not None:
            words = line[command.end() :].split()
            recursive = any(w in _RECURSIVE for w in _command(words))
            for word in _filenames(words):
                found.setdefault(f"{word.rstrip('/')}/**" if recursive and _literal(word) else word)
        if yaml_paths and ".y" in line:
            for word in _YAML_PATH.findall(line):
                found.setdefault(word)
        if len(found) >= MAX_APPLIED:
            break
    return tuple(w for w in list(found)[:MAX_APPLIED] if _literal(w))


def _command(words: list[str]) -> Iterable[str]:
    """One command's words, up to its end."""
    for word in words:
        if word in _ENDS:
            return
        yield word


def _filenames(words: list[str]) -> Iterable[str]:
    """The values of the `-f` options of one command's words (up to its end)."""
    taken = False
    for word in _command(words):
        if taken:
            yield word.strip("\"'`;")
            taken = False
        elif word in _FILENAME_FLAGS:
            taken = True
        else:
            flag, equals, value = word.partition("=")
            if equals and flag in _FILENAME_FLAGS:
                yield value.strip("\"'`;")


def _literal(path: str) -> bool:
    return (
        bool(path)
        and not path.startswith("-")
        and not any(c in path for c in "${}<>")
        and "://" not in path
    )


def applied_tails(paths: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """What the applied paths name, by their names from their last `..` on (`./k8s/app/`:
    `k8s/app`): files, and folders whose own files are applied (kubectl's `-f FOLDER`, a
    glob's folder: `k8s/*.yaml` names `k8s`); and the folders whose whole tree is
    (kubectl's `-R`, a `**` glob): a file is applied when one names it (`is_applied`)."""
    own: set[str] = set()
    tree: set[str] = set()
    for path in paths:
        names = [n for n in path.replace("\\", "/").split("/") if n not in ("", ".")]
        recursive = any("**" in n for n in names)
        while names and any(c in _GLOB for c in names[-1]):
            names.pop()
        if ".." in names:
            names = names[len(names) - names[::-1].index("..") :]
        if names and not any(c in _GLOB for n in names for c in n):
            (tree if recursive else own).add("/".join(names))
    return frozenset(own), frozenset(tree)


def is_applied(path: str, tails: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether a file (its path from the repository's top) is named by an applied path,
    by its last names: the file itself or its folder (`applied_tails`' first set), or a
    folder above it whose whole tree is applied (its second)."""
    own, tree = tails
    if not own and not tree:
        return False
    names = path_names(path)
    if len(names) > MAX_APPLIED_DEPTH:
        return True  # its folders' runs are cubic in its depth: not said left out on a guess
    own_names, tree_names = naming_tails(names)
    return not own.isdisjoint(own_names) or not tree.isdisjoint(tree_names)


def naming_tails(names: list[str]) -> tuple[set[str], set[str]]:
    """What would name a file of these names (at most MAX_APPLIED_DEPTH) in
    `applied_tails`' two sets: its last names and its folder's, and every run of its
    folders' names (a tree applied)."""
    last = len(names)
    own = {"/".join(names[start:]) for start in range(last)}
    own.update("/".join(names[start : last - 1]) for start in range(last - 1))
    tree = {"/".join(names[start:end]) for end in range(1, last) for start in range(end)}
    return own, tree


def path_names(path: str) -> list[str]:
    """A path's names, as the applied paths are read (`applied_tails`)."""
    return [n for n in path.replace("\\", "/").split("/") if n not in ("", ".")]


def in_ci_folder(path: str) -> bool:
    """Whether a file is below a CI system's folder (CI_FOLDERS)."""
    if ".circleci" not in path and ".git" not in path and ".buildkite" not in path:
        return False  # most files: no need to split the path
    return any(part in CI_FOLDERS for part in path_parts(os.path.normpath(path))[:-1])


def is_ci_config(path: str) -> bool:
    """Whether a file is a CI system's configuration that build_files.py reads for this
    alone (what it applies, the cluster it makes): `.circleci/config.yml`,
    `.buildkite/pipeline.yml`."""
    if not path.endswith((".yml", ".yaml")) or ("circleci" not in path and "buildkite" not in path):
        return False  # most files: no need to split the path
    folder, name = os.path.split(os.path.normpath(path))
    return (os.path.basename(folder), name) in _CI_CONFIGS


def local_cluster(data: bytes) -> str:
    """The first command (or GitHub action) by which a CI configuration makes a cluster
    on the CI machine (`minikube start`, `kind create cluster`), as written; "" if none.
    A file past MAX_APPLYING_BYTES is not read."""
    if len(data) > MAX_APPLYING_BYTES:
        return ""
    found = _LOCAL_CLUSTER.search(data.decode("utf-8", errors="replace"))
    return found.group(0) if found is not None else ""
