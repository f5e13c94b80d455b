"""A Maven module that takes a Quarkus container-image extension (`quarkus-container-image-
docker`, `-jib`, ...) builds its image when packaged, named by its `quarkus.container-image.*`
properties (its own POM's over its parents'): that build of the module outranks a folder
that only shares the image's name."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.maven_poms import quarkus_images, read_pom

from tests.test_links import links, workload

PARENT = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.tideline</groupId>
  <artifactId>gateways-parent</artifactId>
  <version>3.1.0</version>
  <packaging>pom</packaging>
  <properties>
    <quarkus.container-image.registry>quay.io</quarkus.container-image.registry>
    <quarkus.container-image.group>tideline</quarkus.container-image.group>
  </properties>
  <modules>
    <module>ledger-gateway</module>
    <module>search-gateway</module>
  </modules>
</project>
"""


def _gateway(artifact: str, properties: str, extension: str = "docker") -> str:
    return f"""\
<project>
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.tideline</groupId>
    <artifactId>gateways-parent</artifactId>
    <version>3.1.0</version>
  </parent>
  <artifactId>{artifact}</artifactId>
  <properties>
{properties}  </properties>
  <dependencies>
    <dependency>
      <groupId>io.quarkus</groupId>
      <artifactId>quarkus-container-image-{extension}</artifactId>
    </dependency>
  </dependencies>
  <profiles>
    <profile>
      <id>native</id>
      <properties>
        <quarkus.container-image.name>{artifact}-native</quarkus.container-image.name>
      </properties>
    </profile>
  </profiles>
</project>
"""


LEDGER = _gateway(
    "ledger-gateway",
    "    <quarkus.container-image.name>ledger</quarkus.container-image.name>\n"
    "    <quarkus.container-image.tag>v${project.version}</quarkus.container-image.tag>\n",
)
SEARCH = _gateway("search-gateway", "", extension="jib")
RESOURCE = """\
package org.tideline.ledger;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

@Path("/ledger")
public class LedgerResource {
    @GET
    public String entries() { return "[]"; }
}
"""
# the core holds a module of its own named as the image: an add-on of the core's server,
# built into the core's image, not the gateway's
CORE_LEDGER_POM = (
    "<project><groupId>org.tideline</groupId><artifactId>ledger</artifactId>"
    "<version>3.1.0</version><packaging>bundle</packaging></project>\n"
)
CORE_LEDGER = (
    "package org.tideline.core.ledger;\n\npublic class Activator {\n    public void start() {}\n}\n"
)


def _tree() -> dict[str, str]:
    return {
        "gateways/pom.xml": PARENT,
        "gateways/ledger-gateway/pom.xml": LEDGER,
        "gateways/ledger-gateway/src/main/java/org/tideline/ledger/LedgerResource.java": RESOURCE,
        "gateways/search-gateway/pom.xml": SEARCH,
        "gateways/search-gateway/src/main/java/org/tideline/search/SearchResource.java": (
            RESOURCE.replace("ledger", "search")
        ),
        "core/ledger/pom.xml": CORE_LEDGER_POM,
        "core/ledger/src/main/java/org/tideline/core/ledger/Activator.java": CORE_LEDGER,
        "deploy/ledger.yaml": workload(name="ledger", image="quay.io/tideline/ledger:v3"),
        "deploy/search.yaml": workload(name="search", image="quay.io/tideline/search-gateway:v3"),
    }


def test_a_module_s_quarkus_properties_name_the_image_it_builds() -> None:
    poms = [read_pom(path, text) for path, text in _tree().items() if path.endswith("pom.xml")]
    found = quarkus_images(pom for pom in poms if pom is not None)
    assert sorted((each.image, each.module, each.line) for each in found) == [
        ("quay.io/tideline/ledger", os.path.join("gateways", "ledger-gateway"), 10),
        # no name of its own: its artifactId, the group its parent's (said there)
        ("quay.io/tideline/search-gateway", os.path.join("gateways", "search-gateway"), 9),
    ]


def test_a_quarkus_built_image_links_its_module_over_a_folder_of_its_name(
    tmp_path: Path,
) -> None:
    rows = {row["container"]: row for row in links(tmp_path, _tree())}
    ledger = rows["Deployment/shop/ledger:server"]
    assert ledger["code"] == os.path.join("gateways", "ledger-gateway")
    assert ledger["evidence"][0] == (
        "quarkus: gateways/ledger-gateway/pom.xml:10: "
        "<quarkus.container-image.name>ledger</quarkus.container-image.name>"
    )
    search = rows["Deployment/shop/search:server"]
    assert search["code"] == os.path.join("gateways", "search-gateway")


def test_no_group_written_is_no_image(tmp_path: Path) -> None:
    """Quarkus's default group is the name of the user who builds: not known."""
    files = _tree()
    files["gateways/pom.xml"] = PARENT.replace(
        "    <quarkus.container-image.group>tideline</quarkus.container-image.group>\n", ""
    )
    poms = [read_pom(path, text) for path, text in files.items() if path.endswith("pom.xml")]
    assert quarkus_images(pom for pom in poms if pom is not None) == []


def test_a_module_without_the_extension_builds_no_quarkus_image() -> None:
    files = _tree()
    poms = [
        read_pom(path, text.replace("quarkus-container-image-docker", "quarkus-rest"))
        for path, text in files.items()
        if path.endswith("pom.xml") and "search" not in path
    ]
    assert quarkus_images(pom for pom in poms if pom is not None) == []
