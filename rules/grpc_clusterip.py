from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from k8slb.code.facts import Server, Unknown
from k8slb.core.edits import YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.dialers import Dialer, config_dialers, per_call_only
from k8slb.model.grpc_options import MAX_AGE, configured_max_age
from k8slb.model.http2 import Evidence, PinnedService, dialed_port, servers_behind
from k8slb.model.index import Index, one_unscaled_replica, selector_of, service_type
from k8slb.model.links import CodeLinks
from k8slb.model.objects import PodTemplate, pos_of, service_ports, target_port
from k8slb.model.routes import Front, Key, key_of, l7_fronts
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import Pos, YMap
from k8slb.rulekit.base import PROBES, Context, Example, Rule
from k8slb.rulekit.serving import Elsewhere, called_through, registered

GRPC_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: backend
spec:
  selector:
    app: backend
  ports:
    - name: grpc
      port: 50051
"""
BACKEND = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
spec:
  replicas: 3
  selector:
    matchLabels: {app: backend}
  template:
    metadata:
      labels: {app: backend}
    spec:
      containers:
        - name: server
          image: registry.example/backend:1.0
          ports:
            - name: grpc
              containerPort: 50051
"""
HPA = """\
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: backend
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: backend}
  minReplicas: 3
  maxReplicas: 10
"""
HEADLESS_TWIN = """\
---
apiVersion: v1
kind: Service
metadata:
  name: backend-headless
spec:
  clusterIP: None
  selector:
    app: backend
  ports:
    - name: grpc
      port: 50051
"""


def twin_name(service: K8sObject) -> str:
    return f"{service.name}-headless"


def twin_edit(index: Index, pinned: PinnedService) -> YamlEdit | None:
    """A new document after the Service's: its headless twin, same selector and ports.
    None when the Service is an item of a List, or the name is taken."""
    service = pinned.service
    name = twin_name(service)
    if service.item is not None or any(
        s.namespace == service.namespace for s in index.services_named(name)
    ):
        return None
    metadata: dict[str, Any] = {"name": name}
    if service.namespace is not None:
        metadata["namespace"] = service.namespace
    if service.labels:
        metadata["labels"] = dict(service.labels)
    ports = [
        {k: port[k] for k in ("name", "port", "targetPort", "protocol", "appProtocol") if k in port}
        for port in service_ports(service)
    ]
    spec: dict[str, Any] = {"clusterIP": "None", "selector": selector_of(service)}
    if ports:
        spec["ports"] = ports
    first_port = ports[0]["port"] if ports else 50051
    domain = f"{name}.{service.namespace or 'NAMESPACE'}.svc.cluster.local:{first_port}"
    return YamlEdit(
        service.path,
        service.document,
        (),
        "add-twin",
        {
            "comment": f"Headless twin of {service.name}, added by k8slb: gRPC clients dial "
            f"dns:///{domain} with round_robin.",
            "body": {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec},
        },
    )


def _dial_address(twin: K8sObject, evidence: Evidence) -> str:
    """The address gRPC clients should dial for the twin: its full DNS name (short when the
    manifest names no namespace) and the port on the pods, which a headless Service's
    clients reach directly (its numeric targetPort, else its port)."""
    host = (
        twin.name if twin.namespace is None else f"{twin.name}.{twin.namespace}.svc.cluster.local"
    )
    wanted = {evidence.port.get("port"), target_port(evidence.port)} - {None}
    for port in service_ports(twin):
        if {port.get("port"), target_port(port)} & wanted:
            target = target_port(port)
            number = target if isinstance(target, int) else port.get("port")
            return f"dns:///{host}:{number}"
    return f"dns:///{host}"


def scale_phrase(index: Index, backends: list[tuple[K8sObject, PodTemplate]]) -> str:
    for workload, _ in backends:
        for scaler in index.scalers(workload):
            most = dig(scaler.body, "spec", "maxReplicas") or dig(
                scaler.body, "spec", "maxReplicaCount"
            )
            upto = f" up to {most} replicas" if most else ""
            return f"{scaler.kind}/{scaler.name} scales {workload.ref.display}{upto}"
    for workload, _ in backends:
        built = index.built_replicas.get((workload.path, workload.ref))
        if built is not None:
            return f"{built[0]} gives {workload.ref.display} {built[1]} replicas"
    for workload, _ in backends:
        replicas = dig(workload.body, "spec", "replicas")
        if workload.kind == "DaemonSet":
            return f"{workload.ref.display} runs a pod on every node"
        if isinstance(replicas, int) and replicas > 1:
            return f"{workload.ref.display} runs {replicas} replicas"
    return ""


def _internal_dialers(
    index: Index, pinned: PinnedService, direct: Mapping[int, list[Dialer]]
) -> list[Dialer]:
    """Who dials the Service on a gRPC port that only its system's components call: a
    container or channel that names it, or the system's configuration applied with it."""
    service = pinned.service
    ports = {n for e in pinned.evidence if isinstance(n := e.port.get("port"), int)}
    return direct.get(id(service), []) or config_dialers(index, service, ports)


def _registered(context: Context, service: K8sObject, pinned: PinnedService) -> Elsewhere | None:
    """The registry registration of the code of every container the Service targets
    (serving.registered), when each has one: its callers find the pods there."""
    backends = {id(workload) for workload, _ in pinned.backends}
    targets = [t for t in context.index.targets(service) if id(t.workload) in backends]
    found = [registered(context, t.workload, t.container) for t in targets]
    return found[0] if found and all(found) else None


