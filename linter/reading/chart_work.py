"""The work k8slb spends rendering one chart again and again, counted in what it hands to
Helm rather than in seconds, so that a chart gets the same answer on a quiet machine and a
busy one.

A chart Helm fails on is rendered again: without each template it fails on (charts.py's
_render_without_failing), with a values file or an installer's command, with a stand-in
for a value it requires (chart_required.py). Each render costs the bytes of templates it
is handed (at least MIN_COST: loading the chart costs something too), and the renders
stop where the next would pass one of two budgets: TRY_WORK for the renders of one value
set in one job (the left-out templates of one try), CHART_WORK for all of a chart's
renders in a run (its tries together). The chart's first render is never refused.

The numbers come from measurements on this project's corpus (two shared cores, under
load): Helm renders 0.2-4 µs of CPU per byte of templates, its slowest realistic chart
1 s for a render of 250 KB, the largest (300 KB of templates, with stand-ins) 1 s each
on a quiet machine, 4-5 s on this one loaded (two CPU-bound processes per core): seven
renders in one try ran past render_process.TIMEOUT (30 s, then of wall time) there.
TRY_WORK lets such a chart be rendered five times in one try, 5 s quiet and 20-25 s that
loaded; CHART_WORK about forty times over its tries, a share of the run's
render_process.BUDGET. The time limits stay, for charts that render for ever
(`{{ range until 100000000 }}`): they count the renderer's CPU time, and only their guard
of the wall clock (four times as long) depends on the machine's load.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TRY_WORK = 3 << 19  # bytes of templates rendered for one value set in one job (1.5 MiB)
CHART_WORK = 12 << 20  # bytes of templates rendered for one chart in a run
MIN_COST = 16 << 10  # what a render costs at least, however few its templates
_NAMED = 5  # templates left out named in the finding, the rest counted


@dataclass(frozen=True)
class Work:
    """What a chart's renders have cost so far in the run: bytes of templates, renders."""

    spent: int = 0
    renders: int = 0

    def plus(self, cost: int) -> Work:
        return Work(self.spent + cost, self.renders + 1)


def cost(members: Mapping[str, bytes]) -> int:
    """What rendering these files costs: the bytes of their templates (a `templates/`
    folder's files, the chart's or a subchart's), at least MIN_COST."""
    templates = sum(
        len(data)
        for name, data in members.items()
        if name.startswith("templates/") or "/templates/" in name
    )
    return max(templates, MIN_COST)


def affordable(chart: Work, try_start: Work, price: int) -> bool:
    """Whether one more render of `price` stays within both budgets, the try's work being
    what the chart's work was when the try began."""
    return chart.spent + price <= CHART_WORK and chart.spent - try_start.spent + price <= TRY_WORK


def spent_detail(work: Work, left_out: Sequence[str]) -> str:
    """The detail of a chart whose renders stopped at the budget: after how many renders,
    and the templates Helm had failed on in this try, each left out in turn."""
    said = ""
    if left_out:
        named = ", ".join(left_out[:_NAMED]) + (
            f" and {len(left_out) - _NAMED} more" if len(left_out) > _NAMED else ""
        )
        said = f"; Helm had failed on {named}, one at a time, each left out in turn"
    times = "once" if work.renders == 1 else f"{work.renders} times"
    return (
        f"k8slb rendered it {times} in this run and stopped there: its budget of work was "
        f"spent ({TRY_WORK / 2**20:g} MiB of templates handed to Helm for one try, "
        f"{CHART_WORK / 2**20:g} MiB for a chart in a run, the same on any machine){said}"
    )
