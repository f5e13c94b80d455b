"""The code <-> container link: which code runs in which container, from each kind of
evidence a repository holds, the strongest winning, and what the link lets rules see."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.code.entry_points import container_argv, entry_of
from k8slb.interface.cli import cli
from k8slb.reading.build_files import image_repository, parse_dockerfile

from tests.helpers import FIXTURES, count_parses, lint_files

WORKLOAD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: server
          image: {image}
{extra}"""
SERVER = """\
import signal
from concurrent import futures

import grpc

import handlers


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(4){options})
    server.add_insecure_port("[::]:{port}")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(20))
    server.wait_for_termination()
"""
DOCKERFILE = """\
FROM python:3.12-slim
WORKDIR /app
COPY . .
CMD ["python", "server.py"]
"""


def workload(
    name: str = "inventory", image: str = "registry.example/inventory:1.0", extra: str = ""
) -> str:
    return WORKLOAD.format(name=name, image=image, extra=extra)


def service_app(folder: str) -> dict[str, str]:
    """A service's code folder: an entry point, a module it imports and one it does not."""
    return {
        f"{folder}/server.py": SERVER.format(port=7070, options=""),
        f"{folder}/handlers.py": "import grpc\n",
        f"{folder}/unused.py": "import grpc\n",
    }


def make_tree(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def links(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict[str, Any]]:
    make_tree(tmp_path, files)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(cli, ["explain-links", "--format", "json", *args, "."])
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.output)["links"]
    return rows


