"""A Node service's image named as its package.json names the package (`ferry-gateway`,
`@ferry/ferry-gateway`), built from that folder's Dockerfile, whatever the folder is
called (`edge/`): the package's declared name is the program's, as a go.mod's module
is, and says more than a folder that only shares a word of it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_links import links, only, workload

SERVER = """\
const http = require("http");

const server = http.createServer((req, res) => res.end("ok"));
server.listen(4000);
process.on("SIGTERM", () => server.close());
"""

DOCKERFILE = """\
FROM node:20-alpine
WORKDIR /usr/src/app
COPY package.json .
RUN npm install --omit=dev
COPY server.js .
CMD [ "node", "server.js" ]
"""


def package(name: str) -> str:
    return json.dumps({"name": name, "version": "2.3.1", "main": "server.js"}, indent=2)


def tree(name: str = "ferry-gateway") -> dict[str, str]:
    return {
        "k8s/gateway/base/gateway.yaml": workload(
            name="gateway", image="ferrydemo/ferry-gateway:latest"
        ),
        "k8s/gateway/base/kustomization.yaml": "resources:\n  - gateway.yaml\n",
        # an old target, of a folder the tree no longer holds
        "Makefile": "docker-build-gateway:\n\tdocker build -t ferry_gateway gateway/. --no-cache\n",
        "edge/package.json": package(name),
        "edge/Dockerfile": DOCKERFILE,
        "edge/server.js": SERVER,
        "tickets/package.json": package("ferry-tickets"),
        "tickets/Dockerfile": DOCKERFILE,
        "tickets/server.js": SERVER,
    }


def test_an_image_named_as_a_package_runs_that_package_s_folder(tmp_path: Path) -> None:
    row = only(links(tmp_path, tree()))
    assert row["code"] == "edge/server.js"
    assert any(
        'the package edge/package.json:2 declares: "name": "ferry-gateway"' in line
        for line in row["evidence"]
    )


def test_a_scoped_package_s_name_is_its_last_part(tmp_path: Path) -> None:
    row = only(links(tmp_path, tree("@ferry/ferry-gateway")))
    assert row["code"] == "edge/server.js"


def test_a_package_of_another_name_is_no_evidence(tmp_path: Path) -> None:
    row = only(links(tmp_path, tree("ferry-edge")))
    assert not (row["code"] or "").startswith("edge")
