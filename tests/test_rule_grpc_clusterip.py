"""KLB101 grpc-clusterip and KLB107 headless-under-linkerd."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HEADLESS_TWIN, HPA

from .helpers import lint_files, lint_text


def klb101(tmp_path: Path, text: str, **kwargs: str) -> list[Finding]:
    return lint_text(tmp_path, text, ["KLB101"], **kwargs)


PLAIN_SERVICE = GRPC_SERVICE.replace("name: grpc", "name: api").replace("port: 50051", "port: 80")
PLAIN_BACKEND = BACKEND.replace("name: grpc", "name: api").replace(
    "containerPort: 50051", "containerPort: 8080"
)


@pytest.mark.parametrize(
    ("service", "backend", "reason"),
    [
        (GRPC_SERVICE, BACKEND, "port name 'grpc'"),
        (
            PLAIN_SERVICE.replace("name: api", "name: api\n      appProtocol: kubernetes.io/h2c"),
            PLAIN_BACKEND,
            "appProtocol kubernetes.io/h2c",
        ),
        (
            PLAIN_SERVICE.replace("name: api", "name: http2-web"),
            PLAIN_BACKEND,
            "port name 'http2-web'",
        ),
        (
            PLAIN_SERVICE.replace("name: api", "name: api-grpc"),
            PLAIN_BACKEND,
            "port name 'api-grpc'",
        ),
        (PLAIN_SERVICE, PLAIN_BACKEND, None),
        (
            PLAIN_SERVICE.replace("port: 80", "port: 80\n      targetPort: 8080"),
            PLAIN_BACKEND + "          readinessProbe: {grpc: {port: 8080}}\n",
            "a gRPC readinessProbe of port 8080 on container 'server'",
        ),
        (
            PLAIN_SERVICE.replace("port: 80", "port: 80\n      targetPort: 8080"),
            PLAIN_BACKEND
            + "          livenessProbe:\n"
            + '            exec: {command: ["/bin/grpc_health_probe", "-addr=:8080"]}\n',
            "a grpc_health_probe livenessProbe of port 8080",
        ),
        (PLAIN_SERVICE.replace("port: 80", "port: 50051"), PLAIN_BACKEND, "port 50051"),
    ],
    ids=[
        "port-name",
        "appProtocol",
        "istio-prefix",
        "suffix",
        "no-evidence",
        "grpc-probe",
        "grpc-health-probe",
        "port-50051",
    ],
)
def test_grpc_evidence(tmp_path: Path, service: str, backend: str, reason: str | None) -> None:
    findings = klb101(tmp_path, service + backend)
    if reason is None:
        assert findings == []
    else:
        (finding,) = findings
        assert reason in finding.text


@pytest.mark.parametrize(
    ("declared", "protocol"),
    [
        ("name: http2", "HTTP/2 (port name 'http2')"),
        ("name: h2c-api", "HTTP/2 (port name 'h2c-api')"),
        (
            "name: api\n      appProtocol: kubernetes.io/h2c",
            "HTTP/2 (appProtocol kubernetes.io/h2c)",
        ),
        ("name: grpc-api", "gRPC (port name 'grpc-api')"),
    ],
    ids=["http2", "h2c", "app-protocol-h2c", "grpc"],
)
def test_a_port_declared_http2_is_said_to_carry_http2_not_grpc(
    tmp_path: Path, declared: str, protocol: str
) -> None:
    # an `http2` port may carry any HTTP/2 protocol: what the name declares is said
    (finding,) = klb101(tmp_path, PLAIN_SERVICE.replace("name: api", declared) + PLAIN_BACKEND)
    assert finding.message == f"Service/backend carries {protocol} on a ClusterIP"
    assert finding.severity is Severity.WARNING


def test_a_named_container_port_is_evidence(tmp_path: Path) -> None:
    service = PLAIN_SERVICE.replace("port: 80", "port: 80\n      targetPort: rpc")
    backend = PLAIN_BACKEND.replace("            - name: api\n", "            - name: rpc\n")
    assert klb101(tmp_path / "a", service + backend) == [], "a name that says nothing"
    grpc_named = PLAIN_BACKEND.replace("            - name: api\n", "            - name: grpc\n")
    (finding,) = klb101(
        tmp_path / "b", service.replace("targetPort: rpc", "targetPort: grpc") + grpc_named
    )
    assert "container port 'grpc' of Deployment/backend" in finding.text


def test_numeric_target_port_reaches_the_named_grpc_container_port(tmp_path: Path) -> None:
    service = PLAIN_SERVICE.replace("port: 80", "port: 80\n      targetPort: 9000")
    backend = BACKEND.replace("containerPort: 50051", "containerPort: 9000")
    (finding,) = klb101(tmp_path, service + backend)
    assert "container port 'grpc'" in finding.text


def test_names_the_hpa_or_the_replica_count(tmp_path: Path) -> None:
    (with_hpa,) = klb101(tmp_path / "a", GRPC_SERVICE + BACKEND + HPA)
    assert (
        "HorizontalPodAutoscaler/backend scales Deployment/backend up to 10 replicas"
        in with_hpa.text
    )
    (plain,) = klb101(tmp_path / "b", GRPC_SERVICE + BACKEND)
    assert "Deployment/backend runs 3 replicas" in plain.text
    keda = (
        "---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: q}\n"
        "spec:\n  scaleTargetRef: {name: backend}\n  maxReplicaCount: 40\n"
    )
    (scaled,) = klb101(tmp_path / "c", GRPC_SERVICE + BACKEND + keda)
    assert "ScaledObject/q scales Deployment/backend up to 40 replicas" in scaled.text


def test_a_service_selecting_two_deployments_names_both(tmp_path: Path) -> None:
    canary = BACKEND.replace("name: backend\n", "name: backend-canary\n", 1)
    (finding,) = klb101(tmp_path, GRPC_SERVICE + BACKEND + canary)
    related = {r.message for r in finding.related}
    assert {"selects Deployment/backend", "selects Deployment/backend-canary"} <= related


def test_a_headless_twin_lowers_it_to_info_and_names_the_twin(tmp_path: Path) -> None:
    (finding,) = klb101(tmp_path, GRPC_SERVICE + BACKEND + HEADLESS_TWIN)
    assert finding.severity is Severity.INFO
    assert "which has a headless twin" in finding.text
    assert "dial dns:///backend-headless:50051 with round_robin" in finding.text


def test_the_headless_service_itself_is_not_reported(tmp_path: Path) -> None:
    assert klb101(tmp_path, HEADLESS_TWIN.lstrip("-\n") + BACKEND) == []


@pytest.mark.parametrize(
    "meshing",
    [
        ("      annotations: {sidecar.istio.io/inject: 'true'}", ""),
        ("      labels: {app: backend, sidecar.istio.io/inject: 'true'}", ""),
        ("      annotations: {linkerd.io/inject: enabled}", ""),
        (
            "",
            "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n"
            "  labels: {istio-injection: enabled}\n",
        ),
    ],
    ids=["istio-annotation", "istio-label", "linkerd", "injected-namespace"],
)
def test_meshed_workloads_are_not_reported(tmp_path: Path, meshing: tuple[str, str]) -> None:
    pod_line, namespace = meshing
    backend = BACKEND
    if namespace:
        service = GRPC_SERVICE.replace(
            "  name: backend\n", "  name: backend\n  namespace: default\n"
        )
        backend = BACKEND.replace("  name: backend\n", "  name: backend\n  namespace: default\n")
    else:
        service = GRPC_SERVICE
        if "labels" in pod_line:
            backend = BACKEND.replace("      labels: {app: backend}", pod_line)
        else:
            backend = BACKEND.replace(
                "      labels: {app: backend}", "      labels: {app: backend}\n" + pod_line
            )
    assert klb101(tmp_path, service + backend + namespace) == []


def test_a_meshed_namespace_that_was_not_scanned_does_not_count(tmp_path: Path) -> None:
    backend = BACKEND.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    service = GRPC_SERVICE.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    assert len(klb101(tmp_path, service + backend)) == 1


def test_externalname_and_knative_services_are_not_core_clusterip(tmp_path: Path) -> None:
    external = GRPC_SERVICE.replace(
        "spec:\n", "spec:\n  type: ExternalName\n  externalName: x.example\n"
    )
    assert klb101(tmp_path / "a", external + BACKEND) == []
    knative = GRPC_SERVICE.replace("apiVersion: v1", "apiVersion: serving.knative.dev/v1")
    assert klb101(tmp_path / "b", knative + BACKEND) == []


def test_loadbalancer_services_are_clusterip_too_and_the_finding_points_at_type(
    tmp_path: Path,
) -> None:
    lb = GRPC_SERVICE.replace("spec:\n", "spec:\n  type: LoadBalancer\n")
    (finding,) = klb101(tmp_path, lb + BACKEND)
    assert (finding.line, finding.column) == (6, 9)


def test_a_selectorless_grpc_service_is_still_reported(tmp_path: Path) -> None:
    manual = GRPC_SERVICE.replace("  selector:\n    app: backend\n", "")
    (finding,) = klb101(tmp_path, manual)
    assert "scales" not in finding.text


def test_headless_grpc_under_linkerd_is_klb107(tmp_path: Path) -> None:
    headless = GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
    meshed = BACKEND.replace(
        "      labels: {app: backend}",
        "      labels: {app: backend}\n      annotations: {linkerd.io/inject: enabled}",
    )
    (finding,) = lint_text(tmp_path / "a", headless + meshed, ["KLB107"])
    assert (finding.line, finding.column) == (6, 14)
    assert lint_text(tmp_path / "b", headless + BACKEND, ["KLB107"]) == []
    assert len(lint_text(tmp_path / "c", headless + BACKEND, ["KLB107"], mesh="linkerd")) == 1


def test_the_strongest_evidence_is_quoted_whatever_the_port_order(tmp_path: Path) -> None:
    service = GRPC_SERVICE.replace(
        "    - name: grpc\n      port: 50051\n",
        "    - name: grpc\n      port: 50051\n"
        "    - name: web\n      port: 8081\n      appProtocol: kubernetes.io/h2c\n",
    )
    (finding,) = klb101(tmp_path, service + BACKEND)
    assert "(appProtocol kubernetes.io/h2c)" in finding.text


def test_a_headless_service_for_another_port_is_no_twin(tmp_path: Path) -> None:
    metrics_only = HEADLESS_TWIN.replace(
        "name: grpc\n      port: 50051", "name: metrics\n      port: 9090"
    )
    (finding,) = klb101(tmp_path / "a", GRPC_SERVICE + BACKEND + metrics_only)
    assert finding.severity is Severity.WARNING and "twin" not in finding.text.split(":")[0]
    by_target = HEADLESS_TWIN.replace("port: 50051", "port: 80\n      targetPort: 50051")
    (twin,) = klb101(tmp_path / "b", GRPC_SERVICE + BACKEND + by_target)
    assert twin.severity is Severity.INFO, "the same target port is the same pods' gRPC port"


@pytest.mark.parametrize("kind", ["LoadBalancer", "NodePort"])
def test_an_external_service_names_its_type_and_the_remedy_that_fits(
    tmp_path: Path, kind: str
) -> None:
    service = GRPC_SERVICE.replace("spec:\n", f"spec:\n  type: {kind}\n")
    (finding,) = klb101(tmp_path, service + BACKEND + HPA)
    assert f"on a {kind}" in finding.text
    assert "clients outside the cluster cannot use a headless twin" in finding.text
    assert "Ingress or Gateway with a gRPC backend" in finding.text


@pytest.mark.parametrize(
    ("annotation", "meshed"),
    [
        ("inject.istio.io/templates: grpc-agent", True),
        ("inject.istio.io/templates: sidecar", True),
        ('sidecar.istio.io/inject: "false"', False),
    ],
)
def test_istio_injection_templates_count_as_a_mesh(
    tmp_path: Path, annotation: str, meshed: bool
) -> None:
    backend = BACKEND.replace(
        "      labels: {app: backend}",
        f"      labels: {{app: backend}}\n      annotations: {{{annotation}}}",
    )
    assert (klb101(tmp_path, GRPC_SERVICE + backend) == []) is meshed


CLIENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  selector:
    matchLabels: {app: frontend}
  template:
    metadata:
      labels: {app: frontend}
    spec:
      containers:
        - name: web
          image: registry.example/frontend:1.0
          args: ["--backend=backend:50051"]
"""


