"""Modules that push to one image repository, told apart by their tags: each Maven
module's Jib `<to><image>acme/harbour:berths_v1_1.4.0</image>` (or Spring Boot's
buildpacks `<image><name>`) names the same repository, the tag says which module it is.
A container of `acme/harbour:berths_v1_1.4.0` runs the module whose build writes that
tag; one of the same tag at another version (`berths_v1_1.3.9`, an older release of the
same build), that module too; one whose tag says in other words what one build's tag
alone says (`harbour-tolls_1.4.0` for `port-svc-tolls_1.4.0`), that module, as a guess."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from k8slb.reading.build_files import jib_builds

from tests.test_links import links, workload

POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.harbour</groupId>
  <artifactId>{artifact}</artifactId>
  <version>1.4.0</version>
  <build>
    <plugins>
      <plugin>
        <groupId>com.google.cloud.tools</groupId>
        <artifactId>jib-maven-plugin</artifactId>
        <configuration>
          <to>
            <image>{image}</image>
          </to>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""

JAVA = (
    "package org.harbour.{name};\n\n"
    "public class Main {{\n    public static void main(String[] args) {{}}\n}}\n"
)

# module folder -> the tag its Jib build pushes to acme/harbour
MODULES = {
    "berths-v1": "port-svc-berths_v1_1.4.0",
    "berths-v2": "port-svc-berths_v2_1.4.0",
    "tolls": "port-svc-tolls_1.4.0",
}


def _tree(images: dict[str, str], modules: dict[str, str] | None = None) -> dict[str, str]:
    files = {}
    for folder, tag in (modules or MODULES).items():
        files[f"{folder}/pom.xml"] = POM.format(artifact=folder, image=f"acme/harbour:{tag}")
        package = folder.replace("-", "")
        files[f"{folder}/src/main/java/org/harbour/{package}/Main.java"] = JAVA.format(name=package)
    for name, image in images.items():
        files[f"deploy/{name}.yaml"] = workload(name=name, image=image)
    return files


def _rows(tmp_path: Path, files: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {row["container"].split("/")[2].split(":")[0]: row for row in links(tmp_path, files)}


def test_a_jib_build_keeps_the_tag_it_pushes() -> None:
    text = POM.format(artifact="tolls", image="acme/harbour:port-svc-tolls_1.4.0")
    (build,) = jib_builds("tolls/pom.xml", text)
    assert (build.context, build.tags) == ("tolls", ("port-svc-tolls_1.4.0",))
    text = POM.format(artifact="tolls", image="acme/harbour:${revision}")
    assert jib_builds("tolls/pom.xml", text)[0].tags == (None,)


def test_the_container_runs_the_module_whose_build_pushes_its_tag(tmp_path: Path) -> None:
    rows = _rows(tmp_path, _tree({"berths": "acme/harbour:port-svc-berths_v2_1.4.0"}))
    assert rows["berths"]["code"] == "berths-v2"
    assert rows["berths"]["evidence"][0].startswith("jib: berths-v2/pom.xml:")


def test_a_tag_at_another_version_is_the_same_module_s(tmp_path: Path) -> None:
    rows = _rows(tmp_path, _tree({"berths": "acme/harbour:port-svc-berths_v1_1.3.9"}))
    assert rows["berths"]["code"] == "berths-v1"
    assert rows["berths"]["evidence"][0] == (
        "jib: berths-v1/pom.xml:13: <image>acme/harbour:port-svc-berths_v1_1.4.0</image> "
        "(its tag port-svc-berths_v1_1.4.0: port-svc-berths_v1_1.3.9 at another version)"
    )


def test_a_tag_saying_what_one_build_s_tag_alone_says_is_a_guess(tmp_path: Path) -> None:
    """`harbour-tolls_1.4.0`: less the repository's words (`harbour`) and the words every
    build's tag shares (`port svc`), `tolls`, which only the tolls module's tag says."""
    rows = _rows(tmp_path, _tree({"tolls": "acme/harbour:harbour-tolls_1.4.0"}))
    assert rows["tolls"]["code"] == "tolls"
    assert rows["tolls"]["evidence"][0] == (
        "image name guess: tolls/pom.xml:13: <image>acme/harbour:port-svc-tolls_1.4.0</image> "
        "(a guess: of the builds of acme/harbour, its tag port-svc-tolls_1.4.0 alone says "
        "what harbour-tolls_1.4.0 says: tolls)"
    )


def test_a_tag_that_says_less_or_other_words_links_no_module(tmp_path: Path) -> None:
    """`berths` alone is said by two builds' tags with more (`v1`, `v2`); `cranes` by
    none; and a version alone tells no module apart: no link."""
    images = {
        "berths": "acme/harbour:harbour-berths_1.4.0",
        "cranes": "acme/harbour:port-svc-cranes_1.4.0",
        "plain": "acme/harbour:1.4.0",
    }
    rows = _rows(tmp_path, _tree(images))
    assert [rows[name]["code"] for name in images] == [None, None, None]


def test_a_build_whose_tag_is_not_known_may_be_the_one_no_link(tmp_path: Path) -> None:
    """A module pushing `acme/harbour:${revision}` may push the container's tag: neither
    the tag at another version nor the words decide."""
    modules = {**MODULES, "pilots": "${revision}"}
    images = {
        "berths": "acme/harbour:port-svc-berths_v1_1.3.9",
        "tolls": "acme/harbour:harbour-tolls_1.4.0",
    }
    rows = _rows(tmp_path, _tree(images, modules))
    assert [rows[name]["code"] for name in images] == [None, None]
