"""Every test's k8slb keeps its cache in a folder of that test, never in the user's, and
no test's `-v` leaves the process debugging for the tests after it. Property tests have no
time limit per example: speed is the benchmarks' to measure, and a busy machine made
Hypothesis's default deadline fail tests that were right."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings
from k8slb.core.home import CACHE_ENV
from k8slb.core.internal import DEBUG_ENV

settings.register_profile("k8slb", deadline=None)
settings.load_profile("k8slb")


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
