"""A Service port whose name leaves open whether it is only scraped (`http-metrics`) is
judged by the pods it reaches: the container port's declared name, the pod's
`prometheus.io/port`, and whether the pod declares any port a client would call (KLB302
no-readiness-probe, KLB401 no-prestop). A port with no name stays a port of clients."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import lint_text

RULES = ["KLB302", "KLB401"]


def reconciler(ports: str, annotations: str = "", service_ports: str = "") -> str:
    """A controller Deployment `sync` (two replicas, no probes, no preStop) and the Service
    `sync` in front of it; `ports` are the container's port lines, `annotations` the pod's,
    `service_ports` the Service's port list."""
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: sync, namespace: ops}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: sync}}}}
  template:
    metadata:
      labels: {{app: sync}}
{annotations}    spec:
      containers:
        - name: sync
          image: registry.example/sync-controller:2.3
          args: [--leader-elect]
{ports}---
apiVersion: v1
kind: Service
metadata: {{name: sync, namespace: ops}}
spec:
  selector: {{app: sync}}
  ports:
{service_ports}"""


HTTP_METRICS = "    - {name: http-metrics, port: 9090, targetPort: 9090}\n"
UNNAMED = "    - {port: 9402, targetPort: 9402}\n"
SCRAPED_AT_9402 = (
    "      annotations:\n        prometheus.io/scrape: 'true'\n        prometheus.io/port: '9402'\n"
)
# a port for clients, and 9090 declared without a name
API_AND_9090 = (
    "          ports:\n"
    "            - {name: api, containerPort: 7000}\n"
    "            - {containerPort: 9090}\n"
)


@pytest.mark.parametrize(
    ("ports", "service_ports"),
    [
        # its only port: the reconciler's metrics, which it declares under `metrics`
        ("          ports: [{name: metrics, containerPort: 9090}]\n", HTTP_METRICS),
        # metrics and profiling, each a port of its own, each declared so
        (
            "          ports:\n"
            "            - {name: metrics, containerPort: 9090}\n"
            "            - {name: profiling, containerPort: 8008}\n",
            HTTP_METRICS + "    - {name: http-profiling, port: 8008, targetPort: 8008}\n",
        ),
        # no port declared at all: nothing a client would call is said to be there
        ("", HTTP_METRICS),
    ],
)
def test_a_port_named_http_metrics_is_scraped_when_the_pod_declares_only_metrics(
    tmp_path: Path, ports: str, service_ports: str
) -> None:
    assert lint_text(tmp_path, reconciler(ports, service_ports=service_ports), RULES) == []


def test_a_port_named_http_metrics_is_scraped_when_it_is_the_pods_prometheus_port(
    tmp_path: Path,
) -> None:
    annotated = "      annotations: {prometheus.io/port: '9090'}\n"
    assert lint_text(tmp_path, reconciler(API_AND_9090, annotated, HTTP_METRICS), RULES) == []


@pytest.mark.parametrize(
    "ports",
    [
        # the chart's HTTP API, which it calls `http-metrics` in the container too
        "          ports: [{name: http-metrics, containerPort: 9090}]\n",
        "          ports: [{name: http, containerPort: 9090}]\n",
        # a port for clients beside it, and nothing says 9090 is only scraped
        API_AND_9090,
    ],
)
def test_a_port_named_http_metrics_serves_clients_where_the_pod_says_so_or_says_nothing(
    tmp_path: Path, ports: str
) -> None:
    """`http-metrics` is the whole HTTP API of Loki's and Mimir's charts: a container port
    declared under that name (or another of clients) keeps it a port of clients, and so
    does a pod that declares a client port beside an undeclared 9090."""
    found = lint_text(tmp_path, reconciler(ports, service_ports=HTTP_METRICS), RULES)
    assert {f.rule for f in found} == {"KLB302", "KLB401"}


@pytest.mark.parametrize("annotations", ["", SCRAPED_AT_9402])
def test_an_unnamed_port_serves_clients_though_the_pod_is_scraped_there(
    tmp_path: Path, annotations: str
) -> None:
    """`prometheus.io/port` says where the pod is scraped, not that nothing else is served
    there: an app's API and its metrics often share one port, whose callers name it in
    settings the manifests do not hold."""
    ports = "          ports: [{containerPort: 9402, protocol: TCP}]\n"
    text = reconciler(ports, annotations, UNNAMED)
    assert {f.rule for f in lint_text(tmp_path, text, RULES)} == {"KLB302", "KLB401"}


def test_a_port_named_http_metrics_serves_clients_once_a_caller_names_it(
    tmp_path: Path,
) -> None:
    """The pods' word that it is a metrics port gives way to a caller seen using it."""
    ports = "          ports: [{name: metrics, containerPort: 9090}]\n"
    caller = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: billing, namespace: ops}\n"
        "data: {SYNC_URL: 'http://sync:9090/v1/jobs'}\n"
    )
    text = reconciler(ports, service_ports=HTTP_METRICS) + caller
    assert {f.rule for f in lint_text(tmp_path, text, RULES)} == {"KLB302", "KLB401"}


