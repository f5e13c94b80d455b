"""KLB301 shared-probe and KLB302 no-readiness-probe."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import BUILT_HERE, publishing_not_ready, web_deployment

from .helpers import lint_files, lint_text


def probes(readiness: str, liveness: str) -> str:
    return f"readinessProbe:\n  {readiness}\nlivenessProbe:\n  {liveness}\n"


def klb301(tmp_path: Path, readiness: str, liveness: str, **kwargs: str) -> list[Finding]:
    return lint_text(tmp_path, web_deployment(probes(readiness, liveness)), ["KLB301"])


@pytest.mark.parametrize(
    ("readiness", "liveness"),
    [
        ("httpGet: {path: /healthz, port: http}", "httpGet: {path: /healthz, port: http}"),
        ("httpGet: {path: /healthz, port: http}", "httpGet: {path: /healthz, port: 8080}"),
        (
            "httpGet: {path: /healthz, port: http, scheme: http}",
            "httpGet: {path: /healthz, port: 8080, scheme: HTTP}",
        ),
        ("httpGet: {path: /, port: http}", "httpGet: {port: http}"),
        (
            "httpGet: {path: /h, port: http, httpHeaders: [{name: X-Probe, value: ready}]}",
            "httpGet: {path: /h, port: http, httpHeaders: [{name: X-Probe, value: live}]}",
        ),
        ("exec: {command: [/app/check, --db]}", "exec: {command: [/app/check, --db]}"),
        ("grpc: {port: 8080}", "grpc: {port: 8080}"),
    ],
    ids=[
        "same",
        "named-vs-numeric",
        "scheme-case",
        "default-path",
        "headers-differ",
        "exec",
        "grpc",
    ],
)
def test_same_handler_is_shared(tmp_path: Path, readiness: str, liveness: str) -> None:
    (finding,) = klb301(tmp_path, readiness, liveness)
    assert finding.container == "web" and "share one check" in finding.text


@pytest.mark.parametrize(
    ("check", "missing"),
    [
        (
            "httpGet: {path: /healthz, port: http}",
            "k8slb has not read the handler's code (no code in the tree is linked to "
            "container 'web'",
        ),
        ("grpc: {port: 8080}", "k8slb has not read the handler's code"),
        (
            "exec: {command: [/app/check, --db]}",
            "the command runs in the container and names no other host",
        ),
        (
            "exec: {command: [pg_isready, -h, localhost]}",
            "the command runs in the container and names no other host",
        ),
    ],
    ids=["http", "grpc", "exec", "exec-local-host"],
)
def test_a_shared_handler_k8slb_cannot_read_is_info_naming_the_missing_link(
    tmp_path: Path, check: str, missing: str
) -> None:
    """A warning needs the evidence that the shared check reaches beyond the process:
    without the handler's code, or with a command that names no other host, it is info."""
    (finding,) = klb301(tmp_path, check, check)
    assert finding.severity is Severity.INFO
    assert missing in finding.text
    assert "if it checks a dependency" in finding.text


# A shared check seen to reach another host: a database outage restarts every pod
DIALS = "exec: {command: [pg_isready, -h, db.shop, -p, '5432']}"


@pytest.mark.parametrize(
    ("command", "host"),
    [
        ("[pg_isready, -h, db.shop, -p, '5432']", "db.shop"),
        ("[redis-cli, --host=cache, ping]", "cache"),
        ("[grpc_health_probe, '-addr=backend:9000']", "backend"),
        ("[sh, -c, 'curl -fs http://api.shop:8080/ready']", "api.shop"),
    ],
    ids=["option", "option-equals", "addr", "url-in-shell"],
)
def test_a_shared_command_that_dials_another_host_is_a_warning(
    tmp_path: Path, command: str, host: str
) -> None:
    check = f"exec: {{command: {command}}}"
    (finding,) = klb301(tmp_path, check, check)
    assert finding.severity is Severity.WARNING
    assert f"the command dials {host}, another host" in finding.text


@pytest.mark.parametrize(
    "command",
    [
        "[sh, -c, 'redis-cli -h $HOSTNAME ping']",
        "[sh, -c, 'curl -fs http://127.0.0.1:8080/ready']",
        "[mysqladmin, ping, -h, '::1']",
    ],
    ids=["own-name", "loopback-url", "ipv6-loopback"],
)
def test_a_command_that_dials_the_container_itself_names_no_other_host(
    tmp_path: Path, command: str
) -> None:
    check = f"exec: {{command: {command}}}"
    (finding,) = klb301(tmp_path, check, check)
    assert finding.severity is Severity.INFO and "names no other host" in finding.text


@pytest.mark.parametrize(
    ("replicas", "reason"),
    [
        ("  replicas: 1\n  strategy: {type: Recreate}\n", "one replica with strategy Recreate"),
        ("  replicas: 1\n  strategy: {rollingUpdate: {maxSurge: 0}}\n", "maxSurge 0"),
    ],
    ids=["recreate", "no-surge"],
)
def test_one_replica_that_no_other_pod_backs_is_info_even_when_its_check_dials_out(
    tmp_path: Path, replicas: str, reason: str
) -> None:
    """With no other pod to take its traffic, being taken out of the endpoints is as much
    an outage as a restart: the one-replica policy of KLB302 and KLB401."""
    text = web_deployment(probes(DIALS, DIALS)).replace("  replicas: 3\n", replicas)
    (finding,) = lint_text(tmp_path, text, ["KLB301"])
    assert finding.severity is Severity.INFO
    assert reason in finding.text and "as much an outage as a restart" in finding.text