def test_a_twin_does_not_help_while_a_workload_still_dials_the_service(tmp_path: Path) -> None:
    (finding,) = klb101(tmp_path, GRPC_SERVICE + BACKEND + HEADLESS_TWIN + CLIENT)
    assert finding.severity is Severity.WARNING
    assert "Deployment/frontend (args) dials it, not its headless twin" in finding.text
    assert any(r.message == "args dials backend:50051" for r in finding.related)
    retargeted = CLIENT.replace("backend:50051", "dns:///backend-headless:50051")
    (twin,) = klb101(tmp_path / "b", GRPC_SERVICE + BACKEND + HEADLESS_TWIN + retargeted)
    assert twin.severity is Severity.INFO
    # a gRPC target with its scheme still names the ClusterIP
    schemed = CLIENT.replace("backend:50051", "dns:///backend:50051")
    (dialed,) = klb101(tmp_path / "c", GRPC_SERVICE + BACKEND + HEADLESS_TWIN + schemed)
    assert dialed.severity is Severity.WARNING


INGRESS = """\
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  annotations: {nginx.ingress.kubernetes.io/backend-protocol: GRPC}
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: backend, port: {number: 50051}}}
"""
GRPC_ROUTE = """\
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: api}
spec:
  rules:
    - backendRefs: [{name: backend, port: 50051}]
"""
VIRTUAL_SERVICE = """\
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api}
spec:
  hosts: [api.example.com]
  http:
    - route: [{destination: {host: backend.default.svc.cluster.local}}]
"""
CONTOUR = """\
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: api}
spec:
  routes:
    - services: [{name: backend, port: 50051, protocol: h2c}]
"""


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        (INGRESS, "Ingress/api (nginx.ingress.kubernetes.io/backend-protocol: GRPC)"),
        (GRPC_ROUTE, "GRPCRoute/api"),
        (VIRTUAL_SERVICE, "Istio VirtualService/api"),
        (CONTOUR, "Contour HTTPProxy/api (protocol: h2c)"),
        (
            INGRESS.replace(
                "nginx.ingress.kubernetes.io/backend-protocol: GRPC",
                "alb.ingress.kubernetes.io/backend-protocol-version: GRPC",
            ),
            "Ingress/api (alb.ingress.kubernetes.io/backend-protocol-version: GRPC)",
        ),
    ],
    ids=["nginx-ingress", "grpcroute", "istio", "contour", "aws-alb"],
)
def test_an_l7_proxy_in_front_balances_requests(tmp_path: Path, front: str, reason: str) -> None:
    (alone,) = klb101(tmp_path / "a", GRPC_SERVICE + BACKEND + HPA + front)
    assert alone.severity is Severity.INFO
    assert f"its traffic comes through {reason};" in alone.text
    (dialed,) = klb101(tmp_path / "b", GRPC_SERVICE + BACKEND + HPA + front + CLIENT)
    assert dialed.severity is Severity.WARNING and dialed.fix.available
    assert "Deployment/frontend (args) dials it directly, past" in dialed.text


