"""Deployment units: which objects are applied together, so that a Service only ever meets
the pods of its own unit.

A chart's render is a unit, and so is a kustomization's build. Plain manifests are one unit
unless the tree holds alternatives: a repository that keeps a folder per variant (L4,
headless, Ingress, mesh) or several copies of an example has objects of the same kind,
namespace and name in different files, which no one applies together. So has a tree whose
folders each hold a workload of the same kind and namespace under another name but with the
same pod selector (`grpc/` and `rest/`, each with its own Deployment of `app: service-a`):
applied together, two such controllers would fight over one set of pods, which Kubernetes
warns against, so they are copies of one app, not parts of one deployment. (Two files of
one folder with such workloads are not taken for alternatives: the folder may be applied
whole.) Where two files define the same object, the folder where their paths part holds
variants: each of its entries that defines such an object is a variant of its own, and its
other entries (the common parts) go with every variant.

A plain file in a test's data (`testdata/` below the folder named: model/test_data.py) is
applied by no deploy tool: the files of each such folder are a unit of their own, so that
a test's copy of a Service never selects the repository's pods, nor its pods make a real
Service look served.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping

from k8slb.core.paths import path_parts
from k8slb.model.objects import namespace_key
from k8slb.reading.objects import K8sObject

Folder = tuple[str, ...]
# (where the objects come from: "" for plain files, else the chart or kustomization;
#  for each folder of variants above the file, the variant it is in)
Unit = tuple[str, tuple[tuple[Folder, str], ...]]
PLAIN: Unit = ("", ())
# what the unit of a test's data's plain files starts with (then the folder of the data)
TEST_DATA_UNIT = "test data: "


def compatible(one: Unit, other: Unit) -> bool:
    """Whether objects of two units may be applied together."""
    if one[0] != other[0]:
        return False
    if not one[1] or not other[1]:
        return True
    chosen = dict(one[1])
    return all(chosen.get(folder, variant) == variant for folder, variant in other[1])


def deployment_units(
    objects: Iterable[K8sObject],
    rendered_from: Mapping[str, str],
    test_data: Mapping[str, str] | None = None,
) -> dict[str, Unit]:
    """The unit of each file that holds objects, by path (rendered files: their chart's or
    kustomization's path). A plain file in a test's data (`test_data`: its path,
    normalised, to the folder of the test's data) is of that folder's unit, never applied
    with the repository's own files; its copies of them make no variants of theirs."""
    apart = test_data or {}
    paths_of: dict[tuple[str, str, str, str, str], set[str]] = defaultdict(set)
    # the files of the workloads of each kind, namespace and pod selector
    selecting: dict[tuple[str, str, str, str, str], set[str]] = defaultdict(set)
    files: set[str] = set()
    for obj in objects:
        files.add(obj.path)
        if obj.name is not None and obj.path not in rendered_from:
            # one that names no namespace is applied in `default`, as one that names it
            namespace = namespace_key(obj.namespace)
            # (a path normalised only where a test's data is: some 10,000 objects a hook)
            among = apart.get(os.path.normpath(obj.path), "") if apart else ""
            paths_of[(among, obj.group, obj.kind, namespace, obj.name)].add(obj.path)
            selector = _selector(obj)
            if selector is not None:
                selecting[(among, obj.group, obj.kind, namespace, selector)].add(obj.path)
    variants: dict[Folder, set[str]] = defaultdict(set)
    for paths in paths_of.values():
        _add_variants(variants, paths, across_folders=False)
    for paths in selecting.values():
        _add_variants(variants, paths, across_folders=True)
    units: dict[str, Unit] = {}
    for path in files:
        source = rendered_from.get(path)
        if source is not None:
            units[path] = (source, ())
            continue
        parts = path_parts(path)
        chosen = tuple(
            (parts[:depth], parts[depth])
            for depth in range(len(parts))
            if parts[depth] in variants.get(parts[:depth], ())
        )
        folder = apart.get(os.path.normpath(path)) if apart else None
        units[path] = (f"{TEST_DATA_UNIT}{folder}" if folder else "", chosen)
    return units


def _add_variants(
    variants: dict[Folder, set[str]], paths: set[str], *, across_folders: bool
) -> None:
    """The variants the files of one object (or one pod selector) make: each two part at a
    folder, where each is in an entry of its own (a file, or a folder holding it). With
    `across_folders`, two files of one folder are not each other's variants. Read as a
    tree of the paths: the entries of a folder that hold some file are the variants
    there, when there are two."""
    if len(paths) < 2:
        return
    entries: dict[Folder, set[str]] = defaultdict(set)  # folder -> entries holding a file
    folders: dict[Folder, set[str]] = defaultdict(set)  # those that are folders
    for path in paths:
        parts = path_parts(path)
        for depth in range(len(parts)):
            entries[parts[:depth]].add(parts[depth])
            if depth < len(parts) - 1:
                folders[parts[:depth]].add(parts[depth])
    for folder, held in entries.items():
        if across_folders and len(held - folders[folder]) > 1:
            held = folders[folder]  # files of one folder: not each other's variants
        if len(held) >= 2:
            variants[folder].update(held)


_WORKLOADS = frozenset(("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"))


def _selector(obj: K8sObject) -> str | None:
    """A workload's pod selector (its `matchLabels` alone), as one text; None for other
    kinds and selectors. Read from what every object keeps of its `spec.selector`, not
    its body: a pre-commit run's objects from the cache leave their bodies unread."""
    if obj.kind not in _WORKLOADS:
        return None
    labels: object = obj.selector.get("matchLabels")  # a map, though typed by its keys
    if not isinstance(labels, dict) or not labels or "matchExpressions" in obj.selector:
        return None
    return repr(sorted((str(k), str(v)) for k, v in labels.items()))


# The API groups of Kubernetes itself (its API reference): among their kinds only the
# workloads reading/objects.py reads (a Pod, or a pod template) run pods.
_BUILT_IN_GROUPS = frozenset(
    {
        *("", "apps", "batch", "extensions", "autoscaling", "policy", "networking.k8s.io"),
        *("rbac.authorization.k8s.io", "storage.k8s.io", "scheduling.k8s.io", "node.k8s.io"),
        *("admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io"),
        *("coordination.k8s.io", "discovery.k8s.io", "certificates.k8s.io", "events.k8s.io"),
        *("flowcontrol.apiserver.k8s.io", "resource.k8s.io", "storagemigration.k8s.io"),
    }
)
# Custom resources whose projects document them as configuration that starts no pod
# (routes, policies, certificates, scrape targets, autoscaling); a kind left out of a
# group here (Prometheus, Alertmanager of monitoring.coreos.com; KEDA's ScaledJob; a
# Gateway, which some implementations deploy a proxy for) may run pods.
_CONFIG_ONLY: dict[str, frozenset[str] | None] = {  # group -> its kinds (None: all)
    "monitoring.coreos.com": frozenset(
        {"ServiceMonitor", "PodMonitor", "PrometheusRule", "Probe", "AlertmanagerConfig"}
    ),
    "cert-manager.io": None,
    "gateway.networking.k8s.io": frozenset(
        {"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute", "ReferenceGrant"}
    ),
    "networking.istio.io": frozenset(
        {"VirtualService", "DestinationRule", "ServiceEntry", "Sidecar", "EnvoyFilter"}
    ),
    "security.istio.io": None,
    "keda.sh": frozenset({"ScaledObject", "TriggerAuthentication", "ClusterTriggerAuthentication"}),
    "autoscaling.k8s.io": frozenset({"VerticalPodAutoscaler"}),
    "projectcontour.io": frozenset({"HTTPProxy", "TLSCertificateDelegation"}),
    "traefik.io": None,
    "traefik.containo.us": None,
    "external-secrets.io": frozenset({"ExternalSecret", "SecretStore", "ClusterSecretStore"}),
    "bitnami.com": frozenset({"SealedSecret"}),
}


def may_run_unseen_pods(obj: K8sObject) -> bool:
    """Whether the object may have pods run that k8slb does not see: a custom resource an
    operator may turn into pods (a Prometheus, a Kafka cluster) and labels as it likes,
    unless it is of a built-in API group or a kind documented as configuration only."""
    if obj.group in _BUILT_IN_GROUPS or obj.template_labels is not None:
        return False  # a workload k8slb reads (a Rollout too): its pods are seen
    kinds = _CONFIG_ONLY.get(obj.group, frozenset())
    return kinds is not None and obj.kind not in kinds
