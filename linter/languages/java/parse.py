"""Java source -> `CodeFacts`, with tree-sitter's Java grammar (no JDK needed): the gRPC
servers and channels a file builds with grpc-java's builders, how its servers are waited
on and stopped, its shutdown hooks and its health service.

A builder is followed from its factory (`ServerBuilder.forPort(port)`,
`Grpc.newChannelBuilder(target, creds)`...) along its chain of calls, and through the local
variable or field that holds it, up to `.build()`; its duration settings
(`.maxConnectionAge(5, TimeUnit.MINUTES)`) become gRPC's core option names in
milliseconds, so the rules read one vocabulary. A builder handed to a method k8slb cannot
see has options it does not know: `complete` is False. Values are followed through string
and integer literals, concatenation, `String.format`, the file's `static final` constants,
locals bound once, and the environment (`System.getenv("X")`, with a default from
`getOrDefault`, `Optional.ofNullable(...).orElse(...)` or `x != null ? x : "d"`).

Only files that name `io.grpc` are parsed; those under `target/` or `build/` (build
output), generated code (`@Generated`, `@GrpcGenerated`, protoc's header) and tests are
not reported. `InProcessServerBuilder` and `InProcessChannelBuilder` make no network
server or channel and are left out.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_DEPTH, Budget
from k8slb.code.facts import (
    UNKNOWN,
    BalancedUrl,
    BoundProperty,
    Channel,
    CodeFacts,
    Constructed,
    EnvRef,
    HealthServicer,
    Helper,
    HttpClient,
    Joined,
    Listen,
    Loc,
    Option,
    Options,
    Registration,
    Route,
    Server,
    Setting,
    Stop,
    Unknown,
    Wait,
    carried_url,
    joined,
    listen_head,
)
from k8slb.code.syntax_trees import (
    Calls,
    call_arguments,
    captured,
    graded,
    parse_too_long,
    parsed,
    syntax_problem,
    too_deep,
    walk,
)
from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex
from k8slb.languages.java.parse_balanced import (
    annotated_with,
    calls_given,
    chain_root,
    client_beans,
    client_type,
    injected_client,
)
from k8slb.languages.java.parse_quarkus import quarkus_channels
from k8slb.languages.java.parse_routes import collect_routes, declares_routes
from k8slb.languages.java.parse_shutdown import Placed, signal_pauses
from k8slb.languages.java.parse_spring import (
    QUARKUS,
    environment_name,
    injected,
    normalised,
    starter_channels,
)
from k8slb.reading.markers import comment_markers, comment_pattern

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# A file is read when it names grpc-java or an HTTP client that pools connections, or
# Spring injects a value it may hand a constructor (`new TokenClient(url)`, facts.Constructed):
# a `@Value`, or a `@Bean` method's parameter (`props.getHost()` of a bound properties class).
WATCHED = (
    b"io.grpc",
    b"ManagedChannelBuilder",  # a wrapper's, in its own package (Sleuth's SpringAware...)
    b"HttpClient",
    b"OkHttpClient",
    b"HttpClients",
    b"@Value",
    b"@Bean",
    # a SIGTERM handler of the project, in a file that names nothing else read here (a
    # base class of its mains that registers the JVM's shutdown hook)
    b"addShutdownHook",
)
# HTTP clients kept for the process pool their connections and never end a busy one; a
# time to live given to the pool (Apache's) bounds them.
HTTP_CLIENTS = {
    ("HttpClient", "newHttpClient"): "java.net.http.HttpClient",
    ("HttpClient", "newBuilder"): "java.net.http.HttpClient",
    ("HttpClients", "createDefault"): "Apache HttpClients",
    ("HttpClients", "createSystem"): "Apache HttpClients",
    ("HttpClients", "custom"): "Apache HttpClients",
    ("HttpClientBuilder", "create"): "Apache HttpClients",
}
_TIME_TO_LIVE = ("setConnectionTimeToLive", "setTimeToLive", "connectionTimeToLive")
# Folders of build output: classes and sources a build wrote, not the project's own.
BUILD_OUTPUT = frozenset({"target", "build"})
# Where a source set's packages begin (`src/main/java/`, `src/test/kotlin/`): a folder below
# it is a package's (`build.buildfarm` lives in `src/main/java/build/buildfarm/`).
_SOURCE_ROOTS = frozenset({"java", "kotlin"})


def is_build_output(path: str) -> bool:
    """Whether a file lies in a folder of build output: one named so above its source
    set's packages (all of its folders when it is in no `src/<set>/java`)."""
    folders = path.split("/")[:-1]
    for at in range(2, len(folders)):
        if folders[at] in _SOURCE_ROOTS and folders[at - 2] == "src":
            folders = folders[: at - 2]
            break
    return not BUILD_OUTPUT.isdisjoint(folders)


_GENERATED = regex.compile(
    rb"@(?:javax\.annotation\.(?:processing\.)?|io\.grpc\.stub\.annotations\.)?"
    rb"(?:Grpc)?Generated\b|Generated by the protocol buffer compiler"
)
# A program's entry point: a `main` method (`public static void main(String[] args)`), or
# the class a framework starts the application from (Spring Boot's, Quarkus's `@QuarkusMain`).
# The package of such a file is the application's; its other packages (a Redis client, a
# Kafka listener) are parts of it, named for what they talk to.
_ENTRY_POINT = regex.compile(
    rb"\bstatic\s+(?:(?:public|final|synchronized|strictfp)\s+)*void\s+main\s*\("
    rb"|@SpringBootApplication\b|@QuarkusMain\b"
)

# (builder class, factory method) -> what its arguments are: the port, or host and port
SERVER_FACTORIES = {
    ("ServerBuilder", "forPort"): "port",
    ("NettyServerBuilder", "forPort"): "port",
    ("NettyServerBuilder", "forAddress"): "address",
    ("OkHttpServerBuilder", "forPort"): "port",
    ("Grpc", "newServerBuilderForPort"): "port",
}
CHANNEL_FACTORIES = {
    ("ManagedChannelBuilder", "forTarget"): "target",
    ("ManagedChannelBuilder", "forAddress"): "host-port",
    ("NettyChannelBuilder", "forTarget"): "target",
    ("NettyChannelBuilder", "forAddress"): "host-port",
    ("OkHttpChannelBuilder", "forTarget"): "target",
    ("OkHttpChannelBuilder", "forAddress"): "host-port",
    ("Grpc", "newChannelBuilder"): "target",
    ("Grpc", "newChannelBuilderForAddress"): "host-port",
}
# A builder of another class whose name says it is one (a tracing library's
# `SpringAwareManagedChannelBuilder`, a bean injected into a field): its factory methods
# take what grpc-java's do.
WRAPPED_BUILDER = "ManagedChannelBuilder"
WRAPPED_FACTORIES = {"forTarget": "target", "forAddress": "host-port"}
# The methods whose calls `run` reads by their receiver (the rest are skipped unread)
_READ_METHODS = frozenset(
    {method for _, method in [*HTTP_CLIENTS, *SERVER_FACTORIES, *CHANNEL_FACTORIES]}
    | {"addShutdownHook", "handle", "enterTerminalState", "clearStatus", "create"}
)
# The builders' duration settings -> gRPC's core option names (milliseconds).
DURATION_OPTIONS = {
    "maxConnectionAge": "grpc.max_connection_age_ms",
    "maxConnectionAgeGrace": "grpc.max_connection_age_grace_ms",
    "maxConnectionIdle": "grpc.max_connection_idle_ms",
    "keepAliveTime": "grpc.keepalive_time_ms",
    "keepAliveTimeout": "grpc.keepalive_timeout_ms",
    "permitKeepAliveTime": "grpc.http2.min_ping_interval_without_data_ms",
    "idleTimeout": "grpc.client_idle_timeout_ms",
}
# java.util.concurrent.TimeUnit, in milliseconds
TIME_UNITS = {
    "NANOSECONDS": 1e-6,
    "MICROSECONDS": 1e-3,
    "MILLISECONDS": 1,
    "SECONDS": 1000,
    "MINUTES": 60_000,
    "HOURS": 3_600_000,
    "DAYS": 86_400_000,
}
INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
# What grpc-java reads as "never": Long.MAX_VALUE of any unit (and the builders' constants).
_INFINITE = ("Long.MAX_VALUE", "MAX_CONNECTION_AGE_INFINITE", "MAX_CONNECTION_IDLE_NANOS_DISABLED")
_SCOPES = ("method_declaration", "constructor_declaration", "lambda_expression")
# The query's captures of what binds a name in a body (_Reader._scope_bindings), and of
# where a body's own nodes end (a lambda's, a class's or a method's are not its)
_OWN_BINDINGS = ("declarator", "catch", "for", "assignment")
_OWN_ENDS = ("method", "constructor", "lambda", "class_body")
# methods of the file a builder is followed into, one within another (_Reader._handed)
_HANDED_DEPTH = 3
_SERVER_METHODS = frozenset({"start", "awaitTermination", "shutdown", "shutdownNow"})
_CLASSES = ("class_declaration", "interface_declaration", "enum_declaration")


# Spring beans that set the options of the servers the starters build, in code.
SERVER_CONFIGURERS = (b"GrpcServerConfigurer", b"ServerBuilderCustomizer")
# Spring Cloud's discovery annotations: the application registers itself in the registry
# whose client is on its classpath (Eureka, Consul, ZooKeeper, Nacos), unless told not to.
_DISCOVERY = regex.compile(
    rb"^[ \t]*@(?:org\.springframework\.cloud\.[\w.]+\.)?"
    rb"(EnableDiscoveryClient|EnableEurekaClient)\b(\([^)]*\))?",
    regex.MULTILINE,
)
_NO_AUTO_REGISTER = regex.compile(rb"autoRegister\s*=\s*false")
# The gRPC service annotations of the frameworks that build the server themselves (the
# Spring Boot starters, Quarkus's extension), by the package the annotation is imported
# from (two have a `@GrpcService` each): the starter, as parse_spring names it.
STARTER_ANNOTATIONS = {
    b"net.devh.boot.grpc.server.service": (b"GrpcService", "grpc-spring-boot-starter"),
    b"org.lognet.springboot.grpc": (b"GRpcService", "LogNet"),
    b"io.quarkus.grpc": (b"GrpcService", QUARKUS),
}
_ANNOTATIONS = ("annotation", "marker_annotation")
_SERVICE_ANNOTATION = regex.compile(
    rb"^[ \t]*@(?:[\w.]+\.)?(GrpcService|GRpcService)\b", regex.MULTILINE
)


# What a file's reading looks at, found by tree-sitter's query engine: fields (constants
# first, then what uses them), classes, object creations, calls, method declarations and
# lambdas (a shutdown hook's), what binds a method's names and declares their types (read
# where a value is looked up: _Reader._scope_bindings, _declared_type), the string
# literals where one may be a URL and `NOT_SERVING` (`ServingStatus.NOT_SERVING`, or
# imported statically) where it is written: each identifier checked against it, and each
# string made a node, cost a third of the query (_read_query).
_READ = """
(field_declaration) @field
(constant_declaration) @field
(class_declaration) @class
(object_creation_expression) @creation
(method_invocation) @call
(method_declaration) @method
(lambda_expression) @lambda
(class_body) @class_body
(constructor_declaration) @constructor
(variable_declarator) @declarator
(catch_formal_parameter) @catch
(enhanced_for_statement) @for
(assignment_expression) @assignment
(formal_parameter) @declaration
(local_variable_declaration) @declaration
"""
_URL_STRINGS = "(string_literal) @string"
_NOT_SERVING = '((identifier) @not_serving (#eq? @not_serving "NOT_SERVING"))'
# a server factory as a method reference (`NettyServerBuilder::forAddress`), captured in a
# file that writes one (_Reader._factory_reference)
_REFERENCES = "(method_reference) @reference"
_FACTORY_REFERENCE = regex.compile(
    rb"::\s*(?:" + b"|".join(sorted({method.encode() for _, method in SERVER_FACTORIES})) + rb")\b"
)
# the builder methods whose arguments `_options` reads: a method reference to one of them
# (`builder::maxConnectionAge`) sets it to what k8slb cannot see
_OPTION_SETTERS = frozenset(
    {*DURATION_OPTIONS, "permitKeepAliveWithoutCalls", "defaultLoadBalancingPolicy"}
    | {"defaultServiceConfig", "build"}
)


