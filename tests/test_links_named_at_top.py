"""A Dockerfile at the repository's top named for the image (`Dockerfile.cache`,
`Dockerfile.relay`) that copies no folder of code: a public program re-tagged, one built
from its upstream's tarball, or a binary made elsewhere put in with a licence. The whole
repository is no program's folder: the container links no code, and says why."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.test_links import DOCKERFILE, links, service_app, workload

RETAGGED = "ARG CACHE_VERSION\nFROM docker.io/library/valkey:$CACHE_VERSION\n"
UPSTREAM = """\
FROM debian:bookworm
ARG RELAY_VERSION
RUN apt-get update && apt-get install -y curl make gcc \\
 && curl -L https://relay.example/relay-$RELAY_VERSION.tar.gz | tar xz \\
 && cd relay-$RELAY_VERSION && ./configure && make && cp relay /usr/bin/
COPY relay.ini /etc/relay/relay.ini
CMD ["/usr/bin/relay", "/etc/relay/relay.ini"]
"""
PREBUILT = """\
FROM scratch
COPY NOTICE /NOTICE
COPY ledgerd /ledgerd
ENTRYPOINT ["/ledgerd"]
"""


def _tree() -> dict[str, str]:
    return {
        "Dockerfile.cache": RETAGGED,
        "Dockerfile.relay": UPSTREAM,
        "Dockerfile.ledgerd": PREBUILT,
        "NOTICE": "acme\n",
        "relay.ini": "[relay]\nport = 6000\n",
        **service_app("tools/report"),
        **service_app("web"),
        "web/Dockerfile": DOCKERFILE,
        "deploy/cache.yaml": workload("cache", "acme/cache:7.2"),
        "deploy/relay.yaml": workload("relay", "acme/relay:1.21"),
        "deploy/ledgerd.yaml": workload("ledgerd", "acme/ledgerd:3.0"),
        "deploy/web.yaml": workload("web", "acme/web:3.0"),
    }


def _code(rows: list[dict[str, Any]]) -> dict[str, object]:
    return {row["container"].split(":")[0].split("/")[-1]: row["code"] for row in rows}


def test_an_image_whose_top_level_dockerfile_copies_no_code_links_none(tmp_path: Path) -> None:
    code = _code(links(tmp_path, _tree()))
    assert code == {
        "cache": None,
        "relay": None,
        "ledgerd": None,
        "web": os.path.join("web", "server.py"),
    }