def test_a_meshed_client_dials_through_its_sidecar_not_past_the_proxy(tmp_path: Path) -> None:
    """A client whose pod has a sidecar (Istio's revision label) dials the Service's name,
    but its proxy takes the dial and routes each request as the VirtualService says: it is
    no client that stays on one pod (the Service's own pods, not meshed, are still judged)."""
    meshed = CLIENT.replace("labels: {app: frontend}", "labels: {app: frontend, istio.io/rev: v1}")
    manifests = GRPC_SERVICE + BACKEND + HPA + VIRTUAL_SERVICE + meshed
    (finding,) = klb101(tmp_path, manifests)
    assert finding.severity is Severity.INFO
    assert "past" not in finding.text
    assert "no scanned client dials the Service directly" in finding.text


def test_a_service_gkes_load_balancer_reaches_over_http2_is_balanced_per_request(
    tmp_path: Path,
) -> None:
    annotated = GRPC_SERVICE.replace(
        "  name: backend\n",
        "  name: backend\n  annotations:\n"
        '    cloud.google.com/app-protocols: \'{"grpc": "HTTP2"}\'\n',
    )
    (finding,) = klb101(tmp_path / "a", annotated + BACKEND + HPA)
    assert finding.severity is Severity.INFO
    assert "GKE's load balancer (cloud.google.com/app-protocols: HTTP2" in finding.text
    plain = annotated.replace("HTTP2", "HTTP")
    assert klb101(tmp_path / "b", plain + BACKEND + HPA)[0].severity is Severity.WARNING


