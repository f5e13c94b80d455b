"""KLB401 no-prestop and KLB402 grace-too-short."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.rulekit.examples import DATA_CLAIM, PRESTOP, READY, bare_pod, web_deployment

from .helpers import lint_text, rules_of


def test_serving_container_without_prestop_is_klb401(tmp_path: Path) -> None:
    (finding,) = lint_text(tmp_path, web_deployment(READY), ["KLB401"])
    assert finding.container == "web" and "no preStop hook" in finding.text
    assert finding.related[0].message == "the Service it serves"


def test_klb401_follows_numeric_and_named_target_ports(tmp_path: Path) -> None:
    numeric = web_deployment(READY).replace("targetPort: http", "targetPort: 8080")
    assert len(lint_text(tmp_path / "a", numeric, ["KLB401"])) == 1
    elsewhere = web_deployment(READY).replace("targetPort: http", "targetPort: 9999")
    extra = "        - {name: other, image: y}\n"
    two = elsewhere.replace("      containers:\n", "      containers:\n" + extra)
    assert lint_text(tmp_path / "b", two, ["KLB401"]) == [], "no container takes port 9999"


@pytest.mark.parametrize("unset", ["0", '""', "null"])
def test_a_target_port_of_zero_or_unset_is_the_services_own_port(
    tmp_path: Path, unset: str
) -> None:
    """Kubernetes defaults a targetPort of 0, "" or null to the port (generated charts
    write `targetPort: 0`): the Service sends to the container port of that number."""
    same_port = web_deployment(READY).replace("port: 80", "port: 8080")
    text = same_port.replace("targetPort: http", f"targetPort: {unset}")
    assert f"targetPort: {unset}" in text and "port: 8080" in text
    assert len(lint_text(tmp_path, text, ["KLB401"])) == 1


@pytest.mark.parametrize(
    ("pod_extra", "hook", "reported"),
    [
        ("terminationGracePeriodSeconds: 5", PRESTOP, True),
        ("terminationGracePeriodSeconds: 6", PRESTOP, False),
        ("", 'lifecycle:\n  preStop:\n    exec: {command: ["sleep", "30"]}', True),
        (
            "",
            "lifecycle:\n  preStop:\n    exec:\n"
            '      command: ["/bin/sh", "-c", "sleep 20 && sleep 15"]',
            True,
        ),
        ("", 'lifecycle:\n  preStop:\n    exec: {command: ["/bin/sleep", "1m"]}', True),
        ("", 'lifecycle:\n  preStop:\n    exec: {command: ["sleep", "29"]}', False),
        ("", 'lifecycle:\n  preStop:\n    exec: {command: ["nginx", "-s", "quit"]}', False),
        (
            "terminationGracePeriodSeconds: 1",
            "lifecycle:\n  preStop:\n    httpGet: {path: /drain, port: http}",
            False,
        ),
    ],
    ids=[
        "native-too-short",
        "native-ok",
        "exec-equals-default",
        "exec-summed",
        "minutes",
        "exec-ok",
        "no-sleep",
        "http-hook-unknown",
    ],
)
def test_grace_against_the_prestop_pause(
    tmp_path: Path, pod_extra: str, hook: str, reported: bool
) -> None:
    findings = lint_text(tmp_path, web_deployment(READY + hook, pod_extra), ["KLB402"])
    assert len(findings) == int(reported)


def test_klb402_points_at_the_explicit_grace_or_else_at_the_hook(tmp_path: Path) -> None:
    (explicit,) = lint_text(
        tmp_path / "a", web_deployment(PRESTOP, "terminationGracePeriodSeconds: 5"), ["KLB402"]
    )
    assert (explicit.line, explicit.column) == (13, 38)
    assert (
        explicit.message
        == "Deployment/web: grace period 5 s is not longer than the 5 s preStop pause"
    )
    hook = 'lifecycle:\n  preStop:\n    exec: {command: ["sleep", "45"]}'
    (default,) = lint_text(tmp_path / "b", web_deployment(hook), ["KLB402"])
    assert (default.line, default.column) == (19, 11)
    assert "grace period 30 s (the default)" in default.text


def test_klb402_applies_without_a_service(tmp_path: Path) -> None:
    text = web_deployment(PRESTOP, "terminationGracePeriodSeconds: 2", service=False)
    assert len(lint_text(tmp_path, text, ["KLB402"])) == 1


def _statefulset(replicas: str, policy: str = "") -> str:
    text = web_deployment(READY).replace("kind: Deployment", "kind: StatefulSet", 1)
    text = text.replace("  replicas: 3\n", f"  serviceName: web\n{replicas}{policy}")
    return text


NO_SURGE = "  replicas: 1\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n"
SCALER = (
    "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"
    "spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, "
    "minReplicas: 1, maxReplicas: 5}\n"
)
ONE = "  replicas: 1\n"
RECREATE = "  strategy: {type: Recreate}\n"


def _claim(mode: str) -> str:
    return (
        "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
        f"spec: {{accessModes: [{mode}], resources: {{requests: {{storage: 1Gi}}}}}}\n"
    )


# A Job that fills the claim `data` the Deployment then serves from
LOADER = """\
---
apiVersion: batch/v1
kind: Job
metadata: {name: loader}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: loader, image: registry.example/loader:1.0}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


