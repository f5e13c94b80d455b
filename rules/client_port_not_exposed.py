from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from k8slb.code.facts import CodeFacts, EnvRef, Loc
from k8slb.core.findings import Finding, Related, Severity
from k8slb.model.addresses import (
    Address,
    Destination,
    parse_url,
    services_for,
    target_parser,
)
from k8slb.model.index import Index, is_headless, service_type
from k8slb.model.objects import service_ports, target_port
from k8slb.reading.objects import K8sObject
from k8slb.rulekit.base import Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.examples import BUILT_HERE, web_deployment
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

Parse = Callable[[str], Address | None]

# What a client dials when its address names no port: grpcio's `dns` resolver and HTTP's
# schemes. Other schemes (`unix:`, `xds:`) name no port to judge.
DEFAULT_PORTS = {"dns": 443, "http": 80, "https": 443}

_CHANNEL = """\
import grpc

channel = grpc.insecure_channel("backend.default.svc.cluster.local:{port}")
"""
_WEB_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: inventory
spec:
  selector:
    app: inventory
  ports:
    - name: http
      port: 8080
"""
_HTTP_CLIENT = """\
import requests


def stock(item):
    return requests.get(f"http://inventory/items/{item}").json()
"""


def exposed(index: Index, service: K8sObject) -> set[int]:
    """The ports a client can reach the Service's pods on: the Service's ports; for a
    headless Service, whose name resolves to the pods themselves, also the numeric target
    ports and the ports its pods' containers declare."""
    ports = {p.get("port") for p in service_ports(service)}
    if is_headless(service):
        ports |= {target_port(p) for p in service_ports(service)}
        for _, template in index.selected(service):
            for container in template.containers:
                ports |= {p.get("containerPort") for p in container.ports()}
    return {p for p in ports if isinstance(p, int)}


