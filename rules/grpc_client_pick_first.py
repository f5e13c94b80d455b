from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from k8slb.core.edits import ROUND_ROBIN_CONFIG
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.model.addresses import placeholder_host, services_for, target_parser
from k8slb.model.grpc_options import SERVICE_CONFIG, channel_policy
from k8slb.model.http2 import dialed_port
from k8slb.model.index import is_headless
from k8slb.rulekit.base import PROBES, Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.dialect import dialect_of
from k8slb.rules.grpc_client_clusterip import CLIENT, JAVA_CLIENT
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

_HEADLESS = GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
_CHANNEL = """\
import grpc

channel = grpc.insecure_channel("dns:///backend.default.svc.cluster.local:50051")
"""
ROUND_ROBIN = """'{"loadBalancingConfig": [{"round_robin": {}}]}'"""


_GO_DIAL = """\
package main

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

var conn, _ = grpc.Dial(
	"backend.default.svc.cluster.local:50051",
	grpc.WithTransportCredentials(insecure.NewCredentials()),
	grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"round_robin": {}}]}`),
)
"""


class GrpcClientPickFirst(Rule):
    """A long-lived gRPC channel to a cluster DNS name uses pick_first.

    ## What it does
    Reports long-lived gRPC channels whose target is a cluster-internal DNS name (`svc`,
    `svc.ns`, `*.svc`, `*.svc.cluster.local`, with or without `dns:///`; literal, from a
    module constant or f-string, or from an environment variable the scanned workloads
    set) and whose options select no balancing policy: neither `round_robin` (nor
    `weighted_round_robin`, `ring_hash`) in `grpc.service_config`, nor in
    `grpc.lb_policy_name`. Above all this catches a client of a headless Service.

    Localhost, IP literals, `unix:`, `ipv4:`/`ipv6:` lists and `xds:` targets are never
    reported; neither are channels whose target or options come from something k8slb
    cannot follow (a parameter no call passes a value to, a function call): unknown is not
    missing. A target with a scheme gRPC has no resolver for here (`http://...`) reaches no
    Service. A cluster name that matches no Service of the run is reported all the same
    (its Service may be deployed from another repository), unless its first label is
    written with an upper-case letter (`SOME-EXTERNAL-SERVER:80` in a chart's values): a
    Service's name is a lower-case DNS label, so that is a placeholder for an outside
    server, not reported (a Service the run does declare, matched as DNS matches it,
    whatever the case, is judged). Nor is a target joined from a host and a port variable
    with no `:` between (`ENDPOINT + GRPC_PORT`, the port set to `8000`): it names a host
    with no port, not the Service the parts hold. A target that is a ClusterIP gRPC
    Service is `grpc-client-clusterip` (KLB102)'s case instead. A client
    whose pods are all in a mesh (the containers that run its code and the workload whose
    env gave the address; or `--mesh`) is not reported: its proxy balances each call (the
    decision `grpc-clusterip`, KLB101, makes of a Service's pods).

    In Go, `grpc.Dial` and `grpc.DialContext` read a target with no scheme as
    `passthrough`: the name goes to the system resolver, which hands gRPC a single
    address, so a channel to a cluster name reaches one pod *whatever* its policy, and is
    reported even with `round_robin`. `grpc.NewClient` defaults to `dns`, as grpcio does.
    grpc-gateway's generated `Register<Service>HandlerFromEndpoint(ctx, mux, endpoint,
    opts)` dials `endpoint` itself and keeps the channel until `ctx` is done (its
    template: "automatically dials to "endpoint" and closes the connection when "ctx"
    gets done"), with `grpc.NewClient` from v2.20 on and `grpc.Dial` in v1 (v2 before 2.20,
    `DialContext`, is read as 2.20's): judged at the call as that dial, with the policy the
    `opts` slice gives; its fix is left to a human (the options are the slice's).
    A program that calls `resolver.SetDefaultScheme("dns")` (in its own packages or in an
    imported package's `init()`: every program that links the dial in must) makes a bare
    target `dns` for `grpc.Dial` too. A Go target is followed through a function's
    parameter to what its callers pass, in the same file or in another file or package of
    the tree (`mmf.Start(queryAddr)` in `main.go`), through dial options a helper function
    returns (`grpc.Dial(addr, util.DialOptions()...)`), and to a command-line flag
    (`flag.String("addr", ...)`, pflag's and cobra's `StringVar`): what the args of the
    containers that run the code pass (`--addr=backend:50051`), else its default; and
    through the configuration structs `grpc-client-clusterip` (KLB102) follows, nested
    ones included (`c.Config.Upstreams.LedgerAddr`, filled by an env helper from what a
    ConfigMap the container's `envFrom` loads sets). A channel a method keeps in its
    receiver's fields, or closes only in a cleanup it keeps there, is long-lived.

    In JavaScript, a grpc-js client's `'grpc.service_config'` option (a string, or
    `JSON.stringify` of a literal) or `'grpc.lb_policy_name'`; grpc-js resolves a target
    with no scheme by DNS too. The fix adds `'grpc.service_config'` to the client's options
    object, or passes `{'grpc.service_config': '...'}` as its third argument.

    In Java, a grpc-java channel builder's `defaultLoadBalancingPolicy("round_robin")`, or
    its `defaultServiceConfig(...)` when it is a map literal k8slb can read (`Map.of`,
    `ImmutableMap.of`, `List.of`...); grpc-java resolves a target with no scheme
    (`forTarget("host:port")`, `forAddress(host, port)`) by DNS, as grpcio does. The fix
    chains `.defaultLoadBalancingPolicy("round_robin")` after the builder's factory call.

    In Spring Boot settings, a client channel's `default-load-balancing-policy` (or the
    `GLOBAL` client's); grpc-spring-boot-starter and Spring gRPC default to `round_robin`,
    so only a channel set to `pick_first` is reported (no fix).

    ## Why it matters
    grpcio's default policy, `pick_first`, connects to the first address the name resolves
    to and sends every call there. Behind a headless Service the name resolves to every
    ready pod, and the client still uses one of them.

    ## Fix
    Add the policy to the channel's options:
    `("grpc.service_config", '{"loadBalancingConfig": [{"round_robin": {}}]}')`; in Go,
    `grpc.WithDefaultServiceConfig(...)` with the same JSON, and a `dns:///` target (or
    `grpc.NewClient`).
    `round_robin` spreads calls only over the addresses the name resolves to, so the name
    must be a headless Service; and it sees pods added later only when connections are
    re-established, which the server's `grpc.max_connection_age_ms` brings about.

    `k8slb fix` adds the service-config option to the options literal or as a new
    `options=` argument (safe: on a name with one address it changes nothing). It leaves
    alone a channel that already has a service config, whose other settings (retries,
    timeouts) a merge could change.

    ## Measured
    One client channel calling in a loop over a name that resolves to 10 pods (k8slb's own
    test-suite, on loopback), with the option `k8slb fix` writes: grpcio spread 200 calls
    as 19 to 21 per pod, grpc-go 1.33 about 7,030 calls in a second as 702 to 704 per pod,
    grpc-js 1.14 about 610 as 60 to 62 per pod; without it, one pod served every call.
    Reproduce: `.venv/bin/python -m pytest tests/test_grpc_proof.py
    tests/test_grpc_go_proof.py tests/test_grpc_node_proof.py -s -q -k round_robin`.

    ## Other linters
    No other linter reads gRPC client code.
    """

    id = "KLB103"
    name = "grpc-client-pick-first"
    severity = Severity.WARNING
    reads = PROBES  # gRPC evidence: a gRPC probe
    fix = FixInfo(
        available=True,
        safe=True,
        description="add the round_robin service config to the channel options",
    )
    examples = (
        Example(
            _CHANNEL,
            language="python",
            manifests=_HEADLESS + BACKEND,
            title="a client of a headless Service",
            at=(3, 11),
        ),
        Example(
            _CHANNEL.replace(
                '50051")',
                f'50051",\n    options=[("grpc.service_config", {ROUND_ROBIN})],\n)',
            ),
            findings=0,
            language="python",
        ),
        Example(
            _CHANNEL.replace("dns:///backend.default.svc.cluster.local", "localhost"),
            findings=0,
            language="python",
            title="a local target",
        ),
        Example(
            "import grpc\n\n\ndef make_channel(target):\n"
            "    return grpc.insecure_channel(target)\n",
            findings=0,
            language="python",
            title="a target k8slb cannot know",
        ),
        Example(
            "import os\n\nimport grpc\n\n"
            'channel = grpc.insecure_channel(os.environ["BACKEND_ADDR"])\n',
            findings=0,
            language="python",
            manifests=_HEADLESS
            + BACKEND
            + CLIENT.replace(
                "      labels: {app: frontend}",
                "      labels: {app: frontend}\n      annotations: {linkerd.io/inject: enabled}",
            ),
            title="the client's pod is meshed: its proxy balances each call",
        ),
        Example(
            _GO_DIAL,
            language="go",
            manifests=_HEADLESS + BACKEND,
            title="in Go: grpc.Dial with no scheme is passthrough, one address",
            at=(8, 15),
        ),
        Example(
            _GO_DIAL.replace('"backend.default', '"dns:///backend.default'),
            findings=0,
            language="go",
            title="in Go, dns:/// and round_robin",
        ),
        Example(
            JAVA_CLIENT.replace("TARGET", '"backend.default.svc.cluster.local:50051"'),
            language="java",
            manifests=_HEADLESS + BACKEND,
            title="in Java",
            at=(6, 7),
        ),
        Example(
            JAVA_CLIENT.replace("TARGET", '"backend.default.svc.cluster.local:50051"').replace(
                ".usePlaintext()", '.defaultLoadBalancingPolicy("round_robin").usePlaintext()'
            ),
            findings=0,
            language="java",
            manifests=_HEADLESS + BACKEND,
            title="in Java, with round_robin",
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        index = context.index
        for facts, channel in context.judged_channels():
            policy = channel_policy(channel.options)
            for destination in context.destinations(
                channel.target, target_parser(channel.default_scheme), facts
            ):
                # passthrough (Go's grpc.Dial with no scheme): one address, whatever policy
                passthrough = destination.address.scheme == "passthrough"
                if destination.address.reach != "cluster" or (
                    not passthrough and (policy.balancing or not policy.known)
                ):
                    continue
                services = services_for(index, destination.address, destination.namespace)
                if not services and placeholder_host(destination.address):
                    continue  # `SOME-EXTERNAL-SERVER:80`: a value to fill, no Service's name
                if not services and services_for(
                    index, replace(destination.address, port=None), destination.namespace
                ):
                    continue  # a port the Service does not expose: KLB111 says so first
                port = destination.address.port
                if any(context.pinned(s, dialed_port(s, port, channel.loc)) for s in services):
                    continue  # KLB102 reports it, with the better advice
                if context.mesh_of_code(facts, destination):
                    continue  # the client's own proxy balances each request
                headless = [s for s in services if is_headless(s)]
                what = (
                    f"headless {headless[0].ref.display}, which resolves to every pod,"
                    if headless
                    else f"{destination.address.host!r}"
                )
                how = f" ({destination.origin})" if destination.origin else ""
                related = [Related(s.path, s.pos[0], s.ref.display) for s in headless]
                edits = (
                    dialect_of(facts.language).channel_options(
                        channel, [(SERVICE_CONFIG, ROUND_ROBIN_CONFIG)]
                    )
                    if channel.options.get(SERVICE_CONFIG) is None
                    else []  # merging into an existing service config is for a human
                )
                if destination.via is not None:
                    related.insert(0, destination.via)
                if passthrough:
                    address = destination.address
                    yield self.code_finding(
                        channel.loc,
                        (
                            f"{channel.factory}() to {address.host!r} gets one address, whatever "
                            "the policy",
                            f"it dials {address.text!r}{how} with no scheme, which "
                            f"{channel.factory} reads as passthrough: the system resolver hands "
                            "gRPC one address, so every call goes to one pod",
                            f"dial dns:///{address.host}"
                            + (f":{address.port}" if address.port else "")
                            + " (grpc.NewClient's default) with round_robin",
                        ),
                        related=related,
                    )
                    break
                yield self.code_finding(
                    channel.loc,
                    (
                        f"gRPC channel to {what} uses pick_first",
                        f"it dials {destination.address.text!r}{how}; every call goes to one "
                        "address of it",
                        "add the round_robin policy (grpc.service_config "
                        '{"loadBalancingConfig": [{"round_robin": {}}]})',
                    ),
                    related=related,
                    fix="add the round_robin service config",
                    edits=edits,
                )
                break