@pytest.mark.parametrize(
    ("readiness", "liveness"),
    [
        ("httpGet: {path: /ready, port: http}", "httpGet: {path: /live, port: http}"),
        ("httpGet: {path: /h, port: http}", "httpGet: {path: /h, port: 9090}"),
        ("httpGet: {path: /h, port: http}", "httpGet: {path: /h, port: http, scheme: HTTPS}"),
        ("httpGet: {path: /h, port: http}", "tcpSocket: {port: http}"),
        ("exec: {command: [check, ready]}", "exec: {command: [check, live]}"),
        ("grpc: {port: 8080, service: readiness}", "grpc: {port: 8080, service: liveness}"),
        ("tcpSocket: {port: http}", "tcpSocket: {port: 8080}"),
    ],
    ids=[
        "paths-differ",
        "ports-differ",
        "scheme-differs",
        "types-differ",
        "exec-differs",
        "grpc-service-differs",
        "identical-tcp: readiness fails only when liveness should",
    ],
)
def test_different_handlers_are_not_shared(tmp_path: Path, readiness: str, liveness: str) -> None:
    assert klb301(tmp_path, readiness, liveness) == []


def test_a_probe_that_differs_only_in_timing_is_still_shared(tmp_path: Path) -> None:
    (finding,) = klb301(
        tmp_path,
        f"{DIALS}\n  periodSeconds: 10\n  timeoutSeconds: 2",
        f"{DIALS}\n  periodSeconds: 15\n  initialDelaySeconds: 30",
    )
    assert finding.severity is Severity.WARNING


def test_a_liveness_probe_that_gives_up_much_later_is_info_and_says_so(tmp_path: Path) -> None:
    (finding,) = klb301(
        tmp_path,
        "httpGet: {path: /h, port: http}",
        "httpGet: {path: /h, port: http}\n  failureThreshold: 6",
    )
    assert finding.severity is Severity.INFO
    assert "gives up at least twice as late" in finding.text


def test_a_liveness_probe_that_starts_earlier_is_not_lowered(tmp_path: Path) -> None:
    (finding,) = klb301(
        tmp_path,
        f"{DIALS}\n  initialDelaySeconds: 20",
        f"{DIALS}\n  failureThreshold: 10",
    )
    assert finding.severity is Severity.WARNING


SHARED_HTTP = "httpGet: {path: /healthz, port: http}"


def test_without_a_service_readiness_gates_nothing_so_it_is_info_and_jobs_are_left_out(
    tmp_path: Path,
) -> None:
    text = web_deployment(probes(SHARED_HTTP, SHARED_HTTP), service=False)
    (finding,) = lint_text(tmp_path / "a", text, ["KLB301"])
    assert finding.severity is Severity.INFO
    assert "no scanned Service selects the pod, so readiness gates no traffic" in finding.text
    job = text.replace("apps/v1\nkind: Deployment", "batch/v1\nkind: Job")
    assert lint_text(tmp_path / "b", job, ["KLB301"]) == []


@pytest.mark.parametrize(
    "command",
    ["[cat, /tmp/healthy]", "[test, -f, /tmp/ok]", "[/bin/true]", "[sh, -c, 'cat /tmp/ok']"],
)
def test_a_trivial_shared_command_is_info(tmp_path: Path, command: str) -> None:
    check = f"exec: {{command: {command}}}"
    (finding,) = klb301(tmp_path, check, check)
    assert finding.severity is Severity.INFO and "checks next to nothing" in finding.text


def test_a_shell_script_that_does_more_is_not_trivial(tmp_path: Path) -> None:
    check = "exec: {command: [sh, -c, 'cat /tmp/ok && curl -f localhost:8080/ready']}"
    (finding,) = klb301(tmp_path, check, check)
    assert "checks next to nothing" not in finding.text
    assert "names no other host" in finding.text


def test_the_finding_points_at_liveness_and_relates_readiness(tmp_path: Path) -> None:
    (finding,) = klb301(tmp_path, SHARED_HTTP, SHARED_HTTP)
    assert (finding.line, finding.column) == (21, 11)
    assert [r.line for r in finding.related] == [20]


def test_serving_container_without_readiness_is_klb302(tmp_path: Path) -> None:
    (finding,) = lint_text(tmp_path, web_deployment(), ["KLB302"])
    assert finding.container == "web" and "serves Service web" in finding.text
    assert (finding.line, finding.column) == (14, 17)


def test_only_serving_containers_need_readiness(tmp_path: Path) -> None:
    text = web_deployment().replace(
        "      containers:\n", "      containers:\n        - {name: log-shipper, image: x}\n"
    )
    findings = lint_text(tmp_path, text, ["KLB302"])
    assert [f.container for f in findings] == ["web"]