@pytest.mark.parametrize(
    "annotation",
    [
        "projectcontour.io/upstream-protocol.h2c: '50051'",
        "projectcontour.io/upstream-protocol.h2: grpc",
        "contour.heptio.com/upstream-protocol.h2c: '8080,50051'",
    ],
)
def test_a_service_contour_reaches_over_http2_is_balanced_per_request(
    tmp_path: Path, annotation: str
) -> None:
    """Contour's Service annotation names the ports Envoy reaches over HTTP/2 (by number
    or name, comma-separated): Envoy gets the Service's endpoints and places each request,
    so only a client that dials the Service directly stays on one pod."""
    annotated = GRPC_SERVICE.replace(
        "  name: backend\n", f"  name: backend\n  annotations:\n    {annotation}\n"
    )
    (alone,) = klb101(tmp_path / "a", annotated + BACKEND + HPA)
    assert alone.severity is Severity.INFO
    key = annotation.split(":")[0]
    assert f"its traffic comes through Contour ({key} on Service/backend);" in alone.text
    (dialed,) = klb101(tmp_path / "b", annotated + BACKEND + HPA + CLIENT)
    assert dialed.severity is Severity.WARNING


@pytest.mark.parametrize(
    "annotation",
    [
        # HTTP/1.1 over TLS: no gRPC passes that way
        "projectcontour.io/upstream-protocol.tls: '50051'",
        # another port of the Service, or none it has
        "projectcontour.io/upstream-protocol.h2c: '9000'",
        "some.example/upstream-protocol.h2c: '50051'",
    ],
)
def test_contour_balances_only_the_ports_it_reaches_over_http2(
    tmp_path: Path, annotation: str
) -> None:
    annotated = GRPC_SERVICE.replace(
        "  name: backend\n", f"  name: backend\n  annotations:\n    {annotation}\n"
    )
    (finding,) = klb101(tmp_path, annotated + BACKEND + HPA)
    assert finding.severity is Severity.WARNING


def test_an_http_ingress_or_an_httproute_without_h2c_is_no_grpc_proxy(tmp_path: Path) -> None:
    http_ingress = INGRESS.replace(
        "  annotations: {nginx.ingress.kubernetes.io/backend-protocol: GRPC}\n", ""
    )
    http_route = GRPC_ROUTE.replace("kind: GRPCRoute", "kind: HTTPRoute")
    for number, front in enumerate((http_ingress, http_route)):
        (finding,) = klb101(tmp_path / str(number), GRPC_SERVICE + BACKEND + front)
        assert finding.severity is Severity.WARNING
    h2c = GRPC_SERVICE.replace("name: grpc", "name: grpc\n      appProtocol: kubernetes.io/h2c")
    (balanced,) = klb101(tmp_path / "h2c", h2c + BACKEND + http_route)
    assert balanced.severity is Severity.INFO


