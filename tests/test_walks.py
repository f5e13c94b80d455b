"""A walk remembered in the cache (reading/walks.py) finds what a fresh walk finds, after
any sequence of edits of the tree: files and folders added, removed and renamed,
.gitignore files written, changed and removed, a chart's folder made; and is not
remembered where its stamps cannot be trusted."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading import walks
from k8slb.reading.sources import Exclude, discover


@pytest.fixture
def untimed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stamps trusted however recent: each edit below is followed by a pause longer than
    the file system's time grain, which is what the two seconds stand for."""
    monkeypatch.setattr(walks, "RACY_NS", 0)


def found(root: Path, memo: Path | None, exclude: Exclude | None = None) -> list[object]:
    discovery = discover([str(root)], exclude=exclude, walks=memo)
    return [*((s.path, s.language, s.unread, s.report) for s in discovery.sources)]


def write(path: Path, text: str = "a: 1\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def settle() -> None:
    time.sleep(0.03)  # past the grain of the file system's clock (a tick)


def repository(tmp_path: Path) -> tuple[Path, Path]:
    root, memo = tmp_path / "repo", tmp_path / "cache"
    (root / ".git").mkdir(parents=True)
    memo.mkdir()
    return root, memo


def _edit(rng: random.Random, root: Path) -> None:
    """One edit of the tree, chosen by `rng`."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    folders = sorted(p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts)
    place = rng.choice([root, *folders])
    name = rng.choice(["a", "b", "svc", "deploy", "values"])
    step = rng.randrange(8)
    if step == 0:
        write(place / f"{name}{rng.choice(['.yaml', '.yml', '.py', '.go', '.txt'])}")
    elif step == 1 and files:
        rng.choice(files).unlink()
    elif step == 2:
        write(place / name / "deep" / "x.yaml")
    elif step == 3 and folders:
        shutil.rmtree(rng.choice(folders))
    elif step == 4 and files:
        moved = rng.choice(files)
        moved.rename(moved.with_name(f"{name}-{moved.name}"))
    elif step == 5:  # a .gitignore written or changed (often to the same size)
        pattern = rng.choice(["*.py", "deep/", "a.yaml", "b*", "!b.yaml", "svc"])
        write(place / ".gitignore", f"{pattern}\n")
    elif step == 6:
        ignores = [p for p in files if p.name == ".gitignore"]
        if ignores:
            rng.choice(ignores).unlink()
    elif step == 7:  # a chart: its folder is read whole
        write(place / "chart" / "Chart.yaml", "name: c\nversion: 1.0.0\n")
        write(place / "chart" / "templates" / "d.yaml")


@pytest.mark.parametrize("seed", range(6))
def test_a_remembered_walk_is_a_fresh_walk_after_any_edits(
    tmp_path: Path, untimed: None, seed: int
) -> None:
    root, memo = repository(tmp_path)
    write(root / "k8s" / "app.yaml")
    write(root / "svc" / "main.py", "print(1)\n")
    rng = random.Random(seed)
    hits = 0
    for _ in range(25):
        settle()
        assert found(root, memo) == found(root, None)
        first = found(root, memo)
        hits += walks.remembered(memo, _key(root)) is not None
        assert found(root, memo) == first  # taken back as it was
        _edit(rng, root)
    assert hits > 20, "a walk of an unchanged tree is taken back"


def _key(root: Path) -> str:
    base = os.path.realpath(root)
    return walks.walk_key(base, os.path.normpath(root), False, None)


def test_a_gitignore_changed_in_place_is_seen(tmp_path: Path, untimed: None) -> None:
    """A file's content moves no folder's stamp: the .gitignore is stamped itself."""
    root, memo = repository(tmp_path)
    write(root / "deep" / "a.yaml")
    write(root / "deep" / "b.yaml")
    write(root / "deep" / ".gitignore", "a.yaml\n")
    settle()
    assert [p[0] for p in found(root, memo)] == [os.path.join(root, "deep", "b.yaml")]
    (root / "deep" / ".gitignore").write_text("b.yaml\n")  # same size, same folder entries
    settle()
    assert [p[0] for p in found(root, memo)] == [os.path.join(root, "deep", "a.yaml")]
    (root / ".gitignore").write_text("deep/\n")  # above: the walked folder's own
    settle()
    assert found(root, memo) == found(root, None) == []


def test_a_walk_below_the_top_sees_a_gitignore_made_above(tmp_path: Path, untimed: None) -> None:
    root, memo = repository(tmp_path)
    write(root / "k8s" / "app.yaml")
    write(root / "k8s" / "gen.yaml")
    settle()
    assert len(found(root / "k8s", memo)) == 2
    write(root / ".gitignore", "gen.yaml\n")
    settle()
    assert found(root / "k8s", memo) == found(root / "k8s", None)
    assert len(found(root / "k8s", memo)) == 1


def test_the_patterns_left_out_are_part_of_what_is_remembered(
    tmp_path: Path, untimed: None
) -> None:
    root, memo = repository(tmp_path)
    write(root / "a.yaml")
    write(root / "b.yaml")
    settle()
    left_out = Exclude(((("a.yaml",), root.resolve()),))
    assert len(found(root, memo)) == 2
    assert found(root, memo, left_out) == found(root, None, left_out)
    assert len(found(root, memo, left_out)) == 1
    assert len(found(root, memo)) == 2


def test_a_walk_is_not_remembered_where_it_cannot_be_trusted(tmp_path: Path, untimed: None) -> None:
    root, memo = repository(tmp_path)
    write(root / "a.yaml")
    outside = tmp_path / "loose"
    write(outside / "a.yaml")
    settle()
    found(outside, memo)  # in no repository: a `.git` made above would change the walk
    assert not (memo / walks.WALK_FILE).exists()
    (root / "b.yaml").symlink_to("a.yaml")  # what is read rests on the target
    settle()
    found(root, memo)
    assert not (memo / walks.WALK_FILE).exists()
    (root / "b.yaml").unlink()
    settle()
    found(root, memo)
    assert (memo / walks.WALK_FILE).exists()


def test_a_tree_changed_a_moment_ago_is_not_remembered(tmp_path: Path) -> None:
    """Within the file system's time grain a change may leave a stamp as it was."""
    root, memo = repository(tmp_path)
    write(root / "a.yaml")
    assert found(root, memo) == found(root, None)
    assert not (memo / walks.WALK_FILE).exists()


def test_a_damaged_memory_is_a_fresh_walk(tmp_path: Path, untimed: None) -> None:
    root, memo = repository(tmp_path)
    write(root / "a.yaml")
    settle()
    fresh = found(root, memo)
    for damaged in (b"", b"{", b'{"key": 1}', b"[1, 2]", b'{"key": "x", "stamps": 3}'):
        (memo / walks.WALK_FILE).write_bytes(damaged)
        assert found(root, memo) == fresh


def test_check_keeps_its_walk_in_the_cache_it_uses_and_only_there(
    tmp_path: Path, untimed: None, private_cache: Path
) -> None:
    """The command's walk is kept in the project's cache folder once a run made it, found
    again by the next run with the same findings, and never with --no-cache."""
    root, _ = repository(tmp_path)
    write(root / "k8s" / "app.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    settle()

    def check(*options: str) -> str:
        result = CliRunner().invoke(cli, ["check", *options, str(root)])
        assert result.exit_code in (0, 1), result.output
        return result.output

    def kept() -> list[Path]:
        return list(private_cache.rglob(walks.WALK_FILE))

    fresh = check("--no-cache")
    assert not kept() and not list(private_cache.iterdir())
    assert check() == fresh  # the cache's folder made: nothing walked is kept before it
    assert check() == fresh and len(kept()) == 1
    kept()[0].unlink()
    assert check("--no-cache") == fresh and not kept()
    write(root / "k8s" / "more.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n")
    settle()
    assert check() == check("--no-cache") != fresh


@pytest.mark.parametrize("seed", range(2))
def test_check_with_its_walk_kept_answers_as_a_fresh_check_after_any_edits(
    tmp_path: Path, untimed: None, private_cache: Path, seed: int
) -> None:
    root, _ = repository(tmp_path)
    write(root / "k8s" / "app.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    rng = random.Random(seed)
    taken = 0
    for _ in range(12):
        settle()
        fresh = CliRunner().invoke(cli, ["check", "--no-cache", str(root)])
        for _ in range(2):  # the second finds the walk the first kept
            cached = CliRunner().invoke(cli, ["check", str(root)])
            assert (cached.output, cached.exit_code) == (fresh.output, fresh.exit_code)
        taken += bool(list(private_cache.rglob(walks.WALK_FILE)))
        _edit(rng, root)
    assert taken > 8


def test_a_walk_that_read_the_git_index_is_walked_again_when_git_tracks_more(
    tmp_path: Path, untimed: None
) -> None:
    """.gitignore leaves out untracked files only: the walk that asked the index which
    files git tracks rests on it, so `git add -f` of an ignored file is seen."""
    import subprocess

    root, memo = repository(tmp_path)
    shutil.rmtree(root / ".git")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root / ".gitignore", "dist/\n")
    write(root / "dist/app.yaml")
    write(root / "k8s/app.yaml")
    settle()
    assert found(root, memo) == found(root, None)
    assert len(found(root, memo)) == 1
    subprocess.run(["git", "-C", str(root), "add", "-f", "dist/app.yaml"], check=True)
    settle()
    assert found(root, memo) == found(root, None)
    assert len(found(root, memo)) == 2
