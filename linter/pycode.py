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
import json
import math
import re
import sys
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from k8slb.codefacts import (
    NO_OPTIONS,
    NOT_GIVEN,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    CodeFacts,
    DbPool,
    EnvRef,
    HealthServicer,
    HttpClient,
    Imported,
    Joined,
    Listen,
    Loc,
    Option,
    Options,
    Server,
    Stop,
    Unknown,
    Wait,
    is_test_path,
    joined,
    worth_parsing,
)
from k8slb.encodings import python_codec
from k8slb.findings import Severity
from k8slb.markers import comment_markers
from k8slb.model import Problem
from k8slb.pyast import dotted
from k8slb.web_routes import WEB_WORDS, collect_routes

# qualified name -> (index of the target argument, index of the options argument)
CHANNEL_FACTORIES = {
    "grpc.insecure_channel": (0, 1),
    "grpc.secure_channel": (0, 2),
    "grpc.aio.insecure_channel": (0, 1),
    "grpc.aio.secure_channel": (0, 2),
}
SERVER_FACTORIES = {"grpc.server": 3, "grpc.aio.server": 3}
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
_MAX_DEPTH = 8  # how many assignments a value is followed through
_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


def analyse(path: str, data: bytes) -> CodeFacts:
    """The facts of one Python file; a file that does not parse gives a KLB004 problem."""
    facts = CodeFacts(path, is_test=is_test_path(path))
    if not worth_parsing(data):
        return facts
    try:
        tree = ast.parse(data, filename=path)
    except SyntaxError as error:
        facts.problem = _syntax_problem(path, data, error)
        return facts
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, deep nesting
        facts.problem = Problem("KLB004", path, 1, 1, f"not valid Python: {error}")
        return facts
    _Collector(path, data, facts).run(tree)
    facts.markers = comment_markers(path, data.decode("utf-8", errors="replace"))
    return facts


# CPython's tokenizer refuses more than 200 open brackets; libcst's parser recurses on each
# and takes seconds and gigabytes (then overflows the native stack) long before that.
# A module-level line that binds a name or imports one: what a module that is not worth a
# full analysis can still give the modules that import it (`ADDR = "backend:50051"`).
_EXPORT_LINE = re.compile(
    rb"^(?:[A-Za-z_]\w*[ \t]*(?::[^=\n]*)?=[^=\n][^\n]*|(?:from|import)[ \t][^\n]*)$",
    re.MULTILINE,
)


def analyse_exports(path: str, data: bytes) -> CodeFacts:
    """The facts of a module with nothing k8slb looks for: only the values it defines at
    module level on one line, for the modules that import them. The lines are parsed on
    their own (a statement that spans lines is left out); the file is not parsed whole."""
    facts = CodeFacts(path, is_test=is_test_path(path))
    lines = [m.group(0) for m in _EXPORT_LINE.finditer(data)]
    if not lines:
        return facts
    statements: list[ast.stmt] = []
    for line in lines:
        try:
            statements += ast.parse(line).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    tree = ast.Module(body=statements, type_ignores=[])
    _Collector(path, data, facts).run(tree)
    return CodeFacts(path, is_test=facts.is_test, exports=facts.exports, deferred=facts.deferred)


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

    try:
        parse_module(data)
    except ParserSyntaxError:
        return Problem("KLB004", path, line, column, f"not valid Python: {error.msg}")
    except Exception:
        pass
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
class _Scope:
    """Names bound in one function (or the module): enough to follow a value."""

    node: ast.AST
    parent: _Scope | None
    bindings: dict[str, list[ast.expr]] = field(default_factory=lambda: defaultdict(list))
    # names bound in ways whose value cannot be followed: parameters, loop and `with`
    # targets, tuple unpacking...
    opaque: set[str] = field(default_factory=set)
    additions: dict[str, list[tuple[str, ast.expr]]] = field(
        default_factory=lambda: defaultdict(list)
    )


@dataclass
class _Site:
    """A factory call seen during the traversal, resolved after it."""

    kind: str
    name: str
    call: ast.Call
    args: list[ast.expr]
    keywords: list[ast.keyword]
    scope: _Scope
    parents: tuple[ast.AST, ...]


