from __future__ import annotations

import os
from collections.abc import Iterator

from k8slb.code.facts import CodeFacts, Stop
from k8slb.code.projects import module_files, package_roots
from k8slb.core.findings import Finding, FixInfo, Severity
from k8slb.model.entries import entries_of
from k8slb.model.links import may_call_into
from k8slb.rulekit.base import STOPPING, Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.dialect import dialect_of
from k8slb.rulekit.examples import (
    GO_SIGNAL_IMPORTS,
    GO_SIGTERM,
    JAVA_HOOK,
    NODE_MAX_AGE,
    NODE_SIGTERM,
    go_server,
    grpc_server,
    java_server,
    node_server,
)
from k8slb.rules.grpc_no_graceful_shutdown import unreached

_HANDLER = (
    "    import signal\n\n"
    "    signal.signal(signal.SIGTERM, lambda signum, frame: server.stop({grace}))\n"
)


class StopWithoutGrace(Rule):
    """A gRPC server stopped with no grace period.

    ## What it does
    Reports `server.stop(0)`, `server.stop(None)` and `server.stop(grace=0 or None)` when
    `server` is a gRPC server made in the same file (`grpc.server` or `grpc.aio.server`),
    or the name the file binds to what a function of another module returns where that
    function returns the server it makes (`server = make_server(port)`, then
    `server.stop(grace=False)` in a finalizer); a `stop()` of some other class is never
    reported. A server whose one service is the standard health service
    (`add_HealthServicer_to_server` on it, in its function or in a function of the file it
    is handed to, no other registration, and the server handed nowhere else) serves only
    probes: its abrupt stop is `info`. A stop inside
    `except KeyboardInterrupt` (a developer's Ctrl-C) is left alone, and so is one that
    runs only once the server's `wait_for_termination()` has returned, when the server
    has already ended and no call is in flight: a statement after the wait in its block,
    or the stop of a function (`def stop(self)`) the module calls only so (`self.start()`,
    `self._server.wait_for_termination()`, `self.stop()`), names nowhere else (a SIGTERM
    handler given it is a caller while the server serves) and that no other module that
    may import it calls by name. Nor is a stop in a Python module's `if __name__ ==
    "__main__":` block where every container known to run the module (by build evidence,
    not a name alike) starts another entry module that imports it: Python runs that block
    only in the module run as the program.
    A grace that is a parameter of the stop's function whose default aborts (`def
    stop(self, grace=0): self.server.stop(grace)`, or `grace=None`), rebound nowhere in
    it, is that default where every call of the function k8slb sees passes nothing
    (`component.stop()`), in its module and in the modules that import it by its path
    or sit in its folder, and there is one: the wrapper's default is what its callers
    get. A call of that name that passes any argument, or no call seen at all, leaves
    the grace unknown, and nothing is said. Its fix is the default's (or the callers'),
    so no edit is made there.

    In Go: `server.Stop()` on a `grpc.NewServer` server (also through the struct field a
    constructor keeps it in: `in.server.Stop()`), where `GracefulStop()` lets calls
    finish (bound it with a timer that calls `Stop()`: it waits for every stream). A
    `Stop()` in a function that also calls the server's `GracefulStop()` is that bound,
    and is not reported. Nor is a `Stop()` that only SIGINT reaches (after a receive from
    a channel that `signal.Notify(ch, os.Interrupt)` alone feeds, with no receive of
    SIGTERM before it): Kubernetes never sends SIGINT, and KLB403 reports the missing
    SIGTERM handler. Nor is the `Stop()` of a server that serves no listener of its own
    and is reached only as an HTTP handler (`server.ServeHTTP(w, r)` in the handler of an
    `http.Server`, `h2c.NewHandler(server, ...)`, grpc-web's `grpcweb.WrapServer(server)`,
    a router's `Handle(pattern, server)`, or a function of the tree that takes it as an
    `http.Handler`): its connections are the HTTP server's,
    which its `Shutdown(ctx)` drains, and grpc-go's `GracefulStop()` cannot drain them
    (it panics on such connections: grpc-go's maintainers advise the HTTP server's
    `Shutdown` there).

    A `Stop()` of a server that listens on a Unix socket alone (read as
    `grpc-server-no-max-age` (KLB201) reads it: `net.Listen("unix", path)`, a listener a
    field holds or a function of the tree returns) is reported at `info`: no Service
    reaches it, its callers share the socket file on the node (a kubelet, a CNI or runtime
    plugin's binary), so the stop cuts no Service traffic, only their calls in flight.
    So is one of a Go server on grpc-go's in-memory listener alone (`bufconn.Listen`),
    which only its own process dials; not one on a loopback address, which a sidecar
    proxy of the pod may send other pods' calls to.

    In Java: `server.shutdownNow()` on a server the file builds, unless it only bounds a
    graceful stop: after `shutdown()` of the same server in the same method (the usual
    `shutdown()`, `awaitTermination(...)`, `shutdownNow()`), or in a `catch` (the wait was
    interrupted). And a `shutdown()` that a JVM shutdown hook runs (in its lambda, in the
    `run()` of an anonymous `Thread` or `Runnable` or of a class of the file the hook makes,
    in a `@PreDestroy` method or a Spring `DisposableBean`'s `destroy()`, which Spring Boot
    runs from its own shutdown hook as it closes its context, or in a method of the file one
    of those calls) with no `awaitTermination` in either:
    `shutdown()` only refuses new calls, and the JVM halts as soon as its hooks return.

    In Node.js: a grpc-js server's `forceShutdown()`, unless it is the bound of a graceful
    stop (a timer's, or in a function that also calls `tryShutdown`). The fix, made only
    when nothing runs after it in its block, turns it into `tryShutdown(() => {})` with a
    timer that calls `forceShutdown()` after the grace. A NestJS gRPC microservice in a
    module that closes its application (`app.close()`, or on SIGTERM through
    `app.enableShutdownHooks()`) is stopped with `forceShutdown()` unless its transport's
    options set `gracefulShutdown: true` (NestJS 10's option): reported where it is
    connected, with that option as the advice and no edit.

    In a Spring Boot service's settings: `grpc.server.shutdown-grace-period=0` (or Spring
    gRPC's `spring.grpc.server.shutdown-grace-period`): the starter then calls `shutdown()`
    and waits for nothing. Its default, 30 s, is a graceful stop. No fix: the settings
    file is left to its owner.

    ## Why it matters
    `stop(grace)` refuses new calls at once and lets the calls in flight finish for up to
    `grace` seconds; with 0 or None they are aborted immediately. On every rollout or
    scale-down, the calls this pod was serving fail.

    ## Fix
    Pass a grace period that fits the pod's budget: `terminationGracePeriodSeconds` minus
    the preStop pause minus a margin (25 s with the defaults: 30 s grace, 5 s pause).

    `k8slb fix --unsafe-fixes` writes `stop-grace-seconds` (25 by default) in place of the
    0 or None: unsafe, since the right value depends on the pod's grace period. In Go it
    writes `GracefulStop()` in place of a `Stop()` statement, after
    `time.AfterFunc(25*time.Second, server.Stop)`: the timer's `Stop()` ends the calls
    still running after the grace (a deferred `Stop()` becomes a deferred function that
    does both). In Java
    it writes `shutdown()`, `awaitTermination(25, TimeUnit.SECONDS)` and, when that is
    not enough, `shutdownNow()` in place of the `shutdownNow()` statement (a
    `shutdownNow().awaitTermination(...)` becomes `shutdown().awaitTermination(...)`), and
    the same wait after a hook's lone `shutdown()`.

    ## Measured
    Four calls of 1.5 s in flight when the pod gets SIGTERM (k8slb's own test-suite, on
    loopback): with grpcio's `stop(0)` or grpc-go's `Stop()` all four fail (UNAVAILABLE),
    with grpc-js's `forceShutdown()` too (CANCELLED); with the code `k8slb fix` writes
    (grpcio: KLB403's SIGTERM handler, which calls `server.stop(grace=25)`; grpc-go:
    `GracefulStop()` bounded by a timer; grpc-js: `tryShutdown` bounded by a timer) all
    four finish. With grpc-go, calls of 4 s and the fix's timer set to 1 s, the timer's
    `Stop()` ends all four (UNAVAILABLE) where `GracefulStop()` alone would wait for them.
    Reproduce: `.venv/bin/python -m pytest tests/test_grpc_proof.py
    tests/test_grpc_go_proof.py tests/test_grpc_node_proof.py -s -q -k test_4`.

    ## Other linters
    No other linter reads gRPC server code.
    """

    id = "KLB404"
    name = "stop-without-grace"
    severity = Severity.WARNING
    reads = STOPPING
    fix = FixInfo(available=True, safe=False, description="stop with a grace period")
    examples = (
        Example(
            grpc_server(before_wait=_HANDLER.format(grace="0")), language="python", at=(12, 57)
        ),
        Example(
            grpc_server(before_wait=_HANDLER.format(grace="grace=None")),
            language="python",
            at=(12, 57),
        ),
        Example(
            grpc_server(before_wait=_HANDLER.format(grace="grace=25")),
            findings=0,
            language="python",
        ),
        Example(
            go_server(
                before_serve=GO_SIGTERM.replace("GracefulStop", "Stop"), imports=GO_SIGNAL_IMPORTS
            ),
            language="go",
            title="in Go",
            at=(18, 3),
        ),
        Example(
            go_server(before_serve=GO_SIGTERM, imports=GO_SIGNAL_IMPORTS),
            findings=0,
            language="go",
            title="in Go, GracefulStop",
        ),
        Example(
            go_server(
                before_serve=GO_SIGTERM.replace("GracefulStop", "Stop").replace(
                    "syscall.SIGTERM", "os.Interrupt"
                ),
                imports='\t"os"\n\t"os/signal"',
            ),
            findings=0,
            language="go",
            title="in Go, a stop only Ctrl-C (SIGINT) reaches: KLB403's",
        ),
        Example(
            java_server(
                before_wait="    Runtime.getRuntime().addShutdownHook("
                "new Thread(() -> server.shutdownNow()));\n"
            ),
            language="java",
            title="in Java",
            at=(11, 59),
        ),
        Example(
            java_server(before_wait=JAVA_HOOK),
            findings=0,
            language="java",
            title="in Java, shutdown() bounded by awaitTermination and shutdownNow()",
        ),
        Example(
            node_server(NODE_MAX_AGE, "  process.on('SIGTERM', () => server.forceShutdown());\n"),
            language="javascript",
            title="in Node.js",
            at=(5, 31),
        ),
        Example(
            node_server(NODE_MAX_AGE, NODE_SIGTERM),
            findings=0,
            language="javascript",
            title="in Node.js, tryShutdown bounded by a timer",
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        entries = entries_of(context.links)
        for facts in context.judged_code():
            health_only = _health_only(facts) if facts.stops else set()
            callers: dict[str, list[CodeFacts]] = {}  # a defaulting function's, once
            for stop in facts.stops:
                if stop.in_keyboard_interrupt or stop.grace not in (0, None):
                    continue
                if entries.only_imported(facts, stop.loc.line):
                    continue  # in a `__main__` block no container runs
                if _after_the_server_ended(context, facts, stop):
                    continue  # it stops a server already ended: no call is in flight
                if stop.server in facts.http_served and stop.server not in facts.starts:
                    continue  # its connections are the HTTP server's: its Shutdown drains
                defaulted = _defaulted(context, facts, stop, callers)
                if stop.defaulted is not None and defaulted is None:
                    continue  # a caller may pass the grace its parameter defaults
                grace = context.fix_values.stop_grace_seconds
                dialect = dialect_of(facts.language)
                advice, fix = dialect.stop_words(stop, grace)
                edits = dialect.graceful_stop(stop, grace)
                if defaulted is not None:  # the default is to change, not this call
                    advice, edits = defaulted[2], []
                written = stop.written or dialect.stop_call(stop.server, stop.grace)
                if defaulted is not None:
                    written = defaulted[0]
                local = unreached(context.listening(facts), stop.server)
                health = stop.server in health_only
                yield self.code_finding(
                    stop.loc,
                    (
                        f"{written} aborts every call in flight",
                        *(defaulted[1:2] if defaulted is not None else ()),
                        *local,
                        advice,
                        *([_HEALTH_ONLY] if health else []),
                    ),
                    fix=fix,
                    edits=edits,
                    severity=Severity.INFO if local or health else None,
                )


_HEALTH_ONLY = (
    "info only: the server serves only the standard health service, so the calls it "
    "aborts are probes', no client's"
)


def _defaulted(
    context: Context, facts: CodeFacts, stop: Stop, known: dict[str, list[CodeFacts]]
) -> tuple[str, str, str] | None:
    """Where a stop's grace is its function's parameter with an aborting default
    (Stop.defaulted): the call as written, what says its grace is that default, and the
    advice, where every call of the function k8slb sees, in its module and in the modules
    of its language that may call into it, passes no argument, and there is one; None
    otherwise (a caller may pass a grace, or none is seen)."""
    if stop.defaulted is None:
        return None
    function, parameter, here = stop.defaulted
    if function not in known:  # the module's many stops of one function: its callers once
        known[function] = [
            other
            for other in context.code()
            if other is not facts
            and other.language == facts.language
            and function in other.called
            and _may_import(other, facts)
        ]
    callers = known[function]
    if any(function in other.argued for other in callers) or not (here or callers):
        return None
    seen = [facts.path] if here else []
    seen += [other.path for other in callers[:3]]
    grace = context.fix_values.stop_grace_seconds
    return (
        f"{stop.server}.stop({parameter})",
        f"{parameter} is {stop.grace} there: the default of {function}({parameter}="
        f"{stop.grace}), and no call of {function}() k8slb sees passes one (calls in "
        f"{', '.join(seen)})",
        f"give {parameter} a default that lets calls finish ({function}(self, {parameter}="
        f"{grace}), say), or pass one where {function}() is called",
    )


def _may_import(importer: CodeFacts, module: CodeFacts) -> bool:
    """Whether a Python module may use another's functions: a sibling of its folder, or
    one with an import that names it by its path (`from app.grpc_server import Server`,
    `import app.grpc_server`, relative too), as Python finds it from the importer's folder,
    its project or a package above it; not a module of another folder of the same name."""
    path = os.path.normpath(module.path)
    package = os.path.dirname(os.path.normpath(importer.path))
    if package == os.path.dirname(path):
        return True
    roots = [package, os.path.normpath(importer.project or package)]
    for level, name in importer.imports:
        head = name.split(".", 1)[0]
        wider = roots if level else [*roots, *package_roots(head, package)]
        # `from a.b import c` is kept as `a.b.c`: the module is `a.b`, or `a.b.c` itself
        for dotted in {name, name.rpartition(".")[0]}:
            if path in module_files(level, dotted, package, wider):
                return True
    return False


def _health_only(facts: CodeFacts) -> set[str | None]:
    """The names a stop may give whose every server of the module serves only the health
    service (Server.health_only): read once a module, not once a stop (thousands of
    servers and stops in a file)."""
    every: dict[str | None, bool] = {}
    for server in facts.servers:
        every[server.name] = every.get(server.name, True) and server.health_only
    return {name for name, only in every.items() if only}


def _after_the_server_ended(context: Context, facts: CodeFacts, stop: Stop) -> bool:
    """Whether the stop runs only once the server's wait for its end has returned: it
    follows the wait in its block, or it is in a function the module calls only so and
    that no other module that may call into this one calls by name."""
    name = stop.after_wait
    if name is None:
        return False
    return name == "" or not any(
        name in other.called and may_call_into(other, facts)
        for other in context.code()
        if other is not facts
    )
