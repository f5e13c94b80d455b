"""k8slb: a linter and fixer for load-balancing and graceful-shutdown pitfalls on Kubernetes."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is not imported: `k8slb` starts by asking a server
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"


def schema(name: str) -> Any:
    """One of k8slb's JSON schemas (`schemas/NAME`), read beside this module: importlib's
    resources would import tempfile, shutil and the compression modules on every run."""
    import json

    with open(os.path.join(os.path.dirname(__file__), "schemas", name), encoding="utf-8") as f:
        return json.load(f)
