from __future__ import annotations

import os
from collections.abc import Iterator

from k8slb.code.facts import CodeFacts, Server, Wait
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.languages.go.parse_connect import CONNECT
from k8slb.model.addresses import Listening
from k8slb.model.entries import Entries, entries_of, signal_owner
from k8slb.model.links import Link
from k8slb.rulekit.base import STOPPING, Context, Example, Rule, judged_where_it_runs
from k8slb.rulekit.dialect import dialect_of
from k8slb.rulekit.examples import (
    GO_HANDLER,
    GO_SIGNAL_IMPORTS,
    GO_SIGTERM,
    JAVA_HOOK,
    KOTLIN_HOOK,
    NODE_MAX_AGE,
    NODE_SIGTERM,
    SIGTERM_HANDLER,
    go_server,
    grpc_server,
    java_server,
    kotlin_server,
    node_server,
)

_KEYBOARD_ONLY = grpc_server().replace(
    "    server.wait_for_termination()\n",
    "    try:\n        server.wait_for_termination()\n    except KeyboardInterrupt:\n"
    "        server.stop(5)\n",
)
# What a stop only a developer's Ctrl-C reaches is, said of each language that has one
_KEYBOARD = {
    "python": "its stop in `except KeyboardInterrupt` never runs there",
    "go": "its stop after SIGINT (`os.Interrupt`) never runs there: Kubernetes sends SIGTERM",
}
# A handler that starts the graceful stop and exits at once: the stop is never waited for.
_EXITS_AT_ONCE = GO_SIGTERM.replace(
    "\t\tserver.GracefulStop()\n", "\t\tgo server.GracefulStop()\n\t\tos.Exit(0)\n"
)

# SIGTERM caught into a context that only background work watches: the server is never
# stopped.
_CAUGHT_NEVER_STOPPED = (
    "\tctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
    "\tdefer stop()\n"
    "\tgo refreshCache(ctx)\n"
)
_CONTEXT_IMPORTS = '\t"context"\n\t"os/signal"\n\t"syscall"'

_NODE_EXITS_AT_ONCE = (
    "  process.on('SIGTERM', () => {\n    console.log('stopping');\n    process.exit(0);\n  });\n"
)


# Said of a server on a Unix socket that no container is known to run as its process.
_UNIX_SOCKET = (
    "info only: it listens on a Unix socket alone, so its callers share the socket file, "
    "and no container is known to run it: started by another process (a plugin its host "
    "runs), it gets no SIGTERM from Kubernetes, which signals the container's main "
    "process, and that process stops it; run as a container's own process, it does"
)
# Said of a server on a Unix socket a container runs (or whose runner is not asked).
LOCAL_SOCKET = (
    "info only: it listens on a Unix socket alone, which no Service reaches (kube-proxy "
    "balances IP addresses and ports): its callers share the socket file on the node (a "
    "kubelet, a CNI or runtime plugin's binary), so its stop cuts no Service traffic, "
    "only those callers' calls in flight"
)


# Said of a server on grpc-go's in-memory listener (bufconn).
IN_MEMORY_LISTENER = (
    "info only: it listens in its process's memory alone (grpc-go's bufconn), which only "
    "that process dials: no Service reaches it, so its stop cuts no Service traffic, only "
    "that process's own calls in flight"
)


def unreached(listening: Listening, server: str | None, runners: bool = True) -> list[str]:
    """Why a server no Service reaches (model/addresses.Listening.unreached_only: a Unix
    socket, its process's memory) is said at info, and where its Unix network came from
    when a field held it; empty for a server a Service may reach. `listening`: its module's
    (Context.listening). `runners`: whether a container is known to run it (a socket's
    server none runs is a plugin another process starts)."""
    kind = listening.unreached_only(server)
    if kind is None:
        return []
    if kind == "memory":
        return [IN_MEMORY_LISTENER]
    return [LOCAL_SOCKET if runners else _UNIX_SOCKET, *listening.unix_network_from(server)]


