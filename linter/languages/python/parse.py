"""Python source -> `CodeFacts`, in one pass over the syntax tree per file.

`check` reads Python with the standard library's `ast` parser, as it reads YAML with the C
composer: measured on 600 generated services, `ast.parse` takes 0.08 ms a file, libcst's
parser 1.1 ms and libcst with the qualified-name and position metadata the analysis needs
12 ms (a 150x gap). libcst, which keeps every byte, is for the fixer, as the round-trip
loader is for YAML. A file whose syntax is newer than the running Python, which only libcst
can read, is reported as not analysed rather than as broken.

Names are followed through imports the way Python binds them (`import grpc as g`,
`from grpc import insecure_channel as ic`, `from grpc import aio`), so a local function
that happens to be called `insecure_channel` is not gRPC. Arguments are resolved after the
traversal, when every assignment and every `options.append(...)` of the module is known.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, is_dataclass, replace
from functools import lru_cache
from operator import itemgetter
from typing import Any

from k8slb.code.budget import MAX_CHOICES, MAX_DEPTH
from k8slb.code.facts import (
    NOT_GIVEN,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    ChannelHelper,
    CodeFacts,
    DbPool,
    HealthServicer,
    HttpClient,
    Imported,
    Listen,
    Options,
    Registration,
    RegistryDial,
    Server,
    Stop,
    Unknown,
    Wait,
    add_kept,
    is_test_path,
    listen_head,
    one_of,
    registry_scheme,
    stand_in_name,
    worth_parsing,
)
from k8slb.code.projects import Import, module_imports
from k8slb.code.syntax_trees import template_block
from k8slb.core import regex
from k8slb.core.findings import Problem, Severity
from k8slb.languages.python.parse_ast import dotted
from k8slb.languages.python.parse_calls import function_calls, main_blocks, signal_functions
from k8slb.languages.python.parse_disposed import disposed_on_every_path
from k8slb.languages.python.parse_envhelpers import EnvReader
from k8slb.languages.python.parse_made import (
    MAX_MADE_CALLS,
    MAX_PASSED,
    HealthOnly,
    returned_names,
)
from k8slb.languages.python.parse_names import Scope
from k8slb.languages.python.parse_order import (
    LOOK_BACK,
    Places,
    called_alone_at,
    comes_after,
    function_of,
)
from k8slb.languages.python.parse_routes import WEB_WORDS, collect_routes
from k8slb.languages.python.parse_settings import (
    MAX_INHERITED,
    settings_chain,
    settings_fields,
)
from k8slb.languages.python.parse_shutdown import (
    grace_default,
    is_sleep,
    is_stop,
    signal_pauses,
)
from k8slb.languages.python.parse_values import Values, _parameter, keyword_argument
from k8slb.reading.encodings import python_codec
from k8slb.reading.markers import comment_markers

# qualified name -> (index of the target argument, index of the options argument)
CHANNEL_FACTORIES = {
    "grpc.insecure_channel": (0, 1),
    "grpc.secure_channel": (0, 2),
    "grpc.aio.insecure_channel": (0, 1),
    "grpc.aio.secure_channel": (0, 2),
}
SERVER_FACTORIES = {"grpc.server": 3, "grpc.aio.server": 3}
# Service registries' Python clients (the top package imported -> the registry) and the
# calls that register the process: python-consul's `agent.service.register`, Nacos's
# `add_naming_instance`, py_eureka_client's `init`/`register`, an ephemeral ZooKeeper
# node (kazoo's `create(..., ephemeral=True)`).
REGISTRY_CLIENTS = {
    "consul": "Consul",
    "nacos": "Nacos",
    "py_eureka_client": "Eureka",
    "kazoo": "ZooKeeper",
}
REGISTER_CALLS = {
    "Consul": ("service.register",),
    "Nacos": ("add_naming_instance",),
    "Eureka": ("eureka_client.init", "eureka_client.register"),
    "ZooKeeper": ("create",),
}
HTTP_CLIENTS = frozenset(
    {
        "requests.Session",
        "requests.sessions.Session",
        "urllib3.PoolManager",
        "urllib3.poolmanager.PoolManager",
        "httpx.Client",
        "httpx.AsyncClient",
        "aiohttp.ClientSession",
    }
)
# Search clients that keep a keep-alive pool a node (elastic-transport's Urllib3HttpNode,
# opensearch-py's Urllib3HttpConnection: a urllib3 HTTPConnectionPool each; the async
# ones, aiohttp's) -> the keywords that turn on sniffing, which swaps the seed address for
# the nodes' own and spreads requests over them: any of them given, not reported.
SEARCH_CLIENTS = dict.fromkeys(
    (
        "elasticsearch.Elasticsearch",
        "elasticsearch.AsyncElasticsearch",
        "opensearchpy.OpenSearch",
        "opensearchpy.AsyncOpenSearch",
    ),
    (
        "sniff_on_start",
        "sniff_before_requests",
        "sniff_on_node_failure",
        "sniff_on_connection_fail",
        "sniffer_timeout",
    ),
)
# qualified name -> the argument that bounds a pooled connection's age ("" for none)
DB_POOLS = {
    "sqlalchemy.create_engine": "pool_recycle",
    "sqlalchemy.engine.create_engine": "pool_recycle",
    "sqlalchemy.ext.asyncio.create_async_engine": "pool_recycle",
    "sqlmodel.create_engine": "pool_recycle",
    "psycopg_pool.ConnectionPool": "max_lifetime",
    "psycopg_pool.AsyncConnectionPool": "max_lifetime",
    "psycopg2.pool.SimpleConnectionPool": "",
    "psycopg2.pool.ThreadedConnectionPool": "",
    # asyncpg replaces a connection after `max_queries` queries (50,000 by default)
    "asyncpg.create_pool": "max_queries",
    "asyncpg.pool.create_pool": "max_queries",
}
HEALTH_SERVICERS = frozenset(
    {"grpc_health.v1.health.HealthServicer", "grpc_health.v1.health.aio.HealthServicer"}
)
ADD_HEALTH = "grpc_health.v1.health_pb2_grpc.add_HealthServicer_to_server"
_HEALTH_FUNCTION = ADD_HEALTH.rpartition(".")[2].encode()
# Calls that run a server and install its own SIGTERM handler, by qualified name; a
# method by its class's (SERVER_CLASSES): uvicorn.run and Server.run() run Server.serve(),
# which installs handlers for SIGINT and SIGTERM that stop the server gracefully (in
# `with self.capture_signals():` since uvicorn 0.29, by `self.install_signal_handlers()`
# before), as a program that serves alone calls those two itself; aiohttp's run_app turns
# both signals into GracefulExit; hypercorn's asyncio `serve()` with no `shutdown_trigger`
# adds a handler of SIGINT and SIGTERM that shuts it down (hypercorn/asyncio/run.py,
# worker_serve); gunicorn's application `run()` runs its Arbiter, whose TERM is a graceful
# shutdown (gunicorn's signals page), the documented way to embed it (a BaseApplication
# subclass: "Custom Application").
SIGNAL_SERVERS = frozenset(
    {
        "uvicorn.run",
        "aiohttp.web.run_app",
        "uvicorn.Server.run",
        "uvicorn.Server.serve",
        "uvicorn.Server.capture_signals",
        "uvicorn.Server.install_signal_handlers",
        "hypercorn.asyncio.serve",
        "gunicorn.app.base.BaseApplication.run",
    }
)
# Each class whose methods SIGNAL_SERVERS names, by each name a module may import it by
# (a subclass the module defines is its base's)
SERVER_CLASSES = {
    "uvicorn.Server": "uvicorn.Server",
    "uvicorn.server.Server": "uvicorn.Server",
    "uvicorn.main.Server": "uvicorn.Server",
    "gunicorn.app.base.BaseApplication": "gunicorn.app.base.BaseApplication",
    "gunicorn.app.base.Application": "gunicorn.app.base.BaseApplication",
    "gunicorn.app.wsgiapp.WSGIApplication": "gunicorn.app.base.BaseApplication",
}
SERVER_METHODS = frozenset(
    name.rsplit(".", 1)[1]
    for name in SIGNAL_SERVERS
    if name.rsplit(".", 1)[0] in SERVER_CLASSES.values()
)
# A signal server that installs no handler when the call hands it its own way to stop
_OWN_TRIGGER = {"hypercorn.asyncio.serve": "shutdown_trigger"}
# Werkzeug's development server with its reloader on: the process that runs it serves in a
# child it restarts, and installs a SIGTERM handler that exits (`sys.exit(0)`) at once.
# Flask's `app.run(debug=True)` turns it on unless `use_reloader=False`; werkzeug's
# `run_simple` only with `use_reloader=True`. (Gunicorn, uvicorn and hypercorn handle
# SIGTERM too, but are run as commands: KLB406 knows no runtime to judge there.)
RELOADER_RUNS = {"flask.Flask": "debug", "werkzeug.serving.run_simple": None}
# Functions that run once per process: what they create lives as long as the process.
ONCE_FUNCTIONS = frozenset(
    {
        "main",
        "serve",
        "run",
        "start",
        "startup",
        "setup",
        "init",
        "__init__",
        "lifespan",
        "create_app",
        "run_server",
        "start_server",
        "app",
    }
)
_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_depth = itemgetter(0)  # a node's depth in the tree (_Collector.defined)
# Nodes with nothing below them that any fact is made of (a Name's Load, a BinOp's Add):
# a third of a module's nodes, not walked.
_INERT = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
# The walk tells node kinds by their exact class (ast.parse makes no subclass of any):
# one lookup where a chain of isinstance checks ran for each of a module's nodes.
_INERT_CLASSES = frozenset(kind for base in _INERT for kind in base.__subclasses__())
_SCOPE_CLASSES = frozenset(ScopeNode.__args__)
Parents = tuple[ast.AST, ...]


def _parse(source: bytes, path: str = "<unknown>") -> ast.Module:
    """`ast.parse`, without the warnings the user's own code raises (an invalid escape is a
    SyntaxWarning that Python 3.12 prints): reading it is not running it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, filename=path)


def parse(path: str, data: bytes) -> CodeFacts:
    """The facts of one Python file: most files get no syntax tree, only the one-line
    values other modules may import, and the modules it imports."""
    imports = module_imports(data)
    if worth_parsing(data):
        facts = _analyse(path, data, imports)
    elif _holds_settings(data):
        facts = _analyse_settings(path, data)
    else:
        facts = analyse_exports(path, data)
    facts.imports = imports
    return facts


