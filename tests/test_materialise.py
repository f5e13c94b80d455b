"""The real corpus's copies made again from git mirrors (tests/real_corpus/materialise.py),
on a small repository made here: the path at the commit, byte for byte, checked against
its digest."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path

import pytest

from .real_corpus import evaluate, materialise

HEADER = "name\trepository\tcommit\tpath\tlicence\tlicence_file\tdigest\toptions"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, str]:
    """A mirror of `owner/charts` (mirrors/owner+charts/repo, as fetched) whose first
    commit holds a chart, and whose second changes it: the copy is of the first."""
    work = tmp_path / "work"
    (work / "charts" / "web" / "templates").mkdir(parents=True)
    (work / "charts" / "web" / "Chart.yaml").write_bytes(b"name: web\n")
    (work / "charts" / "web" / "templates" / "d.yaml").write_text("kind: Deployment\n")
    (work / "charts" / "web" / "run.sh").write_text("#!/bin/sh\n")
    (work / "charts" / "web" / "run.sh").chmod(0o755)
    os.symlink("Chart.yaml", work / "charts" / "web" / "link.yaml")
    # what a checkout or `git archive` would change: the copy is the blobs as stored
    (work / ".gitattributes").write_text("*.yaml text eol=crlf\ncharts/web/run.sh export-ignore\n")
    (work / "LICENSE").write_text("MIT\n")
    git(tmp_path, "init", "-q", str(work))
    git(work, "add", "-A")
    git(work, "commit", "-qm", "first")
    first = git(work, "rev-parse", "HEAD")
    (work / "charts" / "web" / "templates" / "d.yaml").write_text("kind: StatefulSet\n")
    git(work, "commit", "-qam", "second")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "m" / "owner+charts" / "repo"))
    return tmp_path / "m", first


def expected(tmp_path: Path, files: dict[str, bytes]) -> str:
    """The digest of a folder holding `files`, made by hand."""
    folder = tmp_path / "by-hand"
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    return evaluate.digest(folder)


def table(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "projects.tsv"
    path.write_text("\n".join(["# the corpus", HEADER, *rows]) + "\n")
    return path


def test_a_project_is_its_path_at_its_commit_byte_for_byte(
    tmp_path: Path, mirrors: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = mirrors
    want = expected(
        tmp_path,
        {
            "Chart.yaml": b"name: web\n",
            "link.yaml": b"name: web\n",  # a link: its target's bytes, as digest reads it
            "run.sh": b"#!/bin/sh\n",
            "templates/d.yaml": b"kind: Deployment\n",
        },
    )
    projects = table(tmp_path, f"web\towner/charts\t{first}\tcharts/web\tMIT\tLICENSE\t{want}\t")
    out = tmp_path / "corpus"
    assert materialise.main(["--mirrors", str(root), "--projects", str(projects), str(out)]) == 0
    assert capsys.readouterr().out == "web: ok\n"
    assert (out / "web" / "link.yaml").is_symlink()
    assert os.access(out / "web" / "run.sh", os.X_OK)
    assert sorted(p.name for p in out.iterdir()) == ["web"]  # no temporary folder left
    # run again: the copy is kept
    assert materialise.main(["--mirrors", str(root), "--projects", str(projects), str(out)]) == 0
    assert capsys.readouterr().out == "web: ok (already there)\n"


def test_a_whole_repository_is_copied_when_the_path_is_the_top(
    mirrors: tuple[Path, str], tmp_path: Path
) -> None:
    root, first = mirrors
    project = evaluate.Project("all", "owner/charts", first, ".", "MIT", "LICENSE", "", ())
    assert materialise.materialise(project, root, tmp_path / "corpus").startswith("digest ")
    names = {
        p.relative_to(tmp_path / "corpus" / "all").as_posix()
        for p in (tmp_path / "corpus" / "all").rglob("*")
    }
    assert {".gitattributes", "LICENSE", "charts/web/templates/d.yaml"} <= names


def test_a_copy_whose_digest_differs_or_has_no_mirror_fails_the_run_naming_it(
    tmp_path: Path, mirrors: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, first = mirrors
    projects = table(
        tmp_path,
        f"web\towner/charts\t{first}\tcharts/web\tMIT\tLICENSE\t{'0' * 64}\t",
        f"gone\towner/gone\t{first}\t.\tMIT\tLICENSE\t{'0' * 64}\t",
        f"later\towner/charts\t{'1' * 40}\t.\tMIT\tLICENSE\t{'0' * 64}\t",
    )
    out = tmp_path / "corpus"
    assert materialise.main(["--mirrors", str(root), "--projects", str(projects), str(out)]) == 1
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("web: digest ") and said[0].endswith(f" is not {'0' * 64}")
    assert said[1] == f"gone: no mirror of owner/gone in {root}"
    assert said[2].startswith("later: not extracted: ")
    assert not (out / "later").exists() and not (out / ".later.part").exists()


ROUND_HEADER = (
    "name\trepository\tcommit\tpath\tlicence\tlicence_file\toptions\tkind\tnote\tdigest\textra"
)


def test_a_graduated_round_keeps_the_tree_with_its_licence_and_vendored_charts(
    tmp_path: Path, mirrors: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A round's copy is laid out as its reviewer's was: the path at its repository path,
    the licence file at its own, and each extra part (another folder, or another
    repository's folder at a commit, as a vendored chart is) where the row says."""
    root, first = mirrors
    want = expected(
        tmp_path,
        {
            "LICENSE": b"MIT\n",
            "charts/web/Chart.yaml": b"name: web\n",
            "charts/web/link.yaml": b"name: web\n",
            "charts/web/run.sh": b"#!/bin/sh\n",
            "charts/web/templates/d.yaml": b"kind: Deployment\n",
            "charts/web/charts/lib/d.yaml": b"kind: Deployment\n",
        },
    )
    extra = f"owner/charts@{first}:charts/web/templates>charts/web/charts/lib"
    folder = tmp_path / "rounds" / "day"
    folder.mkdir(parents=True)
    row = ["web", "owner/charts", first, "charts/web", "MIT", "LICENSE", "", "chart", "", want]
    (folder / "projects.tsv").write_text(f"{ROUND_HEADER}\n" + "\t".join([*row, extra]) + "\n")
    (folder / "labels.tsv").write_text(
        "project\trule\tpath\tobject\tcontainer\tverdict\treason\tseverity\n"
        "web\tKLB401\ttemplates/d.yaml\tDeployment//web\tweb\tTP\twhy\twarning\n"
    )
    (folder / "misses.tsv").write_text("project\trule\tpath\tobject\treason\texpected\n")
    out = tmp_path / "copies"
    assert materialise.main(["--mirrors", str(root), "--round", str(folder), str(out)]) == 0
    assert capsys.readouterr().out == "web: ok\n"


