"""TypeScript's path aliases: the module a Node import by a name that is no relative path
(`import {grpcOptions} from '@app/shared/options'`) loads where the nearest `tsconfig.json`
above the importer maps that name in `compilerOptions.paths` (`"@app/shared/*":
["libs/shared/src/*"]`, from `baseUrl`, else the tsconfig's own folder), as tsc and the
bundlers that honour it (webpack's tsconfig-paths, Nest's CLI) resolve it. A tsconfig
with no `paths` of its own is followed through its `extends` (a relative file), a few steps.

Each tsconfig.json is read once a run, from the disk, up to MAX_TSCONFIG_BYTES; one that is
no JSON (comments, trailing commas) maps nothing. Only a pattern's first target is tried,
and only where it names a scanned module: none otherwise (a package of that name)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from k8slb.code.projects import node_module_files

MAX_TSCONFIG_BYTES = 256 * 1024
MAX_EXTENDS = 4  # how many `extends` are followed from the nearest tsconfig.json
MAX_FOLDERS_UP = 16  # how far above the importer a tsconfig.json is looked for
MAX_PATTERNS = 500  # the `paths` entries read of one tsconfig
CONFIG = "tsconfig.json"


class PathAliases:
    def __init__(self, modules: Mapping[str, object]) -> None:
        self.modules = modules  # the scanned modules, by their normalised path
        self._configs: dict[str, Any] = {}  # a tsconfig's path -> its JSON (None: none)
        self._nearest: dict[str, tuple[str, list[tuple[str, str]]] | None] = {}  # by folder

    def module(self, importer: str, name: str) -> str | None:
        """The scanned module an import of `name` from the module at `importer` loads by
        a path alias, or None."""
        found = self._paths(os.path.dirname(os.path.normpath(importer)))
        if found is None:
            return None
        base, patterns = found
        for pattern, target in patterns:
            head, star, tail = pattern.partition("*")
            if not star:
                if name != pattern:
                    continue
                mapped = target
            elif name.startswith(head) and name.endswith(tail) and len(name) >= len(pattern) - 1:
                mapped = target.replace("*", name[len(head) : len(name) - len(tail)], 1)
            else:
                continue
            path = os.path.normpath(os.path.join(base, mapped))
            for candidate in node_module_files(
                "./" + os.path.basename(path), os.path.dirname(path)
            ):
                if candidate in self.modules:
                    return candidate
            return None  # the first pattern that matches decides (tsc's most specific)
        return None

    def _paths(self, folder: str) -> tuple[str, list[tuple[str, str]]] | None:
        """The nearest tsconfig.json's path patterns (most specific first) and the folder
        their targets are read from."""
        if folder in self._nearest:
            return self._nearest[folder]
        found: tuple[str, list[tuple[str, str]]] | None = None
        current = folder
        for _ in range(MAX_FOLDERS_UP):
            config = os.path.join(current, CONFIG)
            if self._read(config) is not None:
                found = self._patterns(config)
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        self._nearest[folder] = found
        return found

    def _patterns(self, config: str) -> tuple[str, list[tuple[str, str]]] | None:
        for _ in range(MAX_EXTENDS + 1):
            data = self._read(config)
            options = data.get("compilerOptions") if isinstance(data, dict) else None
            paths = options.get("paths") if isinstance(options, dict) else None
            if isinstance(paths, dict):
                folder = os.path.dirname(config)
                base_url = options.get("baseUrl") if isinstance(options, dict) else None
                base = os.path.join(folder, base_url) if isinstance(base_url, str) else folder
                patterns = [
                    (pattern, targets[0])
                    for pattern, targets in list(paths.items())[:MAX_PATTERNS]
                    if isinstance(pattern, str)
                    and pattern.count("*") <= 1
                    and isinstance(targets, list)
                    and targets
                    and isinstance(targets[0], str)
                ]
                # the longest prefix before the star first, as tsc picks
                patterns.sort(key=lambda p: (-len(p[0].partition("*")[0]), "*" in p[0]))
                return os.path.normpath(base), patterns
            extends = data.get("extends") if isinstance(data, dict) else None
            if not isinstance(extends, str) or not extends.startswith("."):
                return None
            config = os.path.normpath(os.path.join(os.path.dirname(config), extends))
            if not config.endswith(".json"):
                config += ".json"
        return None

    def _read(self, config: str) -> Any:
        if config not in self._configs:
            data: Any = None
            try:
                with open(config, "rb") as file:
                    raw = file.read(MAX_TSCONFIG_BYTES + 1)
                if len(raw) <= MAX_TSCONFIG_BYTES:
                    data = json.loads(raw)
            except (OSError, ValueError, RecursionError):
                data = None
            self._configs[config] = data
        return self._configs[config]
