"""The Jib image a Gradle subproject is given by the root build file: a `subprojects { }`
(or `allprojects { }`) block whose `jib { to { image = "acme/${project.name}" } }` names
each subproject's image by its name, which Gradle takes from its folder's unless the
settings rename it. The root's block is read alone (`shared_jib`, kept by the parse
cache with the file's bytes); `subproject_images` gives each subproject's image once the
run's build files are read. No Groovy or Kotlin evaluated: the block is found by its
braces (MAX_BLOCK characters at most), and an image that names anything but the
project's name in its repository is none; one that names no name at all (the same image
for every subproject) says nothing of which one a container runs.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable

from k8slb.core import regex
from k8slb.core.record import record

MAX_BLOCK = 64 * 1024  # characters of a subprojects block read
MAX_BLOCKS = 8  # subprojects/allprojects blocks of a file read
BUILD_FILES = frozenset({"build.gradle", "build.gradle.kts"})
_SHARED = regex.compile(r"(?m)^[ \t]*(?:subprojects|allprojects)\s*\{")
_JIB = regex.compile(
    r"\bjib\s*\{.*?\bto\s*\{.*?\bimage(?:\s*=\s*|\.set\(\s*)\"([^\"\n]+)\"", regex.DOTALL
)
# the subproject's name, as a Groovy or Kotlin string puts it in
_NAME = regex.compile(r"\$\{project\.name\}|\$project\.name\b|\$\{name\}")


@record
class SharedJib:
    """A root build file's Jib image for its subprojects, with its name left to put in
    (`acme/${project.name}`), and where it says so."""

    path: str
    line: int
    quoted: str
    image: str


def shared_jib(path: str, text: str) -> SharedJib | None:
    """The image a root build file's `subprojects`/`allprojects` block gives Jib, when
    it names each subproject's image by its name; None otherwise."""
    for block in itertools.islice(_SHARED.finditer(text), MAX_BLOCKS):
        body = _braced(text, block.end())
        found = _JIB.search(body)
        if found is None or _NAME.search(found[1]) is None:
            continue
        offset = block.end() + found.start(1)
        begins = text.rfind("\n", 0, offset) + 1
        ends = text.find("\n", offset)
        quoted = text[begins : ends if ends >= 0 else len(text)].strip()
        return SharedJib(path, text.count("\n", 0, offset) + 1, quoted, found[1])
    return None


def _braced(text: str, start: int) -> str:
    """The text from `start` (just past a `{`) to the brace that closes it, MAX_BLOCK
    characters at most."""
    depth = 1
    end = min(len(text), start + MAX_BLOCK)
    for at in range(start, end):
        char = text[at]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start:at]
    return text[start:end]


@record
class SubprojectImage:
    image: str
    folder: str
    said: SharedJib


def subproject_images(shared: Iterable[SharedJib], builds: Iterable[str]) -> list[SubprojectImage]:
    """Each subproject's image: a folder below a root with a shared Jib image that has a
    Gradle build file of its own (the build files' paths, `builds`), named by its folder
    (the nearest root above it decides). An image left with a `$` is none."""
    roots = {os.path.dirname(os.path.normpath(each.path)) or ".": each for each in shared}
    found = []
    for path in builds:
        folder = os.path.dirname(os.path.normpath(path)) or "."
        if os.path.basename(path) not in BUILD_FILES or folder in roots:
            continue
        said = _nearest_root(folder, roots)
        if said is None:
            continue
        image = _named(said.image, os.path.basename(folder))
        repository = image.rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image
        if "$" not in repository:
            found.append(SubprojectImage(image, folder, said))
    return found


def _named(image: str, name: str) -> str:
    """`acme/${project.name}` with the subproject's name put in."""
    return _NAME.sub(lambda _: name, image)


def _nearest_root(folder: str, roots: dict[str, SharedJib]) -> SharedJib | None:
    above = folder
    while above not in ("", ".", os.sep):
        above = os.path.dirname(above)
        if (above or ".") in roots:
            return roots[above or "."]
    return None
