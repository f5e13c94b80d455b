from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from k8slb.code.facts import CodeFacts
from k8slb.core.edits import YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.core.record import record
from k8slb.model.index import Index
from k8slb.model.links import Link, Reached
from k8slb.model.objects import Container, PodTemplate, pos_of
from k8slb.model.static_replies import static_reply
from k8slb.model.unlike_pods import only_unlike
from k8slb.model.well_known import self_check
from k8slb.reading.build_files import image_repository
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap
from k8slb.rulekit.base import PROBES, Context, Example, Rule
from k8slb.rulekit.examples import BUILT_HERE, LIVE, READY, web_deployment
from k8slb.rulekit.serving import never_overlaps
from k8slb.rules.health_always_serving import never_drains

TCP = "readinessProbe:\n  tcpSocket: {port: http}\n"
_ONE_HANDLER = """\
import sqlalchemy
from flask import Flask

app = Flask(__name__)
engine = sqlalchemy.create_engine("postgresql://db/app")


@app.get("/ready")
@app.get("/live")
def health():
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text("select 1"))
    return {"status": "ok"}
"""
_CONSTANT = """\
from flask import Flask

app = Flask(__name__)


@app.get("/ready")
def ready():
    return "OK"
"""
CAT = "readinessProbe:\n  exec: {command: [cat, /tmp/healthy]}\n"
DIALS = "readinessProbe:\n  exec: {command: [pg_isready, -h, db, -p, '5432']}\n"
_CHECKS_DB = _ONE_HANDLER.replace('@app.get("/live")\n', "")

# Kubernetes' defaults for the probe timings.
_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3}


def handler(container: Container, probe: YMap) -> tuple[Any, ...] | None:
    """What a probe calls, normalised so that equal handlers compare equal. Headers,
    cookies and timings are not part of it: they do not make another handler."""
    if isinstance(http := probe.get("httpGet"), dict):
        port = container.port_number(http["port"]) or http["port"]
        scheme = str(http.get("scheme") or "HTTP").upper()
        return ("httpGet", http.get("path") or "/", port, scheme, http.get("host") or "")
    if isinstance(tcp := probe.get("tcpSocket"), dict):
        port = container.port_number(tcp["port"]) or tcp["port"]
        return ("tcpSocket", port, tcp.get("host") or "")
    if isinstance(grpc := probe.get("grpc"), dict):
        return ("grpc", grpc["port"], grpc.get("service") or "")
    if isinstance(command := probe.get("exec"), dict) and command.get("command"):
        return ("exec", tuple(command["command"]))
    return None


# Commands that can only fail when the container itself is gone or its disk is: sharing
# them restarts nothing that a readiness failure would have spared.
_TRIVIAL_COMMANDS = frozenset({"cat", "true", "test", "[", "ls", "stat"})
_SHELLS = frozenset({"sh", "bash", "ash", "dash"})


def trivial_exec(key: tuple[Any, ...]) -> bool:
    """An exec handler that checks next to nothing (`cat /tmp/healthy`, `test -f x`,
    `true`, or one of them in `sh -c`)."""
    if key[0] != "exec" or not key[1]:
        return False
    words = [str(word) for word in key[1]]
    program = words[0].rsplit("/", 1)[-1]
    if program in _SHELLS and len(words) == 3 and words[1] == "-c":
        script = words[2].strip()
        if any(mark in script for mark in ("&&", "||", "|", ";", "$(", "`")):
            return False
        words = script.split() or [""]
        program = words[0].rsplit("/", 1)[-1]
    return program in _TRIVIAL_COMMANDS