def _service_port(name: str, target: str | int = 9090) -> str:
    return f"    - {{name: {name}, port: 9090, targetPort: {target}}}\n"


@pytest.mark.parametrize(
    ("service_port", "declared"),
    [
        # `metric` is `metrics`, one of them
        ("metric", "metric"),
        # the app's own name, then what the port is for (the name a chart gives each
        # component's metrics port), by the workload's or the container's name
        ("sync-metric", "sync-metric"),
        ("sync-metrics-port", "sync-metrics-port"),
        ("sync-pprof", "sync-pprof"),
        # the Service's name leaves it open, the container port's closes it
        ("http-metrics", "sync-metrics"),
    ],
)
def test_a_port_named_for_its_apps_metrics_is_scraped(
    tmp_path: Path, service_port: str, declared: str
) -> None:
    ports = f"          ports: [{{name: {declared}, containerPort: 9090}}]\n"
    text = reconciler(ports, service_ports=_service_port(service_port, declared))
    assert lint_text(tmp_path, text, RULES) == []


@pytest.mark.parametrize(
    ("app", "port"),
    [
        # a port named only for its app says nothing of its use, `metrics` in it or not
        ("order-metrics", "order-metrics"),
        # another app's name is no owner's
        ("sync", "billing-metrics"),
        # a protocol's word keeps it open, as `http-metrics`: the pod declares it so
        ("sync", "sync-http-metrics"),
        # and is never taken for the app's name
        ("grpc-server", "grpc-metrics"),
    ],
)
def test_a_port_named_for_an_app_and_not_only_its_metrics_serves_clients(
    tmp_path: Path, app: str, port: str
) -> None:
    ports = f"          ports: [{{name: {port}, containerPort: 9090}}]\n"
    text = reconciler(ports, service_ports=_service_port(port, port))
    text = text.replace("name: sync,", f"name: {app},")
    text = text.replace("- name: sync\n", f"- name: {app}\n")
    assert {f.rule for f in lint_text(tmp_path, text, RULES)} == {"KLB302", "KLB401"}


def _ready_on(port: str) -> str:
    """A controller's ports as controller-runtime lays them out: its metrics, over HTTP and
    HTTPS, and its health checks on a port of their own; readiness checks `port`."""
    return (
        "          ports:\n"
        "            - {name: metrics-http, containerPort: 9090}\n"
        "            - {name: metrics-https, containerPort: 9443}\n"
        "            - {name: probes, containerPort: 8081}\n"
        f"          readinessProbe: {{httpGet: {{path: /readyz, port: {port}}}}}\n"
    )


METRICS_OVER_HTTP_AND_HTTPS = _service_port("metrics-http", "metrics-http") + (
    "    - {name: metrics-https, port: 9443, targetPort: metrics-https}\n"
)


def test_a_port_named_for_metrics_over_http_is_scraped_when_readiness_checks_another(
    tmp_path: Path,
) -> None:
    """Readiness says when the pod may take requests: the port it checks is the one they
    come to, and the ports named for metrics beside it are the scraper's."""
    text = reconciler(_ready_on("probes"), service_ports=METRICS_OVER_HTTP_AND_HTTPS)
    assert lint_text(tmp_path, text, RULES) == []


def test_a_port_named_for_metrics_over_http_serves_clients_when_readiness_checks_it(
    tmp_path: Path,
) -> None:
    """Loki's chart serves its API on `http-metrics` and checks readiness there: so does
    any pod whose readiness checks its metrics-named port, or that has no readiness."""
    checked = reconciler(_ready_on("metrics-http"), service_ports=METRICS_OVER_HTTP_AND_HTTPS)
    assert {f.rule for f in lint_text(tmp_path / "a", checked, RULES)} == {"KLB401"}
    unready = _ready_on("probes").split("          readinessProbe")[0]
    text = reconciler(unready, service_ports=METRICS_OVER_HTTP_AND_HTTPS)
    assert {f.rule for f in lint_text(tmp_path / "b", text, RULES)} == {"KLB302", "KLB401"}
