"""An image whose Dockerfile takes its program from elsewhere than its context's code (a
`git clone` it builds, a wheel a build made) links no code when the Dockerfile's folder
holds none: its scripts and configuration are not the program it runs."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import parse_dockerfile

from tests.test_links import DOCKERFILE, links, service_app, workload

CLONING = """\
FROM maven:3.9-eclipse-temurin-21 AS build
ARG REF=main
RUN git clone https://git.example.org/acme/ledger.git /src && \\
    cd /src && git checkout ${REF} && mvn -q package -DskipTests
FROM eclipse-temurin:21-jre
COPY --from=build /src/dist /opt/ledger
COPY conf /opt/ledger/conf
COPY bin /opt/ledger/bin
ENTRYPOINT ["/opt/ledger/bin/ledger-admin.sh"]
"""
WHEEL = """\
FROM python:3.12-slim
COPY ledger_gateway*.whl /tmp/
RUN pip install /tmp/ledger_gateway*.whl && rm -f /tmp/*.whl
COPY start-gateway.sh /usr/local/bin/
CMD ["/usr/local/bin/start-gateway.sh"]
"""


def test_an_image_built_from_a_clone_or_a_wheel_links_no_folder_without_code(
    tmp_path: Path,
) -> None:
    files = {
        "docker/images/ledger/Dockerfile": CLONING,
        "docker/images/ledger/conf/ledger.properties": "port=9000\n",
        "docker/images/ledger/bin/launch.sh": "#!/bin/sh\necho start\n",
        "docker/images/ledger/build.sh": "#!/bin/sh\ndocker build -t acme/ledger:dev .\n",
        "etc/docker/ledger-gateway/Dockerfile": WHEEL,
        "etc/docker/ledger-gateway/start-gateway.sh": "#!/bin/sh\nexec ledger-gateway\n",
        **service_app("ledger_gateway"),
        "charts/ledger/templates/server.yaml": workload(name="ledger", image="acme/ledger:1.4"),
        "charts/ledger/templates/gateway.yaml": workload(
            name="ledger-gateway", image="acme/ledger-gateway:1.4"
        ),
    }
    rows = {row["container"].split("/")[-1].split(":")[0]: row for row in links(tmp_path, files)}
    assert rows["ledger"]["code"] is None, rows["ledger"]
    assert rows["ledger-gateway"]["code"] is None, rows["ledger-gateway"]


def test_a_folder_with_its_code_stays_linked_whatever_else_its_image_clones(
    tmp_path: Path,
) -> None:
    """A clone of a helper beside the folder's own code (`COPY . .`): the folder's code."""
    dockerfile = DOCKERFILE.replace(
        "COPY . .\n", "RUN git clone https://git.example.org/acme/protos.git /protos\nCOPY . .\n"
    )
    files = {
        "svc/inventory/Dockerfile": dockerfile,
        **service_app("svc/inventory"),
        "k8s/inventory.yaml": workload(image="acme/inventory:2.0"),
    }
    (row,) = links(tmp_path, files)
    assert (row["code"] or "").startswith("svc/inventory"), row


def test_a_dockerfile_says_where_it_fetches_its_program() -> None:
    assert parse_dockerfile("a/Dockerfile", CLONING).fetched is not None
    assert parse_dockerfile("a/Dockerfile", WHEEL).fetched is not None
    assert parse_dockerfile("a/Dockerfile", DOCKERFILE).fetched is None
    wheel_from_stage = "FROM python:3.12\nCOPY --from=build /dist/app.whl /tmp/\n"
    assert parse_dockerfile("a/Dockerfile", wheel_from_stage).fetched is None
