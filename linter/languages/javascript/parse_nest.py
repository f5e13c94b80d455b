"""NestJS's gRPC transport, read as the @grpc/grpc-js servers and clients it makes (the
same facts as `new grpc.Server(...)` and a grpc-js client: parse.py).

`@nestjs/microservices` builds them from an object `{transport: Transport.GRPC, options}`:

- a server where the object is given to `NestFactory.createMicroservice(Module, object)`
  or `app.connectMicroservice(object)`: NestJS's ServerGrpc makes
  `new grpc.Server(options.channelOptions)` (only those options: no others reach the
  server) and binds it to `options.url` (`localhost:5000` when not given) with
  `bindAsync` when the application starts (`listen()`, `startAllMicroservices()`); from
  then on the event loop keeps it serving. It stops it on the application's `close()`,
  which a SIGTERM reaches only through `app.enableShutdownHooks()` (read by parse.py);
- a client where the object is registered with `ClientsModule.register([...])` (or
  `registerAsync([{useFactory: () => ({...})}])`), made by `ClientProxyFactory.create(...)`
  or by the `@Client(...)` decorator: NestJS's ClientGrpcProxy makes one grpc-js client per
  service, `new Client(options.url, credentials, {...channelOptions, ...keepalive})`, and
  keeps it in the provider for the application's life.

The object may be what a function of another module of the scanned code returns
(`createMicroservice(AppModule, grpcOptions('orders'))`, the function imported by a relative
path or an alias a tsconfig.json's `paths` maps): that module exports the functions that
return a gRPC transport object (`nest grpc <function>`), and imported.py makes the server
where the call's module imports one of them; its address and channel options are then
left unknown.

`options.url` is a value as parse.py reads them, or a setting of `@nestjs/config`'s
`ConfigService` (`config.get('X_URL', default)`, `getOrThrow('X_URL')`,
`app.get(ConfigService).get(...)`): its values are the process's environment unless the
application loads others, so a key written as an environment variable's name is read as
that variable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from k8slb.code.facts import (
    GRPC_TRANSPORT,
    NO_OPTIONS,
    OPTION_HELPER,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    EnvRef,
    Imported,
    Listen,
    Option,
    Options,
    Server,
    Stop,
    Wait,
)
from k8slb.code.syntax_trees import call_arguments
from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex
from k8slb.languages.javascript.parse_env_helpers import top_level_functions
from k8slb.languages.javascript.parse_reading import Reading, object_members

if TYPE_CHECKING:
    from tree_sitter import Node

MICROSERVICES = "@nestjs/microservices"
CONFIG = "@nestjs/config"
# ServerGrpc's and ClientGrpcProxy's address when `options.url` is not given
DEFAULT_URL = "localhost:5000"
# The calls that run a transport object as a server, and the argument that holds it.
SERVER_CALLS = {"createMicroservice": 1, "connectMicroservice": 0}
# The calls that make clients of transport objects (a list of them for ClientsModule's).
CLIENT_CALLS = (
    "ClientsModule.register",
    "ClientsModule.registerAsync",
    "ClientProxyFactory.create",
)
CLIENT_DECORATOR = "Client"
# How a NestJS gRPC server is waited on: NestJS binds it when the application starts, and
# the event loop keeps it serving.
NEST_WAIT = "NestJS's gRPC transport (bound when the application starts)"
# How NestJS stops a gRPC transport when the application closes (on SIGTERM through
# `enableShutdownHooks()`, or the code's own `app.close()`): ServerGrpc.close() calls
# forceShutdown() unless the transport's options set `gracefulShutdown: true` (NestJS 10's
# option; before it, always).
NEST_CLOSE = "closing the NestJS application (its gRPC transport's forceShutdown())"
_CLOSERS = ("enableShutdownHooks", "close")
# ClientGrpcProxy's names for grpc-js's keepalive options.
KEEPALIVE = {
    "keepaliveTimeMs": "grpc.keepalive_time_ms",
    "keepaliveTimeoutMs": "grpc.keepalive_timeout_ms",
    "keepalivePermitWithoutCalls": "grpc.keepalive_permit_without_calls",
    "http2MaxPingsWithoutData": "grpc.http2.max_pings_without_data",
    "http2MinTimeBetweenPingsMs": "grpc.http2.min_time_between_pings_ms",
    "http2MinPingIntervalWithoutDataMs": "grpc.http2.min_ping_interval_without_data_ms",
    "http2MaxPingStrikes": "grpc.http2.max_ping_strikes",
}
_CONFIG_READS = ("get", "getOrThrow")
_ENVIRONMENT_NAME = regex.compile(r"[A-Z_][A-Z0-9_]*")


def is_nest_server(server: Server) -> bool:
    """Whether NestJS's gRPC transport makes the server (its advice differs: parse.py's
    `new grpc.Server` is the code's own)."""
    return server.factory.rsplit(".", 1)[-1] in SERVER_CALLS