def test_a_mirror_fetched_as_a_checkout_is_read_from_its_git_folder(
    tmp_path: Path, mirrors: tuple[Path, str]
) -> None:
    """A fetched snapshot may be a checkout, `<owner>+<name>/repo/.git`: its git folder is
    the mirror."""
    root, _ = mirrors
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(work), str(root / "owner+checkout" / "repo"))
    assert (
        materialise.mirror_of(root, "owner/checkout") == root / "owner+checkout" / "repo" / ".git"
    )
    assert materialise.mirror_of(root, "owner/charts") == root / "owner+charts" / "repo"
    assert materialise.mirror_of(root, "owner/none") is None


def test_a_graduated_round_leaves_out_the_paths_its_row_says_its_snapshots_lack(
    tmp_path: Path, mirrors: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`!path` in a round's extra: files of the repository its snapshots lack (built
    binaries), left out of the copy as they were of its reviewers' copy."""
    root, first = mirrors
    want = expected(
        tmp_path,
        {
            ".gitattributes": b"*.yaml text eol=crlf\ncharts/web/run.sh export-ignore\n",
            "LICENSE": b"MIT\n",
            "charts/web/Chart.yaml": b"name: web\n",
            "charts/web/link.yaml": b"name: web\n",
            "charts/web/templates/d.yaml": b"kind: Deployment\n",
        },
    )
    folder = tmp_path / "rounds" / "day"
    folder.mkdir(parents=True)
    row = ["web", "owner/charts", first, ".", "MIT", "LICENSE", "", "app", "", want]
    left_out = "!charts/web/run.sh"
    (folder / "projects.tsv").write_text(f"{ROUND_HEADER}\n" + "\t".join([*row, left_out]) + "\n")
    (folder / "labels.tsv").write_text(
        "project\trule\tpath\tobject\tcontainer\tverdict\treason\tseverity\n"
        "web\tKLB401\tcharts/web/templates/d.yaml\tDeployment//web\tweb\tTP\twhy\twarning\n"
    )
    (folder / "misses.tsv").write_text("project\trule\tpath\tobject\treason\texpected\n")
    out = tmp_path / "copies"
    assert materialise.main(["--mirrors", str(root), "--round", str(folder), str(out)]) == 0
    assert capsys.readouterr().out == "web: ok\n"
    assert not (out / "web" / "charts" / "web" / "run.sh").exists()
    # a folder left out takes all it holds, and nothing whose name only begins alike
    project = evaluate.held_out(folder, graduated=True).projects[0]
    project = dataclasses.replace(project, extra=("!charts/web/templates/", "!charts/we"))
    materialise.materialise(project, root, tmp_path / "again")
    names = {
        p.relative_to(tmp_path / "again" / "web").as_posix()
        for p in (tmp_path / "again" / "web").rglob("*")
        if p.is_file()
    }
    assert names == {
        ".gitattributes",
        "LICENSE",
        "charts/web/Chart.yaml",
        "charts/web/link.yaml",
        "charts/web/run.sh",
    }
