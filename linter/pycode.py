"""Python source -> `PythonFacts`, in one libcst pass per file.

Calls are recognised by qualified name (libcst's QualifiedNameProvider), so
`from grpc import insecure_channel as ic` is followed and a local function that happens to
be called `insecure_channel` is not. Arguments are resolved after the traversal, when every
assignment and every `options.append(...)` of the module has been seen.

libcst is imported here only, and this module only when a Python file passes the byte
pre-check (`worth_parsing`): a run over YAML alone never pays for it.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst
from k8slb.model import Problem
from k8slb.pyfacts import (
    NO_OPTIONS,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Channel,
    DbPool,
    EnvRef,
    HealthServicer,
    HttpClient,
    Loc,
    Option,
    Options,
    PythonFacts,
    Server,
    Stop,
    Unknown,
    Wait,
    is_test_path,
    worth_parsing,
)
from libcst.metadata import (
    Assignment,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

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
# qualified name -> (the argument that bounds connection lifetime, its index if positional)
DB_POOLS = {
    "sqlalchemy.create_engine": "pool_recycle",
    "sqlalchemy.engine.create_engine": "pool_recycle",
    "sqlalchemy.ext.asyncio.create_async_engine": "pool_recycle",
    "sqlmodel.create_engine": "pool_recycle",
    "psycopg_pool.ConnectionPool": "max_lifetime",
    "psycopg_pool.AsyncConnectionPool": "max_lifetime",
    "psycopg2.pool.SimpleConnectionPool": "",
    "psycopg2.pool.ThreadedConnectionPool": "",
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
_URL = re.compile(r"^https?://[^\s/]+", re.IGNORECASE)
_MAX_DEPTH = 8  # how many assignments a value is followed through


def analyse(path: str, data: bytes) -> PythonFacts:
    """The facts of one Python file; a file that does not parse gives a KLB004 problem."""
    facts = PythonFacts(path, is_test=is_test_path(path))
    if not worth_parsing(data):
        return facts
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as error:
        facts.problem = _syntax_problem(path, data, error)
        return facts
    except (UnicodeDecodeError, RecursionError) as error:
        facts.problem = Problem("KLB004", path, 1, 1, f"not valid Python: {error}")
        return facts
    collector = _Collector(path, facts)
    cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(collector)
    return facts


@dataclass
class _Site:
    """A factory call seen during the traversal, resolved after it."""

    kind: str
    name: str
    call: cst.Call
    args: tuple[cst.Arg, ...]


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (
        PositionProvider,
        ParentNodeProvider,
        QualifiedNameProvider,
        ScopeProvider,
    )

    def __init__(self, path: str, facts: PythonFacts) -> None:
        super().__init__()
        self.path = path
        self.facts = facts
        self.sites: list[_Site] = []
        # (scope, name) -> expressions added to a list by .append/.extend/+=
        self.additions: dict[tuple[int, str], list[tuple[str, cst.BaseExpression]]] = defaultdict(
            list
        )
        self.keyboard_interrupt_depth = 0
        self.stop_calls: list[tuple[cst.Call, str, bool]] = []
        self.health_classes: dict[str, bool] = {}  # class with a Check method -> can fail

    # -- helpers -----------------------------------------------------------------------

    def loc(self, node: cst.CSTNode) -> Loc:
        start = self.get_metadata(PositionProvider, node).start
        return Loc(self.path, start.line, start.column + 1)

    def qualified(self, node: cst.CSTNode) -> set[str]:
        names = self.get_metadata(QualifiedNameProvider, node, set())
        return {q.name for q in names}

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get_metadata(ParentNodeProvider, node, None)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        return self.get_metadata(ScopeProvider, node, None)

    # -- traversal ---------------------------------------------------------------------

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.type is not None and "KeyboardInterrupt" in _text(node.type):
            self.keyboard_interrupt_depth += 1

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        if original_node.type is not None and "KeyboardInterrupt" in _text(original_node.type):
            self.keyboard_interrupt_depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        methods = [
            s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "Check"
        ]
        if methods:
            self.health_classes[node.name.value] = "NOT_SERVING" in _text(node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and _URL.match(value):
            self.facts.urls.append((value, self.loc(node)))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
            self._add_to(node, node.target.value, "extend", node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "NOT_SERVING" or node.attr.value == "enter_graceful_shutdown":
            self.facts.health_drains.append(self.loc(node))

    def visit_Call(self, node: cst.Call) -> None:
        names = self.qualified(node.func)
        for name in names:
            if name in CHANNEL_FACTORIES:
                self.sites.append(_Site("channel", name, node, tuple(node.args)))
            elif name in SERVER_FACTORIES:
                self.sites.append(_Site("server", name, node, tuple(node.args)))
            elif name in HTTP_CLIENTS:
                self.sites.append(_Site("http", name, node, tuple(node.args)))
            elif name in DB_POOLS:
                self.sites.append(_Site("db", name, node, tuple(node.args)))
            elif name == ADD_HEALTH:
                self.sites.append(_Site("health", name, node, tuple(node.args)))
            elif name == "signal.signal":
                self._signal(node, node.args, handler_index=1)
        if not names & (CHANNEL_FACTORIES.keys() | SERVER_FACTORIES.keys()):
            self._via_partial(node)
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = _text(func.value)
            if method == "add_signal_handler":
                self._signal(node, node.args, handler_index=1)
            elif method in ("append", "extend", "insert") and isinstance(func.value, cst.Name):
                if node.args:
                    self._add_to(node, func.value.value, method, node.args[-1].value)
            elif method == "start":
                self.facts.starts.add(receiver)
            elif method == "wait_for_termination":
                self.facts.waits.append(Wait(self.loc(node), receiver, "wait_for_termination()"))
            elif method == "run_forever":
                self.facts.waits.append(Wait(self.loc(node), None, "run_forever()"))
            elif method == "stop":
                self.stop_calls.append((node, receiver, self.keyboard_interrupt_depth > 0))

    def visit_While(self, node: cst.While) -> None:
        if _text(node.test) in ("True", "1") and re.search(r"\bsleep\(", _text(node.body)):
            self.facts.waits.append(Wait(self.loc(node), None, "a `while True: sleep()` loop"))

    def _signal(self, node: cst.Call, args: Sequence[cst.Arg], handler_index: int) -> None:
        if not args:
            return
        signal_arg = args[0].value
        is_term = "signal.SIGTERM" in self.qualified(signal_arg) or _text(signal_arg) in (
            "SIGTERM",
            "signal.SIGTERM",
            "15",
        )
        if not is_term:
            return
        handler = _text(args[handler_index].value) if len(args) > handler_index else ""
        if handler.endswith(("SIG_DFL", "SIG_IGN")):
            return
        self.facts.sigterm_handlers.append(self.loc(node))

    def _via_partial(self, node: cst.Call) -> None:
        """`make = functools.partial(grpc.insecure_channel, options=...)`, then `make(t)`."""
        if not isinstance(node.func, cst.Name):
            return
        bound = self._binding(node.func)
        if not isinstance(bound, cst.Call) or "functools.partial" not in self.qualified(bound.func):
            return
        if not bound.args:
            return
        for name in self.qualified(bound.args[0].value):
            kind = (
                "channel"
                if name in CHANNEL_FACTORIES
                else "server"
                if name in SERVER_FACTORIES
                else ""
            )
            if kind:
                args = tuple(bound.args[1:]) + tuple(node.args)
                self.sites.append(_Site(kind, name, node, args))

    def _add_to(self, node: cst.CSTNode, name: str, how: str, value: cst.BaseExpression) -> None:
        scope = self.scope(node)
        if scope is not None:
            self.additions[(id(scope), name)].append((how, value))

    # -- resolution (after the traversal) ------------------------------------------------

    def leave_Module(self, original_node: cst.Module) -> None:
        """Resolve the call sites, now that every assignment has been seen (metadata is
        still available here, not after the visit)."""
        for site in self.sites:
            getattr(self, f"_resolve_{site.kind}")(site)
        for call, receiver, keyboard in self.stop_calls:
            if receiver in {s.name for s in self.facts.servers if s.name}:
                grace = self._argument(call.args, 0, "grace")
                value = self.value(grace) if grace is not None else UNKNOWN
                self.facts.stops.append(Stop(self.loc(call), receiver, value, keyboard))

    def _resolve_channel(self, site: _Site) -> None:
        target_index, options_index = CHANNEL_FACTORIES[site.name]
        target = self._argument(site.args, target_index, "target")
        self.facts.channels.append(
            Channel(
                loc=self.loc(site.call),
                factory=site.name,
                target=self.value(target) if target is not None else UNKNOWN,
                options=self._call_options(site.args, options_index),
                long_lived=self._long_lived(site.call),
            )
        )

    def _resolve_server(self, site: _Site) -> None:
        self.facts.servers.append(
            Server(
                loc=self.loc(site.call),
                factory=site.name,
                options=self._call_options(site.args, SERVER_FACTORIES[site.name]),
                name=self._bound_name(site.call),
            )
        )

    def _resolve_http(self, site: _Site) -> None:
        http2 = self._keyword(site.args, "http2")
        limits = self._keyword(site.args, "limits")
        connector = self._keyword(site.args, "connector")
        reuse_disabled = False
        if isinstance(limits, cst.Call):
            expiry = self._keyword(tuple(limits.args), "keepalive_expiry")
            reuse_disabled = expiry is not None and self.value(expiry) == 0
        if isinstance(connector, cst.Call):
            force = self._keyword(tuple(connector.args), "force_close")
            reuse_disabled = force is not None and self.value(force) is True
        base_url = self._keyword(site.args, "base_url")
        self.facts.http_clients.append(
            HttpClient(
                loc=self.loc(site.call),
                factory=site.name,
                long_lived=self._long_lived(site.call),
                http2=http2 is not None and self.value(http2) is True,
                base_url=self.value(base_url) if base_url is not None else None,
                reuse_disabled=reuse_disabled,
            )
        )

    def _resolve_db(self, site: _Site) -> None:
        lifetime_arg = DB_POOLS[site.name]
        if site.name.startswith("sqlalchemy") or site.name.startswith("sqlmodel"):
            poolclass = self._keyword(site.args, "poolclass")
            if poolclass is not None and _text(poolclass).endswith(("NullPool", "StaticPool")):
                return  # no pool: every checkout is a new connection
        url = self._argument(site.args, 0, "url") or self._argument(site.args, 0, "conninfo")
        lifetime = self._keyword(site.args, lifetime_arg) if lifetime_arg else None
        self.facts.db_pools.append(
            DbPool(
                loc=self.loc(site.call),
                factory=site.name,
                long_lived=self._long_lived(site.call),
                url=self.value(url) if url is not None else None,
                lifetime=self.value(lifetime) if lifetime is not None else None,
                lifetime_arg=lifetime_arg,
            )
        )

    def _resolve_health(self, site: _Site) -> None:
        servicer = self._argument(site.args, 0, "servicer")
        if servicer is None:
            return
        made = self._binding(servicer) if isinstance(servicer, cst.Name) else servicer
        if not isinstance(made, cst.Call):
            return
        names = self.qualified(made.func)
        if names & HEALTH_SERVICERS:
            self.facts.health_servicers.append(HealthServicer(self.loc(site.call), None))
            return
        class_name = _text(made.func).rsplit(".", 1)[-1]
        if class_name in self.health_classes:
            self.facts.health_servicers.append(
                HealthServicer(self.loc(site.call), class_name, self.health_classes[class_name])
            )

    # -- arguments ---------------------------------------------------------------------

    @staticmethod
    def _keyword(args: Sequence[cst.Arg], name: str) -> cst.BaseExpression | None:
        for arg in args:
            if arg.keyword is not None and arg.keyword.value == name:
                return arg.value
        return None

    def _argument(
        self, args: Sequence[cst.Arg], index: int, name: str
    ) -> cst.BaseExpression | None:
        found = self._keyword(args, name)
        if found is not None:
            return found
        positional = [a for a in args if a.keyword is None and not a.star]
        return positional[index].value if index < len(positional) else None

    def _call_options(self, args: Sequence[cst.Arg], index: int) -> Options:
        expression = self._argument(args, index, "options")
        if expression is not None:
            return self.options(expression, 0)
        for arg in args:  # `**kwargs` that may carry `options`
            if arg.star == "**":
                mapping = self._follow(arg.value, 0)
                if not isinstance(mapping, cst.Dict):
                    return UNKNOWN_OPTIONS
                for element in mapping.elements:
                    if (
                        isinstance(element, cst.DictElement)
                        and self.value(element.key) == "options"
                    ):
                        return self.options(element.value, 0)
        return NO_OPTIONS

    def options(self, expression: cst.BaseExpression, depth: int) -> Options:
        """The (key, value) pairs of an options expression, followed through names,
        `+`, `list(...)`, and the `.append`/`.extend`/`+=` that add to a name."""
        if depth > _MAX_DEPTH:
            return UNKNOWN_OPTIONS
        if isinstance(expression, cst.Name):
            if expression.value == "None":
                return NO_OPTIONS
            bound = self._binding(expression)
            if bound is None:
                return UNKNOWN_OPTIONS
            result = self.options(bound, depth + 1)
            scope = self.scope(expression)
            for how, added in self.additions.get((id(scope), expression.value), []):
                result = result + (
                    self._pairs([added])
                    if how in ("append", "insert")
                    else self.options(added, depth + 1)
                )
            return result
        if isinstance(expression, cst.List | cst.Tuple):
            result = NO_OPTIONS
            plain: list[cst.BaseExpression] = []
            for element in expression.elements:
                if isinstance(element, cst.StarredElement):
                    result = result + self.options(element.value, depth + 1)
                else:
                    plain.append(element.value)
            return result + self._pairs(plain)
        if isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.Add):
            return self.options(expression.left, depth + 1) + self.options(
                expression.right, depth + 1
            )
        if isinstance(expression, cst.Call) and _text(expression.func) in ("list", "tuple"):
            return (
                self.options(expression.args[0].value, depth + 1) if expression.args else NO_OPTIONS
            )
        return UNKNOWN_OPTIONS

    def _pairs(self, elements: Iterable[cst.BaseExpression]) -> Options:
        entries: list[Option] = []
        complete = True
        for element in elements:
            pair = element
            if isinstance(pair, cst.Name):
                followed = self._binding(pair)
                pair = followed if followed is not None else pair
            if isinstance(pair, cst.Tuple | cst.List) and len(pair.elements) == 2:
                key = self.value(pair.elements[0].value)
                if isinstance(key, str):
                    value = self.value(pair.elements[1].value)
                    entries.append(Option(key, value, self.loc(element)))
                    continue
            complete = False
        return Options(complete, tuple(entries))

    # -- values ------------------------------------------------------------------------

    def _binding(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value a name is bound to, when it is bound exactly once by `=`."""
        scope = self.scope(name)
        if scope is None:
            return None
        assignments = [
            a
            for a in scope[name.value]
            if isinstance(a, Assignment)
            and not isinstance(a.node, cst.AugAssign)
            and not isinstance(self.parent(a.node), cst.AugAssign)  # `+=`: an addition
        ]
        if len(assignments) != 1:
            return None
        target = self.parent(assignments[0].node)
        if isinstance(target, cst.AssignTarget):
            statement = self.parent(target)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return statement.value
        if isinstance(target, cst.AnnAssign) and target.value is not None:
            return target.value
        return None

    def _follow(self, expression: cst.BaseExpression, depth: int) -> cst.BaseExpression | None:
        while isinstance(expression, cst.Name) and depth <= _MAX_DEPTH:
            bound = self._binding(expression)
            if bound is None:
                return None
            expression, depth = bound, depth + 1
        return expression

    def value(self, expression: cst.BaseExpression, depth: int = 0) -> Any:
        """A literal, an EnvRef, or UNKNOWN."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(expression, cst.SimpleString | cst.ConcatenatedString):
            text = expression.evaluated_value
            return text if isinstance(text, str) else UNKNOWN
        if isinstance(expression, cst.Integer | cst.Float):
            return expression.evaluated_value
        if isinstance(expression, cst.UnaryOperation) and isinstance(
            expression.operator, cst.Minus
        ):
            inner = self.value(expression.expression, depth + 1)
            return (
                -inner
                if isinstance(inner, int | float) and not isinstance(inner, bool)
                else UNKNOWN
            )
        if isinstance(expression, cst.Name):
            constants = {"True": True, "False": False, "None": None}
            if expression.value in constants:
                return constants[expression.value]
            bound = self._binding(expression)
            return self.value(bound, depth + 1) if bound is not None else UNKNOWN
        if isinstance(expression, cst.Dict):
            result: dict[str, Any] = {}
            for element in expression.elements:
                if not isinstance(element, cst.DictElement):
                    return UNKNOWN
                key = self.value(element.key, depth + 1)
                if not isinstance(key, str):
                    return UNKNOWN
                result[key] = self.value(element.value, depth + 1)
            return result
        if isinstance(expression, cst.List | cst.Tuple):
            return [
                self.value(e.value, depth + 1) if not isinstance(e, cst.StarredElement) else UNKNOWN
                for e in expression.elements
            ]
        if isinstance(expression, cst.Subscript):
            if "os.environ" in self.qualified(expression.value) and len(expression.slice) == 1:
                index = expression.slice[0].slice
                if isinstance(index, cst.Index):
                    name = self.value(index.value, depth + 1)
                    return EnvRef(name, None) if isinstance(name, str) else UNKNOWN
            return UNKNOWN
        if isinstance(expression, cst.Call):
            return self._call_value(expression, depth)
        if isinstance(expression, cst.FormattedString):
            parts: list[Any] = []
            for part in expression.parts:
                if isinstance(part, cst.FormattedStringText):
                    parts.append(part.value)
                elif isinstance(part, cst.FormattedStringExpression) and part.format_spec is None:
                    parts.append(self.value(part.expression, depth + 1))
                else:
                    return UNKNOWN
            return self._joined(parts)
        if isinstance(expression, cst.BinaryOperation):
            left, right = (
                self.value(expression.left, depth + 1),
                self.value(expression.right, depth + 1),
            )
            if _number(left) and _number(right):
                return _arithmetic(expression.operator, left, right)
            if isinstance(expression.operator, cst.Add):
                return self._joined([left, right])
            return UNKNOWN
        if isinstance(expression, cst.Attribute) and "math.inf" in self.qualified(expression):
            return math.inf
        return UNKNOWN

    def _call_value(self, call: cst.Call, depth: int) -> Any:
        names = self.qualified(call.func)
        if names & {"os.environ.get", "os.getenv"} and call.args:
            name = self.value(call.args[0].value, depth + 1)
            default = self.value(call.args[1].value, depth + 1) if len(call.args) > 1 else None
            if isinstance(name, str):
                return EnvRef(name, default if isinstance(default, str | None) else UNKNOWN)
            return UNKNOWN
        if "json.dumps" in names and call.args:
            data = self.value(call.args[0].value, depth + 1)
            return json.dumps(data) if _plain_json(data) else UNKNOWN
        if names & {"builtins.float", "float"} and call.args:
            text = self.value(call.args[0].value, depth + 1)
            if isinstance(text, str) and text.strip().lower() in ("inf", "+inf", "infinity"):
                return math.inf
        if names & {"builtins.str", "str"} and call.args:
            inner = self.value(call.args[0].value, depth + 1)
            return inner if isinstance(inner, str | EnvRef) else UNKNOWN
        if "math.inf" in names:
            return math.inf
        return UNKNOWN

    @staticmethod
    def _joined(parts: list[Any]) -> Any:
        """Concatenate string parts; one EnvRef among them becomes its prefix/suffix."""
        envs = [p for p in parts if isinstance(p, EnvRef)]
        if any(not isinstance(p, str | EnvRef) for p in parts) or len(envs) > 1:
            return UNKNOWN
        if not envs:
            return "".join(parts)
        at = parts.index(envs[0])
        prefix, suffix = "".join(parts[:at]), "".join(parts[at + 1 :])
        env = envs[0]
        return EnvRef(env.name, env.default, prefix + env.prefix, env.suffix + suffix)

    # -- lifetime ----------------------------------------------------------------------

    def _bound_name(self, call: cst.Call) -> str | None:
        """`server` in `server = grpc.server(...)`, `self._server` for an attribute."""
        node: cst.CSTNode | None = self.parent(call)
        while isinstance(node, cst.Arg | cst.Call | cst.Await):  # e.g. intercept_channel(...)
            node = self.parent(node)
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            return _text(node.targets[0].target)
        if isinstance(node, cst.AnnAssign):
            return _text(node.target)
        return None

    def _long_lived(self, call: cst.Call) -> bool:
        """Created once and kept (module level, `self.x`, returned by a factory, made in
        `main`/`serve`), as opposed to made for one use (`with`, a local in a function)."""
        child: cst.CSTNode = call
        node = self.parent(call)
        statement: cst.CSTNode | None = None
        while node is not None:
            if isinstance(node, cst.WithItem) and node.item is child:
                return False
            if isinstance(node, cst.Lambda):
                return False
            if statement is None and isinstance(
                node, cst.Assign | cst.AnnAssign | cst.Return | cst.Expr | cst.AugAssign
            ):
                statement = node
            if isinstance(node, cst.FunctionDef):
                return self._kept_by_function(node, statement)
            if isinstance(node, cst.Module | cst.ClassDef):
                return True
            child, node = node, self.parent(node)
        return True

    def _kept_by_function(self, function: cst.FunctionDef, statement: cst.CSTNode | None) -> bool:
        if function.name.value in ONCE_FUNCTIONS:
            return True
        if any(
            _text(d.decorator).split("(")[0].endswith(("cache", "lru_cache", "cached_property"))
            for d in function.decorators
        ):
            return True
        if isinstance(statement, cst.Return):
            return True  # a factory: the caller keeps what it returns
        if isinstance(statement, cst.Assign | cst.AnnAssign):
            targets = (
                [t.target for t in statement.targets]
                if isinstance(statement, cst.Assign)
                else [statement.target]
            )
            return any(isinstance(t, cst.Attribute) for t in targets)
        return False


def _syntax_problem(path: str, data: bytes, error: cst.ParserSyntaxError) -> Problem:
    """KLB004, placed where CPython's own parser puts the error (libcst's position is
    often a token later), falling back on libcst's when CPython accepts the file."""
    try:
        ast.parse(data, filename=path)
    except SyntaxError as python:
        if python.lineno is not None:
            return Problem(
                "KLB004",
                path,
                python.lineno,
                python.offset or 1,
                f"not valid Python: {python.msg}",
            )
    except (ValueError, RecursionError):
        pass
    return Problem(
        "KLB004", path, error.raw_line, error.raw_column + 1, f"not valid Python: {error.message}"
    )


def _text(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _arithmetic(operator: cst.BaseBinaryOp, left: Any, right: Any) -> Any:
    """Constant arithmetic as people write durations: `5 * 60 * 1000`, `2**31 - 1`."""
    try:
        if isinstance(operator, cst.Add):
            return left + right
        if isinstance(operator, cst.Subtract):
            return left - right
        if isinstance(operator, cst.Multiply):
            return left * right
        if isinstance(operator, cst.Power) and abs(right) <= 64:
            return left**right
    except (OverflowError, ZeroDivisionError):
        pass
    return UNKNOWN


def _plain_json(data: Any) -> bool:
    if isinstance(data, Unknown | EnvRef):
        return False
    if isinstance(data, dict):
        return all(_plain_json(v) for v in data.values())
    if isinstance(data, list):
        return all(_plain_json(v) for v in data)
    return True