def read_nest(module: Reading) -> None:
    """The gRPC servers and clients NestJS makes in a module that imports its `Transport`
    (or that hands a transport object another module's function returns to NestJS)."""
    _servers_of_imported_options(module)
    if (MICROSERVICES, "Transport") not in module.members.values():
        return
    _export_option_helpers(module)
    closed: set[str] = set()  # the applications the module closes, or has closed on SIGTERM
    for call in module.of("call_expression"):
        function = call.child_by_field_name("function")
        if (
            function is not None
            and function.type == "member_expression"
            and _text(function.child_by_field_name("property")) in _CLOSERS
        ):
            closed.add(_text(function.child_by_field_name("object")))
    for call in module.of("call_expression"):
        function = call.child_by_field_name("function")
        called = _text(function)
        given = call_arguments(call)
        method = called.rsplit(".", 1)[-1]
        if method in SERVER_CALLS and len(given) > SERVER_CALLS[method]:
            transport = _grpc_transport(module, given[SERVER_CALLS[method]])
            if transport is not None:
                _server(module, call, called, transport, closed)
        elif called in CLIENT_CALLS or (
            called == CLIENT_DECORATOR
            and call.parent is not None
            and call.parent.type == "decorator"
        ):
            for made in _registered(module, given):
                transport = _grpc_transport(module, made)
                if transport is not None:
                    _client(module, call, called, transport)


def config_value(module: Reading, node: Node, depth: int) -> Any:
    """`config.get('X_URL', default)`, `getOrThrow('X_URL')` of a ConfigService (a name
    that says config, or `app.get(ConfigService)`): the environment variable the key names,
    or None when the call is not one."""
    if (CONFIG, "ConfigService") not in module.members.values():
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "member_expression":
        return None
    if _text(function.child_by_field_name("property")) not in _CONFIG_READS:
        return None
    receiver = module.unwrapped(function.child_by_field_name("object"))
    if receiver is None or not _is_config_service(receiver):
        return None
    given = call_arguments(node)
    key = module.value(given[0], depth + 1) if given else None
    if not isinstance(key, str) or _ENVIRONMENT_NAME.fullmatch(key) is None:
        return None
    default = module.value(given[1], depth + 1) if len(given) > 1 else None
    return EnvRef(key, default if isinstance(default, str) else None)


def _is_config_service(receiver: Node) -> bool:
    if receiver.type == "call_expression":  # `app.get(ConfigService)`
        given = call_arguments(receiver)
        called = _text(receiver.child_by_field_name("function"))
        return called.endswith(".get") and [_text(g) for g in given] == ["ConfigService"]
    return receiver.type in ("identifier", "member_expression") and _text(
        receiver
    ).lower().endswith(("config", "configservice"))


