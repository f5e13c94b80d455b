"""A gRPC server served by a net/http server: the gRPC server is the HTTP server's handler,
or inside it (`h2c.NewHandler(s, &http2.Server{})`, a mux given it, a function of the
file whose handler calls `s.ServeHTTP(w, r)` for `application/grpc`), and the HTTP
server is served and waited on (`http.ListenAndServe(addr, h)`, `srv.ListenAndServeTLS(
cert, key)` of an `http.Server{Handler: h}`, `srv.Serve(lis)`). The gRPC server is then
waited on through net/http (a `Wait` with `via_http`), and KLB403 judges its SIGTERM
handling as it does a `Serve(lis)`'s.

Only a tie k8slb reads is one: the handler is the server's name (bound once to
`grpc.NewServer(...)`, or to what a function of the file returns that makes one), a
wrapper of net/http or h2c given it, a function literal or function of the file that
calls `ServeHTTP` on it, a mux whose `Handle` is given it, or a function of another
package given it where that function's parameter is an http.Handler (known only once
every file is read: `pending`). A handler given as a parameter, a field, or anything
else is no tie: nothing is said. Budgets: a handler followed _DEPTH bindings or calls
deep, a mux's `Handle` calls and a body's `ServeHTTP` calls read up to MAX_CHOICES."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_CHOICES
from k8slb.code.facts import Server, Wait
from k8slb.code.syntax_trees import node_text as _text
from k8slb.languages.go import parse as go  # its helpers, read at call time (a cycle)

if TYPE_CHECKING:
    from tree_sitter import Node

_DEPTH = 6  # bindings and calls a handler is followed through
# net/http's functions that serve, with the place of their handler argument
HTTP_SERVE_FUNCTIONS = {
    "net/http.ListenAndServe": 1,
    "net/http.ListenAndServeTLS": 3,
    "net/http.Serve": 1,
    "net/http.ServeTLS": 1,
}
# an http.Server's methods that serve until it is shut down, and those that stop it
HTTP_SERVE_METHODS = frozenset({"Serve", "ServeTLS", "ListenAndServe", "ListenAndServeTLS"})
HTTP_STOP_METHODS = frozenset({"Shutdown", "Close"})
# the packages whose functions make an http.Handler of the handlers they are given
# (`h2c.NewHandler(h, s)`, `http.HandlerFunc(s.ServeHTTP)`, `http.StripPrefix(p, h)`)
_WRAPPING_PACKAGES = ("net/http.", "golang.org/x/net/http2/h2c.")
# a mux's methods that route to the handler they are given last
_ROUTING = ("Handle", "HandleFunc")

# What a handler resolves to: the gRPC server's name, and the other package's function
# it is handed to, when the tie rests on that function's parameter (`pending`: its
# package, name, the parameter's place, and what the function must make of it there:
# HANDLER, a handler that serves it, or SERVER, an http.Server that does).
_Tie = tuple[str, tuple[str, str, int, str] | None]
HANDLER, SERVER = "handler", "server"
# what a function's first result is, for the parameters it serves (served_parameters)
_MADE = {"net/http.Handler": HANDLER, "net/http.Server": SERVER}


class HttpServes:
    """The waits on gRPC servers that a file's net/http servers serve (`waits`)."""

    def __init__(
        self,
        collector: Any,
        servers: dict[str, Server],
        wrappers: frozenset[str],
        parameters: tuple[Any, dict[str, int]] | None = None,
        connect: dict[str, dict[int, Any]] | None = None,
    ):
        # the file's reader (parse.py's _Collector): its calls, scopes and functions
        self.c = collector
        self.servers = servers
        self.wrappers = wrappers  # other packages' functions that wrap a gRPC server
        # a function's scope and its parameters' places, whose parameters stand for the
        # gRPC server (served_parameters): what its returns serve of them
        self.parameters = parameters
        # the muxes connect-go's handlers are registered on (parse_connect.py), each with
        # the scopes that declare it (by id): a gRPC server, that variable
        self.connect = connect or {}
        self.stopped: dict[tuple[int, str], bool | None] = {}  # by body and name: _stopped
        # what each handler expression and function resolves to, by node (and scope) and
        # depth: a handler that names another several times, level under level, or a
        # function returning one of many names each bound to a call of the next, is
        # followed once a depth, not once a path to it (the fan-out to the power of _DEPTH)
        self.handlers: dict[tuple[int, int, int], _Tie | None] = {}
        self.made: dict[tuple[int, int], str | None] = {}
        # what each function of the file serves of its parameters, read once a function
        # however many calls of it make servers (_made_elsewhere)
        self.served: dict[int, tuple[str, tuple[int, ...]] | None] = {}

    def waits(self) -> list[Wait]:
        found: list[Wait] = []
        if not self.servers:
            return found
        for call, scope, shape in self.c.shaped:
            if scope.in_test():
                continue
            tie, how, stopped = self._served(call, scope, shape)
            if tie is None:
                continue
            found.append(
                Wait(
                    self.c.loc(call),
                    tie[0],
                    how,
                    via_http=True,
                    http_stopped=stopped,
                    pending=tie[1],
                )
            )
        return found

    def _served(self, call: Node, scope: Any, shape: Any) -> tuple[_Tie | None, str, bool | None]:
        """The gRPC server a serving call of net/http serves, how the call is written, and
        whether its HTTP server is stopped (`_stopped`); no tie for any other call."""
        if shape.kind != "selector_expression":
            return None, "", None
        name = self.c._callee_of(shape, scope)
        at = HTTP_SERVE_FUNCTIONS.get(name or "")
        if at is not None:  # `http.ListenAndServe(addr, h)`: no server to shut down
            args = shape.arguments
            handler = args[at] if len(args) > at else None
            if handler is None:
                return None, "", None
            tie = (
                self._default_mux(scope)
                if handler.type == "nil"
                else self._handler(handler, scope, 0)
            )
            return tie, f"{shape.text}()", False
        if shape.member not in HTTP_SERVE_METHODS or shape.operand_kind != "identifier":
            return None, "", None
        literal = go._literal_of(shape.operand, scope)
        if literal is None:  # `srv := util.GatewayServer(ctx, s, ...)`: made elsewhere
            tie = self._made_elsewhere(shape.operand, scope)
            stopped = self._stopped(call, shape.receiver) if tie is not None else None
            return tie, f"{shape.text}()", stopped
        if not self._http_server(literal):
            return None, "", None
        keyed = map(go._keyed, go._keyed_elements(literal))
        handler = next((value for key, value in keyed if _text(key) == "Handler"), None)
        # no Handler: http.DefaultServeMux
        tie = self._default_mux(scope) if handler is None else self._handler(handler, scope, 0)
        return tie, f"{shape.text}()", self._stopped(call, shape.receiver)

    def _made_elsewhere(self, name: Node, scope: Any) -> _Tie | None:
        """The gRPC server a name bound once to a call of another package's function is
        given to (`srv, err := serverutil.GatewayServer(ctx, s, conn)`), tied where that
        function returns an http.Server whose handler serves the parameter (`pending`,
        SERVER: its declaring file's `serves` export, code/imported.py); of a function of
        the file, read here (served_parameters)."""
        found = scope.lookup(_text(name))
        if found is None or len(found[1]) != 1 or self.parameters is not None:
            return None
        home, (value,) = found
        value = _unparenthesized(value)
        if value.type != "call_expression":
            return None
        shape = self.c._called(value)
        local = self.c._local_callee(value)
        if local is not None:
            if local.id not in self.served:
                self.served[local.id] = served_parameters(self.c, local, self.wrappers)
            made = self.served[local.id]
            at = made[1][0] if made is not None and made[0] == SERVER else len(shape.arguments)
            arg = _unparenthesized(shape.arguments[at]) if at < len(shape.arguments) else None
            server = self.server_at(arg, home, 0) if arg and arg.type == "identifier" else None
            return (server, None) if server is not None else None
        key = self.c._call_key(shape, home)
        if key is None or not key.startswith("call "):
            return None
        _, package, member = key.split(" ", 2)
        for at, arg in enumerate(shape.arguments[:MAX_CHOICES]):
            arg = _unparenthesized(arg)
            if arg.type == "identifier" and (server := self.server_at(arg, home, 0)):
                return server, (package, member, at, SERVER)
        return None

    def _http_server(self, literal: Node) -> bool:
        kind: str | None = self.c._type_name(literal.child_by_field_name("type"))
        return kind == "net/http.Server"

    def _stopped(self, call: Node, name: str) -> bool | None:
        """Whether the function that serves the HTTP server `name` calls its `Shutdown` or
        `Close` (a closure of it too); None when the name is handed on (passed, returned,
        stored), and its stop may be anywhere. Read once a function and name (it may
        serve one server thousands of times)."""
        body = self.c._top_level(call).child_by_field_name("body")
        if body is None:
            return None
        key = (body.id, name)
        if key not in self.stopped:
            self.stopped[key] = self._stopped_in(body, name)
        return self.stopped[key]

    def _stopped_in(self, body: Node, name: str) -> bool | None:
        uses = self.c.uses_of(body, name)
        stopped = False
        for use in uses:
            parent = use.parent
            if parent is not None and parent.type == "selector_expression":
                if parent.child_by_field_name("operand") != use:
                    continue  # a field of another value named alike
                method = _text(parent.child_by_field_name("field"))
                stopped |= method in HTTP_STOP_METHODS and go._only_method_called(use)
                continue
            if not _bound_here(use):
                return None
        return stopped

    def _default_mux(self, scope: Any) -> _Tie | None:
        """A server routed to by `http.Handle(pattern, h)`: the DefaultServeMux's, which
        a nil handler serves."""
        for member in _ROUTING:
            for _, within, shape in self.c.calls_to.get(member, [])[:MAX_CHOICES]:
                if self.c._callee_of(shape, within) == f"net/http.{member}":
                    tie = self._routed(shape, within, 0)
                    if tie is not None:
                        return tie
        return None

    def _routed(self, shape: Any, scope: Any, depth: int) -> _Tie | None:
        args = shape.arguments
        return self._handler(args[1], scope, depth + 1) if len(args) == 2 else None

    def _handler(self, node: Node, scope: Any, depth: int) -> _Tie | None:
        """The gRPC server an http.Handler expression serves, with the function of another
        package the tie rests on (None: read here)."""
        if depth > _DEPTH:
            return None
        key = (node.id, id(scope), depth)
        if key not in self.handlers:
            self.handlers[key] = self._handler_read(node, scope, depth)
        return self.handlers[key]

    def _handler_read(self, node: Node, scope: Any, depth: int) -> _Tie | None:
        node = go._unwrap_address(_unparenthesized(node))
        if node.type == "identifier":
            server = self.server_at(node, scope, depth)
            return (server, None) if server is not None else self._named(node, scope, depth)
        if node.type == "selector_expression":  # `s.ServeHTTP` given as a HandlerFunc
            field = _text(node.child_by_field_name("field"))
            operand = node.child_by_field_name("operand")
            if field == "ServeHTTP" and operand is not None and operand.type == "identifier":
                server = self.server_at(operand, scope, depth)
                return (server, None) if server is not None else None
            return None
        if node.type == "func_literal":
            return self._serves_within(node, None)
        if node.type == "call_expression":
            return self._wrapped(node, scope, depth)
        return None

    def _named(self, node: Node, scope: Any, depth: int) -> _Tie | None:
        """A handler bound once to a name: what it is bound to, else a mux given the
        server (`mux.Handle("/", s)`)."""
        found = scope.lookup(_text(node))
        if found is None or len(found[1]) != 1:
            return None
        home, values = found
        tie = self._handler(values[0], home, depth + 1)
        if tie is not None:
            return tie
        for member in _ROUTING:
            for within, shape in self._routes(member).get(_text(node), [])[:MAX_CHOICES]:
                held = within.lookup(shape.receiver)
                if held is not None and held[0] is home:
                    tie = self._routed(shape, within, depth)
                    if tie is not None:
                        return tie
        return None

    def _routes(self, member: str) -> dict[str, list[tuple[Any, Any]]]:
        """The file's `Handle` (or `HandleFunc`) calls on a name, by that name: a mux's
        routes, each mux's read up to MAX_CHOICES however many other muxes route before
        it (a server's `mux.Handle("/", api)` after a dozen `api.Handle(...)`)."""
        if self.c.routes is None:  # the file's, made once (served_parameters asks too)
            self.c.routes = {}
        routes: dict[str, dict[str, list[tuple[Any, Any]]]] = self.c.routes
        if member not in routes:
            found: dict[str, list[tuple[Any, Any]]] = {}
            for _, within, shape in self.c.calls_to.get(member, []):
                if shape.operand_kind == "identifier":
                    found.setdefault(shape.receiver, []).append((within, shape))
            routes[member] = found
        return routes[member]

    def _wrapped(self, call: Node, scope: Any, depth: int) -> _Tie | None:
        """A call that makes a handler of one it is given: net/http's or h2c's
        (`h2c.NewHandler(h, &http2.Server{})`), a wrapper of a gRPC server
        (grpcweb's), a function of the file whose parameter is served
        (`grpcHandler(s, mux)`, its body calling `grpcServer.ServeHTTP(w, r)`), or another
        package's (tied once its parameter is read: `pending`)."""
        shape = self.c._called(call)
        name = self.c._callee_of(shape, scope) or ""
        if name.startswith(_WRAPPING_PACKAGES) or name in self.wrappers:
            for arg in shape.arguments[:MAX_CHOICES]:
                tie = self._handler(arg, scope, depth + 1)
                if tie is not None:
                    return tie
            return None
        local = self.c._local_callee(call)
        if local is not None:
            return self._local_wrapper(local, shape, scope, depth)
        key = self.c._call_key(shape, scope)
        if key is None:
            return None
        _, package, member = key.split(" ", 2)
        for at, arg in enumerate(shape.arguments[:MAX_CHOICES]):
            arg = _unparenthesized(arg)
            if arg.type == "identifier" and (server := self.server_at(arg, scope, depth)):
                return server, (package, member, at, HANDLER)
        return None

    def _local_wrapper(self, function: Node, shape: Any, scope: Any, depth: int) -> _Tie | None:
        """A function of the file given the gRPC server at a parameter that its body
        serves: calls `ServeHTTP` on it, or gives it to a handler wrapper."""
        parameters = function.child_by_field_name("parameters")
        body = function.child_by_field_name("body")
        if parameters is None or body is None:
            return None
        places = go._parameter_places(parameters)
        for parameter, at in places.items():
            if at >= len(shape.arguments):
                continue
            arg = _unparenthesized(shape.arguments[at])
            if arg.type != "identifier":
                continue
            server = self.server_at(arg, scope, depth)
            if server is not None and self._serves_within(body, parameter) is not None:
                return server, None
        return None

    def _serves_within(self, node: Node, parameter: str | None) -> _Tie | None:
        """A `ServeHTTP` call within `node` on the gRPC server (or on its function's
        `parameter`, when one is given)."""
        start, end = node.start_byte, node.end_byte
        for call, within, shape in self.c.calls_to.get("ServeHTTP", [])[:MAX_CHOICES]:
            if not start <= call.start_byte < end or shape.operand_kind != "identifier":
                continue
            if parameter is not None:
                held = within.lookup(shape.receiver)
                if shape.receiver == parameter and held is not None and not held[1]:
                    return parameter, None  # the parameter itself (opaque: no value)
                continue
            server = self.server_at(shape.operand, within, 0)
            if server is not None:
                return server, None
        return None

    def server_at(self, node: Node, scope: Any, depth: int) -> str | None:
        """The gRPC server of the file a name holds: bound once, to `grpc.NewServer(...)`
        under that name, or to a call of a function of the file that returns a server it
        makes (`grpcServer := as.newGRPCServer(ctx)`), or the mux connect-go's handlers
        are registered on (parse_connect.py)."""
        name = _text(node)
        found = scope.lookup(name)
        if self.parameters is not None and found is not None and not found[1]:
            home, places = self.parameters  # the function's own parameter (opaque)
            return name if found[0] is home and name in places else None
        if found is None or len(found[1]) != 1 or depth > _DEPTH:
            return None
        home, values = found
        homes = self.connect.get(name)
        if homes is not None:  # a mux of connect-go's handlers (parse_connect.py)
            return name if id(home) in homes else None
        value = _unparenthesized(values[0])
        if value.type != "call_expression":
            return None
        shape = self.c._called(value)
        made = self.c._callee_of(shape, home)
        if made is not None:
            return name if name in self.servers and made in go.SERVER_FACTORIES else None
        local = self.c._local_callee(value)
        return self._made_by(local, depth) if local is not None else None

    def _made_by(self, function: Node, depth: int) -> str | None:
        """The gRPC server of the file a function of it returns (server_at), its returns
        read once a depth."""
        key = (function.id, depth)
        if key not in self.made:
            body = function.child_by_field_name("body")
            inner = self.c.scope_of.get(body.id) if body is not None else None
            made_names = {
                self.server_at(n, inner, depth + 1) if n.type == "identifier" else None
                for n in (
                    go._returned_names(body) if body is not None and inner is not None else []
                )
            }
            self.made[key] = made_names.pop() if len(made_names) == 1 else None
        return self.made[key]