def test_a_job_selected_by_a_service_does_not_serve(tmp_path: Path) -> None:
    job = web_deployment().replace("apps/v1\nkind: Deployment", "batch/v1\nkind: Job")
    assert lint_text(tmp_path, job, ["KLB302", "KLB401"]) == []


ZOOKEEPER = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: zk}
spec:
  serviceName: zk
  replicas: 3
  selector: {matchLabels: {app: zk}}
  template:
    metadata: {labels: {app: zk}}
    spec:
      containers:
        - name: zookeeper
          image: apachepulsar/pulsar-all:3.0.0
          ports: [{name: client, containerPort: 2181}]
          readinessProbe: &check
            exec: {command: [sh, -c, "{ echo ruok; sleep 1; } | nc localhost 2181 | grep imok"]}
          livenessProbe: *check
---
apiVersion: v1
kind: Service
metadata: {name: zk-client}
spec:
  selector: {app: zk}
  ports: [{name: client, port: 2181}]
"""
LOKI = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: loki}
spec:
  replicas: 3
  selector: {matchLabels: {app: loki}}
  template:
    metadata: {labels: {app: loki}}
    spec:
      containers:
        - name: loki
          image: grafana/loki:3.0.0
          args: [-target=TARGET]
          ports: [{name: http, containerPort: 3100}]
          readinessProbe: {httpGet: {path: /ready, port: http}}
          livenessProbe: {httpGet: {path: /ready, port: http}}
---
apiVersion: v1
kind: Service
metadata: {name: loki}
spec:
  selector: {app: loki}
  ports: [{name: http, port: 3100, targetPort: http}]
"""


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        (ZOOKEEPER, Severity.INFO),
        (LOKI.replace("TARGET", "distributor"), Severity.INFO),
        # ring and WAL, waits for queriers: not its own state, but no code shows what it is
        (LOKI.replace("TARGET", "ingester"), Severity.WARNING),
        (LOKI.replace("TARGET", "query-frontend"), Severity.WARNING),
    ],
    ids=["zookeeper-ruok", "loki-distributor", "loki-ingester", "loki-query-frontend"],
)
def test_a_well_known_check_of_the_process_own_state_is_info(
    tmp_path: Path, text: str, severity: Severity
) -> None:
    """A table may lower a finding, never make one: outside it, with no code to read,
    the finding is info too, naming what k8slb did not read (`severity` is the table's)."""
    (finding,) = lint_text(tmp_path, text, ["KLB301"])
    assert finding.severity is Severity.INFO
    assert ("fail together only when the process itself" in finding.text) is (
        severity is Severity.INFO
    )
    assert ("k8slb has not read the handler's code" in finding.text) is (
        severity is Severity.WARNING
    )


GATEWAY_CONFIG = """\
---
apiVersion: v1
kind: ConfigMap
metadata: {name: gateway}
data:
  nginx.conf: |
    server {
      listen 8080;
      location = /healthz {
        # answered before any backend is asked
        return 200 'alive';
        access_log off;
      }
      location / {
        proxy_pass http://backend:80;
      }
    }
"""
GATEWAY = web_deployment(
    probes("httpGet: {path: /healthz, port: http}", "httpGet: {path: /healthz, port: http}"),
    "volumes:\n- name: config\n  configMap: {name: gateway}\n",
).replace("registry.example/web:1.0", "nginxinc/nginx-unprivileged:1.27-alpine")


@pytest.mark.parametrize(
    ("config", "severity"),
    [
        (GATEWAY_CONFIG, Severity.INFO),
        # the probed path goes to a backend: its answer is not nginx's own
        (
            GATEWAY_CONFIG.replace("return 200 'alive';", "proxy_pass http://backend:80/ready;"),
            Severity.WARNING,
        ),
        # a ConfigMap the pod does not mount says nothing about it
        (GATEWAY_CONFIG.replace("name: gateway", "name: other"), Severity.WARNING),
        ("", Severity.WARNING),
    ],
    ids=["static", "proxied", "not-mounted", "no-config"],
)
def test_a_path_nginx_answers_by_itself_is_a_check_of_its_own_state(
    tmp_path: Path, config: str, severity: Severity
) -> None:
    """Gateways in front of Loki or Cortex probe a `location` that only returns 200."""
    assert "nginxinc/nginx-unprivileged" in GATEWAY and "configMap: {name: gateway}" in GATEWAY
    (finding,) = lint_text(tmp_path, GATEWAY + config, ["KLB301"])
    assert finding.severity is Severity.INFO  # no code of the backend: info either way
    assert ("nginx answers /healthz itself" in finding.text) is (severity is Severity.INFO)


# -- the handler both probes reach, in the container's code --------------------------------


