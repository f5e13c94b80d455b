"""Fixes in Node.js code: the options go into the object the code already has (in its
quotes, its indentation, with a trailing comma where it has them) or in a new last
argument; a SIGTERM handler goes before bindAsync; forceShutdown becomes a bounded
tryShutdown. Every result parses, and k8slb finds nothing more to fix in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.edits import JsEdit, Refused
from k8slb.interface.cli import cli
from k8slb.languages.javascript.edit import edit

from .helpers import lint_files, rules_of

HEAD = "const grpc = require('@grpc/grpc-js');\n\n"


def fixed(tmp_path: Path, code: str, rules: str, name: str = "server.js") -> str:
    (tmp_path / name).write_text(code)
    args = ["fix", "--no-cache", "--unsafe-fixes", "--select", rules, str(tmp_path)]
    CliRunner().invoke(cli, args)
    return (tmp_path / name).read_text()


@pytest.mark.parametrize(
    ("server", "after"),
    [
        (
            "const server = new grpc.Server();",
            "const server = new grpc.Server({'grpc.max_connection_age_ms': 300000, "
            "'grpc.max_connection_age_grace_ms': 30000});",
        ),
        (
            'const server = new grpc.Server({"grpc.keepalive_time_ms": 5000});',
            'const server = new grpc.Server({"grpc.keepalive_time_ms": 5000, '
            '"grpc.max_connection_age_ms": 300000, "grpc.max_connection_age_grace_ms": 30000});',
        ),
        (
            "const server = new grpc.Server({\n    'grpc.keepalive_time_ms': 5000,\n});",
            "const server = new grpc.Server({\n    'grpc.keepalive_time_ms': 5000,\n"
            "    'grpc.max_connection_age_ms': 300000,\n"
            "    'grpc.max_connection_age_grace_ms': 30000,\n});",
        ),
        (
            "const server = new grpc.Server({\n  'grpc.keepalive_time_ms': 5000 // ping\n});",
            "const server = new grpc.Server({\n  'grpc.keepalive_time_ms': 5000, // ping\n"
            "  'grpc.max_connection_age_ms': 300000,\n"
            "  'grpc.max_connection_age_grace_ms': 30000\n});",
        ),
    ],
    ids=["no-options", "one-line-double-quotes", "lines-trailing-comma", "comment-after"],
)
def test_a_server_gets_a_max_connection_age_in_its_own_style(
    tmp_path: Path, server: str, after: str
) -> None:
    assert fixed(tmp_path, HEAD + server + "\n", "KLB201") == HEAD + after + "\n"
    assert lint_files(tmp_path, {}, ["KLB201", "KLB204"]).findings == []


def test_a_grace_is_added_beside_an_age_in_a_module_const(tmp_path: Path) -> None:
    code = HEAD + "const OPTIONS = {'grpc.max_connection_age_ms': 60000};\n"
    code += "const server = new grpc.Server(OPTIONS);\n"
    after = fixed(tmp_path, code, "KLB204")
    assert "{'grpc.max_connection_age_ms': 60000, 'grpc.max_connection_age_grace_ms': 30000}" in (
        after
    )


def test_options_k8slb_cannot_see_are_left_alone(tmp_path: Path) -> None:
    code = HEAD + "const server = new grpc.Server({...base});\n"
    assert fixed(tmp_path, code, "KLB201") == code


CLIENT_MANIFESTS = """\
apiVersion: v1
kind: Service
metadata: {name: backend}
spec:
  clusterIP: None
  selector: {app: backend}
  ports: [{name: grpc, port: 50051}]
"""


def test_a_client_to_a_headless_service_gets_round_robin(tmp_path: Path) -> None:
    code = HEAD + (
        "const client = new proto.Echo('dns:///backend:50051', "
        "grpc.credentials.createInsecure());\n"
    )
    (tmp_path / "k8s.yaml").write_text(CLIENT_MANIFESTS)
    after = fixed(tmp_path, code, "KLB103", "client.js")
    assert after == code.replace(
        "createInsecure())",
        "createInsecure(), {'grpc.service_config': "
        """'{"loadBalancingConfig": [{"round_robin": {}}]}'})""",
    )
    assert lint_files(tmp_path, {}, ["KLB103"]).findings == []


SERVER = """\
const grpc = require('@grpc/grpc-js');

function main() {
    const server = new grpc.Server({'grpc.max_connection_age_ms': 300000, \
'grpc.max_connection_age_grace_ms': 30000});
    server.bindAsync('0.0.0.0:50051', grpc.ServerCredentials.createInsecure(), () => {});
}

