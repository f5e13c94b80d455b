"""YAML that is not applied as it stands is not read as objects deployed.

An object that names itself nowhere (no `metadata.name`, no `generateName`) cannot be
created by kubectl, kustomize or Helm: it is a fragment, a state a test waits for or a
patch, and no rule judges it. Only where a kustomization lists its file among its
resources is it an error (kustomize refuses to build it).
"""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_files

# a bare Pod that serves a Service: named, it is judged (no readinessProbe, no preStop)
POD = """\
apiVersion: v1
kind: Pod
metadata:
{name}  namespace: shop
  labels:
    app: cart
spec:
  containers:
    - name: cart
      image: registry.example/cart:1.4
      ports:
        - containerPort: 8080
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: cart
  namespace: shop
spec:
  selector:
    app: cart
  ports:
    - port: 80
      targetPort: 8080
"""
# what a test waits for: any pod of the app, running and ready (no name: any will do)
WAITED_FOR = """\
apiVersion: v1
kind: Pod
metadata:
  namespace: shop
  labels:
    app: cart
spec:
  containers:
    - name: cart
status:
  phase: Running
  containerStatuses:
    - name: cart
      ready: true
"""


def _paths(findings: list) -> set[tuple[str, str]]:
    return {(f.rule, Path(f.path).name) for f in findings}


def test_a_named_pod_serving_a_service_is_judged(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {"deploy/service.yaml": SERVICE, "deploy/pod.yaml": POD.format(name="  name: cart\n")}
    found = _paths(lint_files(tmp_path, files).findings)
    assert ("KLB401", "pod.yaml") in found


def test_a_pod_that_names_nothing_is_a_pattern_not_judged(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {
        "deploy/service.yaml": SERVICE,
        "e2e/pods-ready.yaml": WAITED_FOR,
        "e2e/pods-listening.yaml": POD.format(name=""),
    }
    findings = lint_files(tmp_path, files).findings
    assert [f for f in findings if "e2e" in f.path] == []


def test_an_unnamed_object_a_kustomization_lists_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {
        "base/kustomization.yaml": "resources:\n  - service.yaml\n  - pod.yaml\n",
        "base/service.yaml": SERVICE,
        "base/pod.yaml": POD.format(name=""),
    }
    findings = lint_files(tmp_path, files).findings
    said = [f for f in findings if f.path.endswith("pod.yaml")]
    assert [f.rule for f in said] == ["KLB002"]
    assert "no `metadata.name`" in said[0].message
    assert said[0].line == 1


def test_an_unnamed_patch_a_kustomization_lists_is_no_error(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    patch = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    app: cart\nspec:\n"
        "  containers:\n    - name: cart\n      lifecycle:\n        preStop:\n"
        "          sleep:\n            seconds: 5\n"
    )
    files = {
        "base/kustomization.yaml": (
            "resources:\n  - service.yaml\n  - pod.yaml\npatches:\n  - path: prestop.yaml\n"
            "    target:\n      kind: Pod\n      name: cart\n"
        ),
        "base/service.yaml": SERVICE,
        "base/pod.yaml": POD.format(name="  name: cart\n"),
        "base/prestop.yaml": patch,
    }
    findings = lint_files(tmp_path, files).findings
    assert not [f for f in findings if f.path.endswith("prestop.yaml")]