class _Collector:
    def __init__(self, path: str, data: bytes, facts: CodeFacts) -> None:
        self.path = path
        self.data = data
        self.lines = data.splitlines()
        self.facts = facts
        self.imports: dict[str, str] = {}  # local name -> the module path it stands for
        self.locals: set[str] = set()  # names defined here (def, class), shadowing imports
        self.sites: list[_Site] = []
        self.stops: list[tuple[ast.Call, str, bool, _Scope]] = []
        self.listens: list[tuple[ast.Call, str, _Scope]] = []
        self.health_classes: dict[str, bool] = {}  # class with a Check method -> can fail
        # `from M import N` (relative or not): where each local name comes from
        self.origins: dict[str, Imported] = {}
        self.deferred = False  # a value holds an Imported

    # -- driving -----------------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        module = _Scope(tree, None)
        self._walk(tree, (), module, keyboard=False)
        for site in self.sites:
            getattr(self, f"_resolve_{site.kind}")(site)
        self._unshare_option_literals()
        servers = {s.name for s in self.facts.servers if s.name}
        for call, receiver, keyboard, scope in self.stops:
            if receiver in servers:
                grace = self._argument(call.args, call.keywords, 0, "grace")
                value = self.value(grace, scope) if grace is not None else UNKNOWN
                self.facts.stops.append(Stop(self.loc(call), receiver, value, keyboard))
        for call, receiver, scope in self.listens:
            if receiver in servers and call.args:
                address = self.value(call.args[0], scope)
                self.facts.listens.append(Listen(receiver, address, self.loc(call)))
        self._exports(module)
        if any(word in self.data for word in WEB_WORDS):
            self.facts.routes = collect_routes(tree, self.qualified, self.loc)

    def _exports(self, module: _Scope) -> None:
        """What another module can import from this one (imported.py resolves it)."""
        for name, bound in module.bindings.items():
            if len(bound) == 1 and name not in module.opaque and name not in module.additions:
                value = self.value(bound[0], module)
                if not isinstance(value, Unknown):
                    self.facts.exports[name] = value
        self.facts.exports.update(
            (name, origin) for name, origin in self.origins.items() if name not in module.bindings
        )  # re-exported: `from .settings import ADDR` in a package's __init__
        self.facts.health_classes = dict(self.health_classes)
        self.facts.deferred = self.deferred

    def _imported(self, origin: Imported) -> Imported:
        self.deferred = True
        return origin

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
        self, node: ast.AST, parents: tuple[ast.AST, ...], scope: _Scope, keyboard: bool
    ) -> None:
        self._visit(node, parents, scope, keyboard)
        if isinstance(node, _ScopeNode):
            scope = _Scope(node, scope)
            if isinstance(node, _Function):
                arguments = node.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
                scope.opaque.update(a.arg for a in every)
        if isinstance(node, ast.ExceptHandler) and _catches_keyboard_interrupt(node):
            keyboard = True
        below = (*parents, node)
        for child in ast.iter_child_nodes(node):
            self._walk(child, below, scope, keyboard)

    def _visit(
        self, node: ast.AST, parents: tuple[ast.AST, ...], scope: _Scope, keyboard: bool
    ) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                self.imports[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                self.origins[alias.asname or alias.name] = Imported(0, node.module, alias.name)
        elif isinstance(node, ast.ImportFrom):  # relative: only ever a module of the project
            for alias in node.names:
                self.origins[alias.asname or alias.name] = Imported(
                    node.level, node.module or "", alias.name
                )
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if scope.parent is None:
                self.locals.add(node.name)
            if isinstance(node, ast.ClassDef):
                self._health_class(node)
        elif isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                scope.bindings[node.targets[0].id].append(node.value)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.value is not None:
                scope.bindings[node.target.id].append(node.value)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
                scope.additions[node.target.id].append(("extend", node.value))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            parent = parents[-1] if parents else None
            simple = isinstance(parent, ast.AnnAssign | ast.AugAssign) or (
                isinstance(parent, ast.Assign) and len(parent.targets) == 1
            )
            if not simple:
                scope.opaque.add(node.id)
        elif isinstance(node, ast.Call):
            self._call(node, parents, scope, keyboard)
        elif isinstance(node, ast.While):
            if _is_true(node.test) and any(
                isinstance(n, ast.Call) and dotted(n.func).endswith("sleep") for n in ast.walk(node)
            ):
                self.facts.waits.append(Wait(self.loc(node), None, "a `while True: sleep()` loop"))
        elif isinstance(node, ast.Attribute):
            if node.attr in ("NOT_SERVING", "enter_graceful_shutdown"):
                self.facts.health_drains.append(self.loc(node))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.lower().startswith(("http://", "https://"))
        ):
            self.facts.urls.append((node.value, self.loc(node)))

    def _call(
        self, node: ast.Call, parents: tuple[ast.AST, ...], scope: _Scope, keyboard: bool
    ) -> None:
        name = self.qualified(node.func)

        def site(kind: str) -> _Site:
            return _Site(kind, name or "", node, node.args, node.keywords, scope, parents)

        if name in CHANNEL_FACTORIES:
            self.sites.append(site("channel"))
        elif name in SERVER_FACTORIES:
            self.sites.append(site("server"))
        elif name in HTTP_CLIENTS:
            self.sites.append(site("http"))
        elif name in DB_POOLS:
            self.sites.append(site("db"))
        elif name == ADD_HEALTH:
            self.sites.append(site("health"))
        elif name == "signal.signal":
            self._signal(node, parents, scope)
        elif isinstance(node.func, ast.Name):
            self._via_partial(node, parents, scope)
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        receiver = dotted(func.value)
        method = func.attr
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
        elif method == "wait_for_termination":
            awaited = bool(parents) and isinstance(parents[-1], ast.Await)
            wait = Wait(self.loc(node), receiver, "wait_for_termination()", awaited)
            self.facts.waits.append(wait)
        elif method == "run_forever":
            self.facts.waits.append(Wait(self.loc(node), None, "run_forever()"))
        elif method == "stop":
            self.stops.append((node, receiver, keyboard, scope))
        elif method in ("add_insecure_port", "add_secure_port"):
            self.listens.append((node, receiver, scope))

    def _signal(self, node: ast.Call, parents: tuple[ast.AST, ...], scope: _Scope) -> None:
        if len(node.args) < 2:
            return
        signal_arg, handler = node.args[0], node.args[1]
        signals = self._signals(signal_arg, parents, scope)
        if any(self._is_sigterm(s) for s in signals) and not dotted(handler).endswith(
            ("SIG_DFL", "SIG_IGN")
        ):
            self.facts.sigterm_handlers.append(self.loc(node))

    def _signals(
        self, expression: ast.expr, parents: tuple[ast.AST, ...], scope: _Scope
    ) -> list[ast.expr]:
        """The signals a `signal.signal` argument may be: itself, or, for the target of an
        enclosing `for sig in (SIGINT, SIGTERM)` (the tuple may be bound to a name), each
        item of what the loop walks."""
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
            if isinstance(parent, _ScopeNode):
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

    def _via_partial(self, node: ast.Call, parents: tuple[ast.AST, ...], scope: _Scope) -> None:
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

    # -- names -------------------------------------------------------------------------

    def qualified(self, node: ast.expr) -> str | None:
        """`grpc.aio.insecure_channel` for `aio.insecure_channel` after
        `from grpc import aio`; None for names that are not imported."""
        name = dotted(node)
        if not name:
            return None
        head, _, rest = name.partition(".")
        if head in self.locals or head not in self.imports:
            return None
        base = self.imports[head]
        return f"{base}.{rest}" if rest else base

    def _scope_of(self, name: str, scope: _Scope) -> _Scope:
        """The scope where `name` is bound, as Python looks it up: innermost first, and
        a class body is seen only from itself, not from its methods."""
        current: _Scope | None = scope
        while current is not None:
            visible = current is scope or not isinstance(current.node, ast.ClassDef)
            if visible and (name in current.bindings or name in current.opaque):
                return current
            current = current.parent
        return scope

    def _binding(self, name: str, scope: _Scope) -> ast.expr | None:
        """The value a name is bound to, when it is bound exactly once by `=`."""
        home = self._scope_of(name, scope)
        bound = home.bindings.get(name, [])
        return bound[0] if len(bound) == 1 and name not in home.opaque else None

    # -- resolution ----------------------------------------------------------------------

    def loc(self, node: ast.AST) -> Loc:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        column = len(text[:offset].decode("utf-8", errors="replace")) + 1  # offsets are bytes
        return Loc(self.path, line, column)

    def _resolve_channel(self, site: _Site) -> None:
        target_index, options_index = CHANNEL_FACTORIES[site.name]
        target = self._argument(site.args, site.keywords, target_index, "target")
        literal = isinstance(target, ast.Constant) and isinstance(target.value, str)
        self.facts.channels.append(
            Channel(
                loc=self.loc(site.call),
                factory=site.name,
                target=self.value(target, site.scope) if target is not None else UNKNOWN,
                options=self._call_options(site, options_index),
                long_lived=_long_lived(site.call, site.parents),
                target_argument=(target_index, "target") if literal else None,
            )
        )

    def _resolve_server(self, site: _Site) -> None:
        self.facts.servers.append(
            Server(
                loc=self.loc(site.call),
                factory=site.name,
                options=self._call_options(site, SERVER_FACTORIES[site.name]),
                name=_bound_name(site.call, site.parents),
            )
        )

    def _resolve_http(self, site: _Site) -> None:
        http2 = _keyword(site.keywords, "http2")
        limits = _keyword(site.keywords, "limits")
        connector = _keyword(site.keywords, "connector")
        reuse_disabled = False
        if isinstance(limits, ast.Call):
            expiry = _keyword(limits.keywords, "keepalive_expiry")
            reuse_disabled = expiry is not None and self.value(expiry, site.scope) == 0
        if isinstance(connector, ast.Call):
            force = _keyword(connector.keywords, "force_close")
            reuse_disabled = force is not None and self.value(force, site.scope) is True
        base_url = _keyword(site.keywords, "base_url")
        self.facts.http_clients.append(
            HttpClient(
                loc=self.loc(site.call),
                factory=site.name,
                long_lived=_long_lived(site.call, site.parents),
                http2=http2 is not None and self.value(http2, site.scope) is True,
                base_url=self.value(base_url, site.scope) if base_url is not None else None,
                reuse_disabled=reuse_disabled,
            )
        )

    def _resolve_db(self, site: _Site) -> None:
        lifetime_arg = DB_POOLS[site.name]
        if site.name.startswith(("sqlalchemy", "sqlmodel")):
            poolclass = _keyword(site.keywords, "poolclass")
            if poolclass is not None and dotted(poolclass).endswith(("NullPool", "StaticPool")):
                return  # no pool: every checkout is a new connection
        url_index = 2 if site.name.startswith("psycopg2") else 0
        url = (
            self._argument(site.args, site.keywords, url_index, "url")
            or _keyword(site.keywords, "conninfo")
            or _keyword(site.keywords, "dsn")
        )
        lifetime = _keyword(site.keywords, lifetime_arg) if lifetime_arg else None
        self.facts.db_pools.append(
            DbPool(
                loc=self.loc(site.call),
                factory=site.name,
                long_lived=_long_lived(site.call, site.parents),
                url=self.value(url, site.scope) if url is not None else None,
                lifetime=self.value(lifetime, site.scope) if lifetime is not None else None,
                lifetime_arg=lifetime_arg,
            )
        )

    def _resolve_health(self, site: _Site) -> None:
        servicer = self._argument(site.args, site.keywords, 0, "servicer")
        if isinstance(servicer, ast.Name):
            servicer = self._binding(servicer.id, site.scope)
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

    # -- arguments -----------------------------------------------------------------------

    @staticmethod
    def _argument(
        args: Sequence[ast.expr], keywords: Sequence[ast.keyword], index: int, name: str
    ) -> ast.expr | None:
        found = _keyword(keywords, name)
        if found is not None:
            return found
        positional = [a for a in args if not isinstance(a, ast.Starred)]
        return positional[index] if index < len(positional) else None

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

    def options(self, expression: ast.expr, scope: _Scope, depth: int) -> Options:
        """The (key, value) pairs of an options expression, followed through names,
        `+`, `list(...)`, and the `.append`/`.extend`/`+=` that add to a name."""
        if depth > _MAX_DEPTH:
            return UNKNOWN_OPTIONS
        if isinstance(expression, ast.Constant) and expression.value is None:
            return NO_OPTIONS
        if isinstance(expression, ast.Name):
            bound = self._binding(expression.id, scope)
            if bound is None:
                return UNKNOWN_OPTIONS
            result = self.options(bound, scope, depth + 1)
            home = self._scope_of(expression.id, scope)
            for how, added in home.additions.get(expression.id, []):  # no single literal now
                result = result + (
                    self._pairs([added], scope)
                    if how == "append"
                    else self.options(added, scope, depth + 1)
                )
            return result
        if isinstance(expression, ast.List | ast.Tuple):
            result = NO_OPTIONS
            plain: list[ast.expr] = []
            for element in expression.elts:
                if isinstance(element, ast.Starred):
                    result = result + self.options(element.value, scope, depth + 1)
                else:
                    plain.append(element)
            pairs = self._pairs(plain, scope)
            if len(plain) == len(expression.elts):  # a plain literal: a fix can extend it
                return Options(pairs.complete, pairs.entries, literal=self.loc(expression))
            return result + pairs
        if isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Add):
            return self.options(expression.left, scope, depth + 1) + self.options(
                expression.right, scope, depth + 1
            )
        if isinstance(expression, ast.Call) and dotted(expression.func) in ("list", "tuple"):
            if not expression.args:
                return NO_OPTIONS
            return self.options(expression.args[0], scope, depth + 1)
        return UNKNOWN_OPTIONS

    def _pairs(self, elements: Iterable[ast.expr], scope: _Scope) -> Options:
        entries: list[Option] = []
        complete = True
        for element in elements:
            pair = element
            if isinstance(pair, ast.Name):
                pair = self._binding(pair.id, scope) or pair
            if isinstance(pair, ast.Tuple | ast.List) and len(pair.elts) == 2:
                key = self.value(pair.elts[0], scope)
                if isinstance(key, str):
                    value = self.value(pair.elts[1], scope)
                    entries.append(Option(key, value, self.loc(pair)))  # the pair itself
                    continue
            complete = False
        return Options(complete, tuple(entries))

    # -- values --------------------------------------------------------------------------

    def _follow(self, expression: ast.expr, scope: _Scope) -> ast.expr | None:
        for _ in range(_MAX_DEPTH):
            if not isinstance(expression, ast.Name):
                return expression
            bound = self._binding(expression.id, scope)
            if bound is None:
                return None
            expression = bound
        return None

    def value(self, expression: ast.expr, scope: _Scope, depth: int = 0) -> Any:
        """A literal, an EnvRef, or UNKNOWN."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(expression, ast.Constant):
            return expression.value if not isinstance(expression.value, bytes) else UNKNOWN
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.USub):
            inner = self.value(expression.operand, scope, depth + 1)
            return -inner if _number(inner) else UNKNOWN
        if isinstance(expression, ast.Name):
            bound = self._binding(expression.id, scope)
            if bound is not None:
                return self.value(bound, scope, depth + 1)
            origin = self._origin(expression.id, scope)
            return self._imported(origin) if origin is not None else UNKNOWN
        if isinstance(expression, ast.Dict):
            result: dict[str, Any] = {}
            for key, item in zip(expression.keys, expression.values, strict=True):
                key_value = self.value(key, scope, depth + 1) if key is not None else UNKNOWN
                if not isinstance(key_value, str):
                    return UNKNOWN
                result[key_value] = self.value(item, scope, depth + 1)
            return result
        if isinstance(expression, ast.List | ast.Tuple):
            return [
                UNKNOWN if isinstance(e, ast.Starred) else self.value(e, scope, depth + 1)
                for e in expression.elts
            ]
        if isinstance(expression, ast.Subscript):
            if self.qualified(expression.value) == "os.environ":
                name = self.value(expression.slice, scope, depth + 1)
                return EnvRef(name, None) if isinstance(name, str) else UNKNOWN
            return UNKNOWN
        if isinstance(expression, ast.Call):
            return self._call_value(expression, scope, depth)
        if isinstance(expression, ast.JoinedStr):
            parts: list[Any] = []
            for part in expression.values:
                if isinstance(part, ast.Constant):
                    parts.append(part.value)
                elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                    value = self.value(part.value, scope, depth + 1)
                    parts.append(str(value) if _number(value) and part.conversion < 0 else value)
                else:
                    return UNKNOWN
            return joined(parts)
        if isinstance(expression, ast.BinOp):
            left = self.value(expression.left, scope, depth + 1)
            right = self.value(expression.right, scope, depth + 1)
            if _number(left) and _number(right):
                return _arithmetic(expression.op, left, right)
            return joined([left, right]) if isinstance(expression.op, ast.Add) else UNKNOWN
        if isinstance(expression, ast.Attribute) and self.qualified(expression) == "math.inf":
            return math.inf
        if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            module = self._module_of(expression.value.id, scope)
            if module is not None:  # `config.ADDR` after `import config` or `from . import config`
                return self._imported(Imported(module[0], module[1], expression.attr))
        return UNKNOWN

    def _origin(self, name: str, scope: _Scope) -> Imported | None:
        """Where a free name comes from, when a `from ... import` at module level bound it
        and nothing in between rebinds it."""
        if self._bound(name, scope):
            return None
        return self.origins.get(name)

    def _bound(self, name: str, scope: _Scope) -> bool:
        """Whether `name` is bound by this module's own code (not by an import) where
        `scope` sees it."""
        home = self._scope_of(name, scope)
        return name in home.bindings or name in home.opaque or name in self.locals

    def _module_of(self, name: str, scope: _Scope) -> tuple[int, str] | None:
        """(level, dotted module) for a name bound by `import a.b as name` or by
        `from . import name`, which may be a module of the project."""
        if self._bound(name, scope):
            return None
        if name in self.origins:
            origin = self.origins[name]
            module = f"{origin.module}.{origin.name}" if origin.module else origin.name
            return (origin.level, module)
        if name in self.imports and "." not in name:
            return (0, self.imports[name])
        return None

    def _call_value(self, call: ast.Call, scope: _Scope, depth: int) -> Any:
        name = self.qualified(call.func) or dotted(call.func)
        args = [self.value(a, scope, depth + 1) for a in call.args]
        if name in ("os.environ.get", "os.getenv") and args:
            default = args[1] if len(args) > 1 else None
            if isinstance(args[0], str):
                known = isinstance(default, str | None | Imported | Joined)
                return EnvRef(args[0], default if known else UNKNOWN)
            return UNKNOWN
        if name == "json.dumps" and args:
            return json.dumps(args[0]) if _plain_json(args[0]) else UNKNOWN
        infinite = ("inf", "+inf", "infinity")
        if name == "float" and args and isinstance(args[0], str) and args[0].lower() in infinite:
            return math.inf
        if name == "str" and args and isinstance(args[0], str | EnvRef):
            return args[0]
        return UNKNOWN


# -- lifetime ------------------------------------------------------------------------------


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
    child: ast.AST = call
    statement: ast.AST | None = None
    for node in reversed(parents):
        if isinstance(node, ast.withitem) and node.context_expr is child:
            return False
        if isinstance(node, ast.Lambda):
            return False
        if statement is None and isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return _kept_by_function(node, statement)
        if isinstance(node, ast.ClassDef):
            return True
        child = node
    return True


def _kept_by_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef, statement: ast.AST | None
) -> bool:
    if function.name in ONCE_FUNCTIONS:
        return True
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(target).endswith(("cache", "lru_cache", "cached_property")):
            return True
    if isinstance(statement, ast.Return):
        return True  # a factory: the caller keeps what it returns
    if isinstance(statement, ast.Assign):
        return any(isinstance(t, ast.Attribute) for t in statement.targets)
    if isinstance(statement, ast.AnnAssign):
        return isinstance(statement.target, ast.Attribute)
    return False


# -- small helpers ---------------------------------------------------------------------------


def _keyword(keywords: Sequence[ast.keyword], name: str) -> ast.expr | None:
    for keyword in keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _names_bound(target: ast.expr) -> set[str]:
    """The names a `for` target binds: `sig`, or `name, sig` for a tuple."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _names(node: ast.AST | None) -> Iterator[str]:
    if isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _names(element)
    elif node is not None:
        yield dotted(node)


def _catches_keyboard_interrupt(handler: ast.ExceptHandler) -> bool:
    return any(name.endswith("KeyboardInterrupt") for name in _names(handler.type))


def _is_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value) and test.value is not None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _arithmetic(operator: ast.operator, left: Any, right: Any) -> Any:
    """Constant arithmetic as people write durations: `5 * 60 * 1000`, `2**31 - 1`."""
    try:
        if isinstance(operator, ast.Add):
            return left + right
        if isinstance(operator, ast.Sub):
            return left - right
        if isinstance(operator, ast.Mult):
            return left * right
        if isinstance(operator, ast.Pow) and abs(right) <= 64:
            return left**right
    except (OverflowError, ZeroDivisionError):
        pass
    return UNKNOWN


def _plain_json(data: Any) -> bool:
    if isinstance(data, Unknown | EnvRef | Imported | Joined):
        return False
    if isinstance(data, dict):
        return all(_plain_json(v) for v in data.values())
    if isinstance(data, list):
        return all(_plain_json(v) for v in data)
    return True