class ClientPortNotExposed(Rule):
    """A client in the code dials a Service on a port the Service does not expose.

    ## What it does
    Follows each gRPC channel's target and each HTTP URL in the code (in Python: a literal,
    a constant, an f-string, or an environment variable as the scanned workloads set it; in
    Go: a literal, a constant, `fmt.Sprintf` or a concatenation of those, `os.Getenv` as the
    workloads set it, the values the Go reader resolves for KLB101 and KLB102; in JavaScript
    and TypeScript: the values the Node reader resolves for targets, and the URL of a
    request, axios's, `fetch`'s, got's or `http.request`'s, written as a template or a `+`
    chain that begins with an environment variable or a constant and goes on with a path,
    read up to that path) to the scanned Service it names, and reports it when the port it
    dials is none the Service exposes. A target the reader does not resolve exactly (built
    by a function of the code, `addr(env, "stock", port)`, or read from a variable no
    workload sets) is not judged: no port is reported that k8slb is unsure of. A port the
    address does not write is the one the client uses anyway: 443 for a gRPC `dns` target
    (grpcio's default), 80 for `http://`, 443 for `https://`.
    One wrong address is one finding, at the line to change: a URL the code writes whole
    (`const STOCK = 'http://stock:7000'`, or a variable's default, `process.env.STOCK_URL
    || 'http://stock:7000'`) is reported where it is written, not again at each request
    that uses it with a path (`${STOCK}/items`) or, where no workload sets the variable,
    dials its default. A request that adds to it before its path (`${HOST}:7000/items`),
    or dials what a workload sets, is reported at the request.
    A host left for the user to fill (`<USERS_SVC>:50051`) is the Service whose name it
    spells as Kubernetes spells one in its pods' environment (`users-svc`), where the
    namespace has it.
    A headless Service's name resolves to its pods, so there the pods' container ports and
    the numeric target ports count too. A name no scanned Service has is left alone: k8slb
    cannot tell what it is. So is a URL a load balancer resolves: one handed to a Spring
    Cloud `@LoadBalanced` client (a RestTemplate, RestClient.Builder or WebClient.Builder
    that the bean Spring injects is a load-balanced one): its host is a service ID that
    discovery maps to the instances, each on its own port, neither a DNS name nor the
    Service's port.
    The address is judged only against the Services deployed together with the code:
    those applied with a workload whose container runs it (`k8slb explain-links`) or sets
    the address in its `env` (the same chart's render, kustomization's build, or variant
    folder of plain manifests, as the pods a Service selects are found), never a Service of
    the same name that another chart or folder of the tree deploys (a repository of one
    folder per chapter or variant, each with its own charts). There it is an error. Where
    no container is known to run the module but one runs an image built from a folder that
    holds it (its link names another entry of the same code), it is a warning, judged
    against that container's Services. Where no container of the scanned manifests runs
    the code or holds it in its image (code run only by docker-compose, a CI pipeline, a
    chapter no chart deploys), it is `info`: which deployment's Services it would meet is
    unknown, and a name there may be another's (a compose service's, whose port is the
    container's own), so it is judged against every Service of that name and said only
    as information, not silenced: the port may still be wrong where the code does run.
    A warning is `info` where, besides, no image is built from a folder that holds
    it (or only one that no build names and no container's link leads to, or one only the
    tree's tests start with Testcontainers), or where the containers that run its Node
    program start an entry that loads it neither itself nor through what it loads (a
    routes file no module requires).

    ## Why it matters
    kube-proxy forwards only the ports a Service declares; a connection to any other port of
    its virtual IP is refused or times out. Every call of that client fails, from the first
    deployment on, and nothing in the manifests or the code alone shows it: the port is in
    one file, the Service in another, often in another repository folder.

    ## Fix
    Dial a port the Service exposes (the message lists them), or add the port to the
    Service (`ports: [{name: ..., port: P, targetPort: ...}]`). When the address comes from
    an environment variable, the workload's `env` is where to change it (named in
    `related`).

    ## Other linters
    No other linter compares the ports clients dial with the Services they name.
    """

    id = "KLB111"
    name = "client-port-not-exposed"
    severity = Severity.ERROR
    examples = (
        Example(
            _CHANNEL.format(port=50052),
            language="python",
            manifests=GRPC_SERVICE + BACKEND + "---\n" + web_deployment(service=False),
            beside=BUILT_HERE,
            title="a gRPC client that container `web` runs dials 50052; the Service exposes 50051",
            at=(3, 11),
        ),
        Example(
            _CHANNEL.format(port=50052),
            language="python",
            manifests=GRPC_SERVICE + BACKEND,
            severity=Severity.INFO,
            title="the same client, which no container of the manifests runs or holds: info",
            at=(3, 11),
        ),
        Example(_CHANNEL.format(port=50051), findings=0, language="python", manifests=GRPC_SERVICE),
        Example(
            _HTTP_CLIENT,
            language="python",
            manifests=_WEB_SERVICE + "---\n" + web_deployment(service=False),
            beside=BUILT_HERE,
            title="`http://inventory` is port 80; the Service exposes 8080",
            at=(5, 25),
        ),
        Example(
            _HTTP_CLIENT.replace("http://inventory/", "http://inventory:8080/"),
            findings=0,
            language="python",
            manifests=_WEB_SERVICE,
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        # the URLs the code writes as texts, each judged where it is written
        written = {
            url for facts in context.judged_code() for url, _ in facts.urls if isinstance(url, str)
        }
        holders = _Holders(context)
        for facts in context.judged_code():
            seen: set[tuple[int, int]] = set()
            deployed = _deployed_with(context, facts, holders)
            for value, loc, parse, what in self._clients(facts):
                if (loc.line, loc.column) in seen:
                    continue
                for destination in context.destinations(value, parse, facts):
                    if _default_written(value, destination, written):
                        continue
                    scope = deployed
                    if destination.setting is not None:  # the workload that set it runs it
                        scope = Deployed((destination.setting.workload,), running=True)
                    finding = self._judge(context.index, destination, what, scope)
                    if finding is not None:
                        seen.add((loc.line, loc.column))
                        yield self._weighed(facts, scope, loc, *finding)
                        break

    def _weighed(
        self,
        facts: CodeFacts,
        scope: Deployed,
        loc: Loc,
        message: tuple[str, ...],
        related: list[Related],
    ) -> Finding:
        """An error where a container is known to run the code, or gave it the address
        through its `env`; a warning where a container's image only holds it (built from a
        folder that holds the module, which the link does not show it running); `info`
        where no container of the scanned manifests holds it: which deployment's Services
        it meets, if any, is unknown."""
        if scope.running:
            return self.code_finding(loc, message, related=related)
        if scope.workloads:
            message = (
                *message,
                "warning, not error: no container is known to run this module, though "
                f"{scope.workloads[0].ref.display}'s image holds it (k8slb explain-links)",
            )
            return self.code_finding(loc, message, related=related, severity=Severity.WARNING)
        message = (
            *message,
            "info only: no container of the scanned manifests runs this code or holds it in "
            "its image (k8slb explain-links), so which deployment's Services it meets is "
            "unknown; where it runs the name may be another's",
        )
        return self.code_finding(loc, message, related=related, severity=Severity.INFO)

    @staticmethod
    def _clients(facts: CodeFacts) -> Iterator[tuple[object, Loc, Parse, str]]:
        for channel in facts.channels:
            parse = target_parser(channel.default_scheme)
            yield channel.target, channel.loc, parse, "gRPC channel dials"
        for client in facts.http_clients:
            if client.base_url is not None:
                yield client.base_url, client.loc, parse_url, f"{client.factory} client dials"
        for url, loc in facts.urls:  # a URL in the code, however it is used
            yield url, loc, parse_url, "a URL in the code names"

    @staticmethod
    def _judge(
        index: Index, destination: Destination, what: str, scope: Deployed
    ) -> tuple[tuple[str, ...], list[Related]] | None:
        address: Address = destination.address
        port = address.port if address.port is not None else DEFAULT_PORTS.get(address.scheme)
        if port is None or address.host is None:
            return None
        named = [
            s
            for s in services_for_any_port(index, address, destination.namespace)
            if service_type(s) != "ExternalName"  # a name elsewhere: its ports are not here
            and not (is_headless(s) and not service_ports(s))  # pods on any port
            and scope.together(index, s)
        ]
        reachable = [exposed(index, s) for s in named]
        if not named or any(port in ports for ports in reachable):
            return None
        service = named[0]
        ports = sorted(reachable[0])
        implied = "" if address.port is not None else f", which means port {port}"
        how = f" ({destination.origin})" if destination.origin else ""
        listed = ", ".join(map(str, ports)) or "none"
        related = [Related(service.path, service.pos[0], service.ref.display)]
        if destination.via is not None:
            related.insert(0, destination.via)
        return (
            f"{what} port {port}, which {service.ref.display} does not expose",
            f"the address is {address.text!r}{how}{implied}; the Service exposes {listed}, and "
            "connections to any other port are refused, so every call fails",
            f"dial {ports[0]}" if len(ports) == 1 else "dial one of the ports the Service exposes",
        ), related


@dataclass(frozen=True)
class Deployed:
    """The workloads deployed with a module of code: those whose containers run it
    (`running`), else those whose image holds it; none when no container of the
    scanned manifests does."""

    workloads: tuple[K8sObject, ...]
    running: bool

    def together(self, index: Index, service: K8sObject) -> bool:
        """Whether the Service is applied with one of the workloads (Index.together: the
        same chart's render, kustomization's build or plain files' variant), the only
        Services the code meets there; with no workload, any Service may be."""
        return not self.workloads or any(index.together(service, w) for w in self.workloads)


def _deployed_with(context: Context, facts: CodeFacts, holders: _Holders) -> Deployed:
    """The workloads whose containers run the module (links.py), else those whose
    image is built from a folder that holds it (the link's folder): a link names the
    module its container starts and what that loads, which may leave out a module the
    image holds and another entry runs."""
    runners = context.links.running(facts.path)
    if runners:
        return Deployed(tuple(link.workload for link in runners), running=True)
    return Deployed(holders.of(os.path.normpath(facts.path)), running=False)


class _Holders:
    """The workloads of the links whose folder holds a path (not guessed), in the order
    of the links (`CodeLinks.folders`, no body read for a link kept as made): the links'
    folders read once a check, when a module no container runs first asks, and looked up
    by the path's own folders (a scan of every link for each such module was 1.8 million
    tests on the 8,000-file bench tree, half of its run)."""

    def __init__(self, context: Context) -> None:
        self._context = context
        self._everywhere: list[int] = []  # the links of folder `.`
        self._exactly: dict[str, list[int]] = {}  # by the folder, a path equal to it
        self._below: dict[str, list[int]] = {}  # by the folder and `/`, a path under it
        self._workloads: list[K8sObject] | None = None
        # the lengths of `_below`'s keys: a path thousands of folders deep is sliced only
        # where a link's folder could end, not at each of its `/`
        self._lengths: set[int] = set()

    def of(self, path: str) -> tuple[K8sObject, ...]:
        """The workloads of the links whose normalised folder is `.`, the path itself or
        a folder above it (`path` normalised too), each link's once."""
        if self._workloads is None:
            self._read()
        assert self._workloads is not None
        found = set(self._everywhere) | set(self._exactly.get(path, ()))
        for length in self._lengths:  # the folders' lengths, not the path's every `/`
            if path[length - 1 : length] == "/":
                found.update(self._below.get(path[:length], ()))
        return tuple(self._workloads[i] for i in sorted(found))

    def _read(self) -> None:
        self._workloads = []
        for workload, folder, guessed in self._context.links.folders():
            if guessed:
                continue
            at = len(self._workloads)
            self._workloads.append(workload)
            folder = os.path.normpath(folder)
            if folder == ".":
                self._everywhere.append(at)
            self._exactly.setdefault(folder, []).append(at)
            self._below.setdefault(folder.rstrip("/") + "/", []).append(at)
        self._lengths = {len(below) for below in self._below}


def _default_written(value: object, destination: Destination, written: set[str]) -> bool:
    """Whether the destination is a variable's default that the code writes as a URL of its
    own (`process.env.STATS_URL || 'http://stats:3003'`, then `fetch(`${base}/health`)`),
    where no workload sets the variable: that text is judged where it is written, the line
    to change, and a use of it is no second problem."""
    return (
        isinstance(value, EnvRef)
        and destination.setting is None
        and destination.via is None
        and isinstance(value.default, str)
        and value.default in written
    )


def services_for_any_port(index: Index, address: Address, namespace: str | None) -> list[K8sObject]:
    """The scanned Services the name resolves to, whatever port is dialed."""
    return services_for(index, replace(address, port=None), namespace)
