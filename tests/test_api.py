"""k8slb as a library (k8slb.interface.api): plan a run from options and configuration, check it,
plan its fixes; nothing is printed, written or exited, and errors are exceptions."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.interface import api
from k8slb.rulekit.examples import READY, web_deployment


def test_plan_check_and_fix_a_tree(tmp_path: Path) -> None:
    (tmp_path / "web.yaml").write_text(web_deployment(READY))
    (tmp_path / "pyproject.toml").write_text('[tool.k8slb]\nselect = ["KLB401"]\n')
    run = api.plan([str(tmp_path)])
    assert [rule.id for rule in run.settings.rules] == ["KLB401"], "the configuration is read"
    result = api.check(run, jobs=1)
    assert [f.rule for f in result.findings] == ["KLB401"]
    assert run.exit_code(result) == api.EXIT_FINDINGS
    before = (tmp_path / "web.yaml").read_bytes()
    outcome = api.fix(run, jobs=1)
    assert outcome.result.findings == [] and [f.rule for f in outcome.fixed] == ["KLB401"]
    assert b"preStop" in outcome.fixed_text[str(tmp_path / "web.yaml")]
    assert (tmp_path / "web.yaml").read_bytes() == before, "a planned fix writes nothing"


def test_check_and_fix_read_the_text_given_over_the_files_and_fix_only_the_files_named(
    tmp_path: Path,
) -> None:
    """What `k8slb lsp` asks: an editor's unsaved text judged in place of the file, and the
    fixes of one file made in it alone."""
    web, other = tmp_path / "web.yaml", tmp_path / "other.yaml"
    web.write_text(web_deployment(READY))
    other.write_text(web_deployment(READY).replace("name: web", "name: other"))
    run = api.plan([str(tmp_path)], api.Options(select=["KLB401"]))
    unsaved = {str(web): b"# nothing here yet\n"}
    result = api.check(run, jobs=1, contents=unsaved)
    assert [f.path for f in result.findings] == [str(other)]
    outcome = api.fix(run, jobs=1, only={str(web)})
    assert list(outcome.fixed_text) == [str(web)]
    assert [f.path for f in outcome.result.findings] == [str(other)], "left for its own fix"
    assert not api.fix(run, jobs=1, only={str(web)}, contents=unsaved).fixed_text


def test_errors_are_exceptions_not_exits(tmp_path: Path) -> None:
    with pytest.raises(api.UsageError, match="KLB999"):
        api.plan([str(tmp_path)], api.Options(select=["KLB999"]))
    with pytest.raises(api.ConfigError, match="no such configuration file"):
        api.plan([str(tmp_path)], api.Options(config_path=tmp_path / "missing.toml"))
    (tmp_path / "pyproject.toml").write_text('[tool.k8slb]\nselect = "KLB401"\n')
    with pytest.raises(api.ConfigError, match=r"pyproject\.toml"):
        api.plan([str(tmp_path)])


def test_add_noqa_writes_the_comments_and_says_what_it_did(tmp_path: Path) -> None:
    (tmp_path / "web.yaml").write_text(web_deployment(READY))
    run = api.plan([str(tmp_path)], api.Options(select=["KLB401"]))
    result = api.check(run, jobs=1)
    added = api.add_noqa(result, run, "comment")
    assert (added.comments, added.annotations, added.files, added.refused) == (1, 0, 1, [])
    assert "# k8slb: ignore[KLB401]" in (tmp_path / "web.yaml").read_text()
    assert api.check(run, jobs=1).findings == []
