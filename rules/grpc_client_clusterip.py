from __future__ import annotations

import posixpath
from collections.abc import Iterator
from itertools import takewhile

from k8slb.code.facts import CONNECT_ADDRESS, Channel, CodeFacts, EnvRef
from k8slb.core.edits import ROUND_ROBIN_CONFIG, Edit, YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.addresses import Destination, services_for, target_parser
from k8slb.model.grpc_options import SERVICE_CONFIG, channel_policy
from k8slb.model.http2 import Evidence, PinnedService, dialed_port
from k8slb.model.index import Index, one_unscaled_replica
from k8slb.model.objects import service_ports
from k8slb.reading.objects import K8sObject
from k8slb.rulekit.base import PROBES, Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.dialect import dialect_of
from k8slb.rules.grpc_clusterip import (
    BACKEND,
    GRPC_SERVICE,
    scale_phrase,
    twin_edit,
    twin_name,
)

CLIENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  template:
    metadata:
      labels: {app: frontend}
    spec:
      containers:
        - name: web
          image: registry.example/frontend:1.0
          env:
            - name: BACKEND_ADDR
              value: backend:50051
"""
# connect-node's HTTP/2 transports balance nothing (no policy, one connection to the origin)
CONNECT_ADVICE = (
    "connect-node has no balancing policy: give the server a maximum connection age (its "
    "GOAWAY makes the transport open a new connection, which kube-proxy may place on "
    "another pod), or let a mesh's proxy balance each call"
)
_ENV_CHANNEL = """\
import os

import grpc

channel = grpc.insecure_channel(os.environ["BACKEND_ADDR"])
"""


def retarget(
    index: Index,
    channel: Channel,
    destination: Destination,
    pinned: PinnedService,
    language: str,
) -> tuple[str, list[Edit]]:
    """The headless target, and the edits that make the channel dial it with round_robin:
    the literal in the code, or the env value in the manifest that supplied it."""
    service = pinned.service
    twin = pinned.twins[0].name if pinned.twins else twin_name(service)
    ports = [p.get("port") for p in service_ports(service)]
    port = destination.address.port or (ports[0] if ports else None)
    namespace = service.namespace or destination.namespace
    host = f"{twin}.{namespace}.svc.cluster.local" if namespace else twin
    target = f"dns:///{host}" + (f":{port}" if port else "")
    edits: list[Edit] = []
    setting = destination.setting
    dialect = dialect_of(language)
    if isinstance(channel.target, str) and (retargeted := dialect.set_target(channel, target)):
        edits += retargeted
    elif (
        setting is not None
        and isinstance(channel.target, EnvRef)
        and not channel.target.prefix
        and not channel.target.suffix
    ):
        path = (*setting.workload.root_path, *setting.container.path, "env", setting.index, "value")
        edits.append(
            YamlEdit(setting.workload.path, setting.workload.document, path, "set-scalar", target)
        )
    else:
        return target, []
    if not channel_policy(channel.options).balancing:
        if channel.options.get(SERVICE_CONFIG) is not None:
            return target, []
        added = dialect.channel_options(channel, [(SERVICE_CONFIG, ROUND_ROBIN_CONFIG)])
        if not added:
            return target, []
        edits += added
    if not pinned.twins:
        document = twin_edit(index, pinned)
        if document is None:
            return target, []
        edits.append(document)
    return target, edits


_GO_CLIENT = """\
package main

