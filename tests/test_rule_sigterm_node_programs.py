"""KLB406 for Node.js as PID 1 when the command names compiled output (`node dist/...`)
or a launcher runs it: the linked Node program is what is judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.entry_points import bundled_files, compiled_sources
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# The layout of a NestJS monorepo: each app has its own package.json and Dockerfile, the
# image is built from the repository's top, and the Dockerfile runs what `nest build` wrote.
SKAFFOLD = (
    "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
    "      docker:\n        dockerfile: apps/web/Dockerfile\n"
    "    - image: registry.example/worker\n      context: .\n"
    "      docker:\n        dockerfile: apps/worker/Dockerfile\n"
)
NEST_DOCKERFILE = (
    "FROM node:20 AS build\nWORKDIR /usr/src/app\n"
    "COPY package.json tsconfig.json nest-cli.json ./\n"
    "COPY apps/web apps/web\nCOPY libs libs\nRUN npm install && npm run build web\n"
    "FROM node:20\nWORKDIR /usr/src/app\nCOPY --from=build /usr/src/app/dist ./dist\n"
    'CMD ["node", "dist/apps/web/main"]\n'
)
NEST_MAIN = (
    "import { NestFactory } from '@nestjs/core';\nimport { WebModule } from './web.module';\n\n"
    "async function bootstrap() {\n  const app = await NestFactory.create(WebModule);\n"
    "  await app.listen(8080);\n}\nbootstrap();\n"
)
NEST_MODULE = (
    "import { Module } from '@nestjs/common';\nimport { SharedModule } from '@app/shared';\n\n"
    "@Module({ imports: [SharedModule] })\nexport class WebModule {}\n"
)
SHARED = "import { Module } from '@nestjs/common';\n\n@Module({})\nexport class SharedModule {}\n"


def nest_monorepo(main: str = NEST_MAIN, shared: str = SHARED) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "package.json": '{"name": "mono", "scripts": {"build": "nest build"}}\n',
        "tsconfig.json": '{"compilerOptions": {"outDir": "./dist"}}\n',
        "nest-cli.json": '{"monorepo": true, "projects": {"web": {"root": "apps/web"}}}\n',
        "apps/web/Dockerfile": NEST_DOCKERFILE,
        "apps/web/package.json": '{"name": "@mono/web"}\n',
        "apps/web/src/main.ts": main,
        "apps/web/src/web.module.ts": NEST_MODULE,
        "libs/shared/src/index.ts": shared,
        # a second app built the same way: the top is every app's build context
        "apps/worker/Dockerfile": NEST_DOCKERFILE.replace("web", "worker"),
        "apps/worker/package.json": '{"name": "@mono/worker"}\n',
        "apps/worker/src/main.ts": main.replace("web", "worker").replace("Web", "Worker"),
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_node_running_compiled_output_is_judged_by_the_linked_program(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, nest_monorepo())
    assert finding.path.endswith("apps/web/Dockerfile") and finding.line == 10
    assert finding.severity is Severity.WARNING
    assert "node is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_compiled_output_of_a_program_that_enables_shutdown_hooks_is_not_reported(
    tmp_path: Path,
) -> None:
    hooked = NEST_MAIN.replace("  await", "  app.enableShutdownHooks();\n  await")
    assert klb406(tmp_path, nest_monorepo(main=hooked)) == []


def test_a_handler_in_a_shared_library_of_the_workspace_counts(tmp_path: Path) -> None:
    # the app imports the workspace's library by a path alias k8slb does not resolve:
    # a handler there may be the program's, so k8slb stays silent
    handled = SHARED + "process.on('SIGTERM', () => process.exit(0));\n"
    assert klb406(tmp_path, nest_monorepo(shared=handled)) == []


def test_the_finding_names_the_source_the_compiled_entry_is_built_from(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, nest_monorepo())
    assert "(the program of src/main.ts, which dist/apps/web/main is built from)" in finding.text


SKAFFOLD_HERE = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
SERVER_TS = "import * as http from 'http';\n\nhttp.createServer(() => {}).listen(8080);\n"


@pytest.mark.parametrize(
    ("output", "build"),
    [("dist/bundle.js", "webpack"), (".output/server/index.mjs", "nuxt build")],
    ids=["bundle", "framework-server"],
)
def test_build_output_whose_source_is_unknown_is_info_judged_by_the_one_node_program_linked(
    tmp_path: Path, output: str, build: str
) -> None:
    # the file node runs is made by the build: a framework may have written a server and
    # its SIGTERM handler into it, which no source k8slb reads shows
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": (
            f'FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm run build\nCMD ["node", "{output}"]\n'
        ),
        "package.json": f'{{"name": "web", "scripts": {{"build": "{build}"}}}}\n',
        "src/index.ts": SERVER_TS,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.INFO
    assert "(the one Node program linked to it, in .)" in finding.text
    assert f"info only: {output} is build output made from no module k8slb can name" in (
        finding.text
    )
    handled = SERVER_TS + "process.on('SIGTERM', () => process.exit(0));\n"
    assert klb406(tmp_path / "handled", {**files, "src/index.ts": handled}) == []


def test_an_unknown_entry_among_several_node_programs_is_not_judged(tmp_path: Path) -> None:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": 'FROM node:20\nWORKDIR /app\nCOPY . .\nCMD ["node", "dist/bundle.js"]\n',
        "api/package.json": '{"name": "api"}\n',
        "api/index.ts": SERVER_TS,
        "admin/package.json": '{"name": "admin"}\n',
        "admin/index.ts": SERVER_TS,
    }
    assert klb406(tmp_path, files) == []


NODE_SERVER = "const http = require('http');\n\nhttp.createServer(() => {}).listen(8080);\n"
DEV = '{"name": "web", "scripts": {"dev": "nodemon --exec babel-node src", "start": "node src"}}\n'


@pytest.mark.parametrize(
    ("cmd", "launcher"),
    [
        ('CMD ["npm", "run", "dev"]', "npm"),
        ('CMD ["npm", "start"]', "npm"),
        ('CMD ["yarn", "start"]', "yarn"),
        ('CMD ["pnpm", "run", "dev"]', "pnpm"),
    ],
)
def test_a_package_manager_in_the_dockerfile_of_a_linked_container_is_reported(
    tmp_path: Path, cmd: str, launcher: str
) -> None:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": f"FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm install\n{cmd}\n",
        "package.json": DEV,
        "src/index.js": NODE_SERVER,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile") and finding.line == 5
    assert finding.severity is Severity.WARNING
    # each passes the signal on: the server stops at once, with no drain of its own
    said = "stops container 'web' of Deployment/web at once, undrained"
    assert f"SIGTERM {said}: {launcher} is PID 1" in finding.text


def test_a_package_manager_is_reported_even_when_the_program_handles_sigterm(
    tmp_path: Path,
) -> None:
    # the launcher keeps the signal from the program: its handler never runs
    handled = NODE_SERVER + "process.on('SIGTERM', () => process.exit(0));\n"
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": 'FROM node:20\nWORKDIR /app\nCOPY . .\nCMD ["npm", "start"]\n',
        "package.json": DEV,
        "src/index.js": handled,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING and "npm is PID 1" in finding.text


# @nestjs/terminus before 7 runs @godaddy/terminus on the application's server, which
# installs a SIGTERM handler; its API (`TerminusModule.forRootAsync`, an options factory
# with `createTerminusOptions`) is gone from 7 on, where only enableShutdownHooks() does.
TERMINUS_6_OPTIONS = (
    "import { TerminusOptionsFactory, TerminusModuleOptions } from '@nestjs/terminus';\n\n"
    "export class HealthOptions implements TerminusOptionsFactory {\n"
    "  createTerminusOptions(): TerminusModuleOptions {\n"
    "    return { endpoints: [{ url: '/health', healthIndicators: [] }] };\n  }\n}\n"
)
TERMINUS_6_MODULE = (
    "import { Module } from '@nestjs/common';\nimport { TerminusModule } from '@nestjs/terminus';\n"
    "\n@Module({ imports: [TerminusModule.forRootAsync({ useClass: HealthOptions })] })\n"
    "export class HealthModule {}\n"
)
TERMINUS_10_MODULE = (
    "import { Module } from '@nestjs/common';\nimport { TerminusModule } from '@nestjs/terminus';\n"
    "\n@Module({ imports: [TerminusModule] })\nexport class HealthModule {}\n"
)


@pytest.mark.parametrize(
    "module", [TERMINUS_6_OPTIONS, TERMINUS_6_MODULE], ids=["options-factory", "forRootAsync"]
)
def test_the_terminus_6_api_of_nestjs_counts_as_a_sigterm_handler(
    tmp_path: Path, module: str
) -> None:
    files = {**nest_monorepo(), "apps/web/src/health.module.ts": module}
    assert klb406(tmp_path, files) == []


def test_nestjs_terminus_7_and_later_installs_no_sigterm_handler(tmp_path: Path) -> None:
    files = {**nest_monorepo(), "apps/web/src/health.module.ts": TERMINUS_10_MODULE}
    (finding,) = klb406(tmp_path, files)
    assert "no SIGTERM handler" in finding.text


@pytest.mark.parametrize(
    ("script", "source"),
    [
        ("dist/apps/auth/main", "apps/auth/src/main.ts"),  # Nest's monorepo, webpack
        ("dist/apps/auth/src/main.js", "apps/auth/src/main.ts"),  # tsc, no rootDir
        ("/usr/src/app/dist/main.js", "src/main.ts"),  # tsc, rootDir src
        ("./build/server.js", "server.js"),
        ("out/api", "api/index.ts"),
    ],
)
def test_compiled_output_names_the_sources_it_may_be_built_from(script: str, source: str) -> None:
    assert source in compiled_sources(script)


@pytest.mark.parametrize("script", ["server.js", "src/main.js", "dist", "lib/index.js"])
def test_a_script_outside_an_output_folder_names_no_source(script: str) -> None:
    assert compiled_sources(script) == []


def guessed(command: str = "") -> dict[str, str]:
    """A container linked to `web/` by its image's name alone, whose Dockerfile runs
    `index.js` copied from another stage by a pattern (the entry is not known)."""
    manifest = web_deployment(command).replace("registry.example/web", "registry.example/shop-web")
    return {
        "k8s/web.yaml": manifest,
        "web/Dockerfile": (
            "FROM node:20 AS build\nWORKDIR /src\nCOPY . .\nRUN npm run build\n"
            "FROM node:20\nWORKDIR /app\nCOPY --from=build /src/*js* /app/\n"
            'COPY --from=build /src/lib /app/lib\nCMD ["node", "index.js"]\n'
        ),
        "web/package.json": '{"name": "web"}\n',
        "web/index.js": "const lib = require('./lib');\n" + NODE_SERVER,
        "web/lib/index.js": "module.exports = {};\n",
    }


def test_the_dockerfile_of_a_folder_linked_by_name_is_judged_by_that_folder_s_program(
    tmp_path: Path,
) -> None:
    (finding,) = klb406(tmp_path, guessed())
    assert finding.path.endswith("web/Dockerfile") and finding.severity is Severity.WARNING


def test_a_manifest_command_of_a_container_linked_by_name_is_not_judged(tmp_path: Path) -> None:
    assert klb406(tmp_path, guessed("command: [node, /app/index.js]")) == []


# One image, two programs: the Dockerfile's CMD starts the gRPC API, and a second
# Deployment runs the same image with a command of its own, the web front end.
GRPC_API = (
    "import * as grpc from '@grpc/grpc-js';\n\n"
    "const server = new grpc.Server();\n"
    "server.bindAsync('0.0.0.0:50051', grpc.ServerCredentials.createInsecure(), () => {});\n"
)


def one_image_two_programs(web: str = SERVER_TS) -> dict[str, str]:
    api = web_deployment().replace("name: web", "name: api").replace("app: web", "app: api")
    return {
        "k8s/web.yaml": web_deployment("command: [node, ./dist/web.js]"),
        "k8s/api.yaml": api,
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": (
            "FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm run build\n"
            'CMD ["node", "./dist/api.js"]\n'
        ),
        "package.json": '{"name": "shop", "scripts": {"build": "tsc"}}\n',
        "src/api.ts": GRPC_API,
        "src/web.ts": web,
    }


def test_each_container_of_one_image_is_judged_by_its_own_entry_point(tmp_path: Path) -> None:
    # the web container's program has no handler, and the gRPC server it does not start
    # is not its code: node is PID 1 of it with nothing to stop the HTTP server
    findings = lint_files(tmp_path, one_image_two_programs(), ["KLB403", "KLB406"]).findings
    (pid1,) = [f for f in findings if f.rule == "KLB406"]
    assert pid1.path.endswith("k8s/web.yaml") and pid1.severity is Severity.WARNING
    assert "(the program of src/web.ts, which ./dist/web.js is built from)" in pid1.text
    # the gRPC server is named as the code of the container that starts it
    (server,) = [f for f in findings if f.rule == "KLB403"]
    assert server.path.endswith("src/api.ts")
    assert "the code container Deployment/api:api runs" in server.message
    handled = SERVER_TS + "process.on('SIGTERM', () => process.exit(0));\n"
    assert klb406(tmp_path / "handled", one_image_two_programs(web=handled)) == []


# A service of a monorepo built from the repository's top: the build stage copies the
# service's folder, runs its package.json's build, and the last stage copies only what the
# build wrote, so `node index.js` runs a file no scanned module is.
BUNDLED_DOCKERFILE = (
    "FROM node:20-alpine AS build\nWORKDIR /src\nCOPY ./orders/ .\nRUN npm ci && npm run build\n"
    "FROM node:20-alpine\nWORKDIR /srv\nCOPY --from=build /src/out .\n"
    'CMD ["node", "index.js"]\n'
)
BUNDLE = "rimraf out && esbuild src/main.ts --bundle --platform=node --outfile=out/index.js"


def bundled(build: str = BUNDLE, dockerfile: str = BUNDLED_DOCKERFILE) -> dict[str, str]:
    return {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE + "      docker:\n        dockerfile: orders/Dockerfile\n",
        "orders/Dockerfile": dockerfile,
        "orders/package.json": f'{{"name": "orders", "scripts": {{"build": "{build}"}}}}\n',
        "orders/src/main.ts": "import { listen } from './http';\n\nlisten(8080);\n",
        "orders/src/http.ts": SERVER_TS,
        "orders/src/jobs.ts": SERVER_TS,
    }


@pytest.mark.parametrize(
    ("build", "dockerfile"),
    [
        (BUNDLE, BUNDLED_DOCKERFILE),
        # with --outdir, the file takes the entry's name
        (
            "npx esbuild ./src/main.ts --bundle --outdir out",
            BUNDLED_DOCKERFILE.replace("index.js", "main.js"),
        ),
        ("ncc build src/main.ts -o out", BUNDLED_DOCKERFILE),
        # tsc writes dist/ as src/ is laid out: dist/main.js is src/main.ts's
        (
            "tsc -p .",
            BUNDLED_DOCKERFILE.replace("/src/out .", "/src/dist .").replace("index.js", "main.js"),
        ),
    ],
    ids=["esbuild-outfile", "esbuild-outdir", "ncc", "tsc-output-folder"],
)
def test_a_bundle_the_build_script_makes_is_judged_as_its_entry_s_program(
    tmp_path: Path, build: str, dockerfile: str
) -> None:
    (finding,) = klb406(tmp_path, bundled(build, dockerfile))
    assert finding.severity is Severity.WARNING and "info only" not in finding.text
    assert "(the program of src/main.ts, which " in finding.text
    files = bundled(build, dockerfile)
    files["orders/src/http.ts"] += "process.on('SIGTERM', () => process.exit(0));\n"
    assert klb406(tmp_path / "handled", files) == []


@pytest.mark.parametrize(
    "build",
    [
        # it writes another file than the one node runs
        "esbuild src/main.ts --bundle --outfile=out/server.js",
        # two entries (or a variable): which one the file is made from is not said
        "esbuild src/main.ts src/jobs.ts --bundle --outdir=out",
        "esbuild $ENTRY --bundle --outfile=out/index.js",
        # tsc's output folder is not `out/`: no convention names the source
        "tsc --outDir out",
    ],
)
def test_a_bundle_no_build_script_names_the_entry_of_stays_info(tmp_path: Path, build: str) -> None:
    (finding,) = klb406(tmp_path, bundled(build))
    assert finding.severity is Severity.INFO and "info only" in finding.text


def test_two_scripts_writing_the_bundle_from_two_entries_name_no_source(tmp_path: Path) -> None:
    files = bundled()
    files["orders/package.json"] = (
        '{"scripts": {"build": "esbuild src/main.ts --outfile=out/index.js", '
        '"build:jobs": "esbuild src/jobs.ts --outfile=out/index.js"}}\n'
    )
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.INFO


@pytest.mark.parametrize(
    ("script", "found"),
    [
        (BUNDLE, [("src/main.ts", "out/index.js")]),
        ("esbuild --bundle ./src/a.ts --outfile out/a.cjs", [("src/a.ts", "out/a.cjs")]),
        ("pnpm exec esbuild src/a.ts --outdir=lib", [("src/a.ts", "lib/a.js")]),
        ("bun build src/a.ts --outfile dist/a.js && tsc", [("src/a.ts", "dist/a.js")]),
        ("ncc build index.js", [("index.js", "dist/index.js")]),
        ("esbuild src/a.ts", []),  # to stdout
        ("webpack --mode production", []),
        ("esbuild 'src/a.ts", []),  # an unended quote
    ],
)
def test_bundler_commands_name_their_entry_and_output(
    script: str, found: list[tuple[str, str]]
) -> None:
    assert bundled_files(script) == found


# One image, a server and a job: the Dockerfile's CMD (through `npm start`) starts the
# gRPC server, one replica of it is deployed, and a CronJob runs the same image with a
# command of its own, a cleanup script that loads the database code and not the server.
CLEANUP_JOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cleanup
spec:
  schedule: "0 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: cleanup
              image: registry.example/web:1.0
              command: ["node", "dist/jobs/cleanup.js"]
"""
ONE_REPLICA = web_deployment().replace(
    "  replicas: 3\n",
    "  replicas: 1\n  strategy:\n    rollingUpdate: {maxSurge: 0, maxUnavailable: 1}\n",
)
ACCOUNTS_SERVER = (
    "import * as grpc from '@grpc/grpc-js';\nimport { pool } from '../db/pool';\n\n"
    "export function startServer(): void {\n  const server = new grpc.Server();\n"
    "  server.bindAsync('0.0.0.0:50051', grpc.ServerCredentials.createInsecure(), () => {\n"
    "    console.log('listening', pool);\n  });\n}\n"
)


