"""A Node image built from the repository's top whose last stage copies one package's
package.json into its WORKDIR and runs npm there runs that package's code (its
TypeScript build's output), not the whole top's; a web app's static build beside it is
no code it runs."""

from __future__ import annotations

from pathlib import Path

from tests.test_links import links, only, workload

DOCKERFILE = """\
FROM node:20-alpine AS site
WORKDIR /site
COPY ./frontend/package.json ./
RUN npm install
COPY ./frontend ./
RUN npm run build

FROM node:20-alpine AS compile
WORKDIR /src
COPY ./server/package*.json ./
RUN npm ci
COPY ./server ./
RUN npm run build

FROM node:20-alpine
WORKDIR /srv
COPY ./server/package.json ./server/package-lock.json ./
RUN npm ci --omit=dev
COPY --from=compile /src/dist/ ./
COPY --from=site /site/build ./public
ENV START=serve
CMD ["sh", "-c", "npm run $START"]
"""
TREE = {
    "package.json": '{"name": "tools", "scripts": {"e2e": "playwright test"}}\n',
    "e2e/checkout.spec.ts": "import { test } from '@playwright/test';\ntest('x', () => {});\n",
    "server/package.json": (
        '{"name": "server", "scripts": {"serve": "node index.js", "build": "tsc"}}\n'
    ),
    "server/src/index.ts": (
        "import http from 'http';\nimport { route } from './route';\n"
        "http.createServer(route).listen(8080);\n"
    ),
    "server/src/route.ts": "export function route(req: any, res: any) { res.end(); }\n",
    "frontend/package.json": '{"name": "frontend", "scripts": {"build": "vite build"}}\n',
    "frontend/src/main.ts": "document.title = 'shop';\n",
    "functions/handler.ts": "export const handler = async () => ({ statusCode: 200 });\n",
    "Makefile": "image:\n\tdocker build . -t acme/shop-server:latest\n",
    "deploy/server.yaml": workload(name="server", image="acme/shop-server:1.2"),
}


def test_the_package_a_top_image_runs_npm_in_is_its_code(tmp_path: Path) -> None:
    row = only(links(tmp_path, {**TREE, "Dockerfile": DOCKERFILE}))
    assert row["code"] == "server"
    assert row["modules"] == 2, "the server's modules, not the tools', site's or functions'"


def test_another_folder_s_build_put_in_the_workdir_keeps_the_context(tmp_path: Path) -> None:
    # the site's build beside the server's in /srv: what runs there is not known
    also = DOCKERFILE.replace("/site/build ./public", "/site/build ./")
    row = only(links(tmp_path, {**TREE, "Dockerfile": also}))
    assert row["code"] == "."


WORKSPACE_DOCKERFILE = """\
FROM node:22-slim AS compile
WORKDIR /work
COPY package.json pnpm-workspace.yaml ./
COPY shared/ ./shared/
COPY billing-api/ ./billing-api/
RUN corepack enable && pnpm install && pnpm -r build

FROM node:22-slim
WORKDIR /work
COPY package.json pnpm-workspace.yaml ./
COPY billing-api/package.json ./billing-api/
RUN corepack enable && pnpm install --prod
COPY --from=compile /work/shared/dist ./shared/dist
COPY --from=compile /work/billing-api/dist ./billing-api/dist
CMD ["node", "billing-api/dist/server.js"]
"""


def test_a_workspace_package_s_build_output_a_kept_apart_dockerfile_runs_is_its_code(
    tmp_path: Path,
) -> None:
    """`docker/billing-api.Dockerfile`, built from the top, copies two packages into a
    builder and runs `node billing-api/dist/server.js`, taken from it: that package's
    `src/server.ts` (its own `tsc` writes `dist` beside `src`), not the whole top."""
    files = {
        "deploy/billing.yaml": workload(name="billing", image="acme/billing-api:1.0"),
        "docker/billing-api.Dockerfile": WORKSPACE_DOCKERFILE,
        "package.json": '{"name": "ws", "private": true}\n',
        "pnpm-workspace.yaml": "packages:\n  - shared\n  - billing-api\n",
        "shared/package.json": '{"name": "shared", "scripts": {"build": "tsc"}}\n',
        "shared/src/index.ts": "export const shared = 1;\n",
        "billing-api/package.json": '{"name": "billing-api", "scripts": {"build": "tsc"}}\n',
        "billing-api/src/server.ts": (
            "import { createServer } from 'http';\n"
            "createServer((_, res) => res.end('ok')).listen(8080);\n"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "billing-api/src/server.ts"
