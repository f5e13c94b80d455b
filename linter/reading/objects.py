"""Kubernetes objects as read from manifests, with positions: what the reader makes of each
document and every later stage reads.

Rules key on the API group and the kind together (a Knative `serving.knative.dev` Service is
not a core Service), so every kind k8slb understands is listed once here, in `KINDS`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from k8slb.core.findings import ObjectRef
from k8slb.core.record import record
from k8slb.reading.yamltree import Pos, YMap


@record
class KindSpec:
    shape: str  # the `$defs` entry of schemas/manifest-shapes.json that validates it
    template_path: tuple[str, ...] | None = None  # where its pod template is; () = the object
    serves: bool = True  # Jobs and CronJobs run to completion and never serve a Service
    # whether the rules judge it: a Knative Service's pods are drained and probed by
    # Knative's own proxy, so only the code its containers run is linked (explain-links)
    judged: bool = True


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
    # a Knative Service runs its pod template's containers as a Deployment of its own does
    ("serving.knative.dev", "Service"): KindSpec(
        "KnativeService", _APPS_TEMPLATE, serves=False, judged=False
    ),
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
    read once, when it is made: rules and the index ask for them over and over. (From the
    cache, an object's body is loaded when first read: parse_codec.py.)"""

    path: str
    document: int
    item: int | None
    api_version: str
    kind: str
    body: YMap
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

    def load(self) -> None:
        """Have the body at hand (one from the cache is loaded when first read)."""

    @property
    def annotations(self) -> dict[str, str]:
        if self._annotations is None:
            self._annotations = dig(self.body, "metadata", "annotations") or {}
        return self._annotations

    def __copy__(self) -> K8sObject:
        copied: K8sObject = object.__new__(type(self))
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
        letters, digits and dashes) once lower-cased: a body at hand may hold any (one from
        the cache, not read yet, is searched as its pickle: parse_codec.py)."""
        return True

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
