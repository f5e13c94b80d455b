"""KLB201's fix on a grpc-java server follows the grpc-java its project builds with: a plain
`io.grpc.ServerBuilder` (`ServerBuilder.forPort`, `Grpc.newServerBuilderForPort`) has
`maxConnectionAge` only from grpc-java 1.47.0 on (NettyServerBuilder always had it), so on
an older one the fix, which would not compile, is refused and the finding says why; where
no build file says the version, the fix is kept but unsafe, naming 1.47.0. The version is
read from the build files above the module (java_builds.py): Maven's pom.xml, Gradle's
build files, gradle.properties and the version catalog."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.findings import Finding
from k8slb.interface.cli import cli
from k8slb.reading.java_builds import (
    MAX_BUILD_FILE,
    GrpcJavaBuild,
    grpc_java_version,
    read_grpc_java,
)

from .helpers import lint_files

SERVER = """\
package com.example.stock;

import io.grpc.Server;
import io.grpc.ServerBuilder;

final class StockServer {
  public static void main(String[] args) throws Exception {
    Server server = FACTORY
        .addService(new StockService())
        .build()
        .start();
    server.awaitTermination();
  }
}
"""
PLAIN = "ServerBuilder.forPort(9090)"
MAIN = "stock/src/main/java/com/example/stock/StockServer.java"


def server(factory: str = PLAIN) -> str:
    return SERVER.replace("FACTORY", factory)


def pom(version: str, *, where: str = "property") -> str:
    """A Maven build on grpc-java `version`: given through a property, or on the dependency."""
    if where == "property":
        return POM.replace("PROPERTIES", f"<grpc.version>{version}</grpc.version>").replace(
            "VERSION", "${grpc.version}"
        )
    return POM.replace("PROPERTIES", "").replace("VERSION", version)


POM = """\
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <artifactId>stock</artifactId>
  <properties>
    <java.version>17</java.version>
    PROPERTIES
  </properties>
  <dependencies>
    <dependency>
      <groupId>io.grpc</groupId>
      <artifactId>grpc-netty-shaded</artifactId>
      <version>VERSION</version>
    </dependency>
  </dependencies>
</project>
"""


def klb201(tmp_path: Path, files: dict[str, str]) -> Finding:
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    return finding


def fixed(tmp_path: Path, files: dict[str, str]) -> str:
    """The server after `k8slb fix --unsafe-fixes`: every fix KLB201 offers, made."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    ran = CliRunner().invoke(
        cli,
        ["fix", "--no-cache", "--isolated", "--unsafe-fixes", "--select", "KLB201", str(tmp_path)],
    )
    assert ran.exit_code in (0, 1), ran.output
    return (tmp_path / MAIN).read_text()


# -- the three cases, and NettyServerBuilder --------------------------------------------------


def test_a_plain_server_builder_on_grpc_java_before_1_47_gets_no_fix_and_is_told_why(
    tmp_path: Path,
) -> None:
    files = {MAIN: server(), "stock/pom.xml": pom("1.41.3")}
    finding = klb201(tmp_path / "lint", files)
    assert not finding.edits and not finding.fix.available
    assert (
        f"ServerBuilder has these settings from grpc-java 1.47.0 on, and "
        f"{tmp_path / 'lint' / 'stock' / 'pom.xml'}:6 gives 1.41.3, so k8slb fix leaves it: "
        "cast to NettyServerBuilder or upgrade grpc-java to >= 1.47.0"
    ) in finding.text
    assert [(r.line, r.message) for r in finding.related] == [(6, "grpc-java 1.41.3")]
    assert fixed(tmp_path / "fix", files) == server(), "refused, even with --unsafe-fixes"


def test_a_plain_server_builder_on_grpc_java_1_47_or_later_gets_the_safe_fix(
    tmp_path: Path,
) -> None:
    for version in ("1.47.0", "1.62.2"):
        files = {MAIN: server(), "stock/pom.xml": pom(version, where="dependency")}
        finding = klb201(tmp_path / version, files)
        assert finding.edits and finding.fix.safe
        assert "1.47.0" not in finding.text
    assert ".maxConnectionAge(5, TimeUnit.MINUTES)" in fixed(tmp_path / "fix", files)


