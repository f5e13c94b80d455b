"""A Jenkins pipeline (`Jenkinsfile`, `Jenkinsfile.master`) builds images as a CI workflow
does: its shell steps' `docker build` lines (`sh '...'`, `sh "..."`, `sh '''...'''`) and the
Docker Pipeline plugin's `docker.build("IMAGE", "ARGS")`, each step a new shell run in the
checkout's top or the folder of a `dir('x') { }` around it, with the pipeline's
`environment` variables set."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import script_builds
from k8slb.reading.jenkins import jenkins_builds

from tests.test_links import links, only, service_app, workload

# A service's own pipeline, kept in its folder, that builds from the checkout's top
SERVICE_PIPELINE = """\
pipeline {
    agent any
    environment {
        DOCKERHUB = credentials('dockerhub')
        DOCKER_IMAGE = "${DOCKERHUB_USR}/orders_service:latest"
    }
    stages {
        stage('Docker Build') {
            steps {
                // sh "docker build -f billing/Dockerfile -t ${DOCKER_IMAGE} ."
                sh "docker build -f orders/Dockerfile -t ${DOCKER_IMAGE} ."
            }
        }
    }
}
"""
# A Dockerfile at a service's folder that builds from the top: it copies its service
TOP_DOCKERFILE = """\
FROM python:3.12-slim
WORKDIR /app
COPY {service}/ /app/
CMD ["python", "server.py"]
"""


def two_services(**extra: str) -> dict[str, str]:
    return {
        **{f"{s}/Dockerfile": TOP_DOCKERFILE.format(service=s) for s in ("orders", "billing")},
        **service_app("orders"),
        **service_app("billing"),
        **extra,
    }


def test_a_service_s_jenkinsfile_building_from_the_top_links_the_service_it_copies(
    tmp_path: Path,
) -> None:
    files = two_services(
        **{
            "k8s/orders.yaml": workload(name="orders", image="acme/orders_service:latest"),
            "orders/Jenkinsfile": SERVICE_PIPELINE,
        }
    )
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("orders", "server.py")
    assert row["evidence"][0] == (
        "jenkins: orders/Jenkinsfile:11: docker build -f orders/Dockerfile -t ${DOCKER_IMAGE} ."
    )


def test_a_scripted_pipeline_s_docker_build_call_in_a_dir_block_builds_from_that_folder(
    tmp_path: Path,
) -> None:
    pipeline = """\
node {
    stage('Build') {
        dir('services') {
            def app = docker.build("acme/orders:${env.BUILD_ID}", "-f orders/Dockerfile orders")
        }
        docker.build('acme/billing')
    }
}
"""
    builds = jenkins_builds("Jenkinsfile", pipeline)
    assert [(b.image, b.context, b.dockerfile, b.said.line) for b in builds] == [
        (
            "acme/orders",
            os.path.join("services", "orders"),
            os.path.join("services", "orders", "Dockerfile"),
            4,
        ),
        ("acme/billing", ".", None, 6),
    ]
    files = {
        "k8s/orders.yaml": workload(name="orders", image="acme/orders:41"),
        "Jenkinsfile": pipeline,
        "services/orders/Dockerfile": TOP_DOCKERFILE.format(service="."),
        **service_app("services/orders"),
        **service_app("services/billing"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("services", "orders", "server.py")


def test_a_step_that_changes_folder_first_builds_from_the_folder_it_names(
    tmp_path: Path,
) -> None:
    pipeline = """\
pipeline {
    stages {
        stage('Cache loader') {
            steps {
                sh '''
                    cd infra
                    docker build -f loader/Dockerfile -t cache-loader:latest .
                    cd ..
                '''
                sh "cd infra; docker build -f loader/Dockerfile -t loader-again ."
            }
        }
    }
}
"""
    builds = jenkins_builds("Jenkinsfile.master", pipeline)
    assert [(b.image, b.context, b.said.line) for b in builds] == [
        ("cache-loader", "infra", 7),
        ("loader-again", "infra", 10),
    ]
    files = {
        "k8s/job.yaml": workload(name="loader", image="cache-loader:latest"),
        "Jenkinsfile.master": pipeline,
        "infra/loader/Dockerfile": "FROM python:3.12\nCOPY loader/load.py /app/\n"
        'CMD ["python", "/app/load.py"]\n',
        "infra/loader/load.py": "import redis\n",
        **service_app("orders"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("infra", "loader", "load.py")


def test_a_step_s_script_is_read_whatever_named_arguments_come_before_it() -> None:
    pipeline = """\