class GrpcNoGracefulShutdown(Rule):
    """A gRPC server that is started and waited on, with no SIGTERM handler to drain it.

    ## What it does
    Reports a gRPC server that a file starts and then waits on (`wait_for_termination()`,
    a `while True: sleep()` loop, `run_forever()`; a Python loop is the server's wait only
    in the script's own lines, in the function that starts the server or in one that
    calls that function: a loop of a worker that a thread or an asyncio task runs is
    not; a `wait_for_termination()` that follows the server's own `stop(...)` in its block
    waits for that stop, as a worker closing the server does, and is not the server's
    wait for SIGTERM) when no module of the code that runs it
    registers a SIGTERM handler (`signal.signal(signal.SIGTERM, ...)`,
    `loop.add_signal_handler(signal.SIGTERM, ...)`, also through a loop over a list of
    signals, or `getattr(signal, "SIGTERM")`, also of a loop's name: `for name in
    ("SIGINT", "SIGTERM"): signal.signal(getattr(signal, name), stop)`). When k8slb
    knows which container runs the module (`k8slb explain-links`), that code is the
    container's: the modules its entry point imports, directly or not; a handler in a
    module it never imports does not count,
    and each container that runs the module is judged (a link that is a guess from names
    alike is none here). Where one image's code serves
    several containers that each start another entry module (`command: [node,
    dist/web.js]` beside the image's `CMD node dist/server.js`), a container does not run
    the entries the others start, and a wait in a Python module's `if __name__ ==
    "__main__":` block is no container's where every container known to run the module (by
    build evidence, not a name alike) starts another entry module that imports it: Python
    runs that block only in the module run as the program (`python x.py`, `python -m
    pkg.x`), so a standalone mode kept for development is not what the pod runs; where a
    container's entry is unknown or is the module itself, the block is judged as any code.
    Otherwise shutdown is judged per
    project: a handler in another module of the same project counts (a project is the
    folder above the outermost package of the module, so `app/server.py` and `main.py`
    beside `app/` are one project, and two services in sibling folders are two). Stopping
    the server only in `except KeyboardInterrupt` counts as no handler, and so does, in Go,
    stopping it only after a signal a `signal.Notify(ch, os.Interrupt)` (or `syscall.SIGINT`)
    delivers: Kubernetes sends SIGTERM, never SIGINT.

    A grpc.aio server awaited in a container whose command runs an ASGI server that handles
    SIGTERM itself (`uvicorn`, `hypercorn`, gunicorn's uvicorn workers) or whose code runs
    one (`uvicorn.run`, aiohttp's `web.run_app`) runs as a task on that server's event
    loop: SIGTERM does stop the process, but the framework's shutdown cancels the task (or
    ends the loop) and the server is dropped, not drained. That is reported unless the code
    stops the server with a grace (`await server.stop(25)`, in `except
    asyncio.CancelledError` around the wait, say), with that advice and no edit: a
    `signal.signal` handler would replace the framework's own, and its shutdown with it.

    In Go: a server started with `Serve(lis)` (also from a struct's field that a method of
    the file set to it: `a.attach(grpc.NewServer())` keeping `a.rpc = server`, then
    `a.rpc.Serve(lis)`, in a goroutine or not; or from the field a constructor filled,
    `&Server{rpc: grpc.NewServer()}`, served in a method of that type under any receiver's
    name, `srv.rpc.Serve(lis)`; a local's `Serve` is the server's only where the local
    declared with it is in scope, not a same-named local of another block or function
    literal, `srv := new(http.Server)` for pprof in another goroutine) and no
    `signal.Notify(ch, syscall.SIGTERM)`
    (or `signal.NotifyContext`, or `signal.Notify(ch)` for every signal) in its code; the
    signals may be named in the call or in a list spread into it (`stopSignals...`, a
    slice literal or `append`s, in the function or the package), or each in turn by a
    loop over such a list (`for _, s := range stopSignals { signal.Notify(ch, s) }`, the
    loop's element, which its body does not change); `os.Interrupt` alone is
    SIGINT. A library that catches SIGTERM for the program and hands back a context (or a
    channel) done when it comes is a handler too, its context followed as NotifyContext's:
    controller-runtime's `SetupSignalHandler()` (also `ctrl.SetupSignalHandler()`),
    k8s.io/apiserver's `SetupSignalHandler()`/`SetupSignalContext()`, knative's
    `signals.NewContext()`, and those two functions of any package named `signals`
    (sample-controller's, and the copies projects keep). A Go program that does not catch
    SIGTERM exits at once.
    One that catches it but never stops its server is reported as well: the server waits
    in `Serve`, no `GracefulStop()` or `Stop()` is called on it, and it is handed to no code
    k8slb cannot follow (passed to a call other than a service's registration such as
    `pb.RegisterGreeterServer(s, ...)` or `reflection.Register(s)`, or than a function of
    the same file that uses it only so, `registerServer(s, impl)`; returned, stored in a
    struct's field or a package variable: then nothing is said). The signal then only
    cancels a context: the process goes on serving until it ends, at SIGKILL when nothing
    else ends it, and its clients get no GOAWAY, so they go on sending on their
    connections to the dying pod until the calls in flight are cut. The handler counts
    where it is in the code that runs with the server (the container's, else the
    programs' that link it in, else its project's); a handler whose path exits at once is
    reported there instead (below). A `GracefulStop()` in a function handed to a lifecycle
    (an `OnStop` hook, fx's `fx.Hook{OnStop: ...}`) is the server's stop as any is, when the
    lifecycle's run function waits for SIGTERM and then calls the hooks: a shared library
    of a Go workspace that the program below a service's module folder (`cmd/server/`)
    imports is in that program's code (README: links). No fix: the handler is there, and
    what its context should stop is a design call.
    Where no container is known to run the code, it is judged in every program of the
    tree that links its package in (a `main` package and the packages it imports, an
    import path read through the go.mod that declares its module, whatever its folder is
    named: `billing-svc/internal/grpcserver` of `module billing-svc` in `services/billing`,
    so the signal context a service's `Run` makes and hands to that package's function
    is the server's program's handler): not
    reported when each handles SIGTERM (a framework's run function that catches it and
    calls the closers the server registered), at `info` when only some do (the others
    may never start the server), naming one that does not.
    A handler registered below a blocking `Serve` in the same function, when it is the
    code's only one, is reported too: Serve returns when the server has stopped, so the
    handler is never in place while it serves (no fix: where to move it is a design call).
    A handler that does not hold the process is reported too, where the process exits:
    from where SIGTERM is received (`<-ch` of the `signal.Notify` channel, `<-ctx.Done()`
    of the `signal.NotifyContext` context or of one made from it by
    `errgroup.WithContext` or `context.WithCancel`), the code reaches an exit (`os.Exit`, a `Fatal`
    log, the return of `main`, or of the function `main` ends with, as in
    `os.Exit(run(ctx))`) with nothing in between that waits (a graceful stop, a receive
    from a done channel, `wg.Wait()`, any call k8slb cannot follow; a log line, a
    context's cancel, or a `Shutdown(ctx)` whose context is the signal's or derived from
    it, done already, does not wait), in code that makes a gRPC server (the container's,
    else its project's). The process then exits while the server drains in another
    goroutine, or before anything stops it: the calls in flight are cut as if there were
    no handler. grpc-go's `Serve` returns only once a `GracefulStop` has finished, so a
    handler goroutine that calls `GracefulStop()` while `main` returns from `Serve` is
    waited for, and is not reported. No fix: where to wait is a design call.
    An exit that comes after a second receive from the same signal channel, in the same
    function (k8s.io/apiserver's and controller-runtime's `SetupSignalHandler`, and the
    copies projects keep: `<-ch; close(stop); <-ch; os.Exit(1)`; the first receive a
    statement of its own, `<-ch` or `sig := <-ch`, earlier in a block that holds the
    second), is not one on SIGTERM: it waits for a second signal, and the kubelet sends
    SIGTERM once, then SIGKILL. The first signal counts as what its path does (it closes
    the stop channel or cancels the context, then waits for the second), so the program
    is judged as one whose handler holds the process. A done context's `<-ctx.Done()`
    received again is not a second signal (it returns at once): the exit after it is on
    the first.

    A gRPC server served by a net/http server rather than by its own `Serve` is judged the
    same way: the HTTP server's handler is the gRPC server, or holds it (`h2c.NewHandler(s,
    &http2.Server{})`, a mux given it by `Handle`, `http.Handle` with a nil handler, a
    function literal or a function of the file that calls `s.ServeHTTP(w, r)` for
    `application/grpc`, or another package's function given it where that parameter is an
    `http.Handler`, or where that function returns an `http.Handler` that serves the
    parameter so), and the HTTP server is waited on in `http.ListenAndServe(addr, h)`
    (or `ListenAndServeTLS`, `http.Serve`, `http.ServeTLS`) or in `srv.Serve(lis)`,
    `srv.ListenAndServe()`, `srv.ListenAndServeTLS(...)` of an `http.Server{Handler: h}`
    (in a goroutine or not), or of the `http.Server` a function of the file or of
    another package returns when given it, the grpc-gateway way (`srv, err :=
    serverutil.GatewayServer(ctx, s, conn)`, whose every non-nil return is an
    `&http.Server{Handler: ...}` serving that parameter as above:
    `grpcHandlerFunc(s, mux)` calling `s.ServeHTTP(w, r)` when `r.ProtoMajor == 2` and
    the content type is `application/grpc`, else the mux's). With
    no SIGTERM handler in its code it is reported as above, and where the code catches
    SIGINT alone (`signal.Notify(ch, os.Interrupt)`, in a package its program links in
    too: a `ListenForCtrlC(servers...)` that shuts the HTTP servers down on Ctrl-C) the
    finding says where: Kubernetes never sends SIGINT, so that shutdown never runs;
    with one, it is reported when neither server is stopped: no `Shutdown` or `Close` on
    the HTTP server in the function that serves it, nor `GracefulStop()`/`Stop()` on the
    gRPC server (an HTTP server that is handed on, stored or returned, whose stop may be
    anywhere, is not). A handler k8slb cannot tie to the gRPC server (a parameter, a
    field, a call it does not follow) says nothing. The advice differs, and no fix is
    offered: the drain is the HTTP server's `Shutdown(ctx)` (the gRPC server's
    `GracefulStop()` does not drain connections `ServeHTTP` serves: grpc-go did not
    implement it for them, and panicked, grpc-go#1384), bounded by a
    `context.WithTimeout` and followed by `Close()`, with the process exiting only once
    `Shutdown` has returned (Serve returns `ErrServerClosed` at once). Go documents that
    `Shutdown` closes the listeners, then the idle connections, then waits for the active
    ones to go idle (indefinitely, unless its context ends first), and that it neither
    closes nor waits for hijacked connections. net/http's own HTTP/2 server (over TLS, or
    `http.Protocols`' unencrypted HTTP/2) registers its graceful shutdown with the HTTP
    server (`RegisterOnShutdown`), which sends its connections a GOAWAY; h2c.NewHandler
    hijacks the cleartext HTTP/2 connections it serves, so those get none and their
    calls are cut when the process exits.

    connect-go's servers (connectrpc.com/connect, and github.com/bufbuild/connect-go
    before it) are such servers: its handlers serve the gRPC protocol as plain
    http.Handlers, so a mux the file registers one on is a gRPC server served through
    net/http (named by that mux): a constructor protoc-gen-connect-go generates, `func
    New<Service>Handler(...) (string, http.Handler)` of a package whose import path ends
    in `connect` (`mux.Handle(greetv1connect.NewGreetServiceHandler(svc))`, or its two
    results bound to names first and handed to `Handle`), or connect's own
    `NewUnaryHandler` (and its stream kinds) given to `mux.Handle(path, ...)`. gRPC needs
    HTTP/2, so only a file that serves it (h2c.NewHandler, `ListenAndServeTLS` or
    `ServeTLS`, `http.Protocols`' `SetUnencryptedHTTP2`) makes one: over HTTP/1.1 alone
    its handlers answer Connect and gRPC-Web, which no gRPC client calls. The mux may be
    routed into another (`mux.Handle("/", api)`, each mux's routes read up to a budget),
    and it is judged as above; the advice is the HTTP server's `Shutdown` (connect-go's
    handlers have no stop of their own).

    In Java: a server built with grpc-java and waited on with `awaitTermination()` when
    the code registers no JVM shutdown hook (`Runtime.getRuntime().addShutdownHook(...)`,
    which the JVM runs on SIGTERM) nor a `Signal.handle(new Signal("TERM"), ...)`, and has
    no method a container runs as it closes (`@PreDestroy`, a Spring `DisposableBean`'s
    `destroy()`: Spring Boot closes its context from a shutdown hook of its own). With
    none, the JVM exits as soon as SIGTERM arrives, cutting every call in flight. An
    `awaitTermination()` made on `shutdown()`'s result (`server.shutdown().awaitTermination()`)
    or after the same server's `shutdown()` earlier in the same method is the drain of a
    stop already begun (a `stop()` method a lifecycle of the project calls), not a wait to
    serve: it is not reported. In Kotlin alike (a wait in a coroutine,
    `GlobalScope.launch { server.awaitTermination() }`, is one; a hook is
    `addShutdownHook(Thread { ... })`, an `object : Thread()` or `Thread(::stop)`).

    In Node.js: a grpc-js server started with `bindAsync` (from then on the event loop
    keeps the process serving; also through a wrapper the server is handed to, as
    `createServerProxy(new Server())` or `new Proxy(server, handler)` that adds
    middleware, when its result is used as the server: bound, given services, or
    shut down) when no module of its program (the folder of the nearest
    `package.json`, or the container's code) calls `process.on('SIGTERM', ...)` (`once`,
    `addListener`, also over a list of signals) or loads a library that installs such a
    handler (`@godaddy/terminus`, lightship, http-graceful-shutdown, close-with-grace), or
    calls NestJS's `enableShutdownHooks()`. A NestJS gRPC microservice is such a server
    (its options written at the call, or returned by a function of another module that
    gives `{transport: Transport.GRPC}`, imported by a relative path or a tsconfig `paths`
    alias), bound when the application starts; NestJS stops it when the application closes, which
    SIGTERM does only through `enableShutdownHooks()`: that is the advice there (with
    `gracefulShutdown: true` in the transport's options, without which NestJS's close
    aborts the calls in flight), and no handler is inserted. A nice-grpc server
    (`createServer()`, also returned by a function of another module or workspace package)
    started with `listen(address)` is judged alike; its graceful stop is `shutdown()`.
    Node exits at once on SIGTERM with no handler, or, as PID 1, ignores it until SIGKILL.
    A SIGTERM handler that reaches `process.exit()` in its own body with nothing awaited
    before it, and stops no server (`close`, `tryShutdown`, `shutdown`) anywhere, is
    reported at the exit, as Go's: Node runs nothing else meanwhile, so the server is cut
    as if there were no handler. A handler a signal helper registers
    (`processOnce(['SIGTERM'])`, the helper in another module) is judged alike.
    The fix inserts before `bindAsync` a handler that calls `tryShutdown`, bounded by a
    timer that calls `forceShutdown`, then ends the process.

    A server that listens on a Unix socket alone (`net.Listen("unix", path)`, `unix:PATH`,
    `'unix://' + path`, Netty's `DomainSocketAddress`; read as `grpc-server-no-max-age`
    (KLB201) reads it) is reported at `info`: no Service reaches it (kube-proxy balances
    IP addresses and ports), its callers share its socket file on the node (a kubelet, a
    CNI or runtime plugin's binary), so its stop cuts no Service traffic, only their calls
    in flight. Where no container is known to run it, the finding says too that such a
    server is often a plugin its host process starts as a child (HashiCorp's go-plugin
    prints its socket in the handshake), which Kubernetes' SIGTERM never reaches (the
    kubelet signals each container's main process), and which its host stops. An exit on
    SIGTERM that ends the code's servers is `info` when each of them listens on a Unix
    socket alone; otherwise the finding names a server a Service may reach. A Go server
    on grpc-go's in-memory listener alone (`bufconn.Listen(size)`) is `info` alike: only
    its own process dials it, so its stop cuts no Service traffic. A server on a loopback
    address (`127.0.0.1:0`) is not: a sidecar proxy of its pod (Envoy) may send it the
    calls of other pods' clients, which its stop cuts.

    ## Why it matters
    Kubernetes stops a pod with SIGTERM, then SIGKILL when the grace period is over.
    Python installs no SIGTERM handler, and a process that runs as PID 1 in its container
    ignores signals it has no handler for: the server keeps taking calls until it is
    killed, and every call in flight is cut. `KeyboardInterrupt` comes from SIGINT
    (Ctrl-C), which Kubernetes never sends.

    ## Fix
    Register a handler that stops the server with a grace period shorter than
    `terminationGracePeriodSeconds` minus the preStop pause:
    `signal.signal(signal.SIGTERM, lambda signum, frame: server.stop(grace=25))`
    before `server.wait_for_termination()` (with asyncio:
    `loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(server.stop(25)))`).

    In Go: a goroutine started before `Serve` that waits for SIGTERM
    (`signal.Notify(ch, syscall.SIGTERM)`) and calls `GracefulStop()`, with
    `time.AfterFunc(25*time.Second, server.Stop)` to bound it (it waits for every stream).
    When the handler exits at once: have the code that exits call `GracefulStop()` (so
    bounded) before it exits, or wait on a channel the stopping goroutine closes once
    `GracefulStop()` has returned.

    Served through net/http: on SIGTERM (`signal.NotifyContext`), `srv.Shutdown(ctx)` of
    the HTTP server with a timeout, then `srv.Close()`; a bare `http.ListenAndServe` first
    becomes an `http.Server{Addr: ..., Handler: ...}`. No fix is offered for it.

    In Java: a shutdown hook that calls `server.shutdown()`, then
    `server.awaitTermination(25, TimeUnit.SECONDS)`, then `server.shutdownNow()` for the
    calls still running.

    `k8slb fix --unsafe-fixes` inserts that handler before the wait (with `import signal`,
    and `asyncio` for grpc.aio), with a grace of `stop-grace-seconds` (25 by default); in
    Go, that goroutine before the statement that calls `Serve` (with the imports it needs);
    in Java, that hook before the statement that calls `awaitTermination()` (refused when
    the server is a local assigned more than once, which a lambda cannot capture). In
    Kotlin no fix is offered (Java's edit does not carry over to Kotlin exactly): the
    finding says to add `Runtime.getRuntime().addShutdownHook(Thread { ... })`.
    Unsafe: `signal.signal` works only in the main thread, and other shutdown work
    (health status, background workers) may need to join in.

    ## Measured
    Four calls of 1.5 s in flight when the pod gets SIGTERM (k8slb's own test-suite, on
    loopback): with no handler, all four fail (grpcio: UNAVAILABLE, the process is killed;
    grpc-go and grpc-js: UNAVAILABLE); with the handler `k8slb fix` writes, all four
    finish, in all three.
    A grpc-go handler that starts `GracefulStop()` in a goroutine and calls `os.Exit(0)`
    at once: all four fail (UNAVAILABLE); the same handler calling `GracefulStop()`
    before it exits: all four finish.
    Reproduce: `.venv/bin/python -m pytest tests/test_grpc_proof.py
    tests/test_grpc_go_proof.py tests/test_grpc_node_proof.py -s -q -k test_4`.

    ## Other linters
    No other linter reads server code for signal handling.
    """

    id = "KLB403"
    name = "grpc-no-graceful-shutdown"
    severity = Severity.WARNING
    reads = STOPPING
    fix = FixInfo(
        available=True,
        safe=False,
        description="register a SIGTERM handler that stops the server with a grace",
    )
    examples = (
        Example(grpc_server(), language="python", at=(10, 5)),
        Example(_KEYBOARD_ONLY, language="python", title="shutdown only on Ctrl-C", at=(11, 9)),
        Example(grpc_server(before_wait=SIGTERM_HANDLER), findings=0, language="python"),
        Example(
            grpc_server(
                before_wait="    import signal\n\n"
                "    for sig in (signal.SIGINT, signal.SIGTERM):\n"
                "        signal.signal(sig, lambda signum, frame: server.stop(grace=25))\n"
            ),
            findings=0,
            language="python",
            title="handlers registered in a loop",
        ),
        Example(go_server(), language="go", title="in Go", at=(12, 2)),
        Example(node_server(NODE_MAX_AGE), language="javascript", title="in Node.js", at=(5, 3)),
        Example(
            node_server(NODE_MAX_AGE, NODE_SIGTERM),
            findings=0,
            language="javascript",
            title="in Node.js, with a SIGTERM handler",
        ),
        Example(
            node_server(NODE_MAX_AGE, _NODE_EXITS_AT_ONCE),
            language="javascript",
            title="in Node.js, a handler that exits without draining",
            at=(7, 5),
        ),
        Example(
            go_server(before_serve=GO_SIGTERM, imports=GO_SIGNAL_IMPORTS),
            findings=0,
            language="go",
            title="in Go, with signal.Notify and GracefulStop",
        ),
        Example(
            go_server(before_serve=_EXITS_AT_ONCE, imports=GO_SIGNAL_IMPORTS),
            language="go",
            title="in Go, a handler that exits while the server drains",
            at=(19, 3),
        ),
        Example(
            go_server(before_serve=_CAUGHT_NEVER_STOPPED, imports=_CONTEXT_IMPORTS),
            language="go",
            title="in Go, SIGTERM caught but the server never stopped",
            at=(17, 2),
        ),
        Example(GO_HANDLER, language="go", title="in Go, served through net/http", at=(13, 2)),
        Example(java_server(), language="java", title="in Java", at=(11, 5)),
        Example(
            kotlin_server(),
            language="kotlin",
            title="in Kotlin, where no fix is offered",
            at=(9, 5),
        ),
        Example(
            kotlin_server(before_wait=KOTLIN_HOOK),
            findings=0,
            language="kotlin",
            title="in Kotlin, with a shutdown hook",
        ),
        Example(
            java_server(before_wait=JAVA_HOOK),
            findings=0,
            language="java",
            title="in Java, with a shutdown hook",
        ),
    )

    @judged_where_it_runs
    def check(self, context: Context) -> Iterator[Finding]:
        entries = entries_of(context.links)
        for facts in context.judged_code():
            yield from self._late_handlers(context, entries, facts)
            yield from self._exits_while_draining(context, entries, facts)
            waits = _run_waits(entries, facts)
            if not waits:  # not asked for its containers' code (each a closure)
                continue
            # a link that is a guess from names alike is no evidence of which code runs
            # together: such code is judged as code no container is known to run
            runners = [link for link in entries.running(facts.path) if not link.guessed]
            severity, handled = self.severity, {}
            owner: str | None = None  # what handles SIGTERM in every container left
            if runners:  # judged in the code each container runs: its import closure
                bare = [
                    link
                    for link in runners
                    if not any(m.sigterm_handlers for m in entries.code(link))
                ]
                if not bare:
                    yield from self._never_stopped(context, entries, facts)
                    continue
                where = f"the code container {bare[0].key} runs"
                owners = {signal_owner(entries.code(link), link) for link in bare}
                owner = owners.pop() if len(owners) == 1 else None
            elif facts.project in context.projects_with("sigterm_handlers"):
                yield from self._never_stopped(context, entries, facts)
                continue
            else:
                handled = _programs_handling_sigterm(context, facts)
                bare_programs = [folder for folder, handles in handled.items() if not handles]
                if handled and not bare_programs:
                    # every program that links it in handles SIGTERM
                    yield from self._never_stopped(context, entries, facts)
                    continue
                where = "its project"
                if len(bare_programs) < len(handled):
                    # the programs that start the server may be those that handle it
                    where = f"{bare_programs[0]}, one of the Go programs that link it in"
                    severity = Severity.INFO
            servers = {s.name: s for s in facts.servers if s.name}
            started = [name for name in servers if name in facts.starts]
            keyboard = _keyboard_stops(facts)
            for wait in waits:
                name = wait.server if wait.server in servers else None
                if name is None and wait.server is None and started:
                    name = started[0]
                if wait.via_http and name is not None and wait.pending is None:
                    runs = (context, facts, bare[0] if runners else None)
                    yield self._through_http(wait, servers[name], where, (severity, handled), runs)
                    continue
                if name is None or name not in facts.starts:
                    continue
                server = servers[name]
                local = unreached(context.listening(facts), name, bool(runners))
                if owner is not None and wait.awaited:
                    # an asyncio server on the loop of a framework that owns SIGTERM
                    yield from self._cancelled(context, facts, wait, name, owner, where)
                    continue
                also = list(keyboard.get(name, ()))
                grace = context.fix_values.stop_grace_seconds
                dialect = dialect_of(facts.language)
                advice, fix = dialect.server_sigterm_advice(server, name, grace)
                if severity == Severity.INFO:
                    also.append(_others_handle(handled, "start"))
                also += local
                yield self.code_finding(
                    wait.loc,
                    (
                        f"gRPC server {name!r} waits in {wait.how} with no SIGTERM handler in "
                        f"{where}",
                        dialect.no_sigterm_consequence(),
                        *also,
                        advice,
                    ),
                    related=[Related(server.loc.path, server.loc.line, "the server")],
                    fix=fix,
                    edits=dialect.sigterm_handler(wait, name, grace),
                    severity=Severity.INFO if local else severity,
                )

    def _never_stopped(
        self, context: Context, entries: Entries, facts: CodeFacts
    ) -> Iterator[Finding]:
        """A Go server whose program catches SIGTERM (`signal.Notify`, NotifyContext, a
        library's handler) while nothing stops the server: no GracefulStop() or Stop() on
        it, and it is handed to no code k8slb does not follow (Server's `handed`). The
        process lingers until it is killed, or exits by another way, and the server's
        clients get no GOAWAY. Not said where a handler's path exits with nothing waited
        for (`_exits_while_draining` says it there) nor where the handler comes after
        the wait (`_late_handlers`)."""
        if facts.language != "go":
            return
        waits = _unstopped_waits(facts)
        if not waits:
            # most modules: the program's code (a closure of every file a container
            # runs) is not gathered for them, which made this quadratic in a program
            return
        code = [m for m in _program_code(context, entries, facts) if not m.is_test]
        handlers = [loc for module in code for loc in module.sigterm_handlers]
        if not handlers or any(module.signal_exits for module in code):
            return
        handler = next((h for h in handlers if h.path == facts.path), handlers[0])
        caught = (
            f"line {handler.line}"
            if handler.path == facts.path
            else f"{handler.path}:{handler.line}"
        )
        grace = context.fix_values.stop_grace_seconds
        for wait, server in waits:
            name = wait.server
            if wait.via_http:
                connect = server.factory == CONNECT
                stops = "" if connect else f", nor GracefulStop() or Stop() on {name}"
                yield self.code_finding(
                    wait.loc,
                    (
                        f"gRPC server {_served_name(server)} is served by {wait.how} and "
                        f"nothing stops it, though SIGTERM is caught ({caught})",
                        f"{_served_how(server)}; no Shutdown() or Close() is called on the "
                        f"HTTP server where it is served{stops}: it serves until the "
                        "process ends (at SIGKILL, when nothing else ends it), and the calls "
                        "in flight are cut",
                        _http_advice(wait, name or "the server", grace, True, not connect),
                    ),
                    related=[
                        Related(handler.path, handler.line, "the signal"),
                        Related(server.loc.path, server.loc.line, "the server"),
                    ],
                )
                continue
            local = unreached(context.listening(facts), name)
            yield self.code_finding(
                wait.loc,
                (
                    f"gRPC server {name!r} waits in {wait.how} and nothing stops it, though "
                    f"SIGTERM is caught ({caught})",
                    "no GracefulStop() or Stop() is called on it: it serves until the "
                    "process ends (at SIGKILL, when nothing else ends it), its clients get no "
                    "GOAWAY and go on sending to the pod, and the calls in flight are cut",
                    *local,
                    f"when the signal's context is done, call {name}.GracefulStop(), bounded "
                    f"by time.AfterFunc({grace}*time.Second, {name}.Stop), and let the "
                    "process exit once it has returned",
                ),
                related=[
                    Related(handler.path, handler.line, "the signal"),
                    Related(server.loc.path, server.loc.line, "the server"),
                ],
                severity=Severity.INFO if local else None,
            )

    def _through_http(
        self,
        wait: Wait,
        server: Server,
        where: str,
        judged: tuple[Severity, dict[str, bool]],
        runs: tuple[Context, CodeFacts, Link | None],
    ) -> Finding:
        """A gRPC server an HTTP server serves (through `ServeHTTP`), waited on in that
        HTTP server's Serve or ListenAndServe, with no SIGTERM handler: Go exits at once on
        SIGTERM (where the code it runs with catches SIGINT alone, it says where). No fix: the
        drain is the HTTP server's `Shutdown`, whose place (and the `http.Server` a bare
        `http.ListenAndServe` lacks) is the program's to write."""
        name = server.name or "the server"
        severity, handled = judged
        context, facts, link = runs
        grace = context.fix_values.stop_grace_seconds
        interrupt = _sigint_of(context, entries_of(context.links), facts, link)
        also = [_others_handle(handled, "serve")] if severity == Severity.INFO else []
        if interrupt is not None:
            also.insert(
                0,
                f"it catches SIGINT alone (`os.Interrupt`, {interrupt}), which Kubernetes "
                "never sends: what it stops there is not stopped on SIGTERM",
            )
        return self.code_finding(
            wait.loc,
            (
                f"gRPC server {_served_name(server)} is served by {wait.how} with no SIGTERM "
                f"handler in {where}",
                _served_how(server),
                dialect_of("go").no_sigterm_consequence(),
                *also,
                _http_advice(wait, name, grace, False, server.factory != CONNECT),
            ),
            related=[Related(server.loc.path, server.loc.line, "the server")],
            severity=severity,
        )

    def _cancelled(
        self, context: Context, facts: CodeFacts, wait: Wait, name: str, owner: str, where: str
    ) -> Iterator[Finding]:
        """A grpc.aio server awaited on the event loop of a framework that handles SIGTERM
        (uvicorn): the process does stop, but its shutdown cancels the task the server waits
        in, or ends the loop, so the server is dropped, not drained, unless the code stops
        it with a grace (in `except asyncio.CancelledError`, or a shutdown hook). No edit:
        `signal.signal` would replace the framework's own handler and its shutdown."""
        if any(
            stop.server == name and not stop.in_keyboard_interrupt and stop.grace not in (0, None)
            for stop in facts.stops
        ):
            return
        grace = context.fix_values.stop_grace_seconds
        server = next(s for s in facts.servers if s.name == name)
        yield self.code_finding(
            wait.loc,
            (
                f"gRPC server {name!r} awaits {wait.how} on the event loop of {owner}, which "
                f"handles SIGTERM, and nothing in {where} stops it with a grace",
                f"{owner} runs the application's shutdown on SIGTERM and ends the loop: the "
                "task the server waits in is cancelled, and the calls in flight are cut",
                f"await {name}.stop({grace}) before the task ends: in `except "
                "asyncio.CancelledError` around this wait, or in the application's shutdown "
                "hook (after a FastAPI lifespan's yield) before it cancels the task; not "
                f"signal.signal, which would replace {owner}'s own handler",
            ),
            related=[Related(server.loc.path, server.loc.line, "the server")],
        )

    def _exits_while_draining(
        self, context: Context, entries: Entries, facts: CodeFacts
    ) -> Iterator[Finding]:
        """A SIGTERM handler whose path reaches the process's exit with nothing waited for,
        in code that runs a gRPC server: the server is cut however it drains."""
        if not facts.signal_exits:
            return
        made_in = [
            (module, server)
            for module in _code_of(context, entries, facts)
            if module.language == facts.language and not module.is_test
            for server in module.servers
        ]
        if not made_in:
            return
        # the server named is one a Service may reach, where there is one: a Unix socket's
        # stop cuts no Service traffic (said at info when every server is on one)
        reached = [s for m, s in made_in if context.listening(m).unreached_only(s.name) is None]
        local = not reached
        servers = reached or [s for _, s in made_in]
        server = next((s for s in servers if s.loc.path == facts.path), servers[0])
        server_module = next(m for m, s in made_in if s is server)
        name = server.name or "the server"
        made = (
            []
            if server.loc.path == facts.path
            else [f"{name} is made at {server.loc.path}:{server.loc.line}"]
        )
        made += unreached(context.listening(server_module), server.name) if local else []
        grace = context.fix_values.stop_grace_seconds
        dialect = dialect_of(facts.language)
        for exit in facts.signal_exits:
            started = (
                [
                    f"the graceful stop it starts at line {exit.started.line} runs in a goroutine "
                    "that the exit ends"
                ]
                if exit.started is not None
                else []
            )
            if exit.expired is not None:
                started.append(
                    f"the Shutdown at line {exit.expired.line} returns at once: its context "
                    "is done already (the signal's, or derived from it), so it drains nothing"
                )
            # a Node signal helper's handler exits in its module; the caller names SIGTERM
            signal = (
                f"line {exit.handler.line}"
                if exit.handler.path == exit.loc.path
                else f"{exit.handler.path}:{exit.handler.line}"
            )
            yield self.code_finding(
                exit.loc,
                (
                    f"SIGTERM ({signal}) ends the process here before gRPC server {name!r} "
                    "has drained",
                    f"{exit.how} with nothing waiting in between: the calls in flight are cut "
                    "as if there were no handler",
                    *made,
                    *started,
                    _exit_wait_advice(server, grace)
                    if server.factory == CONNECT
                    else dialect.exit_wait_advice(name, grace),
                ),
                related=[
                    Related(exit.handler.path, exit.handler.line, "the signal"),
                    Related(server.loc.path, server.loc.line, "the server"),
                ],
                severity=Severity.INFO if local else None,
            )

    def _late_handlers(
        self, context: Context, entries: Entries, facts: CodeFacts
    ) -> Iterator[Finding]:
        """A wait that comes before the only SIGTERM handler of its code, in its function:
        the handler is registered when the server has stopped already."""
        late = [wait for wait in facts.waits if wait.late_handler is not None]
        if not late:
            return
        code = _code_of(context, entries, facts)
        handlers = {loc for module in code for loc in module.sigterm_handlers}
        if not handlers <= {wait.late_handler for wait in late}:
            return  # another handler is in place while the server serves
        dialect = dialect_of(facts.language)
        for wait in late:
            handler = wait.late_handler
            assert handler is not None
            yield self.code_finding(
                wait.loc,
                (
                    f"gRPC server {wait.server!r} waits in {wait.how} before its SIGTERM handler "
                    f"(line {handler.line}) is registered",
                    f"{wait.how} returns only when the server stops, so the handler is never in "
                    f"place while it serves: {dialect.no_sigterm_consequence()}",
                    "register the handler before the server starts, or serve in a goroutine",
                ),
                related=[Related(handler.path, handler.line, "the handler")],
            )


