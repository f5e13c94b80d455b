"""KLB406 and an init as PID 1 whose child is a shell script: tini (as docker-init and
catatonit) passes SIGTERM to its child alone. When that child is a script of the tree that
starts the server in the background, with no `exec` that hands over and no `trap`, the
shell ends on SIGTERM, the init exits with it and the server is killed with the
container, never told to stop. `tini -g` (the process group), dumb-init (the group by
default), a trap, an exec, or nothing in the background: nothing to say."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# A search service: the API server in the background, the indexer in the foreground.
START = """\
#!/bin/bash
set -e

[ -f /etc/search/env ] && . /etc/search/env

if [ "$#" -gt 0 ]; then
    exec "$@"
fi

uvicorn search.api:app \\
    --host 0.0.0.0 --port 8080 &

python -m search.indexer --watch /data
"""
SERVER = """\
from fastapi import FastAPI

app = FastAPI()
"""


def dockerfile(entrypoint: str = '"/usr/bin/tini", "--", "/srv/start.sh"') -> str:
    return (
        "FROM python:3.12-slim\nWORKDIR /srv\nCOPY search/ search/\n"
        "COPY docker/start.sh /srv/start.sh\nRUN pip install fastapi uvicorn tini\n"
        f"ENTRYPOINT [{entrypoint}]\n"
    )


def files(start: str = START, entrypoint: str | None = None, manifest: str = "") -> dict[str, str]:
    return {
        "manifest.yaml": manifest or web_deployment(),
        "build.sh": "docker build -t registry.example/web .\n",
        "Dockerfile": dockerfile(entrypoint) if entrypoint else dockerfile(),
        "docker/start.sh": start,
        "search/__init__.py": "",
        "search/api.py": SERVER,
        "search/indexer.py": "import time\n",
    }


def klb406(tmp_path: Path, tree: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, tree, ["KLB406"]).findings


def test_a_script_under_tini_that_starts_the_server_in_the_background(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, files())
    assert finding.path.endswith("/Dockerfile") and finding.line == 6
    assert finding.severity is Severity.WARNING
    assert "tini is PID 1 and passes SIGTERM to its child alone, start.sh, a bash script" in (
        finding.text
    )
    assert "`uvicorn search.api:app --host ...` in the background" in finding.text
    assert "run tini with -g" in finding.text


@pytest.mark.parametrize(
    "entrypoint",
    [
        '"/usr/bin/tini", "-g", "--", "/srv/start.sh"',  # the whole process group
        '"tini", "-sg", "--", "/srv/start.sh"',
        '"dumb-init", "/srv/start.sh"',  # dumb-init signals the group by default
    ],
)
def test_an_init_that_signals_the_process_group(tmp_path: Path, entrypoint: str) -> None:
    assert not klb406(tmp_path, files(entrypoint=entrypoint))


def test_dumb_init_told_to_signal_its_child_alone(tmp_path: Path) -> None:
    entrypoint = '"dumb-init", "--single-child", "bash", "/srv/start.sh"'
    assert klb406(tmp_path, files(entrypoint=entrypoint))


@pytest.mark.parametrize(
    "start",
    [
        START.replace("set -e\n", "set -e\ntrap 'kill -TERM $api; wait $api' TERM\n"),
        START.replace("python -m search.indexer", "exec python -m search.indexer"),
        START.replace(" &\n", "\n"),  # nothing in the background
    ],
)
def test_a_script_that_traps_execs_or_runs_nothing_in_the_background(
    tmp_path: Path, start: str
) -> None:
    assert not klb406(tmp_path, files(start=start))


def test_arguments_that_the_script_execs_take_another_path(tmp_path: Path) -> None:
    manifest = web_deployment('args: ["python", "-m", "search.worker"]')
    assert not klb406(tmp_path, files(manifest=manifest))
