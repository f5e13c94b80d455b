"""A test run leaves nothing in the user's cache (`~/.cache/k8slb`, nor grpc-js's or Go's
folders beside it): tests/conftest.py points the session's k8slb at a folder of its own
and the rest of the cache at the checkout's .test-cache/, before any fixture runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from k8slb.core.home import CACHE_ENV

from .helpers import ROOT

# the ways a test reaches k8slb's cache: a module's fixture (it runs before each test's
# private cache is set), the command in a child process, and a test of its own
LEAKS = """
import subprocess
import sys

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli


def check():
    return CliRunner().invoke(cli, ["check", {demo!r}]).exit_code == 1


@pytest.fixture(scope="module")
def checked():
    return check()


def test_a_module_fixture_checks(checked):
    assert checked


def test_the_command_checks_in_a_child_process():
    command = [sys.executable, "-m", "k8slb", "check", {demo!r}]
    assert subprocess.run(command, capture_output=True, check=False).returncode == 1


def test_a_test_checks():
    assert check()
"""


def test_a_test_run_writes_nothing_under_the_users_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    demo = str(ROOT / "fixtures" / "demo" / "bad")
    (tmp_path / "test_leaks.py").write_text(LEAKS.format(demo=demo))
    unset = {CACHE_ENV, "XDG_CACHE_HOME", "NPM_CONFIG_CACHE", "PYTEST_XDIST_WORKER"}
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    environment.update(HOME=str(home), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:xdist"]
    done = subprocess.run(
        [*command, "-q", str(tmp_path / "test_leaks.py")],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert not (home / ".cache").exists(), sorted((home / ".cache").rglob("*"))[:10]
