"""Kustomizations, built on request (`--kustomize`): a kustomization's folder, read whole,
built by kustomize (reading/kustomize.py); each build is judged apart, as overlays of one
base deploy its objects again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from k8slb.inputs.reader import Reader, ReadSettings
from k8slb.reading.chart_findings import RenderedTemplate
from k8slb.reading.charts import Rendering
from k8slb.reading.kustomize import (
    build,
    building,
    built_templates,
    files_of,
    included,
    is_kustomization,
    pack_files,
    signature,
)


class Kustomizations(Reader):
    name = "kustomize"
    on_request = True
    renders = True
    cached = False  # built on every run
    apart = True

    def claims_folder(self, names: Sequence[str]) -> bool:
        return is_kustomization(list(names))

    def covered(self, named: Sequence[str], context: Sequence[str]) -> set[str]:
        # the context's overlays that build a named kustomization in are other
        # deployments of it, whose findings would land in its files a second time
        return building(context, named)

    def left_out(self, paths: Sequence[str]) -> set[str]:
        return included(paths)

    def pack(self, location: str) -> bytes:
        return pack_files(location)

    def stamp(self, path: str, location: str) -> str:
        return signature(path)

    def render(
        self, sources: Sequence[tuple[str, bytes]], settings: ReadSettings
    ) -> list[list[Rendering]]:
        return [[build(path)] for path, _ in sources]

    def templates(self, rendering: Rendering, path: str) -> Mapping[str, RenderedTemplate]:
        return built_templates(rendering, path)

    def reported_files(self, path: str) -> list[str]:
        # a build's findings are put in the resource files it read, a base's among them
        return files_of(path)


KUSTOMIZATIONS = Kustomizations()
