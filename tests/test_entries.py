"""Which module each container starts, and what it leaves to the others (model/entries.py):
a container's code leaves out the entry modules other containers start and it does not."""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

from k8slb.model.entries import Entries

from .helpers import within_cpu


class Links:
    """A CodeLinks as Entries reads it: each link is its own workload's one container."""

    renamed = 0

    def __init__(self, made: list[Any]) -> None:
        self.made = made

    def placed(self) -> Iterator[tuple[Any, int, tuple[str, ...], str | None, Any]]:
        return ((link, 0, link.modules, link.entry, link) for link in self.made)

    def place(self, link: Any) -> tuple[Any, int]:
        return link, 0


def _links(*links: tuple[str, tuple[str, ...]]) -> tuple[Entries, list[Any]]:
    """Entries over links given as (the module the container starts, the modules it runs)."""
    made = [SimpleNamespace(entry=entry, modules=modules) for entry, modules in links]
    return Entries(cast(Any, Links(made))), made


def test_a_container_leaves_out_the_entries_the_other_containers_start() -> None:
    entries, (web, worker, twin) = _links(
        ("web.py", ("web.py", "worker.py", "shared.py")),
        ("worker.py", ("worker.py", "shared.py")),
        ("web.py", ("web.py", "worker.py")),  # another container starting the same module
    )
    assert entries.others(web) == {"worker.py"}, "its own entry stays, though a twin starts it"
    assert entries.others(worker) == set(), "no other container starts what it runs"
    assert entries.others(twin) == {"worker.py"}


def test_each_containers_others_are_found_in_linear_time() -> None:
    """Every container of a large tree is asked (sigterm-never-reaches-server judges each):
    20,000 containers, each starting its own module, took minutes when each was compared
    with every other's entry."""
    fake = "from typing import Any\nfrom collections.abc import Iterator\n" + inspect.getsource(
        Links
    )
    script = fake + textwrap.dedent(
        """
        from types import SimpleNamespace
        from k8slb.model.entries import Entries
        made = [
            SimpleNamespace(entry=f"m{n}.py", modules=(f"m{n}.py", f"m{n + 1}.py", "lib.py"))
            for n in range(20_000)
        ]
        entries = Entries(Links(made))
        found = [entries.others(link) for link in made]
        assert found[0] == {"m1.py"} and found[-1] == set(), found[-1]
        print("ok")
        """
    )
    done = within_cpu([sys.executable, "-c", script], cpu_seconds=10)
    assert done.stdout.strip() == "ok", done.stderr