def _store(replicas: str = ONE, claim: str = "") -> str:
    """web_deployment() keeping its data on claim `data` (`claim`: its manifest, if any)."""
    return web_deployment(READY, DATA_CLAIM).replace("  replicas: 3\n", replicas) + claim


@pytest.mark.parametrize(
    ("text", "lowered"),
    [
        (web_deployment(READY).replace("  replicas: 3\n", ONE + RECREATE), True),
        (web_deployment(READY).replace("  replicas: 3\n", "  replicas: 3\n" + RECREATE), False),
        (bare_pod(READY), True),
        (_statefulset("  replicas: 1\n"), True),
        (_statefulset(""), True),
        (_statefulset("  replicas: 1\n", "  podManagementPolicy: Parallel\n"), True),
        (_statefulset("  replicas: 3\n"), False),
        (web_deployment(READY), False),
        (web_deployment(READY).replace("  replicas: 3\n", NO_SURGE), True),
        (web_deployment(READY).replace("  replicas: 3\n", NO_SURGE.replace("0,", '"25%",')), False),
        (web_deployment(READY).replace("  replicas: 3\n", NO_SURGE) + SCALER, False),
        (
            web_deployment(READY).replace("  replicas: 3\n", "  strategy: {type: Recreate}\n")
            + SCALER,
            False,
        ),
        (
            web_deployment(READY).replace("  replicas: 3\n", NO_SURGE.replace("1\n", "2\n", 1)),
            False,
        ),
        (
            _statefulset("  replicas: 1\n")
            + SCALER.replace("kind: Deployment", "kind: StatefulSet"),
            False,
        ),
        (_store(), True),
        (_store(claim=_claim("ReadWriteOnce")), True),
        (_store(claim=_claim("ReadWriteOncePod")), True),
        (_store(claim=_claim("ReadWriteMany")), False),
        (_store(claim=_claim("ReadOnlyMany")), False),
        (_store("  replicas: 2\n"), False),
        (_store() + SCALER, False),
        (
            web_deployment(
                READY + "volumeMounts: [{name: data, mountPath: /data, readOnly: true}]\n",
                DATA_CLAIM,
            ).replace("  replicas: 3\n", ONE)
            + _claim("ReadWriteOnce"),
            False,
        ),
        (_store(claim=_claim("ReadWriteOnce") + LOADER), False),
        (
            web_deployment(READY, "volumes:\n  - name: data\n    emptyDir: {}\n").replace(
                "  replicas: 3\n", ONE
            ),
            False,
        ),
    ],
    ids=[
        "one-replica-recreate",
        "recreate-above-one-replica",
        "bare-pod",
        "one-replica-sts",
        "default-replicas-sts",
        "parallel-sts",
        "three-sts",
        "rolling",
        "one-replica-no-surge",
        "one-replica-surge",
        "no-surge-but-autoscaled",
        "recreate-but-autoscaled",
        "two-replicas-no-surge",
        "one-replica-sts-autoscaled",
        "one-replica-store-claim-unseen",
        "one-replica-store-rwo",
        "one-replica-store-rwop",
        "one-replica-shared-rwx-claim",
        "one-replica-read-only-claim",
        "two-replica-store",
        "one-replica-store-autoscaled",
        "one-replica-rwo-claim-mounted-read-only",
        "one-replica-rwo-claim-another-workload-mounts",
        "one-replica-emptydir",
    ],
)
def test_no_prestop_is_info_where_old_and_new_pods_never_overlap(
    tmp_path: Path, text: str, lowered: bool
) -> None:
    (finding,) = lint_text(tmp_path, text, ["KLB401"])
    assert (finding.severity is Severity.INFO) is lowered
    assert ("so a pause only delays the outage" in finding.text) is lowered
    unready = text.replace("readinessProbe:", "livenessProbe:")
    (readiness,) = lint_text(tmp_path, unready, ["KLB302"])
    assert (readiness.severity is Severity.INFO) is lowered  # the same policy for both


