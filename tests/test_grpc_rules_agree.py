"""KLB102 reports a channel only to a Service KLB101 reports: a long-lived gRPC channel in the
scanned code that dials a Service's port is evidence that the port carries gRPC, for KLB101
too, which then judges the Service as its page says (one replica nothing scales: info)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rules import ALL_RULES

from .helpers import lint_files

# a client that keeps one channel for the process, to a Service whose port says nothing
CLIENT = """\
import grpc

CHANNEL = grpc.insecure_channel("ledger:7000")


def balance(stub_class, account):
    return stub_class(CHANNEL).Balance(account)
"""
LEDGER = """\
apiVersion: v1
kind: Service
metadata:
  name: ledger
spec:
  selector:
    app: ledger
  ports:
    - port: 7000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: ledger}}
  template:
    metadata:
      labels: {{app: ledger}}
    spec:
      containers:
        - name: ledger
          image: registry.example/ledger:1.0
"""


def _services(findings: list[Finding], rule: str) -> dict[str, Severity]:
    """The Services a rule's findings name, with each one's severity: KLB101's by its
    object, KLB102's by the Service it relates."""
    found: dict[str, Severity] = {}
    for finding in findings:
        if finding.rule != rule:
            continue
        if rule == "KLB101" and finding.object is not None:
            found[f"{Path(finding.path).name}:{finding.object.display}"] = finding.severity
        for related in finding.related if rule == "KLB102" else ():
            if related.message.startswith("Service/"):
                found[f"{Path(related.path).name}:{related.message}"] = finding.severity
    return found


@pytest.mark.parametrize(("replicas", "severity"), [(3, Severity.WARNING), (1, Severity.INFO)])
def test_a_channel_that_dials_a_services_port_makes_it_grpc_for_klb101_too(
    tmp_path: Path, replicas: int, severity: Severity
) -> None:
    files = {"client/app.py": CLIENT, "k8s/ledger.yaml": LEDGER.format(replicas=replicas)}
    findings = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    clients = _services(findings, "KLB102")
    assert clients == {"ledger.yaml:Service/ledger": severity}
    assert _services(findings, "KLB101") == clients
    (service,) = [f for f in findings if f.rule == "KLB101"]
    assert "a gRPC channel dials it: app.py:3" in service.message


def test_a_channel_to_a_port_the_service_does_not_expose_is_no_evidence(tmp_path: Path) -> None:
    files = {
        "client/app.py": CLIENT.replace("ledger:7000", "ledger:7001"),
        "k8s/ledger.yaml": LEDGER.format(replicas=3),
    }
    findings = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    assert [f.rule for f in findings] == []


EXAMPLES = [
    pytest.param(example, id=f"{rule.id}-{number}")
    for rule in ALL_RULES
    for number, example in enumerate(rule.examples)
    if "channel" in example.source or "Channel" in example.source
]


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_service_klb102_reports_klb101_reports(tmp_path: Path, example: object) -> None:
    """Over every documented example with a channel: the two rules never disagree."""
    files = dict(example.files())  # type: ignore[attr-defined]
    findings = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    services = _services(findings, "KLB101")
    for name in _services(findings, "KLB102"):
        assert name in services, (name, sorted(services))
