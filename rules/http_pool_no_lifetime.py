from __future__ import annotations

from collections.abc import Iterator

from k8slb.code.facts import CodeFacts, HttpClient
from k8slb.core.findings import Finding, Related, Severity
from k8slb.model.addresses import parse_url
from k8slb.model.runtimes import NEWEST
from k8slb.rulekit.base import Context, Example, Rule
from k8slb.rulekit.dialect import dialect_of

_SESSION = """\
import requests

INVENTORY = "http://inventory.shop.svc.cluster.local:8080"
session = requests.Session()


def stock(item):
    return session.get(f"{INVENTORY}/stock/{item}").json()
"""
_AXIOS = """\
const axios = require('axios');

async function stock(item) {
  return (await axios.get(`http://inventory:8080/stock/${item}`)).data;
}
"""
_NODE_IMAGE = (
    ("Dockerfile", 'FROM node:22-alpine\nCOPY . /app\nCMD ["node", "/app/server.js"]\n'),
)
_HTTPX = """\
import httpx

client = httpx.Client(base_url="http://inventory:8080", http2=True)
"""


# Elasticsearch's and OpenSearch's Python clients: sniffing dials the nodes themselves
SEARCH_LIBRARIES = ("elasticsearch.", "opensearchpy.")
SNIFF_ADVICE = (
    "turn on sniffing (sniff_on_start=True) so the client dials the nodes themselves and "
    "spreads its requests over them, or recreate the client now and then"
)

# Node.js's global agent keeps connections alive from this major version on (v19.0.0)
KEEP_ALIVE_SINCE = 19


def _version(major: int | None) -> str:
    return "19 or later" if major is None or major >= NEWEST else str(major)


