"""Node.js services beyond their gRPC options: how a grpc-js server is started and stopped
(KLB403, KLB404), its health service (KLB405), keep-alive HTTP agents (KLB202), the port it
listens on as evidence of gRPC (KLB101), and TypeScript read as JavaScript is."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import EnvRef
from k8slb.core.findings import Severity
from k8slb.languages.javascript.parse import parse, parse_typescript
from k8slb.model.runtimes import engines_major

from .helpers import cart_dialed_from_frontend, lint_files, rules_of

SERVER = """\
const grpc = require('@grpc/grpc-js');

const PORT = process.env.PORT || '7000';

function main() {
  const server = new grpc.Server({'grpc.max_connection_age_ms': 300000, \
'grpc.max_connection_age_grace_ms': 30000});
  server.addService(proto.Currency.service, {convert});
  HEALTH
  server.bindAsync(`[::]:${PORT}`, grpc.ServerCredentials.createInsecure(), () => {});
}

SHUTDOWN

main();
"""
SIGTERM_HANDLER = """\
process.on('SIGTERM', () => {
  setTimeout(() => server.forceShutdown(), 25000).unref();
  server.tryShutdown(() => process.exit(0));
});"""


def server(shutdown: str = "", health: str = "") -> str:
    return SERVER.replace("SHUTDOWN", shutdown).replace("HEALTH", health)


def test_bind_async_starts_the_server_listens_and_the_event_loop_waits() -> None:
    facts = parse("server.js", server().encode())
    assert facts.starts == {"server"}
    (listen,) = facts.listens
    assert (listen.server, listen.address) == ("server", EnvRef("PORT", "7000", "[::]:"))
    (wait,) = facts.waits
    assert (wait.loc.line, wait.server) == (9, "server")


@pytest.mark.parametrize(
    ("shutdown", "found"),
    [
        ("", ["KLB403"]),
        (SIGTERM_HANDLER, []),
        ("process.once('SIGTERM', stop);", []),
        ("for (const signal of ['SIGINT', 'SIGTERM']) {\n  process.on(signal, stop);\n}", []),
        ("['SIGINT', 'SIGTERM'].forEach((signal) => process.on(signal, stop));", []),
        ("const SIGNALS = ['SIGTERM'];\nSIGNALS.forEach((s) => process.on(s, stop));", []),
        ("process.on('SIGINT', stop);", ["KLB403"]),
        ("const { createTerminus } = require('@godaddy/terminus');", []),
    ],
    ids=["none", "on", "once", "for-of", "forEach", "const-list", "sigint-only", "terminus"],
)
def test_a_grpc_js_server_needs_a_sigterm_handler(
    tmp_path: Path, shutdown: str, found: list[str]
) -> None:
    result = lint_files(tmp_path, {"server.js": server(shutdown)}, ["KLB403"])
    assert rules_of(result.findings) == found


def test_the_missing_handler_is_reported_where_the_server_starts(tmp_path: Path) -> None:
    (finding,) = lint_files(tmp_path, {"server.js": server()}, ["KLB403"]).findings
    assert (finding.line, finding.column) == (9, 3)
    assert finding.message == (
        "gRPC server 'server' waits in the event loop with no SIGTERM handler in its project"
    )
    assert "as PID 1, it ignores it until SIGKILL" in finding.text


def test_a_handler_in_another_module_of_the_package_counts(tmp_path: Path) -> None:
    files = {
        "svc/package.json": '{"name": "svc"}',
        "svc/src/server.js": server(),
        "svc/index.js": "require('./src/server');\n" + SIGTERM_HANDLER,
    }
    assert lint_files(tmp_path, files, ["KLB403"]).findings == []


def test_force_shutdown_aborts_the_calls_in_flight(tmp_path: Path) -> None:
    abrupt = "process.on('SIGTERM', () => server.forceShutdown());"
    (finding,) = lint_files(tmp_path, {"server.js": server(abrupt)}, ["KLB404"]).findings
    assert finding.message == "server.forceShutdown() aborts every call in flight"
    graceful = lint_files(tmp_path / "ok", {"server.js": server(SIGTERM_HANDLER)}, ["KLB404"])
    assert graceful.findings == [], "a timer's forceShutdown only bounds a tryShutdown"


HEALTH_V2 = """\
const { HealthImplementation } = require('grpc-health-check');
  const health = new HealthImplementation({'': 'SERVING'});
  health.addToServer(server);"""


@pytest.mark.parametrize(
    ("health", "shutdown", "found"),
    [
        (HEALTH_V2, "", ["KLB405"]),
        (HEALTH_V2, "function drain() { health.setStatus('', 'NOT_SERVING'); }", []),
        (
            "server.addService(healthProto.Health.service, {check});",
            "function check(call, callback) {\n  callback(null, {status: 'SERVING'});\n}",
            ["KLB405"],
        ),
        (
            "server.addService(health.Health.service, {check: (call, cb) => "
            "cb(null, {status: ready ? 'SERVING' : 'NOT_SERVING'})});",
            "",
            [],
        ),
        (
            "server.addService(health.Health.service, {check: Server.check.bind(this)});",
            "class Server {\n  static check(call, callback) {\n"
            "    callback(null, {status: 'SERVING'});\n  }\n}",
            ["KLB405"],
        ),
    ],
    ids=["library-never-drained", "library-drained", "always-serving", "decides", "method"],
)
def test_a_health_service_that_can_never_say_not_serving(
    tmp_path: Path, health: str, shutdown: str, found: list[str]
) -> None:
    result = lint_files(tmp_path, {"server.js": server(shutdown, health)}, ["KLB405"])
    assert rules_of(result.findings) == found


def test_a_hand_written_check_is_named_as_node_names_it(tmp_path: Path) -> None:
    files = {
        "server.js": server(
            "function check(call, callback) {\n  callback(null, {status: 'SERVING'});\n}",
            "server.addService(healthProto.Health.service, {check});",
        )
    }
    (finding,) = lint_files(tmp_path, files, ["KLB405"]).findings
    assert finding.message == "health check check() always answers SERVING"


SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: cart
spec:
  selector:
    app: cart
  ports:
    - port: 8080
"""