def _one_handler(
    context: Context,
    workload: K8sObject,
    container: Container,
    key: tuple[Any, ...],
    liveness: YMap,
) -> tuple[Reached, Reached] | None:
    """Two httpGet probes on one port whose different paths reach the same handler in the
    code the container runs (links.py): one check under two names."""
    other = handler(container, liveness)
    if key[0] != "httpGet" or other is None or other[0] != "httpGet" or key[2:] != other[2:]:
        return None
    ready = context.links.route(workload, container, key[1])
    live = context.links.route(workload, container, other[1])
    if ready is None or live is None or not ready.same_handler(live):
        return None
    return ready, live


@record
class Handled:
    """What k8slb reads of the shared handler: where it checks nothing but the process
    (`idle`), where it reaches further (`further`: the warning's evidence), or which link
    of that evidence is missing (`missing`). At most one is set."""

    idle: str | None = None
    further: str | None = None
    missing: str | None = None


def what_it_checks(
    context: Context,
    workload: K8sObject,
    container: Container,
    key: tuple[Any, ...],
    reached: tuple[Reached, Reached] | None,
) -> Handled:
    """What the handler both probes reach checks, as far as k8slb can read it: the route
    of an `httpGet` path in the container's code (parse_routes.py), the gRPC health
    service of the server on the probed port (KLB405), the hosts an `exec` command names."""
    if key[0] == "exec":
        host = dialled_host(key[1])
        if host is not None:
            return Handled(further=f"the command dials {host}, another host")
        return Handled(
            missing="the command runs in the container and names no other host, and what its "
            "program checks k8slb does not read"
        )
    link = context.links.of(workload, container.name)
    if link is None:
        return Handled(
            missing="k8slb has not read the handler's code (no code in the tree is linked "
            f"to container {container.name!r}: `k8slb explain-links`)"
        )
    if key[0] == "httpGet":
        found = (
            reached[0] if reached is not None else context.links.route(workload, container, key[1])
        )
        if found is None and (aggregated := spring_health(context.links.code(link), key[1])):
            return Handled(further=aggregated)
        if found is None and (candidates := context.links.routes(workload, container, key[1])):
            # several modules declare it, none nearer the program's entry: say which
            return Handled(
                missing=f"{len(candidates)} routes for {key[1]} in the code container "
                f"{container.name!r} runs, none nearer its entry than the others, reach "
                f"different handlers ({', '.join(c.where for c in candidates[:3])})"
            )
        if found is None:
            return Handled(
                missing=f"no route for {key[1]} is found in the code container "
                f"{container.name!r} runs"
            )
        if not found.route.read:
            return Handled(
                missing=f"the handler of {key[1]} ({found.where}), {found.route.handler}, is "
                "defined in another file, which k8slb does not follow from a route"
            )
        if found.route.trivial:
            return Handled(idle=found.where)
        return Handled(further=f"its handler at {found.where} does more than answer a constant")
    return _grpc_health(context, workload, container, link, key)


# Spring Boot's health endpoint, and the settings that make it add a dependency's health
# indicator to it (its auto-configuration: a DataSource, MongoDB, Redis, RabbitMQ...).
ACTUATOR_HEALTH = "/actuator/health"
_INDICATED = (
    "spring.datasource.",
    "spring.data.mongodb.",
    "spring.data.redis.",
    "spring.redis.",
    "spring.rabbitmq.",
    "spring.elasticsearch.",
    "spring.data.cassandra.",
    "spring.cassandra.",
    "spring.neo4j.",
    "spring.couchbase.",
    "spring.ldap.",
)


def spring_health(code: list[CodeFacts], path: object) -> str | None:
    """Why a Spring Boot application's `/actuator/health` reaches a dependency: the
    settings of the code the container runs configure one whose health indicator Spring
    Boot adds to that endpoint (not its `/liveness` or `/readiness` groups), unless they
    turn the indicators off."""
    if not isinstance(path, str) or path.split("?", 1)[0].rstrip("/") != ACTUATOR_HEALTH:
        return None
    for facts in code:
        if facts.language != "spring":
            continue
        settings = facts.exports
        if str(settings.get("management.health.defaults.enabled", "")).lower() == "false":
            continue
        for prefix in _INDICATED:
            if any(key.startswith(prefix) for key in settings):
                return (
                    f"Spring Boot adds the health of what the application configures to "
                    f"{ACTUATOR_HEALTH} (the {prefix.rstrip('.')} settings of "
                    f"{os.path.basename(facts.path)})"
                )
    return None