def test_a_plain_server_builder_whose_grpc_java_no_build_says_gets_an_unsafe_fix_naming_1_47(
    tmp_path: Path,
) -> None:
    finding = klb201(tmp_path, {MAIN: server()})
    assert finding.edits and not finding.fix.safe
    assert finding.fix.description == (
        "add maxConnectionAge, maxConnectionAgeGrace (review: ServerBuilder has these "
        "settings from grpc-java 1.47.0 on, and no build file above it gives grpc-java's "
        "version)"
    )


def test_grpc_newserverbuilderforport_is_a_plain_server_builder_too(tmp_path: Path) -> None:
    factory = "Grpc.newServerBuilderForPort(9090, InsecureServerCredentials.create())"
    files = {MAIN: server(factory), "stock/pom.xml": pom("1.45.1")}
    assert not klb201(tmp_path, files).edits


@pytest.mark.parametrize("version", ["1.41.3", None])
def test_a_netty_server_builder_gets_the_safe_fix_on_any_grpc_java(
    tmp_path: Path, version: str | None
) -> None:
    files = {MAIN: server("NettyServerBuilder.forPort(9090)")}
    if version is not None:
        files["stock/pom.xml"] = pom(version)
    finding = klb201(tmp_path, files)
    assert finding.edits and finding.fix.safe
    assert "1.47.0" not in finding.text


# -- where the version is read ----------------------------------------------------------------


def version_of(tmp_path: Path, builds: dict[str, str]) -> tuple[int, ...] | None:
    """The grpc-java version of MAIN, as the build files `builds` (path: text) say it."""
    read: dict[str, list[GrpcJavaBuild]] = {}
    for path, text in builds.items():
        found = read_grpc_java(path, text.encode())
        if found is not None:
            read.setdefault(found.folder, []).append(found)
    return grpc_java_version(MAIN, read).version


GRADLE_CATALOG = """\
[versions]
grpc = "1.41.0"
protobuf = "3.25.3"

[libraries]
grpc-netty = { module = "io.grpc:grpc-netty-shaded", version.ref = "grpc" }
grpc-stub = { group = "io.grpc", name = "grpc-stub", version.ref = "grpc" }
protobuf-java = { module = "com.google.protobuf:protobuf-java", version.ref = "protobuf" }
"""


@pytest.mark.parametrize(
    ("builds", "version"),
    [
        ({"stock/pom.xml": pom("1.41.3")}, (1, 41, 3)),
        ({"stock/pom.xml": pom("1.50.0", where="dependency")}, (1, 50, 0)),
        # a Maven module whose dependency has no version: its parent's dependencyManagement
        (
            {
                "stock/pom.xml": pom("1.62.2", where="dependency").replace(
                    "<version>1.62.2</version>", ""
                ),
                "pom.xml": pom("1.41.3").replace("grpc-netty-shaded", "grpc-bom"),
            },
            (1, 41, 3),
        ),
        # the property in the parent, the dependency in the module
        (
            {
                "stock/pom.xml": pom("").replace("<grpc.version></grpc.version>", ""),
                "pom.xml": "<project><properties><grpc.version>1.44.1</grpc.version>"
                "</properties></project>",
            },
            (1, 44, 1),
        ),
        (
            {
                "stock/build.gradle": "dependencies {\n"
                "  implementation 'io.grpc:grpc-stub:1.41.0'\n}\n"
            },
            (1, 41, 0),
        ),
        (
            {
                "stock/build.gradle.kts": 'val grpcVersion = "1.58.0"\n'
                'dependencies {\n  implementation(platform("io.grpc:grpc-bom:$grpcVersion"))\n'
                '  implementation("io.grpc:grpc-netty-shaded")\n}\n'
            },
            (1, 58, 0),
        ),
        (
            {
                "stock/build.gradle": "dependencies {\n"
                '  implementation "io.grpc:grpc-protobuf:${grpcVersion}"\n'
                "  implementation group: 'io.grpc', name: 'grpc-stub', version: '1.43.2'\n}\n",
                "gradle.properties": "org.gradle.jvmargs=-Xmx2g\ngrpcVersion=1.43.2\n",
            },
            (1, 43, 2),
        ),
        (
            {
                "build.gradle": "ext {\n  grpcVersion = '1.46.0'\n}\n"
                "subprojects {\n  dependencies {\n"
                '    implementation "io.grpc:grpc-netty:$grpcVersion"\n  }\n}\n',
                "stock/build.gradle": "dependencies { implementation project(':proto') }\n",
            },
            (1, 46, 0),
        ),
        ({"stock/gradle/libs.versions.toml": GRADLE_CATALOG}, (1, 41, 0)),
    ],
    ids=[
        "maven-property",
        "maven-dependency",
        "maven-parent-bom",
        "maven-parent-property",
        "gradle-string",
        "gradle-kts-bom-variable",
        "gradle-properties",
        "gradle-root-project",
        "version-catalog",
    ],
)
def test_the_version_is_read_where_the_build_gives_it(
    tmp_path: Path, builds: dict[str, str], version: tuple[int, ...]
) -> None:
    assert version_of(tmp_path, builds) == version


