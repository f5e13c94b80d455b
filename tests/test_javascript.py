"""JavaScript (Node.js, @grpc/grpc-js), the first part: a module's gRPC servers and their
connection-age options, judged by KLB201 and KLB204, worded in grpc-js's terms, silenced
with `//` comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.code.syntax_trees import template_line
from k8slb.core.findings import Severity
from k8slb.interface.cli import cli
from k8slb.languages.javascript.parse import parse, parse_typescript
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files, rules_of

SERVER = """\
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

OPTIONS

function main() {
  const server = new grpc.Server(ARGUMENT);
  server.addService(proto.Echo.service, {unaryEcho});
  server.bindAsync(`0.0.0.0:${port}`, grpc.ServerCredentials.createInsecure(), () => {});
}

main();
"""


def module(options: str = "", argument: str = "") -> str:
    return SERVER.replace("OPTIONS", options).replace("ARGUMENT", argument)


def test_a_server_with_no_options_never_ends_its_connections() -> None:
    facts = parse("server.js", module().encode())
    (server,) = facts.servers
    assert (server.loc.line, server.loc.column, server.name) == (7, 18, "server")
    assert not server.options.given


@pytest.mark.parametrize(
    ("options", "argument", "rules"),
    [
        ("", "", ["KLB201"]),
        # the options of grpc-node's keepalive example, in a const of the module
        (
            "const keepaliveOptions = {\n"
            "  // If a client is idle for 15 seconds, send a GOAWAY\n"
            "  'grpc.max_connection_idle_ms': 15_000,\n"
            "  'grpc.max_connection_age_ms': 30_000,\n"
            "  'grpc.max_connection_age_grace_ms': 5_000,\n"
            "};",
            "keepaliveOptions",
            [],
        ),
        ("", "{'grpc.max_connection_age_ms': 30000}", ["KLB204"]),
        ("", "{'grpc.keepalive_time_ms': 5000}", ["KLB201"]),
        # options k8slb cannot follow: it says nothing rather than guess
        ("", "makeOptions()", []),
        ("", "{...defaults, 'grpc.keepalive_time_ms': 5000}", []),
    ],
    ids=["none", "const-object", "age-without-grace", "other-options", "a-call", "a-spread"],
)
def test_connection_age_options_of_a_grpc_js_server(
    tmp_path: Path, options: str, argument: str, rules: list[str]
) -> None:
    found = lint_files(tmp_path, {"server.js": module(options, argument)}, ["KLB201", "KLB204"])
    assert rules_of(found.findings) == rules


def test_the_finding_speaks_grpc_js(tmp_path: Path) -> None:
    (finding,) = lint_files(tmp_path, {"server.js": module()}, ["KLB201"]).findings
    assert finding.message == "grpc.Server() sets no 'grpc.max_connection_age_ms'"
    assert "'grpc.max_connection_age_ms': 300000 and" in finding.text
    assert finding.fix.available and finding.fix.safe


def test_an_es_module_import_is_followed() -> None:
    text = module().replace(
        "const grpc = require('@grpc/grpc-js');", "import * as grpc from '@grpc/grpc-js';"
    )
    assert len(parse("server.mjs", text.encode()).servers) == 1


@pytest.mark.parametrize(
    "binding",
    [
        "const rpc = require('@grpc/grpc-js');",
        "import * as rpc from '@grpc/grpc-js';",
        "import rpc from '@grpc/grpc-js';",
    ],
)
def test_grpc_js_bound_to_another_name_is_followed(binding: str) -> None:
    text = (
        module().replace("const grpc = require('@grpc/grpc-js');", binding).replace("grpc.", "rpc.")
    )
    assert len(parse("server.mjs", text.encode()).servers) == 1


def test_modules_without_grpc_js_and_dependencies_are_not_parsed(tmp_path: Path) -> None:
    other = module().replace("@grpc/grpc-js", "some-http-lib")
    assert parse("server.js", other.encode()).servers == []
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "server.js").write_text(module())
    ran = CliRunner().invoke(cli, ["check", "--no-cache", "--select", "KLB201", str(tmp_path)])
    assert ran.exit_code == 0, ran.output


FLOW_MODULE = """\
HEADER
import grpc from "@grpc/grpc-js";

type Limits = {| deadlineMs: number, retries: ?number |};

export function connect(target: string, limits: Limits): grpc.Client {
  return new grpc.Client(target, grpc.credentials.createInsecure());
}
"""


@pytest.mark.parametrize(
    ("header", "severity"),
    [
        ("/**\n * Clients of the billing service.\n *\n * @flow\n */", Severity.INFO),
        ("// @flow strict", Severity.INFO),
        ("#!/usr/bin/env node\n// Copyright Acme\n/* @flow */", Severity.INFO),
        ("// @noflow", None),  # plain JavaScript: no dialect named
        ('"use strict";\n// @flow', None),  # after the first token: no pragma
    ],
)
def test_flow_typed_javascript_is_not_analysed_at_info(
    tmp_path: Path, header: str, severity: Severity | None
) -> None:
    """With its pragma the file is said to be Flow; without it, a syntax error in a file
    whose brackets pair up is the grammar's limit all the same (at info, no dialect named)."""
    text = FLOW_MODULE.replace("HEADER", header)
    (finding,) = lint_files(tmp_path, {"src/billing.js": text}, ["KLB004"]).findings
    assert finding.severity == Severity.INFO
    assert ("Flow-typed" in finding.message) == (severity is not None)


