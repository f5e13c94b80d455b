"""A SQLAlchemy engine (or another pool) that a function stores where it would outlive the
call (an attribute, a global) but ends itself on every path of that call (`dispose()` in
a `finally:`, or a statement after the store with no way out between) lives for the call
only, as a local does: KLB203 does not report it. One ended only on some path (under an
`if`, after an early `return`), or elsewhere (`close()`, `__del__`), stays kept; so does
what a function that runs once (`main`, `run`) makes, disposed at its end or not. A
`poolclass=NullPool` given through a `**kwargs` dict is no pool either."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.languages.python.parse import parse

from tests.helpers import lint_files

# A report service that opens an engine to the warehouse each time it runs a report.
REPORTS = """\
import os

from sqlalchemy import create_engine, text


class ReportRunner:
    def __init__(self, name):
        self.name = name

    def execute(self, sql):
        self._engine = create_engine(os.environ["WAREHOUSE_URL"], pool_size=2)
        BODY
"""
TRY_FINALLY = """\
try:
            with self._engine.connect() as conn:
                return conn.execute(text(sql)).all()
        finally:
            self._engine.dispose()"""
AFTER = """\
with self._engine.connect() as conn:
            rows = conn.execute(text(sql)).all()
        self._engine.dispose()
        return rows"""
EARLY_RETURN = """\
if not sql:
            return []
        rows = self._engine.connect().execute(text(sql)).all()
        self._engine.dispose()
        return rows"""
UNDER_IF = """\
rows = self._engine.connect().execute(text(sql)).all()
        if len(rows) > 100:
            self._engine.dispose()
        return rows"""
NOT_ENDED = """\
return self._engine.connect().execute(text(sql)).all()"""


def _pools(source: str) -> list[tuple[int, bool]]:
    return [(p.loc.line, p.long_lived) for p in parse("reports.py", source.encode()).db_pools]


@pytest.mark.parametrize(
    ("body", "long_lived"),
    [
        (TRY_FINALLY, False),
        (AFTER, False),
        (EARLY_RETURN, True),
        (UNDER_IF, True),
        (NOT_ENDED, True),
    ],
    ids=["finally", "after", "early-return", "under-if", "not-ended"],
)
def test_an_engine_stored_and_disposed_on_every_path_of_its_call_is_per_call(
    body: str, long_lived: bool
) -> None:
    assert _pools(REPORTS.replace("BODY", body)) == [(11, long_lived)]


def test_a_global_engine_closed_in_a_finally_that_holds_the_store() -> None:
    source = textwrap.dedent(
        """\
        import os

        from sqlalchemy import create_engine

        ENGINE = None


        def export(sql):
            global ENGINE
            try:
                ENGINE = create_engine(os.environ["WAREHOUSE_URL"])
                return ENGINE.connect().execute(sql)
            finally:
                ENGINE.dispose()
        """
    )
    assert _pools(source) == [(11, False)]


@pytest.mark.parametrize("where", ["def close(self):", "def __del__(self):"])
def test_an_engine_disposed_by_another_method_stays_kept(where: str) -> None:
    source = REPORTS.replace("BODY", NOT_ENDED) + f"\n    {where}\n        self._engine.dispose()\n"
    assert _pools(source) == [(11, True)]


def test_what_a_function_that_runs_once_disposes_at_its_end_is_still_the_process_pool() -> None:
    source = REPORTS.replace("def execute(self, sql)", "def run(self, sql)").replace("BODY", AFTER)
    assert _pools(source) == [(11, True)]


@pytest.mark.parametrize(
    ("kwargs", "pools"),
    [
        ('kwargs = {"poolclass": NullPool}', []),
        ('kwargs = {"poolclass": QueuePool}', [(9, True)]),
    ],
    ids=["null-pool", "queue-pool"],
)
def test_a_poolclass_given_through_a_spread_dict(kwargs: str, pools: list[object]) -> None:
    source = (
        "import os\nfrom sqlalchemy import create_engine\n"
        "from sqlalchemy.pool import NullPool, QueuePool\n\n\n"
        "def build():\n"
        f"    {kwargs}\n"
        "    kwargs['pool_size'] = 5\n"
        "    return create_engine(\n"
        '        os.environ["DATABASE_URL"], **kwargs)\n\n\n'
        "ENGINE = build()\n"
    )
    assert _pools(source) == pools


MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: reports
spec:
  replicas: 2
  selector:
    matchLabels: {app: reports}
  template:
    metadata:
      labels: {app: reports}
    spec:
      containers:
        - name: reports
          image: registry.example/reports:1.0
          env:
            - name: WAREHOUSE_URL
              value: postgresql://warehouse:5432/reports
"""


@pytest.mark.parametrize(("body", "found"), [(TRY_FINALLY, []), (NOT_ENDED, [11])])
def test_klb203_leaves_the_per_call_engine_and_reports_the_kept_one(
    tmp_path: Path, body: str, found: list[int]
) -> None:
    files = {"reports.py": REPORTS.replace("BODY", body), "deploy.yaml": MANIFESTS}
    findings = lint_files(tmp_path, files, ["KLB203"]).findings
    assert [f.line for f in findings] == found