UNNAMED_SERVICE = GRPC_SERVICE.replace(
    "    - name: grpc\n      port: 50051\n", "    - port: 80\n      targetPort: {port}\n"
)


def test_every_well_known_server_names_its_source_and_ports() -> None:
    from k8slb.model.well_known import known_servers

    for image, known in known_servers().items():
        assert image == image.lower() and ":" not in image.rpartition("/")[2], image
        assert known.grpc_ports and known.source.startswith("https://"), known


def _server(image: str, port: int, args: str = "", env: str = "") -> str:
    backend = (
        BACKEND.replace("registry.example/backend:1.0", image)
        .replace("              containerPort: 50051", f"              containerPort: {port}")
        .replace("            - name: grpc\n", "            - name: api\n")
    )
    if args:
        backend = backend.replace(
            f"          image: {image}\n", f"          image: {image}\n          args: {args}\n"
        )
    if env:
        backend += f"          env: {env}\n"
    return backend


@pytest.mark.parametrize(
    ("image", "port", "reason"),
    [
        (
            "tensorflow/serving:2.15.0",
            8500,
            "image tensorflow/serving: TensorFlow Serving serves gRPC on 8500 by default",
        ),
        (
            "nvcr.io/nvidia/tritonserver:24.01-py3",
            8001,
            "image nvcr.io/nvidia/tritonserver: NVIDIA Triton Inference Server serves gRPC on 8001",
        ),
    ],
    ids=["tf-serving", "triton"],
)
def test_a_well_known_image_is_weaker_evidence_named_as_such(
    tmp_path: Path, image: str, port: int, reason: str
) -> None:
    backend = _server(image, port)
    (finding,) = klb101(tmp_path, UNNAMED_SERVICE.format(port=port) + backend + HPA)
    assert reason in finding.text and "(weaker evidence)" in finding.text
    assert finding.severity is Severity.INFO, "a table is never the only link"
    rest = backend.replace(f"containerPort: {port}", "containerPort: 8501")
    assert klb101(tmp_path / "rest", UNNAMED_SERVICE.format(port=8501) + rest) == [], (
        "the image's other ports are not gRPC"
    )


@pytest.mark.parametrize(
    ("args", "env", "port", "reason"),
    [
        ('["--grpc-port=9000"]', "", 9000, "the flag --grpc-port=9000"),
        ('["--http2_port", "9001"]', "", 9001, "the flag --http2_port=9001"),
        ('["-server.grpc-listen-port=9096"]', "", 9096, "the flag -server.grpc-listen-port=9096"),
        ('["--grpc.address=0.0.0.0:9002"]', "", 9002, "the flag --grpc.address=0.0.0.0:9002"),
        ('["--grpcListenAddr", ":9003"]', "", 9003, "the flag --grpcListenAddr=:9003"),
        ("", "[{name: GRPC_PORT, value: '9004'}]", 9004, "the env GRPC_PORT=9004"),
    ],
    ids=["grpc-port", "http2-port", "listen-port", "address", "camel-case", "env"],
)
def test_a_flag_or_env_that_puts_grpc_on_the_port_is_evidence_for_it(
    tmp_path: Path, args: str, env: str, port: int, reason: str
) -> None:
    """Whatever the server: a setting whose name says gRPC and where it listens is
    evidence of that very port, no table needed."""
    backend = _server("registry.example/inference:1", port, args, env)
    (finding,) = klb101(tmp_path, UNNAMED_SERVICE.format(port=port) + backend + HPA)
    assert f"{reason} of container 'server'" in finding.text
    assert finding.severity is Severity.WARNING
    rest = backend.replace(f"containerPort: {port}", "containerPort: 8501")
    assert klb101(tmp_path / "rest", UNNAMED_SERVICE.format(port=8501) + rest) == [], (
        "the setting's port only"
    )


USERS_SERVICE = """\
---
apiVersion: v1
kind: Service
metadata: {name: users}
spec:
  selector: {app: users}
  ports: [{port: 8080}]
"""


