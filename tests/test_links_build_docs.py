"""The code <-> container link from the weaker build evidence real repositories leave: the
`docker build` commands their Markdown documents, a Dockerfile built from a wide context
that copies one folder of it, a build naming a Dockerfile that is not there, a stage that
starts from an earlier one."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading.build_files import (
    MAX_BLOCKS,
    host_go_builds,
    markdown_facts,
    parse_dockerfile,
    workflow_builds,
)

from tests.test_links import DOCKERFILE, links, make_tree, only, service_app, workload

GO_ROOT_BUILD = """\
FROM golang:1.23 AS build
WORKDIR /app
COPY go.mod ./
COPY . .
RUN go build -o bin/{name}-service ./services/{name}
FROM alpine:3.20
COPY --from=build /app/bin/{name}-service .
CMD ["./{name}-service"]
"""


def _go_services(*names: str) -> dict[str, str]:
    files = {"go.mod": "module example.com/chat\n\ngo 1.23\n"}
    for name in names:
        files[f"docker/Dockerfile.{name}"] = GO_ROOT_BUILD.format(name=name)
        files[f"services/{name}/main.go"] = "package main\n\nfunc main() {}\n"
    return files


# -- build commands written in Markdown ------------------------------------------------------


def test_a_build_command_in_a_markdown_shell_block_links_the_image(tmp_path: Path) -> None:
    """DEPLOYMENT.md's `docker build -f docker/Dockerfile.chat -t acme/chat-service .`:
    the Dockerfile builds `./services/chat` from the repository's top, so that is the code."""
    guide = (
        "# Deploying\n\nBuild the images:\n\n```bash\n"
        "docker build -f docker/Dockerfile.chat -t acme/chat-service:latest .\n"
        "docker build -f docker/Dockerfile.users -t acme/users-service:latest .\n```\n"
    )
    files = {
        "k8s/chat.yaml": workload(name="chat", image="acme/chat-service:latest"),
        "DEPLOYMENT.md": guide,
        **_go_services("chat", "users"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("services", "chat"), 1)
    assert row["evidence"][0] == (
        "docs: DEPLOYMENT.md:6: docker build -f docker/Dockerfile.chat -t "
        "acme/chat-service:latest ."
    )


def test_a_markdown_file_in_a_docs_folder_builds_from_where_its_dockerfile_is(
    tmp_path: Path,
) -> None:
    """docs/deploy.md's commands are run from the repository's top, where the Dockerfile
    they name is (not from docs/)."""
    guide = "```sh\n$ docker build -t acme/chat -f docker/Dockerfile.chat .\n```\n"
    files = {
        "k8s/chat.yaml": workload(name="chat", image="acme/chat:2"),
        "docs/deploy.md": guide,
        **_go_services("chat", "users"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "chat")
    assert row["evidence"][0].startswith("docs: docs/deploy.md:2: docker build")


def test_a_placeholder_owner_in_a_documented_build_names_the_image_by_its_last_segment(
    tmp_path: Path,
) -> None:
    guide = "```bash\ndocker buildx build -t <YOUR-USER>/inventory --push -f Dockerfile .\n```\n"
    files = {
        "deploy/inventory.yaml": workload(image="someone/inventory:1"),
        "README.md": guide,
        "Dockerfile": DOCKERFILE,
        **service_app("."),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "server.py"
    assert row["evidence"][0].startswith("docs: README.md:2: docker buildx build")


def test_a_documented_build_with_no_dockerfile_where_it_runs_is_no_evidence(
    tmp_path: Path,
) -> None:
    """A README whose `docker build -t acme/inventory .` leaves out the `cd` to the
    service's folder (no Dockerfile at the top, nor above): the image's name decides."""
    files = {
        "inventory.yaml": workload(image="acme/inventory:1"),
        "README.md": "```bash\n$ docker build -t registry.example/<NS>/inventory .\n```\n",
        "containers/inventory/Dockerfile": DOCKERFILE,
        **service_app("containers/inventory"),
        "sendmail.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("containers", "inventory", "server.py")
    assert not any(e.startswith("docs:") for e in row["evidence"] + row["overruled"])


def test_markdown_outside_shell_blocks_and_in_other_languages_builds_nothing() -> None:
    text = (
        "Run `docker build -t acme/a ./a` yourself.\n\n"
        "```python\nos.system('docker build -t acme/b ./b')\n```\n\n"
        "```\ndocker build -t acme/c ./c\n```\n"
    )
    builds, _ = markdown_facts("README.md", text.encode())
    assert [(b.image, b.context, b.kind) for b in builds] == [("acme/c", "c", "docs")]


def test_a_line_of_markdown_text_that_is_a_build_command_alone_builds() -> None:
    """A README that writes its commands as paragraphs (`docker build ... <BR />`, in
    backticks, after a prompt), out of any code block: each line a command of its own."""
    text = (
        "Kubernetes Deployment\n=====\n\ndocker build -t acme/a:v1 a/ <BR />\n\n"
        "`docker build -t acme/b ./b`\n\n$ docker build -t acme/c c\n\n"
        "Then docker build -t acme/d ./d builds the last.\n"
    )
    builds, _ = markdown_facts("README.md", text.encode())
    assert [(b.image, b.context, b.said.line) for b in builds] == [
        ("acme/a", "a", 4),
        ("acme/b", "b", 6),
        ("acme/c", "c", 8),
    ]


def test_a_build_command_written_as_a_readme_paragraph_links_a_module_its_name_does_not(
    tmp_path: Path,
) -> None:
    """`docker build -t checkout:v1 payments-core/` as a paragraph of the README: the
    image checkout, whose name shares no word with its module, is payments-core's."""
    readme = (
        "Deployment\n==========\n\ndocker build -t checkout:v1 payments-core/\n\n"
        "docker build -t storefront:v1 web-ui/\n\nkubectl apply -f checkout.yaml\n"
    )
    files = {
        "k8s/checkout.yaml": workload(name="checkout", image="acme/checkout:v1"),
        "README.md": readme,
        "payments-core/Dockerfile": DOCKERFILE,
        **service_app("payments-core"),
        "web-ui/Dockerfile": DOCKERFILE,
        **service_app("web-ui"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("payments-core", "server.py")
    assert row["evidence"][0] == "docs: README.md:4: docker build -t checkout:v1 payments-core/"


def test_markdown_blocks_past_the_budget_are_not_read() -> None:
    """Bounded work: the blocks past MAX_BLOCKS are left, whatever they build."""
    filler = "```\necho hello\n```\n" * MAX_BLOCKS
    text = filler + "```\ndocker build -t acme/late ./late\n```\n"
    assert markdown_facts("README.md", text.encode()) == ([], [])


def test_a_build_command_in_an_asciidoc_source_block_links_the_image(tmp_path: Path) -> None:
    """An AsciiDoc page (docs/modules/pages/build.adoc) whose `[source,bash]` block cds to
    the service's folder and builds there: run from the folder above the page where that
    Dockerfile is, as a Markdown block is."""
    page = (
        '== Build the customer\n\n[source,bash,subs="+macros,+attributes"]\n----\n'
        "cd services/chat\ndocker build -t quay.io/acme/tutorial-frontdoor:v1.1 .\ncd ../..\n----\n"
    )
    files = {
        "k8s/chat.yaml": workload(name="chat", image="quay.io/acme/tutorial-frontdoor:v1.1"),
        "docs/modules/pages/build.adoc": page,
        "services/chat/Dockerfile": DOCKERFILE,
        **service_app("services/chat"),
        "services/users/Dockerfile": DOCKERFILE,
        **service_app("services/users"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "chat", "server.py")
    assert row["evidence"][0] == (
        "docs: docs/modules/pages/build.adoc:6: docker build -t "
        "quay.io/acme/tutorial-frontdoor:v1.1 ."
    )


def test_a_documented_build_of_the_tag_a_container_runs_decides_between_folders(
    tmp_path: Path,
) -> None:
    """One image name built from two folders by a page's blocks (`:v1` from the Spring
    Boot folder, `:v2-timeout` from the Vert.x one): the build of the very tag decides;
    a `cd` in one block holds for the blocks after it, as in one terminal."""
    page = (
        "[source,bash]\n----\ncd recommendation/springboot\n"
        "docker build -t example/recommendation:v1 .\ncd ../..\n----\n\n"
        "[source,bash]\n----\ncd recommendation/vertx\n----\n\nEdit the timeout, then:\n\n"
        "[source,bash]\n----\ndocker build -t example/recommendation:v2-timeout .\n----\n"
    )
    files = {
        "recommendation/kubernetes/v1.yaml": workload(
            name="recommendation-v1", image="example/recommendation:v1"
        ),
        "recommendation/kubernetes/v2.yaml": workload(
            name="recommendation-v2", image="example/recommendation:v2-timeout"
        ),
        "docs/build.adoc": page,
        "recommendation/springboot/Dockerfile": DOCKERFILE,
        **service_app("recommendation/springboot"),
        "recommendation/vertx/Dockerfile": DOCKERFILE,
        **service_app("recommendation/vertx"),
    }
    rows = {row["container"].split(":")[0]: row for row in links(tmp_path, files)}
    assert rows["Deployment/shop/recommendation-v1"]["code"] == os.path.join(
        "recommendation", "springboot", "server.py"
    )
    assert rows["Deployment/shop/recommendation-v2"]["code"] == os.path.join(
        "recommendation", "vertx", "server.py"
    )
    assert rows["Deployment/shop/recommendation-v2"]["evidence"][0] == (
        "docs: docs/build.adoc:17: docker build -t example/recommendation:v2-timeout ."
    )


def test_of_documented_builds_of_one_tag_the_one_whose_page_then_applies_the_manifest_links(
    tmp_path: Path,
) -> None:
    """Two variants' readmes and a tutorial page build the same tag; the page deploys it
    with `kubectl apply -f .../kubernetes/jvm.yaml` after the Spring Boot build: that
    manifest runs the Spring Boot variant, though a readme nearer the manifest builds another."""
    readme = "```bash\ndocker build -t example/orders .\n```\n"
    page = (
        "== Build the Spring Boot orders\n\n[source,bash]\n----\ncd orders/java/springboot\n"
        "docker build -t example/orders .\ncd ../../..\n----\n\nThen deploy it:\n\n"
        "[source,bash]\n----\nkubectl apply -f <(istioctl kube-inject -f "
        "link:{repo}/orders/kubernetes/jvm.yaml[orders/kubernetes/jvm.yaml])\n----\n\n"
        "== Build the native orders\n\n[source,bash]\n----\ncd orders/java/quarkus\n"
        "docker build -t example/orders-native .\n----\n\n"
        "[source,bash]\n----\nkubectl apply -f orders/kubernetes/native.yaml\n----\n"
    )
    files = {
        "orders/kubernetes/jvm.yaml": workload(name="orders", image="example/orders"),
        "tutorial/pages/build.adoc": page,  # read after the readme
        "orders/java/microprofile/readme.md": readme,
        "orders/java/microprofile/Dockerfile": DOCKERFILE,
        **service_app("orders/java/microprofile"),
        "orders/java/springboot/Dockerfile": DOCKERFILE,
        **service_app("orders/java/springboot"),
        "orders/java/quarkus/Dockerfile": DOCKERFILE,
        **service_app("orders/java/quarkus"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("orders", "java", "springboot", "server.py")
    assert row["evidence"][0] == (
        "docs: tutorial/pages/build.adoc:6: docker build -t example/orders . "
        "(then applies kubernetes/jvm.yaml)"
    )
    assert row["overruled"] == [
        "docs: orders/java/microprofile/readme.md:2: docker build -t example/orders ."
    ]


def test_a_documented_build_is_paired_with_the_manifests_applied_before_the_next_build() -> None:
    page = (
        "```sh\ndocker build -t acme/a ./a\n"
        "kubectl apply -f deploy/a.yaml -f deploy/a-svc.yml\n```\n"
        "```sh\ndocker build -t acme/b ./b\n```\nRun `kubectl create -f ${DIR}/b.yaml`.\n"
        "```sh\nkubectl get pods -o yaml\n```\n"
    )
    builds, _ = markdown_facts("README.md", page.encode())
    assert [(b.image, b.applies) for b in builds] == [
        ("acme/a", ("deploy/a.yaml", "deploy/a-svc.yml")),
        ("acme/b", ("b.yaml",)),
    ]


def test_a_placeholder_registry_set_in_an_earlier_block_names_the_image_by_its_last_segment() -> (
    None
):
    """`REGISTRY=[YOUR_REGISTRY_URL]` in one block holds for the next (one session); the
    placeholder is no registry: the image is named `frontend`."""
    text = (
        "```\nREGISTRY=[YOUR_REGISTRY_URL]\n```\n\n```\ndocker build -t $REGISTRY/frontend .\n```\n"
    )
    builds, _ = markdown_facts("README.md", text.encode())
    assert [(b.image, b.said.line) for b in builds] == [("frontend", 6)]


def test_a_documented_build_in_a_folder_of_code_keeping_its_dockerfile_elsewhere_links_it(
    tmp_path: Path,
) -> None:
    """`cd services/chat` then `docker build -t quay.io/acme/tutorial-frontdoor:v1.1 .` where the
    service keeps its Dockerfiles under src/main/docker/: the folder the text names is the
    code (a build with no `cd`, from a folder of none, stays no evidence)."""
    page = (
        "[source,bash]\n----\ncd services/chat\nmvn package\n"
        "docker build -t quay.io/acme/tutorial-frontdoor:v1.1 .\ncd ../..\n----\n"
    )
    files = {
        "k8s/chat.yaml": workload(name="chat", image="quay.io/acme/tutorial-frontdoor:v1.1"),
        "docs/pages/build.adoc": page,
        "services/chat/src/main/docker/Dockerfile.native": DOCKERFILE,
        **service_app("services/chat"),
        **service_app("services/users"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "chat")
    assert row["evidence"] == [
        "docs: docs/pages/build.adoc:5: docker build -t quay.io/acme/tutorial-frontdoor:v1.1 ."
    ]


def test_a_documented_build_after_an_unrelated_cd_in_an_earlier_block_still_links(
    tmp_path: Path,
) -> None:
    """DEPLOYMENT.md's first block runs `cd docker && docker compose up`; a later block
    builds `-f docker/Dockerfile.chat .` from the top, where that Dockerfile is: the block
    read alone links it (read in the session, from docker/, it names no Dockerfile)."""
    guide = (
        "```bash\ncd docker\ndocker compose up -d\n```\n\nThen build:\n\n"
        "```bash\ndocker build -f docker/Dockerfile.chat -t acme/chat-service:latest .\n```\n"
    )
    files = {
        "k8s/chat.yaml": workload(name="chat", image="acme/chat-service:latest"),
        "DEPLOYMENT.md": guide,
        **_go_services("chat", "users"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("services", "chat"), 1)
    assert row["evidence"][0].startswith("docs: DEPLOYMENT.md:9: docker build -f docker/")


def test_asciidoc_builds_only_in_shell_listing_blocks() -> None:
    """A `[source,yaml]` block and prose build nothing; a `[source,sh]` block titled by a
    `.Title` line, and a bare listing, do; a `$ ` prompt is dropped."""
    text = (
        "Run `docker build -t acme/a ./a` yourself.\n\n"
        "[source,yaml]\n----\ndocker build -t acme/b ./b\n----\n\n"
        "[source, sh]\n.Build it\n----\n$ docker build -t acme/c ./c\n----\n\n"
        "....\ndocker build -t acme/d ./d\n....\n"
    )
    builds, _ = markdown_facts("docs/build.adoc", text.encode())
    assert [(b.image, b.context, b.said.line) for b in builds] == [
        ("acme/c", os.path.join("docs", "c"), 11),
        ("acme/d", os.path.join("docs", "d"), 15),
    ]


def test_a_documented_build_is_weaker_than_a_build_file(tmp_path: Path) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="acme/inventory:1"),
        "README.md": "```\ndocker build -t acme/inventory old/inv\n```\n",
        "skaffold.yaml": "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
        "    - image: acme/inventory\n      context: src/inv\n",
        "old/inv/Dockerfile": DOCKERFILE,
        **service_app("old/inv"),
        "src/inv/Dockerfile": DOCKERFILE,
        **service_app("src/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "inv", "server.py")
    assert row["overruled"][0].startswith("docs: README.md:2:")


# -- a Dockerfile that builds a sub-folder of a wide context ---------------------------------

WIDE_CONTEXT_DOCKERFILE = """\
FROM python:3.12-slim AS base
WORKDIR /app

FROM base AS final
COPY ./{name}/pyproject.toml ./
COPY ./{name}/app /app/
CMD ["uvicorn", "main:app", "--port", "8000"]
"""

COMPOSE = """\
services:
  inventory:
    image: inventory:latest
    build:
      context: .
      dockerfile: ./inventory_service/Dockerfile
"""


def _wide_context_tree(dockerfile: str) -> dict[str, str]:
    return {
        "k8s/inventory.yaml": workload(image="inventory:latest"),
        "docker-compose.yml": COMPOSE,
        "inventory_service/Dockerfile": dockerfile,
        "inventory_service/app/main.py": "import grpc\n",
        "inventory_service/app/models.py": "import grpc\n",
        "inventory_service/tools/seed.py": "import grpc\n",
        "orders_service/Dockerfile": WIDE_CONTEXT_DOCKERFILE.format(name="orders_service"),
        "orders_service/app/main.py": "import grpc\n",
    }


def test_a_wide_context_links_the_one_folder_its_dockerfile_copies(tmp_path: Path) -> None:
    """compose's `context: .` with a Dockerfile that copies only `inventory_service/app`:
    the code is that folder (its entry point found through the stage it starts from)."""
    files = _wide_context_tree(WIDE_CONTEXT_DOCKERFILE.format(name="inventory_service"))
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory_service", "app", "main.py")


def test_a_wide_context_with_no_entry_point_links_the_copied_folder_s_modules(
    tmp_path: Path,
) -> None:
    dockerfile = WIDE_CONTEXT_DOCKERFILE.format(name="inventory_service").replace(
        'CMD ["uvicorn", "main:app", "--port", "8000"]', 'CMD ["/app/start"]'
    )
    row = only(links(tmp_path, _wide_context_tree(dockerfile)))
    assert (row["code"], row["modules"]) == (os.path.join("inventory_service", "app"), 2)


def test_a_final_stage_from_a_stage_an_arg_names_copies_through_its_env_values(
    tmp_path: Path,
) -> None:
    """`FROM ${FLAVOUR}-runtime AS final` (a global ARG's default naming an earlier stage)
    starts from that stage's WORKDIR and ENV: its `COPY $APP_DIR /$APP_DIR/` copies the
    service's folder, which CMD runs, not the shared folder the one literal COPY names."""
    dockerfile = (
        "ARG FLAVOUR=plain\nFROM python:3.12-slim AS plain-runtime\n"
        "ENV APP_DIR=inventory_service/app\nCOPY $APP_DIR/requirements.txt /$APP_DIR/\n"
        "WORKDIR /$APP_DIR\nRUN pip install -r requirements.txt\n"
        "FROM ${FLAVOUR}-runtime AS final\nCOPY $APP_DIR /$APP_DIR/\n"
        "COPY shared/codes /shared/codes/\nENV PYTHONPATH=/\n"
        'ENTRYPOINT ["python"]\nCMD ["main.py"]\n'
    )
    files = _wide_context_tree(dockerfile)
    files["shared/codes/__init__.py"] = "CODES = {}\n"
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory_service", "app", "main.py")


def test_a_dockerfile_copying_several_folders_of_one_service_links_that_service(
    tmp_path: Path,
) -> None:
    """Two folders of code copied (the app and its tools), both of one service's folder:
    the code is that folder, not the whole context (which holds another service too)."""
    dockerfile = (
        "FROM python:3.12-slim\nWORKDIR /app\nCOPY inventory_service/app /app/\n"
        'COPY inventory_service/tools /tools/\nCMD ["/app/start"]\n'
    )
    row = only(links(tmp_path, _wide_context_tree(dockerfile)))
    assert row["code"] == "inventory_service"


def test_a_dockerfile_copying_two_services_folders_keeps_the_wide_link(tmp_path: Path) -> None:
    """Code of two services' folders copied: no one folder below the context holds it all,
    the link stays the build's context."""
    dockerfile = (
        "FROM python:3.12-slim\nWORKDIR /app\nCOPY inventory_service/app /app/\n"
        'COPY orders_service/app /orders/\nCMD ["/app/start"]\n'
    )
    row = only(links(tmp_path, _wide_context_tree(dockerfile)))
    assert row["code"] == "."


def test_a_go_service_s_file_and_folder_copied_from_above_link_its_folder(tmp_path: Path) -> None:
    """`docker build -f svc/Dockerfile .` from the folder above two services, the Dockerfile
    copying svc's main.go and its proto folder into a builder: the code is svc's folder."""
    dockerfile = (
        "FROM golang:1.23 AS builder\nWORKDIR /app\nCOPY alpha/go.mod alpha/go.sum ./\n"
        "COPY alpha/main.go .\nCOPY alpha/proto ./proto\nRUN go build -o /svc main.go\n"
        'FROM alpine:3.20\nCOPY --from=builder /svc /svc\nCMD ["/svc"]\n'
    )
    files = {
        "deploy.sh": "docker build -f alpha/Dockerfile -t alpha:latest .\n",
        "k8s/alpha.yaml": workload(image="alpha:latest"),
        "alpha/Dockerfile": dockerfile,
        "alpha/go.mod": "module example.com/alpha\n\ngo 1.23\n",
        "alpha/main.go": 'package main\n\nimport _ "example.com/alpha/proto"\n\nfunc main() {}\n',
        "alpha/proto/alpha.pb.go": "package proto\n",
        "beta/go.mod": "module example.com/beta\n\ngo 1.23\n",
        "beta/main.go": "package main\n\nfunc main() {}\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "alpha"


def test_a_stage_from_an_earlier_stage_keeps_its_workdir_copies_and_command() -> None:
    dockerfile = parse_dockerfile(
        "Dockerfile",
        'FROM python:3.12 AS base\nWORKDIR /srv\nCOPY src /srv/src\nCMD ["python", "x.py"]\n'
        "FROM base AS test\nRUN pytest\nFROM base\nCOPY main.py ./\n",
    )
    assert dockerfile.workdir == "/srv"
    assert [(c.source, c.dest) for c in dockerfile.copies] == [
        ("src", "/srv/src"),
        ("main.py", "/srv"),
    ]
    assert dockerfile.cmd == ("python", "x.py")


def test_a_build_naming_a_dockerfile_that_is_not_there_yields_to_one_that_is(
    tmp_path: Path,
) -> None:
    """A Makefile whose `-f inventory-service/Dockerfile` names no file (a stale name) and
    compose naming the real one, equally strong: the real one decides."""
    makefile = "build:\n\tdocker build -t inventory:latest -f inventory-service/Dockerfile .\n"
    files = {
        **_wide_context_tree(WIDE_CONTEXT_DOCKERFILE.format(name="inventory_service")),
        "Makefile": makefile,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory_service", "app", "main.py")
    assert row["evidence"][0].startswith("compose: docker-compose.yml:")
    assert [e.split(":", 2)[:2] for e in row["overruled"]] == [["makefile", " Makefile"]]


def test_a_build_argument_naming_a_file_pattern_chooses_no_service(tmp_path: Path) -> None:
    """`ARG JAR_FILE=build/libs/*-all.jar` then `COPY ${JAR_FILE} app.jar`: a build output,
    not the folder of one of several services."""
    dockerfile = (
        "FROM eclipse-temurin:21\nARG JAR_FILE=build/libs/*-all.jar\n"
        'COPY ${JAR_FILE} app.jar\nENTRYPOINT ["java", "-jar", "/app.jar"]\n'
    )
    files = {
        "deploy/inventory.yaml": workload(image="acme/inventory:1"),
        "Makefile": "image:\n\tdocker build -t acme/inventory -f docker/Dockerfile .\n",
        "docker/Dockerfile": dockerfile,
        **service_app("."),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "."
    assert row["modules"] == 3


# -- image names with a role suffix ----------------------------------------------------------


def test_an_image_named_with_a_role_suffix_is_guessed_to_be_the_folder_without_it(
    tmp_path: Path,
) -> None:
    """`acme/chat-service` and `services/chat`, which docker/Dockerfile.chat copies (no
    build in the tree names the image): a guess, and says so."""
    files = {
        "k8s/chat.yaml": workload(name="chat", image="acme/chat-service:1"),
        "docker/Dockerfile.chat": "FROM python:3.12\nCOPY services/chat /app\n",
        **service_app("services/chat"),
        **service_app("services/users"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "chat")
    assert row["evidence"] == [
        "image name guess: k8s/chat.yaml:11: image: acme/chat-service:1 (a guess: services/chat"
        " is the one build folder named as it is (a role suffix aside, or with its parent's name))"
    ]


def test_a_folder_named_with_a_role_suffix_is_guessed_for_the_image_without_it(
    tmp_path: Path,
) -> None:
    """`grpc_car` (a prefix, then `car`) and `car_server/`."""
    files = {
        "k8s/car.yaml": workload(name="car", image="acme/grpc_car:3"),
        "car_server/Dockerfile": DOCKERFILE,
        **service_app("car_server"),
        **service_app("booking"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("car_server", "server.py")


def test_a_folder_named_for_its_role_is_named_with_its_parent_s_name(tmp_path: Path) -> None:
    """`acme/shop-cart-service` and `app/cart/service`, a folder a shared Dockerfile's
    build argument chooses (`WORKDIR /src/app/${APP_PATH}`); not `app/cart` above it, nor
    the generated `api/cart/service` no image is built from."""
    shared = (
        "FROM golang:1.23\nARG APP_PATH\nCOPY . /src\nWORKDIR /src/app/${APP_PATH}\n"
        'RUN make build\nCMD ["./bin/server"]\n'
    )
    files = {
        "deploy/cart.yaml": workload(name="cart", image="acme/shop-cart-service:1"),
        "deploy/build/Dockerfile": shared,
        **service_app("app/cart/service"),
        **service_app("app/catalog/service"),
        **service_app("api/cart/service"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("app", "cart", "service")


def test_a_role_suffix_guess_is_never_code_no_image_is_built_from(tmp_path: Path) -> None:
    """`acme/svix-server` is a third-party server; `webhook/svix` the client code that
    talks to it, built into no image of its own: no link."""
    files = {
        "k8s/svix.yaml": workload(name="svix", image="acme/svix-server:1"),
        **service_app("internal/webhook/svix"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_role_suffix_guess_matching_two_folders_equally_is_no_link(tmp_path: Path) -> None:
    files = {
        "k8s/chat.yaml": workload(name="chat", image="acme/chat-api:1"),
        "services/chat/Dockerfile": DOCKERFILE,
        **service_app("services/chat"),
        "services/chat_server/Dockerfile": DOCKERFILE,
        **service_app("services/chat_server"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- Spring Boot's Maven plugin naming the image through the pom's values --------------------

POM = """\
<project>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>3.3.0</version>
  </parent>
  <groupId>com.example</groupId>
  <artifactId>inventory</artifactId>
  <version>0.0.1-SNAPSHOT</version>
  <properties><registry>registry.example/acme</registry></properties>
  <dependencies>
    <dependency><artifactId>spring-boot-starter-web</artifactId></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>spring-boot-maven-plugin</artifactId>
        <configuration>
          <imageName>{image}</imageName>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""


def test_spring_boot_maven_plugin_image_name_through_the_pom_s_values_links_the_module(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/acme/inventory:0.0.1-SNAPSHOT"),
        "inventory/pom.xml": POM.replace("{image}", "${registry}/${project.artifactId}:${version}"),
        **service_app("inventory"),
        **service_app("billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "inventory"
    assert row["evidence"][0] == (
        "buildpacks: inventory/pom.xml:19: <imageName>${registry}/${project.artifactId}:"
        "${version}</imageName>"
    )


def test_a_pom_value_not_known_names_no_image(tmp_path: Path) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/acme/inventory:1"),
        "inventory/pom.xml": POM.replace("{image}", "${docker.owner}/${artifactId}"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a binary built on the host, added by its Dockerfile ------------------------------------

ADDS_BINARY = (
    "FROM alpine\nWORKDIR /app\nADD shared shared\nADD build build\nENTRYPOINT build/{name}\n"
)


def test_a_dockerfile_that_adds_a_binary_built_by_the_tiltfile_links_the_package_built(
    tmp_path: Path,
) -> None:
    """Tilt compiles each service on the host (`local_resource`, `go build -o build/trip
    ./services/trip/cmd/main.go`) and the Dockerfile only ADDs build/ from the repository's
    top: the container runs the package that build compiled, not the whole context."""
    tiltfile = ""
    files = {"go.mod": "module example.com/rides\n\ngo 1.23\n"}
    for name in ("trip", "driver"):
        tiltfile += (
            f"{name}_cmd = 'CGO_ENABLED=0 GOOS=linux go build -o build/{name} "
            f"./services/{name}/cmd/main.go'\n"
            f"local_resource('{name}-compile', {name}_cmd, deps=['./services/{name}'])\n"
            f"docker_build_with_restart('rides/{name}', '.', entrypoint=['/app/build/{name}'],\n"
            f"  dockerfile='./infra/docker/{name}.Dockerfile', only=['./build/{name}'])\n"
        )
        files[f"infra/docker/{name}.Dockerfile"] = ADDS_BINARY.format(name=name)
        files[f"services/{name}/cmd/main.go"] = "package main\n\nfunc main() {}\n"
    files["Tiltfile"] = tiltfile
    files["shared/env.go"] = "package shared\n"
    files["k8s/trip.yaml"] = workload(name="trip", image="rides/trip")
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("services", "trip", "cmd"), 1)
    assert row["evidence"][0].startswith("tiltfile: Tiltfile:3: docker_build_with_restart(")
    assert any("go build -o build/trip ./services/trip/cmd/main.go" in e for e in row["evidence"])


BUILD_SCRIPT = """\
#!/bin/bash
services="account upload"

build_service() {
    go build -o deploy/bin/$1 service/$1/main.go
}

build_image() {
    docker build -t shop/files_$1 -f ./service/$1/Dockerfile .
}

cd ${ROOT_DIR}
for service in $services; do build_service $service; done
cd ${ROOT_DIR}/deploy/
for service in $services; do build_image $service; done
"""


def test_an_image_adding_a_binary_a_build_script_compiles_links_the_package_built(
    tmp_path: Path,
) -> None:
    """A script compiles each service on the host from the repository's root (`go build -o
    deploy/bin/$1 service/$1/main.go`, one call per service) and each service's Dockerfile
    only ADDs its binary, run through `sh -c`: the container runs the package built under
    its binary's name, not its Dockerfile's folder (which holds no code)."""
    files = {
        "go.mod": "module example.com/files\n\ngo 1.23\n",
        "deploy/docker_build.sh": BUILD_SCRIPT,
    }
    for name in ("account", "upload"):
        files[f"deploy/service/{name}/Dockerfile"] = (
            f'FROM centos:7\nADD bin/{name} /\nENTRYPOINT ["sh","-c","/{name} $PARAMS"]\n'
        )
        files[f"service/{name}/main.go"] = "package main\n\nfunc main() {}\n"
        files[f"service/{name}/handler/handler.go"] = "package handler\n"
    files["k8s/upload.yaml"] = workload(name="upload", image="shop/files_upload")
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("service", "upload")
    assert any("go build -o deploy/bin/$1 service/$1/main.go" in e for e in row["evidence"])


def test_a_script_s_go_build_named_by_a_variable_is_kept_as_that_variable_s_template() -> None:
    """The binary and the package named by one variable: a build per value; a package
    named by another variable than the binary's is not known."""
    text = "go build -o bin/${SVC} ./cmd/${SVC}\ngo build -o bin/$1 ./cmd/$2\n"
    builds = host_go_builds("scripts/build.sh", text)
    assert [(b.package, b.output, b.variable) for b in builds] == [
        (os.path.join("scripts", "cmd", "${SVC}"), "bin/${SVC}", "SVC"),
        ("scripts", "bin/$1", None),
    ]


GOPATH_SERVICE = """\
FROM golang:1.9.1
WORKDIR /go/src/github.com/example/gcd/{name}
COPY {name} .
COPY pb ../pb
RUN go get -v ./...
RUN go install -v ./...
CMD [ "{name}" ]
"""


def test_a_root_build_of_one_service_s_dockerfile_links_the_package_go_install_makes(
    tmp_path: Path,
) -> None:
    """`docker build -f Dockerfile.api .` from the repository's root, whose Dockerfile copies
    the service's folder (and the shared protos) and runs `go install ./...` there: the
    binary `api` is that folder's own package, so the link is that folder, not the root."""
    files = {"build.sh": "#!/bin/bash\n"}
    for name in ("api", "gcd"):
        files["build.sh"] += f"docker build -t local/{name} -f Dockerfile.{name} .\n"
        files[f"Dockerfile.{name}"] = GOPATH_SERVICE.format(name=name)
        files[f"{name}/main.go"] = "package main\n\nfunc main() {}\n"
    files["pb/gcd.pb.go"] = "package pb\n"
    files["api.yaml"] = workload(name="api", image="local/api")
    row = only(links(tmp_path, files))
    assert row["code"] == "api"
    assert "dockerfile: Dockerfile.api:6: RUN go install -v ./..." in row["evidence"]


def test_a_go_build_of_a_file_builds_that_file_s_package() -> None:
    dockerfile = parse_dockerfile(
        "services/trip/Dockerfile",
        "FROM golang:1.23\nWORKDIR /app\nCOPY . .\nWORKDIR /app/services/trip\n"
        "RUN go build -o trip ./cmd/main.go\n",
    )
    assert [(b.package, b.output) for b in dockerfile.go_builds] == [
        (os.path.join("services", "trip", "cmd"), "trip")
    ]


# -- a manifest beside its Dockerfile --------------------------------------------------------


def test_a_manifest_beside_a_dockerfile_runs_that_folder_s_image_as_a_guess(
    tmp_path: Path,
) -> None:
    """api/api-pod.yaml beside api/Dockerfile, its image (`api-pod`) built by nothing the
    tree says and sharing a word with the folder: a guess."""
    files = {
        "api/api-pod.yaml": workload(name="api", image="api-pod"),
        "api/Dockerfile": DOCKERFILE,
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("api", "server.py")
    assert row["evidence"][-1] == (
        "manifest beside guess: api/api-pod.yaml:11: image: api-pod "
        "(a guess: in api, beside its Dockerfile)"
    )


def test_a_manifest_in_a_variant_s_folder_with_its_dockerfile_beats_a_documented_build(
    tmp_path: Path,
) -> None:
    """recommendation/node/Deployment.yml beside recommendation/node/Dockerfile runs
    `example/recommendation:v1`, which a readme builds from the Java variant: the
    manifest's own folder (as strong, and nearer) is its code; a store it also runs is
    not linked to it."""
    readme = "```bash\ndocker build -t example/recommendation:v1 .\n```\n"
    store = "        - name: cache\n          image: redis:7\n"
    files = {
        "recommendation/node/Deployment.yml": workload(
            "recommendation", "example/recommendation:v1", extra=store
        ),
        "recommendation/node/Dockerfile": DOCKERFILE,
        **service_app("recommendation/node"),
        "recommendation/java/readme.md": readme,
        "recommendation/java/Dockerfile": DOCKERFILE,
        **service_app("recommendation/java"),
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    row = rows["Deployment/shop/recommendation:server"]
    assert row["code"] == os.path.join("recommendation", "node", "server.py")
    assert (
        "manifest in folder: recommendation/node/Deployment.yml:11: in recommendation/node, "
        "beside its Dockerfile" in row["evidence"]
    )
    assert row["overruled"][0].startswith("docs: recommendation/java/readme.md:2:")
    assert rows["Deployment/shop/recommendation:cache"]["code"] is None


def test_a_store_run_beside_a_service_s_dockerfile_is_not_linked_to_it(tmp_path: Path) -> None:
    files = {
        "api/redis.yaml": workload(name="cache", image="redis:7"),
        "api/Dockerfile": DOCKERFILE,
        **service_app("api"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_published_image_named_as_the_folder_s_stack_is_not_linked_by_its_place(
    tmp_path: Path,
) -> None:
    """A project named for its stack (`flask-rabbitmq-demo/`) runs Docker Hub's
    `rabbitmq:3.8-management` beside its Dockerfile: one name at a release's tag, which no
    build of the tree names, is a published image; its own image, pushed under its owner's
    name, is still guessed to be the folder's."""
    files = {
        "flask-rabbitmq-demo/rabbitmq.yaml": workload(
            name="broker", image="rabbitmq:3.8-management"
        ),
        "flask-rabbitmq-demo/api.yaml": workload(name="api", image="someone/flask-rabbitmq-demo"),
        "flask-rabbitmq-demo/Dockerfile": DOCKERFILE,
        **service_app("flask-rabbitmq-demo"),
    }
    rows = {row["container"]: row["code"] for row in links(tmp_path, files)}
    assert rows["Deployment/shop/broker:server"] is None
    assert rows["Deployment/shop/api:server"] == os.path.join("flask-rabbitmq-demo", "server.py")


def test_a_published_image_a_build_of_the_tree_names_is_the_tree_s(tmp_path: Path) -> None:
    """`docker build -t broker:2.1 .`: a release's tag, but the tree builds it."""
    files = {
        "broker/broker.yaml": workload(name="broker", image="broker:2.1"),
        "broker/build.sh": "#!/bin/sh\ndocker build -t broker:2.1 .\n",
        "broker/Dockerfile": DOCKERFILE,
        **service_app("broker"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("broker", "server.py")


# -- one image, several Go programs, run through an entry point script -----------------------

MULTI_BINARY = """\
FROM golang:1.23 AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \\
    xx-go build -o /usr/local/bin/meter ./cmd/server
RUN --mount=type=cache,target=/go/pkg/mod go build -o /usr/local/bin/meter-worker ./cmd/worker
RUN go build -C ./collector -o /usr/local/bin/collect ./cmd
FROM alpine:3.20
COPY --from=build /usr/local/bin/ /usr/local/bin/
COPY --from=build /src/entrypoint.sh /entrypoint.sh
ENTRYPOINT ["/entrypoint.sh"]
CMD ["meter"]
"""


def _multi_binary_tree(extra: str, dockerfile_name: str = "Dockerfile") -> dict[str, str]:
    return {
        "deploy/worker.yaml": workload(name="worker", image="acme/meter:1", extra=extra),
        "Makefile": f"image:\n\tdocker build -t acme/meter -f {dockerfile_name} .\n",
        dockerfile_name: MULTI_BINARY,
        "entrypoint.sh": '#!/bin/sh\nset -e\nexec "$@"\n',
        "go.mod": "module example.com/meter\n\ngo 1.23\n",
        "cmd/server/main.go": "package main\n\nfunc main() {}\n",
        "cmd/worker/main.go": "package main\n\nfunc main() {}\n",
        "collector/go.mod": "module example.com/collector\n\ngo 1.23\n",
        "collector/cmd/main.go": "package main\n\nfunc main() {}\n",
    }


def test_an_entry_point_script_runs_the_go_program_its_arguments_name(tmp_path: Path) -> None:
    """`command: [/entrypoint.sh, meter-worker]` with a Dockerfile whose RUN lines have
    BuildKit's `--mount` flags and tonistiigi/xx's `xx-go`: the program built as
    meter-worker."""
    extra = '          command: ["/entrypoint.sh", "meter-worker"]\n'
    row = only(links(tmp_path, _multi_binary_tree(extra)))
    assert (row["code"], row["modules"]) == (os.path.join("cmd", "worker"), 1)


def test_the_image_s_own_command_through_its_entry_point_script_is_its_program(
    tmp_path: Path,
) -> None:
    row = only(links(tmp_path, _multi_binary_tree("")))
    assert (row["code"], row["modules"]) == (os.path.join("cmd", "server"), 1)


def test_go_build_dash_c_builds_the_package_in_that_folder() -> None:
    dockerfile = parse_dockerfile("Dockerfile", MULTI_BINARY)
    assert [(b.package, b.output) for b in dockerfile.go_builds] == [
        ("cmd/server", "/usr/local/bin/meter"),
        ("cmd/worker", "/usr/local/bin/meter-worker"),
        ("collector/cmd", "/usr/local/bin/collect"),
    ]


def test_a_dockerfile_named_for_the_image_beside_code_builds_it_from_its_folder(
    tmp_path: Path,
) -> None:
    """`collect.Dockerfile` at the repository's top, named as the image `acme/collect`,
    which no build file names."""
    extra = '          command: ["/entrypoint.sh", "collect"]\n'
    files = _multi_binary_tree(extra, "collect.Dockerfile")
    del files["Makefile"]
    files["deploy/worker.yaml"] = workload(name="worker", image="acme/collect:1", extra=extra)
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("collector", "cmd"), 1)
    assert "dockerfile name: collect.Dockerfile:1: named collect, built from ." in row["evidence"]


PROXY_DOCKERFILE = """\
FROM envoyproxy/envoy:v1.30.0 AS proxy
FROM debian:12-slim
COPY --from=proxy /usr/local/bin/envoy /usr/local/bin/envoy
COPY edge/conf/proxy.yaml /etc/proxy.yaml
COPY edge/proxy/run-proxy.sh /
CMD /run-proxy.sh
"""


def test_a_dockerfile_named_for_the_image_that_copies_only_a_start_script_links_the_script(
    tmp_path: Path,
) -> None:
    """`edge/Dockerfile.proxy`, built from the folder above (`make` runs `docker build -f
    Dockerfile.proxy ..`), takes a published proxy's binary, copies its configuration and
    a start script and runs the script: the container runs that script, none of the Go
    module `edge/` holds (another image's program)."""
    files = {
        "edge/k8s/proxy.yaml": workload(name="proxy", image="proxy:latest"),
        "edge/Dockerfile.proxy": PROXY_DOCKERFILE,
        "edge/conf/proxy.yaml": "admin:\n  address: 0.0.0.0\n",
        "edge/proxy/run-proxy.sh": "#!/bin/sh\nexec envoy -c /etc/proxy.yaml\n",
        "edge/Dockerfile.relay": "FROM golang:1.22\nCOPY edge /src\nWORKDIR /src\n"
        + 'RUN go build -o /relay ./cmd/relay\nCMD ["/relay"]\n',
        "edge/go.mod": "module example.com/edge\n\ngo 1.22\n",
        "edge/cmd/relay/main.go": "package main\n\nfunc main() {}\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("edge", "proxy", "run-proxy.sh")
    assert row["evidence"] == [
        "dockerfile name: edge/Dockerfile.proxy:1: named proxy, runs "
        f"{os.path.join('edge', 'proxy', 'run-proxy.sh')}, copying no folder of code"
    ]


# -- a CI step's build named through variables -----------------------------------------------

WORKFLOW = """\
name: release
on: push
jobs:
  image:
    runs-on: ubuntu-latest
    env:
      REGISTRY: docker.io
      IMAGE_NAME: acme/hello
    steps:
      - uses: actions/checkout@v4
      - name: names
        run: |
          echo "IMAGE=$REGISTRY/$IMAGE_NAME" >> $GITHUB_ENV
          echo "VERSION=$(jq -r .version src/app/package.json)" >> $GITHUB_ENV
      - name: build
        run: |
          docker build --tag "$IMAGE:$VERSION" \\
            --file src/app/Dockerfile src/app
"""


def test_a_workflow_build_named_through_the_job_s_env_and_github_env_links_the_image(
    tmp_path: Path,
) -> None:
    """`IMAGE` written to $GITHUB_ENV by an earlier step from the job's `env`: the image is
    acme/hello whatever the version (a command's output, not known)."""
    files = {
        "deploy/hello.yaml": workload(name="hello", image="acme/hello:1.2"),
        ".github/workflows/release.yaml": WORKFLOW,
        "src/app/Dockerfile": DOCKERFILE,
        **service_app("src/app"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "app", "server.py")
    assert row["evidence"][0] == (
        'workflow: .github/workflows/release.yaml:17: docker build --tag "$IMAGE:$VERSION" '
        "--file src/app/Dockerfile src/app"
    )


def test_a_variable_written_to_github_env_is_not_known_in_its_own_step(tmp_path: Path) -> None:
    """Actions applies $GITHUB_ENV to the steps after the one that writes it."""
    workflow = WORKFLOW.replace(
        '          echo "VERSION',
        '          docker build -t "$IMAGE" src/app\n          echo "VERSION',
    ).replace("docker build --tag", "echo")
    files = {
        "deploy/hello.yaml": workload(name="hello", image="acme/hello:1.2"),
        ".github/workflows/release.yaml": workflow,
        "src/app/Dockerfile": DOCKERFILE,
        **service_app("src/app"),
    }
    assert only(links(tmp_path, files))["code"] is None


ENV_NAMED_WORKFLOW = """\
name: main
on: push
jobs:
  images:
    runs-on: ubuntu-latest
    env:
      REGISTRY_BASE: "${{ secrets.REGION }}-docker.pkg.dev/${{ secrets.PROJECT }}/shop"
      ORDERS_NAME: shop-orders-api
      USERS_NAME: shop-users-api
    steps:
      - uses: actions/checkout@v4
      - name: orders
        working-directory: ./backend
        run: |
          docker build -f ./apps/orders/Dockerfile \\
            -t ${{ env.REGISTRY_BASE }}/${{ env.ORDERS_NAME }}:${{ github.sha }} ./apps/orders
      - name: users
        working-directory: ./backend
        run: |
          docker build -f ./apps/users/Dockerfile \\
            -t ${{ env.REGISTRY_BASE }}/${{ env.USERS_NAME }}:${{ github.sha }} ./apps/users
"""


def env_named_tree(image: str) -> dict[str, str]:
    return {
        "backend/k8s/orders.yaml": workload(name="orders", image=image),
        ".github/workflows/main.yml": ENV_NAMED_WORKFLOW,
        "backend/apps/orders/Dockerfile": DOCKERFILE,
        **service_app("backend/apps/orders"),
        "backend/apps/users/Dockerfile": DOCKERFILE,
        **service_app("backend/apps/users"),
    }


def test_a_workflow_step_builds_from_its_working_directory(tmp_path: Path) -> None:
    """`working-directory: ./backend`: `-f ./apps/orders/Dockerfile ./apps/orders` is
    backend/apps/orders, the image's literal name past the secret registry links it."""
    row = only(links(tmp_path, env_named_tree("europe-docker.pkg.dev/p/shop/shop-orders-api:1")))
    assert row["code"] == os.path.join("backend", "apps", "orders", "server.py")
    assert row["evidence"][0].startswith("workflow: .github/workflows/main.yml:15: docker build")


def test_a_literal_build_runs_in_its_job_s_default_working_directory() -> None:
    workflow = (
        "jobs:\n  images:\n    defaults:\n      run:\n        working-directory: backend\n"
        "    steps:\n      - run: docker build -t acme/orders:1 apps/orders\n"
        "      - run: docker build -t acme/users:1 apps/users\n"
        "        working-directory: other\n"
    )
    builds = workflow_builds(".github/workflows/ci.yml", workflow)
    assert [(b.image, b.context) for b in builds] == [
        ("acme/orders", os.path.join("backend", "apps", "orders")),
        ("acme/users", os.path.join("other", "apps", "users")),
    ]


MATRIX_FOLDER_WORKFLOW = """\
on: push
jobs:
  publish:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        app: [ledger, billing]
    steps:
      - uses: actions/checkout@v4
      - name: image
        run: |
          docker build \\
            -t registry.example/${{ github.repository_owner }}/${{ matrix.app }}:main \\
            .
        working-directory: apps/${{ matrix.app }}
      - name: smoke image
        run: docker build -t registry.example/smoke:main .
        working-directory: apps/${{ matrix.app }}
"""


def test_a_run_step_builds_in_the_folder_its_matrix_names() -> None:
    """`working-directory: apps/${{ matrix.app }}`: each run's `docker build ... .` builds
    that run's folder (a literal line too, once a run), not the repository's top."""
    builds = workflow_builds(".github/workflows/ci.yml", MATRIX_FOLDER_WORKFLOW)
    assert sorted((b.image, b.context) for b in builds) == [
        ("billing", os.path.join("apps", "billing")),  # (past the owner a variable names)
        ("ledger", os.path.join("apps", "ledger")),
        ("registry.example/smoke", os.path.join("apps", "billing")),
        ("registry.example/smoke", os.path.join("apps", "ledger")),
    ]


def test_a_workflow_s_default_working_directory_and_an_unknown_one() -> None:
    """The workflow's `defaults.run.working-directory` holds where neither the step nor its
    job gives one; a folder a value not known names (an input) builds nothing rather than
    the top."""
    workflow = (
        "defaults:\n  run:\n    working-directory: site\n"
        "jobs:\n  a:\n    steps:\n      - run: docker build -t acme/site:1 .\n"
        "  b:\n    steps:\n      - run: docker build -t acme/guess:1 .\n"
        "        working-directory: ${{ inputs.folder }}\n"
    )
    builds = workflow_builds(".github/workflows/ci.yml", workflow)
    assert [(b.image, b.context) for b in builds] == [("acme/site", "site")]


def test_a_matrix_built_service_links_to_its_own_folder(tmp_path: Path) -> None:
    files = {
        "deploy/ledger.yaml": workload(name="ledger", image="registry.example/acme/ledger:main"),
        ".github/workflows/ci.yml": MATRIX_FOLDER_WORKFLOW,
        "apps/ledger/Dockerfile": DOCKERFILE,
        **service_app("apps/ledger"),
        "apps/billing/Dockerfile": DOCKERFILE,
        **service_app("apps/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("apps", "ledger", "server.py")
    assert row["evidence"][0].startswith("workflow: .github/workflows/ci.yml:12: docker build")


def test_a_manifest_naming_its_image_by_the_workflow_s_env_variable_links_that_build(
    tmp_path: Path,
) -> None:
    """The manifest the pipeline fills in writes the image as the workflow's build does,
    `.../shop/${ORDERS_NAME}:${IMAGE_TAG}`: the build whose `${{ env.ORDERS_NAME }}` names
    its image, not the users service's."""
    image = "${GCLOUD_REGION}-docker.pkg.dev/${GCLOUD_PROJECT}/shop/${ORDERS_NAME}:${IMAGE_TAG}"
    row = only(links(tmp_path, env_named_tree(image)))
    assert row["code"] == os.path.join("backend", "apps", "orders", "server.py")
    assert row["evidence"][0].startswith("workflow: .github/workflows/main.yml:15: docker build")


def test_a_run_on_a_folder_of_the_repository_reads_the_repository_s_workflow(
    tmp_path: Path,
) -> None:
    """Run in backend/ of a git repository: the workflow above it (of the same repository,
    read as the project's context) builds ../backend/apps/orders, shown as the run shows
    the code, apps/orders."""
    files = {**env_named_tree("europe-docker.pkg.dev/p/shop/shop-orders-api:1"), ".git/HEAD": ""}
    make_tree(tmp_path, files)
    old = os.getcwd()
    os.chdir(tmp_path / "backend")
    try:
        result = CliRunner().invoke(cli, ["explain-links", "--format", "json", "."])
    finally:
        os.chdir(old)
    row = only(json.loads(result.output)["links"])
    assert row["code"] == os.path.join("apps", "orders", "server.py")
    assert row["modules"] == 2


def test_a_manifest_naming_its_image_by_a_variable_no_build_names_links_nothing(
    tmp_path: Path,
) -> None:
    image = "registry.example/shop/${PAYMENTS_NAME}:${IMAGE_TAG}"
    assert only(links(tmp_path, env_named_tree(image)))["code"] is None


# -- a program started as a module of its package --------------------------------------------


def test_a_program_started_as_a_module_of_its_package_imports_that_package(
    tmp_path: Path,
) -> None:
    """`uvicorn app.main:app` from the folder that holds `app/` (FastAPI's layout): the
    entry's `from app.grpc.server import serve` is a module of the same package, found
    above the entry's own folder."""
    files = {
        "k8s/user.yaml": workload(image="user-service:latest"),
        "user_service/Dockerfile": (
            "FROM python:3.12-slim\nWORKDIR /app\nCOPY app/ app/\n"
            'CMD ["uvicorn", "app.main:app", "--port", "8000"]\n'
        ),
        "user_service/app/main.py": "from app.grpc.server import serve\n",
        "user_service/app/grpc/server.py": "import grpc\nfrom app.config import PORT\n",
        "user_service/app/config.py": "PORT = 50051\n",
        "user_service/tools/seed.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("user_service", "app", "main.py")
    assert row["modules"] == 3, "main, the server it imports and the config that imports"


GO_INSTALL_EVERY = """\
FROM golang:1.23-alpine AS build
WORKDIR /src/
COPY go.mod go.sum ./
COPY shared shared
COPY orders orders
COPY billing billing
RUN go install ./...
FROM alpine:3.20
WORKDIR /usr/bin
COPY --from=build /go/bin .
"""


def _every_program_image(runs: str) -> dict[str, str]:
    """A root Dockerfile that copies each service's folder into /src and `go install`s them
    all; the Deployment picks its binary by `args`."""
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.23\n",
        "go.sum": "",
        "build.sh": "#!/bin/sh\ndocker build -t registry.example/shop .\n",
        "Dockerfile": GO_INSTALL_EVERY,
        "shared/log.go": "package shared\n",
        "api.yaml": workload(name="api", image="registry.example/shop", extra=runs),
    }
    for name in ("orders", "billing"):
        files[f"{name}/main.go"] = (
            'package main\n\nimport _ "example.com/shop/shared"\n\nfunc main() {}\n'
        )
    return files


def test_an_image_that_installs_every_program_runs_the_one_its_args_name(
    tmp_path: Path,
) -> None:
    """`go install ./...` in /src, where the COPYs put each folder of the context under
    its own name (and go.mod beside them): the binary `orders` the args name is the package
    in orders/, not the whole module."""
    row = only(links(tmp_path, _every_program_image("          args: [orders]\n")))
    assert row["code"] == "orders"
    assert "dockerfile: Dockerfile:7: RUN go install ./..." in row["evidence"]


def test_an_image_that_installs_every_program_and_runs_no_known_one_links_nothing(
    tmp_path: Path,
) -> None:
    """The args name a binary no package of the tree is built as: no one program's code,
    and never the whole module."""
    row = only(links(tmp_path, _every_program_image("          args: [payments]\n")))
    assert row["code"] is None, row
    assert "builds every program below ." in row["why_not"], row


def test_a_go_install_where_go_mod_is_copied_builds_the_context_s_root() -> None:
    """`COPY go.mod go.sum ./` puts files in /src, not the folder go.sum: the package
    built there is the context's root, as the folders copied beside it say."""
    dockerfile = parse_dockerfile("Dockerfile", GO_INSTALL_EVERY)
    assert [b.package for b in dockerfile.go_builds] == ["./..."]


def test_an_image_that_copies_nothing_of_its_context_links_no_code(tmp_path: Path) -> None:
    """A database's image built from the repository's root with a Dockerfile that only sets
    ENV and CMD on its base: the context is the whole tree, but no code of it is in the
    image."""
    files = {
        "build.sh": "docker build -t registry.example/cache -f infra/cache.Dockerfile .\n",
        "infra/cache.Dockerfile": "FROM redis:7\nENV MAXMEMORY=64mb\nEXPOSE 6379\n"
        'CMD ["redis-server"]\n',
        "cache.yaml": workload(name="cache", image="registry.example/cache"),
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None, row
    assert "copies nothing of its context" in row["why_not"], row


def test_an_image_built_from_one_the_tree_builds_may_hold_its_code(tmp_path: Path) -> None:
    """The same Dockerfile FROM an image a build of the tree makes: its code may come from
    there, so the refusal does not apply."""
    files = {
        "build.sh": "#!/bin/sh\ndocker build -t registry.example/base .\n"
        "docker build -t registry.example/cache -f infra/cache.Dockerfile .\n",
        "Dockerfile": DOCKERFILE,
        "infra/cache.Dockerfile": "FROM registry.example/base\nENV MAXMEMORY=64mb\n",
        "cache.yaml": workload(name="cache", image="registry.example/cache"),
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert "copies nothing of its context" not in (row.get("why_not") or ""), row


def test_a_manifest_named_as_its_folder_beside_the_folder_s_role_dockerfile_is_a_guess(
    tmp_path: Path,
) -> None:
    """worker/worker.yaml beside worker/Dockerfile.worker, its image (`local/jobs`) built by
    nothing the tree says and sharing no word with the folder: the manifest's name and the
    Dockerfile's both name the folder, a guess."""
    files = {
        "worker/worker.yaml": workload(name="jobs", image="local/jobs"),
        "worker/Dockerfile.worker": DOCKERFILE,
        **service_app("worker"),
        "api/Dockerfile": DOCKERFILE,
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("worker", "server.py")
    assert row["evidence"][-1].startswith("manifest beside guess: worker/worker.yaml:11:")
    assert "a guess: worker/worker.yaml is named as its folder" in row["evidence"][-1]


def test_a_manifest_named_otherwise_beside_a_role_dockerfile_links_nothing(
    tmp_path: Path,
) -> None:
    """worker/cache.yaml beside worker/Dockerfile.worker: nothing says the pod runs the
    folder's program (a store kept beside it), so no guess."""
    files = {
        "worker/cache.yaml": workload(name="jobs", image="local/jobs"),
        "worker/Dockerfile.worker": DOCKERFILE,
        **service_app("worker"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_dockerfile_whose_copy_names_a_variable_s_path_copies_something() -> None:
    """`COPY dist/$TARGETPLATFORM/app /app`: a path not read, still a copy of the context."""
    dockerfile = parse_dockerfile(
        "Dockerfile", "FROM alpine:3\nARG TARGETPLATFORM\nCOPY dist/$TARGETPLATFORM/app /app\n"
    )
    assert dockerfile.copies == () and dockerfile.copies_any
    assert not parse_dockerfile("Dockerfile", 'FROM redis:7\nCMD ["redis-server"]\n').copies_any


def test_a_dockerfile_kept_with_its_code_that_copies_nothing_still_links_it(
    tmp_path: Path,
) -> None:
    """api/Dockerfile `FROM acme/python:3-onbuild` with EXPOSE alone: its base's ONBUILD
    lines copy the context, so the folder's code is the image's (no refusal)."""
    files = {
        "build.sh": "docker build -t registry.example/api api\n",
        "api/Dockerfile": "FROM acme/python:3-onbuild\nEXPOSE 7070\n",
        "api.yaml": workload(name="api", image="registry.example/api"),
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is not None and row["code"].startswith("api"), row