def _grpc_health(
    context: Context, workload: K8sObject, container: Container, link: Link, key: tuple[Any, ...]
) -> Handled:
    """The gRPC health service of the code's server on the probed port."""
    unknown = Handled(
        missing="which health service of the code answers the probe on port "
        f"{key[1]} k8slb cannot tell"
    )
    code = context.links.code(link)
    listening = context.links.listening(workload, container)
    if listening:  # the probe asks the server on its port
        if not any(served.port == key[1] for served in listening):
            return unknown
    elif sum(len(facts.servers) for facts in code) != 1:
        return unknown  # which server's health service the probe asks is not known
    servicers = [(facts, s) for facts in code for s in facts.health_servicers]
    # a server has one health service: gRPC's own, where the program registers it
    asked = [(f, s) for f, s in servicers if s.custom_class is None] or servicers
    if not asked:
        return unknown
    facts, servicer = asked[0]
    where = f"{os.path.basename(facts.path)}:{servicer.loc.line}"
    if all(
        never_drains(context, facts, s) if s.custom_class is None else not s.class_can_fail
        for facts, s in asked
    ):
        return Handled(idle=where)
    return Handled(further=f"its health service ({where}) can report NOT_SERVING")


# Addresses that name the container itself: a command that dials them checks this pod only.
_LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "::", "[::]"})
_HOST_OPTIONS = ("-h", "--host", "-host", "--hostname", "-addr", "--addr", "--address")


def dialled_host(command: tuple[Any, ...]) -> str | None:
    """The first host other than the container's own that an `exec` probe's command names
    (`-h db`, `--host=db`, `-addr=db:9000`, `http://db:8080/health`; also in `sh -c`), or
    None. A host taken from the pod's own name or address (`$HOSTNAME`, `$(hostname)`,
    `$POD_IP`) is the container itself."""
    words = [str(word) for word in command]
    if len(words) == 3 and words[0].rsplit("/", 1)[-1] in _SHELLS and words[1] == "-c":
        words = words[2].split()
    for number, word in enumerate(words):
        value = None
        option, equals, given = word.partition("=")
        if option in _HOST_OPTIONS:
            if equals:
                value = given
            elif number + 1 < len(words) and not words[number + 1].startswith("-"):
                value = words[number + 1]
        elif "://" in word:
            value = word.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
        if value is None:
            continue
        host = value.strip("'\"")
        if not host.startswith("["):
            host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if host.lower() not in _LOCAL_HOSTS and not _names_itself(host):
            return host
    return None


def _names_itself(host: str) -> bool:
    upper = host.upper()
    return any(name in upper for name in ("HOSTNAME", "POD_IP", "POD_NAME", "$(HOSTNAME"))


def unserved(index: Index, workload: K8sObject, container: Container) -> str:
    """Why the container's readiness gates no traffic here: no Service selects its pod, or
    the one that does carries no clients or sends them to other containers' ports."""
    for service in index.selecting(workload):
        named = f"Service {service.name} selects the pod, but"
        use = index.purpose(service)
        if not use.carries_clients:
            return f"{named} {use.reason}"
        others = sorted(
            {
                t.container.name
                for t in index.targets(service)
                if t.workload is workload and t.container.name != container.name
            }
        )
        if others:
            listed = ", ".join(repr(name) for name in others)
            return f"{named} it targets only the ports of container {listed}"
        return f"{named} none of its ports targets a port of this container"
    return "no scanned Service selects the pod"


