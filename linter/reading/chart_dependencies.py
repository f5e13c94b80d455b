"""A chart that other charts of the run depend on from its folder (`repository:
file://../base`, often under several aliases) is linted through them, with their values:
rendered alone too, with its own defaults, its failure is no fault of what is deployed.
Such a failure is said at info, naming the chart that uses it; a chart the repository's
own command installs alone (chart_installers.py) keeps its warning."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from k8slb.core.findings import Problem, Severity
from k8slb.reading.charts import UNRENDERED, Rendering


def as_dependencies(rendered: Sequence[tuple[str, list[Rendering]]]) -> list[list[Rendering]]:
    """Each chart's renderings (by its folder, as shown), those of a chart another chart
    of the same run packs as a dependency (`Rendering.linked`) with their KLB003 warnings
    at info. New renderings where that changes them: the cache's are never edited."""
    users: dict[str, str] = {}  # a dependency's folder (absolute) -> a chart that uses it
    for path, renderings in rendered:
        for rendering in renderings:
            for folder in rendering.linked.values():
                if os.path.abspath(folder) != os.path.abspath(path):
                    users.setdefault(os.path.abspath(folder), rendering.chart)
    if not users:
        return [renderings for _, renderings in rendered]
    # where the charts that use a dependency fail: the same template failing alone at the
    # same place says nothing more than their warning does
    failing = {
        (os.path.abspath(p.path), p.line, p.column)
        for path, renderings in rendered
        if os.path.abspath(path) not in users
        for r in renderings
        for p in r.problems
        if p.rule == UNRENDERED
    }
    return [
        [_alone(r, users[os.path.abspath(path)], failing) for r in renderings]
        if os.path.abspath(path) in users
        else renderings
        for path, renderings in rendered
    ]


def _alone(rendering: Rendering, user: str, failing: set[tuple[str, int, int]]) -> Rendering:
    if rendering.installer is not None:
        return rendering  # the repository installs it alone too: as it says
    # (that it renders nothing alone is no news: its user renders it)
    said = [
        _said(problem, rendering.chart, user)
        if (os.path.abspath(problem.path), problem.line, problem.column) not in failing
        else None
        for problem in rendering.problems
    ]
    problems = [p for p in said if p is not None]
    if problems == rendering.problems:
        return rendering
    return replace(rendering, problems=problems)


def _said(problem: Problem, chart: str, user: str) -> Problem | None:
    if problem.rule != UNRENDERED or problem.severity is not Severity.WARNING:
        return None if problem.message.startswith(f"chart {chart} renders no object") else problem
    return replace(
        problem,
        severity=Severity.INFO,
        message=f"{problem.message} (alone, with its own defaults)",
        detail=(
            *problem.detail,
            f"{chart} is a dependency of chart {user} (`repository: file://`), "
            "rendered and linted there with that chart's values; alone it is deployed by "
            "no command k8slb read",
        ),
    )