@pytest.mark.parametrize(
    "builds",
    [
        {},
        {"stock/pom.xml": "<project><artifactId>stock</artifactId></project>"},
        # a version k8slb cannot read, a property no build file defines
        {"stock/pom.xml": pom("[1.41,2.0)", where="dependency")},
        {"stock/pom.xml": pom("").replace("<grpc.version></grpc.version>", "")},
        {"stock/build.gradle": 'implementation "io.grpc:grpc-stub:${libs.versions.grpc.get()}"'},
        # artifacts that disagree: which one Maven settles on is not k8slb's to guess
        {
            "stock/pom.xml": pom("1.41.3", where="dependency").replace(
                "</dependencies>",
                "<dependency><groupId>io.grpc</groupId><artifactId>grpc-api</artifactId>"
                "<version>1.60.0</version></dependency></dependencies>",
            )
        },
        # the parent manages the version by a property the module defines again: Maven
        # takes the module's, a Gradle root script its own
        {
            "stock/pom.xml": "<project><properties><grpc.version>1.41.3</grpc.version>"
            "</properties></project>",
            "pom.xml": pom("1.50.0").replace("grpc-netty-shaded", "grpc-bom"),
        },
    ],
    ids=[
        "no-build",
        "no-grpc",
        "range",
        "undefined-property",
        "catalog-accessor",
        "disagree",
        "property-overridden",
    ],
)
def test_the_version_is_unknown_where_the_build_does_not_settle_it(
    tmp_path: Path, builds: dict[str, str]
) -> None:
    assert version_of(tmp_path, builds) is None


@pytest.mark.parametrize(
    "noise",
    [
        # commented out
        "<!-- <dependency><groupId>io.grpc</groupId><artifactId>grpc-api</artifactId>"
        "<version>1.20.0</version></dependency> -->",
        # an exclusion of another library's dependency is not a version of grpc-java
        "<dependency><groupId>com.example</groupId><artifactId>client</artifactId>"
        "<version>2.0.1</version><exclusions><exclusion><groupId>io.grpc</groupId>"
        "<artifactId>grpc-core</artifactId></exclusion></exclusions></dependency>",
        # grpc-kotlin's artifacts are io.grpc's, on versions of their own
        "<dependency><groupId>io.grpc</groupId><artifactId>grpc-kotlin-stub</artifactId>"
        "<version>1.4.1</version></dependency>",
    ],
    ids=["comment", "exclusion", "grpc-kotlin"],
)
def test_what_is_no_grpc_java_version_is_passed_over(tmp_path: Path, noise: str) -> None:
    text = pom("1.62.2").replace("<dependencies>", f"<dependencies>\n    {noise}")
    assert version_of(tmp_path, {"stock/pom.xml": text}) == (1, 62, 2)


def test_a_build_spelled_from_another_folder_is_the_modules_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file named from inside its module (`src/...`) and its project's build found as
    context from the repository's top (`../stock/pom.xml`) are one project."""
    (tmp_path / "stock").mkdir()
    monkeypatch.chdir(tmp_path / "stock")
    build = read_grpc_java("../stock/pom.xml", pom("1.41.3").encode())
    assert build is not None
    found = grpc_java_version(
        "src/main/java/com/example/stock/StockServer.java", {build.folder: [build]}
    )
    assert found.version == (1, 41, 3)


def test_a_build_file_past_its_budget_or_broken_says_nothing() -> None:
    huge = pom("1.41.3") + " " * MAX_BUILD_FILE
    assert read_grpc_java("stock/pom.xml", huge.encode()) is None
    assert read_grpc_java("gradle/libs.versions.toml", b"[libraries\ngrpc = {") is None
    deep = b"x = " + b"[" * 100_000
    assert read_grpc_java("gradle/libs.versions.toml", deep) is None
