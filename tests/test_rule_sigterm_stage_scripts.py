"""KLB406 and a start script that reaches the last stage of a Dockerfile through another
stage: a builder copies the service's folder (script included), the last stage takes the
script `COPY --from` it, renamed or moved, through one stage or a few, by the stage's name
or index. The script is the tree's file the first stage copied."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.reading.build_files import MAX_STAGE_HOPS, parse_dockerfile
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

SKAFFOLD = (
    "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
    "      docker:\n        dockerfile: billing/Dockerfile\n"
)
# A billing service's start script: it migrates, then runs the compiled server as its
# child, so the shell stays PID 1.
START = """\
#!/bin/sh
npx knex migrate:latest --knexfile dist/knexfile.js
node main.js
"""
SERVER = """\
import http from "node:http";

const server = http.createServer((req, res) => res.end("ok"));
server.listen(8080);
"""
PACKAGE = '{"name": "billing", "scripts": {"build": "tsc -p ."}}\n'
# The builder copies the service's folder and compiles it; the runner takes the output and
# the start script from it.
DOCKERFILE = """\
FROM node:20-alpine AS builder
WORKDIR /usr/src/app
COPY billing/ .
RUN npm ci && npm run build

FROM node:20-alpine AS runner
WORKDIR /usr/src/app
COPY --from=builder /usr/src/app/dist .
COPY --from=builder /usr/src/app/node_modules ./node_modules
COPY --from=builder /usr/src/app/docker/start.sh ./start.sh
EXPOSE 8080
CMD ["sh", "start.sh"]
"""


def files(dockerfile: str = DOCKERFILE, start: str = START) -> dict[str, str]:
    return {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "billing/Dockerfile": dockerfile,
        "billing/docker/start.sh": start,
        "billing/package.json": PACKAGE,
        "billing/src/main.ts": SERVER,
    }


def klb406(tmp_path: Path, tree: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, tree, ["KLB406"]).findings


def built(dockerfile: str) -> list[tuple[str, str]]:
    return [(c.source, c.dest) for c in parse_dockerfile("Dockerfile", dockerfile).built_copies]


def test_a_script_taken_from_a_builder_stage_is_the_file_the_builder_copied(
    tmp_path: Path,
) -> None:
    (finding,) = klb406(tmp_path, files())
    assert finding.path.endswith("/billing/Dockerfile") and finding.line == 12
    assert finding.severity is Severity.WARNING
    assert "start.sh is PID 1, a sh script that runs each of its commands as a child" in (
        finding.text
    )
    assert "`exec node main.js`" in finding.text
    # the script hands PID 1 over to node, which has no handler: still reported, as node
    execs = START.replace("node main.js", "exec node main.js")
    (finding,) = klb406(tmp_path / "execs", files(start=execs))
    assert "start.sh is PID 1" not in finding.text and "node" in finding.text


def test_a_script_the_builder_writes_itself_is_not_the_trees() -> None:
    """A file the builder's RUN made where the tree's script would be is not known: the
    last COPY of that stage that holds the path decides, and a later one wins."""
    made = DOCKERFILE.replace("COPY billing/ .", "RUN echo 'node main.js' > docker/start.sh")
    assert built(made) == []
    # the runner's own COPY from the context, after the `--from` one, is what it holds
    own = DOCKERFILE.replace('CMD ["sh"', 'COPY billing/bin/run.sh ./start.sh\nCMD ["sh"')
    read = parse_dockerfile("Dockerfile", own)
    assert read.sources_of("/usr/src/app/start.sh") == ["billing/bin/run.sh"]


def test_a_file_the_builder_copied_alone_is_followed_by_its_name_or_a_new_one() -> None:
    dockerfile = (
        "FROM node:20 AS build\nWORKDIR /app\nCOPY package.json package-lock.json ./\n"
        "COPY scripts/entrypoint.sh /app/boot.sh\nCOPY src ./src\nRUN npm ci\n"
        "FROM node:20-slim\nWORKDIR /srv\n"
        "COPY --from=build /app/package.json /app/boot.sh /app/node_modules ./\n"
        "COPY --from=build /app/dist/ ./dist/\n"
    )
    assert built(dockerfile) == [
        ("package.json", "/srv"),
        ("scripts/entrypoint.sh", "/srv"),
    ]


def test_a_script_is_followed_through_stages_by_index_and_moved(tmp_path: Path) -> None:
    """`--from=0` names the first stage; a stage between takes the script and moves it,
    the last takes it from there: the same file of the tree."""
    through = (
        "FROM node:20-alpine\nWORKDIR /usr/src/app\nCOPY billing/ .\nRUN npm ci && npm run build\n"
        "FROM node:20-alpine AS assets\n"
        "COPY --from=0 /usr/src/app/docker/start.sh /opt/bin/\n"
        "COPY --from=0 /usr/src/app/dist /opt/app\n"
        "FROM assets AS runner\nWORKDIR /opt/app\n"
        'CMD ["sh", "/opt/bin/start.sh"]\n'
    )
    assert built(through) == [("billing/docker/start.sh", "/opt/bin"), ("billing/dist", "/opt/app")]
    (finding,) = klb406(tmp_path, files(through))
    assert "start.sh is PID 1, a sh script" in finding.text
    hop = (
        "FROM node:20-alpine AS runner\nWORKDIR /srv\n"
        'COPY --from=assets /opt/bin/start.sh ./start.sh\nCMD ["sh", "start.sh"]\n'
    )
    twice = through.replace("FROM assets AS runner", "FROM assets AS moved").replace(
        'CMD ["sh", "/opt/bin/start.sh"]\n', hop
    )
    assert built(twice) == [("billing/docker/start.sh", "/srv/start.sh")]
    (finding,) = klb406(tmp_path / "twice", files(twice))
    assert "start.sh is PID 1, a sh script" in finding.text


def test_a_file_is_followed_through_at_most_the_hop_budget() -> None:
    def chain(hops: int) -> str:
        stages = "FROM alpine AS s0\nCOPY run.sh /run.sh\n" + "".join(
            f"FROM alpine AS s{i}\nCOPY --from=s{i - 1} /run.sh /run.sh\n"
            for i in range(1, hops + 1)
        )
        return stages + 'CMD ["sh", "/run.sh"]\n'

    assert built(chain(MAX_STAGE_HOPS)) == [("run.sh", "/run.sh")]
    assert built(chain(MAX_STAGE_HOPS + 1)) == []
