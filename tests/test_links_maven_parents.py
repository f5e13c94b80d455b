"""A Maven module whose Jib image its parent POM configures: the parent (a shared "bom"
or the project's root) names `jib-maven-plugin` with `<to><image>` written once for
every module, from the module's own `${project.artifactId}` and the parent's
`<properties>`; the module only names its `<parent>`. Maven merges the configuration
and fills the values as the module sees them, so the image is the module's, built from
its folder with no Dockerfile (reading/maven_poms.py)."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.maven_poms import MAX_DEPTH, Pom, inherited_jib_images, read_pom

from tests.test_links import links, only, workload

PARENT = """\
<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.tramline</groupId>
  <artifactId>tramline-parent</artifactId>
  <version>2.4.0</version>
  <packaging>pom</packaging>
  <properties>
    <registry>registry.tramline.example</registry>
    <image.name>${project.artifactId}-svc</image.name>
  </properties>
  <build>
    <plugins>
      <plugin>
        <groupId>com.google.cloud.tools</groupId>
        <artifactId>jib-maven-plugin</artifactId>
        <version>3.4.0</version>
        <configuration>
          <!-- <to><image>registry.tramline.example/old</image></to> -->
          <to>
            <image>${registry}/${image.name}</image>
            <tags><tag>${project.version}</tag></tags>
          </to>
        </configuration>
      </plugin>
    </plugins>
  </build>
  <profiles>
    <profile>
      <id>release</id>
      <build><plugins><plugin>
        <artifactId>jib-maven-plugin</artifactId>
        <configuration><to><image>registry.tramline.example/release</image></to></configuration>
      </plugin></plugins></build>
    </profile>
  </profiles>
</project>
"""


def module(artifact: str, relative: str | None = None, build: str = "") -> str:
    path = "" if relative is None else f"\n    <relativePath>{relative}</relativePath>"
    return (
        "<project>\n  <parent>\n    <groupId>org.tramline</groupId>\n"
        f"    <artifactId>tramline-parent</artifactId>\n    <version>2.4.0</version>{path}\n"
        f"  </parent>\n  <artifactId>{artifact}</artifactId>\n{build}</project>\n"
    )


JAVA = (
    "package org.tramline.{name};\n\n"
    "public class Main {{\n    public static void main(String[] args) {{}}\n}}\n"
)


def test_a_module_s_image_is_the_one_its_parent_pom_configures_for_it(tmp_path: Path) -> None:
    # the parent in a folder of its own, found by its coordinates (Maven: once installed)
    files = {
        "k8s/tickets.yaml": workload(name="tickets", image="registry.tramline.example/tickets-svc"),
        "k8s/fares.yaml": workload(name="fares", image="registry.tramline.example/fares-svc:2.4.0"),
        "tramline-parent/pom.xml": PARENT,
        "tickets/pom.xml": module("tickets"),
        "tickets/src/main/java/org/tramline/tickets/Main.java": JAVA.format(name="tickets"),
        "fares/pom.xml": module("fares"),
        "fares/src/main/java/org/tramline/fares/Main.java": JAVA.format(name="fares"),
    }
    rows = {row["container"].split("/")[2].split(":")[0]: row for row in links(tmp_path, files)}
    assert rows["tickets"]["code"] == "tickets"
    assert rows["fares"]["code"] == "fares"
    assert rows["tickets"]["evidence"][0] == (
        "jib: tramline-parent/pom.xml:21: <image>${registry}/${image.name}</image> "
        "(parent of tickets/pom.xml)"
    )


def test_the_module_s_own_configuration_and_properties_win(tmp_path: Path) -> None:
    # a parent at the default ../pom.xml whose Jib is only managed; the module uses it
    # and sets its own property
    parent = PARENT.replace("<plugins>", "<pluginManagement><plugins>").replace(
        "</plugins>\n  </build>\n  <profiles>",
        "</plugins></pluginManagement>\n  </build>\n  <profiles>",
    )
    uses = (
        "  <properties><registry>mirror.tramline.example</registry></properties>\n"
        "  <build><plugins><plugin><groupId>com.google.cloud.tools</groupId>"
        "<artifactId>jib-maven-plugin</artifactId></plugin></plugins></build>\n"
    )
    files = {
        "k8s/tickets.yaml": workload(name="tickets", image="mirror.tramline.example/tickets-svc"),
        "pom.xml": parent,
        "tickets/pom.xml": module("tickets", build=uses),
        "tickets/src/main/java/org/tramline/tickets/Main.java": JAVA.format(name="tickets"),
        # managed, never used: Jib does not build it
        "fares/pom.xml": module("fares"),
        "fares/src/main/java/org/tramline/fares/Main.java": JAVA.format(name="fares"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "tickets"
    assert row["evidence"][0].startswith("jib: pom.xml:21:")
    built = [found.module for found in inherited_jib_images(_poms(files))]
    assert built == ["tickets"]


def test_no_image_when_a_value_is_unknown_or_the_parent_is_not_the_one_named() -> None:
    # an environment variable: not known here
    unknown = PARENT.replace("${registry}", "${env.REGISTRY}")
    assert not inherited_jib_images(_poms({"pom.xml": unknown, "a/pom.xml": module("a")}))
    # a relative path to a POM of other coordinates, and two POMs with the parent's
    other = PARENT.replace("tramline-parent", "other-parent")
    files = {"base/pom.xml": other, "a/pom.xml": module("a", relative="../base")}
    assert not inherited_jib_images(_poms(files))
    twice = {"p1/pom.xml": PARENT, "p2/pom.xml": PARENT, "a/pom.xml": module("a")}
    assert not inherited_jib_images(_poms(twice))
    # a literal image every module would be given: which one a container runs is not said
    literal = PARENT.replace("${registry}/${image.name}", "registry.tramline.example/all")
    files = {"pom.xml": literal, "a/pom.xml": module("a"), "b/pom.xml": module("b")}
    assert not inherited_jib_images(_poms(files))
    # `<inherited>false</inherited>`: the parent's own
    kept = PARENT.replace("<version>3.4.0</version>", "<inherited>false</inherited>")
    assert not inherited_jib_images(_poms({"pom.xml": kept, "a/pom.xml": module("a")}))


def test_a_chain_of_parents_is_followed_to_its_budget() -> None:
    def level(depth: int, last: int) -> str:
        above = "tramline-parent" if depth == 0 else f"level{depth - 1}"
        text = module(f"level{depth}", relative="../pom.xml" if depth == 0 else f"../{above}")
        text = text.replace(
            "<artifactId>tramline-parent</artifactId>", f"<artifactId>{above}</artifactId>"
        )
        packaging = "" if depth == last else "<packaging>pom</packaging>\n"
        return text.replace("</project>", f"{packaging}</project>")

    last = MAX_DEPTH + 1  # the module, MAX_DEPTH + 1 parents of the tree above it
    files = {"pom.xml": PARENT} | {f"level{d}/pom.xml": level(d, last) for d in range(last + 1)}
    assert not inherited_jib_images(_poms(files)), "past MAX_DEPTH parents: not followed"
    last = MAX_DEPTH - 1  # MAX_DEPTH parents: followed
    files = {"pom.xml": PARENT} | {f"level{d}/pom.xml": level(d, last) for d in range(last + 1)}
    assert [found.image for found in inherited_jib_images(_poms(files))] == [
        f"registry.tramline.example/level{last}-svc"
    ]


def _poms(files: dict[str, str]) -> list[Pom]:
    read = (read_pom(p, text) for p, text in files.items() if os.path.basename(p) == "pom.xml")
    return [pom for pom in read if pom is not None]


ROOT_GRADLE = """\
plugins {
    id 'java'
    id 'com.google.cloud.tools.jib' version '3.4.0' apply false
}

