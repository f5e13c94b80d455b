"""Mali, a framework over grpc and grpc-js: `new Mali(proto)` makes an app and no server;
`app.start(address, credentials, options)` makes `new grpc.Server(options)`, binds and
starts it, and `app.close()` lets each server's calls end. Its server is judged where
start() makes it, with the options start() gives (the third argument, or the second after
credentials given first): none given, no connection age, as a bare grpc-js Server."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.javascript.parse import MALI_START, parse

from .helpers import lint_files

SERVICE = """\
import path from 'path'
import Mali from 'mali'

const INVOICES_PROTO = path.resolve(__dirname, 'protos/invoices.proto')
const ADDRESS = `${process.env.GRPC_HOST || '0.0.0.0'}:${process.env.GRPC_PORT || 50051}`

const listInvoices = async (ctx) => {
  ctx.res = { invoices: [] }
}

export default async function main() {
  const app = new Mali(INVOICES_PROTO, 'InvoicesService', { keepCase: true })
  app.use({ listInvoices })
  await app.start(ADDRESS)
  return app
}
"""

SIGTERM = """\
process.on('SIGTERM', async () => {
  await app.close()
  process.exit(0)
})
"""


def test_the_server_is_made_where_start_binds_it_with_no_options() -> None:
    facts = parse("src/main.js", SERVICE.encode())
    (server,) = facts.servers
    assert (server.factory, server.name, server.loc.line) == (MALI_START, "app", 14)
    assert server.options.complete and server.options.entries == ()
    assert not server.options.literal  # a fix cannot write them after the credentials
    assert facts.starts == {"app"} and [w.loc.line for w in facts.waits] == [14]
    assert [listen.loc.line for listen in facts.listens] == [14]


def test_the_options_start_gives_grpc_server_are_read() -> None:
    given = SERVICE.replace(
        "app.start(ADDRESS)",
        "app.start(ADDRESS, grpc.ServerCredentials.createInsecure(), "
        "{ 'grpc.max_connection_age_ms': 300000 })",
    )
    (server,) = parse("src/main.js", given.encode()).servers
    assert server.options.get("grpc.max_connection_age_ms") is not None
    first = SERVICE.replace(
        "app.start(ADDRESS)",
        "app.start(grpc.ServerCredentials.createInsecure(), "
        "{ 'grpc.max_connection_age_ms': 300000 })",
    )
    (server,) = parse("src/main.js", first.encode()).servers
    assert server.options.get("grpc.max_connection_age_ms") is not None


def test_an_app_never_started_makes_no_server() -> None:
    facts = parse("src/main.js", SERVICE.replace("  await app.start(ADDRESS)\n", "").encode())
    assert facts.servers == [] and facts.starts == set()


def test_a_mali_server_with_no_connection_age_is_klb201(tmp_path: Path) -> None:
    found = lint_files(tmp_path, {"src/main.js": SERVICE}, ["KLB201"]).findings
    assert [(f.rule, f.line) for f in found] == [("KLB201", 14)]
    assert found[0].message.startswith("Mali's start() sets no 'grpc.max_connection_age_ms'")
    assert "give start() its options" in found[0].text


def test_close_on_sigterm_drains_the_mali_server(tmp_path: Path) -> None:
    found = lint_files(tmp_path, {"src/main.js": SERVICE}, ["KLB403"]).findings
    assert [(f.rule, f.line) for f in found] == [("KLB403", 14)]
    assert "app.close()" in found[0].text and found[0].edits == ()
    handled = SERVICE.replace("  return app\n", SIGTERM.replace("\n", "\n  ") + "return app\n")
    again = lint_files(tmp_path / "handled", {"src/main.js": handled}, ["KLB403", "KLB404"])
    assert again.findings == []


# An app one module makes and exports, another starts (Mali's own examples make and start
# it in one file; a service that splits them is judged at its start() all the same).
APP_MODULE = """\
import Mali from 'mali'
import * as Ledger from './handlers/ledger.js'

const app = new Mali('protos/ledger.proto', 'Ledger', { keepCase: true })
app.use({ Ledger })
app.on('error', (error) => console.error(error))

export default app
"""

STARTER = """\
import config from './config.js'
import app from './grpc.js'

