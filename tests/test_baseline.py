"""Adopting k8slb in a repository with old findings: record them once, then see only new
ones; the record survives unrelated edits and says when an entry went stale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

from .helpers import FIXTURES


def _check(repo: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["check", "--no-cache", *args, str(repo)])
    return done.exit_code, done.output


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", repo / f"team-{team}")
    (repo / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    return repo


def test_adopting_with_a_baseline(tmp_path: Path, monkeypatch: object) -> None:
    repo = _repo(tmp_path)
    code, out = _check(repo, "--write-baseline")
    assert code == 0 and out.startswith("Wrote 30 findings to ")
    baseline = repo / ".k8slb-baseline.json"
    assert len(json.loads(baseline.read_text())["findings"]) == 30
    assert _check(repo)[0] == 0, "nothing new: the run passes"
    assert "30 in the baseline" in _check(repo)[1]

    # An unrelated edit above a baselined finding: lines move, the finding stays known.
    backend = repo / "team-0" / "backend.yaml"
    backend.write_text("# owned by team 0\n\n" + backend.read_text())
    assert _check(repo)[0] == 0

    # A new finding is the only one reported.
    new = repo / "team-3"
    shutil.copytree(FIXTURES / "demo" / "bad", new)
    (new / "client.py").unlink()
    (new / "server.py").unlink()
    (new / "frontend.yaml").unlink()
    (new / "inventory.yaml").unlink()
    (new / "checkout.yaml").unlink()
    shutil.rmtree(new / "inventory")
    shutil.rmtree(new / "checkout")
    code, out = _check(repo, "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert {f["path"].split("/repo/")[1].split("/")[0] for f in report["findings"]} == {"team-3"}
    assert report["summary"]["baselined"] == 30


def test_a_fixed_finding_makes_its_entry_stale_and_rewriting_drops_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _check(repo, "--write-baseline")
    CliRunner().invoke(cli, ["fix", "--select", "KLB401", str(repo / "team-1")])
    code, out = _check(repo, "--report-unused-ignores", "--select", "KLB401,KLB005")
    assert code == 1
    assert "baseline entry for KLB401 in team-1/backend.yaml matches no finding any more" in out
    assert _check(repo, "--write-baseline")[1].startswith("Wrote 29 findings")


def test_a_stale_entry_is_reported_at_the_baseline_as_other_paths_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative to the current folder, as the linted files are: not the absolute path
    k8slb found the baseline at (the project's, or the configuration's `baseline`)."""
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    for config in ("", "baseline: ci/known.json\n"):
        (repo / ".k8slb.yaml").write_text(config)
        (repo / "ci").mkdir(exist_ok=True)
        named = "ci/known.json" if config else ".k8slb-baseline.json"
        done = CliRunner().invoke(cli, ["check", "--write-baseline", "team-0"])
        assert done.output.startswith(f"Wrote 10 findings to {named};"), done.output
        shutil.rmtree(repo / "team-0" / "inventory")
        (repo / "team-0" / "inventory.yaml").unlink()
        done = CliRunner().invoke(cli, ["check", "--no-cache", "--report-unused-ignores", "team-0"])
        stale = [line for line in done.output.splitlines() if " KLB005 " in line]
        assert stale and all(line.startswith(f"{named}:") for line in stale), done.output
        shutil.copytree(FIXTURES / "demo" / "bad", repo / "team-0", dirs_exist_ok=True)


def test_an_unreadable_baseline_is_an_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / ".k8slb-baseline.json").write_text("{not json")
    code, out = _check(repo)
    assert code == 2 and ".k8slb-baseline.json:1: not a baseline" in out


def test_fix_reports_only_what_the_baseline_does_not_hold(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _check(repo, "--write-baseline")
    done = CliRunner().invoke(cli, ["fix", str(repo)])
    assert done.exit_code == 0, "what remains after fixing is all in the baseline"
    assert "0 findings remain" in done.output.splitlines()[-1]


def test_a_report_and_a_baseline_get_the_mode_the_umask_gives_or_keep_their_own(
    tmp_path: Path,
) -> None:
    """As `>` in a shell: a new file is 0666 less the umask (a baseline is committed and
    read by others), a file that is there keeps its mode."""
    import os
    import stat

    repo = _repo(tmp_path)
    previous = os.umask(0o022)
    try:
        _check(repo, "--write-baseline")
        report = tmp_path / "report.txt"
        _check(repo, "--no-cache", "-o", str(report))
        baseline = repo / ".k8slb-baseline.json"
        assert stat.S_IMODE(baseline.stat().st_mode) == 0o644
        assert stat.S_IMODE(report.stat().st_mode) == 0o644
        report.chmod(0o600)
        _check(repo, "-o", str(report))
        assert stat.S_IMODE(report.stat().st_mode) == 0o600
    finally:
        os.umask(previous)
