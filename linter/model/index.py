"""The cross-file picture rules ask about: which workloads and containers a Service selects
and targets, whether a workload is meshed, and what scales it."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import PurePath
from typing import Any

from k8slb.core.findings import ObjectRef
from k8slb.core.paths import parent_folder
from k8slb.core.record import record
from k8slb.languages.java.parse_spring import environment_name, quoted_key_form
from k8slb.model.objects import (
    Container,
    PodTemplate,
    namespace_key,
    only_waits,
    pod_template,
    probe_port,
    service_ports,
    target_port,
)
from k8slb.model.routes import key_of, routed_ports
from k8slb.model.traffic import (
    CLIENTS,
    Purpose,
    caller_texts,
    named_ports,
    pods_scrape_port,
    purpose,
    scrape_port,
    scraped_ports,
)
from k8slb.model.units import PLAIN, TEST_DATA_UNIT, Unit, compatible, may_run_unseen_pods
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq


@record
class Target:
    """A container port that a Service port sends traffic to."""

    service: K8sObject
    service_port: YMap  # the entry of the Service's `spec.ports`
    workload: K8sObject
    container: Container
    number: int | None  # the container port number, when known
    named: bool  # the Service targets it by name (true) or by number


@record
class EnvSetting:
    """A literal `env` entry of a container: where a client's address may come from."""

    workload: K8sObject
    container: Container
    value: str
    entry: YMap
    index: int  # of the entry in the container's `env`


# Read when the object is made (objects.py), so that the index reads no body.
def is_headless(service: K8sObject) -> bool:
    return service.headless


def service_type(service: K8sObject) -> str:
    return service.service_type


def selector_of(service: K8sObject) -> dict[str, str]:
    return dict(service.selector)


