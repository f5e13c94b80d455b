"""A CI step that changes folder before its `docker build` (`cd infra && docker build ...`,
`cd infra; docker build ...`, or `cd infra` on a line of its own) builds from the folder
it names: a GitHub Actions run step is one shell, a GitLab job's `before_script` and
`script` lines are one shell, and the next step or job starts at the top again."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import workflow_builds

from tests.test_links import links, only, workload

WORKFLOW = """\
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: cd infra && docker build -t acme/same-line -f loader/Dockerfile .
      - run: |
          cd infra
          docker build -t acme/own-line -f loader/Dockerfile .
      - run: |
          cd infra
          docker build -t $OWNER/with-variable -f loader/Dockerfile .
        env: {OWNER: acme}
      - run: docker build -t acme/at-top top
"""
GITLAB = """\
build:
  before_script:
    - cd infra
  script:
    - docker build -t acme/loader -f loader/Dockerfile .
other:
  script:
    - docker build -t acme/top top
"""


def test_a_workflow_step_that_changes_folder_builds_from_that_folder() -> None:
    builds = workflow_builds(".github/workflows/images.yml", WORKFLOW)
    assert sorted((b.image, b.context, b.dockerfile, b.said.line) for b in builds) == [
        ("acme/at-top", "top", None, 15),
        ("acme/own-line", "infra", os.path.join("infra", "loader", "Dockerfile"), 10),
        ("acme/same-line", "infra", os.path.join("infra", "loader", "Dockerfile"), 7),
        ("acme/with-variable", "infra", os.path.join("infra", "loader", "Dockerfile"), 13),
    ]


def test_a_gitlab_job_s_lines_are_one_shell_and_the_next_job_starts_at_the_top() -> None:
    builds = workflow_builds(".gitlab-ci.yml", GITLAB)
    assert sorted((b.image, b.context, b.said.line) for b in builds) == [
        ("acme/loader", "infra", 5),
        ("acme/top", "top", 8),
    ]


def test_the_image_of_a_step_that_changes_folder_runs_that_folder_s_code(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/job.yaml": workload(name="loader", image="acme/loader:1"),
        ".gitlab-ci.yml": GITLAB,
        "infra/loader/Dockerfile": "FROM python:3.12\nCOPY loader/load.py /app/\n"
        'CMD ["python", "/app/load.py"]\n',
        "infra/loader/load.py": "import redis\n",
        "loader/Dockerfile": 'FROM python:3.12\nCOPY . /app/\nCMD ["python", "/app/main.py"]\n',
        "loader/main.py": "import grpc\n",
    }
    assert only(links(tmp_path, files))["code"] == os.path.join("infra", "loader", "load.py")


def test_a_matrix_step_that_changes_folder_builds_each_value_from_that_folder() -> None:
    workflow = """\
on: push
jobs:
  build:
    strategy:
      matrix:
        svc: [orders, billing]
    steps:
      - run: |
          cd services
          docker build -t acme/${{ matrix.svc }}:${{ github.sha }} -f ${{ matrix.svc }}/Dockerfile .
"""
    builds = workflow_builds(".github/workflows/images.yml", workflow)
    assert sorted((b.image, b.context, b.dockerfile, b.said.line) for b in builds) == [
        ("acme/billing", "services", os.path.join("services", "billing", "Dockerfile"), 10),
        ("acme/orders", "services", os.path.join("services", "orders", "Dockerfile"), 10),
    ]


def test_no_guess_lands_on_a_ci_folder_whose_script_builds_an_image_from_elsewhere(
    tmp_path: Path,
) -> None:
    """A CI script's `docker build -t ledger .` with no Dockerfile in its own folder (run
    from the top, where the Dockerfile is): its folder holds the CI's helpers, not the
    code of `acme/ledger-server`, which is named as that build but for a role suffix."""
    files = {
        "k8s/server.yaml": workload(name="ledger-server", image="acme/ledger-server:2.1"),
        "Dockerfile": "FROM eclipse-temurin:21\nCOPY . /ledger\n",
        "ci/smoke_test.sh": "#!/bin/sh\nset -e\ndocker build -t ledger .\ndocker run ledger\n",
        "ci/collect_logs.py": "import sys\n\nfor line in sys.stdin:\n    print(line.strip())\n",
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None
