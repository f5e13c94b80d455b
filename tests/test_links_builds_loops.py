"""The code <-> container link where images are built by CI steps whose registry is a
secret, by loops over services, by `docker image build`, and run by a Knative Service."""

from __future__ import annotations

import os
from pathlib import Path

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