# A bundle as a minifier writes it: one line of code, here with a tagged template holding a
# `\\u` that is no escape (valid since ES2018 in a tagged template; tree-sitter's grammar
# refuses it).
_BUNDLED = (
    'const http=require("http");var samples={"text/plain":()=>"hello",'
    '"application/rtf":()=>String.raw`{\\rtf1\\ansi\\uc1 x}`,"text/csv":()=>"a,b"};'
    + "".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(20))
    + "module.exports={samples,get:u=>http.get(u)};"
)
# The same mistake by hand: a call left open, on a line of ordinary length
_BROKEN = 'const http = require("http");\n\nfunction get(url) {\n  return http.get(url;\n}\n'


@pytest.mark.parametrize(
    ("name", "text", "severity"),
    [
        ("docs/ui/app-bundle.js", f"/*! licence: see LICENSE.txt */\n{_BUNDLED}\n", Severity.INFO),
        ("static/vendor.min.js", _BROKEN, Severity.INFO),  # minified by its name
        ("src/client.js", _BROKEN, Severity.ERROR),
        # a long line in a file of ordinary lines is no minifier's layout
        (
            "src/samples.js",
            _BROKEN.replace("\n\n", f"\n{_BUNDLED}\n" + "\n// ok" * 12 + "\n"),
            Severity.ERROR,
        ),
    ],
    ids=["bundle-layout", "min-name", "hand-written", "one-long-line"],
)
def test_a_minified_file_that_does_not_parse_is_not_analysed_at_info(
    tmp_path: Path, name: str, text: str, severity: Severity
) -> None:
    """A minifier's output (one line of hundreds of characters in a file whose lines
    average over 110, or a `.min.js` name) is a build's, not code written by hand: where
    tree-sitter's grammar refuses it, it is not analysed, told at info; a hand-written
    file's error stays an error."""
    (finding,) = lint_files(tmp_path, {name: text}, ["KLB004"]).findings
    assert finding.severity == severity
    assert ("minified JavaScript" in finding.message) == (severity is Severity.INFO)


# A docs site's script that its generator renders before serving it: template actions
# where JavaScript's values go.
_SITE_SCRIPT = """\
(function () {
  const options = {
    tokenize: 'forward',
    limit: LIMIT,
  };
  fetch('/search.json').then((r) => r.json()).then((pages) => render(pages, options));
})();
"""


@pytest.mark.parametrize(
    ("limit", "severity"),
    [
        ("{{ if site.Params.search.wide }}50{{ else }}10{{ end }}", Severity.INFO),
        ("{{ .Site.Params.limit }}", Severity.INFO),
        ("{{- $limit -}}", Severity.INFO),
        ("{{ search_limit }}", Severity.INFO),
        ("{% if wide %}50{% else %}10{% endif %}", Severity.INFO),
        ("{{ 10 +", Severity.ERROR),  # no action of a template language; `{{` unpaired
    ],
)
def test_a_script_whose_error_line_holds_template_actions_is_a_template(
    tmp_path: Path, limit: str, severity: Severity
) -> None:
    """A `.js` file whose syntax error is on a line with a template language's action
    (Hugo, Go templates, Jinja) is rendered before it is JavaScript: KLB004 at info."""
    text = _SITE_SCRIPT.replace("LIMIT", limit)
    (finding,) = lint_files(tmp_path, {"docs/assets/js/search.js": text}, ["KLB004"]).findings
    assert finding.severity == severity
    assert ("a template" in finding.message) == (severity == Severity.INFO)


def test_jsx_objects_in_attributes_are_no_template() -> None:
    """`style={{ color }}` is JSX's: a broken line that holds one is no template's."""
    text = b"export const Tag = () => <span style={{ color }} class=>x</span>;\n"
    assert template_line(text, 1) is None
    assert template_line(b"a;\nx = {{ .Values.limit }}\n", 2) == "x = {{ .Values.limit }}"


def test_a_module_that_does_not_parse_is_klb004(tmp_path: Path) -> None:
    broken = module().replace("function main() {", "function main( {")
    (finding,) = lint_files(tmp_path, {"server.js": broken}).findings
    assert finding.rule == "KLB004" and "not valid JavaScript" in finding.message


# tsc's output of SERVER written as TypeScript (`import` made `require`), as a build leaves
# it: the CommonJS banner, or the comment naming the source map.
COMPILED_BANNER = '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
COMPILED_MAP = "\n//# sourceMappingURL=server.js.map\n"


@pytest.mark.parametrize(
    ("compiled", "added"),
    [
        ("src/server.js", COMPILED_BANNER),  # beside its source
        ("dist/server.js", COMPILED_BANNER),  # tsc's outDir, rootDir src
        ("typescript/src/server.js", COMPILED_BANNER),  # an outDir of any name
        ("build/server.js", COMPILED_MAP),  # an ES module's output: no banner, a map
    ],
)
def test_compiled_javascript_beside_its_typescript_is_not_the_service_read_again(
    tmp_path: Path, compiled: str, added: str
) -> None:
    output = added + module() if added == COMPILED_BANNER else module() + added
    files: dict[str, str | bytes] = {"src/server.ts": module(), compiled: output}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.path.endswith("src/server.ts")


def test_compiled_javascript_whose_source_is_not_scanned_is_read(tmp_path: Path) -> None:
    (finding,) = lint_files(
        tmp_path, {"dist/server.js": COMPILED_BANNER + module()}, ["KLB201"]
    ).findings
    assert finding.path.endswith("dist/server.js")


