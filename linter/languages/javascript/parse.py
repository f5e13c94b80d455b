"""JavaScript and TypeScript source -> `CodeFacts`, with tree-sitter's grammars: what a
Node.js module does with @grpc/grpc-js (or the legacy `grpc` package) and around it.

- gRPC servers (`new grpc.Server(options)`), where they listen (`bindAsync(address, ...)`,
  or the legacy package's `bind`, which starts them: from then on the event loop keeps the
  process up), how they are stopped (`forceShutdown()` aborts the calls in flight,
  `tryShutdown()` lets them end);
- gRPC clients (`new Client(target, grpc.credentials.create...(), options)`, the
  credentials also held in a variable; nice-grpc's `createChannel(address)`), long-lived
  unless the function that makes one also closes it;
- SIGTERM handlers (`process.on('SIGTERM', ...)`, also over a list of signals, and the
  shutdown libraries that install one: terminus, lightship, http-graceful-shutdown,
  close-with-grace, and @nestjs/terminus before 7, which runs terminus; NestJS's
  `app.enableShutdownHooks()`);
- health services (grpc-health-check's implementation, whose status a drain sets to
  NOT_SERVING, or a hand-written `check` given to `addService(...Health.service, ...)`);
- keep-alive HTTP agents (`new http.Agent({keepAlive: true})`, agentkeepalive, undici's
  pools) and the http(s) URLs of the module;
- Express routes and their handlers (parse_routes.py).

Options are written in the call or in a module `const` object (grpc-js takes gRPC's core
option names as they are: `grpc.max_connection_age_ms`, `grpc.service_config`). A value is
a string, a template string, a `+` concatenation, `process.env.X` (with a `||` or `??`
default), a module `const`, a variable (a function's, or a module `let` or `var`: each
value given to it), or what a relative module exports (`require('./config')`, `import
{ADDR} from './config.js'`: an `Imported` by path, resolved in code/imported.py); anything
else is unknown. A module that names none of these is read only for its exports, and only when it
may export an address."""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_CHOICES, MAX_DEPTH, MAX_NESTING, MAX_PARTS, Budget
from k8slb.code.facts import (
    NICE_ADDRESS,
    NICE_TLS_ADDRESS,
    NO_OPTIONS,
    NOT_GIVEN,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    CodeFacts,
    EnvRef,
    EnvText,
    FileKey,
    HealthServicer,
    HttpClient,
    Imported,
    Joined,
    Listen,
    Loc,
    Option,
    Options,
    Registration,
    RegistryDial,
    Server,
    SignalExit,
    Stop,
    Unknown,
    Wait,
    carried_url,
    choices,
    joined,
    listen_head,
    one_of,
    registry_scheme,
    settled,
)
from k8slb.code.syntax_trees import (
    Calls,
    call_arguments,
    captured,
    graded,
    minified,
    not_analysed,
    parse_too_long,
    parsed,
    syntax_problem,
    template_line,
    too_deep,
    walk,
)
from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex
from k8slb.languages.javascript.parse_connect import read_connect
from k8slb.languages.javascript.parse_env_helpers import (
    ENVIRONMENT_NAME,
    env_helper,
    top_level_functions,
)
from k8slb.languages.javascript.parse_nest import MICROSERVICES, config_value, read_nest
from k8slb.languages.javascript.parse_reading import (
    FUNCTIONS,
    enclosing_function,
    object_members,
)
from k8slb.languages.javascript.parse_routes import ROUTE_METHODS, collect_routes
from k8slb.languages.javascript.parse_shutdown import HeldCalls, signal_exit, signal_pause
from k8slb.reading.markers import comment_markers, comment_pattern

if TYPE_CHECKING:
    from k8slb.core.findings import Problem
    from tree_sitter import Node, Parser

GRPC = "@grpc/grpc-js"
# The gRPC packages whose Server and clients k8slb reads: grpc-js, and the legacy `grpc`
# package (native, deprecated, still in older services: the same `new grpc.Server(options)`
# and `new Client(target, grpc.credentials.create...(), options)`, gRPC's core option
# names, and a synchronous `bind(address, credentials)` then `start()`).
GRPC_PACKAGES = frozenset({GRPC, "grpc"})
# grpc-health-check (grpc-node's own; `HealthImplementation`, in 1.x `Implementation`) and
# its older fork grpc-js-health-check
HEALTH = ("grpc-health-check", "grpc-js-health-check")
# nice-grpc, a wrapper of grpc-js: `createServer(channelOptions)` makes a grpc-js Server
# with those options when `listen(address)` binds and starts it (`shutdown()` lets calls
# end, `forceShutdown()` cuts them); nice-grpc-server-health's `HealthServiceImpl()`
# answers SERVING until a `HealthState` it is given is set 'unhealthy' (or, before 2.0, a
# status map it is given is set NOT_SERVING).
NICE_GRPC = "nice-grpc"
NICE_SERVER = "createServer"
NICE_CHANNEL = "createChannel"  # a grpc-js Channel (what nice-grpc's createClient calls over)
NICE_HEALTH = "nice-grpc-server-health"
# How a nice-grpc server waits: listen() resolves, and the event loop keeps it serving.
NICE_WAIT = "the event loop (after listen())"
# How a nice-grpc server's abrupt stop is written (facts.Stop.written): its graceful one is
# shutdown(), not grpc-js's tryShutdown.
NICE_FORCE = "nice-grpc's forceShutdown()"
# Mali, a framework over grpc (or grpc-js): `new Mali(proto)` makes no server; its
# `start(address, credentials, options)` makes `new grpc.Server(options)`, binds and starts
# it (credentials may come first, the options second), and `close()` lets each server's
# calls end (tryShutdown). Its server is judged where start() makes it.
MALI = "mali"
MALI_START = "Mali's start"
MALI_WAIT = "the event loop (after Mali's start())"
# Libraries that install a SIGTERM handler of their own when used.
SHUTDOWN_LIBRARIES = (
    "@godaddy/terminus",
    "lightship",
    "http-graceful-shutdown",
    "close-with-grace",
)
# Apollo Server's classes (2 to 5) that stop the server on SIGINT and SIGTERM once it has
# started (apollo-server-core's `maybeRegisterTerminationSignalHandlers`, @apollo/server's
# `_start`: a handler that calls `stop()`, which drains the batteries-included package's
# HTTP server, then signals the process again), unless `stopOnTerminationSignals: false`,
# NODE_ENV (or the `nodeEnv` option) is `test`, or the server is started in the background
# as the serverless integrations start it; apollo-server-lambda, -azure-functions and
# -cloud-functions register none, and are not listed.
APOLLO_SERVERS = frozenset(
    {
        "apollo-server",
        "apollo-server-express",
        "apollo-server-koa",
        "apollo-server-fastify",
        "apollo-server-hapi",
        "apollo-server-micro",
        "@apollo/server",
    }
)
_APOLLO_SIGNALS = "stopOnTerminationSignals"
_APOLLO_BACKGROUND = "startInBackgroundHandlingStartupErrorsByLoggingAndFailingAllRequests"
# The NestJS method that installs SIGTERM (and other) handlers which close the application.
SHUTDOWN_HOOKS = "enableShutdownHooks"
# @nestjs/terminus before 7 ran @godaddy/terminus on the application's server, which
# installs a SIGTERM handler; these names are of that API only (7 removed them; from then
# on only enableShutdownHooks() does).
NEST_TERMINUS = "@nestjs/terminus"
_NEST_TERMINUS_6 = frozenset(
    {"TerminusOptionsFactory", "TerminusModuleOptions", "TerminusEndpoint", "forRootAsync"}
)
# Keep-alive HTTP clients: the module (as required) and the classes that pool connections.
HTTP_MODULES = {"http": "http", "node:http": "http", "https": "https", "node:https": "https"}
# axios's request methods, and `create`, whose instance sends through the same global agent
_AXIOS_CALLS = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "request", "create"}
)
# got's request methods; the modules whose default export (or `fetch`) is a fetch
_GOT_CALLS = frozenset({"get", "post", "put", "patch", "delete", "head"})
_FETCHES = frozenset({"node-fetch", "cross-fetch", "isomorphic-fetch", "undici"})
# the expressions a URL is written as, read up to its path when the rest is unknown
_TEXTS = ("template_string", "binary_expression")
# a request given its own agent (`httpAgent`, `agent`) or undici dispatcher
_OWN_AGENT = regex.compile(r"\b(?:https?Agent|agent|dispatcher)\s*:")
KEEPALIVE_LIBRARIES = {"agentkeepalive": "agentkeepalive", "undici": "undici"}
UNDICI_POOLS = ("Agent", "Pool", "Client", "BalancedPool")
WATCHED = (
    GRPC.encode(),
    b"'grpc'",  # the legacy package, as required or imported
    b'"grpc"',
    *(library.encode() for library in HEALTH),
    NICE_GRPC.encode(),  # and nice-grpc-server-health
    b"'mali'",  # Mali's apps (MALI), as required or imported
    b'"mali"',
    b"connect-node",  # connect-node's transports (parse_connect.py)
    # a server another module makes, started here (_servers_made_elsewhere), and a Mali
    # app another module makes, started here (_imported_mali_apps)
    b".listen(",
    b".bindAsync(",
    b".start(",
    b"SIGTERM",
    b"apollo-server",  # Apollo Server's own SIGTERM handler (APOLLO_SERVERS)
    b"@apollo/server",
    b"keepAlive",
    b"agentkeepalive",
    b"undici",
    *(library.encode() for library in SHUTDOWN_LIBRARIES),
    SHUTDOWN_HOOKS.encode(),
    NEST_TERMINUS.encode(),
    b"consul",  # a registry client (REGISTRY_CLIENTS), or a `consul://` target
    b"express",  # HTTP routes (parse_routes.py)
    b"nacos",
    b"axios",  # requests through Node's global agent (_default_agent)
    b"fetch(",
    b"'got'",  # got's requests (_request_urls)
    b'"got"',
    b"http'",
    b'http"',
    MICROSERVICES.encode(),  # NestJS's gRPC transport (parse_nest.py)
    b"Microservice(",  # given a transport another module's function returns (parse_nest.py)
)
# Service registries' Node clients (the module required) and the calls that register the
# process in them: the `consul` package's `agent.service.register`, nacos's
# `registerInstance`.
REGISTRY_CLIENTS = {"consul": "Consul", "nacos": "Nacos"}
REGISTER_CALLS = {"Consul": "agent.service.register", "Nacos": "registerInstance"}
_LISTENERS = ("on", "once", "addListener", "prependListener", "prependOnceListener")
_WRAPPERS = (
    "parenthesized_expression",
    "as_expression",
    "non_null_expression",
    "satisfies_expression",
    "type_assertion",
)
# The most specifiers a module's `requires` keeps: past them, what it loads is not known.
MAX_REQUIRES = 400
_REQUIRE = regex.compile(rb"(?:\bfrom|\bimport|\brequire)\s*\(?\s*[\"'`]([^\"'`\n]{1,512})[\"'`]")
# A load of a module whose path is computed (`require(path.join(dir, file))`,
# `import(name)`; not a method's, `yargs.require(...)`), or a module run as a worker
# thread or a child process (`new Worker(file)`, `fork(file)`, by a path from the process's
# folder, not the module's): what the module loads is then not all known.
_COMPUTED_LOAD = regex.compile(
    rb"(?:^|[^.\w$])(?:require|import)\s*\(\s*[^\"'`\s)]|\bnew\s+Worker\s*\(|\bfork\s*\("
)
# How a started server waits: bindAsync returns, and the event loop keeps it serving.
NODE_WAIT = "the event loop"
# A grpc-js server's own methods (not `start`, nor `bind`: names many objects have): what a
# wrapper's result is called with when it is the server, or forwards to it (a Proxy).
SERVER_METHODS = frozenset({"bindAsync", "addService", "tryShutdown", "forceShutdown"})
# How many calls deep a server given to a wrapper is followed (`a(b(new Server()))`).
_WRAPPED_DEPTH = 4
# What a grpc-js client's credentials are made by: `grpc.credentials.createInsecure()`,
# `ChannelCredentials.createSsl()`.
_CREDENTIALS = ("credentials", "ChannelCredentials")
_STATUSES = frozenset({"SERVING", "NOT_SERVING", "UNKNOWN", "SERVICE_UNKNOWN"})


# What a module's reading looks at, found by tree-sitter's query engine (names are the
# kinds `_Module.of` asks for).
_READ = """
(variable_declarator) @variable_declarator
(import_statement) @import_statement
(function_declaration) @function_declaration
(method_definition) @method_definition
(new_expression) @new_expression
(call_expression) @call_expression
(string) @string
(template_string) @template_string
(assignment_expression) @assignment_expression
(augmented_assignment_expression) @augmented_assignment_expression
"""
# and a status of NOT_SERVING, asked only of a module whose text says it: a predicate on
# every member name costs the query a fifth more
_READ_STATUS = _READ + '((property_identifier) @not_serving (#eq? @not_serving "NOT_SERVING"))'


# A process listener whose event is a name, not a string: a helper's parameter may bring
# SIGTERM to it from another module (`processOnce(['SIGTERM'])`).
_LISTENER_OF_A_NAME = regex.compile(
    rb"process\.(?:on|once|addListener|prependListener|prependOnceListener)\(\s*[A-Za-z_$]"
)


def worth_parsing(data: bytes) -> bool:
    return any(word in data for word in WATCHED) or (
        b"process." in data and _LISTENER_OF_A_NAME.search(data) is not None
    )


# What makes a module with none of WATCHED worth reading for what it exports: `export`,
# and something an address is made of (`process.env`, a string whose first colon starts a
# scheme's `//` or a port: `'http://a'`, `'cart:50051'`, `` `${HOST}:50051` ``) or a re-export
# (`export {ADDR} from './config'`). Most modules of a front end have none. (Searched
# apart: one alternation of them makes re try every byte, some twice as slow.)
_ADDRESS_STRING = regex.compile(rb"""['"`][^'"`\n:]*:(?://|\d)""")
_RE_EXPORT = regex.compile(rb"export\s*\{[^}]*\}\s*from")


