"""A container whose image no build of the tree makes, beside one whose image a build makes
from the folder its manifest sits in: the folder's Dockerfile makes one image, the other
container's, so a name that shares a word with the folder links the second to nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_links import links

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ledger, namespace: shop}}
spec:
  selector: {{matchLabels: {{app: ledger}}}}
  template:
    metadata: {{labels: {{app: ledger}}}}
    spec:
      containers:
        - name: ledger
          image: {owner}/ledger:latest
          ports: [{{containerPort: 8080}}]
        - name: ledger-exporter
          image: metricsfolk/ledger-exporter:0.11.0
          ports: [{{containerPort: 9216}}]
"""
# the CI's registry user is a secret: where the build pushes is not known here
WORKFLOW = """\
on: push
jobs:
  images:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Build and push - ledger
        uses: docker/build-push-action@v6
        with:
          context: ./{folder}
          push: true
          tags: ${{{{ secrets.REGISTRY_USER }}}}/ledger:latest
"""
SERVICE = {
    "Dockerfile": 'FROM node:20-alpine\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n',
    "server.js": "const http = require('http');\nhttp.createServer(() => {}).listen(8080);\n",
    "seed/fill.js": "module.exports = () => 1;\n",
}


@pytest.mark.parametrize(
    "folder", ["ledger", "deploy/ledger"], ids=["manifest-beside", "service-folder"]
)
def test_a_sidecar_s_public_image_takes_no_link_from_the_folder_another_image_is_built_from(
    tmp_path: Path, folder: str
) -> None:
    """ledger/ holds its Dockerfile, its code and the pod's manifest; CI builds ledger/
    as `<secret user>/ledger`. The exporter beside it runs `metricsfolk/ledger-exporter`,
    which nothing here builds: sharing the word `ledger` with the folder makes it no image
    of that Dockerfile, whose one image is the ledger container's."""
    manifest = f"{folder}/ledger.yaml" if folder == "ledger" else f"{folder}/k8s/ledger.yaml"
    files = {
        manifest: POD.format(owner="acme"),
        ".github/workflows/images.yml": WORKFLOW.format(folder=folder),
        **{f"{folder}/{name}": text for name, text in SERVICE.items()},
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    assert rows["Deployment/shop/ledger:ledger"]["code"] == os.path.join(folder, "server.js")
    assert rows["Deployment/shop/ledger:ledger-exporter"]["code"] is None


def test_with_no_build_of_the_folder_the_manifest_beside_its_dockerfile_is_still_a_guess(
    tmp_path: Path,
) -> None:
    """Nothing here says which image ledger/ is built as: the exporter's manifest beside
    the folder's Dockerfile, sharing its word, stays the guess it was (said as one)."""
    files = {
        "ledger/ledger.yaml": POD.format(owner="acme"),
        **{f"ledger/{name}": text for name, text in SERVICE.items()},
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    row = rows["Deployment/shop/ledger:ledger-exporter"]
    assert row["code"] == os.path.join("ledger", "server.js")
    assert any(e.startswith("manifest beside guess: ledger/ledger.yaml:") for e in row["evidence"])


def test_a_documented_build_s_name_is_the_reader_s_to_choose_and_refuses_no_guess(
    tmp_path: Path,
) -> None:
    """The README builds ledger/ as `<your_repo>/ledger-job` and asks the reader to put
    that name in the manifest, which runs `someone/ledger-cleanup:1.0`: a name a page
    suggests is no build that makes the folder another image."""
    readme = (
        "## Build\n\n```\ncd ledger\ndocker build -t <your_repo>/ledger-job:1.0 .\n"
        "docker push <your_repo>/ledger-job:1.0\n```\n\nThen set the image in ledger.yaml.\n"
    )
    files = {
        "ledger/ledger.yaml": POD.format(owner="acme").replace(
            "metricsfolk/ledger-exporter:0.11.0", "someone/ledger-cleanup:1.0"
        ),
        "README.md": readme,
        **{f"ledger/{name}": text for name, text in SERVICE.items()},
    }
    rows = {row["container"]: row for row in links(tmp_path, files)}
    assert rows["Deployment/shop/ledger:ledger-exporter"]["code"] == os.path.join(
        "ledger", "server.js"
    )
