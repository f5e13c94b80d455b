"""KLB101 reads a maximum connection age that a server's container is given by an argument
or an env variable (istiod's `--keepaliveMaxServerConnectionAge 30m`) as it reads the
server's own option in the code: clients reconnect that often and are placed anew, so the
finding is info. Its grace alone, or an age of 0, caps nothing; a client seen dialing the
Service keeps the warning, while the pods' own env naming their Service (the address they
advertise) is no client."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.model.grpc_options import configured_max_age
from k8slb.model.objects import Container
from k8slb.reading.yamltree import YMap, YSeq
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HPA

from .helpers import lint_text

CONTAINER = "        - name: server\n          image: registry.example/backend:1.0\n"


def scaled_server(container_lines: str) -> str:
    """The gRPC Service, its Deployment scaled by an HPA, the container given the lines."""
    backend = BACKEND.replace(CONTAINER, CONTAINER + container_lines)
    assert backend != BACKEND
    return GRPC_SERVICE + backend + HPA


def klb101(tmp_path: Path, text: str) -> Finding:
    (finding,) = lint_text(tmp_path, text, ["KLB101"])
    return finding


@pytest.mark.parametrize(
    "lines",
    [
        "          args: [discovery, --keepaliveMaxServerConnectionAge, 30m]\n",
        "          args: [--max-connection-age=5m]\n",
        "          env:\n            - {name: GRPC_MAX_CONNECTION_AGE, value: 5m}\n",
    ],
    ids=["flag-and-value", "flag-equals", "env"],
)
def test_a_container_given_a_max_connection_age_caps_it_as_the_code_would(
    tmp_path: Path, lines: str
) -> None:
    finding = klb101(tmp_path, scaled_server(lines))
    assert finding.severity is Severity.INFO
    assert "its server caps connection age" in finding.text
    assert "Deployment/backend gives its server" in finding.text


@pytest.mark.parametrize(
    "lines",
    [
        "          args: [--max-connection-age-grace=30s]\n",
        "          args: [--max-connection-age, '0']\n",
        "          args: [--max-connection-age, --verbose]\n",
    ],
    ids=["grace-only", "zero", "no-value"],
)
def test_a_grace_or_an_unbounded_age_caps_nothing(tmp_path: Path, lines: str) -> None:
    assert klb101(tmp_path, scaled_server(lines)).severity is Severity.WARNING


CAPPED = "          args: [--keepaliveMaxServerConnectionAge, 30m]\n"
OWN_ADDRESS = (
    "          env:\n            - {name: SELF_ADDR, value: 'backend.default.svc:50051'}\n"
)
CLIENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: caller
spec:
  selector:
    matchLabels: {app: caller}
  template:
    metadata:
      labels: {app: caller}
    spec:
      containers:
        - name: caller
          image: registry.example/caller:1.0
          env:
            - {name: BACKEND_ADDR, value: 'backend.default.svc:50051'}
"""


def test_the_pods_own_service_in_their_env_is_no_client(tmp_path: Path) -> None:
    finding = klb101(tmp_path, scaled_server(CAPPED + OWN_ADDRESS))
    assert finding.severity is Severity.INFO


def test_a_client_seen_dialing_the_service_keeps_the_warning(tmp_path: Path) -> None:
    finding = klb101(tmp_path, scaled_server(CAPPED) + CLIENT)
    assert finding.severity is Severity.WARNING


def test_the_age_is_said_as_written_and_where() -> None:
    args = YSeq((3, 5))
    args.extend(["--keepaliveMaxServerConnectionAge", "30m"])
    args.item_pos.extend([(3, 7), (4, 7)])
    body = YMap((1, 1))
    body["args"] = args
    assert configured_max_age(Container("server", body, False)) == (
        "--keepaliveMaxServerConnectionAge 30m",
        (3, 7),
    )