def may_export_an_address(data: bytes) -> bool:
    return b"export" in data and (
        b"process.env" in data
        or _ADDRESS_STRING.search(data) is not None
        or _RE_EXPORT.search(data) is not None
    )


@cache
def parser() -> Parser:
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_javascript.language()))


@cache
def typescript_parser() -> Parser:
    import tree_sitter_typescript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_typescript.language_typescript()))


@cache
def tsx_parser() -> Parser:
    import tree_sitter_typescript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_typescript.language_tsx()))


def parser_for(path: str) -> Callable[[], Parser]:
    """The grammar a file is read with, by its suffix."""
    lowered = path.lower()
    if lowered.endswith(".tsx"):
        return tsx_parser
    if lowered.endswith(".ts"):
        return typescript_parser
    return parser


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (
        ".test." in name
        or ".spec." in name
        or any(part in ("__tests__", "test", "tests") for part in parts[:-1])
    )


def parse(path: str, data: bytes) -> CodeFacts:
    """The facts of one JavaScript module; one worth reading that does not parse gives a
    KLB004 problem."""
    return _parse(path, data, "javascript", "JavaScript")


def parse_typescript(path: str, data: bytes) -> CodeFacts:
    """The facts of one TypeScript module (`.ts`, `.tsx`; declarations are skipped)."""
    if path.lower().endswith(".d.ts"):
        return CodeFacts(path, "typescript", is_test=is_test_path(path))
    return _parse(path, data, "typescript", "TypeScript")


# TypeScript's declarations of types alone: no code runs there. tree-sitter's grammar
# fails on some valid ones (a property named `in` after a line with no semicolon).
_TYPES_ONLY = frozenset({"interface_declaration", "type_alias_declaration"})


# What a compiler writes into the JavaScript it emits and no one writes by hand: the
# CommonJS banner of tsc and Babel, and the comment that names the source map.
_COMPILED = regex.compile(
    rb"Object\.defineProperty\(exports,\s*[\"']__esModule[\"'],\s*\{\s*value:\s*true\s*\}\)"
    rb"|^//# sourceMappingURL=\S+\.js\.map\s*$",
    regex.MULTILINE,
)


def _compiled(data: bytes) -> bool:
    """Whether `_COMPILED` finds a compiler's mark: each of its branches holds a word that
    is looked for first (most files have neither, and RE2's binding copies the text)."""
    may = b"__esModule" in data or b"//# sourceMappingURL=" in data
    return may and _COMPILED.search(data) is not None


def requires(data: bytes) -> tuple[str, ...]:
    """The specifiers a module loads (CodeFacts.requires), read from its text, not its
    tree, so that a module not worth a tree still leads to those it loads: each
    `from '...'`, `import '...'`, `require('...')` and `import('...')`. A string in a
    comment counts too: an over-estimate, never a miss, up to MAX_REQUIRES. A load of a
    computed path (`require(file)`, `` import(`./routes/${name}`) ``), or a worker or
    child process started (`new Worker(...)`, `fork(...)`), is "*": not all that the
    module's program loads is known."""
    found: dict[str, None] = {}
    for match in _REQUIRE.finditer(data):
        if len(found) >= MAX_REQUIRES:
            return (*found, "*")
        specifier = match.group(1).decode("utf-8", "replace")
        found["*" if "${" in specifier else specifier] = None  # a template's: computed
    loads = (b"require", b"import", b"Worker", b"fork")
    if any(word in data for word in loads) and _COMPUTED_LOAD.search(data) is not None:
        found["*"] = None
    return tuple(found)


def _parse(path: str, data: bytes, language: str, shown: str) -> CodeFacts:
    facts = CodeFacts(path, language, is_test=is_test_path(path))
    if "node_modules" in path.split("/"):
        return facts
    facts.requires = requires(data)
    facts.compiled = language == "javascript" and _compiled(data)
    if not worth_parsing(data):
        if may_export_an_address(data):  # for the modules that import it (imported.py)
            root = parsed(parser_for(path)(), data)
            if root is not None and too_deep(path, root, shown) is None:
                _Module(path, root, facts, _top_level(root)).read_exports()
        return facts
    root = parsed(parser_for(path)(), data)
    if root is None:
        facts.problem = parse_too_long(path, shown)
        return facts
    facts.problem = syntax_problem(
        path, root, shown, _TYPES_ONLY, automatic_semicolons=True, grammars_own=_grammars_own
    )
    rescues = 3 if len(data) <= MAX_RESCUED_BYTES else 0  # each pass parses the file again
    for _ in range(rescues):  # each of these two may hide the other's from a tree's recovery
        before = facts.problem
        if facts.problem is not None and b"&" in data:
            data, root, facts.problem = _with_bare_ampersands(
                path, data, root, facts.problem, shown
            )
        if facts.problem is not None and parser_for(path) is parser:
            data, root, facts.problem = _with_keyword_attributes(path, data, root, facts.problem)
        if facts.problem is None or facts.problem == before:
            break
    if facts.problem is not None and language == "javascript" and flow_pragma(data):
        facts.problem = not_analysed(
            facts.problem,
            f"Flow-typed JavaScript (`@flow`; tree-sitter finds an error at line "
            f"{facts.problem.line}), a dialect k8slb does not read",
        )
    if facts.problem is not None and (action := template_line(data, facts.problem.line)):
        facts.problem = not_analysed(
            facts.problem,
            f"a template, not {shown} yet: it holds a template language's action "
            f"(`{action[:80]}`), which a site generator or a renderer replaces before the "
            "file is code",
        )
    if (
        facts.problem is not None
        and facts.problem.severity is None  # not told at info already
        and language == "javascript"
        and (shape := minified(path, data, facts.problem.line))
    ):
        facts.problem = not_analysed(
            facts.problem,
            f"minified JavaScript ({shape}), a build's output or a vendored library, not "
            f"code written here (tree-sitter finds an error at line {facts.problem.line} of "
            "what a minifier emits, which JavaScript's engines parse)",
        )
    facts.problem = graded(facts.problem, root, data, shown)
    if facts.problem is None:
        facts.problem = too_deep(path, root, shown)
    if facts.problem is None:
        query = _READ_STATUS if b"NOT_SERVING" in data else _READ
        _Module(path, root, facts, captured(parser_for(path)(), root, query)).read()
        facts.markers = comment_markers(
            path, data.decode("utf-8", "replace"), comment_pattern("//")
        )
    return facts


def _grammars_own(node: Node) -> bool:
    """Whether a syntax error is one tree-sitter's TypeScript grammar makes of valid code
    (_tagged_generic, _indexed_import_type)."""
    return _tagged_generic(node) or _indexed_import_type(node)


def _indexed_import_type(node: Node) -> bool:
    """Whether a syntax error is tree-sitter's on an indexed access to an import type
    among type arguments (`NonNullable<import("swr").Options["onError"]>`, TypeScript
    2.9): its grammar (0.23) reads `import("swr").Options` as an expression, which it
    cannot index there, and reads `["onError"]` after it as a tuple type. The tree is
    whole around it, and it is a type: no code k8slb reads."""
    parent = node.parent
    named = node.named_children
    after = node.next_named_sibling
    if node.type != "ERROR" or parent is None or parent.type != "type_arguments":
        return False
    if len(named) != 1 or named[0].type != "member_expression":
        return False
    if after is None or after.type != "tuple_type":
        return False
    base = named[0].child_by_field_name("object")
    for _ in range(_MEMBER_DEPTH):  # `import("x").a.b`: the chain's first operand
        if base is None or base.type != "member_expression":
            break
        base = base.child_by_field_name("object")
    function = base.child_by_field_name("function") if base is not None else None
    return (
        base is not None
        and base.type == "call_expression"
        and function is not None
        and (function.type == "import")
    )


# The members of an import type followed to its `import(...)` (`import("x").a.b.c`)
_MEMBER_DEPTH = 16


def _tagged_generic(node: Node) -> bool:
    """Whether a syntax error is tree-sitter's on type arguments to a tagged template
    (`styled.label<{ shown: boolean }>` then a template `color: ${...}`, TypeScript 2.9): its
    grammar (0.23) reads the tag with its type arguments, then, before a template with a
    substitution, adds a `!` the file lacks (a non-null assertion). The tree is whole
    around it, the template the call's argument: the file is read as TypeScript reads it."""
    parent = node.parent
    call = parent.parent if parent is not None else None
    if not node.is_missing or node.type != "!" or parent is None or call is None:
        return False
    tagged = parent.named_children[:1]
    arguments = call.child_by_field_name("arguments")
    return (
        parent.type == "non_null_expression"
        and bool(tagged)
        and tagged[0].type == "instantiation_expression"
        and call.type == "call_expression"
        and arguments is not None
        and arguments.type == "template_string"
    )


# The comments a file opens with, where Flow looks for its pragma: the bytes and comments
# read at most (a header is some lines)
_HEADER_BYTES = 16 * 1024
_HEADER_COMMENTS = 32
_FLOW = regex.compile(rb"@flow\b")
_SPACE = regex.compile(rb"[ \t\r\n]*")


def flow_pragma(data: bytes) -> bool:
    """Whether one of the comments before a file's first token says `@flow` (or `@flow
    strict`): Flow-typed JavaScript, whose annotations Babel strips (`x: number`,
    `function f<T>()`); `@noflow` is plain JavaScript."""
    head = data[:_HEADER_BYTES]
    at = head.find(b"\n") + 1 if head.startswith(b"#!") else 0
    for _ in range(_HEADER_COMMENTS):
        spaces = _SPACE.match(head[at:])
        at += spaces.end() if spaces is not None else 0
        if head.startswith(b"//", at):
            end = head.find(b"\n", at)
            end = len(head) if end < 0 else end
        elif head.startswith(b"/*", at):
            end = head.find(b"*/", at + 2)
            if end < 0:
                return False
            end += 2
        else:
            return False
        if _FLOW.search(head[at:end]) is not None:
            return True
        at = end
    return False


# Each word or `&` read again is looked up in the tree again, at the depth of its element: a
# file of thousands, unclosed, nests as deep as it is long. Past this many, it is refused as
# tree-sitter reads it (KLB004 at its first error): a hand-written page holds a few.
MAX_RESCUED = 500
# Each pass parses the file again, and tree-sitter's recovery from thousands of errors costs
# more than linear time: a larger file is refused as first read (a page is some KB).
MAX_RESCUED_BYTES = 256 * 1024


def _with_bare_ampersands(
    path: str, data: bytes, root: Node, problem: Problem, shown: str
) -> tuple[bytes, Node, Problem | None]:
    """The file read with each `&` that begins a syntax error among a JSX element's
    children made a space (every node keeps its place): JSX text may hold a bare `&`
    (`Consultas & Episodios`), which Babel and TypeScript read as text, but tree-sitter's
    grammars (0.25) take only a character reference (`&amp;`) there. Each must then be
    JSX text, else the file is as it was read; the file's first other error stays one."""
    spots = [
        node.start_byte
        for node in _syntax_errors(root)
        if node.parent is not None
        and node.parent.type == "jsx_element"
        and data[node.start_byte : node.start_byte + 1] == b"&"
    ]
    if not spots or len(spots) > MAX_RESCUED:
        return data, root, problem
    again = bytearray(data)
    for at in spots:
        again[at] = ord(" ")
    tree = parsed(parser_for(path)(), bytes(again))
    if tree is None:
        return data, root, problem
    found_at = [tree.descendant_for_byte_range(at, at + 1) for at in spots]
    if any(node is None or node.type != "jsx_text" for node in found_at):
        return data, root, problem
    found = syntax_problem(
        path, tree, shown, _TYPES_ONLY, automatic_semicolons=True, grammars_own=_grammars_own
    )
    return bytes(again), tree, found


