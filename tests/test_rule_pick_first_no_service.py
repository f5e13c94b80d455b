"""KLB103 on a target that names no Service: a placeholder host written in upper case
(`SOME-EXTERNAL-SERVER:80`, left in a chart's values for an outside server), and a host
and a port variable joined with no `:` between them (`ENDPOINT + GRPC_PORT`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import lint_files

CLIENT_ENV = """\
import os

import grpc

channel = grpc.insecure_channel(os.environ["FLOWS_ADDR"])
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: reports}
spec:
  selector: {matchLabels: {app: reports}}
  template:
    metadata: {labels: {app: reports}}
    spec:
      containers:
        - name: reports
          image: registry.example/reports:3
          env:
            - name: FLOWS_ADDR
              value: ADDRESS
"""
FLOWS_SERVICE = """\
---
apiVersion: v1
kind: Service
metadata: {name: flows}
spec:
  clusterIP: None
  selector: {app: flows}
  ports: [{name: grpc, port: 80}]
"""


@pytest.mark.parametrize(
    ("address", "service", "reported"),
    [
        ("ANALYTICS-FLOW-COLLECTOR:80", "", False),  # a placeholder: no Service is so named
        ("FLOW_SERVER:9000", "", False),
        ("analytics-flow-collector:80", "", True),  # a Service of another repository's
        ("Flows:80", FLOWS_SERVICE, True),  # DNS matches the run's Service whatever the case
    ],
)
def test_a_host_in_upper_case_is_a_placeholder_not_a_service(
    tmp_path: Path, address: str, service: str, reported: bool
) -> None:
    files: dict[str, str | bytes] = {
        "k8s/reports.yaml": DEPLOYMENT.replace("ADDRESS", address) + service,
        "reports/client.py": CLIENT_ENV,
    }
    found = lint_files(tmp_path, files, ["KLB103"]).findings
    assert bool(found) is reported


GO_CLIENT = """\
package clients

import (
	"os"

	"google.golang.org/grpc"
)

const (
	defaultEndpoint = "localhost"
	defaultPort     = ":9100"
)

func Ledger() (*grpc.ClientConn, error) {
	endpoint := os.Getenv("LEDGER_GRPC_ENDPOINT")
	port := os.Getenv("LEDGER_GRPC_PORT")
	if endpoint == "" {
		endpoint = defaultEndpoint
	}
	if port == "" {
		port = defaultPort
	}
	return grpc.Dial(endpoint+port, grpc.WithInsecure())
}
"""
GO_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: billing}
spec:
  selector: {matchLabels: {app: billing}}
  template:
    metadata: {labels: {app: billing}}
    spec:
      containers:
        - name: billing
          image: registry.example/billing:3
          env:
            - name: LEDGER_GRPC_ENDPOINT
              value: ledger-service
            - name: LEDGER_GRPC_PORT
              value: "GIVEN"
"""


@pytest.mark.parametrize(("port", "reported"), [(":9100", True), ("9100", False)])
def test_a_host_and_a_port_joined_with_no_colon_name_no_service(
    tmp_path: Path, port: str, reported: bool
) -> None:
    """`ledger-service` + `9100` dials `ledger-service9100`, a host with no port: no
    Service's name; with `:9100` it is the Service's, reported as before."""
    files: dict[str, str | bytes] = {
        "k8s/billing.yaml": GO_DEPLOYMENT.replace("GIVEN", port),
        "billing/go.mod": "module example.com/billing\n\ngo 1.22\n",
        "billing/clients/ledger.go": GO_CLIENT,
    }
    found = lint_files(tmp_path, files, ["KLB103"]).findings
    assert bool(found) is reported