class Index:
    """Built once per run from every well-formed object of every file. Lookups go through
    tables keyed by namespace and label, so a monorepo of thousands of Services costs
    linear time, not Services × workloads. The tables are made of what each object read
    when it was made: an object's body (and its pod template) is read only when a lookup
    returns it, and a cached parse loads only those."""

    def __init__(
        self,
        objects: Iterable[K8sObject],
        mesh: str = "none",
        units: Mapping[str, Unit] | None = None,
        manifest_files: Iterable[str] = (),
        namespaces_elsewhere: Iterable[K8sObject] = (),
        built_replicas: Mapping[tuple[str, ObjectRef], tuple[str, int]] | None = None,
        built_in: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self.objects = list(objects)
        self.built_replicas = built_replicas or {}  # model/patched.py's `scaled`
        self.built_in = built_in or {}  # model/patched.py's: the builds holding each file
        self.mesh = mesh
        # which objects are applied together (units.py), by file: none given, one unit
        self.units: Mapping[str, Unit] = units or {}
        # how many manifest files the run read in each folder (none given: each file alone)
        self._files_in: dict[str, int] = defaultdict(int)
        for path in set(manifest_files):
            self._files_in[parent_folder(path)] += 1
        self.services: list[K8sObject] = []
        self.workload_objects: list[K8sObject] = []  # those with a pod template
        # A Namespace is the cluster's: one another kustomization writes still labels the
        # pods of this one's workloads (mesh injection); a Namespace of its own comes first.
        self.namespaces = {o.name: o for o in reversed(list(namespaces_elsewhere)) if o.name}
        self._scalers: dict[tuple[str, str, Any], list[K8sObject]] = defaultdict(list)
        # folder -> the namespace its kustomization sets (`namespace:`), read as written
        self._kustomized: dict[str, str] = {}
        # (namespace, name) -> the PersistentVolumeClaims of that name
        self._claims: dict[tuple[str, str], list[K8sObject]] = defaultdict(list)
        # (namespace, name) -> the ConfigMaps of that name
        self._config_maps: dict[tuple[str, str], list[K8sObject]] = defaultdict(list)
        # the ConfigMaps and Secrets in order, what a configuration may dial (dialers.py)
        self.configs: list[K8sObject] = []
        # (namespace, label, value) -> the workloads whose pod template carries that label
        self._by_label: dict[tuple[str, str, str], list[K8sObject]] = defaultdict(list)
        self._templates: dict[int, PodTemplate] = {}
        self._workloads: list[tuple[K8sObject, PodTemplate]] | None = None
        self._unseen_pods: bool | None = None  # whether an object may run pods unseen
        # (label, value) -> the workloads whose pod template carries it, in any namespace
        self._by_label_anywhere: dict[tuple[str, str], list[K8sObject]] = {}
        for obj in self.objects:
            if obj.is_a("", "Service"):
                self.services.append(obj)
            elif obj.is_a("", "Namespace") and obj.name:
                self.namespaces[obj.name] = obj
            elif obj.is_a("kustomize.config.k8s.io", "Kustomization"):
                self._note_namespace(obj)
            elif obj.scale_target is not None:
                kind, name = obj.scale_target
                self._scalers[(namespace_key(obj.namespace), kind, name)].append(obj)
            elif obj.is_a("", "PersistentVolumeClaim") and obj.name:
                self._claims[(namespace_key(obj.namespace), obj.name)].append(obj)
            elif obj.is_a("", "ConfigMap") and obj.name:
                self._config_maps[(namespace_key(obj.namespace), obj.name)].append(obj)
            if obj.is_a("", "ConfigMap") or obj.is_a("", "Secret"):
                self.configs.append(obj)
            labels = obj.template_labels
            if labels is not None:
                self.workload_objects.append(obj)
                for label, value in labels.items():
                    self._by_label[(namespace_key(obj.namespace), label, value)].append(obj)
        self._index_services()
        self._selected: dict[int, list[tuple[K8sObject, PodTemplate]]] = {}
        self._targets: dict[int, list[Target]] = {}
        self._by_port: dict[int, dict[int, list[Target]]] = {}
        self._serving: dict[int, dict[str, list[Target]]] = {}
        self._selecting_in: dict[str, dict[int, list[K8sObject]]] = {}
        self._purposes: dict[int, Purpose] = {}
        self._scraped: dict[int, set[str]] | None = None
        self._scraped_names: dict[int, set[str]] = {}
        self._routed: dict[tuple[str, str], set[int | str] | None] | None = None
        self._caller_texts: list[tuple[str, str]] | None = None
        self._env: dict[str, list[EnvSetting]] | None = None
        self._env_by_folder: dict[str, dict[tuple[str, ...], list[EnvSetting]]] = {}

    def _index_services(self) -> None:
        """The Services by name, by namespace, and the headless ones by their selector."""
        self._services_by_name: dict[str, list[K8sObject]] = defaultdict(list)
        self._services_in: dict[str, list[K8sObject]] = defaultdict(list)
        for service in self.services:
            self._services_by_name[service.name or ""].append(service)
            self._services_in[namespace_key(service.namespace)].append(service)
        self._headless: dict[tuple[str | None, frozenset[tuple[str, str]]], list[K8sObject]]
        self._headless = defaultdict(list)
        for service in self.services:
            if is_headless(service) and selector_of(service):
                key = (namespace_key(service.namespace), frozenset(selector_of(service).items()))
                self._headless[key].append(service)

    def template(self, workload: K8sObject) -> PodTemplate:
        """A workload's pod template, made once (its body read then)."""
        template = self._templates.get(id(workload))
        if template is None:
            made = pod_template(workload)
            assert made is not None, "only objects with a pod template are workloads"
            template = self._templates[id(workload)] = made
        return template

    def share_templates(self, other: Index) -> None:
        """Take the pod templates `other` made of the workloads both have (the same
        objects): a model made again after an edit (k8slb lsp) reads no unchanged body."""
        mine = {id(w) for w in self.workload_objects}
        for key, template in other._templates.items():
            if key in mine:
                self._templates.setdefault(key, template)

    @property
    def workloads(self) -> list[tuple[K8sObject, PodTemplate]]:
        """Every workload with its pod template (every body read: a whole-tree lookup)."""
        if self._workloads is None:
            self._workloads = [(w, self.template(w)) for w in self.workload_objects]
        return self._workloads

    # -- Services and what they select -------------------------------------------------

    def selected(self, service: K8sObject) -> list[tuple[K8sObject, PodTemplate]]:
        """Workloads whose pods the Service selects: same namespace, labels match.
        A Service without a selector (manual Endpoints) selects nothing."""
        key = id(service)
        if key not in self._selected:
            self._selected[key] = [(w, self.template(w)) for w in self._selected_objects(service)]
        return self._selected[key]

    def _selected_objects(self, service: K8sObject) -> list[K8sObject]:
        selector = service.selector
        if not selector or service.service_type == "ExternalName":
            return []
        label, value = next(iter(selector.items()))
        return [
            workload
            for workload in self._by_label.get((namespace_key(service.namespace), label, value), [])
            if all((workload.template_labels or {}).get(k) == v for k, v in selector.items())
            and self.together(service, workload)
        ]

    def together(self, one: K8sObject, other: K8sObject) -> bool:
        """Whether two objects are applied together: the same deployment unit, or two
        files read as written that one kustomization's build holds (an overlay's Service
        and its base's pods, though the tree's folders make them variants)."""
        units = self.units
        if not units or one.path == other.path:
            return True
        first, second = units.get(one.path, PLAIN), units.get(other.path, PLAIN)
        if compatible(first, second):
            return True
        if first[0] or second[0] or not self.built_in:
            return False
        builds = self.built_in.get(os.path.normpath(one.path), frozenset())
        return not builds.isdisjoint(self.built_in.get(os.path.normpath(other.path), ()))

    def read_with_its_unit(self, obj: K8sObject) -> bool:
        """Whether the run read what is applied with the object, so that an object it
        names and does not find is missing rather than made elsewhere: a chart's render and
        a kustomization's build are whole; a plain file counts when another manifest of
        its folder was read too (a folder walked, not one file named alone)."""
        if self.units.get(obj.path, PLAIN)[0]:
            return True
        return self._files_in.get(parent_folder(obj.path), 0) > 1

    def podless_unit(self, service: K8sObject, incomplete: Collection[str] = ()) -> str | None:
        """The chart or kustomization whose output holds the Service when nothing the run
        read runs a pod its selector matches, else None. Only such an output is known whole
        (a chart's render, a kustomize build; not one in `incomplete`, rendered without
        some templates): a plain file may be applied with pods from files not read, so
        there no pod seen proves nothing. Pods of other outputs and files count too (the
        builds of one tree land in one cluster), in any namespace, and so does any custom
        resource an operator may make pods of (units.may_run_unseen_pods). A Service with
        no selector has its endpoints written by hand: not judged."""
        source = self.units.get(service.path, PLAIN)[0]
        selector = service.selector
        if not source or source.startswith(TEST_DATA_UNIT) or source in incomplete:
            return None
        if not selector or service.service_type == "ExternalName":
            return None
        if self._unseen_pods is None:
            self._unseen_pods = any(map(may_run_unseen_pods, self.objects))
            self._by_label_anywhere = defaultdict(list)
            for (_, label, value), workloads in self._by_label.items():
                self._by_label_anywhere[(label, value)] += workloads
        if self._unseen_pods:
            return None
        label, value = next(iter(selector.items()))
        for workload in self._by_label_anywhere.get((label, value), []):
            labels = workload.template_labels or {}
            if all(labels.get(k) == v for k, v in selector.items()):
                return None
        return source

    def targets(self, service: K8sObject) -> list[Target]:
        """Every (workload, container, port) the Service sends traffic to."""
        key = id(service)
        if key not in self._targets:
            self._targets[key] = [
                target
                for workload, template in self.selected(service)
                for port in service_ports(service)
                for target in _port_targets(service, port, workload, template)
            ]
        return self._targets[key]

    def port_targets(self, service: K8sObject, port: YMap) -> list[Target]:
        """The Service's targets through one of its ports: its targets grouped by port
        once, not filtered again for each port (a Service of thousands of ports)."""
        key = id(service)
        grouped = self._by_port.get(key)
        if grouped is None:
            grouped = self._by_port[key] = {}
            for target in self.targets(service):
                grouped.setdefault(id(target.service_port), []).append(target)
        return grouped.get(id(port), [])

    def serving(self, workload: K8sObject) -> dict[str, list[Target]]:
        """Containers of a workload that serve some Service's clients, by container name
        (the Services in the order of the index)."""
        spec = workload.spec
        if spec is None or not spec.serves:
            return {}
        key = id(workload)
        if key not in self._serving:
            found: dict[str, list[Target]] = defaultdict(list)
            for service in self.selecting(workload):
                if not self.purpose(service).carries_clients:
                    continue  # its pods' discovery or scrapes: no callers
                for target in self.targets(service):
                    if target.workload is workload and not self._only_scraped(target):
                        found[target.container.name].append(target)
            self._serving[key] = found
        return dict(self._serving[key])

    def selecting(self, workload: K8sObject) -> list[K8sObject]:
        """The Services that select the workload's pods, in the index's order: a table
        per namespace (a Service selects only in its own) of which workloads each Service
        there selects, a label lookup a Service; the ports they target are worked out only
        for the workloads asked about."""
        namespace = namespace_key(workload.namespace)
        table = self._selecting_in.get(namespace)
        if table is None:
            table = self._selecting_in[namespace] = defaultdict(list)
            for service in self._services_in.get(namespace, []):
                for selected in self._selected_objects(service):
                    table[id(selected)].append(service)
        return table.get(id(workload), [])

    def purpose(self, service: K8sObject) -> Purpose:
        """What the Service is for (traffic.py): client traffic, or only the pods' own."""
        key = id(service)
        found = self._purposes.get(key)
        if found is None:
            selected = [workload.name or "" for workload, _ in self.selected(service)]
            found = purpose(service, self.scraped(service), selected)
            if (found.role == "metrics" or found.by_name) and self.called_ports(service):
                # a caller names it: its port's name, or its own, says less than that
                found = CLIENTS
            self._purposes[key] = found
        return found

    def called_ports(self, service: K8sObject) -> set[int]:
        """The Service's port numbers a caller is seen to call: those an L7 route sends to
        (every one when a route names none), and those a ConfigMap or a container's env
        or arguments name with the Service's name (a client's URL)."""
        if self._routed is None:
            self._routed = routed_ports(self.objects)
        key = key_of(service.namespace, service.name or "")
        numbers = {n for p in service_ports(service) if isinstance(n := p.get("port"), int)}
        if key in self._routed:
            sent = self._routed[key]
            if sent is None:
                return numbers
            called = {
                n
                for p in service_ports(service)
                if isinstance(n := p.get("port"), int) and (n in sent or p.get("name") in sent)
            }
        else:
            called = set()
        if self._caller_texts is None:
            self._caller_texts = caller_texts(self.objects)
        return called | named_ports(service, self._caller_texts)

    def scraped(self, service: K8sObject) -> set[str]:
        """The names of the Service's ports that are only scraped ("" for an unnamed one):
        those a monitor or a Prometheus configuration scrapes (traffic.scraped_ports), and
        those the pods they reach show to be (traffic.pods_scrape_port)."""
        key = id(service)
        found = self._scraped_names.get(key)
        if found is None:
            if self._scraped is None:
                self._scraped = scraped_ports(self.objects)
            found = set(self._scraped.get(key, set()))
            templates = {id(workload): template for workload, template in self.selected(service)}
            for port in service_ports(service):
                reached = [
                    (templates[id(t.workload)], t.container, t.number, t.workload.name or "")
                    for t in self.port_targets(service, port)
                ]
                if pods_scrape_port(port, reached):
                    found.add(str(port.get("name") or ""))
            self._scraped_names[key] = found
        return found

    def _only_scraped(self, target: Target) -> bool:
        """Whether the target's Service port is only scraped or profiled (by its name, or
        a monitor's), and no caller names it: a lost scrape is no client's request."""
        port = target.service_port
        if not scrape_port(port, self.scraped(target.service)):
            return False
        return port.get("port") not in self.called_ports(target.service)

    def ring_of(self, workload: K8sObject) -> K8sObject | None:
        """The peer-discovery Service (traffic.py) whose pods include the workload's: its
        pods find each other, and their callers often find them, through it (a memberlist
        ring, a raft group), by pod address rather than through a ClusterIP."""
        for service in self.selecting(workload):
            if self.purpose(service).role == "peers":
                return service
        return None

    def services_named(self, name: str) -> list[K8sObject]:
        return self._services_by_name.get(name, [])

    def claim(self, workload: K8sObject, name: str) -> K8sObject | None:
        """The PersistentVolumeClaim `name` that the workload's pods mount, when it is
        applied with the workload (same namespace, same deployment unit)."""
        found = self._claims.get((namespace_key(workload.namespace), name), [])
        return next((claim for claim in found if self.together(claim, workload)), None)

    def config_map(self, workload: K8sObject, name: str) -> K8sObject | None:
        """The ConfigMap `name` that the workload's pods mount or take env from, when it is
        applied with the workload (same namespace, same deployment unit)."""
        found = self._config_maps.get((namespace_key(workload.namespace), name), [])
        return next((config for config in found if self.together(config, workload)), None)

    def serving_containers(
        self, workloads: Iterable[tuple[K8sObject, PodTemplate]] | None = None
    ) -> Iterator[tuple[K8sObject, PodTemplate, Container, list[K8sObject]]]:
        """(workload, its pod template, container, the Services it serves) for every
        serving container (of `workloads`, default all). A container whose command only
        waits (`sleep infinity`: objects.only_waits) serves nothing, selected or not, and
        neither does a workload that runs no pod (`runs_no_pod`)."""
        for workload, template in self.workloads if workloads is None else workloads:
            if self.runs_no_pod(workload):
                continue
            serving = self.serving(workload)
            for container in template.containers:
                targets = serving.get(container.name)
                if targets and not only_waits(container):
                    services = list({id(t.service): t.service for t in targets}.values())
                    yield workload, template, container, services

    def headless_twins(self, service: K8sObject) -> list[K8sObject]:
        """Headless Services that select the same pods."""
        key = (namespace_key(service.namespace), frozenset(selector_of(service).items()))
        return [
            other
            for other in self._headless.get(key, [])
            if other is not service and self.together(service, other)
        ]

    # -- Workload context ----------------------------------------------------------------

    def env_settings(self, name: str, any_case: bool = False) -> list[EnvSetting]:
        """Every container that sets the environment variable `name` to a literal (with
        `any_case`, spelt in any case where none spells it so)."""
        if self._env is None:
            self._env = defaultdict(list)
            for workload, template in self.workloads:
                for container in template.containers:
                    for setting in literal_env(workload, container):
                        self._env[str(setting.entry.get("name"))].append(setting)
        found = self._env.get(name, [])
        if not found and name.startswith("QUARKUS_"):  # a quoted map key's form
            found = [
                s for key, each in self._env.items() if quoted_key_form(key, name) for s in each
            ]
        if found or not any_case:
            return found
        wanted = name.upper()
        return [s for key, settings in self._env.items() if key.upper() == wanted for s in settings]

    @staticmethod
    def env_setting(
        workload: K8sObject, container: Container, name: str, any_case: bool = False
    ) -> EnvSetting | None:
        """The literal setting of `name` in one container's `env` (the last one counts,
        as Kubernetes keeps the last of repeated names); else of a settings key (a name
        with a dot) that Spring's and Quarkus's relaxed binding read as it, as
        addresses.loaded_env reads a ConfigMap's: `person.service.host` is their
        `PERSON_SERVICE_HOST`, or Quarkus's form of a quoted map key
        (`QUARKUS_GRPC_CLIENTS__ARENA__HOST`); else, `any_case`, of the name in another
        case."""
        settings = list(literal_env(workload, container))
        found = [s for s in settings if s.entry.get("name") == name]
        if not found and any_case:
            wanted = name.upper()
            found = [s for s in settings if str(s.entry.get("name")).upper() == wanted]
        if not found:
            found = [
                s
                for s in settings
                if isinstance(key := s.entry.get("name"), str)
                and (("." in key and environment_name(key) == name) or quoted_key_form(key, name))
            ]
        return found[-1] if found else None

    def env_settings_near(
        self, name: str, code_path: str, any_case: bool = False
    ) -> list[EnvSetting]:
        """The settings of `name` whose manifests share the most leading folders with
        `code_path`: in a monorepo each service keeps its code and manifests together."""
        key = name if not any_case else f"{name} (any case)"
        if key not in self._env_by_folder:
            by_folder: dict[tuple[str, ...], list[EnvSetting]] = defaultdict(list)
            for setting in self.env_settings(name, any_case):
                folders = PurePath(setting.workload.path).parent.parts
                for depth in range(len(folders) + 1):
                    by_folder[folders[:depth]].append(setting)
            self._env_by_folder[key] = by_folder
        by_folder = self._env_by_folder[key]
        folders = PurePath(code_path).parent.parts
        for depth in range(len(folders), -1, -1):
            if folders[:depth] in by_folder:
                return by_folder[folders[:depth]]
        return []

    def scalers(self, workload: K8sObject) -> list[K8sObject]:
        """HorizontalPodAutoscalers and KEDA ScaledObjects that target the workload."""
        found = self._scalers.get(
            (namespace_key(workload.namespace), workload.kind, workload.name or ""), []
        )
        return [scaler for scaler in found if self.together(scaler, workload)]

    def runs_no_pod(self, workload: K8sObject) -> bool:
        """Whether the workload writes `replicas: 0` and nothing gives it more (no
        autoscaler targets it, no kustomization's patch): no pod of it runs, so none is
        stopped with requests in flight or sent traffic before it is ready (a chart's
        component its values turn off by count: a cache's `replicaCount: 0`)."""
        replicas = dig(workload.body.get("spec"), "replicas")
        return type(replicas) is int and replicas == 0 and not self.scaled(workload)

    def scaled(self, workload: K8sObject) -> bool:
        """Whether more than the replicas the workload writes may run: an autoscaler
        targets it, or a kustomization's patches or `replicas:` field give it more than one
        replica in a build (an overlay's over the base's, which is judged as written)."""
        return bool(self.scalers(workload)) or (workload.path, workload.ref) in self.built_replicas

    def mesh_balancing(self, pods: Iterable[tuple[K8sObject, PodTemplate]]) -> str | None:
        """The mesh whose proxies balance each request these pods serve or send: the run's
        `--mesh`, else the one every pod is in; None when one of them is in none (or no
        pod is known). The one decision every rule about pinned connections asks: where
        it names a mesh, connections are not what requests are balanced by."""
        if self.mesh != "none":
            return self.mesh
        meshes = [self.mesh_of(workload, template) for workload, template in pods]
        return meshes[0] if meshes and all(meshes) else None

    def _note_namespace(self, kustomization: K8sObject) -> None:
        """The namespace a kustomization sets for what it builds, by its folder."""
        namespace = kustomization.body.get("namespace")
        if isinstance(namespace, str) and namespace:
            self._kustomized[str(PurePath(kustomization.path).parent)] = namespace

    def _applied_in(self, obj: K8sObject) -> str | None:
        """The object's namespace; for a resource file read as written (no --kustomize)
        that names none, the one the nearest kustomization above it sets, as its build
        would (`namespace: shop`)."""
        if obj.namespace is not None or not self._kustomized or self.units.get(obj.path, PLAIN)[0]:
            return obj.namespace
        folder = PurePath(obj.path).parent
        for above in (folder, *folder.parents):
            if str(above) in self._kustomized:
                return self._kustomized[str(above)]
        return None

    def mesh_of(self, workload: K8sObject, template: PodTemplate) -> str | None:
        """The mesh that balances requests to this workload's pods, or None.

        A pod-level setting overrides its Namespace's. Istio ambient mode is L4 only and
        counts as a mesh only with a waypoint proxy."""
        if self.mesh != "none":
            return self.mesh
        return self._mesh_in(self._applied_in(workload), template.labels, template.annotations)

    def namespace_mesh(self, obj: K8sObject) -> str | None:
        """The mesh the object's Namespace injects into every pod of it that does not opt
        out (`--mesh`'s, when it names one): what pods a Service selects that the run does
        not see (a selector kustomize adds) are in."""
        if self.mesh != "none":
            return self.mesh
        return self._mesh_in(self._applied_in(obj), {}, {})

    def _mesh_in(
        self, namespace_name: str | None, labels: Mapping[str, Any], annotations: Mapping[str, Any]
    ) -> str | None:
        namespace = self.namespaces.get(namespace_key(namespace_name))
        ns_labels: dict[str, Any] = namespace.labels if namespace else {}
        ns_annotations: dict[str, Any] = namespace.annotations if namespace else {}
        pod = {**labels, **annotations}

        istio = pod.get("sidecar.istio.io/inject")
        if istio == "true":
            return "istio"
        if istio != "false" and pod.get("sidecar.istio.io/status"):
            return "istio"  # injected already (`istioctl kube-inject`'s output): its proxy is in
        if istio != "false" and pod.get("inject.istio.io/templates"):
            return "istio"  # a chosen injection template (proxyless `grpc-agent` included)
        # a revision's injector takes the namespaces and the pods that name the revision
        # (`istio.io/rev`), but for a namespace that turns injection off
        revision = "istio.io/rev" in ns_labels or "istio.io/rev" in labels
        if istio != "false" and (
            ns_labels.get("istio-injection") == "enabled"
            or (revision and ns_labels.get("istio-injection") != "disabled")
        ):
            return "istio"
        ambient = pod.get("istio.io/dataplane-mode", ns_labels.get("istio.io/dataplane-mode"))
        waypoint = pod.get("istio.io/use-waypoint", ns_labels.get("istio.io/use-waypoint"))
        if ambient == "ambient" and waypoint:
            return "istio"
        linkerd = annotations.get("linkerd.io/inject")
        if linkerd in ("enabled", "ingress"):
            return "linkerd"
        if linkerd != "disabled" and ns_annotations.get("linkerd.io/inject") == "enabled":
            return "linkerd"
        return None


def literal_env(workload: K8sObject, container: Container) -> Iterator[EnvSetting]:
    entries = container.body.get("env")
    listed = entries if isinstance(entries, YSeq) else []
    for number, entry in enumerate(listed):
        value = entry.get("value") if isinstance(entry, YMap) else None
        if isinstance(value, str):
            yield EnvSetting(workload, container, value, entry, number)


def _port_targets(
    service: K8sObject, port: YMap, workload: K8sObject, template: PodTemplate
) -> list[Target]:
    target = target_port(port)
    containers = template.long_running
    if isinstance(target, str):
        return [
            Target(service, port, workload, c, c.port_number(target), True)
            for c in containers
            if any(p.get("name") == target for p in c.ports())
        ]
    if not isinstance(target, int):
        return []
    declared = [c for c in containers if any(p.get("containerPort") == target for p in c.ports())]
    if not declared:  # declaring ports is optional: fall back on the probes, then the only app
        declared = [
            c
            for c in containers
            if any(
                (probe := c.probe(kind)) is not None and probe_port(c, probe) == target
                for kind in ("readinessProbe", "livenessProbe", "startupProbe")
            )
        ]
    if not declared and len(template.own_containers) == 1:
        declared = template.own_containers
    return [Target(service, port, workload, c, target, False) for c in declared]


def one_unscaled_replica(index: Index, backends: list[tuple[K8sObject, PodTemplate]]) -> str | None:
    """The workload, when a Service's pods are one replica of a Deployment or StatefulSet
    that nothing scales, or a bare Pod (no controller makes a second): there is no second
    pod for a pinned connection to miss yet."""
    if len(backends) != 1:
        return None
    workload = backends[0][0]
    if workload.kind == "Pod":
        return f"the bare {workload.ref.display}"
    replicas = dig(workload.body, "spec", "replicas")
    if workload.kind not in ("Deployment", "StatefulSet") or index.scaled(workload):
        return None
    return workload.ref.display if replicas in (None, 1) else None
