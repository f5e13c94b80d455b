"""A Service whose ports, whatever it calls them (`web`), reach only a container port the
pod declares for scrapes (`metrics`) carries no client's request: a missed scrape is a
lost sample. Such a Service alone makes KLB302 no-readiness-probe and KLB401 no-prestop
info, saying so; another Service of clients, a caller seen, or a container port declared
under a name of clients keeps the warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity

from .helpers import lint_text

RULES = ["KLB302", "KLB401"]


def worker(ports: str, service_ports: str, service_extra: str = "") -> str:
    """A queue worker `mailer` (two replicas, no probes, no preStop) that serves only its
    metrics, and the Service `mailer-stats` in front of it; `ports` are the container's
    port lines, `service_ports` the Service's, `service_extra` lines of its spec."""
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: mailer, namespace: jobs}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: mailer}}}}
  template:
    metadata:
      labels: {{app: mailer}}
    spec:
      containers:
        - name: mailer
          image: registry.example/mailer:4.1
{ports}---
apiVersion: v1
kind: Service
metadata: {{name: mailer-stats, namespace: jobs}}
spec:
{service_extra}  selector: {{app: mailer}}
  ports:
{service_ports}"""


STATS = "          ports: [{name: metrics, containerPort: 9464}]\n"
BY_NAME = "    - {name: web, port: 9464, targetPort: metrics}\n"
BY_NUMBER = "    - {name: web, port: 80, targetPort: 9464}\n"


def _severities(found: list) -> dict[str, Severity]:
    return {f.rule: f.severity for f in found}


@pytest.mark.parametrize(
    ("ports", "service_ports"),
    [
        (STATS, BY_NAME),
        (STATS, BY_NUMBER),
        # an unnamed Service port, and Prometheus's own word for the container's
        ("          ports: [{name: prometheus, containerPort: 9464}]\n", "    - {port: 9464}\n"),
        # the app's name, then what the port is for
        ("          ports: [{name: mailer-metrics, containerPort: 9464}]\n", BY_NUMBER),
    ],
)
def test_a_service_that_reaches_only_a_declared_metrics_port_is_info(
    tmp_path: Path, ports: str, service_ports: str
) -> None:
    found = lint_text(tmp_path, worker(ports, service_ports), RULES)
    assert _severities(found) == {"KLB302": Severity.INFO, "KLB401": Severity.INFO}
    for finding in found:
        assert "only a metrics scrape reaches it" in finding.text


@pytest.mark.parametrize(
    "ports",
    [
        # the pod calls the port something of clients, or leaves it open
        "          ports: [{name: http, containerPort: 9464}]\n",
        "          ports: [{name: http-metrics, containerPort: 9464}]\n",
        # declared without a name: its API and metrics may share it
        "          ports: [{containerPort: 9464}]\n",
        # not declared at all (its only container: the Service reaches it all the same)
        "",
    ],
)
def test_a_port_the_pod_does_not_declare_for_metrics_keeps_the_warning(
    tmp_path: Path, ports: str
) -> None:
    found = lint_text(tmp_path, worker(ports, BY_NUMBER), RULES)
    assert _severities(found) == {"KLB302": Severity.WARNING, "KLB401": Severity.WARNING}


def test_another_service_of_clients_keeps_the_warning(tmp_path: Path) -> None:
    ports = (
        "          ports:\n"
        "            - {name: metrics, containerPort: 9464}\n"
        "            - {name: http, containerPort: 8080}\n"
    )
    clients = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: mailer, namespace: jobs}\n"
        "spec:\n  selector: {app: mailer}\n  ports:\n    - {name: http, port: 80, "
        "targetPort: http}\n"
    )
    found = lint_text(tmp_path, worker(ports, BY_NAME) + clients, RULES)
    assert _severities(found) == {"KLB302": Severity.WARNING, "KLB401": Severity.WARNING}


@pytest.mark.parametrize(
    ("extra", "service_extra"),
    [
        # a client's URL names the Service with its port
        (
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: jobs}\n"
            "data: {STATS_URL: 'http://mailer-stats:9464/'}\n",
            "",
        ),
        # an Ingress routes to it
        (
            "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\n"
            "metadata: {name: stats, namespace: jobs}\nspec:\n  rules:\n    - http:\n"
            "        paths:\n          - path: /\n            pathType: Prefix\n"
            "            backend: {service: {name: mailer-stats, port: {number: 9464}}}\n",
            "",
        ),
        # a LoadBalancer: callers outside the cluster
        ("", "  type: LoadBalancer\n"),
    ],
)
def test_a_caller_seen_keeps_the_warning(tmp_path: Path, extra: str, service_extra: str) -> None:
    found = lint_text(tmp_path, worker(STATS, BY_NAME, service_extra) + extra, RULES)
    assert _severities(found) == {"KLB302": Severity.WARNING, "KLB401": Severity.WARNING}
