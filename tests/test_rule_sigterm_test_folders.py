"""KLB406 for a program built below a test folder: an application that end-to-end tests
deploy (`tests/e2e/apps/web/`, its image built from a Dockerfile there) is the code its
container runs, not a test's (code/projects.built_in_test_folders)."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import CodeFacts
from k8slb.code.projects import built_in_test_folders
from k8slb.core.findings import Finding, Severity
from k8slb.reading.build_files import Dockerfile
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

APP = "tests/e2e/apps/web"
# a Makefile builds the image from a Dockerfile named for its variant, `-f` beside the code
MAKEFILE = (
    f"images:\n\tdocker build -t registry.example/web:1.0 -f {APP}/current.Dockerfile {APP}\n"
)
DOCKERFILE = (
    "FROM node:22-alpine\nWORKDIR /srv\nCOPY package.json .\nRUN npm install\nCOPY . .\n"
    'CMD ["node", "server.js"]\n'
)
SERVER = (
    "const http = require('http');\n\n"
    "const server = http.createServer((req, res) => res.end('up'));\n"
    "server.listen(8080);\n"
)


def tree(server: str = SERVER, dockerfile: str = DOCKERFILE) -> dict[str, str]:
    return {
        "tests/e2e/web.yaml": web_deployment(),
        "Makefile": MAKEFILE,
        f"{APP}/current.Dockerfile": dockerfile,
        f"{APP}/package.json": '{"name": "web", "main": "server.js"}\n',
        f"{APP}/server.js": server,
        f"{APP}/server.test.js": "test('answers', () => {});\n",
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_node_pid1_of_an_app_under_a_test_folder_is_reported(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree())
    assert finding.path.endswith(f"{APP}/current.Dockerfile") and finding.line == 6
    assert finding.severity is Severity.WARNING
    assert "node is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_its_handler_counts_as_any_program_s(tmp_path: Path) -> None:
    handled = SERVER + "process.on('SIGTERM', () => server.close());\n"
    assert klb406(tmp_path, tree(server=handled)) == []


def test_a_test_runner_s_image_leaves_its_folder_to_the_tests() -> None:
    modules = [
        CodeFacts(f"{APP}/server.js", "javascript", is_test=True),
        CodeFacts(f"{APP}/server.test.js", "javascript", is_test=True),
        CodeFacts(f"{APP}/helpers/test/fake.js", "javascript", is_test=True),
        CodeFacts("tests/e2e/check.py", "python", is_test=True),
    ]
    program = Dockerfile(f"{APP}/Dockerfile", cmd=("node", "server.js"))
    found = built_in_test_folders(modules, {program.path: program})
    assert [m.is_test for m in found] == [False, True, True, True]
    assert modules[0].is_test  # a copy: the parse is not changed
    runner = Dockerfile(f"{APP}/Dockerfile", cmd=("npm", "test"))
    assert all(m.is_test for m in built_in_test_folders(modules, {runner.path: runner}))
    pytest_image = Dockerfile(f"{APP}/Dockerfile", entrypoint=("pytest", "-q"))
    script = Dockerfile(f"{APP}/Dockerfile", entrypoint=("./run_e2e_tests.sh",))
    assert all(m.is_test for m in built_in_test_folders(modules, {runner.path: script}))
    assert all(m.is_test for m in built_in_test_folders(modules, {runner.path: pytest_image}))
