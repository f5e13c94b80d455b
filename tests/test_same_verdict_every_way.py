"""One workload, one verdict: the same manifests linted as a plain folder, as the templates
of a minimal Helm chart, and as a kustomization built over a base (`--kustomize`) give
the same rule ids at the same severities on the same objects, with or without the
server's code in the tree. Where a way of writing it may rightly give another verdict (a
chart's values that set other replicas), the test says so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.rulekit.examples import BUILT_HERE, grpc_server

from .test_registry_callers import hotel

GRPC_BACKEND = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: registry.example/web:1.0
          ports:
            - name: grpc
              containerPort: 50051
---
apiVersion: v1
kind: Service
metadata:
  name: orders
  namespace: shop
spec:
  selector: {app: orders}
  ports:
    - name: grpc
      port: 50051
      targetPort: grpc
"""

ONE_REPLICA_STORE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: registry.example/db:1.0
          ports:
            - name: sql
              containerPort: 5432
          volumeMounts:
            - {name: data, mountPath: /var/lib/data}
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: db-data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: db-data
  namespace: shop
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata:
  name: db
  namespace: shop
spec:
  selector: {app: db}
  ports:
    - name: sql
      port: 5432
      targetPort: sql
"""

ONE_REPLICA_STATEFUL_STORE = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
  namespace: shop
spec:
  serviceName: cache-peers
  selector:
    matchLabels: {app: cache}
  template:
    metadata:
      labels: {app: cache}
    spec:
      containers:
        - name: cache
          image: registry.example/cache:1.0
          ports:
            - name: tcp
              containerPort: 6379
          volumeMounts:
            - {name: data, mountPath: /data}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata:
  name: cache-peers
  namespace: shop
spec:
  clusterIP: None
  selector: {app: cache}
  ports:
    - name: tcp
      port: 6379
---
apiVersion: v1
kind: Service
metadata:
  name: cache
  namespace: shop
spec:
  selector: {app: cache}
  ports:
    - name: tcp
      port: 6379
      targetPort: tcp
"""

