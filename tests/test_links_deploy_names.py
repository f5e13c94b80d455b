"""Links from what names a deployed program besides its image, each weaker than a build of
the image and said so in `explain-links`: a compose service named as the workload or the
container, whose build context is that program's when the image links nothing."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from k8slb.model.links import Evidence, Link
from k8slb.reading.build_files import Said, compose_builds

from tests.test_links import DOCKERFILE, links, only, service_app, workload

PORTS = "          ports: [{containerPort: 7070, name: grpc}]\n"
COMPOSE = """\
services:
  flights:
    build:
      context: ./svc-a
    ports: ["7070:7070"]
  hotels:
    build: ./svc-b
    ports: ["7071:7070"]
"""


def _two_services() -> dict[str, str]:
    return {
        "docker-compose.yml": COMPOSE,
        "svc-a/Dockerfile": DOCKERFILE,
        **service_app("svc-a"),
        "svc-b/Dockerfile": DOCKERFILE,
        **service_app("svc-b"),
    }


def test_a_compose_service_named_as_the_workload_links_an_image_nothing_builds(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/flights.yaml": workload(name="flights", image="booking-a:v1", extra=PORTS),
        **_two_services(),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc-a", "server.py")
    (named,) = [e for e in row["evidence"] if e.startswith("compose service:")]
    assert named.startswith("compose service: docker-compose.yml:2: flights:")
    assert "named as the workload" in named and "weaker than a build of it" in named


def test_a_compose_service_named_as_the_container_links_it_too(tmp_path: Path) -> None:
    manifest = workload(name="lodging", image="booking-b:v1", extra=PORTS)
    files = {
        "k8s/lodging.yaml": manifest.replace("- name: server", "- name: hotels"),
        **_two_services(),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc-b", "server.py")
    assert any("named as the container" in e for e in row["evidence"])


def test_a_compose_service_publishing_other_ports_than_the_container_s_is_no_evidence(
    tmp_path: Path,
) -> None:
    """A stock image run under a built service's name (an nginx `flights` on port 80)."""
    other = PORTS.replace("7070", "80")
    files = {
        "k8s/flights.yaml": workload(name="flights", image="booking-a:v1", extra=other),
        **_two_services(),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_its_build_names_is_linked_by_the_build_not_by_the_service_s_name(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/flights.yaml": workload(name="flights", image="booking-b:v1", extra=PORTS),
        **_two_services(),
        "Makefile": "images:\n\tdocker build -t booking-b:v1 svc-b\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc-b", "server.py")
    assert not any(e.startswith("compose service:") for e in row["evidence"])


def test_two_compose_services_of_the_name_building_two_folders_link_neither(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/flights.yaml": workload(name="flights", image="booking-a:v1", extra=PORTS),
        **_two_services(),
        "dev/docker-compose.yml": COMPOSE.replace("./svc-a", "../svc-b"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_compose_keeps_each_built_service_s_name_and_published_container_ports() -> None:
    text = COMPOSE + (
        "  web:\n    image: acme/web:1\n    build: ./web\n"
        "    ports: ['127.0.0.1:8080:80/tcp', {target: 443, published: 8443}, '${PORT}:81']\n"
    )
    builds = compose_builds("docker-compose.yml", text)
    assert [(b.image, b.service, b.ports) for b in builds] == [
        ("", "flights", (7070,)),
        ("", "hotels", (7070,)),
        ("acme/web", "web", (80, 443, 81)),
    ]


def test_compose_writes_a_variable_s_default_where_nothing_sets_it() -> None:
    """`${ORDERS_IMAGE:-orders_backend}`: the image compose tags when the variable is
    not set, as it is for a context written so; a variable with no default stays unread,
    and so does one inside a name (the registry the deploy pushes to)."""
    text = (
        "services:\n"
        "  orders:\n    image: ${ORDERS_IMAGE:-shop/orders_backend}\n"
        "    build: {context: '${ORDERS_SRC-../services/orders}'}\n"
        "  billing:\n    image: ${BILLING_IMAGE}\n    build: ../services/billing\n"
        "  web:\n    image: ${REGISTRY:-shop}/web\n    build: ../services/web\n"
    )
    builds = compose_builds("deploy/docker-compose.yml", text)
    assert [(b.image, b.service, b.context) for b in builds] == [
        ("shop/orders_backend", "orders", os.path.join("services", "orders"))
    ]


def _empty_image_chart(name: str) -> dict[str, str]:
    """A chart whose Deployment's image the values leave empty, as the deploy sets it
    (`image: {{ .Values.image }}`, rendered `image:` with no value)."""
    return {
        "helm/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "helm/shop/values.yaml": 'image: ""\n',
        f"helm/shop/templates/{name}.yaml": workload(name=name, image="{{ .Values.image }}"),
    }


def test_an_empty_image_is_guessed_the_folder_the_compose_service_named_as_its_workload_builds(
    tmp_path: Path,
) -> None:
    """A guess from the names alone, said as one: with no image there is nothing to
    weigh the build against, so what the link implies is lowered (Link.guessed)."""
    compose = (
        "services:\n"
        "  orders-backend:\n    image: ${ORDERS_IMAGE:-orders_backend}\n"
        "    build: {context: ../services/orders}\n"
        "  billing-backend:\n    image: ${BILLING_IMAGE:-billing_backend}\n"
        "    build: {context: ../services/billing}\n"
    )
    files = {
        **_empty_image_chart("orders-backend"),
        "deploy/docker-compose.yml": compose,
        "services/orders/Dockerfile": DOCKERFILE,
        **service_app("services/orders"),
        "services/billing/Dockerfile": DOCKERFILE,
        **service_app("services/billing"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "orders", "server.py")
    (guess,) = [e for e in row["evidence"] if e.startswith("compose service guess:")]
    assert "the compose service orders-backend, named as the workload" in guess
    assert "leaves the image's name empty" in guess
    said = Said("deploy/docker-compose.yml", 2, "orders-backend:")
    evidence = (Evidence("compose service guess", said, "services/orders"),)
    assert Link.guessed.fget(SimpleNamespace(evidence=evidence))  # type: ignore[attr-defined]


def test_a_chart_named_as_a_folder_of_several_images_dockerfiles_guesses_none_of_them(
    tmp_path: Path,
) -> None:
    """`images/shop/` holding `api.Dockerfile` and `worker.Dockerfile`: the chart's name
    says not which of the two images a container whose image is left empty runs."""
    template = workload(name="shop", image='"{{ .Values.image.repository }}:latest"')
    files = {
        "helm/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "helm/shop/values.yaml": 'image:\n  repository: ""\n',
        "helm/shop/templates/deployment.yaml": template,
        "images/shop/api.Dockerfile": DOCKERFILE,
        "images/shop/worker.Dockerfile": DOCKERFILE.replace("server.py", "worker.py"),
        **service_app("images/shop"),
        "images/shop/worker.py": "import grpc\n",
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a chart's image set at deploy time by a script -------------------------------------------

CHART = {
    "deploy/chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "deploy/chart/values.yaml": "image: {repository: acme/orders, tag: '1'}\n",
    "deploy/chart/templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-app
  labels: {release: {{ .Release.Name }}}
spec:
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
""",
    "deploy/helmfile.yaml": """\
releases:
  - name: billing
    chart: ./chart
  - name: orders
    chart: ./chart
""",
}
DEPLOY_SCRIPT = """\
#!/bin/bash
set -e
DIR="$(cd "$(dirname "$0")" && pwd)"
deploy () {
  repository=$(jq -r .image "$DIR/../services/$1/dist/build.json")
  helm upgrade --install "$1" "$DIR/chart" --set image.repository=$repository
}
deploy billing
deploy orders
"""


def _releases(script: str) -> dict[str, str]:
    return {
        **CHART,
        "deploy/deploy.sh": script,
        "services/orders/Dockerfile": DOCKERFILE,
        **service_app("services/orders"),
        "services/billing/Dockerfile": DOCKERFILE,
        **service_app("services/billing"),
    }


def test_a_release_whose_image_a_script_sets_at_deploy_time_is_not_linked_by_the_chart_s_default(
    tmp_path: Path,
) -> None:
    rows = {r["container"]: r for r in links(tmp_path, _releases(DEPLOY_SCRIPT))}
    billing = rows["Deployment/default/billing-app:app"]
    assert billing["code"] is None
    assert billing["why_not"].startswith("deploy/deploy.sh:6: `helm upgrade --install")
    assert "sets the image of the chart at deploy time" in billing["why_not"]
    # the release named as the chart's default image runs its own build of it
    orders = rows["Deployment/default/orders-app:app"]
    assert orders["code"] == os.path.join("services", "orders", "server.py")
    said = "deploy/deploy.sh:6 sets it at deploy time: the chart's default, named as the release"
    assert any(said + " orders" in e for e in orders["evidence"])


def test_the_image_a_script_sets_is_linked_when_its_name_is_written(tmp_path: Path) -> None:
    script = DEPLOY_SCRIPT.replace("=$repository", "=$REGISTRY/$1").replace(
        "deploy billing\n",
        'helm upgrade --install billing "$DIR/chart" --set image.repository=$REGISTRY/billing\n',
    )
    rows = {r["container"]: r for r in links(tmp_path, _releases(script))}
    billing = rows["Deployment/default/billing-app:app"]
    assert billing["code"] == os.path.join("services", "billing", "server.py")
    said = "deploy/deploy.sh:8 sets it at deploy time: the image it names"
    assert any(said in e for e in billing["evidence"])


def test_a_script_that_sets_another_chart_s_image_changes_no_link(tmp_path: Path) -> None:
    script = DEPLOY_SCRIPT.replace('"$DIR/chart"', '"$DIR/other-chart"')
    rows = {r["container"]: r for r in links(tmp_path, _releases(script))}
    assert rows["Deployment/default/billing-app:app"]["code"] == os.path.join(
        "services", "orders", "server.py"
    )


PREFIXED_CHART = {
    "deploy/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "deploy/shop/values.yaml": "image: {repository: acme, tag: latest}\n",
    "deploy/shop/templates/orders.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: "{{ .Values.image.repository }}/orders:{{ .Values.image.tag }}"
""",
    "services/orders/Dockerfile": DOCKERFILE,
    **service_app("services/orders"),
}
PREFIX_SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
ENVIRONMENT=$1
IMAGE_OWNER=${2:-acme}  # where the images are pushed

helm upgrade --install shop ./deploy/shop \\
  --namespace "$ENVIRONMENT" \\
  --set image.repository=${IMAGE_OWNER} \\
  --set image.tag=dev
echo "IMAGE_OWNER=${IMAGE_OWNER}"
"""


@pytest.mark.parametrize(
    ("script", "linked"),
    [
        (PREFIX_SCRIPT, True),
        # the default written in the `--set` itself
        (PREFIX_SCRIPT.replace("=${IMAGE_OWNER} ", "=${IMAGE_OWNER:-acme} "), True),
        (PREFIX_SCRIPT.replace("${2:-acme}", "acme"), True),
        # another owner's images, not the chart's
        (PREFIX_SCRIPT.replace("${2:-acme}", "${2:-acme-dev}"), False),
        # set again by an option: what runs is not known
        (PREFIX_SCRIPT + 'if [ -n "${3:-}" ]; then IMAGE_OWNER=$3; fi\n', False),
        # no default
        (PREFIX_SCRIPT.replace("${2:-acme}", "$2"), False),
    ],
    ids=["assigned-default", "default-in-set", "literal", "other", "set-twice", "none"],
)
def test_a_script_s_image_set_whose_default_is_the_chart_s_own_keeps_its_image(
    tmp_path: Path, script: str, linked: bool
) -> None:
    """`--set image.repository=${OWNER}` with `OWNER=${2:-acme}`, the chart's own
    `acme`: run with nothing given, the script deploys the chart's image, which links;
    a variable with another default, none, or set again leaves it unknown."""
    row = only(links(tmp_path, {**PREFIXED_CHART, "deploy.sh": script}))
    if not linked:
        assert row["code"] is None
        assert "sets the image of the chart at deploy time" in row["why_not"]
        return
    assert row["code"] == os.path.join("services", "orders", "server.py")
    said = "deploy.sh:8 sets it at deploy time: the value its variable has unless given one"
    assert any(said in e for e in row["evidence"])


# -- an image named after the repository, its tag naming a folder -----------------------------

GO_DOCKERFILE = """\
FROM golang:1.22 AS builder
WORKDIR /app
COPY . .
RUN go build -o {name} .
FROM gcr.io/distroless/base-debian12
COPY --from=builder /app/{name} /{name}
ENTRYPOINT ["/{name}"]
"""
GO_MAIN = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n'


def _go_program(folder: str, module: str) -> dict[str, str]:
    name = folder.rsplit("/", 1)[-1]
    return {
        f"{folder}/go.mod": f"module {module}\n\ngo 1.22\n",
        f"{folder}/main.go": GO_MAIN,
        f"{folder}/Dockerfile": GO_DOCKERFILE.format(name=name),
    }


def test_an_image_named_after_the_repository_runs_the_folder_its_tag_names(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/client.yaml": workload(name="client", image="docker.io/acme/mesh-demo:client"),
        **_go_program("client", "github.com/acme/mesh-demo/client"),
        **_go_program("server", "github.com/acme/mesh-demo/server"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "client"
    (guess,) = [e for e in row["evidence"] if e.startswith("image name guess:")]
    assert "a guess: its tag names client" in guess
    assert (
        "mesh-demo is the repository's name in the module github.com/acme/mesh-demo/client" in guess
    )


def test_a_stock_image_s_tag_naming_a_folder_is_no_evidence(tmp_path: Path) -> None:
    """`redis:alpine` is no build of the repository's `alpine/`: its module is not named so."""
    files = {
        "deploy/cache.yaml": workload(name="cache", image="redis:alpine"),
        **_go_program("alpine", "github.com/acme/mesh-demo/alpine"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_tag_naming_two_folders_with_a_dockerfile_links_neither(tmp_path: Path) -> None:
    files = {
        "deploy/client.yaml": workload(name="client", image="acme/mesh-demo:client"),
        **_go_program("client", "github.com/acme/mesh-demo/client"),
        **_go_program("v2/client", "github.com/acme/mesh-demo/v2/client"),
    }
    assert only(links(tmp_path, files))["code"] is None


# -- a server's image named as the gRPC service its code registers ----------------------------

GO_SERVER = """\
package main

import (
\t"net"

\tpb "github.com/acme/pay/proto"
\t"google.golang.org/grpc"
)

type server struct{ pb.UnimplementedPaymentsServiceServer }

func main() {
\tlis, _ := net.Listen("tcp", ":50051")
\ts := grpc.NewServer()
\tpb.RegisterPaymentsServiceServer(s, &server{})
\ts.Serve(lis)
}
"""
GO_CLIENT = """\
package main

import (
\tpb "github.com/acme/pay/proto"
\t"google.golang.org/grpc"
)

func main() {
\tconn, _ := grpc.Dial("payments:50051")
\tpb.NewPaymentsServiceClient(conn)
}
"""
SERVER_PORT = "          ports: [{containerPort: 50051}]\n"


def _payments(port: str = SERVER_PORT) -> dict[str, str]:
    return {
        "deploy/payments.yaml": workload(name="payments", image="acme/payments:v1", extra=port),
        "server/go.mod": "module github.com/acme/pay/server\n",
        "server/main.go": GO_SERVER,
        "server/Dockerfile": GO_DOCKERFILE.format(name="server"),
        "client/go.mod": "module github.com/acme/pay/client\n",
        "client/main.go": GO_CLIENT,
        "client/Dockerfile": GO_DOCKERFILE.format(name="client"),
    }


def test_a_server_s_image_named_as_the_grpc_service_one_build_folder_serves_runs_it(
    tmp_path: Path,
) -> None:
    row = only(links(tmp_path, _payments()))
    assert row["code"] == "server"
    (guess,) = [e for e in row["evidence"] if e.startswith("image name guess:")]
    assert (
        "server is the one build folder whose code serves the gRPC service PaymentsService" in guess
    )


def test_a_python_servicer_named_as_the_image_less_its_role_suffix_links_it(
    tmp_path: Path,
) -> None:
    servicer = (
        "import grpc\nimport ledger_pb2_grpc\n\n\ndef serve():\n"
        "    server = grpc.server(None)\n"
        "    ledger_pb2_grpc.add_LedgerServicer_to_server(object(), server)\n"
        '    server.add_insecure_port("[::]:7070")\n    server.start()\n'
    )
    files = {
        "deploy/ledger.yaml": workload(name="ledger", image="acme/ledger-svc:2", extra=PORTS),
        "core/server.py": servicer,
        "core/Dockerfile": DOCKERFILE,
        **service_app("reports"),
        "reports/Dockerfile": DOCKERFILE,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("core", "server.py")
    assert any("serves the gRPC service Ledger, named as the image" in e for e in row["evidence"])


def test_a_container_on_other_ports_than_the_service_s_code_listens_on_is_not_linked_to_it(
    tmp_path: Path,
) -> None:
    """A stock store named as the service that wraps it, on the store's port."""
    row = only(links(tmp_path, _payments(SERVER_PORT.replace("50051", "6379"))))
    assert row["code"] is None


def test_two_build_folders_serving_the_service_link_neither(tmp_path: Path) -> None:
    files = {
        **_payments(),
        "server-v2/main.go": GO_SERVER,
        "server-v2/Dockerfile": GO_DOCKERFILE.format(name="server"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_compose_service_that_builds_on_the_container_s_stock_image_is_no_evidence(
    tmp_path: Path,
) -> None:
    """The container runs the stock gateway; compose adds its configuration to it."""
    files = {
        "k8s/gateway.yaml": workload(name="gateway", image="vendor/gateway:3", extra=PORTS),
        "docker-compose.yml": "services:\n  gateway:\n    build: ./config/gateway\n",
        "config/gateway/Dockerfile": "FROM vendor/gateway:3\nCOPY . /etc/gateway\n",
        **service_app("config/gateway"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_compose_service_the_image_s_name_ends_with_links_it(tmp_path: Path) -> None:
    """`acme/travel-grpc-hotels` run as `lodging`: compose's `grpc-hotels` builds svc-b."""
    compose = COMPOSE.replace("  flights:", "  grpc-flights:").replace(
        "  hotels:", "  grpc-hotels:"
    )
    files = {
        "k8s/lodging.yaml": workload(name="lodging", image="acme/travel-grpc-hotels:v1"),
        **_two_services(),
        "docker-compose.yml": compose,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc-b", "server.py")
    assert any("named as the image's name ends" in e for e in row["evidence"])


def test_a_one_word_compose_service_the_image_s_name_ends_with_is_no_evidence(
    tmp_path: Path,
) -> None:
    """`hotels` alone, the last word of `acme/travel-hotels`, is too common a word to say
    which service (a role, a product) where no name of the workload says it too."""
    files = {
        "k8s/lodging.yaml": workload(name="lodging", image="acme/travel-hotels:v1"),
        **_two_services(),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_an_own_image_named_as_the_container_links_its_service_whatever_port_it_gives(
    tmp_path: Path,
) -> None:
    """`acme/hotels-grpc` run as container `hotels` on another port than compose publishes
    (a manifest's copied port): the image is the service's own, not a stock one run under
    its name, so the port is no sign of another program."""
    manifest = workload(name="lodging", image="acme/hotels-grpc:v1", extra=PORTS)
    files = {
        "k8s/lodging.yaml": manifest.replace("- name: server", "- name: hotels"),
        **_two_services(),
        "docker-compose.yml": COMPOSE.replace('"7071:7070"', '"7072:7072"'),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("svc-b", "server.py")
    assert any("named as the container" in e for e in row["evidence"])


def test_an_own_image_named_as_the_container_links_the_service_building_its_folder(
    tmp_path: Path,
) -> None:
    """Compose's service `payments` builds ./payment; container `payment` runs
    `acme/payment-grpc`: the service whose folder is named as the container."""
    manifest = workload(name="payment", image="acme/payment-grpc", extra=PORTS)
    files = {
        "k8s/payment.yaml": manifest.replace("- name: server", "- name: payment"),
        "docker-compose.yml": "services:\n  payments:\n    build: ./payment\n"
        '    ports: ["7075:7075"]\n',
        "payment/Dockerfile": DOCKERFILE,
        **service_app("payment"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("payment", "server.py")
    assert any("named as the container by the folder it builds" in e for e in row["evidence"])


def test_an_image_not_named_as_the_container_on_other_ports_is_still_no_evidence(
    tmp_path: Path,
) -> None:
    """`acme/edge` run as container `hotels` on port 80: nothing says it is the service's
    own build, so compose's other port keeps it apart."""
    manifest = workload(name="lodging", image="acme/edge:v1", extra=PORTS.replace("7070", "80"))
    files = {
        "k8s/lodging.yaml": manifest.replace("- name: server", "- name: hotels"),
        **_two_services(),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_third_party_s_image_run_under_a_compose_service_s_name_is_not_its_build(
    tmp_path: Path,
) -> None:
    """A log shipper from its vendor's namespace (`logvendor/shipper-k8s-daemonset`), run
    as `shipper`, where compose builds a `shipper` of its own on the vendor's other image
    (`FROM logvendor/shipper`) and the repository's builds push to `acme/`: the container
    runs the vendor's image."""
    files = {
        "k8s/shipper.yaml": workload(
            name="shipper", image="logvendor/shipper-k8s-daemonset:v2-elastic"
        ).replace("- name: server", "- name: shipper"),
        "docker-compose.yml": "services:\n  shipper:\n    build: ./ops/shipper\n",
        "ops/shipper/Dockerfile": "FROM logvendor/shipper:1.16\nCOPY conf /etc/shipper\n",
        **service_app("ops/shipper"),
        "k8s/web.yaml": workload(name="web", image="acme/web:1"),
        "Makefile": "images:\n\tdocker build -t acme/web:1 web\n",
        "web/Dockerfile": DOCKERFILE,
        **service_app("web"),
    }
    code = {
        row["container"].split(":")[0].split("/")[-1]: row["code"] for row in links(tmp_path, files)
    }
    assert code == {"shipper": None, "web": os.path.join("web", "server.py")}
