from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Related, Severity
from k8slb.model.index import is_headless
from k8slb.model.routes import key_of
from k8slb.model.traffic import publishes_not_ready
from k8slb.model.unlike_pods import client_services
from k8slb.reading.objects import K8sObject, dig
from k8slb.rulekit.base import PROBES, Context, Example, Rule
from k8slb.rulekit.examples import LIVE, READY, publishing_not_ready, web_deployment
from k8slb.rulekit.serving import never_overlaps, only_scraped, reached_otherwise, strongest


class NoReadinessProbe(Rule):
    """A container that serves a Service has no readiness probe.

    ## What it does
    Reports serving containers without a `readinessProbe`. A container serves when a
    Service in the same deployment unit selects its pod (labels match the selector, same
    namespace), carries client traffic, and sends it to one of the container's ports: a
    port it declares (by number or by name), or, since declaring ports is optional, the
    port its probes use, or any port when it is the pod's only app container. Jobs and
    CronJobs never serve, and pods that no Service selects are not reported. Nor does a
    container serve whose `command` replaces the image's with one that only waits
    (`sleep infinity`, `tail -f /dev/null`, or a shell's `-c` script of such waits and
    `while true` loops around them, with nothing else started): no server runs in it to
    take a request, whatever its image holds. Nor does a workload that writes `replicas:
    0` and that no autoscaler or kustomization's patch gives more (a chart's component its
    values turn off by count): no pod of it runs, to be stopped or sent traffic.

    A Service carries no client traffic when it only serves the pods themselves: peer
    discovery (`publishNotReadyAddresses: true`, ports named for gossip, memberlist,
    raft, cluster or peer traffic, or a Service named for gossip or memberlist, or for
    discovery where it is headless, publishes not-ready pods or is named as the suffix of
    a workload it selects, `ingester-discovery`: a registry's server clients call,
    `discovery-server`, is no peers' Service, nor one a caller names with its port),
    metrics scrapes and profiling (ports named only with
    the words `metrics` or `metric`, `prometheus`, `prom`, `pprof`, `profiling`, `debug`,
    a number beside them left out as in `prometheus-12020` or `metrics-9090`, and a
    protocol's word beside a name of Prometheus or its monitors as in
    `tcp-prometheus-servicemonitor`; or with such words after the name of the app the
    port reaches, words of its workload's or container's name, as `composer-metric` in
    `composer` or `monitor-metric` in `account-monitor`: the app's name says whose port it
    is, the rest what for, and a port named only for its app, `kube-state-metrics` in
    kube-state-metrics, says nothing of its use; or scraped
    by a ServiceMonitor, by a PodMonitor on every pod the Service selects, or by a job of
    a Prometheus configuration in a ConfigMap whose `scrape_configs` name the Service
    with the port as a target; not
    `http-metrics` by its name alone, which several charts give to their whole HTTP API),
    unless a caller
    is seen: an Ingress or route to the Service (to the ports it names, when every
    Ingress backend or Gateway API backendRef to the Service names one; to every port
    otherwise), or a client's URL naming it with the port
    (in a ConfigMap, or a container's env or arguments; not a Prometheus configuration's
    scrape targets). A pod that only such Services select, or a container reached only on
    such ports of a client Service (a metrics sidecar), is not reported.

    Where a port's name leaves it open (`http-metrics`, `https-profiling`: a protocol's
    word beside scrape words), the pods it reaches decide, each of them: the container
    port it reaches, declared under a name of scrapes only (`metrics`, `profiling`, or
    the app's name and such words), or under one of metrics over a protocol
    (`metrics-http`) where the container's readinessProbe checks another of its ports
    (readiness says when the pod may take requests, so the port it checks is theirs, as
    a controller checks its health on a port of its own beside its metrics), or,
    declared without a name or not at all, named by the pod's `prometheus.io/port`
    annotation or in a pod that declares no port but such ones (none at all, as a
    controller that serves only its metrics), makes it a metrics port. A container port
    declared under another name, or under `http-metrics` where readiness checks it or
    there is none (as those charts declare their API and check it),
    keeps it a port of clients, and so does a caller seen, as above. A port with no name
    is one of clients even where it is the pod's `prometheus.io/port`: that says where the
    pod is scraped, not that nothing else is served there (an app's API and its metrics
    often share the port, called from settings the manifests do not hold); and a
    Service's `prometheus.io/scrape` annotation makes none of its ports one of metrics,
    for the same reason. Nor does a
    port's being named only in the pod's probes, or named `admin`, say it: a web app's
    probes check the port its clients call, and an admin port serves an admin's calls
    as often as metrics. (A `targetPort`
    of 0 is no placeholder: Kubernetes sends that port's traffic to the Service's own
    port number.)

    It is `info` when the Service calls its port something else (`web`, `http`, or
    nothing) but every Service port that reaches the container reaches a port the
    container declares under a name of scrapes only (`metrics`, `prometheus`, the app's
    name and such words, as above; by the `targetPort`'s name or its number), and no
    caller of those Services is seen (a NodePort or LoadBalancer type, an L7 route, a
    container, a channel or a configuration that names it, the API server): the pod's
    owner says the port is its metrics endpoint, and Prometheus scrapes each pod's
    endpoint in turn, so a scrape missed while a pod starts or stops loses a sample, not
    a request. The message says that only a metrics scrape reaches it. A pod that
    another Service of clients also selects, or a port declared under another name
    (`http-metrics` too), without a name, or not at all, keeps the warning.

    It is `info` when every Service that sends the container traffic spans unlike pods:
    the pods it selects run different programs in the containers its ports reach (images
    of two or more names, the name being the repository's last segment, so that a mirror
    on another registry, or the image a build tool pushes for a bare name, is the same
    program; or one repository whose tags each name words of their workload's or
    container's name, `demo:demo-order_0.2` in `shop-order`, versions and release
    channels such as `v2` or `canary` left out). Copies of one workload (the same kind,
    namespace and name in variant folders) are one app. A Service balances each connection to
    any of its endpoints as if they were interchangeable, so no client can send one app's
    requests through it (a request could land on any of the programs): it carries only
    what they all serve alike, an admin, operations or metrics port, whatever its type or
    routes. A canary of the same repository at another tag is the same program, and where
    an image is not literal (templated, missing) nothing is said. The message then names
    a Service that may carry the app's clients where one selects the pod too, and that
    one decides the finding.

    It is only `info` where readiness decides little: when no other pod takes the traffic
    while one stops, as `no-prestop` reads it (a bare Pod; or no autoscaler and one
    replica with `strategy: Recreate` or `maxSurge: 0`, in a StatefulSet, or keeping its
    data on a PersistentVolumeClaim one pod holds: a single-replica store), or when every
    Service that selects the pod publishes not-ready addresses (`publishNotReadyAddresses:
    true` on a ClusterIP): such a Service routes to the pod whether it is ready or not. And it
    is `info` when the callers reach the pods without the Service, as `no-prestop` reads
    it (the code registers the process in a service registry, or a well-known component
    reached otherwise), unless a caller is seen going through the Service.

    It is `info` too for a DaemonSet that only headless Services select (and no L7 route
    reaches), as `no-prestop` reads a headless Service: its callers find the pods by DNS,
    one a node, and a caller that takes the pod on its own node has no other to turn to.

    A container with a `startupProbe` is kept not ready until that probe succeeds, so it
    gets no traffic before it listens: the finding then says only what remains (traffic
    while it hangs or drains), and is `info` when the workload runs one replica and no
    autoscaler scales it (no other pod could take that traffic).

    Every rule's finding in a file of a test's data is `info` too, the reason first: a
    file below the folder named in a `testdata/` folder (Go's tool skips it), or in
    `test-data`, `test_data`, `fixtures`, `test_fixtures`, `test-fixtures` or
    `__fixtures__`, is a test's input or the output it expects, which no deploy tool
    applies; its objects are applied with none of the repository's own files, so a copy
    of a Service there serves none of their pods. Naming that folder (`k8slb check
    pkg/render/testdata`) asks for it to be judged in full.

    It is `info` too, the reason first, in a file of a CI system's folder (`.circleci/`,
    `.github/`, `.gitlab/`, `.buildkite/`) that a CI configuration of the run both applies
    (`kubectl apply -f`) and runs against a cluster it makes on the CI machine
    (`minikube start`, `kind create cluster`, `k3d cluster create`, or a GitHub action
    that runs them, such as helm/kind-action): that cluster runs the job's pods once and
    goes with the job, so no rollout, eviction or scale-down stops a pod there while
    another serves. A file a configuration applies with no such cluster (a deploy job)
    is judged as any other.

    ## Why it matters
    Without a readiness probe a pod is in the endpoints as soon as its containers start:
    it gets connections before it listens, and keeps getting them while it hangs or drains.
    Every rollout and every scale-up then shows as a burst of errors.

    ## Fix
    Add a `readinessProbe` that fails while the process cannot serve (starting, draining,
    overloaded), separate from the liveness probe.

    ## Other linters
    kube-score `pod-probes` (also Service-scoped, but one probe anywhere in the pod
    satisfies it); kube-linter `no-readiness-probe`, Polaris `readinessProbeMissing`,
    checkov `CKV_K8S_9` and Kubescape `C-0018` require it on every container of every
    workload, Service or not (Kubescape even on Jobs).
    """

    id = "KLB302"
    name = "no-readiness-probe"
    severity = Severity.WARNING
    reads = PROBES
    examples = (
        Example(web_deployment(LIVE), at=(14, 17)),
        Example(web_deployment(READY + LIVE), findings=0),
        Example(web_deployment(LIVE, service=False), findings=0, title="no Service selects it"),
        Example(
            web_deployment(LIVE).replace(
                "    - name: http\n      port: 80", "    - name: metrics\n      port: 80"
            ),
            findings=0,
            title="only a metrics Service selects it",
        ),
        Example(
            web_deployment(LIVE).replace(
                "    - name: http\n      port: 80", "    - name: memberlist\n      port: 80"
            ),
            findings=0,
            title="only a gossip Service selects it",
        ),
        Example(
            publishing_not_ready(web_deployment(LIVE)),
            severity=Severity.INFO,
            title="its Service routes to pods ready or not",
            at=(14, 17),
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for workload, template, container, services in context.serving_containers():
            if container.probe("readinessProbe") is None:
                services, unlike = client_services(context.index, workload, container, services)
                service, called = strongest(context, services)
                served = f"Service {service.name}" + (f" ({called})" if called else "")
                started = container.probe("startupProbe") is not None
                why_traffic = (
                    "its startupProbe keeps it out until it starts, but it gets traffic while "
                    "it hangs or drains"
                    if started
                    else "so it gets traffic before it listens and while it hangs or drains"
                )
                message: tuple[str, ...] = (
                    f"container {container.name!r} of {workload.ref.display} has no readinessProbe",
                    f"it serves {served}, {why_traffic}",
                    "add a readinessProbe",
                )
                why = never_overlaps(context.index, workload, template)
                note = None
                related = [Related(service.path, service.pos[0], "the Service it serves")]
                if scraped := only_scraped(context, workload, container):
                    note = f"info only: {scraped}, so readiness gates no client's traffic"
                elif unlike is not None:
                    note = f"info only: {unlike.said}"
                elif why is not None:
                    note = f"info only: {why}, so readiness decides little there"
                elif started and _one_replica(context, workload):
                    note = (
                        "info only: one replica with a startupProbe: no other pod could take "
                        "the traffic while it hangs, so readiness decides little there"
                    )
                elif other := reached_otherwise(context, workload, container, services):
                    note = (
                        f"info only: {other.reason}, not through Service {service.name}, and "
                        "no caller of that Service is seen; its readiness does not gate them"
                    )
                    related += other.related
                elif (
                    workload.kind == "DaemonSet"
                    and all(is_headless(s) for s in services)
                    and not any(
                        context.routes().get(key_of(s.namespace, s.name or "")) for s in services
                    )
                ):
                    note = (
                        f"info only: a DaemonSet's pods are found through headless Service "
                        f"{service.name}, one a node; a caller that takes the pod on its own node "
                        "has no other to turn to, so readiness decides little there"
                    )
                elif all(publishes_not_ready(s) for s in services):
                    note = (
                        f"info only: Service {service.name} publishes not-ready addresses, so "
                        "it sends traffic to the pod ready or not; a readinessProbe would not "
                        "gate it"
                    )
                yield self.finding(
                    workload,
                    container.pos,
                    (*message, note) if note else message,
                    container=container.name,
                    severity=Severity.INFO if note else None,
                    related=related,
                )


def _one_replica(context: Context, workload: K8sObject) -> bool:
    """Whether the workload runs one pod and nothing scales it (a DaemonSet: one a node)."""
    if workload.kind not in ("Deployment", "StatefulSet", "ReplicaSet"):
        return False
    replicas = dig(workload.body.get("spec"), "replicas")
    return replicas in (None, 1) and not context.index.scalers(workload)
