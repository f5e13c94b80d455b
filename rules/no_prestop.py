from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.edits import YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.drains import Drain, self_drain
from k8slb.model.index import is_headless
from k8slb.model.objects import Container, PodTemplate
from k8slb.model.routes import Key, key_of
from k8slb.model.traffic import publishes_not_ready
from k8slb.model.unlike_pods import client_services
from k8slb.reading.objects import K8sObject
from k8slb.rulekit.base import STOPPING, Context, Example, Rule, grace_edit
from k8slb.rulekit.examples import (
    BUILT_HERE,
    DATA_CLAIM,
    PRESTOP,
    READY,
    publishing_not_ready,
    web_deployment,
)
from k8slb.rulekit.serving import (
    never_overlaps,
    only_scraped,
    reached_otherwise,
    strongest,
    surged_store,
)

# A server that waits on SIGTERM before it stops: the routing drops the pod meanwhile.
_DRAINING_SERVER = """\
import signal
import time

import grpc

server = grpc.server(None)


def on_term(signum, frame):
    time.sleep(5)  # the Service's endpoints drop this pod meanwhile
    server.stop(10)


signal.signal(signal.SIGTERM, on_term)
server.start()
server.wait_for_termination()
"""


class NoPreStop(Rule):
    """A container that serves a Service has no preStop hook.

    ## What it does
    Reports serving containers (see `no-readiness-probe` for what serving means) without
    `lifecycle.preStop`. Of the Services that select the pod, the message names the one
    that best shows it is called: one the API server calls (an admission or conversion
    webhook's, then an APIService's), then one an L7 route or a node port reaches, then
    one not named for metrics (`no-readiness-probe` names the same), and before all a
    Service that may carry the app's clients over one that spans unlike pods (pods of
    different programs: see `no-readiness-probe`). When only such Services select the
    pod, the finding is `info`, saying that the Service carries only a port its programs
    share, such as admin or metrics.

    ## Why it matters
    When a pod is deleted, two things start at the same time: the kubelet sends SIGTERM to
    the containers, and the control plane removes the pod from the EndpointSlices, after
    which every node's kube-proxy and every ingress or mesh proxy reprograms itself. The
    second takes a few seconds. A server that stops listening on SIGTERM refuses the
    connections that stale rules still send it, so every deploy and every scale-down is an
    error spike. A short pause before SIGTERM lets the routing catch up.

    It is only `info` where the pause cannot save a request because no other pod takes
    the traffic while this one stops, in a workload that no autoscaler
    (HorizontalPodAutoscaler, KEDA ScaledObject) scales (one that does scales down, a pod
    stopping while others serve): a bare Pod (no controller makes a second one); and,
    when it runs one replica, a Deployment with `strategy: Recreate` or `maxSurge: 0`, a
    StatefulSet, or a Deployment that keeps its data on a PersistentVolumeClaim one pod
    holds (`ReadWriteOnce` or `ReadWriteOncePod`, or a claim not among the files read,
    whose mode is then taken as `ReadWriteOnce` and the message says so; not a claim the
    pod mounts read-only, nor one another workload mounts too). Such a
    single-replica store (a database, cache, broker or telemetry sink) has no second pod:
    its surge pod waits for the volume or finds the data held by the old process, so the
    pause only delays the outage. A one-replica Deployment whose rollout does surge a
    second pod and which serves a port IANA registers for a database's protocol (5432
    `postgresql`, 27017 `mongodb`...: the container's, or its Service's number or name)
    is still a warning, saying what else is wrong: its surge pod is a second store, with
    data of its own (an emptyDir's, the container's), behind the same Service while both
    run, which `strategy: Recreate` avoids (and then it is `info`). The
    evidence is the workload's own spec, never its image, so a chart, a kustomize build
    and a plain manifest of it get the same verdict (read as written, a kustomization's
    strategic-merge patch is merged first: a sidecar a Component's patch adds serves its
    port, and is reported in that patch file). `Recreate` above one replica keeps
    the warning: it governs rollouts only, while an eviction, a node drain or a scale-down
    stops one pod as the others serve. A one-replica Deployment without such a claim
    (data in `emptyDir`, or a claim many pods may write) surges a second pod that
    takes the traffic, and keeps the warning. A pod that only Services without client
    traffic select (peer discovery, metrics, by a port's name or, for `http-metrics`, by
    what the pods it reaches declare and where their readiness checks: see
    `no-readiness-probe`)
    loses no request and is not reported. A pod whose Services reach only a port it
    declares for metrics, whatever they call it (`web` to its `metrics`), loses none
    either, and is reported at `info`, saying so (see `no-readiness-probe`). It is
    `info` too when only headless Services
    select the pod: their clients resolve the pods' addresses and choose among them (a
    cache's client-side sharding, gRPC's round_robin), and whether a pause helps depends
    on when they re-resolve, which k8slb cannot see; unless an L7 router (an Ingress, a
    Gateway API route, Istio, Contour, a Traefik IngressRoute) sends requests to that
    Service's pods: it drops a pod when it starts terminating, and the pause is for it.
    It is `info` when every Service that selects the pod publishes not-ready addresses
    (`publishNotReadyAddresses: true`): a terminating pod stays among such a Service's
    endpoints until it is gone, so no pause takes it out of routing first.
    And it is `info` when the callers reach the pods without the Service: the container's
    code registers the process in a service registry (a Consul, etcd, ZooKeeper, Eureka or
    Nacos client's register call, made where the program runs it, Spring Cloud's
    `@EnableDiscoveryClient`/`@EnableEurekaClient`, or a Spring Cloud discovery client
    starter — Eureka's, Consul's, ZooKeeper's, Nacos's — that the module's pom.xml, a
    parent POM of it or its build.gradle(.kts) declares, which registers the application
    on its own unless a settings file of the project turns it off, such as
    `eureka.client.register-with-eureka: false` or `spring.cloud.discovery.enabled: false`),
    so its callers find
    the pods' addresses there; or it is a component of a well-known system that its
    callers reach otherwise (a table of data, each entry with its source): ingesters
    reached through a hash ring, queriers that pull their work, compactors, canaries that
    only Prometheus calls. A caller seen going through the Service wins over both and
    keeps the warning: a NodePort or LoadBalancer type, an L7 route to it, a container or
    a gRPC channel that dials it by name, a configuration applied with it that names it
    with its port.

    A server that drains itself needs no preStop pause: it keeps serving for a while after
    SIGTERM, and the routing drops the pod meanwhile. Where the container's code shows it,
    the container is not reported: in the code it runs (see `k8slb explain-links`), a
    wait comes after SIGTERM is received, or in the handler registered for it, before the
    server's stop or the process's exit (Go's `time.Sleep` or `<-time.After`, Python's
    `time.sleep` or awaited `asyncio.sleep`, an awaited timer in Node or a timer whose
    callback closes the server, `Thread.sleep` or a `TimeUnit`'s `sleep` in a JVM shutdown
    hook), for a time k8slb reads, of a second or more (routing takes that long to drop a
    pod) and shorter than the grace period. It is `info`,
    saying why, when that time cannot be read or is not shorter than
    `terminationGracePeriodSeconds` (the kill comes first). A wait that follows a health
    service set NOT_SERVING, before the stop (Go: a drain method that main's SIGTERM
    reaches through calls k8slb does not follow), is `info` too: the drain is seen, not
    the signal that starts it.

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

    Where only the container's configuration says so, it is `info`, and the message names
    the setting: a flag of its `command`/`args`, a variable of its `env` (or of a ConfigMap
    it takes env from), or a line of a ConfigMap it mounts, whose name says that the server
    delays its own stop, with a duration as its value: a lame-duck period (`lameduck 10s`,
    `lame_duck_duration`), a shutdown, termination, drain or stop delay
    (`--shutdown-delay-duration`, `-http.shutdownDelay`), an accept grace period
    (`requestAcceptGraceTimeout`), or a readiness shutdown period
    (`READINESS_SHUTDOWN_DURATION`: readiness fails that long before the stop). k8slb
    reads such a setting's name, not which signal starts it (some servers enter their
    lame-duck mode on another signal), so it is not a warning, nor silence. A duration
    under a second (0 above all) is no delay, and a timeout or grace of the stop itself
    (`--graceful-timeout`, `--shutdown-timeout`) bounds a stop that has already stopped
    accepting: neither changes the finding.

    When the pod's `terminationGracePeriodSeconds` is not longer than the new pause, the
    fix raises it too (to the pause plus `stop-grace-seconds`), so it never leaves a
    `grace-too-short` behind; the summary and `--show-fixes` say so.

    ## Fix
    Add a pause: `lifecycle: {preStop: {sleep: {seconds: 5}}}` (the native `sleep` action,
    Kubernetes 1.30 and later), or `exec: {command: ["sleep", "5"]}` on older clusters when
    the image has a `sleep` binary. Keep `terminationGracePeriodSeconds` longer than the
    pause plus the time the server needs to drain.

    `k8slb fix` adds the native action (a safe fix), or, with `--kubernetes-version` below
    1.30, the `exec` form (unsafe: a distroless image has no `sleep`). The pause is
    `prestop-seconds` (5 s by default).

    ## Other linters
    Datree `CONTAINERS_MISSING_PRESTOP_KEY` (opt-in, every container of every workload);
    no active linter checks it.
    """

    id = "KLB401"
    name = "no-prestop"
    severity = Severity.WARNING
    reads = STOPPING
    fix = FixInfo(
        available=True,
        safe=True,
        description="add a preStop pause (the native sleep action from 1.30)",
    )
    examples = (
        Example(web_deployment(READY), at=(14, 17)),
        Example(web_deployment(READY + PRESTOP), findings=0),
        Example(web_deployment(READY, service=False), findings=0, title="no Service selects it"),
        Example(
            web_deployment(READY).replace(
                "  replicas: 3\n", "  replicas: 1\n  strategy: {type: Recreate}\n"
            ),
            severity=Severity.INFO,
            title="one replica whose old and new pods never overlap",
            at=(15, 17),
        ),
        Example(
            web_deployment(READY).replace(
                "  replicas: 3\n", "  replicas: 3\n  strategy: {type: Recreate}\n"
            ),
            title="Recreate above one replica: a drain stops one pod while others serve",
            at=(15, 17),
        ),
        Example(
            web_deployment(READY).replace(
                "  replicas: 3\n",
                "  replicas: 1\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n",
            ),
            severity=Severity.INFO,
            title="one replica that may not surge: the old pod goes first",
            at=(15, 17),
        ),
        Example(
            web_deployment(READY, DATA_CLAIM).replace("  replicas: 3\n", "  replicas: 1\n"),
            severity=Severity.INFO,
            title="one replica that keeps its data on a claim one pod holds",
            at=(17, 17),
        ),
        Example(
            publishing_not_ready(web_deployment(READY)),
            severity=Severity.INFO,
            title="its Service routes to pods until they are gone",
            at=(14, 17),
        ),
        Example(
            web_deployment(READY + 'args: ["--shutdown-delay-duration=10s"]\n'),
            severity=Severity.INFO,
            title="a flag says the server delays its own stop",
            at=(14, 17),
        ),
        Example(
            _DRAINING_SERVER,
            findings=0,
            language="python",
            manifests=web_deployment(READY),
            beside=BUILT_HERE,
            title="its code waits on SIGTERM before it stops the server",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        routes = context.routes()  # L7 routers send requests to the pods
        for workload, template, container, services in context.serving_containers():
            if container.prestop() is None:
                drain = self_drain(context.index, context.links, workload, template, container)
                if drain is not None and drain.complete:
                    continue  # it waits on SIGTERM itself: the pause is there
                services, unlike = client_services(context.index, workload, container, services)
                service, called = strongest(context, services)
                served = f"Service {service.name}" + (f" ({called})" if called else "")
                seconds = context.fix_values.prestop_seconds
                native = context.kubernetes_version >= (1, 30)
                hook = "sleep" if native else "exec"
                edits = [
                    YamlEdit(
                        workload.path,
                        workload.document,
                        (*workload.root_path, *container.path),
                        "add-prestop",
                        (hook, seconds),
                    )
                ]
                description = f"add lifecycle.preStop.{hook} ({seconds} s)"
                if template.grace_seconds <= seconds:  # the pause would outlast the grace
                    edits.append(grace_edit(workload, template, seconds, context.fix_values))
                    description += (
                        f" and raise terminationGracePeriodSeconds {template.grace_seconds}"
                        f" -> {edits[-1].value}"
                    )
                if not native:
                    description += ": below Kubernetes 1.30 the image needs `sleep`"
                message: tuple[str, ...] = (
                    f"container {container.name!r} of {workload.ref.display} has no preStop hook",
                    f"it serves {served}: on shutdown it stops while nodes still "
                    "route to it, failing requests",
                    f"add lifecycle.preStop.{hook} ({seconds} s)",
                )
                scraped = only_scraped(context, workload, container)
                note, more = (
                    (f"info only: {scraped}, so a pause saves no client's request", [])
                    if scraped is not None
                    else (f"info only: {unlike.said}", [])
                    if unlike is not None
                    else _info_only(
                        context, workload, template, container, services, service, drain, routes
                    )
                )
                related = [Related(service.path, service.pos[0], "the Service it serves"), *more]
                if note is not None:
                    message += (note,)
                elif store := surged_store(context.index, workload, template, container, services):
                    message = (
                        *message[:2],
                        f"it is also a store ({store}) whose one replica a rollout surges: the "
                        "new pod is a second store, with data of its own, behind the same "
                        "Service while both run",
                        "unless every copy is seeded alike, set strategy Recreate (the old pod "
                        "goes first, and the pause matters less); else "
                        f"add lifecycle.preStop.{hook} ({seconds} s)",
                    )
                yield self.finding(
                    workload,
                    container.pos,
                    message,
                    severity=Severity.INFO if note else None,
                    container=container.name,
                    related=related,
                    fix=description,
                    unsafe=not native,
                    edits=edits,
                )


def _info_only(
    context: Context,
    workload: K8sObject,
    template: PodTemplate,
    container: Container,
    services: list[K8sObject],
    service: K8sObject,
    drain: Drain | None,
    routes: dict[Key, list[K8sObject]],
) -> tuple[str | None, list[Related]]:
    """Why a missing pause may cost nothing (the finding is then an info), with the places
    related to that: the pods never overlap, traffic reaches them otherwise, clients pick
    pods by DNS, not-ready addresses are published, or the server may drain itself.
    `service` is the one of `services` the finding names."""
    why = never_overlaps(context.index, workload, template)
    if why is not None:
        return f"info only: {why}, so a pause only delays the outage", []
    if other := reached_otherwise(context, workload, container, services):
        note = (
            f"info only: {other.reason}, not through Service {service.name}, and "
            "no caller of that Service is seen; a pause does not gate that traffic"
        )
        return note, list(other.related)
    if all(is_headless(s) for s in services) and not any(
        routes.get(key_of(s.namespace, s.name or "")) for s in services
    ):
        note = (
            f"info only: its clients find the pods through DNS (headless Service "
            f"{service.name}) and choose among them; k8slb cannot see when they "
            "re-resolve, which decides whether a pause helps"
        )
        return note, []
    if all(publishes_not_ready(s) for s in services):
        note = (
            f"info only: Service {service.name} publishes not-ready addresses, so "
            "a terminating pod stays its endpoint until the pod is gone; a pause "
            "does not take it out of routing first, its clients must retry"
        )
        return note, []
    if drain is not None:
        note = (
            f"info only: the server may drain itself: {drain.said}; if it keeps "
            "serving that long after SIGTERM, no preStop pause is needed"
        )
        return note, [drain.related] if drain.related is not None else []
    return None, []
