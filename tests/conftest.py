"""The test session's settings. Nothing is written in the user's cache: the session's
k8slb keeps its cache in a folder of its own (each test's in a folder of that test), and
what the tests download or build (grpc-js with npm, Go's build cache, Neovim's state) goes
under the checkout's .test-cache/ (XDG_CACHE_HOME; git ignores it), where the next run
finds it. The k8slb the tests import is this checkout's (linter/ and rules/ themselves).
No test's `-v` leaves the process debugging for the tests after it. Property tests have no
time limit per example: speed is the benchmarks' to measure, and a busy machine made
Hypothesis's default deadline fail tests that were right."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import k8slb
import pytest
from hypothesis import settings
from k8slb.core.home import CACHE_ENV
from k8slb.core.internal import DEBUG_ENV

settings.register_profile("k8slb", deadline=None)
settings.load_profile("k8slb")

ROOT = Path(__file__).resolve().parent.parent
TEST_CACHE = ROOT / ".test-cache"
_SESSION_CACHE = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    # its folder, not its files: a link tree of an older install links each file
    if [Path(folder).resolve() for folder in k8slb.__path__] != [ROOT / "linter"]:
        pytest.exit(
            f"k8slb is imported from {k8slb.__path__}, not from {ROOT}/linter:"
            " an install from before k8slb's modules were read in place; run `make install`",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    # set here, before any fixture (a module's ran before `private_cache`) or child process
    session_cache = tempfile.mkdtemp(prefix="k8slb-test-cache-")
    config.stash[_SESSION_CACHE] = session_cache
    os.environ[CACHE_ENV] = session_cache
    os.environ["XDG_CACHE_HOME"] = str(TEST_CACHE)
    os.environ["NPM_CONFIG_CACHE"] = str(TEST_CACHE / "npm")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The proofs on real gRPC runtimes (`proof`) run one after the other, on one worker
    of `pytest -n` (`--dist loadgroup`), while the other tests share every worker: each
    proof starts a dozen processes, and two at once would starve each other."""
    for item in items:
        if item.get_closest_marker("proof"):
            item.add_marker(pytest.mark.xdist_group("proofs"))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSION_CACHE in config.stash:
        shutil.rmtree(config.stash[_SESSION_CACHE], ignore_errors=True)


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("k8slb-cache")
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


@pytest.fixture(autouse=True)
def debugging_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """`-v` sets K8SLB_DEBUG in the process it runs in (CliRunner's: the test-suite's), so
    that every internal error comes with its traceback: undone after each test."""
    monkeypatch.setenv(DEBUG_ENV, "")
