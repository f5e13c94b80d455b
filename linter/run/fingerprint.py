"""The fingerprint of k8slb's code, which keys the cache and the server: what other code
made, even under the same version number (a development checkout), is never reused.

Light on purpose (no pathlib, no typing): `k8slb` computes it to look for a running server
before it imports anything else. In the run layer: it names the rules' package, whose
folder an editable install maps beside k8slb's (rules/ beside linter/), not inside it.
"""

from __future__ import annotations

import importlib.util
import os

import k8slb

RULES = "k8slb.rules"


def package_folders() -> list[tuple[str, str]]:
    """k8slb's modules as (dotted prefix, folder): k8slb's own, and the rules' where they are
    not inside it. The rules' package is found, not imported (that would load every rule)."""
    folders = [("k8slb.", folder) for folder in k8slb.__path__]
    spec = importlib.util.find_spec(RULES)
    for folder in (spec and spec.submodule_search_locations) or ():
        if not any(os.path.commonpath([folder, outer]) == outer for _, outer in folders):
            folders.append((RULES + ".", folder))
    return folders


def code_fingerprint() -> str:
    """k8slb's own modules, the compiled one too (name, size, modification time)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=8)
    for _, package in package_folders():
        for folder, subfolders, files in os.walk(package):
            subfolders.sort()
            for name in sorted(files):
                if name.endswith((".py", ".so", ".pyd")):
                    try:
                        status = os.stat(os.path.join(folder, name))
                    except OSError:  # a link to a module since removed (a development tree)
                        digest.update(f"{name}:gone;".encode())
                        continue
                    digest.update(f"{name}:{status.st_size}:{status.st_mtime_ns};".encode())
    return digest.hexdigest()
