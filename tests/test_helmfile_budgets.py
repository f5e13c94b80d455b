"""Hostile helmfiles are read within the budgets every reader has (tests/test_reader_budgets.py:
a child process with 300 MB of address space and a few seconds of CPU): thousands of
releases, aliases that expand a billion times, values nested past the YAML reader's depth,
a package looked for through thousands of folders. Each ends as a clear problem of the
helmfile (KLB003 at its line), never an internal error or a run that does not end."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from k8slb.core.findings import Problem

from .helpers import ROOT
from .test_reader_budgets import MEMORY, Files, budget_for_this_machine, read_here

CHART = {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
}


def many_releases(n: int) -> Files:
    releases = "".join(f"  - name: r{i}\n    chart: repo/c{i}\n" for i in range(n))
    return {"helmfile.yaml": "releases:\n" + releases}


def laughs(n: int, width: int) -> Files:
    lines = ["templates:", "  a0: &a0 [" + ", ".join(["x"] * width) + "]"] + [
        f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, n)
    ]
    return {**CHART, "helmfile.yaml": "\n".join(lines) + "\nreleases: []\n"}


def deep_values(depth: int, width: int) -> Files:
    nested = "{a: " * depth + "x" + "}" * depth
    leaves = "{" + ", ".join(f"k{i}: v{i}" for i in range(width)) + "}"
    helmfile = (
        "releases:\n"
        f"  - name: deep\n    chart: ./charts/web\n    values:\n      - {nested}\n"
        f"  - name: wide\n    chart: ./charts/web\n    values:\n      - {leaves}\n"
    )
    return {**CHART, "helmfile.yaml": helmfile}


def packages_among_folders(n: int) -> Files:
    folders = {f"f{i}/g/README.md": "x\n" for i in range(n)}
    helmfile = "releases:\n  - name: web\n    chart: ./web-9.9.9.tgz\n"
    return {**CHART, **folders, "helmfile.yaml": helmfile}


CASES: dict[str, Callable[[], Files]] = {
    "20000 releases": lambda: many_releases(20_000),
    "aliases of aliases in a helmfile": lambda: laughs(30, 4),
    "inline values nested 5000 deep and 20000 wide": lambda: deep_values(5000, 20_000),
    "a package looked for among 5000 folders": lambda: packages_among_folders(5000),
}


def in_a_child(which: str) -> None:
    budget_for_this_machine()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    read_here(which, CASES[which]())
    print("done", flush=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_helmfile_is_read_within_the_budget(case: str) -> None:
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    code += f"from tests.test_helmfile_budgets import in_a_child; in_a_child({case!r})\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,  # wall time: only should the CPU limit not end it
        cwd=ROOT,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"the child ended with {done.returncode}:\n{output[-3000:]}"
    assert output.splitlines()[-1] == "done", output[-3000:]


def test_past_the_budgets_a_helmfile_is_a_problem_at_its_line(tmp_path: Path) -> None:
    from k8slb.inputs.helmfile import MAX_RELEASES, MAX_SETTINGS, plan

    def problems(files: Files) -> list[Problem]:
        for name, text in files.items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text)
        return list(plan(str(tmp_path / "helmfile.yaml"), files["helmfile.yaml"]).problems)

    [problem] = problems(many_releases(MAX_RELEASES + 1))
    assert problem.line == 2 + 2 * MAX_RELEASES and f"more than {MAX_RELEASES}" in problem.message
    [problem] = problems(deep_values(1, MAX_SETTINGS + 1))
    assert problem.line == 9 and f"more than {MAX_SETTINGS} values" in problem.message
    [problem] = problems(deep_values(5000, 1))
    assert problem.line == 5 and "not YAML" in problem.message and "nesting" in problem.message