def test_a_one_replica_store_says_it_keeps_its_data_and_what_k8slb_did_not_see(
    tmp_path: Path,
) -> None:
    (finding,) = lint_text(tmp_path, _store(), ["KLB401"])
    assert "one replica that keeps its data (PersistentVolumeClaim data;" in finding.text
    assert "no other pod takes its traffic while it stops" in finding.text
    assert "not among the files read, so its access mode is taken as ReadWriteOnce" in finding.text
    (seen,) = lint_text(tmp_path / "seen", _store(claim=_claim("ReadWriteOnce")), ["KLB401"])
    assert "(PersistentVolumeClaim data, ReadWriteOnce)" in seen.text


def test_a_metrics_only_service_makes_no_container_serving_unless_another_selects_too(
    tmp_path: Path,
) -> None:
    metrics = web_deployment("").replace(
        "    - name: http\n      port: 80", "    - name: metrics\n      port: 80"
    )
    assert lint_text(tmp_path / "a", metrics, ["KLB302", "KLB401"]) == []
    api = (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: api}\n"
        "spec: {selector: {app: web}, ports: [{name: http, port: 8080, targetPort: http}]}\n"
    )
    both = lint_text(tmp_path / "b", metrics + api, ["KLB302", "KLB401"])
    assert {f.severity for f in both} == {Severity.WARNING}
    assert all("it serves Service api" in f.text for f in both), "not the metrics Service"


MONITOR = """\
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {team: web}}
  endpoints: [{port: stats}]
"""


def test_a_service_a_servicemonitor_scrapes_on_every_port_carries_no_clients(
    tmp_path: Path,
) -> None:
    scraped = (
        web_deployment("")
        .replace("    - name: http\n      port: 80", "    - name: stats\n      port: 80")
        .replace(
            "kind: Service\nmetadata:\n  name: web\n",
            "kind: Service\nmetadata:\n  name: web\n  labels: {team: web}\n",
        )
    )
    assert {f.severity for f in lint_text(tmp_path / "a", scraped, ["KLB302", "KLB401"])} == {
        Severity.WARNING
    }, "`stats` is no metrics name by itself"
    assert {
        f.severity
        for f in lint_text(tmp_path / "b", scraped + MONITOR.replace("stats", "other"), ["KLB401"])
    } == {Severity.WARNING}
    assert lint_text(tmp_path / "c", scraped + MONITOR, ["KLB302", "KLB401"]) == []


@pytest.mark.parametrize(
    ("name", "serving"),
    [
        ("pprof", False),
        ("profiling", False),
        ("prom-metrics", False),
        ("metrics-port", False),
        ("monitoring", False),
        ("metrics-debug", False),
        ("debug", False),
        ("prometheus-12020", False),
        ("metrics-9090", False),
        ("http-metrics", True),
        ("tcp-prometheus-servicemonitor", False),
        ("http-prom", False),
        ("scrape-podmonitor", False),
        ("tcp-metrics", True),
        ("tcp", True),
        ("http-8080", True),
        ("grpc-10200", True),
        ("port", True),
    ],
)
def test_a_service_whose_ports_are_named_for_scrapes_or_profiling_carries_no_clients(
    tmp_path: Path, name: str, serving: bool
) -> None:
    """A port named only with scrape and profiling words is not called, its number beside
    them left out (`prometheus-12020`); `http-metrics` is the whole HTTP API of several
    charts, and stays a client port."""
    text = web_deployment("").replace(
        "    - name: http\n      port: 80", f"    - name: {name}\n      port: 80"
    )
    assert bool(lint_text(tmp_path, text, ["KLB302", "KLB401"])) is serving