def _capped_age(
    index: Index, pinned: PinnedService, links: CodeLinks | None
) -> tuple[Server, object] | None:
    """The server in the code behind the Service's gRPC ports when it bounds connection
    age, whatever the evidence that the ports carry gRPC: the remedy of the server side is
    then in place. None when no server is found, or when one of them leaves it unbounded
    (its clients stay where they are).

    When no server is seen listening on those ports (its address comes from a config
    struct, or another file serves it), the servers of the code every targeted backend
    runs stand for them, as KLB201 judges that code: each of them must bound the age."""
    servers = [served.server for served in servers_behind(index, pinned, links)]
    if not servers:
        servers = _servers_run(index, pinned, links)
    capped: list[tuple[Server, object]] = []
    for server in servers:
        option = server.options.get(MAX_AGE)
        if option is None:
            return None
        capped.append((server, option.value))
    return capped[0] if capped else None


def _servers_run(index: Index, pinned: PinnedService, links: CodeLinks | None) -> list[Server]:
    """The gRPC servers of the code each container the Service targets runs; none when one
    of those containers has no code linked, its code makes no server, or a server of it
    listens on a port k8slb reads (then servers_behind knew where it serves)."""
    backends = {id(workload) for workload, _ in pinned.backends}
    found: list[Server] = []
    for target in index.targets(pinned.service):
        if id(target.workload) not in backends:
            continue
        link = links.of(target.workload, target.container.name) if links else None
        made = [s for facts in links.code(link) for s in facts.servers] if link and links else []
        if not made or (links and links.listening(target.workload, target.container)):
            return []  # no server, or servers whose ports are read and none is this one
        found += made
    return found


def _flagged_age(index: Index, pinned: PinnedService) -> tuple[K8sObject, str, Pos] | None:
    """A maximum connection age that every workload behind the Service gives its server
    through a targeted container's arguments or env (istiod's
    `--keepaliveMaxServerConnectionAge 30m`), as the code's option would: the first, with
    its workload and where it is written; None when one of them gives none."""
    backends = {id(workload) for workload, _ in pinned.backends}
    given: dict[int, tuple[K8sObject, str, Pos]] = {}
    for target in index.targets(pinned.service):
        key = id(target.workload)
        if key not in backends or key in given:
            continue
        if (age := configured_max_age(target.container)) is not None:
            given[key] = (target.workload, *age)
    return next(iter(given.values())) if backends and set(given) == backends else None


def _selector_text(selector: Mapping[str, str]) -> str:
    """A Service's selector as a message quotes it: its first labels, cut to a length a
    message can carry (a selector is the manifest's, of any size)."""
    shown = ", ".join(f"{k}: {v}" for k, v in itertools.islice(selector.items(), 4))
    more = len(selector) > 4 or len(shown) > 240
    return shown[:240] + (", …" if more else "")


def _position(service: K8sObject) -> Pos:
    """Where a finding on the Service points: its `type`, else its `spec`."""
    spec = service.body.get("spec")
    if isinstance(spec, YMap) and "type" in spec:
        return pos_of(spec, "type", value=True)
    return pos_of(service.body, "spec")


def _shown_by_a_channel(
    pinned: PinnedService, dialers: Callable[[], Mapping[int, list[Dialer]]]
) -> PinnedService:
    """The Service's evidence where k8slb only infers that a port carries gRPC and a
    long-lived gRPC channel of the scanned code dials that port: the channel first, in
    place of the inference (the server it found kept). Else the Service as it was."""
    first = pinned.evidence[0]
    if not first.inferred:
        return pinned
    for evidence in pinned.evidence:
        for dialer in dialers().get(id(pinned.service), []):
            if dialer.loc is None or evidence.port.get("port") not in dialer.ports:
                continue
            shown = dialed_port(pinned.service, evidence.port.get("port"), dialer.loc)
            if shown is not None:
                shown = replace(shown, served=evidence.served)
                rest = [e for e in pinned.evidence if e is not evidence]
                return replace(pinned, evidence=[shown, *rest])
    return pinned


def _weighed(finding: Finding, first: Evidence | None) -> Finding:
    """The finding, at info when k8slb only infers that the port carries gRPC (an image in
    a table, a probe of a port it cannot read, the port number): the protocol link of the
    chain is missing, and the message says so."""
    if first is None or not first.inferred:
        return finding
    missing = (
        first.contradicted or f"the port is not declared gRPC; only {first.reason} suggests it"
    )
    return replace(finding, severity=Severity.INFO, detail=(missing, *finding.detail))


def _dialed_evidence(context: Context, services: list[K8sObject]) -> dict[int, PinnedService]:
    """The Services among `services` (none of whose ports shows gRPC) that a long-lived gRPC
    channel in the scanned code dials on one of their ports, judged with that channel as
    the evidence (http2.dialed_port), by the Service's id: the judgement KLB102 makes of
    the channel's Service, so that the two rules never disagree about it."""
    found: dict[int, PinnedService] = {}
    direct = context.dialers(services) if services else {}
    for service in services:
        for dialer in direct.get(id(service), []):
            if dialer.loc is None:
                continue  # not a channel of the code: a container's string
            shown = (dialed_port(service, port, dialer.loc) for port in dialer.ports)
            evidence = next((e for e in shown if e is not None), None)
            pinned = context.pinned(service, evidence) if evidence is not None else None
            if pinned is not None:
                found[id(service)] = pinned
                break
    return found


