"""The Jib image a Maven module inherits from its parent POM: a parent (often a "bom" or
a company parent) that configures `jib-maven-plugin`'s `<to><image>` once, as
`${docker.image.prefix}/${project.artifactId}`, for every module that names it as its
`<parent>`. Maven reads the module's `<parent>` at its `<relativePath>` (`../pom.xml` when
none is written; when the POM there is not the one named, or the path is empty, Maven
looks the parent up by its coordinates, which here is the one POM of the tree that has
them); it merges the plugin's configuration, the module's over its parent's, a
`<plugins>` one over a `<pluginManagement>` one; and fills `${...}` from the module's
own coordinates (`${project.artifactId}` is the module's, not the parent's) and the
`<properties>` of the chain, the module's over its parent's.

One POM's facts (`read_pom`) are what it says alone, kept by the parse cache with its
bytes; `inherited_jib_images` settles each module's image once every POM is read. No
XML parser and no regular expression that backtracks: each section is found by its
tag and its closing tag, profiles and comments left out. Bounded: MAX_DEPTH parents,
MAX_PROPERTIES properties of MAX_VALUE characters a POM, MAX_STEPS rounds of `${...}`.
An image left with a `${...}` (an environment variable, a property no POM defines) is
no image: nothing is guessed.

So too the image Quarkus's container-image extension (`quarkus-container-image-docker`,
`-jib`, `-buildpack`, ...) builds of a module that takes it (`quarkus_images`): its
`quarkus.container-image.*` properties read through the same chain of parents.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from k8slb.core import regex
from k8slb.core.record import record

MAX_POM = 512 * 1024  # bytes: a larger POM says nothing here
MAX_DEPTH = 8  # parents followed up from a module
MAX_PROPERTIES = 500  # properties kept from one POM
MAX_VALUE = 512  # characters of a property's value, an image's name
MAX_STEPS = 6  # rounds of `${...}` put in (a property may name another)
MAX_SAME = 8  # POMs of one groupId and artifactId: past it, a parent is not looked up by them
JIB = "jib-maven-plugin"

_COMMENT = regex.compile(r"<!--.*?-->", regex.DOTALL)
# the top-level sections of a POM whose elements are not its own coordinates
_SECTION = regex.compile(
    r"<(parent|dependencyManagement|dependencies|build|profiles|reporting|repositories|"
    r"pluginRepositories|distributionManagement|modules|properties|developers|"
    r"contributors|scm|licenses|organization|issueManagement|ciManagement|mailingLists)"
    r"(?:\s[^<>]*)?>"
)
# a simple element, `<name>value</name>` (its name read twice: open and close must agree)
POM_ELEMENT = regex.compile(r"<([\w.-]+)>\s*([^<>]*?)\s*</([\w.-]+)>")
_PLUGIN = regex.compile(r"<plugin>(.*?)</plugin>", regex.DOTALL)
_ARTIFACT = regex.compile(r"<artifactId>\s*([^<\s]+)\s*</artifactId>")
_IMAGE = regex.compile(r"<image>\s*([^<\s]+)\s*</image>")
_NOT_INHERITED = regex.compile(r"<inherited>\s*false\s*</inherited>")
_RELATIVE_PATH = regex.compile(r"<relativePath\s*/>|<relativePath>\s*([^<]*?)\s*</relativePath>")
_PROPERTY = regex.compile(r"\$\{([\w.-]+)\}")
# Quarkus's container-image extensions, which build the module's image when it is packaged
# (`-Dquarkus.container-image.build=true`), and the properties that name that image
QUARKUS_PREFIX = "quarkus.container-image."
QUARKUS_KEYS = 16  # lines of such properties kept from one POM
_QUARKUS_EXTENSION = regex.compile(
    r"<artifactId>\s*quarkus-container-image-(?:docker|jib|buildpack|podman|openshift|s2i)"
    r"\s*</artifactId>"
)
_QUARKUS_PROPERTY = regex.compile(r"<(quarkus\.container-image\.[\w.-]+)>")


@record
class JibImage:
    """Jib's `<to><image>` as a POM writes it, its line, and whether the plugin is one
    of `<pluginManagement>`'s (configured for modules that use it) or of `<plugins>`."""

    image: str
    line: int
    quoted: str
    managed: bool