SIDECAR = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: sales}
spec:
  replicas: 2
  selector: {matchLabels: {app: sales}}
  template:
    metadata: {labels: {app: sales}}
    spec:
      containers:
        - name: sales
          image: registry.example/sales:1.0
          ports: [{name: sales, containerPort: 3000}]
        - name: exporter
          image: registry.example/exporter:1.0
          ports:
            - {name: metrics, containerPort: 4000}
            - {name: metrics-debug, containerPort: 4010}
            - {name: metrics-prom, containerPort: 4020}
---
apiVersion: v1
kind: Service
metadata: {name: sales-service}
spec:
  selector: {app: sales}
  ports:
    - {name: sales, port: 3000, targetPort: sales}
    - {name: metrics, port: 4000, targetPort: metrics}
    - {name: metrics-debug, port: 4010, targetPort: metrics-debug}
    - {name: prometheus, port: 4020, targetPort: metrics-prom}
"""
SCRAPE_CONFIG = """\
---
apiVersion: v1
kind: ConfigMap
metadata: {name: prometheus}
data:
  prometheus.yml: |
    scrape_configs:
      - job_name: sales
        static_configs:
          - targets: ["sales-service.default.svc:4020"]
"""


def test_a_sidecar_reached_only_on_scrape_ports_of_a_client_service_is_not_serving(
    tmp_path: Path,
) -> None:
    """The Service carries clients to `sales`; the exporter beside it is reached only on
    ports named for scrapes and profiling, and Prometheus's own configuration naming one
    is a scrape, not a caller."""
    found = lint_text(tmp_path / "a", SIDECAR + SCRAPE_CONFIG, ["KLB302", "KLB401"])
    assert {f.text.split("'")[1] for f in found} == {"sales"}
    called = SIDECAR + (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: dashboards}\n"
        "data:\n  datasource.yaml: 'url: http://sales-service:4020'\n"
    )
    found = lint_text(tmp_path / "b", called, ["KLB401"])
    assert {f.text.split("'")[1] for f in found} == {"sales", "exporter"}, "a caller's URL"


PROMETHEUS_SERVER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: prometheus, namespace: ops}
spec:
  replicas: 2
  selector: {matchLabels: {app: prometheus}}
  template:
    metadata: {labels: {app: prometheus}}
    spec:
      containers:
        - name: prometheus
          image: prom/prometheus:v2.44.0
          ports: [{name: web, containerPort: 9090}]
---
apiVersion: v1
kind: Service
metadata: {name: prometheus, namespace: ops}
spec:
  selector: {app: prometheus}
  ports: [{name: prometheus, port: 9090, targetPort: web}]
"""
INGRESS = """\
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: prometheus, namespace: ops}
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: prometheus, port: {number: 9090}}}
"""
GRAFANA = """\
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: grafana, namespace: ops}
spec:
  selector: {matchLabels: {app: grafana}}
  template:
    metadata: {labels: {app: grafana}}
    spec:
      containers:
        - name: grafana
          image: grafana/grafana:10.0.0
          env: [{name: PROMETHEUS_URL, value: "http://prometheus.ops.svc.cluster.local:9090"}]
"""


@pytest.mark.parametrize(("caller", "serving"), [("", False), (INGRESS, True), (GRAFANA, True)])
def test_a_service_named_for_scrapes_that_a_caller_reaches_carries_clients(
    tmp_path: Path, caller: str, serving: bool
) -> None:
    """A Prometheus server behind a port named `prometheus`: no caller, no client traffic;
    an Ingress routing to it, or a client's URL naming it with its port, wins over the
    port's name."""
    found = lint_text(tmp_path, PROMETHEUS_SERVER + caller, ["KLB302", "KLB401"])
    assert bool(found) is serving
    if serving:
        assert {f.severity for f in found} == {Severity.WARNING}


# The app is reached through its Envoy sidecar; the Service reaches the app container
# only on its metrics port, and the Ingress names the Service's traffic port.
BEHIND_ENVOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: quotes}
spec:
  replicas: 2
  selector: {matchLabels: {app: quotes}}
  template:
    metadata: {labels: {app: quotes}}
    spec:
      containers:
        - name: quotes
          image: registry.example/quotes:2.1
          ports: [{name: rpc, containerPort: 7070}, {name: metrics, containerPort: 7071}]
          readinessProbe: {grpc: {port: 7070}}
        - name: envoy
          image: envoyproxy/envoy:v1.30.1
          ports: [{name: edge, containerPort: 8443}]
          readinessProbe: {httpGet: {path: /ready, port: 8443}}
          lifecycle: {preStop: {exec: {command: [sleep, "10"]}}}
