"""KLB203 on code that runs once: a pool that only Jobs' containers hold, or one a Go
migration tool opens, keeps no connection past the run. The same code in a Deployment,
or a Go program that serves, keeps the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/schema\n      context: .\n"
DOCKERFILE = 'FROM python:3.12-slim\nWORKDIR /app\nCOPY . /app\nCMD ["python", "seed_schema.py"]\n'
SEED = """\
import os

from sqlalchemy import create_engine


def main():
    engine = create_engine(os.environ["CATALOG_DB_URL"], pool_size=2)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE IF NOT EXISTS items (id int)")


if __name__ == "__main__":
    main()
"""

POD = """\
      containers:
        - name: seed
          image: registry.example/schema
"""
JOB = (
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: seed\nspec:\n  template:\n"
    "    spec:\n      restartPolicy: OnFailure\n" + POD
)
DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: seed\nspec:\n"
    "  selector:\n    matchLabels:\n      app: seed\n  template:\n    metadata:\n"
    "      labels:\n        app: seed\n    spec:\n" + POD
)


@pytest.mark.parametrize(
    ("manifest", "reported"), [(JOB, 0), (DEPLOYMENT, 1)], ids=["job", "deployment"]
)
def test_a_pool_only_a_job_runs_is_not_long_lived(
    tmp_path: Path, manifest: str, reported: int
) -> None:
    files = {
        "deploy/seed.yaml": manifest,
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": DOCKERFILE,
        "seed_schema.py": SEED,
    }
    assert len(lint_files(tmp_path, files, ["KLB203"]).findings) == reported


TOOL = """\
package main

import (
	"database/sql"
	"log"
	"os"
)

func main() {
	db, err := sql.Open("postgres", os.Getenv("DATABASE_SOURCE"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE tenants ADD COLUMN region text"); err != nil {
		log.Fatal(err)
	}
}
"""

SERVING = TOOL.replace('"os"\n', '"net/http"\n\t"os"\n').replace(
    "\n}\n", '\n\tlog.Fatal(http.ListenAndServe(":8080", nil))\n}\n'
)


@pytest.mark.parametrize(
    ("path", "code", "reported"),
    [
        ("tools/migrations/m007_tenant_region/main.go", TOOL, 0),
        ("cmd/migrate/main.go", TOOL, 0),
        ("cmd/tenantd/main.go", TOOL, 1),  # no folder says it is a migration tool
        ("cmd/migrate/main.go", SERVING, 1),  # it serves: it runs on
    ],
    ids=["migrations", "migrate", "other-program", "serving"],
)
def test_a_go_migration_tool_runs_once(tmp_path: Path, path: str, code: str, reported: int) -> None:
    files = {"go.mod": "module example.com/tenants\n\ngo 1.22\n", path: code}
    assert len(lint_files(tmp_path, files, ["KLB203"]).findings) == reported
