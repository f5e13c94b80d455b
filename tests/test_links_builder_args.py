"""A root Dockerfile shared by a workspace's apps, a build argument naming the app: the
builder stage builds the whole workspace, the last stage copies the chosen app's output
(`COPY --from=build /ws/dist/apps/${APP} ./app/`) and runs it. Each image runs the app
its build's argument names, not the whole repository."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.core.findings import Finding
from k8slb.reading.build_files import parse_dockerfile

from tests.helpers import lint_files
from tests.test_links import links, workload

SHARED_DOCKERFILE = (
    "ARG APP=orders\n"
    "FROM node:20-alpine AS build\nWORKDIR /ws\nCOPY package.json ./\nRUN npm ci\n"
    "COPY . .\nARG APP\nRUN npx nx build ${APP}\n"
    "FROM node:20-alpine\nWORKDIR /srv\nCOPY package.json ./\nRUN npm ci --omit=dev\n"
    "ARG APP\nCOPY --from=build /ws/dist/apps/${APP} ./app/\n"
    'CMD ["node", "app/main.js"]\n'
)
MAIN = (
    "import { NestFactory } from '@nestjs/core';\nimport { AppModule } from './app.module';\n\n"
    "async function bootstrap() {\n  const app = await NestFactory.create(AppModule);\n"
    "  await app.listen(3000);\n}\nbootstrap();\n"
)
MODULE = "import { Module } from '@nestjs/common';\n\n@Module({})\nexport class AppModule {}\n"


def workspace(build: dict[str, str], main: str = MAIN) -> dict[str, str]:
    """Two apps of one package (an Nx workspace's), each with a Deployment of its image."""
    return {
        "package.json": '{"name": "shop", "scripts": {"build": "nx run-many -t build"}}\n',
        "Dockerfile": SHARED_DOCKERFILE,
        "k8s/orders.yaml": workload(name="orders", image="registry.example/shop/orders:1"),
        "k8s/billing.yaml": workload(name="billing", image="registry.example/shop/billing:1"),
        **{f"apps/{app}/src/main.ts": main for app in ("orders", "billing")},
        **{f"apps/{app}/src/app.module.ts": MODULE for app in ("orders", "billing")},
        **build,
    }


SCRIPT = "".join(
    f"docker build -f Dockerfile --build-arg APP={app} -t registry.example/shop/{app}:1 .\n"
    for app in ("orders", "billing")
)

ONE_BUILD = "docker build -f Dockerfile -t registry.example/shop/orders:1 .\n"  # no argument


def by_container(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(row["container"]).split("/")[-1].split(":")[0]: row for row in rows}


def test_a_builder_s_output_copied_by_an_argument_s_path_is_read_as_the_context_s_path() -> None:
    dockerfile = parse_dockerfile("Dockerfile", SHARED_DOCKERFILE)
    assert [(c.source, c.dest) for c in dockerfile.built_copies] == [
        ("dist/apps/${APP}", "/srv/app")
    ]
    assert [folder for folder, _ in dockerfile.built_arg_folders] == ["apps/${APP}"]


def test_what_a_builder_makes_beside_a_file_it_copied_is_none_of_the_context_s() -> None:
    """`COPY pom.xml ./` puts a file in the builder's folder, not the folder's paths: the
    jar built at target/ (named by arguments) comes from no path of the context."""
    dockerfile = parse_dockerfile(
        "Dockerfile",
        "FROM maven:3 AS build\nARG NAME=cart\nWORKDIR /usr/src/app\nCOPY pom.xml ./\n"
        "COPY src ./src\nRUN mvn package\nFROM eclipse-temurin:21\nARG NAME=cart\n"
        "COPY --from=build /usr/src/app/target/${NAME}.jar /app/${NAME}.jar\n",
    )
    assert dockerfile.built_copies == () and dockerfile.built_arg_folders == ()


def test_each_image_of_a_shared_dockerfile_runs_the_app_its_build_argument_names(
    tmp_path: Path,
) -> None:
    rows = by_container(links(tmp_path, workspace({"scripts/build.sh": SCRIPT})))
    for app in ("orders", "billing"):
        row = rows[app]
        assert row["code"] == os.path.join("apps", app, "src", "main.ts")
        assert row["modules"] == 2, "its own app's modules, not the other app's"
        copy = "COPY --from=build /ws/dist/apps/${APP} ./app/"
        chose = f"dockerfile: Dockerfile:14: {copy} (APP={app})"
        assert chose in row["evidence"]  # type: ignore[operator]


def test_compose_s_build_args_choose_the_app(tmp_path: Path) -> None:
    compose = "services:\n" + "".join(
        f"  {app}:\n    image: registry.example/shop/{app}:1\n    build:\n"
        f"      context: .\n      args:\n        APP: {app}\n"
        for app in ("orders", "billing")
    )
    rows = by_container(links(tmp_path, workspace({"compose.yaml": compose})))
    assert rows["billing"]["code"] == os.path.join("apps", "billing", "src", "main.ts")
    assert rows["orders"]["code"] == os.path.join("apps", "orders", "src", "main.ts")


def test_a_build_that_gives_no_value_builds_the_argument_s_default(tmp_path: Path) -> None:
    build = {"scripts/build.sh": ONE_BUILD}
    rows = by_container(links(tmp_path, workspace(build)))
    assert rows["orders"]["code"] == os.path.join("apps", "orders", "src", "main.ts")


def test_an_argument_whose_value_no_build_gives_chooses_no_app(tmp_path: Path) -> None:
    files = workspace({"scripts/build.sh": ONE_BUILD})
    files["Dockerfile"] = SHARED_DOCKERFILE.replace("ARG APP=orders\n", "")
    rows = by_container(links(tmp_path, files))
    assert rows["orders"]["code"] is None  # no app guessed


def test_output_whose_sources_are_not_in_the_folder_it_mirrors_keeps_the_context(
    tmp_path: Path,
) -> None:
    files = workspace({"scripts/build.sh": SCRIPT})
    for app in ("orders", "billing"):  # the apps live under packages/, not apps/
        for name in ("main.ts", "app.module.ts"):
            files[f"packages/{app}/src/{name}"] = files.pop(f"apps/{app}/src/{name}")
    rows = by_container(links(tmp_path, files))
    assert rows["orders"]["code"] == "."


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_node_as_pid_1_of_the_app_an_argument_chose_is_judged_by_that_app_s_code(
    tmp_path: Path,
) -> None:
    """orders registers no SIGTERM handler, billing does: only orders' container is
    reported, on the shared Dockerfile's CMD."""
    files = workspace({"scripts/build.sh": SCRIPT})
    files["apps/billing/src/main.ts"] = MAIN.replace(
        "  await app.listen", "  app.enableShutdownHooks();\n  await app.listen"
    )
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile") and finding.line == 15
    assert "Deployment/shop/orders " in finding.text
