"""A module's environment helpers (`function setting(name, fallback) { return
process.env[name] || fallback }`): a call that names the variable reads it, with the call's
default, as `process.env.X || default` does; followed into the modules that import the
value, to the Service it names."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.languages.javascript.parse import parse_typescript

from .helpers import GRPC_BACKEND, lint_files

# A gateway's settings module: a helper that insists on a value, and the addresses it reads.
SETTINGS = """\
const strict = process.env.APP_ENV === "prod";

HELPER

export const settings = {
  port: Number(process.env.PORT || 8080),
  backendAddr: CALL,
};
"""
INSISTS = """\
function setting(key: string, fallback?: string): string {
  const found = process.env[key] ?? fallback;
  if (strict && !process.env[key]) {
    throw new Error(`${key} is not set`);
  }
  if (!found) throw new Error(`no ${key}`);
  return found;
}"""
ARROW = "const setting = (key: string, fallback = 'backend:50051') => process.env[key] || fallback;"
PLAIN = "export function setting(key: string) { return process.env[key]; }"
CONVERTS = (
    "function setting(key: string, fallback: string) {\n"
    "  return String(process.env[key] || fallback);\n}"
)
TWO_PATHS = (
    "function setting(key: string, fallback: string) {\n"
    "  if (strict) return 'fixed:1';\n  return process.env[key] || fallback;\n}"
)

CLIENT = """\
import * as grpc from "@grpc/grpc-js";
import { settings } from "../config/settings";

export const backend = new BackendClient(settings.backendAddr, grpc.credentials.createInsecure());
"""


def exported(helper: str, call: str) -> object:
    text = SETTINGS.replace("HELPER", helper).replace("CALL", call)
    return (
        parse_typescript("settings.ts", text.encode())
        .exports["settings"]
        .get("backendAddr", UNKNOWN)
    )


@pytest.mark.parametrize(
    ("helper", "call", "expected"),
    [
        (
            INSISTS,
            "setting('BACKEND_ADDR', 'backend:50051')",
            EnvRef("BACKEND_ADDR", "backend:50051"),
        ),
        (INSISTS, "setting('BACKEND_ADDR')", EnvRef("BACKEND_ADDR")),
        (ARROW, "setting('BACKEND_ADDR')", EnvRef("BACKEND_ADDR", "backend:50051")),
        (ARROW, "setting('BACKEND_ADDR', 'other:1')", EnvRef("BACKEND_ADDR", "other:1")),
        (PLAIN, "setting('BACKEND_ADDR')", EnvRef("BACKEND_ADDR")),
        (CONVERTS, "setting('BACKEND_ADDR', 'backend:50051')", UNKNOWN),
        (TWO_PATHS, "setting('BACKEND_ADDR', 'backend:50051')", UNKNOWN),
        (INSISTS, "setting(process.argv[2], 'backend:50051')", UNKNOWN),
        (INSISTS, "other('BACKEND_ADDR', 'backend:50051')", UNKNOWN),
    ],
    ids=[
        "local-variable-with-fallback",
        "no-fallback-given",
        "arrow-parameter-default",
        "arrow-fallback-given",
        "no-fallback-parameter",
        "a-converted-value-is-no-read",
        "another-return-is-no-read",
        "a-computed-name",
        "no-such-helper",
    ],
)
def test_an_env_helpers_call_reads_the_variable_it_names(
    helper: str, call: str, expected: object
) -> None:
    assert exported(helper, call) == expected


def test_a_client_dialing_an_address_a_helper_reads_is_followed_to_the_service(
    tmp_path: Path,
) -> None:
    settings = SETTINGS.replace("HELPER", INSISTS).replace(
        "CALL", "setting('BACKEND_ADDR', 'backend:50051')"
    )
    files = {
        "gateway/src/config/settings.ts": settings,
        "gateway/src/clients/backend.ts": CLIENT,
        "gateway/package.json": "{}",
        "k8s.yaml": GRPC_BACKEND,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("backend.ts") and "Service/backend" in finding.message
