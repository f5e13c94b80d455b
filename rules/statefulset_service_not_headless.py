from __future__ import annotations

from collections.abc import Iterator

from k8slb.core import regex
from k8slb.core.edits import YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.index import is_headless
from k8slb.model.objects import pos_of
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import Pos, YMap
from k8slb.rulekit.base import Context, Example, Rule

_STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: registry.example/db:1.0
          ports: [{name: peer, containerPort: 7000}]
"""
_SERVICE = """\
---
apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{name: peer, port: 7000}]
"""
_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: db-settings
data:
  mode: cluster
"""


MAX_DNS_NAME = 253


def _names_used(context: Context, workload: K8sObject, service: K8sObject, name: str) -> bool:
    """Whether the pods' own DNS names matter: the Service is for the peers (traffic.py),
    or the pod template names a member (see _member_named)."""
    if context.index.purpose(service).role == "peers":
        return True
    return _member_named(context, workload, name)


def _member_named(context: Context, workload: K8sObject, name: str) -> bool:
    """Whether the pod template names a member (`db-0.db`, `$(POD_NAME).db`) in its
    commands, arguments or environment."""
    if len(name) > MAX_DNS_NAME:
        return False  # no pod's DNS name is under it
    member = regex.compile(rf"(?:^|[\s=,/:'\"])[\w$().-]+\.{regex.escape(name)}(?:\.|:|\b)")
    for container in context.index.template(workload).containers:
        body = container.body
        words = [*(body.get("command") or []), *(body.get("args") or [])]
        words += [e.get("value") for e in body.get("env") or [] if isinstance(e, dict)]
        if any(isinstance(word, str) and member.search(word) for word in words):
            return True
    return False


def _members_needed(context: Context, workload: K8sObject, name: str) -> str | None:
    """Why the members' own names are needed, with no Service to ask: the pod names a
    member, or there is more than one member (what stable names exist for); None when
    neither shows."""
    if _member_named(context, workload, name):
        return "the pod names a member"
    replicas = dig(workload.body, "spec", "replicas")
    if context.index.scalers(workload):
        return "an autoscaler scales it"
    if isinstance(replicas, int) and replicas > 1:
        return f"it runs {replicas} members"
    return None


