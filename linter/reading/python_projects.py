"""What a Python project's build file says of the wheel it builds: the distribution's name
(pyproject.toml's `[project] name` or Poetry's, setup.cfg's `[metadata] name`, setup.py's
`name="..."`) and the package folders that wheel holds, where the file names them
(setuptools' `packages`, Hatch's wheel target's `packages`/`include`, Poetry's `packages`).
Read from the file's bytes, nothing executed; a value that is not a plain literal is none.
An image that installs a wheel its build context was given (`COPY app*.whl /tmp/`) runs
the code of the one package folder of the one project of that name (model/links.py)."""

from __future__ import annotations

import os
import sys
from typing import Any

from k8slb.core import regex
from k8slb.core.record import record

PYPROJECT = "pyproject.toml"
SETUP_CFG = "setup.cfg"
SETUP_PY = "setup.py"
PYTHON_PROJECT_FILES = frozenset({PYPROJECT, SETUP_CFG, SETUP_PY})
# Past this size a project file is not read (a project's is a few KB)
MAX_PROJECT_FILE = 64 * 1024
# A package list of more entries than this says no one folder either way
MAX_PACKAGES = 16

# A folder of packages as a build file names it: `app`, `src/app`, `./app/` (no glob)
_PACKAGE = regex.compile(r"\.?/?[A-Za-z_][\w.-]*(?:/[A-Za-z_][\w.-]*)*/?")
# setup.py: `setup(` and its literal `name="..."` and `packages=["..."]` (one line's)
_SETUP_CALL = regex.compile(r"\bsetup\s*\(")
_SETUP_NAME = regex.compile(r"\bname\s*=\s*[\"']([A-Za-z0-9][\w.-]*)[\"']")
_SETUP_PACKAGES = regex.compile(r"\bpackages\s*=\s*\[([^\]\n]*)\]")
_QUOTED = regex.compile(r"[\"']([^\"'\n]*)[\"']")
# setup.cfg: a `[section]` line, and a `key = value` line
_INI_SECTION = regex.compile(r"(?m)^\[([^\]\n]*)\]")
_INI_VALUE = regex.compile(r"(?m)^([A-Za-z_][\w-]*)\s*[=:][ \t]*([^\n]*)$")
# The separators a distribution's name is normalised over (PEP 503), and a wheel file's
# distribution part: its name up to the version (`app_core-1.0-py3-none-any.whl`) or a glob
_SEPARATORS = regex.compile(r"[-_.]+")
_WHEEL_DISTRIBUTION = regex.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._]*[A-Za-z0-9])?)(?:-|\*|\?)")


@record
class PythonProject:
    """A Python project file's distribution name (normalised) and the package folders its
    wheel holds, relative to the file's folder: () where the file names none (the folder
    named as the project is then its package), several where it names several."""

    path: str
    name: str
    packages: tuple[str, ...] = ()

    @property
    def folder(self) -> str:
        return os.path.dirname(os.path.normpath(self.path)) or "."


def normal_name(name: str) -> str:
    """A distribution's name as PEP 503 compares them: lower case, `-`, `_`, `.` as `_`."""
    return _SEPARATORS.sub("_", name).lower()


def wheel_distribution(source: str) -> str | None:
    """The normalised distribution name of a wheel a COPY or ADD takes, from its file name
    (`dist/app_core-1.0-py3-none-any.whl`, `app_core*.whl`: `app_core`); None for a name
    that says none (`*.whl`, `${WHEEL}`)."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    if not name.lower().endswith(".whl"):
        return None
    match = _WHEEL_DISTRIBUTION.match(name[: -len(".whl")] + "-")
    return normal_name(match.group(1)) if match is not None else None


def read_python_project(path: str, data: bytes) -> PythonProject | None:
    """What a pyproject.toml, setup.cfg or setup.py says of its wheel; None when it names
    no distribution, or is too large to read."""
    if len(data) > MAX_PROJECT_FILE:
        return None
    text = data.decode("utf-8", errors="replace")
    name = os.path.basename(path)
    if name == PYPROJECT:
        found = _pyproject(text)
    elif name == SETUP_CFG:
        found = _setup_cfg(text)
    elif name == SETUP_PY:
        found = _setup_py(text)
    else:
        return None
    if found is None:
        return None
    distribution, packages = found
    return PythonProject(path, normal_name(distribution), packages)


def _pyproject(text: str) -> tuple[str, tuple[str, ...]] | None:
    if sys.version_info >= (3, 11):  # imported here: most runs read no TOML
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None
    tool = _table(data.get("tool"))
    poetry = _table(tool.get("poetry"))
    name = _table(data.get("project")).get("name") or poetry.get("name")
    if not isinstance(name, str):
        return None
    hatch = _table(_table(_table(_table(tool.get("hatch")).get("build")).get("targets")))
    wheel = _table(hatch.get("wheel"))
    listed = (
        _table(tool.get("setuptools")).get("packages"),
        wheel.get("packages"),
        wheel.get("include"),
        [p.get("include") if isinstance(p, dict) else p for p in _list(poetry.get("packages"))],
    )
    for packages in listed:
        if isinstance(packages, list) and packages:
            return name, _folders(packages)
    return name, ()


def _table(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _folders(packages: list[object]) -> tuple[str, ...]:
    """The folders a package list names (`app.api` is `app/api`); a list with an entry
    that is no plain folder (a glob, a table) names more than one, so says no one."""
    found: list[str] = []
    for package in packages[: MAX_PACKAGES + 1]:
        if not isinstance(package, str) or not _PACKAGE.fullmatch(package):
            return ("", "")  # not one folder the file names: ambiguous
        folder = package.strip("/").removeprefix("./")
        found.append(folder if "/" in folder else folder.replace(".", "/"))
    return tuple(dict.fromkeys(found))


def _setup_cfg(text: str) -> tuple[str, tuple[str, ...]] | None:
    """setup.cfg's `[metadata] name` and its `[options] packages` on that line (`find:`
    and a list over several lines say no one folder: none named)."""
    sections = [(m.start(), m.group(1).strip()) for m in _INI_SECTION.finditer(text)]
    name: str | None = None
    packages: tuple[str, ...] = ()
    for match in _INI_VALUE.finditer(text):
        section = next((s for start, s in reversed(sections) if start < match.start()), "")
        key, value = match.group(1), match.group(2).strip()
        if section == "metadata" and key == "name" and value:
            name = value
        elif section == "options" and key == "packages" and value and value != "find:":
            packages = _folders([p.strip() for p in value.split(",") if p.strip()])
    return (name, packages) if name is not None else None


def _setup_py(text: str) -> tuple[str, tuple[str, ...]] | None:
    """setup.py's one literal `name="..."` in a file that calls `setup(`, and its literal
    `packages=[...]` list on one line; a file naming several names says none."""
    if not _SETUP_CALL.search(text):
        return None
    names = {m.group(1) for m in _SETUP_NAME.finditer(text)}
    if len(names) != 1:
        return None
    lists = [m.group(1) for m in _SETUP_PACKAGES.finditer(text)]
    packages: tuple[str, ...] = ()
    if len(lists) == 1:
        packages = _folders([m.group(1) for m in _QUOTED.finditer(lists[0])])
    elif lists:
        packages = ("", "")
    return names.pop(), packages
