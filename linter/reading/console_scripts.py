"""A Python project's console scripts: the commands pip puts on the PATH when it installs
the project, each running a module's function (`aibrix_worker = 'acme.batch.worker:main'`).
A container whose command is such a name runs that module (model/links.py).

Read from pyproject.toml (`[project.scripts]`, Poetry's `[tool.poetry.scripts]`) with
tomllib, and from setup.cfg's `[options.entry_points]` `console_scripts` by lines; setup.py
is code, not read for them. Each file is read once, up to MAX_PROJECT_FILE bytes and
MAX_CONSOLE_SCRIPTS scripts; nothing is run.
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from k8slb.core import regex
from k8slb.core.record import record

PYPROJECT = "pyproject.toml"
SETUP_CFG = "setup.cfg"
MAX_PROJECT_FILE = 256 * 1024  # bytes: a larger project file names no console script
MAX_CONSOLE_SCRIPTS = 256  # of a file: the rest are not read
# `module.path:function` (the function may be an attribute path: `cli.app.main`)
_TARGET = regex.compile(r"^\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*:\s*[A-Za-z_][\w.]*\s*$")
_NAME = regex.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@record
class ConsoleScript:
    """A console script: the command's name, the module it runs, and where the file says
    so (its line, 1-based, and that line's words)."""

    name: str
    module: str
    line: int
    text: str


def console_scripts(name: str, text: str) -> tuple[ConsoleScript, ...]:
    """The console scripts a project file (pyproject.toml or setup.cfg, by its `name`)
    declares; none from a file past MAX_PROJECT_FILE or one that does not parse."""
    if len(text) > MAX_PROJECT_FILE:
        return ()
    pairs = _pyproject(text) if name == PYPROJECT else _setup_cfg(text) if name == SETUP_CFG else []
    lines = text.splitlines()
    found: list[ConsoleScript] = []
    for script, target in pairs[:MAX_CONSOLE_SCRIPTS]:
        module = _TARGET.match(target) if isinstance(target, str) else None
        if module is None or not _NAME.match(script):
            continue
        at = next((i for i, line in enumerate(lines) if line.strip().startswith(script)), 0)
        said = lines[at].strip() if lines else ""
        found.append(ConsoleScript(script, module[1], at + 1, said))
    return tuple(found)


def _pyproject(text: str) -> list[tuple[str, object]]:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):  # arrays nested past the stack
        return []
    tables = [data.get("project", {}), data.get("tool", {})]
    poetry = tables[1].get("poetry", {}) if isinstance(tables[1], dict) else {}
    scripts = [table.get("scripts") for table in (tables[0], poetry) if isinstance(table, dict)]
    return [
        (str(key), value)
        for table in scripts
        if isinstance(table, dict)
        for key, value in table.items()
    ]


def _setup_cfg(text: str) -> list[tuple[str, object]]:
    """`name = module:function` lines of the `console_scripts` key of setup.cfg's
    `[options.entry_points]` section: the key's own value and its indented lines after."""
    pairs: list[tuple[str, object]] = []
    section, inside = "", False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section, inside = stripped[1:-1].strip(), False
            continue
        if section != "options.entry_points" or not stripped or stripped.startswith("#"):
            continue
        if not line[0].isspace():  # a key of the section
            key, _, value = stripped.partition("=")
            inside = key.strip() == "console_scripts"
            stripped = value.strip()
        if inside and "=" in stripped:
            script, _, target = stripped.partition("=")
            pairs.append((script.strip(), target.strip()))
    return pairs