main();
"""


def test_a_sigterm_handler_goes_before_bind_async_in_the_files_indentation(
    tmp_path: Path,
) -> None:
    after = fixed(tmp_path, SERVER, "KLB403")
    assert after == SERVER.replace(
        "    server.bindAsync(",
        "    process.on('SIGTERM', () => {\n"
        "        setTimeout(() => server.forceShutdown(), 25000).unref();\n"
        "        server.tryShutdown(() => process.exit(0));\n"
        "    });\n"
        "    server.bindAsync(",
    )
    assert lint_files(tmp_path, {}, ["KLB403", "KLB404"]).findings == []


def test_force_shutdown_becomes_a_bounded_try_shutdown(tmp_path: Path) -> None:
    code = SERVER.replace(
        "}\n\nmain();",
        "    process.on('SIGTERM', () => {\n        server.forceShutdown();\n    });\n}\n\nmain();",
    )
    after = fixed(tmp_path, code, "KLB404")
    assert after == code.replace(
        "        server.forceShutdown();\n",
        "        setTimeout(() => server.forceShutdown(), 25000).unref();\n"
        "        server.tryShutdown(() => {});\n",
    )
    assert rules_of(lint_files(tmp_path, {}, ["KLB403", "KLB404"]).findings) == []


def test_a_stop_followed_by_more_code_is_not_rewritten(tmp_path: Path) -> None:
    code = SERVER.replace(
        "}\n\nmain();",
        "    process.on('SIGTERM', () => {\n        server.forceShutdown();\n"
        "        process.exit(0);\n    });\n}\n\nmain();",
    )
    assert fixed(tmp_path, code, "KLB404") == code
    (finding,) = lint_files(tmp_path, {}, ["KLB404"]).findings
    assert finding.message == "server.forceShutdown() aborts every call in flight"


def test_typescript_is_fixed_with_its_own_grammar(tmp_path: Path) -> None:
    code = (
        "import * as grpc from '@grpc/grpc-js';\n\n"
        "const server: grpc.Server = new grpc.Server(<grpc.ServerOptions>{});\n"
    )
    after = fixed(tmp_path, code, "KLB201", "server.ts")
    assert "<grpc.ServerOptions>{'grpc.max_connection_age_ms': 300000, " in after


def test_an_edit_that_would_not_parse_is_refused() -> None:
    broken = JsEdit("server.js", 1, 16, "add-argument", "{'a': ")
    with pytest.raises(Refused):
        edit("const server = new grpc.Server();\n", [broken], "server.js")


def _fixed_bytes(tmp_path: Path, code: bytes, rules: str) -> bytes:
    (tmp_path / "server.js").write_bytes(code)
    args = ["fix", "--no-cache", "--unsafe-fixes", "--select", rules, str(tmp_path)]
    CliRunner().invoke(cli, args)
    return (tmp_path / "server.js").read_bytes()


MULTILINE_OPTIONS = (
    HEAD + "const server = new grpc.Server({\n    'grpc.keepalive_time_ms': 5000\n});\n"
)
STOPPED = SERVER.replace(
    "}\n\nmain();",
    "    process.on('SIGTERM', () => {\n        server.forceShutdown();\n    });\n}\n\nmain();",
)


@pytest.mark.parametrize(
    ("code", "rules"),
    [(MULTILINE_OPTIONS, "KLB201"), (SERVER, "KLB403"), (STOPPED, "KLB404")],
    ids=["options-on-lines", "sigterm-handler", "bounded-shutdown"],
)
def test_lines_a_fix_inserts_in_a_crlf_file_end_in_crlf(
    tmp_path: Path, code: str, rules: str
) -> None:
    lf = _fixed_bytes(tmp_path, code.encode(), rules)
    assert lf.count(b"\n") > code.count("\n"), "the fix inserts lines"
    crlf = _fixed_bytes(tmp_path, code.replace("\n", "\r\n").encode(), rules)
    assert crlf == lf.replace(b"\n", b"\r\n")


def test_in_a_file_of_mixed_line_ends_an_inserted_line_ends_as_its_neighbours(
    tmp_path: Path,
) -> None:
    """The header's lines end in LF, the function's in CRLF: the handler written into the
    function takes CRLF, and the header's lines keep LF."""
    header, body = SERVER.split("function main() {\n")
    code = (header + "function main() {\n").encode() + body.replace("\n", "\r\n").encode()
    after = _fixed_bytes(tmp_path, code, "KLB403")
    assert after.startswith(header.encode())
    added = after[len(header) :].replace(b"\r\n", b"")
    assert b"\n" not in added.removeprefix(b"function main() {\n"), after
    assert b"    process.on('SIGTERM', () => {\r\n" in after