def server_and_job(job: str) -> dict[str, str]:
    return {
        "k8s/accounts.yaml": ONE_REPLICA,
        "k8s/cleanup.yaml": CLEANUP_JOB,
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": (
            'FROM node:20\nWORKDIR /app\nCOPY . .\nRUN npm run build\nCMD ["npm", "start"]\n'
        ),
        "package.json": (
            '{"name": "accounts", "scripts": {"build": "tsc", "start": "node dist/main.js"}}\n'
        ),
        "src/main.ts": "import { startServer } from './grpc/server';\n\nstartServer();\n",
        "src/grpc/server.ts": ACCOUNTS_SERVER,
        "src/db/pool.ts": "import { Pool } from 'pg';\n\nexport const pool = new Pool();\n",
        "src/jobs/cleanup.ts": job,
    }


CLEANUP = (
    "import { pool } from '../db/pool';\n\n"
    "async function main(): Promise<void> {\n  await pool.query('DELETE FROM sessions');\n"
    "  await pool.end();\n}\n\nmain();\n"
)


def test_a_job_running_another_entry_of_the_image_is_no_copy_of_its_server(
    tmp_path: Path,
) -> None:
    """The CronJob's command names the job's entry: it runs that module and what it loads,
    not the server, so the server's one replica is the Deployment's alone (KLB201 at
    info) and KLB403 names the Deployment's container."""
    findings = lint_files(tmp_path, server_and_job(CLEANUP), ["KLB201", "KLB403"]).findings
    (age,) = [f for f in findings if f.rule == "KLB201"]
    assert age.severity is Severity.INFO and "Deployment/web runs it as one replica" in age.text
    (stop,) = [f for f in findings if f.rule == "KLB403"]
    assert "Deployment/web:web" in stop.message and "cleanup" not in stop.message


@pytest.mark.parametrize(
    "job",
    [
        # the job starts the server itself: a second copy of it
        "import { startServer } from '../grpc/server';\n\nstartServer();\n",
        # a path alias k8slb does not resolve: what it loads is not known
        "import { pool } from '@accounts/db/pool';\nimport '@accounts/grpc/server';\n",
    ],
    ids=["loads-the-server", "path-alias"],
)
def test_a_job_that_may_load_the_server_still_counts_as_running_it(
    tmp_path: Path, job: str
) -> None:
    findings = lint_files(tmp_path, server_and_job(job), ["KLB201"]).findings
    (age,) = findings
    assert age.severity is Severity.WARNING