def analyse(path: str, data: bytes) -> CodeFacts:
    """The facts of one Python file; a file that does not parse gives a KLB004 problem."""
    if not worth_parsing(data):
        return CodeFacts(path, "python", is_test=is_test_path(path))
    return _analyse(path, data, None)


def _analyse(path: str, data: bytes, imports: tuple[Import, ...] | None) -> CodeFacts:
    """`analyse` of a file worth it, with the modules it imports when already read (each
    read of a file's bytes once: a file's own cost is what a run's is made of)."""
    facts = CodeFacts(path, "python", is_test=is_test_path(path))
    try:
        tree = _parse(data, path)
    except SyntaxError as error:
        facts.problem = _syntax_problem(path, data, error)
        return facts
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, deep nesting
        facts.problem = Problem("KLB004", path, 1, 1, f"not valid Python: {error}")
        return facts
    collector = _Collector(path, data, facts, imports)
    try:
        collector.run(tree)
    finally:
        # its health reader holds one of its methods: a cycle, which a run (the cyclic
        # collector off) never freed, and with it the module's tree
        collector.health_only = None
    facts.markers = comment_markers(path, data.decode("utf-8", errors="replace"))
    return facts


def _holds_settings(data: bytes) -> bool:
    """Whether a module may define a settings class, whose attributes (read from the
    environment) span lines: a class, and a variable read or pydantic's settings base; or
    a function of its own that reads a variable (parse_envhelpers.py), which spans lines
    too."""
    reads = b"environ" in data or b"getenv" in data
    if b"class " in data:
        return reads or b"BaseSettings" in data
    return reads and b"def " in data


