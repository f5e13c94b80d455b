"""What a kind of input is to k8slb: how its files are found, read, parsed or rendered,
kept in the cache and reported. Each kind (plain YAML, a Helm chart, a kustomization, a
build file) is a `Reader` in `inputs/`, registered in `inputs.READERS`; the stages ask
the reader of a source's kind, never which kind it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from k8slb.core.findings import Problem
from k8slb.reading.build_files import BuildFile, names_builds
from k8slb.reading.chart_findings import RenderedTemplate
from k8slb.reading.charts import HelmOptions, Rendering
from k8slb.reading.manifests import ManifestFile


class ReadSettings(Protocol):
    """The settings of a run a reader renders with (run/settings.py's Settings has them)."""

    @property
    def helm(self) -> HelmOptions: ...


class Reader:
    """A kind of input. The defaults are a file's: found by nothing, read as it is,
    parsed alone, rendering nothing."""

    name: str = ""  # the kind of its sources (`Source.language`)

    # -- finding its sources (reading/sources.py) ------------------------------------------

    # Its folders are claimed only when the run asks (`--kustomize`).
    on_request: bool = False

    def claims_folder(self, names: Sequence[str]) -> bool:
        """Whether a folder holding these files is one source of this kind, read whole."""
        return False

    def confirms_folder(self, folder: str) -> tuple[bool, tuple[str, ...]]:
        """Whether a folder it claims by its files' names is one by their contents too (a
        chart's Chart.yaml that declares nothing is none), and the files that says so
        rests on (a remembered walk is stamped by them)."""
        return True, ()

    def claims_file(self, path: str) -> bool:
        """Whether a file of a walked folder is of this kind (by its name)."""
        return False

    def folder_of(self, path: str) -> str | None:
        """The folder source of this kind that a file named on the command line is part
        of (a chart's template a pre-commit hook names is its chart), or None."""
        return None

    def covered(self, named: Sequence[str], context: Sequence[str]) -> set[str]:
        """The context's sources of this kind that the named ones already read (a
        dependency a named chart renders): left out of a `--context` run."""
        return set()

    def left_out(self, paths: Sequence[str]) -> set[str]:
        """The sources of this kind that others of it read in (a kustomize base its
        overlays build): linted there, not on their own as well."""
        return set()

    def takes(self, paths: Sequence[str]) -> set[str]:
        """The other sources (absolute paths) that these sources of this kind read
        themselves (a chart a helmfile installs, its releases' values files): linted
        there, not also on their own (a chart with its defaults); one a run names makes
        the source that takes it reported."""
        return set()

    # -- reading -----------------------------------------------------------------------------

    def pack(self, location: str) -> bytes | None:
        """A folder source's files in one byte string (what it is rendered from, what the
        cache keys it on); None: a file, read as it is."""
        return None

    def stamp(self, path: str, location: str) -> str | None:
        """A folder source's size and times, of every file it reads (the cache trusts a
        source unchanged by it); None: a file, stamped by its own."""
        return None

    def skippable(self, path: str) -> bool:
        """Whether the file may be left unread when the cache knows its key: one parsed
        alone (a rendered source is read whole every run, and so is a file that is also
        a build file)."""
        return not self.renders and not names_builds(path)

    # -- parsing a file (parsing.py) -----------------------------------------------------------

    parse_ms_per_kb: float = 0.26  # what parsing a KB costs in one process (docs/speed.md)
    # Cheaper to parse in the parent than to have parsed in a child and sent back.
    parsed_here: bool = False
    # Read for the link between code and containers (a BuildFile), not for objects: its
    # files are the build facts' (links.py), and each is a file a run reports on.
    links: bool = False

    def parse(self, path: str, data: bytes) -> ManifestFile | BuildFile:
        raise NotImplementedError(f"{self.name} sources are rendered, not parsed")

    # -- rendering a source into manifests (engine.read_sources) ---------------------------

    renders: bool = False
    # Its renderings are kept in the cache, keyed by the source's bytes and `inputs`.
    cached: bool = True
    # Each source is judged apart from the others of its kind, a variant each (overlays
    # of one base deploy the same objects again); else each alone is judged with the
    # rest of the run, its renderings (value sets) apart.
    apart: bool = False

    def inputs(self, settings: ReadSettings) -> str:
        """What a rendering depends on besides the source's bytes (options, the engine's
        version): part of the run's and of each rendering's cache key."""
        return ""

    def render(
        self, sources: Sequence[tuple[str, bytes]], settings: ReadSettings
    ) -> list[list[Rendering]]:
        """Each source (its path and bytes) rendered: its renderings, a variant each, and
        the problems that kept it from rendering, with their path and line."""
        return [[] for _ in sources]

    def among(self, rendered: Sequence[tuple[str, list[Rendering]]]) -> list[list[Rendering]]:
        """Each source's renderings (by its path) as the run's other sources of this kind
        show them (a chart only a dependency of others: its failure alone at info). Run
        every time, on renderings fresh or from the cache (never edited: new ones)."""
        return [renderings for _, renderings in rendered]

    def templates(self, rendering: Rendering, path: str) -> Mapping[str, RenderedTemplate]:
        """Each rendered file's template: where a finding about it is put (relocation.py)."""
        return {}

    def problems_path(self, path: str, renderings: Sequence[Rendering]) -> str:
        """The file the source's rendering problems are listed under."""
        first = next((p for r in renderings for p in r.problems), None)
        return first.path if first is not None else path

    def build_bytes(self, data: bytes) -> bytes:
        """The bytes a source's build facts are read from (a rendered source that is a
        build file too, a Tiltfile: its own file's, not its packing's)."""
        return data

    def after_parse(self, rendering: Rendering, parsed: dict[str, Any]) -> Problem | None:
        """A problem only the parses of the rendered files show (they may be replaced)."""
        return None

    def placed(
        self, manifests: ManifestFile, rendering: Rendering, settings: ReadSettings
    ) -> ManifestFile:
        """A rendered file's objects as deployed (its rendering's release's namespace)."""
        return manifests

    # -- reporting and fixing --------------------------------------------------------------

    # Each named source's folder is reported whole (a chart's helpers render to no file).
    reports_folder: bool = False
    # Its text is its folder's files packed, relative to it (charts.pack_members): a fix
    # carried there is written file by file.
    packs_folder: bool = False

    def reported(self, path: str) -> bool:
        """Whether a file it reads is reported on, or read for its facts only."""
        return True

    def reported_files(self, path: str) -> list[str]:
        """The files a named source's findings may land in, besides its rendered files."""
        return []
