"""What several rules ask of one Service is worked out once a run, in the model the rules
share, not once for each rule that asks (a speed matter: the findings stay the same)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from k8slb.code.facts import CodeFacts
from k8slb.model import dialers, http2
from k8slb.model.entries import Entries
from k8slb.model.index import Index
from k8slb.model.links import CodeLinks, Link
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap

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


def _twice_selected(number: int, peers: str) -> str:
    """A Deployment without a preStop hook whose pods two Services select (its API and its
    metrics), its env naming every peer."""
    return f"""\
apiVersion: v1
kind: Service
metadata: {{name: app-{number}}}
spec:
  selector: {{app: app-{number}}}
  ports: [{{name: http, port: 80, targetPort: 8080}}]
---
apiVersion: v1
kind: Service
metadata: {{name: app-{number}-metrics}}
spec:
  selector: {{app: app-{number}}}
  ports: [{{name: metrics, port: 9090}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: app-{number}}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: app-{number}}}}}
  template:
    metadata: {{labels: {{app: app-{number}}}}}
    spec:
      containers:
        - name: app
          image: registry.example/app:1.0
          ports: [{{containerPort: 8080}}, {{containerPort: 9090}}]
          env: [{{name: PEERS, value: "{peers}"}}]
"""


def test_who_dials_each_service_is_searched_for_once_a_run_not_once_a_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # KLB401 and KLB302 name the Service a client is seen dialling among those selecting
    # a container: asked of Service after Service, a search of the whole tree each time
    # made a run quadratic in its Services
    workloads = 8
    peers = ",".join(f"app-{n}-metrics:9090" for n in range(workloads))
    files = {f"app-{n}.yaml": _twice_selected(n, peers) for n in range(workloads)}
    scanned: Counter[str] = Counter()
    strings = dialers._strings

    def counted(container: YMap) -> Iterator[tuple[str, str, int]]:
        scanned[str(container.get("name"))] += 1
        return strings(container)

    monkeypatch.setattr(dialers, "_strings", counted)
    result = lint_files(tmp_path, files, select=["KLB401", "KLB302"])
    # each finding names the Service a client dials: the second of its two
    assert len(result.findings) == 2 * workloads
    for finding in result.findings:
        name = finding.object.name if finding.object else ""
        assert f"serves Service {name}-metrics (env PEERS dials" in finding.detail[0]
    assert scanned == {"app": workloads}  # each container's strings read once


def _kind_tests(folder: Path, workloads: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times a run of KLB401 and KLB302 asks an object its kind, on a tree of
    `workloads` Deployments that two Services select each."""
    files = {f"app-{n}.yaml": _twice_selected(n, f"app-{n}-metrics:9090") for n in range(workloads)}
    calls = 0
    is_a = K8sObject.is_a

    def counted(obj: K8sObject, group: str, kind: str) -> bool:
        nonlocal calls
        calls += 1
        return is_a(obj, group, kind)

    with monkeypatch.context() as patched:
        patched.setattr(K8sObject, "is_a", counted)
        lint_files(folder, files, select=["KLB401", "KLB302"])
    return calls


def test_the_configurations_that_may_dial_a_service_are_not_sought_among_every_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a ConfigMap or Secret may name a Service with its port (config_dialers): asked of
    # each Service, a walk of every object to find them made a run quadratic
    few = _kind_tests(tmp_path / "few", 8, monkeypatch)
    many = _kind_tests(tmp_path / "many", 32, monkeypatch)
    assert many <= 4.5 * few  # four times the objects: four times the questions, not 16


GO_SERVER_MAIN = """\
package main

import (
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
{imports}
)

func main() {{
{uses}
	lis, _ := net.Listen("tcp", ":50051")
	server := grpc.NewServer()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	go func() {{
		<-stop
		server.GracefulStop()
	}}()
	_ = server.Serve(lis)
}}
"""


def _go_program(packages: int) -> dict[str, str | bytes]:
    """A gRPC server's program that catches SIGTERM and stops the server, importing
    `packages` packages of its own, built into the image a Deployment runs."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/server ./server\nENTRYPOINT ["/usr/bin/server"]\n',
        "deployment.yaml": BACKEND.replace("registry.example/backend:1.0", "example/shop:1.0"),
    }
    for n in range(packages):
        files[f"part{n}/part.go"] = f'package part{n}\n\nfunc Name() string {{ return "{n}" }}\n'
    files["server/main.go"] = GO_SERVER_MAIN.format(
        imports="\n".join(f'\t"example.com/shop/part{n}"' for n in range(packages)),
        uses="\n".join(f"\t_ = part{n}.Name()" for n in range(packages)),
    )
    return files


def _code_asked(folder: Path, packages: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times KLB403 asks for the code a container runs (an import closure), on
    the program of `_go_program(packages)`."""
    asked = 0
    code = Entries.code

    def counted(entries: Entries, link: Link) -> list[CodeFacts]:
        nonlocal asked
        asked += 1
        return code(entries, link)

    with monkeypatch.context() as patched:
        patched.setattr(Entries, "code", counted)
        result = lint_files(folder, _go_program(packages), select=["KLB403"])
    assert result.findings == []  # the server is stopped on SIGTERM
    return asked


def test_a_go_programs_code_is_gathered_for_its_servers_not_for_each_of_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # KLB403 gathered the code each container runs (every file of its program) for every
    # file the container runs, waits to judge or not: quadratic in a program's files (a
    # large Go repository's check spent minutes there)
    few = _code_asked(tmp_path / "few", 2, monkeypatch)
    many = _code_asked(tmp_path / "many", 32, monkeypatch)
    assert 0 < many == few  # asked for the file that serves, however many files there are