await app.start(`0.0.0.0:${config.port}`)
console.log('ledger listening')
"""

CONFIG = "export default { port: process.env.PORT || 50051 }\n"

BUILDER = """\
import Mali from 'mali'

export function build() {
  const app = new Mali('protos/ledger.proto', ['Ledger'])
  app.use('Ledger', 'Get', (ctx) => (ctx.res = {}))
  return app
}
"""

BUILT_STARTER = """\
import { build } from './grpc.js'

const server = build()

await server.start('0.0.0.0:50051')
"""


def _at(folder: Path, path: str) -> str:
    return Path(path).relative_to(folder).as_posix()


def _ledger(starter: str, app: str = APP_MODULE) -> dict[str, str | bytes]:
    return {"src/index.js": starter, "src/grpc.js": app, "src/config.js": CONFIG}


def test_an_app_another_module_makes_is_judged_where_it_starts(tmp_path: Path) -> None:
    found = lint_files(tmp_path, _ledger(STARTER), ["KLB201", "KLB403"]).findings
    assert sorted((f.rule, _at(tmp_path, f.path), f.line) for f in found) == [
        ("KLB201", "src/index.js", 4),
        ("KLB403", "src/index.js", 4),
    ]
    options = STARTER.replace(
        "config.port}`)",
        "config.port}`, grpc.ServerCredentials.createInsecure(), "
        "{ 'grpc.max_connection_age_ms': 300000, 'grpc.max_connection_age_grace_ms': 30000 })",
    )
    again = lint_files(tmp_path / "capped", _ledger(options), ["KLB201"])
    assert again.findings == []


def test_each_way_to_export_and_import_an_app_is_followed(tmp_path: Path) -> None:
    cases = {
        "named": (
            APP_MODULE.replace("export default app", "export { app as ledger }"),
            STARTER.replace("import app from", "import { ledger as app } from"),
        ),
        "commonjs": (
            APP_MODULE.replace("import Mali from 'mali'", "const Mali = require('mali')")
            .replace("import * as Ledger from './handlers/ledger.js'", "const Ledger = {}")
            .replace("export default app", "module.exports = app"),
            STARTER.replace("import app from './grpc.js'", "const app = require('./grpc')"),
        ),
        "commonjs-member": (
            APP_MODULE.replace("export default app", "module.exports = { app }"),
            STARTER.replace("import app from './grpc.js'", "const { app } = require('./grpc')"),
        ),
        "exported-const": (
            APP_MODULE.replace("const app = new Mali", "export const app = new Mali").replace(
                "export default app\n", ""
            ),
            STARTER.replace("import app from", "import { app } from"),
        ),
    }
    for case, (app, starter) in cases.items():
        found = lint_files(tmp_path / case, _ledger(starter, app), ["KLB201"]).findings
        assert [(_at(tmp_path / case, f.path), f.line) for f in found] == [("src/index.js", 4)], (
            case
        )


def test_an_app_a_function_of_another_module_returns_is_judged_where_it_starts(
    tmp_path: Path,
) -> None:
    files: dict[str, str | bytes] = {"src/index.js": BUILT_STARTER, "src/grpc.js": BUILDER}
    found = lint_files(tmp_path, files, ["KLB201"]).findings
    assert [(_at(tmp_path, f.path), f.line) for f in found] == [("src/index.js", 5)]
    assert "give start() its options" in found[0].text


def test_what_another_module_exports_that_is_no_mali_app_makes_no_server(
    tmp_path: Path,
) -> None:
    jobs = "export default { start() { setInterval(() => {}, 1000) } }\n"
    builder = "export function build() { return { start: async () => {} } }\n"
    files: dict[str, str | bytes] = {
        "src/index.js": STARTER,
        "src/grpc.js": jobs,
        "src/config.js": CONFIG,
        "src/built.js": BUILT_STARTER.replace("./grpc.js", "./builder.js"),
        "src/builder.js": builder,
    }
    found = lint_files(tmp_path, files, ["KLB201", "KLB403"]).findings
    assert found == []
    # an app not exported at the top level (made in a function that starts nothing)
    inner = (
        "import Mali from 'mali'\n"
        "function make() { const app = new Mali(); }\n"
        "export default make\n"
    )
    again = lint_files(tmp_path / "inner", _ledger(STARTER, inner), ["KLB201"])
    assert again.findings == []
