"""The values files that sit beside a chart's Chart.yaml: a chart that deploys no workload
with its own defaults (it has no values.yaml, its workloads are off by default, or Helm
fails on them) and that no command of the repository installs with values
(chart_installers.py) is rendered with one of the values files its authors keep beside
it, the way Helm users name them: `values-prod.yaml`, `values_prod.yaml`,
`values.prod.yaml`, `prod-values.yaml`, `prod.values.yaml` (`.yml` too) at the chart's
top, or any YAML file of a `values/` folder there; last, a file whose name ends in
`values` (`gvalues.yaml`, `common-values.yaml`) in the folder that holds the chart's
folder, when that folder is no chart itself and holds another chart: the global values a
set of sibling charts is installed with (`helm install NAME CHART -f ../gvalues.yaml`).

Such files are alternatives, one an environment (local, test, production), each laid over
the chart's values.yaml by `helm install -f FILE`; merged together they would make a
release nobody installs (one environment's images with another's services). So one is
used, the first of them that renders a workload, in this order: a production file
(`prod`, `production`, `prd`, `live` a word of its name) first, an example (`example`,
`sample`, `template`) last, the others by name; the rest are counted in the chart's
info, not rendered again (their findings would repeat the first's, file by file), and
each finding says which file its render used. A chart whose defaults render a workload
keeps them, whatever files sit beside it.

Bounded: at most MAX_LISTED files looked at (by name, no file read), MAX_TRIED of them
rendered, each within the run's render time limit."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace

from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.reading.chart_work import Work
from k8slb.reading.charts import (
    UNRENDERED,
    HelmOptions,
    Rendering,
    chart_file,
    is_chart_folder,
    render_charts,
    stopped_try,
)

MAX_LISTED = 64  # entries of the chart's top folder, and of its values/ folder, looked at
MAX_TRIED = 3  # values files rendered for one chart
_OWN = frozenset({"values.yaml", "values.yml"})
_NAMED = regex.compile(r"(?i)^(?:values[-_.][^/]+|[^/]+[-_.]values)\.ya?ml$")
_SHARED = regex.compile(r"(?i)^[^/]*values\.ya?ml$")  # in the folder above the chart's
_FOLDER = "values"
_PRODUCTION = frozenset({"prod", "production", "prd", "live"})
_EXAMPLE = frozenset({"example", "examples", "sample", "samples", "template", "tmpl"})
_WORDS = regex.compile(r"[-_.]")
# A rendered document's kind that runs pods: what "deploys a workload" means here.
_WORKLOAD = regex.compile(
    r"(?m)^kind:[ \t]*[\"']?(?:Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|CronJob|Pod|"
    r"ReplicationController|Rollout|DeploymentConfig)[\"']?[ \t]*(?:#.*)?$"
)


def values_beside(chart: str) -> list[str]:
    """The values files beside the chart's Chart.yaml (as shown, `chart` joined), in the
    order they are tried: production first, examples last, the others by path; then those
    of the folder above, when it is no chart (a values file there is its own)."""
    found = _listed(chart, _NAMED.fullmatch, skip=_OWN)
    found += _listed(os.path.join(chart, _FOLDER), None)
    found.sort(key=_rank)
    above = os.path.dirname(os.path.normpath(chart)) or "."
    if os.path.basename(os.path.normpath(chart)) not in ("", ".", "..") and _holds_charts(above):
        found += sorted(_listed(above, _SHARED.fullmatch), key=_rank)
    return found


def _holds_charts(folder: str) -> bool:
    """Whether `folder` is no chart and holds two charts or more (MAX_LISTED entries
    looked at): a set of sibling charts, whose values files there they share."""
    if is_chart_folder(folder):
        return False
    try:
        with os.scandir(folder) as listing:
            entries = [entry for _, entry in zip(range(MAX_LISTED), listing, strict=False)]
    except OSError:
        return False
    charts = (e for e in entries if e.is_dir(follow_symlinks=False) and is_chart_folder(e.path))
    return next(charts, None) is not None and next(charts, None) is not None


def _listed(
    folder: str, wanted: Callable[[str], object] | None, skip: frozenset[str] = frozenset()
) -> list[str]:
    """The files of `folder` (MAX_LISTED entries looked at) whose name `wanted` matches
    (any YAML file when None), but those of `skip`."""
    try:
        with os.scandir(folder) as listing:
            entries = [entry for _, entry in zip(range(MAX_LISTED), listing, strict=False)]
    except OSError:
        return []
    found = []
    for entry in entries:
        name = entry.name
        if name in skip:
            continue
        if wanted is not None and wanted(name) is None:
            continue
        if wanted is None and not name.lower().endswith((".yaml", ".yml")):
            continue
        if entry.is_file(follow_symlinks=False):
            found.append(entry.path)
    return found


def _rank(path: str) -> tuple[int, str]:
    name = os.path.basename(path).lower()
    stem = name.rsplit(".", 1)[0]
    words = {word for word in _WORDS.split(stem) if word}
    if words & _PRODUCTION:
        return 0, path
    if words & _EXAMPLE:
        return 2, path
    return 1, path


def deploys_workload(rendering: Rendering) -> bool:
    """Whether a rendering writes an object that runs pods."""
    return any(_WORKLOAD.search(text) is not None for text in rendering.files.values())


def with_values_beside(
    sources: Sequence[tuple[str, bytes]],
    rendered: list[list[Rendering]],
    options: HelmOptions,
) -> list[list[Rendering]]:
    """The charts' renderings, each chart that deploys no workload with its defaults (and
    that no installer's command rendered) rendered again with a values file beside its
    Chart.yaml, when one makes a workload; its KLB003 an info that says which file."""
    if options.values or options.set_values:
        return rendered
    configured = {folder for folder, sets in options.value_sets if sets}
    wanted: list[tuple[int, list[str]]] = []
    for index, renderings in enumerate(rendered):
        chart = sources[index][0]
        if os.path.realpath(chart) in configured or not _bare(renderings):
            continue
        files = values_beside(chart)
        if files:
            wanted.append((index, files))
    if not wanted:
        return rendered
    jobs = [
        (sources[index][0], replace(options, values=(path,), value_sets=()), sources[index][1])
        for index, files in wanted
        for path in files[:MAX_TRIED]
    ]
    # each file a try of the chart's budget of work (chart_work.py), what the ones before
    # it spent taken from what is left
    made = iter(render_charts(jobs, _spent(rendered, wanted)))
    done = list(rendered)
    for index, files in wanted:
        tries = [(path, next(made)) for path in files[:MAX_TRIED]]
        chosen = next(
            (
                (path, again[0])
                for path, again in tries
                if len(again) == 1 and not again[0].stopped and deploys_workload(again[0])
            ),
            None,
        )
        if chosen is not None:
            done[index] = [_instead(rendered[index][0], *chosen, files)]
        done[index][0].work = _total(rendered[index][0].work, [again for _, again in tries])
        stopped_try(done[index][0], [a[0] for _, a in tries if a], "with a values file beside it")
    return done


def _spent(
    rendered: Sequence[list[Rendering]], wanted: Sequence[tuple[int, list[str]]]
) -> list[Work]:
    """What each job (a chart's values file) may take its renders from: the chart's work so
    far. The files of one chart are rendered in one call, each from the same start; their
    costs are added after (_total), so a chart's later tries have the less."""
    return [rendered[index][0].work for index, files in wanted for _ in files[:MAX_TRIED]]


def _total(before: Work, tries: Sequence[list[Rendering]]) -> Work:
    """The chart's work after its tries: what each cost past `before`, added up."""
    spent, renders = before.spent, before.renders
    for again in tries:
        if again:
            spent += again[0].work.spent - before.spent
            renders += again[0].work.renders - before.renders
    return Work(spent, renders)


def _bare(renderings: Sequence[Rendering]) -> bool:
    """Whether the chart's one rendering, with its defaults, deploys no workload (a limit
    of the run aside): nothing rendered, Helm failed, or no object that runs pods."""
    if len(renderings) != 1:
        return False
    only = renderings[0]
    if only.stopped or only.installer is not None or not only.members:
        return False
    return not deploys_workload(only)


def _instead(before: Rendering, path: str, made: Rendering, files: Sequence[str]) -> Rendering:
    """The rendering with the values file beside the chart, its KLB003 saying so (the
    defaults' own KLB003 findings dropped: the chart is linted as that file makes it)."""
    chart = before.chart
    name = os.path.relpath(path, chart)
    own = "values.yaml" in before.members or "values.yml" in before.members
    why = (
        "Helm cannot render it"
        if any(p.rule == UNRENDERED and p.severity is Severity.WARNING for p in before.problems)
        else "it deploys no workload"
    )
    defaults = "its values.yaml" if own else "its defaults (it has no values.yaml)"
    above = os.path.dirname(os.path.normpath(path)) == os.path.dirname(os.path.normpath(chart))
    where = "in the folder above its Chart.yaml" if above else "beside its Chart.yaml"
    others = [os.path.relpath(other, chart) for other in files if other != path]
    listed = ", ".join(others[:8]) + (", …" if len(others) > 8 else "")
    also = (f"also beside it, not rendered: {listed}",) if others else ()
    said = Problem(
        UNRENDERED,
        path,
        1,
        1,
        f"chart {chart}: with {defaults} {why}; rendered instead with {name}, a values file "
        f"{where} that no install command k8slb reads names (scripts, Makefiles, workflows, "
        "guides)",
        None,
        Severity.INFO,
        (
            *also,
            "the chart's objects are linted as that file makes them; lint another with "
            "--helm-values FILE, or value sets in the configuration (helm.charts)",
        ),
    )
    place = where.replace("its Chart.yaml", chart_file(chart))
    made.label = f"{path} (a values file {place}, no install command names)"
    made.uncached = True  # which file is used rests on the repository's scripts too
    made.problems = [said, *made.problems]
    return made
