"""The shapes a Node.js gRPC client's target is written in: module variables (`let`, `var`,
`const`) assigned once or given an environment value over a default, `+` concatenation and
template literals of environment values and text, `process.env.X || 'default'`,
`process.env['X']`, `const {X} = process.env`, and a client kept by a class (made in its
constructor or as a field)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef, EnvText
from k8slb.languages.javascript.parse import parse

from .helpers import lint_files
from .test_javascript import MANIFESTS

HEAD = (
    "const grpc = require('@grpc/grpc-js');\n"
    "const protoLoader = require('@grpc/proto-loader');\n"
    "const shop = grpc.loadPackageDefinition(protoLoader.loadSync('shop.proto')).shop;\n\n"
)


def target_of(text: str) -> object:
    (channel,) = parse("client.js", (HEAD + text).encode()).channels
    assert channel.long_lived
    return channel.target


NEW = "new shop.Catalog(target, grpc.credentials.createInsecure())"
WITH_DEFAULT = EnvRef("CATALOG_HOST", "localhost", suffix=":50051")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "let host = process.env.CATALOG_HOST || 'localhost';\n"
            f"let target = host + ':50051';\nconst client = {NEW};\n",
            WITH_DEFAULT,
        ),
        (
            "var host = process.env.CATALOG_HOST || 'localhost';\n"
            f"var target = host + ':50051';\nmodule.exports = {NEW};\n",
            WITH_DEFAULT,
        ),
        (
            "const host = process.env.CATALOG_HOST || 'localhost';\n"
            f"const target = `${{host}}:50051`;\nconst client = {NEW};\n",
            WITH_DEFAULT,
        ),
        (
            f"const target = process.env.CATALOG_HOST + ':50051';\nconst client = {NEW};\n",
            EnvRef("CATALOG_HOST", suffix=":50051"),
        ),
        (
            "const target = 'dns:///' + process.env['CATALOG_HOST'] + ':' + 50051;\n"
            f"const client = {NEW};\n",
            EnvRef("CATALOG_HOST", prefix="dns:///", suffix=":50051"),
        ),
        (
            f"const {{CATALOG_HOST = 'localhost'}} = process.env;\n"
            f"const target = CATALOG_HOST + ':50051';\nconst client = {NEW};\n",
            WITH_DEFAULT,
        ),
        (
            "let target = 'localhost:50051';\n"
            "if (process.env.CATALOG_ADDR) {\n  target = process.env.CATALOG_ADDR;\n}\n"
            f"const client = {NEW};\n",
            EnvRef("CATALOG_ADDR", "localhost:50051"),
        ),
        (
            f"let target;\ntarget = process.env.CATALOG_ADDR;\nconst client = {NEW};\n",
            EnvRef("CATALOG_ADDR"),
        ),
        (
            "const host = process.env.CATALOG_HOST;\nconst port = process.env.CATALOG_PORT;\n"
            f"const target = host + ':' + port;\nconst client = {NEW};\n",
            EnvText((EnvRef("CATALOG_HOST"), ":", EnvRef("CATALOG_PORT"))),
        ),
        (
            "class Catalog {\n  constructor() {\n"
            "    const target = process.env.CATALOG_HOST + ':50051';\n"
            f"    this.stub = {NEW};\n  }}\n}}\n",
            EnvRef("CATALOG_HOST", suffix=":50051"),
        ),
        (
            "const target = process.env.CATALOG_HOST + ':50051';\n"
            f"class Catalog {{\n  stub = {NEW};\n}}\n",
            EnvRef("CATALOG_HOST", suffix=":50051"),
        ),
    ],
    ids=[
        "let-plus-literal",
        "var-plus-literal",
        "const-template",
        "env-plus-literal",
        "bracketed-env-plus-number",
        "destructured-env-with-default",
        "let-replaced-by-env",
        "let-assigned-later",
        "two-envs",
        "made-in-a-constructor",
        "a-class-field",
    ],
)
def test_a_module_target_is_followed(text: str, expected: object) -> None:
    assert target_of(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # a number added to a number is no text
        f"const target = 1 + 2;\nconst client = {NEW};\n",
        # an object's member added: unknown
        f"const target = config.host + ':50051';\nconst client = {NEW};\n",
    ],
    ids=["arithmetic", "unknown-part"],
)
def test_what_cannot_be_followed_stays_unknown(text: str) -> None:
    assert target_of(text) is UNKNOWN


def test_a_module_variable_assigned_in_a_function_is_one_of_its_values() -> None:
    """A function may assign the module's variable before the client is made: each value
    is one the client may dial (an unknown one among them dials nothing k8slb knows); a
    function's own variable or parameter of the same name is another variable."""
    text = (
        "let target = 'catalog:50051';\n"
        "function retarget(t) {\n  target = t + lookup();\n}\n"
        "function local() {\n  let target;\n  target = 'elsewhere:1';\n}\n"
        "function param(target) {\n  target = 'elsewhere:2';\n}\n"
        f"const client = {NEW};\n"
    )
    channels = parse("client.js", (HEAD + text).encode()).channels
    assert sorted(repr(c.target) for c in channels) == sorted([repr("catalog:50051"), "Unknown()"])
    many = "let target = 'a:1';\n" + "target = 'a:1';\n" * 9 + f"const client = {NEW};\n"
    assert target_of(many) is UNKNOWN, "a variable assigned over and over is not followed"


