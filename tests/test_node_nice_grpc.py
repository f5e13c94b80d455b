"""nice-grpc, a wrapper of @grpc/grpc-js: `createServer(options)` makes the grpc-js
Server, `listen(address)` binds and starts it, `shutdown()` drains it; nice-grpc-server-
health's `HealthServiceImpl()` answers SERVING for ever. A workspace package that makes the
server for its services (`createServer` of `@acme/rpc-server`) makes theirs: each service
that starts what it returns runs a gRPC server."""

from __future__ import annotations

from pathlib import Path

from k8slb.languages.javascript.parse import NICE_SERVER, parse_typescript

from .helpers import lint_files
from .test_node_fixes import fixed

SERVICE = """\
import { createServer } from 'nice-grpc';
import { HealthDefinition, HealthServiceImpl } from 'nice-grpc-server-health';
import { LedgerDefinition } from './gen/ledger';
import { ledgerImpl } from './ledger';

const { PORT = '7000' } = process.env;

async function main() {
  const server = createServer();
  server.add(HealthDefinition, HealthServiceImpl());
  server.add(LedgerDefinition, ledgerImpl);
  await server.listen(`0.0.0.0:${PORT}`);
}

main();
"""

SIGTERM = """\
  process.on('SIGTERM', async () => {
    await server.shutdown();
    process.exit(0);
  });
"""


def test_a_nice_grpc_server_is_made_listens_and_waits() -> None:
    facts = parse_typescript("src/index.ts", SERVICE.encode())
    (server,) = facts.servers
    assert (server.factory, server.name, server.loc.line) == (NICE_SERVER, "server", 9)
    assert server.options.complete and not server.options.given
    assert facts.starts == {"server"} and [w.loc.line for w in facts.waits] == [12]
    assert [h.loc.line for h in facts.health_servicers] == [10]


def test_nice_grpc_servers_are_judged_as_grpc_js_ones(tmp_path: Path) -> None:
    found = lint_files(tmp_path, {"src/index.ts": SERVICE}, ["KLB201", "KLB403", "KLB405"])
    assert sorted((f.rule, f.line) for f in found.findings) == [
        ("KLB201", 9),
        ("KLB403", 12),
        ("KLB405", 10),
    ]
    drained = SERVICE.replace("  await server.listen", SIGTERM + "  await server.listen")
    again = lint_files(tmp_path / "drained", {"src/index.ts": drained}, ["KLB403"])
    assert again.findings == []


def test_a_health_state_given_to_the_health_service_may_fail_it() -> None:
    stated = SERVICE.replace("HealthServiceImpl()", "HealthServiceImpl(healthState)")
    assert parse_typescript("src/index.ts", stated.encode()).health_servicers == []


def test_the_sigterm_fix_drains_a_nice_grpc_server_with_shutdown(tmp_path: Path) -> None:
    after = fixed(tmp_path, SERVICE, "KLB403", name="index.ts")
    assert "process.on('SIGTERM', () => {" in after
    assert "server.shutdown().then(() => process.exit(0));" in after
    assert "tryShutdown" not in after


def test_a_force_shutdown_of_a_nice_grpc_server_becomes_a_bounded_shutdown(
    tmp_path: Path,
) -> None:
    abrupt = SERVICE.replace(
        "  await server.listen",
        "  process.on('SIGTERM', () => {\n    server.forceShutdown();\n  });\n"
        "  await server.listen",
    )
    after = fixed(tmp_path, abrupt, "KLB404", name="index.ts")
    assert "server.shutdown();" in after and "tryShutdown" not in after


SHARED = """\
import { createServer as createGrpcServer } from 'nice-grpc';

type Service = { definition: any; implementation: any };

export function createServer({ definition, implementation }: Service) {
  const server = createGrpcServer();
  server.add(definition, implementation);
  return server;
}
"""

SERVICE_OF_SHARED = """\
import { createServer } from '@acme/rpc-server';
import { LedgerDefinition } from '@acme/ledger-api';
import { ledgerImpl } from './ledger';

async function main() {
  const server = createServer({ definition: LedgerDefinition, implementation: ledgerImpl });
  await server.listen('0.0.0.0:7000');
}

main();
"""


def workspace(service: str = SERVICE_OF_SHARED) -> dict[str, str]:
    return {
        "packages/shared/rpc-server/package.json": '{"name": "@acme/rpc-server"}',
        "packages/shared/rpc-server/src/index.ts": SHARED,
        "packages/services/ledger/package.json": '{"name": "@acme/ledger"}',
        "packages/services/ledger/src/index.ts": service,
    }


def test_a_server_a_workspace_package_makes_is_the_server_of_the_service_that_starts_it(
    tmp_path: Path,
) -> None:
    found = lint_files(tmp_path, workspace(), ["KLB201", "KLB403"])
    assert sorted((f.rule, f.path.split("packages/")[1], f.line) for f in found.findings) == [
        ("KLB201", "shared/rpc-server/src/index.ts", 6),  # its options, where it is made
        ("KLB403", "services/ledger/src/index.ts", 7),
    ]


def test_what_a_function_returns_that_is_no_server_is_not_started_as_one(
    tmp_path: Path,
) -> None:
    files = workspace()
    files["packages/shared/rpc-server/src/index.ts"] = SHARED.replace(
        "return server;", "return { definition };"
    )
    assert lint_files(tmp_path, files, ["KLB403"]).findings == []
