"""Which grpc-java a Java project builds with, as its build files say: Maven's pom.xml (the
`io.grpc` dependencies, the grpc-bom imported in dependencyManagement, `${...}` properties),
Gradle's build.gradle and build.gradle.kts (`'io.grpc:grpc-netty-shaded:1.41.0'`,
`platform('io.grpc:grpc-bom:$grpcVersion')`, the map notation, variables set in the file),
gradle.properties, and the version catalog gradle/libs.versions.toml. Read from the bytes
by RE2 patterns (linear time), nothing executed; a file past MAX_BUILD_FILE says nothing.

A file's reading is what it says alone (the versions as written, the properties it
defines), so the parse cache keeps it by its bytes; `grpc_java_version` settles a
module's version from the build files above it once every file is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence

from k8slb.core import regex, toml_text
from k8slb.core.record import record
from k8slb.reading.maven_poms import pom_sections

MAX_BUILD_FILE = 512 * 1024  # bytes: a larger build file is not read for versions
MAX_ENTRIES = 500  # versions, or properties, kept from one file
GRADLE_PROPERTIES = "gradle.properties"
VERSION_CATALOG = "libs.versions.toml"  # Gradle's, in the project's gradle/ folder
SCRIPTS = frozenset({"pom.xml", "build.gradle", "build.gradle.kts"})  # a module's build
# The Spring Boot gRPC starters, by the groups a build names them with (LogNet's moved from
# org.lognet to io.github.lognet). A gRPC dependency of no such group whose coordinates say
# `spring`, `boot` or `starter` (`spring-boot-starter-grpc`, a company's own starter, a
# catalog alias `libs.grpc.spring.boot.starter`) may be one too: OTHER_STARTER.
SPRING_GRPC, DEVH, LOGNET = "Spring gRPC", "grpc-spring-boot-starter", "LogNet"
OTHER_STARTER = "another starter"
STARTER_GROUPS = {
    SPRING_GRPC: ("org.springframework.grpc",),
    DEVH: ("net.devh",),
    LOGNET: ("io.github.lognet", "org.lognet"),
}
_STARTER_WORDS = ("spring", "boot", "starter")
NAMES = SCRIPTS | {GRADLE_PROPERTIES, VERSION_CATALOG}
# Spring Cloud's discovery client starters, by artifact: each registers the application in
# its registry when it starts, whatever its code says, unless its settings turn it off
# (parse_spring.registered_by_starters). Spring Cloud Kubernetes registers nothing: its
# clients read the Services' endpoints.
DISCOVERY_STARTERS = {
    "spring-cloud-starter-netflix-eureka-client": "Eureka",
    "spring-cloud-starter-consul-discovery": "Consul",
    "spring-cloud-starter-zookeeper-discovery": "ZooKeeper",
    "spring-cloud-starter-alibaba-nacos-discovery": "Nacos",
}
_DISCOVERY_GROUPS = ("org.springframework.cloud", "com.alibaba.cloud")


@record
class Written:
    """A value as a build file writes it (`1.41.0`, `${grpc.version}`), and where."""

    path: str
    line: int
    text: str


@record
class GrpcJavaBuild:
    """What one build file says of grpc-java: the version each `io.grpc` artifact of
    grpc-java is given, as written, and the properties (variables) it defines that hold a
    version, by name."""

    path: str
    versions: tuple[Written, ...] = ()
    properties: tuple[tuple[str, Written], ...] = ()
    # a pom.xml or Gradle build script (not gradle.properties, not a catalog), and whether a
    # dependency it declares names gRPC (outside comments and Maven's dependencyManagement,
    # which declares nothing): what settings alone may make a server of (uses_grpc)
    script: bool = False
    names_grpc: bool = False
    # the Spring Boot gRPC starters its dependencies name (SPRING_GRPC, DEVH, LOGNET,
    # OTHER_STARTER): which one reads a settings file that has both's keys, and whether
    # any does (a module on grpc-java alone builds its servers itself); for a Maven module
    # its parent POMs' too (build_files settles those once every POM is read)
    starters: frozenset[str] = frozenset()
    # the discovery starters (DISCOVERY_STARTERS) the module's dependencies name, each
    # where it is declared (`text`: the artifact): its own script's, and for a Maven
    # module its parent POMs' too (build_files settles those once every POM is read)
    registries: tuple[Written, ...] = ()

    @property
    def folder(self) -> str:
        """The project folder it speaks for, absolute (a run may spell a named file and its
        project's context apart: `src/Main.java`, `../svc/pom.xml`): its own, or, the
        version catalog in gradle/, the one above."""
        folder = os.path.dirname(os.path.abspath(self.path))
        if os.path.basename(self.path) == VERSION_CATALOG and os.path.basename(folder) == "gradle":
            return os.path.dirname(folder)
        return folder


@record
class LibraryVersion:
    """A module's grpc-java version, (1, 41, 3), with where a build file says it; or None,
    with why it is not known."""

    version: tuple[int, ...] | None
    said: Written | None = None
    unknown: str = ""


def read_grpc_java(path: str, data: bytes) -> GrpcJavaBuild | None:
    """What the build file at `path` says of grpc-java; None when it says nothing (or is
    past MAX_BUILD_FILE)."""
    if len(data) > MAX_BUILD_FILE:
        return None
    text = data.decode("utf-8", errors="replace")
    name = os.path.basename(path)
    script, names_grpc, declared = name in SCRIPTS, False, []
    registries: list[Written] = []
    if name == "pom.xml":
        versions, properties = _maven(path, text)
        declared = _maven_grpc_dependencies(text)
        names_grpc = bool(declared)
        registries = _maven_registries(path, text)
    elif name == GRADLE_PROPERTIES:
        versions, properties = [], _gradle_properties(path, text)
    elif name == VERSION_CATALOG:
        versions, properties = _catalog(path, text), []
    else:
        versions, properties = _gradle(path, text)
        # any word of gRPC outside comments: a dependency, a catalog alias, a subprojects
        # block (more than a dependency: a build that may serve gRPC is kept as one)
        lowered = _blanked(_GRADLE_COMMENT, text).lower()
        names_grpc = "grpc" in lowered
        declared = [line for line in lowered.splitlines() if "grpc" in line]
        registries = _gradle_registries(path, text) if script else []
    if not versions and not properties and not script:
        return None
    return GrpcJavaBuild(
        path,
        tuple(versions[:MAX_ENTRIES]),
        tuple(properties[:MAX_ENTRIES]),
        script,
        names_grpc,
        _starters(declared),
        tuple(registries[:MAX_ENTRIES]),
    )


def _starters(declared: Sequence[str]) -> frozenset[str]:
    """The Spring Boot gRPC starters among a build's dependencies that name gRPC (each
    written lower case, a Maven `<dependency>`'s body or a Gradle line)."""
    found: set[str] = set()
    for dependency in declared:
        known = {s for s, groups in STARTER_GROUPS.items() if any(g in dependency for g in groups)}
        if not known and any(word in dependency for word in _STARTER_WORDS):
            known = {OTHER_STARTER}
        found |= known
    return frozenset(found)


def is_grpc_java(artifact: str) -> bool:
    """An artifact of grpc-java, all released with one version; grpc-kotlin's, also in the
    `io.grpc` group, have versions of their own."""
    return artifact.startswith("grpc-") and not artifact.startswith("grpc-kotlin")


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _blanked(pattern: regex.Pattern[str], text: str) -> str:
    """`text` with what `pattern` matches (comments) made blank, its lines kept."""
    return pattern.sub(lambda match: "\n" * match.group(0).count("\n"), text)


# -- Maven -----------------------------------------------------------------------------------

_XML_COMMENT = regex.compile(r"<!--.*?-->", regex.DOTALL)
_DEPENDENCY = regex.compile(r"<dependency>(.*?)</dependency>", regex.DOTALL)
_EXCLUSIONS = regex.compile(r"<exclusions>.*?</exclusions>", regex.DOTALL)
_GRPC_GROUP = regex.compile(r"<groupId>\s*io\.grpc\s*</groupId>")
_ARTIFACT = regex.compile(r"<artifactId>\s*([^<\s]+)\s*</artifactId>")
_VERSION = regex.compile(r"<version>\s*([^<\s]+)\s*</version>")
_PROPERTIES = regex.compile(r"<properties>(.*?)</properties>", regex.DOTALL)
_PROPERTY = regex.compile(r"<([\w.\-]+)>\s*([^<\s]+)\s*</([\w.\-]+)>")


def _maven(path: str, text: str) -> tuple[list[Written], list[tuple[str, Written]]]:
    text = _blanked(_XML_COMMENT, text)
    versions = []
    for dependency in _DEPENDENCY.finditer(text):
        # an exclusion names io.grpc artifacts that the dependency's version is not theirs
        body = _blanked(_EXCLUSIONS, dependency.group(1))
        artifact = _ARTIFACT.search(body)
        version = _VERSION.search(body)
        if (
            version is not None
            and artifact is not None
            and _GRPC_GROUP.search(body) is not None
            and is_grpc_java(artifact.group(1))
        ):
            offset = dependency.start(1) + version.start(1)
            versions.append(Written(path, _line(text, offset), version.group(1)))
    properties = []
    for block in _PROPERTIES.finditer(text):
        for found in _PROPERTY.finditer(block.group(1)):
            if found.group(1) == found.group(3):
                offset = block.start(1) + found.start(2)
                properties.append(
                    (found.group(1), Written(path, _line(text, offset), found.group(2)))
                )
    return versions, properties


_MANAGEMENT = regex.compile(r"<dependencyManagement>.*?</dependencyManagement>", regex.DOTALL)


def _maven_grpc_dependencies(text: str) -> list[str]:
    """The pom's dependencies (its own, or a plugin's) that name gRPC, each body lower
    case: an artifact or group with the word (`io.grpc`, `grpc-server-spring-boot-starter`,
    `spring-grpc-*`); none when none does."""
    text = _blanked(_MANAGEMENT, _blanked(_XML_COMMENT, text))
    named = (found.group(1).lower() for found in _DEPENDENCY.finditer(text))
    return [body for body in named if "grpc" in body][:MAX_ENTRIES]


_NOT_RUN = regex.compile(r"<scope>\s*(?:test|provided)\s*</scope>")
_GROUP = regex.compile(r"<groupId>\s*([^<\s]+)\s*</groupId>")


def _maven_registries(path: str, text: str) -> list[Written]:
    """The discovery starters of the POM's own `<dependencies>` (not dependencyManagement's,
    which declares nothing; not a profile's, off unless asked for; not a plugin's), but a
    test's or a `provided` one (not in the jar)."""
    text = _blanked(_XML_COMMENT, text)
    sections, _ = pom_sections(text)
    if "dependencies" not in sections:
        return []
    start, body = sections["dependencies"]
    found = []
    for dependency in _DEPENDENCY.finditer(body):
        inner = _blanked(_EXCLUSIONS, dependency.group(1))
        artifact, group = _ARTIFACT.search(inner), _GROUP.search(inner)
        if (
            artifact is not None
            and artifact.group(1) in DISCOVERY_STARTERS
            and group is not None
            and group.group(1) in _DISCOVERY_GROUPS
            and _NOT_RUN.search(inner) is None
        ):
            offset = start + dependency.start(1) + artifact.start(1)
            found.append(Written(path, _line(text, offset), artifact.group(1)))
    return found


# -- Gradle ----------------------------------------------------------------------------------

# comments opened at a line's start: `//` or `/* ... */` elsewhere may be in a string
_GRADLE_COMMENT = regex.compile(r"(?m)^[ \t]*//[^\n]*|^[ \t]*/\*(?s:.*?)\*/")
_COORDINATES = regex.compile(r"['\"]io\.grpc:([\w.\-]+):([^'\"\s:@]+)")
_MAP_NOTATION = regex.compile(
    r"\bgroup\s*[:=]\s*['\"]io\.grpc['\"]\s*,\s*name\s*[:=]\s*['\"]([\w.\-]+)['\"]\s*,\s*"
    r"version\s*[:=]\s*['\"]([^'\"\s]+)['\"]"
)
# `def grpcVersion = '1.41.0'`, `ext.grpcVersion = ...`, `extra["grpcVersion"] = ...`
_ASSIGNED = regex.compile(r"([A-Za-z_][\w.]*)['\"]?\]?\s*=\s*['\"](\d[\w.\-]*)['\"]")
# `set("grpcVersion", "1.41.0")`, `val grpcVersion by extra("1.41.0")`
_SET = regex.compile(r"\bset\(\s*['\"]([\w.]+)['\"]\s*,\s*['\"](\d[\w.\-]*)['\"]")
_BY_EXTRA = regex.compile(r"\bval\s+(\w+)\s+by\s+extra\(\s*\"(\d[\w.\-]*)\"")
_PROPERTY_LINE = regex.compile(r"(?m)^[ \t]*([\w.\-]+)[ \t]*[=:][ \t]*(\d[\w.\-]*)[ \t]*$")


def _gradle(path: str, text: str) -> tuple[list[Written], list[tuple[str, Written]]]:
    text = _blanked(_GRADLE_COMMENT, text)
    versions = [
        Written(path, _line(text, found.start(2)), found.group(2))
        for pattern in (_COORDINATES, _MAP_NOTATION)
        for found in pattern.finditer(text)
        if is_grpc_java(found.group(1))
    ]
    properties = [
        (_variable(found.group(1)), Written(path, _line(text, found.start(2)), found.group(2)))
        for pattern in (_ASSIGNED, _SET, _BY_EXTRA)
        for found in pattern.finditer(text)
    ]
    return versions, properties


# a dependency of a configuration the application's jar holds, by its coordinates written
# out: `implementation 'org.springframework.cloud:spring-cloud-starter-...'`, or Kotlin's
# `implementation("...")` (a catalog's alias, `libs.x.y`, is not read)
_GRADLE_DEPENDENCY = regex.compile(
    r"(?m)^[ \t]*(?:implementation|api|compile|runtimeOnly|runtime)[ \t]*\(?[ \t]*"
    r"['\"]([\w.\-]+):([\w.\-]+)(?::[^'\"\s]*)?['\"]"
)


def _gradle_registries(path: str, text: str) -> list[Written]:
    """The discovery starters a Gradle build script's dependencies name."""
    text = _blanked(_GRADLE_COMMENT, text)
    return [
        Written(path, _line(text, found.start(2)), found.group(2))
        for found in _GRADLE_DEPENDENCY.finditer(text)
        if found.group(1) in _DISCOVERY_GROUPS and found.group(2) in DISCOVERY_STARTERS
    ]


def _variable(name: str) -> str:
    """`ext.grpcVersion`, `project.ext.grpcVersion` -> `grpcVersion`."""
    for prefix in ("rootProject.", "project.", "ext.", "extra."):
        name = name.removeprefix(prefix)
    return name


def _gradle_properties(path: str, text: str) -> list[tuple[str, Written]]:
    return [
        (found.group(1), Written(path, _line(text, found.start(2)), found.group(2)))
        for found in _PROPERTY_LINE.finditer(text)
    ]


def _catalog(path: str, text: str) -> list[Written]:
    """The io.grpc libraries of a version catalog, each with its version as written or,
    named by `version.ref`, as the catalog's [versions] gives it."""
    catalog = toml_text.loads(text)
    if catalog is None:
        return []
    named = catalog.get("versions")
    named = named if isinstance(named, dict) else {}
    libraries = catalog.get("libraries")
    found = []
    for alias, library in libraries.items() if isinstance(libraries, dict) else ():
        artifact, version = _catalog_library(library, named)
        if artifact is not None and version is not None and is_grpc_java(artifact):
            where = text.find(str(alias))
            found.append(Written(path, _line(text, where) if where >= 0 else 1, version))
    return found


def _catalog_library(library: object, named: Mapping[str, object]) -> tuple[str | None, str | None]:
    """A catalog library's io.grpc artifact and version: `"io.grpc:grpc-stub:1.41.0"`,
    `{ module = "io.grpc:grpc-stub", version.ref = "grpc" }`, or with group and name."""
    if isinstance(library, str):
        parts = library.split(":")
        if len(parts) == 3 and parts[0] == "io.grpc":
            return parts[1], parts[2]
        return None, None
    if not isinstance(library, dict):
        return None, None
    module = library.get("module")
    group, name = (
        module.split(":", 1)
        if isinstance(module, str) and ":" in module
        else (library.get("group"), library.get("name"))
    )
    if group != "io.grpc" or not isinstance(name, str):
        return None, None
    version = library.get("version")
    if isinstance(version, dict):  # `version.ref = "grpc"`, or `{ strictly = "1.41.0" }`
        reference = version.get("ref")
        version = named.get(reference) if isinstance(reference, str) else version.get("strictly")
        if isinstance(version, dict):
            version = version.get("strictly") or version.get("require")
    return name, version if isinstance(version, str) else None


# -- a module's gRPC -------------------------------------------------------------------------


def uses_grpc(path: str, builds: Mapping[str, Sequence[GrpcJavaBuild]]) -> bool | None:
    """Whether the module of the file at `path` builds with a gRPC library, as its build
    script (the nearest above it) and those above (a Maven parent's dependencies are
    inherited, a Gradle root's may be given to every subproject) say; None when no build
    script is above it."""
    scripts = [build for _, files in _folders_up(path, builds) for build in files if build.script]
    if not scripts:
        return None
    return any(build.names_grpc for build in scripts)


def discovery_starters(
    path: str, builds: Mapping[str, Sequence[GrpcJavaBuild]]
) -> tuple[Written, ...]:
    """The discovery starters the module of the file at `path` builds with, as its own
    build script (the nearest above it) says, with its Maven parents' (a folder above that
    is no parent gives its modules no dependency: a Gradle root's `subprojects` block is
    not read)."""
    for _, files in _folders_up(path, builds):
        scripts = [build for build in files if build.script]
        if scripts:
            return tuple(written for build in scripts for written in build.registries)
    return ()


def grpc_starters(path: str, builds: Mapping[str, Sequence[GrpcJavaBuild]]) -> frozenset[str]:
    """The Spring Boot gRPC starters the module of the file at `path` builds with, as its
    build scripts and those above it (and a Maven module's parent POMs) name them."""
    return frozenset(
        starter
        for _, files in _folders_up(path, builds)
        for build in files
        for starter in build.starters
    )


# -- a module's version ----------------------------------------------------------------------

_REFERENCE = regex.compile(r"^\$\{?([\w.\-]+)\}?$")
_NUMBERS = regex.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:[.\-][\w.\-]*)?$")
_STEPS = 5  # a property may name another: so many steps, no more


