"""Kotlin source -> `CodeFacts`, with tree-sitter's Kotlin grammar (no Kotlin compiler
needed): the same facts Java's reader finds, for the same libraries called from Kotlin.
A Kotlin service on the JVM builds its gRPC servers and channels with grpc-java's builders
(grpc-kotlin's coroutine stubs and services run on them), so the words are Java's:
`ServerBuilder.forPort(port)`, `NettyServerBuilder`, `ManagedChannelBuilder.forAddress` and
`forTarget`, their duration settings (`.maxConnectionAge(5, TimeUnit.MINUTES)`, also
called inside `.apply { ... }` on the builder), `.build()`, `.start()`,
`awaitTermination()`, `shutdown()` and `shutdownNow()`, the JVM's shutdown hooks
(`Runtime.getRuntime().addShutdownHook(Thread { ... })`), grpc-java's health service, and
the Spring Boot starters' annotations (read from the bytes, as in Java).

A builder is followed along its chain of calls and through the `val` or `var` that holds
it, up to `.build()`; one handed to a function, returned, or configured in a scope
function k8slb does not read (`also`, `let`) has options it cannot see: `complete` is
False. Values are followed through number and string literals (with `$name` and
`${...}` templates), `+`, `const val`s and `val`s bound once in their scope, and the
environment (`System.getenv("X")`, with a default from `?:` or `getOrDefault`).

A primary constructor's parameter read in its class is what the project's calls of the
constructor pass (facts.Constructed, as Java's `new`), and a `@Value("${key}")` property
the project's setting (facts.Setting). Only files that name `io.grpc` (or a channel
builder of another package) are read, and those with a `@Value` for what they hand
constructors; build output (`build/`, `target/`), generated code and tests are not
reported. Not read, where Java's reader does: HTTP clients' pools,
`@ConfigurationProperties` classes, pauses in shutdown hooks, and values another file's
functions pass.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_DEPTH, Budget
from k8slb.code.facts import (
    UNKNOWN,
    Channel,
    CodeFacts,
    Constructed,
    EnvRef,
    HealthServicer,
    Listen,
    Loc,
    Option,
    Options,
    Server,
    Stop,
    Wait,
    joined,
)
from k8slb.code.syntax_trees import (
    READ_CHUNK,
    Calls,
    captured,
    graded,
    parse_seconds,
    parsed,
    syntax_problem,
    too_deep,
)
from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.languages.java import parse as java
from k8slb.languages.java.parse_quarkus import quarkus_channels
from k8slb.languages.java.parse_spring import injected, starter_channels
from k8slb.reading.markers import comment_markers, comment_pattern

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# What makes a file worth a syntax tree: grpc-java named (an import, a qualified name), or
# a channel builder of a wrapper's package.
WATCHED = (b"io.grpc", b"ManagedChannelBuilder")
# A file that names none of them is read for the values it hands constructors of other
# files (facts.Constructed) when a framework injects one (`@Value("${key}")`, Spring's and
# Micronaut's); its syntax errors are not told (nothing k8slb reports is lost there).
INJECTING = (b"@Value",)
_COMMENTS = ("line_comment", "block_comment")
# The nodes a function's body is: what a call or a name is placed in (innermost first).
_FUNCTIONS = ("function_declaration", "lambda_literal", "anonymous_function")
# Scope functions whose lambda has the builder as `this`: its unqualified calls are the
# builder's. The others (`also`, `let`) name it `it`: read as settings k8slb cannot see.
_THIS_SCOPES = frozenset({"apply", "run", "with"})
_IT_SCOPES = frozenset({"also", "let"})
_SERVER_METHODS = frozenset({"start", "awaitTermination", "shutdown", "shutdownNow"})
# Calls that keep the value they are made on, as far as an address or a port goes.
_CONVERSIONS = frozenset({"toInt", "toLong", "toString", "trim", "toIntOrNull", "toLongOrNull"})
_IDENTIFIER_START = regex.compile(r"^[A-Za-z_][A-Za-z0-9_]*")
# How far `_enclosing` climbs (each step asks tree-sitter for a parent, found from the
# root): past it a name's home is unknown, and the builder's settings are left incomplete.
MAX_CLIMB = 64
# How often tree-sitter may ask for the file's bytes, READ_CHUNK at a time: a file read
# once is read once a chunk (_parsed).
MAX_READS_PER_CHUNK = 4
MAX_EXTRA_READS = 2000
# What declares parameters, and the bodies that hold members read without their owner.
_PARAMETER_OWNERS = (
    "function_declaration",
    "lambda_literal",
    "anonymous_function",
    "class_declaration",
)
_OBJECTS = ("companion_object", "object_declaration")
# Bindings of one name a value is looked up among: past it, the name is unknown.
MAX_BINDINGS = 256
# Nodes walked to tell whether a tree's errors are only hidden separators.
MAX_ERROR_NODES = 100_000
_GENERATED = regex.compile(rb"Generated by the protocol buffer compiler|@(?:\w+\.)*Generated\b")
# A program's entry point: a `main` function (top-level, or an object's `@JvmStatic` one),
# or the class Spring Boot or Quarkus starts the application from.
_ENTRY_POINT = regex.compile(rb"\bfun\s+main\s*\(|@SpringBootApplication\b|@QuarkusMain\b")

# What a file's reading looks at, found by tree-sitter's query engine: calls, functions and
# lambdas (a shutdown hook's, and the scopes calls are placed in), object expressions (an
# anonymous `Thread`), what binds a name (declarations, assignments), where a name is
# handed on (an argument, a `return`), `catch` blocks, the blocks names are declared in,
# and callable references (`Thread(::stop)`).
_READ = """
(call_expression) @call
(function_declaration) @function
(lambda_literal) @lambda
(anonymous_function) @lambda
(object_literal) @object
(property_declaration) @property
(assignment) @assignment
(value_argument (identifier) @passed)
(return_expression (identifier) @passed)
(catch_block) @catch
(callable_reference) @reference
(parameter (identifier) @parameter)
(class_parameter (identifier) @parameter)
(lambda_parameters (variable_declaration (identifier) @parameter))
[(block) (class_body) (lambda_literal) (function_body) (source_file)] @scope
"""
_URL_STRINGS = "(string_literal) @string"
_NOT_SERVING = '((identifier) @not_serving (#eq? @not_serving "NOT_SERVING"))'


@cache
def _read_query(strings: bool, drains: bool) -> str:
    return "\n".join([_READ, *[_URL_STRINGS] * strings, *[_NOT_SERVING] * drains])


def worth_parsing(data: bytes) -> bool:
    return any(word in data for word in WATCHED)


def is_test(path: str) -> bool:
    """Gradle's and Maven's test sources (`src/test/kotlin`), and JUnit's naming."""
    *folders, name = path.split("/")
    return "test" in folders or name.endswith(("Test.kt", "Tests.kt", "IT.kt"))


