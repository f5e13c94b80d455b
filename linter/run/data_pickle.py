"""Loading pickles of k8slb's own data, and nothing else. A pickle can name any callable;
the cache is read from disk, so its pickles are loaded by an unpickler that builds only
k8slb's dataclasses, enums and YAML containers (and the few functions that rebuild them),
never calling anything that could do more than hold data."""

from __future__ import annotations

import dataclasses
import enum
import io
import pickle
from typing import Any, ClassVar

# The functions a pickle of k8slb's data may call: each builds one of its containers.
_REBUILDERS = {
    ("k8slb.reading.yamltree", "_ymap"),
    ("k8slb.reading.yamltree", "_yseq"),
    ("k8slb.run.parse_codec", "_object"),
    ("k8slb.run.parse_codec", "_facts"),
}


class _DataOnly(pickle.Unpickler):
    """Builds k8slb's dataclasses, enums and YAML containers, and nothing else."""

    # what was allowed, by (module, name): each parse is a pickle of its own, and a cached
    # run unpickles thousands, each naming the same few classes
    allowed: ClassVar[dict[tuple[str, str], Any]] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = self.allowed.get((module, name))
        if found is None:
            found = self._judge(module, name)
            self.allowed[(module, name)] = found
        return found

    def _judge(self, module: str, name: str) -> Any:
        if (module, name) in _REBUILDERS:
            return super().find_class(module, name)
        if module.startswith("k8slb.") and not name.startswith("_"):
            found = super().find_class(module, name)
            if isinstance(found, type) and (
                dataclasses.is_dataclass(found) or issubclass(found, enum.Enum)
            ):
                return found
        raise pickle.UnpicklingError(f"refused: {module}.{name}")


def load_data(payload: bytes | memoryview) -> Any:
    """The data the pickle holds; None when it names anything else, or is damaged."""
    try:
        return _DataOnly(io.BytesIO(payload)).load()
    except Exception:  # any damage a checksum let through: start afresh
        return None


def load_indexed(payload: bytes, at: int, apart: list[memoryview]) -> Any:
    """`load_data` of the pickle from `at` on, its out-of-band buffers `apart` (the parse
    store's pickles, cache.loads_store), without copying `payload`."""
    try:
        stream = io.BytesIO(payload)
        stream.seek(at)
        return _DataOnly(stream, buffers=apart).load()
    except Exception:  # any damage a checksum let through: start afresh
        return None


def load_part(blob: bytes, kind: type[Any], path: str) -> Any:
    """A part of a cached parse pickled apart (an object's body, a module's code), loaded
    when first read: data only, of the kind expected; ValueError otherwise, which a run
    reports (and again at every read: the caller keeps the blob)."""
    loaded = load_data(blob)
    if not isinstance(loaded, kind):
        raise ValueError(f"{path}: a cached parse is damaged; run with --no-cache")
    return loaded