class HttpPoolNoLifetime(Rule):
    """A long-lived keep-alive HTTP client talks to a cluster Service.

    ## What it does
    Reports long-lived HTTP clients (`requests.Session`, `urllib3.PoolManager`,
    `httpx.Client`/`AsyncClient`, `aiohttp.ClientSession`: made at module level, on
    `self`, or once in `main`) when they talk to a cluster-internal name: their `base_url`,
    or an `http://` URL in the same module. None of these libraries can bound how long a
    pooled connection lives. A client with `http2=True` (httpx) is a warning, the others
    are information. A host that holds what no DNS name holds (`https://$(IDP_DOMAIN)`, a
    reference to another variable that k8slb does not expand) names no cluster name and is
    not reported. Clients that never reuse a connection
    (`httpx.Limits(keepalive_expiry=0)`, `aiohttp.TCPConnector(force_close=True)`) and
    per-call clients (`with httpx.Client() as c`, `requests.get`) are not reported.
    An Elasticsearch or OpenSearch client (`Elasticsearch(url)`, `OpenSearch(url)`, their
    async ones) keeps a urllib3 (aiohttp) keep-alive pool to the one address it is given,
    and is reported like them when that address is a cluster name; not when it is given
    several addresses (it rotates over them), turns on sniffing (`sniff_on_start`,
    `sniff_on_node_failure`, `sniff_on_connection_fail`, `sniffer_timeout`: it then dials
    the nodes themselves) or is given a `**dict` that may. A module's own reader of the
    environment (`def env(name, default)` returning `os.environ.get("APP_%s" % name)`, else
    its default) reads `APP_<name>` where it is called, for this rule and the others.

    In Go: an `http.Transport` (or `http.Client`) literal kept for the process (a package
    variable, `main`, a constructor, a helper whose caller keeps it; a Client over
    `http.DefaultTransport` or a wrapper of it, ochttp's, oauth2's, otelhttp's), a clone of
    the default transport kept so (`http.DefaultTransport.(*http.Transport).Clone()`) and
    `http.DefaultClient`/`http.Get`, whose default transport ends idle connections after
    90 s and busy ones never; a Client with no Transport of its own made per call
    (`&http.Client{Timeout: 2 * time.Second}`) pools there too, as `http.Post` does.
    `DisableKeepAlives: true` is not reported, `ForceAttemptHTTP2` is a warning. Its URLs
    are the module's `http://` literals, read whole where one begins a concatenation or a
    `fmt.Sprintf`, and the URLs its requests are made for (`http.NewRequest`,
    `client.Post(url, ...)`), a helper's parameter or a field followed (one a
    constructor's struct literal fills: `&Client{baseURL: os.Getenv("URL")}`; a
    receiver's field the struct literals of another file of its package fill, from a
    configuration struct passed whole through functions of other packages, which a
    settings package's function filled from the environment over its defaults: see the
    README's Go section); a URL whose path has begun keeps its address whatever follows
    (`baseURL + "/orders/" + id`). `http.DefaultClient.Do(req)` (or `client.Do(req)` of
    `client := http.DefaultClient`, reported where it is bound) sends to those URLs.

    In Node.js: an agent made once (at the module's top level, in `main` or a constructor)
    that pools its sockets: `new http.Agent({keepAlive: true})` (`https` too),
    agentkeepalive's agents, undici's `Pool`, `Client` and `Agent`, when the module names
    an http URL of a cluster Service (or the pool's own origin is one). Node's global
    agent keeps connections alive too from Node 19 on: the first request a module sends
    through it (axios, its `axios.create()` instances, the global `fetch`, `http.request`
    and `http.get`, none given an agent or dispatcher of its own) is reported when the
    image that runs the module is the `node` image of 19 or later (`FROM node:23-alpine`;
    the Dockerfile of the container that runs it, else of the nearest build context);
    on an older or unknown version nothing is said.

    In Java: a `java.net.http.HttpClient` (`newHttpClient()`, `newBuilder()`), an
    `OkHttpClient` or an Apache `HttpClients` client held in a field, or made by `main` or a
    constructor; an Apache pool given a time to live (`setConnectionTimeToLive`,
    `setTimeToLive`) is bounded and not reported. Its URLs are the module's `http://`
    literals and the URLs its requests are made for (`URI.create(url)`), a final field
    followed to the constructor parameter that sets it: its `@Value`, or what the
    project's `new Type(...)` calls pass there (a `@Bean` method's `@Value` parameter).

    Not reported when a service mesh balances each request the client sends: every pod
    that runs its code is in Istio or Linkerd (the decision `grpc-clusterip`, KLB101,
    makes), or `--mesh` names one.

    ## Why it matters
    Pooled connections to a ClusterIP stay on the pods they first reached. httpx and
    aiohttp drop only idle connections (after 5 s and 15 s), requests and urllib3 never
    do, so a busy client keeps its pods. Under HTTP/1.1 concurrency opens more connections
    and the spread is often tolerable; with HTTP/2 one connection carries every request,
    exactly like gRPC.

    ## Fix
    Let the server end connections now and then (`Connection: close` after N requests;
    hypercorn's `keep_alive_max_requests`), recreate the client periodically, or put a
    mesh or an L7 proxy in between. For httpx, prefer HTTP/1.1 inside the cluster.

    ## Other linters
    No other linter reads HTTP client code.
    """

    id = "KLB202"
    name = "http-pool-no-lifetime"
    severity = Severity.INFO
    examples = (
        Example(_SESSION, language="python", at=(4, 11)),
        Example(
            _HTTPX,
            language="python",
            severity=Severity.WARNING,
            title="httpx with HTTP/2",
            at=(3, 10),
        ),
        Example(
            _SESSION.replace("inventory.shop.svc.cluster.local", "api.example.com"),
            findings=0,
            language="python",
            title="an external API",
        ),
        Example(
            _HTTPX.replace("http2=True", "http2=True, limits=httpx.Limits(keepalive_expiry=0)"),
            findings=0,
            language="python",
            title="no connection reuse",
        ),
        Example(
            'package main\n\nimport (\n\t"net/http"\n\t"time"\n)\n\n'
            "var client = &http.Client{\n"
            "\tTransport: &http.Transport{IdleConnTimeout: 90 * time.Second},\n}\n\n"
            "func stock() (*http.Response, error) {\n"
            '\treturn client.Get("http://inventory.shop.svc.cluster.local/stock")\n}\n',
            language="go",
            title="in Go",
            at=(9, 14),
        ),
        Example(
            _AXIOS,
            language="javascript",
            beside=_NODE_IMAGE,
            title="in Node.js 19 or later, through the global agent",
            at=(4, 17),
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            clients = [*facts.http_clients, *facts.agent_requests]
            if clients and context.mesh_of_code(facts):
                continue  # the client's proxy balances each request
            for client in clients:
                if not client.long_lived or client.reuse_disabled:
                    continue
                node = context.node_major(facts) if client.default_agent else None
                if client.default_agent and (node is None or node < KEEP_ALIVE_SINCE):
                    continue  # the global agent pools from Node 19 on; an unknown says nothing
                target = self._cluster_target(context, facts, client)
                if target is None:
                    continue
                url, related = target
                library = client.factory.rsplit(".", 1)[0]
                if client.default_agent:
                    yield self.code_finding(
                        client.loc,
                        (
                            f"{client.factory} sends through Node's global agent, which keeps "
                            "its connections alive",
                            f"to {url!r}: on Node {_version(node)} the global agent pools "
                            "keep-alive connections, and a busy one stays on the pods it first "
                            "reached",
                            "give the requests an agent whose sockets end (maxSockets, a "
                            "free-socket timeout below the server's), or let the server close "
                            "connections now and then",
                        ),
                        related=related,
                    )
                elif client.http2:
                    yield self.code_finding(
                        client.loc,
                        (
                            f"{client.factory} with {dialect_of(facts.language).http2_setting()} "
                            "sends every request over one connection",
                            f"to {url!r} that connection is pinned to one pod, as gRPC's are",
                            "use HTTP/1.1 in the cluster, or a mesh",
                        ),
                        severity=Severity.WARNING,
                        related=related,
                    )
                else:
                    yield self.code_finding(
                        client.loc,
                        (
                            f"long-lived {client.factory} keeps its connections for ever",
                            f"to {url!r}: {library} never ends a busy pooled connection, so it "
                            "stays on the pods it first reached",
                            (
                                SNIFF_ADVICE
                                if client.factory.startswith(SEARCH_LIBRARIES)
                                else dialect_of(facts.language).http_pool_advice()
                            ),
                        ),
                        related=related,
                    )

    @staticmethod
    def _cluster_target(
        context: Context, facts: CodeFacts, client: HttpClient
    ) -> tuple[str, list[Related]] | None:
        # the client's own address when it has one, else every URL the module holds
        values = [client.base_url] if client.base_url is not None else [u for u, _ in facts.urls]
        for value in values:
            for destination in context.destinations(value, parse_url, facts):
                if destination.address.reach == "cluster":
                    related = [destination.via] if destination.via else []
                    return destination.address.text, related
        return None