def _port_written(probe: YMap) -> int | str | None:
    """The port of a probe's handler as the manifest writes it (a name stays a name)."""
    for kind in ("httpGet", "tcpSocket", "grpc"):
        handler = probe.get(kind)
        if isinstance(handler, dict) and handler.get("port") is not None:
            return handler["port"]  # type: ignore[no-any-return]
    return None


def _query(path: object) -> str:
    """The query string of a probe's path (`a=1` of `/health?a=1`), "" for none."""
    return path.partition("?")[2] if isinstance(path, str) else ""


def _queries_apart(ready: tuple[Any, ...], live: tuple[Any, ...] | None) -> str | None:
    """How two httpGet probes that reach one handler differ in their query strings
    (`?check=ready and ?check=live`), or None where they ask it the same."""
    if live is None or ready[0] != "httpGet" or live[0] != "httpGet":
        return None
    asked = _query(ready[1]), _query(live[1])
    if asked[0] == asked[1]:
        return None
    return " and ".join(_shortened(f"?{query}") if query else "none" for query in asked)


def _shortened(text: str, most: int = 48) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


def describe(key: tuple[Any, ...]) -> str:
    kind = key[0]
    if kind == "httpGet":
        return f"httpGet {key[1]} on port {key[2]}"
    if kind == "tcpSocket":
        return f"tcpSocket on port {key[1]}"
    if kind == "grpc":
        return f"grpc on port {key[1]}" + (f" (service {key[2]!r})" if key[2] else "")
    return "exec " + " ".join(key[1])


def _timing(probe: YMap, field: str) -> int:
    value = probe.get(field)
    return value if isinstance(value, int) else _DEFAULTS[field]


def liveness_fails_later(readiness: YMap, liveness: YMap) -> bool:
    """The documented-safe use of one endpoint: liveness starts no earlier and needs at
    least twice as long to give up, so readiness always takes the pod out first."""

    def window(probe: YMap) -> int:
        return _timing(probe, "periodSeconds") * _timing(probe, "failureThreshold")

    starts_later = _timing(liveness, "initialDelaySeconds") >= _timing(
        readiness, "initialDelaySeconds"
    )
    return starts_later and window(liveness) >= 2 * window(readiness)