---
apiVersion: v1
kind: Service
metadata: {name: quotes}
spec:
  selector: {app: quotes}
  ports:
    - {name: edge, port: 443, targetPort: 8443}
    - {name: metrics, port: 7071}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: quotes}
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: quotes, port: {PORT}}}
"""


@pytest.mark.parametrize(
    ("port", "serving"),
    [("number: 443", False), ("name: edge", False), ("number: 7071", True)],
)
def test_an_ingress_sends_only_to_the_service_port_it_names(
    tmp_path: Path, port: str, serving: bool
) -> None:
    """An Ingress that names the Service's traffic port calls that port, not the metrics
    port beside it: the app container reached only there serves no client (its sidecar
    takes the traffic); one that names the metrics port calls it."""
    text = BEHIND_ENVOY.replace("{PORT}", "{" + port + "}")
    found = lint_text(tmp_path, text, ["KLB401"])
    assert ("quotes" in {f.text.split("'")[1] for f in found}) is serving


POD_MONITOR = """\
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  podMetricsEndpoints: [{port: http}]
"""


def test_a_service_whose_every_port_a_podmonitor_scrapes_carries_no_clients(
    tmp_path: Path,
) -> None:
    """The PodMonitor scrapes the container port the Service targets, on every pod the
    Service selects: the Service is the scrape's, not a client's."""
    text = web_deployment("")
    assert lint_text(tmp_path / "a", text + POD_MONITOR, ["KLB302", "KLB401"]) == []
    elsewhere = POD_MONITOR.replace("port: http", "port: stats")
    assert len(lint_text(tmp_path / "b", text + elsewhere, ["KLB302", "KLB401"])) == 2
    other_pods = POD_MONITOR.replace("app: web", "app: other")
    assert len(lint_text(tmp_path / "c", text + other_pods, ["KLB302", "KLB401"])) == 2


# A Prometheus server's configuration: what `scrape_configs` names is scraped, what
# `alerting` names (its Alertmanagers) is called.
PROMETHEUS_CONFIG = """\
---
apiVersion: v1
kind: ConfigMap
metadata: {name: prometheus-config}
data:
  prometheus.yml: |
    global:
      scrape_interval: 15s
    scrape_configs:
    - job_name: web
      static_configs:
      - targets: ["TARGET"]
    alerting:
      alertmanagers:
      - static_configs:
        - targets: ["ALERTED"]
