"""A run's settings, and their digest: what, besides the files' bytes, a run's result
depends on, and so the part of a cached result's key (run_memory.py, over cache.py's
result store) that is not the files'. Below the cache and the run that key on it."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path

from k8slb.core.edits import FixValues
from k8slb.core.record import record
from k8slb.inputs import READERS, Reader
from k8slb.model.links import Pin
from k8slb.reading.charts import HelmOptions
from k8slb.reading.file_digest import content_digest
from k8slb.reading.sources import Source
from k8slb.rulekit.base import Rule
from k8slb.run.config import Exemption


@record
class Settings:
    rules: Sequence[type[Rule]]
    kubernetes_version: tuple[int, int] = (1, 30)
    mesh: str = "none"
    fix_values: FixValues = field(default_factory=FixValues)
    per_file_ignores: Mapping[str, frozenset[str]] = field(default_factory=dict)
    exemptions: Sequence[Exemption] = ()
    config_root: Path | None = None
    report_unused_ignores: bool = False
    today: datetime.date | None = None  # when exemptions expire; None: the real today
    helm: HelmOptions = field(default_factory=HelmOptions)
    links: Mapping[str, Pin] = field(default_factory=dict)  # pinned: container key -> code
    config_file: str | None = None  # the configuration read, if any

    def digest(self, sources: Sequence[Source]) -> str:
        """Everything besides the sources' bytes that a run's result depends on: the one
        place a cached result's key is made of (with the bytes of the files, run_key), so
        an input left out here is an answer the cache gets wrong (sets sorted: their order
        changes from one process to the next). k8slb's own code, the compiled builder
        among it, keys the cache's folder (cache_version)."""
        return repr(
            (
                (self.config_file, self.config_file and content_digest(self.config_file)),
                # what the rendered sources render with, only for the kinds the run has
                # (finding the Helm engine's version costs a run without charts some 15 ms)
                [reader.inputs(self) for reader in _readers_of(sources) if reader.renders],
                [rule.id for rule in self.rules],
                self.kubernetes_version,
                self.mesh,
                self.fix_values,
                sorted((pattern, sorted(ids)) for pattern, ids in self.per_file_ignores.items()),
                [(sorted(e.rules), replace(e, rules=frozenset())) for e in self.exemptions],
                str(self.config_root),
                self.report_unused_ignores,
                self.today or datetime.date.today(),
                sorted(self.links.items()),
                [(s.path, s.language, s.report, s.unread, s.test_data) for s in sources],
            )
        )


def _readers_of(sources: Sequence[Source]) -> list[Reader]:
    """The readers of the kinds among the sources, in the registry's order."""
    kinds = {source.language for source in sources}
    return [reader for name, reader in READERS.items() if name in kinds]
