"""The code <-> container link in the layouts real repositories use: images named with a
project's prefix, built by Makefiles and scripts, from a shared Dockerfile, one binary run
as several commands; and never a folder that holds other services' code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading.build_files import is_dockerfile_name, script_builds, workflow_builds

from tests.test_links import DOCKERFILE, links, only, service_app, workload

# -- an image named `<prefix>-<folder>` ------------------------------------------------------


def test_an_image_named_with_a_prefix_is_guessed_to_be_its_one_build_folder(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/acme/shop-inventory:3.1"),
        "src/inventory/Dockerfile": DOCKERFILE,
        **service_app("src/inventory"),
        "src/billing/Dockerfile": DOCKERFILE,
        **service_app("src/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("src", "inventory", "server.py")
    assert row["evidence"] == [
        'dockerfile: src/inventory/Dockerfile:4: CMD ["python", "server.py"]',
        "image name guess: deploy/inventory.yaml:11: image: registry.example/acme/"
        "shop-inventory:3.1 (a guess: src/inventory is the one build folder its name ends with)",
    ]


def test_a_prefix_guess_with_two_build_folders_of_that_name_is_no_link(tmp_path: Path) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        "v1/inventory/Dockerfile": DOCKERFILE,
        **service_app("v1/inventory"),
        "v2/inventory/Dockerfile": DOCKERFILE,
        **service_app("v2/inventory"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_of_two_build_folders_the_name_ends_with_the_one_under_its_start_is_the_guess(
    tmp_path: Path,
) -> None:
    """`orders_backend_db` and two `docker/db/` folders as near the manifest: the one in
    `orders_backend/` is named by the image's first words; the other service's is not."""
    files = {
        "kubernetes/orders.yaml": workload(name="orders", image="orders_backend_db:latest"),
        "services/orders_backend/docker/db/Dockerfile": "FROM postgres:16\nCOPY init.sql /x/\n",
        "services/billing_backend/docker/db/Dockerfile": "FROM postgres:16\nCOPY init.sql /x/\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "orders_backend", "docker", "db")
    assert row["evidence"][0].startswith("image name guess: ")


def test_a_build_folder_kept_by_kind_is_guessed_by_its_last_names_not_its_last_word(
    tmp_path: Path,
) -> None:
    """Dockerfiles kept by kind, `images/worker/<name>/` beside `images/billing/worker/`:
    `shop-mail-worker` is `images/worker/mail/` (its last two names hold both words), not
    the other service's `billing/worker/` its last word alone names; `shop-worker`, the
    whole name, is `images/worker/shop/`; `shop-sms-worker`, kept nowhere, is no link."""
    files = {
        "deploy/mail.yaml": workload(name="mail", image="registry.example/shop-mail-worker:2")
        + "---\n"
        + workload(name="main", image="registry.example/shop-worker:2")
        + "---\n"
        + workload(name="sms", image="registry.example/shop-sms-worker:2"),
        "images/worker/mail/Dockerfile": DOCKERFILE,
        **service_app("images/worker/mail"),
        "images/worker/shop/Dockerfile": DOCKERFILE,
        **service_app("images/worker/shop"),
        "images/billing/worker/Dockerfile": DOCKERFILE,
        **service_app("images/billing/worker"),
    }
    rows = links(tmp_path, files)
    assert [row["code"] for row in rows] == [
        os.path.join("images", "worker", "mail", "server.py"),
        os.path.join("images", "worker", "shop", "server.py"),
        None,
    ]
    assert rows[0]["evidence"][-1].endswith(
        "(a guess: images/worker/mail is the one build folder its name ends with)"
    )


def test_of_two_folders_named_as_the_image_the_one_its_path_names_links(tmp_path: Path) -> None:
    """A workshop's copy of the services beside the originals: the image pushed under
    `acme-workshop/` runs the workshop's copy; the other, whose path names neither, the
    original, the fewer steps from the manifest, as a guess."""
    files = {
        "deploy/shop.yaml": workload(name="shop", image="registry.example/acme-shop/inventory:1")
        + "---\n"
        + workload(name="lab", image="registry.example/acme-workshop/inventory:1"),
        "apps/inventory/Dockerfile": DOCKERFILE,
        **service_app("apps/inventory"),
        "workshop/apps/inventory/Dockerfile": DOCKERFILE,
        **service_app("workshop/apps/inventory"),
    }
    rows = links(tmp_path, files)
    assert [row["code"] for row in rows] == [
        os.path.join("apps", "inventory", "server.py"),
        os.path.join("workshop", "apps", "inventory", "server.py"),
    ]
    assert rows[0]["evidence"][-1] == (
        "image name guess: deploy/shop.yaml:11: image: registry.example/acme-shop/inventory:1 "
        "(a guess: of 2 folders so named, apps/inventory is the fewest steps away)"
    )
    assert rows[1]["evidence"][-1].startswith("image name: ")


def test_copies_of_a_service_as_many_steps_from_the_manifest_are_no_link_naming_them(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/shop.yaml": workload(name="shop", image="registry.example/acme/inventory:1"),
        "v1/inventory/Dockerfile": DOCKERFILE,
        **service_app("v1/inventory"),
        "v2/inventory/Dockerfile": DOCKERFILE,
        **service_app("v2/inventory"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None
    assert row["why_not"] == (
        "deploy/shop.yaml:11: 2 folders are named as image inventory, none nearer the "
        "manifest: v1/inventory, v2/inventory; pin the one it runs in the configuration's "
        "`links`"
    )


def test_a_prefix_guess_needs_a_build_in_the_folder(tmp_path: Path) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        **service_app("lib/inventory"),  # code, but no image is built from it
    }
    assert only(links(tmp_path, files))["code"] is None


def test_the_longest_tail_of_the_name_that_names_a_build_decides(tmp_path: Path) -> None:
    """`shop-edge-router` is the build of `edge-router` (no code: a proxy's configuration),
    never of another service's `router` folder."""
    files = {
        "deploy/edge.yaml": workload(name="edge", image="registry.example/shop-edge-router:1"),
        "src/edge-router/Dockerfile": "FROM nginx:1.27\nCOPY nginx.conf /etc/nginx/\n",
        "src/router/Dockerfile": DOCKERFILE,
        **service_app("src/router"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("src", "edge-router"), 0)


def test_an_image_named_as_a_folder_is_not_linked_by_a_prefix_guess(tmp_path: Path) -> None:
    """The name of a folder itself is stronger than a tail of it: `shop-inventory` names the
    folder `shop-inventory`, not the build folder `inventory`."""
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop-inventory:3.1"),
        **service_app("tools/shop-inventory"),
        "src/inventory/Dockerfile": DOCKERFILE,
        **service_app("src/inventory"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("tools", "shop-inventory")
    assert row["evidence"] == [
        "image name: deploy/inventory.yaml:11: image: registry.example/shop-inventory:3.1"
    ]


MATRIX_BUILD_PUSH = """\
on: push
jobs:
  images:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        service: [billing, inventory]
        arch: [amd64]
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: src/${{ matrix.service }}
          tags: ghcr.io/acme/shop-${{ matrix.service }}:${{ github.sha }}
"""
MATRIX_RUN = """\
on: push
jobs:
  images:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        include:
          - {name: inventory, folder: services/inv}
          - {name: billing, folder: services/bill}
    steps:
      - run: echo building
      - run: |
          docker build \\
            -t ghcr.io/acme/shop-${{ matrix.name }} ${{ matrix.folder }}
"""


@pytest.mark.parametrize(
    ("workflow", "line"),
    [(MATRIX_BUILD_PUSH, 13), (MATRIX_RUN, 13)],
    ids=["build-push-action", "run"],
)
def test_a_workflow_matrix_builds_each_service_as_its_tag_template_says(
    tmp_path: Path, workflow: str, line: int
) -> None:
    """The build definition's evidence, not the name's likeness: the folder is the one
    the matrix's run puts in the context (`services/inv` is no `inventory`)."""
    files = {
        "deploy/inventory.yaml": workload(image="ghcr.io/acme/shop-inventory:v3"),
        ".github/workflows/images.yml": workflow,
    }
    for folder in ("src/inventory", "src/billing", "services/inv", "services/bill"):
        files |= {f"{folder}/Dockerfile": DOCKERFILE, **service_app(folder)}
    row = only(links(tmp_path, files))
    where = "services/inv" if workflow is MATRIX_RUN else "src/inventory"
    assert row["code"] == os.path.join(*where.split("/"), "server.py")
    assert row["evidence"][0].startswith(f"workflow: .github/workflows/images.yml:{line}: ")


MATRIX_ENV = """\
on: push
env:
  REGISTRY: ghcr.io/acme
jobs:
  images:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        service: [billing, inventory]
    env:
      IMAGE: ${{ env.REGISTRY }}/shop-${{ matrix.service }}
    steps:
      - uses: docker/build-push-action@v6
        with:
          context: src/${{ matrix.service }}
          tags: ${{ env.IMAGE }}:${{ github.sha }}, ${{ env.IMAGE }}:latest
      - uses: docker/build-push-action@v6
        with:
          context: tools
          tags: ghcr.io/acme/tools:${{ github.sha }}
"""


def test_a_workflow_reads_the_env_its_tags_are_made_of() -> None:
    """`env` of the workflow and the job, with the matrix's values in them; an expression
    left in a tag is one word (before, `${{ github.sha }}` made images named `github.sha`)."""
    builds = workflow_builds(".github/workflows/images.yml", MATRIX_ENV)
    assert [(b.image, b.context) for b in builds] == [
        ("ghcr.io/acme/shop-billing", "src/billing"),
        ("ghcr.io/acme/shop-inventory", "src/inventory"),
        ("ghcr.io/acme/tools", "tools"),
    ]


def test_a_matrix_computed_when_the_workflow_runs_is_no_build_evidence(tmp_path: Path) -> None:
    workflow = MATRIX_BUILD_PUSH.replace(
        "service: [billing, inventory]", "service: ${{ fromJson(needs.list.outputs.services) }}"
    )
    files = {
        "deploy/inventory.yaml": workload(image="ghcr.io/acme/shop-inventory:v3"),
        ".github/workflows/images.yml": workflow,
        "src/inventory/Dockerfile": DOCKERFILE,
        **service_app("src/inventory"),
    }
    row = only(links(tmp_path, files))
    assert [e.split(":")[0] for e in row["evidence"]] == ["dockerfile", "image name guess"]


def test_a_script_builds_from_where_its_cd_lines_go(tmp_path: Path) -> None:
    """`cd "$(dirname "$0")/../.."`: the script's folder, then up to the repository's top,
    from which `-f` and the context are read."""
    script = (
        '#!/bin/bash\nset -e\nREGISTRY=$1\nROOT=$(dirname "$0")/../..\n'
        'cd "${ROOT}"\n'
        'docker build -t "${REGISTRY}/inventory:${TAG}" -f services/inv/Dockerfile services/inv\n'
    )
    files = {
        "deploy/inventory.yaml": workload(image="ghcr.io/acme/inventory:1"),
        "hack/images/build.sh": script,
        "services/inv/Dockerfile": DOCKERFILE,
        **service_app("services/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inv", "server.py")
    assert row["evidence"][0].startswith("script: hack/images/build.sh:6: ")


def test_after_a_cd_to_a_folder_not_known_a_script_builds_nothing_known(tmp_path: Path) -> None:
    script = "cd $(git rev-parse --show-toplevel)\ndocker build -t acme/inventory inv\n"
    files = {
        "deploy/inventory.yaml": workload(image="acme/inventory:1"),
        "hack/build.sh": script,
        **service_app("hack/inv"),  # where the build would be without the cd
    }
    assert only(links(tmp_path, files))["code"] is None


PUSH_SCRIPT = """\
#!/bin/bash -e
tag="registry.example/ledger-ci/replica-db:next"
while getopts "ht:" opt; do
  case $opt in
    h) echo "usage: $0 [-t tag]"; exit 0 ;;
    t)
      tag=$OPTARG
      ;;
  esac
done
docker build -t ${tag} .
docker push ${tag}
"""


def test_a_script_s_image_an_option_may_replace_is_built_under_its_default(
    tmp_path: Path,
) -> None:
    """`tag=...` then `tag=$OPTARG` in a `getopts` case: run without `-t`, the script
    builds its default, which the replica's manifest runs; and the store's image, whose
    namespace a variable gives (`registry.example/${PROJECT}/store`), is the deploy's own
    whatever that script pushes to: its folder so named links."""
    files = {
        "deploy/replica.yaml": workload(
            name="replica", image="registry.example/ledger-ci/replica-db:next"
        )
        + "---\n"
        + workload(name="store", image="registry.example/${PROJECT}/store:1"),
        "deploy/replica/image/push.sh": PUSH_SCRIPT,
        "deploy/replica/image/Dockerfile": DOCKERFILE,
        **service_app("deploy/replica/image"),
        "store/Dockerfile": DOCKERFILE,
        **service_app("store"),
    }
    (replica, store) = links(tmp_path, files)
    assert replica["code"] == os.path.join("deploy", "replica", "image", "server.py")
    assert any(e.startswith("script: deploy/replica/image/push.sh:") for e in replica["evidence"])
    assert store["code"] == os.path.join("store", "server.py")


def test_an_image_a_script_tags_is_built_as_the_image_it_tags(tmp_path: Path) -> None:
    """`docker tag SOURCE TARGET`: a container that runs TARGET runs what SOURCE is built
    from, here by another script's build, else by SOURCE's name."""
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/shop/stock-prod:2"),
        "deploy/billing.yaml": workload(name="billing", image="registry.example/bill-prod:2"),
        "build.sh": "docker build -t acme/stock:1 services/inv\n",
        "release.sh": (
            "docker tag acme/stock:1 registry.example/shop/stock-prod:2\n"
            "docker image tag billing:0.1 registry.example/bill-prod:2\n"
        ),
        "services/inv/Dockerfile": DOCKERFILE,
        **service_app("services/inv"),
        "billing/Dockerfile": DOCKERFILE,
        **service_app("billing"),
    }
    billing, inventory = links(tmp_path, files)  # in the order of their files
    assert inventory["code"] == os.path.join("services", "inv", "server.py")
    assert inventory["evidence"][0] == (
        "script: build.sh:1: docker build -t acme/stock:1 services/inv "
        "(acme/stock tagged registry.example/shop/stock-prod at release.sh:1)"
    )
    assert billing["code"] == os.path.join("billing", "server.py")
    assert billing["evidence"][-1] == (
        "image name: deploy/billing.yaml:11: image: registry.example/bill-prod:2 "
        "(billing tagged registry.example/bill-prod at release.sh:2)"
    )


# -- a Dockerfile shared by services, a build argument choosing the folder -------------------

SHARED_DOCKERFILE = """\
FROM golang:1.22 AS builder
ARG APP_RELATIVE_PATH
COPY . /src
WORKDIR /src/app/${APP_RELATIVE_PATH}
RUN make build
FROM debian:stable-slim
ARG APP_RELATIVE_PATH
COPY --from=builder /src/app/${APP_RELATIVE_PATH}/bin /app
WORKDIR /app
CMD ["./server", "-conf", "/data/conf"]
"""


def shared_tree(build: str) -> dict[str, str]:
    """Two Go services under app/, one Dockerfile for both, and the build given."""
    files = {
        "deploy/cart.yaml": workload(name="cart", image="registry.example/shop/cart-service:0.1"),
        "deploy/build/Dockerfile": SHARED_DOCKERFILE,
        **build,
    }
    for service in ("cart", "order"):
        files[f"app/{service}/service/cmd/server/main.go"] = "package main\n\nfunc main() {}\n"
    return files


def test_a_shared_dockerfile_builds_the_folder_its_build_argument_chooses(tmp_path: Path) -> None:
    compose = (
        "services:\n  cart:\n    image: registry.example/shop/cart-service:0.1\n    build:\n"
        "      context: .\n      dockerfile: deploy/build/Dockerfile\n"
        "      args:\n        APP_RELATIVE_PATH: cart/service\n"
    )
    row = only(links(tmp_path, shared_tree({"compose.yaml": compose})))
    assert row["code"] == os.path.join("app", "cart", "service")
    assert row["modules"] == 1, "the cart service's code, not the order service's"
    assert row["evidence"] == [
        "compose: compose.yaml:3: image: registry.example/shop/cart-service:0.1",
        "dockerfile: deploy/build/Dockerfile:4: WORKDIR /src/app/${APP_RELATIVE_PATH} "
        "(APP_RELATIVE_PATH=cart/service)",
    ]


def test_a_build_argument_may_choose_the_folder_a_copy_takes(tmp_path: Path) -> None:
    dockerfile = "FROM python:3.12\nARG SERVICE=billing\nCOPY services/${SERVICE}/ /srv/\n"
    script = "docker build --build-arg SERVICE=inventory -f docker/Dockerfile -t acme/inv .\n"
    files = {
        "deploy/inventory.yaml": workload(image="acme/inv:1"),
        "build.sh": script,
        "docker/Dockerfile": dockerfile + 'CMD ["python", "/srv/server.py"]\n',
        **service_app("services/inventory"),
        **service_app("services/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inventory")
    assert row["evidence"][-1] == (
        "dockerfile: docker/Dockerfile:3: COPY services/${SERVICE}/ /srv/ (SERVICE=inventory)"
    )


def test_a_script_building_a_parameter_s_repository_links_by_the_tag_naming_the_service(
    tmp_path: Path,
) -> None:
    """source/build.sh, run from the top (`-f ./source/docker/Dockerfile`), builds
    `$1:inventory-latest` with `--build-arg SERVICE=inventory`; the shared Dockerfile
    copies `${SERVICE}/*.py`: the container running `ghcr.io/acme/shop:inventory-latest`
    runs source/inventory (the tag names it; the repository is the script's parameter)."""
    script = "registry=$1\n" + "".join(
        f"docker buildx build --build-arg SERVICE={name} -f ./source/docker/Dockerfile "
        f"-t ${{registry}}:{name}-$2 -t ${{registry}}:{name}-latest --push source/\n"
        for name in ("inventory", "billing")
    )
    dockerfile = (
        "FROM python:3.12\nARG SERVICE\nWORKDIR /app\nCOPY ${SERVICE}/requirements.txt ./\n"
        'COPY ${SERVICE}/*.py ./\nCMD ["python", "server.py"]\n'
    )
    files = {
        "deploy/inventory.yaml": workload(image="ghcr.io/acme/shop:inventory-latest"),
        "source/build.sh": script,
        "source/docker/Dockerfile": dockerfile,
        **service_app("source/inventory"),
        **service_app("source/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("source", "inventory", "server.py")
    assert row["evidence"][0].startswith("script: source/build.sh:2: docker buildx build")
    assert any(
        e.endswith("COPY ${SERVICE}/requirements.txt ./ (SERVICE=inventory)")
        for e in row["evidence"]
    )


def test_a_script_s_context_is_resolved_from_the_folder_above_it_that_holds_it(
    tmp_path: Path,
) -> None:
    """ops/scripts/build.sh is run from ops/ (`docker build -t acme/web:v1 apps/portal`):
    ops/scripts/apps/portal does not exist, ops/apps/portal does, and is the image's code
    (round 11: the context was taken under scripts/, no code was linked)."""
    files = {
        "deploy/web.yaml": workload(name="web", image="acme/web:v1"),
        "ops/scripts/build.sh": "#!/bin/sh\ndocker build -t acme/web:v1 apps/portal\n",
        "ops/apps/portal/Dockerfile": DOCKERFILE,
        **service_app("ops/apps/portal"),
        "ops/apps/billing/Dockerfile": DOCKERFILE,
        **service_app("ops/apps/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("ops", "apps", "portal", "server.py")
    assert row["evidence"][0].startswith("script: ops/scripts/build.sh:2: docker build")


def test_a_script_s_context_under_its_own_folder_is_taken_before_one_above(
    tmp_path: Path,
) -> None:
    """Both ops/scripts/apps/portal and ops/apps/portal are folders of code: the script's
    own folder is where it runs unless its context is not there."""
    files = {
        "deploy/web.yaml": workload(name="web", image="acme/web:v1"),
        "ops/scripts/build.sh": "#!/bin/sh\ndocker build -t acme/web:v1 apps/portal\n",
        "ops/scripts/apps/portal/Dockerfile": DOCKERFILE,
        **service_app("ops/scripts/apps/portal"),
        "ops/apps/portal/Dockerfile": DOCKERFILE,
        **service_app("ops/apps/portal"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("ops", "scripts", "apps", "portal", "server.py")


def test_a_script_s_context_held_nowhere_above_it_stays_as_written(tmp_path: Path) -> None:
    """`docker build apps/portal` where no folder at or above the script holds apps/portal:
    the context as written, whose code is none (billing, elsewhere, is not it)."""
    files = {
        "deploy/web.yaml": workload(name="web", image="acme/web:v1"),
        "ops/scripts/build.sh": "#!/bin/sh\ndocker build -t acme/web:v1 apps/portal\n",
        "ops/apps/billing/Dockerfile": DOCKERFILE,
        **service_app("ops/apps/billing"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("ops", "scripts", "apps", "portal"), 0)


def test_a_build_argument_no_build_gives_is_why_there_is_no_link(tmp_path: Path) -> None:
    """The value is computed when make runs (`$(shell ...)`): the build's context holds
    every service, and none is this image's for sure."""
    makefile = (
        "APP_RELATIVE_PATH=$(shell basename $$PWD)\n"
        "docker:\n\tdocker build -f deploy/build/Dockerfile "
        "--build-arg APP_RELATIVE_PATH=$(APP_RELATIVE_PATH) -t shop/cart-service .\n"
    )
    row = only(links(tmp_path, shared_tree({"Makefile": makefile})))
    assert row["code"] is None
    assert row["why_not"] == (
        "deploy/build/Dockerfile:4: `WORKDIR /src/app/${APP_RELATIVE_PATH}` builds the folder "
        "a build argument chooses, and no build of image registry.example/shop/cart-service:0.1 "
        "gives its value"
    )


def test_a_path_the_platform_chooses_is_no_service_a_build_argument_chooses(
    tmp_path: Path,
) -> None:
    """`COPY dist/$TARGETPLATFORM/bin/hotrod`: BuildKit sets the platform's ARGs itself, and
    they choose one program's build for a platform, not a service: the image's name links
    (round 5: hotrod, one binary at the top of its repository, was linked to none)."""
    dockerfile = (
        "FROM alpine:3\nARG TARGETPLATFORM\nCOPY dist/$TARGETPLATFORM/bin/hotrod /app/hotrod\n"
        'ENTRYPOINT ["/app/hotrod"]\n'
    )
    files = {
        "deploy/route.yaml": workload(name="route", image="registry.example/hotrod:1"),
        "hotrod/Dockerfile": dockerfile,
        "hotrod/main.go": "package main\n\nfunc main() {}\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "hotrod"
    assert "why_not" not in row


# -- a Dockerfile kept in a folder of its own ----------------------------------------------

DEPLOY_DOCKERFILE = """\
FROM node:22 AS builder
WORKDIR /src
COPY package.json ./
COPY . /src
RUN npm run build
FROM caddy:2
COPY deploy/Caddyfile /etc/caddy/Caddyfile
COPY --from=builder /src/build /app
"""


@pytest.mark.parametrize("image", ["registry.example/shop:1", "registry.example/beer-shop:1"])
def test_a_dockerfile_that_copies_through_its_own_folder_s_name_builds_the_folder_above(
    tmp_path: Path, image: str
) -> None:
    """`web/shop/deploy/Dockerfile` copies `deploy/Caddyfile`: it is built from `web/shop`,
    the shop's code (not `app/shop`, a library of the same name)."""
    files = {
        "k8s/shop.yaml": workload(name="shop", image=image),
        "web/shop/deploy/Dockerfile": DEPLOY_DOCKERFILE,
        "web/shop/package.json": '{"name": "shop"}',
        "web/shop/src/index.js": "console.log('shop')\n",
        "app/shop/lib.py": "import grpc\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("web", "shop")


# -- never too wide --------------------------------------------------------------------------


def test_an_image_named_as_a_folder_of_several_services_is_not_linked_to_it(
    tmp_path: Path,
) -> None:
    """`services/app` holds the web front-end and the server, each built by its own
    Dockerfile: the image `app` is one of them, not both."""
    files = {
        "deploy/app.yaml": workload(name="app", image="registry.example/app:1"),
        "services/app/frontend/Dockerfile": 'FROM node:22\nCOPY . .\nCMD ["node", "web.js"]\n',
        "services/app/frontend/web.js": "console.log('web')\n",
        "services/app/server/Dockerfile": DOCKERFILE,
        **service_app("services/app/server"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- Makefiles and shell scripts -------------------------------------------------------------


def test_a_makefile_build_links_the_image_through_the_variables_the_makefile_sets(
    tmp_path: Path,
) -> None:
    makefile = (
        "build: inventory/.built\n"
        "inventory/.built: inventory/Dockerfile\n"
        "\tdocker build -t $(IMAGE_BASE)/shop-inv:$(TAG) services/inv/\n"
        "\ttouch $@\n"
        "IMAGE_BASE ?= $(REGISTRY)/acme\n"  # Make reads every assignment before a recipe
        "REGISTRY := registry.example\n"
    )
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/acme/shop-inv:1.0"),
        "Makefile": makefile,
        "services/inv/Dockerfile": DOCKERFILE,
        **service_app("services/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inv", "server.py")
    assert row["evidence"][0] == (
        "makefile: Makefile:3: docker build -t $(IMAGE_BASE)/shop-inv:$(TAG) services/inv/"
    )


def test_a_makefile_build_whose_registry_is_not_set_there_is_named_by_its_last_segment(
    tmp_path: Path,
) -> None:
    """`$(HUB)` is set in a file the Makefile includes: the image is the bare `app`, which
    the container's `ghcr.io/acme/app` is, as skaffold's bare names are."""
    makefile = "include ../../common.mk\ndocker:\n\tdocker build . -t $(HUB)/app:$(TAG);\n"
    files = {
        "deploy/app.yaml": workload(name="app", image="ghcr.io/acme/app:2"),
        "services/app/server/Makefile": makefile,
        "services/app/server/Dockerfile": DOCKERFILE,
        **service_app("services/app/server"),
        "services/app/frontend/Dockerfile": "FROM nginx:1.27\nCOPY . /usr/share/nginx/html\n",
        "services/app/frontend/web.js": "console.log('web')\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "app", "server", "server.py")
    assert row["evidence"][0].startswith("makefile: services/app/server/Makefile:3: ")


def test_a_makefile_build_with_a_registry_variable_in_the_last_segment_is_no_evidence(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/inventory.yaml": workload(image="registry.example/inventory:1.0"),
        "Makefile": "docker:\n\tdocker build -t registry.example/$(NAME) v2\n",
        **service_app("v2"),
    }
    assert only(links(tmp_path, files))["code"] is None


@pytest.mark.parametrize(
    "command",
    [
        "docker build --tag=acme/inventory:1 -f inv/Dockerfile.prod inv",
        "podman build -t acme/inventory -f inv/Dockerfile.prod inv",
        "docker buildx build --platform linux/amd64 -t acme/inventory -f inv/Dockerfile.prod inv",
        'docker build -t "$IMAGE:$VERSION" -f inv/Dockerfile.prod inv',
    ],
)
def test_a_shell_script_build_links_the_image_from_where_the_script_runs(
    tmp_path: Path, command: str
) -> None:
    """A script's build runs in its folder, or where a `cd` on the line goes; `-f` is read
    from there too; a variable the script sets before is read."""
    script = f"#!/bin/sh\nset -e\nIMAGE=acme/inventory\ncd ../services && {command}\n"
    files = {
        "deploy/inventory.yaml": workload(image="docker.io/acme/inventory:1"),
        "scripts/build.sh": script,
        "services/inv/Dockerfile.prod": DOCKERFILE,
        **service_app("services/inv"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "inv", "server.py")
    assert row["evidence"][0].startswith("script: scripts/build.sh:4: cd ../services && ")


def test_a_build_from_the_repository_top_links_the_go_package_it_builds(tmp_path: Path) -> None:
    """`docker build -f services/geo/Dockerfile .`: the context holds every service; the
    link is the package the Dockerfile builds, not the top."""
    makefile = "images:\n\tdocker build -t acme/geo -f services/geo/Dockerfile .\n"
    dockerfile = GO_ROOT_BUILD.format(name="geo")
    files = {
        "deploy/geo.yaml": workload(name="geo", image="acme/geo:2"),
        "Makefile": makefile,
        "services/geo/Dockerfile": dockerfile,
        "services/geo/main.go": "package main\n\nfunc main() {}\n",
        "services/rate/Dockerfile": GO_ROOT_BUILD.format(name="rate"),
        "services/rate/main.go": "package main\n\nfunc main() {}\n",
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("services", "geo"), 1)


def test_a_build_from_the_repository_top_with_no_entry_point_links_its_dockerfile_s_folder(
    tmp_path: Path,
) -> None:
    makefile = "images:\n\tdocker build -t acme/inventory -f services/inv/Dockerfile .\n"
    files = {
        "deploy/inventory.yaml": workload(image="acme/inventory:2"),
        "Makefile": makefile,
        "services/inv/Dockerfile": "FROM python:3.12\nCOPY services/inv /srv\n",
        **service_app("services/inv"),
        "services/bill/Dockerfile": DOCKERFILE,
        **service_app("services/bill"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("services", "inv"), 3)


GO_ROOT_BUILD = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build -o /out/{name} ./services/{name}
FROM gcr.io/distroless/static
COPY --from=build /out/{name} /{name}
ENTRYPOINT ["/{name}"]
"""


# -- one binary, several commands ------------------------------------------------------------

ROOT_GO_DOCKERFILE = """\
FROM golang:1.22 AS build
WORKDIR /src
COPY go.mod .
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o ./shopctl
FROM gcr.io/distroless/static
COPY --from=build /src/shopctl /bin/shopctl
ENTRYPOINT ["/bin/shopctl"]
"""
ROOT_MAIN = """\
package main

import (
\t"os"

\t"github.com/acme/shopctl/client"
\t"github.com/acme/shopctl/server"
)

func main() {
\tif os.Args[1] == "server" {
\t\tserver.Run()
\t} else {
\t\tclient.Run()
\t}
}
"""


def test_one_binary_run_as_server_and_as_client_links_both_to_the_root_program(
    tmp_path: Path,
) -> None:
    """The image is named as go.mod names the module at the top of the tree, whose
    Dockerfile builds the one `main` package there: each command runs all of it."""
    files = {
        "deploy/server.yaml": workload(
            name="shop-server",
            image="docker.io/acme/shopctl:0.4",
            extra="          args: [server]\n",
        ),
        "deploy/client.yaml": workload(
            name="shop-client",
            image="docker.io/acme/shopctl:0.4",
            extra="          args: [client]\n",
        ),
        "go.mod": "module github.com/acme/shopctl\n\ngo 1.22\n",
        "Dockerfile": ROOT_GO_DOCKERFILE,
        "main.go": ROOT_MAIN,
        "server/server.go": "package server\n\nfunc Run() {}\n",
        "client/client.go": "package client\n\nfunc Run() {}\n",
        "tools/gen/main.go": "package main\n\nfunc main() {}\n",
    }
    rows = links(tmp_path, files)
    assert [row["code"] for row in rows] == [".", "."]
    assert [row["modules"] for row in rows] == [3, 3], "main.go, server/ and client/, not tools/"
    for row in rows:
        assert row["evidence"] == [
            "dockerfile: Dockerfile:5: RUN CGO_ENABLED=0 go build -trimpath -o ./shopctl",
            f"image name: deploy/{row['container'].split('/')[-1].split(':')[0][5:]}.yaml:11: "
            "image: docker.io/acme/shopctl:0.4 (the module go.mod:1 declares: "
            "github.com/acme/shopctl)",
        ]


SUBCOMMANDS_MAIN = """\
package main

import (
\t"os"

\t"github.com/acme/bazaar/cmd/orders"
\t"github.com/acme/bazaar/cmd/payments"
)

func main() {
\tif os.Args[1] == "orders" {
\t\torders.Run()
\t} else {
\t\tpayments.Run()
\t}
}
"""
SUBCOMMAND = """\
package {name}

import "github.com/acme/bazaar/internal/{name}"

func Run() {{ {name}.Serve() }}
"""
# stubs a code generator wrote under the service's name: a library, no program
STUBS = "// Code generated by thriftgo. DO NOT EDIT.\n\npackage {name}\n\ntype Request struct{{}}\n"


def subcommands_tree(go_mod: bool = True) -> dict[str, str]:
    """One binary whose subcommands are the services, built by a Dockerfile kept under
    `build/`, and the generated stubs in a folder named as the image."""
    files = {
        "deploy/orders.yaml": workload(
            name="orders",
            image="registry.example/acme/bazaar:1.2",
            extra="          args: [orders]\n",
        ),
        "deploy/payments.yaml": workload(
            name="payments",
            image="registry.example/acme/bazaar:1.2",
            extra="          args: [payments]\n",
        ),
        "build/Dockerfile": (
            "FROM golang:1.22 AS build\nCOPY . /src\nWORKDIR /src\nRUN make build\n"
            "FROM gcr.io/distroless/static\nCOPY --from=build /src/bin/bazaar /app/bazaar\n"
            'ENTRYPOINT ["/app/bazaar"]\n'
        ),
        "cmd/main.go": SUBCOMMANDS_MAIN,
        "cmd/orders/cmd.go": SUBCOMMAND.format(name="orders"),
        "cmd/payments/cmd.go": SUBCOMMAND.format(name="payments"),
        "internal/orders/serve.go": "package orders\n\nfunc Serve() {}\n",
        "internal/payments/serve.go": "package payments\n\nfunc Serve() {}\n",
        "gen/acme/bazaar/orders/orders.go": STUBS.format(name="orders"),
        "gen/acme/bazaar/payments/payments.go": STUBS.format(name="payments"),
    }
    if go_mod:
        files["go.mod"] = "module github.com/acme/bazaar\n\ngo 1.22\n"
    return files


def test_a_binary_with_subcommands_links_to_the_main_package_of_the_module_named_as_its_image(
    tmp_path: Path,
) -> None:
    """The image is named as go.mod names the module, whose Dockerfile is kept apart: what
    is built of the module is its one `package main` (`cmd/`), and each subcommand's
    container runs it with the packages it imports, never the generated stubs named as the
    image."""
    rows = links(tmp_path, subcommands_tree())
    assert [row["code"] for row in rows] == ["cmd", "cmd"]
    assert [row["modules"] for row in rows] == [5, 5], "main.go, both subcommands, internal/"
    assert rows[0]["evidence"] == [
        "image name: deploy/orders.yaml:11: image: registry.example/acme/bazaar:1.2 (the module "
        "go.mod:1 declares: github.com/acme/bazaar; its one `package main` is cmd)"
    ]


def test_a_folder_of_generated_stubs_named_as_the_image_is_no_link(tmp_path: Path) -> None:
    """With no module to say which program the image is, the stubs' folder, a library by
    its package clauses, is not the code the container runs: no link, rather than a wrong one."""
    rows = links(tmp_path, subcommands_tree(go_mod=False))
    assert [row["code"] for row in rows] == [None, None]


def go_commands(*names: str, package: str = "main") -> dict[str, str]:
    """Go's layout for several binaries, `cmd/<name>/`, each calling its logic in
    `internal/<name>/`, built by a Dockerfile whose build argument k8slb cannot follow."""
    files = {
        "go.mod": "module github.com/acme/shop\n\ngo 1.22\n",
        "Dockerfile.cmd": "FROM golang:1.22\nARG NAME\nCOPY . /src\nRUN make build/cmd/${NAME}\n",
    }
    for name in names:
        files[f"cmd/{name}/main.go"] = (
            f'package {package}\n\nimport "github.com/acme/shop/internal/{name}"\n\n'
            f"func main() {{ {name}.Serve() }}\n"
        )
        files[f"internal/{name}/serve.go"] = f"package {name}\n\nfunc Serve() {{}}\n"
    return files


def test_an_image_nothing_builds_is_guessed_to_run_the_go_command_named_as_its_end(
    tmp_path: Path,
) -> None:
    """`shop-checkout`: Go names the binary for its folder, `cmd/checkout/` (a `package
    main`); the guess runs it and what it imports."""
    files = {
        "deploy/checkout.yaml": workload(name="checkout", image="gcr.io/acme/shop-checkout:1.8"),
        **go_commands("checkout", "payments"),
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("cmd", "checkout"), 2)
    assert row["evidence"] == [
        "image name guess: deploy/checkout.yaml:11: image: gcr.io/acme/shop-checkout:1.8 (a "
        "guess: cmd/checkout is the one Go command so named (`cmd/NAME`, `package main`))"
    ]


def test_a_folder_of_cmd_that_is_no_main_package_is_no_command(tmp_path: Path) -> None:
    files = {
        "deploy/checkout.yaml": workload(name="checkout", image="gcr.io/acme/shop-checkout:1.8"),
        **go_commands("checkout", package="checkout"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_third_party_image_named_as_a_go_library_of_the_tree_is_linked_to_nothing(
    tmp_path: Path,
) -> None:
    """`postgres:16` and a vendored SQL dialect, `prom/prometheus` and the app's metrics
    publisher: packages of those names, no program, are not what those images run."""
    files = {
        "deploy/db.yaml": workload(name="db", image="postgres:16.4"),
        "deploy/prom.yaml": workload(name="prom", image="prom/prometheus:v2.53.0"),
        "vendor/github.com/acme/darwin/dialects/postgres/postgres.go": "package postgres\n",
        "app/metrics/publisher/prometheus/prometheus.go": "package prometheus\n",
    }
    assert [row["code"] for row in links(tmp_path, files)] == [None, None]


# -- a Makefile's Dockerfiles kept apart under their own names ------------------------------


@pytest.mark.parametrize(
    ("name", "is_one"),
    [
        ("dockerfile.auth", True),
        ("Dockerfile-prod", True),
        ("gateway-Dockerfile", True),
        ("Dockerfile_client", True),
        ("server_Dockerfile", True),
        ("DockerFile", True),
        ("api.DOCKERFILE", True),
        ("Dockerfile.md", False),
        ("DockerFile.MD", False),
        ("Dockerfile_notes.txt", False),
        ("dockerfile-lint.json", False),
    ],
)
def test_a_dockerfile_is_known_by_a_hyphen_or_lower_case_name_but_not_a_document(
    name: str, is_one: bool
) -> None:
    assert is_dockerfile_name(name) is is_one


def test_a_build_date_argument_s_command_substitution_is_not_the_build_context() -> None:
    makefile = (
        "auth:\n\tdocker build \\\n\t\t-f zarf/docker/dockerfile.auth \\\n"
        "\t\t-t localhost/acme/auth:0.1 \\\n"
        '\t\t--build-arg BUILD_DATE=$(date -u +"%Y-%m-%dT%H:%M:%SZ") \\\n\t\t.\n'
    )
    (build,) = script_builds("Makefile", makefile)
    assert (build.context, build.dockerfile) == (
        ".",
        os.path.join("zarf", "docker", "dockerfile.auth"),
    )


def test_an_image_built_for_one_registry_and_run_from_another_links_by_its_path(
    tmp_path: Path,
) -> None:
    """The Makefile builds `localhost/acme/auth` with zarf/docker/dockerfile.auth; the chart
    runs `registry.example.com/acme/auth`: the same path, so the same image."""
    dockerfile = (
        "FROM golang:1.23 AS build\nCOPY . /service\nWORKDIR /service/api/services/auth\n"
        "RUN go build -o auth .\nFROM alpine:3.20\n"
        "COPY --from=build /service/api/services/auth/auth /auth\n"
        'CMD ["/auth"]\n'
    )
    files = {
        "go.mod": "module example.com/acme\n\ngo 1.23\n",
        "chart/templates/auth.yaml": workload(
            name="auth", image="registry.example.com/acme/auth:1"
        ),
        "Makefile": (
            "auth:\n\tdocker build -f zarf/docker/dockerfile.auth -t localhost/acme/auth:0.1 "
            '--build-arg BUILD_DATE=$(date -u +"%Y-%m-%dT%H:%M:%SZ") .\n'
        ),
        "zarf/docker/dockerfile.auth": dockerfile,
        "api/services/auth/main.go": "package main\n\nfunc main() {}\n",
        "api/services/sales/main.go": "package main\n\nfunc main() {}\n",
    }
    row = only(links(tmp_path, files))
    assert (row["code"], row["modules"]) == (os.path.join("api", "services", "auth"), 1)
    assert row["evidence"][0].startswith(
        "makefile: Makefile:2: docker build -f zarf/docker/dockerfile.auth"
    )


def test_a_service_folder_named_as_the_image_runs_the_one_folder_in_it_with_a_dockerfile(
    tmp_path: Path,
) -> None:
    """apps/sku/ holds its chart and, in app/, its Dockerfile and code: the container of
    image `.../sku:5` runs apps/sku/app, not the whole folder (whose own code is none)."""
    files = {
        "apps/sku/helm-chart/templates/deployment.yaml": workload(
            name="sku", image="public.ecr.aws/acme/sku:5"
        ),
        "apps/sku/helm-chart/Chart.yaml": "apiVersion: v2\nname: sku\nversion: 0.1.0\n",
        "apps/sku/app/Dockerfile": DOCKERFILE,
        **service_app("apps/sku/app"),
        "apps/cart/Dockerfile": DOCKERFILE,
        **service_app("apps/cart"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("apps", "sku", "app", "server.py")
    assert row["evidence"][-1].startswith("image name: apps/sku/helm-chart/templates/")


def test_the_build_of_the_tag_or_nearest_the_manifest_says_which_dockerfile_runs(
    tmp_path: Path,
) -> None:
    """compose builds `gateway` (latest) with Dockerfile-dev; scripts/prod/deploy.sh builds
    `gateway:1` and `$REGISTRY/gateway:1` with Dockerfile-prod. `gateway:1` runs the
    build of its tag; `$REGISTRY/gateway:$VERSION` (a tag not known), near the script
    in scripts/, the build whose file is nearest it: Dockerfile-prod both times."""
    compose = (
        "services:\n  gateway:\n    image: gateway\n    build:\n      context: ./gateway\n"
        "      dockerfile: Dockerfile-dev\n"
    )
    script = (
        "docker build -t gateway:1 --file ../../gateway/Dockerfile-prod ../../gateway\n"
        "docker build -t $REGISTRY/gateway:1 --file ../../gateway/Dockerfile-prod ../../gateway\n"
    )
    files = {
        "docker-compose.yml": compose,
        "scripts/prod/deploy.sh": script,
        "k8s/gateway.yaml": workload(name="gateway", image="gateway:1"),
        "scripts/cd/gateway.yaml": workload(name="gateway-cd", image="$REGISTRY/gateway:$VERSION"),
        "gateway/Dockerfile-dev": DOCKERFILE.replace("server.py", "dev.py"),
        "gateway/Dockerfile-prod": DOCKERFILE,
        **service_app("gateway"),
    }
    rows = links(tmp_path, files)
    assert [row["code"] for row in rows] == [os.path.join("gateway", "server.py")] * 2
    for row in rows:
        assert row["evidence"][0].startswith("script: scripts/prod/deploy.sh:")
        assert (
            'dockerfile: gateway/Dockerfile-prod:4: CMD ["python", "server.py"]' in row["evidence"]
        )


def test_two_programs_of_one_name_in_two_languages_are_no_copies_to_guess_between(
    tmp_path: Path,
) -> None:
    """A browser extension's TypeScript `tracker/` at the top and a Go module's
    `server/cmd/tracker/`, neither built by anything read: the nearer to the chart is no
    better a guess, as it is between a service's copies. No link, and the doubt said."""
    files = {
        "charts/tracker/templates/deployment.yaml": workload(
            name="tracker", image="registry.example/acme/tracker:1.4"
        ),
        "tracker/package.json": '{"name": "tracker-extension", "main": "index.ts"}\n',
        "tracker/index.ts": "export function start(): void {\n  console.log('up');\n}\n",
        "server/go.mod": "module github.com/acme/server\n\ngo 1.22\n",
        "server/cmd/tracker/main.go": 'package main\n\nimport "net/http"\n\n'
        'func main() { http.ListenAndServe(":8080", nil) }\n',
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None
    assert "2 folders are named as image tracker" in row["why_not"]


SCRATCH_BUILD = """\
#!/bin/bash
set -e
edition="community"
[[ $1 == "pro" ]] && {
    edition="pro"
}
scratch="_relay_${edition}"
rm -rf ../${scratch}
cp -R ../relay ../${scratch}
cd ../${scratch}
[[ $1 == "pro" ]] && cp -rf ../pro/relay/* ./
docker build -f ./Dockerfile -t ${REGISTRY:-'local'}/dispatch:${TAG} .
cd ../relay
rm -rf ../${scratch}
"""


def test_a_script_building_from_a_scratch_copy_of_a_folder_links_the_folder(
    tmp_path: Path,
) -> None:
    """`cp -R ../relay ../_relay_pro`, `cd` there and `docker build .`: the copy, gone once
    built, holds the folder's code (an edition's files laid over it)."""
    files = {
        "deploy/dispatch.yaml": workload(name="dispatch", image="registry.example/dispatch:2"),
        "relay/build.sh": SCRATCH_BUILD,
        "relay/Dockerfile": DOCKERFILE,
        **service_app("relay"),
    }
    (build,) = script_builds("relay/build.sh", SCRATCH_BUILD)
    assert build.context == "relay"
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("relay", "server.py")


def test_of_folders_named_as_the_image_the_one_program_among_packages_is_the_guess(
    tmp_path: Path,
) -> None:
    """A Go `cmd/archive/` and, fewer steps from the manifest, a web app's
    `components/archive/` (a package of the app, no program): the program is the guess."""
    files = {
        "deploy/archive.yaml": workload(name="archive", image="registry.example/acme/archive:1.4"),
        "web/package.json": '{"name": "web", "main": "index.ts"}\n',
        "web/index.ts": "import { Archive } from './components/archive/view';\n",
        "web/components/archive/view.ts": "export class Archive {}\n",
        "services/server/go.mod": "module github.com/acme/server\n\ngo 1.22\n",
        "services/server/cmd/archive/main.go": 'package main\n\nimport "net/http"\n\n'
        'func main() { http.ListenAndServe(":8080", nil) }\n',
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "server", "cmd", "archive")