"""


@pytest.mark.parametrize(
    ("scraped", "alerted", "serving"),
    [
        ("web:80", "alertmanager:9093", False),
        ("web.default.svc.cluster.local:80", "alertmanager:9093", False),
        ("web:8080", "alertmanager:9093", True),  # not the Service's port
        ("other:80", "alertmanager:9093", True),
        ("other:80", "web:80", True),  # Prometheus sends it alerts: a client
    ],
)
def test_a_service_a_prometheus_configuration_only_scrapes_carries_no_clients(
    tmp_path: Path, scraped: str, alerted: str, serving: bool
) -> None:
    """A worker whose one Service port is its metrics server, named `http`, which only a
    scrape job of a Prometheus the repository configures names: no client calls it."""
    config = PROMETHEUS_CONFIG.replace("TARGET", scraped).replace("ALERTED", alerted)
    found = lint_text(tmp_path, web_deployment("") + config, ["KLB302", "KLB401"])
    assert bool(found) is serving


def test_a_scraped_service_a_caller_also_names_carries_clients(tmp_path: Path) -> None:
    config = PROMETHEUS_CONFIG.replace("TARGET", "web:80").replace("ALERTED", "am:9093")
    caller = GRAFANA.replace("prometheus.ops.svc.cluster.local:9090", "web:80")
    caller = caller.replace("namespace: ops", "namespace: default")
    found = lint_text(tmp_path, web_deployment("") + config + caller, ["KLB302", "KLB401"])
    assert {(f.rule, f.severity) for f in found} == {
        ("KLB302", Severity.WARNING),
        ("KLB401", Severity.WARNING),
    }


@pytest.mark.parametrize(
    "peer",
    [
        "    - name: tcp-gossip-ring\n      port: 80",
        "    - name: memberlist\n      port: 80",
        "    - name: raft\n      port: 80\n    - name: metrics\n      port: 9090",
        "    - name: http\n      port: 80\n  clusterIP: None\n  publishNotReadyAddresses: true",
    ],
    ids=["gossip-ring", "memberlist", "raft-and-metrics", "publishes-not-ready"],
)
def test_a_peer_discovery_service_makes_no_container_serving(tmp_path: Path, peer: str) -> None:
    """A ring or consensus group finds its members through such a Service: no client
    calls the pods through it, so neither a readiness probe nor a pause changes a thing."""
    text = web_deployment("").replace(
        "    - name: http\n      port: 80\n      targetPort: http", peer
    )
    assert lint_text(tmp_path, text) == [], "read whole, and judged no serving container"


def test_a_service_with_a_client_port_beside_its_gossip_port_carries_clients(
    tmp_path: Path,
) -> None:
    text = web_deployment("").replace(
        "    - name: http\n      port: 80",
        "    - name: http\n      port: 80\n    - name: memberlist\n      port: 7946",
    )
    assert rules_of(lint_text(tmp_path, text, ["KLB302", "KLB401"])) == ["KLB302", "KLB401"]


def test_a_service_is_known_for_peers_by_the_container_port_it_targets_or_its_name(
    tmp_path: Path,
) -> None:
    ring = web_deployment("").replace("- name: http\n", "- name: http-memberlist\n", 1)
    by_target = ring.replace("      targetPort: http", "      targetPort: http-memberlist")
    assert lint_text(tmp_path / "a", by_target, ["KLB302", "KLB401"]) == []
    by_name = web_deployment("").replace(
        "kind: Service\nmetadata:\n  name: web", "kind: Service\nmetadata:\n  name: web-discovery"
    )
    assert lint_text(tmp_path / "b", by_name, ["KLB302", "KLB401"]) == []
    control = web_deployment("")
    assert rules_of(lint_text(tmp_path / "c", control, ["KLB302", "KLB401"])) == [
        "KLB302",
        "KLB401",
    ]


REGISTRY_CLIENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: registry.example/orders:1.0
          env:
            - name: REGISTRY_URL
              value: http://SERVICE:80/registry/
"""


def _registry(service: str, client: bool) -> str:
    """The web Deployment under a Service of another name, and a client naming it."""
    text = web_deployment("").replace(
        "kind: Service\nmetadata:\n  name: web", f"kind: Service\nmetadata:\n  name: {service}"
    )
    return text + (REGISTRY_CLIENT.replace("SERVICE", service) if client else "")


@pytest.mark.parametrize("client", [False, True], ids=["no-caller", "named-by-a-caller"])
def test_a_registry_server_named_for_discovery_carries_clients(
    tmp_path: Path, client: bool
) -> None:
    """`discovery-server`, `service-discovery`: a registry's server its clients call through
    the ClusterIP (their registry URL names it), not a Service of the pods' own discovery,
    which the word only says as the suffix of a workload it selects."""
    for name in ("discovery-server", "service-discovery"):
        found = lint_text(tmp_path / f"{name}-{client}", _registry(name, client), ["KLB401"])
        assert [(f.rule, f.severity) for f in found] == [("KLB401", Severity.WARNING)], name


def test_a_caller_naming_a_workloads_discovery_service_makes_it_carry_clients(
    tmp_path: Path,
) -> None:
    """`web-discovery` selects `web`: peers by its name, unless a caller names it with its
    port; a headless one is peers' whatever its words."""
    assert lint_text(tmp_path / "a", _registry("web-discovery", False), ["KLB401"]) == []
    (called,) = lint_text(tmp_path / "b", _registry("web-discovery", True), ["KLB401"])
    assert called.severity is Severity.WARNING
    headless = _registry("discovery-web", False).replace(
        "spec:\n  selector:\n    app: web", "spec:\n  clusterIP: None\n  selector:\n    app: web"
    )
    assert "clusterIP: None" in headless
    found = lint_text(tmp_path / "c", headless, ["KLB401"])
    assert found == [] or found[0].severity is Severity.INFO


def test_no_prestop_is_info_when_only_headless_services_select_the_pod(tmp_path: Path) -> None:
    headless = web_deployment(READY).replace(
        "spec:\n  selector:\n    app: web", "spec:\n  clusterIP: None\n  selector:\n    app: web"
    )
    assert "clusterIP: None" in headless
    (finding,) = lint_text(tmp_path, headless, ["KLB401"])
    assert finding.severity is Severity.INFO
    assert "find the pods through DNS (headless Service web)" in finding.text