def _syntax_errors(root: Node) -> Iterator[Node]:
    """The ERROR nodes of a tree that has some, in no particular order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            yield node
        stack.extend(child for child in node.children if child.has_error)


# A JSX attribute named by a reserved word (`<label for="name">`, `<i class="x"/>`,
# `<Collapse in={open}>`): valid JSX (an attribute's name is a JSXIdentifier, which no
# reserved word excludes), which Babel and TypeScript read, but tree-sitter's JavaScript
# grammar (0.25) fails on it (its issue #387). Where an attribute can be: after a space,
# before `=` and a value's opening quote or brace. The only other valid place for that is a
# class field (`for = "x"`), which reads the same as an identifier; any other is checked
# (_renamed) and keeps the file refused.
_KEYWORD_ATTRIBUTE = regex.compile(
    rb"(\s)(break|case|catch|class|const|continue|debugger|default|delete|do|else|enum|"
    rb"export|extends|false|finally|for|function|if|import|in|instanceof|new|null|return|"
    rb"super|switch|this|throw|true|try|typeof|var|void|while|with)(=[\"'{])"
)


def _with_keyword_attributes(
    path: str, data: bytes, root: Node, problem: Problem
) -> tuple[bytes, Node, Problem | None]:
    """A JavaScript file with its JSX attributes named by a reserved word read with each
    such name as an identifier of its length (every node keeps its place), its tree, and
    its first real error if any is left; the file as it was, where there are none.
    Only the words that read as a JSX attribute's name (or a class field's, where a
    reserved word is valid too) are renamed: the same words in a string or a comment are
    text, and one anywhere else is a real error, left to be found."""
    spans = [match.span(2) for match in _KEYWORD_ATTRIBUTE.finditer(data)]
    if not spans or len(spans) > MAX_RESCUED:
        return data, root, problem
    masked, again, names = _renamed(data, spans)
    if names != spans:  # the tree of the names alone, which must still read as names
        masked, again, kept = _renamed(data, names)
        if kept != names:
            return data, root, problem
    if not names or again is None:
        return data, root, problem
    found = syntax_problem(path, again, "JavaScript", _TYPES_ONLY, automatic_semicolons=True)
    return masked, again, found


def _renamed(
    data: bytes, spans: list[tuple[int, int]]
) -> tuple[bytes, Node | None, list[tuple[int, int]]]:
    """`data` with the words at `spans` made identifiers, its tree (None past the parse's
    budget), and the spans that are a JSX attribute's or a class field's name there."""
    masked = bytearray(data)
    for start, end in spans:
        masked[start:end] = b"_" * (end - start)
    tree = parsed(parser(), bytes(masked))
    if tree is None:
        return bytes(masked), None, []
    names = []
    for start, end in spans:
        named = tree.descendant_for_byte_range(start, end)
        holder = named.parent if named is not None else None
        if holder is not None and holder.type in ("jsx_attribute", "field_definition"):
            names.append((start, end))
    return bytes(masked), tree, names


def _top_level(root: Node) -> dict[str, list[Node]]:
    """The declarators and imports at a module's top level, by kind (as `_READ` names
    them): all that its exports can be made of."""
    found: dict[str, list[Node]] = {"variable_declarator": [], "import_statement": []}
    for statement in root.named_children:
        if statement.type == "export_statement":
            statement = statement.child_by_field_name("declaration") or statement
        if statement.type == "import_statement":
            found["import_statement"].append(statement)
        elif statement.type in ("lexical_declaration", "variable_declaration"):
            found["variable_declarator"] += [
                child for child in statement.named_children if child.type == "variable_declarator"
            ]
    return found


def _string(node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.children if c.type == "string_fragment")


def _looped_over(node: Node) -> Node | None:
    """The list a loop's variable runs over: `for (const s of LIST)`, `LIST.forEach((s) =>
    ...)` (or `map`), from the nearest such loop around `node`."""
    scope = node.parent
    while scope is not None:
        if scope.type == "for_in_statement":
            return scope.child_by_field_name("right")
        if scope.type in ("arrow_function", "function_expression"):
            call = scope.parent.parent if scope.parent is not None else None
            called = call.child_by_field_name("function") if call is not None else None
            if called is not None and _text(called.child_by_field_name("property")) in (
                "forEach",
                "map",
            ):
                return called.child_by_field_name("object")
        scope = scope.parent
    return None


def _parameters(function: Node) -> list[str]:
    """The names of a function's parameters, in order (`(a, b = 1, c: T)`, `a => ...`)."""
    single = function.child_by_field_name("parameter")
    if single is not None:
        return [_text(single)]
    listed = function.child_by_field_name("parameters")
    names = []
    for child in listed.named_children if listed is not None else []:
        if child.type in ("comment", "decorator"):
            continue
        named = child.child_by_field_name("pattern") or child.child_by_field_name("left")
        names.append(_text(named if named is not None else child))
    return names


def _unwrapped(node: Node | None) -> Node | None:
    """The expression inside parentheses and TypeScript's `as`, `!` and `satisfies`."""
    while node is not None and node.type in _WRAPPERS and node.named_children:
        # `<T>value` (a type assertion) holds its value last, the others first
        node = node.named_children[-1 if node.type == "type_assertion" else 0]
    return node


def _file_key(node: Node | None) -> str | None:
    """The property a target reads of an object (`processor.addr`, `this.config.addr`),
    not of the environment; None for anything else."""
    if node is None or node.type != "member_expression":
        return None
    holder = node.child_by_field_name("object")
    member = node.child_by_field_name("property")
    if holder is None or member is None or member.type != "property_identifier":
        return None
    if _text(holder) in ("process", "process.env"):
        return None
    return _text(member)


def _loc(path: str, node: Node) -> Loc:
    row, column = node.start_point  # a point made once (each asking makes one)
    return Loc(path, int(row) + 1, int(column) + 1)


def _required(value: Node | None) -> str | None:
    """The module `require('x')` loads (also `await import('x')`)."""
    value = _unwrapped(value)
    if value is not None and value.type == "await_expression" and value.named_children:
        value = value.named_children[0]
    if value is None or value.type != "call_expression":
        return None
    given = call_arguments(value)
    called = _text(value.child_by_field_name("function"))
    return _string(given[0]) if called in ("require", "import") and given else None


def _bound_name(node: Node) -> str | None:
    """The name a value is bound to: `const server = ...`, `this.server = ...`, a class
    field (`private server = ...`, read as `this.server`)."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "variable_declarator":
        named = parent.child_by_field_name("name")
        return _text(named) if named is not None and named.type == "identifier" else None
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        return _text(parent.child_by_field_name("left")) or None
    if parent.type in ("public_field_definition", "field_definition"):
        named = parent.child_by_field_name("name") or parent.child_by_field_name("property")
        return f"this.{_text(named)}" if named is not None else None
    return None


def _given_to(node: Node) -> Node | None:
    """The call (or `new`) `node` is an argument of, through parentheses and `as`."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        node, parent = parent, parent.parent
    if parent is None or parent.type != "arguments":
        return None
    call = parent.parent
    return call if call is not None and call.type in ("call_expression", "new_expression") else None


def _parameter(function: Node, name: str) -> tuple[int, Node | None] | None:
    """Where `name` is among a function's parameters, and its default (`a = 'x'`); None
    when it is none of them (or is destructured)."""
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name(
        "parameter"
    )
    if parameters is None:
        return None
    if parameters.type == "identifier":  # `addr => ...`
        return (0, None) if _text(parameters) == name else None
    for index, parameter in enumerate(parameters.named_children):
        default = None
        if parameter.type in ("required_parameter", "optional_parameter"):  # TypeScript's
            default = parameter.child_by_field_name("value")
            parameter = parameter.child_by_field_name("pattern") or parameter
        if parameter.type == "assignment_pattern":
            default = parameter.child_by_field_name("right")
            parameter = parameter.child_by_field_name("left") or parameter
        if parameter.type == "identifier" and _text(parameter) == name:
            return index, default
    return None


def _declaration_keyword(declarator: Node) -> str:
    """`let`, `var` or `const`: what declares a variable (`var` is its own statement)."""
    statement = declarator.parent
    if statement is None or not statement.children:
        return ""
    return "var" if statement.type == "variable_declaration" else _text(statement.children[0])


def _numeric(text: str) -> bool:
    """A number's text (`50051`, `1e3`, `0x1F`, `1_000`): what `+` adds rather than joins."""
    return bool(text) and text[0].isdigit()


def _pieces(node: Node) -> list[str | Node] | None:
    """A text's pieces in order: a literal's text, or the expression of a value. A template
    (`` `${BASE}/orders/${id}` ``), a `+` chain of terms (`BASE + '/orders/' + id`, a template
    among them read in its pieces); MAX_PARTS pieces at most. None for anything else."""
    terms: list[Node | None] = []
    left: Node | None = node
    while (
        left is not None
        and left.type == "binary_expression"
        and _text(left.child_by_field_name("operator")) == "+"
    ):
        terms.append(left.child_by_field_name("right"))
        left = _unwrapped(left.child_by_field_name("left"))
        if len(terms) > MAX_PARTS:
            return None
    terms.append(left)
    terms.reverse()
    pieces: list[str | Node] = []
    for term in map(_unwrapped, terms):
        if term is None:
            return None
        if term.type == "string":
            pieces.append(_string(term) or "")
        elif term.type == "template_string":
            for child in term.named_children:
                if child.type == "string_fragment":
                    pieces.append(_text(child))
                elif child.type == "template_substitution" and child.named_children:
                    pieces.append(child.named_children[0])
                else:
                    return None
                if len(pieces) > MAX_PARTS:
                    return None
        else:
            pieces.append(term)
        if len(pieces) > MAX_PARTS:
            return None
    return pieces


def _base_url(value: Any) -> bool:
    """Whether a value may begin a URL with its scheme and host: a text that writes a
    scheme, an environment value (its scheme is in what the workload sets: one that is no
    URL is no address once filled), or a constant of another module, resolved later."""
    if isinstance(value, str):
        return "://" in value
    if isinstance(value, EnvRef):
        return not value.prefix or "://" in value.prefix
    return isinstance(value, EnvText | Imported | Joined)


def _enclosing(node: Node, kinds: tuple[str, ...]) -> Node | None:
    scope = node.parent
    while scope is not None and scope.type not in kinds:
        scope = scope.parent
    return scope


def _returned_name(function: Node) -> str | None:
    """The one name a function returns (`return server;`, or an arrow's `() => server`),
    from its own returns (not those of functions inside it); None for any other value."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        returned = [body]
    elif b"return" not in (body.text or b""):
        return None  # no return (most functions that make a server): nothing to walk
    else:
        returned, stack = [], [body]
        while stack:  # its own statements: a function inside it is not descended into
            node = stack.pop()
            if node.type == "return_statement":
                returned.append(node.named_children[0] if node.named_children else node)
            elif node.type not in FUNCTIONS:
                stack.extend(node.named_children)
    found = [_unwrapped(node) for node in returned]
    if not found or any(node is None or node.type != "identifier" for node in found):
        return None
    names = {_text(node) for node in found}
    return names.pop() if len(names) == 1 else None


def _function_name(function: Node) -> str:
    named = function.child_by_field_name("name")
    if named is not None:
        return _text(named)
    bound = _bound_name(function)
    return bound or ""


def _long_lived(node: Node) -> bool:
    """Made once for the program: at the module's top level, in `main`, or in a class's
    constructor (its object's life), not in a function called again and again."""
    function = enclosing_function(node)
    return function is None or _function_name(function) in ("main", "constructor")


# How many calls of a SIGTERM handler are read for what it closes
MAX_HANDLER_CALLS = 500


def _closed(handler: Node, held: HeldCalls | None) -> set[str]:
    """The receivers a SIGTERM handler calls `close()` on (`server.close(cb)`), in its
    own body or the callbacks it holds; MAX_HANDLER_CALLS of its calls at most."""
    calls = held.within(handler) if held is not None else []
    closed: set[str] = set()
    for call in calls[:MAX_HANDLER_CALLS]:
        function = call.child_by_field_name("function")
        if (
            function is not None
            and function.type == "member_expression"
            and _text(function.child_by_field_name("property")) == "close"
        ):
            closed.add(_text(function.child_by_field_name("object")))
    return closed


class _Call:
    """What a call calls, read from its node once (each pass over the module's calls
    asks): its function (`this.server.tryShutdown`), the owner and method of a member
    call (`this.server`, `tryShutdown`), its arguments when first asked."""

    __slots__ = ("_given", "function", "kind", "method", "node", "owner", "text")

    def __init__(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        self.node = node
        self.function = function
        self.kind = function.type if function is not None else ""
        self.text = _text(function)
        member = function if self.kind == "member_expression" else None
        self.owner = _text(member.child_by_field_name("object")) if member is not None else ""
        self.method = _text(member.child_by_field_name("property")) if member is not None else ""
        self._given: list[Node] | None = None

    @property
    def given(self) -> list[Node]:
        if self._given is None:
            self._given = call_arguments(self.node)
        return self._given


class _Module:
    """One reading of a module: its imports and constants first, then what it makes."""

    def __init__(
        self, path: str, root: Node, facts: CodeFacts, found: dict[str, list[Node]]
    ) -> None:
        self.path = path
        self.root = root
        self.facts = facts
        self.found = found  # the nodes read, by kind (_READ)
        self.whole = False  # whether `found` is all of them (read), not the top level's only
        self.imports: dict[str, str] = {}  # a name bound to a module -> the module
        self.defaults: set[str] = set()  # those bound to its default export (`import c from`)
        self.members: dict[str, tuple[str, str]] = {}  # `{Agent} = require('undici')`
        self.objects: dict[str, Node] = {}  # module consts: object literals
        self.arrays: dict[str, Node] = {}  # module consts: array literals
        self.strings: dict[str, Any] = {}  # module consts: strings, environment values
        self.functions: dict[str, Node] = {}  # functions and methods, by name
        self.aliases: dict[str, str] = {}  # `const server = this.server`: a server's names
        self.mali_apps: set[str] = set()  # names bound to `new Mali(...)` (_mali_servers)
        self.mali_made: set[int] = set()  # the `new Mali(...)` nodes (_mali_exports)
        self.namespaces: set[str] = set()  # names of `import * as x` (no default export)
        self.budget = Budget()  # the values this module's reading may still compute
        self.ends = Calls(())  # where it calls `x.close()`, `x.tryShutdown()` (read)
        self.substituted: set[int] = set()  # the nodes in a template's `${...}` (read)
        self.written: set[str] = set()  # the URLs of `facts.urls` that are texts (_carried)
        self.paused: set[int] = set()  # the SIGTERM handlers read for a pause, by node id
        # what each SIGTERM handler calls `close()` on (its registration's place), and the
        # names the module listens with (`server.listen()`, `const server = app.listen()`)
        self.closing: list[tuple[Loc, set[str]]] = []
        self.listening: set[str] = set()
        self._signal_helpers: dict[str, int] | None = None  # made when first asked
        self._calls: list[_Call] | None = None  # made when first asked
        # the module's environment helpers, by name, each read when first called
        self._helpers: dict[str, tuple[int, int | None] | None] | None = None
        self._helper_functions: dict[str, Node] = {}
        self._served: set[str] | None = None  # the names a server's methods are called on
        self._held: HeldCalls | None = None  # the same, by where they are (held_calls)
        # where the module's text says SIGTERM or holds a backslash (an escape between a
        # string's fragments, which `_string` joins): a call that holds neither names
        # SIGTERM in no string (only a module const list may, read apart)
        self._sigterms: list[int] | None = None
        # a helper's handler that exits at once, by the helper's name (signal_exit)
        self._helper_exits: dict[str, SignalExit] = {}
        # the module's calls and `new`s by what they call (made when a parameter is asked)
        self._callers: dict[tuple[str, str, str], list[Node]] | None = None
        # the functions' variables: declarations (with their function) and assignments,
        # by name (made when a variable is asked: _local)
        self._locals: dict[str, dict[int | None, list[Node]]] | None = None
        self._assigned: dict[str, list[Node]] = defaultdict(list)
        self._assigned_at: dict[str, list[int]] = defaultdict(list)  # their start bytes
        self._augmented: set[str] = set()  # the names added to in place (`x += ...`)
        # the functions that declare each name, by where they start (and their starts)
        self._scopes: dict[str, list[tuple[int, int, Node]]] = {}
        self._scope_starts: dict[str, list[int]] = {}

    def loc(self, node: Node) -> Loc:
        return _loc(self.path, node)

    # -- what the module binds -----------------------------------------------------------

    def read(self) -> None:
        self.whole = True
        self._bindings()
        self._consts()
        self.signal_helpers()  # exported for the modules that call one
        self.ends = Calls(
            (call.text, call.node) for call in self.calls if _ending_call(call) is not None
        )
        grpc = {name for name, module in self.imports.items() if module in GRPC_PACKAGES}
        servers: dict[str, Server] = {}
        for node in self.of("new_expression"):
            self._made(node, grpc, servers)
        if NICE_GRPC in self.imports.values() or any(
            module in (NICE_GRPC, NICE_HEALTH) for module, _ in self.members.values()
        ):
            for node in self.of("call_expression"):
                self._made_by_nice_grpc(node, servers)
        for node in self.of("variable_declarator"):
            value = _text(_unwrapped(node.child_by_field_name("value")))
            if value in servers:
                self.aliases[_text(node.child_by_field_name("name"))] = value
        if self.mali_apps:
            self._mali_servers(servers)
        self._imported_mali_apps(servers)
        if servers:
            self._wrapped_servers(servers)
            self._returned_servers(servers)
        self._servers_made_elsewhere(servers)
        for call in self.calls:
            self._called(call, servers)
        self.facts.sigterm_drains += [
            loc for loc, closed in self.closing if closed & self.listening
        ]
        self._default_agent()
        # what a template's `${...}` holds, read as part of the template (found from the
        # templates down: a node's parent is searched from the root, each time asked)
        self.substituted = {
            inner.id
            for template in self.of("template_string")
            for part in template.named_children
            if part.type == "template_substitution"
            for inner in part.named_children
        }
        for node in self.of("string"):
            raw = (node.text or b"").lower()  # a string's value is its text: most say neither
            if b"http" in raw or b"not_serving" in raw:
                self._text_value(node)
            scheme = registry_scheme(_string(node) or "") if b"://" in raw else None
            if scheme is not None:
                dial = RegistryDial(self.loc(node), scheme[1], f"{scheme[0]}:// target")
                self.facts.registry_dials.append(dial)
        for node in self.of("template_string"):  # its constants may make it a URL
            self._text_value(node)
        self._request_urls()
        self.facts.health_drains += [self.loc(node) for node in self.of("not_serving")]
        self.facts.servers.extend(servers.values())
        handlers = dict(self.functions)  # and the module's `const f = (req, res) => ...`
        for node in self.of("variable_declarator"):
            held, named = node.child_by_field_name("value"), node.child_by_field_name("name")
            if held is not None and named is not None and held.type in FUNCTIONS:
                handlers[_text(named)] = held
        routed = [call.node for call in self.calls if call.method in ROUTE_METHODS]
        self.facts.routes = collect_routes(routed, handlers, self.loc)
        read_nest(self)
        read_connect(self)
        self._exports()
        self._server_factories(servers)
        if self.mali_made:
            self._mali_exports()

    def read_exports(self) -> None:
        """Only what the module exports (a module with nothing else k8slb reads)."""
        self._bindings()
        self._consts()
        self._exports()

    def of(self, kind: str) -> list[Node]:
        return self.found.get(kind, [])

    def _listening(self, node: Node, owner: str) -> None:
        """The names a `listen()` call serves with: its receiver, and the name its result
        is bound to (`const server = app.listen(port)`)."""
        self.listening.add(owner)
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator":
            self.listening.add(_text(parent.child_by_field_name("name")))
        elif parent is not None and parent.type == "assignment_expression":
            self.listening.add(_text(parent.child_by_field_name("left")))

    def held_calls(self) -> HeldCalls | None:
        """The module's calls by where they are, when the query read them all (`whole`)."""
        if not self.whole:
            return None
        if self._held is None:
            self._held = HeldCalls(self.of("call_expression"))
        return self._held

    @property
    def calls(self) -> list[_Call]:
        """The module's calls, each read once, in source order."""
        if self._calls is None:
            self._calls = [_Call(node) for node in self.of("call_expression")]
        return self._calls

    def _may_name_sigterm(self, call: Node) -> bool:
        """Whether a call's arguments may name SIGTERM (`_names_sigterm`): the word (or an
        escape) in its text, or a module const list an argument may name."""
        if self.arrays:
            return True
        if self._sigterms is None:
            source, self._sigterms = self.root.text or b"", []
            for word in (b"SIGTERM", b"\\"):
                at = source.find(word)
                while at >= 0:  # each one found once: linear in the text
                    self._sigterms.append(at)
                    at = source.find(word, at + 1)
            self._sigterms.sort()
        at = bisect_left(self._sigterms, call.start_byte)
        return at < len(self._sigterms) and self._sigterms[at] < call.end_byte

    def imported_function(self, function: Node) -> tuple[str, str]:
        """The module a called function is imported from and its name there: a name an
        import binds (`import {make} from './x'`) or a member of a namespace import
        (`x.make`); ("", "") for anything else."""
        if function.type == "identifier" and _text(function) in self.members:
            return self.members[_text(function)]
        if function.type == "member_expression":
            module = self.imports.get(_text(function.child_by_field_name("object")), "")
            return module, _text(function.child_by_field_name("property"))
        return "", ""

    def unwrapped(self, node: Node | None) -> Node | None:
        return _unwrapped(node)

    def key(self, pair: Node) -> str | None:
        """An object member's key: a name or a string."""
        key = pair.child_by_field_name("key")
        if key is not None and key.type == "string":
            return _string(key)
        return _text(key) if key is not None and key.type == "property_identifier" else None

    def _bindings(self) -> None:
        for node in self.of("variable_declarator"):
            module = _required(node.child_by_field_name("value"))
            named = node.child_by_field_name("name")
            if module is None or named is None:
                continue
            if named.type == "identifier":
                self.imports[_text(named)] = module
            elif named.type == "object_pattern":
                self._destructured(named, module)
            self._shutdown_library(module, node)
        for node in self.of("import_statement"):
            module = _string(node.child_by_field_name("source")) or ""
            self._imported(node, module)
            self._shutdown_library(module, node)
            if module == NEST_TERMINUS and any(
                child.type == "import_specifier"
                and _text(child.child_by_field_name("name")) in _NEST_TERMINUS_6
                for child in walk(node)
            ):
                self.facts.sigterm_handlers.append(self.loc(node))
        for node in (*self.of("function_declaration"), *self.of("method_definition")):
            named = node.child_by_field_name("name")
            if named is not None:
                self.functions[_text(named)] = node

    def _destructured(self, pattern: Node, module: str) -> None:
        """`const {Agent, Pool: P} = require('undici')`."""
        for child in pattern.named_children:
            if child.type == "shorthand_property_identifier_pattern":
                self.members[_text(child)] = (module, _text(child))
            elif child.type == "pair_pattern":
                key = _text(child.child_by_field_name("key"))
                value = child.child_by_field_name("value")
                if value is not None and value.type == "identifier":
                    self.members[_text(value)] = (module, key)

    def _imported(self, statement: Node, module: str) -> None:
        """`import * as grpc from 'x'`, `import grpc from 'x'`, `import {Agent as A} from 'x'`."""
        for child in walk(statement):
            if child.type in ("namespace_import", "import_clause"):
                for name in child.named_children:
                    if name.type == "identifier":
                        self.imports[_text(name)] = module
                        if child.type == "import_clause":
                            self.defaults.add(_text(name))
                        else:
                            self.namespaces.add(_text(name))
            elif child.type == "import_specifier":
                imported = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias") or imported
                if imported is not None and alias is not None:
                    self.members[_text(alias)] = (module, _text(imported))

    def _shutdown_library(self, module: str, node: Node) -> None:
        if module in SHUTDOWN_LIBRARIES:
            self.facts.sigterm_handlers.append(self.loc(node))

    def _consts(self) -> None:
        """What the module binds to a `const` at its top level, by name."""
        for statement in self.root.named_children:
            if statement.type == "export_statement":
                statement = statement.child_by_field_name("declaration") or statement
            if statement.type != "lexical_declaration" or _text(statement.children[0]) != "const":
                continue
            for declarator in statement.named_children:
                named = declarator.child_by_field_name("name")
                name = _text(named)
                value = _unwrapped(declarator.child_by_field_name("value"))
                if not name or value is None:
                    continue
                if named is not None and named.type == "object_pattern":
                    if _text(value) == "process.env":
                        self.strings.update(_environment_pattern(named, self.value))
                elif value.type == "object":
                    self.objects[name] = value
                elif value.type == "array":
                    self.arrays[name] = value
                elif (target := self.value(value)) is not UNKNOWN:
                    self.strings[name] = target

    # -- values --------------------------------------------------------------------------

    def value(self, node: Node | None, depth: int = 0) -> Any:
        """A target or an address as far as it can be followed: a string, an EnvRef, or
        UNKNOWN (past the reading's budget too: budget.py)."""
        node = _unwrapped(node)
        if node is None or not self.budget.step(depth):
            return UNKNOWN
        if node.type == "string":
            text = _string(node)
            return text if text is not None else UNKNOWN
        if node.type == "number":
            return _text(node)
        if node.type in ("identifier", "shorthand_property_identifier"):  # `{ baseUrl }`
            bound = _text(node)
            passed = self._passed(node, bound, depth)
            if passed is not None:
                return passed
            local = self._local(node, bound, depth)
            if local is not None:
                return local
            return self.strings[bound] if bound in self.strings else self._imported_value(bound)
        name = _env(node)
        if name is not None:
            return EnvRef(name)
        if node.type == "member_expression":  # `config.ADDR`
            return self._imported_value(_text(node))
        if node.type == "binary_expression" and _text(node.child_by_field_name("operator")) in (
            "||",
            "??",
        ):
            left = self.value(node.child_by_field_name("left"), depth + 1)
            right = self.value(node.child_by_field_name("right"), depth + 1)
            bare = isinstance(left, EnvRef) and not (left.prefix or left.suffix)
            if bare and isinstance(right, str | Imported | Joined):
                return EnvRef(left.name, right)
            return UNKNOWN
        if node.type == "binary_expression" and _text(node.child_by_field_name("operator")) == "+":
            return self._sum(node, depth)
        if node.type == "template_string":
            return self._template(node, depth)
        if node.type == "call_expression":  # a NestJS ConfigService's setting
            setting = config_value(self, node, depth)
            if setting is None:  # or an environment helper's read
                setting = self._env_helper_read(node, depth)
            return setting if setting is not None else UNKNOWN
        return UNKNOWN

    def _env_helper_read(self, call: Node, depth: int) -> Any:
        """`env("CART_ADDR", "cart:50051")` of a helper of the module's top level that
        returns the variable a parameter names, or another when unset (parse_env_helpers.py): that
        variable, with the default the call gives; None when the call is no helper's."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "identifier":
            return None
        if self._helpers is None:
            self._helpers = {}
            self._helper_functions = top_level_functions(self.root)
        name = _text(function)
        if name not in self._helpers:
            declared = self._helper_functions.get(name)
            self._helpers[name] = env_helper(declared, _parameter) if declared else None
        helper = self._helpers[name]
        if helper is None:
            return None
        given = call_arguments(call)
        read, fallback = helper
        if read >= len(given):
            return UNKNOWN
        variable = self.value(given[read], depth + 1)
        if not isinstance(variable, str) or ENVIRONMENT_NAME.fullmatch(variable) is None:
            return UNKNOWN
        if fallback is None:
            return EnvRef(variable)
        if fallback < len(given):
            default = self.value(given[fallback], depth + 1)
        else:  # the parameter's own default (`fallback = "cart:50051"`), if any
            declared = self._helper_functions[name]
            written = _parameter(declared, _parameters(declared)[fallback])
            default = self.value(written[1], depth + 1) if written and written[1] else None
        if default is None or isinstance(default, str | Imported | Joined):
            return EnvRef(variable, default)
        return UNKNOWN

    def _passed(self, node: Node, name: str, depth: int) -> Any:
        """A parameter's value: what the module's calls of its function pass (a function
        by its name, a method by `x.method(...)`, a class's constructor by `new Class(...)`),
        one fact each (facts.one_of), else its default; None when `name` is no parameter
        of a function around `node`."""
        function = enclosing_function(node)
        while function is not None:
            found = _parameter(function, name)
            if found is not None:
                break
            function = enclosing_function(function)
        if function is None or found is None:
            return None
        index, default = found
        values = []
        for call in self._calls_of(function):
            given = call_arguments(call)
            if index < len(given) and given[index].type != "spread_element":
                values.append(self.value(given[index], depth + 1))
            elif any(argument.type == "spread_element" for argument in given):
                values.append(UNKNOWN)
            else:
                values.append(self.value(default, depth + 1) if default is not None else UNKNOWN)
        if not values:
            return self.value(default, depth + 1) if default is not None else UNKNOWN
        return one_of(values)

    def _local(self, node: Node, name: str, depth: int) -> Any:
        """A variable of a function around `node`, or a `let` or `var` of the module's top
        level (a `const` is read with the module's constants: _consts): each value it is
        given (_given), one fact each. None when no such variable is declared."""
        given = self._given(node, name, ("let", "var"))
        return None if given is None else self._variable_value(given, depth)

    def _given(
        self, node: Node | None, name: str, top: tuple[str, ...]
    ) -> list[Node | None] | None:
        """The values given to the variable `name` seen from `node`: the innermost function
        around it that declares it (its declaration's value, its assignments there), else
        the module's top-level declaration by one of the `top` keywords (its value, and each
        assignment but those to a function's own variable or parameter of that name; none
        for one assigned more than MAX_CHOICES times; none for a name added to in place,
        `x += ...`). None when neither declares it. With no `node`, the module's own
        variable (what it exports)."""
        declared = self._variables().get(name) or {}
        if declared and name in self._augmented:
            return []  # added to in place (`x += ':1'`): not followed, unknown
        function = self._declaring_function(node, name) if declared and node else None
        if function is not None:
            found = declared[function.id]
            if found:
                assigned = self._assigned.get(name, [])
                starts = self._assigned_at[name]
                first = bisect_left(starts, function.start_byte)
                last = bisect_left(starts, function.end_byte, first)
                inside = [a.child_by_field_name("right") for a in assigned[first:last]]
                return [d.child_by_field_name("value") for d in found] + inside
        module = [d for d in declared.get(None, []) if _declaration_keyword(d) in top]
        if not module:
            return None
        assigned = self._assigned.get(name, [])
        if len(module) + len(assigned) > MAX_CHOICES:
            return []
        given = [d.child_by_field_name("value") for d in module]
        for assignment in assigned:
            within = enclosing_function(assignment)
            if within is None or (within.id not in declared and _parameter(within, name) is None):
                given.append(assignment.child_by_field_name("right"))
        return given

    def _variables(self) -> dict[str, dict[int | None, list[Node]]]:
        """The module's variables by name, their declarations by the id of the function
        they are in (None at the module's top level), and their assignments (made when
        first asked)."""
        if self._locals is None:
            if not self.whole:  # read only for its exports so far: all of it now
                self.found, self.whole = captured(parser_for(self.path)(), self.root, _READ), True
            self._locals = defaultdict(dict)
            functions: dict[str, dict[int, Node]] = defaultdict(dict)
            for declarator in self.of("variable_declarator"):
                named = declarator.child_by_field_name("name")
                if named is not None and named.type == "identifier":
                    function = enclosing_function(declarator)
                    scope = function.id if function is not None else None
                    self._locals[_text(named)].setdefault(scope, []).append(declarator)
                    if function is not None:
                        functions[_text(named)][function.id] = function
            for assignment in self.of("assignment_expression"):
                left = assignment.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    self._assigned[_text(left)].append(assignment)
            for assignment in self.of("augmented_assignment_expression"):  # `x += ':1'`
                self._augmented.add(_text(assignment.child_by_field_name("left")))
            for name, declaring in functions.items():  # by where they start
                ordered = sorted(
                    ((f.start_byte, f.end_byte, f) for f in declaring.values()),
                    key=lambda found: found[:2],
                )
                self._scopes[name] = ordered
                self._scope_starts[name] = [start for start, _, _ in ordered]
            for name, assignments in self._assigned.items():  # in source order
                assignments.sort(key=lambda a: a.start_byte)
                self._assigned_at[name] = [a.start_byte for a in assignments]
        return self._locals

    def _declaring_function(self, node: Node, name: str) -> Node | None:
        """The innermost function around `node` that declares `name`, found by where the
        declaring functions start and end (walking up the tree costs its depth a step)."""
        scopes = self._scopes.get(name)
        if not scopes:
            return None
        at = bisect_right(self._scope_starts[name], node.start_byte)
        for start, end, function in reversed(scopes[:at]):
            if start <= node.start_byte < end:
                return function
        return None

    def _variable_value(self, given: list[Node | None], depth: int) -> Any:
        """What a variable given these values holds: one fact each (facts.one_of); a
        default replaced by an environment value (`let host = "api:80"; if
        (process.env.HOST) host = process.env.HOST`) is that value with the default."""
        values = [self.value(v, depth + 1) for v in given if v is not None]
        if len(values) == 2 and isinstance(values[0], str) and isinstance(values[1], EnvRef):
            env = values[1]
            if env.default is None and not (env.prefix or env.suffix):
                return EnvRef(env.name, values[0])
        return one_of(values)

    def _calls_of(self, function: Node) -> list[Node]:
        """The module's calls of a function: `f(...)` for a function named or bound to a
        name, `new C(...)` for class C's constructor, `this.m(...)` or `c.m(...)` (`c` bound
        to a `new C(...)`) for a method m of class C; another object's `m` is not it."""
        if self._callers is None:
            self._callers = {}
            for made in self.calls:
                if made.function is None:
                    continue
                by_member = made.kind == "member_expression"
                key = (made.owner, made.method) if by_member else ("", made.text)
                self._callers.setdefault(("call_expression", *key), []).append(made.node)
            for call in self.of("new_expression"):
                called = call.child_by_field_name("constructor")
                if called is None:
                    continue
                if called.type == "member_expression":
                    on = _text(called.child_by_field_name("object"))
                    key = (on, _text(called.child_by_field_name("property")))
                else:
                    key = ("", _text(called))
                self._callers.setdefault((call.type, *key), []).append(call)
        name = _function_name(function)
        if function.type != "method_definition":  # `f`, or `api.f` for `api.f = (...) =>`
            holder, _, member = name.rpartition(".")
            return self._callers.get(("call_expression", holder, member), []) if name else []
        owner = _enclosing(function, ("class_declaration", "class"))
        named = owner.child_by_field_name("name") if owner is not None else None
        if named is None:
            return []
        if name == "constructor":
            return self._callers.get(("new_expression", "", _text(named)), [])
        instances = {"this"} | {
            bound
            for made in self._callers.get(("new_expression", "", _text(named)), [])
            if (bound := _bound_name(made)) is not None
        }
        return [
            call
            for instance in sorted(instances)
            for call in self._callers.get(("call_expression", instance, name), [])
        ]

    def _imported_value(self, name: str) -> Any:
        """`ADDR` or `config.ADDR` (`config.grpc.ADDR`) imported from a module of the
        scanned code, named by its path: an `Imported` that imported.py resolves. A
        package's (`require('lodash')`) is unknown."""
        head, _, members = name.partition(".")
        if head in self.members:
            module, member = self.members[head]
            member = f"{member}.{members}" if members else member
        elif head in self.imports and (members or head in self.defaults):
            module = self.imports[head]
            if head in self.defaults:  # `import config from`: its default export's members
                member = f"default.{members}" if members else "default"
            else:  # `require(...)`, `import * as`: the module's exports
                member = members
        else:
            return UNKNOWN
        if not module.startswith(".") or not all(part.isidentifier() for part in name.split(".")):
            return UNKNOWN
        self.facts.deferred = True
        return Imported(0, module, member, by_path=True)

    def _sum(self, node: Node, depth: int) -> Any:
        """`process.env.HOST + ':' + 50051`: a text when one of its terms is a string or an
        environment value (JavaScript joins the others to it), else arithmetic (unknown).
        The chain is walked down its left terms (a long one past MAX_PARTS is unknown)."""
        terms: list[Node | None] = []
        left: Node | None = node
        while (
            left is not None
            and left.type == "binary_expression"
            and _text(left.child_by_field_name("operator")) == "+"
        ):
            if len(terms) >= MAX_PARTS:
                return UNKNOWN
            terms.append(left.child_by_field_name("right"))
            left = _unwrapped(left.child_by_field_name("left"))
        terms.append(left)
        terms.reverse()
        parts = [self.value(term, depth + 1) for term in terms]
        textual = any(
            term is not None and term.type in ("string", "template_string") for term in terms
        ) or any(not isinstance(part, str) or not _numeric(part) for part in parts)
        return joined(parts) if textual else UNKNOWN

    def _template(self, node: Node, depth: int) -> Any:
        """`${process.env.HOST}:50051`: a string, or one environment value within text."""
        parts: list[Any] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                parts.append(_text(child))
            elif child.type == "template_substitution" and child.named_children:
                parts.append(self.value(child.named_children[0], depth + 1))
            else:
                return UNKNOWN
        return joined(parts)

    # -- what it exports ---------------------------------------------------------------

    def _exports(self) -> None:
        """What other modules may import: `export const`, `export {a as b}` (also `from`
        another module), `export default`, and CommonJS's `module.exports = {...}`,
        `module.exports.X =`, `exports.X =`; a CommonJS module's exports are also its
        default export (what `import config from` gets). Unknown values are left out."""
        exports = self.facts.exports
        common_js = False
        for statement in self.root.named_children:
            if statement.type == "export_statement":
                self._export(statement)
                continue
            if statement.type != "expression_statement" or not statement.named_children:
                continue
            assignment = statement.named_children[0]
            if assignment.type != "assignment_expression":
                continue
            target = _text(assignment.child_by_field_name("left")).split(".")
            value = self._exported(assignment.child_by_field_name("right"))
            if target == ["module", "exports"] and isinstance(value, dict):
                exports.update(value)
                common_js = True
            elif target[:-1] in (["module", "exports"], ["exports"]):
                exports[target[-1]] = value
                common_js = True
        for name in [name for name, value in exports.items() if isinstance(value, Unknown)]:
            del exports[name]
        if common_js and exports and "default" not in exports:
            exports["default"] = dict(exports)

    def _export(self, statement: Node) -> None:
        exports = self.facts.exports
        declaration = statement.child_by_field_name("declaration")
        source = _string(statement.child_by_field_name("source"))
        if declaration is not None and declaration.type == "lexical_declaration":
            for declarator in declaration.named_children:
                named = declarator.child_by_field_name("name")
                if named is not None and named.type == "identifier":
                    exports[_text(named)] = self._bound(_text(named))
        elif any(child.type == "default" for child in statement.children):
            exports["default"] = self._exported(statement.child_by_field_name("value"))
        for clause in statement.named_children:
            if clause.type != "export_clause":
                continue
            for specifier in clause.named_children:
                name = _text(specifier.child_by_field_name("name"))
                alias = _text(specifier.child_by_field_name("alias")) or name
                if source is None:
                    exports[alias] = self._bound(name)
                elif source.startswith("."):  # `export {ADDR} from './config'`
                    self.facts.deferred = True
                    exports[alias] = Imported(0, source, name, by_path=True)

    def _exported(self, node: Node | None, depth: int = 0) -> Any:
        """An exported value: an object (literal or a module const) as a dict of its known
        members, or what `value` makes of it."""
        node = _unwrapped(node)
        if node is None or not self.budget.step(depth):
            return UNKNOWN
        if node.type == "identifier" and _text(node) in self.objects:
            node = self.objects[_text(node)]
        if node.type != "object":
            return self.value(node, depth + 1)
        found: dict[str, Any] = {}
        for child in node.named_children:
            if child.type == "shorthand_property_identifier":
                found[_text(child)] = self._bound(_text(child), depth + 1)
            elif child.type == "pair":
                key = child.child_by_field_name("key")
                name = _string(key) if key is not None and key.type == "string" else _text(key)
                found[name or ""] = self._exported(child.child_by_field_name("value"), depth + 1)
        return {key: value for key, value in found.items() if not isinstance(value, Unknown)}

    def _bound(self, name: str, depth: int = 0) -> Any:
        """What a module name holds, as exported."""
        if name in self.objects:
            return self._exported(self.objects[name], depth)
        if name in self.strings:
            return self.strings[name]
        given = self._given(None, name, ("let", "var"))  # a module `let` or `var`
        if given is not None:
            return settled(self._variable_value(given, depth))
        return self._imported_value(name)

    def _text_value(self, node: Node) -> None:
        """An http(s) URL the module holds, and a health status of NOT_SERVING."""
        if node.id in self.substituted:
            return
        value = self.value(node)
        if isinstance(value, Unknown) and node.type == "template_string":
            value = self._origin(node)
        text = (
            value if isinstance(value, str) else value.prefix if isinstance(value, EnvRef) else ""
        )
        if text.lower().startswith(("http://", "https://")) and not self._carried(node, value):
            self._url(value, self.loc(node))
        elif text == "NOT_SERVING":
            self.facts.health_drains.append(self.loc(node))

    def _origin(self, node: Node) -> Any:
        """`http://${host}/${path}`, `` `${process.env.ORDERS_URL}/orders/${id}` `` or
        `BASE + '/orders/' + id` read up to its path: the origin its requests go to,
        whatever the path. A text that begins with a literal writes its scheme there; one
        that begins with a value (an environment variable, a constant) has its scheme and
        host from that value, up to the next literal `/`. Unknown when the scheme or the
        host is."""
        pieces = _pieces(node)
        if pieces is None:
            return UNKNOWN
        parts: list[Any] = []
        scheme = host = False
        for piece in pieces:
            if isinstance(piece, str):
                text = piece
                if not scheme:
                    head, separator, text = text.partition("://")
                    if not separator:
                        return UNKNOWN
                    parts.append(head + separator)
                    scheme = True
                cut = text.find("/")
                if cut >= 0 and (host or cut > 0):
                    return joined([*parts, text[:cut]])
                parts.append(text)
                host = host or bool(text)
                continue
            value = self.value(piece)
            if not scheme and not _base_url(value):
                return UNKNOWN
            parts.append(value)
            scheme = host = True
        return joined(parts)

    def _request_urls(self) -> None:
        """The URL each HTTP request of the module goes to where it is more than a literal
        (a literal is read where it is: _text_value), kept at the request: axios's
        methods, `fetch` (the global one, node-fetch's, undici's), got and its methods,
        Node's `http(s).request`/`get`. Read up to its path when the path cannot be
        followed (_origin); a value that is no URL once filled is no address."""
        seen = {loc for _, loc in self.facts.urls}
        for call in self.calls:
            if call.function is None or not self._is_request(call):
                continue
            given = call.given
            argument = _unwrapped(given[0]) if given else None
            if argument is None or argument.type == "string" or self.loc(argument) in seen:
                continue  # read where it is written
            url = settled(self.value(argument))
            if isinstance(url, Unknown) and argument.type in _TEXTS:
                url = self._origin(argument)
            loc = self.loc(call.node)
            if _base_url(url) and loc not in seen and not self._carried(argument, url):
                seen.add(loc)
                self._url(url, loc)

    def _url(self, url: Any, loc: Loc) -> None:
        self.facts.urls.append((url, loc))
        if isinstance(url, str):
            self.written.add(url)

    def _carried(self, node: Node, url: Any) -> bool:
        """Whether a text's URL is one the module writes elsewhere, carried in whole by the
        text's first value (`${STOCK}/items/${id}`, `axios.get(STOCK)`, where `const STOCK =
        'http://stock:7000'`): facts.carried_url. A value the environment may set is read
        at each use (what a workload sets is its own problem there)."""
        if not isinstance(url, str):
            return False
        pieces = _pieces(node) if node.type != "identifier" else [node]
        if not pieces or isinstance(pieces[0], str):
            return False
        return carried_url(settled(self.value(pieces[0])), url, self.written)

    def _is_request(self, call: _Call) -> bool:
        """Whether a call sends an HTTP request to the URL its first argument gives."""
        member = call.kind == "member_expression"
        owner, method = (call.owner, call.method) if member else (call.text, "")
        module = self.imports.get(owner)
        if module is None and not method and owner in self.members:
            module, method = self.members[owner]  # `import { request } from 'undici'`
            return module in _FETCHES and method in ("fetch", "request")
        if module == "axios":
            return method in _AXIOS_CALLS and method not in ("create", "request")
        if module == "got":
            return not method or method in _GOT_CALLS
        if module in _FETCHES:
            return not method or method == "fetch"
        if module in HTTP_MODULES:
            return method in ("request", "get")
        return owner == "fetch" and not method and owner not in self.functions

    def options(self, node: Node | None) -> Options:
        """The options an argument gives: none, an object literal (in place, or a module
        `const`), or what k8slb cannot follow (a call, a parameter)."""
        node = _unwrapped(node)
        if node is None:
            return NOT_GIVEN
        literal = self.objects.get(_text(node)) if node.type == "identifier" else node
        if literal is None or literal.type != "object":
            return UNKNOWN_OPTIONS
        return _options(self.path, literal)

    # -- what it makes -------------------------------------------------------------------

    def _made(self, node: Node, grpc: set[str], servers: dict[str, Server]) -> None:
        made = node.child_by_field_name("constructor")
        owner = _text(made.child_by_field_name("object")) if made is not None else ""
        member = _text(made.child_by_field_name("property")) if made is not None else ""
        if made is not None and made.type == "identifier":  # imported by name, or a default
            owner, member = self.members.get(_text(made), (self.imports.get(_text(made), ""), ""))
            owner = f"module:{owner}"
        module = owner[len("module:") :] if owner.startswith("module:") else self.imports.get(owner)
        given = call_arguments(node)
        if module in GRPC_PACKAGES and member == "Server":
            name = _bound_name(node) or self._wrapper_bound(node)
            options = self.options(given[0] if given else None)
            server = Server(self.loc(node), "grpc.Server", options, name)
            servers[name or f"#{len(servers)}"] = server
        elif module == MALI and member in ("", "default", "Mali"):
            self.mali_made.add(node.id)
            name = _bound_name(node)
            if name:  # its server is made where it starts (_mali_servers)
                self.mali_apps.add(name)
        elif module in HEALTH and member in ("HealthImplementation", "Implementation"):
            self.facts.health_servicers.append(HealthServicer(self.loc(node), None))
        elif module in HTTP_MODULES and member == "Agent":
            self._http_agent(node, f"{HTTP_MODULES[module]}.Agent", given, keep_alive=False)
        elif module == "agentkeepalive":
            self._http_agent(node, f"agentkeepalive.{member or 'Agent'}", given, keep_alive=True)
        elif module == "undici" and member in UNDICI_POOLS:
            url = settled(self.value(given[0])) if given and member != "Agent" else None
            self.facts.http_clients.append(
                HttpClient(self.loc(node), f"undici.{member}", _long_lived(node), False, url, False)
            )
        elif module in APOLLO_SERVERS and member == "ApolloServer":
            if self._stops_on_signals(given[0] if given else None):
                self.facts.signal_servers.append(self.loc(node))
        elif (channels := self._client(node, grpc, given)) is not None:
            self.facts.channels += channels

    def _mali_servers(self, servers: dict[str, Server]) -> None:
        """The server each `app.start(...)` of a Mali app makes, with the options start
        gives `grpc.Server`: its third argument, or its second after credentials given
        first; none given, none set (a fix cannot add them: they follow the credentials)."""
        for call in self.calls:
            if call.kind != "member_expression" or call.method != "start":
                continue
            if call.owner not in self.mali_apps or call.owner in servers:
                continue  # a second start of the app: another server, judged as the first
            options = self._mali_options(call)
            servers[call.owner] = Server(self.loc(call.node), MALI_START, options, call.owner)

    def _mali_options(self, call: _Call) -> Options:
        """The options a Mali app's `start(...)` gives `grpc.Server`: its third argument, or
        its second after credentials given first; none given, none set (a fix cannot add
        them: they follow the credentials)."""
        given = call.given
        at = 1 if given and "Credentials" in _text(given[0]) else 2
        return self.options(given[at]) if len(given) > at else NO_OPTIONS

    def _imported_mali_apps(self, servers: dict[str, Server]) -> None:
        """`app.start(...)` of an app the module imports (`import app from './grpc.js'`,
        `const {app} = require('./grpc')`): a Mali server, with the options start gives,
        where that module exports a Mali app under that name (its `mali <name>` export,
        resolved in imported.py: anything else it exports makes no server)."""
        for call in self.calls:
            owner = call.owner
            if call.kind != "member_expression" or call.method != "start" or owner in servers:
                continue
            if owner in self.members:
                module, member = self.members[owner]
            elif owner in self.imports and owner not in self.namespaces:
                module, member = self.imports[owner], "default"  # ESM's default, or CommonJS's
            else:
                continue
            if module in (MALI, NICE_GRPC) or module in GRPC_PACKAGES:
                continue
            made_by = Imported(0, module, f"mali {member}", by_path=True)
            options = self._mali_options(call)
            servers[owner] = Server(
                self.loc(call.node), MALI_START, options, owner, made_by=made_by
            )
            self.facts.deferred = True

    def _mali_exports(self) -> None:
        """The Mali apps the module makes at its top level and exports, each as `mali
        <name>` (`mali default`) with Mali's start, for the modules that import and start
        it (_imported_mali_apps): `export default app`, `export default new Mali(...)`,
        `export const app = new Mali(...)`, `export {app as grpc}`, `module.exports = app`
        (also `= {app}`), `exports.app = app`."""
        apps = {  # the top level's names bound to `new Mali(...)`
            _text(declarator.child_by_field_name("name"))
            for declarator in self.of("variable_declarator")
            if enclosing_function(declarator) is None
            and (value := _unwrapped(declarator.child_by_field_name("value"))) is not None
            and value.id in self.mali_made
        }
        exported: set[str] = set()
        for statement in self.root.named_children:
            if statement.type == "export_statement":
                exported |= self._mali_exported(statement, apps)
            elif statement.type == "expression_statement" and statement.named_children:
                assignment = statement.named_children[0]
                if assignment.type != "assignment_expression":
                    continue
                target = _text(assignment.child_by_field_name("left")).split(".")
                value = _unwrapped(assignment.child_by_field_name("right"))
                if value is None:
                    continue
                if target == ["module", "exports"] and _text(value) in apps:
                    exported.add("default")
                elif target == ["module", "exports"] and value.type == "object":
                    for name, held in object_members(self, value).items():
                        if _text(held) in apps:
                            exported.add(name)
                elif target[:-1] in (["module", "exports"], ["exports"]) and _text(value) in apps:
                    exported.add(target[-1])
        for name in exported:
            self.facts.exports[f"mali {name}"] = MALI_START

    def _mali_exported(self, statement: Node, apps: set[str]) -> set[str]:
        """The names an `export` statement gives the module's Mali apps (`default` too)."""
        found: set[str] = set()
        declaration = statement.child_by_field_name("declaration")
        if declaration is not None:
            for declarator in declaration.named_children:
                name = _text(declarator.child_by_field_name("name"))
                found |= {name} & apps
        elif any(child.type == "default" for child in statement.children):
            value = _unwrapped(statement.child_by_field_name("value"))
            if value is not None and (_text(value) in apps or value.id in self.mali_made):
                found.add("default")
        if statement.child_by_field_name("source") is not None:
            return found  # `export {app} from './grpc'`: another module's
        for clause in statement.named_children:
            if clause.type != "export_clause":
                continue
            for specifier in clause.named_children:
                name = _text(specifier.child_by_field_name("name"))
                if name in apps:
                    found.add(_text(specifier.child_by_field_name("alias")) or name)
        return found

    def _stops_on_signals(self, given: Node | None) -> bool:
        """Whether an ApolloServer made with these options installs its SIGTERM handler
        when started: options an object literal (in place, or a module `const`) that turns
        it on, or leaves it at its default and says no `nodeEnv` but one not `test`; not
        options k8slb cannot read whole (a spread may turn it off), nor a server the module
        starts in the background, as a serverless handler does."""
        node = _unwrapped(given)
        literal = (
            self.objects.get(_text(node))
            if node is not None and node.type == "identifier"
            else node
        )
        if literal is None or literal.type != "object":
            return False
        said: bool | None = None
        default = not any(call.method == _APOLLO_BACKGROUND for call in self.calls)
        for child in literal.named_children:  # a later member wins, as in JavaScript
            key = self.key(child) if child.type == "pair" else _text(child)
            value = _value(child.child_by_field_name("value")) if child.type == "pair" else None
            if child.type == "spread_element":
                said, default = None, False  # it may set either
            elif key == _APOLLO_SIGNALS:
                said = value is True
            elif key == "nodeEnv":
                default = default and isinstance(value, str) and value != "test"
        return said if said is not None else default

    def _made_by_nice_grpc(self, node: Node, servers: dict[str, Server]) -> None:
        """nice-grpc's `createServer(options)` (also chained: `createServer().use(mw)` is the
        server with a middleware), and nice-grpc-server-health's `HealthServiceImpl()`."""
        function = node.child_by_field_name("function")
        if function is None:
            return
        if function.type == "identifier":
            module, member = self.members.get(_text(function), ("", ""))
        elif function.type == "member_expression":
            module = self.imports.get(_text(function.child_by_field_name("object")), "")
            member = _text(function.child_by_field_name("property"))
        else:
            return
        given = call_arguments(node)
        if module == NICE_GRPC and member == NICE_SERVER:
            chained = node
            while (
                chained.parent is not None
                and chained.parent.type == "member_expression"
                and _text(chained.parent.child_by_field_name("property")) == "use"
                and chained.parent.parent is not None
                and chained.parent.parent.type == "call_expression"
            ):
                chained = chained.parent.parent
            name = _bound_name(chained)
            options = self.options(given[0] if given else None)
            server = Server(self.loc(node), NICE_SERVER, options, name)
            servers[name or f"#{len(servers)}"] = server
        elif module == NICE_GRPC and member == NICE_CHANNEL and given:
            self._nice_channel(node, given)
        elif module == NICE_HEALTH and member == "HealthServiceImpl" and not given:
            # with no state or map given, nothing can set it to anything but SERVING
            self.facts.health_servicers.append(HealthServicer(self.loc(node), None))

    def _nice_channel(self, node: Node, given: list[Node]) -> None:
        """nice-grpc's `createChannel(address, credentials, options)`: a grpc-js channel,
        long-lived unless the function that makes it also closes it, dialled as nice-grpc
        reads its address (facts.NICE_ADDRESS). Options are added only to a literal given:
        a fix cannot write a third argument where the credentials are left out."""
        tls = len(given) > 1 and "createSsl" in _text(given[1])
        options = self.options(given[2]) if len(given) > 2 else NO_OPTIONS
        long_lived = not _closed_where_made(node, self.ends)
        scheme = NICE_TLS_ADDRESS if tls else NICE_ADDRESS
        self.facts.channels += [
            Channel(
                self.loc(node), NICE_CHANNEL, target, options, long_lived, (0, "address"), scheme
            )
            for target in self._targets(given[0])
        ]

    def _http_agent(self, node: Node, factory: str, given: list[Node], keep_alive: bool) -> None:
        """An agent pools its sockets when `keepAlive` is on (http's default: off)."""
        options = self.options(given[0] if given else None)
        setting = options.get("keepAlive")
        if setting is not None:
            keep_alive = setting.value is True
        elif not options.complete:
            return  # set where k8slb cannot see
        self.facts.http_clients.append(
            HttpClient(self.loc(node), factory, _long_lived(node), False, None, not keep_alive)
        )

    def _default_agent(self) -> None:
        """The first request the module sends through Node's global agent: axios's (its
        default instance, or one `axios.create()` makes), the global `fetch`, or
        `http.request`/`http.get`, none given an agent (or dispatcher) of its own. One for
        the module: the agent is the process's, whoever calls it."""
        for call in self.calls:  # in source order
            if call.function is None:
                continue
            node, owner, method = call.node, call.owner, call.method
            if call.kind != "member_expression":
                owner = call.text
            module = self.imports.get(owner)
            if module == "axios" and (method in _AXIOS_CALLS or not method):
                factory = f"axios.{method}" if method else "axios"
            elif HTTP_MODULES.get(module or "") == "http" and method in ("request", "get"):
                factory = f"http.{method}"
            elif owner == "fetch" and not method and "fetch" not in self.imports:
                if "fetch" in self.members or "fetch" in self.functions:
                    continue  # node-fetch, undici's, or the module's own
                factory = "fetch"
            else:
                continue
            # a request given its own agent (each argument's text searched only for a
            # request: every call's, callbacks and all, cost a module more than its parse)
            given = call.given
            if any(_OWN_AGENT.search(_text(arg)) for arg in given):
                continue
            url = settled(self.value(given[0])) if given and method != "create" else None
            if isinstance(url, Unknown) and given and given[0].type == "template_string":
                url = self._origin(given[0])
            if method == "create":  # `axios.create({baseURL})`: its requests' origin
                base = self.options(given[0] if given else None).get("baseURL")
                url = base.value if base is not None else None
            if not (isinstance(url, str) and "://" in url) and not isinstance(url, EnvRef):
                url = None  # unknown or relative: the module's URLs stand for it
            self.facts.agent_requests.append(
                HttpClient(self.loc(node), factory, True, False, url, False, default_agent=True)
            )
            return

    def _client(self, node: Node, grpc: set[str], given: list[Node]) -> list[Channel] | None:
        """`new Client(target, grpc.credentials.create...(), options)`: a channel, long-lived
        unless the function that makes it also closes it."""
        if len(given) < 2 or not self._is_credentials(_unwrapped(given[1]), grpc):
            return None
        made = _text(node.child_by_field_name("constructor"))
        options = self.options(given[2] if len(given) > 2 else None)
        long_lived = not _closed_where_made(node, self.ends)
        # a target passed by the callers: one channel for each value they pass
        return [
            Channel(self.loc(node), f"new {made}", target, options, long_lived, (0, "address"))
            for target in self._targets(given[0])
        ]

    def _targets(self, node: Node) -> list[Any]:
        """The values of a channel's target; one k8slb cannot follow that is a property of
        an object (`processor.addr`, of a parsed configuration file) is that key of the
        files the containers mount (facts.FileKey)."""
        found = choices(self.value(node))
        key = _file_key(_unwrapped(node))
        return [FileKey(key) if key and isinstance(t, Unknown) else t for t in found]

    def _is_credentials(self, node: Node | None, grpc: set[str], held: bool = True) -> bool:
        """`grpc.credentials.createInsecure()` (or `credentials.create...()` imported from
        grpc-js), or a variable given one (`const creds = grpc.credentials.createSsl()`;
        `held`: followed one name deep): the mark of a grpc-js client."""
        if node is not None and node.type == "identifier" and held:
            if not self.budget.step(0):
                return False
            given = self._given(node, _text(node), ("let", "var", "const")) or []
            return any(self._is_credentials(_unwrapped(v), grpc, False) for v in given)
        if node is None or node.type != "call_expression":
            return False
        called = _text(node.child_by_field_name("function")).split(".")
        if len(called) == 2:  # `credentials` or `ChannelCredentials` imported by name
            return self.members.get(called[0]) in {
                (package, c) for package in GRPC_PACKAGES for c in _CREDENTIALS
            }
        return len(called) == 3 and called[0] in grpc and called[1] in _CREDENTIALS

    def _registration(self, node: Node, called: str) -> None:
        """A registry client's register call, in a module that requires the client."""
        for module, registry in REGISTRY_CLIENTS.items():
            suffix = REGISTER_CALLS[registry]
            # the call's name first: the imports are a scan, and a module may hold
            # thousands of them and of calls
            if not (called == suffix or called.endswith("." + suffix)):
                continue
            if module not in self.imports.values():
                continue
            function = enclosing_function(node)
            within = _function_name(function) if function is not None else ""
            method = suffix.rsplit(".", 1)[-1]
            self.facts.registrations.append(Registration(self.loc(node), registry, method, within))

    def _server_names(self) -> set[str]:
        """The names the module calls a grpc-js server's own methods on (SERVER_METHODS)."""
        if self._served is None:
            self._served = {
                call.owner
                for call in self.calls
                if call.kind == "member_expression" and call.method in SERVER_METHODS
            }
        return self._served

    def _wrapper_bound(self, node: Node) -> str | None:
        """`const server = createProxy(new Server())` (or `new Proxy(new Server(), h)`,
        awaited, a few calls deep): the name a call given the new server binds its result
        to, when the module calls a server's own method on that name (SERVER_METHODS): what
        the wrapper returns is the server, or forwards to it. None for a result never used
        as a server (a call that only registers the server somewhere)."""
        for _ in range(_WRAPPED_DEPTH):
            call = _given_to(node)
            if call is None:
                return None
            if call.parent is not None and call.parent.type == "await_expression":
                call = call.parent
            name = _bound_name(call)
            if name is not None:
                return name if name in self._server_names() else None
            node = call
        return None

    def _wrapped_servers(self, servers: dict[str, Server]) -> None:
        """`const wrapped = createProxy(server)` (also awaited) of a server the module makes:
        the same server, when the module calls a server's own method on `wrapped`."""
        for node in self.of("variable_declarator"):
            named = node.child_by_field_name("name")
            name = _text(named) if named is not None and named.type == "identifier" else ""
            if not name or name in servers or name in self.aliases:
                continue
            value = _unwrapped(node.child_by_field_name("value"))
            if value is not None and value.type == "await_expression" and value.named_children:
                value = _unwrapped(value.named_children[0])
            if value is None or value.type not in ("call_expression", "new_expression"):
                continue
            if name not in self._server_names():
                continue
            given = [_unwrapped(arg) for arg in call_arguments(value)]
            wrapped = {
                self.aliases.get(_text(arg), _text(arg))
                for arg in given
                if arg is not None and arg.type == "identifier"
            }
            made = sorted(wrapped & servers.keys())
            if len(made) == 1:  # given two servers, which one it returns is a guess
                self.aliases[name] = made[0]

    def _returned_servers(self, servers: dict[str, Server]) -> None:
        """`const cars = withServices()`: a name bound to what a function of the module
        returns, when that is a server (a helper that adds the services and returns it)."""
        functions: dict[str, Node] = dict(self.functions)  # and `const f = () => ...`
        for node in self.of("variable_declarator"):
            held, named = node.child_by_field_name("value"), node.child_by_field_name("name")
            if held is not None and named is not None and held.type in FUNCTIONS:
                functions[_text(named)] = held
        returns: dict[str, str | None] = {}  # each function's read once
        for node in self.of("variable_declarator"):
            value = _unwrapped(node.child_by_field_name("value"))
            if value is not None and value.type == "await_expression":
                value = _unwrapped(value.named_children[0]) if value.named_children else None
            callee = value.child_by_field_name("function") if value is not None else None
            if value is None or value.type != "call_expression" or callee is None:
                continue
            called = _text(callee)
            if called not in returns:
                function = functions.get(called)
                returns[called] = _returned_name(function) if function is not None else None
            returned = returns[called]
            name = self.aliases.get(returned or "", returned)
            if name in servers:
                self.aliases[_text(node.child_by_field_name("name"))] = name

    def _servers_made_elsewhere(self, servers: dict[str, Server]) -> None:
        """`const server = createServer({...})` (or awaited) of a function another module
        exports, when the module starts it (`server.listen(address)`: a nice-grpc server,
        `server.bindAsync(...)`: a grpc-js one, `app.start(address)`: a Mali app's, made
        where start() makes it, with the options it gives): a server if that function
        returns one (facts.Server.made_by, resolved in imported.py)."""
        started: dict[str, str] = {}  # a name started -> the factory its start implies
        mali: dict[str, _Call] = {}  # a name's first `start(...)`: a Mali app's, if one
        for call in self.calls:
            if call.kind == "member_expression" and call.method in ("listen", "bindAsync"):
                started[call.owner] = NICE_SERVER if call.method == "listen" else "grpc.Server"
            elif call.kind == "member_expression" and call.method == "start":
                started.setdefault(call.owner, MALI_START)
                mali.setdefault(call.owner, call)
        if not started:
            return
        for node in self.of("variable_declarator"):
            name = _text(node.child_by_field_name("name"))
            if name not in started or name in servers or name in self.aliases:
                continue
            value = _unwrapped(node.child_by_field_name("value"))
            if value is not None and value.type == "await_expression" and value.named_children:
                value = _unwrapped(value.named_children[0])
            function = value.child_by_field_name("function") if value is not None else None
            if value is None or value.type != "call_expression" or function is None:
                continue
            module, member = self.imported_function(function)
            if not module or module in GRPC_PACKAGES or module == NICE_GRPC:
                continue
            made_by = Imported(0, module, f"server {member}", by_path=True)
            if started[name] == MALI_START:  # made where start() makes it, with its options
                start = mali[name]
                server = Server(
                    self.loc(start.node),
                    MALI_START,
                    self._mali_options(start),
                    name,
                    made_by=made_by,
                )
            else:
                server = Server(
                    self.loc(value), started[name], UNKNOWN_OPTIONS, name, made_by=made_by
                )
            servers[name] = server
            self.facts.deferred = True

    def _server_factories(self, servers: dict[str, Server]) -> None:
        """Each function of the module that returns a server it makes, exported as `server
        <function>` with the server's factory: for the modules that call it and start what
        it returns (`_servers_made_elsewhere`)."""
        made = {name: s.factory for name, s in servers.items() if s.made_by is None}
        # an app of Mali it makes, returned to be started: a server where it starts
        made.update((name, MALI_START) for name in self.mali_apps if name not in made)
        if not made:
            return
        functions: dict[str, Node] = dict(self.functions)  # and `const f = () => ...`
        for node in self.of("variable_declarator"):
            held, named = node.child_by_field_name("value"), node.child_by_field_name("name")
            if held is not None and named is not None and held.type in FUNCTIONS:
                functions[_text(named)] = held
        for name, function in functions.items():
            returned = _returned_name(function)
            factory = made.get(self.aliases.get(returned or "", returned or ""))
            if factory is not None:
                self.facts.exports[f"server {name}"] = factory

    def _called(self, call: _Call, servers: dict[str, Server]) -> None:
        node, owner, method = call.node, call.owner, call.method
        if call.kind == "identifier":
            self.facts.called.add(call.text)
            if self._may_name_sigterm(node):
                self._signal_helper_call(node, call.text)
        if call.kind != "member_expression":
            return
        self.facts.called.add(method)
        self._registration(node, call.text)
        if method == "listen":
            self._listening(node, owner)
        if owner != "process" and self._may_name_sigterm(node):
            self._signal_helper_call(node, method, owner)
        if owner == "process" and method in _LISTENERS:
            given = call.given
            if given and "SIGTERM" in self._signals(given[0]):
                self.facts.sigterm_handlers.append(self.loc(node))
                _, handler = self._handler(given[1] if len(given) > 1 else None)
                if handler is not None and handler.id not in self.paused:
                    self.paused.add(handler.id)  # a handler registered again is read once
                    held = self.held_calls()
                    pause = signal_pause(node, handler, self.value, self.loc, held)
                    if pause is not None:
                        self.facts.signal_pauses.append(pause)
                    exit = signal_exit(node, handler, self.loc, held)
                    if exit is not None:
                        self.facts.signal_exits.append(exit)
                    self.closing.append((self.loc(node), _closed(handler, held)))
        elif method == SHUTDOWN_HOOKS:  # NestJS: a SIGTERM handler that closes the app
            self.facts.sigterm_handlers.append(self.loc(node))
        elif method in _NEST_TERMINUS_6 and self.members.get(owner, ("", ""))[0] == NEST_TERMINUS:
            self.facts.sigterm_handlers.append(self.loc(node))  # TerminusModule.forRootAsync
        elif (name := self.aliases.get(owner, owner)) in servers:
            self._server_call(node, name, method, call.given, servers[name])

    def _listen_address(self, node: Node) -> Any:
        """Where a server binds: the address's value, else, where that is not read, what
        the literal text it begins with says (`` `localhost:${port}` ``, `'unix://' +
        path`: facts.listen_head)."""
        address = settled(self.value(node))
        if isinstance(address, Unknown):
            return listen_head(self._literal_head(node)[0]) or address
        return address

    def _literal_head(self, node: Node | None, depth: int = 0) -> tuple[str, bool]:
        """The literal text an address begins with, up to its first part k8slb cannot
        read, and whether that is the whole text: through a name given one value, a `+`
        chain or a template (_pieces), and a constant field of the class (`this.network`
        of `readonly network = 'unix'`: _constant_field)."""
        node = _unwrapped(node)
        if node is None or depth >= MAX_DEPTH:
            return "", False
        value = settled(self.value(node))
        if isinstance(value, str):
            return value, True
        if node.type == "identifier":
            given = self._given(node, _text(node), ("const", "let", "var"))
            if isinstance(given, list) and len(given) == 1:
                return self._literal_head(given[0], depth + 1)
            return "", False
        if node.type == "member_expression":
            field = self._constant_field(node)
            return (field, True) if field is not None else ("", False)
        pieces = _pieces(node) if node.type in _TEXTS else None
        text: list[str] = []
        for piece in pieces or ():
            head, whole = (
                (piece, True) if isinstance(piece, str) else self._literal_head(piece, depth + 1)
            )
            text.append(head)
            if not whole:
                return "".join(text), False
        return "".join(text), pieces is not None

    def _constant_field(self, member: Node) -> str | None:
        """The string a field of the class around `member` (`this.network`) is declared
        with, when no `this.network = ...` of that class gives it another."""
        holder, named = member.child_by_field_name("object"), member.child_by_field_name("property")
        if holder is None or holder.type != "this" or named is None:
            return None
        name = _text(named)
        body = member.parent
        for _ in range(MAX_NESTING):
            if body is None or body.type == "class_body":
                break
            body = body.parent
        if body is None or body.type != "class_body":
            return None
        declared = [
            child
            for child in body.named_children
            if child.type in ("public_field_definition", "field_definition")
            and not any(word.type == "static" for word in child.children)  # `Class.x`
            and _text(child.child_by_field_name("name") or child.child_by_field_name("property"))
            == name
        ]
        if len(declared) != 1 or declared[0].child_by_field_name("value") is None:
            return None
        own = f"this.{name}"
        self._variables()  # the module read whole, its assignments among it
        if any(
            body.start_byte <= a.start_byte < body.end_byte
            and _text(a.child_by_field_name("left")) == own
            for a in self.of("assignment_expression")
        ):
            return None
        value = self.value(declared[0].child_by_field_name("value"))
        return value if isinstance(value, str) else None

    def _server_call(
        self, node: Node, name: str, method: str, given: list[Node], server: Server
    ) -> None:
        facts = self.facts
        if method in ("bindAsync", "bind"):  # `bind`: the legacy package's, synchronous
            facts.starts.add(name)
            if given:
                facts.listens.append(Listen(name, self._listen_address(given[0]), self.loc(node)))
            # from here the event loop keeps the process up, serving, until it is stopped
            facts.waits.append(Wait(self.loc(node), name, NODE_WAIT))
        elif method == "listen" and server.factory == NICE_SERVER:  # binds, then starts
            facts.starts.add(name)
            if given:
                facts.listens.append(Listen(name, self._listen_address(given[0]), self.loc(node)))
            facts.waits.append(Wait(self.loc(node), name, NICE_WAIT))
        elif method == "shutdown" and server.factory == NICE_SERVER:  # tryShutdown, awaited
            facts.stops.append(Stop(self.loc(node), name, UNKNOWN, False))
        elif method == "start" and server.factory == MALI_START:  # binds, then starts
            facts.starts.add(name)
            if given and "Credentials" not in _text(given[0]):
                facts.listens.append(Listen(name, self._listen_address(given[0]), self.loc(node)))
            facts.waits.append(Wait(self.loc(node), name, MALI_WAIT))
        elif method == "close" and server.factory == MALI_START:  # each server's tryShutdown
            facts.stops.append(Stop(self.loc(node), name, UNKNOWN, False))
        elif method == "start":
            facts.starts.add(name)
        elif method == "forceShutdown":
            # the bound of a graceful stop (a timer, or after tryShutdown) cuts only the
            # calls that outlive it
            nice = server.factory == NICE_SERVER
            grace = UNKNOWN if _bounds_a_graceful_stop(node, name, self.ends, nice) else 0
            written = NICE_FORCE if nice else None
            facts.stops.append(Stop(self.loc(node), name, grace, False, written))
        elif method == "tryShutdown":
            facts.stops.append(Stop(self.loc(node), name, UNKNOWN, False))
        elif method == "addService" and given and _is_health_service(given[0]):
            self._health(node, given)

    def _signals(self, node: Node) -> set[str]:
        """The signals a listener's first argument names: a string, or the variable of a
        loop over a list of them (`for (const s of [...])`, `[...].forEach((s) => ...)`)."""
        node = _unwrapped(node) or node
        if node.type == "string":
            return {_string(node) or ""}
        if node.type != "identifier":
            return set()
        listed = _looped_over(node)
        if listed is None:
            return set()
        listed = self.arrays.get(_text(listed), listed)
        return {_string(item) or "" for item in listed.named_children}

    def signal_helpers(self) -> dict[str, int]:
        """The module's named functions whose parameter reaches a process listener's event
        (`function processOnce(signals) { signals.forEach((s) => process.once(s, h)) }`):
        the index of that parameter, by the function's name."""
        if self._signal_helpers is not None:
            return self._signal_helpers
        self._signal_helpers = {}
        for made in self.calls:
            if made.kind != "member_expression" or made.owner != "process":
                continue
            call, given = made.node, made.given
            event = _unwrapped(given[0]) if given else None
            if made.method not in _LISTENERS or (event is None or event.type != "identifier"):
                continue
            names = {_text(event)}
            listed = _unwrapped(_looped_over(event))
            if listed is not None and listed.type == "identifier":
                names.add(_text(listed))  # the loop's list: a parameter, maybe
            scope = call.parent
            while scope is not None and scope.type != "program":
                if scope.type in FUNCTIONS:
                    # (a loop's callback, named by nothing, takes the event itself: go on)
                    at = next((i for i, p in enumerate(_parameters(scope)) if p in names), None)
                    name = _function_name(scope)
                    if at is not None and name:
                        self._signal_helpers[name] = at
                        _, handler = self._handler(given[1] if len(given) > 1 else None)
                        exit = (
                            None
                            if handler is None
                            else signal_exit(call, handler, self.loc, self.held_calls())
                        )
                        if exit is not None:
                            self._helper_exits[name] = exit
                        break
                scope = scope.parent
        for name, at in self._signal_helpers.items():  # for the modules that import one
            self.facts.exports[f"signal helper {name}"] = at
            if name in self._helper_exits:  # imported.py gives it the caller's handler
                self.facts.exports[f"signal helper {name} exit"] = self._helper_exits[name]
        return self._signal_helpers

    def _signal_helper_call(self, node: Node, name: str, owner: str = "") -> None:
        """`processOnce(['SIGTERM', 'SIGINT'])`, `Shutdown.once(['SIGTERM'])`: a SIGTERM
        handler, where the function (or method) is this module's signal helper, or another
        scanned module's (imported.py checks the index of the parameter that module
        exports)."""
        given = call_arguments(node)
        naming = tuple(at for at, argument in enumerate(given) if self._names_sigterm(argument))
        if not naming:
            return
        imported = self.members.get(owner or name, (self.imports.get(owner, ""), ""))[0]
        if not imported.startswith("."):
            if self.signal_helpers().get(name) in naming:
                self.facts.sigterm_handlers.append(self.loc(node))
                if name in self._helper_exits:  # the SIGTERM handler is this call's
                    exit = replace(self._helper_exits[name], handler=self.loc(node))
                    self.facts.signal_exits.append(exit)
        else:
            member = name if owner else self.members[name][1]
            origin = Imported(0, imported, f"signal helper {member}", by_path=True)
            self.facts.signal_helper_calls.append((origin, naming, self.loc(node)))
            self.facts.deferred = True

    def _names_sigterm(self, node: Node) -> bool:
        """A string that is SIGTERM, or a list (or a module's const list) that holds it."""
        node = _unwrapped(node) or node
        if node.type == "identifier":
            node = self.arrays.get(_text(node), node)
        items = node.named_children if node.type == "array" else [node]
        return any(item.type == "string" and _string(item) == "SIGTERM" for item in items)

    def _health(self, node: Node, given: list[Node]) -> None:
        """`server.addService(health.Health.service, {check})`: a hand-written health
        service, which can fail unless its check answers only SERVING."""
        implementation = _unwrapped(given[1]) if len(given) > 1 else None
        if implementation is None or implementation.type != "object":
            return
        for child in implementation.named_children:
            if child.type == "shorthand_property_identifier" and _text(child) == "check":
                handler: Node | None = child
            elif child.type == "pair" and _text(child.child_by_field_name("key")) in (
                "check",
                "Check",
                "'check'",
            ):
                handler = child.child_by_field_name("value")
            else:
                continue
            name, body = self._handler(handler)
            can_fail = body is None or _can_fail(body)
            self.facts.health_servicers.append(
                HealthServicer(self.loc(node), name or "check", can_fail)
            )

    def _handler(self, node: Node | None) -> tuple[str, Node | None]:
        """The function a handler names: an inline one, a function or method of the module
        by its name (`check`, `Server.check`, `this.check.bind(this)`)."""
        node = _unwrapped(node)
        if node is None:
            return "", None
        if node.type in ("arrow_function", "function_expression", "function"):
            return "", node
        if node.type == "call_expression":  # `handler.bind(this)`
            function = node.child_by_field_name("function")
            if function is not None and _text(function.child_by_field_name("property")) == "bind":
                return self._handler(function.child_by_field_name("object"))
            return "", None
        name = _text(node).rsplit(".", 1)[-1]
        return name, self.functions.get(name)


def _bounds_a_graceful_stop(call: Node, server: str, ends: Calls, nice: bool = False) -> bool:
    """Whether a `forceShutdown()` is a timer's (`setTimeout(() => s.forceShutdown(), ms)`)
    or comes in a function that also calls `s.tryShutdown(...)` (a nice-grpc server's
    `s.shutdown()`)."""
    function = enclosing_function(call)
    if function is None:
        return False
    holder = function.parent.parent if function.parent is not None else None
    if holder is not None and _text(holder.child_by_field_name("function")) == "setTimeout":
        return True
    return ends.within(f"{server}.{'shutdown' if nice else 'tryShutdown'}", function)


# The calls that end a client or a server, found by `Calls` (`client.close()`).
_ENDINGS = ("close", "tryShutdown", "shutdown")


def _ending_call(call: _Call) -> str | None:
    """`client.close` for `client.close()` (`this.server.tryShutdown` ...): a call of one of
    _ENDINGS on a name, or None."""
    function = call.function
    if function is None or call.kind != "member_expression" or call.method not in _ENDINGS:
        return None
    named = function.child_by_field_name("object")
    while named is not None and named.type == "member_expression":  # `this.pool.client`
        named = named.child_by_field_name("object")
    return call.text if named is not None and named.type in ("identifier", "this") else None


def _is_health_service(node: Node) -> bool:
    """`health.Health.service`, `healthProto.grpc.health.v1.Health.service`."""
    return _text(node).endswith("Health.service")


def _can_fail(function: Node) -> bool:
    """Whether a health check can answer anything but SERVING: it names another status,
    or decides (a condition) what to answer."""
    named: set[str] = set()
    for node in walk(function):
        if node.type in ("if_statement", "ternary_expression", "switch_statement"):
            return True
        word = _string(node) if node.type == "string" else _text(node)
        if node.type in ("string", "property_identifier", "identifier") and word in _STATUSES:
            named.add(word or "")
    return named != {"SERVING"}


def _options(path: str, literal: Node) -> Options:
    """The options an object literal sets; incomplete when a key is not a plain string or a
    spread (`...defaults`) may set others."""
    entries: list[Option] = []
    complete = True
    for child in literal.named_children:
        if child.type == "comment":
            continue
        if child.type != "pair":
            complete = False  # a spread, a shorthand, a method
            continue
        key = child.child_by_field_name("key")
        if key is not None and key.type == "string":
            name = _string(key)
        elif key is not None and key.type == "property_identifier":
            name = _text(key)
        else:
            name = None
        if name is None:
            complete = False
            continue
        entries.append(Option(name, _value(child.child_by_field_name("value")), _loc(path, child)))
    return Options(complete, tuple(entries), _loc(path, literal))


def _value(node: Node | None) -> Any:
    """A number (`30_000`), a string, a boolean, `JSON.stringify` of a literal (a service
    config), or UNKNOWN."""
    node = _unwrapped(node)
    if node is None:
        return UNKNOWN
    if node.type == "call_expression" and _text(node.child_by_field_name("function")) == (
        "JSON.stringify"
    ):
        given = call_arguments(node)
        data = _data(given[0], 0) if len(given) == 1 else UNKNOWN
        return json.dumps(data) if data is not UNKNOWN else UNKNOWN
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "number":
        text = _text(node).replace("_", "")
        try:
            return int(text, 0) if text.isdigit() or text.lower().startswith("0x") else float(text)
        except ValueError:
            return UNKNOWN
    string = _string(node)
    return string if string is not None else UNKNOWN


def _closed_where_made(node: Node, ends: Calls) -> bool:
    """Whether the function that makes the client also calls `.close()` on it (a client
    per call; not `main`, whose clients live as long as the program)."""
    name = _bound_name(node)
    scope = enclosing_function(node)
    if name is None or scope is None or _function_name(scope) == "main":
        return False
    return ends.within(f"{name}.close", scope)


def _environment_pattern(pattern: Node, read: Callable[[Node], Any]) -> dict[str, EnvRef]:
    """`const {CART_ADDR = '', PORT = 8082, HOST = `0.0.0.0:${PORT}`, DB: db} =
    process.env`: each name bound to its environment variable, with the default a string
    or a number gives it, or a text made of another variable (`read` reads it: an EnvRef
    as its default, which the container's own setting of that one fills)."""
    found: dict[str, EnvRef] = {}
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            found[_text(child)] = EnvRef(_text(child))
        elif child.type == "object_assignment_pattern":
            left, right = child.child_by_field_name("left"), child.child_by_field_name("right")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                default = read(right) if right is not None else None
                if not isinstance(default, str | EnvRef) or (
                    isinstance(default, EnvRef) and not isinstance(default.default, str | None)
                ):
                    default = _string(right)  # one level of variables, no more
                found[_text(left)] = EnvRef(_text(left), default)
        elif child.type == "pair_pattern":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                found[_text(value)] = EnvRef(_text(key))
    return found


def _env(node: Node) -> str | None:
    """The variable `process.env.X` or `process.env['X']` reads."""
    if node.type not in ("member_expression", "subscript_expression"):
        return None
    if _text(node.child_by_field_name("object")) != "process.env":
        return None
    if node.type == "member_expression":
        return _text(node.child_by_field_name("property"))
    return _string(node.child_by_field_name("index"))


def _data(node: Node, depth: int) -> Any:
    """A literal as data (objects, arrays, strings, numbers, booleans), or UNKNOWN (nested
    deeper than the budget's MAX_DEPTH too)."""
    if depth > MAX_DEPTH:
        return UNKNOWN
    if node.type == "object":
        found: dict[str, Any] = {}
        for pair in node.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            if key is None:
                return UNKNOWN
            name = _string(key) if key.type == "string" else _text(key)
            value = _data(pair.child_by_field_name("value"), depth + 1)  # type: ignore[arg-type]
            if value is UNKNOWN:
                return UNKNOWN
            found[name or ""] = value
        return found
    if node.type == "array":
        items = [_data(child, depth + 1) for child in node.named_children]
        return UNKNOWN if any(item is UNKNOWN for item in items) else items
    return _value(node)