@record
class Pom:
    """What one pom.xml says for its modules' images: its coordinates (each "" when it
    writes none), its packaging, its `<parent>` (its coordinates and `<relativePath>`:
    None when none is written, Maven's `../pom.xml`; "" when empty, a lookup by
    coordinates), its properties, whether its `<plugins>` name Jib (and pass it on), and
    Jib's images it configures."""

    path: str
    group: str
    artifact: str
    version: str
    packaging: str
    parent: tuple[str, str, str] | None
    relative_path: str | None
    properties: tuple[tuple[str, str], ...]
    uses_jib: bool
    passes_jib_on: bool
    images: tuple[JibImage, ...]
    # whether its own `<dependencies>` take a Quarkus container-image extension, and the
    # lines of its `quarkus.container-image.*` properties (their name, line and text)
    uses_quarkus_image: bool = False
    quarkus_lines: tuple[tuple[str, int, str], ...] = ()


def read_pom(path: str, text: str) -> Pom | None:
    """A pom.xml's facts; None past MAX_POM or with no `<project>`."""
    if len(text) > MAX_POM or "<project" not in text:
        return None
    text = without_comments(text)
    sections, own = pom_sections(text)
    values: dict[str, str] = {}
    for name, value, closed in POM_ELEMENT.findall(own):
        if name == closed and name in ("groupId", "artifactId", "version", "packaging"):
            values.setdefault(name, value)  # the project's own, before any other's
    parent, relative = None, None
    if "parent" in sections:
        body = sections["parent"][1]
        found = {n: v for n, v, c in POM_ELEMENT.findall(body) if n == c}
        parent = (found.get("groupId", ""), found.get("artifactId", ""), found.get("version", ""))
        written = _RELATIVE_PATH.search(body)
        relative = None if written is None else (written[1] or "")
    properties: tuple[tuple[str, str], ...] = ()
    if "properties" in sections:
        properties = tuple(
            (name, value)
            for name, value, closed in POM_ELEMENT.findall(sections["properties"][1])
            if name == closed and len(value) <= MAX_VALUE
        )[:MAX_PROPERTIES]
    uses, passes, images = _jib(text, sections.get("build"))
    dependencies = sections.get("dependencies", (0, ""))[1]
    return Pom(
        path,
        values.get("groupId", ""),
        values.get("artifactId", ""),
        values.get("version", ""),
        values.get("packaging", "jar"),
        parent,
        relative,
        properties,
        uses,
        passes,
        images,
        _QUARKUS_EXTENSION.search(dependencies) is not None,
        _quarkus_lines(text, sections.get("properties")),
    )


def without_comments(text: str) -> str:
    """The POM's text with its comments blanked, their lines kept."""
    return _COMMENT.sub(lambda match: "\n" * match[0].count("\n"), text)


def _quarkus_lines(
    text: str, properties: tuple[int, str] | None
) -> tuple[tuple[str, int, str], ...]:
    """The name, line and text of each `quarkus.container-image.*` property (the first
    QUARKUS_KEYS of them)."""
    if properties is None or QUARKUS_PREFIX not in properties[1]:
        return ()
    start, body = properties
    found = []
    for match in _QUARKUS_PROPERTY.finditer(body):
        line, quoted = _line(text, start + match.start())
        found.append((match[1], line, quoted))
        if len(found) >= QUARKUS_KEYS:
            break
    return tuple(found)


def pom_sections(text: str) -> tuple[dict[str, tuple[int, str]], str]:
    """The POM's top-level sections by name (the first of each: where its body starts,
    and its body), and the text outside them; one pass, each section skipped to its
    closing tag."""
    sections: dict[str, tuple[int, str]] = {}
    own: list[str] = []
    at = 0
    for section in _SECTION.finditer(text):
        if section.start() < at:
            continue  # inside a section already read
        own.append(text[at : section.start()])
        closing = f"</{section[1]}>"
        end = text.find(closing, section.end())
        if end < 0:
            return sections, "".join(own)
        sections.setdefault(section[1], (section.end(), text[section.end() : end]))
        at = end + len(closing)
    own.append(text[at:])
    return sections, "".join(own)