def _run_waits(entries: Entries, facts: CodeFacts) -> list[Wait]:
    """The module's waits but those in a `__main__` block that no container runs (every
    one known to run the module imports it: Entries.only_imported)."""
    return [wait for wait in facts.waits if not entries.only_imported(facts, wait.loc.line)]


def _others_handle(handled: dict[str, bool], verb: str) -> str:
    """Said where only some of the Go programs that link the server in handle SIGTERM."""
    handling = ", ".join(folder for folder, handles in handled.items() if handles)
    return (
        f"other programs that link it in handle SIGTERM ({handling}): if only they {verb} "
        "the server, it is drained"
    )


def _exit_wait_advice(server: Server, grace: int) -> str:
    """Where connect-go's handlers are cut by an exit: the HTTP server that serves them is
    what drains them (they have no stop of their own)."""
    return (
        "call Shutdown(ctx) on the HTTP server that serves it, with a context.WithTimeout of "
        f"{grace} s, in the code that exits, and exit only once Shutdown has returned"
    )


def _served_name(server: Server) -> str:
    """A gRPC server served through net/http, as a finding names it: connect-go's by the
    mux its handlers are registered on."""
    name = repr(server.name or "the server")
    return f"{name} (connect-go's handlers)" if server.factory == CONNECT else name


