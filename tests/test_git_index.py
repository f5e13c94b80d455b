""".gitignore leaves out untracked files only, as git does: a committed folder a pattern
names (the chart a project builds into `dist/` and commits) is walked, and what git tracks
is read from the index file by k8slb itself (reading/git_index.py), never by running git,
whose configuration can name commands."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from k8slb.reading import git_index
from k8slb.reading.git_index import Tracked, tracked_in
from k8slb.reading.sources import discover
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_paths


def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(tree), *args], check=True, capture_output=True)


def _repository(tmp_path: Path, *options: str) -> Path:
    tree = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", *options, str(tree)], check=True)
    return tree


def _write(tree: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)


def _shown(tree: Path) -> list[str]:
    return sorted(Path(s.path).relative_to(tree).as_posix() for s in discover([str(tree)]).sources)


CHART = {
    "dist/chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "dist/chart/templates/web.yaml": web_deployment(),
}


def test_a_committed_chart_under_an_ignored_folder_is_linted(tmp_path: Path) -> None:
    """The project ignores its build output, `dist/`, but commits the chart it keeps
    there and tells users to install it: git tracks it, so it is the repository's."""
    tree = _repository(tmp_path)
    _write(tree, {".gitignore": "dist/\n", **CHART, "dist/site/page.yaml": "a: 1\n"})
    _git(tree, "add", "-f", ".gitignore", "dist/chart")
    # the chart is walked (read whole); what git does not track in the folder stays out
    assert _shown(tree) == ["dist/chart"]
    found = lint_paths([str(tree)], ["KLB401"]).findings
    assert [Path(f.path).relative_to(tree).as_posix() for f in found] == [
        "dist/chart/templates/web.yaml"
    ]


def test_an_ignored_folder_nothing_of_which_is_tracked_stays_out(tmp_path: Path) -> None:
    tree = _repository(tmp_path)
    _write(tree, {".gitignore": "dist/\n", **CHART, "k8s/app.yaml": web_deployment()})
    _git(tree, "add", ".gitignore", "k8s")
    assert _shown(tree) == ["k8s/app.yaml"]


def test_a_tracked_file_an_ignore_pattern_names_is_read(tmp_path: Path) -> None:
    tree = _repository(tmp_path)
    _write(tree, {".gitignore": "*.gen.yaml\n", "a.gen.yaml": "a: 1\n", "b.gen.yaml": "b: 1\n"})
    _git(tree, "add", "-f", "a.gen.yaml")
    assert _shown(tree) == ["a.gen.yaml"]


@pytest.mark.parametrize(
    ("version", "options"),
    [("2", ()), ("3", ()), ("4", ()), ("2", ("--object-format=sha256",))],
)
def test_the_index_is_read_in_each_version_and_hash(
    tmp_path: Path, version: str, options: tuple[str, ...]
) -> None:
    tree = _repository(tmp_path, *options)
    _write(tree, {"deploy/app.yaml": "a: 1\n", "deploy/svc.yaml": "b: 1\n", "n.yaml": "c\n"})
    _git(tree, "add", "deploy")
    _git(tree, "add", "-N", "n.yaml")  # intent to add: an extended entry (version 3 and up)
    _git(tree, "update-index", "--index-version", version)
    tracked = tracked_in(str(tree))
    assert tracked is not None
    assert tracked.paths == [b"deploy/app.yaml", b"deploy/svc.yaml", b"n.yaml"]


def test_a_linked_worktrees_index_is_the_one_its_git_file_names(tmp_path: Path) -> None:
    tree = _repository(tmp_path)
    _write(tree, {"a.yaml": "a: 1\n"})
    _git(tree, "add", "a.yaml")
    _git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    _git(tree, "worktree", "add", "-q", str(tmp_path / "other"))
    assert (tmp_path / "other/.git").is_file()
    tracked = tracked_in(str(tmp_path / "other"))
    assert tracked is not None and tracked.paths == [b"a.yaml"]


def test_a_folder_holds_what_is_below_it_and_nothing_beside_it() -> None:
    tracked = Tracked([b"dist/chart/Chart.yaml", b"dist-old/x.yaml", b"sparse/"])
    assert tracked.holds("dist", is_dir=True) and tracked.holds("dist/chart", is_dir=True)
    assert not tracked.holds("dis", is_dir=True) and not tracked.holds("dist/c", is_dir=True)
    assert tracked.holds("sparse", is_dir=True)  # a sparse index's folder entry
    assert tracked.holds("dist/chart/Chart.yaml", is_dir=False)
    assert not tracked.holds("dist/chart", is_dir=False)


def test_git_is_never_run_so_its_configuration_runs_nothing(tmp_path: Path) -> None:
    """`core.fsmonitor` names a command git runs on `git status` and `git ls-files`: a
    repository can plant one. k8slb reads the index itself, so nothing runs."""
    tree = _repository(tmp_path)
    _write(tree, {".gitignore": "dist/\n", **CHART})
    _git(tree, "add", "-f", ".gitignore", "dist/chart")
    marker = tmp_path / "ran"
    with (tree / ".git/config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = touch {marker}\n")
    assert "dist/chart" in _shown(tree)
    assert not marker.exists()


def test_an_index_that_is_no_file_or_does_not_parse_says_nothing_is_tracked(
    tmp_path: Path,
) -> None:
    """A FIFO where the index is, one `.git` file naming a device, a truncated or
    garbled index, more entries than the budget: each leaves .gitignore to decide alone,
    without blocking or failing the run."""
    tree = _repository(tmp_path)
    _write(tree, {".gitignore": "dist/\n", **CHART})
    _git(tree, "add", "-f", ".gitignore", "dist/chart")
    index = tree / ".git/index"
    data = index.read_bytes()
    for broken in (data[:-60], data[:12] + b"\xff" * 80, b"DIRC\0\0\0\x09" + data[8:]):
        index.write_bytes(broken)
        assert tracked_in(str(tree)) is None
        assert "dist/chart" not in _shown(tree)
    index.write_bytes(data[:8] + (git_index.MAX_ENTRIES + 1).to_bytes(4, "big") + data[12:])
    assert tracked_in(str(tree)) is None
    index.unlink()
    os.mkfifo(index)
    assert tracked_in(str(tree)) is None
    assert "dist/chart" not in _shown(tree)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".git").write_text("gitdir: /dev\n")  # its index: /dev/index, no file
    assert tracked_in(str(linked)) is None
    (linked / ".git").write_text("gitdir: /dev/zero\n")
    assert tracked_in(str(linked)) is None
