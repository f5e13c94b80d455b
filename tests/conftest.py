"""Every test's k8slb keeps its cache in a folder of that test, never in the user's."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.home import CACHE_ENV


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    folder = tmp_path_factory.mktemp("k8slb-cache")
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder
