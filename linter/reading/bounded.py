"""Reading a file without trusting it to end: a named `/dev/zero`, a runaway pipe or a
huge file is refused at a limit instead of filling the memory."""

from __future__ import annotations

import os
from typing import BinaryIO

CHUNK = 1 << 20  # what one read asks for once the first has not reached the end


def read_bounded(handle: BinaryIO, limit: int) -> bytes | None:
    """The bytes to the end, or None when there are more than `limit`. The first read
    asks for the file's size plus one byte where the size is known: asking for `limit`
    bytes at once makes Python allocate that much for every file, which tripled the time
    of reading a tree of small files. An unbuffered file (`buffering=0`) reads each
    request with one system call, and into no buffer of its own."""
    try:
        status = os.fstat(handle.fileno())
        first = status.st_size + 1 if status.st_size else CHUNK
    except (OSError, ValueError, AttributeError):  # a stream with no file behind it
        first = CHUNK
    chunks: list[bytes] = []
    total = 0
    want = first
    while total <= limit:
        asked = min(want, limit + 1 - total)
        chunk = handle.read(asked)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        # a short read is almost always the end: a one-byte read confirms it (an unbuffered
        # file allocates what it is asked for); a full one means there is more
        want = CHUNK if len(chunk) == asked else 1
    if total > limit:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