@cache
def _read_query(strings: bool, drains: bool, references: bool = False) -> str:
    return "\n".join(
        [_READ, *[_URL_STRINGS] * strings, *[_NOT_SERVING] * drains, *[_REFERENCES] * references]
    )


def _may_hold_a_url(data: bytes) -> bool:
    """Whether a string literal of the file may start with `http://` or `https://` (any
    case): those bytes are in it (an escape makes no letter, `:` or `/` that `_string`
    reads, and no letter but H, T, P and S lowers to h, t, p or s)."""
    lowered = data.lower()
    return b"http://" in lowered or b"https://" in lowered


def entry_point_package(facts: CodeFacts, data: bytes, entry: regex.Pattern[bytes]) -> str:
    """`main` for a file, not a test's, that declares the program's entry point (`entry`:
    the language's own), as a Go file of a program says `package main`: which package
    of a module's code is the application's (model/links.py); "" otherwise."""
    return "main" if not facts.is_test and entry.search(data) is not None else ""


def worth_parsing(data: bytes) -> bool:
    return any(word in data for word in WATCHED)


def is_generated(data: bytes) -> bool:
    # each of the pattern's branches says `Generated`: looked for first (RE2's binding
    # copies the whole text)
    return b"Generated" in data and _GENERATED.search(data) is not None


def is_test(path: str) -> bool:
    """Maven's and Gradle's test sources (`src/test/java`), and JUnit's naming."""
    *folders, name = path.split("/")  # paths are spelled as PurePath spells them
    return "test" in folders or name.endswith(("Test.java", "Tests.java", "IT.java"))


# grpc-java's Server methods that begin its stop (a drain `awaitTermination()` then waits for)
SERVER_STOPS = ("shutdown", "shutdownNow")


def stop_begun(ends: Calls, name: str, scope: Node, call: Node) -> bool:
    """Whether `scope` calls `name.shutdown()` (or `shutdownNow()`) before `call`: the
    stop an `awaitTermination()` there waits for (Java's and Kotlin's readers alike)."""
    return any(
        ends.within(f"{name}.{stop}", scope, before=call.start_byte) for stop in SERVER_STOPS
    )


@cache
def parser() -> Parser:
    import tree_sitter_java
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_java.language()))


def parse(path: str, data: bytes) -> CodeFacts:
    """The facts of one Java file; a file that names grpc-java and does not parse gives a
    KLB004 problem."""
    facts = CodeFacts(path, "java", is_test=is_test(path))
    facts.package = entry_point_package(facts, data, _ENTRY_POINT)
    facts.configures_servers = any(word in data for word in SERVER_CONFIGURERS)
    if b"@Enable" in data:
        facts.registrations = _discovery_registrations(path, data)
    built = is_build_output(path)  # target/, build/: copies
    if b"pcService" in data and not (facts.is_test or built):
        facts.starter_services = _starter_services(path, data)
    if b"GrpcClient" in data and not (facts.is_test or built or is_generated(data)):
        # framework-made: not a builder's
        facts.channels = quarkus_channels(path, data) + starter_channels(path, data)
        facts.deferred = bool(facts.channels)
    root: Node | None = None  # parsed once, for the properties and the reading alike
    tried = False
    if b"@ConfigurationProperties" in data and not (facts.is_test or built):
        root, tried = parsed(parser(), data), True
        if root is not None and too_deep(path, root, "Java") is None:
            facts.exports = _bound_properties(path, root)
    # a controller's routes: what an HTTP probe reaches (most controllers name nothing else)
    routed = declares_routes(data) and not (facts.is_test or built or is_generated(data))
    if built or not worth_parsing(data) or is_generated(data):
        if routed:
            root = root if tried else parsed(parser(), data)
            if root is not None and too_deep(path, root, "Java") is None:
                facts.routes = _routes(path, root)
        return facts
    if not tried:
        root = parsed(parser(), data)
    if root is None:
        facts.problem = parse_too_long(path, "Java")
        return facts
    problem = graded(syntax_problem(path, root, "Java"), root, data, "Java")
    facts.problem = problem or too_deep(path, root, "Java")
    if facts.problem is not None:
        return facts
    _Reader(path, facts).run(root, data)
    if routed:
        facts.routes = _routes(path, root)
    facts.markers = comment_markers(path, data.decode("utf-8", "replace"), comment_pattern("//"))
    return facts


def _routes(path: str, root: Node) -> list[Route]:
    return collect_routes(root, lambda node: _loc(path, node))


def _bound_properties(path: str, root: Node) -> dict[str, Any]:
    """What Spring binds to each property of the file's `@ConfigurationProperties("prefix")`
    classes and records (by `Class.property`): the `Setting` of `prefix.property`, the
    field's literal initialiser as its default (imported.py resolves it for the code
    that reads the property through a getter)."""
    found: dict[str, Any] = {}
    kinds = captured(parser(), root, "[(class_declaration) (record_declaration)] @class")
    classes = {_text(n.child_by_field_name("name")): n for n in kinds.get("class", [])}
    for name, node in classes.items():
        prefix = _properties_prefix(node)
        if prefix is None or not name:
            continue
        # the class's properties, and those of the file's classes they hold (Spring binds
        # `prefix.ports.grpc` to `getPorts().getGrpc()`), a few levels down
        todo = [(name, prefix, node, 0)]
        while todo:
            path, key_prefix, declared, depth = todo.pop()
            for prop, value, kind in _properties(declared):
                key = f"{key_prefix}.{prop}"
                found[f"{path}.{prop}"] = Setting(
                    "spring", normalised(key), environment_name(key), _literal_text(value)
                )
                held = classes.get(kind or "")
                if held is not None and held is not declared and depth < _NESTED:
                    todo.append((f"{path}.{prop}", key, held, depth + 1))
    return found


_NESTED = 3  # how deep the objects a properties class holds are followed


def _properties(declaration: Node) -> list[tuple[str, Node | None, str | None]]:
    """A class's or record's properties: each field (not static) or record component, with
    its initialiser and the simple name of its type."""
    properties: list[tuple[str, Node | None, str | None]] = []
    if declaration.type == "record_declaration":
        parameters = declaration.child_by_field_name("parameters")
        for parameter in parameters.named_children if parameters is not None else ():
            if parameter.type == "formal_parameter":
                kind = _type_name(parameter.child_by_field_name("type"))
                properties.append((_text(parameter.child_by_field_name("name")), None, kind))
    body = declaration.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        if (
            member.type != "field_declaration"
            or "static" in _text(member.child_by_field_name("modifiers") or member).split()
        ):
            continue
        kind = _type_name(member.child_by_field_name("type"))
        for declarator in member.children_by_field_name("declarator"):
            value = declarator.child_by_field_name("value")
            properties.append((_text(declarator.child_by_field_name("name")), value, kind))
    return properties


def _type_name(node: Node | None) -> str | None:
    """`BackendProperties` for `BackendProperties`, `com.acme.BackendProperties` or a
    generic's `Holder<...>`."""
    if node is None:
        return None
    if node.type == "generic_type" and node.named_children:
        node = node.named_children[0]
    return _simple(_text(node)) or None


def _literal_text(value: Node | None) -> str | None:
    """A field's initialiser as the text a setting would hold: a string or an integer."""
    if value is None:
        return None
    if value.type == "string_literal":
        text = _string(value)
        return text if isinstance(text, str) else None
    return _text(value) if value.type == "decimal_integer_literal" else None


def _properties_prefix(declaration: Node) -> str | None:
    """The prefix of a `@ConfigurationProperties("backend")` (or `prefix =`, `value =`)."""
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for annotation in modifiers.named_children if modifiers is not None else ():
        named = annotation.child_by_field_name("name")
        if annotation.type != "annotation" or _simple(_text(named)) != "ConfigurationProperties":
            continue
        arguments = annotation.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments is not None else ():
            given: Node | None = argument
            if argument.type == "element_value_pair":
                named_key = _text(argument.child_by_field_name("key"))
                given = argument.child_by_field_name("value") if named_key in _PREFIXES else None
            text = _string(given) if given is not None and given.type == "string_literal" else None
            if isinstance(text, str):
                return text
    return None


_PREFIXES = ("prefix", "value")  # the attributes of @ConfigurationProperties that name it


def _discovery_registrations(path: str, data: bytes) -> list[Registration]:
    """A Spring Cloud application that registers itself in its discovery registry."""
    found = []
    for match in _DISCOVERY.finditer(data):
        if _NO_AUTO_REGISTER.search(match.group(2) or b""):
            continue
        name = match.group(1).decode()
        registry = "Eureka" if name == "EnableEurekaClient" else "its Spring Cloud registry"
        line = data.count(b"\n", 0, match.start(1)) + 1
        found.append(Registration(Loc(path, line, 1), registry, f"@{name}", ""))
    return found


def _starter_services(path: str, data: bytes) -> list[tuple[str, Loc]]:
    """A class a Spring Boot starter serves over gRPC, by the starter's annotation: imported
    from the starter's package (by name, or the package whole) or named in full."""
    found = []
    for match in _SERVICE_ANNOTATION.finditer(data):
        for package, (annotation, starter) in STARTER_ANNOTATIONS.items():
            imported = b"import " + package + b"." in data
            written = match.group(0).lstrip(b" \t@")
            if match.group(1) == annotation and (imported or written.startswith(package)):
                at = data.index(b"@", match.start())
                line = data.count(b"\n", 0, at) + 1
                found.append((starter, Loc(path, line, at - data.rfind(b"\n", 0, at))))
    return found


def _loc(path: str, node: Node) -> Loc:
    row, column = node.start_point  # a point made once (each asking makes one)
    return Loc(path, int(row) + 1, int(column) + 1)


def _property_name(method: str) -> str:
    """The property a getter reads: `getHost` and `isSecure` are `host` and `secure`; a
    record's accessor (`host()`) is its own name."""
    for prefix in ("get", "is"):
        rest = method[len(prefix) :]
        if method.startswith(prefix) and rest[:1].isupper():
            return rest[0].lower() + rest[1:]
    return method


def _run_methods(body: Node | None) -> list[Node]:
    """A class body's `run()` methods (a Thread's or a Runnable's)."""
    return _methods_without_parameters(body, "run")


def _methods_without_parameters(body: Node | None, name: str) -> list[Node]:
    """A class body's methods of that name that take no parameter (`run()`, `destroy()`)."""
    found = []
    for member in body.named_children if body is not None else []:
        listed = member.child_by_field_name("parameters")
        if (
            member.type == "method_declaration"
            and _text(member.child_by_field_name("name")) == name
            and (listed is None or not listed.named_children)
        ):
            found.append(member)
    return found