class GrpcClusterIp(Rule):
    """A gRPC (HTTP/2) Service behind a plain ClusterIP, with no mesh to balance requests.

    ## What it does
    Finds Services that carry gRPC or another HTTP/2 protocol, judged by the evidence in
    the manifests (strongest first: `appProtocol` `grpc`/`h2c`/`kubernetes.io/h2c`/`http2`;
    a port named `grpc`, `grpc-*`, `*-grpc`, `h2c`, `http2` or `http2-*`, where the finding
    says HTTP/2 for an `http2` or `h2c` one, which any HTTP/2 protocol may use; a targeted
    container port with such a name; a gRPC server in the targeted container's code
    listening on that port (also through a connection multiplexer: `m.Match(cmux.HTTP2())`
    of `m := cmux.New(lis)` listens on `lis`'s port, which carries gRPC then whatever else
    it matches), or, where that server's port is read from a configuration file,
    a YAML file the container mounts from a ConfigMap that sets the port's number at a key
    of an RPC server's place (`rpc.ports: [10200]`, `grpc.port: 9000`; not beside a host
    the process dials, nor a port named for scrapes, nor where the code serves plain HTTP
    on that number or shows a gRPC port of its own); a gRPC health probe of the targeted
    port (a `grpc:` probe, or `grpc_health_probe -addr` naming it, through `sh -c` and the
    container's `env` too);
    a long-lived gRPC channel in the scanned code that dials the port, the evidence
    `grpc-client-clusterip` (KLB102) reports that channel on, so that the two never
    disagree; a server flag or a literal `env` value that puts gRPC on the targeted port, whatever
    the server: its name says gRPC (`grpc`, `http2`, `h2c`) and where it listens (`port`,
    `addr`, `address`, `listen`, `bind`): `--grpc-port=9000`, `-server.grpc-listen-port
    9095`, `--grpc.address=:9090`, `GRPC_PORT: "9000"`; not a flag of another protocol
    or of an address the process dials (`--grpc-gateway-port`, `--grpc-web-port`,
    `--grpc-target`), nor a peer's port the process dials, whose other words name a host
    another setting gives (`GRPC_USERS_PORT` beside `GRPC_USERS_HOST: users`) or another
    Service (`USERS_GRPC_PORT` beside Service users)), that are ClusterIP (also NodePort
    and LoadBalancer, which are ClusterIP Services too) and not headless, when the pods
    they select are not in a service mesh. The message names what scales the pods: a
    HorizontalPodAutoscaler, a KEDA ScaledObject, or `replicas` above one.

    A name is not the protocol where the code says otherwise: when the code linked to
    every container the port targets (by build evidence, not a name alike) serves plain
    HTTP on the targeted port (Go's `http.ListenAndServe`, an `http.Server`'s `Addr`,
    `http.Serve(lis, mux)` on a `net.Listen` listener) and no gRPC server of that code
    listens there, or on a port k8slb cannot read, or is handed to an HTTP server, and the
    code does not serve HTTP/2 in the clear (h2c), the port's name and its container
    port's name (an HTTP gateway's `grpc-gw`) count for nothing, and so does the number
    50051. Where that code (linked by build evidence to every targeted container, the
    program it starts known: its entry module, or a Go package with what it imports)
    makes no gRPC server of any library k8slb reads and hands none to an HTTP server, a
    gRPC name of the port or of its container port is contradicted but not disproved (a
    stale name, or a server of a library k8slb does not read): the finding is `info`, says
    the Service "may carry" gRPC, and names the code that makes no server. Code not
    linked, or linked by a name alike, leaves the name as strong as it is.

    Evidence about a port says something about that port only: a probe of another port
    or of a unix socket makes no other port gRPC (a metrics or HTTP Service of a gRPC pod
    is not reported). What k8slb only infers is never enough for a warning: a
    `grpc_health_probe` whose port it cannot read, a server image whose documented gRPC
    port it is (a table of well-known servers, each entry with its source: model servers
    such as `tensorflow/serving` 8500 and `nvcr.io/nvidia/tritonserver` 8001, telemetry
    collectors on OTLP's 4317, databases with a gRPC API; their port flags are read, such
    as Loki's `-server.grpc-listen-port`), or port 50051. With only that, the finding is
    `info`, says the Service "may carry" gRPC, and names the missing link: the port is
    not declared gRPC, only that evidence suggests it. A long-lived gRPC channel in the
    scanned code that dials the Service on that port (its target resolved as
    `grpc-client-clusterip`, KLB102, resolves it) shows what was only inferred: the
    port carries gRPC, and the finding quotes that channel.

    The evidence quoted is the strongest found on any of the Service's ports. The pods
    count as meshed with an Istio sidecar (`sidecar.istio.io/inject: "true"`, the
    `sidecar.istio.io/status` annotation of a pod `istioctl kube-inject` wrote, an
    `inject.istio.io/templates` choice, including the proxyless `grpc-agent` template whose
    xDS clients balance each call, a revision's `istio.io/rev` label on the pod or its
    Namespace, or an injection-enabled Namespace) or Linkerd, when
    every pod the Service selects is (or `--mesh` names a mesh). The same decision keeps
    `grpc-server-no-max-age` (KLB201) from asking the server those pods run for a maximum
    connection age, and the client rules (KLB102, KLB103, KLB202) quiet on meshed clients.

    When a headless twin exists (a `clusterIP: None` Service with the same selector that
    exposes the gRPC port: the same port or the same target port), the finding drops to
    `info` and names the twin the clients should use. A headless Service for another port
    (metrics, say) is no twin.

    A headless twin or an L7 proxy helps only the clients that use it. When a scanned
    container still dials the Service by its own name (an address in its `env` values,
    `args` or `command`; a ConfigMap it mounts is not read) or a long-lived gRPC channel in
    the code resolves to it, the finding stays a warning and names that client. A client
    whose pods are in a mesh is not one that dials past an L7 proxy: its own sidecar takes
    the dial and balances each request.

    A Service whose pods are one replica of a Deployment or StatefulSet that nothing
    scales is `info`: there is nothing to spread calls over until it is scaled. An
    autoscaler scales it, and so does a kustomize overlay whose patches or `replicas:`
    field give it more replicas than its base writes (a patch by label selector scaling
    every Deployment, `- {name: api, count: 3}`).

    A Service of a chart Helm rendered only without some of its templates (each a KLB003:
    a `required` or `fail` its defaults trip), that selects no pod of what did render, is
    `info`, naming the templates left out: its pods are likely in one of them, so how many
    replicas run and whether the server caps connection age, which decide this finding,
    are not known. Rendered with the values it is installed with, it is judged as above.

    A Service of a chart's render or a kustomize build (`--kustomize`), the whole of what
    is applied with it, whose selector matches the pods of no workload there nor of any
    other file read (in any namespace), is `info` and says so: with no pod behind it, no
    client stays on one. Its pods may come with the values it is installed with (a
    component the default values switch off, whose Service the chart writes all the same),
    or its selector is wrong; no twin is offered. Plain YAML may be applied with pods from
    files k8slb did not read, so a Service there with no pod seen is judged as above; so
    is one beside a custom resource an operator may make pods of (a `Prometheus`, a
    database cluster: any kind outside Kubernetes' own API groups, but for a few kinds
    documented as configuration only, such as a `ServiceMonitor`, a cert-manager
    `Certificate`, an Istio `VirtualService` or a Gateway API route), and one of a chart
    Helm rendered without some of its templates (above).

    When the gRPC server in the code behind the Service's gRPC ports (the code linked to
    the targeted containers; when the port it listens on cannot be read, every gRPC server
    of that code, as KLB201 judges it) caps connection age, or every workload behind it gives its
    server a maximum connection age by a container argument or env variable (istiod's
    `--keepaliveMaxServerConnectionAge 30m`, `GRPC_MAX_CONNECTION_AGE`; a grace alone caps
    nothing), with no scanned client dialing the Service (the pods' own env naming it is the
    address they advertise), the finding is `info`, whatever the evidence that the ports
    carry gRPC (their name, their `appProtocol`, the code itself): its clients reconnect
    and are placed anew.

    Pods that are peers of a ring or cluster (a Service for their own discovery selects
    them: gossip, memberlist, raft, `publishNotReadyAddresses`) are usually called by pod
    address, through that discovery: with no client in the scanned files that dials the
    ClusterIP, the finding is `info` and says so. So it is when the code of every targeted
    container registers the process in a service registry (a Consul, etcd, ZooKeeper,
    Eureka or Nacos client's register call, where the program runs it, Spring Cloud's
    discovery annotations, or a discovery client starter its build declares and its
    settings leave on): its callers
    resolve the pods' addresses there and balance over them; unless a caller is seen
    going through the Service (an external type, a container or channel that dials it, a
    configuration applied with it that names it with its port).

    A ClusterIP Service whose every client seen resolves its pods through the Kubernetes
    API is `info` too: a long-lived channel with a resolver that watches the Service's
    endpoints (sercand/kuberesolver's `kubernetes:///NAME:PORT`, or `k8s:///`, the scheme
    it is often registered as) gets the pods' addresses as they change, and its balancer
    spreads the calls over them, new pods included; no client of the ClusterIP itself
    (a container or channel that dials it) is seen.

    A ClusterIP Service whose every client seen opens a gRPC channel per call (`with
    grpc.insecure_channel(...)` in a function: no long-lived channel resolves to it, and
    each container whose strings, or the ConfigMap and Secret files it mounts, name it runs
    code with such a channel) is `info`, naming one: each call is a new connection that
    kube-proxy places anew. A container that names it in a mounted file (`addr:
    backend:50051` in a `config.yaml`) is a client as one that names it in its `env` is.
    A Go helper that dials for several programs (`rpcdial.New(addr)` in a shared package)
    is judged program by program: a program whose own calls of it each close the channel
    before they return dials per call, and only its calls' addresses count for it, even
    where another program (a command line tool) keeps the channels it gets. A client
    outside the scanned code that keeps a channel would still stay on one pod, so the twin
    is still offered; a `NodePort` or `LoadBalancer` Service, whose clients are outside,
    stays a warning.

    Some well-known systems serve gRPC on a port only their own components call (Grafana
    Loki, Mimir and Tempo, Cortex: 9095, or the port `-server.grpc-listen-port` names),
    and those find each other through the hash ring or the addresses their configuration
    names. A Service whose gRPC ports are all such ports is reported only when something
    dials it on one: a container or channel that names it, or a ConfigMap or Secret applied
    with it whose data names it with that port (`frontend_address: loki-frontend:9095`).
    The table of servers says which ports are internal, with its source.

    L7 proxies that balance each request are recognised in front of the Service: an
    Ingress with `nginx.ingress.kubernetes.io/backend-protocol: GRPC` (or `GRPCS`) or
    `alb.ingress.kubernetes.io/backend-protocol-version: GRPC` (AWS), a Service that GKE's
    load balancer reaches over HTTP/2 (`cloud.google.com/app-protocols`), a
    Gateway API `GRPCRoute`, an `HTTPRoute` to a port whose `appProtocol` is h2c, an Istio
    `VirtualService` or `DestinationRule` for the host, a Contour `HTTPProxy` route with
    `protocol: h2c`, or a Service whose own annotation has Contour reach one of its ports
    over HTTP/2 (`projectcontour.io/upstream-protocol.h2c` or `.h2`, or the older
    `contour.heptio.com/` form, naming the port by number or name; not `.tls`, which is
    HTTP/1.1 over TLS). With one and no direct client, the finding is `info`: the traffic it
    carries is balanced per request. (A proxy's own config file, for Envoy or Emissary,
    is not read.)

    A NodePort or LoadBalancer Service is named as such, with the advice that fits it:
    clients outside the cluster cannot resolve a headless twin's pod addresses, so for them
    the remedy is an L7 balancer that speaks HTTP/2 (an Ingress or a Gateway with a gRPC
    backend) or a bounded connection age.

    ## Why it matters
    A ClusterIP is a virtual address: kube-proxy picks a backend pod when a TCP connection
    opens, and the connection stays on that pod. Kubernetes balances connections, not
    requests. gRPC sends every call of a client over one long-lived HTTP/2 connection, so
    each client sticks to the pod it met first. Scale the backend from 3 to 10 replicas
    and the 7 new pods get no calls, while `kubectl get endpointslices -l
    kubernetes.io/service-name=NAME` shows all 10 ready. `kubectl top pods` shows the skew.

    ## Fix
    Any one of these, simplest first:
    1. add a headless twin Service (`clusterIP: None`, same selector and ports) and have
       the clients dial `dns:///NAME-headless.NAMESPACE.svc.cluster.local:PORT` with the
       `round_robin` policy;
    2. bound the connection age on the server (`grpc.max_connection_age_ms` with a
       grace), so clients reconnect and land on new pods;
    3. put an L7 proxy that balances requests (Envoy, an ingress) in between;
    4. mesh the workload (Istio sidecars, Linkerd), which balances requests. Istio ambient
       mode balances requests only with a waypoint proxy.

    `k8slb fix` adds the headless twin (`NAME-headless`, `clusterIP: None`, the same
    selector and ports) as a new document right after the Service: a safe fix, since
    nothing uses it until clients are pointed at it (`grpc-client-clusterip`'s fix).

    ## Measured
    On a real gRPC runtime (k8slb's own test-suite: grpcio servers on loopback behind an L4
    balancer that, like kube-proxy, picks a backend for each new connection; 6 client
    channels calling in a loop; 3 pods scaled to 10 while traffic runs; the calls each pod
    served in the last 1.5 s):
    - plain servers: pod-0 885, pod-1 868, pod-2 869, and pods 3 to 9: 0 calls each;
    - servers with the options `k8slb fix` writes for `grpc-server-no-max-age` (KLB201; a
      300 ms maximum age in the test): pods 0 to 9: 191, 247, 224, 288, 213, 227, 246, 252,
      154, 164.
    The same with grpc-go 1.33 (20 client processes, 1.5 s to 4 s after the scale-up):
    7583, 7966, 7259 calls on the first pods and 0 on each new one; with the KLB201 fix,
    2637 to 3196 on every pod.
    Reproduce: `.venv/bin/python -m pytest tests/test_grpc_proof.py
    tests/test_grpc_go_proof.py -s -q` (after `make test` has made `.venv`; the Go proof
    needs Debian's golang-go and golang-google-grpc-dev).

    ## Other linters
    None of kube-score, kube-linter, Polaris, checkov or Kubescape models the protocol of
    a Service port; `istioctl analyze` IST0118 only checks Istio's port naming.
    """

    id = "KLB101"
    name = "grpc-clusterip"
    severity = Severity.WARNING
    reads = PROBES  # gRPC evidence: a gRPC probe
    fix = FixInfo(
        available=True, safe=True, description="add a headless twin Service (NAME-headless)"
    )
    examples = (
        Example(GRPC_SERVICE + BACKEND + HPA, title="gRPC backend scaled by an HPA", at=(5, 1)),
        Example(
            GRPC_SERVICE + BACKEND + HEADLESS_TWIN,
            severity=Severity.INFO,
            title="with a twin",
            at=(5, 1),
        ),
        Example(
            GRPC_SERVICE
            + BACKEND.replace(
                "      labels: {app: backend}",
                "      labels: {app: backend}\n      annotations: {linkerd.io/inject: enabled}",
            ),
            findings=0,
            title="meshed with Linkerd",
        ),
        Example(
            GRPC_SERVICE.replace("name: grpc", "name: http").replace("50051", "8080"),
            findings=0,
            title="plain HTTP",
        ),
    )

    def _unseen(
        self,
        index: Index,
        pinned: PinnedService,
        pos: Pos,
        message: tuple[str, ...],
        related: list[Related],
    ) -> Finding:
        """An info finding where the traffic path is one k8slb cannot see: the twin is
        still offered, for the day clients do dial the Service."""
        edit = twin_edit(index, pinned)
        return self.finding(
            pinned.service,
            pos,
            message,
            severity=Severity.INFO,
            related=related,
            fix=f"add the headless twin Service {twin_name(pinned.service)}",
            edits=[edit] if edit else [],
        )

    def check(self, context: Context) -> Iterator[Finding]:
        services = list(context.services())
        shown = {id(service): context.pinned(service) for service in services}
        dialed = _dialed_evidence(context, [s for s in services if shown[id(s)] is None])
        judged = [
            (service, pinned)
            for service in services
            if (pinned := shown[id(service)] or dialed.get(id(service))) is not None
        ]

        # Who dials these Services: looked for in the whole tree (every container's
        # strings, every channel's destinations), so only when a finding's wording depends
        # on it: a Service with a headless twin, an L7 proxy or a capped connection age, or
        # one k8slb only infers carries gRPC (a channel that dials it shows it does).
        @functools.cache
        def dialers() -> Mapping[int, list[Dialer]]:
            return context.dialers([service for service, _ in judged])

        judged = [(service, _shown_by_a_channel(pinned, dialers)) for service, pinned in judged]
        # each finding is at its Service's position: weighed by that Service's evidence
        strongest = {(s.path, *_position(s)): pinned.evidence[0] for s, pinned in judged}
        for finding in self._judge(context, judged, dialers):
            yield _weighed(finding, strongest.get((finding.path, finding.line, finding.column)))

    def _judge(
        self,
        context: Context,
        judged: list[tuple[K8sObject, PinnedService]],
        dialers: Callable[[], Mapping[int, list[Dialer]]],
    ) -> Iterator[Finding]:
        """The findings on the Services that carry gRPC, as the traffic to each is seen."""
        index = context.index
        # what proxies front each Service (read once a judged Service carries gRPC)
        fronts: dict[Key, list[Front]] = l7_fronts(index.objects) if judged else {}
        for service, pinned in judged:
            if pinned.internal is not None and not _internal_dialers(index, pinned, dialers()):
                continue  # only the system's own components call it, and not through it
            yield self._verdict(_Seen(context, service, pinned, dialers, fronts))

    def _verdict(self, seen: _Seen) -> Finding:
        """The finding on the Service: the first way its traffic is seen that says one,
        else the plain one (clients stay on the pods they reached)."""
        for step in (
            self._one_replica,
            self._pods_unrendered,
            self._no_pod,
            self._twinned,
            self._proxied,
            self._api_resolved,
            self._ring,
            self._in_registry,
            self._capped,
            self._per_call,
        ):
            found = step(seen)
            if found is not None:
                return found
        return self._plain(seen)

    def _one_replica(self, seen: _Seen) -> Finding | None:
        """A Service of one replica that nothing scales: no pod to spread calls over yet."""
        alone = one_unscaled_replica(seen.index, seen.pinned.backends)
        if alone is None:
            return None
        message = (
            f"{seen.what}; {alone} runs one replica and nothing scales it",
            "with one pod there is nothing to spread calls over: its clients "
            "stay on one pod once it is scaled, which k8slb cannot see from here",
            "before scaling it, add a headless twin for round_robin or cap connection age",
        )
        return self._unseen(seen.index, seen.pinned, seen.pos, message, seen.related)

    def _pods_unrendered(self, seen: _Seen) -> Finding | None:
        """A Service of a chart Helm rendered without some of its templates, which selects
        no pod of what did render: its pods are likely in a template left out, so how many
        replicas run, and whether the server caps connection age, are unknown."""
        left_out = seen.context.left_out.get(seen.service.path)
        if seen.pinned.backends or not left_out:
            return None
        said = ", ".join(os.path.basename(path) for path in left_out[:3])
        message = (
            f"{seen.what}; it selects no pod of what its chart rendered, and Helm failed "
            f"on {len(left_out)} of its templates ({said}{', …' if len(left_out) > 3 else ''})",
            "its pods are likely in a template that did not render (KLB003): how many "
            "replicas run and whether the server caps connection age are not known",
            "render the chart with the values it is installed with (--helm-values) to "
            "judge it; if it is scaled and keeps connections, add a headless twin",
        )
        return self._unseen(seen.index, seen.pinned, seen.pos, message, seen.related)

    def _no_pod(self, seen: _Seen) -> Finding | None:
        """A Service of a chart's render or a kustomize build (the whole of what is applied
        with it) that selects no pod of it, nor of any other file read: no pod, so no
        client stays on one. Said at info, with no twin offered: its pods may come with
        other values, or its selector is wrong (Context.selects_no_pod)."""
        source = seen.context.selects_no_pod(seen.service)
        if seen.pinned.backends or source is None:
            return None
        selector = _selector_text(seen.service.selector)
        message = (
            f"{seen.what}; no pod read matches its selector ({selector})",
            f"{source} renders no workload whose pods it selects, nor does any other file "
            "read: no client reaches a pod through it, so none stays on one",
            "if the values or overlay it is installed with deploy its pods, lint with them "
            "to judge it; if it should select pods rendered here, correct its selector",
        )
        return self.finding(
            seen.service, seen.pos, message, severity=Severity.INFO, related=seen.related
        )

    def _twinned(self, seen: _Seen) -> Finding | None:
        """A Service with a headless twin: wrong only for the clients that dial it."""
        if not seen.pinned.twins:
            return None
        direct = seen.direct()
        twin = seen.pinned.twins[0]
        address = _dial_address(twin, seen.first)
        related = [*seen.related, Related(twin.path, twin.pos[0], "the headless twin")]
        if direct:
            return self.finding(
                seen.service,
                seen.pos,
                (
                    f"{seen.what}; {direct[0].who} dials it, not its headless twin {twin.name}",
                    "a client of the ClusterIP stays on the one pod its connection reached",
                    f"point it at {address} with round_robin",
                ),
                related=[*related, *(d.related for d in direct)],
            )
        return self.finding(
            seen.service,
            seen.pos,
            (
                f"{seen.what}, which has a headless twin",
                f"its twin {twin.name} balances per call for the clients that use it, "
                "and no scanned client dials this Service",
                f"make sure gRPC clients dial {address} with round_robin, not this Service",
            ),
            severity=Severity.INFO,
            related=related,
        )

    def _proxied(self, seen: _Seen) -> Finding | None:
        """A Service an L7 proxy fronts: wrong only for the clients that dial it past it."""
        service = seen.service
        proxies = [
            front
            for front in seen.fronts.get(key_of(service.namespace, service.name or ""), [])
            if not front.needs_h2c_port or seen.first.weakness == 0
        ]
        if not proxies:
            return None
        # a meshed client's own proxy takes its dial: it goes through the mesh, not past it
        direct = [dialer for dialer in seen.direct() if not dialer.meshed]
        proxy = proxies[0]
        related = [*seen.related, Related(proxy.path, proxy.line, proxy.reason)]
        if not direct:
            return self.finding(
                service,
                seen.pos,
                (
                    f"{seen.what}, behind a proxy that balances each request",
                    f"its traffic comes through {proxy.reason}; no scanned client dials "
                    "the Service directly (one that did would stay on one pod)",
                ),
                severity=Severity.INFO,
                related=related,
            )
        edit = twin_edit(seen.index, seen.pinned)
        return self.finding(
            service,
            seen.pos,
            (
                f"{seen.what}; {direct[0].who} dials it directly, past {proxy.reason}",
                "traffic through the proxy is balanced per request, but that client "
                "stays on one pod",
                "give in-cluster clients a headless twin with round_robin, or cap connection age",
            ),
            related=[*related, *(d.related for d in direct)],
            fix=f"add the headless twin Service {twin_name(service)}",
            edits=[edit] if edit else [],
        )

    def _ring(self, seen: _Seen) -> Finding | None:
        """Pods that are peers another Service discovers, and no client of this one seen."""
        rings = [seen.index.ring_of(w) for w, _ in seen.pinned.backends]
        ring = rings[0] if rings and all(rings) else None
        if ring is None or seen.direct():
            return None
        message = (
            f"{seen.what}; its pods are peers that Service {ring.name} discovers",
            "callers of a ring or cluster member usually find its pods through that "
            "discovery, by pod address, not through this ClusterIP; no client in the "
            "scanned files dials it, so k8slb cannot see who would stay on one pod",
            "if clients dial this Service, add a headless twin for round_robin or "
            "cap connection age",
        )
        related = [
            *seen.related,
            Related(ring.path, ring.pos[0], f"the peers' Service {ring.name}"),
        ]
        return self._unseen(seen.index, seen.pinned, seen.pos, message, related)

    def _api_resolved(self, seen: _Seen) -> Finding | None:
        """A ClusterIP whose clients seen all resolve its pods through the Kubernetes API
        (kuberesolver): they balance over the pods, past the virtual IP."""
        clients = seen.context.api_resolved(seen.service)
        if seen.kind != "ClusterIP" or not clients or seen.direct():
            return None
        message = (
            f"{seen.what}; its clients seen ({clients[0].who}) resolve its pods through "
            "the Kubernetes API",
            "such a resolver watches the pods and its balancer spreads the calls over them, "
            "new pods included, and no client of the ClusterIP itself is seen",
            "if clients will dial this Service, add a headless twin for round_robin or "
            "cap connection age",
        )
        related = [*seen.related, *(client.related for client in clients)]
        return self._unseen(seen.index, seen.pinned, seen.pos, message, related)

    def _in_registry(self, seen: _Seen) -> Finding | None:
        """Code that registers with a service registry, and no caller of the Service seen."""
        registered = _registered(seen.context, seen.service, seen.pinned)
        if registered is None or called_through(seen.context, [seen.service]):
            return None
        message = (
            f"{seen.what}; {registered.reason}",
            "such callers balance over the addresses the registry lists, not "
            "through this ClusterIP, and no caller of the Service is seen, so k8slb "
            "cannot see who would stay on one pod",
            "if clients dial this Service, add a headless twin for round_robin or "
            "cap connection age",
        )
        related = [*seen.related, *registered.related]
        return self._unseen(seen.index, seen.pinned, seen.pos, message, related)

    def _capped(self, seen: _Seen) -> Finding | None:
        """A server that caps connection age, in the code or by its container's arguments
        or env, and no client of the Service seen."""
        capped = _capped_age(seen.index, seen.pinned, seen.context.links)
        flagged = None if capped else _flagged_age(seen.index, seen.pinned)
        # a pod's own Service in its env is the address it advertises, not a client of it
        own = {workload.ref.display for workload, _ in seen.pinned.backends}
        clients = [dialer for dialer in seen.direct() if dialer.workload not in own]
        if (capped is None and flagged is None) or clients:
            return None
        if capped is not None:
            server, age = capped
            where = f"{server.loc.path}:{server.loc.line}"
            value = " to a value k8slb cannot read" if isinstance(age, Unknown) else f"={age}"
            said = f"the server in the code ({where}) sets {MAX_AGE}{value}"
            setting = Related(server.loc.path, server.loc.line, "the server")
        else:
            assert flagged is not None
            workload, written, pos = flagged
            said = f"{workload.ref.display} gives its server {written!r}"
            setting = Related(workload.path, pos[0], "the maximum connection age")
        edit = twin_edit(seen.index, seen.pinned)
        return self.finding(
            seen.service,
            seen.pos,
            (
                f"{seen.what}; its server caps connection age, which re-spreads clients",
                f"{said}: clients reconnect that often and kube-proxy places them anew",
                "for per-call balancing, add a headless twin and round_robin clients",
            ),
            severity=Severity.INFO,
            related=[*seen.related, setting],
            fix=f"add the headless twin Service {twin_name(seen.service)}",
            edits=[edit] if edit else [],
        )

    def _per_call(self, seen: _Seen) -> Finding | None:
        """A ClusterIP whose every client seen opens a channel per call: none stays on one
        pod (a client outside the scanned code may)."""
        if seen.kind != "ClusterIP":
            return None  # reached from outside the cluster, by clients not in the tree
        context = seen.context
        per_call = per_call_only(
            seen.index, context.code(), context.links, [seen.service], seen.dialers()
        )
        if not per_call:
            return None
        message = (
            f"{seen.what}; the clients seen open a channel per call ({per_call[0].who})",
            "each call is a new connection, which kube-proxy places anew: no client seen "
            "stays on one pod, though a client outside the scanned code that keeps a channel "
            "would",
            "if clients keep channels, add a headless twin for round_robin or cap connection age",
        )
        related = [*seen.related, *(d.related for d in per_call)]
        return self._unseen(seen.index, seen.pinned, seen.pos, message, related)

    def _plain(self, seen: _Seen) -> Finding:
        """A Service whose clients stay on the pods their connections reached."""
        scale = scale_phrase(seen.index, seen.pinned.backends)
        edit = twin_edit(seen.index, seen.pinned)
        if seen.kind == "ClusterIP":
            advice: tuple[str, ...] = (
                "add a headless twin for client-side round_robin, or cap connection "
                "age, or mesh it",
            )
        else:  # outside clients cannot resolve a headless Service's pod addresses
            advice = (
                "clients outside the cluster cannot use a headless twin: put an L7 "
                "balancer that speaks HTTP/2 in front (an Ingress or Gateway with a "
                "gRPC backend), or cap connection age",
                "in-cluster clients can dial a headless twin with round_robin",
            )
        return self.finding(
            seen.service,
            seen.pos,
            (
                seen.what,
                f"{scale + ': ' if scale else ''}kube-proxy balances connections, "
                "not requests, so pods added later get no calls from connected clients",
                *advice,
            ),
            related=seen.related,
            fix=f"add the headless twin Service {twin_name(seen.service)}",
            edits=[edit] if edit else [],
        )


