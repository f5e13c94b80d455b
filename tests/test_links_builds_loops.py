"""The code <-> container link where images are built by CI steps whose registry is a
secret, by loops over services, by `docker image build`, and run by a Knative Service."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tests.helpers import lint_files
from tests.test_links import DOCKERFILE, links, only, service_app, workload

KNATIVE = """\
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: inventory, namespace: shop}
spec:
  template:
    spec:
      containers:
        - name: server
          image: registry.example/acme/inventory:1.0
"""


def test_a_knative_service_s_container_is_linked_as_a_deployment_s_is(tmp_path: Path) -> None:
    files = {
        "deploy/inventory-knative.yaml": KNATIVE,
        "inventory/Dockerfile": DOCKERFILE,
        **service_app("inventory"),
    }
    row = only(links(tmp_path, files))
    assert row["container"] == "Service/shop/inventory:server"
    assert row["code"] == os.path.join("inventory", "server.py")


def _workflow(step: str) -> str:
    return "on: push\njobs:\n  image:\n    runs-on: ubuntu-latest\n    steps:\n" + step


def test_a_ci_tag_whose_registry_is_a_secret_names_the_image_past_it(tmp_path: Path) -> None:
    """`${{ secrets.REGISTRY }}/acme/ads:latest` from `./ads-service` builds the `acme/ads`
    the manifests run from any registry, though no folder is named `ads`."""
    step = (
        "      - uses: docker/build-push-action@v2\n        with:\n"
        "          context: ./ads-service\n"
        "          file: ./ads-service/v1/Dockerfile\n"
        "          tags: ${{ secrets.PUBLIC_REGISTRY }}/acme/ads:latest\n"
    )
    files = {
        "deploy/ads.yaml": workload(name="ads", image="public.example/x1/acme/ads:latest"),
        ".github/workflows/ads.yml": _workflow(step),
        "ads-service/v1/Dockerfile": DOCKERFILE,
        **service_app("ads-service"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("ads-service", "server.py")
    assert row["evidence"][0].startswith("workflow: .github/workflows/ads.yml:10:")


def test_a_ci_tag_made_only_of_expressions_names_no_image(tmp_path: Path) -> None:
    step = (
        "      - uses: docker/build-push-action@v2\n        with:\n"
        "          context: ./promotions\n"
        "          tags: ${{ secrets.REGISTRY }}/${{ env.IMAGE }}:latest\n"
    )
    files = {
        "deploy/ads.yaml": workload(name="ads", image="public.example/acme/ads:latest"),
        ".github/workflows/ads.yml": _workflow(step),
        "promotions/Dockerfile": DOCKERFILE,
        **service_app("promotions"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_docker_image_build_in_a_script_is_a_build(tmp_path: Path) -> None:
    files = {
        "deploy/ads.yaml": workload(name="ads", image="acme/ads:2.1"),
        "ads-service/build.sh": "#!/bin/bash\nset -eu\n"
        "docker image build --progress=plain --tag acme/ads:latest .\n",
        "ads-service/Dockerfile": DOCKERFILE,
        **service_app("ads-service"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("ads-service", "server.py")
    assert row["evidence"][0].startswith("script: ads-service/build.sh:3: docker image build")


def _chart(name: str) -> dict[str, str]:
    """A chart whose image repository the deploy sets (`--set image.repository=...`)."""
    template = workload(name=name, image='"{{ .Values.image.repository }}:{{ .Values.image.tag }}"')
    return {
        f"helm/{name}/Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n",
        f"helm/{name}/values.yaml": 'image:\n  repository: ""\n  tag: ""\n',
        f"helm/{name}/templates/deployment.yaml": template,
    }


def test_a_chart_that_leaves_its_image_empty_is_guessed_the_build_folder_named_as_it(
    tmp_path: Path,
) -> None:
    files = {
        **_chart("orders"),
        "apps/orders/Dockerfile": DOCKERFILE,
        **service_app("apps/orders"),
        "apps/billing/Dockerfile": DOCKERFILE,
        **service_app("apps/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("apps", "orders", "server.py")
    assert row["evidence"][-1].startswith(
        "image name guess: helm/orders/templates/deployment.yaml:"
    )
    assert "the chart helm/orders leaves the image's repository empty" in row["evidence"][-1]


def test_a_chart_named_as_two_build_folders_is_no_link(tmp_path: Path) -> None:
    files = {
        **_chart("orders"),
        "v1/orders/Dockerfile": DOCKERFILE,
        **service_app("v1/orders"),
        "v2/orders/Dockerfile": DOCKERFILE,
        **service_app("v2/orders"),
    }
    assert only(links(tmp_path, files))["code"] is None


def _chart_in(service: str, chart: str = "helm-chart") -> dict[str, str]:
    """A chart kept in a service's folder, its image's URL given by the pipeline's
    `--set imageUrl=...` (`:latest` by default), the service's Dockerfile beside it."""
    template = workload(name=service, image='"{{ .Values.imageUrl }}:latest"')
    return {
        f"{service}/{chart}/Chart.yaml": f"apiVersion: v2\nname: {service}\nversion: 0.1.0\n",
        f"{service}/{chart}/values.yaml": "imageTag: latest\n",
        f"{service}/{chart}/templates/deployment.yaml": template,
    }