def _analyse_settings(path: str, data: bytes) -> CodeFacts:
    """The exports of a module with nothing else k8slb looks for but a class that may hold
    settings: parsed whole, as its class bodies span lines; one that does not parse gives
    what `analyse_exports` reads of it, with no problem (nothing else in it is judged)."""
    if _too_deep(data):
        return analyse_exports(path, data)
    try:
        tree = _parse(data, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return analyse_exports(path, data)
    facts = CodeFacts(path, "python", is_test=is_test_path(path))
    _Collector(path, data, facts, None, whole=False).run(tree)
    return CodeFacts(
        path, "python", is_test=facts.is_test, exports=facts.exports, deferred=facts.deferred
    )


# CPython's tokenizer refuses more than 200 open brackets; libcst's parser recurses on each
# and takes seconds and gigabytes (then overflows the native stack) long before that.
# A module-level line that binds a name or imports one: what a module that is not worth a
# full analysis can still give the modules that import it (`ADDR = "backend:50051"`).
_EXPORT_LINE = regex.compile(
    rb"^(?:[A-Za-z_]\w*[ \t]*(?::[^=\n]*)?=[^=\n][^\n]*|(?:from|import)[ \t][^\n]*)$",
    regex.MULTILINE,
)


def analyse_exports(path: str, data: bytes) -> CodeFacts:
    """The facts of a module with nothing k8slb looks for: only the values it defines at
    module level on one line, for the modules that import them. The lines are parsed on
    their own (a statement that spans lines is left out); the file is not parsed whole."""
    facts = CodeFacts(path, "python", is_test=is_test_path(path))
    lines = [m.group(0) for m in _EXPORT_LINE.finditer(data)]
    if not lines:
        return facts
    statements: list[ast.stmt] = []
    for line in lines:
        try:
            statements += _parse(line).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    tree = ast.Module(body=statements, type_ignores=[])
    _Collector(path, data, facts, None, whole=False).run(tree)
    return CodeFacts(
        path, "python", is_test=facts.is_test, exports=facts.exports, deferred=facts.deferred
    )


MAX_BRACKETS = 200


def _too_deep(data: bytes) -> bool:
    """Whether the brackets of `data` (strings and comments left out) nest too deep for
    libcst, as far as the tokenizer gets."""
    depth = 0
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type != tokenize.OP:
                continue
            if token.string in ("(", "[", "{"):
                depth += 1
                if depth > MAX_BRACKETS:
                    return True
            elif token.string in (")", "]", "}"):
                depth -= 1
    except SyntaxError as error:  # Python 3.12's tokenizer refuses the depth itself
        return "nested" in str(error)
    except (tokenize.TokenError, UnicodeDecodeError):
        pass
    return False


def _encoding_problem(path: str, data: bytes) -> Problem | None:
    """KLB004 for bytes that are not in the encoding the file declares (UTF-8 if none)."""
    codec = python_codec(data)
    if codec is None:
        return Problem("KLB004", path, 1, 1, "declares an encoding Python does not know")
    try:
        codec.decode(data)
    except UnicodeDecodeError as error:
        at = len(codec.bom) + error.start
        line = data[:at].count(b"\n") + 1
        column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        message = (
            f"not valid Python: byte 0x{data[at]:02x} is not {codec.codec}; declare the "
            "file's encoding (`# -*- coding: latin-1 -*-`, PEP 263) or re-encode it as UTF-8"
        )
        return Problem("KLB004", path, line, column, message)
    return None


# Statements and literals of Python 2 that Python 3 refuses, read on the line where the
# parser gave up: a module for an interpreter k8slb does not read, not a broken one.
_PYTHON2 = (
    ("a print statement", regex.compile(r"^\s*print(?:\s*>>|\s+[^\s(=.,:;)\]}])")),
    ("an exec statement", regex.compile(r"^\s*exec\s+[^\s(=.,:;)\]}]")),
    ("`except E, e`", regex.compile(r"^\s*except\s+[^:(]*(?:\([^:]*\))?\s*,\s*[A-Za-z_]\w*\s*:")),
    ("`raise E, message`", regex.compile(r"^\s*raise\s+[A-Za-z_][\w.]*\s*,")),
    ("a backquoted repr", regex.compile(r"`")),
    ("the `<>` operator", regex.compile(r"<>")),
    ("an old octal or long literal", regex.compile(r"(?:^|[^\w.])(?:0[0-7]+|\d+[lL])\b")),
    ("a `ur` string prefix", regex.compile(r"(?i)(?:^|[^\w])ur[\"']")),
)


def python2_syntax(line: str) -> str | None:
    """Which Python 2 construct the line holds, or None."""
    for what, pattern in _PYTHON2:
        if pattern.search(line):
            return what
    return None


def _line_of(data: bytes, number: int) -> str:
    lines = data.split(b"\n", number)
    return lines[number - 1].decode("utf-8", "replace") if len(lines) >= number else ""


def _python2_problem(path: str, line: int, column: int, older: str) -> Problem:
    """KLB004 at info: a module written for Python 2, which k8slb does not read."""
    message = f"not read: Python 2 syntax ({older}) at line {line}; k8slb reads Python 3"
    return Problem("KLB004", path, line, column, message, severity=Severity.INFO)


def _syntax_problem(path: str, data: bytes, error: SyntaxError) -> Problem:
    """KLB004. Syntax newer than the running Python is not an error of the file: libcst
    (which reads every version up to 3.14) decides, and the finding says what happened."""
    line, column = error.lineno or 1, error.offset or 1
    undecodable = _encoding_problem(path, data)
    if undecodable is not None:
        return undecodable
    if _too_deep(data):
        return Problem("KLB004", path, line, column, f"not valid Python: {error.msg}")
    from libcst import ParserSyntaxError, parse_module

    # the line the parser gave up on holds a form of Python 2: so it is said, whether or
    # not a newer grammar takes it (3.14 reads `except E, e:` as a tuple of exceptions)
    older = python2_syntax(error.text or _line_of(data, line))
    try:
        parse_module(data)
    except ParserSyntaxError:
        if older is not None:
            return _python2_problem(path, line, column, older)
        action = template_block(data)  # not `{{ x }}`: an f-string's braces
        if action is not None:
            return Problem(
                "KLB004",
                path,
                line,
                column,
                "not analysed: a template, not Python yet: it holds a template language's "
                f"action (`{action[:80]}`), which a renderer replaces before the file is code",
                severity=Severity.INFO,
            )
        return Problem("KLB004", path, line, column, f"not valid Python: {error.msg}")
    except Exception:
        pass
    if older is not None:
        return _python2_problem(path, line, column, older)
    return Problem(
        "KLB004",
        path,
        line,
        column,
        f"uses syntax newer than Python {sys.version_info.major}.{sys.version_info.minor}, "
        "which k8slb runs on: not analysed",
        severity=Severity.INFO,
    )


@dataclass
class _Site:
    """A factory call seen during the traversal, resolved after it."""

    kind: str
    name: str
    call: ast.Call
    args: list[ast.expr]
    keywords: list[ast.keyword]
    scope: Scope
    parents: tuple[ast.AST, ...]


class _Collector(Values):
    def __init__(
        self,
        path: str,
        data: bytes,
        facts: CodeFacts,
        imports: tuple[Import, ...] | None,
        whole: bool = True,
    ) -> None:
        super().__init__(path, data, facts)
        # a gRPC module read whole: where a call of another module's function may make a
        # channel or a server (the others wait for no resolution on its account)
        self.notes_made = whole and b"grpc" in data
        self.imports_read = imports  # module_imports(data), when the caller read it
        # a module that may run as a program: its fakes may be what a pod runs
        self.runs_as_main = b"__main__" in data
        self.stand_ins: dict[int, bool] = {}  # by scope: _in_stand_in
        self.sites: list[_Site] = []
        # the module-level settings classes by name: what a subclass of one derives from
        self.settings_nodes: dict[str, ast.ClassDef] = {}
        self.settings_sizes: dict[int, int] = {}  # by class: its syntax nodes
        self.inherited_left = MAX_INHERITED  # of them read again for subclasses
        # calls of other modules' functions whose result is kept or bound (parse_made.py)
        self.made_calls: list[tuple[ast.Call, Imported, Scope, Parents]] = []
        self.made_asked = 0
        self.health_only: HealthOnly | None = None  # its servers' services, once asked
        self.stops: list[tuple[ast.Call, str, bool, Scope, tuple[ast.AST, ...]]] = []
        self.places: Places = {}  # parse_order's: each block's statements' places
        self.listens: list[tuple[ast.Call, str, Scope]] = []
        self.health_classes: dict[str, bool] = {}  # class with a Check method -> can fail
        self.registries: list[str] | None = None  # the registries whose client it imports
        self.url_expressions: list[tuple[ast.expr, Scope]] = []  # `"http://" + host`
        # for parse_shutdown: SIGTERM's handlers (the registration, the handler), the
        # sleeps and the calls that stop a server or the process
        self.signal_handlers: list[tuple[ast.Call, ast.expr]] = []
        # each call's top-level statement (its function: parse_calls.owner) and dotted
        # name; the calls of a method SIGNAL_SERVERS may name, judged once every function
        # is known
        self.calls: list[tuple[ast.AST, str]] = []
        self.server_methods: list[tuple[ast.Call, Scope]] = []
        self.unpacked: dict[int, dict[str, str]] = {}  # by function: _unpacked_class
        self.factories: dict[int, str | None] = {}  # by function: _factory_makes
        self.sleeps: list[tuple[ast.Call, Scope, tuple[ast.AST, ...]]] = []
        self.stoppers: list[tuple[ast.Call, tuple[ast.AST, ...]]] = []
        # the module's own functions by name (`create_app`): what a factory returns
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.env_readers: dict[int, EnvReader | None] = {}
        # `app.run(...)` of an app a function of the module makes, judged once every
        # function is known (the factory may be defined below its caller)
        self.factory_runs: list[tuple[ast.Call, Scope]] | None = []
        # the functions of the module (a SIGTERM handler's by name: parse_shutdown) and, in
        # a module that may declare routes, its calls, assignments and classes too
        # (parse_routes), each with its depth: sorted by it, they are in `ast.walk`'s order
        self.defined: list[tuple[int, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        # `while True: sleep()` loops, with the function each is in (None: the module's
        # own code), and the receivers of `.start()` by the function (by id) that calls it:
        # a loop is a server's wait only where the server is started (_serving_loops)
        self.loops: list[tuple[Wait, ast.FunctionDef | ast.AsyncFunctionDef | None]] = []
        self.started_in: dict[int, set[str]] = defaultdict(set)
        self.routed: list[tuple[int, ast.AST]] | None = (
            [] if any(word in data for word in WEB_WORDS) else None
        )

    # -- driving -----------------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        module = Scope(tree, None)
        self._walk(tree, (), module, keyboard=False)
        runs, self.factory_runs = self.factory_runs or [], None
        for call, scope in runs:
            if self._runs_a_reloader(None, call, scope):
                self.facts.signal_servers.append(self.loc(call))
        for call, scope in self.server_methods:
            if self._runs_a_signal_server(call, scope):
                self.facts.signal_servers.append(self.loc(call))
        for site in self.sites:
            getattr(self, f"_resolve_{site.kind}")(site)
        self._made_elsewhere()
        self._unshare_option_literals()
        servers = {s.name for s in self.facts.servers if s.name}
        self._serving_loops(servers)
        stops = [stop for stop in self.stops if stop[1] in servers]
        referred = _referred(tree) if stops else {}
        own_stops = {id(call) for call, *_ in stops}  # a server's own stop: no caller's
        self.facts.argued = {
            name
            for name, calls in self.calls_to.items()
            if any((c.args or c.keywords) and id(c) not in own_stops for c, _, _ in calls)
        }
        # a function's grace default, read once: its many stops would each walk it again
        graces: dict[tuple[int, str], tuple[Any, tuple[str, str, bool] | None]] = {}
        afters: dict[tuple[int, str], str | None] = {}  # the same: its callers, read once
        for call, receiver, keyboard, scope, parents in stops:
            grace = self._argument(call.args, call.keywords, 0, "grace")
            value = self.value(grace, scope) if grace is not None else UNKNOWN
            defaulted = None
            if isinstance(value, Unknown) and isinstance(grace, ast.Name):
                function = function_of(parents)
                key = (id(function), grace.id)
                if key not in graces:
                    graces[key] = self._grace_default(grace.id, function, own_stops)
                value, defaulted = graces[key]
            after = self._after_wait(receiver, parents, referred, afters)
            stop = Stop(self.loc(call), receiver, value, keyboard, after_wait=after)
            self.facts.stops.append(replace(stop, defaulted=defaulted))
        for expression, scope in self.url_expressions:
            urls = self.choices(expression, scope)
            origin = _origin_of(expression)
            if all(isinstance(url, Unknown) for url in urls) and origin is not None:
                urls = self.choices(origin, scope)  # its path is what cannot be followed
            for url in urls:
                if not isinstance(url, Unknown):
                    self.facts.urls.append((url, self.loc(expression)))
        for call, receiver, scope in self.listens:
            if receiver in servers and call.args:
                address = self.value(call.args[0], scope)
                if isinstance(address, Unknown):  # `f"localhost:{port}"`: its host
                    head = self.literal_head(call.args[0], scope)[0]
                    address = listen_head(head) or address
                self.facts.listens.append(Listen(receiver, address, self.loc(call)))
        self._exports(module)
        if self.signal_handlers:
            sleeps = [
                (call, parents, self._seconds(call, scope)) for call, scope, parents in self.sleeps
            ]
            functions = [node for _, node in sorted(self.defined, key=_depth)]
            self.facts.signal_pauses = signal_pauses(
                functions, self.signal_handlers, sleeps, self.stoppers, self.loc
            )
        if self.routed is not None:
            nodes = [node for _, node in sorted(self.routed, key=_depth)]
            self.facts.routes = collect_routes(nodes, self.qualified, self.loc)
        self._call_graph(tree)

    def _call_graph(self, tree: ast.Module) -> None:
        """What each top-level function calls, and which register a SIGTERM handler or
        run a signal server (parse_calls), for the code an entry point reaches."""
        self.facts.function_calls = function_calls(
            self.calls, self.origins, self.imports, self.functions
        )
        self.facts.calls_read = True
        self.facts.main_blocks = main_blocks(tree)
        places = [*self.facts.sigterm_handlers, *self.facts.signal_servers]
        self.facts.signal_functions = signal_functions(tree, places) if places else frozenset()

    def _grace_default(
        self,
        name: str,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        own_stops: set[int],
    ) -> tuple[Any, tuple[str, str, bool] | None]:
        """A stop's grace that is a parameter of its function with an aborting default
        (`def stop(self, grace=0): self.server.stop(grace)`): that default, with the
        function's name and whether this module calls it with no argument (Stop's
        `defaulted`), where no call of that name here passes one; else UNKNOWN."""
        default = grace_default(function, name)
        if function is None or default is ...:
            return UNKNOWN, None
        if function.name in self.facts.argued:
            return UNKNOWN, None  # a caller here may pass the grace
        calls = self.calls_to.get(function.name, [])
        bare = any(id(call) not in own_stops for call, _, _ in calls)
        return default, (function.name, name, bare)

    def _after_wait(
        self,
        receiver: str,
        parents: tuple[ast.AST, ...],
        referred: dict[str, int],
        afters: dict[tuple[int, str], str | None],
    ) -> str | None:
        """Where a server's stop runs only once its `wait_for_termination()` has returned
        (code/facts.py's `Stop.after_wait`): "" when it follows the wait in its block; the
        name of its function when each mention of that name in the module is a call, a
        statement of its own that follows the wait in its block (`run()`: start, wait,
        `self.stop()`); None otherwise (a handler, a name handed on, no caller here).
        The callers' answer is the same for every stop of one receiver in one function,
        so `afters` keeps it: a function named `stop` has its stops among its callers."""
        if comes_after(parents, receiver, "wait_for_termination", self.places):
            return ""
        function = function_of(parents)
        if function is None:
            return None
        key = (id(function), receiver)
        if key not in afters:
            afters[key] = self._callers_after_wait(function, receiver, referred)
        return afters[key]

    def _callers_after_wait(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        receiver: str,
        referred: dict[str, int],
    ) -> str | None:
        """The name of `function` when each of its callers here calls it alone, after the
        wait of `receiver` in the caller's block (_after_wait); else None."""
        name = function.name
        callers = self.calls_to.get(name, [])
        if referred.get(name, 0) != len(callers):
            return None  # named elsewhere than in a call: a handler, a value handed on
        own = f"{receiver}.{name}"  # the server's own `stop`, when the function is so named
        callers = [caller for caller in callers if dotted(caller[0].func) != own]
        if not callers or len(callers) > LOOK_BACK:
            return None  # nothing here calls it (another module may, at any time), or a
            # crowd of callers not read one by one
        for call, _, around in callers:
            if not called_alone_at(around, call) or not comes_after(
                around, receiver, "wait_for_termination", self.places
            ):
                return None
        return function.name

    def _serving_loops(self, servers: set[str]) -> None:
        """Keep the `while True: sleep()` loops that wait on a server: those of the
        module's own code (a script's last lines), of a function that starts one of its
        servers, or of one that calls, by name, a function of the module that does
        (`start_server(); while True: ...`). A loop in any other function (a worker a
        thread or a task runs, draining a queue) is that function's own, not a wait."""
        if not self.loops:
            return
        starters = {
            function.name
            for _, function in self.defined
            if self.started_in.get(id(function), set()) & servers
        }
        callers = {  # the functions that call one of them, once (not once a loop)
            id(_function_of(caller))
            for name in starters
            for _, caller, _ in self.calls_to.get(name, ())
        }
        dropped: set[int] = set()
        for wait, function in self.loops:
            if function is None or self.started_in.get(id(function), set()) & servers:
                continue
            if id(function) not in callers:
                dropped.add(id(wait))
        if dropped:
            self.facts.waits = [w for w in self.facts.waits if id(w) not in dropped]

    def _seconds(self, call: ast.Call, scope: Scope) -> Any:
        """How long a sleep waits, in seconds (UNKNOWN when it cannot be read)."""
        given = self._argument(call.args, call.keywords, 0, "seconds") or self._argument(
            call.args, call.keywords, 0, "delay"
        )
        value = self.value(given, scope) if given is not None else UNKNOWN
        return value if isinstance(value, int | float) and not isinstance(value, bool) else UNKNOWN

    def _exports(self, module: Scope) -> None:
        """What another module can import from this one (imported.py resolves it)."""
        for name, bound in module.bindings.items():
            if len(bound) == 1 and name not in module.opaque and name not in module.additions:
                value = self.value(bound[0], module)
                if not isinstance(value, Unknown):
                    self.facts.exports[name] = value
        self.facts.exports.update(
            (name, origin) for name, origin in self.origins.items() if name not in module.bindings
        )  # re-exported: `from .settings import ADDR` in a package's __init__
        for name in self.class_scopes:
            attributes = self.class_values(name, module)
            if attributes:  # `Settings.AUTH_ADDR` in a module that imports `Settings`
                self.facts.exports[name] = attributes
        self.facts.health_classes = dict(self.health_classes)
        self.facts.deferred = self.deferred

    def _unshare_option_literals(self) -> None:
        """A list of options that both a channel and a server use is nowhere a fix may add
        to: the server's options would reach the channel too (and the reverse)."""
        channel_lists = {c.options.literal for c in self.facts.channels if c.options.literal}
        server_lists = {s.options.literal for s in self.facts.servers if s.options.literal}
        shared = channel_lists & server_lists
        if not shared:
            return
        self.facts.channels = [
            replace(c, options=replace(c.options, literal=None))
            if c.options.literal in shared
            else c
            for c in self.facts.channels
        ]
        self.facts.servers = [
            replace(s, options=replace(s.options, literal=None))
            if s.options.literal in shared
            else s
            for s in self.facts.servers
        ]

    def _walk(
        self, node: ast.AST, parents: tuple[ast.AST, ...], scope: Scope, keyboard: bool
    ) -> None:
        """Visit every node a fact may be read from, parents first (iteratively: an
        expression thousands deep, `a + a + ...`, parses, and a recursive walk would
        overflow Python's stack). Each kind's fields that may hold a node are known
        (`_node_fields`); a child that says nothing and holds nothing is not visited
        (`_says_nothing`): a name read, a number, `a.b.c`, an operator."""
        stack = [(node, parents, scope, keyboard)]
        pop, push = stack.pop, stack.append
        fields_of = _FIELDS
        name_kind, constant_kind, store = ast.Name, ast.Constant, ast.Store
        attribute_kind = ast.Attribute
        while stack:
            node, parents, scope, keyboard = pop()
            kind = node.__class__
            visit = _VISITS.get(kind)
            if visit is not None:
                visit(self, node, parents, scope, keyboard)
            fields = fields_of.get(kind)
            if fields is None:
                fields = fields_of[kind] = _node_fields(kind)
            if not fields:
                continue
            if kind in _SCOPE_CLASSES and isinstance(node, ScopeNode):
                scope = self._scope(node, scope)
            elif kind is ast.ExceptHandler and isinstance(node, ast.ExceptHandler):
                keyboard = keyboard or _catches_keyboard_interrupt(node)
            children: list[Any] = []
            for name in fields:  # ast.iter_child_nodes, without a generator a node
                child = getattr(node, name, None)
                if child.__class__ is list:
                    children += child
                elif child is not None:
                    children.append(child)
            below = (*parents, node)
            for child in reversed(children):  # _says_nothing, inlined for the common kinds
                kind = child.__class__
                if kind is name_kind:
                    if child.ctx.__class__ is not store:
                        continue
                elif kind is constant_kind:
                    if child.value.__class__ is not str:
                        continue
                elif kind is attribute_kind:
                    if _on_a_name(child):
                        continue
                elif kind not in _WALKED:
                    continue
                push((child, below, scope, keyboard))

    def _scope(self, node: ScopeNode, scope: Scope) -> Scope:
        """The scope a function, lambda or class opens; a function's parameters are bound
        in it where their values cannot be followed."""
        if isinstance(node, ast.ClassDef) and scope.parent is None:
            scope = self.class_scopes[node.name] = Scope(node, scope)
            return scope
        scope = Scope(node, scope)
        if isinstance(node, _Function):
            self.function_scopes[id(node)] = scope
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            scope.opaque.update(a.arg for a in every)
        return scope

    # -- what each kind of node says (the walk calls these through _VISITS) -------------

    def _name(self, node: ast.Name, parents: Parents, scope: Scope, keyboard: bool) -> None:
        if isinstance(node.ctx, ast.Store):
            parent = parents[-1] if parents else None
            simple = isinstance(parent, ast.AnnAssign | ast.AugAssign) or (
                isinstance(parent, ast.Assign) and len(parent.targets) == 1
            )
            if not simple:
                scope.opaque.add(node.id)

    def _attribute(
        self, node: ast.Attribute, parents: Parents, scope: Scope, keyboard: bool
    ) -> None:
        if node.attr in _DRAINS:
            self.facts.health_drains.append(self.loc(node))

    def _constant(self, node: ast.Constant, parents: Parents, scope: Scope, keyboard: bool) -> None:
        if isinstance(node.value, str) and node.value.lower().startswith(("http://", "https://")):
            built = _built_from(node, parents)
            if built is node:
                self.facts.urls.append((node.value, self.loc(node)))
            else:  # `f"http://{HOST}/stock"`: the URL is the whole text, read once bound
                self.url_expressions.append((built, scope))
        scheme = registry_scheme(node.value) if isinstance(node.value, str) else None
        if scheme is not None:
            dial = RegistryDial(self.loc(node), scheme[1], f"{scheme[0]}:// target")
            self.facts.registry_dials.append(dial)

    def _registration(self, node: ast.Call, parents: Parents) -> None:
        """A registry client's register call, in a module that imports the client."""
        if self.registries is None:
            imports = self.imports_read
            if imports is None:
                imports = module_imports(self.data)
            imported = {name.split(".")[0] for _, name in imports}
            self.registries = [r for top, r in REGISTRY_CLIENTS.items() if top in imported]
        called = dotted(node.func)
        for registry in self.registries:
            suffixes = REGISTER_CALLS[registry]
            if not any(called == s or called.endswith("." + s) for s in suffixes):
                continue
            ephemeral = keyword_argument(node.keywords, "ephemeral")
            if registry == "ZooKeeper" and not (
                isinstance(ephemeral, ast.Constant) and ephemeral.value is True
            ):
                continue
            functions = (ast.FunctionDef, ast.AsyncFunctionDef)
            within = next((p.name for p in reversed(parents) if isinstance(p, functions)), "")
            made = Registration(self.loc(node), registry, called.rsplit(".", 1)[-1], within)
            self.facts.registrations.append(made)
            return

    def _import(
        self, node: ast.Import | ast.ImportFrom, parents: Parents, scope: Scope, keyboard: bool
    ) -> None:
        self.note_import(node)

    def _definition(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        parents: Parents,
        scope: Scope,
        keyboard: bool,
    ) -> None:
        if self.routed is not None:
            self.routed.append((len(parents), node))
        if not isinstance(node, ast.ClassDef):
            self.defined.append((len(parents), node))
        if scope.parent is None:
            self.locals.add(node.name)
            if not isinstance(node, ast.ClassDef):
                self.functions[node.name] = node
        if isinstance(node, ast.ClassDef):
            self._health_class(node)
            if scope.parent is None:
                self._settings_class(node)

    def _settings_class(self, node: ast.ClassDef) -> None:
        """A module-level settings class's fields (parse_settings.py), read through the
        settings classes of the module it derives from while MAX_INHERITED lasts."""
        chain = settings_chain(node, self.qualified, self.settings_nodes)
        if chain is None:
            return
        inherited = sum(self.settings_sizes[id(base)] for base in chain[1:])
        if inherited > self.inherited_left:
            return  # its bases read for too many subclasses already: its fields unknown
        self.inherited_left -= inherited
        fields = settings_fields(chain, self.qualified)
        if fields is not None:
            self.settings_classes[node.name] = fields
            self.settings_nodes[node.name] = node
            self.settings_sizes[id(node)] = sum(1 for _ in ast.walk(node))

    def _assign(self, node: ast.Assign, parents: Parents, scope: Scope, keyboard: bool) -> None:
        if self.routed is not None:
            self.routed.append((len(parents), node))
        self.note_attribute_stores(node.targets)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            scope.bindings[node.targets[0].id].append(node.value)
        elif len(node.targets) == 1 and isinstance(target := node.targets[0], ast.Subscript):
            key = target.slice
            if (
                isinstance(target.value, ast.Name)
                and isinstance(key, ast.Constant)
                and isinstance(key.value, str)
            ):  # `kwargs["pool_recycle"] = 1800`
                name = target.value.id
                self._scope_of(name, scope).stored[name][key.value].append(node.value)

    def _annotated(
        self, node: ast.AnnAssign, parents: Parents, scope: Scope, keyboard: bool
    ) -> None:
        self.note_attribute_stores([node.target])
        if isinstance(node.target, ast.Name) and node.value is not None:
            scope.bindings[node.target.id].append(node.value)

    def _augmented(
        self, node: ast.AugAssign, parents: Parents, scope: Scope, keyboard: bool
    ) -> None:
        self.note_attribute_stores([node.target])
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            scope.additions[node.target.id].append(("extend", node.value))

    def _runs_a_reloader(self, name: str | None, node: ast.Call, scope: Scope) -> bool:
        """`app.run(debug=True)` of a Flask app, `run_simple(..., use_reloader=True)`: a
        server that werkzeug's reloader runs (RELOADER_RUNS)."""
        func = node.func
        if name in RELOADER_RUNS:
            made = name
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "run"
            and isinstance(func.value, ast.Name)
            and isinstance(bound := self._binding(func.value.id, scope), ast.Call)
        ):
            made = self.qualified(bound.func) or ""
            if not made and isinstance(bound.func, ast.Name):
                factory = self.functions.get(bound.func.id)
                if factory is None and self.factory_runs is not None:
                    self.factory_runs.append((node, scope))  # defined below: judged after
                    return False
                made = (self._factory_makes(factory) if factory else None) or ""
        else:
            return False
        if made not in RELOADER_RUNS:
            return False
        given = {k.arg: k.value for k in node.keywords if k.arg is not None}
        switch = given.get("use_reloader", given.get(RELOADER_RUNS[made] or "use_reloader"))
        return isinstance(switch, ast.Constant) and switch.value is True

    def _runs_a_signal_server(self, node: ast.Call, scope: Scope) -> bool:
        """`server.run()` (`serve()`, `capture_signals()`...) of a server of a class
        SERVER_CLASSES names: a method SIGNAL_SERVERS lists."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return False
        made = self._server_class(func.value, scope)
        return made is not None and f"{made}.{func.attr}" in SIGNAL_SERVERS

    def _server_class(self, receiver: ast.expr, scope: Scope) -> str | None:
        """The SERVER_CLASSES class a receiver is an instance of, as the module says: made
        by a call of it (or of a subclass or a factory of the module), bound once by `=`
        or taken apart from what a function of the module is annotated to return
        (`app, server = get_server()`), or a parameter annotated with it."""
        if isinstance(receiver, ast.Call):
            return self._made_class(receiver.func)
        if not isinstance(receiver, ast.Name):
            return None
        bound = self._binding(receiver.id, scope)
        if isinstance(bound, ast.Call):
            return self._made_class(bound.func)
        function = _function_of(scope)
        if function is None:
            return None
        return self._parameter_class(function, receiver.id) or self._unpacked_class(
            function, receiver.id
        )

    def _made_class(self, func: ast.expr) -> str | None:
        """The SERVER_CLASSES class a call makes: the class itself, a subclass the module
        defines, or a function of the module that returns one (so made, or annotated)."""
        made = self._annotation_class(func)
        if made is not None or not isinstance(func, ast.Name):
            return made
        scope = self.class_scopes.get(func.id)
        if scope is not None and isinstance(scope.node, ast.ClassDef):
            bases = [self._annotation_class(base) for base in scope.node.bases]
            return next((base for base in bases if base is not None), None)
        factory = self.functions.get(func.id)
        if factory is None:
            return None
        returned = SERVER_CLASSES.get(self._factory_makes(factory) or "")
        return returned or self._annotation_class(factory.returns)

    def _annotation_class(self, annotation: ast.expr | None) -> str | None:
        """The SERVER_CLASSES class an annotation (or a called name) names."""
        if annotation is None:
            return None
        return SERVER_CLASSES.get(self.qualified(annotation) or "")

    def _parameter_class(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> str | None:
        arguments = function.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if argument.arg == name:
                return self._annotation_class(argument.annotation)
        return None

    def _unpacked_class(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> str | None:
        """`a, server = make()` in the function, where `make` is a function of the module
        annotated to return `tuple[..., uvicorn.Server]`: the item at the name's place
        (each function's such names found once)."""
        found = self.unpacked.get(id(function))
        if found is None:
            found = self.unpacked[id(function)] = {}
            for statement in ast.walk(function):
                if (
                    isinstance(statement, ast.Assign)
                    and len(statement.targets) == 1
                    and isinstance(target := statement.targets[0], ast.Tuple)
                    and isinstance(value := statement.value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and (factory := self.functions.get(value.func.id)) is not None
                    and isinstance(returns := factory.returns, ast.Subscript)
                    and isinstance(returns.slice, ast.Tuple)
                ):
                    for item, annotation in zip(target.elts, returns.slice.elts, strict=False):
                        made = self._annotation_class(annotation)
                        if isinstance(item, ast.Name) and made is not None:
                            found.setdefault(item.id, made)
        return found.get(name)

    def _factory_makes(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """What an app factory returns (`create_app` that makes `app = Flask(__name__)`,
        adds its routes and ends with `return app`): the qualified name of the call that
        made it, when every `return` of the function gives the same one. Each function
        walked once, however many calls of a method of what it makes ask it."""
        if id(function) not in self.factories:
            self.factories[id(function)] = self._walk_factory(function)
        return self.factories[id(function)]

    def _walk_factory(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        bindings: dict[str, list[ast.expr]] = defaultdict(list)
        returned: list[ast.expr | None] = []
        stack: list[ast.AST] = list(function.body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue  # a nested function's returns and names are its own
            if isinstance(node, ast.Lambda):
                continue
            if isinstance(node, ast.Return):
                returned.append(node.value)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bindings[target.id].append(node.value)
            stack.extend(ast.iter_child_nodes(node))
        made: set[str | None] = set()
        for value in returned:
            if isinstance(value, ast.Name) and len(bindings.get(value.id, [])) == 1:
                value = bindings[value.id][0]
            made.add(self.qualified(value.func) if isinstance(value, ast.Call) else None)
        return made.pop() if len(made) == 1 else None

    def _while(self, node: ast.While, parents: Parents, scope: Scope, keyboard: bool) -> None:
        if _is_true(node.test) and any(
            isinstance(n, ast.Call) and dotted(n.func).endswith("sleep") for n in ast.walk(node)
        ):
            wait = Wait(self.loc(node), None, "a `while True: sleep()` loop")
            self.facts.waits.append(wait)
            self.loops.append((wait, _function_of(scope)))

    def _call(
        self, node: ast.Call, parents: tuple[ast.AST, ...], scope: Scope, keyboard: bool
    ) -> None:
        if self.routed is not None:
            self.routed.append((len(parents), node))
        func = node.func
        called = dotted(func)  # once a call: what it calls, and its receiver below
        name = self.qualified_name(called)
        if isinstance(func, ast.Attribute | ast.Name):
            callee = func.attr if isinstance(func, ast.Attribute) else func.id
            self.facts.called.add(callee)
            self.calls_to[callee].append((node, scope, parents))
            if called and called.count(".") < 2:  # a name, a module's (a method's at most)
                self.calls.append((parents[1], called))
        if not self.runs_as_main and self._in_stand_in(scope):
            return  # a test's fake: no pod runs its server
        if self.registries != []:
            self._registration(node, parents)
        if is_sleep(name, parents):
            self.sleeps.append((node, scope, parents))
        elif is_stop(name, func.attr if isinstance(func, ast.Attribute) else None):
            self.stoppers.append((node, parents))

        def site(kind: str) -> _Site:
            return _Site(kind, name or "", node, node.args, node.keywords, scope, parents)

        if name in CHANNEL_FACTORIES:
            self.sites.append(site("channel"))
        elif name in SERVER_FACTORIES:
            self.sites.append(site("server"))
        elif name in HTTP_CLIENTS:
            self.sites.append(site("http"))
        elif name in SEARCH_CLIENTS:
            self.sites.append(site("search"))
        elif name in DB_POOLS:
            self.sites.append(site("db"))
        elif name == ADD_HEALTH:
            self.sites.append(site("health"))
        elif name == "signal.signal":
            self._signal(node, parents, scope)
        elif (name in SIGNAL_SERVERS and not _own_trigger(name, node)) or self._runs_a_reloader(
            name, node, scope
        ):
            self.facts.signal_servers.append(self.loc(node))
        elif isinstance(node.func, ast.Name):
            self._via_partial(node, parents, scope)
        if not any(name in known for known in _KNOWN_FACTORIES):
            self._made_call(node, scope, parents)  # a function k8slb has no table of
        if not isinstance(func, ast.Attribute):
            return
        method = func.attr
        receiver = called[: -len(method) - 1] if called else ""  # dotted(func.value)
        if method in SERVER_METHODS:
            self.server_methods.append((node, scope))
        if method == "add_signal_handler":
            self._signal(node, parents, scope)
        elif method in ("append", "extend", "insert") and isinstance(func.value, ast.Name):
            if node.args:
                how = "extend" if method == "extend" else "append"
                self._scope_of(func.value.id, scope).additions[func.value.id].append(
                    (how, node.args[-1])
                )
        elif method == "start":
            self.facts.starts.add(receiver)
            self.started_in[id(_function_of(scope))].add(receiver)
        elif method == "wait_for_termination":
            if comes_after(parents, receiver, "stop", self.places):
                return  # it waits for the stop before it (a worker's close), not for SIGTERM
            awaited = bool(parents) and isinstance(parents[-1], ast.Await)
            wait = Wait(self.loc(node), receiver, "wait_for_termination()", awaited)
            self.facts.waits.append(wait)
        elif method == "run_forever":
            self.facts.waits.append(Wait(self.loc(node), None, "run_forever()"))
        elif method == "stop":
            self.stops.append((node, receiver, keyboard, scope, parents))
        elif method in ("add_insecure_port", "add_secure_port"):
            self.listens.append((node, receiver, scope))

    def _made_call(self, node: ast.Call, scope: Scope, parents: Parents) -> None:
        """Note a call of another module's function (`get_channel(x)`, `utils.make(x)`)
        whose result is kept or bound to a name: it may make a channel or a server
        there (parse_made.py); MAX_MADE_CALLS a module."""
        if (
            not self.notes_made
            or len(self.made_calls) >= MAX_MADE_CALLS
            or self.made_asked >= 4 * MAX_MADE_CALLS
        ):
            return
        func = node.func
        origin: Imported | None = None
        if isinstance(func, ast.Name):
            origin = self._origin(func.id, scope)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module = self._module_of(func.value.id, scope)
            origin = Imported(module[0], module[1], func.attr) if module is not None else None
        if origin is None or isinstance(scope.node, ast.ClassDef):
            return  # a class body's fields (pydantic's `Field(...)`): no client kept there
        holder = parents[-2] if parents and isinstance(parents[-1], ast.Await) else parents[-1]
        if isinstance(holder, ast.Expr):
            return  # a statement of its own: what it returns is dropped (`signal.signal(...)`)
        self.made_asked += 1  # each asked walks the call's parents: a budget of its own
        if _kept_here(node, parents) is not False or _bound_name(node, parents) is not None:
            self.made_calls.append((node, origin, scope, parents))

    def _made_elsewhere(self) -> None:
        """The servers and channels the noted calls of other modules' functions may make
        (imported.py keeps those the functions make): a server where the name the call
        binds is started, served on or stopped here, else a channel where what it gives
        is kept."""
        servers = {s.name for s in self.facts.servers if s.name}
        used = {stop[1] for stop in self.stops} | {x[1] for x in self.listens}
        used |= self.facts.starts
        for call, origin, scope, parents in self.made_calls:
            name = _bound_name(call, parents)
            if name is not None and name in used and name not in servers:
                made_by = replace(origin, name=f"server {origin.name}")
                server = Server(self.loc(call), "", UNKNOWN_OPTIONS, name, made_by=made_by)
                self.facts.servers.append(server)
                servers.add(name)
                self.deferred = True
                continue
            kept = _kept_here(call, parents)
            if kept is None:
                kept = self._caller_keeps(call, scope, parents, 0)
            if not kept:
                continue
            passed = self._passed(call, scope)
            if not any(_may_be_address(value) for _, value in passed):
                continue  # nothing it passes can be an address: no channel of a target
            site = _Site("channel", "", call, call.args, call.keywords, scope, parents)
            channel = Channel(
                self.loc(call),
                "",
                UNKNOWN,
                UNKNOWN_OPTIONS,
                long_lived=True,
                kept=self._kept_where(site),
                made_by=origin,
                passed=passed,
            )
            self.facts.made_channels.append(channel)
            self.deferred = True

    def _passed(self, call: ast.Call, scope: Scope) -> tuple[tuple[int | str, Any], ...]:
        """What a call passes, by place (an index, a keyword; `*` and `**` for a spread,
        whose values are not read), MAX_PASSED of each."""
        passed: list[tuple[int | str, Any]] = []
        for index, argument in enumerate(call.args[:MAX_PASSED]):
            if isinstance(argument, ast.Starred):
                passed.append(("*", UNKNOWN))
                break
            passed.append((index, self._passed_value(argument, scope)))
        for keyword in call.keywords[:MAX_PASSED]:
            value = self._passed_value(keyword.value, scope)
            passed.append((keyword.arg, value) if keyword.arg else ("**", UNKNOWN))
        return tuple(passed)

    def _passed_value(self, argument: ast.expr, scope: Scope) -> Any:
        """An argument's value as a target may be one: a text, or a value of k8slb's
        own (an environment variable, an imported name); anything else unknown."""
        value = one_of(self.choices(argument, scope))
        plain = isinstance(value, str) or is_dataclass(value)
        return value if plain else UNKNOWN

    def _in_stand_in(self, scope: Scope) -> bool:
        """Whether a call is made in a test's stand-in: a class, or a function, whose name
        says it is a fake or a mock (`GrpcMockStore`, `run_fake_server`), or in one
        within it, in a module that does not run as a program (no `__main__` check,
        asked by the caller): a test makes it, not a pod. (A program that imports the
        module is not seen from here.) Known once a scope."""
        known = self.stand_ins.get(id(scope))
        if known is None:
            node = scope.node
            named = (
                node.name
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                else ""
            )
            known = stand_in_name(named) or (
                scope.parent is not None and self._in_stand_in(scope.parent)
            )
            self.stand_ins[id(scope)] = known
        return known

    def _signal(self, node: ast.Call, parents: tuple[ast.AST, ...], scope: Scope) -> None:
        if len(node.args) < 2:
            return
        signal_arg, handler = node.args[0], node.args[1]
        signals = self._signals(signal_arg, parents, scope)
        if any(self._is_sigterm(s) for s in signals) and not dotted(handler).endswith(
            ("SIG_DFL", "SIG_IGN")
        ):
            self.facts.sigterm_handlers.append(self.loc(node))
            self.signal_handlers.append((node, handler))

    def _signals(
        self, expression: ast.expr, parents: tuple[ast.AST, ...], scope: Scope
    ) -> list[ast.expr]:
        """The signals a `signal.signal` argument may be: itself, or, for the target of an
        enclosing `for sig in (SIGINT, SIGTERM)` (the tuple may be bound to a name), each
        item of what the loop walks; `getattr(signal, name)` of such a target (or of a name
        bound once), the signal each name it may hold gives."""
        if (
            isinstance(expression, ast.Call)
            and dotted(expression.func) == "getattr"
            and len(expression.args) == 2
            and isinstance(expression.args[1], ast.Name)
        ):  # `for name in ('SIGINT', 'SIGTERM'): ... getattr(signal, name)`
            owner = expression.args[0]
            return [
                ast.Call(expression.func, [owner, name], [])
                for name in self._signals(expression.args[1], parents, scope)
            ]
        if not isinstance(expression, ast.Name):
            return [expression]
        for parent in reversed(parents):
            if isinstance(parent, ast.For | ast.AsyncFor) and _names_bound(parent.target) == {
                expression.id
            }:
                walked = self._follow(parent.iter, scope)
                if isinstance(walked, ast.List | ast.Tuple | ast.Set):
                    return [self._follow(e, scope) or e for e in walked.elts]
                return []
            if isinstance(parent, ScopeNode):
                break
        return [self._follow(expression, scope) or expression]  # an import, or a binding

    def _is_sigterm(self, expression: ast.expr) -> bool:
        if isinstance(expression, ast.Constant):
            return expression.value == 15
        if (
            isinstance(expression, ast.Call)
            and dotted(expression.func) == "getattr"
            and len(expression.args) == 2
            and self.qualified(expression.args[0]) == "signal"
        ):  # getattr(signal, "SIGTERM")
            name = expression.args[1]
            return isinstance(name, ast.Constant) and name.value == "SIGTERM"
        qualified = self.qualified(expression) or ""
        return qualified in ("signal.SIGTERM", "signal.Signals.SIGTERM") or dotted(expression) in (
            "SIGTERM",
            "signal.SIGTERM",
            "Signals.SIGTERM",
        )

    def _via_partial(self, node: ast.Call, parents: tuple[ast.AST, ...], scope: Scope) -> None:
        """`make = functools.partial(grpc.insecure_channel, options=...)`, then `make(t)`."""
        assert isinstance(node.func, ast.Name)
        bound = self._binding(node.func.id, scope)
        if not isinstance(bound, ast.Call) or self.qualified(bound.func) != "functools.partial":
            return
        if not bound.args:
            return
        name = self.qualified(bound.args[0]) or ""
        kind = (
            "channel" if name in CHANNEL_FACTORIES else "server" if name in SERVER_FACTORIES else ""
        )
        if kind:
            args = [*bound.args[1:], *node.args]
            keywords = [*bound.keywords, *node.keywords]
            self.sites.append(_Site(kind, name, node, args, keywords, scope, parents))

    def _health_class(self, node: ast.ClassDef) -> None:
        if any(
            isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "Check"
            for s in node.body
        ):
            can_fail = any(
                isinstance(n, ast.Attribute | ast.Name) and dotted(n).endswith("NOT_SERVING")
                for n in ast.walk(node)
            )
            self.health_classes[node.name] = can_fail
            return
        # a subclass answers with the Check of the module's class it derives from
        inherited = [dotted(base) for base in node.bases if dotted(base) in self.health_classes]
        if inherited:
            self.health_classes[node.name] = self.health_classes[inherited[0]]

    # -- names -------------------------------------------------------------------------

    # -- resolution ----------------------------------------------------------------------

    def _resolve_channel(self, site: _Site) -> None:
        target_index, options_index = CHANNEL_FACTORIES[site.name]
        target = self._argument(site.args, site.keywords, target_index, "target")
        literal = isinstance(target, ast.Constant) and isinstance(target.value, str)
        options = self._call_options(site, options_index)
        kept = self._kept_where(site)
        self._export_helper(site, target, options)
        for value, long_lived in self._lifetimes(site, target):
            self.facts.channels.append(
                Channel(
                    loc=self.loc(site.call),
                    factory=site.name,
                    target=UNKNOWN if value is None else value,
                    options=options,
                    long_lived=long_lived,
                    target_argument=(target_index, "target") if literal else None,
                    kept=kept if long_lived else "",
                )
            )

    def _kept_where(self, site: _Site) -> str:
        """Where what the call makes is kept, when its own line does not show it (an item
        of a map, a global) or a function returns it to a caller that stores it; ""
        when neither is seen."""
        own = _stored_in(site.call, site.parents, plain=False)
        if own or _kept_here(site.call, site.parents) is not None:
            return f"in `{own}`" if own else ""
        for caller, _, parents in self.calls_of(site.scope)[:MAX_CHOICES]:
            place = _stored_in(caller, parents, plain=True)
            if place:
                return f"by the caller at line {caller.lineno}, in `{place}`"
        return ""

    def _export_helper(self, site: _Site, target: ast.expr | None, options: Options) -> None:
        """A module-level function that returns the channel it makes of one of its
        parameters (parse_made.py): its `channel <function>` export."""
        function = self._returning_function(site)
        if function is None or not isinstance(target, ast.Name):
            return
        home = self.function_scopes.get(id(function))
        found = _parameter(function, target.id, home) if home is not None else None
        if home is None or found is None or home.bindings.get(target.id):
            return  # not a parameter, or one rebound: not only what the callers pass
        helper = ChannelHelper(found[0], target.id, site.name, options, self.loc(site.call))
        self.facts.exports.setdefault(f"channel {function.name}", helper)

    def _returning_function(self, site: _Site) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The module-level function (not a method) that returns what the site makes:
        the call itself, or the local it binds (`channel = ...`, then `return channel`)."""
        function = site.scope.node
        owner = site.scope.parent
        if (
            not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            or owner is None
            or owner.parent is not None
        ):
            return None
        if _kept_here(site.call, site.parents) is None:
            return function
        name = _bound_name(site.call, site.parents)
        return function if name is not None and name in returned_names(function) else None

    def _resolve_server(self, site: _Site) -> None:
        name = _bound_name(site.call, site.parents)
        function = self._returning_function(site)
        if function is not None:
            self.facts.exports.setdefault(f"server {function.name}", site.name)
        self.facts.servers.append(
            Server(
                loc=self.loc(site.call),
                factory=site.name,
                options=self._call_options(site, SERVER_FACTORIES[site.name]),
                name=name,
                health_only=self._health_only(site, name),
            )
        )

    def _health_only(self, site: _Site, name: str | None) -> bool:
        """Whether the server bound to `name` serves only the health service
        (parse_made.HealthOnly), read in its function, or the module's code."""
        if name is None or "." in name or not self._may_add_health():
            return False
        if self.health_only is None:
            self.health_only = HealthOnly(self.functions, self._adds_health)
        home = _function_of(site.scope) or site.parents[0]
        return bool(self.health_only.serves_only_health(home, name))

    def _adds_health(self, call: ast.Call) -> bool:
        return self.qualified(call.func) == ADD_HEALTH

    def _may_add_health(self) -> bool:
        """Whether a call of the module can be `_adds_health`'s: its qualified name ends in
        the function's, which an ASCII module spells in its bytes (its import, or the
        attribute called); Python normalises other identifiers (NFKC), so a module that
        is not ASCII is walked. (HealthOnly's walks were 8 % of reading a module that
        makes a server and registers no health service.)"""
        return _HEALTH_FUNCTION in self.data or not self.data.isascii()

    def _resolve_http(self, site: _Site) -> None:
        http2 = keyword_argument(site.keywords, "http2")
        limits = keyword_argument(site.keywords, "limits")
        connector = keyword_argument(site.keywords, "connector")
        reuse_disabled = False
        if isinstance(limits, ast.Call):
            expiry = keyword_argument(limits.keywords, "keepalive_expiry")
            reuse_disabled = expiry is not None and self.value(expiry, site.scope) == 0
        if isinstance(connector, ast.Call):
            force = keyword_argument(connector.keywords, "force_close")
            reuse_disabled = force is not None and self.value(force, site.scope) is True
        base_url = keyword_argument(site.keywords, "base_url")
        for value, long_lived in self._lifetimes(site, base_url):
            self.facts.http_clients.append(
                HttpClient(
                    loc=self.loc(site.call),
                    factory=site.name,
                    long_lived=long_lived,
                    http2=http2 is not None and self.value(http2, site.scope) is True,
                    base_url=value,
                    reuse_disabled=reuse_disabled,
                )
            )

    def _resolve_search(self, site: _Site) -> None:
        """An Elasticsearch (OpenSearch) client: one pool a node it is given (`hosts`, a
        URL or a list of them), reported like an HTTP client of its one seed. Several seeds
        are several pools it rotates over; sniffing, or a `**spread` that may turn it on,
        dials the nodes themselves: neither is a Service's pinned connection."""
        if any(keyword.arg is None for keyword in site.keywords):
            return  # a spread dict may sniff
        if any(
            (given := keyword_argument(site.keywords, word)) is not None
            and self.value(given, site.scope) not in (False, None, 0)
            for word in SEARCH_CLIENTS[site.name]
        ):
            return
        hosts = self._argument(site.args, site.keywords, 0, "hosts")
        if isinstance(hosts, ast.List | ast.Tuple):
            if len(hosts.elts) != 1:
                return
            hosts = hosts.elts[0]
        if hosts is None:
            return  # localhost:9200, the library's default
        for value, long_lived in self._lifetimes(site, hosts):
            self.facts.http_clients.append(
                HttpClient(
                    loc=self.loc(site.call),
                    factory=site.name,
                    long_lived=long_lived,
                    http2=False,
                    base_url=UNKNOWN if value is None else value,
                    reuse_disabled=False,
                )
            )

    def _resolve_db(self, site: _Site) -> None:
        lifetime_arg = DB_POOLS[site.name]
        if site.name.startswith(("sqlalchemy", "sqlmodel")):
            poolclass = keyword_argument(site.keywords, "poolclass") or self._spread_keyword(
                site, "poolclass"
            )
            if poolclass is not None and dotted(poolclass).endswith(("NullPool", "StaticPool")):
                return  # no pool: every checkout is a new connection
        url_index = 2 if site.name.startswith("psycopg2") else 0
        url = (
            self._argument(site.args, site.keywords, url_index, "url")
            or keyword_argument(site.keywords, "conninfo")
            or keyword_argument(site.keywords, "dsn")
        )
        lifetime = keyword_argument(site.keywords, lifetime_arg) if lifetime_arg else None
        if lifetime is None and lifetime_arg:
            lifetime = self._spread_keyword(site, lifetime_arg)
        for value, long_lived in self._lifetimes(site, url):
            self.facts.db_pools.append(
                DbPool(
                    loc=self.loc(site.call),
                    factory=site.name,
                    long_lived=long_lived,
                    url=value,
                    lifetime=self.value(lifetime, site.scope) if lifetime is not None else None,
                    lifetime_arg=lifetime_arg,
                )
            )

    def _resolve_health(self, site: _Site) -> None:
        servicer = self._argument(site.args, site.keywords, 0, "servicer")
        if isinstance(servicer, ast.Name):
            servicer = self._binding(servicer.id, site.scope) or self._made_once(
                servicer.id, site.scope
            )
        if not isinstance(servicer, ast.Call):
            return
        if self.qualified(servicer.func) in HEALTH_SERVICERS:
            self.facts.health_servicers.append(HealthServicer(self.loc(site.call), None))
            return
        class_name = dotted(servicer.func).rsplit(".", 1)[-1]
        if class_name in self.health_classes:
            self.facts.health_servicers.append(
                HealthServicer(self.loc(site.call), class_name, self.health_classes[class_name])
            )
            return
        origin = (
            self._origin(servicer.func.id, site.scope)
            if isinstance(servicer.func, ast.Name)
            else None
        )
        if origin is not None:  # a class from another module: resolved by imported.py
            self.facts.health_servicers.append(
                HealthServicer(self.loc(site.call), class_name, imported=self._imported(origin))
            )

    def _lifetimes(self, site: _Site, expression: ast.expr | None) -> list[tuple[Any, bool]]:
        """Each address a client's call may have, with whether what it makes is kept. A
        factory (a function that returns it) is judged once a caller: each caller's values
        with its keeping (one that `main` keeps, one a handler uses once); a factory no
        call of the module reaches is kept (its caller keeps what it returns)."""
        callers = self.calls_of(site.scope) if _kept_here(site.call, site.parents) is None else []
        if len(callers) > MAX_CHOICES:
            callers = []  # judged as one: its values are past what a parameter is followed to
        if expression is None:
            return [(None, self._caller_keeps(site.call, site.scope, site.parents, 0))]
        if not callers:
            kept = self._caller_keeps(site.call, site.scope, site.parents, 0)
            return [(value, kept) for value in self.choices(expression, site.scope)]
        found: list[tuple[Any, bool]] = []
        for caller, caller_scope, caller_parents in callers:
            self.only[id(site.scope.node)] = caller
            try:
                values = self.choices(expression, site.scope)
            finally:
                del self.only[id(site.scope.node)]
            kept = self._caller_keeps(caller, caller_scope, caller_parents, 1)
            add_kept(found, values, kept)
        return found

    def _caller_keeps(
        self, call: ast.Call, scope: Scope, parents: tuple[ast.AST, ...], depth: int
    ) -> bool:
        """Whether what `call` gives is kept: as its function tells, else by any of that
        function's callers (none: kept)."""
        kept = _kept_here(call, parents)
        if kept is not None:
            return kept
        known = self.keeps.get(id(call))
        if known is not None:
            return known
        self.keeps[id(call)] = False  # a function that calls itself: not by that
        callers = self.calls_of(scope)
        found = not callers or any(
            depth < MAX_DEPTH and self._caller_keeps(c, s, p, depth + 1) for c, s, p in callers
        )
        self.keeps[id(call)] = found
        return found

    # -- arguments -----------------------------------------------------------------------

    def _spread_keyword(self, site: _Site, name: str) -> ast.expr | None:
        """What a `**kwargs` argument gives keyword `name`: the value a dict literal
        (`{"pool_recycle": 1800}`, `dict(pool_recycle=1800)`) bound to the name holds
        under that key, or the one stored under it (`kwargs["pool_recycle"] = 1800`;
        several stored: a value not known, whichever is in effect); None when no spread
        dict of the call is seen to hold it."""
        for keyword in site.keywords:
            if keyword.arg is not None or not isinstance(keyword.value, ast.Name):
                continue
            spread = keyword.value.id
            home = self._scope_of(spread, site.scope)
            stored = home.stored.get(spread, {}).get(name)
            if stored:
                return stored[0] if len(stored) == 1 else ast.Call(ast.Name("_"), [], [])
            mapping = self._follow(keyword.value, site.scope)
            if isinstance(mapping, ast.Dict):
                for key, value in zip(mapping.keys, mapping.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == name:
                        return value
            elif isinstance(mapping, ast.Call) and dotted(mapping.func) == "dict":
                found = keyword_argument(mapping.keywords, name)
                if found is not None:
                    return found
        return None

    def _call_options(self, site: _Site, index: int) -> Options:
        expression = self._argument(site.args, site.keywords, index, "options")
        if expression is not None:
            return self.options(expression, site.scope, 0)
        for keyword in site.keywords:  # `**kwargs` that may carry `options`
            if keyword.arg is None:
                mapping = self._follow(keyword.value, site.scope)
                if not isinstance(mapping, ast.Dict):
                    return UNKNOWN_OPTIONS
                for key, value in zip(mapping.keys, mapping.values, strict=True):
                    if key is not None and self.value(key, site.scope) == "options":
                        return self.options(value, site.scope, 0)
        if any(isinstance(a, ast.Starred) for a in site.args) or any(
            k.arg is None for k in site.keywords
        ):
            return UNKNOWN_OPTIONS
        return NOT_GIVEN

    # -- values --------------------------------------------------------------------------


# -- lifetime ------------------------------------------------------------------------------


# the tables of what a call makes: a call of one is read as such, never as another
# module's function that may make a channel or a server
_KNOWN_FACTORIES = (CHANNEL_FACTORIES, SERVER_FACTORIES, HTTP_CLIENTS, SEARCH_CLIENTS, DB_POOLS)


def _may_be_address(value: Any) -> bool:
    """Whether a value a call passes may be a channel's target: a text with a port or a
    scheme (`backend:50051`), or one given from elsewhere (a variable, an imported name)."""
    if isinstance(value, str):
        return ":" in value
    return not isinstance(value, Unknown)


def _bound_name(call: ast.Call, parents: tuple[ast.AST, ...]) -> str | None:
    """`server` in `server = grpc.server(...)`, `self._server` for an attribute."""
    for parent in reversed(parents):
        if isinstance(parent, ast.Call | ast.Await | ast.keyword):
            continue  # e.g. grpc.intercept_channel(grpc.insecure_channel(...))
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            return dotted(parent.targets[0]) or None
        if isinstance(parent, ast.AnnAssign):
            return dotted(parent.target) or None
        return None
    return None


def _long_lived(call: ast.Call, parents: tuple[ast.AST, ...]) -> bool:
    """Created once and kept (module level, `self.x`, returned by a factory, made in
    `main`/`serve`), as opposed to made for one use (`with`, a local in a function)."""
    kept = _kept_here(call, parents)
    return True if kept is None else kept


def _kept_here(call: ast.Call, parents: tuple[ast.AST, ...]) -> bool | None:
    """Whether what `call` makes is kept, as its own function tells; None when a function
    (not one that runs once) returns it: its callers decide (_Collector._lifetimes)."""
    child: ast.AST = call
    statement: ast.AST | None = None
    used = False  # a member of what it makes is used (`stub(make()).Charge()`), not it
    for node in reversed(parents):
        if isinstance(node, ast.withitem) and node.context_expr is child:
            return False
        if isinstance(node, ast.Lambda):
            return False
        if statement is None and isinstance(node, ast.stmt):
            statement = node
        used = used or (statement is None and isinstance(node, ast.Attribute))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module = parents[0] if parents and isinstance(parents[0], ast.Module) else None
            kept = _kept_by_function(node, statement, module, parents)
            return False if kept is None and used else kept
        if isinstance(node, ast.ClassDef):
            return True
        child = node
    return True


def _kept_by_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    statement: ast.AST | None,
    module: ast.Module | None,
    parents: tuple[ast.AST, ...],
) -> bool | None:
    if function.name in ONCE_FUNCTIONS:
        return True
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(target).endswith(("cache", "lru_cache", "cached_property")):
            return True
    if isinstance(statement, ast.Return):
        return None  # a factory: what the caller does with it tells
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        kept = [t for t in targets if _outlives(t, function, module)]
        if kept:  # stored to outlive the call, unless the call ends it on every path
            return not disposed_on_every_path(statement, kept, parents)
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        return isinstance(statement, ast.Assign) and (
            bool(names) and names[0] in _stored_in_attributes(function)
        )
    return False


def _stored_in(call: ast.Call, parents: tuple[ast.AST, ...], plain: bool) -> str:
    """The place (as written, 80 characters at most) a function's statement stores what
    `call` makes in, where it outlives the call (_outlives): an attribute only when
    `plain` (one on the call's own line says itself); "" for anything else."""
    statement = next((p for p in reversed(parents) if isinstance(p, ast.stmt)), None)
    function = next(
        (p for p in reversed(parents) if isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef)),
        None,
    )
    if function is None or not isinstance(statement, ast.Assign | ast.AnnAssign):
        return ""
    value = statement.value.value if isinstance(statement.value, ast.Await) else statement.value
    if value is not call:
        return ""  # a value made of it (`Stub(make())`), or a statement it is inside of
    module = parents[0] if isinstance(parents[0], ast.Module) else None
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    for target in targets:
        if _outlives(target, function, module) and (plain or not isinstance(target, ast.Attribute)):
            return ast.unparse(target)[:80]
    return ""


def _outlives(
    target: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module | None
) -> bool:
    """Whether an assignment's target outlives the function's call: an attribute
    (`self.channel`, `cls._instance`), a name the function declares `global`, or an item
    of a map or list such a place holds (`self._channels[name]`, `_CHANNELS[name]` of a
    module-level `_CHANNELS = {}`); not a local, nor an item of a local's map."""
    if isinstance(target, ast.Attribute):
        return True
    if isinstance(target, ast.Name):
        return target.id in _declared_global(function)
    if not isinstance(target, ast.Subscript):
        return False
    held = target.value
    while isinstance(held, ast.Subscript):  # `self._pools[kind][name]`
        held = held.value
    if isinstance(held, ast.Attribute):
        return True
    return isinstance(held, ast.Name) and (
        held.id in _declared_global(function)
        or (
            module is not None
            and held.id in _module_names(module)
            and held.id not in _bound_locally(function)
        )
    )


@lru_cache(maxsize=64)
def _declared_global(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names the function declares `global` (its nested functions' too)."""
    return frozenset(
        name for node in ast.walk(function) if isinstance(node, ast.Global) for name in node.names
    )


@lru_cache(maxsize=64)
def _bound_locally(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names the function binds itself (its parameters, what it assigns to a name),
    which shadow a module's names of the same spelling."""
    arguments = function.args
    found = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    found |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return frozenset(found - _declared_global(function))


@lru_cache(maxsize=16)
def _module_names(module: ast.Module) -> frozenset[str]:
    """The names the module's top level assigns (`_CHANNELS: dict[str, Channel] = {}`)."""
    found: set[str] = set()
    for statement in module.body:
        if isinstance(statement, ast.Assign):
            found.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found.add(statement.target.id)
    return frozenset(found)


@lru_cache(maxsize=64)
def _stored_in_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names the function stores in an attribute, themselves or as an argument of
    what it stores (`self.stub = Stub(channel)`, `self.channel = channel`): what they hold
    outlives the call, as the object does."""
    found: set[str] = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign) or not any(
            isinstance(t, ast.Attribute) for t in node.targets
        ):
            continue
        value = node.value
        if isinstance(value, ast.Name):
            found.add(value.id)
        elif isinstance(value, ast.Call):
            given = [*value.args, *(k.value for k in value.keywords)]
            found.update(a.id for a in given if isinstance(a, ast.Name))
    return frozenset(found)


# -- small helpers ---------------------------------------------------------------------------


def _built_from(literal: ast.Constant, parents: Parents) -> ast.expr:
    """The text an `http://` literal begins: `"http://" + host + "/x"`, `f"http://{host}"`;
    the literal itself when it stands alone."""
    node: ast.expr = literal
    for parent in reversed(parents):
        if isinstance(parent, ast.JoinedStr) and parent.values and parent.values[0] is node:
            node = parent  # f"http://{host}"
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add):
            if parent.left is not node:
                break
            node = parent  # "http://" + host
        else:
            break
    return node


def _referred(tree: ast.Module) -> dict[str, int]:
    """How many times the module reads each name, as a name or an attribute (`stop`,
    `self.stop`): a function named only where it is called is handed to no one."""
    counts: dict[str, int] = defaultdict(int)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            counts[node.attr] += 1
    return counts


def _origin_of(url: ast.expr) -> ast.expr | None:
    """The scheme, host and port of a URL text whose path holds what cannot be followed
    (`f"http://{HOST}:8080/stock/{item}"` -> `f"http://{HOST}:8080"`): the text up to the
    first `/` after the scheme's; None when the text has no such place."""
    parts: list[ast.expr] = []
    if isinstance(url, ast.JoinedStr):
        parts = list(url.values)
    else:
        while isinstance(url, ast.BinOp) and isinstance(url.op, ast.Add):
            parts.insert(0, url.right)
            url = url.left
        parts.insert(0, url)
    for at, part in enumerate(parts):
        if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
            continue
        text = part.value.split("://", 1)[1] if at == 0 and "://" in part.value else ""
        start = len(part.value) - len(text) if at == 0 else 0
        cut = part.value.find("/", start)
        if cut >= 0:
            values = [*parts[:at], ast.Constant(part.value[:cut])]
            return ast.JoinedStr(values=[_formatted(v) for v in values])
    return None


def _formatted(part: ast.expr) -> ast.expr:
    """A part of a text as an f-string holds it."""
    if isinstance(part, ast.Constant | ast.FormattedValue):
        return part
    return ast.FormattedValue(value=part, conversion=-1, format_spec=None)


def _names_bound(target: ast.expr) -> set[str]:
    """The names a `for` target binds: `sig`, or `name, sig` for a tuple."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _names(node: ast.AST | None) -> Iterator[str]:
    if isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _names(element)
    elif node is not None:
        yield dotted(node)


# The kinds of node a fact is read from, each with its reader (every other kind is only
# walked through).
_VISITS: dict[type[ast.AST], Callable[..., None]] = {
    ast.Name: _Collector._name,
    ast.Attribute: _Collector._attribute,
    ast.Call: _Collector._call,
    ast.Constant: _Collector._constant,
    ast.Import: _Collector._import,
    ast.ImportFrom: _Collector._import,
    ast.FunctionDef: _Collector._definition,
    ast.AsyncFunctionDef: _Collector._definition,
    ast.ClassDef: _Collector._definition,
    ast.Assign: _Collector._assign,
    ast.AnnAssign: _Collector._annotated,
    ast.AugAssign: _Collector._augmented,
    ast.While: _Collector._while,
}


# The fields that never hold a node the walk visits: names and words (`id`, `attr`,
# `module`...), numbers, operators and contexts, an import's aliases.
_WORDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "arg",
        "name",
        "names",
        "asname",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "kwd_attrs",
        "rest",
        "tag",
    }
)
# Each kind's fields that may hold a node, as the walk first meets the kind.
_FIELDS: dict[type, tuple[str, ...]] = {}
# The attributes a fact is read from (`_Collector._attribute`).
_DRAINS = ("NOT_SERVING", "enter_graceful_shutdown")


def _node_fields(kind: type) -> tuple[str, ...]:
    """The fields of a kind of node that may hold another (a constant's value is a value)."""
    fields: tuple[str, ...] = getattr(kind, "_fields", ())
    constant = kind is ast.Constant or kind is ast.MatchSingleton
    return tuple(f for f in fields if f not in _WORDS and not (constant and f == "value"))


def _says_nothing(node: Any) -> bool:
    """Whether visiting `node` and what it holds can add no fact nor binding: a name that
    is read, a constant that is not a text, an attribute chain on a name (`self.a.b`)
    that names no drain, an operator, a context; anything that is not a node. (The walk
    asks it of each child, inlined.)"""
    kind = node.__class__
    if kind is ast.Name:
        return node.ctx.__class__ is not ast.Store
    if kind is ast.Constant:
        return node.value.__class__ is not str
    if kind is ast.Attribute:
        return _on_a_name(node)
    return kind not in _WALKED


# How far down an attribute chain `_on_a_name` looks: each attribute of a chain is asked
# (a chain thousands long on a call, `f().a.a...`, is not read again from each).
_CHAIN = 8


def _on_a_name(attribute: ast.Attribute) -> bool:
    """Whether an attribute is a short chain on a name (`self.a.b`) naming no drain."""
    node: ast.expr = attribute
    for _ in range(_CHAIN):
        if not isinstance(node, ast.Attribute) or node.attr in _DRAINS:
            return False
        node = node.value
        if node.__class__ is ast.Name:
            return True
    return False


def _kinds(base: type) -> Iterator[type]:
    kind: type
    for kind in base.__subclasses__():
        yield kind
        yield from _kinds(kind)


# Every kind of node the walk may visit (not an operator nor a context).
_WALKED = frozenset(kind for kind in _kinds(ast.AST) if kind not in _INERT_CLASSES)


def _own_trigger(name: str | None, node: ast.Call) -> bool:
    """Whether a signal server's call hands it its own way to stop (_OWN_TRIGGER: hypercorn's
    `serve(app, config, shutdown_trigger=event.wait)`), so that it installs no handler."""
    keyword = _OWN_TRIGGER.get(name or "")
    if keyword is None:
        return False
    given = keyword_argument(node.keywords, keyword)
    return given is not None and not (isinstance(given, ast.Constant) and given.value is None)


def _catches_keyboard_interrupt(handler: ast.ExceptHandler) -> bool:
    return any(name.endswith("KeyboardInterrupt") for name in _names(handler.type))


def _function_of(scope: Scope) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose body a scope is in (a lambda's or a class's: the one around
    it); None for the module's own code."""
    at: Scope | None = scope
    while at is not None:
        if isinstance(at.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return at.node
        at = at.parent
    return None


def _is_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value) and test.value is not None
