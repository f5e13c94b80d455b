"""The shape check behind KLB002: the fast validator and jsonschema agree on what is
well-formed (the messages are tested with the bad input)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.reading.manifests import load_manifests
from k8slb.reading.objects import KINDS
from k8slb.reading.shapes import _validator, is_well_formed

from .helpers import CORPUS, FIXTURES


def _objects(folders: list[Path]) -> list[tuple[str, Any]]:
    """(shape, body) of every object in the YAML files under `folders`."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.y*ml")):
            for o in load_manifests(str(path), path.read_bytes()).objects:
                found.append((o.spec.shape if o.spec else "Object", o.body))
    return found


# Kinds the fixtures do not hold, so that every shape is covered without ../shared.
OTHER_KINDS = b"""\
apiVersion: v1
kind: Pod
metadata: {name: lone, namespace: shop}
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: app:1
    ports: [{name: grpc, containerPort: 50051}]
    readinessProbe: {grpc: {port: 50051}, periodSeconds: 5}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: old, namespace: shop}
spec:
  replicas: 2
  selector: {app: old}
  template:
    metadata: {labels: {app: old}}
    spec:
      containers: [{name: app, image: "app:1", ports: [{containerPort: 8080}]}]
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: scale, namespace: shop}
spec:
  scaleTargetRef: {name: old}
  minReplicaCount: 1
  maxReplicaCount: 10
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: inventory, namespace: shop}
spec:
  template:
    spec:
      containers:
      - image: registry.example/inventory:1
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /ready}}
"""

EVERY_OBJECT = [
    (o.spec.shape if o.spec else "Object", o.body)
    for o in load_manifests("other-kinds.yaml", OTHER_KINDS).objects
] + _objects([FIXTURES] + ([CORPUS] if CORPUS.is_dir() else []))
OBJECTS = [  # a few of each shape, mutated below
    pair
    for shape in sorted({shape for shape, _ in EVERY_OBJECT})
    for pair in [p for p in EVERY_OBJECT if p[0] == shape][:4]
]

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 70000)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["name", "port", "x", "seconds"]), children, max_size=3)
    ),
    max_leaves=6,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _plain(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


@settings(max_examples=600, deadline=None)
@given(st.data())
def test_fast_validity_agrees_with_jsonschema(data: st.DataObject) -> None:
    shape, body = data.draw(st.sampled_from(OBJECTS))
    mutated = copy.deepcopy(_plain(body))
    path = data.draw(st.sampled_from(_paths(mutated)))
    target = mutated
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = data.draw(JSON_VALUES)
    jsonschema_ok = not any(_validator(shape).iter_errors(mutated))
    assert is_well_formed(mutated, shape) == jsonschema_ok  # type: ignore[arg-type]


def test_every_shape_is_covered_and_every_real_object_is_judged_alike() -> None:
    shapes = {shape for shape, _ in EVERY_OBJECT}
    assert {spec.shape for spec in KINDS.values()} | {"Object"} <= shapes
    for shape, body in EVERY_OBJECT:
        assert is_well_formed(body, shape) == (not any(_validator(shape).iter_errors(body)))
