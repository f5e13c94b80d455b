"""KLB406 through what the repository itself builds: an image FROM a base image the
repository builds inherits that base's ENTRYPOINT, CMD and distribution; a prefix that
execs the command after it (`opentelemetry-instrument`); the server.js of Next.js's
standalone output, which handles SIGTERM itself; and the words said of a file node runs
that k8slb did not read."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.launchers import after_prefix
from k8slb.core.findings import Finding, Severity
from k8slb.model.shells import DASH, image_sh
from k8slb.reading.build_files import parse_dockerfile
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# Two images of one shop: a base with the runtime and the start command, and a service
# built FROM it that only adds its archive. A script builds both.
BUILD_SCRIPT = (
    "#!/bin/sh\n"
    "docker build -t registry.example/shop-base:latest platform/base\n"
    "docker build -t registry.example/web:1.0 services/web\n"
)
BASE_DOCKERFILE = (
    "FROM registry.example/jre:11\n"
    "RUN apt-get update && apt-get install -y curl\n"
    "COPY launch.sh /opt/launch.sh\n"
    "CMD /opt/launch.sh --prepare; /opt/server/bin/run.sh serve\n"
)
SERVICE_DOCKERFILE = (
    "FROM registry.example/shop-base:latest\nCOPY target/web.war /opt/server/apps/\n"
)


def shop(base: str = BASE_DOCKERFILE, service: str = SERVICE_DOCKERFILE) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(),
        "build.sh": BUILD_SCRIPT,
        "platform/base/Dockerfile": base,
        "services/web/Dockerfile": service,
        "services/web/pom.xml": "<project><artifactId>web</artifactId></project>\n",
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_an_image_inherits_the_shell_form_cmd_of_a_base_the_repository_builds(
    tmp_path: Path,
) -> None:
    (finding,) = klb406(tmp_path, shop())
    assert finding.severity is Severity.WARNING  # the base's apt-get says Debian: dash
    assert finding.path.endswith("services/web/Dockerfile") and finding.line == 1
    assert "shell-form CMD makes /bin/sh PID 1" in finding.text
    assert "inherits the CMD of " in finding.text
    assert "platform/base/Dockerfile:4, the Dockerfile of the repository that builds" in (
        finding.text
    )
    assert any(r.path.endswith("platform/base/Dockerfile") and r.line == 4 for r in finding.related)


def test_a_cmd_or_entrypoint_of_the_image_s_own_overrides_the_base_s(tmp_path: Path) -> None:
    own = SERVICE_DOCKERFILE + 'CMD ["/opt/server/bin/run.sh", "serve"]\n'
    assert klb406(tmp_path / "cmd", shop(service=own)) == []
    entry = SERVICE_DOCKERFILE + 'ENTRYPOINT ["/opt/server/bin/run.sh"]\n'
    assert klb406(tmp_path / "entrypoint", shop(service=entry)) == []


def test_a_base_built_by_two_dockerfiles_or_none_is_not_followed(tmp_path: Path) -> None:
    twice = {
        **shop(),
        "build.sh": BUILD_SCRIPT
        + "docker build -t registry.example/shop-base:latest platform/other\n",
        "platform/other/Dockerfile": 'FROM registry.example/jre:11\nCMD ["/opt/run"]\n',
    }
    assert klb406(tmp_path / "twice", twice) == []
    unbuilt = {**shop(), "build.sh": "docker build -t registry.example/web:1.0 services/web\n"}
    assert klb406(tmp_path / "unbuilt", unbuilt) == []


def test_bases_that_build_from_each_other_are_followed_without_looping(tmp_path: Path) -> None:
    loop = "FROM registry.example/web:latest\nCOPY launch.sh /opt/launch.sh\n"
    assert klb406(tmp_path, shop(base=loop)) == []


def test_the_base_s_distribution_decides_the_shell_the_inherited_line_runs_under(
    tmp_path: Path,
) -> None:
    alpine = BASE_DOCKERFILE.replace("jre:11", "jre:11-alpine").replace(
        "apt-get update && apt-get install -y", "apk add"
    )
    # BusyBox ash runs the last command in its own place: run.sh, not k8slb's to judge
    assert klb406(tmp_path, shop(base=alpine)) == []


@pytest.mark.parametrize(
    ("image", "shell"),
    [
        ("eclipse-temurin:21-jdk", DASH),
        ("tomcat:10.1-jdk17-temurin", DASH),
        ("maven:3.9-eclipse-temurin-21", DASH),
        ("eclipse-temurin:21-jdk-ubi9-minimal", "bash"),
        ("eclipse-temurin:21-jre-alpine", "ash"),
        ("eclipse-temurin:21-nanoserver", None),
        ("registry.example/acme/java:temurin", None),  # not an official image's variant
    ],
)
def test_temurin_images_are_ubuntu_unless_their_tag_names_another_distribution(
    image: str, shell: str | None
) -> None:
    assert image_sh(image) == shell


def test_opentelemetry_instrument_execs_the_command_after_its_options() -> None:
    words = ["opentelemetry-instrument", "--traces_exporter", "console", "python", "app.py"]
    assert after_prefix(words) == ["python", "app.py"]
    assert after_prefix(["opentelemetry-instrument", "--logs_exporter=otlp", "gunicorn"]) == [
        "gunicorn"
    ]


SKAFFOLD_HERE = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
FLASK_APP = (
    "from flask import Flask\n\napp = Flask(__name__)\n\n\n@app.route('/')\ndef index():\n"
    "    return 'ok'\n\n\nif __name__ == '__main__':\n    app.run(host='0.0.0.0', port=8080)\n"
)


def test_python_run_by_opentelemetry_instrument_is_pid_1(tmp_path: Path) -> None:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": (
            "FROM python:3.12-slim\nWORKDIR /app\nCOPY . /app\n"
            'ENTRYPOINT ["opentelemetry-instrument", "python", "app.py"]\n'
        ),
        "app.py": FLASK_APP,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING
    assert "python is PID 1" in finding.text


NEXT_DOCKERFILE = (
    "FROM node:20-alpine AS builder\nWORKDIR /app\nCOPY . .\nRUN npm ci && npm run build\n"
    "FROM node:20-alpine AS runner\nWORKDIR /app\nENV NODE_ENV=production\n"
    "COPY --from=builder /app/public ./public\n"
    "COPY --from=builder /app/.next/standalone ./\n"
    "COPY --from=builder /app/.next/static ./.next/static\n"
    'CMD ["node", "server.js"]\n'
)
NEXT_PAGE = "export default function Home() {\n  return <main>shop</main>;\n}\n"


def next_app() -> dict[str, str]:
    return {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": NEXT_DOCKERFILE,
        "package.json": '{"name": "web", "dependencies": {"next": "15.0.0"}}\n',
        "next.config.js": "module.exports = { output: 'standalone' };\n",
        "app/page.tsx": NEXT_PAGE,
    }


def test_the_server_js_of_next_standalone_output_handles_sigterm(tmp_path: Path) -> None:
    assert klb406(tmp_path, next_app()) == []


def test_next_s_handler_is_not_counted_when_manual_signal_handling_is_asked(
    tmp_path: Path,
) -> None:
    manual = NEXT_DOCKERFILE.replace("ENV NODE_ENV=production", "ENV NEXT_MANUAL_SIG_HANDLE=1")
    (finding,) = klb406(tmp_path, {**next_app(), "Dockerfile": manual})
    assert finding.severity is Severity.INFO
    assert "server.js is build output" in finding.text


EXPRESS_APP = (
    "const express = require('express');\nconst app = express();\n"
    "app.get('/', (req, res) => res.send('ok'));\nmodule.exports = app;\n"
)
START_SCRIPT = (
    "#!/usr/bin/env node\nconst http = require('http');\nconst app = require('../app');\n"
    "http.createServer(app).listen(process.env.PORT || 3000);\n"
)


def test_a_start_script_with_no_extension_is_not_called_build_output(tmp_path: Path) -> None:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD_HERE,
        "Dockerfile": 'FROM node:20\nWORKDIR /app\nCOPY . .\nCMD ["node", "bin/www"]\n',
        "package.json": '{"name": "web", "dependencies": {"express": "4.21.0"}}\n',
        "app.js": EXPRESS_APP,
        "bin/www": START_SCRIPT,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.INFO
    assert "build output" not in finding.text
    assert "bin/www is a file with no JavaScript extension" in finding.text


def test_the_from_line_and_env_names_are_read() -> None:
    text = "FROM a AS one\nENV A=1 B=2\nFROM one\nENV PORT 8080\n"
    dockerfile = parse_dockerfile("Dockerfile", text)
    assert dockerfile.from_said is not None and dockerfile.from_said.line == 3  # the last stage
    assert dockerfile.env_names == ("A", "B", "PORT")