@cache
def parser() -> Parser:
    import tree_sitter_kotlin
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_kotlin.language()))


def parse(path: str, data: bytes) -> CodeFacts:
    """The facts of one Kotlin file; a file that names grpc-java and does not parse gives a
    KLB004 problem."""
    facts = CodeFacts(path, "kotlin", is_test=is_test(path))
    facts.package = java.entry_point_package(facts, data, _ENTRY_POINT)
    facts.configures_servers = any(word in data for word in java.SERVER_CONFIGURERS)
    if b"@Enable" in data:
        facts.registrations = java._discovery_registrations(path, data)
    built = java.is_build_output(path)
    generated = _GENERATED.search(data) is not None
    if b"pcService" in data and not (facts.is_test or built):
        facts.starter_services = java._starter_services(path, data)
    if b"GrpcClient" in data and not (facts.is_test or built or generated):
        facts.channels = quarkus_channels(path, data) + starter_channels(path, data)
        facts.deferred = bool(facts.channels)
    injecting = not worth_parsing(data) and any(word in data for word in INJECTING)
    if built or generated or not (injecting or worth_parsing(data)):
        return facts
    root = _parsed(data)
    if injecting and (
        root is None
        or syntax_problem(path, root, "Kotlin") is not None
        or too_deep(path, root, "Kotlin") is not None
    ):
        return facts
    if root is None:
        facts.problem = Problem(
            "KLB004",
            path,
            1,
            1,
            "not analysed: tree-sitter's Kotlin grammar went back over the file more than "
            f"its budget allows, or took more than {parse_seconds():g} s of CPU (its "
            "recovery from syntax errors it finds)",
            severity=Severity.INFO,
        )
        return facts
    problem = syntax_problem(path, root, "Kotlin")
    if problem is not None and not _separators_missing_only(root):
        # tree-sitter's Kotlin grammar may refuse code the compiler takes
        facts.problem = graded(problem, root, data, "Kotlin")
        return facts
    facts.problem = too_deep(path, root, "Kotlin")
    if facts.problem is not None:
        return facts
    _Reader(path, facts).run(root, data)
    facts.markers = comment_markers(path, data.decode("utf-8", "replace"), comment_pattern("//"))
    return facts