def _object(module: Reading, node: Node | None) -> Node | None:
    """An object literal, in place or a module const."""
    node = module.unwrapped(node)
    if node is not None and node.type == "identifier":
        node = module.objects.get(_text(node))
    return node if node is not None and node.type == "object" else None


def _grpc_transport(module: Reading, node: Node | None) -> Node | None:
    """The object literal of a transport that is `Transport.GRPC` (Transport imported from
    NestJS), or None."""
    literal = _object(module, node)
    if literal is None:
        return None
    transport = module.unwrapped(object_members(module, literal).get("transport"))
    if transport is None or transport.type != "member_expression":
        return None
    owner = _text(transport.child_by_field_name("object"))
    grpc = _text(transport.child_by_field_name("property")) == "GRPC"
    return literal if grpc and module.members.get(owner) == (MICROSERVICES, "Transport") else None


def _registered(module: Reading, given: list[Node]) -> list[Node]:
    """The transport objects a client call registers: its argument, each item of a list
    (also under `clients:`), and what a `useFactory` returns."""
    found: list[Node] = []
    for argument in given[:1]:
        node = module.unwrapped(argument)
        if node is not None and node.type == "object":  # `register({clients: [...]})`
            node = module.unwrapped(object_members(module, node).get("clients")) or node
        items = node.named_children if node is not None and node.type == "array" else [argument]
        for item in items:
            literal = _object(module, item)
            factory = (
                object_members(module, literal).get("useFactory") if literal is not None else None
            )
            if factory is None:
                found.append(item)
            elif (made := _returned(module, factory)) is not None:
                found.append(made)
    return found


