"""KLB406 for npm as PID 1: npm passes SIGTERM to the script and waits for it, so a
server whose own SIGTERM handler closes it (`server.close()` on what the module listens
with) drains, and nothing is reported; a handler that closes something else (a message
queue's client) leaves the server cut mid-request."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

DOCKERFILE = 'FROM node:20-alpine\nWORKDIR /srv\nCOPY . .\nRUN npm ci\nCMD ["npm", "start"]\n'
PACKAGE = '{"name": "web", "main": "server.js", "scripts": {"start": "node server.js"}}\n'
CREATED = (
    "const http = require('http');\n\n"
    "const server = http.createServer((req, res) => res.end('ok'));\n"
)
EXPRESS = "const express = require('express');\n\nconst app = express();\n"


def tree(server: str) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(),
        "web/Dockerfile": DOCKERFILE,
        "web/package.json": PACKAGE,
        "web/server.js": server,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


@pytest.mark.parametrize(
    "server",
    [
        CREATED + "process.on('SIGTERM', () => {\n  server.close(() => process.exit(0));\n});\n"
        "server.listen(8080);\n",
        EXPRESS + "const server = app.listen(8080);\n\n"
        "function shutdown() {\n  server.close();\n}\nprocess.on('SIGTERM', shutdown);\n",
    ],
)
def test_a_handler_that_closes_the_server_drains_under_npm(tmp_path: Path, server: str) -> None:
    assert klb406(tmp_path, tree(server)) == []


@pytest.mark.parametrize(
    "server",
    [
        EXPRESS + "app.listen(8080);\n",
        EXPRESS + "const queue = require('./queue');\n\napp.listen(8080);\n"
        "process.on('SIGTERM', () => queue.client.close());\n",
    ],
)
def test_no_handler_or_one_that_closes_another_thing_is_reported(
    tmp_path: Path, server: str
) -> None:
    (finding,) = klb406(tmp_path, tree(server))
    assert "npm is PID 1" in finding.text
