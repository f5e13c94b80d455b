"""Kubernetes objects as read from manifests, with positions: what the reader makes of each
document and every later stage reads.

Rules key on the API group and the kind together (a Knative `serving.knative.dev` Service is
not a core Service), so every kind k8slb understands is listed once here, in `KINDS`.
"""

from __future__ import annotations

import pickle
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from k8slb.core.findings import ObjectRef
from k8slb.data_pickle import load_part
from k8slb.reading.yamltree import Pos, YMap
from k8slb.record import record


@record
class KindSpec:
    shape: str  # the `$defs` entry of schemas/manifest-shapes.json that validates it
    template_path: tuple[str, ...] | None = None  # where its pod template is; () = the object
    serves: bool = True  # Jobs and CronJobs run to completion and never serve a Service


_APPS_TEMPLATE = ("spec", "template")
KINDS: dict[tuple[str, str], KindSpec] = {
    ("", "Service"): KindSpec("Service"),
    ("", "Namespace"): KindSpec("Namespace"),
    ("", "Pod"): KindSpec("Pod", template_path=()),
    ("", "ReplicationController"): KindSpec("ReplicationController", _APPS_TEMPLATE),
    ("batch", "Job"): KindSpec("Workload", _APPS_TEMPLATE, serves=False),
    ("batch", "CronJob"): KindSpec(
        "CronJob", ("spec", "jobTemplate", "spec", "template"), serves=False
    ),
    ("argoproj.io", "Rollout"): KindSpec("Workload", _APPS_TEMPLATE),
    ("autoscaling", "HorizontalPodAutoscaler"): KindSpec("HorizontalPodAutoscaler"),
    ("keda.sh", "ScaledObject"): KindSpec("ScaledObject"),
}
for _group in ("apps", "extensions"):
    for _kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        KINDS[(_group, _kind)] = KindSpec("Workload", _APPS_TEMPLATE)


def api_group(api_version: str) -> str:
    """`apps/v1` -> `apps`; the core group (`v1`) is ``""``."""
    return api_version.rpartition("/")[0]


def dig(data: Any, *keys: str) -> Any:
    """`data[k1][k2]...`, or None when a step is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _identifier(value: Any) -> str | None:
    """A name or namespace as text; a mapping or a list there is no name at all (KLB002
    reports its shape), and must not travel on as one."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, str | int | float) else None


