"""A Node image built from the repository's top (`cd .. && docker build -f
Dockerfile.portal .`) whose last stage takes a builder's whole tree and runs `npm start
--prefix ./portal/api`: its code is that package's (its script runs the compiled
`dist/`), not every module of the repository."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.test_links import links, only, service_app, workload

PORTAL_DOCKERFILE = """\
FROM node:22-bookworm-slim
WORKDIR /srv/app
COPY portal/ ./portal/
COPY shared/ts/ ./shared/ts/
RUN cd portal && npm ci && npm run build
FROM node:22-bookworm-slim
WORKDIR /srv/app
COPY --from=0 /srv /srv
CMD ["npm", "start", "--prefix", "./portal/api"]
"""
PACKAGE = {
    "name": "portal-api",
    "scripts": {"build": "tsc -p .", "start": "NODE_ENV=production node dist/main.js"},
}


def test_npm_start_with_a_prefix_links_the_package_it_names(tmp_path: Path) -> None:
    files = {
        "Dockerfile.portal": PORTAL_DOCKERFILE,
        "portal/Makefile": (
            "image:\n\tcd .. && docker build -t acme/portal:1.0 -f Dockerfile.portal .\n"
        ),
        "portal/package.json": json.dumps({"name": "portal", "private": True}),
        "portal/api/package.json": json.dumps(PACKAGE),
        "portal/api/src/main.ts": "import { serve } from './serve';\nserve(8080);\n",
        "portal/api/src/serve.ts": (
            "import http from 'http';\n"
            "export function serve(port: number) {\n"
            "  http.createServer((_, res) => res.end('ok')).listen(port);\n}\n"
        ),
        "shared/ts/index.ts": "export const name = 'shared';\n",
        **service_app("tools/report"),
        **service_app("billing"),
        "deploy/portal.yaml": workload("portal", "acme/portal:1.0"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("portal", "api")