HTTP_WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.example/site:1.0
          ports:
            - name: http
              containerPort: 8080
          livenessProbe:
            httpGet: {path: /healthz, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
  ports:
    - name: http
      port: 80
      targetPort: http
"""

# A program run as one bare Pod (a tutorial's), with a Service in front: no controller
BARE_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: demo
  namespace: shop
  labels: {app: demo}
spec:
  containers:
    - name: demo
      image: registry.example/demo:1.0
      ports:
        - name: http
          containerPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: demo
  namespace: shop
spec:
  selector: {app: demo}
  ports:
    - name: http
      port: 80
      targetPort: http
"""

# A Go gRPC server that registers itself in Consul (its callers resolve its pods there)
# and the frontend that dials it so, from one image; their code in hotel/.
_HOTEL = {
    name: str(text).replace("metadata: {name: ", "metadata: {namespace: shop, name: ")
    for name, text in hotel().items()
}
REGISTERED = {name[len("k8s/") :]: text for name, text in _HOTEL.items() if name.startswith("k8s/")}
# The web Deployment again, in `default` by name, its Service by naming no namespace
DEFAULT_NAMESPACE = (
    HTTP_WEB.replace("name: web", "name: site")
    .replace("  namespace: shop\n", "  namespace: default\n", 1)
    .replace("  namespace: shop\n", "")
)
WORKLOADS = {
    "grpc.yaml": GRPC_BACKEND,
    "site.yaml": DEFAULT_NAMESPACE,
    "store.yaml": ONE_REPLICA_STORE,
    "stateful.yaml": ONE_REPLICA_STATEFUL_STORE,
    "web.yaml": HTTP_WEB,
    "demo.yaml": BARE_POD,
    **REGISTERED,
}
# The gRPC backend's server, built into its image (registry.example/web) beside the
# manifests: a skaffold artifact and a Dockerfile that runs app.py; and the hotel's.
CODE = {
    "app.py": grpc_server(),
    **dict(BUILT_HERE),
    **{f"hotel/{name}": text for name, text in _HOTEL.items() if not name.startswith("k8s/")},
}

Verdicts = set[tuple[str, str, str, str]]  # (kind/namespace/name, container, rule, severity)


def _write(root: Path, files: Mapping[str, str]) -> None:
    """The files in a repository of their own: the run reads no other copy as context."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _verdicts(root: Path, *options: str) -> Verdicts:
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--no-cache", "--format", "json", *options, str(root)]
    )
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    assert not report["errors"], report["errors"]
    found: Verdicts = set()
    for finding in report["findings"]:
        obj = finding["object"] or {}
        # shown as written: a chart's object in the release's namespace, a plain one's empty
        namespace = obj.get("namespace") or ("default" if obj else None)
        ref = f"{obj.get('kind')}/{namespace}/{obj.get('name')}"
        found.add((ref, finding["container"] or "", finding["rule"], finding["severity"]))
    return found


def plain(root: Path, manifests: Mapping[str, str], beside: Mapping[str, str]) -> Verdicts:
    """The manifests as files of a folder, the code beside them."""
    _write(root, {**beside, **{f"deploy/{name}": text for name, text in manifests.items()}})
    return _verdicts(root)


def chart(root: Path, manifests: Mapping[str, str], beside: Mapping[str, str]) -> Verdicts:
    """The manifests as the templates of a chart with no values, the code beside it."""
    files = {
        "deploy/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "deploy/shop/values.yaml": "{}\n",
        **{f"deploy/shop/templates/{name}": text for name, text in manifests.items()},
    }
    _write(root, {**beside, **files})
    return _verdicts(root)


def _kustomized(root: Path, manifests: Mapping[str, str], beside: Mapping[str, str]) -> None:
    resources = "".join(f"  - {name}\n" for name in manifests)
    files = {
        "deploy/base/kustomization.yaml": f"resources:\n{resources}",
        "deploy/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\n",
        **{f"deploy/base/{name}": text for name, text in manifests.items()},
    }
    _write(root, {**beside, **files})


def kustomization(root: Path, manifests: Mapping[str, str], beside: Mapping[str, str]) -> Verdicts:
    """The manifests as the resources of a base, an overlay built over it (`--kustomize`)."""
    _kustomized(root, manifests, beside)
    return _verdicts(root, "--kustomize")


def kustomization_unbuilt(
    root: Path, manifests: Mapping[str, str], beside: Mapping[str, str]
) -> Verdicts:
    """The same kustomization, walked without `--kustomize`: its files as written."""
    _kustomized(root, manifests, beside)
    return _verdicts(root)


WAYS = {
    "chart": chart,
    "kustomization": kustomization,
    "kustomization-unbuilt": kustomization_unbuilt,
}
needs_a_build = pytest.mark.skipif(
    not (shutil.which("kustomize") or shutil.which("kubectl")),
    reason="kustomize or kubectl builds a kustomization",
)


@pytest.mark.parametrize("code", [False, True], ids=["manifests-only", "with-its-code"])
@pytest.mark.parametrize(
    "way",
    [pytest.param(w, marks=needs_a_build) if w == "kustomization" else w for w in sorted(WAYS)],
)
def test_a_workload_gets_the_same_verdict_as_plain_yaml_a_chart_or_a_kustomization(
    tmp_path: Path, way: str, code: bool
) -> None:
    beside = CODE if code else {}
    expected = plain(tmp_path / "plain", WORKLOADS, beside)
    assert WAYS[way](tmp_path / way, WORKLOADS, beside) == expected


def test_each_workload_gets_the_verdict_its_evidence_makes(tmp_path: Path) -> None:
    """What the comparison above holds the same: the scaled gRPC backend is the textbook
    warning; the one-replica stores and the bare Pod are info (no second pod takes their
    traffic); the web
    Deployment's missing probe and pause are warnings. With its code in the tree, the
    gRPC server's own findings (in app.py) come on top of the manifests' verdicts, which
    the code does not change."""
    found = plain(tmp_path / "bare", WORKLOADS, {})
    by_rule = {(ref, rule): severity for ref, _, rule, severity in found}
    assert by_rule[("Service/shop/orders", "KLB101")] == "warning"
    for ref in ("Deployment/shop/orders", "Deployment/shop/web", "Deployment/default/site"):
        assert by_rule[(ref, "KLB302")] == by_rule[(ref, "KLB401")] == "warning"
    for ref in ("Deployment/shop/db", "StatefulSet/shop/cache", "Pod/shop/demo"):
        assert by_rule[(ref, "KLB302")] == by_rule[(ref, "KLB401")] == "info"
    assert by_rule[("Deployment/shop/geo", "KLB401")] == "warning"  # no code: no registry


def test_evidence_in_the_code_moves_a_verdict_alike_in_every_way(tmp_path: Path) -> None:
    """With its code in the tree, the server that registers in Consul is info (its callers
    do not come through the Service), however its manifests are written; the code changes
    no other workload's verdict, and adds the code's own findings (in no object)."""
    bare = plain(tmp_path / "bare", WORKLOADS, {})
    with_code = plain(tmp_path / "code", WORKLOADS, CODE)
    moved = {(ref, rule) for ref, _, rule, _ in bare ^ with_code if ref != "None/None/None"}
    assert moved == {
        ("Deployment/shop/geo", "KLB302"),
        ("Deployment/shop/geo", "KLB401"),
        ("Service/shop/geo", "KLB101"),  # the port's protocol: the code's gRPC server
    }
    by_rule = {(ref, rule): severity for ref, _, rule, severity in with_code}
    assert by_rule[("Deployment/shop/geo", "KLB302")] == "info"
    assert by_rule[("Deployment/shop/geo", "KLB401")] == "info"


def test_a_chart_whose_values_set_other_replicas_may_rightly_differ(tmp_path: Path) -> None:
    """Not a difference of the way it is written: the chart's values make another workload
    (three replicas of the store), and three replicas have a second pod to take the
    traffic, so its missing probe and pause are warnings there."""
    templated = ONE_REPLICA_STORE.replace("replicas: 1", "replicas: {{ .Values.replicas }}")
    files = {
        "deploy/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
        "deploy/shop/values.yaml": "replicas: 3\n",
        "deploy/shop/templates/store.yaml": templated,
    }
    _write(tmp_path, files)
    severities = {(rule, severity) for _, _, rule, severity in _verdicts(tmp_path)}
    assert severities == {("KLB302", "warning"), ("KLB401", "warning")}
    assert {
        (r, s) for _, _, r, s in plain(tmp_path / "plain", {"s.yaml": ONE_REPLICA_STORE}, {})
    } == {
        ("KLB302", "info"),
        ("KLB401", "info"),
    }


@needs_a_build
def test_an_overlay_that_sets_other_replicas_is_judged_alike_built_and_as_written(
    tmp_path: Path,
) -> None:
    """An overlay's `replicas:` field is read as written too (a kustomization's replicas
    make the workloads of its build of that name scaled), so built (`--kustomize`) and
    walked as written, the overlay's three replicas are the workload the cluster gets."""
    manifests = {"store.yaml": ONE_REPLICA_STORE}
    _kustomized(tmp_path, manifests, {})
    overlay = tmp_path / "deploy/overlays/prod/kustomization.yaml"
    overlay.write_text(overlay.read_text() + "replicas:\n  - {name: db, count: 3}\n")
    built = {(rule, severity) for _, _, rule, severity in _verdicts(tmp_path, "--kustomize")}
    assert built == {("KLB302", "warning"), ("KLB401", "warning")}
    written = {(rule, severity) for _, _, rule, severity in _verdicts(tmp_path)}
    assert written == built
