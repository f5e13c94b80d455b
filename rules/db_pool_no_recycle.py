from __future__ import annotations

import math
import os
from collections.abc import Iterator

from k8slb.code.facts import CodeFacts, DbPool, EnvRef
from k8slb.core.findings import Finding, Severity
from k8slb.model.addresses import loaded_env, parse_url
from k8slb.model.objects import Container
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap, YSeq
from k8slb.rulekit.base import Context, Example, Rule

DAY = 86_400
# asyncpg's default, 50,000 queries, turns a busy pool over; a hundred million never does.
ASYNCPG_NEVER = 10**8


def _unbounded(pool: DbPool) -> str | None:
    """Why the pool keeps connections for ever, or None when it does not."""
    if not pool.lifetime_arg:
        return "psycopg2's pools have no connection lifetime at all"
    if pool.lifetime_arg == "pool_recycle":
        if pool.lifetime is None:
            return "no pool_recycle (SQLAlchemy's default, -1, never recycles)"
        if isinstance(pool.lifetime, int | float) and pool.lifetime <= 0:
            return f"pool_recycle={pool.lifetime} never recycles"
        return None
    if pool.lifetime_arg == "MaxConnLifetime":  # pgx's pgxpool: an hour by default
        return None
    if pool.lifetime_arg == "SetConnMaxLifetime":  # Go's database/sql, durations in ms
        if pool.lifetime is None:
            return "no SetConnMaxLifetime (database/sql keeps connections for ever by default)"
        if isinstance(pool.lifetime, int | float) and pool.lifetime <= 0:
            return "SetConnMaxLifetime(0) keeps connections for ever"
        long = isinstance(pool.lifetime, int | float) and pool.lifetime >= DAY * 1000
        return (
            "SetConnMaxLifetime of a day or more keeps connections (almost) for ever"
            if long
            else None
        )
    if pool.lifetime_arg.endswith(".max-lifetime"):  # Quarkus's datasources, in ms
        if pool.lifetime is None:
            return f"no {pool.lifetime_arg} (none by default)"
        if isinstance(pool.lifetime, int | float) and pool.lifetime <= 0:
            return f"{pool.lifetime_arg}=0 keeps connections for ever"
        long = isinstance(pool.lifetime, int | float) and pool.lifetime >= DAY * 1000
        return (
            f"{pool.lifetime_arg} of a day or more keeps connections (almost) for ever"
            if long
            else None
        )
    if pool.lifetime_arg == "max_queries":  # asyncpg: replaced after N queries
        huge = isinstance(pool.lifetime, int | float) and pool.lifetime >= ASYNCPG_NEVER
        return f"max_queries={pool.lifetime} never replaces a busy connection" if huge else None
    if isinstance(pool.lifetime, int | float) and (
        math.isinf(pool.lifetime) or pool.lifetime >= DAY
    ):
        return f"max_lifetime={pool.lifetime} keeps connections (almost) for ever"
    return None


# How each library bounds a connection's age, for the message.
_REMEDIES = {
    "pool_recycle": "e.g. pool_recycle=1800",
    "max_queries": "e.g. max_queries=50000, asyncpg's default",
    "max_lifetime": "e.g. max_lifetime=1800",
    "": "psycopg_pool's ConnectionPool has max_lifetime, e.g. 1800",
    "SetConnMaxLifetime": "e.g. db.SetConnMaxLifetime(30 * time.Minute)",
}


def _remedy(pool: DbPool) -> str:
    if pool.factory == "gorm.Open":  # the lifetime is the *sql.DB's, under the GORM handle
        # v2's `db.DB()` gives the *sql.DB and an error, v1's the *sql.DB alone
        return "e.g. SetConnMaxLifetime(30 * time.Minute) on the *sql.DB that db.DB() gives"
    if pool.lifetime_arg.endswith(".max-lifetime"):  # a Quarkus datasource's setting
        return f"e.g. {pool.lifetime_arg}=30M"
    return _REMEDIES.get(pool.lifetime_arg, _REMEDIES[""])


def _local(url: object) -> bool:
    if not isinstance(url, str):
        return False
    if url.startswith("sqlite"):
        return True
    address = parse_url(url)
    return address is not None and address.reach == "local"