@pytest.mark.parametrize(
    ("agent", "found"),
    [
        ("new http.Agent({keepAlive: true})", ["KLB202"]),
        ("new http.Agent({keepAlive: false})", []),
        ("new http.Agent()", []),
        ("new Agent({keepAliveMsecs: 1000})", ["KLB202"]),
    ],
    ids=["keep-alive", "off", "default-off", "agentkeepalive"],
)
def test_a_keep_alive_agent_to_a_cluster_service(
    tmp_path: Path, agent: str, found: list[str]
) -> None:
    code = (
        "const http = require('http');\n"
        "const Agent = require('agentkeepalive');\n"
        f"const agent = {agent};\n"
        "const CART = `http://cart:8080/cart`;\n"
    )
    files = {"client.js": code, "k8s.yaml": SERVICE}
    assert rules_of(lint_files(tmp_path, files, ["KLB202"]).findings) == found


def test_an_agent_made_for_each_request_is_not_long_lived() -> None:
    code = (
        "const http = require('http');\n"
        "function get() { return new http.Agent({keepAlive: true}); }"
    )
    (client,) = parse("client.js", code.encode()).http_clients
    assert not client.long_lived


REQUESTER = """\
const axios = require('axios');

async function loop(endpoint) {
  let server = 'cart:8080';
  if (process.env.CART_HOST_PORT) {
    server = process.env.CART_HOST_PORT;
  }
  const result = await axios.get(`http://${server}/${endpoint}`, { headers: {} });
  await axios.post(`http://${server}/${endpoint}`, {});
  return result;
}
"""


@pytest.mark.parametrize(
    ("base", "found"),
    [
        ("node:23-alpine3.20", ["KLB202"]),
        ("node:19", ["KLB202"]),
        ("node", ["KLB202"]),  # the newest release
        ("node:18.17.1", []),  # its global agent does not keep connections alive
        ("node:hydrogen", []),  # a codename: the version is not known
        ("python:3.12", []),
    ],
)
def test_nodes_global_agent_keeps_connections_alive_from_node_19(
    tmp_path: Path, base: str, found: list[str]
) -> None:
    """axios with no agent of its own sends through Node's global agent, which pools
    keep-alive connections since Node 19: the image the module is built into says."""
    files = {
        "requester/index.js": REQUESTER,
        "requester/Dockerfile": f'FROM {base}\nCOPY . /app\nCMD ["node", "/app/index.js"]\n',
        "k8s.yaml": SERVICE,
    }
    findings = lint_files(tmp_path, files, ["KLB202"]).findings
    assert rules_of(findings) == found
    if findings:  # one finding, at the module's first request
        assert (findings[0].line, findings[0].severity) == (8, Severity.INFO)
        assert "Node's global agent" in findings[0].message