@pytest.mark.parametrize(
    ("env", "peer"),
    [
        (
            "[{name: GRPC_USERS_HOST, value: users}, {name: GRPC_USERS_PORT, value: '8080'}]",
            "a sibling names the host it dials",
        ),
        ("[{name: USERS_GRPC_PORT, value: '8080'}]", "its words name another Service"),
    ],
    ids=["host-sibling", "service-name"],
)
def test_an_env_port_the_container_dials_on_a_peer_is_no_evidence_for_its_own_service(
    tmp_path: Path, env: str, peer: str
) -> None:
    """A gateway that dials its users' gRPC Service is told the peer's port in its env;
    that says nothing of what the gateway's own Service carries."""
    backend = _server("registry.example/gateway:1", 8080, env=env)
    manifests = UNNAMED_SERVICE.format(port=8080) + backend + HPA + USERS_SERVICE
    assert klb101(tmp_path, manifests) == [], peer
    # its own setting (no peer word), or one whose sibling names where it listens, still is
    own = env.replace("GRPC_USERS_PORT", "GRPC_PORT").replace("USERS_GRPC_PORT", "GRPC_PORT")
    own_manifests = UNNAMED_SERVICE.format(port=8080) + _server(
        "registry.example/gateway:1", 8080, env=own
    )
    assert len(klb101(tmp_path / "own", own_manifests + HPA + USERS_SERVICE)) == 1
    bound = "[{name: SERVER_HOST, value: 0.0.0.0}, {name: SERVER_GRPC_PORT, value: '8080'}]"
    bound_backend = _server("registry.example/gateway:1", 8080, env=bound)
    manifests = UNNAMED_SERVICE.format(port=8080) + bound_backend + HPA
    assert len(klb101(tmp_path / "bound", manifests)) == 1


@pytest.mark.parametrize(
    "args",
    [
        '["--grpc-gateway-port=8080"]',
        '["--grpc-web-port=8080"]',
        '["--grpc-target=backend:8080"]',
        '["--compactor.grpc-address=compactor:8080"]',
        '["--grpc-max-recv-msg-size=8080"]',
        '["--http-port=8080"]',
    ],
    ids=["grpc-gateway", "grpc-web", "dialed-target", "dialed-host", "no-place", "no-protocol"],
)
def test_a_flag_of_another_protocol_or_a_dialed_address_is_no_evidence(
    tmp_path: Path, args: str
) -> None:
    backend = _server("registry.example/inference:1", 8080, args)
    assert klb101(tmp_path, UNNAMED_SERVICE.format(port=8080) + backend + HPA) == []


@pytest.mark.parametrize(
    "service",
    [
        GRPC_SERVICE.replace("name: grpc", "name: grpc-raft"),
        GRPC_SERVICE.replace("name: grpc", "name: grpc-peer"),
    ],
    ids=["raft-port", "peer-port"],
)
def test_a_service_for_the_pods_own_cluster_traffic_is_no_klb101(
    tmp_path: Path, service: str
) -> None:
    """Peers dial each other's pods through such a Service (a raft group, a gossip ring):
    asking its clients for round_robin would mean nothing."""
    assert klb101(tmp_path, service + BACKEND + HPA) == []
    assert len(klb101(tmp_path / "control", GRPC_SERVICE + BACKEND + HPA)) == 1


MEMBERLIST = """\
---
apiVersion: v1
kind: Service
metadata: {name: backend-memberlist}
spec:
  clusterIP: None
  selector: {app: backend}
  ports: [{name: tcp-gossip-ring, port: 7946}]
"""


def test_the_grpc_service_of_ring_members_is_info_unless_a_client_dials_it(
    tmp_path: Path,
) -> None:
    """Members of a memberlist ring are found through it, by pod address: the ClusterIP's
    gRPC port may have no caller k8slb can see, and the finding says so, at info."""
    (ring,) = klb101(tmp_path / "a", GRPC_SERVICE + BACKEND + HPA + MEMBERLIST)
    assert ring.severity is Severity.INFO
    assert "its pods are peers that Service backend-memberlist discovers" in ring.text
    (dialed,) = klb101(tmp_path / "b", GRPC_SERVICE + BACKEND + HPA + MEMBERLIST + CLIENT)
    assert dialed.severity is Severity.WARNING


def test_one_replica_that_nothing_scales_is_info(tmp_path: Path) -> None:
    single = BACKEND.replace("replicas: 3", "replicas: 1")
    assert "replicas: 1" in single
    (finding,) = klb101(tmp_path / "a", GRPC_SERVICE + single)
    assert finding.severity is Severity.INFO
    assert "runs one replica and nothing scales it" in finding.text
    (scaled,) = klb101(tmp_path / "b", GRPC_SERVICE + single + HPA)
    assert scaled.severity is Severity.WARNING


def test_a_twin_that_publishes_not_ready_pods_is_no_twin_for_clients(tmp_path: Path) -> None:
    """Peer discovery publishes pods that are starting or draining: round_robin clients
    must not be pointed at it."""
    discovery = HEADLESS_TWIN.replace("spec:\n", "spec:\n  publishNotReadyAddresses: true\n", 1)
    (finding,) = klb101(tmp_path, GRPC_SERVICE + BACKEND + HPA + discovery)
    assert "dns:///backend-headless" not in finding.text
    assert "its pods are peers that Service backend-headless discovers" in finding.text