def _default_local(context: Context, facts: CodeFacts, url: object) -> bool:
    """Whether the URL is a variable's local default (`settings.DATABASE_URL` of a settings
    class, `os.getenv("DATABASE_URL", "postgresql://localhost/app")`) that nothing can
    change where the code runs: no container that runs it names the variable in its `env`
    or loads it through `envFrom` (a Secret's keys are unknown: it may), and, where no
    container is known to run it, no workload's `env` names it."""
    if not isinstance(url, EnvRef) or url.default_text is None:
        return False
    if facts.language == "spring":
        # a settings file's URL is the packaged default of any profile, which Quarkus's
        # deployments override from manifests its build writes (not in the tree): kept
        return False
    if not _local(url.default_text):
        return False
    runners = [(link.workload, link.container) for link in context.links.running(facts.path)]
    containers = runners or [
        (workload, container)
        for workload, template in context.index.workloads
        for container in template.containers
    ]
    return not any(
        _names_variable(context, workload, container, url.name, loads=bool(runners))
        for workload, container in containers
    )


def _names_variable(
    context: Context, workload: K8sObject, container: Container, name: str, loads: bool
) -> bool:
    """Whether the container's `env` names the variable, in any form, or (`loads`) its
    `envFrom` may give it: a Secret's, or a ConfigMap's key."""
    entries = container.body.get("env")
    if any(
        isinstance(e, YMap) and e.get("name") == name
        for e in (entries if isinstance(entries, YSeq) else ())
    ):
        return True
    sources = container.body.get("envFrom")
    if not loads or not isinstance(sources, YSeq):
        return False
    secret = any(isinstance(s, YMap) and "secretRef" in s for s in sources)
    return secret or loaded_env(context.index, workload, container, name) is not None


# Folders a one-shot database tool lives in (`cmd/migrate`, `tools/migrations/m012_x`).
_MIGRATION_FOLDERS = frozenset({"migrate", "migrates", "migration", "migrations", "migrator"})


def _runs_once(context: Context, facts: CodeFacts) -> bool:
    """Whether the code holding the pool runs once and exits, so no connection outlives
    a run: every container known to run it is a Job's or a CronJob's (kinds that run to
    completion), or it is a Go program (`package main`) under a folder named for
    migrations that starts no server and listens to nothing (a migration tool, run by
    hand or by a Job)."""
    runners = context.links.running(facts.path)
    if runners:
        return all(
            link.workload.spec is not None and not link.workload.spec.serves for link in runners
        )
    if facts.language != "go" or facts.package != "main":
        return False
    if facts.servers or facts.listens or facts.http_listens:
        return False
    folders = os.path.normpath(facts.path).split(os.sep)[:-1]
    return any(folder in _MIGRATION_FOLDERS for folder in folders)