node {
    sh label: 'Build the image', script: "docker build -t acme/labelled labelled"
    def out = sh(returnStdout: true, script: 'docker build -q -t acme/quiet quiet')
}
"""
    assert [(b.image, b.context) for b in jenkins_builds("Jenkinsfile", pipeline)] == [
        ("acme/labelled", "labelled"),
        ("acme/quiet", "quiet"),
    ]


def test_each_step_is_a_new_shell_that_starts_at_the_top() -> None:
    pipeline = "node {\n  sh 'cd infra'\n  sh 'docker build -t acme/top .'\n}\n"
    assert [b.context for b in jenkins_builds("Jenkinsfile", pipeline)] == ["."]


def test_a_script_s_cd_ended_by_a_semicolon_names_the_folder() -> None:
    builds = script_builds("build.sh", "cd infra; docker build -t acme/loader .\n")
    assert [b.context for b in builds] == ["infra"]


def test_a_string_or_comment_holding_a_build_or_a_brace_is_neither() -> None:
    pipeline = """\
node {
    echo "run sh 'docker build -t acme/wrong .' by hand }"
    /* sh 'docker build -t acme/commented .' */
    dir('app') {
        sh 'docker build -t acme/app .'
    }
    sh 'docker build -t acme/top .'
}
"""
    assert [(b.image, b.context) for b in jenkins_builds("Jenkinsfile", pipeline)] == [
        ("acme/app", "app"),
        ("acme/top", "."),
    ]


# A Maven multi-module build's module, built from the top with its own Dockerfile
MODULE_DOCKERFILE = """\
FROM maven:3.9 AS builder
WORKDIR /app
COPY . .
RUN mvn -pl {module} -am clean package -DskipTests
FROM eclipse-temurin:21-jre
COPY --from=builder /app/{module}/target/*.jar app.jar
ENTRYPOINT ["java", "-jar", "app.jar"]
"""


def maven_module(module: str) -> dict[str, str]:
    package = f"com.acme.{module}"
    return {
        f"{module}/pom.xml": f"<project><artifactId>{module}</artifactId></project>\n",
        f"{module}/src/main/java/com/acme/{module}/Main.java": (
            f"package {package};\n\nimport io.grpc.ManagedChannel;\n\n"
            "public class Main {\n    public static void main(String[] args) {}\n}\n"
        ),
    }


def test_a_module_built_from_a_multi_module_top_by_its_own_dockerfile_links_that_module(
    tmp_path: Path,
) -> None:
    """`-f gateway/Dockerfile .` copies the whole top to build one module (`mvn -pl
    gateway`): the image runs the gateway's code, not every module's, though no other
    module of the top is an image's."""
    files = {
        "k8s/gateway.yaml": workload(name="gateway", image="acme/gateway_service:latest"),
        "pom.xml": "<project><modules><module>gateway</module><module>common</module>"
        "</modules></project>\n",
        "gateway/Jenkinsfile": SERVICE_PIPELINE.replace("orders", "gateway"),
        "gateway/Dockerfile": MODULE_DOCKERFILE.format(module="gateway"),
        **maven_module("gateway"),
        **maven_module("common"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "gateway"
    assert row["evidence"][0].startswith("jenkins: gateway/Jenkinsfile:11: ")


def registry_tree(**extra: str) -> dict[str, str]:
    """A multi-module top whose compose file, kept in infra/, builds the registry from the
    top (`context: ..`) with a Dockerfile of infra/ that builds one module (`mvn -pl`)."""
    return {
        "k8s/registry.yaml": workload(name="registry", image="acme/registry_service:latest"),
        "pom.xml": "<project><modules><module>registry</module><module>gateway</module>"
        "</modules></project>\n",
        "infra/docker-compose.yml": "services:\n  registry:\n    build:\n      context: ..\n"
        "      dockerfile: infra/registry/Dockerfile\n",
        "infra/registry/Dockerfile": MODULE_DOCKERFILE.format(module="registry"),
        "registry/Dockerfile": MODULE_DOCKERFILE.format(module="registry"),
        **maven_module("registry"),
        **maven_module("gateway"),
        **extra,
    }


def test_a_build_of_a_multi_module_top_that_narrows_to_no_module_links_nothing(
    tmp_path: Path,
) -> None:
    """Its builder packages the whole build and the image takes the top's own jar: no
    one module's code."""
    whole = MODULE_DOCKERFILE.replace("mvn -pl {module} -am", "mvn").replace("/{module}/", "/")
    row = only(links(tmp_path, registry_tree(**{"infra/registry/Dockerfile": whole})))
    assert row["code"] is None
    assert row["why_not"].startswith(
        "infra/docker-compose.yml:2: builds ., the top of a multi-module build (gateway, registry)"
    )


def test_a_build_of_a_multi_module_top_whose_builder_packages_one_module_links_it(
    tmp_path: Path,
) -> None:
    """`mvn -pl registry`, then the image takes registry/target/*.jar: registry's code."""
    assert only(links(tmp_path, registry_tree()))["code"] == "registry"


def test_a_pipeline_s_build_of_the_image_wins_over_a_compose_service_named_as_it(
    tmp_path: Path,
) -> None:
    pipeline = (
        'node {\n  sh "docker build -f registry/Dockerfile -t ${HUB}/registry_service ."\n}\n'
    )
    row = only(links(tmp_path, registry_tree(Jenkinsfile=pipeline)))
    assert row["code"] == "registry"
    assert row["evidence"][0].startswith("jenkins: Jenkinsfile:2: ")