# A Loki querier: the image and gRPC port of a system whose components call each other.
LOKI_SERVICE = GRPC_SERVICE.replace("port: 50051", "port: 9095")
LOKI_BACKEND = BACKEND.replace(
    "image: registry.example/backend:1.0",
    "image: grafana/loki:3.0.0\n          args: [-target=querier]",
).replace("containerPort: 50051", "containerPort: 9095")
LOKI_CONFIG = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: loki
data:
  config.yaml: |
    frontend_worker:
      frontend_address: {address}
"""


def test_an_internal_grpc_port_that_nothing_dials_through_the_service_is_no_finding(
    tmp_path: Path,
) -> None:
    """Loki's gRPC port serves only Loki's own components, which reach each other through
    the ring or the addresses their configuration names: a Service no one names on that
    port carries none of those calls."""
    assert "grafana/loki" in LOKI_BACKEND and "9095" in LOKI_SERVICE
    assert klb101(tmp_path / "alone", LOKI_SERVICE + LOKI_BACKEND + HPA) == []
    elsewhere = LOKI_CONFIG.format(address="backend-headless:9095")
    assert klb101(tmp_path / "twin", LOKI_SERVICE + LOKI_BACKEND + HPA + elsewhere) == []
    http = LOKI_CONFIG.format(address="http://backend:3100")  # its HTTP API, not gRPC
    assert klb101(tmp_path / "http", LOKI_SERVICE + LOKI_BACKEND + HPA + http) == []


@pytest.mark.parametrize(
    "config",
    [
        LOKI_CONFIG.format(address="backend:9095"),
        LOKI_CONFIG.format(address="dns:///backend.default.svc.cluster.local:9095"),
        # a Secret's data, base64: `frontend_address: backend:9095`
        "---\napiVersion: v1\nkind: Secret\nmetadata: {name: loki}\n"
        "data:\n  config.yaml: ZnJvbnRlbmRfYWRkcmVzczogYmFja2VuZDo5MDk1Cg==\n",
    ],
    ids=["configmap", "dns-target", "secret"],
)
def test_an_internal_grpc_port_the_systems_configuration_dials_is_reported(
    tmp_path: Path, config: str
) -> None:
    (finding,) = klb101(tmp_path, LOKI_SERVICE + LOKI_BACKEND + HPA + config)
    assert finding.severity is Severity.WARNING


def test_a_well_known_systems_public_grpc_port_is_not_internal(tmp_path: Path) -> None:
    """Tempo's distributor takes OTLP from the applications on 4317: not its internal port."""
    service = GRPC_SERVICE.replace("name: grpc\n      port: 50051", "name: otlp\n      port: 4317")
    backend = BACKEND.replace(
        "image: registry.example/backend:1.0", "image: grafana/tempo:2.5.0"
    ).replace(
        "name: grpc\n              containerPort: 50051",
        "name: grpc-otlp\n              containerPort: 4317",
    )
    assert "4317" in service and "grpc-otlp" in backend
    (finding,) = klb101(tmp_path, service + backend + HPA)
    assert finding.severity is Severity.WARNING


# A pod that serves gRPC on 50051 (its probe says so) and HTTP on 8080.
WEB_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: backend-web
spec:
  selector:
    app: backend
  ports:
    - name: web
      port: 8080
