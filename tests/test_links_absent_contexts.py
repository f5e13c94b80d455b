"""A build whose context the repository does not hold (a build tool's output folder, made
when the build runs): the container runs the code of the module that makes it, and a link
to a path the repository does not hold is never stronger than one to code."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_links import DOCKERFILE, links, only, service_app, workload

POM = """\
<project>
  <modelVersion>4.0.0</modelVersion>
  <artifactId>{name}</artifactId>
  <build><plugins><plugin>
    <groupId>io.fabric8</groupId><artifactId>docker-maven-plugin</artifactId>
  </plugin></plugins></build>
</project>
"""
APP = """\
package acme.{package};

public class App {{
    public static void main(String[] args) {{
        System.out.println("serving");
    }}
}}
"""
# fabric8's docker-maven-plugin writes the context under target/ (`mvn docker:build`), and
# the workflow pushes it
PUSH = """\
on: push
jobs:
  image:
    runs-on: ubuntu-latest
    steps:
      - run: mvn -pl {name} package docker:build
      - uses: docker/build-push-action@v6
        with:
          context: ./{name}/target/docker/{name}/build
          file: ./{name}/target/docker/{name}/build/Dockerfile
          push: true
          tags: |
            acme/shop-{name}:latest
            ${{{{ secrets.REGISTRY }}}}/{name}:latest
