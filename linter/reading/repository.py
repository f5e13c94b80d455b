"""How far up k8slb may look from a path: every search upward (the chart a file is in, its
project, its configuration, what a kustomization may read) stops at the repository.

A stray `Chart.yaml`, `pyproject.toml` or `.k8slb.yaml` in a shared folder above (`/tmp`,
a home folder) belongs to no one's repository: it must not make the folders under it a
chart, a project or a configured run.
"""

from __future__ import annotations

import os


def git_top(folder: str) -> str | None:
    """The nearest folder at or above `folder` that holds a `.git` (absolute), or None."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def repository_of(folder: str) -> str:
    """The top of what `folder` belongs to, as an absolute path: its repository (git_top);
    outside any, the current folder when `folder` is in it (where the user runs k8slb is
    theirs), else `folder` itself: nothing above the paths named is looked at."""
    top = git_top(folder)
    if top is not None:
        return top
    start, here = os.path.abspath(folder), os.getcwd()
    return here if inside(start, here) else start


def inside(path: str, top: str) -> bool:
    """Whether `path` is the absolute `top` or below it (by name: resolve links first)."""
    return os.path.commonpath([os.path.abspath(path), top]) == top


def upward(folder: str, top: str | None = None) -> list[str]:
    """`folder` (made absolute) and the folders above it, up to `top` (by default its
    repository's: repository_of)."""
    current = os.path.abspath(folder)
    if top is None:
        top = repository_of(current)
    chain = [current]
    while current != top:
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
        chain.append(current)
    return chain