class _Seen:
    """A Service that carries gRPC, as its finding sees it: the evidence first, the places
    related to every finding on it, where the finding points, what its headline says, and
    who dials it (looked for in the whole tree only when a step asks)."""

    def __init__(
        self,
        context: Context,
        service: K8sObject,
        pinned: PinnedService,
        dialers: Callable[[], Mapping[int, list[Dialer]]],
        fronts: dict[Key, list[Front]],
    ) -> None:
        self.context, self.index = context, context.index
        self.service, self.pinned, self.fronts = service, pinned, fronts
        self._dialers = dialers
        self.first = first = pinned.evidence[0]
        self.related = _related(self.index, pinned)
        self.pos = _position(service)
        self.kind = service_type(service)
        carries = "may carry" if first.inferred else "carries"
        protocol = first.protocol  # a port declared `http2`: HTTP/2, not gRPC as such
        self.what = f"{service.ref.display} {carries} {protocol} ({first.reason}) on a {self.kind}"

    def direct(self) -> list[Dialer]:
        """The clients seen dialing the Service itself."""
        return self._dialers().get(id(self.service), [])

    def dialers(self) -> Mapping[int, list[Dialer]]:
        """Who dials each Service judged."""
        return self._dialers()


def _related(index: Index, pinned: PinnedService) -> list[Related]:
    """The places every finding on a Service names: its first gRPC evidence (and the code
    behind it), the workloads it selects and what scales them."""
    first = pinned.evidence[0]
    related = [Related(first.path, first.pos[0], f"gRPC evidence: {first.reason}")]
    related += [
        Related(e.said.path, e.said.line, f"the code of that container: {e.describe()}")
        for e in (first.served.link.evidence if first.served else ())
    ]
    related += [Related(w.path, w.pos[0], f"selects {w.ref.display}") for w, _ in pinned.backends]
    related += [
        Related(s.path, s.pos[0], f"{s.kind}/{s.name} scales {w.ref.display}")
        for w, _ in pinned.backends
        for s in index.scalers(w)
    ]
    return related
