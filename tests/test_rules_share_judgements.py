"""What several rules ask of one Service is worked out once a run, in the model the rules
share, not once for each rule that asks (a speed matter: the findings stay the same)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from k8slb.model import http2
from k8slb.model.index import Index
from k8slb.model.links import CodeLinks
from k8slb.reading.objects import K8sObject

from .helpers import lint_files, rules_of

BACKEND = """\
apiVersion: v1
kind: Service
metadata: {name: backend}
spec:
  selector: {app: backend}
  ports: [{name: grpc, port: 50051}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: backend}
spec:
  replicas: 3
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec:
      containers:
        - name: backend
          image: registry.example/backend:1.0
          ports: [{name: grpc, containerPort: 50051}]
"""

CLIENT = """\
import grpc

channel = grpc.insecure_channel("backend:50051")
"""


def test_a_grpc_service_is_judged_once_for_every_rule_that_asks_about_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged: Counter[str] = Counter()
    evidence = http2.grpc_evidence

    def counted(
        index: Index, service: K8sObject, code: CodeLinks | None = None
    ) -> list[http2.Evidence]:
        judged[service.name or ""] += 1
        return evidence(index, service, code)

    monkeypatch.setattr(http2, "grpc_evidence", counted)
    result = lint_files(
        tmp_path,
        {"k8s.yaml": BACKEND, "client.py": CLIENT},
        select=["KLB101", "KLB102", "KLB103"],
    )
    # KLB101 judges the Service; KLB102 and KLB103 ask the same of the channel's Service
    assert {"KLB101", "KLB102"} <= set(rules_of(result.findings))
    assert judged == {"backend": 1}