def _jib(text: str, build: tuple[int, str] | None) -> tuple[bool, bool, tuple[JibImage, ...]]:
    """Whether the `<build>`'s `<plugins>` name Jib, whether they pass it on to modules
    (no `<inherited>false`), and the images Jib's configurations there and in
    `<pluginManagement>` give (profiles, not active unless asked for, left out)."""
    if build is None:
        return False, False, ()
    start, body = build
    managed_from = body.find("<pluginManagement>")
    managed_to = body.find("</pluginManagement>", managed_from) if managed_from >= 0 else -1
    uses = passes = False
    images: list[JibImage] = []
    for plugin in _PLUGIN.finditer(body):
        artifact = _ARTIFACT.search(plugin[1])
        if artifact is None or artifact[1] != JIB:
            continue
        managed = managed_from <= plugin.start() and plugin.end() <= managed_to
        if not managed:
            uses = True
            passes = passes or _NOT_INHERITED.search(plugin[1]) is None
        image = _to_image(plugin[1])
        if image is not None:
            offset = start + plugin.start(1) + image[0]
            if not any(kept.managed == managed for kept in images):  # the first of each
                images.append(JibImage(image[1], *_line(text, offset), managed))
    return uses, passes, tuple(images)


def _to_image(plugin: str) -> tuple[int, str] | None:
    """Where in a plugin's text its `<to>`'s `<image>` is written, and the image."""
    opened = plugin.find("<to>")
    closed = plugin.find("</to>", opened)
    if opened < 0 or closed < 0:
        return None
    image = _IMAGE.search(plugin[opened:closed])
    if image is None or len(image[1]) > MAX_VALUE:
        return None
    return opened + image.start(1), image[1]


def _line(text: str, offset: int) -> tuple[int, str]:
    """The number of the line at `offset`, and its words."""
    begins = text.rfind("\n", 0, offset) + 1
    ends = text.find("\n", offset)
    return text.count("\n", 0, offset) + 1, text[begins : ends if ends >= 0 else len(text)].strip()


@record
class InheritedImage:
    """The image Jib builds from the module of the POM at `module`, as the POM at
    `path` configures it on `line`."""

    image: str
    module: str
    path: str
    line: int
    quoted: str


def inherited_jib_images(poms: Iterable[Pom]) -> list[InheritedImage]:
    """The image each module (a POM not of packaging `pom`, which Jib skips) builds with
    Jib as its chain of parents configures it, for the modules whose Jib is named or
    configured by a parent; a module whose own POM configures the image whole is read
    alone (build_files.jib_builds) and left out here. An image that several modules
    would be given (a parent's literal name) says none of them: it is left out."""
    by_path = {os.path.normpath(pom.path): pom for pom in poms}
    by_coordinates: dict[tuple[str, str], list[Pom]] = {}
    for pom in by_path.values():
        by_coordinates.setdefault((_group(pom), pom.artifact), []).append(pom)
    found: list[InheritedImage] = []
    tables: dict[int, dict[str, str]] = {}  # each POM's properties, by its id
    for pom in by_path.values():
        if pom.packaging == "pom" or not pom.artifact:
            continue
        chain = _chain(pom, by_path, by_coordinates)
        settled = _image(chain, tables) if len(chain) > 1 else None  # one: its own reading says all
        if settled is None:
            continue
        image, said, owner = settled
        if owner is pom and "${" not in said.image:
            continue  # its own, literal: read alone
        module = os.path.dirname(pom.path) or "."
        quoted = said.quoted if owner is pom else f"{said.quoted} (parent of {pom.path})"
        found.append(InheritedImage(image, module, owner.path, said.line, quoted))
    given = Counter(each.image for each in found)
    return [each for each in found if given[each.image] == 1]


