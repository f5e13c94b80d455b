"""Where k8slb keeps its own files for the user (the cache, the server's socket), and how it
makes sure a folder there is its own (fingerprint.py: the code that wrote them).

Light on purpose (no pathlib, no typing): `k8slb` looks here for a running server before it
imports anything else.
"""

from __future__ import annotations

import os
import stat

CACHE_ENV = "K8SLB_CACHE_DIR"


def user_cache_dir() -> str | None:
    """The folder that holds k8slb's files for the user; None when there is no home."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return configured
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "k8slb")
    home = os.path.expanduser("~")
    return os.path.join(home, ".cache", "k8slb") if os.path.isabs(home) else None


def is_own_folder(path: str | os.PathLike[str]) -> bool:
    """A real folder (not a symbolic link) that the running user owns."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()


def own_folders(folders: tuple[str | os.PathLike[str], ...], *, create: bool) -> bool:
    """Whether each folder, outermost first, is a real folder of the user's; when `create`,
    each is made first (mode 0700; the outermost with its parents)."""
    if create:
        try:
            os.makedirs(folders[0], mode=0o700, exist_ok=True)
        except OSError:
            return False
    check = make_own_folder if create else is_own_folder
    return all(check(folder) for folder in folders)


def make_own_folder(path: str | os.PathLike[str]) -> bool:
    """Make `path` (mode 0700) unless it exists; True when it is a real folder of ours."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    return is_own_folder(path)
