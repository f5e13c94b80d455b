"""A digest of a file named by the options rather than found as a source (a values file,
the configuration): part of the keys of cached renderings and results."""

from __future__ import annotations

import hashlib


def content_digest(path: str) -> str:
    """A digest of the file's bytes, or why it cannot be read (so that a file that appears
    later changes it too)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.blake2b(handle.read(), digest_size=20).hexdigest()
    except OSError as error:
        return f"unreadable: {error.strerror}"