class StatefulSetServiceNotHeadless(Rule):
    """The Service a StatefulSet names in `serviceName` is not headless, or is missing.

    ## What it does
    Looks up the Service named by every StatefulSet's `spec.serviceName` in the
    StatefulSet's namespace. A ClusterIP Service there is a warning when the pods' own
    names matter: the Service is for the peers (ports named for gossip, raft, cluster or
    peer traffic), or the pod names a member (`db-0.db`, `$(POD_NAME).db`) in its command,
    arguments or environment. Otherwise it is `info`: the Service carries client traffic
    and k8slb cannot see that anything needs the names (a proxy or a stateless tier kept
    in a StatefulSet), and making it headless would change what its clients reach.

    Only a Service applied with the StatefulSet governs it: one of the same name in
    another chart's render, another kustomization's build or another copy of the
    manifests (a second stack with its own StatefulSet of that name) is not read as its.
    When no scanned manifest applied with it defines the Service, what k8slb says depends
    on whether the run read everything applied with the StatefulSet. A chart's render and a
    kustomization's build are whole, and so is a plain folder of manifests when the run
    read another file of it (the folder was walked, or its project read as context): a
    Service named there and created nowhere is a dangling name, a bug of the chart or the
    manifests, not something managed elsewhere. It is a warning when the names are needed
    (the StatefulSet runs more than one member or an autoscaler scales it, or the pod
    names a member), and `info` for one member that nothing names, which works without
    them. A file read alone (named on the command line with none of its folder) may have
    its Service beside it, unread: that is `info`, saying so.

    ## Why it matters
    The governing Service of a StatefulSet is what gives each pod its stable DNS name
    (`db-0.db.NAMESPACE.svc.cluster.local`): peers find each other, and clients that must
    reach one member (a primary, a shard) dial it by name. Only a headless Service
    (`clusterIP: None`) publishes those per-pod records. With a ClusterIP Service the names
    do not resolve, and everything that dials the Service name lands on whichever pod
    kube-proxy picks for the connection, which is rarely what a stateful client wants.

    ## Fix
    Make the governing Service headless (`clusterIP: None`), and add a second, ordinary
    Service if some clients want any member. `k8slb fix --unsafe-fixes` sets `clusterIP:
    None`. It is unsafe because the API server refuses to change `clusterIP` of an existing
    Service: it has to be deleted and created again (`kubectl replace --force`, or delete
    then apply), a short interruption for whatever uses it.

    ## Other linters
    kube-linter `dangling-service` and Polaris look only for Services that select nothing;
    none of them checks the governing Service's type.
    """

    id = "KLB110"
    name = "statefulset-service-not-headless"
    severity = Severity.WARNING
    fix = FixInfo(
        available=True,
        safe=False,
        description="set clusterIP: None (the Service must be recreated)",
    )
    examples = (
        Example(_STATEFULSET + _SERVICE.replace("  clusterIP: None\n", ""), at=(6, 16)),
        Example(
            _STATEFULSET,
            severity=Severity.INFO,
            title="the Service is not in the scan, and nothing else of its folder is",
            at=(6, 16),
        ),
        Example(
            _STATEFULSET,
            beside=(("config.yaml", _CONFIG),),
            title="its folder was read, and no manifest of it creates the Service",
            at=(6, 16),
        ),
        Example(
            _STATEFULSET.replace("replicas: 3", "replicas: 1"),
            beside=(("config.yaml", _CONFIG),),
            severity=Severity.INFO,
            title="a dangling name, but one member that nothing names",
            at=(6, 16),
        ),
        Example(
            (_STATEFULSET + _SERVICE.replace("  clusterIP: None\n", "")).replace("peer", "http"),
            severity=Severity.INFO,
            title="a client Service, and nothing names a member",
            at=(6, 16),
        ),
        Example(_STATEFULSET + _SERVICE, findings=0),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for workload, _ in context.workloads():
            if workload.kind != "StatefulSet":
                continue
            name = dig(workload.body, "spec", "serviceName")
            if not isinstance(name, str) or not name:
                continue
            spec = workload.body["spec"]
            pos = pos_of(spec, "serviceName", value=True)
            same_namespace = [  # applied with it: another stack's Service of the name is not
                s
                for s in context.index.services_named(name)
                if s.namespace == workload.namespace and context.index.together(s, workload)
            ]
            if not same_namespace:
                yield self._missing(context, workload, name, pos)
                continue
            for service in same_namespace:
                if is_headless(service):
                    continue
                used = _names_used(context, workload, service, name)
                service_spec = service.body.get("spec")
                edits = []
                if isinstance(service_spec, YMap):
                    edits.append(
                        YamlEdit(
                            service.path,
                            service.document,
                            (*service.root_path, "spec"),
                            "set-key",
                            ("clusterIP", "None"),
                        )
                    )
                yield self.finding(
                    workload,
                    pos,
                    (
                        f"{workload.ref.display} is governed by Service {name!r}, which is not "
                        "headless",
                        f"its pods get no stable DNS names ({workload.name}-0.{name}), and "
                        "clients of the Service land on whichever pod their connection reaches",
                        "set clusterIP: None (the Service must be recreated to change it)",
                        *(
                            ()
                            if used
                            else (
                                "info only: its ports carry client traffic and nothing in the pod "
                                "names a member, so k8slb cannot see that anything needs the "
                                "names; making it headless would change what its clients reach",
                            )
                        ),
                    ),
                    severity=None if used else Severity.INFO,
                    related=[Related(service.path, service.pos[0], "the governing Service")],
                    fix=(
                        f"set clusterIP: None on Service {name}: the API server refuses to "
                        "change clusterIP in place, so delete and recreate the Service"
                    ),
                    edits=edits,
                )

    def _missing(self, context: Context, workload: K8sObject, name: str, pos: Pos) -> Finding:
        """No scanned manifest defines the Service: a dangling name when the run read what
        is applied with the StatefulSet, else perhaps a Service made elsewhere."""
        elsewhere = any(  # the name's Service is another stack's, not applied with it
            s.namespace == workload.namespace for s in context.index.services_named(name)
        )
        headline = (
            f"{workload.ref.display} names Service {name!r} in serviceName, which no "
            + ("manifest applied with it" if elsewhere else "scanned manifest")
            + " defines"
        )
        others = [s.name for s in context.index.selecting(workload) if s.name]
        or_other = f", or name the one that does ({', '.join(others)})" if others else ""
        if not context.index.read_with_its_unit(workload):
            return self.finding(
                workload,
                pos,
                (
                    headline,
                    "info only: the run read no other manifest of its folder, so the Service "
                    "may be created elsewhere",
                    "make sure it exists and is headless, or its pods get no stable DNS names"
                    + or_other,
                ),
                severity=Severity.INFO,
            )
        remedy = f"create a headless Service {name!r} (clusterIP: None) that selects its pods"
        remedy += or_other
        needed = _members_needed(context, workload, name)
        harm = (
            f"nothing applied with it creates that Service: its pods get no DNS names "
            f"({workload.name}-0.{name} does not resolve)"
        )
        if needed is None:
            return self.finding(
                workload,
                pos,
                (
                    headline,
                    harm,
                    remedy,
                    "info only: it runs one member and nothing in the pod names one, so "
                    "k8slb cannot see that anything needs the names",
                ),
                severity=Severity.INFO,
            )
        return self.finding(workload, pos, (headline, f"{harm}, and {needed}", remedy))
