"""YAML that is not applied as it stands is not read as objects deployed.

An object that names itself nowhere (no `metadata.name`, no `generateName`) cannot be
created by kubectl, kustomize or Helm: it is a fragment, a state a test waits for or a
patch, and no rule judges it. Only where a kustomization lists its file among its
resources is it an error (kustomize refuses to build it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

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


# A chainsaw test: applies the app, then waits for a Service and a pod as the cluster holds
# them (named, both are patterns too: the shapes match, whatever else the objects hold)
CHAINSAW = """\
apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: cart-rollout
spec:
  steps:
    - name: install
      try:
        - apply:
            file: install.yaml
        - assert:
            file: install.yaml
    - name: wait for the cart
      try:
        - assert:
            timeout: 2m
            file: ../shared/cart-ready.yaml
      catch:
        - error:
            file: cart-crashing.yaml
"""
# a Service as a test waits for it: its labels matched by an expression of the runner
SERVICE_WAITED_FOR = """\
apiVersion: v1
kind: Service
metadata:
  name: cart
  namespace: shop
  labels:
    (contains(keys(@), 'app')): true
spec:
  selector:
    app: cart
"""
CRASHING = """\
apiVersion: v1
kind: Pod
metadata:
  name: cart-0
  namespace: shop
  labels:
    app: cart
spec:
  containers:
    - name: cart
status:
  phase: Failed
"""


def test_what_a_chainsaw_test_asserts_is_a_pattern(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {
        "e2e/cart/chainsaw-test.yaml": CHAINSAW,
        "e2e/cart/install.yaml": SERVICE + "---\n" + POD.format(name="  name: cart\n"),
        "e2e/shared/cart-ready.yaml": SERVICE_WAITED_FOR,
        "e2e/cart/cart-crashing.yaml": CRASHING,
    }
    found = _paths(lint_files(tmp_path, files).findings)
    # what it applies (and asserts after) is deployed: judged
    assert ("KLB401", "install.yaml") in found
    assert {name for _, name in found} == {"install.yaml"}


def test_a_file_no_runner_names_is_judged(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {"e2e/shared/cart-ready.yaml": SERVICE_WAITED_FOR}
    found = _paths(lint_files(tmp_path, files).findings)
    assert ("KLB002", "cart-ready.yaml") in found


def test_kuttl_assertions_by_name_and_by_test_step(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    step = (
        "apiVersion: kuttl.dev/v1beta1\nkind: TestStep\napply:\n  - ../app/install.yaml\n"
        "assert:\n  - ../app/cart-listening.yaml\n"
    )
    files = {
        "kuttl/cart/00-install.yaml": SERVICE,
        "kuttl/cart/01-assert.yaml": POD.format(name="  name: cart-0\n"),
        "kuttl/cart/02-errors.yaml": CRASHING,
        "kuttl/cart/03-step.yaml": step,
        "kuttl/app/cart-listening.yaml": POD.format(name="  name: cart-1\n"),
    }
    found = _paths(lint_files(tmp_path, files).findings)
    assert not {name for _, name in found} & {
        "01-assert.yaml",
        "02-errors.yaml",
        "cart-listening.yaml",
    }
    files["kuttl/cart/01-assert.yaml"] = ""
    files["kuttl/cart/01-pods.yaml"] = POD.format(name="  name: cart-0\n")
    found = _paths(lint_files(tmp_path, files).findings)
    assert ("KLB401", "01-pods.yaml") in found


# A manifest a program fills in before it applies it: `#{NAME}` is replaced in the text,
# and YAML, reading `#` as a comment, sees an empty value there
FILLED_BY_CODE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: scheduler
  namespace: #{TENANT_NAMESPACE}
spec:
  selector:
    matchLabels:
      app: scheduler
  template:
    metadata:
      labels:
        app: scheduler
    spec:
      containers:
        - name: scheduler
          image: registry.example/scheduler:2.0
          args:
            - --tenant
            - #{TENANT_ID}
            -{empty}
"""


def test_a_value_wholly_a_placeholder_the_code_fills_is_no_wrong_shape(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {"templates/scheduler.yaml": FILLED_BY_CODE.replace("{empty}", " --verbose")}
    assert lint_files(tmp_path, files, ["KLB002"]).findings == []


# A resource a web app's Python code fills with `str.format` before it creates it: YAML
# reads each `{field}` as a mapping of one key and no value
FORMATTED_BY_CODE = """\
apiVersion: serving.example.io/v1
kind: Predictor
metadata:
  name: {name}
  namespace: {namespace}
spec:
  model:
    format: {model_format}
    storageUri: {storage_uri}
"""


def test_a_value_wholly_a_str_format_field_is_no_wrong_shape(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {"backend/templates/predictor.yaml": FORMATTED_BY_CODE}
    assert lint_files(tmp_path, files, ["KLB002"]).findings == []


@pytest.mark.parametrize("value", ["{app: web}", "{name: }", "{a, b}"])
def test_a_flow_mapping_that_is_no_lone_field_is_still_a_wrong_shape(
    tmp_path: Path, value: str
) -> None:
    """A mapping with a value, or of two keys, is written as one: a name must be a string."""
    (tmp_path / ".git").mkdir()
    files = {"predictor.yaml": FORMATTED_BY_CODE.replace("name: {name}", f"name: {value}")}
    findings = lint_files(tmp_path, files, ["KLB002"]).findings
    assert {(f.rule, f.line) for f in findings} == {("KLB002", 4)}


def test_an_empty_value_written_as_such_is_still_a_wrong_shape(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = {"templates/scheduler.yaml": FILLED_BY_CODE.replace("{empty}", "  # {TENANT_ID}")}
    findings = lint_files(tmp_path, files, ["KLB002"]).findings
    assert [(f.rule, f.line) for f in findings] == [("KLB002", 21)]
