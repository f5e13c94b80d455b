"""connect-go's gRPC servers: a connect-go handler (`connect.NewUnaryHandler(...)` of
connectrpc.com/connect, or github.com/bufbuild/connect-go before it moved; or what
protoc-gen-connect-go generates in a `<package>connect` package, `func
New<Service>Handler(svc, opts ...connect.HandlerOption) (string, http.Handler)`) serves
the gRPC protocol (beside Connect's own and gRPC-Web) as a plain http.Handler. A mux the
file registers one on (`mux.Handle(greetv1connect.NewGreetServiceHandler(svc))`, or
`path, h := ...; mux.Handle(path, h)`, or `mux.Handle("/pkg.Svc/Do",
connect.NewUnaryHandler(...))`) is then a gRPC server served through net/http, named by
that mux: parse_http_serve.py ties it to the HTTP server that serves the mux, and
KLB403 judges its shutdown as it does a grpc-go server served so.

gRPC needs HTTP/2, which net/http speaks only over TLS, in the clear through
`h2c.NewHandler`, or with `http.Protocols`' unencrypted HTTP/2: a file that does none
of these (no h2c import, no `ListenAndServeTLS`/`ServeTLS`, no `SetUnencryptedHTTP2`)
serves Connect and gRPC-Web over HTTP/1.1 only, which gRPC clients cannot call, and
makes no gRPC server here.

connect-go has no connection age of its own (grpc-go's `MaxConnectionAge` is not there,
nor in x/net/http2's Server): its connections are the HTTP server's, so the server's
options are left unknown and KLB201 says nothing of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from k8slb.code.facts import UNKNOWN_OPTIONS, Server
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

# How a connect-go server is named (facts.Server.factory)
CONNECT = "connect-go"
CONNECT_LIBRARIES = ("connectrpc.com/connect", "github.com/bufbuild/connect-go")
# connect-go's own handlers of one procedure
_HANDLERS = frozenset(
    f"{library}.New{kind}Handler"
    for library in CONNECT_LIBRARIES
    for kind in ("Unary", "ClientStream", "ServerStream", "BidiStream")
)
# what makes net/http speak HTTP/2 in a file: h2c's handler, a TLS serve, unencrypted
# HTTP/2 of http.Protocols (Go 1.24)
_H2C = "golang.org/x/net/http2/h2c"
_HTTP2_CALLS = ("ListenAndServeTLS", "ServeTLS", "SetUnencryptedHTTP2")


def connect_servers(collector: Any) -> dict[str, tuple[Server, dict[int, Any]]]:
    """The file's connect-go servers, by the mux each registers its handlers on, with
    the scopes that mux's name is declared in, by id (the server is that variable; a
    lookup, not a scan: thousands of functions may each declare a `mux` of their own)."""
    found: dict[str, tuple[Server, dict[int, Any]]] = {}
    if not _speaks_http2(collector):
        return found
    for call, scope, shape in collector.calls_to.get("Handle", []):
        if shape.operand_kind != "identifier" or scope.in_test():
            continue
        if not _registers_a_handler(collector, shape.arguments, scope):
            continue
        held = scope.lookup(shape.receiver)
        if held is None or len(held[1]) != 1:
            continue  # a parameter, a field, a name bound several times: not followed
        name = shape.receiver
        if name not in found:
            server = Server(collector.loc(call), CONNECT, UNKNOWN_OPTIONS, name)
            found[name] = (server, {})
        found[name][1][id(held[0])] = held[0]
    return found


def _speaks_http2(collector: Any) -> bool:
    return _H2C in collector.import_paths or any(
        collector.calls_to.get(name) for name in _HTTP2_CALLS
    )


def _registers_a_handler(collector: Any, arguments: list[Node], scope: Any) -> bool:
    """Whether a `Handle(...)` call's arguments are a connect-go handler: a generated
    constructor's two results, spread (one argument) or bound to names first (`path, h
    := ...`); or connect's own handler after its path."""
    if len(arguments) == 1:
        return _generated(collector, arguments[0], scope)
    if len(arguments) != 2:
        return False
    path, handler = arguments
    if handler.type == "call_expression":
        return collector._callee_of(collector._called(handler), scope) in _HANDLERS
    if path.type != "identifier":
        return False
    held = scope.lookup(_text(path))
    return held is not None and len(held[1]) == 1 and _generated(collector, held[1][0], held[0])


def _generated(collector: Any, node: Node, scope: Any) -> bool:
    """Whether an expression calls a constructor protoc-gen-connect-go generates: its
    package's import path ends in `connect` (`.../greet/v1/greetv1connect`), and its name
    is `New<Service>Handler`."""
    if node.type != "call_expression":
        return False
    name = collector._callee_of(collector._called(node), scope) or ""
    package, _, member = name.rpartition(".")
    last = package.rsplit("/", 1)[-1]
    return (
        last.endswith("connect")
        and last != "connect"
        and member.startswith("New")
        and member.endswith("Handler")
        and len(member) > len("NewHandler")
    )