def test_an_unknown_node_version_or_a_request_with_its_own_agent_says_nothing(
    tmp_path: Path,
) -> None:
    unknown = {"requester/index.js": REQUESTER, "k8s.yaml": SERVICE}
    assert lint_files(tmp_path / "unknown", unknown, ["KLB202"]).findings == []
    own = REQUESTER.replace("{ headers: {} }", "{ httpAgent: agent }").replace(
        "axios.post(`http://${server}/${endpoint}`, {})", "Promise.resolve()"
    )
    files = {
        "requester/index.js": own,
        "requester/Dockerfile": "FROM node:23\nCOPY . /app\n",
        "k8s.yaml": SERVICE,
    }
    assert lint_files(tmp_path / "own", files, ["KLB202"]).findings == []


@pytest.mark.parametrize(
    ("engines", "dockerfile", "found"),
    [
        (">=20", None, ["KLB202"]),  # no Dockerfile: the package says
        ("^22.4.0", None, ["KLB202"]),
        ("20.x", "FROM gcr.io/distroless/nodejs\n", ["KLB202"]),  # an image that says no version
        (">=16", None, []),  # Node 16 is allowed, whose global agent does not pool
        ("18 || >=20", None, []),  # the lowest alternative
        ("<22", None, []),  # no lower bound: the version is not known
        (">=20", "FROM node:18\n", []),  # the image says, over the package
    ],
)
def test_the_package_s_engines_node_says_the_version_where_the_image_does_not(
    tmp_path: Path, engines: str, dockerfile: str | None, found: list[str]
) -> None:
    """The lowest Node.js major version `engines.node` admits is the one judged, where no
    `node` image tag says which runs: a range that admits Node 18 says nothing of pooling."""
    files = {
        "requester/index.js": REQUESTER,
        "requester/package.json": f'{{"name": "requester", "engines": {{"node": "{engines}"}}}}\n',
        "k8s.yaml": SERVICE,
    }
    if dockerfile is not None:
        files["requester/Dockerfile"] = dockerfile + 'COPY . /app\nCMD ["node", "/app/index.js"]\n'
    assert rules_of(lint_files(tmp_path, files, ["KLB202"]).findings) == found


@pytest.mark.parametrize(
    ("engines", "major"),
    [
        (">=18", 18),
        ("^20.11.0", 20),
        ("~v16.4", 16),
        (">= 19", 19),
        ("16 - 20", 16),
        ("14 || >=18", 14),
        (">=18 <21", 18),
        ("*", None),
        ("<20", None),
        ("lts", None),
    ],
)
def test_the_lowest_major_an_engines_range_admits(engines: str, major: int | None) -> None:
    assert engines_major(engines) == major


def test_a_functions_variable_an_environment_value_may_replace_is_read_with_its_default() -> None:
    """`let server = 'cart:8080'; if (process.env.X) server = process.env.X`, and a
    URL template read up to its path."""
    (client,) = parse("index.js", REQUESTER.encode()).agent_requests
    assert client.base_url == EnvRef("CART_HOST_PORT", "cart:8080", "http://")
    assert client.factory == "axios.get" and client.default_agent


def test_fetch_and_http_request_go_through_the_global_agent_too() -> None:
    fetched = parse("a.js", b"async function f() { return fetch('http://cart:8080/x'); }\n")
    assert [(c.factory, c.base_url) for c in fetched.agent_requests] == [
        ("fetch", "http://cart:8080/x")
    ]
    code = b"const http = require('node:http');\nhttp.get('http://cart:8080/x', () => {});\n"
    assert [c.factory for c in parse("b.js", code).agent_requests] == ["http.get"]
    fetch_import = b"const fetch = require('node-fetch');\nfetch('http://cart:8080/x');\n"
    assert parse("c.js", fetch_import).agent_requests == []


def test_only_a_request_is_searched_for_an_agent_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every call's arguments, callbacks and all, searched for `agent:` cost a module more
    # than its parse: the search is for the requests through Node's global agent alone
    from k8slb.languages.javascript import parse as javascript

    searched: list[str] = []
    own_agent = javascript._OWN_AGENT

    class Counted:
        def search(self, text: str) -> object:
            searched.append(text)
            return own_agent.search(text)

    monkeypatch.setattr(javascript, "_OWN_AGENT", Counted())
    code = (
        b"const axios = require('axios');\n"
        b"app.use((req, res, next) => { log(req.url, { agent: 1 }); next(); });\n"
        b"setTimeout(() => poll(), 1000);\n"
        b"axios.get('http://cart:8080/x');\n"
    )
    assert [c.factory for c in javascript.parse("a.js", code).agent_requests] == ["axios.get"]
    assert searched == ["'http://cart:8080/x'"]


GRPC_PORT_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: currencyservice
spec:
  selector:
    app: currencyservice
  ports:
    - port: 7000
      targetPort: 7000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: currencyservice
