"""Which shell script of the tree a container's command runs: the file a COPY of the
image's Dockerfile put where the command names it, from the context or from an earlier
stage that copied it there (sigterm-never-reaches-server reads what the script leaves as
PID 1)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping

from k8slb.reading.build_files import Dockerfile, ShellScript

# Where a command named without a slash (`run.sh`) is looked for: the folders of a
# Linux image's usual PATH.
PATH_FOLDERS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


def image_script(
    scripts: Mapping[str, ShellScript],
    dockerfile: Dockerfile,
    folder: str,
    word: str,
    operand: bool = False,
) -> ShellScript | None:
    """The script of the tree that the program `word` is in the image built by
    `dockerfile` from the context `folder`: a path (relative ones from the WORKDIR) or a
    name in a PATH folder that a COPY filled, from the context or from a build stage's
    copy of it (Dockerfile.built_copies); None when no scanned script is there. A
    shell's `operand` (`sh run.sh`) is a path first: the shell opens it from the WORKDIR."""
    if "$" in word:
        return None
    places = []
    if "/" in word or operand:
        places.append(posixpath.normpath(posixpath.join(dockerfile.workdir, word)))
    if "/" not in word:
        places += [posixpath.join(path, word) for path in PATH_FOLDERS]
    # a link narrowed to the module a wide context's Dockerfile builds (`docker build -f
    # api/Dockerfile .`) keeps that Dockerfile's paths, which are the context's: the
    # nearest folder around the link's that holds the copied script is the context
    contexts = _folder_and_above(os.path.normpath(folder))
    for in_image in places:
        # copied from the context by the last stage, else taken from an earlier stage that
        # copied it (`COPY --from=builder /app/run.sh .`, after the builder's `COPY . .`)
        copied = [*dockerfile.sources_of(in_image), *dockerfile.built_sources_of(in_image)]
        for candidate in (c for source in copied for c in _sources(source)):
            for context in contexts:
                found = scripts.get(os.path.normpath(os.path.join(context, candidate)))
                if found is not None:
                    return found
    return None


def _folder_and_above(folder: str) -> list[str]:
    """A folder and the folders around it, nearest first (only scanned scripts are looked
    up in them, so those above the scanned tree find none)."""
    found = [folder]
    while (above := os.path.dirname(folder) or ".") != folder:
        folder = above
        found.append(folder)
    return found


def _sources(source: str) -> list[str]:
    """Where in the context a file put at an image's path may come from: `source` as the
    COPY's folder makes it, or the file itself when the COPY put one file into a folder
    its destination names without a trailing slash (`ADD run.sh /app` over a `/app` the
    image has: `/app/run.sh`), which the Dockerfile alone cannot tell from a new name."""
    parent, name = posixpath.split(source)
    if parent and posixpath.basename(parent) == name:
        return [source, parent]
    return [source]


def tree_scripts(scripts: Mapping[str, ShellScript], word: str) -> list[ShellScript]:
    """The scripts of the tree that a command may name by `word` when no Dockerfile says
    where the image has it (`sh docker-entrypoint.sh` in a manifest): those whose path ends
    with it."""
    if "$" in word or not word.strip("./"):
        return []
    tail = os.path.normpath(word.lstrip("/"))
    return [
        script
        for path, script in sorted(scripts.items())
        if path == tail or path.endswith(os.sep + tail)
    ]


def tail_scripts(scripts: Mapping[str, ShellScript], word: str) -> list[ShellScript]:
    """The one script of the tree that an absolute path of the image may name when no
    Dockerfile says how it got there and no script's path ends with all of it
    (`/opt/acme/sbin/daemon.sh`, installed from `dist/package/sbin/daemon.sh`): the longest
    tail of the path, its file name and at least the folder around it, that the path of
    exactly one script ends with; none when two or more do at that length, or none does.
    Each script named so is compared from its end once (not once a tail: a path of many
    folders costs its length, not its square)."""
    if "$" in word or not word.startswith("/"):
        return []
    parts = [part for part in posixpath.normpath(word).split("/") if part]
    shared: list[tuple[int, ShellScript]] = []  # how many of its last parts are the path's
    for path, script in sorted(scripts.items()):
        theirs = path.split(os.sep)
        if len(parts) < 3 or theirs[-1] != parts[-1]:
            continue
        same = 0
        while same < min(len(theirs), len(parts) - 1) and theirs[-1 - same] == parts[-1 - same]:
            same += 1
        shared.append((same, script))
    longest = max((same for same, _ in shared), default=0)
    if longest < 2:
        return []
    found = [script for same, script in shared if same >= longest]
    return found if len(found) == 1 else []
