"""A Python project's console scripts: the commands pip puts on the PATH when it installs
the project, each running a module's function (`aibrix_worker = 'acme.batch.worker:main'`).
A container whose command is such a name runs that module (model/links.py).

Read from pyproject.toml (`[project.scripts]`, Poetry's `[tool.poetry.scripts]`) with
tomllib, from setup.cfg's `[options.entry_points]` `console_scripts` by lines, and from
setup.py's `setup(entry_points=...)` as its syntax tree says, literals only (a dict, or a
module-level name bound to one once; its `console_scripts` a list of strings, or the INI
text setuptools also takes): setup.py is code, and what it computes is not followed.
Each file is read once, up to MAX_PROJECT_FILE bytes (setup.py, MAX_SETUP_PY) and
MAX_CONSOLE_SCRIPTS scripts; nothing is run.
"""

from __future__ import annotations

import ast

from k8slb.core import regex, toml_text
from k8slb.core.record import record

PYPROJECT = "pyproject.toml"
SETUP_CFG = "setup.cfg"
SETUP_PY = "setup.py"
MAX_PROJECT_FILE = 256 * 1024  # bytes: a larger project file names no console script
# setup.py is parsed as Python (its syntax tree, once more): a larger one is read for none
MAX_SETUP_PY = 64 * 1024
MAX_CONSOLE_SCRIPTS = 256  # of a file: the rest are not read
# `module.path:function` (the function may be an attribute path: `cli.app.main`)
_TARGET = regex.compile(r"^\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*:\s*([A-Za-z_][\w.]*)\s*$")
_NAME = regex.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@record
class ConsoleScript:
    """A console script: the command's name, the module it runs, and where the file says
    so (its line, 1-based, and that line's words); the function of the module it calls
    (`main`; an attribute path, `cli.main`, as written)."""

    name: str
    module: str
    line: int
    text: str
    function: str = ""


def console_scripts(name: str, text: str) -> tuple[ConsoleScript, ...]:
    """The console scripts a project file (pyproject.toml, setup.cfg or setup.py, by its
    `name`) declares; none from a file past MAX_PROJECT_FILE or one that does not parse."""
    if len(text) > (MAX_SETUP_PY if name == SETUP_PY else MAX_PROJECT_FILE):
        return ()
    readers = {PYPROJECT: _pyproject, SETUP_CFG: _setup_cfg, SETUP_PY: _setup_py}
    pairs = readers[name](text) if name in readers else []
    lines = text.splitlines()
    first: dict[str, int] = {}  # each line's leading name, at its first line
    for at, line in enumerate(lines):
        first.setdefault(_leading_name(line), at)
    found: list[ConsoleScript] = []
    for script, target in pairs[:MAX_CONSOLE_SCRIPTS]:
        module = _TARGET.match(target) if isinstance(target, str) else None
        if module is None or not _NAME.match(script):
            continue
        at = first.get(script, 0)
        said = lines[at].strip() if lines else ""
        found.append(ConsoleScript(script, module[1], at + 1, said, module[2]))
    return tuple(found)


def _leading_name(line: str) -> str:
    """The name a line starts with, past its indentation and an opening quote (setup.py's
    `'name=module:main',`, TOML's `"name" = ...`), up to `=`, a space or a quote."""
    name = line.strip().lstrip("'\"")
    for end in "= \t'\"":
        name = name.split(end, 1)[0]
    return name


def _pyproject(text: str) -> list[tuple[str, object]]:
    data = toml_text.loads(text)
    if data is None:
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
            pairs.append(_pair(stripped))
    return pairs


def _setup_py(text: str) -> list[tuple[str, object]]:
    """`name=module:function` strings of the `console_scripts` of setup.py's `setup(...,
    entry_points=...)` call (`setuptools.setup` too): a dict literal, or a name the
    module binds to one at its top; `console_scripts` a list or tuple of strings, or one
    string of lines. The INI text setuptools takes for the whole of `entry_points`
    (`[console_scripts]` then `name = module:function` lines) is read too."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    bound = {  # the module's top-level `NAME = {...}`, for `entry_points=NAME`
        target.id: statement.value
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _called(node.func) != "setup":
            continue
        for keyword in node.keywords:
            if keyword.arg != "entry_points":
                continue
            value = keyword.value
            if isinstance(value, ast.Name):
                value = bound.get(value.id, value)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return _ini_scripts(value.value)
            if isinstance(value, ast.Dict):
                return _dict_scripts(value)
    return []


def _called(func: ast.expr) -> str:
    """The name a call's function is written with (`setup`, `setuptools.setup`: `setup`)."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _dict_scripts(entry_points: ast.Dict) -> list[tuple[str, object]]:
    for key, value in zip(entry_points.keys, entry_points.values, strict=True):
        if not (isinstance(key, ast.Constant) and key.value == "console_scripts"):
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            lines = value.value.splitlines()
        elif isinstance(value, (ast.List, ast.Tuple)):
            lines = [
                item.value
                for item in value.elts
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
        else:
            return []
        return [_pair(line) for line in lines if "=" in line]
    return []


def _ini_scripts(text: str) -> list[tuple[str, object]]:
    """The `name = module:function` lines of an INI text's `[console_scripts]` section."""
    pairs: list[tuple[str, object]] = []
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif section == "console_scripts" and "=" in stripped and not stripped.startswith("#"):
            pairs.append(_pair(stripped))
    return pairs


def _pair(line: str) -> tuple[str, object]:
    script, _, target = line.partition("=")
    return script.strip(), target.strip()