@pytest.mark.parametrize(
    "route",
    [
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n"
        "spec: {rules: [{http: {paths: [{path: /, pathType: Prefix, "
        "backend: {service: {name: web, port: {number: 80}}}}]}}]}\n",
        "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: web}\n"
        "spec: {routes: [{match: PathPrefix(`/`), kind: Rule,\n"
        "  services: [{name: web, port: 80}]}]}\n",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web}\n"
        "spec: {rules: [{backendRefs: [{name: web, port: 80}]}]}\n",
    ],
    ids=["ingress", "traefik", "httproute"],
)
def test_a_headless_service_that_an_l7_router_sends_requests_to_keeps_the_warning(
    tmp_path: Path, route: str
) -> None:
    """The router sends each request to one of the Service's pods and drops a pod when it
    starts terminating: the pause is for the router, whatever DNS clients do."""
    headless = web_deployment(READY).replace(
        "spec:\n  selector:\n    app: web", "spec:\n  clusterIP: None\n  selector:\n    app: web"
    )
    (finding,) = lint_text(tmp_path, headless + "---\n" + route, ["KLB401"])
    assert finding.severity is Severity.WARNING


def test_no_prestop_is_info_for_a_component_its_callers_reach_through_a_ring(
    tmp_path: Path,
) -> None:
    """Tempo's ingesters are found through the hash ring, by pod address (a table of
    well-known components says so, with its source); a distributor is called through its
    Service."""
    ingester = web_deployment(READY).replace(
        "image: registry.example/web:1.0",
        "image: grafana/tempo:2.6.0\n          args: [-target=ingester]",
    )
    (finding,) = lint_text(tmp_path / "a", ingester, ["KLB401"])
    assert finding.severity is Severity.INFO
    assert "reach ingesters through the hash ring" in finding.text
    distributor = ingester.replace("-target=ingester", "-target=distributor")
    assert lint_text(tmp_path / "b", distributor, ["KLB401"])[0].severity is Severity.WARNING


def test_a_clusterip_that_publishes_not_ready_pods_still_carries_clients(
    tmp_path: Path,
) -> None:
    """Loki's query-frontend Service publishes not-ready pods for its queriers, and the
    gateway still calls through it."""
    text = web_deployment("").replace(
        "      targetPort: http\n",
        "      targetPort: http\n  publishNotReadyAddresses: true\n",
    )
    assert rules_of(lint_text(tmp_path, text, ["KLB302", "KLB401"])) == ["KLB302", "KLB401"]


WEBHOOK_MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: manager, namespace: sys}
spec:
  replicas: 2
  selector: {matchLabels: {app: manager}}
  template:
    metadata: {labels: {app: manager}}
    spec:
      containers:
        - name: manager
          image: registry.example/manager:1.0
          ports:
            - {name: metrics, containerPort: 8443}
            - {name: webhook, containerPort: 9443}
---
apiVersion: v1
kind: Service
metadata: {name: manager-metrics-service, namespace: sys}
spec:
  selector: {app: manager}
  ports: [{name: https, port: 8443, targetPort: metrics}]
---
apiVersion: v1
kind: Service
metadata: {name: manager-webhook-service, namespace: sys}
spec:
  selector: {app: manager}
  ports: [{port: 443, targetPort: webhook}]
"""
VALIDATING = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: manager-validating}
webhooks:
  - name: v.example.io
    clientConfig:
      service: {name: manager-webhook-service, namespace: sys, path: /validate}
    failurePolicy: Fail
    sideEffects: None
    admissionReviewVersions: [v1]
"""
API_SERVICE = """\
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.example.io}
spec:
  group: example.io
  version: v1
  service: {name: manager-metrics-service, namespace: sys}
"""