@dataclass(eq=False)  # an object is itself: the index and the rules key them by identity
class K8sObject:
    """One Kubernetes object. Its identity, and what the index reads of every object, are
    read once, when it is made: rules and the index ask for them over and over. Pickled
    (the parse cache), its body travels as a pickle of its own, loaded when something asks
    for it: a pre-commit run judges a few objects among thousands, and the index finds
    the few it needs of the others by what it reads here."""

    path: str
    document: int
    item: int | None
    api_version: str
    kind: str
    _body: YMap | bytes  # bytes: the pickled body, until first asked for
    group: str = field(init=False)
    spec: KindSpec | None = field(init=False)
    name: str | None = field(init=False)
    namespace: str | None = field(init=False)
    labels: dict[str, str] = field(init=False)
    ref: ObjectRef = field(init=False)
    # What the index (index.py) reads of every object: the pod template's labels (None:
    # no pod template), a Service's selector, type and whether it is headless, and what an
    # autoscaler scales (its kind and name).
    template_labels: dict[str, str] | None = field(init=False)
    selector: dict[str, str] = field(init=False)
    service_type: str = field(init=False)
    headless: bool = field(init=False)
    scale_target: tuple[str, Any] | None = field(init=False)
    _annotations: dict[str, str] | None = field(init=False, default=None)
    # the separable fields (reading/shapes.py) left out for their wrong shape: the rules
    # that read one of them skip the object (Rule.reads)
    damaged: frozenset[str] = field(init=False, default=frozenset())

    def __post_init__(self) -> None:
        body = self.body
        self.group = api_group(self.api_version)
        self.spec = KINDS.get((self.group, self.kind))
        self.name = _identifier(dig(body, "metadata", "name"))
        self.namespace = _identifier(dig(body, "metadata", "namespace"))
        self.labels = dig(body, "metadata", "labels") or {}
        self.ref = ObjectRef(self.kind, self.namespace, self.name, self.document, self.item)
        template = self.template_node()
        self.template_labels = (
            dig(template, "metadata", "labels") or {} if template is not None else None
        )
        selector = dig(body, "spec", "selector")
        self.selector = dict(selector) if isinstance(selector, dict) else {}
        kind = dig(body, "spec", "type")
        self.service_type = kind if isinstance(kind, str) else "ClusterIP"
        self.headless = bool(dig(body, "spec", "clusterIP") == "None")
        self.scale_target = None
        if self.is_a("autoscaling", "HorizontalPodAutoscaler") or self.is_a(
            "keda.sh", "ScaledObject"
        ):
            ref = dig(body, "spec", "scaleTargetRef") or {}
            target = ref.get("kind") or "Deployment"  # KEDA's default target
            self.scale_target = (target, ref.get("name", ""))

    @property
    def body(self) -> YMap:
        body = self._body
        if isinstance(body, bytes):
            body = self._body = load_part(body, YMap, self.path)
        return body

    def load(self) -> None:
        """Unpickle the body now, if it is still a pickle (see `body`)."""
        self.body  # noqa: B018  # the property unpickles it

    @property
    def annotations(self) -> dict[str, str]:
        if self._annotations is None:
            self._annotations = dig(self.body, "metadata", "annotations") or {}
        return self._annotations

    def __reduce__(self) -> tuple[Any, ...]:
        body = self._body
        blob = body if isinstance(body, bytes) else pickle.dumps(body, pickle.HIGHEST_PROTOCOL)
        header = (self.path, self.document, self.item, self.api_version, self.kind)
        facts = (self.name, self.namespace, self.labels, self.ref, self.template_labels)
        service = (self.selector, self.service_type, self.headless, self.scale_target)
        return (_object, (header, facts, service, blob, self.damaged))

    def __copy__(self) -> K8sObject:
        copied: K8sObject = _new_object(K8sObject)
        copied.__dict__.update(self.__dict__)
        return copied

    @property
    def pos(self) -> Pos:
        return self.body.pos

    @property
    def root_path(self) -> tuple[str | int, ...]:
        """Where the object is in its YAML document: the root, or an item of a List."""
        return () if self.item is None else ("items", self.item)

    def may_mention(self, words: Collection[str]) -> bool:
        """False only when no string in the body can hold one of `words` (lowercase ASCII
        letters, digits and dashes) once lower-cased. A body not read yet is searched as the
        pickle it is kept in, which holds each string as its UTF-8 bytes: a pre-commit run
        looks for a few names without loading thousands of bodies."""
        body = self._body
        if not isinstance(body, bytes) or any(char in body for char in _LOWER_TO_ASCII):
            return True
        lowered = body.lower()  # ASCII letters only: the others' lower cases are not ASCII
        return any(word.encode() in lowered for word in words)

    def is_a(self, group: str, kind: str) -> bool:
        return self.group == group and self.kind == kind

    def template_node(self) -> YMap | None:
        """The pod template (or the Pod itself), when the object has one with a `spec`."""
        spec = self.spec
        if spec is None or spec.template_path is None:
            return None
        node = dig(self.body, *spec.template_path) if spec.template_path else self.body
        if not isinstance(node, YMap) or not isinstance(node.get("spec"), YMap):
            return None
        return node


_new_object = object.__new__
# The only characters outside ASCII whose lower case holds an ASCII letter (the Kelvin
# sign's is k; a dotted capital I's is i and a combining dot), as UTF-8.
_LOWER_TO_ASCII = ("\u212a".encode(), "\u0130".encode())


def _object(
    header: tuple[str, int, int | None, str, str],
    facts: tuple[str | None, str | None, dict[str, str], ObjectRef, dict[str, str] | None],
    service: tuple[dict[str, str], str, bool, tuple[str, Any] | None],
    blob: bytes,
    damaged: frozenset[str],
) -> K8sObject:
    """A K8sObject as `__reduce__` pickled it: its body left as bytes until asked for."""
    obj: K8sObject = _new_object(K8sObject)
    obj.path, obj.document, obj.item, obj.api_version, obj.kind = header
    obj.name, obj.namespace, obj.labels, obj.ref, obj.template_labels = facts
    obj.selector, obj.service_type, obj.headless, obj.scale_target = service
    obj.group = api_group(obj.api_version)
    obj.spec = KINDS.get((obj.group, obj.kind))
    obj._body, obj._annotations, obj.damaged = blob, None, damaged
    return obj