def test_a_let_target_to_a_clusterip_grpc_service_is_klb102(tmp_path: Path) -> None:
    """The module-level client of a `let` address made of an environment value and a
    literal, its container setting the variable to the Service's name."""
    text = (
        HEAD
        + "let host = process.env.BACKEND_HOST || 'backend';\n"
        + "let target = host + ':50051';\n"
        + f"const client = {NEW};\n\nmodule.exports = client;\n"
    )
    files = {"client.js": text, "k8s.yaml": MANIFESTS}
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("client.js") and finding.line == 7
    assert "ClusterIP Service/backend" in finding.message


@pytest.mark.parametrize(
    "credentials",
    [
        "const creds = grpc.credentials.createInsecure();\n",
        "let creds = null;\nif (process.env.TLS) {\n  creds = grpc.credentials.createSsl();\n}"
        " else {\n  creds = grpc.credentials.createInsecure();\n}\n",
        "const {credentials} = require('@grpc/grpc-js');\nvar creds = credentials.createSsl();\n",
    ],
    ids=["const", "assigned-in-branches", "imported-by-name"],
)
def test_credentials_held_in_a_variable_mark_a_client(credentials: str) -> None:
    """The credentials made once and handed to each client: at the module's top level,
    and in the function that makes the clients."""
    made = "new shop.Catalog('catalog:50051', creds);\nnew shop.Pricing('pricing:50051', creds);\n"
    at_top = parse("c.js", (HEAD + credentials + made).encode()).channels
    assert sorted(c.target for c in at_top) == ["catalog:50051", "pricing:50051"]
    indented = "".join(f"  {line}\n" for line in (credentials + made).splitlines())
    in_main = HEAD + "function main() {\n" + indented + "}\n"
    assert len(parse("c.js", in_main.encode()).channels) == 2


def test_a_variable_of_another_kind_or_scope_is_no_credentials() -> None:
    """Another function's `creds`, and a `creds` that holds something else, mark nothing."""
    text = (
        HEAD
        + "function tls() {\n  const creds = grpc.credentials.createSsl();\n  return creds;\n}\n"
        + "const creds = {user: 'a', password: 'b'};\n"
        + "const db = new Database('db:5432', creds);\n"
    )
    assert parse("c.js", text.encode()).channels == []


NICE = (
    "import {createChannel, createClient, ChannelCredentials} from 'nice-grpc';\n"
    "import {CatalogDefinition} from './gen/catalog';\n\n"
    "const channel = createChannel(ADDRESS);\n"
    "export const catalog = createClient(CatalogDefinition, channel);\n"
)


@pytest.mark.parametrize(
    ("address", "dialled"),
    [
        ("'catalog:50051'", "catalog:50051"),
        ("'http://catalog:50051'", "catalog:50051"),
        ("'http://catalog'", "catalog:80"),
        ("'https://catalog'", "catalog:443"),
        ("'catalog', ChannelCredentials.createSsl()", "catalog:443"),
        ("'dns:///catalog-headless:50051'", "dns:///catalog-headless:50051"),
    ],
    ids=["host-port", "http-origin", "http-no-port", "https-no-port", "tls-no-port", "dns"],
)
def test_a_nice_grpc_channel_dials_its_address_as_nice_grpc_reads_it(
    address: str, dialled: str
) -> None:
    from k8slb.model.addresses import parse_grpc_target

    (channel,) = parse("c.ts", NICE.replace("ADDRESS", address).encode()).channels
    assert channel.long_lived and channel.factory == "createChannel"
    read = parse_grpc_target(channel.target, channel.default_scheme)
    expected = parse_grpc_target(dialled)
    assert (read.host, read.port, read.scheme) == (expected.host, expected.port, expected.scheme)


def test_a_nice_grpc_channel_to_a_clusterip_grpc_service_is_klb102(tmp_path: Path) -> None:
    text = NICE.replace("ADDRESS", "process.env.CATALOG_URL || 'http://backend:50051'")
    (finding,) = lint_files(tmp_path, {"c.ts": text, "k8s.yaml": MANIFESTS}, ["KLB102"]).findings
    assert finding.line == 4 and "ClusterIP Service/backend" in finding.message
    closed = text.replace("const channel", "function once() {\n  const channel").replace(
        "export const catalog = createClient(CatalogDefinition, channel);\n",
        "  channel.close();\n}\n",
    )
    assert parse("c.ts", closed.encode()).channels[0].long_lived is False


@pytest.mark.parametrize(
    "config",
    [
        "module.exports = {addr: process.env.CART_HOST + ':50051'};\n",
        "let addr = process.env.CART_HOST + ':50051';\nmodule.exports = {addr};\n",
        "var addr = process.env.CART_HOST + ':50051';\nmodule.exports.addr = addr;\n",
        "export let addr = process.env.CART_HOST + ':50051';\n",
        "let addr;\naddr = `${process.env.CART_HOST}:50051`;\nexport {addr};\n",
    ],
    ids=["object-member", "let-shorthand", "var-member", "export-let", "export-list-let"],
)
def test_a_config_module_exports_an_address_it_joins_or_holds_in_a_variable(config: str) -> None:
    assert parse("config.js", config.encode()).exports["addr"] == EnvRef(
        "CART_HOST", suffix=":50051"
    )


@pytest.mark.parametrize(
    "text",
    [
        "let target = process.env.CATALOG_HOST;\ntarget += ':50051';\n",
        "function connect() {\n  let target = process.env.CATALOG_HOST;\n  target += ':50051';\n"
        f"  return {NEW};\n}}\n",
    ],
    ids=["module-let", "function-let"],
)
def test_a_variable_added_to_in_place_is_unknown_never_its_first_value(text: str) -> None:
    """`target += ':50051'` changes what the variable holds in a way not followed: the
    target is unknown, not the value it was declared with."""
    made = text if "function" in text else text + f"const client = {NEW};\n"
    assert target_of(made) is UNKNOWN