def test_a_chart_inside_a_service_folder_that_leaves_the_image_to_ci_guesses_that_service(
    tmp_path: Path,
) -> None:
    files = {
        **_chart_in("orders"),
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
        "billing/Dockerfile": DOCKERFILE,
        **service_app("billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("orders", "server.py")
    assert row["evidence"][-1].startswith(
        "manifest beside guess: orders/helm-chart/templates/deployment.yaml:"
    )


def test_a_chart_under_a_service_s_charts_folder_guesses_that_service(tmp_path: Path) -> None:
    files = {
        **_chart_in("orders", chart="charts/orders"),
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("orders", "server.py")


def test_a_chart_in_a_folder_without_a_dockerfile_guesses_nothing(tmp_path: Path) -> None:
    files = {**_chart_in("orders"), **service_app("orders")}
    assert only(links(tmp_path, files))["code"] is None


def test_a_chart_whose_image_is_named_guesses_nothing_from_its_place(tmp_path: Path) -> None:
    """`redis:7` in the service's chart: a store it runs, not the service's build."""
    template = workload(name="orders", image="redis:7")
    files = {
        "orders/helm-chart/Chart.yaml": "apiVersion: v2\nname: orders\nversion: 0.1.0\n",
        "orders/helm-chart/templates/deployment.yaml": template,
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- images built by a loop over services --------------------------------------------------

SHARED_GO_DOCKERFILE = """\
FROM golang:1.22 AS builder
ARG SERVICE_NAME
WORKDIR /app
COPY go.mod ./
COPY cmd/${SERVICE_NAME}/ cmd/${SERVICE_NAME}/
RUN go build -o /app/server ./cmd/${SERVICE_NAME}
FROM alpine:3.20
COPY --from=builder /app/server /server
ENTRYPOINT ["/server"]
"""
LOOP_MAKEFILE = """\
SVC ?= none
ENV ?= dev
deploy:
\t@for svc in $(SVC); do \\
\t\techo "building $$svc"; \\
\t\tdocker build -t acme/shop-$$svc:$(ENV) \\
\t\t\t--build-arg SERVICE_NAME=$$svc \\
\t\t\t-f Dockerfile .; \\
\t\tdocker push acme/shop-$$svc:$(ENV); \\
\tdone
"""


def _go_service(name: str) -> dict[str, str]:
    return {f"cmd/{name}/main.go": "package main\n\nfunc main() {}\n"}


def test_a_make_loop_over_services_the_caller_names_builds_each_image_its_name_gives(
    tmp_path: Path,
) -> None:
    """`make deploy SVC="cart orders"`: the loop's values are the caller's, and the image
    `acme/shop-orders` says which one built it: SERVICE_NAME=orders, cmd/orders."""
    files = {
        "deploy/orders.yaml": workload(name="orders", image="acme/shop-orders:staging"),
        "Makefile": LOOP_MAKEFILE,
        "Dockerfile": SHARED_GO_DOCKERFILE,
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        **_go_service("orders"),
        **_go_service("cart"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("cmd", "orders")
    assert row["evidence"][0].startswith("makefile: Makefile:4: for svc in $(SVC)")
    assert row["evidence"][0].endswith("(svc=orders)")


def test_a_build_naming_the_image_itself_wins_over_a_loop_whose_name_fits_it(
    tmp_path: Path,
) -> None:
    web = "FROM node:20 AS build\nWORKDIR /app\nCOPY ./web/ .\nRUN npm run build\n"
    web += "FROM nginx:alpine\nCOPY --from=build /app/dist /usr/share/nginx/html\n"
    web += "COPY nginx.conf /etc/nginx/conf.d/default.conf\n"
    makefile = LOOP_MAKEFILE + "ui:\n\tdocker build -t acme/shop-web:$(ENV) -f Dockerfile-ui .\n"
    files = {
        "deploy/web.yaml": workload(name="web", image="acme/shop-web:staging"),
        "Makefile": makefile,
        "Dockerfile": SHARED_GO_DOCKERFILE,
        "Dockerfile-ui": web,
        "nginx.conf": "server {}\n",
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        **_go_service("orders"),
        "web/package.json": '{"name": "web", "scripts": {"build": "vite build"}}\n',
        "web/src/main.js": "console.log('web')\n",
    }
    row = only(links(tmp_path, files))
    assert row["evidence"][0].startswith("makefile: Makefile:12: docker build -t acme/shop-web")
    # the context is the whole tree, but the Dockerfile's builder stage copies only web/
    assert row["code"] == "web"


def test_a_make_loop_over_a_literal_list_builds_each_value_from_its_folder(
    tmp_path: Path,
) -> None:
    makefile = (
        "CONTAINERS := ads-service \\\n\tdiscounts-service\n"
        "build:\n\tfor c in $(CONTAINERS); do \\\n"
        "\t\tcd $$c && docker build . -t acme/$$c:latest && cd ..; \\\n\tdone\n"
    )
    files = {
        "deploy/ads.yaml": workload(name="ads", image="acme/ads-service:2.1"),
        "Makefile": makefile,
        "ads-service/Dockerfile": DOCKERFILE,
        **service_app("ads-service"),
        "discounts-service/Dockerfile": DOCKERFILE,
        **service_app("discounts-service"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("ads-service", "server.py")
    assert row["evidence"][0].startswith("makefile: Makefile:4: for c in $(CONTAINERS)")


def test_a_script_s_loop_over_listed_folders_builds_each_one(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\nset -eu\nfor service in billing orders; do\n"
        '  docker build -t "acme/${service}:dev" "apps/${service}"\ndone\n'
    )
    files = {
        "deploy/orders.yaml": workload(name="orders", image="registry.example/acme/orders:dev"),
        "build-all.sh": script,
        "apps/orders/Dockerfile": DOCKERFILE,
        **service_app("apps/orders"),
        "apps/billing/Dockerfile": DOCKERFILE,
        **service_app("apps/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("apps", "orders", "server.py")
    assert row["evidence"][0].startswith("script: build-all.sh:4: docker build")


def test_a_loop_s_image_naming_a_folder_the_tree_lacks_is_no_build(tmp_path: Path) -> None:
    """`cd $$c` to a folder the tree does not hold: the image `acme/ads` is no loop's."""
    makefile = "C ?= none\nbuild:\n\tfor c in $(C); do cd $$c && docker build . -t acme/$$c; done\n"
    files = {
        "deploy/ads.yaml": workload(name="ads", image="acme/ads:2.1"),
        "Makefile": makefile,
        "promotions/Dockerfile": DOCKERFILE,
        **service_app("promotions"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a third party's image ---------------------------------------------------------------------


def _kafka_client_repository(build_script: str) -> dict[str, str]:
    return {
        "deploy/kafka.yaml": workload(name="kafka", image="vendor/kafka:4.1"),
        "build.sh": build_script,
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
        "pkg/messaging/kafka/client.py": "import grpc\n",
    }


def test_an_image_of_a_namespace_no_build_pushes_to_is_not_linked_by_its_name(
    tmp_path: Path,
) -> None:
    """Every build pushes to `acme/...`: `vendor/kafka` is a broker's stock image, not the
    repository's Kafka client package named as it is."""
    files = _kafka_client_repository("docker build -t acme/orders:1 orders\n")
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_of_the_namespace_the_builds_push_to_is_linked_by_its_name(
    tmp_path: Path,
) -> None:
    files = _kafka_client_repository("docker build -t registry.example/vendor/orders:1 orders\n")
    assert only(links(tmp_path, files))["code"] == os.path.join("pkg", "messaging", "kafka")


def test_a_vendored_library_s_build_says_nothing_of_where_the_repository_pushes(
    tmp_path: Path,
) -> None:
    """A Go service's `vendor/` copy of a library whose Makefile builds `gohttp2/curl`: the
    library's image, not the repository's; `gcr.io/acme/shop-orders` is guessed `orders/`."""
    library = "orders/vendor/golang.org/x/net/http2"
    files = {
        "deploy/orders.yaml": workload(name="orders", image="gcr.io/acme/shop-orders:v1"),
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
        f"{library}/Makefile": "curl:\n\tdocker build -t gohttp2/curl .\n",
        f"{library}/Dockerfile": "FROM ubuntu\n",
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("orders", "server.py")


# -- ko's images of Go packages ------------------------------------------------------------


def _ko_repository(image: str) -> dict[str, str]:
    files = {"deploy/agenda.yaml": workload(name="agenda", image=image)}
    for name in ("agenda", "agenda-v2"):
        files[f"{name}/go.mod"] = f"module example.com/conf/{name}\n\ngo 1.22\n"
        files[f"{name}/main.go"] = "package main\n\nfunc main() {}\n"
    files["tools/agenda/go.mod"] = "module example.com/tools/agenda\n\ngo 1.22\n"
    files["tools/agenda/main.go"] = "package main\n\nfunc main() {}\n"
    return files


def test_ko_s_image_named_with_the_md5_of_an_import_path_runs_that_go_package(
    tmp_path: Path,
) -> None:
    """ko pushes `example.com/conf/agenda` as `<repo>/agenda-<md5 of the path>`: of the two
    folders named `agenda`, the one whose import path has that digest."""
    digest = hashlib.md5(b"example.com/conf/agenda").hexdigest()
    row = only(links(tmp_path, _ko_repository(f"registry.example/conf/agenda-{digest}:v1")))
    assert row["code"] == "agenda"
    assert row["evidence"][0].endswith("(ko's image of the Go package example.com/conf/agenda)")


def test_a_ko_reference_runs_the_go_package_of_its_import_path(tmp_path: Path) -> None:
    row = only(links(tmp_path, _ko_repository("ko://example.com/tools/agenda")))
    assert row["code"] == os.path.join("tools", "agenda")
    assert len(row["evidence"]) == 1


def test_a_ko_like_name_whose_digest_is_no_package_s_is_not_linked_by_it(tmp_path: Path) -> None:
    digest = hashlib.md5(b"example.com/elsewhere/agenda").hexdigest()
    row = only(links(tmp_path, _ko_repository(f"registry.example/conf/agenda-{digest}:v1")))
    assert row["code"] is None


PARAMETER_MAKEFILE = """\
VERSION := $(shell git describe --tags)
docker-build: ## make docker-build BIN=user
\tdocker build -f cmd/$(BIN)/Dockerfile --build-arg BIN=$(BIN) -t shop-$(BIN) .
"""
PARAMETER_DOCKERFILE = """\
FROM golang:1.22 AS build
ARG BIN
WORKDIR /app
COPY go.mod ./
COPY cmd/"$BIN" cmd/"$BIN"
RUN go build -o /bin/app ./cmd/$BIN
FROM alpine:3.20
COPY --from=build /bin/app /app
ENTRYPOINT ["/app"]
"""


def _parameter_repository(image: str) -> dict[str, str]:
    files = {
        "deploy/user.yaml": workload(name="user", image=image),
        "Makefile": PARAMETER_MAKEFILE,
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
    }
    for name in ("user", "auth"):
        files[f"cmd/{name}/Dockerfile"] = PARAMETER_DOCKERFILE
        files.update(_go_service(name))
    return files


def test_a_make_build_over_a_variable_the_caller_gives_builds_the_image_its_name_gives(
    tmp_path: Path,
) -> None:
    """`make docker-build BIN=user` builds `shop-user` from cmd/user/Dockerfile with
    BIN=user: the image `shop-user` says which value it was built with."""
    row = only(links(tmp_path, _parameter_repository("registry.example/shop-user:1")))
    assert row["code"] == os.path.join("cmd", "user")
    assert row["evidence"][0].startswith("makefile: Makefile:3: docker build -f cmd/$(BIN)/")
    assert row["evidence"][0].endswith("(BIN=user)")


def test_a_parameter_s_build_naming_a_dockerfile_the_tree_lacks_is_no_evidence(
    tmp_path: Path,
) -> None:
    row = only(links(tmp_path, _parameter_repository("registry.example/shop-billing:1")))
    assert not any(e.startswith("makefile:") for e in row["evidence"])


def test_a_compose_file_s_local_image_names_no_namespace_the_repository_pushes_to(
    tmp_path: Path,
) -> None:
    """compose's `shop/orders` is a developer's local image: the manifests' images of
    another registry and namespace are still linked by their names."""
    files = {
        "deploy/orders.yaml": workload(name="orders", image="registry.example/team/shop-orders:2"),
        "compose.yaml": "services:\n  orders:\n    image: shop/orders\n    build: ./orders\n",
        "orders/Dockerfile": DOCKERFILE,
        **service_app("orders"),
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("orders", "server.py")


def _role_repository(image: str) -> dict[str, str]:
    return {
        "deploy/ads.yaml": workload(name="ads", image=image),
        "ads/build.sh": "docker build -t acme/promotions:latest .\n",
        "ads/Dockerfile": DOCKERFILE,
        **service_app("ads"),
        "billing/Dockerfile": DOCKERFILE,
        **service_app("billing"),
    }


def test_an_image_named_as_a_build_s_but_for_a_role_suffix_is_guessed_to_be_its_build(
    tmp_path: Path,
) -> None:
    """`acme/promotions-service` is run, ads/ builds `acme/promotions`: a guess, by names."""
    row = only(links(tmp_path, _role_repository("acme/promotions-service:1")))
    assert row["code"] == os.path.join("ads", "server.py")
    assert row["evidence"][-1].endswith(
        "(a guess: ads builds acme/promotions, its name but for a role suffix)"
    )


def test_a_role_suffix_guess_needs_the_build_s_namespace(tmp_path: Path) -> None:
    row = only(links(tmp_path, _role_repository("vendor/promotions-service:1")))
    assert row["code"] is None


def test_a_knative_service_s_probes_without_a_port_are_no_error_and_it_is_not_judged(
    tmp_path: Path,
) -> None:
    """Knative fills in a probe's port and drains its pods through its own proxy: the
    manifest is no KLB002, and the rules judge no Knative Service."""
    probe = "          readinessProbe: {httpGet: {path: /ready}}\n"
    files = {"deploy/inventory-knative.yaml": KNATIVE + probe}
    result = lint_files(tmp_path, files)
    assert result.findings == []
    assert result.unknown_kinds == 0
    assert [row.container for row in result.links] == ["Service/shop/inventory:server"]


BRANCHED_MAKEFILE = """\
REGISTRY ?= registry.example/shop
APPS := gateway billing ledger

images:
\t@for app in $(APPS); do \\
\t\tif [ "$$app" = "gateway" ]; then \\
\t\t\tdocker build -t $(REGISTRY)/$$app:dev -f gateway/Dockerfile . ; \\
\t\telse \\
\t\t\tdocker build -t $(REGISTRY)/$$app:dev -f apps/$$app/Dockerfile . ; \\
\t\tfi; \\
\tdone
"""


def _branched_tree(makefile: str) -> dict[str, str]:
    return {
        "deploy/ledger.yaml": workload(name="ledger", image="registry.example/shop/ledger:dev"),
        "Makefile": makefile,
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "gateway/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /gateway ./gateway\nCMD ["/gateway"]\n',
        "gateway/main.go": "package main\n\nfunc main() {}\n",
        "apps/ledger/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /ledger ./apps/ledger\nCMD ["/ledger"]\n',
        "apps/ledger/main.go": "package main\n\nfunc main() {}\n",
        "apps/billing/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /billing ./apps/billing\nCMD ["/billing"]\n',
        "apps/billing/main.go": "package main\n\nfunc main() {}\n",
    }


def test_a_make_loop_s_if_else_builds_each_value_by_the_branch_its_test_takes(
    tmp_path: Path,
) -> None:
    """`if [ "$$app" = "gateway" ]; then ... -f gateway/Dockerfile; else ... -f
    apps/$$app/Dockerfile; fi` in a loop over literal names: ledger is built by the else
    branch, not by the first `docker build` of the line."""
    row = only(links(tmp_path, _branched_tree(BRANCHED_MAKEFILE)))
    assert row["code"] == os.path.join("apps", "ledger")
    assert "gateway" not in row["code"]


def test_a_script_s_case_on_the_loop_value_builds_each_value_by_its_arm(tmp_path: Path) -> None:
    script = (
        '#!/bin/sh\nfor app in gateway billing ledger; do\n  case "$app" in\n'
        "    gateway)\n"
        "      docker build -t registry.example/shop/$app:dev -f gateway/Dockerfile .\n"
        "      ;;\n    *)\n"
        "      docker build -t registry.example/shop/$app:dev -f apps/$app/Dockerfile .\n"
        "      ;;\n  esac\ndone\n"
    )
    files = _branched_tree("")
    del files["Makefile"]
    files["images.sh"] = script
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("apps", "ledger")


def test_a_branch_whose_test_is_not_known_here_links_neither_of_its_builds(
    tmp_path: Path,
) -> None:
    """`if [ "$$MODE" = "gateway" ]`, MODE given by the caller: which Dockerfile builds
    ledger is not known, and neither is taken (nor the first, as before)."""
    makefile = BRANCHED_MAKEFILE.replace('"$$app" = "gateway"', '"$$MODE" = "gateway"')
    rows = links(tmp_path, _branched_tree(makefile))
    assert all("gateway" not in (row["code"] or "") for row in rows)
    assert all(not row["evidence"] or "makefile" not in row["evidence"][0] for row in rows)


def test_a_make_default_the_caller_replaces_settles_no_branch() -> None:
    """`MODE ?= local`: `make image MODE=release` is as likely, so neither branch's build is
    taken; `MODE := local`, set for good, takes the else branch's."""
    from k8slb.reading.build_files import script_builds

    recipe = (
        'image:\n\tif [ "$(MODE)" = "release" ]; then \\\n'
        "\t\tdocker build -t acme/api -f release.Dockerfile . ; \\\n"
        "\telse docker build -t acme/api -f Dockerfile . ; fi\n"
    )
    assert script_builds("Makefile", "MODE ?= local\n" + recipe) == []
    [build] = script_builds("Makefile", "MODE := local\n" + recipe)
    assert build.dockerfile == "Dockerfile"