@pytest.mark.parametrize(
    ("callers", "named", "caller"),
    [
        ("", "manager-webhook-service", None),  # not the one named for metrics
        (
            VALIDATING,
            "manager-webhook-service",
            "ValidatingWebhookConfiguration/manager-validating",
        ),
        (API_SERVICE, "manager-metrics-service", "APIService/v1.example.io"),
        (
            API_SERVICE + VALIDATING,
            "manager-webhook-service",
            "ValidatingWebhookConfiguration/manager-validating",
        ),
    ],
    ids=["no-caller-seen", "webhook", "apiservice", "webhook-before-apiservice"],
)
def test_the_service_named_is_the_one_the_api_server_calls(
    tmp_path: Path, callers: str, named: str, caller: str | None
) -> None:
    """Of the Services that select the pod, KLB401 and KLB302 name the one the API server
    calls (an admission webhook's before an aggregated API's), and say so; with none, one
    not named for metrics."""
    for rule in ("KLB401", "KLB302"):
        (finding,) = lint_text(tmp_path / rule, WEBHOOK_MANAGER + callers, [rule])
        assert f"it serves Service {named}" in finding.text
        if caller is not None:
            assert f"(the API server calls it for {caller})" in finding.text
        else:
            assert "the API server calls it" not in finding.text


# web_deployment() as a one-replica database: its pod serves PostgreSQL's port and keeps
# its data in a volume of its own; the Deployment's rollout surges a second pod.
SCRATCH = "volumes:\n  - name: data\n    emptyDir: {}\n"
STORE_MOUNT = "volumeMounts:\n  - {name: data, mountPath: /var/lib/postgresql}\n"


def one_replica(manifest: str, strategy: str = "") -> str:
    return manifest.replace("  replicas: 3\n", "  replicas: 1\n" + strategy)


def test_a_one_replica_store_that_a_rollout_surges_is_told_to_use_recreate(
    tmp_path: Path,
) -> None:
    database = one_replica(web_deployment(READY + STORE_MOUNT, SCRATCH)).replace("8080", "5432")
    (finding,) = lint_text(tmp_path, database, ["KLB401"])
    assert finding.severity is Severity.WARNING
    assert (
        "it is also a store (port 5432, IANA's postgresql; its data in /var/lib/postgresql, "
        "lost with the pod) whose one replica a rollout surges"
    ) in finding.text
    assert "set strategy Recreate" in finding.text and finding.edits != ()
    # the Service's port name says so as well, on any number
    named = one_replica(web_deployment(READY)).replace("- name: http", "- name: mongodb")
    named = named.replace("port: http", "port: mongodb").replace("Port: http", "Port: mongodb")
    (by_name,) = lint_text(tmp_path / "named", named, ["KLB401"])
    assert "it is also a store (Service web's port named mongodb)" in by_name.text


@pytest.mark.parametrize(
    ("replicas", "strategy"),
    [("1", "  strategy: {type: Recreate}\n"), ("3", "")],
    ids=["recreate", "three-replicas"],
)
def test_a_store_whose_rollout_surges_no_second_copy_of_one_pod_is_not_told_so(
    tmp_path: Path, replicas: str, strategy: str
) -> None:
    manifest = web_deployment(READY).replace("8080", "5432")
    manifest = manifest.replace("  replicas: 3\n", f"  replicas: {replicas}\n{strategy}")
    (finding,) = lint_text(tmp_path, manifest, ["KLB401"])
    assert "it is also a store" not in finding.text


def test_a_one_replica_server_with_scratch_space_is_no_store(tmp_path: Path) -> None:
    scratch = "volumeMounts:\n  - {name: data, mountPath: /tmp}\n"
    (finding,) = lint_text(
        tmp_path, one_replica(web_deployment(READY + scratch, SCRATCH)), ["KLB401"]
    )
    assert finding.severity is Severity.WARNING and "store" not in finding.text


HPA = """\
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
"""


@pytest.mark.parametrize(
    ("replicas", "extra", "reported"),
    [
        ("0", "", False),  # no pod runs: nothing stops, nothing is sent traffic
        ("0", HPA, True),  # an autoscaler gives it pods
        ("1", "", True),
    ],
    ids=["zero", "zero-autoscaled", "one"],
)
def test_a_workload_of_zero_replicas_runs_no_pod_to_drain_or_gate(
    tmp_path: Path, replicas: str, extra: str, reported: bool
) -> None:
    """A workload that writes `replicas: 0` (a chart's component turned off by its count)
    runs no pod: neither KLB401 nor KLB302 judges it, unless an autoscaler targets it."""
    text = web_deployment("").replace("  replicas: 3\n", f"  replicas: {replicas}\n") + extra
    assert f"replicas: {replicas}\n" in text
    found = lint_text(tmp_path, text, ["KLB401", "KLB302"])
    assert sorted(rules_of(found)) == (["KLB302", "KLB401"] if reported else [])