def _served_how(server: Server) -> str:
    if server.factory == CONNECT:
        return (
            "connect-go serves gRPC as an http.Handler: its connections are the HTTP "
            "server's, and only the HTTP server can drain them"
        )
    return "it is served through net/http, as the HTTP server's handler (ServeHTTP)"


def _http_advice(wait: Wait, name: str, grace: int, caught: bool, grpc_go: bool = True) -> str:
    """What to add for a gRPC server served through net/http: the HTTP server's Shutdown,
    bounded, on SIGTERM; not a grpc-go server's GracefulStop, which grpc-go does not
    implement for the connections ServeHTTP serves (grpc-go#1384: it panicked);
    connect-go's handlers have no stop of their own."""
    bare = wait.how.startswith("http.")  # `http.ListenAndServe(addr, h)`: no server to stop
    steps = [
        "serve it from an http.Server{Addr: ..., Handler: ...} instead, so that it can be "
        "shut down; "
        if bare
        else "",
        "when the signal's context is done, "
        if caught
        else "catch SIGTERM with signal.NotifyContext(ctx, syscall.SIGTERM) and, when its "
        "context is done, ",
        f"call srv.Shutdown(ctx) with a context.WithTimeout of {grace} s (then srv.Close()), "
        "and let the process exit only once Shutdown has returned: Serve returns "
        "ErrServerClosed at once. Shutdown closes the listeners and idle connections and "
        "waits for active ones, sending a GOAWAY on the HTTP/2 connections net/http serves "
        "itself (TLS, or http.Protocols' unencrypted HTTP/2); it neither closes nor waits "
        "for hijacked connections, which is what h2c.NewHandler makes of cleartext HTTP/2 "
        "ones: those are cut when the process exits",
        f". Not {name}.GracefulStop(): grpc-go does not drain the connections ServeHTTP serves"
        if grpc_go
        else "",
    ]
    return "".join(steps)