def grpc_java_version(path: str, builds: Mapping[str, Sequence[GrpcJavaBuild]]) -> LibraryVersion:
    """The grpc-java version of the module at `path`: the nearest folder above it whose
    build files give io.grpc artifacts a version decides (a Maven module whose dependency
    has none, or a Gradle subproject's build with none, leaves it to its parent's), each
    `${property}` read from the build files above the module. Unknown when no build says
    it, when a version cannot be read, or when the versions (or the property's
    definitions, a module's and its parent's) disagree."""
    chain = list(_folders_up(path, builds))
    for number, (_, files) in enumerate(chain):
        written = [version for build in files for version in build.versions]
        if not written:
            continue
        # a property as the module sees it (Maven: a module's overrides its parent's) and as
        # the build that names it does (Gradle: a root script's own variable): the same, or
        # not known
        seen = _settled(written, _properties(chain))
        if seen.version != _settled(written, _properties(chain[number:])).version:
            return LibraryVersion(
                None, unknown="its build files define grpc-java's version property differently"
            )
        return seen
    return LibraryVersion(None, unknown="no build file above it gives grpc-java's version")


def _folders_up(
    path: str, builds: Mapping[str, Sequence[GrpcJavaBuild]]
) -> Iterator[tuple[str, Sequence[GrpcJavaBuild]]]:
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if folder in builds:
            yield folder, builds[folder]
        parent = os.path.dirname(folder)
        if parent == folder:  # the file system's root
            return
        folder = parent


