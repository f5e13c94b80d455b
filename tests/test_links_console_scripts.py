"""A container whose command is a Python project's console script (a name pyproject.toml's
`[project.scripts]`, Poetry's `[tool.poetry.scripts]`, setup.cfg's `console_scripts` or
setup.py's `setup(entry_points=...)`, as literals, declares) runs the module that script
points at: its link is that module, said in
`explain-links` with the line that declares it."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.console_scripts import MAX_PROJECT_FILE, MAX_SETUP_PY, console_scripts

from tests.test_links import links, only, workload

WORKER = """\
import signal
import time


def main():
    signal.signal(signal.SIGTERM, lambda *_: None)
    while True:
        time.sleep(1)
"""
PYPROJECT = """\
[project]
name = "ledger"

[project.scripts]
ledger-api = "ledger.api.app:main"
ledger-sweeper = "ledger.jobs.sweeper:main"
"""
# a wheel built from the project's folder, installed into a second stage: the Dockerfile's
# folder holds no code, the command names the installed script
WHEEL_DOCKERFILE = """\
FROM python:3.12-slim AS build
WORKDIR /src
COPY services/ledger/ /src/
RUN pip wheel --no-deps -w /wheels .
FROM python:3.12-slim
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl
ENTRYPOINT ["ledger-api"]
"""


def _project(folder: str, pyproject: str = PYPROJECT) -> dict[str, str]:
    return {
        f"{folder}/pyproject.toml": pyproject,
        f"{folder}/ledger/__init__.py": "",
        f"{folder}/ledger/api/__init__.py": "",
        f"{folder}/ledger/api/app.py": WORKER,
        f"{folder}/ledger/jobs/__init__.py": "",
        f"{folder}/ledger/jobs/sweeper.py": WORKER,
    }


def _command(*words: str) -> str:
    return "          command: [" + ", ".join(words) + "]\n"


def test_a_command_naming_a_console_script_links_its_module_with_no_image_known(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/sweeper.yaml": workload(name="sweeper", image="", extra=_command("ledger-sweeper")),
        **_project("services/ledger"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "ledger", "ledger", "jobs", "sweeper.py")
    declared = [e for e in row["evidence"] if "pyproject.toml" in e]
    assert declared and "services/ledger/pyproject.toml:6:" in declared[0]
    assert "console script" in declared[0]


def test_an_image_that_installs_the_project_runs_the_script_the_container_names(
    tmp_path: Path,
) -> None:
    """The build's folder (`docker/`) holds no code; the command, over the ENTRYPOINT,
    names the sweeper's script."""
    files = {
        "deploy/sweeper.yaml": workload(
            name="sweeper", image="acme/ledger:1", extra=_command("ledger-sweeper", "--once")
        ),
        "Makefile": "image:\n\tdocker build -t acme/ledger:1 -f docker/Dockerfile .\n",
        "docker/Dockerfile": WHEEL_DOCKERFILE,
        **_project("services/ledger"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "ledger", "ledger", "jobs", "sweeper.py")


def test_poetry_scripts_and_setup_cfg_console_scripts_are_read() -> None:
    poetry = '[tool.poetry.scripts]\nledger-api = "ledger.api.app:main"\n'
    ((script,),) = [console_scripts("pyproject.toml", poetry)]
    assert (script.name, script.module, script.line) == ("ledger-api", "ledger.api.app", 2)
    cfg = (
        "[metadata]\nname = ledger\n\n[options.entry_points]\nconsole_scripts =\n"
        "    ledger-api = ledger.api.app:main\n    ledger-sweeper = ledger.jobs.sweeper:run\n"
        "gui_scripts =\n    ledger-gui = ledger.gui:main\n"
    )
    found = console_scripts("setup.cfg", cfg)
    assert [(s.name, s.module) for s in found] == [
        ("ledger-api", "ledger.api.app"),
        ("ledger-sweeper", "ledger.jobs.sweeper"),
    ]


def test_a_script_two_projects_declare_for_different_modules_links_nothing(
    tmp_path: Path,
) -> None:
    other = PYPROJECT.replace("ledger.jobs.sweeper", "ledger.api.app")
    files = {
        "deploy/sweeper.yaml": workload(name="sweeper", image="", extra=_command("ledger-sweeper")),
        **_project("services/ledger"),
        **_project("legacy/ledger", other),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_a_project_file_past_its_budget_or_broken_declares_none() -> None:
    assert console_scripts("pyproject.toml", PYPROJECT + "#" * MAX_PROJECT_FILE) == ()
    assert console_scripts("pyproject.toml", "[project.scripts\nx = 'a:b'\n") == ()
    nested = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
    assert console_scripts("pyproject.toml", nested + PYPROJECT) == ()
    assert console_scripts("pyproject.toml", "[project.scripts]\nx = 'not a target'\n") == ()


SETUP_PY = """\
from setuptools import find_packages, setup

setup(
    name="ledger",
    packages=find_packages(),
    entry_points={
        "console_scripts": [
            "ledger-api=ledger.api.app:main",
            "ledger-sweeper = ledger.jobs.sweeper:main",
        ],
    },
)
"""


def test_a_console_script_setup_py_declares_links_its_module_past_a_prefix(
    tmp_path: Path,
) -> None:
    project = _project("services/ledger")
    del project["services/ledger/pyproject.toml"]
    files = {
        "deploy/sweeper.yaml": workload(
            name="sweeper",
            image="",
            extra=_command("opentelemetry-instrument", "ledger-sweeper", "--once"),
        ),
        "services/ledger/setup.py": SETUP_PY,
        **project,
    }
    row = only(links(tmp_path, files))
    assert row["code"] == os.path.join("services", "ledger", "ledger", "jobs", "sweeper.py")
    declared = [e for e in row["evidence"] if "setup.py" in e]
    assert declared and "services/ledger/setup.py:9:" in declared[0]


def test_setup_py_declares_its_console_scripts_as_literals() -> None:
    found = console_scripts("setup.py", SETUP_PY)
    assert [(s.name, s.module, s.line) for s in found] == [
        ("ledger-api", "ledger.api.app", 8),
        ("ledger-sweeper", "ledger.jobs.sweeper", 9),
    ]
    # a module-level name bound to the dict, `setuptools.setup`, and the INI text form
    bound = (
        "import setuptools\n\nENTRY_POINTS = {'console_scripts': ('acme-api=acme.api:main',)}\n"
        "setuptools.setup(name='acme', entry_points=ENTRY_POINTS)\n"
    )
    assert [s.module for s in console_scripts("setup.py", bound)] == ["acme.api"]
    ini = (
        "from setuptools import setup\n\nsetup(\n    name='acme',\n    entry_points='''\n"
        "    [console_scripts]\n    acme-api = acme.api:main\n    [acme.plugins]\n"
        "    x = acme.x:X\n    ''',\n)\n"
    )
    assert [(s.name, s.module) for s in console_scripts("setup.py", ini)] == [
        ("acme-api", "acme.api")
    ]


def test_setup_py_that_computes_its_scripts_or_does_not_parse_declares_none() -> None:
    computed = (
        "from setuptools import setup\n\nNAMES = ['api', 'worker']\n\n"
        "setup(entry_points={'console_scripts': [f'acme-{n}=acme.{n}:main' for n in NAMES]})\n"
    )
    assert console_scripts("setup.py", computed) == ()
    assert console_scripts("setup.py", "setup(entry_points={'console_scripts': [\n") == ()
    assert console_scripts("setup.py", SETUP_PY + "#" * MAX_SETUP_PY) == ()
    nested = "x = " + "(" * 100_000 + ")" * 100_000 + "\n"
    assert console_scripts("setup.py", nested + SETUP_PY) == ()