import (
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var conn, _ = grpc.NewClient(
	os.Getenv("BACKEND_ADDR"),
	grpc.WithTransportCredentials(insecure.NewCredentials()),
)
"""


JAVA_CLIENT = """\
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class BackendClient {
  private static final ManagedChannel CHANNEL =
      ManagedChannelBuilder.forTarget(TARGET).usePlaintext().build();
}
"""


class GrpcClientClusterIp(Rule):
    """A gRPC channel dials a ClusterIP Service, where its calls stay on one pod.

    ## What it does
    Follows the target of every long-lived gRPC channel (`grpc.insecure_channel`,
    `grpc.secure_channel` and their `grpc.aio` twins, through aliases and
    `functools.partial`) to the Service it names: a literal host (`svc`, `svc.ns`,
    `svc.ns.svc`, `svc.ns.svc.cluster.local`), or an environment variable as the scanned
    workloads set it (`os.environ[...]`, `os.getenv(...)`, with the default in the code when
    no workload sets it). It reports the channel when that Service is one that
    `grpc-clusterip` (KLB101) reports: gRPC behind a virtual IP, no mesh; the channel is
    evidence of its own that the port it dials carries gRPC, whatever the port is named
    (the OpenTelemetry demo names its ports `tcp-service`). The finding points at the call
    and names the Service and the manifest line that led there. A client whose pods are
    all in a mesh (the containers that run its code and the workload whose env gave the
    address) is not reported: its proxy balances each call (the decision KLB101 makes of
    a Service's pods, and KLB103 of a client's).

    As KLB101 judges the Service, the finding is `info` when the Service's pods are one
    replica of a Deployment or StatefulSet that nothing scales: the channel misses no pod
    yet, and the message says it will miss every pod added later; and when no pod read
    matches the Service's selector in the chart's render or kustomize build that holds
    it (KLB101's info too): the channel reaches no pod, and the finding says it would
    stay on one once values that deploy its pods are installed. Where the tree holds
    several copies of the Service (the same namespace and name in several files:
    scenarios, alternatives, overlays of one application), the channel is judged by the
    worst of those its addresses reach (a copy whose pods are scaled), and the message
    names that copy and the manifest that gave the address there.

    A target that is a parameter of a helper (`def make_channel(target)`) is what the
    module's calls of the helper pass, each judged with the caller that keeps (or uses
    once) what the helper returns; several callers give one finding each. A helper of
    another module (a module-level function that returns the channel it makes of its
    parameter, `channel = grpc.aio.insecure_channel(address, ...)` then `return channel`,
    imported from the project or from another distribution of the same repository, such
    as `libs/netkit/src/netkit/channels.py`, which the image installs) is judged at each
    call that keeps what it returns (`self.stub = Stub(open_channel(settings.ADDR))`),
    with the helper's factory and options; the message names the helper and where it
    makes the channel, and no edit is made there (the helper's options are every
    caller's).

    A Django setting (`settings.X` of `from django.conf import settings`) is read in the
    one `settings.py` of the module's project (none where it has several). A settings
    class's attribute (`Settings.AUTH_ADDR`, the class imported from a settings module and
    its package) is the environment variable its class body reads, and a pydantic
    settings field's is the one its name or its `Field(alias=...)` names, as README's
    language section details; the variable is then looked up as any other, in the `env`
    and `envFrom` ConfigMaps of the workloads that run the code; a pydantic field's in any
    case (pydantic-settings reads the environment case-insensitively unless the class sets
    `case_sensitive=True`: the chart's `nidx_api_address: nidx:10000` sets the field
    `nidx_api_address`), including the fields a settings class derives from another
    settings class of its module. An absolute import is also looked up from each folder
    above the module that holds a script (a module with an `if __name__ == "__main__":`
    block): `python src/main.py` puts `src` first on sys.path, so `from settings import
    settings` in `src/grpc_clients/auth.py` reads `src/settings.py` though an
    `src/__init__.py` makes `src` a package. A channel held
    in a local of a method that stores it, or a stub made on it, in an attribute
    (`self.stub = Stub(channel)`) lives as long as the object; one stored in an item of a
    map an object or the module holds (`self._channels[name] = ...`, `_CHANNELS[name] =
    ...` of a module-level `_CHANNELS = {}`, not a local's map nor a local of that name),
    or in a name the function declares `global`, lives as long as the process, and so
    does one a function returns to a caller that stores it so. Where the channel is kept
    away from the line that makes it (a map's item, a global, a caller's store), the
    message names the place ("the channel is kept by the caller at line 14, in
    `_CLIENTS[name]`").

    Channels made for one use (`with grpc.insecure_channel(...)`, a local in a function)
    are not reported, nor test files. A target k8slb cannot resolve gives no finding, nor
    does one of another resolver than DNS: a resolver that watches the Service's endpoints
    through the Kubernetes API (sercand/kuberesolver's `kubernetes:///NAME:PORT`, or
    `k8s:///`) hands the channel the pods themselves, which its balancer spreads the calls
    over (KLB101 and KLB201 count such clients as staying on no pod).

    In Go: `grpc.NewClient`, `grpc.Dial` and `grpc.DialContext` channels, and grpc-gateway's
    generated `Register<Service>HandlerFromEndpoint(ctx, mux, endpoint, opts)` of an
    imported package, which "automatically dials to "endpoint" and closes the connection
    when "ctx" gets done" (protoc-gen-grpc-gateway's template, with `grpc.NewClient` from
    v2.20 on, `grpc.Dial` in v1): a channel at the call, with the options its `opts` slice
    holds, kept for the process unless its context is a request's (`r.Context()`) or has a
    deadline (`context.WithTimeout`), whether or not the generated file is in the tree (a
    generated file is not read, so its own dial is not counted again); the message says
    the registration made it. Their target
    followed through constants, package variables only `init` assigns, `os.Getenv` (with
    the default set under `if x == ""`, or `if err != nil` after `strconv.Atoi`, or given
    by an env helper: `getEnv("ADDR", "backend:50051")`, a function that returns the
    variable or its fallback, in the file, another file of its package, or another package,
    `helpers.GetEnv("ADDR", ...)`, as that package's own files declare it), `fmt.Sprintf`,
    concatenation, a helper's parameters (a constructor's in another package, `NewClient(
    addr)`, to what its callers pass), what a function of the file returns where its returns
    all give one value, its parameters read as the call's arguments (`address(
    "ORDERS_HOST", "ORDERS_PORT")`; a `return ""` of a failure left out), and the fields a
    helper fills (`mustMapEnv(&svc.addr,
    "ADDR")`), a receiver's field the struct literals of another file of its package fill,
    a configuration struct passed whole through functions of other packages or of other
    files of its own (`cfg, err := LoadConfig()`, then `NewFeedService(cfg)`), or written
    in the call (`gateway.New(gateway.Config{OrderAddr: addr})`, a literal of a named
    type), and the fields a settings package's function (or a loader another file of the
    package declares, exported or not) fills from the environment over its defaults and
    returns, in a struct of its own package's type or another's (`models.Config{...}`, or
    `var cfg Config` set field by field), the struct or its address (`cfg :=
    Config{Host: getString("HOST", "localhost")}; return &cfg, nil`, after a check that
    changes nothing, `cfg.Validate()`),
    nested ones too (`Upstreams: upstreamsFromEnv()`, a function of the file returning a
    literal; read as `c.Config.Upstreams.LedgerAddr` through a receiver's field a
    constructor fills), a target joined from two such fields (`cfg.Host +
    ":" + cfg.Port`) filled from what the container's `env`, or a ConfigMap its `envFrom`
    loads, sets, and a `range` loop's variable over a literal map or slice of addresses (or
    of structs whose field holds one: `for _, b := range backends { dial(b.addr) }`), each
    of its values (8 at most) a channel of its own (the same paths KLB202 follows for URLs:
    see the README's Go section); a channel
    closed by `defer conn.Close()` in the function that makes it is per call (not one a
    deferred function closes only under `if err != nil`: that cleans up a failed dial, and
    on success the caller gets the channel open), one a helper
    returns (or a struct it returns holds) or writes through a pointer lives as long as its
    caller keeps it, and one a method keeps in its receiver's fields (`c.conns =
    append(c.conns, conn)`, an item of a map the receiver or the package holds, `c.conns[id]
    = conn` or `c.entries[id] = &entry{conn: conn}`, or a cleanup that closes it,
    `c.cleanups = append(c.cleanups, func() { conn.Close() })`) lives as long as the
    receiver; the message names that place, or the caller of the file that stores what a
    helper returns ("the channel is kept by the caller at line 27, in `c.conns[name]`").
    A function that returns a closer of the channel beside what it makes (`release :=
    func() { conn.Close() }`;
    `return pb.NewLedgerClient(conn), release, nil`) makes it per call when each of the
    file's calls of it runs that closer (`c, release, err := open(); defer release()`) or
    returns the call whole to callers that do; the function may be a function literal
    called through the local or the struct field it is put in (`p.factory(addr)`),
    followed 4 functions up and 64 calls a function. A command-line flag's value is what
    the args of the containers that run the code give it (`--name=value`, `--name value`,
    `-name=value`): the flag package's, pflag's and cobra's, and urfave/cli's read by name
    on the context its action is given (`c.String("link-graph-api")` of `func run(c
    *cli.Context) error`), by its name or an alias, else (urfave/cli) the first of the
    flag's `EnvVars` the container sets, else the flag's default. A function a CLI library
    runs as the process's action (urfave/cli's `Action: run` or `app.Action = run`,
    cobra's `RunE: run`, or a function literal written there, `Run: func(cmd
    *cobra.Command, args []string) {...}`) runs once, as `main` does, and a client returned
    made on a stub made on the channel (`api.NewClient(ctx, pb.NewStoreClient(conn))`)
    keeps it. A key read from viper's registry (`viper.GetString("datahub.address")`) of a
    program that reads a settings file its viper calls name (`SetConfigFile` of a
    `--config` flag's default) dials what the repository's copy of that file sets at the
    key (the one TOML, YAML or JSON file of that name nearest the code, up to its go.mod),
    where no container sets the variable `AutomaticEnv` reads for it (`SetEnvPrefix`,
    `SetEnvKeyReplacer`): a variable of another spelling the manifest sets
    (`APP_DATAHUBADDRESS` for `APP_DATAHUB_ADDRESS`) is not read, and the file's value
    stands; the message names the file and the variable that would override it. Where
    the repository holds no file of the name those calls give (none below its top or its
    go.mod's folder), viper's `ReadInConfig` finds none in the image built from it and the
    key keeps `SetDefault`'s value (a file a ConfigMap mounts there is not read for such a
    key). A key read as a string is followed through `strconv.Atoi` and through a function
    of the file that only parses its parameter so (`convertPort(viper.GetString(key))`).

    In JavaScript (`@grpc/grpc-js`): `new Client(target, grpc.credentials.create...())`
    (the credentials also held in a variable), and nice-grpc's `createChannel(address)`
    (an `http://host:port` address dials `host:port`), its target a string, a template
    string, a `+` concatenation, `process.env.X` (with a `||` or `??` default), a call of
    the module's environment helper (a function returning `process.env[name]`, or a
    default it is given: `requiredEnv("ORDERS_ADDR", "orders:50051")`), a module
    `const`, or a `let` or `var` and what is assigned to it; a property of an object
    k8slb cannot follow (`upstream.addr`, of a configuration file the program parsed) is
    what the YAML and JSON files the containers that run the code mount from a ConfigMap
    or a Secret set at a key of that name (`spec.upstreams[0].addr`), reported only where
    the Service shows gRPC by evidence of its own (a name matched is no evidence of the
    protocol); a client closed in the function that makes it is per call. Its unsafe fix
    is not made in JavaScript (the target is rarely a literal there). connect-node's
    transports (`@connectrpc/connect-node`, formerly `@bufbuild/connect-node`) count too
    where they speak HTTP/2: `createGrpcTransport({baseUrl})` always, `createConnectTransport` and
    `createGrpcWebTransport` with `httpVersion: "2"`. Each keeps one HTTP/2 connection to
    its `baseUrl`'s origin (a new one only once the server ends it, or after 15 idle
    minutes) and has no balancing policy, so the advice is the server's maximum connection
    age, or a mesh, and no fix is offered. Read where made once (the module's top level,
    `main`, a constructor) or kept (an object's field, a top-level variable); one a
    function makes and does not so keep is not read. NestJS's gRPC clients
    (`@nestjs/microservices`: `ClientsModule.register([...])` and `registerAsync`,
    `ClientProxyFactory.create(...)` in a provider's `useFactory`, the `@Client(...)`
    decorator, each given `{transport: Transport.GRPC, options: {url}}`) are grpc-js
    clients: NestJS's ClientGrpcProxy makes `new Client(options.url, credentials,
    channelOptions)` for each service and keeps it for the application's life, with
    grpc-js's default policy, pick_first, unless `channelOptions` give a service config.
    Their target is `options.url` (a literal, `process.env.X`, or `@nestjs/config`'s
    `config.get('X')`/`getOrThrow('X')`, read as the environment variable X; NestJS's
    `localhost:5000` when not given). A host left for the user to fill (`<USERS_SVC>:50051`
    in a ConfigMap), in any language, is the Service whose name it spells as Kubernetes
    spells a Service's name in its pods' environment (`USERS_SVC_SERVICE_HOST` is Service
    `users-svc`'s: upper case, `-` as `_`), judged where the namespace has that Service,
    and not judged where it has none.

    In Java (grpc-java): a channel builder (`ManagedChannelBuilder.forTarget`/`forAddress`,
    `Grpc.newChannelBuilder`, `Grpc.newChannelBuilderForAddress`, Netty's and OkHttp's)
    followed to `build()`, its target a string, a concatenation or `String.format`, a
    `final` field's initializer or `System.getenv("X")` (with a default from `getOrDefault`,
    `Optional.ofNullable(...).orElse(...)` or a `!= null ?` test); a target made of several
    variables (`host + ":" + port`, `forAddress(host, port)`) is filled from the `env` of
    the container that runs the code (no fix: two values to change); a channel shut down in
    the method that makes it (not `main`) is per call. The fix rewrites the Deployment's
    env value and adds `.defaultLoadBalancingPolicy("round_robin")`; a literal target in
    the code is left to a human.

    In Kotlin, the same builders (no fix); a primary constructor's parameter
    (`class RatesClient(host: String, port: Int)` building `forAddress(host, port)`) is
    what the project's calls of the constructor pass, each argument in its place, and a
    property a framework injects (`@Value("\\${rates.host}")`, Spring's or Micronaut's) the
    project's settings' value for the key, else its environment variable (`RATES_HOST`).

    In Spring Boot settings: a client channel's `address` (`grpc.client.<name>.address`,
    `spring.grpc.client.channels.<name>.address`); `static://host:port` is that one
    address (the system resolves the name once), `dns:///host:port` every address of the
    name. No fix: the settings are their owner's. The starter's `@GrpcClient("name")`
    whose address only the environment gives is one channel per name, however many classes
    inject it: reported once, at its first place, the others with it.

    In Quarkus: a `@GrpcClient("name")` (`io.quarkus.grpc`) is one channel per name for
    the process, to `quarkus.grpc.clients.<name>.host` and `.port` (9000 by default), read
    as the `prod` profile a packaged application runs (`%prod.` keys over the others), or
    their environment variables (`QUARKUS_GRPC_CLIENTS_<NAME>_HOST`, or
    `QUARKUS_GRPC_CLIENTS__<NAME>__HOST`); reported at the key that gives the host, the
    classes that inject it told with it. A client whose `name-resolver` is `stork`, or
    any other than `dns`, or that enables xDS is not reported: its host names no Service.

    ## Why it matters
    The channel opens one HTTP/2 connection to the Service's virtual IP; kube-proxy pins
    it to one pod, and every call of this client goes there. A `round_robin` policy does
    not help: the name resolves to one address.

    ## Fix
    Dial the headless twin of the Service with the `dns:///` scheme and the `round_robin`
    policy, for example
    `grpc.insecure_channel("dns:///backend-headless.shop.svc.cluster.local:50051",
    options=[("grpc.service_config", '{"loadBalancingConfig": [{"round_robin": {}}]}')])`,
    and give the server a maximum connection age so that clients find new pods.

    `k8slb fix --unsafe-fixes` makes the channel dial the headless twin
    (`dns:///NAME-headless.NAMESPACE.svc.cluster.local:PORT`): in the code when the target
    is a literal there, in the workload's `env` value when it comes from there; it adds
    the `round_robin` service config to the options, and the twin Service when it is
    missing. Unsafe: it changes where the client connects.

    ## Other linters
    No other linter reads application code together with manifests.
    """

    id = "KLB102"
    name = "grpc-client-clusterip"
    severity = Severity.WARNING
    reads = PROBES  # gRPC evidence: a gRPC probe
    fix = FixInfo(
        available=True,
        safe=False,
        description="dial the headless twin with dns:/// and round_robin",
    )
    examples = (
        Example(
            _ENV_CHANNEL,
            language="python",
            manifests=GRPC_SERVICE + BACKEND + CLIENT,
            title="the address comes from the Deployment's env",
            at=(5, 11),
        ),
        Example(
            'import grpc\n\nchannel = grpc.insecure_channel("backend.default.svc:50051")\n',
            language="python",
            manifests=GRPC_SERVICE + BACKEND,
            title="a literal host",
            at=(3, 11),
        ),
        Example(
            _ENV_CHANNEL.replace('os.environ["BACKEND_ADDR"]', '"localhost:50051"'),
            findings=0,
            language="python",
            manifests=GRPC_SERVICE + BACKEND,
        ),
        Example(
            _ENV_CHANNEL,
            findings=0,
            language="python",
            manifests=GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
            + BACKEND
            + CLIENT,
            title="the Service is headless",
        ),
        Example(
            _GO_CLIENT,
            language="go",
            manifests=GRPC_SERVICE + BACKEND + CLIENT,
            title="in Go, the address from the Deployment's env",
            at=(10, 15),
        ),
        Example(
            JAVA_CLIENT.replace("TARGET", 'System.getenv("BACKEND_ADDR")'),
            language="java",
            manifests=GRPC_SERVICE + BACKEND + CLIENT,
            title="in Java, the address from the Deployment's env",
            at=(6, 7),
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        index = context.index
        for facts, channel in context.judged_channels():
            worst = _worst_copy(context, facts, channel)
            if worst is None:
                continue
            destination, pinned, quiet, copies = worst
            alone = quiet[0] if quiet else None
            stays = "would stay" if quiet and quiet[1] == _NO_POD else "stays"
            service = pinned.service
            how = f" ({destination.origin})" if destination.origin else ""
            policy = channel_policy(channel.options)
            useless = (
                f" (its {policy.name} policy cannot help: one address)" if policy.balancing else ""
            )
            related = [Related(service.path, service.pos[0], f"{service.ref.display}")]
            if destination.via is not None:
                related.insert(0, destination.via)
            related += [
                Related(loc.path, loc.line, "the same channel, injected here too")
                for loc in channel.also
            ]
            connect = channel.default_scheme == CONNECT_ADDRESS
            edits: list[Edit] = []
            if connect:  # no policy to give it: the server must move it, or a mesh
                target = ""
                better = CONNECT_ADVICE
                what = f"{channel.factory}() transport"
            else:
                target, edits = retarget(index, channel, destination, pinned, facts.language)
                better = (
                    f"dial its headless twin {target}"
                    if pinned.twins
                    else f"add a headless twin Service and dial it as {target}"
                ) + " with round_robin"
                what = "gRPC channel"
            yield self.code_finding(
                channel.loc,
                (
                    f"{what} to ClusterIP {service.ref.display} {stays} on one pod",
                    f"it dials {destination.address.text!r}{how}, and kube-proxy pins its one "
                    f"connection to one pod{useless}",
                    *([f"the channel is made {channel.made_in}"] if channel.made_in else []),
                    *([f"the channel is kept {channel.kept}"] if channel.kept else []),
                    *([_copies(pinned, copies, quiet, destination, index)] if copies > 1 else []),
                    *([alone] if alone else []),
                    better,
                ),
                severity=Severity.INFO if alone else None,
                related=related,
                fix=(
                    None
                    if connect
                    else f"dial {target} with round_robin (review: the headless Service "
                    "must exist where the client runs)"
                ),
                edits=edits,
            )


def _worst_copy(
    context: Context, facts: CodeFacts, channel: Channel
) -> tuple[Destination, PinnedService, tuple[str, str] | None, int] | None:
    """The pinned Service a long-lived channel dials, judged by the worst deployment its
    code can be part of: every copy of the Service the tree holds (the same name in
    several files: alternatives, overlays, scenarios of one application) that an address
    of the channel reaches from a client no mesh balances, a copy whose pods are scaled
    before one that runs one replica nothing scales (KLB101's info); then the copy first
    by path, and the address given nearest to it (a scenario's client beside the
    scenario's Service). With it, why its channel misses no pod yet (_quiet: the line
    to say and, for every copy of it, what each does; or None) and how many copies of
    that Service were judged. None when no address reaches a pinned Service."""
    index = context.index
    # (service's id) -> (pinned, quiet, the destinations that reach it, in order)
    reached: dict[int, tuple[PinnedService, tuple[str, str] | None, list[Destination]]] = {}
    looked: dict[tuple[str | None, int | None, str | None, bool], list[PinnedService]] = {}
    for destination in context.destinations(
        channel.target, target_parser(channel.default_scheme), facts
    ):
        address = destination.address
        key = (address.host, address.port, destination.namespace, destination.keyed)
        if key not in looked:  # many clients set one address: each is looked up once
            looked[key] = [
                p
                for s in services_for(index, address, destination.namespace)
                if (p := context.pinned(s, _dialed(s, destination, channel))) is not None
            ]
        if not looked[key] or context.mesh_of_code(facts, destination):
            continue  # a meshed client's proxy balances each call, as for KLB103
        for pinned in looked[key]:
            if id(pinned.service) not in reached:
                # as KLB101 judges the Service: one pod that nothing scales is not yet
                # missed, and no pod at all cannot be stayed on
                alone = _quiet(context, pinned)
                reached[id(pinned.service)] = (pinned, alone, [])
            reached[id(pinned.service)][2].append(destination)
    if not reached:
        return None
    pinned, alone, given = min(
        reached.values(),
        key=lambda r: (r[1] is not None, r[0].service.path, r[0].service.pos),
    )
    service = pinned.service
    copies = sum(1 for p, _, _ in reached.values() if p.service.ref == service.ref)
    if alone is not None:  # every copy is quiet (a copy that is not sorts first): say how
        ways = sorted({q[1] for p, q, _ in reached.values() if q and p.service.ref == service.ref})
        alone = (alone[0], " or ".join(ways))
    nearest = max(
        enumerate(given),
        key=lambda d: (_shared_depth(d[1], service.path), -d[0]),
    )[1]
    return nearest, pinned, alone, copies


_ONE_REPLICA, _NO_POD = "runs one replica", "selects no pod"  # why a channel misses no pod


def _quiet(context: Context, pinned: PinnedService) -> tuple[str, str] | None:
    """Why the channel misses no pod of the Service yet, as KLB101 judges it (its finding is
    then info): the one replica nothing scales, or no pod at all in the chart's render or
    kustomize build that holds the Service (Context.selects_no_pod); the line that says
    so, and what the Service does in a few words. None otherwise."""
    alone = one_unscaled_replica(context.index, pinned.backends)
    if alone is not None:
        return (
            f"{alone} runs one replica and nothing scales it: the channel misses no pod "
            "today, and will miss every pod added later",
            _ONE_REPLICA,
        )
    source = None if pinned.backends else context.selects_no_pod(pinned.service)
    if source is not None:
        return (
            f"no pod read matches the selector of {pinned.service.ref.display} ({source} "
            "renders none): the channel reaches no pod, and stays on one only once values "
            "that deploy its pods are installed",
            _NO_POD,
        )
    return None


def _dialed(service: K8sObject, destination: Destination, channel: Channel) -> Evidence | None:
    """The channel as evidence that the port it dials carries gRPC; none for an address
    matched by a key's name alone in a mounted file (facts.FileKey), where the Service
    must show gRPC by evidence of its own."""
    if destination.keyed:
        return None
    return dialed_port(service, destination.address.port, channel.loc)


def _copies(
    pinned: PinnedService,
    copies: int,
    quiet: tuple[str, str] | None,
    given: Destination,
    index: Index,
) -> str:
    """Which of the copies of a Service the finding was judged by, and why that one."""
    service = pinned.service
    scaled = scale_phrase(index, pinned.backends) or "its pods are not one unscaled replica"
    why = f"every copy {quiet[1]}" if quiet else scaled
    env = f"; the address from {given.via.path}:{given.via.line}" if given.via is not None else ""
    return (
        f"{copies} files hold {service.ref.display}: judged by the worst for this channel, "
        f"{service.path}:{service.pos[0]} ({why}{env})"
    )


def _shared_depth(destination: Destination, path: str) -> int:
    """How many leading folders the manifest that gave an address shares with `path`."""
    if destination.via is None:
        return 0
    given = posixpath.dirname(destination.via.path).split("/")
    there = posixpath.dirname(path).split("/")
    alike = takewhile(lambda pair: pair[0] == pair[1], zip(given, there, strict=False))
    return sum(1 for _ in alike)
