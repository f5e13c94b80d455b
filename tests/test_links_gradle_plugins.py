"""A Gradle build that keeps its Jib configuration in a script plugin of its own
(`gradle/docker.gradle`, applied by `apply from:`): Gradle evaluates the plugin as part
of the applying project, so the image it names is built from that project's folder, with
no Dockerfile. A plugin no build applies configures no project."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import gradle_applied

from tests.test_links import links, only, workload

JAVA = """\
package org.ferrybook.{name};

public class Main {{
    public static void main(String[] args) {{
        System.out.println("{name}");
    }}
}}
"""

GRADLE = """\
plugins {
    id "java"
    id "com.google.cloud.tools.jib" version "3.4.0"
}

group = "org.ferrybook"
apply from: "gradle/docker.gradle"
apply from: "gradle/profile_${profile}.gradle"
apply from: "https://ferrybook.example/shared.gradle"
"""

DOCKER_GRADLE = """\
jib {
    from {
        image = "eclipse-temurin:17-jre"
    }
    to {
        image = "bookings:latest"
    }
}
"""

# the same service generated again beside, as a Maven build, for a compose demo
POM = """\
<project>
  <artifactId>bookings</artifactId>
  <build><plugins><plugin>
    <artifactId>jib-maven-plugin</artifactId>
    <configuration><to><image>bookings:latest</image></to></configuration>
  </plugin></plugins></build>
</project>
"""


def tree(*, applied: bool = True) -> dict[str, str]:
    build = GRADLE if applied else GRADLE.replace('apply from: "gradle/docker.gradle"\n', "")
    return {
        "k8s-demo/k8s/bookings.yaml": workload(
            name="bookings", image="registry.ferrybook.example/bookings"
        ),
        "k8s-demo/bookings/build.gradle": build,
        "k8s-demo/bookings/gradle/docker.gradle": DOCKER_GRADLE,
        "k8s-demo/bookings/src/main/java/org/ferrybook/bookings/Main.java": JAVA.format(
            name="bookings"
        ),
        "compose-demo/bookings/pom.xml": POM,
        "compose-demo/bookings/src/main/java/org/ferrybook/bookings/Main.java": JAVA.format(
            name="bookings"
        ),
    }


def test_a_script_plugin_s_jib_image_is_built_from_the_project_that_applies_it(
    tmp_path: Path,
) -> None:
    row = only(links(tmp_path, tree()))
    # two builds name the image alike: the one beside the manifest's folder wins
    assert row["code"] == "k8s-demo/bookings"
    assert row["evidence"][0] == (
        'jib: k8s-demo/bookings/gradle/docker.gradle:6: image = "bookings:latest"'
    )


def test_a_script_plugin_no_build_applies_builds_nothing(tmp_path: Path) -> None:
    row = only(links(tmp_path, tree(applied=False)))
    assert row["code"] == "compose-demo/bookings"


def test_the_plugins_a_build_applies_are_the_repository_s_literal_paths() -> None:
    kotlin = 'apply(from = "../shared/jib.gradle.kts")\napply(plugin = "java")\n'
    assert gradle_applied("svc/build.gradle.kts", kotlin) == ("shared/jib.gradle.kts",)
    assert gradle_applied("bookings/build.gradle", GRADLE) == ("bookings/gradle/docker.gradle",)