spec:
  replicas: 3
  selector:
    matchLabels: {app: currencyservice}
  template:
    metadata:
      labels: {app: currencyservice}
    spec:
      containers:
        - name: server
          image: gcr.io/shop/currencyservice:v1
          env:
            - {name: PORT, value: "7000"}
          ports:
            - containerPort: 7000
"""


def test_a_port_a_grpc_js_server_binds_makes_its_service_grpc(tmp_path: Path) -> None:
    files = {
        "src/currencyservice/server.js": server(SIGTERM_HANDLER),
        "src/currencyservice/Dockerfile": 'FROM node:20\nCOPY . .\nCMD ["node", "server.js"]\n',
        "kubernetes-manifests/currency.yaml": GRPC_PORT_SERVICE,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert finding.rule == "KLB101" and "server.js" in finding.text


TYPESCRIPT = """\
import * as grpc from '@grpc/grpc-js';
import { credentials } from '@grpc/grpc-js';

export class App {
  private server: grpc.Server = new grpc.Server({
    'grpc.max_connection_age_ms': 300_000,
  } as grpc.ServerOptions);

  start(port: number): void {
    this.server.bindAsync(`0.0.0.0:${port}`, grpc.ServerCredentials.createInsecure(), () => {});
  }
}

const client = new CartClient(process.env.CART_ADDR!, credentials.createInsecure());
"""


def test_typescript_is_read_as_javascript_is() -> None:
    facts = parse_typescript("src/app.ts", TYPESCRIPT.encode())
    assert facts.language == "typescript" and facts.problem is None
    (made,) = facts.servers
    assert made.name == "this.server" and made.options.get("grpc.max_connection_age_ms")
    assert facts.starts == {"this.server"}
    (channel,) = facts.channels
    assert channel.target == EnvRef("CART_ADDR") and channel.long_lived


def test_typescript_findings_and_declarations(tmp_path: Path) -> None:
    files = {"src/app.ts": TYPESCRIPT, "src/types.d.ts": "declare const x: number"}
    found = lint_files(tmp_path, files, ["KLB204", "KLB403", "KLB004"]).findings
    assert rules_of(found) == ["KLB204", "KLB403"]
    broken = {"app.tsx": "import * as grpc from '@grpc/grpc-js';\nconst x = <div>{;\n"}
    (problem,) = lint_files(tmp_path / "tsx", broken).findings
    assert problem.rule == "KLB004" and "not valid TypeScript" in problem.message


# A generated client's types, written without semicolons: valid TypeScript on which
# tree-sitter's grammar stumbles (a property named `in` after a line with no semicolon).
KEYWORD_PROPERTIES = """\
import * as grpc from '@grpc/grpc-js';

export interface QueryFilter {
  eq?: string
  in?: string[]
  nin?: string[]
}

export type Page = {
  size?: number
  in?: number[]
}
"""


def test_a_type_declaration_the_grammar_stumbles_on_is_no_parse_error() -> None:
    """An error tree-sitter reports inside an interface or a type alias (no code runs
    there) is not the file's: no KLB004. One in code still is, at its own line."""
    assert parse_typescript("src/models/types.ts", KEYWORD_PROPERTIES.encode()).problem is None
    broken = KEYWORD_PROPERTIES + "\nfunction main( {\n}\n"
    problem = parse_typescript("src/models/types.ts", broken.encode()).problem
    assert problem is not None and problem.rule == "KLB004" and problem.line == 14


def test_a_test_module_is_not_judged() -> None:
    assert parse("src/__tests__/server.js", server().encode()).is_test
    assert parse("src/server.spec.js", server().encode()).is_test


GATEWAY = """\
import { ChannelCredentials } from '@grpc/grpc-js';
import { CartServiceClient } from '../../protos/demo';

const { CART_ADDR = '' } = process.env;

const client = new CartServiceClient(CART_ADDR, ChannelCredentials.createInsecure());
"""
CART = cart_dialed_from_frontend("tcp-service", 8080)


def test_a_grpc_channel_is_evidence_that_the_port_it_dials_carries_grpc(tmp_path: Path) -> None:
    """The OpenTelemetry demo's frontend: its TypeScript gateways dial `cart:8080` (a port
    named `tcp-service`) with the credentials class imported by name and the address
    destructured from process.env: the channel itself says the port is gRPC."""
    (channel,) = parse_typescript("Cart.gateway.ts", GATEWAY.encode()).channels
    assert channel.target == EnvRef("CART_ADDR", "")
    files = {"frontend/gateways/rpc/Cart.gateway.ts": GATEWAY, "k8s.yaml": CART}
    (finding,) = lint_files(tmp_path, files, ["KLB102", "KLB103"]).findings
    assert finding.rule == "KLB102"
    assert finding.message == "gRPC channel to ClusterIP Service/cart stays on one pod"
