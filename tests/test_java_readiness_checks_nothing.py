"""KLB303 (Java): a Spring controller's readiness route (its class's `@RequestMapping`
prefix joined to the method's `@GetMapping`) that returns a constant while the code holds a
long-lived HTTP client for the services it calls is reported, at info; a readiness route
that asks something of the process's own state is not, and neither is a constant answer in
code that holds no connection to anything."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files
from .test_rule_probes import SPRING_BUILT

CONTROLLER = """\
package com.example.orders;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/v1")
public class OrdersController {

    private static final HttpClient CLIENT =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private volatile boolean warmedUp;

    @GetMapping("/orders")
    public ResponseEntity<String> orders() throws Exception {
        HttpRequest request =
            HttpRequest.newBuilder(URI.create("http://stock:8080/levels")).GET().build();
        HttpResponse<String> answer = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        warmedUp = true;
        return ResponseEntity.ok(answer.body());
    }

    @GetMapping("/ready")
    public String ready() {
        READY_BODY
    }
}
"""
CONSTANT = 'return "ok";'
OWN_STATE = (
    'if (!warmedUp) {\n            throw new IllegalStateException("warming up");\n'
    '        }\n        return "ok";'
)

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.example/web:1.0
          ports:
            - name: http
              containerPort: 8080
          readinessProbe:
            httpGet: {path: /v1/ready, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - name: http
      port: 80
      targetPort: http
"""


def _lint(tmp_path: Path, controller: str) -> list[tuple[str, str, str]]:
    files: dict[str, str | bytes] = {
        "manifest.yaml": MANIFEST,
        "src/main/java/com/example/orders/OrdersController.java": controller,
        **dict(SPRING_BUILT),
    }
    found = lint_files(tmp_path, files, ["KLB303"])
    return [(f.rule, f.severity.name.lower(), f.text) for f in found.findings]


def test_a_spring_readiness_route_that_returns_a_constant_beside_an_http_client(
    tmp_path: Path,
) -> None:
    [(rule, severity, text)] = _lint(tmp_path, CONTROLLER.replace("READY_BODY", CONSTANT))
    assert (rule, severity) == ("KLB303", "info")
    assert "/v1/ready runs ready() (OrdersController.java:32)" in text
    assert "an HTTP client (OrdersController.java:19)" in text


def test_a_spring_readiness_route_that_asks_its_own_state(tmp_path: Path) -> None:
    assert _lint(tmp_path, CONTROLLER.replace("READY_BODY", OWN_STATE)) == []


def test_a_constant_spring_readiness_in_code_that_holds_no_connection(tmp_path: Path) -> None:
    """A constant answer loses nothing where the code reaches nothing else."""
    alone = CONTROLLER.replace("READY_BODY", CONSTANT)
    start = alone.index("    private static final HttpClient")
    end = alone.index('    @GetMapping("/ready")')
    assert _lint(tmp_path, alone[:start] + alone[end:]) == []
