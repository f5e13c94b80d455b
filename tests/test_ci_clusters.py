"""Manifests in a CI system's folder that its configuration applies to a cluster it makes
on the CI machine (model/ci_clusters.py): the readiness and shutdown rules' findings there
are info, the reason first; every other rule's stays, and a file applied with no such
cluster, or outside a CI system's folder, is judged as any other."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading.applied_manifests import in_ci_folder, is_ci_config

from .helpers import lint_files

RULES = ["KLB0", "KLB302", "KLB401"]

# A cache two replicas run, no probes, no preStop, and the Service its clients call
CACHE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache}
spec:
  replicas: 2
  selector: {matchLabels: {app: cache}}
  template:
    metadata:
      labels: {app: cache}
    spec:
      containers:
        - name: cache
          image: registry.example/cache:7
          ports: [{name: cache, containerPort: 6379}]
---
apiVersion: v1
kind: Service
metadata: {name: cache}
spec:
  selector: {app: cache}
  ports: [{name: cache, port: 6379}]
"""

CIRCLECI = """\
version: 2.1
jobs:
  integration:
    machine: true
    steps:
      - checkout
      - run: minikube start --kubernetes-version=v1.30.0
      - run: |
          cd .circleci/k8s
          kubectl apply -f cache.yaml
      - run: make integration-test
"""

WORKFLOW = """\
name: e2e
on: [pull_request]
jobs:
  e2e:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: helm/kind-action@v1
      - run: kubectl apply -f .github/kind/cache.yaml
"""


def _rollout(found: list[Finding]) -> dict[str, Severity]:
    return {f.rule: f.severity for f in found if f.rule in ("KLB302", "KLB401")}


@pytest.mark.parametrize(
    ("files", "config"),
    [
        ({".circleci/config.yml": CIRCLECI, ".circleci/k8s/cache.yaml": CACHE}, ".circleci"),
        (
            {".github/workflows/e2e.yml": WORKFLOW, ".github/kind/cache.yaml": CACHE},
            ".github/workflows/e2e.yml",
        ),
        (
            {
                ".gitlab-ci.yml": "e2e:\n  script:\n    - kind create cluster\n"
                "    - kubectl apply -f .gitlab/k8s/cache.yaml\n",
                ".gitlab/k8s/cache.yaml": CACHE,
            },
            ".gitlab-ci.yml",
        ),
        (
            {
                ".buildkite/pipeline.yml": "steps:\n  - command: |\n      k3d cluster create e2e"
                "\n      kubectl apply -f .buildkite/k8s/\n",
                ".buildkite/k8s/cache.yaml": CACHE,
            },
            ".buildkite/pipeline.yml",
        ),
    ],
)
def test_a_file_a_ci_job_applies_to_its_own_cluster_is_info(
    tmp_path: Path, files: dict[str, str], config: str
) -> None:
    found = lint_files(tmp_path, files, RULES).findings
    assert _rollout(found) == {"KLB302": Severity.INFO, "KLB401": Severity.INFO}
    for finding in found:
        assert finding.detail[0].startswith("applied by ")
        assert config in finding.detail[0]


@pytest.mark.parametrize(
    "files",
    [
        # a deploy job: it applies the file to a cluster it does not make
        {
            ".circleci/config.yml": CIRCLECI.replace(
                "minikube start", "aws eks update-kubeconfig --name prod"
            ),
            ".circleci/k8s/cache.yaml": CACHE,
        },
        # it makes a cluster but applies another file
        {
            ".circleci/config.yml": CIRCLECI.replace("cache.yaml", "queue.yaml"),
            ".circleci/k8s/cache.yaml": CACHE,
        },
        # the file is the repository's own, not the CI system's
        {
            ".circleci/config.yml": CIRCLECI.replace("cd .circleci/k8s", "cd deploy"),
            "deploy/cache.yaml": CACHE,
        },
        # no configuration read: in the CI system's folder alone
        {".github/kind/cache.yaml": CACHE},
    ],
)
def test_a_file_no_ci_job_applies_to_its_own_cluster_keeps_the_warning(
    tmp_path: Path, files: dict[str, str]
) -> None:
    found = lint_files(tmp_path, files, RULES).findings
    assert _rollout(found) == {"KLB302": Severity.WARNING, "KLB401": Severity.WARNING}


def test_the_shape_of_such_a_file_is_still_judged(tmp_path: Path) -> None:
    """Only readiness and shutdown are moot in a CI job's cluster: an object Kubernetes
    refuses is refused there too."""
    broken = CACHE.replace("  replicas: 2\n", "  replicas: two\n")
    files = {".circleci/config.yml": CIRCLECI, ".circleci/k8s/cache.yaml": broken}
    found = lint_files(tmp_path, files, RULES).findings
    shape = [f for f in found if f.rule == "KLB002"]
    assert shape
    assert all(f.severity == Severity.ERROR for f in shape)


@pytest.mark.parametrize(
    ("path", "folder", "config"),
    [
        (".circleci/config.yml", True, True),
        (".buildkite/pipeline.yml", True, True),
        # read as a workflow already (build_files.py), as `.gitlab-ci.yml` is
        (".github/workflows/ci.yaml", True, False),
        (".gitlab-ci.yml", False, False),
        # a manifest in a CI system's folder is no configuration
        (".circleci/resources/postgres.yaml", True, False),
        ("ci/resources/postgres.yaml", False, False),
        ("deploy/.circleci.yaml", False, False),
    ],
)
def test_ci_folders_and_configurations(path: str, folder: bool, config: bool) -> None:
    assert in_ci_folder(path) is folder
    assert is_ci_config(path) is config


def test_an_edit_of_the_ci_configuration_is_judged_as_a_fresh_run_judges_it(
    tmp_path: Path,
) -> None:
    """The configuration's cluster changes another file's findings: the editor's server
    judges the whole tree again, as a fresh run does."""
    from k8slb.interface import api
    from k8slb.run import engine, incremental
    from k8slb.run.cache import ParseMemo

    files = {".circleci/config.yml": CIRCLECI, ".circleci/k8s/cache.yaml": CACHE}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    plan = api.plan([str(tmp_path)])
    contents = {s.path: s.read() for s in plan.found.sources if s.unread is None}
    memo = ParseMemo()
    before = incremental.judge(plan.found.sources, plan.settings, contents, memo=memo)
    assert isinstance(before, incremental.Judgement)
    assert _rollout(before.result.findings) == {"KLB302": Severity.INFO, "KLB401": Severity.INFO}
    config = str(tmp_path / ".circleci/config.yml")
    contents[config] = contents[config].replace(b"minikube start", b"gcloud container clusters")
    after = incremental.judge(plan.found.sources, plan.settings, contents, memo=memo, before=before)
    assert isinstance(after, incremental.Judgement)
    fresh = engine.run(plan.found.sources, plan.settings, dict(contents), memo=ParseMemo())
    assert _rollout(fresh.findings) == {"KLB302": Severity.WARNING, "KLB401": Severity.WARNING}
    assert after.result.findings == fresh.findings
