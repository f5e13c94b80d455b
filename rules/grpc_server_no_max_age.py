from __future__ import annotations

from collections.abc import Iterator

from k8slb.code.facts import IN_MEMORY, CodeFacts, Option, Server
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.core.record import record
from k8slb.languages.go.parse_connect import CONNECT
from k8slb.model.addresses import Listening
from k8slb.model.addresses_spring import runs_profile
from k8slb.model.dialers import Dialer, per_call_only
from k8slb.model.entries import entries_of
from k8slb.model.grpc_options import INT_MAX, MAX_AGE, MAX_AGE_GRACE
from k8slb.model.index import is_headless, one_unscaled_replica, service_type
from k8slb.model.objects import pod_template
from k8slb.model.routes import Front, Key, envoy_fronts, key_of, l7_fronts
from k8slb.rulekit.base import Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.dialect import Since, dialect_of
from k8slb.rulekit.examples import (
    BUILT_HERE,
    GO_HANDLER,
    GO_KEEPALIVE_IMPORTS,
    GO_MAX_AGE,
    JAVA_MAX_AGE,
    KOTLIN_MAX_AGE,
    MAX_AGE_OPTIONS,
    NODE_MAX_AGE,
    NODE_SIGTERM,
    SIGTERM_HANDLER,
    go_server,
    grpc_server,
    java_server,
    kotlin_server,
    maven_pom,
    node_server,
    web_deployment,
)