def _arguments(call: Node) -> list[Node]:
    return call_arguments(call, ("line_comment", "block_comment"))


def _method(call: Node) -> str:
    return _text(call.child_by_field_name("name"))


def _receiver(call: Node) -> Node | None:
    return call.child_by_field_name("object")


def _simple(text: str) -> str:
    """`io.grpc.ServerBuilder` -> `ServerBuilder`; `this.server` -> `server`."""
    return text.rsplit(".", 1)[-1]


def _named(node: Node | None) -> str | None:
    """The name an expression is when it is a plain name: `server`, `this.server`."""
    if node is None:
        return None
    if node.type == "identifier":
        return _text(node)
    if node.type == "field_access" and _text(node.child_by_field_name("object")) == "this":
        return _text(node.child_by_field_name("field"))
    return None


def _returned(node: Node) -> bool:
    parent = _unparenthesised_parent(node)
    return parent is not None and parent.type == "return_statement"


def _parameters(method: Node) -> list[Node]:
    """The names of a method's parameters; none when one is spread (`String... args`)."""
    parameters = method.child_by_field_name("parameters")
    found = [
        p
        for p in (parameters.named_children if parameters is not None else [])
        if p.type not in ("line_comment", "block_comment")
    ]
    names = [p.child_by_field_name("name") for p in found if p.type == "formal_parameter"]
    return [n for n in names if n is not None] if len(names) == len(found) else []


