"""KLB406 reads which shell `/bin/sh` is from the Dockerfile a container's image is built
with even when no code is linked to it (a Dockerfile shared by services whose build
argument no build gives): the base's distribution says, and no code link is invented."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# One Dockerfile for the catalog's services: the jar a build argument names is copied, and
# the script that builds the image gives no value for it.
SHARED_DOCKERFILE = (
    "FROM registry.example/gradle:8 AS build\n"
    "WORKDIR /src\n"
    "COPY . .\n"
    "RUN ./gradlew build\n"
    "FROM {base}\n"
    "ARG SERVICE_JARS\n"
    "WORKDIR /opt/app\n"
    "COPY --from=build /src/$SERVICE_JARS ./\n"
    'ENTRYPOINT ["java", "-jar", "app.jar"]\n'
)
BUILD_SCRIPT = (
    "#!/bin/sh\ndocker build -f docker/services.Dockerfile -t registry.example/web:1.0 .\n"
)
COMMAND = 'command: ["sh", "-c", "java -Xmx512m -jar /opt/app/web.jar --port=8080"]'


def tree(base: str) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(COMMAND),
        "build.sh": BUILD_SCRIPT,
        "docker/services.Dockerfile": SHARED_DOCKERFILE.format(base=base),
        "services/web/build.gradle": "plugins { id 'java' }\n",
        "services/web/src/main/java/shop/Web.java": "package shop;\nclass Web {}\n",
        "services/stock/build.gradle": "plugins { id 'java' }\n",
        "services/stock/src/main/java/shop/Stock.java": "package shop;\nclass Stock {}\n",
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_a_debian_slim_base_of_a_dockerfile_linked_to_no_code_makes_sh_dash(
    tmp_path: Path,
) -> None:
    (finding,) = klb406(tmp_path, tree("registry.example/jre:17-slim"))
    assert finding.severity is Severity.WARNING
    assert finding.path.endswith("k8s/web.yaml")
    assert "Debian's or Ubuntu's, whose /bin/sh is dash" in finding.text


def test_an_alpine_base_of_a_dockerfile_linked_to_no_code_makes_java_pid_1(
    tmp_path: Path,
) -> None:
    assert klb406(tmp_path, tree("registry.example/jre:17-alpine")) == []


def test_a_base_that_says_no_distribution_leaves_the_shell_unknown(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree("registry.example/jre:17"))
    assert finding.severity is Severity.INFO
