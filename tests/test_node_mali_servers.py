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