def quarkus_images(poms: Iterable[Pom]) -> list[InheritedImage]:
    """The image Quarkus's container-image extension builds from each module (a POM not
    of packaging `pom`) that takes the extension, itself or through a parent's
    `<dependencies>`: `quarkus.container-image.image` whole, else `registry/group/name`
    of the chain's `<properties>` (the module's over its parents'; the name by default the
    module's `quarkus.application.name`, else its artifactId). A group not written is the
    name of whoever builds it: no image; so is one left with a `${...}`, and one several
    modules would get."""
    by_path = {os.path.normpath(pom.path): pom for pom in poms}
    by_coordinates: dict[tuple[str, str], list[Pom]] = {}
    for pom in by_path.values():
        by_coordinates.setdefault((_group(pom), pom.artifact), []).append(pom)
    found: list[InheritedImage] = []
    tables: dict[int, dict[str, str]] = {}
    for pom in by_path.values():
        if pom.packaging == "pom" or not pom.artifact:
            continue
        chain = _chain(pom, by_path, by_coordinates)
        if not any(each.uses_quarkus_image for each in chain):
            continue
        settled = _quarkus_image(chain, _Values(chain, tables))
        if settled is not None:
            image, (owner, line, quoted) = settled
            if owner is not pom:
                quoted = f"{quoted} (parent of {pom.path})"
            found.append(
                InheritedImage(image, os.path.dirname(pom.path) or ".", owner.path, line, quoted)
            )
    given = Counter(each.image for each in found)
    return [each for each in found if given[each.image] == 1]


def _quarkus_image(chain: list[Pom], values: _Values) -> tuple[str, tuple[Pom, int, str]] | None:
    """The module's Quarkus image and the property line that says it most (`.image`, else
    `.name`, else `.group`), or None."""
    unset = "\0"
    whole = values.get(QUARKUS_PREFIX + "image", unset)
    keys: tuple[str, ...]
    if whole != unset:
        keys = ("image",)
        image = whole
    else:
        group = values.get(QUARKUS_PREFIX + "group", unset)
        if group == unset:
            return None
        name = values.get(QUARKUS_PREFIX + "name", unset)
        if name == unset:
            name = values.get("quarkus.application.name", chain[0].artifact)
        registry = values.get(QUARKUS_PREFIX + "registry", "")
        image = "/".join(part for part in (registry, group, name) if part)
        keys = ("name", "group")
    filled = _filled(image, values)
    said = next(
        (
            (pom, line, quoted)
            for key in keys
            for pom in chain
            for named, line, quoted in pom.quarkus_lines
            if named == QUARKUS_PREFIX + key
        ),
        None,
    )
    if not filled or said is None:
        return None
    return filled, said


def parents_of(poms: Iterable[Pom]) -> dict[str, list[Pom]]:
    """Each POM's parents of the tree, nearest first, by its normalised path (those with
    a parent of the tree only): whose `<dependencies>` the module inherits."""
    by_path = {os.path.normpath(pom.path): pom for pom in poms}
    by_coordinates: dict[tuple[str, str], list[Pom]] = {}
    for pom in by_path.values():
        by_coordinates.setdefault((_group(pom), pom.artifact), []).append(pom)
    found = {}
    for path, pom in by_path.items():
        chain = _chain(pom, by_path, by_coordinates)
        if len(chain) > 1:
            found[path] = chain[1:]
    return found


def _group(pom: Pom) -> str:
    return pom.group or (pom.parent[0] if pom.parent else "")


def _chain(
    pom: Pom, by_path: Mapping[str, Pom], by_coordinates: Mapping[tuple[str, str], list[Pom]]
) -> list[Pom]:
    """The module's POM and its parents of the tree, nearest first (MAX_DEPTH at most; a
    loop ends it)."""
    chain = [pom]
    while len(chain) <= MAX_DEPTH:
        parent = _parent(chain[-1], by_path, by_coordinates)
        if parent is None or any(parent is seen for seen in chain):
            break
        chain.append(parent)
    return chain


def _parent(
    pom: Pom, by_path: Mapping[str, Pom], by_coordinates: Mapping[tuple[str, str], list[Pom]]
) -> Pom | None:
    """The POM of the tree `pom`'s `<parent>` names: the one at its relative path when it
    has the coordinates named, else the one POM of the tree that has them (with the
    version named, when both write one literally)."""
    if pom.parent is None:
        return None
    group, artifact, version = pom.parent
    path = parent_path(pom)
    if path is not None:
        at = by_path.get(path)
        if at is not None and (_group(at), at.artifact) == (group, artifact):
            return at
    same = by_coordinates.get((group, artifact), ())
    if len(same) > MAX_SAME:
        return None
    named = [
        candidate
        for candidate in same
        if not version
        or not candidate.version
        or "${" in version + candidate.version
        or candidate.version == version
    ]
    return named[0] if len(named) == 1 else None