class SharedProbe(Rule):
    """The readiness and liveness probes call the same handler.

    ## What it does
    Compares the readiness and liveness probes of every long-running container (app
    containers and native sidecars; not Jobs or CronJobs) and reports those that call the
    same handler: the same `httpGet` path, port, scheme and host; the same `exec` command;
    the same `grpc` port and service. Named ports are resolved to numbers first, so
    `port: http` and `port: 8080` are the same port. Different headers or cookies do not
    make another handler, and neither do timings.

    Sharing harms only where the readiness check can fail for a reason that should not
    restart the pod (a database or another service down), so a warning needs that chain
    of evidence whole: the shared check is seen to reach beyond the process, readiness
    gates traffic, liveness gives up with it, and another pod takes the traffic meanwhile.
    What makes the first link, k8slb reads:
    - in the container's code, when k8slb knows the code it runs (`k8slb explain-links`):
      the route of an `httpGet` path whose handler does more than answer a constant (a
      query, a call, shared state), or, for a `grpc` probe, the health service of the
      server on that port when the code can set it NOT_SERVING; or Spring Boot's
      `/actuator/health` (not its `liveness` or `readiness` group) in an application whose
      settings configure a dependency Spring Boot adds a health indicator for
      (`spring.datasource.*`, `spring.data.redis.*`, `spring.data.mongodb.*`,
      `spring.rabbitmq.*`...), unless `management.health.defaults.enabled=false`;
    - an `exec` command that dials another host (`-h db`, `--host=cache`,
      `-addr=backend:9000`, `http://api:8080/ready`, also in `sh -c`; not `localhost`, a
      loopback address or the pod's own `$HOSTNAME` or `$POD_IP`).

    Where that link is missing, the finding is `info` and says which: k8slb has not read
    the handler's code (no code in the tree is linked to the container: the common case
    of a chart), no route of the linked code declares the path or its handler is defined in
    another file than the route (not followed), k8slb cannot tell which
    health service answers the gRPC probe, or the command names no other host (a local
    `pg_isready`, a script). If such a handler checks a dependency, the warning's advice
    holds; if it checks only the process, sharing it is fair. Other cases are not
    warnings either:
    - the same `tcpSocket` port is no finding: that check fails only when the process no
      longer accepts connections, when a restart is what liveness is for;
    - a command that checks next to nothing (`cat`, `test -f`, `true`, `ls`, `stat`, also
      inside `sh -c`) is `info`: neither probe says much, readiness least of all;
    - liveness that clearly gives up later than readiness (it starts no earlier, and its
      `periodSeconds × failureThreshold` is at least twice as long) is the documented-safe
      pattern: `info`, saying so;
    - a container that no scanned Service sends clients to is `info`: its readiness gates
      no traffic here, though a failing check still restarts it. The message says which
      Service selects the pod and why it does not count (it publishes not-ready
      addresses, or targets only a sidecar's ports), or that none does; so is one that
      only Services over unlike pods send traffic (pods of different programs: see
      `no-readiness-probe`), which carry only a port they share, not the app's clients;
    - the check of a well-known server that reports only the process's own state
      (`linter/data/self_checks.json`, with sources: ZooKeeper's `ruok`, Pulsar's
      `/status.html`, `/ready` of Loki, Tempo, Mimir and Cortex components other than
      ingesters and query-frontends), or a path an nginx container answers by itself (a
      `location` for that path whose only answer is `return 2xx`, in a ConfigMap its pod
      mounts: the health path of the gateways in front of Loki or Cortex), is `info`: the
      two probes fail together only when the process itself is stuck or starved, where
      only an overloaded pod's restart is lost;
    - a handler in the container's own code that checks nothing, when k8slb knows the code
      the container runs (`k8slb explain-links`) and finds the handler there, is `info`,
      naming it. For an `httpGet` probe, the route of its path answers a constant and
      does nothing else: Flask, FastAPI, Starlette, aiohttp and Django routes (`return
      "OK"`, a constant JSON, `Response("ok")`; not a call of another function, nor a
      read of state such as `state.ready`); Go's net/http `HandleFunc` and gin, echo and
      chi routes (a chi route's path joined to the literal prefixes of the `Route("/api",
      func(r chi.Router) {...})` calls it is in; under a prefix that is not literal, the
      route is not read) (`w.WriteHeader(http.StatusOK)`, `w.Write([]byte("ok"))`,
      `c.JSON(200, gin.H{...})`); Express routes (`res.status(200).send("OK")`, a status
      named as constants are: `res.status(HTTP_STATUS.OK)`); Spring routes, a method's
      `@GetMapping` (or `@RequestMapping` answering GET) path joined to its class's
      `@RequestMapping` path (`return ResponseEntity.ok("UP")`). For a
      `grpc` probe, the health service of the code's server on that port can never say
      NOT_SERVING (as `KLB405` finds it). Both probes then fail together only when the
      process is stuck, where a restart is the right answer;
    - one replica that no other pod backs while it is out (a bare Pod, or one replica
      with `strategy: Recreate`, `maxSurge: 0`, in a StatefulSet, or keeping its data on a
      claim one pod holds, and no autoscaler: the policy of `no-prestop`) is `info`: being
      taken out of the endpoints is as much an outage as a restart.

    Two `httpGet` probes on the same port with *different* paths are one handler too when
    k8slb knows the code the container runs (`k8slb explain-links`) and both paths route
    to the same function there (`@app.get("/ready")` and `@app.get("/live")` on one
    `health()`; Flask, FastAPI, Starlette, aiohttp and Django routes): the finding quotes
    both route lines.

    Two probes that reach one handler with different query strings (`/status?check=ready`
    and `/status?check=live`, or a query on one of them alone) ask it two things: a
    handler that reads its query may answer liveness at once and check a dependency for
    readiness alone. k8slb does not read what a handler does with its query, so such a
    pair is `info` at most, saying so, even where the handler reaches a dependency. (The
    same path and query on both is one check, judged as above. Without the code, paths
    that differ in any way are two handlers and no finding.)

    ## Why it matters
    The two probes answer different questions. Readiness: "should this pod get traffic
    now?" Liveness: "is this process stuck for good, so that only a restart helps?" With one
    handler, an overloaded pod either fails both and is restarted, losing its in-flight
    work and shifting load onto the others (which may cascade), when taking it out of the
    endpoints for a moment was enough; or passes both while it cannot serve.

    ## Fix
    Give liveness its own cheap check that only fails when the process is wedged (a
    `tcpSocket` probe on the port, or a `/livez` that does not touch dependencies), and
    keep dependency checks in readiness.

    `k8slb fix --unsafe-fixes` turns the liveness probe into a `tcpSocket` probe on the
    port the shared handler uses, keeping its timings. Unsafe: a process can hang while
    its socket still accepts connections, which a TCP check does not see.

    ## Other linters
    kube-score `pod-probes-identical` (it ignores scheme, host, named ports and gRPC
    probes, and does not accept a liveness probe that fails later); kube-linter, Polaris,
    checkov and Kubescape have no such check.
    """

    id = "KLB301"
    name = "shared-probe"
    severity = Severity.WARNING
    reads = PROBES
    fix = FixInfo(
        available=True,
        safe=False,
        description="make the liveness probe a tcpSocket probe on the same port",
    )
    examples = (
        Example(
            _CHECKS_DB,
            language="python",
            manifests=web_deployment(READY + READY.replace("readiness", "liveness")),
            beside=BUILT_HERE,
            at=(21, 11),
        ),
        Example(
            web_deployment(DIALS + DIALS.replace("readiness", "liveness")),
            title="a command that dials another host",
            at=(21, 11),
        ),
        Example(
            web_deployment(DIALS + DIALS.replace("readiness", "liveness") + "  periodSeconds: 5\n"),
            title="timings do not make another handler",
            at=(21, 11),
        ),
        Example(
            web_deployment(READY + READY.replace("readiness", "liveness")),
            severity=Severity.INFO,
            title="the handler's code is not read",
            at=(21, 11),
        ),
        Example(
            web_deployment(
                READY + "livenessProbe:\n  httpGet: {path: /ready, port: 8080}\n"
                "  initialDelaySeconds: 10\n  failureThreshold: 6\n"
            ),
            severity=Severity.INFO,
            title="liveness gives up much later",
            at=(21, 11),
        ),
        Example(web_deployment(READY + LIVE), findings=0, title="separate paths"),
        Example(
            web_deployment(READY + "livenessProbe:\n  tcpSocket: {port: http}\n"),
            findings=0,
            title="a tcpSocket liveness probe on the same port",
        ),
        Example(
            web_deployment(TCP + TCP.replace("readiness", "liveness")),
            findings=0,
            title="the same tcpSocket check for both",
        ),
        Example(
            web_deployment(CAT + CAT.replace("readiness", "liveness")),
            severity=Severity.INFO,
            title="a command that checks next to nothing",
            at=(21, 11),
        ),
        Example(
            web_deployment(READY + READY.replace("readiness", "liveness"), service=False),
            severity=Severity.INFO,
            title="no Service selects the pod",
            at=(21, 11),
        ),
        Example(
            _ONE_HANDLER,
            language="python",
            manifests=web_deployment(READY + LIVE),
            beside=BUILT_HERE,
            title="two paths, one handler in the code",
            at=(21, 11),
        ),
        Example(
            _CONSTANT,
            language="python",
            manifests=web_deployment(READY + READY.replace("readiness", "liveness")),
            beside=BUILT_HERE,
            severity=Severity.INFO,
            title="one handler that checks nothing",
            at=(21, 11),
        ),
        Example(
            _ONE_HANDLER.replace('@app.get("/live")\n', "")
            + '\n\n@app.get("/live")\ndef live():\n    return "ok"\n',
            findings=0,
            language="python",
            manifests=web_deployment(READY + LIVE),
            beside=BUILT_HERE,
            title="a handler each",
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for workload, template in context.workloads():
            if workload.spec is None or not workload.spec.serves:
                continue
            for container in template.long_running:
                readiness = container.probe("readinessProbe")
                liveness = container.probe("livenessProbe")
                if readiness is None or liveness is None:
                    continue
                key = handler(container, readiness)
                if key is None or key[0] == "tcpSocket":
                    continue  # a shared TCP check: readiness fails only when liveness should
                reached = None
                if key != handler(container, liveness):
                    reached = _one_handler(context, workload, container, key, liveness)
                    if reached is None:
                        continue
                probes = _Probes(readiness, liveness, key, reached)
                yield self._shared(context, workload, template, container, probes)

    def _shared(
        self,
        context: Context,
        workload: K8sObject,
        template: PodTemplate,
        container: Container,
        probes: _Probes,
    ) -> Finding:
        """The finding on a container whose readiness and liveness share one check: its
        severity as what the check tests and who the container serves decide."""
        key, readiness = probes.key, probes.readiness
        served = context.index.serving(workload)
        unlike = only_unlike(context.index, workload, container)  # its Service spans programs
        why_unserved = (
            "" if container.name in served else unserved(context.index, workload, container)
        )
        where = f"container {container.name!r} of {workload.ref.display}"
        port = _port_written(readiness)
        edits = (
            [
                YamlEdit(
                    workload.path,
                    workload.document,
                    (*workload.root_path, *container.path),
                    "liveness-tcp",
                    port,
                )
            ]
            if port is not None
            else []
        )
        fix = (
            f"liveness becomes tcpSocket on port {port}: review the process"
            " can wedge while it still accepts connections"
        )
        shared, both, related = _shared_words(workload, where, probes)
        image = image_repository(container.body.get("image"))
        own = self_check(image, container.words, key)
        if own is None and key[0] == "httpGet" and isinstance(key[1], str):
            path = key[1].split("?", 1)[0]  # nginx matches a location without the query
            own = static_reply(context.index, workload, template, container, path)
        handled = (
            Handled()
            if own or trivial_exec(key)
            else what_it_checks(context, workload, container, key, probes.reached)
        )
        asked = _queries_apart(key, handler(container, probes.liveness))
        if asked is not None and handled.further is not None:
            # one handler, asked two things: what it does with each k8slb does not read
            handled = Handled(
                missing=f"the two ask it with different query strings ({asked}), which it "
                "may read to answer each apart, and k8slb does not read what it does with them"
            )
        detail, severity = self._verdict(
            key,
            readiness,
            probes.liveness,
            serves=container.name in served and unlike is None,
            both=both,
            own=own,
            handled=handled,
            unserved=unlike.said if unlike is not None else why_unserved,
            alone=never_overlaps(context.index, workload, template),
        )
        return self.finding(
            workload,
            pos_of(container.body, "livenessProbe"),
            (shared, *detail),
            container=container.name,
            severity=severity,
            related=related,
            fix=fix,
            edits=edits,
        )

    @staticmethod
    def _verdict(
        key: tuple[Any, ...],
        readiness: YMap,
        liveness: YMap,
        *,
        serves: bool,
        both: str,
        own: str | None = None,
        handled: Handled | None = None,
        unserved: str = "no scanned Service selects the pod",
        alone: str | None = None,
    ) -> tuple[tuple[str, ...], Severity]:
        """The detail and severity: a warning only where the chain of evidence is whole:
        the shared check is seen to reach beyond the process (a handler in the code that
        does more than answer, a health service that can say NOT_SERVING, a command that
        dials another host), liveness gives up with readiness, readiness gates traffic, and
        another pod takes that traffic. Where a link is missing, info naming it."""
        handled = handled or Handled()
        idle = handled.idle
        if trivial_exec(key):
            return (
                f"{both}, a command that checks next to nothing, so neither probe says much",
                "give readiness a check of whether the pod can serve",
            ), Severity.INFO
        if own is not None:  # a well-known server's check of its own state (self_checks.json)
            return (
                f"{both}; {own}, so the two fail together only when the process itself is "
                "stuck or starved",
                "a cheap liveness check of its own (tcpSocket) would still spare an "
                "overloaded pod a restart",
            ), Severity.INFO
        if idle is not None:  # the handler in the container's code checks nothing
            return (
                f"{both}; the handler at {idle} checks nothing but the process itself: when "
                "both probes fail the process is stuck, and a restart is what it needs",
                "readiness could check what this pod needs to serve, and liveness stay cheap",
            ), Severity.INFO
        if liveness_fails_later(readiness, liveness):
            return (
                f"{both}, but liveness gives up at least twice as late, so readiness drops "
                "the pod first",
                "a separate liveness check is still more robust",
            ), Severity.INFO
        if not serves:
            return (
                f"{both}; {unserved}, so readiness gates no traffic here, but a failing "
                "check restarts it",
                "give liveness its own cheap check",
            ), Severity.INFO
        if alone is not None:
            return (
                f"{both}; {alone}, so being taken out of the endpoints is as much an outage "
                "as a restart",
                "a cheap liveness check of its own (tcpSocket) would still spare it restarts "
                "while a dependency is down",
            ), Severity.INFO
        if handled.missing is not None:
            return (
                f"{both}; {handled.missing}",
                "if it checks a dependency (a database, another service), an outage of that "
                "fails liveness too and restarts every pod: give liveness its own cheap "
                "check; if it checks only the process, sharing it is fair",
            ), Severity.INFO
        return (
            f"{both}; {handled.further}: when that fails, every pod is restarted instead of "
            "just taken out of the endpoints",
            "give liveness its own cheap check (e.g. tcpSocket on the port)",
        ), Severity.WARNING


@record
class _Probes:
    """A container's readiness and liveness probes, the check they share (`key`), and the
    routes of its code they reach when their paths differ (`reached`)."""

    readiness: YMap
    liveness: YMap
    key: tuple[Any, ...]
    reached: tuple[Reached, Reached] | None


def _shared_words(
    workload: K8sObject, where: str, probes: _Probes
) -> tuple[str, str, list[Related]]:
    """How a finding says the check is shared: its headline, what both probes run, and the
    places related (the readiness probe; the routes, when both reach one handler)."""
    related = [Related(workload.path, probes.readiness.pos[0], "the readiness probe")]
    shared = f"readiness and liveness of {where} share one check"
    both = f"both run {describe(probes.key)}"
    if probes.reached is not None:
        ready, live = probes.reached
        shared = f"readiness and liveness of {where} reach one handler in its code"
        both = (
            f"{ready.route.path} ({ready.where}) and {live.route.path} "
            f"({live.where}) both run {_named(ready.route.handler)}"
        )
        routes = [ready]
        if live.route.loc != ready.route.loc:
            routes.append(live)
        else:  # one route, its path asked with two query strings
            both = f"both reach {ready.route.path} ({ready.where}), {_named(ready.route.handler)}"
        related += [
            Related(r.route.loc.path, r.route.loc.line, f"the route {r.route.path}") for r in routes
        ]
    return shared, both, related


def _named(handler: str) -> str:
    """`health()` for a function's name; an anonymous handler as the reader says it (`the
    function at line 7`)."""
    return f"{handler}()" if handler.isidentifier() else handler