def _returned(module: Reading, function: Node) -> Node | None:
    """The object a factory function returns: its expression body, or its last `return`."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        return body
    returns = [child for child in body.named_children if child.type == "return_statement"]
    return returns[-1].named_children[0] if returns and returns[-1].named_children else None


def _transport_options(module: Reading, transport: Node) -> dict[str, Node] | None:
    """The members of a transport's `options` object: none when it gives none, None when
    they cannot all be known (not a literal, or a spread `...shared` in it)."""
    given = object_members(module, transport).get("options")
    if given is None:
        return {}
    literal = _object(module, given)
    if literal is None or any(c.type == "spread_element" for c in literal.named_children):
        return None
    return object_members(module, literal)


def _address(module: Reading, options: dict[str, Node] | None) -> tuple[Any, Node | None]:
    """`options.url` as far as it is followed (NestJS's default when not given), and where."""
    if options is None:
        return UNKNOWN, None
    url = options.get("url")
    return (module.value(url) if url is not None else DEFAULT_URL), url


def _channel_options(module: Reading, options: dict[str, Node] | None) -> Options:
    """`options.channelOptions`: what grpc-js is given (none when not written)."""
    if options is None:
        return UNKNOWN_OPTIONS
    given = options.get("channelOptions")
    return module.options(given) if given is not None else NO_OPTIONS


def _server(module: Reading, call: Node, called: str, transport: Node, closed: set[str]) -> None:
    """A server NestJS makes, binds and serves: made, started and waited on at the call;
    stopped with no grace where the module closes its application (NEST_CLOSE)."""
    options = _transport_options(module, transport)
    holder = call.parent
    if holder is not None and holder.type == "await_expression":
        holder = holder.parent
    function = call.child_by_field_name("function")
    if called.endswith("createMicroservice"):
        name = _declared(holder) or "app"
    else:  # `app.connectMicroservice(...)`: the application's
        name = _text(function.child_by_field_name("object")) if function is not None else "app"
    channel_options = _channel_options(module, options)
    facts = module.facts
    facts.servers.append(Server(module.loc(call), called, channel_options, name))
    facts.starts.add(name)
    address, at = _address(module, options)
    facts.listens.append(Listen(name, address, module.loc(at if at is not None else call)))
    facts.waits.append(Wait(module.loc(call), name, NEST_WAIT))
    graceful = module.unwrapped(options.get("gracefulShutdown")) if options is not None else None
    if name in closed and options is not None and (graceful is None or graceful.type != "true"):
        facts.stops.append(Stop(module.loc(call), name, 0, False, NEST_CLOSE))


def _declared(holder: Node | None) -> str | None:
    if holder is None or holder.type != "variable_declarator":
        return None
    named = holder.child_by_field_name("name")
    return _text(named) if named is not None and named.type == "identifier" else None


def _client(module: Reading, call: Node, called: str, transport: Node) -> None:
    """A grpc-js client NestJS makes for the application's life, to `options.url`, with
    `channelOptions` and the keepalive settings as its options."""
    options = _transport_options(module, transport)
    channel_options = _channel_options(module, options)
    keepalive = _object(module, options.get("keepalive")) if options is not None else None
    if keepalive is not None:
        mapped = _keepalive(module, keepalive)
        channel_options = Options(
            channel_options.complete and mapped.complete,
            channel_options.entries + mapped.entries,
            channel_options.literal,
            channel_options.given,
        )
    address, at = _address(module, options)
    module.facts.channels.append(
        Channel(module.loc(at if at is not None else call), called, address, channel_options, True)
    )


def _keepalive(module: Reading, literal: Node) -> Options:
    """`keepalive: {keepaliveTimeMs: 10_000}` as the grpc-js options NestJS makes of it."""
    read = module.options(literal)
    entries = tuple(
        Option(KEEPALIVE[entry.key], entry.value, entry.loc)
        for entry in read.entries
        if entry.key in KEEPALIVE
    )
    return Options(read.complete, entries)


def _export_option_helpers(module: Reading) -> None:
    """Each function of the module's top level that returns a gRPC transport object,
    exported as `nest grpc <function>`: for the modules that give what it returns to
    NestJS (`_servers_of_imported_options`)."""
    for name, function in top_level_functions(module.root).items():
        made = _returned(module, function)
        if made is not None and _grpc_transport(module, made) is not None:
            module.facts.exports[f"{OPTION_HELPER} {name}"] = GRPC_TRANSPORT


def _servers_of_imported_options(module: Reading) -> None:
    """`NestFactory.createMicroservice(AppModule, grpcOptions(...))` (or
    `app.connectMicroservice(...)`) given what a function another module exports returns
    (`import {grpcOptions} from './options'`, or a namespace's `options.grpc(...)`): a
    server made, started and waited on at the call if that function returns a gRPC
    transport object (facts.Server.made_by, resolved in imported.py), its options unknown."""
    for call in module.of("call_expression"):
        function = call.child_by_field_name("function")
        called = _text(function)
        method = called.rsplit(".", 1)[-1]
        given = call_arguments(call)
        if method not in SERVER_CALLS or len(given) <= SERVER_CALLS[method]:
            continue
        made = module.unwrapped(given[SERVER_CALLS[method]])
        helper = made.child_by_field_name("function") if made is not None else None
        if made is None or made.type != "call_expression" or helper is None:
            continue
        source, member = module.imported_function(helper)
        if not source or source.startswith(("@nestjs/", "node:")):
            continue
        holder = call.parent
        if holder is not None and holder.type == "await_expression":
            holder = holder.parent
        if method == "createMicroservice":
            name = _declared(holder) or "app"
        else:  # `app.connectMicroservice(...)`: the application's
            name = _text(function.child_by_field_name("object")) if function is not None else "app"
        origin = Imported(0, source, f"{OPTION_HELPER} {member}", by_path=True)
        facts = module.facts
        at = module.loc(call)
        facts.servers.append(Server(at, called, UNKNOWN_OPTIONS, name, made_by=origin))
        facts.starts.add(name)
        facts.listens.append(Listen(name, UNKNOWN, at))
        facts.waits.append(Wait(at, name, NEST_WAIT))
        facts.deferred = True
