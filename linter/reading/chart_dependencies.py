"""A chart that other charts of the run depend on from its folder (`repository:
file://../base`, often under several aliases) is linted through them, with their values:
rendered alone too, with its own defaults, its failure is no fault of what is deployed.
Such a failure is said at info, naming the chart that uses it; a chart the repository's
own command installs alone (chart_installers.py) keeps its warning.

Several charts of a run may use the one folder (twenty services, each `file://../base`
with its own `base:` values): each renders the shared templates with its values, and each
of those renderings is linted, its objects on the shared template's lines. A rendering keys
a dependency's template `PATH#copyN` (one per alias, numbered within the chart); the keys of
the run's charts are made apart here, so that no chart's rendering of a shared template
takes the place of another's.

Alone, with its own defaults, such a chart renders objects no release has (a Deployment
named after the shared chart, its image's repository often empty): a finding on one of
them that a chart using it gives at the same place (rule, line), at that severity or
above, is theirs, and not said again (Rendering.dependency_of; run/engine.py). What only
its defaults give (a branch no user's values take) is kept: the repository may install it
alone in a way k8slb does not read (an Argo CD Application, a Tiltfile). One that a command
of the repository installs alone (a script's `helm install`, chart_installers.py) is a
release: all its findings are said."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from k8slb.core.findings import Problem, Severity
from k8slb.reading.chart_installers import installers
from k8slb.reading.charts import UNRENDERED, Rendering, copied, copy_key
from k8slb.reading.repository import repository_of


def as_dependencies(rendered: Sequence[tuple[str, list[Rendering]]]) -> list[list[Rendering]]:
    """Each chart's renderings (by its folder, as shown), those of a chart another chart
    of the same run packs as a dependency (`Rendering.linked`) with their KLB003 warnings
    at info, and the files of all keyed apart (_apart). New renderings where that changes
    them: the cache's are never edited."""
    rendered = _apart(rendered)
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
    installed = _installed_alone(rendered, users)
    return [
        [_alone(r, users[os.path.abspath(path)], failing, path in installed) for r in renderings]
        if os.path.abspath(path) in users
        else renderings
        for path, renderings in rendered
    ]


def _installed_alone(
    rendered: Sequence[tuple[str, list[Rendering]]], users: dict[str, str]
) -> set[str]:
    """The dependency charts (as shown) rendered with their defaults into objects that a
    command of the repository installs alone (chart_installers.py): their objects are a
    release's."""
    tops: dict[str, list[str]] = {}
    for path, renderings in rendered:
        if os.path.abspath(path) not in users or not any(r.files for r in renderings):
            continue
        if all(r.installer is None for r in renderings):
            tops.setdefault(os.path.realpath(repository_of(path)), []).append(path)
    return {
        chart
        for top, charts in tops.items()
        for chart, commands in installers(charts, top).items()
        if commands
    }


def _alone(
    rendering: Rendering, user: str, failing: set[tuple[str, int, int]], installed: bool
) -> Rendering:
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
    return replace(rendering, problems=problems, dependency_of=None if installed else user)


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


def _apart(rendered: Sequence[tuple[str, list[Rendering]]]) -> list[tuple[str, list[Rendering]]]:
    """The renderings, a file key an earlier chart of the run already gave (the template
    of a dependency folder several charts use, `PATH#copy1` in each) moved to a copy
    number of that template no chart gave, the same for each of the chart's value sets."""
    taken: set[tuple[str, int]] = set()  # (a template's file, a copy number) given
    highest: dict[str, int] = {}  # a template's file -> the highest copy number given it
    apart = []
    for path, renderings in rendered:
        copies = sorted({copy_key(key)[:2] for r in renderings for key in r.files})
        for file, copy in copies:
            highest[file] = max(highest.get(file, 0), copy)
        moved: dict[tuple[str, int], int] = {}  # (file, copy) -> the copy it becomes
        for file, copy in copies:
            if (file, copy) in taken:
                highest[file] += 1
                moved[(file, copy)] = highest[file]
        taken.update((file, moved.get((file, copy), copy)) for file, copy in copies)
        apart.append((path, [_moved(r, moved) if moved else r for r in renderings]))
    return apart


def _moved(rendering: Rendering, moved: dict[tuple[str, int], int]) -> Rendering:
    def key(old: str) -> str:
        file, copy, variant = copy_key(old)
        return copied(file, moved.get((file, copy), copy), variant)

    return replace(
        rendering,
        files={key(k): text for k, text in rendering.files.items()},
        names={key(k): name for k, name in rendering.names.items()},
    )