class DbPoolNoRecycle(Rule):
    """A long-lived database pool that never retires a connection.

    ## What it does
    Reports long-lived database pools with no bound on connection age: SQLAlchemy's
    `create_engine` / `create_async_engine` (and SQLModel's) without `pool_recycle` (or
    with `pool_recycle` ≤ 0), `psycopg_pool` pools whose `max_lifetime` is infinite or a
    day or more, psycopg2's `SimpleConnectionPool` / `ThreadedConnectionPool`, which have
    no lifetime setting, and `asyncpg.create_pool` with `max_queries` of 10^8 or more
    (asyncpg's default, 50,000, replaces a busy connection often enough). Engines with
    `NullPool` or `StaticPool` (in the call, or in a `**kwargs` dict it is given), SQLite
    and localhost URLs, per-call engines and test files are not reported, nor a URL
    that is a variable's localhost default in the code (a pydantic settings field's,
    `os.getenv`'s) when no container that runs the code sets the variable, loads it
    through `envFrom` or may from a Secret. A pool of code that
    runs once is not reported either: code that only Jobs and CronJobs run (every
    container k8slb links to it), and a Go program under a folder named for migrations
    (`migrate`, `migrations`) that starts no server and listens to nothing (a migration
    tool). A per-call engine is a function's local, or one the function stores where it
    would outlive the call (`self._engine`, a global) but ends on every path of that same
    call: `self._engine.dispose()` (or a pool's `close()`) in a `finally:` of a `try` that
    holds or follows the store, or after the store in the same block with no `return`
    between; SQLAlchemy's `dispose()` closes the pool's connections, so none outlives the
    call. One disposed under an `if`, or in another method (`close()`, `__del__`), is kept
    as long as its object, and what a function that runs once (`main`, `run`) makes is
    the process's, disposed at its end or not. `pool_recycle` given through a `**kwargs`
    dict counts: a dict literal or `dict(...)` bound to the name, or a value stored under
    the key (`kwargs["pool_recycle"] = 1800`).

    In Go: a `database/sql` pool from `sql.Open` (or sqlx's `Open`, `Connect` and their
    `Must`/`Context` forms, which open one; GORM's `gorm.Open(postgres.Open(dsn))` with
    the mysql, postgres, sqlserver, clickhouse or sqlite driver's dialector, and GORM v1's,
    jinzhu/gorm's, `gorm.Open("mysql", dsn)`) with no
    `SetConnMaxLifetime` (or one of a day or more), set on the pool itself, on sqlx's `.DB`
    field or on the `*sql.DB` GORM's `db.DB()` gives (v1's chained too,
    `db.DB().SetConnMaxLifetime(...)`): database/sql keeps connections for
    ever by default. A GORM handle over a pool opened before
    (`postgres.New(postgres.Config{Conn: sqlDB})`, v1's `gorm.Open("postgres", sqlDB)`) is
    that pool, judged where it was opened. A pool a helper returns takes the lifetime its
    caller sets; one returned to another package is reported only when no module of its
    package, or that imports it, sets a lifetime.
    SQLite's drivers (`sqlite3`, `sqlite`) open a file in the process: not reported.

    In Quarkus's settings (`application.properties`, `application.yaml`): a datasource
    whose settings give it a JDBC (Agroal) or reactive part (`quarkus.datasource.jdbc.*`,
    `quarkus.datasource.reactive.*`, a named datasource's too) and no `max-lifetime` for
    it, in any profile: neither pool retires a connection by default. Reported at its
    first key, its URL the `url` key (or its environment variable,
    `QUARKUS_DATASOURCE_JDBC_URL`). Spring's Hikari retires them after 30 minutes and is
    not reported.

    ## Why it matters
    When the database is behind a Service with several pods (PgBouncer, read replicas,
    a Vitess vtgate, CockroachDB), every pooled connection stays on the pod it first
    reached: added replicas get no queries from running clients, and a rolling restart
    of the database tier leaves the load on whichever pods came up first. With a single
    primary it matters less, hence `info`.

    ## Fix
    Bound connection age: `create_engine(url, pool_recycle=1800, pool_pre_ping=True)`,
    or keep psycopg_pool's default `max_lifetime` (an hour).

    ## Other linters
    No other linter reads database client code.
    """

    id = "KLB203"
    name = "db-pool-no-recycle"
    severity = Severity.INFO
    examples = (
        Example(
            "import os\n\nfrom sqlalchemy import create_engine\n\n"
            'engine = create_engine(os.environ["DATABASE_URL"])\n',
            language="python",
            at=(5, 10),
        ),
        Example(
            "import os\n\nfrom sqlalchemy import create_engine\n\n"
            'engine = create_engine(os.environ["DATABASE_URL"], pool_recycle=1800)\n',
            findings=0,
            language="python",
        ),
        Example(
            'from sqlalchemy import create_engine\n\nengine = create_engine("sqlite:///app.db")\n',
            findings=0,
            language="python",
            title="SQLite",
        ),
        Example(
            'package main\n\nimport (\n\t"database/sql"\n\t"os"\n)\n\n'
            'var db, _ = sql.Open("pgx", os.Getenv("DATABASE_URL"))\n',
            language="go",
            title="in Go",
            at=(8, 13),
        ),
        Example(
            'package main\n\nimport (\n\t"database/sql"\n\t"os"\n\t"time"\n)\n\n'
            "func main() {\n"
            '\tdb, _ := sql.Open("pgx", os.Getenv("DATABASE_URL"))\n'
            "\tdb.SetConnMaxLifetime(30 * time.Minute)\n}\n",
            findings=0,
            language="go",
            title="in Go, SetConnMaxLifetime",
        ),
        Example(
            "quarkus.datasource.db-kind=postgresql\n"
            "quarkus.datasource.jdbc.url=jdbc:postgresql://orders-db:5432/orders\n",
            language="spring",
            title="a Quarkus datasource",
            at=(2, 1),
        ),
        Example(
            "quarkus.datasource.jdbc.url=jdbc:postgresql://orders-db:5432/orders\n"
            "quarkus.datasource.jdbc.max-lifetime=30M\n",
            findings=0,
            language="spring",
            title="a Quarkus datasource, with a max-lifetime",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            for pool in facts.db_pools:
                why = _unbounded(pool)
                if not pool.long_lived or why is None or pool.in_process or _local(pool.url):
                    continue
                if _default_local(context, facts, pool.url) or _runs_once(context, facts):
                    continue
                yield self.code_finding(
                    pool.loc,
                    (
                        f"long-lived {pool.factory} pool: {why}",
                        "behind a multi-pod database Service its connections stay on the pods "
                        "they first reached",
                        f"bound their age ({_remedy(pool)})",
                    ),
                )
