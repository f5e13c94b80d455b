"""KLB406 for node running what an Nx workspace's bundler writes (`dist/apps/web`,
copied into the image and run as a folder or as its `main.js`): the project.json's
build target names the entry module (`options.main`) and the output (`outputPath`), so
the program judged is that module's, at the rule's severity."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading.build_files import read_build_file
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

PROJECT = (
    '{\n  "name": "web",\n  "sourceRoot": "apps/web/src",\n  "targets": {\n'
    '    "build": {\n      "executor": "@nx/webpack:webpack",\n'
    '      "options": {\n        "target": "node",\n'
    '        "outputPath": "dist/apps/web",\n        "main": "apps/web/src/main.ts",\n'
    '        "tsConfig": "apps/web/tsconfig.app.json"\n      }\n    },\n'
    '    "lint": {"executor": "@nx/eslint:lint"}\n  }\n}\n'
)


def dockerfile(run: str) -> str:
    return (
        "FROM node:20-alpine\nWORKDIR /srv\nCOPY dist/apps/web web\n"
        f"RUN npm --prefix web install --omit=dev\nCMD {run}\n"
    )


MAIN = (
    "import express from 'express';\nimport { routes } from './routes';\n\n"
    "const app = express();\napp.use(routes);\napp.listen(8080);\n"
)


ROUTES = "import { Router } from 'express';\n\nexport const routes = Router();\n"


def workspace(run: str = '["node", "web"]', main: str = MAIN) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(),
        "nx.json": '{"npmScope": "shop"}\n',
        "package.json": '{"name": "shop", "scripts": {"build": "nx run-many -t build"}}\n',
        "apps/web/project.json": PROJECT,
        "apps/web/package.json": '{"name": "web"}\n',
        "apps/web/Dockerfile": dockerfile(run),
        "apps/web/src/main.ts": main,
        "apps/web/src/routes.ts": ROUTES,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


@pytest.mark.parametrize("run", ['["node", "web"]', '["node", "web/main.js"]'])
def test_node_running_an_nx_build_is_judged_by_its_main(tmp_path: Path, run: str) -> None:
    (finding,) = klb406(tmp_path, workspace(run))
    assert finding.severity is Severity.WARNING
    assert "the program of src/main.ts" in finding.text


def test_a_handler_in_the_nx_main_counts(tmp_path: Path) -> None:
    handled = MAIN.replace(
        "app.listen(8080);",
        "const server = app.listen(8080);\nprocess.on('SIGTERM', () => server.close());",
    )
    assert klb406(tmp_path, workspace(main=handled)) == []


def test_project_json_bundles() -> None:
    found = read_build_file("apps/web/project.json", PROJECT.encode())
    assert found is not None and found.bundles == (("apps/web/src/main.ts", "dist/apps/web"),)
    broken = read_build_file("apps/web/project.json", b'{"targets": [1, 2]}')
    assert broken is not None and broken.bundles == ()
