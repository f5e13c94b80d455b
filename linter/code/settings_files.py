"""The settings file a Go program reads with viper, as the repository holds it: the value a
key has where the environment does not set it (code/imported.py, facts.ViperKey).

viper reads the file its file calls name (`SetConfigFile(path)`, a flag's default such
as `--config=/etc/app/app.toml`; or `AddConfigPath(folder)` with `SetConfigName(name)`, the
name with each extension viper supports), by its extension (TOML, YAML, JSON), and
compares keys in any case; `AutomaticEnv` then lets a variable override a key the file
sets. The path is the image's: the copy of it in the repository is the one file of that
name nearest the code that reads it (the first folder above the code, up to its Go
module's go.mod, whose tree holds one of that name; several of them there that disagree
on the key leave it unknown). A container that sets the variable or passes another
`--config` still wins where the model reads it (model/addresses.py).

Every file is read once a run, from the disk, up to MAX_SETTINGS_BYTES; the tree below a
go.mod is listed once, up to MAX_LISTED entries (past it, nothing is found); a file that
does not parse, or a key deeper than MAX_DEPTH, gives nothing."""

from __future__ import annotations

import json
import os
from typing import Any

from k8slb.code.budget import MAX_CHOICES, MAX_DEPTH
from k8slb.core import toml_text
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import read_settings
from k8slb.reading.repository import repository_of

MAX_SETTINGS_BYTES = 256 * 1024
MAX_LISTED = 20_000  # files and folders listed below one go.mod
MAX_FOLDERS_UP = 16  # how far above the code a go.mod is looked for
MAX_ENTRIES = 10_000  # settings read of one file
# the extensions viper reads that k8slb reads too, in viper's order (SupportedExts)
EXTENSIONS = (".json", ".toml", ".yaml", ".yml")
# folders that hold no settings file an image takes: tools', tests', others' code
_SKIPPED = frozenset(("vendor", "node_modules", "testdata", ".git"))


@record
class FileValue:
    """A key's value in the repository's copy of a settings file, and where."""

    value: str
    path: str
    line: int | None  # None where the format gives no place (TOML's reader)


class SettingsFiles:
    """The repository's settings files, read once a run."""

    def __init__(self) -> None:
        self._listed: dict[str, dict[str, list[str]] | None] = {}  # go.mod folder -> by name
        self._read: dict[str, dict[str, tuple[Any, int | None]] | None] = {}
        # by the code's folder and the file names its calls give: the nearest copies
        self._near: dict[tuple[str, tuple[str, ...]], list[str] | None] = {}

    def value(self, code_path: str, files: list[str], key: str) -> FileValue | None:
        """What the settings file the code at `code_path` reads (`files`, the paths its
        viper calls name, each with or without its extension) sets at the dotted `key`:
        from the nearest copy in the repository; None when none is found, or they differ."""
        folder = os.path.dirname(os.path.normpath(code_path)) or "."
        wanted = tuple(sorted({n for path in files for n in _names(os.path.basename(path))}))
        if (folder, wanted) not in self._near:  # once a folder's files, not once a key
            self._near[folder, wanted] = self._nearest(folder, wanted)
        near = self._near[folder, wanted]
        if not near:
            return None
        given = [self._key(p, key) for p in near]
        values = {g.value if g else None for g in given}
        return given[0] if len(values) == 1 and None not in values else None

    def absent(self, code_path: str, files: list[str]) -> bool:
        """Whether the repository holds no file of a name the program's viper calls give
        (`files`), anywhere below its top (or its go.mod's folder, when that is above): an
        image built from it holds none, `ReadInConfig` finds none, and each key keeps the
        value `SetDefault` gives it. False where one is found, where a name has an
        extension k8slb does not read, or past MAX_LISTED entries."""
        names = [_names(os.path.basename(path)) for path in files]
        if not names or any(not n for n in names):
            return False
        folder = os.path.dirname(os.path.normpath(code_path)) or "."
        # both are at or above the code's folder: the outer one is the shorter
        tops = [os.path.abspath(repository_of(folder))]
        root = _module_root(folder)
        tops += [os.path.abspath(root)] if root is not None else []
        listed = self._listing(min(tops, key=len))
        return listed is not None and not any(name in listed for n in names for name in n)

    def _nearest(self, folder: str, wanted: tuple[str, ...]) -> list[str] | None:
        """The copies of the files named `wanted` at the first level above `folder` that
        holds one (_levels); None where none does, or more than MAX_CHOICES there."""
        root = _module_root(folder)
        listed = self._listing(root) if root is not None else None
        if listed is None or root is None:
            return None
        found = [p for name in wanted for p in listed.get(name, ())]
        for level in _levels(folder, root):
            near = [p for p in found if _within(p, level)]
            if near:
                return near if len(near) <= MAX_CHOICES else None
        return None

    def _listing(self, root: str) -> dict[str, list[str]] | None:
        if root not in self._listed:
            by_name: dict[str, list[str]] | None = {}
            seen = 0
            for top, folders, names in os.walk(root):
                folders[:] = sorted(f for f in folders if f not in _SKIPPED and f[:1] != ".")
                seen += len(folders) + len(names)
                if seen > MAX_LISTED:
                    by_name = None
                    break
                for name in names:
                    if name.lower().endswith(EXTENSIONS) and by_name is not None:
                        by_name.setdefault(name, []).append(
                            os.path.normpath(os.path.join(top, name))
                        )
            self._listed[root] = by_name
        return self._listed[root]

    def _key(self, path: str, key: str) -> FileValue | None:
        read = self._settings(path)
        given = read.get(key.lower()) if read is not None else None
        if given is None or len(key.split(".")) > MAX_DEPTH:
            return None
        value, line = given
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        return FileValue(str(value), path, line)

    def _settings(self, path: str) -> dict[str, tuple[Any, int | None]] | None:
        """A file's settings by their dotted keys in lower case (viper compares keys in
        any case; a key two spellings give is left out): each value, and its line."""
        if path not in self._read:
            found: dict[str, tuple[Any, int | None]] | None = None
            try:
                with open(path, "rb") as file:
                    raw = file.read(MAX_SETTINGS_BYTES + 1)
                if len(raw) <= MAX_SETTINGS_BYTES:
                    found = _flat(path, raw.decode("utf-8"))
            except (OSError, ValueError, RecursionError):
                found = None
            self._read[path] = found
        return self._read[path]