def only(rows: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(rows) == 1, rows
    return rows[0]


# -- each kind of evidence -------------------------------------------------------------------


def test_skaffold_artifact_links_the_image_to_its_context(tmp_path: Path) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="inventory"),
        "skaffold.yaml": "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
        "    - image: inventory\n      context: src/inv\n",
        "src/inv/Dockerfile": DOCKERFILE,
        **service_app("src/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["container"] == "Deployment/shop/inventory:server"
    assert row["code"] == os.path.join("src", "inv", "server.py")
    assert row["modules"] == 2, "the entry point and what it imports, not unused.py"
    assert row["evidence"] == [
        "skaffold: skaffold.yaml:5: - image: inventory",
        'dockerfile: src/inv/Dockerfile:4: CMD ["python", "server.py"]',
    ]


@pytest.mark.parametrize(
    "name", ["skaffold-dev.yaml", "skaffold.prod.yml", "skaffold_loadtest.yaml"]
)
def test_a_skaffold_file_of_another_name_is_read_as_one(tmp_path: Path, name: str) -> None:
    """`skaffold -f skaffold_loadtest.yaml`: a file named so is a skaffold file too, its
    artifacts read, not a manifest."""
    files = {
        "k8s/inventory.yaml": workload(image="inventory"),
        f"deploy/{name}": "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
        "    - image: inventory\n      context: ../src/inv\n",
        "src/inv/Dockerfile": DOCKERFILE,
        **service_app("src/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["evidence"][0] == f"skaffold: deploy/{name}:5: - image: inventory", row


def test_compose_build_context_and_dockerfile(tmp_path: Path) -> None:
    files = {
        "inventory.yaml": workload(image="registry.example/shop/inventory:2.0"),
        "compose.yaml": "services:\n  inv:\n    image: shop/inventory\n    build:\n"
        "      context: ./svc\n      dockerfile: build/Dockerfile.prod\n",
        "svc/build/Dockerfile.prod": "FROM python:3.12\nWORKDIR /srv\nCOPY app/ /srv/app/\n"
        'ENTRYPOINT ["python", "-m", "app.main"]\n',
        "svc/app/__init__.py": "",
        "svc/app/main.py": "from . import grpcserver\n",
        "svc/app/grpcserver.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc", "app", "main.py")
    assert row["modules"] == 2
    assert row["evidence"][0] == "compose: compose.yaml:3: image: shop/inventory"
    assert "ENTRYPOINT" in row["evidence"][1]


@pytest.mark.parametrize(
    ("image", "repository"),
    [
        ("shop/inventory:${TAG:-2.0.1}", "shop/inventory"),
        ("localhost:5000/shop/inventory:${TAG:-latest}@sha256:0a", "localhost:5000/shop/inventory"),
        ("shop/inventory:2.0", "shop/inventory"),
        (
            "${REGISTRY:-docker.io}/shop/inventory:${TAG:-1}",
            "${registry:-docker.io}/shop/inventory",
        ),
    ],
)
def test_an_image_s_tag_begins_at_its_last_segment_s_first_colon(
    image: str, repository: str
) -> None:
    """A tag a variable gives with a default (`${TAG:-2.0.1}`) holds a colon of its own."""
    assert image_repository(image) == repository


def test_a_compose_image_tagged_by_a_variable_with_a_default_links_its_build(
    tmp_path: Path,
) -> None:
    """`image: shop/inventory:${TAG:-2.0}` and `build: ./svc`: the build of that image,
    stronger than a guess from the folder's name."""
    files = {
        "inventory.yaml": workload(image="registry.example/shop/inventory:2.0"),
        "deploy/compose.yaml": "services:\n  inv:\n    image: shop/inventory:${TAG:-2.0}\n"
        "    build:\n      context: ../svc\n",
        "svc/Dockerfile": DOCKERFILE,
        **service_app("svc"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc", "server.py")
    assert row["evidence"][0] == "compose: deploy/compose.yaml:3: image: shop/inventory:${TAG:-2.0}"


def test_tiltfile_docker_build_with_literal_arguments(tmp_path: Path) -> None:
    files = {
        "inventory.yaml": workload(image="inventory-image"),
        "Tiltfile": "# docker_build('nope', 'elsewhere')\n"
        "docker_build('inventory-image', 'services/inventory')\n"
        "docker_build(IMAGE, 'services/other')\n"
        "docker_build_sub('localhost:5000/shop/worker:dev', context='./services/worker',\n"
        "                 extra_cmds=['ADD ./VERSION /app/VERSION'])\n",
        "worker.yaml": workload(name="worker", image="shop/worker:1.2"),
        "services/inventory/Dockerfile": DOCKERFILE,
        **service_app("services/inventory"),
        "services/worker/Dockerfile": DOCKERFILE,
        **service_app("services/worker"),
    }
    rows = {r["container"]: r for r in links(tmp_path, files)}
    row = rows["Deployment/shop/inventory:server"]
    assert row["code"] == os.path.join("services", "inventory", "server.py")
    assert row["evidence"][0].startswith("tiltfile: Tiltfile:2:")
    row = rows["Deployment/shop/worker:server"]  # tilt-extensions' docker_build_sub
    assert row["code"] == os.path.join("services", "worker", "server.py")
    assert row["evidence"][0].startswith("tiltfile: Tiltfile:4:")


def test_a_tiltfiles_dockerfile_is_taken_from_the_tiltfiles_folder(tmp_path: Path) -> None:
    """Tilt resolves `dockerfile=` as every path it is given, from the Tiltfile's folder:
    the Dockerfile kept beside the Tiltfile, not in the context, says what runs."""
    files = {
        "inventory.yaml": workload(image="inventory-image"),
        "deploy/Tiltfile": "docker_build('inventory-image', '../services/inventory',\n"
        "             dockerfile='docker/inventory.Dockerfile')\n",
        "deploy/docker/inventory.Dockerfile": DOCKERFILE.replace("server.py", "worker.py"),
        "services/inventory/docker/inventory.Dockerfile": DOCKERFILE,  # another image's
        "services/inventory/worker.py": SERVER.format(port=7070, options=""),
        **service_app("services/inventory"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inventory", "worker.py")


@pytest.mark.parametrize(
    "step",
    [
        "      - run: docker build -t ghcr.io/acme/inventory:${{ github.sha }} -f "
        "inv/Dockerfile inv\n",
        "      - run: |\n          docker build \\\n            -t ghcr.io/acme/inventory inv\n",
        "      - uses: docker/build-push-action@v6\n        with:\n          context: inv\n"
        "          tags: ghcr.io/acme/inventory:latest\n",
        "      - uses: fastbuilds/build-push-action@v1\n        with:\n          context: inv\n"
        "          tags: ghcr.io/acme/inventory:latest\n",
        "      - uses: acme/ci/actions/push-to-hub@0f3c2d1\n        with:\n"
        "          context: inv/\n"
        "          repository: acme/inventory\n          tags: ${{ inputs.tags }}\n",
    ],
    ids=["docker-build", "continued-lines", "build-push-action", "drop-in", "repository-key"],
)
def test_github_workflow_builds(tmp_path: Path, step: str) -> None:
    """A workflow's build names its image in a `docker build`, docker's action's `tags` (or
    a drop-in's), or another build action's `repository`; its folder wins over a library
    folder named as the image is (a name is a guess, a build is evidence)."""
    workflow = "on: push\njobs:\n  image:\n    runs-on: ubuntu-latest\n    steps:\n" + step
    files = {
        "deploy/inventory.yaml": workload(image="ghcr.io/acme/inventory:v3"),
        ".github/workflows/image.yml": workflow,
        "inv/Dockerfile": DOCKERFILE,
        "tools/sync/lib/inventory/__init__.py": "import json\n",
        "tools/sync/lib/inventory/client.py": "import json\n",
        **service_app("inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inv", "server.py"), "a variable tag: the name is literal"
    assert row["evidence"][0].startswith("workflow: .github/workflows/image.yml:")


@pytest.mark.parametrize(
    ("where", "folder"),
    [("cloudbuild.yaml", "inv"), ("inv/cloudbuild.yaml", "inv"), ("cloudbuild.yaml", ".")],
    ids=["dir-below-the-file", "file-in-its-dir", "no-dir"],
)
def test_cloud_build_docker_steps_build_every_tag_from_the_step_dir(
    tmp_path: Path, where: str, folder: str
) -> None:
    cloudbuild = (
        "steps:\n- name: gcr.io/cloud-builders/docker\n  args:\n    - build\n"
        "    - -t\n    - gcr.io/acme/inventory:v1\n"
        "    - -t\n    - us-docker.pkg.dev/acme/images/inventory:${SHORT_SHA}\n"
        "    - .\n" + (f"  dir: {folder}\n" if folder != "." else "")
    )
    files = {
        "deploy/inventory.yaml": workload(image="us-docker.pkg.dev/acme/images/inventory:v3"),
        where: cloudbuild,
        os.path.join(folder, "Dockerfile"): DOCKERFILE,
        **service_app(folder),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.normpath(os.path.join(folder, "server.py"))
    assert row["evidence"][0] == (
        f"cloudbuild: {where}:8: - us-docker.pkg.dev/acme/images/inventory:${{SHORT_SHA}}"
    )


def test_image_name_matches_a_source_folder_as_the_weakest_evidence(tmp_path: Path) -> None:
    files = {
        "manifests/recommendation.yaml": workload(
            image="gcr.io/google-samples/microservices-demo/recommendationservice:v0.10.0"
        ),
        "src/recommendationservice/recommendation_server.py": SERVER.format(port=8080, options=""),
        "src/recommendationservice/handlers.py": "",
        "src/cartservice/server.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "recommendationservice"), "no entry point: the folder"
    assert row["modules"] == 2
    assert row["evidence"] == [
        "image name: manifests/recommendation.yaml:11: image: "
        "gcr.io/google-samples/microservices-demo/recommendationservice:v0.10.0"
    ]


@pytest.mark.parametrize(
    ("image", "folder", "how"),
    [
        # a prefix on every image: the name's end after it
        ("registry.example/acme/shop-cart:1.4", "src/cart", "its name ends with"),
        # a Java module's group: the folder's name ends with the image's
        (
            "registry.example/acme/cart:1.4",
            "services/com.acme.cart",
            "whose name ends with its name",
        ),
    ],
    ids=["prefixed-image", "grouped-folder"],
)
def test_an_image_named_after_a_folder_with_words_in_front_links_as_the_weakest_guess(
    tmp_path: Path, image: str, folder: str, how: str
) -> None:
    files = {
        "deploy/cart.yaml": workload("cart", image),
        f"{folder}/server.py": SERVER.format(port=7070, options=""),
        f"{folder}/Dockerfile": DOCKERFILE,
        "src/checkout/server.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join(*folder.split("/"), "server.py")
    assert row["evidence"][-1] == (
        f"image name guess: deploy/cart.yaml:11: image: {image} "
        f"(a guess: {folder} is the one build folder {how})"
    )
    del files[f"{folder}/Dockerfile"]  # a folder of code that builds no image: no guess
    assert only(links(tmp_path / "no-image", files))["code"] is None


def test_a_name_in_part_that_fits_two_folders_alike_links_neither(tmp_path: Path) -> None:
    files = {
        "deploy/cart.yaml": workload("cart", "registry.example/shop-cart:1.4"),
        "team-a/cart/server.py": "import grpc\n",
        "team-a/cart/Dockerfile": DOCKERFILE,
        "team-b/cart/server.py": "import grpc\n",
        "team-b/cart/Dockerfile": DOCKERFILE,
    }
    assert only(links(tmp_path, files))["code"] is None
    whole = {**files, "deploy/shop-cart/server.py": "import grpc\n"}  # a name matched whole
    assert only(links(tmp_path / "whole", whole))["evidence"][0].startswith("image name: ")


def test_container_command_overrides_the_dockerfile(tmp_path: Path) -> None:
    extra = '          command: ["python", "worker.py"]\n'
    files = {
        "inventory.yaml": workload(extra=extra),
        "inventory/Dockerfile": DOCKERFILE,
        **service_app("inventory"),
        "inventory/worker.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory", "worker.py")
    assert row["evidence"][0].startswith("command: inventory.yaml:12: command: python worker.py")


def test_a_command_alone_finds_its_script_in_the_tree(tmp_path: Path) -> None:
    extra = "          args: [/srv/jobs/reindex.py, --all]\n          command: [python3]\n"
    files = {
        "cron.yaml": workload(name="reindex", image="busybox", extra=extra),
        "tools/jobs/reindex.py": "import grpc\n",
        "tools/other.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("tools", "jobs", "reindex.py")
    assert row["evidence"][0].startswith("command:")


def test_a_command_alone_running_a_package_s_module_finds_its_file(tmp_path: Path) -> None:
    """`python -m inference.server.main` (a shared image, its WORKDIR on Python's path):
    the module's dotted path names inference/server/main.py whole."""
    extra = '          command: ["python", "-m", "inference.server.main"]\n'
    files = {
        "chart/grpc.yaml": workload(name="grpc", image="acme/all:latest", extra=extra),
        "inference/server/main.py": "import grpc\n",
        "inference/client/main.py": "import grpc\n",
        "scraper/main.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inference", "server", "main.py")
    assert row["evidence"][0].startswith("command: chart/grpc.yaml:12: command: python -m")


def test_a_command_alone_running_a_package_finds_its_main_module(tmp_path: Path) -> None:
    extra = '          command: ["python3", "-m", "tools.reindex"]\n'
    files = {
        "cron.yaml": workload(name="reindex", image="busybox", extra=extra),
        "src/tools/reindex/__main__.py": "import grpc\n",
        "src/tools/reindex/__init__.py": "",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "tools", "reindex", "__main__.py")


@pytest.mark.parametrize(
    "module",
    [
        "main",  # a bare module: any service's main.py
        "inference.main",  # its last name alone is in the tree, not its package
    ],
)
def test_a_command_alone_running_a_module_the_tree_does_not_name_whole_links_nothing(
    tmp_path: Path, module: str
) -> None:
    extra = f'          command: ["python", "-m", "{module}"]\n'
    files = {
        "chart/grpc.yaml": workload(name="grpc", image="acme/all:latest", extra=extra),
        "scraper/main.py": "import grpc\n",
    }
    assert only(links(tmp_path, files))["code"] is None


def test_conflicting_evidence_the_strongest_wins_and_the_table_says_so(tmp_path: Path) -> None:
    files = {
        "inventory.yaml": workload(image="inventory"),  # the folder name says inventory/
        "skaffold.yaml": "build:\n  artifacts:\n    - image: inventory\n      context: v2\n",
        "inventory/Dockerfile": DOCKERFILE,
        **service_app("inventory"),
        "v2/Dockerfile": DOCKERFILE,
        **service_app("v2"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("v2", "server.py")
    assert row["overruled"] == ["image name: inventory.yaml:11: image: inventory"]
    text = CliRunner().invoke(cli, ["explain-links", str(tmp_path)]).output
    assert "overruled by the evidence above: image name:" in text


def test_the_configuration_pins_a_link_above_all_evidence(tmp_path: Path) -> None:
    files = {
        "inventory.yaml": workload(image="inventory"),
        "inventory/Dockerfile": DOCKERFILE,
        **service_app("inventory"),
        "legacy/main.py": "import grpc\n",
        ".k8slb.yaml": "links:\n  Deployment/shop/inventory:server: legacy/main.py\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("legacy", "main.py")
    assert row["evidence"][0] == (  # the configuration's own line
        "config: .k8slb.yaml:2: Deployment/shop/inventory:server = legacy/main.py"
    )
    assert row["overruled"][0].startswith("image name:")


def test_a_pin_that_names_no_container_is_a_warning_on_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misspelt key pinned nothing, silently: the pin is said, with the closest
    container, by check (its cached second run too), fix and explain-links."""
    files = {
        "inventory.yaml": workload(image="inventory"),
        **service_app("inventory"),
        "legacy/main.py": "import grpc\n",
        ".k8slb.yaml": "links:\n  Deployment/shop/inventry:server: legacy/main.py\n",
    }
    make_tree(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    said = (
        "k8slb: warning: .k8slb.yaml:2: `links`: Deployment/shop/inventry:server is no container"
        " k8slb read (did you mean Deployment/shop/inventory:server?); the pin is not applied"
    )
    for command in (["check"], ["check"], ["fix", "--diff"], ["explain-links"]):
        assert said in CliRunner().invoke(cli, [*command, "."]).stderr, command


def test_a_pin_whose_code_the_run_did_not_read_is_not_mentioned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linting one folder of the repository: the pins of the others are not its business."""
    files = {
        "k8s/inventory.yaml": workload(image="inventory"),
        "legacy/main.py": "import grpc\n",
        ".k8slb.yaml": "links:\n  Deployment/shop/billing:server: legacy/main.py\n",
    }
    make_tree(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    assert "warning" not in CliRunner().invoke(cli, ["check", "--no-project-context", "k8s"]).stderr
    assert "billing:server is no container" in CliRunner().invoke(cli, ["check", "."]).stderr


def test_a_wrong_link_key_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / ".k8slb.yaml").write_text("links:\n  inventory: src\n")
    result = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert result.exit_code == 2 and "links" in result.output


def test_containers_without_code_are_listed(tmp_path: Path) -> None:
    rows = links(tmp_path, {"a.yaml": workload(image="nginx:1.27")})
    assert only(rows) == {
        "container": "Deployment/shop/inventory:server",
        "code": None,
        "modules": 0,
        "evidence": [],
        "overruled": [],
        "env_read_by": [],
    }


def test_a_container_with_no_code_names_the_unlinked_code_that_reads_its_env(
    tmp_path: Path,
) -> None:
    """The findings read a client's variable in the workload nearest its code when no
    container is linked to it; explain-links says so rather than only "no code found"."""
    env = "          env:\n            - {name: BACKEND_ADDR, value: 'backend.shop:50051'}\n"
    files = {
        "k8s/frontend.yaml": workload("frontend", "registry.example/web:2.0", env),
        "app/client.py": (
            "import os\n\nimport grpc\n\n"
            "channel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n"
        ),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["env_read_by"]) == (None, ["app/client.py: BACKEND_ADDR"])
    text = CliRunner().invoke(cli, ["explain-links", "--no-cache", str(tmp_path)]).output
    assert "    its env, read by code no container runs: " in text
    linked = {**files, "app/Dockerfile": DOCKERFILE.replace("server.py", "client.py")}
    linked["k8s/frontend.yaml"] = workload("frontend", "registry.example/app:2.0", env)
    row = only(links(tmp_path / "linked", linked))
    assert row["code"] == "app/client.py" and row["env_read_by"] == []


# -- reading build files and command lines --------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "script", "module"),
    [
        (["python", "server.py"], "server.py", None),
        (["python3.12", "-u", "-W", "ignore", "/app/main.py", "--port", "1"], "/app/main.py", None),
        (["python", "-m", "app.server"], None, "app.server"),
        (["gunicorn", "-b", ":8000", "-w", "4", "shop.wsgi:application"], None, "shop.wsgi"),
        (["uvicorn", "main:app", "--host", "0.0.0.0"], None, "main"),
        (
            ["/bin/sh", "-c", "cd /app && exec python recommendation_server.py"],
            "recommendation_server.py",
            None,
        ),
        (["tini", "--", "opentelemetry-instrument", "python", "x.py"], "x.py", None),
        (["./serve.py"], "./serve.py", None),
        (["python", "-c", "print(1)"], None, None),
        (["python", "$APP"], None, None),
        (["/usr/local/bin/envoy", "-c", "/etc/envoy.yaml"], None, None),
    ],
)
def test_entry_points_of_command_lines(
    argv: list[str], script: str | None, module: str | None
) -> None:
    entry = entry_of(argv)
    found = (entry.script, entry.module) if entry else (None, None)
    assert found == (script, module)


def test_kubernetes_composes_command_and_args_over_the_image() -> None:
    image = (["python"], ["server.py"])
    assert container_argv(None, None, *image) == ["python", "server.py"]
    assert container_argv(None, ["other.py"], *image) == ["python", "other.py"]
    assert container_argv(["gunicorn"], None, *image) == ["gunicorn"], "command drops CMD"


def test_dockerfile_last_stage_continuations_and_shell_form() -> None:
    dockerfile = parse_dockerfile(
        "Dockerfile",
        'FROM golang AS build\nCMD ["build"]\nFROM python:3.12\n# comment\nWORKDIR /srv\n'
        "WORKDIR app\nCOPY --from=build /out /bin/\nCOPY --chown=1000 src/ ./\n"
        "CMD python \\\n  -u main.py\n",
    )
    assert dockerfile.workdir == "/srv/app"
    assert [(c.source, c.dest) for c in dockerfile.copies] == [("src", "/srv/app")]
    assert dockerfile.cmd == ("/bin/sh", "-c", "python -u main.py")
    assert dockerfile.cmd_said is not None and dockerfile.cmd_said.line == 9


# -- what the link unlocks ------------------------------------------------------------------


def inventory_tree(options: str = "") -> dict[str, str]:
    service = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: inventory, namespace: shop}\n"
        "spec:\n  selector: {app: inventory}\n  ports: [{name: tcp-service, port: 7070, "
        "targetPort: tcp}]\n"
    )
    ports = "          ports: [{name: tcp, containerPort: 7070}]\n"
    return {
        # three replicas: a one-replica backend would only be info
        "inventory.yaml": workload(extra=ports).replace("spec:\n", "spec:\n  replicas: 3\n", 1)
        + service,
        "inventory/Dockerfile": DOCKERFILE,
        "inventory/server.py": SERVER.format(port=7070, options=options),
        "inventory/handlers.py": "",
    }


def test_grpc_found_from_the_code_whatever_the_port_is_named(tmp_path: Path) -> None:
    result = lint_files(tmp_path, inventory_tree(), select=["KLB101"])
    [finding] = result.findings
    assert "its code serves gRPC on 7070: server.py:11" in finding.message
    assert finding.severity.label == "warning"
    notes = [r.message for r in finding.related]
    assert any("dockerfile:" in note for note in notes), "the link's evidence is quoted"


def test_unlinked_code_is_no_evidence(tmp_path: Path) -> None:
    tree = inventory_tree()
    tree["inventory.yaml"] = tree["inventory.yaml"].replace(
        "registry.example/inventory:1.0", "nginx"
    )
    assert lint_files(tmp_path, tree, select=["KLB101"]).findings == []


def test_a_server_that_caps_connection_age_lowers_the_finding(tmp_path: Path) -> None:
    options = (
        ', options=[("grpc.max_connection_age_ms", 300000), '
        '("grpc.max_connection_age_grace_ms", 30000)]'
    )
    result = lint_files(tmp_path, inventory_tree(options), select=["KLB101"])
    [finding] = result.findings
    assert finding.severity.label == "info"
    assert "its server caps connection age" in finding.message
    assert "grpc.max_connection_age_ms=300000" in finding.detail[0]


@pytest.mark.parametrize(
    ("options", "severity"),
    [
        (', options=[("grpc.max_connection_age_ms", settings.max_age_ms)]', "info"),
        ("", "warning"),
    ],
    ids=["capped", "uncapped"],
)
def test_a_server_whose_address_comes_from_its_settings_is_judged_as_klb201_judges_it(
    tmp_path: Path, options: str, severity: str
) -> None:
    """The server's address and its maximum age come from a settings object: k8slb cannot
    tell which port it listens on, so the servers of the code the backend runs stand for
    it, as KLB201 reads them (quiet on a server that sets the age, to whatever value)."""
    tree = inventory_tree()
    server = SERVER.replace("def serve():", "def serve(settings):")
    server = server.replace('"[::]:{port}"', "settings.address")
    tree["inventory/server.py"] = server.format(options=options)
    tree["inventory.yaml"] = tree["inventory.yaml"].replace("name: tcp-service", "name: grpc")
    result = lint_files(tmp_path, tree, select=["KLB101", "KLB201"])
    assert [f.rule for f in result.findings] == ["KLB101"] + (["KLB201"] if not options else [])
    assert result.findings[0].severity.label == severity
    if options:
        assert "its server caps connection age" in result.findings[0].message
        assert "to a value k8slb cannot read" in result.findings[0].detail[0]


@pytest.mark.parametrize(
    ("edits", "evidence"),
    [
        ([("name: tcp-service", "name: grpc")], "port name 'grpc'"),
        ([("name: tcp-service,", "name: tcp-service, appProtocol: grpc,")], "appProtocol grpc"),
        (
            [("{name: tcp,", "{name: grpc,"), ("targetPort: tcp", "targetPort: grpc")],
            "container port 'grpc'",
        ),
    ],
    ids=["port-name", "app-protocol", "container-port-name"],
)
def test_a_capped_server_lowers_the_finding_whatever_the_grpc_evidence(
    tmp_path: Path, edits: list[tuple[str, str]], evidence: str
) -> None:
    """The manifests say gRPC before the code does: the server the code starts on the
    targeted port still caps connection age, and that is what re-spreads the clients."""
    options = (
        ', options=[("grpc.max_connection_age_ms", 300000), '
        '("grpc.max_connection_age_grace_ms", 30000)]'
    )
    tree = inventory_tree(options)
    for was, now in edits:
        assert was in tree["inventory.yaml"]
        tree["inventory.yaml"] = tree["inventory.yaml"].replace(was, now)
    [finding] = lint_files(tmp_path, tree, select=["KLB101"]).findings
    assert evidence in finding.message
    assert finding.severity.label == "info"
    assert "its server caps connection age" in finding.message
    assert "grpc.max_connection_age_ms=300000" in finding.detail[0]


def test_an_uncapped_server_behind_a_grpc_named_port_stays_a_warning(tmp_path: Path) -> None:
    tree = inventory_tree()
    tree["inventory.yaml"] = tree["inventory.yaml"].replace("name: tcp-service", "name: grpc")
    [finding] = lint_files(tmp_path, tree, select=["KLB101"]).findings
    assert finding.severity.label == "warning"
    assert "caps connection age" not in finding.message


def test_one_uncapped_server_behind_a_grpc_port_keeps_the_warning(tmp_path: Path) -> None:
    """Two gRPC ports, one served by a server that caps connection age and one by a server
    that does not: the clients of the second stay where they are."""
    capped = SERVER.format(port=7070, options=', options=[("grpc.max_connection_age_ms", 300000)]')
    second = (
        "    admin = grpc.server(futures.ThreadPoolExecutor(1))\n"
        '    admin.add_insecure_port("[::]:7071")\n'
        "    admin.start()\n"
    )
    tree = inventory_tree()
    tree["inventory/server.py"] = capped.replace(
        "    server.start()\n", "    server.start()\n" + second
    )
    tree["inventory.yaml"] = (
        tree["inventory.yaml"]
        .replace(
            "{name: tcp-service, port: 7070, targetPort: tcp}",
            "{name: grpc, port: 7070}, {name: grpc-admin, port: 7071}",
        )
        .replace("{name: tcp, containerPort: 7070}", "{containerPort: 7070}, {containerPort: 7071}")
    )
    [finding] = lint_files(tmp_path, tree, select=["KLB101"]).findings
    assert finding.severity.label == "warning"
    assert "caps connection age" not in finding.message
    # and with the second server capped too, the finding is lowered
    tree["inventory/server.py"] = tree["inventory/server.py"].replace(
        "ThreadPoolExecutor(1))",
        'ThreadPoolExecutor(1), options=[("grpc.max_connection_age_ms", 60000)])',
    )
    [finding] = lint_files(tmp_path / "both", tree, select=["KLB101"]).findings
    assert finding.severity.label == "info", finding.message


def test_a_capped_server_with_a_direct_client_stays_a_warning(tmp_path: Path) -> None:
    """A capped age re-spreads the clients only at each reconnection: with a scanned
    client dialing the Service, the finding is not lowered."""
    options = (
        ', options=[("grpc.max_connection_age_ms", 300000), '
        '("grpc.max_connection_age_grace_ms", 30000)]'
    )
    tree = inventory_tree(options)
    args = "          args: ['--inventory=inventory.shop:7070']\n"
    tree["frontend.yaml"] = workload("frontend", "registry.example/frontend:1.0", args)
    [finding] = lint_files(tmp_path, tree, select=["KLB101"]).findings
    assert finding.severity.label == "warning"
    assert "caps connection age" not in finding.message


def test_the_env_of_the_container_that_runs_the_code_decides_where_it_dials(
    tmp_path: Path,
) -> None:
    """Without the link, the admin Deployment (its manifest beside the code) would be
    taken for the client's; the link says the frontend runs client.py."""
    env = "          env: [{{name: BACKEND_ADDR, value: '{}'}}]\n"
    backend = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\n"
        "spec:\n  selector: {app: backend}\n  ports: [{name: grpc, port: 50051}]\n"
    )
    files = {
        "deploy/frontend.yaml": workload(
            "frontend", "registry.example/frontend:1", env.format("backend:50051")
        )
        + backend,
        "frontend/admin.yaml": workload("admin", "nginx", env.format("localhost:50051")),
        "frontend/Dockerfile": "FROM python:3.12\nCOPY . /app\nCMD python /app/client.py\n",
        "frontend/client.py": "import os\n\nimport grpc\n\n"
        "channel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n",
    }
    [finding] = lint_files(tmp_path, files, select=["KLB102"]).findings
    assert finding.related[0].path.endswith("frontend.yaml")
    line = finding.related[0].line  # the frontend's env entry
    assert f"(BACKEND_ADDR as Deployment/shop/frontend sets it at frontend.yaml:{line})" in (
        finding.text
    )


def test_a_channel_several_containers_run_is_cited_once_among_a_services_dialers(
    tmp_path: Path,
) -> None:
    """Each container that runs the client gives its address: the channel dials the
    Service once, however many of them say so (cited where the Service has a headless
    twin the clients could dial instead)."""
    env = "          env: [{name: BACKEND_ADDR, value: 'backend:50051'}]\n"
    backend = "".join(
        "---\napiVersion: v1\nkind: Service\n"
        f"metadata: {{name: {name}, namespace: shop}}\n"
        f"spec:\n  {headless}selector: {{app: backend}}\n  ports: [{{name: grpc, port: 50051}}]\n"
        for name, headless in (("backend", ""), ("backend-headless", "clusterIP: None\n  "))
    )
    files = {
        "deploy/frontend.yaml": workload("frontend", "registry.example/frontend:1", env)
        + "---\n"
        + workload("frontend-canary", "registry.example/frontend:1", env)
        + backend,
        "frontend/Dockerfile": "FROM python:3.12\nCOPY . /app\nCMD python /app/client.py\n",
        "frontend/client.py": "import os\n\nimport grpc\n\n"
        "channel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n",
    }
    [finding] = lint_files(tmp_path, files, select=["KLB101"]).findings
    cited = [(r.path, r.line) for r in finding.related if r.path.endswith("client.py")]
    assert cited == [(str(tmp_path / "frontend" / "client.py"), 5)]


UNHANDLED = """\
from concurrent import futures

import grpc
{imports}

def serve():
    server = grpc.server(futures.ThreadPoolExecutor(4))
    server.add_insecure_port("[::]:7070")
    server.start()
    server.wait_for_termination()
"""
SHUTDOWN = "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"


@pytest.mark.parametrize(("imports", "found"), [("", 1), ("import shutdown", 0)])
def test_shutdown_is_judged_in_the_code_the_container_runs(
    tmp_path: Path, imports: str, found: int
) -> None:
    """A SIGTERM handler in a module of the folder that the entry point never imports
    does not stop the server the container runs."""
    files = {
        "inventory.yaml": workload(),
        "inventory/Dockerfile": DOCKERFILE,
        "inventory/server.py": UNHANDLED.format(imports=imports),
        "inventory/shutdown.py": SHUTDOWN,
    }
    findings = lint_files(tmp_path, files, select=["KLB403"]).findings
    assert len(findings) == found
    if found:
        assert findings[0].message.endswith(
            "with no SIGTERM handler in the code container Deployment/shop/inventory:server runs"
        )


def test_a_link_guessed_from_names_alike_is_no_evidence_of_the_code_run_with_the_server(
    tmp_path: Path,
) -> None:
    """`shop-inventory` is guessed to run `inventory/` (names alike, no build of it): the
    handler in a module the entry never imports counts, as for code with no link."""
    files = {
        "inventory.yaml": workload(image="registry.example/shop-inventory:1.0"),
        "inventory/Dockerfile": DOCKERFILE,
        "inventory/server.py": UNHANDLED.format(imports=""),
        "inventory/shutdown.py": SHUTDOWN,
    }
    assert lint_files(tmp_path, files, select=["KLB403"]).findings == []


def test_with_no_link_the_project_is_judged(tmp_path: Path) -> None:
    files = {
        "inventory/server.py": UNHANDLED.format(imports=""),
        "inventory/shutdown.py": SHUTDOWN,
    }
    assert lint_files(tmp_path, files, select=["KLB403"]).findings == []


def test_gitlab_ci_docker_build_in_a_script(tmp_path: Path) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.gitlab.com/acme/inventory:1.2"),
        ".gitlab-ci.yml": "build:\n  script:\n    - docker build -t "
        "registry.gitlab.com/acme/inventory:$CI_COMMIT_SHA services/inv\n",
        "services/inv/Dockerfile": DOCKERFILE,
        **service_app("services/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inv", "server.py")
    assert row["evidence"][0].startswith("workflow: .gitlab-ci.yml:3:")


@pytest.mark.parametrize(
    "recipe",
    [
        '\t@docker build -t "acme/stock" stock_service\n',
        "\tdocker build \\\n\t\t-t acme/stock:dev \\\n\t\t-f stock_service/Dockerfile \\\n"
        "\t\tstock_service\n",
    ],
    ids=["one-line", "continued"],
)
def test_a_makefile_docker_build_links_an_image_to_its_folder(tmp_path: Path, recipe: str) -> None:
    """The image is named for the service, not for its folder (stock vs stock_service):
    the Makefile's recipe, run in the Makefile's folder, says which folder builds it."""
    makefile = (
        "# images of the demo\nTAG ?= dev\n\n.PHONY: image\nimage:\n"
        + recipe
        + "\tdocker build -t $(REGISTRY)/other other\n"
    )
    files = {
        "deploy/stock.yaml": workload(name="stock", image="acme/stock"),
        "Makefile": makefile,
        "stock_service/Dockerfile": DOCKERFILE,
        **service_app("stock_service"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("stock_service", "server.py")
    assert row["evidence"][0].startswith("makefile: Makefile:6: docker build")


@pytest.mark.parametrize("image", ["acme/bookshop-inventory:2", "acme/bookshop_inventory"])
def test_an_image_named_for_the_project_then_the_folder_links_that_folder(
    tmp_path: Path, image: str
) -> None:
    """`bookshop-inventory` is built from `inventory/`: the end of the image's name, after
    the project's prefix, names a folder with a Dockerfile."""
    files = {
        "deploy/inventory.yaml": workload(image=image),
        "inventory/Dockerfile": DOCKERFILE,
        **service_app("inventory"),
        "tools/Dockerfile": DOCKERFILE,
        **service_app("tools"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("inventory", "server.py")
    assert row["evidence"][-1].startswith("image name guess: deploy/inventory.yaml:11:")


def test_an_image_name_end_needs_a_folder_with_a_dockerfile(tmp_path: Path) -> None:
    files = {"deploy/inventory.yaml": workload(image="acme/shop-handlers"), **service_app("x")}
    files["x/handlers/__init__.py"] = "import grpc\n"
    assert only(links(tmp_path, files))["code"] is None


def test_a_folder_built_from_an_image_of_the_same_name_is_no_evidence(tmp_path: Path) -> None:
    """`search-engine/` builds FROM `vendor/search-engine`; a manifest that runs
    `other/search-engine` may run that base, from another registry: no link."""
    files = {
        "deploy/search.yaml": workload(image="other/search-engine:7"),
        "search-engine/Dockerfile": "FROM vendor/search-engine:7.1\nCOPY plugins /plugins\n",
    }
    assert only(links(tmp_path, files))["code"] is None
    files["search-engine/Dockerfile"] = "FROM debian:12\nCOPY . /srv\nCMD /srv/run\n"
    assert only(links(tmp_path / "built", files))["code"] == "search-engine"


RUBY_SERVICE = {
    "Dockerfile": 'FROM ruby:3.3\nWORKDIR /app\nCOPY . .\nENTRYPOINT ["bundle", "exec", "rake"]\n',
    "Rakefile": 'task :serve do\n  sh "bundle exec ruby app.rb -p 8080"\nend\n',
    "app.rb": "require 'sinatra'\n",
    "loadgen/Dockerfile": 'FROM golang:1.22\nCOPY . .\nRUN go build -o /load .\nCMD ["/load"]\n',
    "loadgen/main.go": 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.Get("http://x")\n}\n',
}


def test_a_folder_with_a_dockerfile_and_no_code_k8slb_reads_is_linked_by_its_name(
    tmp_path: Path,
) -> None:
    """A Ruby service at the top of its repository, named as its image is: its container
    runs that Dockerfile (KLB406 reads it), and none of the Go code of the folder below
    that has a Dockerfile of its own."""
    service = tmp_path / "bookstore"
    files = {
        **RUBY_SERVICE,
        "deploy.yaml": workload(
            name="bookstore", image="acme/bookstore:1", extra="          args: [serve]\n"
        ),
    }
    row = only(links(service, files))
    assert (row["code"], row["modules"]) == (".", 0), row
    assert row["evidence"][0].startswith("image name: deploy.yaml:11:")
    (finding,) = lint_files(service, {}, ["KLB406"]).findings
    assert finding.path.endswith("Dockerfile") and finding.message.endswith("rake is PID 1")


MAKEFILE = """\
TAG ?= $(shell git rev-parse --short HEAD)

.PHONY: images
images:
\t@echo building
\tdocker build -t registry.example/acme/inventory:$(TAG) \\
\t\t-f build/inventory.Dockerfile ../services/inv
\tdocker build -t $(REGISTRY)/cart:$(TAG) ../services/cart
"""


def test_a_makefile_recipes_docker_build_links_the_image_to_its_context(tmp_path: Path) -> None:
    files = {
        "k8s/inventory.yaml": workload(image="registry.example/acme/inventory:1.2"),
        "k8s/cart.yaml": workload(name="cart", image="registry.example/acme/cart:1.2"),
        "ops/Makefile": MAKEFILE,
        "ops/build/inventory.Dockerfile": DOCKERFILE,
        **service_app("services/inv"),
        "services/cart/main.py": "import grpc\n",
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    inventory = rows["Deployment/shop/inventory:server"]
    assert inventory["code"] == os.path.join("services", "inv", "server.py")
    assert inventory["evidence"][0] == (
        "makefile: ops/Makefile:6: docker build -t registry.example/acme/inventory:$(TAG) "
        "-f build/inventory.Dockerfile ../services/inv"
    )
    # a registry left a make variable: the image is named by its last segment, built there
    cart = rows["Deployment/shop/cart:server"]
    assert cart["code"] == os.path.join("services", "cart")
    assert cart["evidence"][0] == (
        "makefile: ops/Makefile:8: docker build -t $(REGISTRY)/cart:$(TAG) ../services/cart"
    )


def test_an_image_whose_repository_is_a_variable_is_no_evidence(tmp_path: Path) -> None:
    files = {
        "inventory.yaml": workload(image="registry.example/inventory:1"),
        "skaffold.yaml": "build:\n  artifacts:\n    - image: ${REGISTRY}/inventory\n"
        "      context: v2\n",
        **service_app("v2"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_check_show_links_prints_the_table_after_the_findings(tmp_path: Path) -> None:
    for name, text in inventory_tree().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    result = CliRunner().invoke(cli, ["check", "--show-links", "--select", "KLB101", str(tmp_path)])
    findings, _, table = result.output.partition("\n\n")
    assert "KLB101" in findings
    assert table.startswith("Deployment/shop/inventory:server -> ")
    assert table.rstrip().endswith("PATH}.")


def test_explain_links_after_a_check_parses_nothing_and_says_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explain-links reads the parses a check left in the cache (before, it parsed the
    whole tree again); what it prints is what it prints without the cache."""
    tree = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo", tree)
    CliRunner().invoke(cli, ["check", str(tree)])
    parsed = count_parses(monkeypatch)
    cached = CliRunner().invoke(cli, ["explain-links", "--format", "json", str(tree)])
    assert cached.exit_code == 0 and parsed == [], "every parse came from the cache"
    fresh = CliRunner().invoke(cli, ["explain-links", "--format", "json", "--no-cache", str(tree)])
    assert json.loads(cached.output) == json.loads(fresh.output)
    assert len(parsed) > 5, "--no-cache parses"


GO_DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN CGO_ENABLED=0 go build -o /out/{name} ./cmd/{name}
FROM gcr.io/distroless/static
COPY --from=build /out/{name} /{name}
ENTRYPOINT ["/{name}"]
"""


def test_a_go_container_runs_the_main_package_its_image_builds_and_what_it_imports(
    tmp_path: Path,
) -> None:
    """One Go module, one `main` package per service under cmd/: each container runs its
    own program (the package its Dockerfile's `go build` names, and the packages of the
    tree it imports), not every service's code."""
    go_imports = '"fmt"\n\t"github.com/acme/hotel/internal/{pkg}"'
    files = {
        "go.mod": "module github.com/acme/hotel\n",
        "cmd/geo/main.go": "package main\n\nimport (\n\t"
        + go_imports.format(pkg="geo")
        + "\n)\n\nfunc main() { fmt.Println(geo.Name) }\n",
        "cmd/frontend/main.go": 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println() }\n',
        "internal/geo/geo.go": 'package geo\n\nconst Name = "geo"\n',
        "internal/rate/rate.go": "package rate\n",
        "build/geo.Dockerfile": GO_DOCKERFILE.format(name="geo"),
        "build/frontend.Dockerfile": GO_DOCKERFILE.format(name="frontend"),
        "skaffold.yaml": "build:\n  artifacts:\n"
        "    - {image: geo, context: ., docker: {dockerfile: build/geo.Dockerfile}}\n"
        "    - {image: frontend, context: ., docker: {dockerfile: build/frontend.Dockerfile}}\n",
        "k8s/geo.yaml": workload("geo", "geo"),
        "k8s/frontend.yaml": workload("frontend", "frontend"),
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    geo, frontend = rows["Deployment/shop/geo:server"], rows["Deployment/shop/frontend:server"]
    assert geo["modules"] == 2, "cmd/geo and the internal/geo it imports"
    assert frontend["modules"] == 1, "cmd/frontend alone: no other service's code"
    assert "dockerfile: build/geo.Dockerfile:4: RUN CGO_ENABLED=0 go build" in " ".join(
        geo["evidence"]
    )


def test_a_go_build_path_from_the_repository_root_names_the_package_there(
    tmp_path: Path,
) -> None:
    """A Dockerfile beside its service, built with the repository as its context
    (`go build ./services/geo` after `COPY . .`): the package is the repository's
    services/geo, with the shared packages it imports, not a services/geo/services/geo."""
    dockerfile = (
        "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/geo ./services/geo\nCMD ["/usr/bin/geo"]\n'
    )
    files = {
        "go.mod": "module github.com/acme/hotel\n",
        "services/geo/main.go": 'package main\n\nimport "github.com/acme/hotel/pkg/serve"\n\n'
        "func main() { serve.Run() }\n",
        "services/geo/Dockerfile": dockerfile,
        "services/geo/deployment.yaml": workload("geo", "acme/hotel/geo:latest"),
        "pkg/serve/serve.go": "package serve\n\nfunc Run() {}\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "services/geo" and row["modules"] == 2, "main and pkg/serve"
    assert any("go build -o /usr/bin/geo" in evidence for evidence in row["evidence"])


def test_a_go_install_of_every_command_links_each_container_to_the_binary_it_runs(
    tmp_path: Path,
) -> None:
    """One image built with `go install ./cmd/...` holds every binary; a container that
    runs `./geo` runs cmd/geo and what it imports, a package at the top of the module
    (`<module>/registry`) included, and not the frontend's code."""
    main = (
        'package main\n\nimport (\n\t"github.com/acme/hotel/registry"\n'
        '\t"github.com/acme/hotel/services/{pkg}"\n)\n\n'
        "func main() {{ registry.New(); {pkg}.Run() }}\n"
    )
    files = {
        "go.mod": "module github.com/acme/hotel\n",
        "cmd/geo/main.go": main.format(pkg="geo"),
        "cmd/frontend/main.go": main.format(pkg="frontend"),
        "services/geo/geo.go": "package geo\n\nfunc Run() {}\n",
        "services/frontend/frontend.go": "package frontend\n\nfunc Run() {}\n",
        "registry/registry.go": "package registry\n\nfunc New() {}\n",
        "Dockerfile": "FROM golang:1.22\nWORKDIR /w\nCOPY . .\n"
        "RUN CGO_ENABLED=0 go install -ldflags='-s -w' ./cmd/...\n",
        "docker-compose.yml": "services:\n  app: {build: ., image: hotel}\n",
        "k8s/geo.yaml": workload("geo", "hotel", extra="          command: [./geo]\n"),
    }
    (row,) = links(tmp_path, files)
    assert row["modules"] == 3, "cmd/geo, services/geo and registry"
    assert any("go install" in evidence for evidence in row["evidence"])


def test_a_command_that_runs_a_go_binary_links_to_the_main_package_of_that_name(
    tmp_path: Path,
) -> None:
    """With no build definition for its image, `command: [./geo]` runs the Go program
    named geo: the folder so named that nothing imports (services/geo is imported by it,
    so it is a library, not the program)."""
    main = (
        'package main\n\nimport "github.com/acme/hotel/services/{pkg}"\n\n'
        "func main() {{ {pkg}.Run() }}\n"
    )
    files = {
        "cmd/geo/main.go": main.format(pkg="geo"),
        "cmd/frontend/main.go": main.format(pkg="frontend"),
        "services/geo/geo.go": "package geo\n\nfunc Run() {}\n",
        "services/frontend/frontend.go": "package frontend\n\nfunc Run() {}\n",
        "k8s/geo.yaml": workload("geo", "registry.example/x:1", "          command: [./geo]\n"),
    }
    (row,) = links(tmp_path, files)
    assert row["code"] == "cmd/geo" and row["modules"] == 2
    assert row["evidence"][0].startswith("command: ")


def test_a_go_binary_run_through_a_prefix_links_to_the_one_program_of_that_name(
    tmp_path: Path,
) -> None:
    """One image holds every program of a platform (built from a context a script stages
    outside the tree), and each container runs one by name through daemontools' `envdir`,
    which execs it: `envdir /etc/env /opt/bin/ledger` runs the program named ledger. A
    folder named as the binary that holds a library nothing imports (a generated client)
    is no program; a name two programs share (the hub's and the edge's) links none."""
    main = 'package main\n\nimport "github.com/acme/ops/{lib}"\n\nfunc main() {{ {name}.Run() }}\n'
    files = {
        "go.mod": "module github.com/acme/ops\n",
        "hub/services/ledger/ledger/main.go": main.format(lib="hub/services/ledger", name="ledger"),
        "hub/services/ledger/ledger.go": "package ledger\n\nfunc Run() {}\n",
        "hub/api/client/ledger/ledger_client.go": "package ledger\n\nfunc New() {}\n",
        "hub/services/relay/relay/main.go": main.format(lib="hub/services/relay", name="relay"),
        "hub/services/relay/relay.go": "package relay\n\nfunc Run() {}\n",
        "edge/services/relay/main.go": "package main\n\nfunc main() {}\n",
    }
    for name in ("ledger", "relay"):
        run = f"          command: [/usr/bin/envdir]\n          args: [/etc/env, /opt/bin/{name}]\n"
        files[f"hub/deploy/{name}.yaml"] = workload(name, "registry.example/ops/platform:1", run)
    rows = {row["container"]: row for row in links(tmp_path, files)}
    ledger = rows["Deployment/shop/ledger:server"]
    assert ledger["code"] == "hub/services/ledger/ledger" and ledger["modules"] == 2
    assert ledger["evidence"][0].startswith("command: ")
    assert rows["Deployment/shop/relay:server"]["code"] is None


# -- Node.js and Java ------------------------------------------------------------------------

NODE_SERVER = "const grpc = require('@grpc/grpc-js');\nconst server = new grpc.Server();\n"


@pytest.mark.parametrize(
    ("command", "package", "entry"),
    [
        ('["node", "src/index.js"]', '{"name": "cart"}', "src/index.js"),
        ('["node", "-r", "dotenv/config", "src/index"]', '{"name": "cart"}', "src/index.js"),
        ('["npm", "start"]', '{"scripts": {"start": "node src/index.js"}}', "src/index.js"),
        ('["npm", "run", "serve"]', '{"scripts": {"serve": "node src/index.js"}}', "src/index.js"),
        ('["node", "."]', '{"main": "src/index.js"}', "src/index.js"),
        ('["npm", "start"]', '{"name": "cart"}', "server.js"),  # npm's own default
    ],
    ids=["node", "node-options", "npm-start", "npm-run", "node-dot-main", "npm-default"],
)
def test_a_node_container_runs_its_packages_modules(
    tmp_path: Path, command: str, package: str, entry: str
) -> None:
    """The Dockerfile's command, through package.json's scripts where npm runs it: the
    entry module and every module of its package (not a sibling package's)."""
    files = {
        "k8s/cart.yaml": workload(name="cart", image="registry.example/cart:1.0"),
        "cart/Dockerfile": f"FROM node:20\nWORKDIR /app\nCOPY . .\nCMD {command}\n",
        "cart/package.json": package,
        "cart/src/index.js": NODE_SERVER,
        "cart/server.js": NODE_SERVER,
        "cart/src/routes.js": "process.on('SIGTERM', () => {});\n",
        "cart/tools/package.json": '{"name": "tools"}',
        "cart/tools/seed.js": NODE_SERVER,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cart", *entry.split("/"))
    assert row["modules"] == 3, "its package's three modules, not tools/seed.js"


def test_a_jib_build_links_a_java_image_with_no_dockerfile(tmp_path: Path) -> None:
    pom = (
        "<project>\n  <build><plugins><plugin>\n"
        "    <groupId>com.google.cloud.tools</groupId>\n"
        "    <artifactId>jib-maven-plugin</artifactId>\n"
        "    <configuration><to><image>gcr.io/acme/ads</image></to></configuration>\n"
        "  </plugin></plugins></build>\n</project>\n"
    )
    java = (
        "package ads;\n\nimport io.grpc.ServerBuilder;\n\n"
        "class Main {\n    public static void main(String[] args) {}\n}\n"
    )
    files = {
        "k8s/ads.yaml": workload(name="ads", image="gcr.io/acme/ads:v3"),
        "services/advertising/pom.xml": pom,
        "services/advertising/src/main/java/ads/Main.java": java,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "advertising")
    # the image's name names a package of the module Jib builds: it agrees
    assert row["evidence"] == [
        "jib: services/advertising/pom.xml:5: <configuration><to><image>gcr.io/acme/ads</image>"
        "</to></configuration>",
        "image name: k8s/ads.yaml:11: image: gcr.io/acme/ads:v3",
    ]
    assert row["overruled"] == []
    gradle = (
        "plugins { id 'com.google.cloud.tools.jib' }\n"
        "jib {\n  to {\n    image = 'gcr.io/acme/ads'\n  }\n}\n"
    )
    files.pop("services/advertising/pom.xml")
    files["services/advertising/build.gradle"] = gradle
    row = only(links(tmp_path / "gradle", files))
    assert row["evidence"][0].startswith("jib: services/advertising/build.gradle:4:")


def _jib_module(name: str) -> str:
    return (
        f"<project>\n  <parent><artifactId>shop</artifactId></parent>\n"
        f"  <artifactId>{name}</artifactId>\n  <build><plugins><plugin>\n"
        "    <artifactId>jib-maven-plugin</artifactId>\n  </plugin></plugins></build>\n</project>\n"
    )


@pytest.mark.parametrize(
    ("project", "code"),
    [
        ("modules/orders", os.path.join("modules", "orders")),  # a path from the context
        ("orders-svc", os.path.join("modules", "orders")),  # its artifactId
        ("com.acme:orders-svc", os.path.join("modules", "orders")),
        ("shipping", None),  # no module is named so: the top of the build, refused
        ("billing", None),  # two modules are: none
    ],
)
def test_skaffolds_jib_project_names_the_module_it_builds(
    tmp_path: Path, project: str, code: str | None
) -> None:
    """skaffold's `jib.project` builds one module of a multi-module Maven build from the
    top (the context): the module's folder, by its path or its artifactId, is the image's
    code; a name no module or several answer to links nothing."""
    skaffold = (
        "apiVersion: skaffold/v4beta6\nkind: Config\nprofiles:\n- name: local\n"
        "  build:\n    artifacts:\n    - image: orders\n"
        f"      jib:\n        project: {project}\n"
    )
    main = "package com.acme;\n\npublic class Main {\n  public static void main(String[] a) {}\n}\n"
    files = {
        "k8s/orders.yaml": workload(name="orders", image="orders"),
        "skaffold.yaml": skaffold,
        "pom.xml": "<project>\n  <artifactId>shop</artifactId>\n  <modules>\n"
        "    <module>modules/orders</module>\n    <module>modules/billing</module>\n"
        "    <module>tools/billing</module>\n  </modules>\n</project>\n",
        "modules/orders/pom.xml": _jib_module("orders-svc"),
        "modules/orders/src/main/java/com/acme/Main.java": main,
        "modules/billing/pom.xml": _jib_module("billing"),
        "modules/billing/src/main/java/com/acme/Main.java": main,
        "tools/billing/pom.xml": _jib_module("billing"),
        "tools/billing/src/main/java/com/acme/Main.java": main,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == code
    if code is not None:
        assert row["evidence"][0] == (
            f"jib: skaffold.yaml:7: - image: orders (Jib's module {code})"
        )


@pytest.mark.parametrize(
    ("name", "build", "line"),
    [
        (
            "pom.xml",
            "<project>\n  <build><plugins><plugin>\n"
            "    <groupId>org.springframework.boot</groupId>\n"
            "    <artifactId>spring-boot-maven-plugin</artifactId>\n"
            "    <configuration>\n      <image>\n"
            "        <name>registry.example/acme/ads:${project.version}</name>\n"
            "      </image>\n    </configuration>\n  </plugin></plugins></build>\n</project>\n",
            7,
        ),
        (
            "build.gradle.kts",
            'plugins { id("org.springframework.boot") version "3.3.0" }\n\n'
            "tasks.named<org.springframework.boot.gradle.tasks.bundling.BootBuildImage>"
            '("bootBuildImage") {\n    imageName.set("registry.example/acme/ads")\n}\n',
            4,
        ),
    ],
    ids=["maven", "gradle"],
)
def test_spring_boots_buildpacks_image_links_a_java_image_with_no_dockerfile(
    tmp_path: Path, name: str, build: str, line: int
) -> None:
    java = "package com.acme;\n\nimport io.grpc.ServerBuilder;\n\nclass Main {}\n"
    files = {
        "k8s/ads.yaml": workload(name="ads", image="registry.example/acme/ads:2.1.0"),
        f"services/advertising/{name}": build,
        "services/advertising/src/main/java/com/acme/Main.java": java,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "advertising")
    assert row["evidence"][0].startswith(f"buildpacks: services/advertising/{name}:{line}:")
    named_by_a_property = build.replace("registry.example/acme/ads", "${docker.repo}/ads")
    files[f"services/advertising/{name}"] = named_by_a_property
    assert only(links(tmp_path / "property", files))["code"] is None


MESHED_NAMESPACES = {
    "linkerd": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
    "  annotations: {linkerd.io/inject: enabled}\n",
    "istio": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
    "  labels: {istio-injection: enabled}\n",
}


@pytest.mark.parametrize("mesh", sorted(MESHED_NAMESPACES))
def test_in_a_meshed_namespace_neither_klb101_nor_klb201_asks_for_balancing(
    tmp_path: Path, mesh: str
) -> None:
    """One decision: where KLB101 says the mesh balances each call to the Service, KLB201
    does not ask the server behind it for a maximum connection age."""
    tree = inventory_tree()
    plain = lint_files(tmp_path / "plain", tree, select=["KLB101", "KLB201"]).findings
    assert sorted(f.rule for f in plain) == ["KLB101", "KLB201"]
    tree["namespace.yaml"] = MESHED_NAMESPACES[mesh]
    assert lint_files(tmp_path / "meshed", tree, select=["KLB101", "KLB201"]).findings == []


def test_the_mesh_option_silences_klb201_as_it_does_klb101(tmp_path: Path) -> None:
    result = lint_files(tmp_path, inventory_tree(), select=["KLB101", "KLB201"], mesh="istio")
    assert result.findings == []


def test_a_server_that_also_runs_in_a_pod_outside_the_mesh_is_still_reported(
    tmp_path: Path,
) -> None:
    """The same code in a second, unmeshed workload: its clients there stay on their pods."""
    tree = inventory_tree()
    tree["namespace.yaml"] = MESHED_NAMESPACES["linkerd"]
    tree["batch.yaml"] = workload(name="inventory-batch").replace(
        "namespace: shop", "namespace: jobs"
    )
    findings = lint_files(tmp_path, tree, select=["KLB101", "KLB201"]).findings
    assert [f.rule for f in findings] == ["KLB201"]


def envoy_config(cluster_type: str = "STRICT_DNS", host: str = "inventory.shop") -> str:
    """A ConfigMap holding an Envoy bootstrap whose one static cluster sends to `host`."""
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: envoy-conf, namespace: shop}\n"
        "data:\n  envoy.yaml: |\n    static_resources:\n      clusters:\n"
        f"      - name: inventory\n        type: {cluster_type}\n"
        "        lb_policy: ROUND_ROBIN\n        http2_protocol_options: {}\n"
        "        load_assignment:\n          cluster_name: inventory\n          endpoints:\n"
        "          - lb_endpoints:\n            - endpoint:\n                address:\n"
        f"                  socket_address: {{address: {host}, port_value: 7070}}\n"
    )


def headless_inventory_tree() -> dict[str, str]:
    tree = inventory_tree()
    tree["inventory.yaml"] = tree["inventory.yaml"].replace(
        "spec:\n  selector", "spec:\n  clusterIP: None\n  selector"
    )
    return tree


def test_klb201_is_info_when_only_an_envoy_balancing_each_request_calls_the_server(
    tmp_path: Path,
) -> None:
    """Envoy's STRICT_DNS cluster on the headless Service resolves every pod and places
    each request: a maximum connection age adds nothing for it."""
    tree = headless_inventory_tree()
    tree["envoy.yaml"] = envoy_config()
    [finding] = lint_files(tmp_path, tree, select=["KLB201"]).findings
    assert finding.severity.label == "info"
    assert (
        "only Envoy (ConfigMap envoy-conf, envoy.yaml: cluster inventory, STRICT_DNS, "
        "ROUND_ROBIN) calls it, resolving the pods and balancing each request" in finding.text
    )


def test_klb201_is_info_when_only_a_grpc_route_of_a_gateway_calls_the_server(
    tmp_path: Path,
) -> None:
    """The L7 fronts KLB101 reads count for KLB201 too: a Gateway balances each request
    of a GRPCRoute over the Service's endpoints, ClusterIP or not."""
    route = (
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\n"
        "metadata: {name: inventory, namespace: shop}\n"
        "spec:\n  rules:\n  - backendRefs: [{name: inventory, port: 7070}]\n"
    )
    tree = {**inventory_tree(), "route.yaml": route}
    [finding] = lint_files(tmp_path, tree, select=["KLB201"]).findings
    assert finding.severity.label == "info"
    assert "only GRPCRoute/inventory calls it" in finding.text


def test_klb201_is_info_when_only_contour_reaching_the_service_over_h2c_calls_it(
    tmp_path: Path,
) -> None:
    """Contour's Service annotation (the older `contour.heptio.com/` form too) is a front
    KLB101 reads: Envoy balances each request over the endpoints, so the server needs no
    maximum connection age for it; a client in the tree that dials the Service does."""
    tree = inventory_tree()
    tree["inventory.yaml"] = tree["inventory.yaml"].replace(
        "metadata: {name: inventory, namespace: shop}\nspec:\n  selector",
        "metadata:\n  name: inventory\n  namespace: shop\n"
        "  annotations: {contour.heptio.com/upstream-protocol.h2c: '7070'}\n"
        "spec:\n  selector",
    )
    assert "upstream-protocol" in tree["inventory.yaml"]
    found = lint_files(tmp_path / "a", tree, select=["KLB101", "KLB201"]).findings
    assert sorted((f.rule, f.severity.label) for f in found) == [
        ("KLB101", "info"),
        ("KLB201", "info"),
    ]
    [server] = [f for f in found if f.rule == "KLB201"]
    assert "only Contour (contour.heptio.com/upstream-protocol.h2c on Service/inventory)" in (
        server.text
    )
    tree["client.py"] = 'import grpc\n\nchannel = grpc.insecure_channel("inventory.shop:7070")\n'
    dialed = lint_files(tmp_path / "b", tree, select=["KLB201"]).findings
    assert [f.severity.label for f in dialed] == ["warning"]


def test_klb201_reads_an_envoy_bootstrap_kept_as_a_file_of_the_tree(tmp_path: Path) -> None:
    """A kustomize configMapGenerator's file: the Envoy configuration is read where it is
    written, and the finding points to it."""
    tree = headless_inventory_tree()
    bootstrap = envoy_config().split("envoy.yaml: |\n", 1)[1]
    tree["envoy/envoy.yaml"] = "\n".join(line[4:] for line in bootstrap.splitlines()) + "\n"
    [finding] = lint_files(tmp_path, tree, select=["KLB201"]).findings
    assert finding.severity.label == "info"
    assert "only Envoy (envoy.yaml: cluster inventory, STRICT_DNS" in finding.text
    [(path, line)] = [(r.path, r.line) for r in finding.related]
    assert (Path(path).relative_to(tmp_path).as_posix(), line) == ("envoy/envoy.yaml", 1)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"envoy.yaml": envoy_config("LOGICAL_DNS")}, "LOGICAL_DNS connects to one address"),
        ({"envoy.yaml": envoy_config(host="stock.shop")}, "Envoy calls another Service"),
        ({}, "nothing is known of the callers"),
        (
            {
                "envoy.yaml": envoy_config(),
                "client.py": "import grpc\n\n"
                'channel = grpc.insecure_channel("inventory.shop:7070")\n',
            },
            "a client in the tree dials the Service too",
        ),
    ],
)
def test_klb201_stays_a_warning_unless_every_caller_is_a_request_balancing_proxy(
    tmp_path: Path, change: dict[str, str], why: str
) -> None:
    tree = {**headless_inventory_tree(), **change}
    [finding] = lint_files(tmp_path, tree, select=["KLB201"]).findings
    assert finding.severity.label == "warning", why


def test_klb201_stays_a_warning_when_envoy_resolves_a_clusterip_to_one_address(
    tmp_path: Path,
) -> None:
    """A ClusterIP's name is one address: Envoy holds one connection through kube-proxy."""
    tree = {**inventory_tree(), "envoy.yaml": envoy_config()}
    [finding] = lint_files(tmp_path, tree, select=["KLB201"]).findings
    assert finding.severity.label == "warning"


SESSION_CLIENT = """\
import requests

STOCK = "http://stock.shop.svc.cluster.local:8080"
session = requests.Session()


def stock(item):
    return session.get(f"{STOCK}/items/{item}").json()
"""


def test_a_keep_alive_client_whose_pods_are_meshed_is_no_klb202(tmp_path: Path) -> None:
    """The client's proxy balances each HTTP request: the decision KLB101 makes."""
    tree = inventory_tree()
    tree["inventory/handlers.py"] = SESSION_CLIENT
    plain = lint_files(tmp_path / "plain", tree, select=["KLB202"]).findings
    assert [(f.rule, f.path.rsplit("/", 1)[-1]) for f in plain] == [("KLB202", "handlers.py")]
    tree["namespace.yaml"] = MESHED_NAMESPACES["istio"]
    assert lint_files(tmp_path / "meshed", tree, select=["KLB202"]).findings == []


# A Dockerfile kept apart from the code it builds (`docker/<service>/Dockerfile`, built from
# the repository's top), named as the image is.
APART = """\
FROM python:3.12-slim
WORKDIR /srv
COPY src/cart/ ./cart/
COPY requirements.txt .
CMD ["python", "cart/server.py"]
"""


@pytest.mark.parametrize("kept", ["docker/cart/Dockerfile", "build/cart.Dockerfile"])
def test_a_dockerfile_kept_apart_under_the_images_name_links_what_it_copies(
    tmp_path: Path, kept: str
) -> None:
    files = {
        "deploy/cart.yaml": workload("cart", "registry.example/acme/cart:1.4"),
        kept: APART,
        **service_app("src/cart"),
        "src/checkout/server.py": "import grpc\n",
        "tools/seed.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "cart", "server.py")
    assert row["modules"] == 2, "its entry point and the module it imports"
    assert row["evidence"] == [
        f'dockerfile: {kept}:5: CMD ["python", "cart/server.py"]',
        f"dockerfile name: {kept}:1: named cart, copies src/cart from .",
        "image name: deploy/cart.yaml:11: image: registry.example/acme/cart:1.4",
    ]
    assert row["overruled"] == [], "the folder the image names is the one it copies"
    no_code_copied = {**files, kept: APART.replace("src/cart/", "dist/")}
    row = only(links(tmp_path / "none", no_code_copied))
    assert row["evidence"][0].startswith("image name: "), "the folder named as the image"


SUPERVISED = """\
ARG BASE_IMAGE=ghcr.io/acme/engine-base:latest
FROM ${BASE_IMAGE}
WORKDIR /app
COPY py/engine/engine /app/engine
COPY build/images/entry/supervisor.sh /usr/local/bin/engine-supervisor
RUN chmod 0755 /usr/local/bin/engine-supervisor
ENV PYTHONPATH=/app
ENTRYPOINT ["/usr/bin/tini", "-g", "--", "/usr/local/bin/engine-supervisor"]
"""


def test_a_dockerfile_kept_apart_under_the_images_name_links_the_one_folder_it_copies(
    tmp_path: Path,
) -> None:
    """Its entry point is a supervisor script that names no module: the code is still the
    one folder of code it copies (`py/engine/engine`), not the repository's top it is
    built from, which holds other services too."""
    files = {
        "deploy/runtime.yaml": workload("engine", "acme/engine-runtime:dev"),
        "build/images/Dockerfile.engine-runtime": SUPERVISED,
        "build/images/entry/supervisor.sh": '#!/bin/sh\nexec python3 -m engine.app "$@"\n',
        **service_app("py/engine/engine"),
        **service_app("src/gateway"),
        "tools/seed.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("py", "engine", "engine"), row
    assert row["evidence"][0].startswith("dockerfile name: build/images/Dockerfile.engine"), row


# A service that keeps its own chart or manifests in its folder, beside its Dockerfile.
BESIDE_DOCKERFILE = DOCKERFILE


@pytest.mark.parametrize(
    "manifest",
    [
        "storefront/k8s/deployment.yaml",
        "storefront/charts/storefront/templates/deployment.yaml",
    ],
    ids=["k8s-folder", "chart"],
)
def test_a_manifest_in_a_service_folder_beside_its_dockerfile_links_to_that_folder(
    tmp_path: Path, manifest: str
) -> None:
    files = {
        manifest: workload("web", "registry.example/acme/storefront-web:3.0"),
        "storefront/Dockerfile": BESIDE_DOCKERFILE,
        **service_app("storefront"),
        "checkout/Dockerfile": BESIDE_DOCKERFILE,
        **service_app("checkout"),
    }
    if "/charts/" in manifest:
        files["storefront/charts/storefront/Chart.yaml"] = (
            "apiVersion: v2\nname: storefront\nversion: 0.1.0\n"
        )
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("storefront", "server.py")
    assert row["evidence"][-1].startswith(f"manifest beside: {manifest}:11: in storefront")


def test_a_manifest_beside_its_own_dockerfile_beats_a_folder_elsewhere_named_as_the_image(
    tmp_path: Path,
) -> None:
    """web-app-vue/deployment/ beside web-app-vue/Dockerfile runs `acme/web-app`; a secure
    variant elsewhere, security/web-app/, is named as the image: the manifest's own
    service (the nearer) is its code, not another's."""
    files = {
        "web-app-vue/deployment/kubernetes.yaml": workload("web-app", "acme/web-app:1"),
        "web-app-vue/Dockerfile": BESIDE_DOCKERFILE,
        **service_app("web-app-vue"),
        "security/web-app/Dockerfile": BESIDE_DOCKERFILE,
        **service_app("security/web-app"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("web-app-vue", "server.py")
    assert row["evidence"][-1].startswith("manifest beside: web-app-vue/deployment/")
    assert row["overruled"][0].startswith("image name: web-app-vue/deployment/")


def test_a_sidecar_or_a_dependency_chart_beside_a_service_is_not_its_code(
    tmp_path: Path,
) -> None:
    sidecar = "        - name: proxy\n          image: envoyproxy/envoy:v1.31\n"
    files = {
        "storefront/k8s/deployment.yaml": workload(
            "web", "registry.example/storefront:3.0", sidecar
        ),
        "storefront/k8s/redis.yaml": workload("cache", "redis:7"),  # a store it runs too
        "storefront/charts/storefront/charts/redis/templates/redis.yaml": workload(
            "redis",
            "registry.example/storefront-redis:7",  # a word shared, in a dependency
        ),
        "storefront/Dockerfile": BESIDE_DOCKERFILE,
        **service_app("storefront"),
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    assert rows["Deployment/shop/web:server"]["code"] == os.path.join("storefront", "server.py")
    assert rows["Deployment/shop/web:proxy"]["code"] is None, "a sidecar's image is another's"
    assert rows["Deployment/shop/cache:server"]["code"] is None, "one container, no word shared"
    assert rows["Deployment/shop/redis:server"]["code"] is None, "a dependency chart's"


def test_a_grpc_server_in_code_found_by_a_name_alike_makes_klb101_info_only(
    tmp_path: Path,
) -> None:
    """A link on a name in part is a guess: what it shows (gRPC on an unnamed port) is
    said, at info, never warned of alone."""
    service = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: cart, namespace: shop}\n"
        "spec:\n  selector: {app: cart}\n  ports:\n    - port: 80\n      targetPort: 7070\n"
    )
    replicas = workload("cart", "registry.example/shop-cart:1.4").replace(
        "spec:\n  selector", "spec:\n  replicas: 4\n  selector", 1
    )
    files = {
        "deploy/cart.yaml": replicas + service,
        "src/cart/Dockerfile": DOCKERFILE,
        **service_app("src/cart"),
    }
    (finding,) = lint_files(tmp_path / "part", files, ["KLB101"]).findings
    assert finding.severity.name == "INFO"
    assert "server.py:11, linked by a name alike) on a ClusterIP" in finding.message
    whole = {**files, "deploy/cart.yaml": replicas.replace("shop-cart", "cart") + service}
    (finding,) = lint_files(tmp_path / "whole", whole, ["KLB101"]).findings
    assert finding.severity.name == "WARNING"


def test_a_go_pattern_build_with_no_such_folder_ends_its_search_at_the_root(
    tmp_path: Path,
) -> None:
    # the search for the pattern's package climbs from the Dockerfile's folder: named by an
    # absolute path, that climb reaches "/", whose parent is itself
    make_tree(
        tmp_path,
        {
            "Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
            'RUN go build -o /app/ ./cmd/...\nCMD ["/app/server"]\n',
            "skaffold.yaml": "build:\n  artifacts:\n    - image: registry.example/web\n"
            "      context: .\n",
            "k8s.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
            "spec:\n  selector: {matchLabels: {app: web}}\n  template:\n"
            "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
            "        - name: web\n          image: registry.example/web:1\n",
            "pkg/f.go": "package pkg\n\nfunc F() {}\n",
        },
    )
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", "explain-links", "--format", "json", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,  # only a search that never ends comes near
    )
    assert done.returncode == 0, done.stderr
    assert [row["container"] for row in json.loads(done.stdout)["links"]] == ["Deployment/web:web"]