def _unparenthesised_parent(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return parent


def _same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.id == b.id


def _bound_to(node: Node) -> str | None:
    """The variable or field an expression's value is stored in."""
    parent = _unparenthesised_parent(node)
    if parent is None:
        return None
    if parent.type == "variable_declarator":
        return _text(parent.child_by_field_name("name"))
    if (
        parent.type == "assignment_expression"
        and _text(parent.child_by_field_name("operator")) == "="
    ):
        return _named(parent.child_by_field_name("left"))
    return None


def _injection(declaration: Node) -> Node | None:
    """The `@Value(...)` annotation of a field or a parameter, if it has one."""
    return _annotation(declaration, "Value")


def _annotation(declaration: Node, name: str) -> Node | None:
    """The declaration's annotation of that simple name (`@PreDestroy`, `@Value("x")`)."""
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for annotation in modifiers.named_children if modifiers is not None else ():
        named = annotation.child_by_field_name("name")
        if annotation.type in _ANNOTATIONS and _simple(_text(named)) == name:
            return annotation
    return None


def _lifecycle_stops(classes: list[Node], methods: list[Node], data: bytes) -> list[Node]:
    """The methods a dependency-injection container runs as it closes, which Spring Boot,
    Quarkus and Micronaut do on SIGTERM (Spring Boot from the JVM shutdown hook it
    registers): each `@PreDestroy` method (javax's or jakarta's), and the `destroy()` of a
    class that implements Spring's `DisposableBean`."""
    found: list[Node] = []
    if b"PreDestroy" in data:
        found += [method for method in methods if _annotation(method, "PreDestroy")]
    if b"DisposableBean" in data:
        for declared in classes:
            interfaces = declared.child_by_field_name("interfaces")
            if interfaces is None or "DisposableBean" not in _text(interfaces):
                continue
            found += _methods_without_parameters(declared.child_by_field_name("body"), "destroy")
    return found


def _annotation_value(annotation: Node) -> Node | None:
    """An annotation's one value: `@A("x")` or `@A(value = "x")`."""
    arguments = annotation.child_by_field_name("arguments")
    given = arguments.named_children if arguments is not None else []
    if len(given) != 1:
        return None
    if given[0].type == "element_value_pair":
        key = given[0].child_by_field_name("key")
        return given[0].child_by_field_name("value") if _text(key) == "value" else None
    return given[0]


def _within(nodes: list[Node], scope: Node) -> list[Node]:
    """The nodes of a list in source order that `scope` holds (itself too, when it is one),
    found by bisection rather than a walk of `scope`: those that start in it (a tree's
    nodes nest), but for those that start where it does and hold it."""
    at = bisect_left(nodes, scope.start_byte, key=_start)
    end = bisect_left(nodes, scope.end_byte, lo=at, key=_start)
    while at < end and nodes[at].end_byte > scope.end_byte:
        at += 1
    return nodes[at:end]


def _start(node: Node) -> int:
    return node.start_byte


def _walk_order(node: Node) -> tuple[int, int]:
    """The order a walk meets nodes in, an enclosing node first (as `captured` sorts)."""
    return node.start_byte, -node.end_byte


def _walk_order_of_first(pair: tuple[Node, str]) -> tuple[int, int]:
    return _walk_order(pair[0])


def _enclosing(node: Node, kinds: tuple[str, ...]) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in kinds:
        parent = parent.parent
    return parent


class _Built:
    """What a builder was given on its way from its factory to `.build()`."""

    def __init__(self) -> None:
        self.calls: list[Node] = []  # the builder's method calls, in the order found
        self.complete = True
        self.build: Node | None = None
        # the static methods of other classes it was handed to (their file's export)
        self.pending: list[Helper] = []
        # the methods of the file it was handed to, by their node id: the call that did
        self.entered: dict[int, Node] = {}
        self.returned = False  # a method of the file it was handed to returns it

    def is_built(self) -> bool:
        return self.build is not None


class _Reader:
    def __init__(self, path: str, facts: CodeFacts) -> None:
        self.path = path
        self.facts = facts
        # `static final` fields with a value, by their class and name
        self.constants: dict[tuple[str, str], Node] = {}
        self.fields: set[str] = set()  # every field the file declares
        self.injected: dict[str, Node] = {}  # fields Spring sets: their `@Value` annotation
        self.kept: set[str] = set()  # final instance fields with no initialiser
        # (class node id, field) -> the constructor's parameter that sets it (_kept_from)
        self.kept_from: dict[tuple[int, str], tuple[int, int, Node] | None] = {}
        # a method's (or lambda's) parameters and locals, or a class's fields -> the name
        # nodes that declare them and their types, by the scope's or the class's node
        self.declared: dict[int, dict[str, tuple[Node, str | None]]] = {}
        self.bindings: dict[int, dict[str, list[Node | None]]] = {}  # by scope node id
        self.hooks: list[Node] = []
        self._hooks_calling: dict[str, Node | None] = {}  # by a method's name (_hook_calling)
        self.budget = Budget()  # the values this file's reading may still compute
        self.found: dict[str, list[Node]] = {}  # what the query captured, by capture (run)
        self.calls: list[tuple[Node, str]] = []  # every call with its method's name (run)
        self.names: dict[int, str] = {}  # each call's method, by the call's node id (run)
        self._given: dict[int, Node] | None = None  # the call each argument is of (_balanced_url)
        self._written: set[str] | None = None  # the URLs written as texts (_request_url)
        # made from the query's when first asked (most files ask none of them): every call
        # by the id of the node it is called on (a builder's chain is followed down from
        # its factory in one step a call: a node's parent is found from the root), where
        # each method is called, and what binds a name (`_OWN_BINDINGS`) with where a
        # scope's own nodes end
        self._receivers: dict[int, Node] | None = None
        self._called: Calls | None = None
        self._owned: Placed | None = None
        self.ends = Calls(())  # where `channel.shutdown()`, `x.shutdownNow()` are (run)
        # by scope node id: where each name is read, and the nodes (_reads)
        self.reads: dict[int, dict[str, tuple[list[int], list[Node]]]] = {}
        self.rebinding: dict[int, dict[str, list[int]]] = {}  # by block node id: _reach
        self._by_method: dict[str, list[Node]] | None = None  # _calls_named, when first asked
        # (method node id, index) -> what its calls pass for the parameter (_passed_property)
        self.passed: dict[tuple[int, int], Any] = {}
        # (method node id, index) -> what the method does to a builder handed to it there
        # (_handed), and the ones being read
        self.handed: dict[tuple[int, int], _Built] = {}
        self._handing: set[tuple[int, int]] = set()

    # -- driving -----------------------------------------------------------------------

    def run(self, root: Node, data: bytes) -> None:
        references = b"::" in data and _FACTORY_REFERENCE.search(data) is not None
        query = _read_query(_may_hold_a_url(data), b"NOT_SERVING" in data, references)
        found = self.found = captured(parser(), root, query)
        for node in found.get("field", []):
            self._field(node)
        for node in found.get("class", []):
            self._health_class(node)
        for node in found.get("creation", []):
            self._creation(node)
        self.facts.health_drains += [_loc(self.path, n) for n in found.get("not_serving", [])]
        for node in found.get("string", []):
            text = _string(node)
            if isinstance(text, str) and text.lower().startswith(("http://", "https://")):
                self.facts.urls.append((text, _loc(self.path, node)))
                self._balanced_url(node)
        self.facts.exports.update(client_beans(found.get("method", [])))
        # every call by its method's name; most name nothing read here
        calls = self.calls = [(call, _method(call)) for call in found.get("call", [])]
        self.names = {call.id: method for call, method in calls}
        self.ends = Calls(
            (f"{named}.{method}", call)
            for call, method in calls
            if method in SERVER_STOPS and (named := _named(_receiver(call))) is not None
        )
        for call, method in calls:
            if method not in _READ_METHODS:
                continue
            key = (_simple(_text(_receiver(call))), method)
            if key in HTTP_CLIENTS:
                self._http_client(call, HTTP_CLIENTS[key])
            elif key in SERVER_FACTORIES:
                self._server(call, SERVER_FACTORIES[key])
            elif key in CHANNEL_FACTORIES:
                self._channel(call, CHANNEL_FACTORIES[key])
            elif method in WRAPPED_FACTORIES and self._wrapped_builder(call):
                self._channel(call, WRAPPED_FACTORIES[method])
            elif key == ("getRuntime()", "addShutdownHook"):
                # the JVM runs its shutdown hooks on SIGTERM
                self.facts.sigterm_handlers.append(_loc(self.path, call))
            elif key == ("Signal", "handle") and self._is_term_signal(call):
                self.facts.sigterm_handlers.append(_loc(self.path, call))
            elif key == ("URI", "create") and (given := _arguments(call)):
                self._request_url(given[0])
            elif method in ("enterTerminalState", "clearStatus"):
                # clearStatus: the service is unknown from then on, and a probe of it fails
                self.facts.health_drains.append(_loc(self.path, call))
        for node in found.get("reference", []):
            self._factory_reference(node)
        self.facts.exports.update(self._builder_helpers(found.get("method", [])))
        servers = {server.name for server in self.facts.servers if server.name}
        closing = _lifecycle_stops(found.get("class", []), found.get("method", []), data)
        self.facts.sigterm_handlers += [_loc(self.path, method) for method in closing]
        registered = [call for call, method in calls if method == "addShutdownHook"]
        self.hooks = self._hooks(registered, closing)
        if self.hooks:
            self.facts.signal_pauses = signal_pauses(
                self.hooks,
                found.get("method", []),
                Placed(calls),
                self._functions(),
                self.value,
                self.duration,
                lambda n: _loc(self.path, n),
            )
        for call, method in calls:
            if method in _SERVER_METHODS:
                self._server_call(call, method, servers)

    def _hooks(self, registered: list[Node], closing: list[Node]) -> list[Node]:
        """What the JVM runs on SIGTERM, in source order, none within another: the lambdas
        and `run()` methods the `addShutdownHook(...)` calls hand it (`new Thread(() ->
        ...)`, an anonymous `new Thread() { public void run() ... }` or `new Thread(new
        Runnable() { ... })`), the `run()` of a class of the file one makes (`new
        ServerStopper(server)`, which extends Thread or is a Runnable), and the methods a
        container runs as it closes (`closing`). A call within another's bytes adds nothing
        the outer one has not (hooks nested in hooks stay linear)."""
        if not registered and not closing:
            return []
        anonymous, by_class = self._runs() if registered else ([], {})
        found: list[Node] = list(closing)
        made: set[str] = set()
        end = -1
        for call in registered:
            if call.start_byte < end:
                continue
            end = call.end_byte
            found += _within(self.found.get("lambda", []), call) + _within(anonymous, call)
            for creation in _within(self.found.get("creation", []), call):
                name = _type_name(creation.child_by_field_name("type")) or ""
                if name not in made:
                    made.add(name)
                    found += by_class.get(name, [])
        hooks: list[Node] = []
        for hook in sorted(found, key=_walk_order):
            if not hooks or hook.start_byte >= hooks[-1].end_byte:
                hooks.append(hook)
        return hooks

    def _runs(self) -> tuple[list[Node], dict[str, list[Node]]]:
        """The file's `run()` methods: those of anonymous classes in source order, and
        those of its named classes by the class's name (read down from each class, not
        up from each method: a node's parent is found from the root)."""
        anonymous: list[Node] = []
        by_class: dict[str, list[Node]] = {}
        for creation in self.found.get("creation", []):
            for body in creation.children:
                if body.type == "class_body":
                    anonymous += _run_methods(body)
        for declared in self.found.get("class", []):
            if declared.type == "class_declaration":
                runs = _run_methods(declared.child_by_field_name("body"))
                name = _text(declared.child_by_field_name("name"))
                by_class.setdefault(name, []).extend(runs)
        return sorted(anonymous, key=_start), by_class

    def _functions(self) -> Placed:
        """The file's lambdas, class bodies and method declarations: the nodes a hook's
        pause is not looked for in (they do not run there)."""
        found = self.found
        functions = [*found.get("lambda", []), *found.get("class_body", [])]
        functions += found.get("method", [])
        return Placed([(node, "") for node in sorted(functions, key=_walk_order)])

    def _declarations(self, scope: Node) -> list[Node]:
        """The formal parameters and local declarations of a scope and of those it holds."""
        return _within(self.found.get("declaration", []), scope)

    def _field(self, node: Node) -> None:
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        words = set(_text(modifiers).split()) if modifiers is not None else set()
        if node.type == "constant_declaration":  # an interface's: static and final
            words |= {"static", "final"}
        for declarator in node.children_by_field_name("declarator"):
            name = _text(declarator.child_by_field_name("name"))
            self.fields.add(name)
            value = declarator.child_by_field_name("value")
            # a final field's initializer is its value (an instance's too: one expression,
            # which a constructor cannot change)
            if value is not None and "final" in words:
                self.constants[(_class_of(node), name)] = value
            elif value is None and (annotation := _injection(node)) is not None:
                self.injected[name] = annotation
            elif value is None and "final" in words and "static" not in words:
                self.kept.add(name)  # a constructor gives it its one value

    def _is_term_signal(self, call: Node) -> bool:
        """`Signal.handle(new Signal("TERM"), handler)` (sun.misc and jdk.internal.misc)."""
        given = _arguments(call)
        if not given or given[0].type != "object_creation_expression":
            return False
        made = _arguments(given[0])
        return len(made) == 1 and self.value(made[0]) == "TERM"

    def _creation(self, node: Node) -> None:
        self._export_construction(node)
        made = _simple(_text(node.child_by_field_name("type")))
        if made == "HealthStatusManager":
            self.facts.health_servicers.append(HealthServicer(_loc(self.path, node), None))
        elif made in ("OkHttpClient", "OkHttpClient.Builder"):
            self._http_client(node, "OkHttpClient")

    def _export_construction(self, node: Node) -> None:
        """What `new Type(...)` passes, for the constructor's parameters a field keeps
        (facts.Constructed, resolved in imported.py): exported when an argument is an
        address or a setting (the other calls say nothing of one)."""
        made = _type_name(node.child_by_field_name("type"))
        given = _arguments(node)
        if not made or not given:
            return
        values = tuple(self.value(argument) for argument in given)
        if any(_address_like(value) for value in values):
            self.facts.exports.setdefault(f"new {made}", []).append(values)

    def _request_url(self, argument: Node) -> None:
        """The URL a request is made for (`URI.create(tokenUri)`), when it is more than a
        literal (those are read where they are): an address the module's clients send to."""
        if argument.type == "string_literal":
            return
        url = self.value(argument)
        first: Node | None = argument  # what it begins with: `BASE` of `BASE + "/x"`
        while first is not None and first.type == "binary_expression":
            if _text(first.child_by_field_name("operator")) != "+":
                break
            first = first.child_by_field_name("left")
        if self._written is None:  # the module's strings are read before its calls
            self._written = {text for text, _ in self.facts.urls if isinstance(text, str)}
        if first is not None and carried_url(self.value(first), url, self._written):
            return  # read where it is written
        if url is not UNKNOWN:
            self.facts.urls.append((url, _loc(self.path, argument)))
            self._balanced_url(argument)

    def _balanced_url(self, url: Node) -> None:
        """A URL handed to an HTTP client a load balancer may resolve (parse_balanced.py):
        the client a call's chain starts from, when Spring injects it, or any client the
        `@LoadBalanced` bean's own method hands it to."""
        if self._given is None:
            self._given = calls_given(self.found.get("call", []))
        call = self._given.get(url.id)
        if call is None:
            return
        loc = _loc(self.path, url)
        bean = _enclosing(call, ("method_declaration",))
        if bean is not None and "LoadBalanced" in annotated_with(bean):
            made = client_type(bean.child_by_field_name("type"))
            if made is not None:
                self.facts.balanced_urls.append(BalancedUrl(loc, made, True))
                self.facts.deferred = True
                return
        root = chain_root(call)
        name = _named(root)
        declared = self._declaration(root, name) if root is not None and name else None
        found = injected_client(declared[0]) if declared is not None else None
        if found is not None:
            self.facts.balanced_urls.append(BalancedUrl(loc, *found))
            self.facts.deferred = True

    def _kept_parameter(self, at: Node, name: str, depth: int) -> Any:
        """A final field one constructor of its class sets from one of its parameters
        (`this.url = url`): the parameter's `@Value`, else what the project's
        `new Type(...)` calls pass there (facts.Constructed)."""
        owner = _enclosing(at, ("class_declaration",))
        body = owner.child_by_field_name("body") if owner is not None else None
        if owner is None or body is None or name not in self.kept:
            return UNKNOWN
        if (owner.id, name) not in self.kept_from:  # a class's constructors read once a name
            self.kept_from[(owner.id, name)] = self._kept_from(body, name)
        found = self.kept_from[(owner.id, name)]
        if found is None:
            return UNKNOWN
        index, count, parameter = found
        annotation = _injection(parameter)
        if annotation is not None:
            return self.value(annotation, depth + 1)
        self.facts.deferred = True
        return Constructed(_text(owner.child_by_field_name("name")), index, count)

    def _constructor_parameter(self, constructor: Node, name: str) -> Any:
        """A constructor's own parameter, used in it (`forAddress(host, port)`) and never
        assigned: what the project's `new Type(...)` calls pass there (facts.Constructed),
        as for a field the constructor sets from it."""
        owner = _enclosing(constructor, ("class_declaration",))
        listed = constructor.child_by_field_name("parameters")
        parameters = listed.named_children if listed is not None else []
        if owner is None or any(p.type != "formal_parameter" for p in parameters):
            return UNKNOWN  # no `T... xs`: a call's arguments would not be in place
        names = [_text(p.child_by_field_name("name")) for p in parameters]
        if name not in names:
            return UNKNOWN  # a catch's or a loop's variable of the constructor
        self.facts.deferred = True
        owner_name = _text(owner.child_by_field_name("name"))
        return Constructed(owner_name, names.index(name), len(parameters))

    def _kept_from(self, body: Node, name: str) -> tuple[int, int, Node] | None:
        """The parameter (its place, the constructor's count of them, its node) the one
        constructor of a class body that sets the field `name` sets it from
        (`this.url = url`); None when none does, or several."""
        found: list[tuple[int, int, Node] | None] = []
        for member in body.named_children:
            if member.type != "constructor_declaration":
                continue
            listed = member.child_by_field_name("parameters")
            parameters = listed.named_children if listed is not None else []
            names = [_text(p.child_by_field_name("name")) for p in parameters]
            plain = all(p.type == "formal_parameter" for p in parameters)  # no `T... xs`
            for node, kind in self._own(member.child_by_field_name("body")):
                if kind != "assignment":
                    continue
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is None or _named(left) != name:
                    continue
                if left.type == "identifier" and name in names:
                    continue  # the parameter itself, not the field
                given = _text(right) if right is not None and right.type == "identifier" else ""
                at = names.index(given) if given in names and plain else None
                found.append(None if at is None else (at, len(parameters), parameters[at]))
        return found[0] if len(found) == 1 else None

    def _http_client(self, made: Node, factory: str) -> None:
        """An HTTP client that pools connections: kept for the process when a field holds
        it, or `main` or a constructor makes it; a pool given a time to live is bounded."""
        statement = made
        while statement.parent is not None and statement.type not in (
            "local_variable_declaration",
            "field_declaration",
            "expression_statement",
            "return_statement",
        ):
            statement = statement.parent
        if any(word in _text(statement) for word in _TIME_TO_LIVE):
            return
        method = _enclosing(made, _SCOPES)
        long_lived = (
            method is None
            or method.type == "constructor_declaration"
            or (_text(method.child_by_field_name("name")) == "main")
        )
        self.facts.http_clients.append(
            HttpClient(_loc(self.path, made), factory, long_lived, False, None, False)
        )

    def _health_class(self, node: Node) -> None:
        """A hand-written health service: a class that extends grpc-java's generated
        `HealthGrpc.HealthImplBase`. It can fail unless every status it answers is the
        constant SERVING."""
        superclass = node.child_by_field_name("superclass")
        if superclass is None or not _text(superclass).endswith("HealthImplBase"):
            return
        body = node.child_by_field_name("body")
        nodes = list(walk(body)) if body is not None else []
        statuses = [
            _text(n.child_by_field_name("field"))
            for n in nodes
            if n.type == "field_access"
            and _text(n.child_by_field_name("object")).endswith("ServingStatus")
        ]
        # a status set from a variable or a call can be anything
        computed = any(
            n.type == "method_invocation"
            and _method(n) == "setStatus"
            and not all(
                a.type == "field_access"
                and _text(a.child_by_field_name("object")).endswith("ServingStatus")
                for a in _arguments(n)[-1:]
            )
            for n in nodes
        )
        always = bool(statuses) and not computed and all(s == "SERVING" for s in statuses)
        name = _text(node.child_by_field_name("name"))
        self.facts.health_servicers.append(
            HealthServicer(_loc(self.path, node), name, class_can_fail=not always)
        )

    # -- builders ----------------------------------------------------------------------

    def _method(self, call: Node) -> str:
        """A call's method name, as the reading of the file's calls found it."""
        found = self.names.get(call.id)
        return _method(call) if found is None else found

    def _factory_name(self, factory: Node) -> str:
        return f"{_simple(_text(_receiver(factory)))}.{self._method(factory)}"

    def _called_on(self, node: Node) -> Node | None:
        """The call made on `node` when it is the receiver of one (`node.method(...)`)."""
        if self._receivers is None:
            self._receivers = {}
            for call, _ in self.calls:
                receiver = _receiver(call)
                while receiver is not None:  # `(builder).method()` is called on `builder` too
                    self._receivers[receiver.id] = call
                    inner = (
                        receiver.named_children
                        if receiver.type == "parenthesized_expression"
                        else []
                    )
                    receiver = inner[0] if inner else None
        return self._receivers.get(node.id)

    def _calls_named(self, method: str) -> list[Node]:
        """Every call of a method by its name, in source order."""
        if self._by_method is None:
            self._by_method = {}
            for call, called in self.calls:
                self._by_method.setdefault(called, []).append(call)
        return self._by_method.get(method, [])

    def _calls_of(self) -> Calls:
        """Where each method is called, by its name."""
        if self._called is None:
            self._called = Calls((method, call) for call, method in self.calls)
        return self._called

    def _chain(self, node: Node, built: _Built) -> Node:
        """Follow the calls made on `node` up to `.build()`; the outermost expression."""
        while (call := self._called_on(node)) is not None:
            if self._method(call) == "build":
                built.build = call
                return call
            built.calls.append(call)
            node = call
        return node

    def _follow(self, factory: Node) -> _Built:
        """The calls a builder gets from its factory call to `.build()`: along its chain,
        through the variable that holds it, through a method it is handed to (whose
        result is taken for the builder, with options k8slb cannot see)."""
        built = _Built()
        node = factory
        for _ in range(MAX_DEPTH):
            top = self._chain(node, built)
            if built.build is not None:
                return built
            parent = _unparenthesised_parent(top)
            if parent is not None and parent.type == "argument_list":
                helper = parent.parent
                if helper is None or helper.type != "method_invocation":
                    return built
                built.returned = False
                read = self._handed(top, built, 0) == "read"
                if built.is_built():
                    return built  # built in a method of the file
                if not (read and built.returned):
                    built.complete = False  # the helper may set anything
                node = helper  # its result taken for the builder
                continue
            name = _bound_to(top)
            if name is None:
                return built  # returned, or handed on: built where k8slb cannot see
            self._uses(name, top, built)
            return built
        return built

    def _uses(self, name: str, binding: Node, built: _Built, depth: int = 0) -> None:
        """The calls made on a builder held in `name`, read where the name lives (the
        method for a local, the class for a field), and in the methods it is handed to
        that k8slb can read (_handed)."""
        scope = self._home(name, binding)
        if scope is None:
            built.complete = False
            return
        start, end = self._reach(name, binding, scope)
        for node in self._reads(scope, name, start, end):
            if self._called_on(node) is not None:
                before = built.build
                top = self._chain(node, built)
                if before is not None:
                    built.build = before
                built.returned = built.returned or (depth > 0 and _returned(top))
            elif depth > 0 and _returned(node):
                built.returned = True  # to the call that handed it over, whose own it is
            elif _compared(node):
                pass  # `builder == null`: read, not handed
            elif (referenced := _referenced(node)) is not None:
                # `builder::addService` calls that method alone, wherever it is handed
                if referenced in _OPTION_SETTERS:
                    built.complete = False
            elif self._handed(node, built, depth) != "read":
                built.complete = False  # handed on, stored, returned: anything may be set

    def _handed(self, node: Node, built: _Built, depth: int) -> str:
        """A builder passed as an argument (`node`): "read" when it goes to a method of the
        file (one of its name and arity; called on nothing, `this` or an object of a class
        of the file) whose parameter's uses are then read as the builder's, or to a static
        method of another class (`Metrics.intercept(builder, ...)`: that class's file
        exports what it sets, code/imported.py); "unknown" otherwise."""
        parent = _unparenthesised_parent(node)
        call = parent.parent if parent is not None and parent.type == "argument_list" else None
        if call is None or call.type != "method_invocation" or not self.budget.step(depth):
            return "unknown"
        given = _arguments(call)
        index = next((i for i, argument in enumerate(given) if _same(argument, node)), None)
        if index is None:
            return "unknown"
        method = self._method_of_file(call, len(given))
        if method is None:
            receiver = _receiver(call)
            if (
                receiver is None
                or receiver.type != "identifier"
                or not _text(receiver)[:1].isupper()
                or self._declaration(receiver, _text(receiver)) is not None
            ):
                return "unknown"  # an object's method, or an instance's
            helper = f"{_text(receiver)}.{self._method(call)}/{index}/{len(given)}"
            built.pending.append(Helper("", helper))
            return "read"
        key = (method.id, index)
        inside = self.handed.get(key)
        if inside is None:
            if key in self._handing or len(self._handing) >= _HANDED_DEPTH:
                return "unknown"  # a method that hands it back to itself, or too deep
            self._handing.add(key)
            inside = _Built()
            parameter = _parameters(method)[index]
            self._uses(_text(parameter), parameter, inside, depth + 1)
            self._handing.discard(key)
            self.handed[key] = inside  # read once, whatever builders it is handed
        built.entered[method.id] = call
        built.entered.update({k: v for k, v in inside.entered.items() if k not in built.entered})
        built.calls += inside.calls
        built.pending += inside.pending
        built.complete = built.complete and inside.complete
        if built.build is None:
            built.build = inside.build
        built.returned = built.returned or inside.returned
        return "read"

    def _builder_helpers(self, methods: list[Node]) -> dict[str, Options]:
        """What the file's static methods do to a builder they are handed (a parameter of
        a type named `...Builder`), for the files that call them (`Metrics.intercept(
        builder, ...)`): under `options Class.method/index/count`, the options they set,
        incomplete when they hand it on where k8slb cannot see or build it themselves."""
        found: dict[str, Options] = {}
        for method in methods:
            modifiers = next((c for c in method.children if c.type == "modifiers"), None)
            if modifiers is None or "static" not in _text(modifiers).split():
                continue
            parameters = method.child_by_field_name("parameters")
            typed = [
                _type_name(p.child_by_field_name("type")) or ""
                for p in (parameters.named_children if parameters is not None else [])
                if p.type == "formal_parameter"
            ]
            names = _parameters(method)
            if len(typed) != len(names) or not any(t.endswith("Builder") for t in typed):
                continue
            prefix = f"options {_class_of(method)}.{_text(method.child_by_field_name('name'))}"
            for index, (kind, name) in enumerate(zip(typed, names, strict=True)):
                if not kind.endswith("Builder"):
                    continue
                built = _Built()
                self._handing.add((method.id, index))  # a call of itself is not followed
                self._uses(_text(name), name, built, 1)
                self._handing.discard((method.id, index))
                complete = built.complete and built.build is None
                found[f"{prefix}/{index}/{len(names)}"] = Options(
                    complete, tuple(self._options(built)), pending=tuple(built.pending)
                )
        return found

    def _method_of_file(self, call: Node, count: int) -> Node | None:
        """The one method of the file a call may run: of its name, taking `count`
        parameters (none spread), called on nothing, on `this` or on a name of a class
        the file declares."""
        receiver = _receiver(call)
        if receiver is not None and _text(receiver) != "this":
            named = _named(receiver)
            kind = self._declared_type(receiver, named) if named is not None else None
            if kind is None or kind not in self._classes:
                return None
        found = [
            method
            for method in self._methods.get(self._method(call), [])
            if method.child_by_field_name("body") is not None and len(_parameters(method)) == count
        ]
        return found[0] if len(found) == 1 else None

    @cached_property
    def _methods(self) -> dict[str, list[Node]]:
        """The file's method declarations by their name."""
        found: dict[str, list[Node]] = {}
        for method in self.found.get("method", []):
            found.setdefault(_text(method.child_by_field_name("name")), []).append(method)
        return found

    @cached_property
    def _classes(self) -> set[str]:
        return {_text(c.child_by_field_name("name")) for c in self.found.get("class", [])}

    def _reach(self, name: str, binding: Node, scope: Node) -> tuple[int, int]:
        """The bytes of `scope` where `name` may hold the builder bound at `binding`: all
        of it, but from the binding's statement when an earlier statement of its block
        binds the name, and up to the next one that does. (So a method that binds one name
        to a thousand builders in turn reads each name's uses once, not once a builder.)"""
        statement = _unparenthesised_parent(binding)
        if statement is not None and statement.type in (
            "variable_declarator",
            "assignment_expression",
        ):
            statement = statement.parent
        block = statement.parent if statement is not None else None
        if statement is None or block is None:
            return scope.start_byte, scope.end_byte
        found = self.rebinding.get(block.id)
        if found is None:
            found = self.rebinding[block.id] = _rebinding(block)
        starts = found.get(name, [])
        at = bisect_left(starts, statement.start_byte)
        after = bisect_right(starts, statement.start_byte)
        start = statement.start_byte if at > 0 else scope.start_byte
        return start, starts[after] if after < len(starts) else scope.end_byte

    def _reads(self, scope: Node, name: str, start: int, end: int) -> list[Node]:
        """The nodes of `scope` that read `name` (not its declaration, not the left side of
        an assignment to it) from byte `start` to `end`; `scope` is walked once."""
        found = self.reads.get(scope.id)
        if found is None:
            by_name: dict[str, list[Node]] = {}
            stack: list[tuple[Node, Node | None]] = [(scope, None)]
            while stack:  # the walk of syntax_trees.walk, knowing each node's parent
                node, parent = stack.pop()
                named = _named(node)
                if named is not None and _reads_name(node, parent):
                    by_name.setdefault(named, []).append(node)
                stack.extend((child, node) for child in reversed(node.children))
            found = {key: ([n.start_byte for n in nodes], nodes) for key, nodes in by_name.items()}
            self.reads[scope.id] = found
        starts, nodes = found.get(name, ([], []))
        return nodes[bisect_left(starts, start) : bisect_left(starts, end)]

    def _home(self, name: str, at: Node) -> Node | None:
        """The node a name's uses are searched in: its method (a local), or its class."""
        method = _enclosing(at, _SCOPES)
        while method is not None:
            if name in self._scope_bindings(method):
                return method
            method = _enclosing(method, _SCOPES)
        if name in self.fields:
            return _enclosing(at, ("class_body",))
        return None

    def _options(self, built: _Built) -> list[Option]:
        entries: list[Option] = []
        for call in built.calls:
            method = self._method(call)
            given = _arguments(call)
            where = _loc(self.path, call.child_by_field_name("name") or call)
            if method in DURATION_OPTIONS and len(given) == 2:
                entries.append(Option(DURATION_OPTIONS[method], self.duration(*given), where))
            elif method == "permitKeepAliveWithoutCalls" and len(given) == 1:
                allowed = self.value(given[0])
                value = int(allowed) if isinstance(allowed, bool) else UNKNOWN
                entries.append(Option("grpc.keepalive_permit_without_calls", value, where))
            elif method == "defaultLoadBalancingPolicy" and len(given) == 1:
                entries.append(Option("grpc.lb_policy_name", self.value(given[0]), where))
            elif method == "defaultServiceConfig" and len(given) == 1:
                data = self.data(given[0])
                config = json.dumps(data) if isinstance(data, dict) else UNKNOWN
                entries.append(Option("grpc.service_config", config, where))
        return entries

    def duration(self, amount: Node, unit: Node) -> Any:
        """`(5, TimeUnit.MINUTES)` in milliseconds; Long.MAX_VALUE is grpc-java's "never",
        core's INT_MAX."""
        if _text(amount).endswith(_INFINITE):
            return INT_MAX
        size = TIME_UNITS.get(_simple(_text(unit)))
        count = self.value(amount)
        if size is None or not _number(count):
            return UNKNOWN
        milliseconds = count * size
        if milliseconds >= INT_MAX:
            # core's options are 32-bit, INT_MAX its "never": a longer age that does end
            # stays just below it
            return INT_MAX - 1
        return int(milliseconds) if float(milliseconds).is_integer() else milliseconds

    def _factory_reference(self, reference: Node) -> None:
        """A server factory kept as a method reference in a local or field (`Function<
        InetSocketAddress, NettyServerBuilder> factory = NettyServerBuilder::forAddress`):
        each `factory.apply(...)` where the name holds it is that factory's call."""
        parts = [c for c in reference.named_children if "comment" not in c.type]
        if len(parts) != 2:
            return
        key = (_simple(_text(parts[0])), _text(parts[1]))
        name = _bound_to(reference)
        if key not in SERVER_FACTORIES or name is None:
            return
        scope = self._home(name, reference)
        if scope is None:
            return
        start, end = self._reach(name, reference, scope)
        for node in self._reads(scope, name, start, end):
            call = self._called_on(node)
            if call is not None and self._method(call) == "apply":
                self._server(call, SERVER_FACTORIES[key], ".".join(key))

    def _server(self, factory: Node, kind: str, named: str | None = None) -> None:
        built = self._follow(factory)
        if built.build is None:
            return  # built where k8slb cannot see: no server to judge
        top = self._chain_after_build(built.build)
        method = _enclosing(built.build, ("method_declaration",))
        if _returned(top) and method is not None and method.id in built.entered:
            top = self._chain_after_build(built.entered[method.id])  # the server it returns
        name = _bound_to(top)
        given = _arguments(factory)
        options = Options(built.complete, tuple(self._options(built)), pending=tuple(built.pending))
        self.facts.deferred = self.facts.deferred or bool(built.pending)
        made = named or self._factory_name(factory)
        server = Server(_loc(self.path, factory), made, options, name)
        self.facts.servers.append(server)
        if name is not None:
            address = self._listen_address(kind, given)
            self.facts.listens.append(Listen(name, address, _loc(self.path, factory)))

    def _chain_after_build(self, build: Node) -> Node:
        """The server's own calls chained on `.build()` (`.start()`): the outermost."""
        node, started = build, False
        while (call := self._called_on(node)) is not None:
            started = started or self._method(call) == "start"
            node = call
        name = _bound_to(node) if started else None  # what holds the started server
        if name is not None:
            self.facts.starts.add(name)
        return node

    def _listen_address(self, kind: str, given: list[Node]) -> Any:
        if kind == "port" and given:
            return _address("", self.value(given[0]))
        if kind == "address" and len(given) == 1 and given[0].type == "object_creation_expression":
            parts = _arguments(given[0])
            kind_of = _simple(_text(given[0].child_by_field_name("type")))
            if kind_of == "DomainSocketAddress":  # Netty's Unix socket: its own pod's only
                return _unix_address(self.value(parts[0]) if len(parts) == 1 else UNKNOWN)
            if kind_of != "InetSocketAddress":
                return UNKNOWN
            if len(parts) == 1:
                return _address("", self.value(parts[0]))
            if len(parts) == 2:
                return _listen_at(self.value(parts[0]), self.value(parts[1]))
        return UNKNOWN

    def _channel(self, factory: Node, kind: str) -> None:
        given = _arguments(factory)
        if kind == "target":
            target = self.value(given[0]) if given else UNKNOWN
        elif len(given) >= 2:
            target = _address(self.value(given[0]), self.value(given[1]))
        else:
            target = UNKNOWN  # a SocketAddress: not a name that is resolved
        if isinstance(target, str) and _custom_scheme(target):
            target = UNKNOWN  # a resolver of the program's own: k8slb cannot tell what it does
        built = self._follow(factory)
        options = Options(built.complete, tuple(self._options(built)), pending=tuple(built.pending))
        self.facts.deferred = self.facts.deferred or bool(built.pending)
        top = self._chain_after_build(built.build) if built.build is not None else None
        name = _bound_to(top) if top is not None else None
        self.facts.channels.append(
            Channel(
                _loc(self.path, factory),
                self._factory_name(factory),
                target,
                options,
                long_lived=not (name and self._closed_where_made(name, factory)),
                target_argument=(0, "target") if kind == "target" else None,
                # grpc-java reads a target that is no URI (`host:port`) with its default
                # resolver, DNS: every address of the name, as grpcio does
                default_scheme="dns",
            )
        )

    def _wrapped_builder(self, call: Node) -> bool:
        """Whether a call is made on a channel builder of a class named as one: the class
        itself, or a name declared with it (`private final SpringAwareManagedChannelBuilder
        builder;`)."""
        receiver = _receiver(call)
        named = _named(receiver)
        kind = _simple(_text(receiver))
        if receiver is not None and named is not None:
            kind = self._declared_type(receiver, named) or kind
        return kind.endswith(WRAPPED_BUILDER)

    def _closed_where_made(self, name: str, factory: Node) -> bool:
        """Whether the method that makes the channel also shuts it down: a channel per
        call (not `main`, whose channels live as long as the program)."""
        method = _enclosing(factory, _SCOPES)
        if method is None or _text(method.child_by_field_name("name")) == "main":
            return False
        return self.ends.within(f"{name}.shutdown", method) or self.ends.within(
            f"{name}.shutdownNow", method
        )

    # -- a server's life ----------------------------------------------------------------

    def _server_call(self, call: Node, method: str, servers: set[str]) -> None:
        """`server.start()`, `server.awaitTermination()`, `server.shutdown()`,
        `server.shutdownNow()` on a server the file builds."""
        receiver = _receiver(call)
        name = _named(receiver)
        if method == "awaitTermination" and not _arguments(call):
            if self._drains(call, name):
                return
            # only a gRPC Server waits with no timeout (an ExecutorService always has one)
            waited = name if name in servers else None
            self.facts.waits.append(Wait(_loc(self.path, call), waited, "awaitTermination()"))
            return
        if name not in servers or name is None:
            return
        if method == "start":
            self.facts.starts.add(name)
        elif method == "shutdown" and self._unawaited_in_a_hook(call, name):
            # the JVM halts when its shutdown hooks return: calls still running are cut
            written = f"{name}.shutdown() in a shutdown hook that does not await it"
            self.facts.stops.append(Stop(_loc(self.path, call), name, 0, False, written))
        elif method == "shutdown":
            self.facts.stops.append(Stop(_loc(self.path, call), name, UNKNOWN, False))
        elif method == "shutdownNow" and not self._bounds_a_graceful_stop(call, name):
            self.facts.stops.append(Stop(_loc(self.path, call), name, 0, False))

    def _drains(self, call: Node, name: str | None) -> bool:
        """An `awaitTermination()` that waits for a stop already begun, not a server started
        and waited on: made on `shutdown()`'s result (`server.shutdown().awaitTermination()`)
        or after the same server's `shutdown()` (`shutdownNow()`) earlier in the same method
        or lambda (a `stop()` method's drain)."""
        receiver = _receiver(call)
        while receiver is not None and receiver.type == "parenthesized_expression":
            receiver = receiver.named_children[0] if receiver.named_children else None
        if receiver is not None and receiver.type == "method_invocation":
            return _method(receiver) in SERVER_STOPS
        scope = self._scope_of.get(call.id)
        return name is not None and scope is not None and stop_begun(self.ends, name, scope, call)

    def _unawaited_in_a_hook(self, call: Node, name: str) -> bool:
        """A `server.shutdown()` that a JVM shutdown hook runs (in the hook's lambda, or in
        a method of the file the lambda calls: `AdService.this.stop()`) with no
        `awaitTermination` in either: shutdown() only refuses new calls, and the JVM halts
        as soon as its hooks return (microservices-demo's and otel-demo's ad service)."""
        if not self.hooks:
            return False
        method = self._scope_of.get(call.id)
        if method is None:
            return False
        hook: Node | None = self._hook_of.get(method.id)
        if hook is None and method.type == "method_declaration":
            hook = self._hook_calling(_text(method.child_by_field_name("name")))
        if hook is None:
            return False
        awaited = self._calls_of().within("awaitTermination", hook) or self._calls_of().within(
            "awaitTermination", method
        )
        return not awaited

    @cached_property
    def _scope_of(self) -> dict[int, Node]:
        """The innermost method, constructor or lambda of each `shutdown()` and
        `awaitTermination()` call, by the call's id: one sweep of the scopes and calls in
        source order with the open scopes on a stack (climbing each call's parents, which
        tree-sitter finds from the root, was quadratic in the nesting)."""
        found = self.found
        scopes = [*found.get("method", []), *found.get("constructor", [])]
        scopes += found.get("lambda", [])
        events: list[tuple[Node, Node | None]] = [(scope, scope) for scope in scopes]
        events += [
            (call, None)
            for call, method in self.calls
            if method in ("shutdown", "awaitTermination")
        ]
        events.sort(key=lambda event: _walk_order(event[0]))
        open_scopes: list[Node] = []
        scope_of: dict[int, Node] = {}
        for node, scope in events:
            while open_scopes and open_scopes[-1].end_byte <= node.start_byte:
                open_scopes.pop()
            if scope is not None:
                open_scopes.append(scope)
            elif open_scopes:
                scope_of[node.id] = open_scopes[-1]
        return scope_of

    @cached_property
    def _hook_of(self) -> dict[int, Node]:
        return {hook.id: hook for hook in self.hooks}

    @cached_property
    def _hook_starts(self) -> list[int]:
        return [hook.start_byte for hook in self.hooks]

    def _hook_calling(self, named: str) -> Node | None:
        """The first hook that calls a method of that name (the hooks are in source order
        and none holds another: each call is placed by bisection), once a name."""
        if named not in self._hooks_calling:
            starts = self._hook_starts
            self._hooks_calling[named] = None
            for at in self._calls_of().starts.get(named, []):
                index = bisect_right(starts, at) - 1
                if index >= 0 and at < self.hooks[index].end_byte:
                    self._hooks_calling[named] = self.hooks[index]
                    break
        return self._hooks_calling[named]

    def _bounds_a_graceful_stop(self, call: Node, name: str) -> bool:
        """A `shutdownNow()` that ends a graceful stop gone on too long: after `shutdown()`
        of the same server in the same method, or in a `catch` (the graceful wait was
        interrupted)."""
        found = _enclosing(call, ("catch_clause", *_SCOPES))
        if found is not None and found.type == "catch_clause":
            return True
        method = _enclosing(call, _SCOPES)
        if method is None:
            return False
        return self.ends.within(f"{name}.shutdown", method, before=call.start_byte)

    # -- values ------------------------------------------------------------------------

    def _own(self, node: Node | None) -> Iterator[tuple[Node, str]]:
        """The nodes that bind names in a body (their kinds: `_OWN_BINDINGS`), not those of
        the lambdas, classes and methods within it (they have names of their own): the
        query's, by their bytes."""
        if node is None:
            return
        skipped = -1  # the end of the last scope met within the body
        if self._owned is None:
            self._owned = Placed(
                sorted(
                    (
                        (captured_node, kind)
                        for kind in (*_OWN_BINDINGS, *_OWN_ENDS)
                        for captured_node in self.found.get(kind, [])
                    ),
                    key=_walk_order_of_first,
                )
            )
        for found, kind in self._owned.within(node):
            if found.start_byte < skipped:
                continue
            if kind in _OWN_ENDS:
                if found.id != node.id:  # the body itself is walked, whatever its kind
                    skipped = found.end_byte
                continue
            yield found, kind

    def _scope_bindings(self, scope: Node) -> dict[str, list[Node | None]]:
        """A method's (or lambda's) names: each local's values (its initialiser and every
        assignment; None for a parameter, a catch or loop variable: unknown)."""
        found = self.bindings.get(scope.id)
        if found is not None:
            return found
        names: dict[str, list[Node | None]] = {}
        parameters = scope.child_by_field_name("parameters")
        if parameters is not None and parameters.type == "identifier":  # `x -> ...`
            names[_text(parameters)] = [None]
        inferred = parameters is not None and parameters.type == "inferred_parameters"
        for node in walk(parameters) if parameters is not None else ():
            if node.type in ("formal_parameter", "spread_parameter"):
                # unknown, unless Spring injects it (`@Value("${key}") String target`)
                names[_text(node.child_by_field_name("name"))] = [_injection(node)]
            elif node.type == "identifier" and inferred:  # `(a, b) -> ...`
                names[_text(node)] = [None]
        body = scope.child_by_field_name("body")
        assignments: list[Node] = []
        for node, kind in self._own(body):
            if kind == "declarator":
                names.setdefault(_text(node.child_by_field_name("name")), []).append(
                    node.child_by_field_name("value")
                )
            elif kind in ("catch", "for"):
                named = node.child_by_field_name("name")
                if named is not None:
                    names.setdefault(_text(named), []).append(None)
            elif kind == "assignment":
                assignments.append(node)
        for node in assignments:  # to a local (a bare name that is no local is a field)
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier" and _text(left) in names:
                operator = _text(node.child_by_field_name("operator"))
                value = node.child_by_field_name("right") if operator == "=" else None
                names[_text(left)].append(value)
        self.bindings[scope.id] = names
        return names

    def constant(self, at: Node, name: str) -> Node | None:
        """The value of the constant `name` seen from `at`: its own class's, or an
        enclosing one's, or the one class of the file that has it."""
        owner = _enclosing(at, _CLASSES)
        while owner is not None:
            found = self.constants.get((_text(owner.child_by_field_name("name")), name))
            if found is not None:
                return found
            owner = _enclosing(owner, _CLASSES)
        candidates = [value for (_, named), value in self.constants.items() if named == name]
        return candidates[0] if len(candidates) == 1 else None

    def _lookup(self, node: Node, depth: int) -> Any:
        name = _text(node)
        scope = _enclosing(node, _SCOPES)
        while scope is not None:
            values = self._scope_bindings(scope).get(name)
            if values is not None:
                if values == [None] and scope.type == "constructor_declaration":
                    return self._constructor_parameter(scope, name)
                if len(values) != 1 or values[0] is None:
                    return UNKNOWN
                return self.value(values[0], depth + 1)
            scope = _enclosing(scope, _SCOPES)
        constant = self.constant(node, name)
        if constant is not None:
            return self.value(constant, depth + 1)
        if name in self.injected:
            return self.value(self.injected[name], depth + 1)
        return self._kept_parameter(node, name, depth)

    def value(self, node: Node, depth: int = 0) -> Any:
        """What an expression is, as far as it can be followed: a str, an int, a bool, an
        EnvRef, or UNKNOWN (past the reading's budget too: budget.py)."""
        if not self.budget.step(depth):
            return UNKNOWN
        kind = node.type
        if kind == "string_literal":
            return _string(node)
        if kind in ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal"):
            return _integer(_text(node))
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "parenthesized_expression" and node.named_children:
            return self.value(node.named_children[0], depth + 1)
        if kind == "identifier":
            return self._lookup(node, depth)
        if kind == "annotation":  # `@Value("${key:default}")`: from the project's settings
            self.facts.deferred = True
            given = _annotation_value(node)
            text = _string(given) if given is not None and given.type == "string_literal" else None
            return injected(text) if isinstance(text, str) else UNKNOWN
        if kind == "field_access":
            return self._field_value(node, depth)
        if kind == "binary_expression":
            return self._binary(node, depth)
        if kind == "method_invocation":
            return self._call_value(node, depth)
        if kind == "ternary_expression":
            return self._ternary(node, depth)
        return UNKNOWN

    def _field_value(self, node: Node, depth: int) -> Any:
        text = _text(node)
        if text in ("Integer.MAX_VALUE",):
            return INT_MAX
        if text == "Long.MAX_VALUE":
            return LONG_MAX
        owner = _text(node.child_by_field_name("object"))
        field = _text(node.child_by_field_name("field"))
        constant = (
            self.constant(node, field) if owner == "this" else self.constants.get((owner, field))
        )
        if constant is not None:
            return self.value(constant, depth + 1)
        if owner == "this" and field in self.injected:
            return self.value(self.injected[field], depth + 1)
        return self._kept_parameter(node, field, depth) if owner == "this" else UNKNOWN

    def _binary(self, node: Node, depth: int) -> Any:
        operator = _text(node.child_by_field_name("operator"))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return UNKNOWN
        a, b = self.value(left, depth + 1), self.value(right, depth + 1)
        if _number(a) and _number(b):
            return _arithmetic(operator, a, b)
        if operator != "+":
            return UNKNOWN
        # string concatenation: numbers are written as Java writes them
        return joined([str(part) if _number(part) else part for part in (a, b)])

    def _call_value(self, node: Node, depth: int) -> Any:
        receiver = _text(_receiver(node))
        method = self._method(node)
        given = _arguments(node)
        if receiver in ("System", "java.lang.System") and method == "getenv" and len(given) == 1:
            name = self.value(given[0], depth + 1)
            return EnvRef(name) if isinstance(name, str) else UNKNOWN
        if method == "getOrDefault" and receiver in (
            "System.getenv()",
            "java.lang.System.getenv()",
        ):
            if len(given) == 2:
                return _env_default(
                    self.value(given[0], depth + 1), self.value(given[1], depth + 1)
                )
            return UNKNOWN
        if method == "orElse" and len(given) == 1:
            inner = _receiver(node)
            if (
                inner is not None
                and inner.type == "method_invocation"
                and _text(_receiver(inner)) == "Optional"
                and _method(inner) == "ofNullable"
                and len(_arguments(inner)) == 1
            ):
                env = self.value(_arguments(inner)[0], depth + 1)
                return _with_default(env, self.value(given[0], depth + 1))
            return UNKNOWN
        if receiver == "Objects" and method == "requireNonNullElse" and len(given) == 2:
            env = self.value(given[0], depth + 1)
            return _with_default(env, self.value(given[1], depth + 1))
        if receiver in ("Integer", "Long") and method in ("parseInt", "valueOf", "parseLong"):
            if len(given) != 1:
                return UNKNOWN
            text = self.value(given[0], depth + 1)
            if isinstance(text, str):
                return _integer(text) if text.strip().lstrip("-").isdigit() else UNKNOWN
            # a number's text from the environment or the settings: the same number
            settable = isinstance(text, EnvRef | Setting | BoundProperty)
            return text if settable or _number(text) else UNKNOWN
        if receiver == "String" and method == "valueOf" and len(given) == 1:
            found = self.value(given[0], depth + 1)
            return str(found) if _number(found) else found
        if receiver == "String" and method == "format" and given:
            template = self.value(given[0], depth + 1)
            if not isinstance(template, str):
                return UNKNOWN
            return _format(template, [self.value(a, depth + 1) for a in given[1:]])
        return self._property(node, method, given, depth)

    def _property(self, call: Node, method: str, given: list[Node], depth: int = 0) -> Any:
        """`props.getHost()` (`isX()`, a record's `host()`) on a name whose declared type
        is a class: the property Spring may bind to it, resolved in imported.py (unknown
        there unless a scanned `@ConfigurationProperties` class of that name declares it);
        `props.getPorts().getGrpc()`, a property of a nested object, is `ports.grpc`. On a
        parameter of a method (`host.getHostname()` in `createStub(Host host)`), it is
        the property of what every call of the method in the file passes there, when they
        all pass one (`createStub(props.getApp2())`: `app2.hostname`)."""
        path: list[str] = []  # the chain's getters, outermost first
        for _ in range(MAX_DEPTH):  # a chain longer than a budget is no setting read
            receiver = _receiver(call)
            if given or receiver is None:
                return UNKNOWN
            path.append(_property_name(method))
            if receiver.type != "method_invocation":  # the chain's start: a name
                break
            call = receiver  # a getter of what a getter returns
            method = _text(receiver.child_by_field_name("name"))
            given = list(_arguments(receiver))
        else:
            return UNKNOWN
        named = _named(receiver)
        if named is None:
            return UNKNOWN
        passed = self._passed_property(receiver, named, depth)
        if isinstance(passed, BoundProperty):
            return BoundProperty(passed.type_name, ".".join([passed.name, *reversed(path)]))
        declared = self._declared_type(receiver, named)
        if declared is None or not declared[:1].isupper():
            return UNKNOWN
        self.facts.deferred = True
        return BoundProperty(declared, ".".join(reversed(path)))

    def _passed_property(self, at: Node, name: str, depth: int) -> Any:
        """The bound property every call of the method whose parameter `name` is passes
        for it (a method's own parameter, not a lambda's), or UNKNOWN."""
        if at.type != "identifier" or not self.budget.step(depth):
            return UNKNOWN
        method = _enclosing(at, _SCOPES)
        if method is None or method.type != "method_declaration":
            return UNKNOWN
        modifiers = next((c for c in method.children if c.type == "modifiers"), None)
        if modifiers is None or "private" not in _text(modifiers).split():
            return UNKNOWN  # another file may call it with anything
        if name in self._scope_bindings(method) and self._scope_bindings(method)[name] != [None]:
            return UNKNOWN  # a local, or a parameter assigned again
        parameters = method.child_by_field_name("parameters")
        names = [
            _text(p.child_by_field_name("name"))
            for p in (parameters.named_children if parameters is not None else ())
            if p.type == "formal_parameter"
        ]
        if name not in names or len(names) != len(parameters.named_children if parameters else []):
            return UNKNOWN
        key = (method.id, names.index(name))
        if key not in self.passed:  # each parameter once (UNKNOWN meanwhile: no cycle)
            self.passed[key] = UNKNOWN
            self.passed[key] = self._passed_everywhere(method, key[1], len(names), depth)
        return self.passed[key]

    def _passed_everywhere(self, method: Node, index: int, count: int, depth: int) -> Any:
        """The one bound property every call of `method` in the file passes at `index`."""
        found: Any = UNKNOWN
        for call in self._calls_named(_text(method.child_by_field_name("name"))):
            receiver = _receiver(call)
            given = _arguments(call)
            if (receiver is not None and _text(receiver) != "this") or len(given) != count:
                return UNKNOWN  # another object's method, or another overload
            argument = given[index]
            if argument.type != "method_invocation":
                return UNKNOWN
            value = self._property(argument, _method(argument), _arguments(argument), depth + 1)
            if not isinstance(value, BoundProperty) or found not in (UNKNOWN, value):
                return UNKNOWN
            found = value
        return found

    def _declared_type(self, at: Node, name: str) -> str | None:
        """The simple name of the type `name` is declared with where `at` reads it."""
        found = self._declaration(at, name)
        return found[1] if found is not None else None

    def _declaration(self, at: Node, name: str) -> tuple[Node, str | None] | None:
        """The name node that declares `name` where `at` reads it, and the simple name of
        its type: a parameter or a local of an enclosing method (a `this.` field skips
        them), else a field of an enclosing class."""
        scope = _enclosing(at, _SCOPES) if at.type == "identifier" else None
        while scope is not None:
            declared = self.declared.get(scope.id)
            if declared is None:  # a scope's declarations are read once, for all its reads
                declared = self.declared[scope.id] = {}
                for node in self._declarations(scope):
                    names = [node.child_by_field_name("name")] + [
                        d.child_by_field_name("name")
                        for d in node.children_by_field_name("declarator")
                    ]
                    typed = _type_name(node.child_by_field_name("type"))
                    for named in names:
                        if named is not None:
                            declared.setdefault(_text(named), (named, typed))
            if name in declared:
                return declared[name]
            scope = _enclosing(scope, _SCOPES)
        owner = _enclosing(at, _CLASSES)
        while owner is not None:
            fields = self.declared.get(owner.id)
            if fields is None:
                fields = self.declared[owner.id] = {}
                body = owner.child_by_field_name("body")
                for member in body.named_children if body is not None else ():
                    if member.type != "field_declaration":
                        continue
                    typed = _type_name(member.child_by_field_name("type"))
                    for declarator in member.children_by_field_name("declarator"):
                        named = declarator.child_by_field_name("name")
                        if named is not None:
                            fields.setdefault(_text(named), (named, typed))
            if name in fields:
                return fields[name]
            owner = _enclosing(owner, _CLASSES)
        return None

    def _ternary(self, node: Node, depth: int) -> Any:
        """`x != null ? x : "d"` (or `x == null ? "d" : x`): an environment value's default."""
        condition = node.child_by_field_name("condition")
        yes = node.child_by_field_name("consequence")
        no = node.child_by_field_name("alternative")
        if condition is None or yes is None or no is None or condition.type != "binary_expression":
            return UNKNOWN
        operator = _text(condition.child_by_field_name("operator"))
        sides = [condition.child_by_field_name("left"), condition.child_by_field_name("right")]
        tested = [s for s in sides if s is not None and s.type != "null_literal"]
        if len(tested) != 1 or not any(s is not None and s.type == "null_literal" for s in sides):
            return UNKNOWN
        kept, fallback = (
            (yes, no)
            if operator == "!="
            else (no, yes)
            if operator == "=="
            else (
                None,
                None,
            )
        )
        if kept is None or fallback is None or _text(kept) != _text(tested[0]):
            return UNKNOWN
        return _with_default(self.value(kept, depth + 1), self.value(fallback, depth + 1))

    def data(self, node: Node, depth: int = 0) -> Any:
        """A literal map or list as data (`Map.of`, `ImmutableMap.of`, `List.of`,
        `ImmutableList.of`, `Arrays.asList`, `Collections.singletonMap/List`), with
        strings, numbers and booleans as leaves; UNKNOWN otherwise."""
        if not self.budget.step(depth):
            return UNKNOWN
        if node.type == "identifier":
            scope = _enclosing(node, _SCOPES)
            while scope is not None:
                values = self._scope_bindings(scope).get(_text(node))
                if values is not None:
                    if len(values) != 1 or values[0] is None:
                        return UNKNOWN
                    return self.data(values[0], depth + 1)
                scope = _enclosing(scope, _SCOPES)
            constant = self.constant(node, _text(node))
            return self.data(constant, depth + 1) if constant is not None else UNKNOWN
        if node.type != "method_invocation":
            found = self.value(node, depth + 1)
            return found if isinstance(found, str | int | float | bool) else UNKNOWN
        owner = _simple(_text(_receiver(node)))
        method = _method(node)
        items = [self.data(a, depth + 1) for a in _arguments(node)]
        if any(item is UNKNOWN for item in items):
            return UNKNOWN
        if (owner, method) in (
            ("Map", "of"),
            ("ImmutableMap", "of"),
            ("Collections", "singletonMap"),
        ) and len(items) % 2 == 0:
            keys = items[::2]
            if not all(isinstance(k, str) for k in keys):
                return UNKNOWN
            return dict(zip(keys, items[1::2], strict=True))
        if (owner, method) in (
            ("List", "of"),
            ("ImmutableList", "of"),
            ("Arrays", "asList"),
            ("Collections", "singletonList"),
        ):
            return items
        if (owner, method) == ("Collections", "emptyMap"):
            return {}
        if (owner, method) == ("Collections", "emptyList"):
            return []
        return UNKNOWN


def _address_like(value: Any) -> bool:
    """A value that may name where a client connects: from the environment or the
    settings, or a text with a scheme."""
    if isinstance(value, str):
        return "://" in value
    return isinstance(value, EnvRef | Setting | BoundProperty | Joined)


# The schemes grpc-java resolves itself (the rest are a program's own NameResolverProvider).
_KNOWN_SCHEMES = frozenset({"dns", "unix", "unix-abstract", "xds", "google-c2p", "directaddress"})
_SCHEME = regex.compile(r"^([A-Za-z][\w+.-]*):/")


def _custom_scheme(target: str) -> bool:
    """`example:///name`: a scheme grpc-java does not resolve itself, so one the program
    registers a resolver for (NameResolverRegistry)."""
    found = _SCHEME.match(target)
    return found is not None and found.group(1).lower() not in _KNOWN_SCHEMES


def _compared(node: Node) -> bool:
    """Whether `node` is a side of an `==` or `!=` comparison."""
    parent = _unparenthesised_parent(node)
    return (
        parent is not None
        and parent.type == "binary_expression"
        and _text(parent.child_by_field_name("operator")) in ("==", "!=")
    )


def _referenced(node: Node) -> str | None:
    """The method of a method reference made on `node` (`node::method`)."""
    parent = _unparenthesised_parent(node)
    if parent is None or parent.type != "method_reference":
        return None
    parts = [c for c in parent.named_children if "comment" not in c.type]
    if len(parts) != 2 or not _same(parts[0], node):
        return None
    return _text(parts[1])


def _class_of(node: Node) -> str:
    owner = _enclosing(node, _CLASSES)
    return _text(owner.child_by_field_name("name")) if owner is not None else ""


def _reads_name(node: Node, parent: Node | None) -> bool:
    """Whether a name node (below `parent`) reads a variable: not a method's, a field's or
    a declaration's own name, nor the left side of an assignment (`builder = ...`: the
    calls on the right are read on their own)."""
    if node.type != "identifier" or parent is None:
        reads = node.type == "field_access"
    elif parent.type == "field_access":
        reads = _same(parent.child_by_field_name("object"), node)
    else:
        reads = not _same(parent.child_by_field_name("name"), node)
    if parent is not None and parent.type == "assignment_expression":
        return reads and not _same(parent.child_by_field_name("left"), node)
    return reads


def _rebinding(block: Node) -> dict[str, list[int]]:
    """Where the statements of a block bind each name to a new value (`T name = ...;`,
    `name = ...;`, not `name = name.method(...);`), by the byte each starts at."""
    found: dict[str, list[int]] = {}
    for statement in block.named_children:
        if statement.type == "local_variable_declaration":
            bound = statement.children_by_field_name("declarator")
        elif statement.type == "expression_statement" and statement.named_children:
            assigned = statement.named_children[0]
            bound = [assigned] if assigned.type == "assignment_expression" else []
        else:
            continue
        for binding in bound:  # a declarator (name, value) or an assignment (left, right)
            name = _named(
                binding.child_by_field_name("name") or binding.child_by_field_name("left")
            )
            value = binding.child_by_field_name("value") or binding.child_by_field_name("right")
            if name is not None and _chain_root(value) != name:
                found.setdefault(name, []).append(statement.start_byte)
    return found


def _chain_root(node: Node | None) -> str | None:
    """The name a chain of calls starts from (`builder` of `builder.a().b()`)."""
    while node is not None and node.type in ("method_invocation", "parenthesized_expression"):
        inner = node.named_children[:1] if node.type == "parenthesized_expression" else []
        node = _receiver(node) if node.type == "method_invocation" else inner[0] if inner else None
    return _named(node)


def _address(host: Any, port: Any) -> Any:
    """`host:port` (`:port` for every address), as far as its parts are known."""
    if host is UNKNOWN or port is UNKNOWN:
        return UNKNOWN
    return joined([host, ":", str(port) if _number(port) else port])


def _listen_at(host: Any, port: Any) -> Any:
    """Where a server listens (`new InetSocketAddress(host, port)`): `host:port`, or, when
    only the host is read, `HOST:` with its port left out (facts.listen_head), enough to
    say whether the server listens in its own pod only (`"localhost"`)."""
    address = _address(host, port)
    if isinstance(address, Unknown) and isinstance(host, str) and host:
        return listen_head((f"[{host}]" if ":" in host else host) + ":") or address
    return address


def _unix_address(path: Any) -> str:
    """A server's Unix socket (`new DomainSocketAddress(path)`) as a gRPC target writes
    it: `unix:PATH`, `unix:` alone where the path is not read."""
    return f"unix:{path}" if isinstance(path, str) else "unix:"


def _env_default(name: Any, default: Any) -> Any:
    if not isinstance(name, str):
        return UNKNOWN
    return EnvRef(name, default if isinstance(default, str) else UNKNOWN)


def _with_default(env: Any, default: Any) -> Any:
    """An environment value with no default, given one."""
    if not isinstance(env, EnvRef) or env.default is not None or env.prefix or env.suffix:
        return UNKNOWN
    if _number(default):
        default = str(default)
    return EnvRef(env.name, default if isinstance(default, str) else UNKNOWN)


def _string(node: Node) -> Any:
    """A string literal's text; escapes beyond the common ones leave it unknown."""
    parts: list[str] = []
    for child in node.named_children:
        if child.type == "string_fragment":
            parts.append(_text(child))
        elif child.type == "escape_sequence":
            escaped = _ESCAPES.get(_text(child))
            if escaped is None:
                return UNKNOWN
            parts.append(escaped)
        else:
            return UNKNOWN
    return "".join(parts)


_ESCAPES = {"\\n": "\n", "\\t": "\t", '\\"': '"', "\\'": "'", "\\\\": "\\", "\\r": "\r"}


def _integer(text: str) -> Any:
    """A Java integer literal: `1_000`, `5L`, `0x1F`, `0b101`, `017` (octal)."""
    cleaned = text.replace("_", "").rstrip("lL").lower()
    try:
        if cleaned.startswith(("0x", "0b")):
            return int(cleaned, 0)
        if len(cleaned) > 1 and cleaned.startswith("0"):
            return int(cleaned, 8)
        return int(cleaned)
    except ValueError:
        return UNKNOWN


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _arithmetic(operator: str, left: float, right: float) -> Any:
    if operator == "*":
        return left * right
    if operator == "+":
        return left + right
    if operator == "-":
        return left - right
    if operator == "/" and right:
        both_int = isinstance(left, int) and isinstance(right, int)
        return int(left / right) if both_int else left / right
    return UNKNOWN


_SPECIFIER = regex.compile(r"(%[sd%n])")


def _format(template: str, values: list[Any]) -> Any:
    """`String.format("%s:%d", host, port)` with %s and %d; others leave it unknown."""
    parts: list[Any] = []
    remaining = iter(values)
    for piece in _SPECIFIER.split(template):
        if piece == "%%":
            parts.append("%")
        elif piece == "%n":
            parts.append("\n")
        elif piece in ("%s", "%d"):
            value = next(remaining, UNKNOWN)
            parts.append(str(value) if _number(value) else value)
        elif "%" in piece:
            return UNKNOWN
        else:
            parts.append(piece)
    return joined(parts)