def _properties(chain: Sequence[tuple[str, Sequence[GrpcJavaBuild]]]) -> dict[str, Written]:
    """The properties a build sees, the nearest definition of each name first."""
    seen: dict[str, Written] = {}
    for _, files in chain:
        for build in files:
            for name, value in build.properties:
                seen.setdefault(name, value)
    return seen


def _settled(written: Sequence[Written], properties: Mapping[str, Written]) -> LibraryVersion:
    read = []
    for version in written:
        value = version
        for _ in range(_STEPS):
            reference = _REFERENCE.match(value.text)
            if reference is None:
                break
            name = _variable(reference.group(1))
            if name not in properties:
                return LibraryVersion(
                    None,
                    unknown=f"{version.path}:{version.line} names {value.text}, which no "
                    "build file above defines",
                )
            value = properties[name]
        numbers = _NUMBERS.match(value.text)
        if numbers is None:
            return LibraryVersion(
                None, unknown=f"{value.path}:{value.line} gives grpc-java's version as {value.text}"
            )
        read.append((tuple(int(n or 0) for n in numbers.groups()), value))
    if len({version for version, _ in read}) > 1:
        listed = ", ".join(sorted({f"{w.text} ({w.path}:{w.line})" for _, w in read}))
        return LibraryVersion(
            None, unknown=f"its build files give grpc-java several versions: {listed}"
        )
    return LibraryVersion(read[0][0], read[0][1])
