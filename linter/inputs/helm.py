"""Helm charts: a chart's folder, read whole, rendered by Helm's engine with each of its
value sets (reading/charts.py), all a run's charts in one child process; a finding about a
rendered file goes back to its template (reading/chart_findings.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from k8slb.core.findings import Problem
from k8slb.inputs.reader import Reader, ReadSettings
from k8slb.reading.chart_dependencies import as_dependencies
from k8slb.reading.chart_findings import (
    RenderedTemplate,
    in_namespace,
    rendered_templates,
    valueless_problem,
)
from k8slb.reading.chart_install_sets import with_install_sets
from k8slb.reading.chart_installers import with_installers
from k8slb.reading.chart_repeats import read_as_helm_does
from k8slb.reading.chart_required import with_stand_ins
from k8slb.reading.chart_values_beside import with_values_beside
from k8slb.reading.charts import (
    Rendering,
    chart_file,
    declares_chart,
    enclosing_chart,
    is_chart,
    linked_tree,
    pack,
    render_charts,
    rendering_inputs,
    stat_signature,
)
from k8slb.reading.manifests import ManifestFile


class HelmCharts(Reader):
    name = "helm"
    renders = True
    reports_folder = True
    packs_folder = True

    def claims_folder(self, names: Sequence[str]) -> bool:
        return is_chart(names)  # its templates are no manifests

    def confirms_folder(self, folder: str) -> tuple[bool, tuple[str, ...]]:
        # a Chart.yaml all comments: the folder holds charts, walked as any folder
        return declares_chart(folder), (chart_file(folder),)

    def folder_of(self, path: str) -> str | None:
        return enclosing_chart(path)

    def covered(self, named: Sequence[str], context: Sequence[str]) -> set[str]:
        # a chart named renders its dependency folders (`file://../common`) itself
        rendered = {
            os.path.abspath(folder) for chart in named for folder in linked_tree(chart).values()
        }
        return {chart for chart in context if os.path.abspath(chart) in rendered}

    def pack(self, location: str) -> bytes:
        return pack(location)

    def stamp(self, path: str, location: str) -> str:
        return stat_signature(location)

    def inputs(self, settings: ReadSettings) -> str:
        return rendering_inputs(settings.helm)

    def render(
        self, sources: Sequence[tuple[str, bytes]], settings: ReadSettings
    ) -> list[list[Rendering]]:
        """Each chart with its value sets; one Helm cannot render with its defaults, with
        the values the repository's own `helm install` passes, if it has one
        (reading/chart_installers.py); one that deploys no workload with its defaults and
        that no command installs, with a values file beside its Chart.yaml
        (reading/chart_values_beside.py); then one whose templates write a key that its
        values leave unset and a command of the repository sets from its environment
        (`--set tag=$CIRCLE_SHA1`), with a stand-in string for that key
        (reading/chart_install_sets.py); one that still fails only on a value it
        requires, with a stand-in string for it (reading/chart_required.py)."""
        rendered = render_charts([(path, settings.helm, data) for path, data in sources])
        installed = with_installers(sources, rendered, settings.helm)
        beside = with_values_beside(sources, installed, settings.helm)
        given = with_install_sets(sources, beside, settings.helm)
        return with_stand_ins(sources, given, settings.helm)

    def among(self, rendered: Sequence[tuple[str, list[Rendering]]]) -> list[list[Rendering]]:
        return as_dependencies(rendered)

    def templates(self, rendering: Rendering, path: str) -> Mapping[str, RenderedTemplate]:
        return rendered_templates(rendering)

    def problems_path(self, path: str, renderings: Sequence[Rendering]) -> str:
        return chart_file(path)

    def after_parse(self, rendering: Rendering, parsed: dict[str, Any]) -> Problem | None:
        # a key a rendered file repeats: read as Helm installs it, the last value kept
        read_as_helm_does(list(rendering.files), rendering.files, parsed)
        return valueless_problem(rendering, parsed)

    def placed(
        self, manifests: ManifestFile, rendering: Rendering, settings: ReadSettings
    ) -> ManifestFile:
        # (the run's, or the namespace its installer's command names)
        return in_namespace(manifests, rendering.options.namespace)

    def reported_files(self, path: str) -> list[str]:
        return [chart_file(path)]


HELM_CHARTS = HelmCharts()