def test_hand_written_javascript_beside_typescript_is_read(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"src/server.ts": module(), "src/other.js": module()}
    assert sorted(f.path[-9:] for f in lint_files(tmp_path, files, ["KLB201"]).findings) == [
        "/other.js",
        "server.ts",
    ]


IIFE_MODULE = """\
import grpc from 'grpc'
import { dbClient } from './db/client'
GAP(async () => {
  const server = new grpc.Server()
  server.bind('0.0.0.0:50051', grpc.ServerCredentials.createInsecure())
  server.start()
})()
"""


def test_an_import_line_followed_by_a_parenthesised_iife_is_valid_and_read() -> None:
    # no `;` after the import: JavaScript inserts it before the next line's `(`
    for gap in ("\n", "// then\n", "/* a\n */ "):
        facts = parse("index.js", IIFE_MODULE.replace("GAP", gap).encode())
        assert facts.problem is None, gap
        assert len(facts.servers) == 1


def test_a_missing_semicolon_the_language_does_not_insert_is_still_klb004() -> None:
    on_one_line = IIFE_MODULE.replace("'./db/client'\nGAP", "'./db/client' ")
    assert parse("index.js", on_one_line.encode()).problem is not None
    # the first `;` JavaScript inserts (before line 2), the second it cannot
    two_on_a_line = "let x = 1\n2 3\n" + IIFE_MODULE.replace("GAP", ";")
    problem = parse("index.js", two_on_a_line.encode()).problem
    assert problem is not None and problem.line == 2


def test_add_noqa_writes_a_slash_comment_that_silences_it(tmp_path: Path) -> None:
    (tmp_path / "server.js").write_text(module())
    args = ["check", "--no-cache", "--select", "KLB201", str(tmp_path)]
    added = CliRunner().invoke(cli, [*args, "--add-noqa"])
    assert added.exit_code == 0, added.output
    line = (tmp_path / "server.js").read_text().splitlines()[6]
    assert line == "  const server = new grpc.Server();  // k8slb: ignore[KLB201]"
    assert CliRunner().invoke(cli, args).exit_code == 0


CLIENT = """\
const grpc = require('@grpc/grpc-js');

const ADDRESS = process.env.BACKEND_ADDR || 'backend:50051';

function connect() {
  return new echoProto.Echo(TARGET, grpc.credentials.createInsecure()OPTIONS);
}
"""
MANIFESTS = GRPC_SERVICE + BACKEND  # a gRPC Service on a ClusterIP, and its 3 pods


def client(target: str = "ADDRESS", options: str = "") -> str:
    return CLIENT.replace("TARGET", target).replace("OPTIONS", options)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("ADDRESS", "EnvRef(name='BACKEND_ADDR', default='backend:50051'"),
        ("'backend:50051'", "'backend:50051'"),
        (
            "`${process.env.HOST}:50051`",
            "EnvRef(name='HOST', default=None, prefix='', suffix=':50051'",
        ),
        ("process.env['BACKEND'] ?? 'x:1'", "EnvRef(name='BACKEND', default='x:1'"),
        ("lookup()", "Unknown()"),
    ],
    ids=["const-env-default", "literal", "template", "nullish", "a-call"],
)
def test_a_clients_target_is_followed(target: str, expected: str) -> None:
    (channel,) = parse("client.js", client(target).encode()).channels
    assert channel.long_lived and repr(channel.target).startswith(expected)


def test_a_client_made_and_closed_in_one_function_is_one_per_call() -> None:
    text = (
        client()
        .replace(
            "  return new echoProto.Echo(",
            "  const c = new echoProto.Echo(",
        )
        .replace("\n}\n", "\n  c.close();\n}\n")
    )
    (channel,) = parse("client.js", text.encode()).channels
    assert not channel.long_lived
    in_main = text.replace("function connect()", "async function main()")
    (channel,) = parse("client.js", in_main.encode()).channels
    assert channel.long_lived, "main's clients live as long as the program"


def test_a_client_of_a_clusterip_grpc_service_is_klb102(tmp_path: Path) -> None:
    files = {"client.js": client(), "k8s.yaml": MANIFESTS}
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("client.js") and finding.line == 6
    assert "gRPC channel to ClusterIP Service/backend stays on one pod" in finding.message


def test_a_round_robin_service_config_is_read_from_json_stringify(tmp_path: Path) -> None:
    config = ", {'grpc.service_config': JSON.stringify({loadBalancingConfig: [{round_robin: {}}]})}"
    (channel,) = parse(
        "client.js", client("'dns:///backend-headless:50051'", config).encode()
    ).channels
    assert channel.options.get("grpc.service_config").value == (
        '{"loadBalancingConfig": [{"round_robin": {}}]}'
    )
    headless = MANIFESTS.replace("spec:\n  selector", "spec:\n  clusterIP: None\n  selector", 1)
    files = {"client.js": client("'dns:///backend:50051'", config), "k8s.yaml": headless}
    assert lint_files(tmp_path / "rr", files, ["KLB102", "KLB103"]).findings == []
    plain = {"client.js": client("'dns:///backend:50051'"), "k8s.yaml": headless}
    assert rules_of(lint_files(tmp_path / "pf", plain, ["KLB102", "KLB103"]).findings) == ["KLB103"]