def _parsed(data: bytes) -> Node | None:
    """The file's tree, or None when tree-sitter reads the file's bytes more often than
    MAX_READS allows (or takes longer than any file's parse may): its Kotlin grammar's
    recovery from an error it finds goes back over what it read, and some errors repeated
    (a thousand one-line object bodies) make that quadratic. The reads are counted: a
    file read once costs one read a chunk, so the budget is linear, and the same on every
    machine."""
    budget = MAX_READS_PER_CHUNK * (len(data) // READ_CHUNK + 1) + MAX_EXTRA_READS
    return parsed(parser(), data, max_reads=budget)


def _separators_missing_only(root: Node) -> bool:
    """Whether the tree's only errors are tokens the grammar hides and inserted (no ERROR,
    no visible missing node): the separator it wants between a class's members where the
    compiler takes a closing brace (`object : Thread() { override fun run() { ... } }` on
    one line). The tree is whole but for that token, so it is read. Only the nodes that
    hold an error are walked, and at most MAX_ERROR_NODES of them."""
    stack = [root]
    for _ in range(MAX_ERROR_NODES):
        if not stack:
            return True
        node = stack.pop()
        if node.is_error or node.is_missing:
            return False
        stack.extend(child for child in node.children if child.has_error)
    return False


# -- the shapes of Kotlin's tree ----------------------------------------------------------


def _loc(path: str, node: Node) -> Loc:
    return Loc(path, int(node.start_point[0]) + 1, int(node.start_point[1]) + 1)


def _callee(call: Node) -> Node | None:
    return call.named_child(0)


def _method(call: Node) -> str:
    """`forPort` of `ServerBuilder.forPort(p)`, `thread` of `thread { ... }`."""
    callee = _callee(call)
    if callee is None:
        return ""
    if callee.type == "navigation_expression":
        last = callee.named_child(callee.named_child_count - 1)
        return _text(last) if last is not None and last.type == "identifier" else ""
    return _text(callee) if callee.type == "identifier" else ""


def _receiver(call: Node) -> Node | None:
    """What a call is made on (`ServerBuilder` of `ServerBuilder.forPort(p)`), its
    parentheses left out; None for a call of a plain name."""
    callee = _callee(call)
    if callee is None or callee.type != "navigation_expression":
        return None
    receiver = callee.named_child(0)
    while receiver is not None and receiver.type == "parenthesized_expression":
        receiver = receiver.named_child(0)
    return receiver


def _arguments(call: Node) -> list[Node]:
    """A call's argument expressions in order (a named argument's value), comments and
    the trailing lambda left out."""
    found: list[Node] = []
    for child in call.named_children:
        if child.type != "value_arguments":
            continue
        for argument in child.named_children:
            if argument.type != "value_argument":
                continue
            values = [c for c in argument.named_children if c.type not in _COMMENTS]
            if values:
                found.append(values[-1])
    return found


def _positional_arguments(call: Node) -> list[Node]:
    """A call's arguments when each is in its place (none named, `port = 1`, nor spread,
    `*xs`, nor a trailing lambda); else none."""
    found: list[Node] = []
    for child in call.named_children:
        if child.type == "annotated_lambda":
            return []
        if child.type != "value_arguments":
            continue
        for argument in child.named_children:
            if argument.type != "value_argument":
                continue
            if any(c.type in ("=", "*") for c in argument.children):
                return []
            values = [c for c in argument.named_children if c.type not in _COMMENTS]
            if len(values) != 1:
                return []
            found.append(values[0])
    return found


def _primary_constructor(owner: Node) -> tuple[str, dict[str, int], int] | None:
    """A class's name, the places of its primary constructor's parameters by their names
    (a `var` one left out: the class may change it) and their count; None without one."""
    named = next((c for c in owner.named_children if c.type == "identifier"), None)
    listed = next((c for c in owner.named_children if c.type == "primary_constructor"), None)
    parameters = next(
        (c for c in (listed.named_children if listed else ()) if c.type == "class_parameters"),
        None,
    )
    if named is None or parameters is None:
        return None
    found = [c for c in parameters.named_children if c.type == "class_parameter"]
    places = {
        name: at
        for at, parameter in enumerate(found)
        if (name := _binding_of(parameter)) is not None
        and not any(c.type == "var" for c in parameter.children)
    }
    return _text(named), places, len(found)


def _binding_of(parameter: Node) -> str | None:
    """The name a class parameter binds."""
    named = next((c for c in parameter.named_children if c.type == "identifier"), None)
    return _text(named) if named is not None else None


def _annotation_argument(declaration: Node, name: str) -> Node | None:
    """The one argument of a declaration's annotation of that simple name (`@Value("x")`,
    or `@field:Value("x")`), or None."""
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    for annotation in modifiers.named_children if modifiers is not None else ():
        invoked = next(
            (c for c in annotation.named_children if c.type == "constructor_invocation"), None
        )
        if invoked is None or not invoked.named_children:
            continue
        if _simple(_text(invoked.named_children[0])) != name:
            continue
        given = _positional_arguments(invoked)
        return given[0] if len(given) == 1 else None
    return None


def _lambda(call: Node) -> Node | None:
    """A call's trailing lambda (`apply { ... }`)."""
    for child in call.named_children:
        if child.type == "annotated_lambda":
            return next((c for c in child.named_children if c.type == "lambda_literal"), None)
    return None


def _simple(text: str) -> str:
    return text.rsplit(".", 1)[-1]


def _named(node: Node | None) -> str | None:
    """The name an expression is when it is a plain name: `server`, `this.server`."""
    if node is None:
        return None
    if node.type == "identifier":
        return _text(node)
    parts = node.named_children if node.type == "navigation_expression" else []
    if len(parts) == 2 and parts[0].type == "this_expression" and parts[1].type == "identifier":
        return _text(parts[1])
    return None


def _parent(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return parent


def _bound_to(node: Node) -> str | None:
    """The `val`, `var` or property an expression's value is stored in."""
    parent = _parent(node)
    if parent is None:
        return None
    if parent.type == "property_declaration":
        declared = next(
            (c for c in parent.named_children if c.type == "variable_declaration"), None
        )
        if declared is None or declared.id == node.id:
            return None
        return _text(declared.named_children[0]) if declared.named_children else None
    if parent.type == "assignment":
        left = parent.child_by_field_name("left")
        if left is not None and left.id != node.id and _text(parent.child(1)) == "=":
            return _named(left)
    return None


def _binding_name(node: Node) -> str | None:
    """The name a property declaration or an assignment binds."""
    if node.type == "property_declaration":
        declared = next((c for c in node.named_children if c.type == "variable_declaration"), None)
        first = (
            declared.named_children[0] if declared is not None and declared.named_children else None
        )
        return _text(first) if first is not None and first.type == "identifier" else None
    return _named(node.child_by_field_name("left"))


def _initialiser(node: Node) -> Node | None:
    """A property declaration's value (`val port = 9090`), not a delegate's."""
    seen_equals = False
    for child in node.children:
        if seen_equals and child.is_named:
            return child
        seen_equals = seen_equals or child.type == "="
    return None


def _is_val(node: Node) -> bool:
    return any(child.type == "val" for child in node.children)


def _enclosing(node: Node, kinds: tuple[str, ...]) -> Node | None:
    """The nearest node above of one of these kinds, within MAX_CLIMB steps."""
    parent = node.parent
    for _ in range(MAX_CLIMB):
        if parent is None or parent.type in kinds:
            return parent
        parent = parent.parent
    return None


def _walk_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _within(nodes: list[Node], starts: list[int], scope: Node) -> list[Node]:
    """The nodes (sorted, their starts given) that start inside `scope`."""
    return nodes[bisect_left(starts, scope.start_byte) : bisect_left(starts, scope.end_byte)]


def _innermost(scopes: list[Node], targets: list[Node]) -> dict[int, Node]:
    """The innermost of `scopes` holding each target, by the target's id: one sweep of both
    in source order with the open scopes on a stack (climbing each target's parents, which
    tree-sitter finds from the root, is quadratic in the nesting)."""
    events = sorted(
        [(scope, True) for scope in scopes] + [(target, False) for target in targets],
        key=lambda event: (*_walk_order(event[0]), not event[1]),
    )
    open_scopes: list[Node] = []
    found: dict[int, Node] = {}
    for node, is_scope in events:
        while open_scopes and open_scopes[-1].end_byte <= node.start_byte:
            open_scopes.pop()
        if is_scope:
            if not open_scopes or open_scopes[-1].id != node.id:
                open_scopes.append(node)
        elif open_scopes:
            inner = open_scopes[-1]
            if inner.id == node.id and len(open_scopes) > 1:
                inner = open_scopes[-2]  # a scope is not its own
            if inner.id != node.id:
                found[node.id] = inner
    return found


@dataclass
class _Built:
    """The calls a builder gets before `.build()`, and whether they are all of them."""

    calls: list[Node] = field(default_factory=list)
    build: Node | None = None
    complete: bool = True


def _lifecycle_stops(functions: list[Node], data: bytes) -> list[Node]:
    """The functions a dependency-injection container runs as it closes, which Spring
    Boot does on SIGTERM (as Java's `_lifecycle_stops`): each `@PreDestroy` function, and
    the `override fun destroy()` of a Spring `DisposableBean`."""
    if b"PreDestroy" not in data and b"DisposableBean" not in data:
        return []
    found = []
    for function in functions:
        modifiers = next((c for c in function.children if c.type == "modifiers"), None)
        marks = {
            _simple(_text(mark).lstrip("@").split("(", 1)[0].strip())
            for mark in (modifiers.named_children if modifiers is not None else ())
        }
        listed = next((c for c in function.children if c.type == "function_value_parameters"), None)
        destroys = (
            b"DisposableBean" in data
            and _text(function.child_by_field_name("name")) == "destroy"
            and "override" in marks
            and (listed is None or not listed.named_children)
        )
        if "PreDestroy" in marks or destroys:
            found.append(function)
    return found


class _Reader:
    def __init__(self, path: str, facts: CodeFacts) -> None:
        self.path = path
        self.facts = facts
        self.budget = Budget()
        self.found: dict[str, list[Node]] = {}
        self.calls: list[tuple[Node, str]] = []
        self.names: dict[int, str] = {}  # each call's method, by the call's id
        self.receivers: dict[int, Node] = {}  # each call, by the id of what it is made on
        # the calls made on each plain name (`server.start()`): (start byte, call), sorted
        self.on_name: dict[str, list[tuple[int, Node]]] = {}
        self.called = Calls(())  # where each method is called, by its name
        self.ends = Calls(())  # where `x.shutdown()`, `x.shutdownNow()` are, by `x.method`
        # what binds each name (declarations and assignments), in source order, and where
        # a name is handed on (an argument, a `return`), by the byte each starts at
        self.bindings: dict[str, list[Node]] = {}
        self.binding_starts: dict[str, list[int]] = {}
        self.passed: Calls = Calls(())
        self.scope_of: dict[int, Node] = {}  # each binding's block, by its id
        self.hooks: list[Node] = []
        # each class's primary constructor (_primary_constructor), by the class's node id
        self.constructors: dict[int, tuple[str, dict[str, int], int] | None] = {}
        self.injections: dict[int, Any] = {}  # what `_injected` found, by the property's id

    # -- driving -----------------------------------------------------------------------

    def run(self, root: Node, data: bytes) -> None:
        lowered = data.lower()
        urls = b"http://" in lowered or b"https://" in lowered
        found = self.found = captured(parser(), root, _read_query(urls, b"NOT_SERVING" in data))
        self._index()
        self.facts.health_drains += [_loc(self.path, n) for n in found.get("not_serving", [])]
        for node in found.get("string", []):
            text = self.value(node)
            if isinstance(text, str) and text.lower().startswith(("http://", "https://")):
                self.facts.urls.append((text, _loc(self.path, node)))
        for call, method in self.calls:
            receiver = _receiver(call)
            key = (_simple(_text(receiver)) if receiver is not None else "", method)
            if key in java.SERVER_FACTORIES:
                self._server(call, java.SERVER_FACTORIES[key])
            elif key in java.CHANNEL_FACTORIES:
                self._channel(call, java.CHANNEL_FACTORIES[key])
            elif method in java.WRAPPED_FACTORIES and key[0].endswith(java.WRAPPED_BUILDER):
                self._channel(call, java.WRAPPED_FACTORIES[method])
            elif key == ("getRuntime()", "addShutdownHook"):
                self.facts.sigterm_handlers.append(_loc(self.path, call))  # run on SIGTERM
                self.hooks.append(call)
            elif method == "HealthStatusManager" and receiver is None:
                self.facts.health_servicers.append(HealthServicer(_loc(self.path, call), None))
            elif method in ("enterTerminalState", "clearStatus"):
                self.facts.health_drains.append(_loc(self.path, call))
        for function in _lifecycle_stops(found.get("function", []), data):
            self.facts.sigterm_handlers.append(_loc(self.path, function))  # run on SIGTERM
            self.hooks.append(function)
        self.hooks.sort(key=_walk_order)
        self._export_constructions()
        servers = {server.name for server in self.facts.servers if server.name}
        for call, method in self.calls:
            if method in _SERVER_METHODS:
                self._server_call(call, method, servers)

    def _index(self) -> None:
        found = self.found
        self.calls = [(call, _method(call)) for call in found.get("call", [])]
        self.names = {call.id: method for call, method in self.calls}
        on_name: dict[str, list[tuple[int, Node]]] = {}
        for call, _ in self.calls:
            receiver = _receiver(call)
            if receiver is None:
                continue
            self.receivers[receiver.id] = call
            named = _named(receiver)
            if named is not None:
                on_name.setdefault(named, []).append((receiver.start_byte, receiver))
        self.on_name = on_name
        self.called = Calls((method, call) for call, method in self.calls)
        self.ends = Calls(
            (f"{named}.{method}", call)
            for call, method in self.calls
            if method in java.SERVER_STOPS and (named := _named(_receiver(call))) is not None
        )
        binders = sorted(found.get("property", []) + found.get("assignment", []), key=_walk_order)
        for binder in binders:
            name = _binding_name(binder)
            if name is not None:
                self.bindings.setdefault(name, []).append(binder)
                self.binding_starts.setdefault(name, []).append(binder.start_byte)
        self.passed = Calls((_text(node), node) for node in found.get("passed", []))
        self.scope_of = _innermost(found.get("scope", []), binders)

    def _export_constructions(self) -> None:
        """What each call of a class's constructor (`PostClient(host, port.toInt())`: a
        capitalised name, every argument in its place) passes, for the parameters the
        class's code reads (facts.Constructed, resolved in imported.py as Java's `new`):
        exported when an argument is an address or a setting."""
        for call, method in self.calls:
            callee = _callee(call)
            if callee is None or callee.type != "identifier" or not method[:1].isupper():
                continue
            given = _positional_arguments(call)
            if not given:
                continue
            values = tuple(self.value(argument) for argument in given)
            if any(java._address_like(value) for value in values):
                self.facts.exports.setdefault(f"new {method}", []).append(values)

    def _method(self, call: Node) -> str:
        """A call's method name, as the reading of the file's calls found it."""
        found = self.names.get(call.id)
        return _method(call) if found is None else found

    # -- builders ----------------------------------------------------------------------

    def _chain(self, node: Node, built: _Built) -> Node:
        """Follow the calls made on `node` up to `.build()`; the outermost expression."""
        for _ in range(self.budget.left):
            call = self.receivers.get(node.id)
            if call is None:
                return node
            method = self._method(call)
            if method == "build":
                built.build = call
                return call
            scoped = _lambda(call)
            if method in _THIS_SCOPES and scoped is not None:
                built.calls += self._unqualified_calls(scoped)
            elif method in _IT_SCOPES or scoped is not None:
                built.complete = False  # settings made on `it`, or in a lambda k8slb skips
            else:
                built.calls.append(call)
            self.budget.left -= 1
            node = call
        return node

    def _unqualified_calls(self, body: Node) -> list[Node]:
        """The calls a lambda's statements make on its `this` (`maxConnectionAge(...)`)."""
        return [
            statement
            for statement in body.named_children
            if statement.type == "call_expression"
            and _callee(statement) is not None
            and _callee(statement).type == "identifier"  # type: ignore[union-attr]
        ]

    def _follow(self, factory: Node) -> _Built:
        """The calls a builder gets from its factory call to `.build()`: along its chain,
        through the name that holds it, through a function it is handed to (whose result is
        taken for the builder, with settings k8slb cannot see)."""
        built = _Built()
        node = factory
        for _ in range(MAX_DEPTH):
            top = self._chain(node, built)
            if built.build is not None:
                return built
            parent = _parent(top)
            if parent is not None and parent.type == "value_argument":
                helper = parent.parent.parent if parent.parent is not None else None
                if helper is None or helper.type != "call_expression":
                    return built
                built.complete = False  # the helper may set anything
                node = helper
                continue
            name = _bound_to(top)
            if name is not None:
                self._uses(name, top, built)
            return built
        return built

    def _uses(self, name: str, binding: Node, built: _Built) -> None:
        """The calls made on a builder held in `name`, from its binding up to the next one
        of the same name, within the function (or class) that holds it."""
        home = _enclosing(binding, (*_FUNCTIONS, "class_body", "source_file"))
        if home is None:
            built.complete = False
            return
        starts = self.binding_starts.get(name, [])
        after = bisect_right(starts, binding.start_byte)
        start = binding.start_byte
        end = min(home.end_byte, starts[after]) if after < len(starts) else home.end_byte
        if self.passed.within(name, home):
            built.complete = False  # handed to a function, returned: anything may be set
        reads = self.on_name.get(name, [])
        first = bisect_left(reads, start, key=lambda read: read[0])
        last = bisect_left(reads, end, key=lambda read: read[0])
        for _, receiver in reads[first:last]:
            before = built.build
            self._chain(receiver, built)
            if before is not None:
                built.build = before

    def _options(self, built: _Built) -> list[Option]:
        entries: list[Option] = []
        for call in built.calls:
            method = self._method(call)
            given = _arguments(call)
            callee = _callee(call)
            named = (
                callee.named_children[-1] if callee is not None and callee.named_children else None
            )
            where = _loc(self.path, named or call)
            if method in java.DURATION_OPTIONS and len(given) == 2:
                key = java.DURATION_OPTIONS[method]
                entries.append(Option(key, self.duration(*given), where))
            elif method == "permitKeepAliveWithoutCalls" and len(given) == 1:
                allowed = _text(given[0])
                value = {"true": 1, "false": 0}.get(allowed, UNKNOWN)
                entries.append(Option("grpc.keepalive_permit_without_calls", value, where))
            elif method == "defaultLoadBalancingPolicy" and len(given) == 1:
                entries.append(Option("grpc.lb_policy_name", self.value(given[0]), where))
            elif method == "defaultServiceConfig" and len(given) == 1:
                entries.append(Option("grpc.service_config", UNKNOWN, where))  # a Map
        return entries

    def duration(self, amount: Node, unit: Node) -> Any:
        """`(5, TimeUnit.MINUTES)` in milliseconds; Long.MAX_VALUE is grpc-java's "never",
        core's INT_MAX."""
        if _text(amount).endswith(java._INFINITE):
            return java.INT_MAX
        size = java.TIME_UNITS.get(_simple(_text(unit)))
        count = self.value(amount)
        if size is None or not java._number(count):
            return UNKNOWN
        milliseconds = count * size
        if milliseconds >= java.INT_MAX:
            return java.INT_MAX - 1
        return int(milliseconds) if float(milliseconds).is_integer() else milliseconds

    def _server(self, factory: Node, kind: str) -> None:
        built = self._follow(factory)
        if built.build is None:
            return  # built where k8slb cannot see: no server to judge
        top = self._chain_after_build(built.build)
        name = _bound_to(top)
        options = Options(built.complete, tuple(self._options(built)))
        made = f"{_simple(_text(_receiver(factory)))}.{self._method(factory)}"
        self.facts.servers.append(Server(_loc(self.path, factory), made, options, name))
        if name is not None:
            address = self._listen_address(kind, _arguments(factory))
            self.facts.listens.append(Listen(name, address, _loc(self.path, factory)))

    def _chain_after_build(self, build: Node) -> Node:
        """The server's own calls chained on `.build()` (`.start()`): the outermost."""
        node, started = build, False
        for _ in range(self.budget.left):
            call = self.receivers.get(node.id)
            if call is None:
                break
            started = started or self._method(call) == "start"
            node = call
        name = _bound_to(node) if started else None
        if name is not None:
            self.facts.starts.add(name)
        return node

    def _listen_address(self, kind: str, given: list[Node]) -> Any:
        if kind == "port" and given:
            return java._address("", self.value(given[0]))
        if kind == "address" and len(given) == 1 and given[0].type == "call_expression":
            parts = _arguments(given[0])
            if _method(given[0]) == "DomainSocketAddress":  # Netty's Unix socket
                return java._unix_address(self.value(parts[0]) if len(parts) == 1 else UNKNOWN)
            if _method(given[0]) != "InetSocketAddress":
                return UNKNOWN
            if len(parts) == 1:
                return java._address("", self.value(parts[0]))
            if len(parts) == 2:
                return java._listen_at(self.value(parts[0]), self.value(parts[1]))
        return UNKNOWN

    def _channel(self, factory: Node, kind: str) -> None:
        given = _arguments(factory)
        if kind == "target":
            target = self.value(given[0]) if given else UNKNOWN
        elif len(given) >= 2:
            target = java._address(self.value(given[0]), self.value(given[1]))
        else:
            target = UNKNOWN  # a SocketAddress: not a name that is resolved
        if isinstance(target, str) and java._custom_scheme(target):
            target = UNKNOWN  # a resolver of the program's own
        built = self._follow(factory)
        options = Options(built.complete, tuple(self._options(built)))
        top = self._chain_after_build(built.build) if built.build is not None else None
        name = _bound_to(top) if top is not None else None
        self.facts.channels.append(
            Channel(
                _loc(self.path, factory),
                f"{_simple(_text(_receiver(factory)))}.{self._method(factory)}",
                target,
                options,
                long_lived=not (name and self._closed_where_made(name, factory)),
                target_argument=(0, "target") if kind == "target" else None,
                default_scheme="dns",
            )
        )

    def _closed_where_made(self, name: str, factory: Node) -> bool:
        """Whether the function that makes the channel also shuts it down: a channel per
        call (not `main`'s, whose channels live as long as the program)."""
        function = _enclosing(factory, _FUNCTIONS)
        if function is None or _text(function.child_by_field_name("name")) == "main":
            return False
        return self.ends.within(f"{name}.shutdown", function) or self.ends.within(
            f"{name}.shutdownNow", function
        )

    # -- a server's life ----------------------------------------------------------------

    def _server_call(self, call: Node, method: str, servers: set[str]) -> None:
        """`server.start()`, `server.awaitTermination()`, `server.shutdown()`,
        `server.shutdownNow()` on a server the file builds."""
        name = _named(_receiver(call))
        if method == "awaitTermination" and not _arguments(call):
            if self._drains(call, name):
                return
            # only a gRPC Server waits with no timeout (an ExecutorService always has one)
            waited = name if name in servers else None
            self.facts.waits.append(Wait(_loc(self.path, call), waited, "awaitTermination()"))
            return
        if name is None or name not in servers:
            return
        if method == "start":
            self.facts.starts.add(name)
        elif method == "shutdown" and self._unawaited_in_a_hook(call):
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
        or after the same server's `shutdown()` (`shutdownNow()`) earlier in the same
        function (a `close()` function's drain)."""
        receiver = _receiver(call)
        if receiver is not None and receiver.type == "call_expression":
            return _method(receiver) in java.SERVER_STOPS
        function = self._function_of.get(call.id)
        return (
            name is not None
            and function is not None
            and java.stop_begun(self.ends, name, function, call)
        )

    @cached_property
    def _stops(self) -> list[Node]:
        return [call for call, method in self.calls if method in java.SERVER_STOPS]

    @cached_property
    def _function_of(self) -> dict[int, Node]:
        """The innermost function, lambda or anonymous function of each stop and each
        `awaitTermination()`, by its id."""
        functions = self.found.get("function", []) + self.found.get("lambda", [])
        waits = [call for call, method in self.calls if method == "awaitTermination"]
        return _innermost(functions, self._stops + waits)

    @cached_property
    def _hook_of(self) -> dict[int, Node]:
        """The `addShutdownHook(...)` call each stop is made in, by its id."""
        return _innermost(self.hooks, self._stops)

    @cached_property
    def _caught(self) -> dict[int, Node]:
        """The `catch` block each stop is made in, by its id."""
        return _innermost(self.found.get("catch", []), self._stops)

    @cached_property
    def _hook_names(self) -> set[str]:
        """The functions the shutdown hooks call by name (`stop()`, `Thread(::stop)`,
        `this@Server.stop()`)."""
        named = list(self.calls)
        named += [(ref, _simple(_text(ref)).lstrip(":")) for ref in self.found.get("reference", [])]
        named.sort(key=lambda pair: _walk_order(pair[0]))
        starts = [node.start_byte for node, _ in named]
        called: set[str] = set()
        end = -1
        for hook in self.hooks:  # one within another's bytes adds nothing it has not
            if hook.start_byte < end:
                continue
            end = hook.end_byte
            within = named[
                bisect_left(starts, hook.start_byte) : bisect_left(starts, hook.end_byte)
            ]
            called.update(name for _, name in within)
        return called

    def _unawaited_in_a_hook(self, call: Node) -> bool:
        """A `server.shutdown()` a shutdown hook runs (in the hook, or in a function of the
        file it calls) with no `awaitTermination` in either: shutdown() only refuses new
        calls, and the JVM halts as soon as its hooks return."""
        if not self.hooks:
            return False
        function = self._function_of.get(call.id)
        hook = self._hook_of.get(call.id)
        if (
            hook is None
            and function is not None
            and function.type == "function_declaration"
            and _text(function.child_by_field_name("name")) in self._hook_names
        ):
            hook = function
        if hook is None:
            return False
        scopes = [hook, *([function] if function is not None else [])]
        return not any(self.called.within("awaitTermination", scope) for scope in scopes)

    def _bounds_a_graceful_stop(self, call: Node, name: str) -> bool:
        """A `shutdownNow()` that ends a graceful stop gone on too long: in a `catch`, or
        after `shutdown()` of the same server in the same function."""
        if call.id in self._caught:
            return True
        function = self._function_of.get(call.id)
        if function is None:
            return False
        return self.ends.within(f"{name}.shutdown", function, before=call.start_byte)

    # -- values ------------------------------------------------------------------------

    def value(self, node: Node, depth: int = 0) -> Any:
        """What an expression holds, as far as the file says; UNKNOWN otherwise."""
        if not self.budget.step(depth):
            return UNKNOWN
        kind = node.type
        if kind == "number_literal":
            return java._integer(_text(node).rstrip("uU"))
        if kind == "string_literal":
            return self._string(node, depth)
        if kind == "parenthesized_expression" and node.named_children:
            return self.value(node.named_children[0], depth + 1)
        if kind == "identifier":
            return self._lookup(node, _text(node), depth)
        if kind == "navigation_expression":
            parts = node.named_children
            if len(parts) == 2 and parts[1].type == "identifier" and _named(parts[0]) is not None:
                # `Companion.PORT`, `Config.PORT`, `this.port`: the name, as the file binds it
                qualified = parts[0].type != "this_expression"
                return self._lookup(node, _text(parts[1]), depth, qualified)
            return UNKNOWN
        if kind == "binary_expression":
            return self._binary(node, depth)
        if kind == "call_expression":
            return self._call_value(node, depth)
        return UNKNOWN

    def _string(self, node: Node, depth: int) -> Any:
        """A string's text, with its templates (`$port`, `${host}`) followed."""
        parts: list[Any] = []
        template = False  # a `$` before a name: the next piece starts with it
        for child in node.named_children:
            text = _text(child)
            if child.type == "escape_sequence":
                escaped = "$" if text == "\\$" else java._ESCAPES.get(text)
                if escaped is None:
                    return UNKNOWN
                parts.append(escaped)
            elif child.type == "interpolation" and child.named_children:
                parts.append(self._text_of(self.value(child.named_children[0], depth + 1)))
            elif child.type == "string_content" and template:
                name = _IDENTIFIER_START.match(text)
                if name is None:
                    return UNKNOWN
                parts.append(self._text_of(self._lookup(child, name.group(0), depth + 1)))
                parts.append(text[name.end() :])
            elif child.type == "string_content":
                template = text == "$"
                if not template:
                    parts.append(text)
                continue
            else:
                return UNKNOWN
            template = False
        if template:
            parts.append("$")  # a `$` that ends the string is itself
        return joined(parts)

    @staticmethod
    def _text_of(value: Any) -> Any:
        return str(value) if java._number(value) else value

    def _lookup(self, at: Node, name: str, depth: int, qualified: bool = False) -> Any:
        """The value a name holds where it is read: the `val` (or `const val`) that binds it
        in the innermost block around `at` that binds it, when it binds it once; a `var`
        only when the file binds it nowhere else; a member of an object or a companion
        (`Config.PORT`, or `PORT` of the companion) when the file has one of that name.
        A parameter of that name around `at` hides them all (its value is the caller's);
        a name bound more than MAX_BINDINGS times is not followed."""
        bindings = self.bindings.get(name, [])
        if len(bindings) > MAX_BINDINGS:
            return UNKNOWN
        if self._a_parameter_around(at, name):
            return self._constructor_parameter(at, name)
        held = [
            binding
            for binding in bindings
            if (scope := self.scope_of.get(binding.id)) is not None
            and scope.start_byte <= at.start_byte < scope.end_byte
        ]
        if not held:
            members = [b for b in bindings if self._member(b, qualified)]
            held = members if len(members) == 1 else []
        if not held:
            return UNKNOWN
        innermost = max(held, key=lambda b: self.scope_of[b.id].start_byte)
        scope = self.scope_of[innermost.id]
        same = [b for b in held if self.scope_of[b.id].id == scope.id]
        if len(same) != 1 or innermost.type != "property_declaration":
            return UNKNOWN
        if not _is_val(innermost) and len(bindings) != 1:
            return UNKNOWN
        value = _initialiser(innermost)
        if value is None:  # `@Value("${key}") lateinit var host: String`
            return self._injected(innermost, depth)
        if value.start_byte <= at.start_byte < value.end_byte:
            return UNKNOWN
        return self.value(value, depth + 1)

    def _injected(self, declaration: Node, depth: int) -> Any:
        """What a framework injects into a property with no value of its own: a
        `@Value("${key:default}")`'s setting (Spring's and Micronaut's placeholders, read
        from the project's settings files, else the environment, as in Java)."""
        if declaration.id not in self.injections:  # each property's read once
            given = _annotation_argument(declaration, "Value")
            text = self.value(given, depth + 1) if given is not None else UNKNOWN
            self.injections[declaration.id] = injected(text) if isinstance(text, str) else UNKNOWN
        found = self.injections[declaration.id]
        self.facts.deferred |= found is not UNKNOWN
        return found

    def _constructor_parameter(self, at: Node, name: str) -> Any:
        """A parameter of the primary constructor of the class `at` is in, read in the
        class's code (`forAddress(host, port)` in a property's value) where no function or
        lambda nearer takes that name: what the project's calls of the constructor pass
        there (facts.Constructed). Not a `var` one (the class may change it)."""
        owners = self._parameter_owners.get(name, [])
        around = [o for o in owners if o.start_byte <= at.start_byte < o.end_byte]
        owner = max(around, key=lambda o: o.start_byte) if around else None
        if owner is None or owner.type != "class_declaration":
            return UNKNOWN
        if owner.id not in self.constructors:  # each class's read once
            self.constructors[owner.id] = _primary_constructor(owner)
        found = self.constructors[owner.id]
        if found is None or name not in found[1]:
            return UNKNOWN
        class_name, places, count = found
        self.facts.deferred = True
        return Constructed(class_name, places[name], count)

    def _member(self, binding: Node, qualified: bool) -> bool:
        """Whether a binding is a property an access from outside its class body reads:
        any class's or object's when the access names its owner (`Config.PORT`), a
        companion's or an object's when it does not."""
        scope = self.scope_of.get(binding.id)
        if scope is None or scope.type != "class_body":
            return False
        owner = scope.parent
        return qualified or (owner is not None and owner.type in _OBJECTS)

    def _a_parameter_around(self, at: Node, name: str) -> bool:
        """Whether a function, lambda or constructor around `at` takes a parameter `name`."""
        owners = self._parameter_owners.get(name, [])
        return any(owner.start_byte <= at.start_byte < owner.end_byte for owner in owners)

    @cached_property
    def _parameter_owners(self) -> dict[str, list[Node]]:
        """The functions, lambdas and classes that take each parameter, by its name (at
        most MAX_BINDINGS a name)."""
        owners: dict[str, list[Node]] = {}
        for parameter in self.found.get("parameter", []):
            owner = _enclosing(parameter, _PARAMETER_OWNERS)
            listed = owners.setdefault(_text(parameter), [])
            if owner is not None and len(listed) < MAX_BINDINGS:
                listed.append(owner)
        return owners

    def _binary(self, node: Node, depth: int) -> Any:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = _text(node.child(1)) if node.child_count == 3 else ""
        if left is None or right is None:
            return UNKNOWN
        first, second = self.value(left, depth + 1), self.value(right, depth + 1)
        if operator == "?:":
            return java._with_default(first, second)
        if first is UNKNOWN or second is UNKNOWN:
            return UNKNOWN
        if operator == "+" and not (java._number(first) and java._number(second)):
            return joined([self._text_of(first), self._text_of(second)])
        if java._number(first) and java._number(second):
            return java._arithmetic(operator, first, second)
        return UNKNOWN

    def _call_value(self, node: Node, depth: int) -> Any:
        """`System.getenv("X")`, `System.getenv().getOrDefault("X", "d")`, and the
        conversions that keep a value (`.toInt()`, `.trim()`)."""
        method = self._method(node)
        receiver = _receiver(node)
        given = _arguments(node)
        on = _text(receiver) if receiver is not None else ""
        if method == "getenv" and on == "System" and len(given) == 1:
            name = self.value(given[0], depth + 1)
            return EnvRef(name) if isinstance(name, str) else UNKNOWN
        if method == "getOrDefault" and on == "System.getenv()" and len(given) == 2:
            name, default = (self.value(g, depth + 1) for g in given)
            return java._env_default(name, self._text_of(default))
        if method in _CONVERSIONS and receiver is not None and not given:
            return self.value(receiver, depth + 1)
        return UNKNOWN