def _keyboard_stops(facts: CodeFacts) -> dict[str, tuple[str]]:
    """What a finding on a server says of its stop that only Ctrl-C reaches, by the names
    of the module's servers so stopped: read once a module, not once a wait (thousands
    of servers and stops in a file)."""
    words = _KEYBOARD.get(facts.language, _KEYBOARD["python"])
    return {stop.server: (words,) for stop in facts.stops if stop.in_keyboard_interrupt}


def _unstopped_waits(facts: CodeFacts) -> list[tuple[Wait, Server]]:
    """The waits of a Go module's servers that nothing stops, with each server: none
    handed to code k8slb does not follow, no handler registered after the wait."""
    stopped = {stop.server for stop in facts.stops}
    servers = {s.name: s for s in facts.servers if s.name}
    return [
        (wait, servers[wait.server])
        for wait in facts.waits
        if wait.server in servers
        and not servers[wait.server].handed
        and wait.server not in stopped
        # served through net/http: neither server stopped where it is served
        and (wait.server in facts.starts or wait.http_stopped is False)
        and wait.pending is None
        and wait.late_handler is None
    ]


def _programs_handling_sigterm(context: Context, facts: CodeFacts) -> dict[str, bool]:
    """Each Go program of the tree that links the module in (a `main` and the packages it
    imports, by its folder), with whether its code handles SIGTERM: a framework's run
    function, in a package of its own, that catches it and calls the closers the server
    registered. Empty for code of other languages."""
    return {
        os.path.dirname(code[0].path): any(module.sigterm_handlers for module in code)
        for code in context.links.programs(facts.path)
        if code
    }