def test_comments_among_the_options_leave_them_complete() -> None:
    options = "const opts = {\n  // five minutes\n  'grpc.max_connection_age_ms': 300_000,\n};"
    (server,) = parse("server.js", module(options, "opts").encode()).servers
    assert server.options.complete and server.options.get("grpc.max_connection_age_ms")


def test_text_around_an_environment_value_with_a_default_is_added_once() -> None:
    (channel,) = parse("client.js", client("`${process.env.H || 'x'}:1`").encode()).channels
    assert channel.target.default_text == "x:1"


def test_nest_shutdown_hooks_are_a_sigterm_handler() -> None:
    """`app.enableShutdownHooks()` makes NestJS close the application on SIGTERM."""
    text = (
        "import { NestFactory } from '@nestjs/core';\n"
        "async function main() {\n  const app = await NestFactory.create(AppModule);\n"
        "  app.enableShutdownHooks();\n  await app.listen(3000);\n}\nmain();\n"
    )
    (handler,) = parse("main.ts", text.encode()).sigterm_handlers
    assert handler.line == 4


# The legacy `grpc` package (native, deprecated), as older Node services still use it: a
# service loaded with `grpc.load`, a server bound synchronously and started.
LEGACY_SERVER = """\
'use strict';
const path = require('path');
const grpc = require('grpc');

const shop = grpc.load(path.join(__dirname, 'protos', 'pricing.proto')).shop;

function quote(call, callback) {
  callback(null, {cents: 100});
}

function main() {
  const server = new grpc.Server();
  server.addService(shop.Pricing.service, {quote});
  server.bind(`0.0.0.0:${process.env.PORT || 50051}`, grpc.ServerCredentials.createInsecure());
  server.start();
}

main();
"""
LEGACY_CLIENT = """\
const grpc = require('grpc');

const shop = grpc.load(__dirname + '/pricing.proto').shop;
const pricing = new shop.Pricing(
  process.env.PRICING_ADDR || 'backend:50051',
  grpc.credentials.createInsecure(),
);

module.exports = {pricing};
"""


def test_a_legacy_grpc_server_is_read_where_it_binds() -> None:
    facts = parse("server.js", LEGACY_SERVER.encode())
    (server,) = facts.servers
    assert (server.loc.line, server.name) == (12, "server")
    (listen,) = facts.listens
    assert repr(listen.address).startswith("EnvRef(name='PORT', default='50051', prefix='0.0.0.0:'")
    assert "server" in facts.starts and len(facts.waits) == 1


def test_a_legacy_grpc_server_and_client_are_judged_as_grpc_js_ones(tmp_path: Path) -> None:
    files = {"server.js": LEGACY_SERVER, "client.js": LEGACY_CLIENT, "k8s.yaml": MANIFESTS}
    found = lint_files(tmp_path, files, ["KLB102", "KLB201", "KLB403"]).findings
    assert [(f.rule, f.path.rsplit("/", 1)[-1], f.line) for f in found] == [
        ("KLB102", "client.js", 4),
        ("KLB201", "server.js", 12),
        ("KLB403", "server.js", 14),
    ]
    (age,) = (f for f in found if f.rule == "KLB201")
    assert age.fix.available and age.fix.safe


# A server made and given its services by a helper that returns it, bound and started by
# the name the helper's result is bound to (ES modules, the legacy package's `Server`).
HELPER_SERVER = """\
import { Server, ServerCredentials } from 'grpc';

export default (repo) => {
  loader.load(PROTO).then((proto) => {
    const server = new Server();
    const withServices = () => {
      server.addService(proto.Cars, { list: (call, done) => done(null, repo.list()) });
      return server;
    };
    const cars = withServices();
    cars.bind('0.0.0.0:50051', ServerCredentials.createInsecure());
    cars.start();
  });
};
"""


def test_a_server_a_helper_returns_is_read_where_its_result_binds_and_starts() -> None:
    facts = parse("server.js", HELPER_SERVER.encode())
    (server,) = facts.servers
    assert server.name == "server" and "server" in facts.starts
    (listen,) = facts.listens
    assert listen.server == "server" and listen.loc.line == 11
    assert [wait.loc.line for wait in facts.waits] == [11]


def test_a_server_a_helper_returns_with_no_sigterm_handler_is_klb403(tmp_path: Path) -> None:
    found = lint_files(tmp_path, {"server.js": HELPER_SERVER}, ["KLB403"]).findings
    assert [(f.rule, f.line) for f in found] == [("KLB403", 11)]
    handled = HELPER_SERVER + "process.on('SIGTERM', () => repo.close(() => process.exit(0)));\n"
    assert lint_files(tmp_path / "handled", {"server.js": handled}, ["KLB403"]).findings == []


def test_a_sigterm_handler_that_exits_at_once_is_klb403_at_its_exit(tmp_path: Path) -> None:
    handler = "process.on('SIGTERM', () => {\n  console.log('bye');\n  process.exit(0);\n});\n"
    (finding,) = lint_files(tmp_path, {"server.js": HELPER_SERVER + handler}, ["KLB403"]).findings
    assert (finding.rule, finding.line) == ("KLB403", 17)
    assert finding.message == "SIGTERM (line 15) ends the process here before gRPC server " + (
        "'server' has drained"
    )
    assert "no SIGTERM handler" not in finding.text and "tryShutdown(() => process.exit(0))" in (
        finding.text
    )


