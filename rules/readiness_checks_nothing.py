from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Related, Severity
from k8slb.model.objects import pos_of
from k8slb.rulekit.base import PROBES, Context, Example, Rule
from k8slb.rulekit.examples import BUILT_HERE, READY, web_deployment

_APP = """\
import os

import sqlalchemy
from flask import Flask

app = Flask(__name__)
engine = sqlalchemy.create_engine(os.environ["DATABASE_URL"], pool_recycle=1800)


@app.get("/ready")
def ready():
    return {"status": "ok"}
"""
_CHECKING = _APP.replace(
    '    return {"status": "ok"}\n',
    "    with engine.connect() as connection:\n"
    '        connection.execute(sqlalchemy.text("select 1"))\n'
    '    return {"status": "ok"}\n',
)


class ReadinessChecksNothing(Rule):
    """A readiness probe whose handler in the code answers OK without checking anything.

    ## What it does
    For a serving container whose code k8slb knows (`k8slb explain-links`), follows the
    `httpGet` path of its readiness probe to the route that declares it (Flask, FastAPI,
    Starlette, aiohttp, Django; in Go, net/http's `HandleFunc`, gin, echo and chi; in
    JavaScript and TypeScript, Express; in Java, Spring's `@GetMapping` under its class's
    `@RequestMapping`) and reports the handler when it returns a constant answer and does
    nothing else (`return "ok"`, `return {"status": "ok"}`, `jsonify(...)` of constants; in
    Go, writes of constants through its first parameter: `w.Write([]byte("ok"))`, gin's
    `c.JSON(200, gin.H{"status": "ok"})`, `c.String(200, "ok")`; Express's
    `res.send("ok")`, `res.sendStatus(200)`; in Java, `return "ok";`,
    `ResponseEntity.ok("UP")`, `new ResponseEntity<>(HttpStatus.OK)`), while the code the
    container runs holds connections to something else: a gRPC channel, a database pool
    (in Go also pgx's `pgxpool`, and GORM's), an HTTP client. It is `info`: the probe is
    not wrong, it just cannot say no.

    ## Why it matters
    Readiness decides whether the pod is in the Service's endpoints. A handler that always
    answers 200 keeps the pod there while it cannot serve: still warming up, its own pool
    exhausted, or draining after SIGTERM (a readiness that fails then is what moves traffic
    away before the process stops). Checking every downstream dependency is the opposite
    mistake: an outage shared by all pods then takes every pod out at once.

    ## Fix
    Let the readiness handler fail while this pod cannot serve: before startup work is
    done, once SIGTERM has arrived, when its own resources (pool, queue) are exhausted.
    Keep shared outages out of it, and keep liveness separate and cheaper.

    ## Other linters
    No other linter follows a probe into the handler that answers it.
    """

    id = "KLB303"
    name = "readiness-checks-nothing"
    severity = Severity.INFO
    reads = PROBES
    examples = (
        Example(
            _APP,
            language="python",
            manifests=web_deployment(READY),
            beside=BUILT_HERE,
            title="the route answers a constant",
            at=(20, 13),
        ),
        Example(
            _CHECKING,
            findings=0,
            language="python",
            manifests=web_deployment(READY),
            beside=BUILT_HERE,
            title="the handler uses the pool",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        index, links = context.index, context.links
        for workload, template in context.workloads():
            served = index.serving(workload)
            for container in template.long_running:
                link = links.of(workload, container.name)
                readiness = container.probe("readinessProbe")
                http = readiness.get("httpGet") if readiness is not None else None
                if link is None or container.name not in served or not isinstance(http, dict):
                    continue
                reached = links.route(workload, container, http.get("path") or "/")
                dependencies = links.dependencies(link)
                if reached is None or not reached.route.trivial or not dependencies:
                    continue
                facts, loc, what = dependencies[0]
                route = reached.route
                yield self.finding(
                    workload,
                    pos_of(readiness, "httpGet") if readiness is not None else container.pos,
                    (
                        f"readiness of container {container.name!r} of {workload.ref.display} "
                        "answers OK without checking anything",
                        f"{route.path} runs {route.handler}() ({reached.where}), which returns "
                        f"a constant, while the code holds {what} "
                        f"({loc.path.rsplit('/', 1)[-1]}:{loc.line})",
                        "fail readiness while this pod cannot serve (starting, draining, its "
                        "pool exhausted), not on outages every pod shares",
                    ),
                    container=container.name,
                    related=[
                        Related(route.loc.path, route.loc.line, f"the route {route.path}"),
                        Related(facts.path, loc.line, what),
                    ],
                )
