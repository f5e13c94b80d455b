"""Find the files to lint: walk folders (honouring .gitignore), classify, read bytes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Literal

import pathspec

YAML_SUFFIXES = (".yaml", ".yml")
PYTHON_SUFFIXES = (".py",)
STDIN = "-"

# Folders no one keeps manifests in, skipped like ruff skips them.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".k8slb_cache",  # k8slb 0.1's cache, inside the tree; never read now
    }
)

Language = Literal["yaml", "python"]


@dataclass(frozen=True)
class Source:
    """A file to lint. `path` is shown to the user; `location` is None for stdin."""

    path: str
    language: Language
    location: Path | None
    report: bool = True  # False: read for cross-file facts only (`--context`)

    def read(self) -> bytes:
        if self.location is None:
            return sys.stdin.buffer.read()
        return self.location.read_bytes()


@dataclass
class Discovery:
    sources: list[Source] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def language_of(name: str, *, explicit: bool) -> Language | None:
    """Folders contribute only YAML and Python files; a file named on the command line
    is read as YAML unless it is Python (like `ruff` lints what it is handed)."""
    lowered = name.lower()
    if lowered.endswith(PYTHON_SUFFIXES):
        return "python"
    if lowered.endswith(YAML_SUFFIXES) or explicit:
        return "yaml"
    return None


class _IgnoreRules:
    """The .gitignore files that apply inside one folder, outermost first."""

    def __init__(self, specs: tuple[tuple[Path, pathspec.GitIgnoreSpec], ...] = ()) -> None:
        self.specs = specs

    def below(self, folder: Path) -> _IgnoreRules:
        spec = _read_gitignore(folder)
        return _IgnoreRules((*self.specs, (folder, spec))) if spec else self

    def ignores(self, path: Path, *, is_dir: bool) -> bool:
        verdict = False
        for base, spec in self.specs:  # like git, the innermost file that has a say wins
            relative = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                verdict = include
        return verdict


def _read_gitignore(folder: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = (folder / ".gitignore").read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def _git_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _rules_for(root: Path) -> _IgnoreRules:
    """The .gitignore files of the repository above `root`, down to `root` itself."""
    absolute = root.resolve()
    top = _git_root(absolute) or absolute
    rules = _IgnoreRules()
    chain = [absolute, *absolute.parents]
    for folder in reversed(chain[: chain.index(top) + 1]):
        rules = rules.below(folder)
    return rules


def _walk(root: str, exclude: Exclude | None) -> Iterator[tuple[str, Language]]:
    """(path as shown, language) of the files under `root`. Strings, not Path objects, on
    this hot path: a monorepo has thousands of files."""
    base = str(Path(root).resolve())
    shown_root = os.path.normpath(root)
    rules = {base: _rules_for(Path(base))}  # the root's own .gitignore is already in
    for folder, dirnames, filenames in os.walk(base):
        here = rules.pop(folder)
        if folder != base and ".gitignore" in filenames:  # read only the files that exist
            here = here.below(Path(folder))
        relative = folder[len(base) + 1 :]  # os.walk gives base + sep + the rest
        shown_folder = os.path.normpath(os.path.join(shown_root, relative))  # no "./" prefix
        kept = []
        for name in sorted(dirnames):
            child = os.path.join(folder, name)
            if name in SKIPPED_DIRS or (here.specs and here.ignores(Path(child), is_dir=True)):
                continue
            if exclude is not None and exclude.matches(Path(child), is_dir=True):
                continue
            rules[child] = here
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            language = language_of(name, explicit=False)
            if language is None:
                continue
            path = os.path.join(folder, name)
            if here.specs and here.ignores(Path(path), is_dir=False):
                continue
            if exclude is not None and exclude.matches(Path(path), is_dir=False):
                continue
            yield (name if shown_folder == "." else os.path.join(shown_folder, name)), language


@dataclass(frozen=True)
class Exclude:
    """The configuration's `exclude` patterns, relative to the configuration's folder."""

    patterns: tuple[str, ...]
    root: Path

    def matches(self, path: Path, *, is_dir: bool) -> bool:
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return False
        spec = _compiled(self.patterns)
        return spec.match_file(relative + ("/" if is_dir else ""))


def with_context(found: Discovery, context: Discovery) -> Discovery:
    """`found`, plus the files of `context` it lacks, read for their facts but not reported
    on: a pre-commit hook lints the changed files with the rest of the repository in view."""
    named = {s.location.resolve() for s in found.sources if s.location is not None}
    extra = [
        Source(s.path, s.language, s.location, report=False)
        for s in context.sources
        if s.location is not None and s.location.resolve() not in named
    ]
    return Discovery([*found.sources, *extra], [*found.errors, *context.errors])


@cache
def _compiled(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def discover(
    paths: Iterable[str], stdin_filename: str | None = None, exclude: Exclude | None = None
) -> Discovery:
    """The files under `paths`. Folders are walked (gitignore and `exclude` honoured);
    a file named on the command line is always read, as ruff does."""
    found = Discovery()
    seen: set[str] = set()

    def add(shown: str, language: Language, location: Path | None) -> None:
        key = os.path.abspath(location) if location else STDIN
        if key not in seen:
            seen.add(key)
            found.sources.append(Source(shown, language, location))

    for path in paths:
        if path == STDIN:
            name = stdin_filename or STDIN
            add(name, language_of(name, explicit=True) or "yaml", None)
        elif os.path.isdir(path):
            for shown, language in _walk(path, exclude):
                add(shown, language, Path(shown))
        elif os.path.exists(path):
            add(path, language_of(path, explicit=True) or "yaml", Path(path))
        elif os.path.islink(path):
            found.errors.append(f"{path}: broken symbolic link")
        else:
            found.errors.append(f"{path}: no such file or directory")
    return found