@pytest.mark.parametrize(
    "handler",
    [
        "process.on('SIGTERM', () => cars.tryShutdown(() => process.exit(0)));",
        "process.on('SIGTERM', async () => {\n  await stopAll();\n  process.exit(0);\n});",
        "process.on('SIGTERM', () => {\n  if (cars) cars.tryShutdown(done);\n"
        "  else process.exit(0);\n});",
        "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 5000));",
    ],
    ids=["exit-after-the-stop", "awaits-first", "a-branch-stops", "exit-in-a-timer"],
)
def test_a_handler_that_waits_or_stops_a_server_before_it_exits_is_no_exit_at_once(
    tmp_path: Path, handler: str
) -> None:
    files: dict[str, str | bytes] = {"server.js": HELPER_SERVER + handler + "\n"}
    assert lint_files(tmp_path, files, ["KLB403"]).findings == []


# A helper that registers a handler for each signal it is given, in a utility module.
SIGNAL_HELPER = """\
export function processOnce(CASES: Array<string>): void {
  CASES.forEach((TYPE: string) => {
    process.once(TYPE, () => process.exit(0));
  });
}

export const onSignal = (signal, handler) => process.on(signal, handler);

export class Shutdown {
  static once(signals: string[]): void {
    for (const signal of signals) process.once(signal, () => process.exit(0));
  }
}
"""


@pytest.mark.parametrize(
    "call",
    [
        "processOnce(['SIGTERM', 'SIGINT']);",
        "onSignal('SIGTERM', () => process.exit(0));",
        "const SIGNALS = ['SIGINT', 'SIGTERM'];\nprocessOnce(SIGNALS);",
        "Shutdown.once(['SIGTERM']);",
    ],
)
def test_a_sigterm_handler_a_helper_of_another_module_registers_is_seen(
    tmp_path: Path, call: str
) -> None:
    importing = "import {processOnce, onSignal, Shutdown} from './utility/signals';\n"
    draining = SIGNAL_HELPER.replace("process.exit(0)", "stopAll(() => process.exit(0))")
    files: dict[str, str | bytes] = {
        "package.json": "{}",
        "src/utility/signals.ts": draining,
        "src/server.ts": importing + HELPER_SERVER + call + "\n",
    }
    assert lint_files(tmp_path, files, ["KLB403"]).findings == []


@pytest.mark.parametrize(
    ("call", "exit_line"),
    [("processOnce(['SIGTERM', 'SIGINT']);", 3), ("Shutdown.once(['SIGTERM']);", 11)],
)
def test_a_helper_of_another_module_whose_handler_exits_at_once_is_klb403_at_its_exit(
    tmp_path: Path, call: str, exit_line: int
) -> None:
    importing = "import {processOnce, onSignal, Shutdown} from './utility/signals';\n"
    files: dict[str, str | bytes] = {
        "package.json": "{}",
        "src/utility/signals.ts": SIGNAL_HELPER,
        "src/server.ts": importing + HELPER_SERVER + call + "\n",
    }
    (finding,) = lint_files(tmp_path, files, ["KLB403"]).findings
    assert finding.path.endswith("signals.ts") and finding.line == exit_line
    # the signal is named where the helper is called, in the server's module
    assert finding.message.startswith(f"SIGTERM ({tmp_path / 'src' / 'server.ts'}:16) ends")


@pytest.mark.parametrize(
    "call",
    [
        "processOnce(['SIGINT']);",
        "onSignal('SIGINT', () => process.exit(0));",
        "Shutdown.once(['SIGINT']);",
    ],
)
def test_a_helper_given_other_signals_registers_no_sigterm_handler(
    tmp_path: Path, call: str
) -> None:
    importing = "import {processOnce, onSignal, Shutdown} from './utility/signals';\n"
    files: dict[str, str | bytes] = {
        "package.json": "{}",
        "src/utility/signals.ts": SIGNAL_HELPER,
        "src/server.ts": importing + HELPER_SERVER + call + "\n",
    }
    assert rules_of(lint_files(tmp_path, files, ["KLB403"]).findings) == ["KLB403"]


def test_a_sigterm_handler_a_helper_of_the_module_registers_is_seen() -> None:
    text = HELPER_SERVER + SIGNAL_HELPER.replace("export ", "") + "processOnce(['SIGTERM']);\n"
    (handler,) = parse_typescript("server.ts", text.encode()).sigterm_handlers
    assert handler.line == text.count("\n")


@pytest.mark.parametrize(
    "call",
    [
        # a line continuation inside the string: its text never says SIGTERM whole
        "processOnce(['SIG\\\nTERM']);",
        "const SIGNALS = ['SIGINT', 'SIGTERM'];\nprocessOnce(SIGNALS);",
    ],
)
def test_a_sigterm_a_call_spells_apart_or_names_by_a_const_list_is_seen(call: str) -> None:
    # the reader asks only the calls that may name SIGTERM: these two must stay among them
    text = HELPER_SERVER + SIGNAL_HELPER.replace("export ", "") + call + "\n"
    (handler,) = parse_typescript("server.ts", text.encode()).sigterm_handlers
    assert handler.line == text[: text.rindex("processOnce(")].count("\n") + 1


def test_a_helper_that_returns_something_else_makes_no_alias_of_the_server() -> None:
    text = HELPER_SERVER.replace("return server;", "return repo;")
    facts = parse("server.js", text.encode())
    assert facts.starts == set() and facts.waits == []


