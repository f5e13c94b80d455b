"""`--context` (what a pre-commit hook runs): the rules judge only the objects of the files
reported on, and every other object stays in the index as evidence. That is a saving of
time and nothing else: for every file of every tree here, a run that reports that file
alone finds exactly what the same run finds when the rules judge every object, and what
a run that reports every file finds in it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.results import RunResult
from k8slb.interface.cli import cli
from k8slb.model.objects import Container
from k8slb.reading.objects import K8sObject
from k8slb.reading.sources import Source, discover
from k8slb.rulekit.base import Context
from k8slb.run.cache import ParseMemo
from k8slb.run.engine import run
from k8slb.run.selection import select_rules
from k8slb.run.settings import Settings

from .helpers import CORPUS, FIXTURES, SHARED

TREES = [
    FIXTURES / "demo" / "bad",
    FIXTURES / "demo" / "good",
    FIXTURES / "multi",
    FIXTURES / "helm",
    FIXTURES / "fix",
]
SHARED_TREES = ["real", "charts", "peers/kube-score", "peers/kube-linter", "peers/polaris"]
SETTINGS = Settings(rules=select_rules([], []), report_unused_ignores=True)


def outcome(result: RunResult) -> tuple[object, ...]:
    return (result.findings, result.suppressed, result.errors, result.objects, result.files)


def _in(path: str, source: Source) -> bool:
    """Whether a finding's path is the source's (a chart's findings are on its templates)."""
    return path == source.path or path.startswith(source.path + os.sep)


def assert_scoping_changes_nothing(tree: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Each file reported alone, the rest as context: the same outcome with and without
    the judging restricted to it. Returns how many findings the reported files had."""
    found = discover([str(tree)])
    memo = ParseMemo()  # each file parsed once for all the runs
    every_file = run(found.sources, SETTINGS, memo=memo)
    seen = 0
    for reported in found.sources:
        sources: list[Source] = [replace(s, report=s is reported) for s in found.sources]
        scoped = run(sources, SETTINGS, memo=memo)
        with monkeypatch.context() as everything:
            everything.setattr(Context, "judges", lambda self, subject: True)
            whole = run(sources, SETTINGS, memo=memo)
        assert outcome(scoped) == outcome(whole), reported.path
        mine = [f for f in every_file.findings if _in(f.path, reported)]
        assert scoped.findings == mine
        assert scoped.suppressed == [s for s in every_file.suppressed if _in(s[0].path, reported)]
        seen += len(whole.findings)
    return seen


@pytest.mark.parametrize("tree", TREES, ids=lambda tree: tree.name)
def test_a_file_reported_alone_gets_the_findings_of_judging_everything(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    findings = assert_scoping_changes_nothing(tree, monkeypatch)
    assert findings > 0 or tree.name == "good", "a tree with findings, so that some are compared"


def test_a_chart_beside_plain_manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chart's findings are made on the files Helm rendered and then moved to its
    templates: reporting the chart judges what it rendered."""
    shutil.copytree(FIXTURES / "helm" / "payments", tmp_path / "payments")
    shutil.copy(FIXTURES / "demo" / "bad" / "backend.yaml", tmp_path / "backend.yaml")
    assert assert_scoping_changes_nothing(tmp_path, monkeypatch) > 0


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
@pytest.mark.parametrize("name", SHARED_TREES)
def test_corpus_files_reported_alone_get_the_findings_of_judging_everything(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_scoping_changes_nothing(CORPUS / name, monkeypatch)


@pytest.mark.skipif(
    not (SHARED / "bench" / "gen_corpus.py").is_file(), reason="../shared/bench is absent"
)
def test_a_generated_monorepo_file_by_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Services that dial each other across teams, autoscalers, headless twins: the
    cross-file facts of a monorepo, as the benchmark generates them."""
    generator = SHARED / "bench" / "gen_corpus.py"
    subprocess.run(
        [sys.executable, str(generator), str(tmp_path), "12"], check=True, capture_output=True
    )
    assert assert_scoping_changes_nothing(tmp_path, monkeypatch) > 0


def _three_teams(tmp_path: Path) -> Path:
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / f"team-{team}")
    return tmp_path


def test_a_context_run_links_only_the_containers_its_rules_ask_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which code runs in a container is worked out when a rule asks: a pre-commit run
    that judges one plain HTTP manifest links its containers, not the tree's."""
    from k8slb.model import links

    made: list[str] = []
    link = links._Finder.link

    def recorded(finder: links._Finder, workload: K8sObject, container: Container) -> object:
        made.append(workload.path)
        return link(finder, workload, container)

    monkeypatch.setattr(links._Finder, "link", recorded)
    tree = _three_teams(tmp_path)
    found = discover([str(tree)])
    reported = str(tree / "team-0" / "frontend.yaml")
    run([replace(s, report=s.path == reported) for s in found.sources], SETTINGS)
    # its Deployment, which its Service selects: the other teams' copies share namespace
    # and labels, but they are variants (the same objects in sibling folders), never
    # applied with it
    assert made == [reported]
    made.clear()
    whole = run(found.sources, SETTINGS)
    assert len(made) == len(whole.links) == 12, "a whole-tree run links every container"


def test_explain_links_in_a_context_run_lists_the_reported_files_containers(
    tmp_path: Path,
) -> None:
    tree = _three_teams(tmp_path)
    command = ["explain-links", "--no-cache", "--format", "json", "--context", str(tree)]
    done = CliRunner().invoke(cli, [*command, str(tree / "team-0" / "frontend.yaml")])
    assert [row["container"] for row in json.loads(done.output)["links"]] == [
        "Deployment/shop/frontend:web"
    ]


def _built_services(tmp_path: Path, names: tuple[str, ...]) -> Path:
    """Python services, each built from its folder's Dockerfile, whose shell-form CMD keeps
    SIGTERM from the server: KLB406 places each finding in that Dockerfile, not in the
    manifest; and one (`shop`) whose image inherits the CMD of a base the tree builds,
    placed at its own FROM line."""
    build = ["#!/bin/sh"]
    for name in (*names, "shop"):
        (tmp_path / name).mkdir()
        manifest = (
            "apiVersion: apps/v1\nkind: Deployment\n"
            f"metadata:\n  name: {name}\n"
            f"spec:\n  replicas: 2\n  selector:\n    matchLabels: {{app: {name}}}\n"
            f"  template:\n    metadata:\n      labels: {{app: {name}}}\n"
            "    spec:\n      containers:\n"
            f"        - name: {name}\n          image: registry.example/{name}:1.0\n"
            "          ports:\n            - containerPort: 8080\n"
            "---\napiVersion: v1\nkind: Service\n"
            f"metadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n"
            "  ports:\n    - port: 80\n      targetPort: 8080\n"
        )
        (tmp_path / name / "k8s.yaml").write_text(manifest)
        (tmp_path / name / "app.py").write_text(
            "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"
        )
        build.append(f"docker build -t registry.example/{name}:1.0 {name}")
        dockerfile = "FROM python:3.12-slim\nCOPY . /app\nCMD python /app/app.py\n"
        if name == "shop":
            dockerfile = "FROM registry.example/shop-base:latest\nCOPY . /app\n"
        (tmp_path / name / "Dockerfile").write_text(dockerfile)
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "Dockerfile").write_text("FROM python:3.12-slim\nCMD python /app/app.py\n")
    build.append("docker build -t registry.example/shop-base:latest base")
    (tmp_path / "build.sh").write_text("\n".join(build) + "\n")
    return tmp_path


def test_a_dockerfile_reported_alone_judges_only_the_workloads_that_may_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Dockerfile among the judged files (a pre-commit hook on it, or judged again after
    an edit of the code beside it) is judged for the containers whose findings may be
    placed in it, not for every workload of the tree; each file reported alone still
    finds what judging everything finds (the base's line included: a finding inherited
    from it is placed at the image's FROM line)."""
    from k8slb.rules.sigterm_never_reaches_server import SigtermNeverReachesServer

    tree = _built_services(tmp_path, ("web", "api", "cart"))
    assert assert_scoping_changes_nothing(tree, monkeypatch) > 0
    judged: list[str] = []
    judge = SigtermNeverReachesServer._judge

    def recorded(rule: object, context: Context, workload: K8sObject, *rest: object) -> object:
        judged.append(workload.name or "")
        return judge(rule, context, workload, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(SigtermNeverReachesServer, "_judge", recorded)
    found = discover([str(tree)])
    whole = run(found.sources, SETTINGS)
    assert sorted(judged) == ["api", "cart", "shop", "web"]
    for reported, runs in (("web/Dockerfile", ["web"]), ("shop/Dockerfile", ["shop"])):
        judged.clear()
        path = str(tree / reported)
        scoped = run([replace(s, report=s.path == path) for s in found.sources], SETTINGS)
        assert judged == runs
        klb406 = [f for f in scoped.findings if f.rule == "KLB406"]
        assert klb406 and klb406 == [f for f in whole.findings if f.path == path]