class GrpcServerNoMaxAge(Rule):
    """A gRPC server that never ends a connection.

    ## What it does
    Reports `grpc.server(...)` and `grpc.aio.server(...)` calls whose options do not set
    `grpc.max_connection_age_ms` (or set it to INT_MAX, gRPC's "unlimited"). Options are
    followed through names, `append`, `+`, `**kwargs` dicts and `functools.partial`; when
    they cannot be followed (built by a function call, read from config) the rule stays
    silent. Test files are not reported, nor Go code only tests use (a package no `main`
    package links in that only test files import: a fake server for tests), nor a Go
    function only a test can call: one given the test's `testing.TB` or `*testing.T`,
    or an unexported fake (`runFakeServer`, a method of a `mockPeer`) outside `package
    main` that nothing in its file calls but a test's function, nor a Go function or
    method, exported or not, that the whole tree names only in tests: every call of its
    name (or its name handed on as a value) is in a `_test.go` file, in a function given a
    test's handle, or in a function that in turn only tests call, a few callers up (so a
    `RunTest` method that only test helpers start; one that a program calls, or that the
    tree never names, is judged); in Python, a server a
    class or function named a fake or a mock makes (`class GrpcMockStore`), in a module
    with no `__main__` check. In any language, a server in code no container is linked
    to, whose image (a Jib build's, a skaffold artifact's) no container of the run runs
    and a test of the tree starts with Testcontainers, is a test's stand-in: `info`,
    saying so (README: what no link shows weighs less). A server made in a Python
    module's `if __name__ == "__main__":` block is not reported where every container
    known to run the module (by build evidence, not a name alike) starts another entry
    module that imports it: Python runs that block only in the module run as the program
    (`python x.py`, `python -m pkg.x`); where a container's entry is unknown or is the
    module itself, or no container is known to run it, it is judged as any code.

    In Go: `grpc.NewServer(...)` whose
    `grpc.KeepaliveParams(keepalive.ServerParameters{...})` sets no `MaxConnectionAge`, or
    sets it to `time.Duration(math.MaxInt64)` (grpc-go's "infinity", its default;
    `math.MaxInt64` alone too) (the same rule, on the same facts); the parameters may be a
    variable assigned several literals (`kasp := ...`, then `kasp = ...`, in any branch,
    case or loop of the function, or as a default under `if !ok`), each read: the age counts
    as set when any of them sets it. A value that is no literal, or a function that changes
    the parameters or the option slice in place (`kasp.MaxConnectionAge = d`, `opts[0] = o`,
    `tune(&kasp)`, a `range` that rebinds it), keeps it silent. Options a helper function
    returns (`grpc.NewServer(newServerOptions(params)...)`, `opts := util.ServerOptions()`
    and `append`s to it) are read, in the same file or in another file or package of the
    tree; a helper no scanned file declares, or an option k8slb cannot follow, keeps it
    silent. A Go server that is only served as
    an HTTP handler (`ServeHTTP`, `h2c.NewHandler(server, ...)`, `http.Server{Handler:
    server}`, grpc-web's `grpcweb.WrapServer(server)`, a router's `Handle(pattern, server)`,
    its `ServeHTTP` method given as a value, or the server passed where a function of the
    tree, in any package, takes an `http.Handler`: `grpcutil.NewMuxHandler(server, mux)`,
    or where one returns an `http.Server` or an `http.Handler` that serves that parameter
    so, the grpc-gateway way: `func GatewayServer(s *grpc.Server, mux http.Handler)
    *http.Server` returning `&http.Server{Handler: split(s, mux)}` whose `split` calls
    `s.ServeHTTP(w, r)` for `application/grpc`) is
    reported at `info`, with no fix: grpc-go ignores its keepalive options there, since the
    connections belong to the HTTP server. A connect-go server (its handlers on a mux
    served over HTTP/2, as KLB403 reads it) is not reported: connect-go has no
    connection age to set (nor has x/net/http2's Server, whose IdleTimeout ends only idle
    connections), so there is no option to add; its Service's pinning is KLB101's to say.
    An xDS server
    (`xds.NewGRPCServer` of `google.golang.org/grpc/xds`) is not reported: its clients are
    xDS clients (proxyless), which get its pods from the control plane and balance each call.
    A go-kratos server (`grpc.NewServer(opts...)` of `kratos/v2/transport/grpc`, or v3)
    is such a server too: kratos makes a grpc-go server with only the grpc-go options its
    `grpc.Options(...)` hands it, so those are read as above (its own options, middleware,
    interceptors, TLS, timeouts, set no connection option), and its `grpc.Address(addr)`
    (or `grpc.Listener(lis)` of a `net.Listen`) is where it listens, for the Services that
    target it. An option of another package or a helper of another file keeps it silent.
    Its finding has no fix: the advice says to add the parameters to the list its one
    `grpc.Options(...)` call gives (a later call replaces that list).

    In Node.js (`@grpc/grpc-js`, JavaScript or TypeScript): `new grpc.Server(options)`
    whose options (in the call or a `const` object of the module) set no
    `'grpc.max_connection_age_ms'`; the fix adds both options to that object (in its
    quotes and layout) or passes them as the argument. nice-grpc's `createServer(options)`
    gives its options to grpc-js's Server: the same, and so does Mali's `app.start(address,
    credentials, options)`, which makes the Server it starts (no fix: its options come
    after the credentials); the app may be one another module makes and exports (`export
    default app`, `module.exports = {app}`) or a function of it returns (`const server =
    build()`), judged at the `start(...)` of the module that imports and starts it. A
    NestJS gRPC microservice
    (`NestFactory.createMicroservice` or `app.connectMicroservice` with `Transport.GRPC`) is
    such a server, made with its transport's `options.channelOptions` (the only options
    NestJS gives it): no `channelOptions` is a server with none, and the fix adds both to a
    `channelOptions` object that is written there.

    In Java (grpc-java): a server builder (`ServerBuilder.forPort`,
    `Grpc.newServerBuilderForPort`, `NettyServerBuilder.forPort`/`forAddress`), followed
    along its chain and through the variable that holds it up to `build()`, that is never
    given `maxConnectionAge(...)` (or is given `Long.MAX_VALUE`, grpc-java's "never"). A
    builder handed to a method of the same file is followed into it (a few methods deep),
    and one handed to a static method of another class is read in the file that declares
    it; `builder::addService` handed to a stream is a call of that method alone, and a
    factory kept as a method reference (`Function<InetSocketAddress, NettyServerBuilder>
    factory = NettyServerBuilder::forAddress`) is a server made where it is applied; a
    builder handed to a method k8slb cannot read keeps it silent. In Kotlin, the same
    builders as a Kotlin service calls them (settings made in `.apply { ... }` count; a
    builder configured in `.also`/`.let` keeps it silent). In Spring Boot settings:
    a server grpc-spring-boot-starter (or Spring gRPC) builds, named by its settings or by a
    `@GrpcService` class of the project, with no `grpc.server.max-connection-age` (LogNet's
    starter: `@GRpcService`, `grpc.netty-server.max-connection-age`; Spring gRPC's:
    `spring.grpc.server.keep-alive.max-age`), reported at the class when the settings name
    no server; not reported where a profile's settings or a `GrpcServerConfigurer` bean may
    set it, nor where the module's build names no gRPC library (the settings' keys are
    then left from one it no longer builds with) or grpc-java alone with no gRPC starter
    (the code builds its server by hand and may read the same keys itself, as a port or
    a client's deadline; its builder is judged instead).

    Not reported when a service mesh balances each call to the server: every pod that
    runs its code (the containers linked to it) is in Istio or Linkerd, as `grpc-clusterip`
    (KLB101) judges it (one decision for both rules), or `--mesh` names one. The mesh's
    proxies then place each request anew, whatever the connection's age.

    Reported at `info` when the server's one service is the standard health service
    (`add_HealthServicer_to_server` on it, in its function or in a function of the file it
    is handed to; no other registration, and the server handed nowhere else): only probes
    call it, each over a new connection.

    Reported at `info` when the server listens only on its pod's own addresses (a loopback
    host such as `127.0.0.1:50051`, or a Unix socket): its callers are a proxy in the pod
    (a sidecar), whose connections to other pods are the proxy's to balance, or, on a
    socket file, whoever shares the file (a kubelet plugin's socket on a `hostPath`, the
    host process that started a plugin). A sidecar proxy in front of a loopback server
    (Envoy) takes its clients' connections from other pods and opens its own to the
    server: those client connections end where the proxy ends them, so a maximum age on
    the inner server cannot move them (cap it in the proxy). A Go server given grpc-go's
    in-memory listener (`bufconn.Listen(size)` of `google.golang.org/grpc/test/bufconn`,
    followed as a listener is below) is `info` too: only its own process dials it. A
    Unix socket is read as Python and Node write its target (`unix:PATH`,
    `unix:///PATH`, `unix-abstract:NAME`), as Go listens on it (`net.Listen("unix",
    path)`, `"unixpacket"`, `net.ListenUnix`, and a `net.ListenConfig`'s
    `Listen(ctx, "unix", path)`, which Go documents `net.Listen` to be with a zero config:
    of `var lc net.ListenConfig`, a name bound once to a `net.ListenConfig{...}` literal or
    its address, or the literal itself, `(&net.ListenConfig{}).Listen(...)`; a listen is
    the server's whose local its `Serve(lis)` is in the scope of, where a file makes
    several servers under one name, `grpcServer := grpc.NewServer()` in each of two
    functions, one on a Unix socket and one on TCP; the listener `Serve` is given followed
    through a field the file writes once, `s.listener = l`, and through a function of the
    tree that returns a `net.Listener` whose every return is such a listener,
    `util.ListenLocalSocket(path)` over a helper of another file, a Windows build of it
    that returns go-winio's named pipe counted with it; a network read from a struct's
    field, `net.Listen(s.options.Network, addr)`, is a Unix socket's where every write of
    a field of that name in the programs that link the file in (struct literals, any
    struct's, assignments, flag bindings; tests left out) gives `unix` or `unixpacket`,
    followed from field to field (`Options{Network: cfg.HookNetwork}`, 32 fields at most,
    a field met again adding nothing), and one at least is a command-line flag's default
    (`fs.StringVar(&c.HookNetwork, "hook-network", "unix", ...)`, flag's or pflag's, in
    a config's InitFlags or anywhere; its default may be the field's own value): the
    finding then names the field and the flag. Fields are known by name, so any other
    write of that name, or one k8slb cannot read, keeps the warning; a container that
    passes another network on its command line is not read; a network a parameter
    chooses is not read either)
    and as grpc-java's Netty server is given
    one (`NettyServerBuilder.forAddress(new DomainSocketAddress(path))`, in Kotlin too).
    The host is read where the address is built from a literal host and a port (or path)
    k8slb cannot read: Go's `fmt.Sprintf("localhost:%v", port)`, `"localhost:" + port` and
    `net.JoinHostPort("localhost", port)`; Python's f-strings, `+`, and the text before the
    first placeholder of `%` and `str.format`; Node's template literals and `+` (a field of
    the class declared with a string and never assigned, `this.scheme + '://' + path`, is
    that string); a host that an environment variable or a flag follows
    (`f"unix://{os.environ['RUN_DIR']}/agent.sock"`); grpc-java's `new
    InetSocketAddress("localhost", port)`.

    Reported at `info` when the only callers seen are proxies that balance each request
    over the pods: every Service that selects the pods running the server is an
    in-cluster one (no `LoadBalancer` or `NodePort`) fronted by such a proxy (an Envoy
    bootstrap, in a ConfigMap or a YAML file of the tree, whose `STRICT_DNS` cluster
    names the headless Service with a per-request `lb_policy`; or a gRPC route that
    `grpc-clusterip` (KLB101) reads: Ingress, Gateway API, Istio, Contour's route or its
    Service annotation), and no scanned
    client or container dials those Services. Envoy re-resolves the pods and places each
    request, so new pods get calls with no connection ending. A cluster on a ClusterIP
    Service's name, or `LOGICAL_DNS`, is one address behind kube-proxy: still a warning,
    as it is when nothing is known of the callers (clients in other repositories).

    Reported at `info` too when the only clients seen resolve the pods through the
    Kubernetes API: every Service that selects the pods running the server is a
    ClusterIP that a long-lived channel names with a resolver that watches its endpoints
    (sercand/kuberesolver's `kubernetes:///NAME:PORT`, or `k8s:///`), and no other
    scanned client or container dials those Services. Such a resolver gets the pods as
    they change and the channel's balancer spreads the calls over them, as `grpc-clusterip`
    (KLB101) judges the same clients.

    Reported at `info` too when k8slb knows the pods that run the server (`k8slb
    explain-links`), each workload of them is one replica that nothing scales, and no
    Service that selects one selects another pod (two Deployments of one replica behind
    one Service are two pods): a bare
    Pod (no controller makes a second one), or a Deployment or StatefulSet of one replica
    that no autoscaler targets, the policy `grpc-clusterip` (KLB101) and `no-prestop`
    (KLB401) apply to the same pods. There is no other pod for a client to miss yet; the
    fix is the same, for the day it is scaled.

    Reported at `info` too when every Service that selects those pods is a ClusterIP whose
    every client seen opens a channel per call (as `grpc-clusterip` (KLB101) judges it):
    no connection outlives a call, so a maximum age changes nothing for them; a client
    outside the scanned code that keeps a channel would still stay on one pod.

    ## Why it matters
    By default a gRPC connection lives as long as both ends do. Clients connected through
    a ClusterIP stay on the pods they reached first, and even `round_robin` clients of a
    headless Service only re-resolve DNS when a connection drops: pods added by a
    scale-up wait for traffic that never comes. A maximum connection age makes the server
    send GOAWAY after that age (with ±10% jitter); clients reconnect, re-resolve, and
    spread over the current pods, while calls in flight finish.

    ## Fix
    Add `("grpc.max_connection_age_ms", 300_000)` (5 minutes; 30-60 s where scale-ups
    must be picked up fast) and `("grpc.max_connection_age_grace_ms", 30_000)` (at least
    the longest call's deadline) to the server's options.

    `k8slb fix` adds both (`max-connection-age-ms`, `max-connection-age-grace-ms` in the
    configuration) to the options literal, or as a new `options=` argument; it does not
    touch options built any other way. In Java it chains
    `.maxConnectionAge(5, TimeUnit.MINUTES).maxConnectionAgeGrace(30, TimeUnit.SECONDS)`
    right after the builder's factory call (importing `java.util.concurrent.TimeUnit`);
    in Kotlin no fix is offered (Java's edit does not carry over to Kotlin exactly): chain
    the same two calls by hand.
    A plain `ServerBuilder` (`ServerBuilder.forPort`, `Grpc.newServerBuilderForPort`) has
    these methods from grpc-java 1.47.0 on (`NettyServerBuilder` always had them), so the
    fix follows the grpc-java the project builds with, as the nearest build file above the
    code that gives `io.grpc` artifacts a version says (Maven's `pom.xml`, with its
    `${properties}` and the `grpc-bom`, a parent's too; Gradle's `build.gradle(.kts)`, its
    variables, `gradle.properties` and `gradle/libs.versions.toml`): on an older one the fix
    is refused (it would not compile) and the finding says to cast to `NettyServerBuilder`
    or upgrade; where no build file says the version, or its versions disagree, the fix is
    made only with `--unsafe-fixes`, its description naming 1.47.0.

    ## Measured
    On real runtimes (k8slb's own test-suite: servers on loopback behind an L4 balancer
    that, like kube-proxy, picks a backend for each new connection; clients calling in a
    loop; 3 pods scaled to 10 while traffic runs), with the code `k8slb fix` writes and a
    300 ms maximum age:
    - grpcio, 6 channels, the last 1.5 s: pods 0 to 9 served 196, 352, 429, 222, 364, 188,
      352, 307, 225, 331 calls (without the fix: 1064, 1020, 1027, then 0 for each new pod);
    - grpc-go 1.33, 20 client processes, 1.5 s to 4 s after the scale-up: 2746, 3073, 2872,
      2870, 3076, 3196, 2637, 3196, 2641, 3107 (every pod within 30 % of its fair share;
      without the fix: 7583, 7966, 7259, then 0 for each new pod);
    - grpc-js 1.14 (Node.js 20), 20 client processes, the same window: 151, 146, 150, 143,
      150, 143, 155, 142, 141, 136 (without the fix: 554, 537, 496, then 0 for each new
      pod).
    Reproduce: `.venv/bin/python -m pytest tests/test_grpc_proof.py
    tests/test_grpc_go_proof.py tests/test_grpc_node_proof.py -s -q` (after `make test`;
    the Go proof needs Debian's golang-go and golang-google-grpc-dev, the Node one node
    and npm, which installs @grpc/grpc-js into the user's cache).

    ## Other linters
    No other linter reads gRPC server code.
    """

    id = "KLB201"
    name = "grpc-server-no-max-age"
    severity = Severity.WARNING
    fix = FixInfo(
        available=True,
        safe=True,
        description="add grpc.max_connection_age_ms and its grace to the options",
    )
    examples = (
        Example(grpc_server(), language="python", at=(7, 14)),
        Example(grpc_server(MAX_AGE_OPTIONS), findings=0, language="python"),
        Example(
            grpc_server(", options=load_options()"),
            findings=0,
            language="python",
            title="options k8slb cannot follow",
        ),
        Example(go_server(), language="go", title="in Go", at=(11, 12)),
        Example(
            node_server(before_bind=NODE_SIGTERM),
            language="javascript",
            title="in Node.js",
            at=(4, 18),
        ),
        Example(
            node_server(NODE_MAX_AGE, NODE_SIGTERM),
            findings=0,
            language="javascript",
            title="in Node.js, with both options",
        ),
        Example(
            go_server(GO_MAX_AGE, imports=GO_KEEPALIVE_IMPORTS),
            findings=0,
            language="go",
            title="in Go, with keepalive.ServerParameters",
        ),
        Example(java_server(), language="java", title="in Java", at=(7, 21)),
        Example(
            kotlin_server(),
            language="kotlin",
            title="in Kotlin, where no fix is offered",
            at=(5, 18),
        ),
        Example(
            kotlin_server(KOTLIN_MAX_AGE),
            findings=0,
            language="kotlin",
            title="in Kotlin, with maxConnectionAge and its grace",
        ),
        Example(
            java_server(JAVA_MAX_AGE),
            findings=0,
            language="java",
            title="in Java, with maxConnectionAge and its grace",
        ),
        Example(
            java_server(),
            language="java",
            beside=maven_pom("1.41.3"),
            title="in Java on grpc-java 1.41, with no fix: ServerBuilder has no maxConnectionAge",
            at=(7, 21),
        ),
        Example(
            grpc_server(before_wait=SIGTERM_HANDLER),
            language="python",
            manifests=web_deployment().replace("  replicas: 3\n", "  replicas: 1\n"),
            beside=BUILT_HERE,
            severity=Severity.INFO,
            title="run by one replica that nothing scales",
            at=(7, 14),
        ),
        Example(
            GO_HANDLER,
            severity=Severity.INFO,
            language="go",
            title="in Go, served as an HTTP handler",
            at=(12, 12),
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        fronts: dict[Key, list[Front]] | None = None
        entries = entries_of(context.links)
        for facts in context.judged_code():
            if facts.servers and fronts is None:  # read once a module serves gRPC
                fronts = _fronts(context)
            if facts.servers and context.mesh_of_code(facts):
                continue  # the mesh balances each call, as KLB101 says of its Services
            for server in facts.servers:
                if server.balanced_by is not None:
                    continue  # its clients balance each call (xDS): no connection to end
                if server.factory == CONNECT:
                    continue  # connect-go's: no connection age of its own (parse_connect.py)
                if entries.only_imported(facts, server.loc.line):
                    continue  # made in a `__main__` block no container runs
                age = server.options.get(MAX_AGE)
                if server.name in facts.http_served and server.name not in facts.starts:
                    yield self._served_over_http(server)
                    continue
                if age is None and not server.options.complete:
                    continue
                if not _profile_runs(context, facts):
                    continue  # a Spring profile's settings no container that runs it reads
                if age is not None and not (isinstance(age.value, int) and age.value >= INT_MAX):
                    continue
                yield self._never_ends(context, facts, server, age, fronts or {})

    def _served_over_http(self, server: Server) -> Finding:
        """A grpc-go server served as an HTTP handler: its keepalive options do nothing."""
        return self.code_finding(
            server.loc,
            (
                f"{server.factory}() is served as an HTTP handler, where its "
                "connections are the HTTP server's",
                "grpc-go ignores keepalive options under ServeHTTP, so nothing "
                "here ends a connection and clients stay on the pods they reached",
                "end connections in the HTTP server, or put an L7 balancer that "
                "speaks HTTP/2 in front",
            ),
            severity=Severity.INFO,
        )

    def _never_ends(
        self,
        context: Context,
        facts: CodeFacts,
        server: Server,
        age: Option | None,
        fronts: dict[Key, list[Front]],
    ) -> Finding:
        """The finding on a server whose connections never end (no maximum age, or the
        largest there is), with the fix that adds one where the library has it."""
        loc = age.loc if age is not None else server.loc
        values = context.fix_values
        pairs = [(MAX_AGE, values.max_connection_age_ms)]
        if server.options.get(MAX_AGE_GRACE) is None:
            pairs.append((MAX_AGE_GRACE, values.max_connection_age_grace_ms))
        dialect = dialect_of(facts.language).for_server(server)
        edits = dialect.server_options(server, pairs) if age is None else []
        headline = f"{dialect.server_made(server.factory)} sets no {dialect.option(MAX_AGE)}"
        fix = f"add {', '.join(dialect.option(k) for k, _ in pairs)}"
        since = dialect.server_options_since(server) if edits else None
        gate = _version_gate(context, facts, since)
        unsafe = False
        if gate is not None and gate.unknown:  # the fix may not compile
            fix, unsafe = f"{fix} (review: {gate.unknown})", True
        elif gate is not None:  # it would not compile: refused, and said why
            edits = []
        known = _no_caller_stays(context, facts, server, fronts)
        if known is not None:  # an info: no client would stay on one pod yet
            why, advice, related = known
            severity: Severity | None = Severity.INFO
        else:
            why = (
                "its connections never end, so clients stay on the pods they first "
                "reached and new pods get no calls"
            )
            advice = dialect.server_max_age_advice(
                server, values.max_connection_age_ms, values.max_connection_age_grace_ms
            )
            severity, related = None, []
        return self.code_finding(
            loc,
            (headline, why, _refused(advice, gate)),
            severity=severity,
            fix=fix,
            edits=edits,
            unsafe=unsafe,
            related=[*related, *_said(gate)],
        )


def _profile_runs(context: Context, facts: CodeFacts) -> bool:
    """Whether a Spring profile's settings (`application-dev.yml`) are read where the code
    runs: unless every container that runs it names the profiles it activates, and none
    this one (a server the base settings make is judged in them, parse_spring.settle)."""
    if facts.language != "spring":
        return True
    runners = [link.container for link in context.links.running(facts.path)]
    return runs_profile(runners, facts.path)


def _no_caller_stays(
    context: Context, facts: CodeFacts, server: Server, fronts: dict[Key, list[Front]]
) -> tuple[str, str, list[Related]] | None:
    """Why no client stays on one pod of a server whose connections never end, what to do
    all the same, and the places related: it serves only the health service, it listens
    in its pod only, a proxy alone calls it, or it runs one replica; None when clients do
    stay."""
    if server.health_only:
        return (
            "it serves only the standard health service, which probes (the kubelet's, a new "
            "connection each time) call, not clients",
            "cap the connection age if it will serve a service of its own",
            [],
        )
    listening = context.listening(facts)
    local = _loopback_listen(listening, server)
    if local is not None:
        if local.startswith(("unix", "a Unix")):
            callers = (
                "its callers share its socket file (a container of its pod, the node's "
                "kubelet, or the process that started it), with no Service between them and "
                "other pods"
            )
        elif local == "its process's memory":
            callers = "its one caller is its own process, which dials it in memory"
        else:
            # a sidecar proxy ends its clients' connections and opens its own to this
            # server: an age here ends the proxy's connections, not the clients'
            callers = (
                "its callers are in its own pod (a sidecar proxy), whose connections "
                "to other pods are the proxy's"
            )
        return (
            "; ".join(
                (
                    f"it listens on {local} only: {callers}",
                    *listening.unix_network_from(server.name, server.loc),
                )
            ),
            "cap the connection age here if a client will dial it over the network"
            if local == "its process's memory"
            else "cap the connection age in the proxy, or here if a client will dial it directly",
            [],
        )
    proxy = _only_proxy(context, facts, fronts)
    if proxy is not None:
        return (
            f"only {proxy.reason} calls it, resolving the pods and balancing "
            "each request: new pods get calls without any connection ending",
            "cap the connection age if a client will dial it directly",
            [Related(proxy.path, proxy.line, proxy.reason)],
        )
    resolved = _only_api_resolved(context, facts)
    if resolved is not None:
        return (
            f"its only clients seen ({resolved.who}) resolve its pods through the "
            "Kubernetes API and balance each call over them: new pods get calls without "
            "any connection ending",
            "cap the connection age if a client will dial its Service directly",
            [resolved.related],
        )
    alone = _one_replica(context, facts)
    if alone is not None:
        return (
            f"{alone} and nothing scales it: there is no other pod for its clients to move to yet",
            "cap the connection age before it runs more than one pod",
            [],
        )
    per_call = _per_call_clients(context, facts)
    if per_call:
        return (
            f"the clients seen open a channel per call ({per_call[0].who}): each call is a "
            "new connection, which kube-proxy places anew, though a client outside the "
            "scanned code that keeps a channel would stay on one pod",
            "cap the connection age if clients keep channels",
            [d.related for d in per_call],
        )
    return None


def _per_call_clients(context: Context, facts: CodeFacts) -> list[Dialer]:
    """The per-call clients that are every client seen of the in-cluster Services that
    select the pods running the module's server (model/dialers.per_call_only); empty when
    any is reached from outside the cluster, or none is known."""
    index = context.index
    services = [
        service
        for link in context.links.running(facts.path)
        for service in index.selecting(link.workload)
    ]
    if not services or any(service_type(service) != "ClusterIP" for service in services):
        return []
    direct = context.dialers(services)
    return per_call_only(index, context.code(), context.links, services, direct)


@record
class _Gate:
    """Whether the library the module is built with has what the fix writes: `unknown`
    says why that is not known (the fix is then unsafe); otherwise `refusal` says why the
    fix is refused, and `said` where the build gives the older version."""

    unknown: str = ""
    refusal: str = ""
    said: Related | None = None


def _version_gate(context: Context, facts: CodeFacts, since: Since | None) -> _Gate | None:
    """None when the fix compiles whatever the version, or the module's is known new
    enough (`since`: the version the server's builder needs, from the dialect)."""
    if since is None:
        return None
    known = context.library_version(since.library, facts)
    needs = f"{since.builder} has these settings from {since.library} {since.dotted} on"
    if known.version is None or known.said is None:
        return _Gate(unknown=f"{needs}, and {known.unknown}")
    if known.version >= since.version:
        return None
    said = known.said
    return _Gate(
        refusal=(
            f"{needs}, and {said.path}:{said.line} gives {said.text}, so k8slb fix leaves it: "
            f"{since.advice}"
        ),
        said=Related(said.path, said.line, f"{since.library} {said.text}"),
    )


def _refused(advice: str, gate: _Gate | None) -> str:
    """What to do, and why the fix is refused when it is."""
    return f"{advice} ({gate.refusal})" if gate is not None and gate.refusal else advice


def _said(gate: _Gate | None) -> list[Related]:
    return [gate.said] if gate is not None and gate.said is not None else []


def _loopback_listen(listening: Listening, server: Server) -> str | None:
    """The address a server listens on when each of its listening addresses is its pod's
    own (a loopback host, a Unix socket): then only a proxy in the pod calls it."""
    address = listening.pod_only(server.name, server.loc)
    if address is None:
        return None
    if address == "unix:":
        return "a Unix socket"  # its path not read
    if address == IN_MEMORY:
        return "its process's memory"  # grpc-go's bufconn
    return address.removesuffix(":")  # `localhost:`: its host alone was read


def _fronts(context: Context) -> dict[Key, list[Front]]:
    """The L7 proxies that balance each request to a Service (routes.py), by Service."""
    fronts = l7_fronts(context.index.objects)
    for key, found in envoy_fronts(context.index.objects, context.proxy_configs).items():
        fronts.setdefault(key, []).extend(found)
    return fronts


def _one_replica(context: Context, facts: CodeFacts) -> str | None:
    """Which pods run the module's server, when k8slb knows them (links.py) and each is one
    replica that nothing scales (a bare Pod, or a Deployment or StatefulSet of one: the
    policy of `no-prestop` and `grpc-clusterip`), or None."""
    index = context.index
    workloads = {id(link.workload): link.workload for link in context.links.running(facts.path)}
    alone = [
        one_unscaled_replica(index, [(workload, template)])
        for workload in workloads.values()
        if (template := pod_template(workload)) is not None
    ]
    if not alone or len(alone) != len(workloads) or None in alone:
        return None
    # the pods behind each Service that selects them: two Deployments of one replica
    # behind one Service (a v1 and a v2) are two pods its clients stay on one of
    if any(
        one_unscaled_replica(index, index.selected(service)) is None
        for workload in workloads.values()
        for service in index.selecting(workload)
    ):
        return None
    if len(alone) == 1:
        return f"{alone[0]} runs it as one replica"
    return f"each workload that runs it ({', '.join(map(str, alone))}) is one replica"


def _only_api_resolved(context: Context, facts: CodeFacts) -> Dialer | None:
    """A client that resolves the pods through the Kubernetes API, when such clients are
    the only ones seen of the module's server: every Service that selects the pods running
    it is a ClusterIP (headless or not) that one of them resolves, and no scanned client or
    container dials any of them. None when any other caller is seen, or nothing is known
    of them (no Service linked)."""
    services = [
        service
        for link in context.links.running(facts.path)
        for service in context.index.selecting(link.workload)
    ]
    resolved: list[Dialer] = []
    for service in services:
        clients = context.api_resolved(service)
        if service_type(service) != "ClusterIP" or not clients:
            return None
        resolved.append(clients[0])
    direct = context.dialers(services) if services else {}
    if not resolved or any(direct.get(id(service)) for service in services):
        return None
    return resolved[0]


def _only_proxy(context: Context, facts: CodeFacts, fronts: dict[Key, list[Front]]) -> Front | None:
    """The proxy that is the only caller seen of the module's server: every Service that
    selects the pods running it is an in-cluster one (no LoadBalancer or NodePort) that a
    request-balancing proxy fronts, and no scanned client or container dials any of them.
    None when any other caller is seen, or nothing is known of them (no Service linked)."""
    index = context.index
    services = [
        service
        for link in context.links.running(facts.path)
        for service in index.selecting(link.workload)
    ]
    proxies: list[Front] = []
    for service in services:
        if service_type(service) != "ClusterIP":
            return None  # reached from outside the cluster, by clients not in the tree
        usable = [
            front
            for front in fronts.get(key_of(service.namespace, service.name or ""), [])
            if not front.needs_h2c_port and (is_headless(service) or not front.needs_headless)
        ]
        if not usable:
            return None
        proxies.append(usable[0])
    direct = context.dialers(services)
    if not proxies or any(direct.get(id(service)) for service in services):
        return None
    return proxies[0]
