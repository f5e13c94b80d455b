"""KLB406 and Apollo Server: once started, its ApolloServer stops itself on SIGTERM (and
SIGINT) unless told not to, so Node as PID 1 running one gets the signal and exits."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
DOCKERFILE = 'FROM node:20-alpine\nWORKDIR /srv\nCOPY . .\nRUN npm ci\nCMD ["node", "index.js"]\n'


def gateway(index_js: str, package: str = "apollo-server") -> dict[str, str]:
    return {
        "deploy/web.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": DOCKERFILE,
        "package.json": f'{{"name": "catalog", "dependencies": {{"{package}": "3.13.0"}}}}\n',
        "index.js": index_js,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def catalog(options: str, package: str = "apollo-server") -> str:
    return (
        f"const {{ ApolloServer, gql }} = require('{package}');\n"
        "const typeDefs = gql`type Query { items: [String] }`;\n"
        "const resolvers = { Query: { items: () => [] } };\n"
        f"const server = new ApolloServer({options});\n"
        "server.listen({ port: 4000 }).then(({ url }) => console.log(url));\n"
    )


@pytest.mark.parametrize("package", ["apollo-server", "apollo-server-express", "@apollo/server"])
def test_node_running_an_apollo_server_gets_sigterm_through_its_handler(
    tmp_path: Path, package: str
) -> None:
    files = gateway(catalog("{ typeDefs, resolvers }", package), package)
    assert klb406(tmp_path, files) == []


def test_options_held_in_a_module_const_are_read(tmp_path: Path) -> None:
    index = catalog("config").replace(
        "const server", "const config = { typeDefs, resolvers, introspection: true };\nconst server"
    )
    assert klb406(tmp_path, gateway(index)) == []


@pytest.mark.parametrize(
    "options",
    [
        "{ typeDefs, resolvers, stopOnTerminationSignals: false }",
        "{ typeDefs, resolvers, nodeEnv: 'test' }",
        "{ ...shared, typeDefs, resolvers }",  # the spread may turn it off
        "makeOptions()",  # options k8slb cannot read
    ],
)
def test_a_server_whose_handler_is_off_or_unknown_is_reported(tmp_path: Path, options: str) -> None:
    (finding,) = klb406(tmp_path, gateway(catalog(options)))
    assert "node is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_a_handler_turned_on_after_a_spread_counts(tmp_path: Path) -> None:
    options = "{ ...shared, stopOnTerminationSignals: true }"
    assert klb406(tmp_path, gateway(catalog(options))) == []


def test_a_serverless_integration_registers_no_handler(tmp_path: Path) -> None:
    # its handler is made per invocation; a server started in the background is not stopped
    files = gateway(catalog("{ typeDefs, resolvers }", "apollo-server-lambda"))
    (finding,) = klb406(tmp_path / "lambda", files)
    background = catalog("{ typeDefs, resolvers }", "@apollo/server").replace(
        "server.listen",
        "server.startInBackgroundHandlingStartupErrorsByLoggingAndFailingAllRequests();\nserver.listen",
    )
    (finding,) = klb406(tmp_path / "background", gateway(background, "@apollo/server"))
    assert "no SIGTERM handler" in finding.text