def served_parameters(
    collector: Any, function: Node, wrappers: frozenset[str]
) -> tuple[str, tuple[int, ...]] | None:
    """What a function of the file makes of a parameter it serves, and that parameter's
    place: SERVER where its first result is an http.Server (`*http.Server`) and each
    return of one is a literal whose Handler serves the parameter as it would a gRPC
    server (`&http.Server{Handler: grpcHandlerFunc(grpcServer, mux)}`, a function of the
    file calling `ServeHTTP` on it for `application/grpc`); HANDLER where its first result
    is an http.Handler that each return serves so. None otherwise; `nil` returns (an
    error's) left out. The files that hand such a function a gRPC server serve it so
    (code/imported.py)."""
    made = _MADE.get(collector._type_name(_first_result(function)) or "")
    parameters = function.child_by_field_name("parameters")
    body = function.child_by_field_name("body")
    scope = collector.scope_of.get(body.id) if body is not None else None
    if made is None or parameters is None or scope is None:
        return None
    places = go._parameter_places(parameters)
    if not places:
        return None
    reader = HttpServes(collector, {}, wrappers, parameters=(scope, places))
    tied: set[str] = set()
    for value, within in collector._returned_values(function)[:MAX_CHOICES]:
        value = _unparenthesized(value)
        if value.type == "nil":
            continue
        handler: Node | None = value
        if made == SERVER:
            literal = go._literal_of(value, within)
            if literal is None or not reader._http_server(literal):
                return None
            keyed = map(go._keyed, go._keyed_elements(literal))
            handler = next((v for key, v in keyed if _text(key) == "Handler"), None)
        tie = reader._handler(handler, within, 0) if handler is not None else None
        if tie is None or tie[1] is not None:
            return None
        tied.add(tie[0])
    return (made, (places[tied.pop()],)) if len(tied) == 1 else None


def _first_result(function: Node) -> Node | None:
    """The type of a function's first result, a pointer's element (`*http.Server`)."""
    result = function.child_by_field_name("result")
    if result is not None and result.type == "parameter_list":
        first = result.named_children[0] if result.named_children else None
        result = first.child_by_field_name("type") if first is not None else None
    if result is not None and result.type == "pointer_type" and result.named_children:
        result = result.named_children[0]
    return result


def _unparenthesized(node: Node) -> Node:
    for _ in range(_DEPTH):
        if node.type != "parenthesized_expression" or node.named_child_count != 1:
            break
        node = node.named_children[0]
    return node


def _bound_here(use: Node) -> bool:
    """Whether a use of a name is where it is declared or assigned (`srv := ...`)."""
    parent = use.parent
    if parent is not None and parent.type == "var_spec":
        return use in parent.children_by_field_name("name")
    holder = parent.parent if parent is not None and parent.type == "expression_list" else None
    if holder is None or holder.type not in ("short_var_declaration", "assignment_statement"):
        return False
    return holder.child_by_field_name("left") == parent