def _program_code(context: Context, entries: Entries, facts: CodeFacts) -> list[CodeFacts]:
    """The code a Go module runs with: every container's that runs it, else every
    program's of the tree that links it in, else its project's."""
    if entries.running(facts.path):
        return _code_of(context, entries, facts)
    programs = [m for code in context.links.programs(facts.path) for m in code]
    return programs or _code_of(context, entries, facts)


def _sigint_of(
    context: Context, entries: Entries, facts: CodeFacts, link: Link | None
) -> str | None:
    """Where the code a module runs with catches SIGINT alone (Go's `signal.Notify(ch,
    os.Interrupt)`), said where it has no SIGTERM handler: the container's code (`link`,
    else the module's: _code_of) and the packages its programs link in; `line N` in the
    module itself, else `path:N`."""
    code = entries.code(link) if link is not None else _code_of(context, entries, facts)
    code += [m for program in context.links.programs(facts.path) for m in program]
    found = [loc for module in code for loc in module.sigint_handlers]
    path = facts.path
    if not found:
        return None
    loc = next((x for x in found if x.path == path), found[0])
    return f"line {loc.line}" if loc.path == path else f"{loc.path}:{loc.line}"


def _code_of(context: Context, entries: Entries, facts: CodeFacts) -> list[CodeFacts]:
    """The code a module runs with: every container's that runs it (its import closure),
    else its project's."""
    runners = entries.running(facts.path)
    if runners:
        return [m for link in runners for m in entries.code(link)]
    return [m for m in context.code() if m.project == facts.project]