"""
PROBED_BACKEND = BACKEND.replace(
    "            - name: grpc\n              containerPort: 50051\n",
    "            - name: api\n              containerPort: 50051\n"
    "            - name: web\n              containerPort: 8080\n",
)


def _probed(probe: str) -> str:
    return PROBED_BACKEND + "          readinessProbe:\n" + probe


@pytest.mark.parametrize(
    "probe",
    [
        '            exec: {command: ["/bin/grpc_health_probe", "-addr=:50051"]}\n',
        '            exec: {command: ["grpc_health_probe", "-addr", "localhost:50051"]}\n',
        '            exec: {command: ["sh", "-c", "grpc_health_probe -addr=:50051"]}\n',
        "            grpc: {port: 50051}\n",
        '            exec: {command: ["grpc_health_probe", "-addr=unix:///run/app.sock"]}\n',
    ],
    ids=["addr-equals", "addr-word", "sh-c", "grpc-probe", "unix-socket"],
)
def test_a_grpc_probe_of_another_port_says_nothing_about_this_one(
    tmp_path: Path, probe: str
) -> None:
    """The HTTP Service of a pod whose gRPC probe checks its gRPC port (or a unix socket)
    carries no gRPC: evidence about a port is about that port only."""
    assert klb101(tmp_path, WEB_SERVICE + _probed(probe) + HPA) == []


@pytest.mark.parametrize(
    ("probe", "env"),
    [
        ('            exec: {command: ["grpc_health_probe", "-addr", "localhost:8080"]}\n', ""),
        ('            exec: {command: ["sh", "-c", "grpc_health_probe -addr=:$PORT"]}\n', "8080"),
        ('            exec: {command: ["sh", "-c", "grpc_health_probe -addr=:${PORT}"]}\n', "8080"),
    ],
    ids=["addr-word", "shell-variable", "braced-variable"],
)
def test_a_grpc_probe_of_the_targeted_port_is_evidence_for_it(
    tmp_path: Path, probe: str, env: str
) -> None:
    backend = _probed(probe)
    if env:
        backend += f"          env: [{{name: PORT, value: '{env}'}}]\n"
    (finding,) = klb101(tmp_path, WEB_SERVICE + backend + HPA)
    assert "of port 8080 on container 'server'" in finding.text
    assert finding.severity is Severity.WARNING


def test_a_grpc_probe_of_a_port_k8slb_cannot_read_is_only_inferred(tmp_path: Path) -> None:
    """No `-addr` k8slb can read: the probe suggests the pod serves gRPC somewhere, not on
    this port; at most info, naming what is missing."""
    probe = '            exec: {command: ["sh", "-c", "grpc_health_probe -addr=:$PORT"]}\n'
    (finding,) = klb101(tmp_path, WEB_SERVICE + _probed(probe) + HPA)
    assert finding.severity is Severity.INFO
    assert "may carry gRPC" in finding.text
    assert (
        "the port is not declared gRPC; only a grpc_health_probe readinessProbe of a port "
        "k8slb cannot read on container 'server' of Deployment/backend suggests it" in finding.text
    )


@pytest.mark.parametrize(
    ("service", "backend", "evidence"),
    [
        (
            UNNAMED_SERVICE.format(port=8500),
            BACKEND.replace("registry.example/backend:1.0", "tensorflow/serving:2.15.0")
            .replace("name: grpc\n", "name: api\n")
            .replace("containerPort: 50051", "containerPort: 8500"),
            "only image tensorflow/serving: TensorFlow Serving serves gRPC on 8500",
        ),
        (
            PLAIN_SERVICE.replace("port: 80", "port: 50051"),
            PLAIN_BACKEND,
            "only port 50051, gRPC's conventional port suggests it",
        ),
    ],
    ids=["image-in-a-table", "conventional-port"],
)
def test_evidence_k8slb_only_infers_never_makes_a_warning(
    tmp_path: Path, service: str, backend: str, evidence: str
) -> None:
    (finding,) = klb101(tmp_path, service + backend + HPA)
    assert finding.severity is Severity.INFO
    assert "the port is not declared gRPC" in finding.text and evidence in finding.text


@pytest.mark.parametrize(
    "service",
    [GRPC_SERVICE, PLAIN_SERVICE.replace("name: api", "name: api\n      appProtocol: grpc")],
    ids=["grpc-named", "appProtocol"],
)
def test_a_declared_grpc_port_of_a_scaled_backend_stays_a_warning(
    tmp_path: Path, service: str
) -> None:
    """The textbook case: its clients live in another repository, nothing here dials it."""
    (finding,) = klb101(tmp_path, service + PLAIN_BACKEND + HPA)
    assert finding.severity is Severity.WARNING
    assert "may carry" not in finding.text and "not declared" not in finding.text


@pytest.mark.parametrize(
    ("extra", "missing"),
    [
        (HEADLESS_TWIN, "no scanned client dials this Service"),
        (INGRESS, "no scanned client dials the Service directly"),
        (MEMBERLIST, "no client in the scanned files dials it"),
    ],
    ids=["twin", "proxy", "ring"],
)
def test_a_finding_lowered_for_its_callers_says_no_scanned_client_dials_the_service(
    tmp_path: Path, extra: str, missing: str
) -> None:
    """The link the downgrade lacks is a caller through the ClusterIP: the message says
    none was found, so a reader knows what would make it a warning."""
    (finding,) = klb101(tmp_path, GRPC_SERVICE + BACKEND + HPA + extra)
    assert finding.severity is Severity.INFO
    assert missing in finding.text


def test_a_long_lived_channel_dialing_an_inferred_port_shows_it_carries_grpc(
    tmp_path: Path,
) -> None:
    """Port 50051 only suggests gRPC (info); a module-level client of the scanned code that
    dials the Service on that port shows it: a warning quoting the channel. A channel to
    another port of the Service shows nothing about this one."""
    service = PLAIN_SERVICE.replace("port: 80", "port: 50051")
    manifests = service + PLAIN_BACKEND + HPA
    client = (
        "const grpc = require('@grpc/grpc-js');\n\n"
        "const client = new grpc.Client(TARGET, grpc.credentials.createInsecure());\n"
    )
    dialing = {"k8s.yaml": manifests, "client.js": client.replace("TARGET", "'backend:50051'")}
    (finding,) = lint_files(tmp_path / "dials", dialing, ["KLB101"]).findings
    assert finding.severity is Severity.WARNING
    assert "carries gRPC (a gRPC channel dials it: client.js:3)" in finding.text
    other = {"k8s.yaml": manifests, "client.js": client.replace("TARGET", "'backend:9000'")}
    (finding,) = lint_files(tmp_path / "other", other, ["KLB101"]).findings
    assert finding.severity is Severity.INFO and "may carry gRPC" in finding.text