# A server handed to a wrapper of the application's (middleware, tracing: a Proxy that
# forwards the server's methods), whose result the module then binds and starts.
WRAPPED_SERVER = """\
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { withInterceptors } from './interceptors';
import { inventory } from './services/inventory';

const server = withInterceptors(new Server({ 'grpc.max_receive_message_length': 4096 }));
server.addService(inventory.service, inventory.handlers);
server.use(timing);

server.bindAsync('0.0.0.0:7000', ServerCredentials.createInsecure(), () => {
  server.start();
});
"""


@pytest.mark.parametrize(
    ("made", "name"),
    [
        ("withInterceptors(new Server({ 'grpc.max_receive_message_length': 4096 }))", "server"),
        ("new Proxy(new Server(), traced) as Server", "server"),
        ("await withInterceptors(wrapLogging(new Server()))", "server"),
    ],
)
def test_a_server_given_to_a_wrapper_is_the_wrapper_s_result(made: str, name: str) -> None:
    text = WRAPPED_SERVER.replace(
        "withInterceptors(new Server({ 'grpc.max_receive_message_length': 4096 }))", made
    )
    facts = parse_typescript("server.ts", text.encode())
    (server,) = facts.servers
    assert (server.name, server.loc.line) == (name, 5)
    assert name in facts.starts and [wait.loc.line for wait in facts.waits] == [9]


def test_a_variable_given_to_a_wrapper_is_the_server_it_holds() -> None:
    made = "withInterceptors(new Server({ 'grpc.max_receive_message_length': 4096 }))"
    text = WRAPPED_SERVER.replace(made, "withInterceptors(grpcServer)").replace(
        "const server", "const grpcServer = new Server();\nconst server"
    )
    facts = parse_typescript("server.ts", text.encode())
    (server,) = facts.servers
    assert server.name == "grpcServer" and "grpcServer" in facts.starts
    assert [(wait.server, wait.loc.line) for wait in facts.waits] == [("grpcServer", 10)]


@pytest.mark.parametrize(
    "used",
    [
        # a result only started or used with methods many objects have: not a server's mark
        "server.listen(7000);\nserver.start();\n",
        # the wrapper's result is something else, the server bound by no name
        "registry.bindAsync(address);\n",
    ],
)
def test_a_wrapper_s_result_never_used_as_a_server_is_no_server_name(used: str) -> None:
    made = "withInterceptors(new Server({ 'grpc.max_receive_message_length': 4096 }))"
    start = WRAPPED_SERVER.index("server.addService")
    text = WRAPPED_SERVER[:start].replace(made, "register(new Server())") + used
    facts = parse_typescript("server.ts", text.encode())
    (server,) = facts.servers  # still a server, for KLB201: just not the one started
    assert server.name is None and facts.starts == set() and facts.waits == []


def test_a_variable_given_to_a_wrapper_with_another_server_is_neither() -> None:
    text = (
        "import { Server } from '@grpc/grpc-js';\n"
        "const a = new Server();\nconst b = new Server();\n"
        "const both = merge(a, b);\nboth.bindAsync('0.0.0.0:7000', creds, () => both.start());\n"
    )
    facts = parse_typescript("server.ts", text.encode())
    assert facts.starts == set() and facts.waits == []


def test_a_wrapped_server_with_no_sigterm_handler_is_klb403(tmp_path: Path) -> None:
    files = {"package.json": "{}", "src/server.ts": WRAPPED_SERVER}
    found = lint_files(tmp_path, files, ["KLB403"]).findings
    assert [(f.rule, f.path.endswith("src/server.ts"), f.line) for f in found] == [
        ("KLB403", True, 9)
    ]
    handled = WRAPPED_SERVER + "process.on('SIGTERM', () => server.tryShutdown(() => {}));\n"
    files["src/server.ts"] = handled
    assert lint_files(tmp_path / "handled", files, ["KLB403"]).findings == []


def test_a_client_made_with_another_package_s_credentials_is_no_grpc_channel() -> None:
    text = LEGACY_CLIENT.replace("require('grpc')", "require('@connectrpc/connect')")
    assert parse("client.js", text.encode()).channels == []


# Clients made by a helper of the module: a wrapper class whose constructor takes the
# address, a factory function with a default, each called with what the module knows.
WRAPPED = """\
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const shop = grpc.loadPackageDefinition(protoLoader.loadSync('shop.proto')).shop;

class CatalogClient {
  constructor(address) {
    this.stub = new shop.Catalog(address, grpc.credentials.createInsecure());
  }

  list(request) {
    return new Promise((resolve) => this.stub.list(request, (e, r) => resolve(r)));
  }
}

function pricingClient(target = 'pricing:50051') {
  return new shop.Pricing(target, grpc.credentials.createInsecure());
}

module.exports = {
  catalog: new CatalogClient(process.env.BACKEND_ADDR || 'backend:50051'),
  archive: new CatalogClient('archive:50051'),
  pricing: pricingClient(),
};
"""


def test_a_target_passed_to_a_wrapper_is_what_its_callers_pass_one_channel_each() -> None:
    channels = parse("clients.js", WRAPPED.encode()).channels
    found = sorted(((c.loc.line, c.target) for c in channels), key=repr)
    assert found == sorted(
        [(8, EnvRef("BACKEND_ADDR", "backend:50051")), (8, "archive:50051"), (17, "pricing:50051")],
        key=repr,
    )
    typescript = WRAPPED.replace(
        "constructor(address)", "constructor(private readonly address: string)"
    )
    typed = parse("clients.ts", typescript.encode()).channels
    assert sorted(map(repr, (c.target for c in typed))) == sorted(
        map(repr, (c.target for c in channels))
    )


