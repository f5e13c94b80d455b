"""JavaScript and TypeScript values imported from another module of the scanned code
(`require('./config')`, `import {ADDR} from './config.js'`): followed to what that module
exports, through the modules' exports and imported.py, as Python's are."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef, Imported
from k8slb.code.imported import resolve_imports
from k8slb.languages.javascript.parse import (
    may_export_an_address,
    parse,
    parse_typescript,
    requires,
)

from .helpers import GRPC_BACKEND, cart_dialed_from_frontend, lint_files

MANIFESTS = GRPC_BACKEND
CONFIG = "module.exports = {ADDR: 'backend:50051', HOST: 'backend'};\n"
ESM_CONFIG = "export const ADDR = 'backend:50051';\nexport const HOST = 'backend';\n"
DEFAULT_CONFIG = "export default {ADDR: 'backend:50051', HOST: 'backend'};\n"


def client(imports: str, target: str) -> str:
    return (
        "const grpc = require('@grpc/grpc-js');\n"
        f"{imports}\n\n"
        f"const client = new EchoClient({target}, grpc.credentials.createInsecure());\n"
    )


@pytest.mark.parametrize(
    ("imports", "target", "config"),
    [
        ("const {ADDR} = require('./config');", "ADDR", CONFIG),
        ("const {ADDR: addr} = require('./config');", "addr", CONFIG),
        ("const config = require('./config');", "config.ADDR", CONFIG),
        ("import {ADDR} from './config.js';", "ADDR", ESM_CONFIG),
        ("import {ADDR as a} from './config';", "a", ESM_CONFIG),
        ("import config from './config';", "config.ADDR", DEFAULT_CONFIG),
        ("import config from './config';", "config.ADDR", CONFIG),
        ("import * as config from './config';", "config.ADDR", ESM_CONFIG),
        ("import config from './config';", "`${config.HOST}:50051`", DEFAULT_CONFIG),
    ],
    ids=[
        "destructured-require",
        "renamed-require",
        "required-module-member",
        "named-import",
        "renamed-import",
        "default-import-member",
        "default-import-of-common-js",
        "namespace-import-member",
        "template-of-an-imported-host",
    ],
)
def test_an_imported_target_is_followed_to_its_definition(
    tmp_path: Path, imports: str, target: str, config: str
) -> None:
    files = {
        "svc/config.js": config,
        "svc/client.js": client(imports, target),
        "k8s.yaml": MANIFESTS,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("client.js") and "Service/backend" in finding.message


READS = "const ADDR = process.env.CART_ADDR || 'cart:50051';\n"


@pytest.mark.parametrize(
    ("config", "name"),
    [
        (READS + "module.exports = {ADDR};", "ADDR"),
        (READS + "module.exports.ADDR = ADDR;", "ADDR"),
        (READS + "exports.ADDR = ADDR;", "ADDR"),
        ("export const ADDR = process.env.CART_ADDR || 'cart:50051';", "ADDR"),
        ("export const ADDR = `${process.env.CART_HOST}:50051`;", "ADDR"),
        (READS + "export {ADDR};", "ADDR"),
        (READS + "export {ADDR as CART};", "CART"),
        (READS + "export default {ADDR};", "default"),
    ],
    ids=[
        "module-exports-object",
        "module-exports-member",
        "exports-member",
        "export-const",
        "export-template",
        "export-list",
        "export-renamed",
        "export-default",
    ],
)
def test_a_module_exports_what_it_computes_for_its_consts(config: str, name: str) -> None:
    exported = parse("config.js", config.encode()).exports[name]
    value = exported["ADDR"] if name == "default" else exported
    assert value in (EnvRef("CART_ADDR", "cart:50051"), EnvRef("CART_HOST", None, "", ":50051"))


def test_an_exported_object_keeps_its_known_members() -> None:
    text = (
        "const ADDR = 'a:1';\n"
        "module.exports = {ADDR, PORT: 50051, URL: process.env.X || 'http://a:80', f() {}};\n"
    )
    exports = parse("config.js", text.encode()).exports
    assert exports["ADDR"] == "a:1" and exports["PORT"] == "50051"
    assert exports["URL"] == EnvRef("X", "http://a:80")
    assert "f" not in exports, "what cannot be followed is left out"


def test_a_common_js_modules_exports_are_its_default_too() -> None:
    exports = parse("config.js", b"exports.ADDR = 'a:1';\n").exports
    assert exports == {"ADDR": "a:1", "default": {"ADDR": "a:1"}}


def test_a_re_export_names_the_module_it_comes_from() -> None:
    exports = parse("index.js", b"export {ADDR as CART} from './config';\n").exports
    assert exports == {"CART": Imported(0, "./config", "ADDR", by_path=True)}


@pytest.mark.parametrize(
    ("config_path", "specifier"),
    [
        ("svc/config.js", "./config.js"),
        ("svc/config.mjs", "./config"),
        ("svc/config.cjs", "./config"),
        ("svc/config.ts", "./config"),
        ("svc/config/index.js", "./config"),
        ("svc/lib/config.js", "./lib/config"),
        ("config.js", "../config"),
    ],
)
def test_a_relative_specifier_finds_its_module_as_node_does(
    tmp_path: Path, config_path: str, specifier: str
) -> None:
    files = {
        config_path: CONFIG,
        "svc/client.js": client(f"const {{ADDR}} = require('{specifier}');", "ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    assert len(lint_files(tmp_path, files, ["KLB102"]).findings) == 1


def test_a_typescript_import_of_a_js_file_finds_its_ts_source(tmp_path: Path) -> None:
    files = {
        "svc/config.ts": ESM_CONFIG,
        "svc/client.ts": client("import {ADDR} from './config.js';", "ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    assert len(lint_files(tmp_path, files, ["KLB102"]).findings) == 1


def test_a_package_of_the_same_name_is_not_the_scanned_module(tmp_path: Path) -> None:
    files = {
        "svc/config.js": CONFIG,
        "svc/client.js": client("const {ADDR} = require('config');", "ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


@pytest.mark.parametrize(
    "index",
    [
        "export {ADDR} from './config';",
        # (a module that names nothing address-like is not read: these read the environment)
        "const {ADDR} = require('./config');\nmodule.exports = {ADDR, DEBUG: process.env.DEBUG};",
        "import {ADDR as A} from './config';\nexport const ADDR = A, DEBUG = process.env.DEBUG;",
    ],
    ids=["export-from", "required-and-exported", "imported-and-exported"],
)
def test_a_chain_of_re_exports_is_followed(tmp_path: Path, index: str) -> None:
    files = {
        "svc/lib/config.js": CONFIG,
        "svc/lib/index.js": index,
        "svc/client.js": client("const {ADDR} = require('./lib');", "ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    assert len(lint_files(tmp_path, files, ["KLB102"]).findings) == 1


def test_import_cycles_end_unknown() -> None:
    a = parse("a.js", b"const {Y} = require('./b');\nmodule.exports = {X: Y};\n")
    b = parse("b.js", b"const {X} = require('./a');\nmodule.exports = {Y: X};\n")
    user = parse("c.js", client("const {X} = require('./a');", "X").encode())
    resolved = resolve_imports([a, b, user])
    assert resolved[2].channels[0].target == UNKNOWN


def test_a_server_binds_an_imported_address() -> None:
    config = parse("config.js", b"module.exports = {BIND: `0.0.0.0:${process.env.PORT}`};\n")
    server = parse(
        "server.js",
        b"const grpc = require('@grpc/grpc-js');\nconst {BIND} = require('./config');\n"
        b"const server = new grpc.Server();\n"
        b"server.bindAsync(BIND, grpc.ServerCredentials.createInsecure(), () => {});\n",
    )
    (listen,) = resolve_imports([config, server])[1].listens
    assert listen.address == EnvRef("PORT", None, "0.0.0.0:")


def test_an_undici_pool_dials_an_imported_url() -> None:
    config = parse_typescript(
        "config.ts", b"export const URL = process.env.URL ?? 'http://b:80';\n"
    )
    user = parse_typescript(
        "pool.ts",
        b"import {Pool} from 'undici';\nimport {URL} from './config';\n"
        b"const pool = new Pool(URL);\n",
    )
    (pool,) = resolve_imports([config, user])[1].http_clients
    assert pool.base_url == EnvRef("URL", "http://b:80")


def test_an_environment_default_may_be_imported() -> None:
    config = parse("config.js", b"export const DEFAULT = 'backend:50051';\n")
    user = parse(
        "client.js",
        client("import {DEFAULT} from './config';", "process.env.ADDR || DEFAULT").encode(),
    )
    (channel,) = resolve_imports([config, user])[1].channels
    assert channel.target == EnvRef("ADDR", "backend:50051")


def test_a_module_with_nothing_watched_is_read_only_when_it_may_export_an_address() -> None:
    assert may_export_an_address(b"export const ADDR = process.env.ADDR;")
    assert may_export_an_address(b"module.exports = {url: 'http://a'};")
    assert may_export_an_address(b"export const ADDR = `${HOST}:50051`;")
    assert may_export_an_address(b"export {ADDR} from './config';")
    assert not may_export_an_address(b"export const Footer = () => <div>'hi'</div>;")
    assert not may_export_an_address(b"const ADDR = 'backend:50051';")


CART = cart_dialed_from_frontend("grpc", 7070)


def test_a_client_whose_address_a_config_module_reads_from_the_environment(
    tmp_path: Path,
) -> None:
    """The config module reads CART_ADDR, which the Deployment sets to the cart Service:
    the client in another module dials it (its default names no Service)."""
    files = {
        "frontend/src/config.js": (
            "module.exports = {CART_ADDR: process.env.CART_ADDR || 'localhost:7070'};\n"
        ),
        "frontend/src/cart.js": client("const config = require('./config');", "config.CART_ADDR"),
        "k8s.yaml": CART,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("cart.js")
    assert finding.message == "gRPC channel to ClusterIP Service/cart stays on one pod"


def test_a_module_that_exports_nothing_known_exports_nothing() -> None:
    text = b"const x = process.env.X;\nmodule.exports = {run() {}, handler: make()};\n"
    assert parse("handler.js", text).exports == {}


@pytest.mark.parametrize(
    "load",
    [
        "require(path.join(__dirname, 'routes', name))",
        "require(file)",
        "await import(name)",
        "require(`./routes/${name}`)",
        "new Worker('./jobs/resize.js')",
        "child_process.fork('./jobs/resize.js')",
    ],
)
def test_a_load_by_a_computed_path_or_a_worker_leaves_what_is_loaded_unknown(load: str) -> None:
    """What a module's program loads is known only where each load names its module: a
    computed one, or a worker or child process it starts (whose path is the process's
    folder's), makes it `*` (projects.node_loads: not known)."""
    text = f"const a = require('./a');\nconst b = {load};\n".encode()
    assert "*" in requires(text)
    assert "./a" in requires(text)


def test_a_method_named_require_loads_nothing_computed() -> None:
    assert requires(b"const a = require('./a');\nyargs.require(option);\n") == ("./a",)
