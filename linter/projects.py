"""Which Python modules form one project: shutdown and health are judged per project (a
SIGTERM handler in another module of the same program counts), not per file and not
across unrelated programs that happen to be scanned together."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from k8slb.pyfacts import PythonFacts


def project_root(path: str, scanned: set[PurePath]) -> str:
    """The folder above the outermost package that holds the module: from the module's
    folder, go up while the folder is a package (has a scanned `__init__.py`)."""
    folder = PurePath(path).parent
    while (folder / "__init__.py") in scanned and folder.parent != folder:
        folder = folder.parent
    return str(folder)


def assign_projects(modules: Iterable[PythonFacts]) -> None:
    modules = list(modules)
    scanned = {PurePath(m.path) for m in modules}
    for module in modules:
        module.project = project_root(module.path, scanned)