def klb301_with_code(
    tmp_path: Path,
    code: str,
    readiness: str,
    liveness: str,
    *,
    name: str = "app.py",
    built: tuple[tuple[str, str], ...] = BUILT_HERE,
) -> Finding:
    """The one KLB301 finding of web_deployment() with these probes, its container linked
    to `code` (BUILT_HERE: a skaffold build of its image, a Dockerfile running app.py)."""
    files = {
        "manifest.yaml": web_deployment(probes(readiness, liveness)),
        name: code,
        **dict(built),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB301"]).findings
    return finding


FLASK_OK = """\
from flask import Flask

app = Flask(__name__)


@app.route("/healthz")
def healthz():
    return "OK"
"""
FASTAPI_OK = """\
from fastapi import FastAPI

app = FastAPI()


@app.get("/healthz")
async def healthz():
    return {"status": "ok"}
"""


@pytest.mark.parametrize("code", [FLASK_OK, FASTAPI_OK], ids=["flask", "fastapi"])
def test_a_shared_handler_that_answers_a_constant_is_info_and_says_where_it_is(
    tmp_path: Path, code: str
) -> None:
    finding = klb301_with_code(tmp_path, code, SHARED_HTTP, SHARED_HTTP)
    assert finding.severity is Severity.INFO
    assert "the handler at app.py:6 checks nothing but the process itself" in finding.text
    assert "a restart is what it needs" in finding.text


@pytest.mark.parametrize(
    "body",
    [
        "    with engine.connect() as connection:\n"
        '        connection.execute(sqlalchemy.text("select 1"))\n'
        '    return "OK"\n',
        "    return check_database()\n",  # a call of the module's own, not an answer
        '    return ("OK", state.status)\n',  # shared state that can turn
    ],
    ids=["a-pool", "a-call", "shared-state"],
)
def test_a_shared_handler_that_checks_something_keeps_the_warning(
    tmp_path: Path, body: str
) -> None:
    code = "import sqlalchemy\n\nengine = sqlalchemy.create_engine('sqlite://')\n" + (
        FLASK_OK.replace('    return "OK"\n', body)
    )
    finding = klb301_with_code(tmp_path, code, SHARED_HTTP, SHARED_HTTP)
    assert finding.severity is Severity.WARNING


def test_a_shared_path_no_route_of_the_code_declares_is_info_saying_so(tmp_path: Path) -> None:
    code = FLASK_OK.replace("/healthz", "/status")
    finding = klb301_with_code(tmp_path, code, SHARED_HTTP, SHARED_HTTP)
    assert finding.severity is Severity.INFO
    assert "no route for /healthz is found in the code container 'web' runs" in finding.text


# A Go program at the top of its module, built into the image web_deployment() runs.
GO_BUILT = (
    ("skaffold.yaml", BUILT_HERE[0][1]),
    ("go.mod", "module example.com/web\n"),
    (
        "Dockerfile",
        "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /web .\n"
        'FROM gcr.io/distroless/static\nCOPY --from=build /web /web\nENTRYPOINT ["/web"]\n',
    ),
)
GO_OK = """\
package main

import (
	"net/http"
)

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("ok"))
}

func main() {
	http.HandleFunc("/healthz", healthz)
	_ = http.ListenAndServe(":8080", nil)
}
"""
GO_PINGS = GO_OK.replace(
    "\tw.WriteHeader(http.StatusOK)\n",
    "\tif err := db.Ping(); err != nil {\n"
    "\t\tw.WriteHeader(http.StatusServiceUnavailable)\n\t\treturn\n\t}\n",
).replace('\t"net/http"\n', '\t"database/sql"\n\t"net/http"\n\n\t_ "github.com/lib/pq"\n')
GO_PINGS = GO_PINGS.replace("func main", 'var db, _ = sql.Open("postgres", "")\n\nfunc main')


def test_a_shared_go_handler_that_answers_a_constant_is_info_and_says_where_it_is(
    tmp_path: Path,
) -> None:
    finding = klb301_with_code(
        tmp_path, GO_OK, SHARED_HTTP, SHARED_HTTP, name="main.go", built=GO_BUILT
    )
    assert finding.severity is Severity.INFO
    assert "the handler at main.go:13 checks nothing but the process itself" in finding.text


def test_a_shared_go_handler_that_pings_the_database_keeps_the_warning(tmp_path: Path) -> None:
    finding = klb301_with_code(
        tmp_path, GO_PINGS, SHARED_HTTP, SHARED_HTTP, name="main.go", built=GO_BUILT
    )
    assert finding.severity is Severity.WARNING


def test_a_go_handler_that_handles_its_own_write_error_still_answers_a_constant(
    tmp_path: Path,
) -> None:
    """`_, err := w.Write([]byte(":)"))`, and a 500 and a log line when that write fails:
    an answer, however the write goes, and no dependency checked; an `if` on anything else
    is no answer."""
    kept = GO_OK.replace(
        '\t_, _ = w.Write([]byte("ok"))\n',
        '\t_, err := w.Write([]byte(":)"))\n'
        "\tif err != nil {\n\t\tw.WriteHeader(http.StatusInternalServerError)\n"
        '\t\tlog.Println("health:", err)\n\t}\n',
    )
    finding = klb301_with_code(
        tmp_path / "kept", kept, SHARED_HTTP, SHARED_HTTP, name="main.go", built=GO_BUILT
    )
    assert finding.severity is Severity.INFO
    other = kept.replace("if err != nil", 'if r.URL.Query().Get("deep") != ""')
    finding = klb301_with_code(
        tmp_path / "other", other, SHARED_HTTP, SHARED_HTTP, name="main.go", built=GO_BUILT
    )
    assert finding.severity is Severity.WARNING


def test_a_shared_go_handler_defined_in_another_file_is_not_read_and_stays_info(
    tmp_path: Path,
) -> None:
    """The route names a method of a value of another file (`api.Health`): what it checks
    is not read, so the finding says so at info, never that it does more than a constant."""
    code = GO_OK.replace(
        'http.HandleFunc("/healthz", healthz)', 'http.HandleFunc("/healthz", api.Health)'
    )
    code = code.replace("func healthz(", "func unused(").replace(
        "func main", "var api = newAPI()\n\nfunc main"
    )
    files = {
        "api.go": "package main\n\ntype API struct{}\n\nfunc newAPI() *API { return &API{} }\n"
    }
    finding = klb301_with_code(
        tmp_path, code, SHARED_HTTP, SHARED_HTTP, name="main.go", built=(*GO_BUILT, *files.items())
    )
    assert finding.severity is Severity.INFO
    assert "api.Health, is defined in another file" in finding.text
    assert "does more than answer a constant" not in finding.text


NODE_BUILT = (
    ("skaffold.yaml", BUILT_HERE[0][1]),
    ("Dockerfile", 'FROM node:22-slim\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n'),
)
EXPRESS_OK = """\
const express = require('express');

const app = express();

app.get('/healthz', (req, res) => {
  res.status(200).send('OK');
});

app.listen(8080);
"""
EXPRESS_QUERIES = EXPRESS_OK.replace(
    "(req, res) => {\n", "async (req, res) => {\n  await pool.query('select 1');\n"
)


def test_a_shared_express_handler_that_answers_a_constant_is_info_and_says_where_it_is(
    tmp_path: Path,
) -> None:
    finding = klb301_with_code(
        tmp_path, EXPRESS_OK, SHARED_HTTP, SHARED_HTTP, name="server.js", built=NODE_BUILT
    )
    assert finding.severity is Severity.INFO
    assert "the handler at server.js:5 checks nothing but the process itself" in finding.text


def test_an_express_handler_whose_body_names_a_variable_still_answers_a_constant(
    tmp_path: Path,
) -> None:
    """`res.json({version, message: 'ok'})`: a field read from a variable the process
    holds is no check of anything; the status stays 200 whatever it holds."""
    code = EXPRESS_OK.replace(
        "res.status(200).send('OK');", "res.json({version, message: 'I am up'});"
    ).replace("const app", "const version = process.env.VERSION;\nconst app")
    finding = klb301_with_code(
        tmp_path, code, SHARED_HTTP, SHARED_HTTP, name="server.js", built=NODE_BUILT
    )
    assert finding.severity is Severity.INFO


def test_a_shared_express_handler_that_queries_the_database_keeps_the_warning(
    tmp_path: Path,
) -> None:
    finding = klb301_with_code(
        tmp_path, EXPRESS_QUERIES, SHARED_HTTP, SHARED_HTTP, name="server.js", built=NODE_BUILT
    )
    assert finding.severity is Severity.WARNING


def test_of_two_modules_declaring_the_path_the_handler_of_the_program_s_entry_is_judged(
    tmp_path: Path,
) -> None:
    """A package with a second version of its app beside the one the image runs (`node
    server.js`): both declare /healthz, and the entry's constant handler is the one run."""
    built = (*NODE_BUILT, ("server-v2.js", EXPRESS_QUERIES), ("package.json", "{}\n"))
    finding = klb301_with_code(
        tmp_path, EXPRESS_OK, SHARED_HTTP, SHARED_HTTP, name="server.js", built=built
    )
    assert finding.severity is Severity.INFO
    assert "the handler at server.js:5 checks nothing but the process itself" in finding.text


def test_two_routes_of_the_path_as_near_the_entry_are_named_as_the_candidates(
    tmp_path: Path,
) -> None:
    """With no entry known (a Dockerfile that names none), two modules of the folder
    declaring the path with different handlers: neither is chosen, and both are named."""
    built = (
        ("skaffold.yaml", BUILT_HERE[0][1]),
        ("Dockerfile", "FROM node:22-slim\nWORKDIR /app\nCOPY . .\n"),
        ("server-v2.js", EXPRESS_QUERIES),
        ("package.json", "{}\n"),
    )
    finding = klb301_with_code(
        tmp_path, EXPRESS_OK, SHARED_HTTP, SHARED_HTTP, name="server.js", built=built
    )
    assert "2 routes for /healthz in the code container 'web' runs" in finding.text
    assert "(server-v2.js:5, server.js:5)" in finding.text or (
        "(server.js:5, server-v2.js:5)" in finding.text
    )


# One route that branches on its query string: two `check` values mean liveness, which
# answers at once; anything else asks the database.
EXPRESS_BRANCHES = """\
const express = require('express');

const app = express();

app.get('/status', async (req, res) => {
  if (req.query.check === 'live') {
    return res.sendStatus(200);
  }
  await pool.query('select 1');
  res.sendStatus(200);
});

app.listen(8080);
"""


FLASK_ONE_HANDLER = """\
import sqlalchemy
from flask import Flask

app = Flask(__name__)
engine = sqlalchemy.create_engine("sqlite://")

@app.get("/ready")
@app.get("/live")
def health():
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text("select 1"))
    return "OK"
"""


def by_query(query: str) -> str:
    return f"httpGet: {{path: '/status?{query}', port: http}}"


def test_probes_that_differ_only_in_their_query_strings_are_no_evidence_of_one_check(
    tmp_path: Path,
) -> None:
    """Readiness and liveness reach one route, each with its own query string: a handler
    that reads it may answer liveness at once and query the database for readiness. That
    the handler can reach the database is then no evidence that liveness fails with it:
    info, saying which link is missing, never a warning on a guess."""
    finding = klb301_with_code(
        tmp_path,
        EXPRESS_BRANCHES,
        by_query("check=ready"),
        by_query("check=live"),
        name="server.js",
        built=NODE_BUILT,
    )
    assert finding.severity is Severity.INFO
    assert "both reach /status (server.js:5), the function at line 5;" in finding.text
    assert "different query strings (?check=ready and ?check=live)" in finding.text
    assert "k8slb does not read what it does with them" in finding.text
    routes = [r for r in finding.related if r.message.startswith("the route")]
    assert len(routes) == 1, "one route, named once"


def test_a_query_string_on_one_probe_alone_is_a_difference_too(tmp_path: Path) -> None:
    finding = klb301_with_code(
        tmp_path,
        EXPRESS_BRANCHES,
        by_query("full=1"),
        "httpGet: {path: /status, port: http}",
        name="server.js",
        built=NODE_BUILT,
    )
    assert finding.severity is Severity.INFO
    assert "(?full=1 and none)" in finding.text


def test_the_same_query_string_on_both_probes_is_one_check_and_keeps_the_warning(
    tmp_path: Path,
) -> None:
    finding = klb301_with_code(
        tmp_path,
        EXPRESS_BRANCHES,
        by_query("check=deep"),
        by_query("check=deep"),
        name="server.js",
        built=NODE_BUILT,
    )
    assert finding.severity is Severity.WARNING


def test_two_paths_of_one_handler_with_no_query_string_keep_the_warning(tmp_path: Path) -> None:
    """`@app.get("/ready")` and `@app.get("/live")` on one function that queries the
    database: one check under two names, as before."""
    finding = klb301_with_code(
        tmp_path,
        FLASK_ONE_HANDLER,
        "httpGet: {path: /ready, port: http}",
        "httpGet: {path: /live, port: http}",
    )
    assert finding.severity is Severity.WARNING
    assert "/ready (app.py:7) and /live (app.py:8) both run health()" in finding.text


GRPC_HEALTH = """\
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2_grpc


def serve():
    server = grpc.server(futures.ThreadPoolExecutor())
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port("[::]:8080")
    server.start()
    server.wait_for_termination()
"""
SHARED_GRPC = "grpc: {port: 8080}"


def test_a_shared_grpc_probe_of_a_health_service_always_serving_is_info(tmp_path: Path) -> None:
    finding = klb301_with_code(tmp_path, GRPC_HEALTH, SHARED_GRPC, SHARED_GRPC)
    assert finding.severity is Severity.INFO
    assert "the handler at app.py:10 checks nothing but the process itself" in finding.text


def test_a_shared_grpc_probe_of_a_health_service_that_can_say_not_serving_keeps_the_warning(
    tmp_path: Path,
) -> None:
    code = GRPC_HEALTH + (
        "\n\ndef on_database_down(servicer):\n"
        '    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)\n'
    )
    finding = klb301_with_code(tmp_path, code, SHARED_GRPC, SHARED_GRPC)
    assert finding.severity is Severity.WARNING


def test_a_shared_grpc_probe_of_another_port_than_the_server_is_info_saying_so(
    tmp_path: Path,
) -> None:
    finding = klb301_with_code(tmp_path, GRPC_HEALTH, "grpc: {port: 9090}", "grpc: {port: 9090}")
    assert finding.severity is Severity.INFO
    assert "which health service of the code answers the probe on port 9090" in finding.text


# -- why a Service that selects the pod does not make readiness gate traffic ---------------


def test_a_service_publishing_not_ready_addresses_is_named_with_why_it_does_not_count(
    tmp_path: Path,
) -> None:
    text = publishing_not_ready(web_deployment(probes(SHARED_HTTP, SHARED_HTTP))).replace(
        "spec:\n  publishNotReadyAddresses", "spec:\n  clusterIP: None\n  publishNotReadyAddresses"
    )
    (finding,) = lint_text(tmp_path, text, ["KLB301"])
    assert finding.severity is Severity.INFO
    assert "no scanned Service" not in finding.text
    assert "Service web selects the pod, but it publishes not-ready pods" in finding.text


def test_a_service_targeting_only_a_sidecar_is_named_with_the_sidecar(tmp_path: Path) -> None:
    sidecar = (
        "        - name: proxy\n"
        "          image: registry.example/proxy:1.0\n"
        "          ports:\n"
        "            - {name: proxy, containerPort: 8443}\n"
    )
    text = (
        web_deployment(probes(SHARED_HTTP, SHARED_HTTP))
        .replace("---\n", sidecar + "---\n", 1)
        .replace("targetPort: http", "targetPort: proxy")
    )
    (finding,) = lint_text(tmp_path, text, ["KLB301"])
    assert finding.severity is Severity.INFO
    assert "no scanned Service" not in finding.text
    assert "Service web selects the pod, but it targets only the ports of container 'proxy'" in (
        finding.text
    )


# -- Spring Boot's health endpoint ---------------------------------------------------------

SPRING_BUILT = (
    ("skaffold.yaml", BUILT_HERE[0][1]),
    (
        "Dockerfile",
        "FROM eclipse-temurin:21-jre\nCOPY build/libs/app.jar /app.jar\n"
        'ENTRYPOINT ["java", "-jar", "/app.jar"]\n',
    ),
    (
        "src/main/java/com/example/orders/OrdersApplication.java",
        "package com.example.orders;\n\n"
        "import org.springframework.boot.SpringApplication;\n"
        "import org.springframework.boot.autoconfigure.SpringBootApplication;\n\n"
        "@SpringBootApplication\npublic class OrdersApplication {\n"
        "    public static void main(String[] args) {\n"
        "        SpringApplication.run(OrdersApplication.class, args);\n    }\n}\n",
    ),
)
ACTUATOR = "httpGet: {path: /actuator/health, port: http}"


@pytest.mark.parametrize(
    ("settings", "probe", "severity"),
    [
        ("spring.datasource.url=jdbc:postgresql://db:5432/orders\n", ACTUATOR, Severity.WARNING),
        ("spring.data.redis.host=cache\n", ACTUATOR, Severity.WARNING),
        ("spring.application.name=orders\n", ACTUATOR, Severity.INFO),
        (
            "spring.datasource.url=jdbc:postgresql://db:5432/orders\n"
            "management.health.defaults.enabled=false\n",
            ACTUATOR,
            Severity.INFO,
        ),
        (
            "spring.datasource.url=jdbc:postgresql://db:5432/orders\n",
            "httpGet: {path: /actuator/health/liveness, port: http}",
            Severity.INFO,
        ),
    ],
    ids=["datasource", "redis", "no-dependency", "indicators-off", "liveness-group"],
)
def test_spring_boot_health_that_aggregates_a_configured_dependency_is_a_warning(
    tmp_path: Path, settings: str, probe: str, severity: Severity
) -> None:
    """Spring Boot adds the health indicator of each dependency it auto-configures (a
    DataSource, Redis...) to /actuator/health: shared by both probes, a database outage
    restarts every pod. Its liveness group, or an application with no such dependency,
    is not seen to reach one."""
    files = {
        "manifest.yaml": web_deployment(probes(probe, probe)),
        "src/main/resources/application.properties": settings,
        **dict(SPRING_BUILT),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB301"]).findings
    assert finding.severity is severity
    assert ("Spring Boot adds the health of what the application configures" in finding.text) is (
        severity is Severity.WARNING
    )


# A Spring controller whose class maps a prefix, as most of them do.
SPRING_HEALTH = """\
package com.example.orders;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api")
public class StatusController {

    private final OrderRepository orders;

    public StatusController(OrderRepository orders) {
        this.orders = orders;
    }

    @GetMapping(value = "/healthz")
    public ResponseEntity<String> healthz() {
        orders.count();
        return ResponseEntity.ok("UP");
    }
}
"""
SPRING_PROBE = "httpGet: {path: /api/healthz, port: http}"


def spring_klb301(tmp_path: Path, controller: str, probe: str = SPRING_PROBE) -> Finding:
    files = {
        "manifest.yaml": web_deployment(probes(probe, probe)),
        "src/main/java/com/example/orders/StatusController.java": controller,
        **dict(SPRING_BUILT),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB301"]).findings
    return finding


@pytest.mark.parametrize(
    ("prefix", "mapping"),
    [
        ('@RequestMapping("/api")', '@GetMapping(value = "/healthz")'),
        ('@RequestMapping(path = "api/")', '@GetMapping("healthz")'),
        ('@RequestMapping({"/v1", "/api"})', '@GetMapping(path = {"/ready", "/healthz"})'),
        ("", '@RequestMapping(value = "/api/healthz", method = RequestMethod.GET)'),
    ],
    ids=["value", "no-slashes", "arrays", "method-only"],
)
def test_a_spring_route_is_the_class_prefix_joined_with_the_method_path(
    tmp_path: Path, prefix: str, mapping: str
) -> None:
    """Spring serves a handler at its class's `@RequestMapping` path joined with its own;
    the handler that queries a repository reaches beyond the process: the warning."""
    controller = SPRING_HEALTH.replace('@RequestMapping("/api")', prefix).replace(
        '@GetMapping(value = "/healthz")', mapping
    )
    finding = spring_klb301(tmp_path, controller)
    assert finding.severity is Severity.WARNING
    assert "no route" not in finding.text


def test_a_spring_handler_that_returns_a_constant_is_info_and_says_where_it_is(
    tmp_path: Path,
) -> None:
    controller = SPRING_HEALTH.replace("        orders.count();\n", "")
    finding = spring_klb301(tmp_path, controller)
    assert finding.severity is Severity.INFO
    assert "the handler at StatusController.java:18 checks nothing but the process" in (
        finding.text
    )


@pytest.mark.parametrize(
    "change",
    [
        ('@GetMapping(value = "/healthz")', '@PostMapping(value = "/healthz")'),
        ("public class StatusController", "public interface StatusController"),
        ('@GetMapping(value = "/healthz")', "@GetMapping(value = HEALTH)"),
    ],
    ids=["not-a-get", "an-interface", "a-constant-path"],
)
def test_a_spring_mapping_a_probe_does_not_reach_declares_no_route(
    tmp_path: Path, change: tuple[str, str]
) -> None:
    """A POST mapping answers no probe, an interface's mappings (a Feign client's) serve
    nothing, and a path k8slb cannot read is not taken for the one written."""
    finding = spring_klb301(tmp_path, SPRING_HEALTH.replace(*change))
    assert finding.severity is Severity.INFO
    assert "no route for /api/healthz is found" in finding.text


STARTUP = "startupProbe:\n  exec: {command: [valkey-cli, ping]}\n"


@pytest.mark.parametrize(
    ("replicas", "scaled", "severity"),
    [("1", False, Severity.INFO), ("3", False, Severity.WARNING), ("1", True, Severity.WARNING)],
    ids=["one-replica", "three-replicas", "one-replica-autoscaled"],
)
def test_a_startup_probe_leaves_only_traffic_while_it_hangs_and_one_replica_is_info(
    tmp_path: Path, replicas: str, scaled: bool, severity: Severity
) -> None:
    """The kubelet keeps a container not ready until its startupProbe succeeds: no traffic
    before it listens. What remains is traffic while it hangs or drains, which another pod
    could take only when there is one."""
    scaler = (
        "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"
        "spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, "
        "minReplicas: 1, maxReplicas: 5}\n"
    )
    text = web_deployment(STARTUP).replace("replicas: 3", f"replicas: {replicas}")
    (finding,) = lint_text(tmp_path, text + (scaler if scaled else ""), ["KLB302"])
    assert finding.severity is severity
    assert "before it listens" not in finding.text
    assert "its startupProbe keeps it out until it starts" in finding.text
    assert "while it hangs or drains" in finding.text
    (plain,) = lint_text(tmp_path / "plain", web_deployment(), ["KLB302"])
    assert "before it listens" in plain.text and plain.severity is Severity.WARNING


def _headless(text: str) -> str:
    return text.replace(
        "spec:\n  selector:\n    app: web", "spec:\n  clusterIP: None\n  selector:\n    app: web"
    )


@pytest.mark.parametrize(
    ("kind", "headless", "routed", "severity"),
    [
        ("DaemonSet", True, False, Severity.INFO),
        ("DaemonSet", False, False, Severity.WARNING),
        ("DaemonSet", True, True, Severity.WARNING),
        ("Deployment", True, False, Severity.WARNING),
    ],
    ids=["daemonset-headless", "daemonset-clusterip", "daemonset-headless-routed", "deployment"],
)
def test_a_daemonset_only_a_headless_service_selects_is_info_as_for_klb401(
    tmp_path: Path, kind: str, headless: bool, routed: bool, severity: Severity
) -> None:
    """A DaemonSet's callers that find its pods by headless DNS take the one on their node:
    no other pod could take its traffic, so a readiness probe decides little (info, as
    KLB401 says of headless Services); an L7 route or a ClusterIP keeps the warning, and a
    Deployment behind a headless Service keeps it too (DNS lists only ready pods)."""
    text = web_deployment().replace("kind: Deployment", f"kind: {kind}", 1)
    if kind == "DaemonSet":
        text = text.replace("  replicas: 3\n", "")
    if headless:
        text = _headless(text)
    if routed:
        text += (
            "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n"
            "spec: {rules: [{http: {paths: [{path: /, pathType: Prefix, "
            "backend: {service: {name: web, port: {number: 80}}}}]}}]}\n"
        )
    (finding,) = lint_text(tmp_path, text, ["KLB302"])
    assert finding.severity is severity
    assert ("one a node" in finding.text) is (severity is Severity.INFO)


@pytest.mark.parametrize(
    "command",
    [
        'command: ["sh", "-c", "--"]\nargs: ["while true; do sleep infinity; done"]',
        'command: ["/bin/bash", "-c", "while :; do sleep 3600; done"]',
        'command: ["sleep", "infinity"]',
        'command: ["tail", "-f", "/dev/null"]',
    ],
    ids=["sh-loop", "bash-loop", "sleep", "tail"],
)
def test_a_container_whose_command_only_waits_serves_nothing(tmp_path: Path, command: str) -> None:
    """Its command replaces the image's server with a wait: no request reaches it, so
    neither readiness (KLB302) nor a preStop pause (KLB401) decides anything."""
    assert lint_text(tmp_path, web_deployment(command), ["KLB302", "KLB401"]) == []


@pytest.mark.parametrize(
    "command",
    [
        'command: ["sh", "-c", "sleep 5 && exec /app/server"]',
        'command: ["sh", "-c", "while true; do sleep 1; done & /app/server"]',
        'args: ["sleep", "infinity"]',  # the image's entry point still runs first
        'command: ["sleep", "$(DELAY)"]',
    ],
    ids=["then-serves", "background", "args-only", "unknown-duration"],
)
def test_a_wait_before_or_beside_a_server_still_serves(tmp_path: Path, command: str) -> None:
    found = lint_text(tmp_path, web_deployment(command), ["KLB302", "KLB401"])
    assert sorted(f.rule for f in found) == ["KLB302", "KLB401"]