def test_a_wrapped_client_of_a_clusterip_grpc_service_is_klb102(tmp_path: Path) -> None:
    files = {"clients.js": WRAPPED, "k8s.yaml": MANIFESTS}
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.line == 8 and "stays on one pod" in finding.message
    uncalled = WRAPPED.split("module.exports")[0]  # nobody passes an address: unknown
    assert next(c.target for c in parse("c.js", uncalled.encode()).channels) is UNKNOWN


def test_a_method_parameter_is_what_calls_on_its_own_objects_pass() -> None:
    """`this.connect(addr)` and `client.connect(addr)` on a `new Wrapper()` call the
    wrapper's method; another object's `connect` (a database's) is not its caller."""
    text = (
        "const grpc = require('@grpc/grpc-js');\n"
        "const mongoose = require('mongoose');\n\n"
        "class Wrapper {\n"
        "  start() {\n    this.connect(process.env.BACKEND_ADDR);\n  }\n\n"
        "  connect(address) {\n"
        "    this.stub = new shop.Catalog(address, grpc.credentials.createInsecure());\n"
        "  }\n}\n\n"
        "const wrapper = new Wrapper();\n"
        "wrapper.connect('archive:50051');\n"
        "mongoose.connect('mongodb://mongo:27017/shop');\n"
    )
    targets = sorted(map(repr, (c.target for c in parse("w.js", text.encode()).channels)))
    assert targets == sorted([repr(EnvRef("BACKEND_ADDR")), repr("archive:50051")])


REACT_FORM = """\
import React, {Component} from 'react';
import {Button, Label, Input} from 'reactstrap';

class AccountEdit extends Component {
  emptyAccount = {owner: ''};
  static defaultProps = {endpoint: '/api/accounts'};

  async handleSubmit(event) {
    event.preventDefault();
    await fetch(this.props.endpoint, {method: 'PUT', body: JSON.stringify(this.state.item)});
  }

  render() {
    return (
      <form onSubmit={this.handleSubmit}>
        <Label for="owner">Owner</Label>
        <Input type="text" name="owner" id="owner" value={this.state.item.owner || ''}/>
        <i class="fa fa-spinner" aria-hidden="true"/>
        <Button color="primary" type="submit">Save</Button>
      </form>
    );
  }
}

export default AccountEdit;
"""


def test_jsx_attributes_named_by_reserved_words_and_class_fields_are_valid_javascript() -> None:
    # `for=` and `class=` are JSXIdentifiers, which Babel reads; tree-sitter's grammar fails
    assert parse("src/account/AccountEdit.js", REACT_FORM.encode()).problem is None


def test_a_jsx_file_with_a_real_syntax_error_is_still_klb004_at_that_error() -> None:
    broken = REACT_FORM.replace("  async handleSubmit(event) {", "  async handleSubmit(event {")
    problem = parse("src/account/AccountEdit.js", broken.encode()).problem
    assert problem is not None and problem.line == 8


def test_a_reserved_word_assigned_outside_jsx_is_still_klb004() -> None:
    broken = REACT_FORM.replace("export default", "if='x';\nexport default")
    assert parse("src/account/AccountEdit.js", broken.encode()).problem is not None


def test_reserved_words_in_a_string_keep_their_text_beside_jsx_attributes() -> None:
    with_html = REACT_FORM.replace(
        "export default", "export const SPINNER = '<i class=\"fa\"></i>';\nexport default"
    )
    facts = parse("src/account/AccountEdit.js", with_html.encode())
    assert facts.problem is None and facts.exports["SPINNER"] == '<i class="fa"></i>'


def test_a_reserved_word_assigned_outside_jsx_is_klb004_at_its_own_line() -> None:
    broken = REACT_FORM.replace("export default", "if='x';\nexport default")
    problem = parse("src/account/AccountEdit.js", broken.encode()).problem
    assert problem is not None and problem.line == 25


# JSX text may hold a bare `&` (Babel and TypeScript read it as text); tree-sitter's
# grammars take only a character reference (`&amp;`) there.
AMPERSAND = REACT_FORM.replace(">Save<", ">Save & close<").replace(
    ">Owner<", ">Owner &amp; co-owner &<"
)


@pytest.mark.parametrize("path", ["src/account/AccountEdit.js", "src/account/AccountEdit.tsx"])
def test_a_bare_ampersand_in_jsx_text_is_valid(path: str) -> None:
    text = AMPERSAND if path.endswith(".js") else AMPERSAND.replace(' for="', ' htmlFor="')
    read = parse if path.endswith(".js") else parse_typescript
    assert read(path, text.encode()).problem is None


def test_an_ampersand_outside_jsx_text_is_still_klb004_at_its_line() -> None:
    broken = AMPERSAND.replace("export default", "const both = a & ;\nexport default")
    problem = parse("src/account/AccountEdit.js", broken.encode()).problem
    assert problem is not None and problem.line == 25


def test_a_file_with_a_bare_ampersand_and_a_real_error_is_klb004_at_that_error() -> None:
    broken = AMPERSAND.replace("  async handleSubmit(event) {", "  async handleSubmit(event {")
    problem = parse("src/account/AccountEdit.js", broken.encode()).problem
    assert problem is not None and problem.line == 8


