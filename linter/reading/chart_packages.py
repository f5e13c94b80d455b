"""Packaged charts (`charts/cache-1.2.3.tgz`), opened and made in memory."""

from __future__ import annotations

import io
from collections.abc import Mapping

_MAX_UNPACKED = 64 * 1024 * 1024  # bytes read out of one archive (a small .tgz can hold TBs)


def is_package(name: str) -> bool:
    """Whether a chart's file is a packaged subchart."""
    return name.endswith(".tgz") and (name.startswith("charts/") or "/charts/" in name)


def unpacked(data: bytes) -> dict[str, bytes]:
    """A packaged chart's regular files, by their path in the archive; what cannot be
    read is left out (Helm says why when it loads the archive)."""
    import tarfile

    files: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            for info in archive:
                total += info.size
                if total > _MAX_UNPACKED:
                    break
                if info.isfile():
                    extracted = archive.extractfile(info)
                    if extracted is not None:
                        files[info.name] = extracted.read()
    except (tarfile.TarError, OSError, EOFError):
        pass
    return files


def packed(files: Mapping[str, bytes]) -> bytes:
    """Files (paths as in the archive) as a .tgz, made in memory."""
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