def _flat(path: str, text: str) -> dict[str, tuple[Any, int | None]] | None:
    """A settings file's scalar settings, by its extension as viper goes by it: YAML's
    with their lines (parse_spring.read_settings), TOML's and JSON's flattened here."""
    entries: list[tuple[str, Any, int | None]] = []
    if path.lower().endswith((".yaml", ".yml")):
        settings, problem = read_settings(path, text)
        if problem is not None:
            return None
        entries = [(key, value, loc.line) for key, value, loc in settings]
    elif path.lower().endswith(".toml"):
        data = toml_text.loads(text)
        if data is None:
            return None
        _flatten(data, "", entries, 0)
    else:
        _flatten(json.loads(text), "", entries, 0)
    found: dict[str, tuple[Any, int | None]] = {}
    twice: set[str] = set()
    for key, value, line in entries[:MAX_ENTRIES]:
        lowered = key.lower()
        if lowered in found:
            twice.add(lowered)
        found[lowered] = (value, line)
    for key in twice:
        del found[key]
    return found


def _flatten(value: Any, key: str, into: list[tuple[str, Any, int | None]], depth: int) -> None:
    """A TOML or JSON document's scalars by their dotted keys (no line: the readers give
    none), up to MAX_DEPTH tables deep and MAX_ENTRIES in all."""
    if isinstance(value, dict) and depth <= MAX_DEPTH:
        for name, item in value.items():
            if len(into) >= MAX_ENTRIES:
                return
            _flatten(item, f"{key}.{name}" if key else str(name), into, depth + 1)
    elif key and not isinstance(value, dict | list):
        into.append((key, value, None))


def _names(name: str) -> list[str]:
    """The file names a path viper reads may have: its own where it has an extension
    viper reads, else each extension after it (`SetConfigName("app")`)."""
    if name.lower().endswith(EXTENSIONS):
        return [name]
    if os.path.splitext(name)[1]:
        return []  # an extension k8slb does not read (`.hcl`, `.ini`, `.env`)
    return [name + extension for extension in EXTENSIONS]


def _module_root(folder: str) -> str | None:
    """The folder of the nearest go.mod at or above `folder`."""
    for _ in range(MAX_FOLDERS_UP):
        if os.path.isfile(os.path.join(folder, "go.mod")):
            return folder
        above = os.path.dirname(folder)
        if above in ("", folder):
            if folder != "." and os.path.isfile("go.mod"):
                return "."
            return None
        folder = above
    return None


def _levels(folder: str, root: str) -> list[str]:
    """The folder and those above it up to the module's root, nearest first."""
    found = [folder]
    while folder != root and len(found) <= MAX_FOLDERS_UP:
        folder = os.path.dirname(folder) or "."
        found.append(folder)
    return found


def _within(path: str, folder: str) -> bool:
    return (folder == "." and not os.path.isabs(path)) or path.startswith(folder + os.sep)