def test_a_large_file_of_jsx_errors_is_refused_as_first_read_not_read_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading again with reserved-word attributes and bare `&`s masked parses the file
    again each pass, and tree-sitter's recovery from thousands of errors costs more than
    linear time (585 KB of them took 21 s): a file past the budget is refused as first
    read, at its first error; a page of some KB is still read again (the tests above)."""
    from k8slb.languages.javascript import parse as module

    def never(*_: object) -> object:
        raise AssertionError("read again")

    monkeypatch.setattr(module, "_with_bare_ampersands", never)
    monkeypatch.setattr(module, "_with_keyword_attributes", never)
    rows = "".join('<i class="a">x & y</i>\n<b for="c" && z\n' for _ in range(8000))
    source = (
        "import grpc from '@grpc/grpc-js';\nconst s = new grpc.Server();\n"
        f"s.bindAsync('x', 1, () => {{}});\nconst A = () => (<>{rows}</>);\n"
    ).encode()
    assert len(source) > module.MAX_RESCUED_BYTES
    facts = parse("app/page.js", source)
    assert facts.problem is not None and facts.problem.rule == "KLB004"


@pytest.mark.parametrize(
    ("drain", "at"),
    [
        ("health.setStatus('', ServingStatus.NOT_SERVING);", "NOT_SERVING"),  # a member name
        ("health.setStatus('', 'NOT_SERVING');", "'NOT_SERVING'"),  # a string, its value read
    ],
)
def test_a_health_status_set_to_not_serving_is_a_drain(drain: str, at: str) -> None:
    text = (
        "const {HealthImplementation} = require('grpc-health-check');\n"
        "const health = new HealthImplementation({'': 'SERVING'});\n"
        f"process.on('SIGTERM', () => {{\n  {drain}\n}});\n"
    )
    (loc,) = parse("server.js", text.encode()).health_drains
    assert (loc.line, loc.column) == (4, text.splitlines()[3].index(at) + 1)
    serving = text.replace("NOT_SERVING", "SERVING")
    assert parse("server.js", serving.encode()).health_drains == []


def test_routes_are_the_get_head_and_all_calls_with_a_path() -> None:
    # only the calls named as a route's method are read for one: each of the three kinds
    text = (
        "const express = require('express');\n"
        "const app = express();\n"
        "const router = express.Router();\n"
        "function ready(req, res) { res.sendStatus(200); }\n"
        "app.get('/healthz', (req, res) => res.send('OK'));\n"
        "router.head('/ready', ready);\n"
        "app.all('/live', check);\n"
        "app.post('/orders', ready);\n"
        "app.get(prefix, ready);\n"
        "app.listen(8080);\n"
    )
    routes = parse("server.js", text.encode()).routes
    assert [(r.path, r.handler, r.loc.line, r.trivial) for r in routes] == [
        ("/healthz", "the function at line 5", 5, True),
        ("/ready", "ready", 6, True),
        ("/live", "check", 7, False),
    ]


@pytest.mark.parametrize(
    ("status", "trivial"),
    [
        ("STATUS.OK", True),  # a named constant of the module's or an import's
        ("StatusCodes.SERVICE_UNAVAILABLE", True),
        ("probe.status", False),  # a value read at run time
        ("checks.OK.code", False),
        ("STATUS[name]", False),
        ("pool.OK()", False),
    ],
)
def test_a_reply_with_a_named_constant_status_is_a_constant(status: str, trivial: bool) -> None:
    text = (
        "import { Router, type Request, type Response } from 'express';\n"
        "import { STATUS } from './status';\n"
        "const router = Router();\n"
        "router.get('/health', (_req: Request, res: Response) => {\n"
        f"  res.status({status}).json({{ status: 'ok' }});\n"
        "});\n"
        "export default router;\n"
    )
    [route] = parse("health.routes.ts", text.encode()).routes
    assert route.trivial is trivial


STYLED = """\
const Badge = styled.span<{ urgent: boolean; size: number }>`
  color: ${({ urgent }) => (urgent ? 'red' : 'inherit')};
  font-size: ${({ size }) => size}px;
`;
"""


def test_type_arguments_to_a_tagged_template_are_typescript_the_file_read_whole() -> None:
    """A tag with type arguments before a template with substitutions is TypeScript
    (2.9): tree-sitter's grammar adds a `!` before the template, a syntax error of its
    own, not the file's; the file is read (its server found). Code broken around the same
    construct is still KLB004."""
    text = module(options=STYLED)
    facts = parse_typescript("src/server.ts", text.encode())
    assert facts.problem is None and len(facts.servers) == 1
    broken = text.replace("size: number }>`", "size: number }>(`")
    problem = parse_typescript("src/server.ts", broken.encode()).problem
    assert problem is not None and problem.rule == "KLB004"


IMPORT_TYPE = """\
export const onRetry: NonNullable<
  import("swr").SWRConfiguration["onErrorRetry"]
> = (error, _key, _config, revalidate) => {
  if (error) return;
  revalidate();
};
"""


def test_an_indexed_import_type_among_type_arguments_is_typescript() -> None:
    """`NonNullable<import("x").T["k"]>` is valid TypeScript (2.9): tree-sitter's grammar
    cannot index the import type there, an error of its own; the file is read (its server
    found). A broken index is still KLB004."""
    text = module(options=IMPORT_TYPE)
    facts = parse_typescript("src/server.ts", text.encode())
    assert facts.problem is None and len(facts.servers) == 1
    broken = text.replace('["onErrorRetry"]', '["onErrorRetry"')
    problem = parse_typescript("src/server.ts", broken.encode()).problem
    assert problem is not None and problem.rule == "KLB004"