subprojects {
    apply plugin: 'java'
    apply plugin: 'com.google.cloud.tools.jib'
    group = 'org.tramline'
    jib {
        from { image = 'eclipse-temurin:21-jre' }
        to {
            image = "registry.tramline.example/${project.name}-svc:${version}"
        }
    }
}
"""


def test_a_gradle_subproject_s_image_is_the_one_the_root_build_names_for_it(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/tickets.yaml": workload(name="tickets", image="registry.tramline.example/tickets-svc"),
        "build.gradle": ROOT_GRADLE,
        "settings.gradle": "rootProject.name = 'tramline'\ninclude 'tickets', 'fares'\n",
        "tickets/build.gradle": "dependencies { implementation 'com.google.guava:guava:33.0.0' }\n",
        "tickets/src/main/java/org/tramline/tickets/Main.java": JAVA.format(name="tickets"),
        "fares/build.gradle": "jib { to { image = 'registry.tramline.example/fares-own' } }\n",
        "fares/src/main/java/org/tramline/fares/Main.java": JAVA.format(name="fares"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "tickets"
    assert row["evidence"][0] == (
        'jib: build.gradle:13: image = "registry.tramline.example/${project.name}-svc:${version}"'
        " (subproject tickets)"
    )
    # fares' own image stands: the root's is not its build
    files["k8s/fares.yaml"] = workload(name="fares", image="registry.tramline.example/fares-svc")
    rows = links(tmp_path / "again", files)
    fares = [row for row in rows if "fares" in row["container"]]
    assert not any("build.gradle:13" in line for row in fares for line in row["evidence"])
    # an image every subproject would get says nothing
    files["build.gradle"] = ROOT_GRADLE.replace("${project.name}-svc", "tramline")
    files["k8s/tickets.yaml"] = workload(name="tickets", image="registry.tramline.example/tramline")
    rows = links(tmp_path / "literal", files)
    assert [row["code"] for row in rows if "tickets" in row["container"]] == [None]