def _image(chain: list[Pom], tables: dict[int, dict[str, str]]) -> tuple[str, JibImage, Pom] | None:
    """The image Jib builds for the chain's module, its `${...}` put in, with the
    configuration that gives it and the POM that writes it: None when no POM of the
    chain puts Jib in the module's `<plugins>` (a parent's passing it on), when none
    configures an image, or when one is left with a `${...}`."""
    module = chain[0]
    if not (module.uses_jib or any(pom.passes_jib_on for pom in chain[1:])):
        return None
    # the nearest `<plugins>` configuration, else the nearest `<pluginManagement>` one
    configured = [
        (image, pom)
        for managed in (False, True)
        for pom in chain
        for image in pom.images
        if image.managed == managed
    ]
    if not configured:
        return None
    said, owner = configured[0]
    image = _filled(said.image, _Values(chain, tables))
    if image is None:
        return None
    return image, said, owner


class _Values:
    """What `${...}` may name for the chain's module: its properties (the module's over
    its parents', each POM's read into a table once: `tables`), its coordinates (its own,
    else its parent's groupId and version) and its parent's."""

    def __init__(self, chain: list[Pom], tables: dict[int, dict[str, str]]) -> None:
        self._tables = []
        for pom in chain:
            if id(pom) not in tables:
                tables[id(pom)] = dict(reversed(pom.properties))  # the first of a name
            self._tables.append(tables[id(pom)])
        module = chain[0]
        group = _group(module)
        version = module.version or (module.parent[2] if module.parent else "")
        own = {"groupId": group, "artifactId": module.artifact, "version": version}
        self._project = {f"project.{name}": value for name, value in own.items() if value}
        self._also = {
            f"{prefix}{name}": v for name, v in own.items() if v for prefix in ("", "pom.")
        }
        if module.parent is not None:
            names = ("groupId", "artifactId", "version")
            parent = zip(names, module.parent, strict=True)
            self._also |= {f"project.parent.{name}": value for name, value in parent if value}

    def get(self, name: str, default: str) -> str:
        if name in self._project:
            return self._project[name]
        for table in self._tables:
            if name in table:
                return table[name]
        return self._also.get(name, default)


def _filled(image: str, values: _Values) -> str | None:
    """`image` with each `${name}` put in, a value naming others in turn (MAX_STEPS
    rounds, MAX_VALUE characters); None when one is left."""
    for _ in range(MAX_STEPS):
        if "${" not in image:
            return image
        image = _PROPERTY.sub(lambda match: values.get(match[1], match[0]), image)
        if len(image) > MAX_VALUE:
            return None
    return None if "${" in image else image


def module_chain(module: Pom, poms: Iterable[Pom]) -> list[Pom]:
    """The module's POM and its parents among `poms`, nearest first (as Maven finds
    them: at the `<relativePath>`, else by coordinates)."""
    by_path = {os.path.normpath(pom.path): pom for pom in poms}
    by_coordinates: dict[tuple[str, str], list[Pom]] = {}
    for pom in by_path.values():
        by_coordinates.setdefault((_group(pom), pom.artifact), []).append(pom)
    return _chain(module, by_path, by_coordinates)


def parent_path(pom: Pom) -> str | None:
    """Where Maven first looks for the POM's parent (its `<relativePath>`, by default
    `../pom.xml`), joined to its folder; None when it has no parent or looks it up by
    its coordinates only (an empty `<relativePath/>`)."""
    if pom.parent is None or pom.relative_path == "":
        return None
    relative = "../pom.xml" if pom.relative_path is None else pom.relative_path
    if not relative.endswith(".xml"):
        relative = os.path.join(relative, "pom.xml")
    return os.path.normpath(os.path.join(os.path.dirname(pom.path), relative))


def filtered_value(chain: list[Pom]) -> Callable[[str], str | None]:
    """What Maven's resource filtering writes for `${name}` in the chain's module: the
    property's value (the module's over its parents', its coordinates), each `${...}` in
    it put in; None for a name no POM of the chain defines, or one left with a `${...}`
    (Maven leaves such a placeholder as written)."""
    values = _Values(chain, {})
    unset = "\0"
    known: dict[str, str | None] = {}  # each name settled once, however often a file names it

    def value(name: str) -> str | None:
        if name not in known:
            found = values.get(name, unset)
            known[name] = None if found == unset else _filled(found, values)
        return known[name]

    return value