"""


def maven_module(name: str, package: str = "") -> dict[str, str]:
    """A Maven module, its code in a Java package (named as the module, by default)."""
    package = package or name
    return {
        f"{name}/pom.xml": POM.format(name=name),
        f"{name}/src/main/java/acme/{package}/App.java": APP.format(package=package),
    }


def test_a_build_from_a_maven_module_s_output_folder_runs_the_module_s_code(
    tmp_path: Path,
) -> None:
    files = {
        "pom.xml": POM.format(name="parent"),
        "k8s/person.yaml": workload(name="person", image="acme/shop-person:latest"),
        ".github/workflows/person.yml": PUSH.format(name="person"),
        **maven_module("person"),
        **maven_module("billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "person"
    assert row["modules"] == 1
    assert row["evidence"][0].endswith(
        f"({os.path.join('person', 'target', 'docker', 'person', 'build')} is the output of "
        "the build of person)"
    )


def test_the_image_name_naming_the_module_agrees_with_the_build_of_its_output(
    tmp_path: Path,
) -> None:
    """`person-service:latest`, pushed by the workflow under a registry it keeps secret, is
    built from person-service's output: the name and the build agree, none is overruled."""
    files = {
        "k8s/person.yaml": workload(name="person", image="person-service:latest"),
        ".github/workflows/person.yml": PUSH.format(name="person-service"),
        **maven_module("person-service", "person"),
        **maven_module("billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "person-service"
    assert [e.split(":", 1)[0] for e in row["evidence"]] == ["workflow", "image name"]
    assert row["overruled"] == []


def test_a_build_from_a_folder_the_repository_lacks_is_weaker_than_a_name_linking_code(
    tmp_path: Path,
) -> None:
    """A context no module makes (`dist/image`, written by a step of the workflow) and a
    Dockerfile the tree lacks: a folder of code named as the image wins over it."""
    workflow = PUSH.replace("./{name}/target/docker/{name}/build", "./dist/image").format(
        name="cart"
    )
    files = {
        "k8s/cart.yaml": workload(name="cart", image="acme/shop-cart:latest"),
        ".github/workflows/cart.yml": workflow,
        "cart/Dockerfile": DOCKERFILE,
        **service_app("cart"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cart", "server.py")
    assert row["overruled"][0].startswith("workflow: .github/workflows/cart.yml:")


MAKEFILE = "image:\n\tmvn package\n\tdocker build -t acme/{name}:latest -f ./Dockerfile .\n"
JAR_DOCKERFILE = """\
FROM eclipse-temurin:17 AS builder
ARG JAR_FILE={jar}
COPY ${{JAR_FILE}} application.jar
RUN java -Djarmode=layertools -jar application.jar extract

FROM eclipse-temurin:17
COPY --from=builder application/ ./
ENTRYPOINT ["java", "org.springframework.boot.loader.JarLauncher"]
"""


def test_a_jar_a_build_argument_copies_from_target_runs_the_maven_project_s_code(
    tmp_path: Path,
) -> None:
    """`ARG JAR_FILE=target/accounts-0.1.jar` then `COPY ${JAR_FILE}`: the jar is what
    `mvn package` writes, not a folder of code; the container runs the Maven project whose
    folder holds `target/`."""
    files = {
        "Makefile": MAKEFILE.format(name="accounts"),
        "Dockerfile": JAR_DOCKERFILE.format(jar="target/accounts-0.1.jar"),
        "k8s/accounts.yaml": workload(name="accounts", image="acme/accounts:latest"),
        "pom.xml": POM.format(name="accounts"),
        "src/main/java/acme/accounts/App.java": APP.format(package="accounts"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "."
    assert any(e.endswith("(built by the module .)") for e in row["evidence"])


def test_a_jar_of_a_folder_with_no_build_file_links_no_output_path(tmp_path: Path) -> None:
    """A jar below a `build/` that no Gradle or Maven project holds names no module: the
    link is not moved to a guessed project, nor kept on the jar's path (no code)."""
    files = {
        "Makefile": MAKEFILE.format(name="accounts"),
        "Dockerfile": JAR_DOCKERFILE.format(jar="vendor/build/accounts.jar"),
        "k8s/accounts.yaml": workload(name="accounts", image="acme/accounts:latest"),
        "pom.xml": POM.format(name="accounts"),
        "src/main/java/acme/accounts/App.java": APP.format(package="accounts"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None


def gradle_module(name: str) -> dict[str, str]:
    return {
        f"{name}/build.gradle": "plugins { id 'application' }\n",
        f"{name}/src/main/java/acme/{name}/App.java": APP.format(package=name),
        f"{name}/Dockerfile": (
            f"FROM eclipse-temurin:17\nADD {name}/build/install/* /{name}/\n"
            f'ADD {name}/start.sh /{name}/\nENTRYPOINT ["/{name}/start.sh"]\n'
        ),
        f"{name}/start.sh": f"#!/bin/sh\nexec /{name}/bin/{name}\n",
    }


def test_an_installed_gradle_output_copied_from_the_top_runs_its_module_s_code(
    tmp_path: Path,
) -> None:
    """`docker build . -f api/Dockerfile` from the top of two Gradle modules, the
    Dockerfile adding `api/build/install/*` (what `gradle installDist` writes): the
    container runs api's code, not the top's, which holds web's too."""
    files = {
        "settings.gradle": 'include "api"\ninclude "web"\n',
        "build.gradle": "allprojects { repositories { mavenCentral() } }\n",
        "build.sh": "#!/bin/sh\ndocker build . -f api/Dockerfile -t acme/api:1.0\n",
        "k8s/api.yaml": workload(name="api", image="acme/api:1.0"),
        **gradle_module("api"),
        **gradle_module("web"),
    }
    assert only(links(tmp_path, files))["code"] == "api"


SHARED_RELEASE = """\
FROM eclipse-temurin:21
ARG MODULE
ARG RELEASE
COPY ${MODULE}-${RELEASE}-fat.jar /srv/
ENV JAR=/srv/${MODULE}-${RELEASE}-fat.jar
CMD ["sh", "-c", "exec java -jar $JAR"]
"""
RELEASE_MAKEFILE = """\
RELEASE ?= 2.3.0
images:
\tmvn -q package
\tcp orders/server/target/*-fat.jar billing/server/target/*-fat.jar .
\tdocker build -f Dockerfile.release --build-arg MODULE=shop-orders-server \\
\t\t--build-arg RELEASE=$(RELEASE) -t acme/orders:$(RELEASE) .
\tdocker build -f Dockerfile.release --build-arg MODULE=shop-billing-server \\
\t\t--build-arg RELEASE=$(RELEASE) -t acme/billing:$(RELEASE) .
"""
PARENT_POM = """\
<project>
  <parent><artifactId>shop</artifactId><version>2.3.0</version></parent>
  <artifactId>{name}</artifactId>
  <packaging>pom</packaging>
</project>
"""


def test_a_jar_named_by_build_arguments_runs_the_maven_module_whose_artifact_it_is(
    tmp_path: Path,
) -> None:
    """One Dockerfile for every service copies `${MODULE}-${RELEASE}-fat.jar` from the
    context's top: the jar's file name is not code; the module whose artifactId it starts
    with before its version (`shop-orders-server`, not its parent `shop-orders`) is."""
    files = {
        "Makefile": RELEASE_MAKEFILE,
        "Dockerfile.release": SHARED_RELEASE,
        "pom.xml": PARENT_POM.format(name="shop"),
        "orders/pom.xml": PARENT_POM.format(name="shop-orders"),
        "billing/pom.xml": PARENT_POM.format(name="shop-billing"),
        "k8s/orders.yaml": workload(name="orders", image="acme/orders:2.3.0"),
        "k8s/billing.yaml": workload(name="billing", image="acme/billing:2.3.0"),
    }
    for service in ("orders", "billing"):
        files[f"{service}/server/pom.xml"] = POM.format(name=f"shop-{service}-server")
        path = f"{service}/server/src/main/java/acme/{service}/App.java"
        files[path] = APP.format(package=service)
    rows = links(tmp_path, files)
    code = {row["container"].split(":")[0].split("/")[-1]: row["code"] for row in rows}
    assert code == {
        "orders": os.path.join("orders", "server"),
        "billing": os.path.join("billing", "server"),
    }
    orders = only([row for row in rows if "orders" in row["container"]])
    built = f"(built by the module {os.path.join('orders', 'server')})"
    assert any(evidence.endswith(built) for evidence in orders["evidence"])


def test_a_jar_name_two_modules_give_links_no_module(tmp_path: Path) -> None:
    """Two poms whose own artifactId is the jar's: which builds the image, nothing says."""
    files = {
        "Makefile": RELEASE_MAKEFILE,
        "Dockerfile.release": SHARED_RELEASE,
        "k8s/orders.yaml": workload(name="orders", image="acme/orders:2.3.0"),
        "orders/server/pom.xml": POM.format(name="shop-orders-server"),
        "orders/server/src/main/java/acme/orders/App.java": APP.format(package="orders"),
        "legacy/server/pom.xml": POM.format(name="shop-orders-server"),
        "legacy/server/src/main/java/acme/legacy/App.java": APP.format(package="legacy"),
    }
    rows = [row for row in links(tmp_path, files) if "orders" in row["container"]]
    assert all(not str(row["code"]).startswith(("orders", "legacy")) for row in rows)
